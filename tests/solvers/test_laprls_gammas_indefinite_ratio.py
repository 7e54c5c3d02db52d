"""select_laprls_gammas: a ratio whose warped kernel rounding made indefinite is no candidate, not an error.

The warped kernel :math:`\\tilde K_{SS} = K_{SS} - K_{S:}(I + M_w K)^{-1} M_w K_{:S}` is PSD in exact
arithmetic, but at a large ratio the solve loses that to rounding (60 points: smallest eigenvalue -0.7 times
the largest at ratio 1e15).  Before, such a ratio -- one's own, or reached by the grid's own extension
(GCV on a graph-smooth target extended the default axis 1e7 -> 1e9 ... 1e19) -- raised KernelRidgePath's
"K is not positive semidefinite ... check the kernel's parameters", about a kernel the caller never gave.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs.solvers import ridge_path_errors, select_laprls_gammas
from graphrkhs.solvers._selection import _warped_gram_SS


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
        np.testing.assert_allclose(res.scores[j], expected, rtol=1e-12)
    assert res.best_params["ratio"] in (0.0, 10.0)


def test_the_grid_extension_into_indefinite_ratios_does_not_raise():
    K, L, S, y = _problem()
    res = select_laprls_gammas(K, S, y, L, criterion="gcv")
    assert res.grid["ratio"].max() >= 1e15                  # the extension reached the indefinite ratios
    assert np.isfinite(res.best_score)
    assert res.best_params["ratio"] < 1e15


def test_every_ratio_indefinite_is_an_error_naming_the_ratios():
    K, L, S, y = _problem()
    with pytest.raises(np.linalg.LinAlgError, match="numerically indefinite at every ratio.*pass smaller ratios"):
        select_laprls_gammas(K, S, y, L, [1e-2, 1e-1], [1e15, 1e17], extend=False)


def test_a_kernel_that_is_not_psd_is_still_the_callers_error():
    K, L, S, y = _problem()
    with pytest.raises(ValueError, match="K is not positive semidefinite"):
        select_laprls_gammas(K - 2.0 * np.eye(60), S, y, L, [1e-2, 1e-1], [0.0, 10.0], extend=False)
