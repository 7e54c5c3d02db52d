"""Leave-group-out over identical labeled points: the closed form against refits without the group."""

import numpy as np
import pytest

from graphrkhs import KernelRidgePath
from graphrkhs._core.loo import duplicate_groups
from graphrkhs.solvers import select_ridge_alpha
from graphrkhs.solvers._selection import centred_loo_residuals


def _duplicated(seed=0, l=9, copies=(0, 0, 3, 5, 5)):
    """1-D points, some repeated exactly (rows ``copies`` appended again), a Gaussian kernel, noisy targets."""
    rng = np.random.default_rng(seed)
    x = np.sort(rng.uniform(0, 1, l))
    x = np.concatenate([x, x[list(copies)]])
    y = np.sin(6 * x) + 0.3 * rng.normal(size=x.size)
    K = np.exp(-(x[:, None] - x[None]) ** 2 / (2 * 0.15 ** 2))
    return x, K, y


def _refit_group(K, y, mu, groups, Psi=None, centred=False):
    """Oracle: for every row, the residual of the fit without all rows of its group (dense solves)."""
    l = y.size
    out = np.empty(l)
    for i in range(l):
        keep = groups != groups[i]
        yk = y[keep]
        offset = 0.0
        if centred:
            offset = yk.mean()
            yk = yk - offset
        Kk = K[np.ix_(keep, keep)] + mu * np.eye(keep.sum())
        if Psi is None:
            pred = K[i, keep] @ np.linalg.solve(Kk, yk)
        else:
            P = Psi[keep]
            q = P.shape[1]
            A = np.block([[Kk, P], [P.T, np.zeros((q, q))]])
            sol = np.linalg.solve(A, np.concatenate([yk, np.zeros(q)]))
            pred = K[i, keep] @ sol[:-q] + Psi[i] @ sol[-q:]
        out[i] = y[i] - pred - offset
    return out


def test_duplicate_groups_labels_identical_rows_only():
    X = np.array([[0.0, 1.0], [2.0, 3.0], [0.0, 1.0], [2.0, 3.5], [2.0, 3.0], [9.0, 9.0]])
    g = duplicate_groups(X)
    assert g[0] == g[2] and g[1] == g[4] and len({g[0], g[1], g[3], g[5]}) == 4
    assert duplicate_groups(X[[0, 1, 3, 5]]) is None


@pytest.mark.parametrize("free_constant", [False, True])
def test_group_loo_equals_refits_without_the_group(free_constant):
    x, K, y = _duplicated()
    groups = duplicate_groups(x[:, None])
    assert np.bincount(groups).max() == 3                      # a point three times, one twice, one ...
    Psi = np.ones((y.size, 1)) if free_constant else None
    mus = np.array([1e-3, 0.1, 2.0])
    R = KernelRidgePath(K, unpenalized=Psi).loo_residuals(y, mus, groups=groups)
    for j, mu in enumerate(mus):
        np.testing.assert_allclose(R[j, :, 0], _refit_group(K, y, mu, groups, Psi), rtol=1e-7, atol=1e-10)
    # without groups every row is its own group: the classical LOO, r_i / (1 - H_ii)
    single = np.arange(y.size)
    np.testing.assert_allclose(KernelRidgePath(K, unpenalized=Psi).loo_residuals(y, mus, groups=single),
                               KernelRidgePath(K, unpenalized=Psi).loo_residuals(y, mus), rtol=1e-12)


def test_centred_group_loo_retakes_the_mean_without_the_group():
    x, K, y = _duplicated(seed=1)
    groups = duplicate_groups(x[:, None])
    mus = np.array([0.01, 0.5])
    yc = y - y.mean()
    R = centred_loo_residuals(KernelRidgePath(K), yc[:, None], mus, groups)
    for j, mu in enumerate(mus):
        np.testing.assert_allclose(R[j, :, 0], _refit_group(K, y, mu, groups, centred=True), rtol=1e-7,
                                   atol=1e-10)


def test_selection_on_duplicates_no_longer_runs_to_the_rough_edge():
    # every labeled point twice: leave-one-out keeps the copy and its residual is ~0 at a vanishing ridge;
    # leave-group-out chooses as on the points once
    x, K, y = _duplicated(seed=2, l=25, copies=())
    X2 = np.concatenate([x, x])
    K2 = np.exp(-(X2[:, None] - X2[None]) ** 2 / (2 * 0.15 ** 2))
    y2 = np.concatenate([y, y])
    alphas = np.geomspace(1e-8, 1e1, 19)
    once = select_ridge_alpha(K, y, alphas, extend=False).best_params["alpha"]
    naive = select_ridge_alpha(K2, y2, alphas, extend=False).best_params["alpha"]
    grouped = select_ridge_alpha(K2, y2, alphas, extend=False,
                                 loo_groups=duplicate_groups(X2[:, None])).best_params["alpha"]
    assert naive == alphas[0]                                 # the rough edge
    # the twice-labeled ridge fit at mu equals the once-labeled one at mu / 2 (same minimizer): alpha halves
    assert abs(np.log(grouped / (once / 2))) <= np.log(alphas[1] / alphas[0]) + 1e-9
