"""Matern with kappa^2 outside float64's range: a ValueError naming nu / kappa when 2 nu / kappa^2 leaves the range
(not Python's OverflowError / ZeroDivisionError from kappa**2), and the filter itself when the shift and the peak are
representable (2 nu / kappa^2 computed without forming kappa^2)."""
import math

import numpy as np
import pytest

from graphrkhs import filters


@pytest.mark.parametrize("kappa", [1e200, 1e300, 1e-200, 1e-300])
def test_shift_out_of_range_is_a_value_error(kappa):
    with pytest.raises(ValueError, match="kappa"):
        filters.Matern(2.0, kappa)


@pytest.mark.parametrize("nu, kappa", [(1e-3, 1e155), (1e-40, 1e-170)])
def test_representable_shift_and_peak(nu, kappa):
    phi = filters.Matern(nu, kappa)
    # oracle in logarithms: log phi(0) = -nu (log 2 nu - 2 log kappa)
    log_shift = math.log(2.0 * nu) - 2.0 * math.log(kappa)
    lam = np.array([0.0, 0.5, 2.0])
    expected = np.array([math.exp(-nu * log_shift)] + [(math.exp(log_shift) + v) ** -nu for v in lam[1:]])
    np.testing.assert_allclose(phi(lam), expected, rtol=1e-12)
    assert phi.is_positive(2.0)


def test_an_ordinary_kappa_keeps_its_shift_to_the_last_bit():
    # 2 nu / kappa**2 as before the extreme-kappa fix (kappa * kappa is one ulp off kappa**2 for ~0.1 % of kappas)
    for nu, kappa in [(2.0, 2.759), (1.5, 4.536), (2.0, 7.964), (0.5, 9.072), (1.0, 1e100), (1.0, 1e-140)]:
        assert filters.Matern(nu, kappa)._shift == 2.0 * nu / kappa ** 2
