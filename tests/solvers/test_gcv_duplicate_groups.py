"""GCV with identical labeled points (``loo_groups``): the degrees of freedom are counted against the number
of distinct points.  On every row twice the plain GCV's normalization 1 - tr(H) / l allowed tr(H) up to l / 2
to cost nothing: it chose the interpolating fit (GCV ~ 0).  With the groups, GCV is that of the weighted
problem on the distinct points (weights: their multiplicities), (1/l) ||(I - H) y||^2 / (1 - tr(H) / g)^2."""
import numpy as np
from sklearn.datasets import make_moons

from graphrkhs import KernelRidgePath, pairwise_kernel
from graphrkhs._core.loo import duplicate_groups
from graphrkhs.solvers import ridge_path_errors, select_kernel_ridge


def _data():
    X, _ = make_moons(60, noise=0.1, random_state=0)
    X = X[:12]
    y = np.sin(3 * X[:, 0]) + 0.1 * np.random.default_rng(0).standard_normal(12)
    return X, y


def _gcv_dense(K, y, mu, groups, centred=False):
    l = y.size
    H = K @ np.linalg.inv(K + mu * np.eye(l))
    if centred:                                   # y_hat = mean + H (y - mean): H_c = H + (I - H) 1 1^T / l
        H = H + (np.eye(l) - H) @ np.ones((l, l)) / l
    g = np.unique(groups).size
    r = y - H @ y
    return np.mean(r ** 2) / (1 - np.trace(H) / g) ** 2


def test_gcv_with_groups_is_the_dense_formula():
    X, y = _data()
    X2, y2 = np.r_[X, X[:5]], np.r_[y, y[:5] + 0.1]         # five points twice, one copy's target moved
    K = pairwise_kernel(X2, None, kernel="gaussian", sigma=0.5)
    groups = duplicate_groups(X2)
    mus = np.array([1e-3, 1e-1, 10.0])
    path = KernelRidgePath(K)
    for centred in (False, True):
        yc = y2 - y2.mean() if centred else y2
        got = path.gcv(yc, mus, centred=centred, groups=groups)[:, 0]
        np.testing.assert_allclose(got, [_gcv_dense(K, yc, m, groups, centred) for m in mus], rtol=1e-10)
    # without copies the groups change nothing
    distinct = KernelRidgePath(pairwise_kernel(X, None, kernel="gaussian", sigma=0.5))
    np.testing.assert_array_equal(distinct.gcv(y, mus, groups=np.arange(12)), distinct.gcv(y, mus))


def test_every_row_twice_scores_as_every_row_once():
    X, y = _data()
    X2, y2 = np.r_[X, X], np.r_[y, y]
    alphas = np.array([1e-6, 1e-4, 1e-2, 1.0])
    once = ridge_path_errors(pairwise_kernel(X, None, sigma=0.5), y, alphas * 12, criterion="gcv")
    twice = ridge_path_errors(pairwise_kernel(X2, None, sigma=0.5), y2, alphas * 24, criterion="gcv",
                              loo_groups=duplicate_groups(X2))
    np.testing.assert_allclose(twice[0], once[0], rtol=1e-8)
    res = [select_kernel_ridge(lambda s, Z=Z: pairwise_kernel(Z, None, sigma=s), t, [0.25, 0.5, 1.0, 2.0],
                               ridge_scale="l", criterion="gcv", loo_groups=duplicate_groups(Z))
           for Z, t in ((X, y), (X2, y2))]
    assert res[0].best_params["sigma"] == res[1].best_params["sigma"] == 1.0      # twice: was 0.125 (GCV ~ 1e-19)
    np.testing.assert_allclose(res[1].best_params["alpha"], res[0].best_params["alpha"], rtol=1e-12)
    assert res[0].best_params["alpha"] > 1e-6                                      # twice: was 5e-11
