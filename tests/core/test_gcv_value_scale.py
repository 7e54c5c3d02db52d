"""The public GCV values (KernelRidgePath.gcv, gcv_scores) at any target scale, against a dense oracle.

GCV is homogeneous of degree 2 in y.  Before, the squared residuals were summed in the targets' units:
targets near 1e200 gave inf, targets near 1e154 with a large ridge gave inf although the GCV (about
4e307) is representable, and targets near 1e-159 lost digits among the subnormals (off by 7 steps
of 4.9e-324).  Now the values are computed on y divided by a power of two near max|y| and rescaled: exact
up to rounding; a value beyond float64 (about 1e400 at 1e200) is the largest float64, one below the
smallest subnormal 0.
"""

import numpy as np
import pytest

from graphrkhs import KernelRidgePath, gcv_scores

BIG = np.finfo(np.float64).max


def _problem(l=14, seed=2):
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(l, 2))
    K = np.exp(-((Z[:, None] - Z[None]) ** 2).sum(-1) / 2)
    y = np.sin(Z[:, 0]) + 0.2 * rng.normal(size=l)
    return K, y


def _dense(K, y, mu):
    """GCV of the unit-size targets y from the dense hat matrix, and that matrix."""
    l = K.shape[0]
    H = K @ np.linalg.inv(K + mu * np.eye(l))
    return np.mean((y - H @ y) ** 2) / (np.trace(np.eye(l) - H) / l) ** 2, H


def _values(K, y, mu, c):
    path = KernelRidgePath(K).gcv(c * y, [mu])[0, 0]
    H = _dense(K, y, mu)[1]
    return path, gcv_scores(H, c * y)


@pytest.mark.parametrize("c", [1e-150, 1e150])
@pytest.mark.parametrize("mu", [1e-2, 1.0, 1e3])
def test_gcv_values_at_1e150_are_the_dense_value_times_c_squared(c, mu):
    K, y = _problem()
    g, _ = _dense(K, y, mu)
    truth = g * (c * c)                  # 1e+-300: representable, one rounding
    for value in _values(K, y, mu, c):
        assert value == pytest.approx(truth, rel=1e-9)


@pytest.mark.parametrize("mu", [1e-2, 1.0, 1e3])
def test_gcv_values_at_1e200_are_the_largest_float_and_at_1e_minus_200_zero(mu):
    # the true values are about 1e+-400, outside float64: the documented largest float64 (inf before;
    # inf stays reserved for an undefined GCV) and 0 (the rounding of 1e-400)
    K, y = _problem()
    g, _ = _dense(K, y, mu)
    with np.errstate(over="ignore", under="ignore"):
        assert g * 1e200 * 1e200 == np.inf and g * 1e-200 * 1e-200 == 0.0
    for value in _values(K, y, mu, 1e200):
        assert value == BIG
    for value in _values(K, y, mu, 1e-200):
        assert value == 0.0


def test_gcv_value_representable_though_its_squares_overflow():
    # y near 1e154, ridge 1e3 (H small): the sum of squared residuals (about 5e308) overflowed, the GCV
    # (about 4e307) does not
    K, y = _problem()
    g, _ = _dense(K, y, 1e3)
    c = 1e154
    truth = g * c * c
    assert np.isfinite(truth) and truth > 1e307
    for value in _values(K, y, 1e3, c):
        assert value == pytest.approx(truth, rel=1e-9)


@pytest.mark.parametrize("c", [1e-159, 1e-160, 1e-161])
def test_gcv_value_among_the_subnormals_is_rounded_once(c):
    # y near 1e-160: the GCV (about 2e-319 at 1e-159) is subnormal, spaced 4.9e-324; squaring the residuals
    # there was off by up to 7 of those steps (-3.5e-323 at 1e-159)
    K, y = _problem()
    g, _ = _dense(K, y, 1e-2)
    truth = (g * c) * c                  # normal, then one rounding into the subnormals
    assert 0 < truth < np.finfo(np.float64).tiny
    for value in _values(K, y, 1e-2, c):
        assert abs(value - truth) <= 2 * np.finfo(np.float64).smallest_subnormal


def test_gcv_columns_are_scaled_each_on_its_own():
    # one column at 1e150 beside one at 1e-150: each exact (scaled by 1e150, the other would underflow)
    K, y = _problem()
    Y = np.column_stack([1e150 * y, 1e-150 * y[::-1]])
    g0, H = _dense(K, y, 1.0)
    g1, _ = _dense(K, y[::-1].copy(), 1.0)
    truth = np.array([g0 * 1e300, g1 * 1e-300])
    np.testing.assert_allclose(KernelRidgePath(K).gcv(Y, [1.0])[0], truth, rtol=1e-9)
    np.testing.assert_allclose(gcv_scores(H, Y), truth, rtol=1e-9)
