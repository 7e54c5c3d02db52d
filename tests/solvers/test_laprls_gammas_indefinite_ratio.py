"""select_laprls_gammas: a ratio whose warped kernel rounding made indefinite is no candidate, not an error.

The warped kernel :math:`\\tilde K_{SS} = K_{SS} - K_{S:}(I + M_w K)^{-1} M_w K_{:S}` is PSD in exact
arithmetic, but at a large ratio the solve loses that to rounding (60 points: smallest eigenvalue -0.7 times
the largest at ratio 1e15).  Before, such a ratio -- one's own, or reached by the grid's own extension
(GCV on a graph-smooth target extended the default axis 1e7 -> 1e9 ... 1e19) -- raised KernelRidgePath's
"K is not positive semidefinite ... check the kernel's parameters", about a kernel the caller never gave.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs.solvers import SelectionWarning, ridge_path_errors, select_laprls_gammas


def _warped_gram_SS(K, S, M, ratio):
    """Dense oracle: the warped kernel K_SS - K_S: (I + M_w K)^{-1} M_w K_:S, M_w = ratio M / n^2."""
    n = K.shape[0]
    MwK = (M @ K) * (ratio / n ** 2)
    G = K[np.ix_(S, S)] - K[S] @ np.linalg.solve(np.eye(n) + MwK, MwK[:, S])
    return (G + G.T) / 2


def _rcond(K, M, ratio):
    """Reciprocal 1-norm condition number of I + M_w K (dense inverse)."""
    n = K.shape[0]
    A = np.eye(n) + (M @ K) * (ratio / n ** 2)
    return 1.0 / (np.linalg.norm(A, 1) * np.linalg.norm(np.linalg.inv(A), 1))


def _problem():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(60, 2))
    D = ((X[:, None] - X[None]) ** 2).sum(-1)
    K = np.exp(-D / 2)
    W = np.exp(-D / 0.3)
    np.fill_diagonal(W, 0.0)
    W[W < 0.05] = 0.0
    L = sp.csr_array(np.diag(W.sum(1)) - W)
    S = np.arange(0, 60, 3)
    f = np.linalg.eigh(L.toarray())[1][:, 1]          # a graph-smooth target: the Fiedler vector
    return K, L, S, f[S]


def test_the_premise_the_warped_kernel_at_ratio_1e15_is_indefinite():
    K, L, S, _ = _problem()
    s = np.linalg.eigvalsh(_warped_gram_SS(K, S, L, 1e15))
    assert s.min() < -0.1 * np.abs(s).max()


def test_an_indefinite_ratio_of_ones_own_grid_scores_minus_inf_and_the_others_are_unchanged():
    K, L, S, y = _problem()
    gA = np.geomspace(1e-4, 1e0, 5)
    res = select_laprls_gammas(K, S, y, L, gA, [0.0, 10.0, 1e15], extend=False)
    assert np.all(res.scores[2] == -np.inf)
    for j, r in enumerate([0.0, 10.0]):      # the other rows: kernel ridge's LOO on their warped kernel
        expected, _ = ridge_path_errors(_warped_gram_SS(K, S, L, r), y, gA * S.size)
        np.testing.assert_allclose(res.scores[j], expected, rtol=1e-9)
    assert res.best_params["ratio"] in (0.0, 10.0)


def test_the_grid_extension_into_indefinite_ratios_does_not_raise():
    K, L, S, y = _problem()
    res = select_laprls_gammas(K, S, y, L, criterion="gcv")
    assert res.grid["ratio"].max() >= 1e11                  # the extension reached the rounding-dominated ratios
    assert np.isfinite(res.best_score)
    assert res.best_params["ratio"] < 1e11


def test_gcv_refuses_a_rounding_dominated_ratio_as_select_manifold_gammas_does():
    # GCV extended the default ratios 1e7 -> 1e9, 1e11, 1e13 and chose 1e13, where I + M_w K has a reciprocal
    # condition number ~1e-16: its scores were rounding.  The rule (ManifoldRidgePath.candidate_path):
    # below LAPRLS_MIN_RCOND (1e4 eps) a ratio is no candidate, for GCV as for LOO
    K, L, S, y = _problem()
    floor = 1e4 * np.finfo(float).eps           # LAPRLS_MIN_RCOND, the documented floor
    assert _rcond(K, L, 1e9) > 10 * floor > 50 * _rcond(K, L, 1e11)
    assert _rcond(K, L, 1e13) < 10 * np.finfo(float).eps      # its solve: rounding (relative error bound > 0.1)
    for criterion in ("gcv", "loo"):
        res = select_laprls_gammas(K, S, y, L, criterion=criterion)
        refused = res.grid["ratio"] >= 1e11
        assert refused.any() == (criterion == "gcv")       # LOO's choice is inside the default axis
        assert np.all(res.scores[refused] == -np.inf)
        assert np.isfinite(res.scores[~refused]).all()
        assert res.best_params["ratio"] <= 1e9


def test_every_ratio_indefinite_is_an_error_naming_the_ratios():
    K, L, S, y = _problem()
    # an error only: select_grid's "undefined on the whole grid" warning came with it (a flag read too early)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SelectionWarning)
        with pytest.raises(np.linalg.LinAlgError, match="numerically singular or indefinite at every ratio of the grid "
                                                        r"\(at 1e\+15: .*\); pass smaller ratios"):
            select_laprls_gammas(K, S, y, L, [1e-2, 1e-1], [1e15, 1e17], extend=False)


def test_a_kernel_that_is_not_psd_is_still_the_callers_error():
    K, L, S, y = _problem()
    with pytest.raises(ValueError, match="K is not positive semidefinite"):
        select_laprls_gammas(K - 2.0 * np.eye(60), S, y, L, [1e-2, 1e-1], [0.0, 10.0], extend=False)
