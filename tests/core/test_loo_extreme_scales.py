"""The leave-one-out engine at the ends of float64's range: residuals equal brute-force refits.

``KernelRidgePath.loo_residuals`` forms mu (K + mu I)^-1 y and the diagonal of mu (K + mu I)^-1:

* targets near 1e-300 with a ridge near 1e-300 underflowed to 0 -- every residual 0, a perfect
  leave-one-out fit at any ridge, which a selection would take;
* a kernel near 1e300 with a ridge 1e-300 made both 0 / 0 -- every residual reported undefined (inf) for a
  well-conditioned kernel.

The targets are now scaled per column by a power of two, and the ratio is formed with eigenvalues of I - H
scaled to at most 1.
"""
import numpy as np
import pytest

from graphrkhs import KernelRidgePath, graph_kernel_ridge_loo


def _refits(K, y, mu):
    l = K.shape[0]
    r = np.empty(l)
    for i in range(l):
        keep = np.arange(l) != i
        beta = np.linalg.solve(K[np.ix_(keep, keep)] + mu * np.eye(l - 1), y[keep])
        r[i] = y[i] - K[i, keep] @ beta
    return r


def _problem(l=20, seed=0):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(l, 5))
    return A @ A.T + 0.1 * np.eye(l), rng.normal(size=l)


@pytest.mark.parametrize("k_scale, mu, y_scale", [
    (1.0, 1e-300, 1e-300),          # tiny targets, tiny ridge: mu (K + mu I)^-1 y ~ 1e-600
    (1e300, 1e-300, 1.0),           # ridge 1e-600 of a well-conditioned kernel: the interpolant's LOO
    (1e300, 1e-300, 1e-300),
    (1e-300, 1e-300, 1e300),
])
def test_residuals_are_the_refits_at_any_scale(k_scale, mu, y_scale):
    K, y = _problem()
    expected = _refits(K, y, mu / k_scale) * y_scale          # the same problem in units of K and y
    got = graph_kernel_ridge_loo(K * k_scale, y * y_scale, [mu])[0, :, 0]
    assert np.all(np.isfinite(got))
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=0)


def test_several_columns_each_in_its_own_units():
    K, y = _problem()
    Y = np.column_stack([y * 1e-300, y, y * 1e300])
    got = KernelRidgePath(K).loo_residuals(Y, [1e-3, 1.0])
    for g, mu in enumerate([1e-3, 1.0]):
        base = _refits(K, y, mu)
        for j, c in enumerate([1e-300, 1.0, 1e300]):
            np.testing.assert_allclose(got[g, :, j], base * c, rtol=1e-10)
