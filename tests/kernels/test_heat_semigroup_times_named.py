"""heat_semigroup: a time multiple <= 0 in ``times`` was refused as "s must be > 0", naming heat_kernel's argument,
which heat_semigroup does not have; now the entry of times is named (heat_kernel still names its s)."""

import numpy as np
import pytest

from graphrkhs import heat_kernel, heat_semigroup


X = np.arange(4.0).reshape(2, 2)


@pytest.mark.parametrize("times, message", [((1, 0), r"^times\[1\] must be > 0; got 0"),
                                            ((-2.0,), r"^times\[0\] must be > 0; got -2"),
                                            ((1, np.nan), r"^times\[1\] must be finite")])
def test_bad_time_named(times, message):
    with pytest.raises(ValueError, match=message):
        heat_semigroup(X, times=times)


def test_heat_kernel_names_s():
    with pytest.raises(ValueError, match=r"^s must be > 0; got -1"):
        heat_kernel(X, s=-1)
