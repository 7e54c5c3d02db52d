"""``"auto"`` for the inductive and data-dependent learners (issue 14): the engine's choice equals
brute-force leave-one-out refits, own grids and numbers, bad grids, scikit-learn meta-estimators,
and the noisy-circles acceptance at a small size."""

import warnings

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

from graphrkhs import (
    FredholmClassifier, GRLSClassifier, GRLSRegressor, LapRLSClassifier, LapRLSRegressor, PLapRLSClassifier,
    PLapRLSRegressor, PRLSClassifier, PRLSRegressor, RLSClassifier, RLSRegressor, SelectionWarning,
    WarpedKernelClassifier,
    WarpedKernelRegressor,
    consistency_grams, feature_map, graph_penalty, grls_fit, knn_graph, laprls_fit, pairwise_kernel, plaprls_fit,
    prls_fit,
)
from graphrkhs.datasets import make_noisy_circles, sample_labels
from graphrkhs.estimators._inductive import FALLBACK_GAMMA, LAPRLS_GAMMA_A_GRID
from graphrkhs.kernels import default_sigma
from graphrkhs.solvers import ManifoldRidgePath, prls_loo_errors, select_manifold_gammas, select_prls_gamma

pytestmark = pytest.mark.filterwarnings("ignore::graphrkhs.GraphRKHSWarning")


@pytest.fixture(scope="module")
def small():
    rng = np.random.default_rng(3)
    X = rng.uniform(-1, 1, (40, 2))
    f = 2.0 + np.sin(3 * X[:, 0]) + X[:, 1]
    S = rng.choice(40, 12, replace=False)
    y = f[S] + 0.2 * rng.normal(size=S.size)
    return X, S, y


def _brute_loo_mse(predict_without):
    """Mean squared LOO residual from refits: predict_without(i) -> prediction at labeled point i."""
    return predict_without


# --- exactness of the engine against refits ---------------------------------------------------------

def test_prls_loo_equals_refits(small):
    X, S, y = small
    K, Kp, Kpp, _ = consistency_grams(X[S], X, sigma=0.5)
    l = S.size
    gammas = [1e-4, 1e-2, 1.0]
    score, _ = prls_loo_errors(K, Kp, Kpp, y, gammas)
    for g, sc in zip(gammas, score):
        res = []
        for i in range(l):
            keep = np.r_[0:i, i + 1:l]
            # the full fit's weight gamma * l, in prls_fit's scaling gamma' * (l - 1)
            a, b = prls_fit(K[np.ix_(keep, keep)], Kp[np.ix_(keep, keep)], Kpp[np.ix_(keep, keep)], y[keep],
                            g * l / (l - 1))
            res.append(y[i] - K[i, keep] @ a - b[0])
        np.testing.assert_allclose(sc, -np.mean(np.square(res)), rtol=1e-8)


def _prls_refit_residuals(K, Kp, Kpp, Y, gamma, Psi):
    """Dense oracle: LOO residuals of PRLS by refits with prls_fit (label i and K(x_i, .) removed)."""
    l = K.shape[0]
    R = []
    for i in range(l):
        keep = np.r_[0:i, i + 1:l]
        a, b = prls_fit(K[np.ix_(keep, keep)], Kp[np.ix_(keep, keep)], Kpp[np.ix_(keep, keep)], Y[keep],
                        gamma * l / (l - 1), Psi[keep])
        R.append(Y[i] - K[i, keep] @ a - Psi[i] @ b)
    return np.array(R)


@pytest.mark.parametrize("null_space", ["none", "constant", "linear"])
def test_prls_downdate_loo_equals_refits(null_space):
    # the one-solve-per-gamma LOO (rank-one downdate + the constraint alpha_i = 0) against refits,
    # several targets, gammas over eight decades, with and without a null space
    rng = np.random.default_rng(11)
    X = rng.uniform(-1, 1, (30, 2))
    S = rng.choice(30, 10, replace=False)
    Y = np.c_[2.0 + np.sin(3 * X[S, 0]), X[S, 1] ** 2] + 0.1 * rng.normal(size=(10, 2))
    K, Kp, Kpp, _ = consistency_grams(X[S], X, sigma=0.6)
    Psi = {"none": np.zeros((10, 0)), "constant": np.ones((10, 1)), "linear": np.c_[np.ones(10), X[S]]}[null_space]
    gammas = [1e-5, 1e-3, 1e-1, 10.0, 1e3]
    score, _ = prls_loo_errors(K, Kp, Kpp, Y, gammas, Psi=Psi)
    oracle = [-np.mean(np.square(_prls_refit_residuals(K, Kp, Kpp, Y, g, Psi))) for g in gammas]
    np.testing.assert_allclose(score, oracle, rtol=1e-8)
    acc, _ = prls_loo_errors(K, Kp, Kpp, np.where(Y[:, :1] > 2.3, 1.0, -1.0), gammas, Psi=Psi, scoring="accuracy")
    for g, a in zip(gammas, acc):
        yb = np.where(Y[:, :1] > 2.3, 1.0, -1.0)
        pred = yb - _prls_refit_residuals(K, Kp, Kpp, yb, g, Psi)
        assert a == np.mean(np.sign(pred[:, 0]) == yb[:, 0])


def test_prls_loo_duplicate_labeled_points_equals_refits():
    # two labeled points at the same x make the full system singular: the refit fallback, still exact
    rng = np.random.default_rng(5)
    X = rng.uniform(-1, 1, (25, 2))
    X[4] = X[2]
    S = np.arange(9)
    y = np.cos(2 * X[S, 0]) + 0.1 * rng.normal(size=9)
    K, Kp, Kpp, _ = consistency_grams(X[S], X, sigma=0.5)
    gammas = [1e-3, 1e-1]
    score, _ = prls_loo_errors(K, Kp, Kpp, y, gammas)
    oracle = [-np.mean(np.square(_prls_refit_residuals(K, Kp, Kpp, y, g, np.ones((9, 1))))) for g in gammas]
    np.testing.assert_allclose(score, oracle, rtol=1e-6)


@pytest.mark.parametrize("consistency", [False, True])
def test_manifold_path_loo_equals_refits_and_fit(small, consistency):
    X, S, y = small
    M = graph_penalty(knn_graph(X, 5))
    K = pairwise_kernel(X, sigma=0.5)
    if consistency:
        K = K / K.mean()
    n, l = K.shape[0], S.size
    mp = ManifoldRidgePath(K, S, M, consistency=consistency)
    free = consistency       # PLapRLS: the constant of the null space is free
    for ga, gi in [(1e-3, 0.0), (1e-2, 1.0), (1e-4, 30.0)]:
        # the fit from the path equals the solver's
        a, b = mp.coef(y, ga, gi / ga, fit_intercept=free)
        if consistency:
            a2, b2 = plaprls_fit(K, S, y, M, ga, gi)
            np.testing.assert_allclose(K @ a[:, 0] + b, K @ a2 + b2, atol=1e-7)
        else:
            np.testing.assert_allclose(K @ a[:, 0], K @ laprls_fit(K, S, y, M, ga, gi), atol=1e-7)
        # LOO residuals from the path equal refits with the point kept in the cloud, unlabeled
        R = mp.path(gi / ga, free).loo_residuals(y, [ga * l])[0, :, 0]
        for i in range(l):
            keep = np.delete(S, i)
            # refit weights gamma * l / (l - 1): the full fit's lambda = gamma * l is kept
            sc = l / (l - 1)
            if consistency:
                a2, b2 = plaprls_fit(K, keep, y[np.arange(l) != i], M, ga * sc, gi * sc)
                pred = K[S[i]] @ a2 + b2[0]
            else:
                pred = K[S[i]] @ laprls_fit(K, keep, y[np.arange(l) != i], M, ga * sc, gi * sc)
            assert abs((y[i] - pred) - R[i]) < 1e-6 * max(1.0, abs(R[i]))


def _plaprls_system(small):
    """PLapRLS's selection problem on ``small`` and its n x n matrix A(rho) = T^2 + rho/n^2 M K, formed densely."""
    X, S, y = small
    M = graph_penalty(knn_graph(X, 5))
    K = pairwise_kernel(X, sigma=0.5)
    K = K / K.mean()
    n = K.shape[0]
    T = np.eye(n) - K / n
    rho0 = n ** 2 / (M.diagonal().sum() / n * K.sum() / n)      # the default grid's scale
    MK = np.asarray(M @ K)
    return K, S, y, M, rho0, lambda rho: T @ T + rho / n ** 2 * MK


def test_plaprls_default_ratio_grid_scores_every_ratio(small):
    """The default ratio grid of PLapRLS held 1e8 rho0, where T^2 + rho' M K is singular to rounding: for
    w = 1, M w = 0 gives w^T A(rho) = w^T T^2 whatever rho while ||A|| grows like rho.  That ratio was
    refused after its n x n LU in every fit (a row of -inf); the grid now holds only scored ratios, and
    leaving it out changes neither the scores of the others nor the choice."""
    K, S, y, M, rho0, A = _plaprls_system(small)
    n = K.shape[0]
    tiny = np.sqrt(np.finfo(np.float64).eps)                    # ManifoldRidgePath's refusal level
    ones = np.ones(n)
    np.testing.assert_allclose(ones @ A(1e8 * rho0), ones @ A(0.0), atol=1e-9 * np.abs(A(1e8 * rho0)).max())
    assert 1.0 / np.linalg.cond(A(1e8 * rho0).T, 1) < tiny      # why the ratio is left out
    res = select_manifold_gammas(K, S, y, M, consistency=True, fit_intercept=True)
    assert np.isfinite(res.scores).all()                       # every default ratio is a scored candidate
    for rho in res.grid["ratio"]:
        assert 1.0 / np.linalg.cond(A(rho).T, 1) > tiny
    old = select_manifold_gammas(K, S, y, M, ratios=np.array([1e2, 1e5, 1e8]) * rho0, consistency=True,
                                 fit_intercept=True, extend=False)
    new = select_manifold_gammas(K, S, y, M, consistency=True, fit_intercept=True, extend=False)
    assert np.isneginf(old.scores[2]).all()
    np.testing.assert_allclose(new.grid["ratio"], old.grid["ratio"][:2], rtol=1e-12)
    np.testing.assert_array_equal(new.scores, old.scores[:2])
    assert new.best_params == old.best_params


def test_laprls_default_ratio_grid_scores_every_ratio(small):
    """LapRLS's default ratio grid {0, 1e2, 1e5, 1e8} rho0 ended at a ratio where A(rho) = I + rho/n^2 M K is
    singular to rounding although nonsingular in exact arithmetic (eigenvalues 1 + rho' lambda_i(M K) >= 1):
    M 1 = 0 gives 1^T A(rho) = 1^T, so ||A^-1|| >= 1 whatever rho, while ||A|| >= 1 + rho' lambda_max(M K)
    grows like rho.  That row was refused (-inf) after its LU in every fit measured (benchmarks/REPORT.md);
    the grid is now {0, 1e2, 1e5} rho0, and leaving 1e8 out changes neither the other scores nor the choice."""
    X, S, y = small
    M = graph_penalty(knn_graph(X, 5))
    K = pairwise_kernel(X, sigma=0.5)                           # LapRLS: the kernel as it is (not normalized)
    n = K.shape[0]
    rho0 = n ** 2 / (M.diagonal().sum() / n * K.sum() / n)      # the default grid's scale
    MK = np.asarray(M @ K)

    def A(rho):
        return np.eye(n) + rho / n ** 2 * MK

    tiny = np.sqrt(np.finfo(np.float64).eps)                    # ManifoldRidgePath's refusal level
    top = A(1e8 * rho0)
    np.testing.assert_allclose(np.ones(n) @ top, np.ones(n), atol=1e-9 * np.abs(top).max())
    assert np.linalg.norm(top, np.inf) >= 1 + 1e8 * rho0 / n ** 2 * np.linalg.eigvals(MK).real.max() * (1 - 1e-12)
    assert 1.0 / np.linalg.cond(top.T, 1) < tiny
    res = select_manifold_gammas(K, S, y, M)
    assert np.isfinite(res.scores).all()                       # every default ratio is a scored candidate
    np.testing.assert_allclose(res.grid["ratio"], np.array([0.0, 1e2, 1e5]) * rho0, rtol=1e-12)
    for rho in res.grid["ratio"][1:]:
        assert 1.0 / np.linalg.cond(A(rho).T, 1) > tiny
    new = select_manifold_gammas(K, S, y, M, extend=False)
    # the old grid: the same ratios (to the last bit) and 1e8 rho0
    old = select_manifold_gammas(K, S, y, M, ratios=np.r_[new.grid["ratio"], 1e3 * new.grid["ratio"][-1]],
                                 extend=False)
    assert np.isneginf(old.scores[3]).all()
    np.testing.assert_array_equal(new.scores, old.scores[:3])
    assert new.best_params == old.best_params


def test_manifold_path_factors_a_refused_ratio_once(small, monkeypatch):
    """A ratio whose system is refused (numerically singular) is not factored again when the grid is
    evaluated again after an extension of gamma_A: one n x n LU per ratio, as documented (it was one per
    evaluation: 3 LUs for one refused ratio on the digits)."""
    import scipy.linalg

    K, S, y, M, rho0, _ = _plaprls_system(small)
    calls = []
    lu_factor = scipy.linalg.lu_factor
    monkeypatch.setattr(scipy.linalg, "lu_factor", lambda *a, **k: calls.append(1) or lu_factor(*a, **k))
    mp = ManifoldRidgePath(K, S, M, consistency=True)
    for _ in range(3):
        with pytest.raises(np.linalg.LinAlgError, match="numerically singular"):
            mp.path(1e8 * rho0, True)
    assert len(calls) == 1
    calls.clear()
    # gamma_A at the top of a high grid: the grid is extended (evaluated again), the refused ratio not refactored
    res = select_manifold_gammas(K, S, y, M, [10.0, 100.0], np.array([1e2, 1e8]) * rho0, consistency=True,
                                 fit_intercept=True)
    assert res.n_extensions >= 1
    assert len(calls) == res.grid["ratio"].size                 # one LU per distinct ratio
    refused = res.grid["ratio"] == 1e8 * rho0
    assert refused.any() and np.isneginf(res.scores[refused]).all()


def test_grls_selection_equals_brute_force_refits(small):
    X, S, y = small
    XS = X[S]
    Psi = feature_map(XS, "linear")
    l = S.size
    grid = [1e-4, 1e-2, 1.0]
    est = GRLSRegressor(sigma=0.5, gamma=grid, features="linear").fit(X[S], y)
    mse = []
    for g in grid:
        r = []
        for i in range(l):
            keep = np.r_[0:i, i + 1:l]
            K = pairwise_kernel(XS[keep], sigma=0.5)
            c, beta = grls_fit(K, Psi[keep], y[keep], g * l / (l - 1))
            r.append(y[i] - pairwise_kernel(XS[i:i + 1], XS[keep], sigma=0.5)[0] @ c - Psi[i] @ beta)
        mse.append(np.mean(np.square(r)))
    assert est.gamma_ == grid[int(np.argmin(mse))]
    np.testing.assert_allclose(est.cv_results_["mean_test_score"], -np.array(mse), rtol=1e-6)


def test_prls_estimator_selection_equals_brute_force(small):
    X, S, y = small
    yy = np.full(X.shape[0], np.nan)
    yy[S] = y
    grid = [1e-5, 1e-3, 1e-1, 10.0]
    est = PRLSRegressor(sigma=0.5, gamma=grid).fit(X, yy)
    K, Kp, Kpp, _ = consistency_grams(X[np.sort(S)], X, sigma=0.5)
    ys = yy[np.sort(S)]
    score, _ = prls_loo_errors(K, Kp, Kpp, ys, grid)
    assert est.gamma_ == grid[int(np.argmax(score))]


@pytest.mark.parametrize("E", [PLapRLSRegressor, LapRLSRegressor, WarpedKernelRegressor])
def test_manifold_estimators_select_the_brute_force_best(small, E):
    X, S, y = small
    yy = np.full(X.shape[0], np.nan)
    yy[S] = y
    gA, gI = [1e-4, 1e-2], [0.0, 1.0, 100.0]
    kw = dict(sigma=0.5, n_neighbors=5, gamma_A=gA, gamma_I=gI)
    est = E(**kw).fit(X, yy)
    Sx = np.sort(S)
    # LapRLS and the warped kernel (= LapRLS) centre the targets (their free constant): each refit on the
    # mean of the labels it keeps (the held-out one is not in it); PLapRLS has Psi = 1
    centred = E in (LapRLSRegressor, WarpedKernelRegressor)
    ys = yy[Sx]
    K = pairwise_kernel(X, sigma=0.5)
    if E is PLapRLSRegressor:
        K = K / K.mean()
    M = graph_penalty(knn_graph(X, 5))
    l = Sx.size
    best = None
    for ga in gA:
        for gi in gI:
            r = []
            for i in range(l):
                keep = np.delete(Sx, i)
                sc = l / (l - 1)
                m = np.delete(ys, i).mean() if centred else 0.0
                if E is PLapRLSRegressor:
                    a, b = plaprls_fit(K, keep, np.delete(ys, i), M, ga * sc, gi * sc)
                    pred = K[Sx[i]] @ a + b[0]
                else:
                    pred = K[Sx[i]] @ laprls_fit(K, keep, np.delete(ys, i) - m, M, ga * sc, gi * sc) + m
                r.append(ys[i] - pred)
            m = np.mean(np.square(r))
            if best is None or m < best[0] - 1e-12:
                best = (m, ga, gi)
    assert (est.gamma_A_, est.gamma_I_) == pytest.approx(best[1:], rel=1e-9)


# --- numbers, own grids, bad grids, meta-estimators ---------------------------------------------------

@pytest.mark.parametrize("E, params, attrs", [
    (PRLSRegressor, dict(sigma=0.4, gamma=1e-2), dict(sigma_=0.4, gamma_=1e-2)),
    (GRLSRegressor, dict(sigma=0.4, gamma=1e-2), dict(sigma_=0.4, gamma_=1e-2)),
    (PLapRLSRegressor, dict(sigma=0.4, gamma_A=1e-3, gamma_I=2.0), dict(sigma_=0.4, gamma_A_=1e-3, gamma_I_=2.0)),
    (WarpedKernelRegressor, dict(sigma=0.4, gamma_A=1e-3, gamma_I=2.0), dict(sigma_=0.4, gamma_A_=1e-3, gamma_I_=2.0)),
])
def test_numbers_are_used_as_given(small, E, params, attrs):
    X, S, y = small
    yy = np.full(X.shape[0], np.nan)
    yy[S] = y
    est = E(**params).fit(X, yy)
    for k, v in attrs.items():
        assert getattr(est, k) == v
    assert est.cv_results_ is None


@pytest.mark.parametrize("E, name", [(PRLSRegressor, "gamma"), (GRLSRegressor, "gamma"),
                                     (PLapRLSRegressor, "gamma_A"), (WarpedKernelRegressor, "gamma_A"),
                                     (PLapRLSRegressor, "sigma")])
@pytest.mark.parametrize("bad", [[-1.0, 1.0], [[1.0, 2.0]], [np.nan]])
def test_bad_grids_raise_naming_the_parameter(small, E, name, bad):
    X, S, y = small
    yy = np.full(X.shape[0], np.nan)
    yy[S] = y
    with pytest.raises(ValueError, match=name):
        E(**{name: bad}).fit(X, yy)


def test_own_grid_result_table(small):
    X, S, y = small
    yy = np.full(X.shape[0], np.nan)
    yy[S] = y
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = PRLSRegressor(sigma=[0.3, 0.6], gamma=[1e-3, 1e-1]).fit(X, yy)
    assert est.sigma_ in (0.3, 0.6) and est.gamma_ in (1e-3, 1e-1)
    cv = est.cv_results_
    assert len(cv["params"]) == 2 and cv["params"][int(np.argmin(cv["rank_test_score"]))] == {"gamma": est.gamma_}


@pytest.mark.parametrize("E, grid", [(PRLSRegressor, {"m__gamma": [1e-3, 1e-1]}),
                                     (GRLSRegressor, {"m__gamma": [1e-3, 1e-1]}),
                                     (PLapRLSRegressor, {"m__gamma_A": [1e-4, 1e-2]}),
                                     (WarpedKernelRegressor, {"m__gamma_A": [1e-4, 1e-2]})])
def test_gridsearchcv_and_pipeline_with_numbers(E, grid):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 3))
    y = X[:, 0] + 0.1 * rng.normal(size=60)
    kw = dict(sigma=2.0, gamma_I=1.0) if E in (PLapRLSRegressor, WarpedKernelRegressor) else dict(sigma=2.0)
    pipe = Pipeline([("s", StandardScaler()), ("m", E(**kw))])
    search = GridSearchCV(pipe, grid, cv=3).fit(X, y)
    assert list(search.best_params_.values())[0] in list(grid.values())[0]
    assert search.score(X, y) > 0.8


def test_hinge_losses_select_their_ridge_by_kfold():
    X, y = make_noisy_circles(160, random_state=1)
    yp, S = sample_labels(y, 8, random_state=1)
    for E in (FredholmClassifier, WarpedKernelClassifier):
        est = E(loss="hinge").fit(X, yp)
        cv = est.cv_results_
        assert "param_ridge" in cv and np.isclose(est.alpha_, cv["params"][int(np.argmin(cv["rank_test_score"]))]["ridge"])


# --- acceptance on noisy two circles (small size, several draws) --------------------------------------

LEARNERS = [RLSClassifier, LapRLSClassifier, PRLSClassifier, PLapRLSClassifier, GRLSClassifier, FredholmClassifier,
            WarpedKernelClassifier]
#: hand grids (the values a user would try); widths relative to the median pairwise distance
WIDTHS = (0.35, 0.5, 0.7, 1.0)
#: Fredholm's hand grid: widths 2^(k/2) from 1/4 to 2, relative ridges over decades
FREDHOLM_WIDTHS = tuple(2.0 ** (k / 2) for k in range(-4, 3))
FREDHOLM_RIDGES = (1e-10, 1e-8, 1e-6, 1e-4, 1e-2, 1.0)


def _fredholm_hand_scores(X, y, S, U, s0):
    """Test accuracy of Fredholm RLS over its hand grid, one kernel per width (the fit by hand: relative ridge
    ``alpha``: (G + alpha mean(diag G) I) c = Y, G the Fredholm kernel on the labels, f = K_F(., S) c)."""
    from graphrkhs import FredholmKernel
    Y = np.where(y[S] == 1, 1.0, -1.0)
    out = []
    for w in FREDHOLM_WIDTHS:
        kern = FredholmKernel(X, sigma=w * s0)
        R = kern.right_factor(X[S])
        G = kern(X[S], X[S], right=R)
        KU = kern(X[U], X[S], right=R)
        for a in FREDHOLM_RIDGES:
            c = np.linalg.solve(G + a * np.trace(G) / S.size * np.eye(S.size), Y)
            out.append(np.mean((KU @ c > 0).astype(int) == y[U]))
    return out


def _hand_grid(E, s0):
    sig = [w * s0 for w in WIDTHS]
    if E is RLSClassifier:
        return [dict(sigma=s, alpha=a) for s in sig for a in (1e-6, 1e-3)]
    if E in (PRLSClassifier, GRLSClassifier):
        return [dict(sigma=s, gamma=g) for s in sig for g in (1e-5, 1e-2)]
    if E is FredholmClassifier:      # finer (see _fredholm_hand_scores)
        return [dict(sigma=w * s0, alpha=a) for w in FREDHOLM_WIDTHS for a in FREDHOLM_RIDGES]
    grid = [dict(sigma=s, gamma_A=ga, gamma_I=gi) for s in sig[1:] for ga in (1e-6, 1e-3) for gi in (1e-2, 1e2)]
    if E in (LapRLSClassifier, WarpedKernelClassifier):
        # and a wide kernel with a graph-dominated ratio: the full-size optimum on noisy circles (about 2.8x the
        # median distance, gamma_I / gamma_A = 1e7), which the RLS width alone missed by 3.6 points
        grid += [dict(sigma=2.83 * s0, gamma_A=ga, gamma_I=1e7 * ga) for ga in (1e-9, 1e-6)]
    return grid


def test_noisy_circles_defaults_near_hand_tuned_best():
    """Defaults only, mean over 3 draws of 400 points and 20 labels: Fredholm >= RLS + 3 points, every
    learner within 2 points of the best of its hand grid (the grid's best is picked on the test points,
    an optimistic reference)."""
    from graphrkhs import default_sigma
    scores = {E: [] for E in LEARNERS}
    best = {E: [] for E in LEARNERS}
    for seed in range(3):
        X, y = make_noisy_circles(400, random_state=seed)
        yp, S = sample_labels(y, 10, random_state=seed)
        U = np.setdiff1d(np.arange(y.size), S)
        s0 = default_sigma(X)
        for E in LEARNERS:
            scores[E].append(E().fit(X, yp).score(X[U], y[U]))
            if E is FredholmClassifier:
                best[E].append(_fredholm_hand_scores(X, y, S, U, s0))
                p = _hand_grid(E, s0)[7]        # the hand fit is the estimator's at that point
                assert E(**p).fit(X, yp).score(X[U], y[U]) == pytest.approx(best[E][-1][7], abs=1.5 / U.size)
            else:
                best[E].append([E(**p).fit(X, yp).score(X[U], y[U]) for p in _hand_grid(E, s0)])
    mean = {E: np.mean(v) for E, v in scores.items()}
    hand = {E: np.max(np.mean(best[E], axis=0)) for E in LEARNERS}
    assert mean[FredholmClassifier] >= mean[RLSClassifier] + 0.03, mean
    for E in LEARNERS:
        assert mean[E] >= hand[E] - 0.02, (E.__name__, mean[E], hand[E])


@pytest.mark.parametrize("E", [RLSClassifier, PRLSClassifier, GRLSClassifier])
def test_supervised_width_grid_is_centred_on_300_evenly_spaced_rows(E):
    # RLS, PRLS and G-RLS centre sigma="auto" on the median distance of 300 evenly spaced rows
    # (default_sigma's deterministic sample); sigma=None keeps the median over default_sigma's 1000
    from graphrkhs import default_sigma

    X, y = make_noisy_circles(700, random_state=4)
    yp, _ = sample_labels(y, 8, random_state=0)
    centre = default_sigma(X, max_points=300)
    assert centre != default_sigma(X)
    est = E().fit(X, yp)
    grid = np.unique([p["sigma"] for p in est.cv_results_["params"]])
    if E is PRLSClassifier:          # PRLS: the RLS width refined by steps of 2^(1/2) (grown at an end)
        assert grid.size >= 3
        np.testing.assert_allclose(grid[1:] / grid[:-1], 2 ** 0.5, rtol=1e-12)
    k = np.log2(grid / centre) * 2                   # the grid points are centre * 2^(k/2), k integer
    np.testing.assert_allclose(k, np.round(k), atol=1e-9)
    assert E(sigma=None).fit(X, yp).sigma_ == default_sigma(X)


def test_fredholm_width_selection_without_kept_kernels_gives_the_same_fit(monkeypatch):
    """Above KEEP_KERNELS_MAX_N points the selection keeps only the grams and rebuilds kernels per width:
    the same choice and the same predictions as keeping every kernel."""
    import graphrkhs.estimators._datadependent as dd
    from graphrkhs import FredholmClassifier
    from graphrkhs.datasets import make_noisy_circles, sample_labels

    X, y = make_noisy_circles(240, n_noise_dims=3, random_state=4)
    yp, _ = sample_labels(y, 6, random_state=1)
    kept = FredholmClassifier().fit(X, yp)
    monkeypatch.setattr(dd, "KEEP_KERNELS_MAX_N", 0)
    rebuilt = FredholmClassifier().fit(X, yp)
    assert rebuilt.sigma_ == kept.sigma_
    # the rebuilt kernel's gram is the full product P_S (K_H P_S^T), the kept one's by halves of K_H: equal up
    # to rounding, which the solve at the selected (small) ridge amplifies by its condition number
    np.testing.assert_allclose(rebuilt.decision_function(X), kept.decision_function(X), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("normalized", [False, True])
def test_fredholm_selection_by_half_products_equals_the_full_right_factors(monkeypatch, normalized):
    """The width selection's grams by halves of K_H (FredholmKernel.gram_of_rows on shared distances), the cut
    predictions P_c K_H (P_S^T C) and the fit without K_H P_S^T give the choice and the predictions of the
    previous path (K_H P_S^T at every width, G = P_S (K_H P_S^T)), and predict equals the dense product
    kernel_(X, S, right=right_) @ coef_."""
    from graphrkhs import FredholmClassifier, FredholmKernel
    from graphrkhs.datasets import make_noisy_circles, sample_labels

    X, y = make_noisy_circles(260, n_noise_dims=3, random_state=5)
    yp, _ = sample_labels(y, 6, random_state=2)
    new = FredholmClassifier(normalized=normalized).fit(X, yp)

    def full_products(self, index):
        right = self.right_factor(self.X[index])
        return self(self.X[index], self.X[index], right=right), right

    monkeypatch.setattr(FredholmKernel, "gram_of_rows", full_products)
    old = FredholmClassifier(normalized=normalized).fit(X, yp)
    assert (new.sigma_, new.alpha_) == pytest.approx((old.sigma_, old.alpha_), rel=1e-9)
    # equal grams up to rounding, amplified by the condition number of the solve at the selected ridge
    np.testing.assert_allclose(new.decision_function(X), old.decision_function(X), rtol=1e-6, atol=1e-8)
    dense = np.asarray(new.kernel_(X, new.labeled_points_, right=new.right_)) @ new.coef_ + new.intercept_
    np.testing.assert_allclose(new.decision_function(X), dense.ravel(), rtol=1e-7, atol=1e-9)


def test_own_grid_choice_at_its_edge_is_reported_for_prls_and_laprls():
    """An own grid is not extended, but a choice at its edge says so (the module rule of ``"auto"``, as
    RLS and Laplace learning do); PRLS's ``gamma`` and LapRLS's / PLapRLS's ``gamma_A`` (``gamma_I`` a
    number or "auto") were chosen at the edge silently.  The choice itself is still the best point of the scored table."""
    from sklearn.datasets import make_moons

    from graphrkhs import SelectionWarning

    X, y = make_moons(120, noise=0.1, random_state=0)
    yl = np.full(120, -1)
    yl[sample_labels(y, 6, random_state=0)[1]] = y[sample_labels(y, 6, random_state=0)[1]]
    for est, attr in ((PRLSClassifier(gamma=[10.0, 100.0]), "gamma_"),
                      (LapRLSClassifier(gamma_A=[10.0, 100.0], gamma_I=1.0), "gamma_A_"),
                      (LapRLSClassifier(gamma_A=[10.0, 100.0]), "gamma_A_"),
                      (PLapRLSClassifier(gamma_A=[10.0, 100.0]), "gamma_A_")):
        with pytest.warns(SelectionWarning, match=r"is at the edge of its grid \[10, 100\] after 0 extension"):
            est.fit(X, yl)
        assert getattr(est, attr) in (10.0, 100.0)
        res = est.cv_results_
        best = res["params"][int(np.argmax(res["mean_test_score"]))]
        assert getattr(est, attr) == best[attr.rstrip("_")]


# --- grids holding 0, the GRLS gate and table (found by the selection defect hunt) --------------------

@pytest.mark.parametrize("E, name, attr", [(RLSRegressor, "alpha", "alpha_"), (GRLSRegressor, "gamma", "gamma_")])
@pytest.mark.parametrize("sigma", ["auto", 0.5])
def test_a_grid_of_only_zero_is_that_number(small, E, name, attr, sigma):
    # 0 has no leave-one-out score (the interpolant), so the selection drops it; a grid holding nothing else
    # raised "alphas must be a non-empty ... sequence ...; got array([])", naming no parameter of the estimator
    X, S, y = small
    yy = np.full(X.shape[0], np.nan)
    yy[S] = y
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = E(**{name: [0.0], "sigma": sigma}).fit(X, yy)
        ref = E(**{name: 0.0, "sigma": sigma}).fit(X, yy)
    assert getattr(est, attr) == 0.0
    assert est.sigma_ == ref.sigma_
    np.testing.assert_allclose(est.predict(X), ref.predict(X), rtol=1e-12, atol=1e-12)


def test_grls_table_names_gamma(small):
    X, S, y = small
    est = GRLSRegressor(sigma=[0.3, 0.6], gamma=[1e-3, 1e-1]).fit(X[S], y)
    cv = est.cv_results_
    assert "param_gamma" in cv and "param_alpha" not in cv
    best = cv["params"][int(np.argmin(cv["rank_test_score"]))]
    assert best == {"sigma": est.sigma_, "gamma": est.gamma_}


def test_grls_too_few_labels_for_its_features_take_the_fallback_width(small):
    # 4 labels, 3 linear features in 2-D: leaving one out leaves the features' interpolant, whatever sigma and
    # gamma, so the LOO cannot rank them (the gamma fallback was used, but sigma_ came from that flat LOO and
    # cv_results_ named another gamma than gamma_)
    X, S, y = small
    XS, yS = X[S[:4]], y[:4]
    est = GRLSRegressor(features="linear").fit(XS, yS)
    assert est.gamma_ == FALLBACK_GAMMA
    assert est.sigma_ == default_sigma(XS, max_points=GRLSRegressor._WIDTH_POINTS)
    assert est.cv_results_ is None


@pytest.mark.parametrize("E", [LapRLSRegressor, PLapRLSRegressor, WarpedKernelRegressor])
def test_a_gamma_A_grid_with_a_fixed_gamma_I_skips_a_singular_ratio(small, E):
    # gamma_I fixed: each gamma_A of the grid is its own ratio gamma_I / gamma_A; a ratio whose system is
    # numerically singular (1e12 here) raised LinAlgError out of fit instead of being no candidate
    X, S, y = small
    yy = np.full(X.shape[0], np.nan)
    yy[S] = y
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = E(sigma=0.5, gamma_A=[1e-9, 1e-3], gamma_I=1e3).fit(X, yy)
        ref = E(sigma=0.5, gamma_A=1e-3, gamma_I=1e3).fit(X, yy)
    assert (est.gamma_A_, est.gamma_I_) == (1e-3, 1e3)
    scores = est.cv_results_["mean_test_score"]
    assert scores[0] == -np.inf and np.isfinite(scores[1])
    np.testing.assert_allclose(est.predict(X), ref.predict(X), rtol=1e-7, atol=1e-9)


def test_a_gamma_A_grid_whose_every_ratio_is_singular_falls_back_with_a_warning(small):
    from graphrkhs import SelectionWarning

    X, S, y = small
    yy = np.full(X.shape[0], np.nan)
    yy[S] = y
    with pytest.warns(SelectionWarning, match="no value of the grid gives a usable system"):
        est = LapRLSRegressor(sigma=0.5, gamma_A=[1e-12, 1e-10], gamma_I=1e3).fit(X, yy)
    # the fallback 1e-6 is outside one's own grid: its value nearest it (as every fallback, _auto.unselected)
    assert est.gamma_I_ == 1e3 and est.gamma_A_ == 1e-10 and est.cv_results_ is None
    assert np.isfinite(est.predict(X)).all()


def test_own_gamma_A_and_gamma_I_grids_fill_the_whole_table(small):
    # each gamma_A is scored with its own ratios gamma_I / gamma_A; cv_results_ held the rows of the best
    # gamma_A only (3 of the 6 points of this grid)
    X, S, y = small
    yy = np.full(X.shape[0], np.nan)
    yy[S] = y
    gA, gI = [1e-4, 1e-2], [0.0, 1.0, 100.0]
    est = LapRLSRegressor(sigma=0.5, n_neighbors=5, gamma_A=gA, gamma_I=gI).fit(X, yy)
    cv = est.cv_results_
    assert [(p["gamma_A"], p["gamma_I"]) for p in cv["params"]] == [(a, i) for a in gA for i in gI]
    best = cv["params"][int(np.argmin(cv["rank_test_score"]))]
    assert best == {"gamma_A": est.gamma_A_, "gamma_I": est.gamma_I_}
    # each entry is the exact LOO of its own pair: refits without each label, centred on the labels kept
    K = pairwise_kernel(X, sigma=0.5)
    M = graph_penalty(knn_graph(X, 5))
    Sx = np.sort(S)
    ys, l = yy[Sx], Sx.size
    for p, sc in zip(cv["params"], cv["mean_test_score"]):
        r = []
        for i in range(l):
            rest = np.delete(ys, i)
            a = laprls_fit(K, np.delete(Sx, i), rest - rest.mean(), M, p["gamma_A"] * l / (l - 1),
                           p["gamma_I"] * l / (l - 1))
            r.append(ys[i] - K[Sx[i]] @ a - rest.mean())
        assert sc == pytest.approx(-np.mean(np.square(r)), rel=1e-8)


@pytest.mark.parametrize("cls", [LapRLSClassifier, WarpedKernelClassifier])
def test_joint_selection_on_the_digits_grows_gamma_A_in_the_exact_step(cls):
    """The digits demo's setting (10 labels per class, defaults): the surrogate's best gamma_A was inside its
    grid, the exact step's the grid's first value (1e-7), never extended, and every default fit warned that
    the criterion may improve beyond it.  The exact step now grows the grid: gamma_A_ minimizes the exact LOO
    over the grown grid, and no SelectionWarning names gamma_A."""
    from graphrkhs.datasets import load_digits
    X, y = load_digits()
    y_partial, _ = sample_labels(y, 10, random_state=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = cls().fit(X, y_partial)
    assert not [w for w in caught if issubclass(w.category, Warning) and "gamma_A=" in str(w.message)]
    assert model.gamma_A_ < LAPRLS_GAMMA_A_GRID[0]      # below the default grid: it grew


def test_prls_joint_width_selection_grows_the_width_axis_by_refits(small):
    """select_prls_gamma with make_grams: a width grid too narrow for the data grows at its edge (as gamma's),
    and the choice is the best refit LOO over every (width, gamma) tried (dense oracle)."""
    X, S, y = small
    Psi = np.ones((S.size, 1))

    def grams(s):
        return consistency_grams(X[S], X, sigma=s)[:3]

    sigmas, gammas = [0.05, 0.05 * 2 ** 0.5, 0.1], [1e-4, 1e-2, 1.0]
    res = select_prls_gamma(None, None, None, y, gammas, Psi=Psi, make_grams=grams, sigmas=sigmas)
    assert res.grid["sigma"].size > 3 and res.grid["sigma"][-1] > sigmas[-1]
    oracle = np.array([[-np.mean(np.square(_prls_refit_residuals(*grams(s), y, g, Psi))) for g in res.grid["gamma"]]
                       for s in res.grid["sigma"]])
    # rtol 1e-4: the gamma axis grows down to its floor 1e-9, where the refits' systems on the narrowest widths
    # are conditioned ~1e10 (at gamma >= 1e-4 the two agree to 1e-8, test_prls_downdate_loo_equals_refits)
    np.testing.assert_allclose(res.scores, oracle, rtol=1e-4)
    i, j = np.unravel_index(np.argmax(oracle), oracle.shape)
    assert res.best_params == {"sigma": res.grid["sigma"][i], "gamma": res.grid["gamma"][j]}
    # extend=("gamma",): the widths stay the caller's, a choice at their edge is reported
    with pytest.warns(SelectionWarning, match="sigma="):
        own = select_prls_gamma(None, None, None, y, gammas, Psi=Psi, make_grams=grams, sigmas=sigmas,
                                extend=("gamma",))
    np.testing.assert_array_equal(own.grid["sigma"], sigmas)


def test_prls_classifier_refined_width_grows_past_the_rls_grid():
    """Two circles, 5 labels per class (draw 1): PRLS's own LOO still improved at the widest of its three
    refinement widths (x 2^-1/2, 1, 2^1/2 around the RLS width), which was also the RLS grid's end: the fit
    stopped there and warned "sigma=1.96 is at the edge of its grid ... after 0 extension(s)".  The
    refinement now grows: the width used is the best row of ``cv_results_``, beyond the first three, with no
    warning about it."""
    from sklearn.datasets import make_circles
    X, y = make_circles(400, noise=0.05, factor=0.5, random_state=0)
    y_partial, _ = sample_labels(y, 5, random_state=1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = PRLSClassifier().fit(X, y_partial)
    assert not [w for w in caught if "sigma=" in str(w.message)]
    cv = model.cv_results_
    widths = np.unique(cv["param_sigma"])
    assert widths.size > 3
    best = cv["params"][int(np.argmax(cv["mean_test_score"]))]
    assert best == {"sigma": model.sigma_, "gamma": model.gamma_}
    assert widths[0] < model.sigma_ < widths[-1]
