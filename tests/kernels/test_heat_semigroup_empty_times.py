"""heat_semigroup with an empty ``times``: a ValueError naming ``times`` (with scaled=False it was Python's own
"min() arg is an empty sequence" from inside the normalization check)."""

import numpy as np
import pytest

from graphrkhs import heat_semigroup


X = np.arange(6.0).reshape(3, 2)


@pytest.mark.parametrize("scaled", [False, True])
@pytest.mark.parametrize("times", [(), []])
def test_empty_times_refused(times, scaled):
    with pytest.raises(ValueError, match=r"^times must hold at least one time multiple"):
        heat_semigroup(X, times=times, scaled=scaled)


def test_one_time_still_works():
    (K,) = heat_semigroup(X, sigma=2.0, times=(1.5,))
    D = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    np.testing.assert_allclose(K, 1.5 ** -1 * np.exp(-D / (2 * 1.5 * 4.0)), rtol=1e-13)   # s^(-m/2), m = d = 2
