"""Matern.inverse_polynomial of a large integer nu answers None without listing nu + 1 coefficients.

The docstring of Matern: nu -> infinity with fixed kappa tends to the heat kernel, so nu = 1e6 or 1e7 (kappa =
sqrt(2 nu), phi(0) = 1) is a natural choice; its inverse polynomial (1 + lambda)^nu has coefficients binom(nu, k)
that overflow float64, so the answer is None -- after 1.6 s (nu = 1e6) or 15.7 s (1e7) of a Python loop over the
nu + 1 log-binomials, and a MemoryError (64 PiB for np.arange) for nu = 2^53.  graph_kernel_ridge(method='auto')
asks every kernel for it.  Now (1 + s)^nu <= (nu + 1) max_k binom(nu, k) s^(nu - k) (s the shift) answers first
when the largest coefficient provably overflows; every other answer is unchanged.
"""
import math

import numpy as np
import pytest

from graphrkhs import filters

LOG_MAX = math.log(np.finfo(np.float64).max)


@pytest.mark.parametrize("nu", [2.0 ** 53, 1e7])
def test_huge_nu_has_no_inverse_polynomial(nu):
    assert filters.Matern(nu, math.sqrt(2 * nu)).inverse_polynomial() is None


@pytest.mark.parametrize("nu", [1000, 1020, 1026, 1027, 1028, 1030, 1040])
def test_threshold_unchanged_near_shift_one(nu):
    # kappa = sqrt(2 nu): shift 1 up to rounding, coefficients binom(nu, k) to 1e-13; the largest, binom(nu, nu // 2)
    # (an exact integer), fits the limit exp(-1) max for nu <= 1027 (log margin 0.61 at 1027, 0.08 past it at 1028)
    phi = filters.Matern(nu, math.sqrt(2 * nu))
    c = phi.inverse_polynomial()
    if math.log(math.comb(nu, nu // 2)) >= LOG_MAX - 1.0:
        assert c is None
    else:
        assert c is not None
        s = phi._shift                      # 1 to rounding; s^(nu - k) moves the coefficients by up to ~1e-12,
        expected = np.array([math.comb(nu, k) * s ** (nu - k) for k in range(nu + 1)])
        # and above nu = 1000 they are exp(log-coefficients of size ~700): 2e-12 relative
        np.testing.assert_allclose(c, expected, rtol=1e-11, atol=0)


def test_small_shift_keeps_its_polynomial():
    # shift 1e-3: (1 + s)^nu is small although nu is large; phi(0) = s^-nu = 1e30 is in range
    phi = filters.Matern(10, math.sqrt(20 / 1e-3))
    c = phi.inverse_polynomial()
    s = phi._shift
    expected = np.array([math.comb(10, k) * s ** (10 - k) for k in range(11)])
    np.testing.assert_allclose(c, expected, rtol=1e-14, atol=0)
