"""The model-selection engine against brute-force refits by the library's own solvers.

Every leave-one-out oracle below refits the learner without label i (keeping
node i in the graph / in the point cloud, unlabeled) and predicts it; the
engine's closed forms never enter the oracle.  The learners scale their
weights by the number of labels l; the closed-form LOO keeps the weights of
the full fit, so the oracle passes ``weight * l / (l - 1)`` to the refit.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs import filters
from graphrkhs._core.validation import GraphWarning
from graphrkhs.graphs import knn_graph, laplacian
from graphrkhs.solvers import (
    GridResult, SelectionWarning, graph_kernel_ridge, hat_matrix_errors, kfold_scores, kfold_splits,
    laprls_fit, laprls_grid_errors, ridge_path_errors, rls_fit, select_grid, select_laprls_gammas,
    select_kernel_ridge, select_ridge_alpha, select_tikhonov_alpha, tikhonov_path_errors, tikhonov_solution,
)
from graphrkhs.solvers import consistency_grams, graph_penalty, grls_fit, plaprls_fit, prls_fit, select_linear_smoother


def _gauss(X, sigma):
    d2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    return np.exp(-d2 / (2 * sigma ** 2))


@pytest.fixture(scope="module")
def cloud():
    rng = np.random.default_rng(3)
    X = rng.uniform(-1, 1, size=(40, 2))
    y = np.sin(2 * X[:, 0]) + X[:, 1] + 0.3 * rng.normal(size=40)
    return X, y


ALPHAS = np.geomspace(1e-4, 10, 9)


def _oracle_mse(refit_predict, y, grid):
    """Mean squared LOO residual of explicit refits, for each grid value."""
    l = y.size
    out = []
    for a in grid:
        res = [y[i] - refit_predict(np.delete(np.arange(l), i), i, a) for i in range(l)]
        out.append(np.mean(np.square(res)))
    return np.array(out)


# ---------------------------------------------------------------------------
# Kernel ridge / RLS
# ---------------------------------------------------------------------------

def test_rls_loo_path_equals_refits_and_selects_the_same_alpha(cloud):
    X, y = cloud
    l = 15
    K = _gauss(X[:l], 0.5)
    ys = y[:l]

    def refit(keep, i, alpha):
        c = rls_fit(K[np.ix_(keep, keep)], ys[keep], alpha * l / (l - 1))   # same ridge alpha * l
        return K[i, keep] @ c

    oracle = _oracle_mse(refit, ys, ALPHAS)
    score, _ = ridge_path_errors(K, ys, ALPHAS * l)
    np.testing.assert_allclose(-score, oracle, rtol=1e-7)
    res = select_ridge_alpha(K, ys, ALPHAS, ridge_scale="l", extend=False)
    assert res.best_params["alpha"] == ALPHAS[np.argmin(oracle)]


def test_rls_with_free_constant_equals_saddle_point_refits(cloud):
    X, y = cloud
    l = 14
    K = _gauss(X[:l], 0.7)
    ys = y[:l] + 5.0                    # a non-zero mean

    def refit(keep, i, mu):
        m = keep.size
        A = np.block([[K[np.ix_(keep, keep)] + mu * np.eye(m), np.ones((m, 1))], [np.ones((1, m)), np.zeros((1, 1))]])
        sol = np.linalg.solve(A, np.concatenate([ys[keep], [0.0]]))
        return K[i, keep] @ sol[:m] + sol[m]

    oracle = _oracle_mse(refit, ys, ALPHAS)
    score, _ = ridge_path_errors(K, ys, ALPHAS, unpenalized=np.ones(l))
    np.testing.assert_allclose(-score, oracle, rtol=1e-7)
    # a shift of y shifts every LOO prediction: the residuals, hence the scores, do not move
    shifted, _ = ridge_path_errors(K, ys + 100.0, ALPHAS, unpenalized=np.ones(l))
    np.testing.assert_allclose(shifted, score, rtol=1e-7)
    # ... while without the free constant a large mean is shrunk and costs LOO error
    plain, _ = ridge_path_errors(K, ys + 100.0, ALPHAS)
    assert plain[-1] < score[-1] - 1.0


def test_graph_kernel_ridge_loo_equals_refits():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    W = knn_graph(X, n_neighbors=6)
    S = rng.choice(60, 12, replace=False)
    y = X[S, 0] + 0.2 * rng.normal(size=12)
    kern = filters.RegularizedLaplacian(3.0)
    L = laplacian(W, "normalized").toarray()
    Phi = np.linalg.inv(np.eye(60) + 3.0 * L)          # phi(L) = (I + 3L)^{-1}, dense oracle
    alphas = np.geomspace(1e-3, 3, 6)

    def refit(keep, i, alpha):
        F = graph_kernel_ridge(W, S[keep], y[keep], kern, alpha=alpha, laplacian="normalized", method="sparse",
                               tol=1e-12)
        return F[S[i]]

    oracle = _oracle_mse(refit, y, alphas)
    score, _ = ridge_path_errors(Phi[np.ix_(S, S)], y, alphas)
    np.testing.assert_allclose(-score, oracle, rtol=1e-6)
    res = select_ridge_alpha(Phi[np.ix_(S, S)], y, alphas, extend=False)
    assert res.best_params["alpha"] == alphas[np.argmin(oracle)]


# ---------------------------------------------------------------------------
# Tikhonov
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["combinatorial", "normalized"])
def test_tikhonov_loo_equals_refits_with_an_unlabeled_component(kind):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(50, 2))
    W = sp.lil_array(knn_graph(X, n_neighbors=5))
    W = sp.block_diag([sp.csr_array(W), sp.csr_array(np.array([[0, 1.0], [1.0, 0]]))]).tocsr()  # orphan pair
    S = np.sort(rng.choice(50, 10, replace=False))
    y = X[S, 1] + 2.0 + 0.1 * rng.normal(size=10)
    alphas = np.geomspace(1e-2, 1e2, 7)

    def refit(keep, i, alpha):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            F = tikhonov_solution(W, S[keep], y[keep], alpha=alpha, laplacian=kind, tol=1e-13,
                                  preconditioner=None)
        return F[S[i]]

    oracle = _oracle_mse(refit, y, alphas)
    score, _ = tikhonov_path_errors(W, S, y, alphas, laplacian=kind)
    np.testing.assert_allclose(-score, oracle, rtol=1e-6)
    res = select_tikhonov_alpha(W, S, y, alphas, laplacian=kind, extend=False)
    assert res.best_params["alpha"] == alphas[np.argmin(oracle)]
    if kind == "combinatorial":        # constants are in the Laplacian's null space: a shift moves nothing
        np.testing.assert_allclose(tikhonov_path_errors(W, S, y + 50.0, alphas)[0], score, rtol=1e-8)


def test_tikhonov_path_equals_hat_matrix_of_the_solver():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 2))
    W = knn_graph(X, n_neighbors=5)
    S = np.arange(0, 40, 4)
    y = np.sign(X[S, 0])
    alphas = [0.1, 1.0, 10.0]

    def hat(alpha):
        return tikhonov_solution(W, S, np.eye(S.size), alpha=alpha, tol=1e-13, preconditioner=None)[S]

    for crit in ("loo", "gcv"):
        for scoring in ("mse", "accuracy"):
            if crit == "gcv" and scoring == "accuracy":
                continue
            a = tikhonov_path_errors(W, S, y, alphas, criterion=crit, scoring=scoring)
            b = hat_matrix_errors(hat, y, [{"alpha": v} for v in alphas], criterion=crit, scoring=scoring)
            np.testing.assert_allclose(a[0], b[0], rtol=1e-6)


# ---------------------------------------------------------------------------
# LapRLS
# ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def manifold():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(45, 2))
    K = _gauss(X, 0.8)
    W = knn_graph(X, n_neighbors=6)
    M = graph_penalty(W)
    S = np.sort(rng.choice(45, 10, replace=False))
    y = np.sign(X[S, 0] + 0.3 * rng.normal(size=10))
    return X, K, M, S, y


def test_laprls_loo_grid_equals_refits(manifold):
    X, K, M, S, y = manifold
    l = S.size
    gA = np.array([1e-4, 1e-2, 1.0])
    gI = np.array([0.0, 1.0, 100.0])
    score, _ = laprls_grid_errors(K, S, y, M, gA, gI)
    for a, ga in enumerate(gA):
        for b, gi in enumerate(gI):
            def refit(keep, i, _):
                alpha = laprls_fit(K, S[keep], y[keep], M, ga * l / (l - 1), gi * l / (l - 1), solver="direct")
                return K[S[i]] @ alpha
            oracle = _oracle_mse(refit, y, [0])[0]
            np.testing.assert_allclose(-score[a, b], oracle, rtol=1e-6)
    # the warped-kernel path (grid on gamma_I / gamma_A) gives the same LOO errors
    for a, ga in enumerate(gA):
        for b, gi in enumerate(gI):
            res = select_laprls_gammas(K, S, y, M, [ga], [gi / ga], extend=False)
            np.testing.assert_allclose(res.best_score, score[a, b], rtol=1e-6)
            assert res.best_params["gamma_I"] == pytest.approx(gi)


def test_laprls_grid_gcv_and_accuracy_equal_the_solver_hat_matrix(manifold):
    X, K, M, S, y = manifold

    def hat(gamma_A, gamma_I):
        return K[S] @ laprls_fit(K, S, np.eye(S.size), M, gamma_A, gamma_I, solver="direct")

    params = [{"gamma_A": 1e-3, "gamma_I": 10.0}, {"gamma_A": 0.1, "gamma_I": 0.0}]
    for crit, scoring in (("gcv", "mse"), ("loo", "accuracy")):
        got = np.array([laprls_grid_errors(K, S, y, M, [p["gamma_A"]], [p["gamma_I"]], criterion=crit,
                                           scoring=scoring)[0][0, 0] for p in params])
        want = hat_matrix_errors(hat, y, params, criterion=crit, scoring=scoring)[0]
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_laprls_free_constant_follows_a_shift(manifold):
    X, K, M, S, y = manifold
    a = laprls_grid_errors(K, S, y, M, [1e-2], [1.0], fit_intercept=True)[0]
    b = laprls_grid_errors(K, S, y + 7.0, M, [1e-2], [1.0], fit_intercept=True)[0]
    np.testing.assert_allclose(a, b, rtol=1e-8)
    with pytest.raises(ValueError, match="M @ 1 = 0"):
        laprls_grid_errors(K, S, y, M + sp.eye(45), [1e-2], [1.0], fit_intercept=True)


# ---------------------------------------------------------------------------
# GCV closed form
# ---------------------------------------------------------------------------

def test_gcv_matches_its_definition(cloud):
    X, y = cloud
    K = _gauss(X[:20], 0.5)
    ys = np.column_stack([y[:20], y[:20] ** 2])
    mus = [1e-3, 0.1, 2.0]
    got = -ridge_path_errors(K, ys, mus, criterion="gcv")[0]
    for g, mu in zip(got, mus):
        H = K @ np.linalg.inv(K + mu * np.eye(20))
        R = ys - H @ ys
        want = np.mean([np.sum(R[:, j] ** 2) / 20 / (np.trace(np.eye(20) - H) / 20) ** 2 for j in range(2)])
        np.testing.assert_allclose(g, want, rtol=1e-8)
    # with a free constant: H of the saddle-point system, column by column
    got = -ridge_path_errors(K, ys[:, 0], mus, unpenalized=np.ones(20), criterion="gcv")[0]
    for g, mu in zip(got, mus):
        A = np.block([[K + mu * np.eye(20), np.ones((20, 1))], [np.ones((1, 20)), np.zeros((1, 1))]])
        sol = np.linalg.solve(A, np.vstack([np.eye(20), np.zeros((1, 20))]))
        H = K @ sol[:20] + sol[20:]
        r = ys[:, 0] - H @ ys[:, 0]
        np.testing.assert_allclose(g, np.sum(r ** 2) / 20 / (np.trace(np.eye(20) - H) / 20) ** 2, rtol=1e-8)


# ---------------------------------------------------------------------------
# Grids that extend
# ---------------------------------------------------------------------------

def test_edge_extension_reaches_an_interior_optimum():
    def evaluate(alpha):
        return -(np.log10(alpha) - 5.0) ** 2           # optimum at 1e5

    res = select_grid(evaluate, {"alpha": [1.0, 10.0, 100.0]}, extend=["alpha"], max_extensions=3)
    assert res.best_params["alpha"] == pytest.approx(1e5)
    assert res.n_extensions == 2 and not res.at_edge["alpha"]
    low = select_grid(lambda alpha: -(np.log10(alpha) + 4.0) ** 2, {"alpha": [1.0, 10.0]}, extend=["alpha"])
    assert low.best_params["alpha"] == pytest.approx(1e-4)


def test_edge_that_keeps_improving_warns():
    with pytest.warns(SelectionWarning, match="edge of its grid"):
        res = select_grid(lambda alpha: -np.log(alpha), {"alpha": [1.0, 10.0]}, extend=["alpha"],
                          max_extensions=1)
    assert res.best_params["alpha"] == pytest.approx(0.001)      # one extension of 3 decades downwards


def test_a_leading_zero_never_extends_and_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = select_grid(lambda gamma_I: -gamma_I, {"gamma_I": [0.0, 1.0, 10.0]}, extend=["gamma_I"])
    assert res.best_params["gamma_I"] == 0.0 and res.n_extensions == 0


def test_noiseless_rls_extends_alpha_downwards():
    x = np.linspace(0, 1, 25)
    K = np.exp(-(x[:, None] - x[None]) ** 2 / 0.1)
    y = np.sin(3 * x)                                    # smooth, no noise: less ridge is better
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SelectionWarning)
        res = select_ridge_alpha(K, y, [1e-2, 1e-1, 1.0], max_extensions=2)
    assert res.n_extensions >= 1 and res.best_params["alpha"] < 1e-2


def test_cv_results_table_and_ties_prefer_larger_regularization():
    res = GridResult({"alpha": [0.1, 1.0, 10.0], "sigma": [1.0, 2.0]}, np.array([[0, 1], [1, 0], [0, 0]]))
    assert res.best_params == {"alpha": 1.0, "sigma": 1.0}
    cv = res.cv_results_
    assert cv["params"][2] == {"alpha": 1.0, "sigma": 1.0}
    assert list(cv["rank_test_score"]).count(1) == 1 and cv["rank_test_score"][2] == 1
    np.testing.assert_array_equal(cv["param_alpha"], [0.1, 0.1, 1.0, 1.0, 10.0, 10.0])


# ---------------------------------------------------------------------------
# k-fold
# ---------------------------------------------------------------------------

def test_kfold_splits_stratified_and_deterministic():
    y = np.repeat([0, 1, 2], [10, 20, 30])
    a = kfold_splits(y, 5, random_state=7)
    b = kfold_splits(y, 5, random_state=7)
    c = kfold_splits(y, 5, random_state=8)
    assert all(np.array_equal(t1, t2) for (_, t1), (_, t2) in zip(a, b))
    assert not all(np.array_equal(t1, t2) for (_, t1), (_, t2) in zip(a, c))
    np.testing.assert_array_equal(np.sort(np.concatenate([te for _, te in a])), np.arange(60))
    for tr, te in a:
        np.testing.assert_array_equal(np.bincount(y[te]), [2, 4, 6])
        assert np.intersect1d(tr, te).size == 0
    assert len(kfold_splits(np.array([0, 0, 0, 1, 1, 1]), 5, random_state=0)) == 3   # smallest class: 3
    with pytest.raises(ValueError, match="at least 2 labeled points per class"):
        kfold_splits(np.array([0, 1, 2]), 3)


def test_kfold_splits_keep_a_class_s_only_label_in_every_training_set():
    # held out, a class's only label leaves its class without one (the flattest fit scores best whatever the
    # data); it trains in every fold and is tested in none; the folds are those of the other classes
    y = np.array([0, 0, 1, 2, 2, 2, 0])
    folds = kfold_splits(y, 5, random_state=0)
    assert len(folds) == 3                                   # the smallest class labeled twice or more: 3
    for tr, te in folds:
        assert 2 in tr and 2 not in te
        assert np.intersect1d(tr, te).size == 0 and np.union1d(tr, te).size == y.size
    np.testing.assert_array_equal(np.sort(np.concatenate([te for _, te in folds])), [0, 1, 3, 4, 5, 6])


def test_kfold_splits_unstratified_lowers_n_splits_to_leave_one_out():
    # documented (the stratified case was, this one was not): fewer points than n_splits -> one fold per point
    y = np.array([0.5, 1.5, -2.0])
    folds = kfold_splits(y, 5, random_state=0)
    assert len(folds) == 3
    assert sorted(int(te[0]) for _, te in folds) == [0, 1, 2] and all(te.size == 1 for _, te in folds)
    assert all(np.array_equal(np.sort(np.r_[tr, te]), np.arange(3)) for tr, te in folds)
    assert len(kfold_splits(np.arange(7.0), 5, random_state=0)) == 5      # enough points: n_splits as given


def test_kfold_scores_pick_the_right_threshold():
    x = np.linspace(-1, 1, 40)
    y = (x > 0.3).astype(int)

    def fit_predict(train, test, t):
        return (x[test] > t).astype(int)

    res = kfold_scores(fit_predict, y, {"t": [-0.5, 0.0, 0.3, 0.6]}, n_splits=4, random_state=0)
    assert res.best_params["t"] == 0.3 and res.best_score == 1.0
    assert res.std.shape == (4,) and res.cv_results_["std_test_score"][2] == 0.0


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------

def test_bad_input_is_named():
    K = np.eye(4)
    y = np.ones(4)
    with pytest.raises(ValueError, match="criterion"):
        ridge_path_errors(K, y, [1.0], criterion="aic")
    with pytest.raises(ValueError, match="ridges"):
        ridge_path_errors(K, y, [-1.0])
    with pytest.raises(ValueError, match="unpenalized"):
        ridge_path_errors(K, y, [1.0], unpenalized=np.ones((4, 2)))
    with pytest.raises(ValueError, match="hat"):
        hat_matrix_errors(lambda: np.eye(3), y, [{}])
    with pytest.raises(ValueError, match="extend names"):
        select_grid(lambda a: a, {"a": [1.0, 2.0]}, extend=["b"])
    with pytest.raises(ValueError, match="increasing"):
        select_grid(lambda a: a, {"a": [2.0, 1.0]})
    with pytest.raises(ValueError, match="gamma_Is"):
        laprls_grid_errors(np.eye(4), [0, 1], [1.0, -1.0], sp.eye(4), [1.0], [-1.0])


def test_select_kernel_ridge_width_and_alpha_equal_per_width_paths(cloud):
    X, y = cloud
    l = 20
    sigmas = [0.1, 0.3, 1.0, 3.0]
    calls = []

    def make(sigma):
        calls.append(sigma)
        return _gauss(X[:l], sigma)

    res = select_kernel_ridge(make, y[:l], sigmas, ALPHAS, ridge_scale="l", extend=False)
    table = np.array([ridge_path_errors(_gauss(X[:l], s), y[:l], ALPHAS * l)[0] for s in sigmas])
    np.testing.assert_allclose(res.scores, table, rtol=1e-10)
    j, a = np.unravel_index(np.argmax(table), table.shape)
    assert res.best_params == {"sigma": sigmas[j], "alpha": ALPHAS[a]}
    assert sorted(calls) == sorted(sigmas)                     # one kernel per width


def test_plaprls_loo_from_its_hat_matrix_equals_refits(manifold):
    X, K, M, S, y = manifold
    Kn = K / K.mean(axis=1, keepdims=True)                  # the empirical operator's row normalization
    Kn = (Kn + Kn.T) / 2
    l, n = S.size, K.shape[0]
    grid = {"gamma_A": [1e-3, 1e-1], "gamma_I": [0.0, 10.0]}

    def fitted(labeled, Yk, gamma_A, gamma_I, rows):
        a, b = plaprls_fit(Kn, labeled, Yk, M, gamma_A, gamma_I, solver="direct")
        return Kn[rows] @ a + np.ones((len(rows), 1)) @ np.atleast_1d(b).reshape(1, -1)

    res = select_linear_smoother(lambda gamma_A, gamma_I: fitted(S, np.eye(l), gamma_A, gamma_I, S), y, grid)
    for a, ga in enumerate(grid["gamma_A"]):
        for b, gi in enumerate(grid["gamma_I"]):
            oracle = _oracle_mse(lambda keep, i, _: fitted(S[keep], y[keep], ga * l / (l - 1), gi * l / (l - 1),
                                                           [S[i]])[0, 0], y, [0])[0]
            np.testing.assert_allclose(-res.scores[a, b], oracle, rtol=1e-6)
    np.testing.assert_array_equal(res.rank.ravel().argsort()[0], np.argmax(res.scores))


def test_prls_hat_loo_is_not_its_refit_loo(cloud):
    """PRLS expands f over the *labeled* kernel functions only, so the refit without i loses K(x_i, .):
    the closed-form LOO (which keeps it) is then not the refit LOO -- the engine documents PRLS under
    kfold_scores (n_splits = l: exact LOO by refits) instead."""
    X, y = cloud
    l = 16
    K, K1, K2, _ = consistency_grams(X[:l], X, sigma=0.6)

    def predict(keep, Yk, gamma, rows):
        a, b = prls_fit(K[np.ix_(keep, keep)], K1[np.ix_(keep, keep)], K2[np.ix_(keep, keep)], Yk, gamma)
        return K[np.ix_(rows, keep)] @ a + np.atleast_1d(b).reshape(1, -1)

    full = np.arange(l)
    hat_loo = -hat_matrix_errors(lambda gamma: predict(full, np.eye(l), gamma, full), y[:l], [{"gamma": 1e-2}])[0]
    refit = _oracle_mse(lambda keep, i, g: predict(keep, y[keep], g * l / (l - 1), [i])[0, 0], y[:l], [1e-2])
    assert abs(hat_loo[0] - refit[0]) > 1e-3 * refit[0]
    # k-fold with one point per fold is the refit LOO
    res = kfold_scores(lambda tr, te, gamma: predict(tr, y[tr], gamma * l / (l - 1), te)[:, 0], y[:l],
                       {"gamma": [1e-2]}, n_splits=l, stratify=False, scoring="mse")
    np.testing.assert_allclose(-res.best_score, refit[0], rtol=1e-10)


def test_grls_loo_is_the_ridge_path_with_its_features_unpenalized(cloud):
    X, y = cloud
    l = 18
    Phi = _gauss(X[:l], 0.5)
    Psi = np.column_stack([np.ones(l), X[:l, 0]])          # constants and a linear trend, unregularized
    gammas = np.array([1e-3, 1e-1, 10.0])

    def refit(keep, i, gamma):
        c, beta = grls_fit(Phi[np.ix_(keep, keep)], Psi[keep], y[keep], gamma * l / (l - 1))
        return Phi[i, keep] @ c + Psi[i] @ beta

    oracle = _oracle_mse(refit, y[:l], gammas)
    score, _ = ridge_path_errors(Phi, y[:l], gammas * l, unpenalized=Psi)   # G-RLS ridge: m * gamma
    np.testing.assert_allclose(-score, oracle, rtol=1e-6)


def test_extension_stops_at_a_bound_without_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = select_grid(lambda alpha: -np.log(alpha), {"alpha": [1.0, 10.0]}, extend=["alpha"],
                          bounds={"alpha": (0.05, np.inf)})
    assert res.best_params["alpha"] == pytest.approx(0.05)


# ---------------------------------------------------------------------------
# Tikhonov: the fit from the path's factorization, the harmonic limit, the matrix-free LOO
# ---------------------------------------------------------------------------

def _tik_graph(seed=1, n=50, l=10):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    W = knn_graph(X, n_neighbors=5)
    W = sp.block_diag([sp.csr_array(W), sp.csr_array(np.array([[0, 1.0], [1.0, 0]]))]).tocsr()  # orphan pair
    S = np.sort(rng.choice(n, l, replace=False))
    return X, W, S, rng


@pytest.mark.parametrize("kind", ["combinatorial", "normalized"])
def test_tikhonov_selected_solution_is_the_solver_at_the_selected_alpha(kind):
    from graphrkhs.solvers import select_tikhonov_solution

    X, W, S, rng = _tik_graph()
    Y = np.c_[X[S, 1] + 2.0, np.sin(X[S, 0])] + 0.1 * rng.normal(size=(10, 2))
    alphas = [0.0, 0.01, 0.1, 1.0, 10.0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for a in alphas:                     # each point of the grid, forced by a one-point grid
            F, res = select_tikhonov_solution(W, S, Y, [a], laplacian=kind, extend=False)
            assert res.best_params["alpha"] == a
            ref = tikhonov_solution(W, S, Y, alpha=a, laplacian=kind, tol=1e-13, preconditioner=None)
            np.testing.assert_allclose(F, ref, atol=1e-9)
        F, res = select_tikhonov_solution(W, S, Y, alphas, laplacian=kind, extend=False)
    score, _ = tikhonov_path_errors(W, S, Y, alphas[1:], laplacian=kind)
    np.testing.assert_allclose(res.scores[1:], score, rtol=1e-10)


@pytest.mark.parametrize("kind", ["combinatorial", "normalized"])
def test_tikhonov_alpha_zero_scores_the_harmonic_refits(kind):
    from graphrkhs.solvers import harmonic_solution, select_tikhonov_solution

    X, W, S, rng = _tik_graph(seed=5)
    y = X[S, 0] - 1.0 + 0.05 * rng.normal(size=S.size)

    def refit(keep, i, _):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return harmonic_solution(W, S[keep], y[keep], laplacian=kind, tol=1e-13, preconditioner=None)[S[i]]

    oracle = _oracle_mse(refit, y, [0.0])[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, res = select_tikhonov_solution(W, S, y, [0.0, 1e-3], laplacian=kind, extend=False)
    assert -res.scores[0] == pytest.approx(oracle, rel=1e-7)
    # and it is the limit of the path: a tiny alpha scores (nearly) the same
    assert -res.scores[1] == pytest.approx(oracle, rel=1e-2)


def test_stochastic_tikhonov_loo_matches_the_exact_one_within_the_probe_error():
    from graphrkhs.solvers import select_tikhonov_solution, tikhonov_stochastic_errors

    rng = np.random.default_rng(7)
    X = rng.uniform(size=(400, 2))
    W = knn_graph(X, n_neighbors=8)
    S = np.sort(rng.choice(400, 80, replace=False))
    y = np.sin(4 * X[S, 0]) + X[S, 1] + 0.8 * rng.normal(size=80)
    alphas = np.array([0.0, 1e-2, 1e-1, 1.0, 10.0, 100.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, res_exact = select_tikhonov_solution(W, S, y, alphas, extend=False, method="exact")
    exact = res_exact.scores
    errors = {}
    for p in (16, 64):
        est, _ = tikhonov_stochastic_errors(W, S, y, alphas, n_probes=p, random_state=3, tol=1e-12)
        errors[p] = np.abs(est / exact - 1).max()
        # diag(I - H) has a relative std of ~0.1-0.3 per entry at 64 probes here; its errors average out
        # over the 80 points of the LOO MSE: measured 0.09 at 16 probes and 0.008 at 64
        assert errors[p] < 1 / np.sqrt(p), (p, errors[p])
    # a curve whose best point beats the others by more than twice the estimate's error: same choice
    coarse = np.array([0.0, 1.0, 10.0, 100.0])
    srt = np.sort(-exact[np.isin(alphas, coarse)])
    assert srt[1] / srt[0] - 1 > 2 * errors[64]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, res = select_tikhonov_solution(W, S, y, coarse, extend=False, method="stochastic", n_probes=64,
                                          random_state=3)
    assert res.best_params["alpha"] == res_exact.best_params["alpha"] == 1.0


def test_stochastic_loo_with_a_free_constant_is_the_projected_operator(cloud):
    from graphrkhs.solvers import stochastic_loo_errors

    X, y = cloud
    K = _gauss(X, 0.5)
    l = y.size

    def residual(Z, alpha):                  # (I - H) Z = alpha (K + alpha I)^{-1} Z
        return alpha * np.linalg.solve(K + alpha * np.eye(l), Z)

    params = [{"alpha": a} for a in (1e-2, 1e-1, 1.0)]
    exact = ridge_path_errors(K, y + 5.0, [1e-2, 1e-1, 1.0], unpenalized=np.ones(l))[0]
    est, _, rel = stochastic_loo_errors(residual, y + 5.0, params, n_probes=400, unpenalized=np.ones(l),
                                        return_stderr=True)
    np.testing.assert_allclose(est, exact, rtol=6 * np.median(rel))
    gcv_exact = ridge_path_errors(K, y, [0.1], criterion="gcv")[0]
    gcv_est = stochastic_loo_errors(residual, y, [{"alpha": 0.1}], n_probes=400, criterion="gcv")[0]
    np.testing.assert_allclose(gcv_est, gcv_exact, rtol=0.1)


# --- graph_cut_choice (the Fredholm classifiers' tie-break) ------------------------------------------

def test_graph_cut_choice_keeps_the_smoothest_candidate_within_one_standard_error():
    from graphrkhs.solvers import graph_cut_choice

    # a path graph 0-1-2-3-4-5; labels of each grid point (row i, column j) as a step at position p
    edges = (np.array([0, 1, 2, 3, 4]), np.array([1, 2, 3, 4, 5]))
    steps = {(0, 0): [0, 1, 0, 1, 0, 1], (0, 1): [0, 0, 0, 1, 1, 1], (1, 0): [0, 0, 1, 1, 0, 0],
             (1, 1): [0, 0, 0, 0, 0, 1]}
    calls = []

    def predict(i, js):
        calls.append((i, tuple(js)))
        return np.array([steps[(i, j)] for j in js])

    l = 16
    acc = np.array([[1.0, 15 / 16], [14 / 16, 0.5]])
    mse = np.array([[0.1, 0.3], [0.2, 0.05]])
    # best 1.0: one standard error is 0, so only (0, 0) is a candidate, however rough
    assert graph_cut_choice(acc, mse, l, predict, edges) == (0, 0)
    # best 15/16: SE = sqrt(15/16 / 16 / 16) = 0.0605: (0, 0) 15/16 and (0, 1) 15/16 ... and 14/16 = 0.875 is
    # below 15/16 - 0.0605 = 0.877, so not a candidate
    acc = np.array([[15 / 16, 15 / 16], [14 / 16, 0.5]])
    calls.clear()
    assert graph_cut_choice(acc, mse, l, predict, edges) == (0, 1)          # one cut edge against five
    assert calls == [(0, (0, 1))]                                            # no prediction off the candidates
    # equal cuts: the lower LOO MSE wins
    steps[(0, 0)] = [1, 1, 1, 0, 0, 0]
    assert graph_cut_choice(acc, mse, l, predict, edges) == (0, 0)
    # -inf accuracy (an invalid grid point) is never a candidate; among (0, 1), (1, 0), (1, 1) the normalized
    # cut decides: (0, 1) = [1,1,1,0,0,0] cuts one edge between volumes 5 and 5 (Ncut 1/5 + 1/5 = 0.4),
    # (1, 1) = [0,0,0,0,0,1] one edge off a class of volume 1 (1/9 + 1/1), (1, 0) two edges (2/6 + 2/4)
    acc = np.array([[-np.inf, 0.5], [0.5, 0.5]])
    assert graph_cut_choice(acc, mse, l, predict, edges) == (0, 1)


def test_graph_cut_choice_is_the_normalized_cut_and_refuses_degenerate_labelings():
    from graphrkhs.solvers import graph_cut_choice

    # two 4-cliques joined by the edge 3-4 (each undirected edge once)
    clique = [(i, j) for i in range(4) for j in range(i + 1, 4)]
    und = clique + [(i + 4, j + 4) for i, j in clique] + [(3, 4)]
    edges = (np.array([e[0] for e in und]), np.array([e[1] for e in und]))
    labelings = [np.zeros(8, int),                          # one class everywhere: no cut edge at all
                 np.r_[0, 0, 0, 0, 0, 0, 0, 1],             # a class of one node: 3 cut edges
                 np.r_[0, 0, 0, 0, 1, 1, 1, 1],             # the two cliques: 1 cut edge
                 np.r_[0, 0, 1, 0, 1, 1, 1, 1]]             # node 2 on the wrong side: 4 cut edges
    acc, mse = np.full((1, 4), 0.75), np.zeros((1, 4))

    def predict(i, js):
        return np.array([labelings[j] for j in js])

    # Ncut by hand: vol = 2 * 13 = 26 endpoints; cliques: 1/13 + 1/13; one node: 3/3 + 3/23; node 2 moved: 4/10 + 4/16
    assert graph_cut_choice(acc, mse, 4, predict, edges, n_classes=2) == (0, 2)
    # the same edges given in both directions: the same Ncut
    both = (np.r_[edges[0], edges[1]], np.r_[edges[1], edges[0]])
    assert graph_cut_choice(acc, mse, 4, predict, both, n_classes=2) == (0, 2)
    # without the cliques' labeling the one-class labeling (0 cut edges) is not chosen (Ncut +inf), but the
    # labeling with node 2 moved (4/10 + 4/16 = 0.65 < 1 + 3/23)
    acc = np.array([[0.75, 0.75, -np.inf, 0.75]])
    assert graph_cut_choice(acc, mse, 4, predict, edges, n_classes=2) == (0, 3)
    # a third class that no candidate predicts makes every candidate +inf: the lower LOO MSE decides
    mse = np.array([[0.3, 0.2, 0.0, 0.1]])
    assert graph_cut_choice(acc, mse, 4, predict, edges, n_classes=3) == (0, 3)
    with pytest.raises(ValueError, match="range"):
        graph_cut_choice(acc, mse, 4, predict, edges, n_classes=1)
    # the only candidate of the best LOO accuracy (1.0: one standard error is 0) predicts one class: the next
    # grid points by accuracy are candidates (0.75, SE sqrt(0.75 * 0.25 / 4) = 0.217: down to 0.533, so not 0.5)
    calls = []

    def predict_logged(i, js):
        calls.append(tuple(js))
        return predict(i, js)

    acc = np.array([[1.0, -np.inf, 0.75, 0.5]])
    assert graph_cut_choice(acc, np.zeros((1, 4)), 4, predict_logged, edges, n_classes=2) == (0, 2)
    assert calls == [(0,), (2,)]


def _path_with_a_singly_labeled_component():
    # a 60-node kNN graph with 10 labels, plus a separate 3-node path holding 1 label
    X = np.random.default_rng(0).standard_normal((60, 2))
    W = np.zeros((63, 63))
    W[:60, :60] = knn_graph(X, 6).toarray()
    W[60, 61] = W[61, 60] = W[61, 62] = W[62, 61] = 1.0
    S = np.r_[np.arange(0, 60, 6), 61]
    y = np.r_[np.sign(X[:60:6, 0]), 1.0]
    return W, S, y


def test_tikhonov_loo_leaves_out_a_label_alone_in_its_component():
    # the label alone in its component has no LOO residual (no other label informs it); every engine
    # averages the others.  Oracle: refits of tikhonov_solution without each of the other labels.
    from graphrkhs.solvers import select_tikhonov_solution, tikhonov_stochastic_errors

    W, S, y = _path_with_a_singly_labeled_component()
    alphas = [0.01, 0.1, 1.0, 10.0]
    oracle = [-np.mean([(y[i] - tikhonov_solution(W, np.delete(S, i), np.delete(y, i), alpha=a)[S[i]]) ** 2
                        for i in range(S.size - 1)]) for a in alphas]
    np.testing.assert_allclose(tikhonov_path_errors(W, S, y, alphas)[0], oracle, rtol=1e-8)
    np.testing.assert_allclose(select_tikhonov_alpha(W, S, y, alphas, extend=False).scores, oracle, rtol=1e-8)
    stoch = tikhonov_stochastic_errors(W, S, y, alphas, n_probes=256)[0]
    assert np.isfinite(stoch).all()
    np.testing.assert_allclose(stoch, oracle, rtol=0.15)
    assert np.argmax(stoch) == np.argmax(oracle)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, res = select_tikhonov_solution(W, S, y, alphas=alphas, method="stochastic", extend=False)
    assert res.best_params["alpha"] == alphas[int(np.argmax(oracle))]


@pytest.mark.parametrize("method", ["exact", "stochastic"])
def test_tikhonov_loo_with_every_label_alone_is_undefined_with_one_warning(method):
    from graphrkhs.solvers import select_tikhonov_solution

    # three components with one label each (a selection needs 3 labels: MIN_LOO_LABELS)
    W = np.zeros((6, 6))
    for a, b in [(0, 1), (2, 3), (4, 5)]:
        W[a, b] = W[b, a] = 1.0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        F, res = select_tikhonov_solution(W, [0, 2, 4], [1.0, -1.0, 2.0], method=method)
    assert [type(w.message) for w in caught] == [SelectionWarning]
    assert np.isneginf(res.scores).all()
    np.testing.assert_allclose(F.ravel(), [1, 1, -1, -1, 2, 2])


def test_kfold_tie_break_keeps_a_flat_curve_at_the_preferred_point():
    # every ridge predicts the same labels (a flat held-out accuracy): without a tie rule the selection goes
    # to the grid's largest value (it extended along the flat curve before select_grid stopped on an exactly
    # flat criterion, tests/solvers/test_select_grid_flat_criterion.py); with one it stays at the preferred point
    y = np.array([0, 0, 0, 1, 1, 1])
    grid = {"ridge": np.geomspace(1e-2, 1e2, 5)}

    def fit_predict(train, test, ridge):
        return y[test]

    plain = kfold_scores(fit_predict, y, grid, n_splits=3, extend=("ridge",))
    assert plain.best_params["ridge"] == 1e2 and plain.n_extensions == 0    # the tie rule's edge, not extended
    res = kfold_scores(fit_predict, y, grid, n_splits=3, extend=("ridge",),
                       tie_break=lambda ridge: -abs(np.log(ridge / 1.0)))
    assert res.best_params["ridge"] == 1.0 and res.n_extensions == 0
    with pytest.raises(TypeError, match="tie_break must be a callable"):
        kfold_scores(fit_predict, y, grid, n_splits=3, tie_break=1.0)


def test_select_grid_rejects_a_score_table_with_transposed_axes():
    # the best point is (a=2, b=30); a table (len(b), len(a)) was reshaped to (len(a), len(b)) and
    # silently selected (a=4, b=10)
    def transposed(a, b):
        return -((np.log(b)[:, None] - np.log(30.0)) ** 2 + (np.log(a)[None, :] - np.log(2.0)) ** 2)

    with pytest.raises(ValueError, match=r"scores must have the grid's shape \(3, 2\).*got shape \(2, 3\)"):
        select_grid(transposed, {"a": [1.0, 2.0, 4.0], "b": [10.0, 30.0]})
    res = select_grid(lambda a, b: transposed(a, b).T, {"a": [1.0, 2.0, 4.0], "b": [10.0, 30.0]})
    assert res.best_params == {"a": 2.0, "b": 30.0}
    # length-1 axes carry no order: a flat table of a (1, 3) grid is accepted
    assert select_grid(lambda a, b: -np.abs(np.log(b) - 1.0), {"a": [1.0], "b": [1.0, 2.0, 4.0]},
                       ).best_params == {"a": 1.0, "b": 2.0}
    with pytest.raises(ValueError, match="tie_break must have the grid's shape"):
        GridResult({"a": [1.0, 2.0], "b": [1.0, 2.0, 3.0]}, np.zeros((2, 3)), tie_break=np.zeros((3, 2)))


@pytest.mark.parametrize("scoring", ["accuracy", "mse"])
def test_kfold_scores_compare_column_predictions_entrywise(scoring):
    rng = np.random.default_rng(0)
    x = rng.normal(size=40)
    y = (x > 0.3).astype(int)
    grid = {"t": [-1.0, 0.3, 1.0]}

    def flat(train, test, t):
        return (x[test] > t).astype(int)

    # the oracle: per-fold accuracy / squared error over the same folds, computed here
    folds = kfold_splits(y, 5, stratify=True, random_state=0)
    want = [np.mean([np.mean(flat(tr, te, t) == y[te]) if scoring == "accuracy"
                     else -np.mean((flat(tr, te, t) - y[te]) ** 2) for tr, te in folds]) for t in grid["t"]]
    # a (k, 1) column was compared with y[te] (k,) by broadcasting: a k x k table of pairs
    res = kfold_scores(lambda tr, te, t: flat(tr, te, t)[:, None], y, grid, scoring=scoring, stratify=True)
    np.testing.assert_allclose(res.scores, want, rtol=0, atol=1e-15)
    assert res.best_params == {"t": 0.3}
    with pytest.raises(ValueError, match=r"fit_predict must return one prediction per test point.*got shape"):
        kfold_scores(lambda tr, te, t: np.c_[flat(tr, te, t), flat(tr, te, t)], y, grid, scoring=scoring)


def test_accuracy_of_an_undefined_loo_is_undefined_not_the_negative_class():
    # at a ridge of 1e-22, far below the rounding level of this wide kernel's eigenvalues (their smallest are
    # rounding, l eps max s ~ 2e-13), (I - H)_ii comes from eigenvalues that are rounding and the LOO
    # residuals are declared undefined (inf); the accuracy counted their -inf predictions as the negative
    # class (80 % of y).  (At width 1 the smallest eigenvalue is 9e-8: the LOO of the interpolant is defined.)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    y = np.where(X[:, 0] + 0.8 * rng.normal(size=30) > -0.8, -1.0, 1.0)
    K = _gauss(X, 5.0)
    ridges = [1e-22, 1e-1, 1.0]
    acc, tie = ridge_path_errors(K, y, ridges, scoring="accuracy")
    assert acc[0] == -np.inf and tie[0] == -np.inf
    # the defined points: the sign of refit predictions (oracle: plain solves without point i)
    for a, mu in zip(acc[1:], ridges[1:]):
        pred = [K[i, np.arange(30) != i] @ np.linalg.solve(np.delete(np.delete(K, i, 0), i, 1) + mu * np.eye(29),
                                                            np.delete(y, i)) for i in range(30)]
        assert a == np.mean(np.sign(pred) == y)
    Y = np.eye(3)[np.arange(30) % 3]         # one-hot: -inf predictions were argmax 0, "class 0"
    assert ridge_path_errors(K, Y, ridges, scoring="accuracy")[0][0] == -np.inf
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SelectionWarning)
        assert select_ridge_alpha(K, y, ridges, scoring="accuracy", extend=False).best_params["alpha"] != 1e-22


def test_extension_keeps_the_callers_values_beyond_a_bound():
    # growing the other end of the axis clipped the whole axis to its bounds: a ridge of the caller's grid
    # below the rounding floor (1e-20 < 1e-10) was replaced by the floor, with the floor's score
    calls = []

    def evaluate(alpha):
        calls.append(alpha.copy())
        return -np.abs(np.log10(alpha) - 1.5)          # best at 10^1.5, above the grid

    res = select_grid(evaluate, {"alpha": [1e-20, 1e-1, 1.0]}, extend=("alpha",), bounds={"alpha": (1e-10, np.inf)})
    assert res.grid["alpha"][0] == 1e-20 and all(c[0] == 1e-20 for c in calls)
    np.testing.assert_allclose(res.grid["alpha"][1:], [1e-1, 1.0, 10.0, 100.0, 1000.0])
    assert res.best_params["alpha"] == pytest.approx(100.0)     # |2 - 1.5| ties |1 - 1.5|: the larger
    # a new value beyond the bound becomes the bound itself
    res = select_grid(lambda alpha: -np.log10(alpha), {"alpha": [1e-3, 1e-2]}, extend=("alpha",),
                      bounds={"alpha": (5e-5, np.inf)})
    np.testing.assert_allclose(res.grid["alpha"], [5e-5, 1e-4, 1e-3, 1e-2])


def test_public_selections_take_unsorted_grids_with_duplicates_and_name_bad_ones(cloud):
    X, y = cloud
    l = 15
    K = _gauss(X[:l], 0.5)
    ys = y[:l]
    ref = select_ridge_alpha(K, ys, [1e-3, 1e-2, 1e-1], extend=False)
    # duplicates raised "the grid of 'alpha' must be ... increasing" (an axis name, not the argument)
    res = select_ridge_alpha(K, ys, [1e-1, 1e-3, 1e-2, 1e-3], extend=False)
    np.testing.assert_array_equal(res.grid["alpha"], ref.grid["alpha"])
    np.testing.assert_array_equal(res.scores, ref.scores)
    res = select_kernel_ridge(lambda s: _gauss(X[:l], s), ys, [0.5, 0.3, 0.5], [1e-2, 1e-2, 1e-1], extend=False)
    np.testing.assert_array_equal(res.grid["sigma"], [0.3, 0.5])
    np.testing.assert_array_equal(res.grid["alpha"], [1e-2, 1e-1])
    M = graph_penalty(knn_graph(X[:25], 5))
    res = select_laprls_gammas(_gauss(X[:25], 0.5), np.arange(10), y[:10], M, [1e-2, 1e-2], [10.0, 0.0, 10.0],
                               extend=False)
    np.testing.assert_array_equal(res.grid["ratio"], [0.0, 10.0])
    # non-numbers: the argument is named (numpy's "could not convert string to float" before)
    with pytest.raises(ValueError, match="alphas must be a non-empty 1-D sequence"):
        select_ridge_alpha(K, ys, ["a", 1.0])
    with pytest.raises(ValueError, match="ratios must be a non-empty 1-D sequence"):
        select_laprls_gammas(_gauss(X[:25], 0.5), np.arange(10), y[:10], M, [1e-2], ["x"])
    with pytest.raises(ValueError, match="sigmas must be a non-empty 1-D sequence"):
        select_kernel_ridge(lambda s: _gauss(X[:l], s), ys, [[0.1], [0.2, 0.3]])


def test_loo_scores_check_the_targets_against_the_residuals():
    from graphrkhs.solvers import loo_scores

    R = np.array([[[0.5], [-2.5], [0.1]]])            # one grid point, l = 3, m = 1
    y = np.array([1.0, -1.0, 1.0])
    # oracle: predictions y - r = (0.5, 1.5, 0.9): signs (+, +, +) against (+, -, +)
    for Y in (y, y[:, None]):                         # a 1-D Y raised IndexError for accuracy
        acc, tie = loo_scores(R, Y, "accuracy")
        assert acc[0] == pytest.approx(2 / 3) and tie[0] == pytest.approx(-(0.25 + 6.25 + 0.01) / 3)
    # a Y of another length was silently ignored by "mse" (only its size scales the sum)
    with pytest.raises(ValueError, match=r"Y must have one row per labeled node \(3\); got 4"):
        loo_scores(R, np.ones((4, 1)), "mse")
    with pytest.raises(ValueError, match=r"Y must have the residuals' 1 column"):
        loo_scores(R, np.ones((3, 2)), "mse")


@pytest.mark.parametrize("scale", [1e-15, 2.0 ** -600, 2.0 ** 600])
def test_tikhonov_alpha_zero_score_does_not_depend_on_the_scale_of_the_weights(scale):
    # the harmonic solution, and so its leave-one-out, is the same for W and c W; its score divided
    # T = L/L_UU (in the units of the weights) by an absolute 1e-14: at c = 1e-15 every T_ii fell below it
    # and alpha = 0 scored -inf (with a false "undefined on the whole grid" SelectionWarning)
    from graphrkhs.solvers import harmonic_solution, select_tikhonov_solution

    X, W, S, rng = _tik_graph(seed=5)
    y = X[S, 0] - 1.0 + 0.05 * rng.normal(size=S.size)

    def refit(keep, i, _):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return harmonic_solution(W, S[keep], y[keep], tol=1e-13, preconditioner=None)[S[i]]

    oracle = _oracle_mse(refit, y, [0.0])[0]
    with warnings.catch_warnings():
        warnings.simplefilter("error", SelectionWarning)
        warnings.filterwarnings("ignore", category=GraphWarning)
        _, res = select_tikhonov_solution(sp.csr_array(W * scale), S, y, [0.0], extend=False)
        _, sto = select_tikhonov_solution(sp.csr_array(W * scale), S, y, [0.0], extend=False, method="stochastic",
                                          n_probes=8)
    assert -res.scores[0] == pytest.approx(oracle, rel=1e-7)
    # the matrix-free path (its operator at alpha = 0 is T itself): finite, the probe estimate of the same
    assert np.isfinite(sto.scores[0]) and -sto.scores[0] == pytest.approx(oracle, rel=0.5)


@pytest.mark.parametrize("size", [1e160, 1e-160])
def test_loo_scores_of_huge_and_tiny_targets_are_their_mean_squared_residuals(size):
    # targets near 1e160 whose LOO errors are ~1e140 (MSE ~1e280, a float64): the squared scale 1e320 in
    # Python floats raised OverflowError; near 1e-160 the MSE ~1e-320 is subnormal but still ordered
    from graphrkhs.solvers import loo_scores

    rng = np.random.default_rng(0)
    y = rng.choice([-1.0, 1.0], size=(6, 1)) * size
    R = rng.normal(size=(3, 6, 1)) * (size * 1e-20 if size > 1 else size * 1e3)
    score, tie = loo_scores(R, y)
    expected = -np.mean(R ** 2, axis=(1, 2))
    np.testing.assert_allclose(score, expected, rtol=1e-12 if size > 1 else 1e-2)
    np.testing.assert_array_equal(np.argsort(score), np.argsort(expected))


def test_exact_ties_go_to_the_larger_value_of_every_axis():
    # "ties are broken towards the larger regularization": on a 2-D grid the remaining ties went to the largest
    # value of the first axis but to the *smallest* of the second (the stable order of the flat index)
    flat = GridResult({"sigma": [0.5, 1.0], "alpha": [1e-3, 1e-2, 1e-1]}, np.zeros((2, 3)))
    assert flat.best_params == {"sigma": 1.0, "alpha": 1e-1}
    assert flat.rank[1, 2] == 1 and flat.rank[1, 1] == 2 and flat.rank[0, 2] == 4
    undefined = GridResult({"kernel": [1.0, 2.0], "alpha": [1e-3, 1.0]}, np.full((2, 2), -np.inf))
    assert undefined.best_params == {"kernel": 2.0, "alpha": 1.0}
    three = GridResult({"a": [1.0, 2.0], "b": [1.0, 2.0], "c": [1.0, 2.0]}, np.ones((2, 2, 2)))
    assert three.best_params == {"a": 2.0, "b": 2.0, "c": 2.0}
    # a better score or tie_break still wins over the rule
    tb = np.zeros((2, 3))
    tb[0, 0] = 1.0
    assert GridResult({"sigma": [0.5, 1.0], "alpha": [1e-3, 1e-2, 1e-1]}, np.zeros((2, 3)),
                      tie_break=tb).best_params == {"sigma": 0.5, "alpha": 1e-3}


def test_stochastic_tikhonov_extension_uses_the_probes_of_its_grid_for_a_generator():
    # one set of probes serves every grid point ("common random numbers"); a Generator as random_state drew
    # new probes for the points an extension adds, so their scores differed from those of the same grid
    # evaluated at once (and the extended curve mixed two estimates)
    from graphrkhs.solvers import select_tikhonov_solution

    X, W, S, rng = _tik_graph(seed=2, n=60, l=12)
    y = rng.normal(size=S.size)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, ext = select_tikhonov_solution(W, S, y, [0.1, 1.0], method="stochastic", n_probes=8, max_extensions=1,
                                          random_state=np.random.default_rng(0))
        _, once = select_tikhonov_solution(W, S, y, ext.grid["alpha"], method="stochastic", n_probes=8,
                                           extend=False, random_state=np.random.default_rng(0))
    assert ext.grid["alpha"].size > 2
    np.testing.assert_allclose(ext.scores, once.scores, rtol=1e-10)


@pytest.mark.parametrize("size", [1e200, 1e-200, 1e300, 1e-300])
def test_mse_selection_of_huge_and_tiny_targets_is_that_of_the_unit_targets(size):
    # the LOO residuals are linear in y: the selection must not change with its size.  Before, at 1e200 every
    # MSE overflowed (-inf everywhere, "undefined on the whole grid", the grid's last alpha 1.0) and at 1e-200
    # every MSE underflowed to 0 (a tie of the whole grid, alpha 1.0); the unit targets select alpha = 0.01
    rng = np.random.default_rng(0)
    x = np.sort(rng.uniform(0, 1, 25))
    K = np.exp(-(x[:, None] - x[None]) ** 2 / 0.02)
    y = np.sin(6 * x) + 0.1 * rng.normal(size=25)
    alphas = np.geomspace(1e-9, 1, 10)
    unit = select_ridge_alpha(K, y, alphas, extend=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SelectionWarning)
        big = select_ridge_alpha(K, y * size, alphas, extend=False)
    assert big.best_params == unit.best_params
    np.testing.assert_array_equal(big.rank, unit.rank)


def test_select_manifold_gammas_raises_when_no_ratio_is_usable_without_a_warning():
    # a nearly constant kernel (width 1e4 on unit-scale points): (I - K/n)^2 is singular at every ratio.  Before,
    # select_grid warned that the criterion is undefined on the whole grid and the fit at its tie-rule point then
    # raised LinAlgError all the same (return_coef=True) or came back as a "choice" (return_coef=False)
    import warnings as _w
    from graphrkhs import gaussian_kernel, knn_graph, laplacian as _lap
    from graphrkhs.solvers import select_manifold_gammas
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    K = gaussian_kernel(X, X, sigma=1e4)
    M = _lap(knn_graph(X, 6), "combinatorial")
    y = X[:10, 0]
    for return_coef in (False, True):
        with _w.catch_warnings():
            _w.simplefilter("error")
            with pytest.raises(np.linalg.LinAlgError, match="numerically singular at the ratio"):
                select_manifold_gammas(K, np.arange(10), y, M, consistency=True, return_coef=return_coef)
