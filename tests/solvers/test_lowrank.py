"""Low-rank (Nystrom) solvers against the exact dense ones (the oracle).

* all n points as landmarks: the low-rank solution *is* the exact one (rounding level);
* m < n landmarks: the documented tolerance -- relative L2 error of the decision values at most
  2e-2 with the rank chosen by ``tol=1e-3`` on two moons (n = 600), the same signs on >= 99 % of
  the points (measured: 4e-3 and 100 % at m = 100 of n = 1000);
* the leave-one-out selection of the low-rank LapRLS against brute-force refits;
* the estimators' switch (``solver="nystrom"``, and ``"auto"`` above the size threshold).
"""

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_moons

import graphrkhs as g
from graphrkhs.estimators import _inductive

X, YY = make_moons(600, noise=0.1, random_state=0)
M = g.graph_penalty(g.knn_graph(X, 8))
S = np.r_[np.flatnonzero(YY == 0)[:5], np.flatnonzero(YY == 1)[:5]]
Y = np.where(YY[S] == 1, 1.0, -1.0)
SIG = 0.3
K = g.pairwise_kernel(X, sigma=SIG)


def _features(m, **kw):
    return g.NystromFeatures(X, sigma=SIG, n_components=m, **kw)


@pytest.fixture(scope="module")
def exact_features():
    return _features(X.shape[0])


def _rel(a, b):
    return np.linalg.norm(a - b) / np.linalg.norm(b)


@pytest.mark.parametrize("gamma_I", [0.0, 1.0, 100.0])
def test_laprls_all_landmarks_is_exact(exact_features, gamma_I):
    f = K @ g.laprls_fit(K, S, Y, M, 1e-3, gamma_I)
    w = g.nystrom_laprls_fit(exact_features.features_, S, Y, M, 1e-3, gamma_I)
    assert _rel(exact_features.features_ @ w, f) < 1e-7


def test_laprls_low_rank_tolerance():
    f = K @ g.laprls_fit(K, S, Y, M, 1e-4, 10.0)
    ny = _features(300, tol=1e-3, landmarks="kmeans", random_state=0)
    assert ny.n_components_ < 300
    fl = ny.features_ @ g.nystrom_laprls_fit(ny.features_, S, Y, M, 1e-4, 10.0)
    assert _rel(fl, f) < 2e-2
    assert np.mean(np.sign(fl) == np.sign(f)) >= 0.99


def test_laprls_is_the_minimizer_in_the_span():
    """The gradient of the objective in w vanishes at the solution (the normal equations)."""
    ny = _features(80, tol=0.0, landmarks="uniform", random_state=0)
    F = ny.features_
    gA, gI, n, l = 1e-3, 5.0, X.shape[0], S.size
    w = g.nystrom_laprls_fit(F, S, Y, M, gA, gI)
    grad = -2 / l * F[S].T @ (Y - F[S] @ w) + 2 * gA * w + 2 * gI / n ** 2 * F.T @ (M @ (F @ w))
    assert np.abs(grad).max() < 1e-9 * np.abs(F[S].T @ Y).max()


@pytest.mark.parametrize("operator", ["empirical", "heat"])
def test_plaprls_all_landmarks_is_exact(exact_features, operator):
    F = exact_features.features_
    T = exact_features.transform_matrix_
    if operator == "empirical":
        kappa = K.mean()
        Kh = K / kappa
        a, b = g.plaprls_fit(Kh, S, Y, M, 1e-3, 1.0)
        w, beta = g.nystrom_plaprls_fit(F / np.sqrt(kappa), S, Y, M, 1e-3, 1.0)
        fl = F / np.sqrt(kappa) @ w + beta
        f = Kh @ a + b
    else:
        # a well-conditioned Gram matrix (cond ~ 3e5): the heat penalty K_t - 2K_2t + K_3t is a
        # difference of nearly equal terms, so its exactness is checked where K has full numerical rank
        Xs, sig = X[:150], 0.1
        Ms = g.graph_penalty(g.knn_graph(Xs, 8))
        Ss = np.r_[np.flatnonzero(YY[:150] == 0)[:5], np.flatnonzero(YY[:150] == 1)[:5]]
        Ys = np.where(YY[Ss] == 1, 1.0, -1.0)
        Ks = g.pairwise_kernel(Xs, sigma=sig)
        ny = g.NystromFeatures(Xs, sigma=sig, n_components=150)
        F, T = ny.features_, ny.transform_matrix_
        K1, K2, K3 = g.heat_semigroup(Xs, sigma=sig)
        a, b = g.plaprls_fit(Ks, Ss, Ys, Ms, 1e-3, 1.0, P=K1 - 2 * K2 + K3)
        Z1, Z2, Z3 = g.heat_semigroup(ny.landmarks_, sigma=sig)
        w, beta = g.nystrom_plaprls_fit(F, Ss, Ys, Ms, 1e-3, 1.0, P=T.T @ (Z1 - 2 * Z2 + Z3) @ T)
        fl = F @ w + beta
        f = Ks @ a + b
    assert _rel(fl, f) < 1e-6


def test_plaprls_constant_target_and_tolerance():
    ny = _features(300, tol=1e-3, landmarks="kmeans", random_state=0)
    F = ny.features_
    w, beta = g.nystrom_plaprls_fit(F, S, np.full(S.size, 3.0), M, 1e-3, 1.0)
    assert np.abs(w).max() == 0 and np.isclose(beta[0], 3.0)
    kappa = K.mean()
    a, b = g.plaprls_fit(K / kappa, S, Y, M, 1e-3, 1.0)
    f = K / kappa @ a + b
    kl = float(F.sum(0) @ F.sum(0)) / X.shape[0] ** 2
    w, beta = g.nystrom_plaprls_fit(F / np.sqrt(kl), S, Y, M, 1e-3, 1.0)
    fl = F / np.sqrt(kl) @ w + beta
    assert _rel(fl, f) < 2e-2 and np.mean(np.sign(fl) == np.sign(f)) >= 0.99


def test_consistency_grams(exact_features):
    exact = g.consistency_grams(X[S], X, sigma=SIG)
    low = g.nystrom_consistency_grams(X[S], X, exact_features.features_, sigma=SIG)
    for a, b in zip(exact, low):
        np.testing.assert_allclose(b, a, rtol=1e-7, atol=1e-10 * np.abs(a).max())
    ny = _features(300, tol=1e-3, landmarks="kmeans", random_state=0)
    approx = g.nystrom_consistency_grams(X[S], X, ny.features_, sigma=SIG)
    a_ex, b_ex = g.prls_fit(*exact[:3], Y, 1e-2)
    a_lo, b_lo = g.prls_fit(*approx[:3], Y, 1e-2)
    f_ex = g.pairwise_kernel(X, X[S], sigma=SIG) / exact[3] @ a_ex + b_ex
    f_lo = g.pairwise_kernel(X, X[S], sigma=SIG) / approx[3] @ a_lo + b_lo
    assert _rel(f_lo, f_ex) < 2e-2


def test_loo_selection_against_brute_force():
    ny = _features(60, tol=0.0, landmarks="uniform", random_state=0)
    F = ny.features_
    gA, rho = 1e-3, 1e4
    res = g.select_nystrom_laprls(F, S, Y, M, [gA], [rho])
    l = S.size
    resid = []
    for i in range(l):
        keep = np.delete(np.arange(l), i)
        # the LOO engine keeps l in the ridge weights: gamma * l / (l - 1) with l - 1 points is the same system
        w = g.nystrom_laprls_fit(F, S[keep], Y[keep], M, gA * l / (l - 1), rho * gA * l / (l - 1))
        resid.append(Y[i] - F[S[i]] @ w)
    np.testing.assert_allclose(-res.best_score, np.mean(np.square(resid)), rtol=1e-6)
    assert res.best_params["alpha"] == gA and res.best_params["sigma"] == rho


@pytest.mark.parametrize("name,kw", [("LapRLSClassifier", dict(gamma_A=1e-3, gamma_I=1.0)),
                                     ("PLapRLSClassifier", dict(gamma_A=1e-3, gamma_I=1.0)),
                                     ("PRLSClassifier", dict(gamma=1e-2)),
                                     ("WarpedKernelClassifier", dict(gamma_A=1e-3, gamma_I=1.0))])
def test_estimators_all_landmarks_equal_exact(name, kw):
    Xs, ys = X[:200], np.full(200, -1)
    lab = np.r_[np.flatnonzero(YY[:200] == 0)[:4], np.flatnonzero(YY[:200] == 1)[:4]]
    ys[lab] = YY[lab]
    cls = getattr(g, name)
    a = cls(sigma=SIG, **kw).fit(Xs, ys)
    b = cls(sigma=SIG, solver="nystrom", n_components=200, **kw).fit(Xs, ys)
    new = X[200:260]
    da, db = a.decision_function(new), b.decision_function(new)
    np.testing.assert_allclose(db, da, atol=1e-6 * np.abs(da).max())
    if hasattr(b, "solver_info_"):
        assert b.solver_info_["solver"] == "nystrom"


def test_auto_switches_above_the_threshold(monkeypatch):
    monkeypatch.setattr(_inductive, "LOWRANK_MIN_N", 100)
    ys = np.full(X.shape[0], -1)
    ys[S] = YY[S]
    est = g.LapRLSClassifier(sigma=SIG, n_components=150, random_state=0).fit(X, ys)
    assert est.solver_info_["solver"] == "nystrom" and est.X_fit_.shape[0] <= 150
    assert est.score(X, YY) > 0.95
    small = g.LapRLSClassifier(sigma=SIG, gamma_A=1e-3, gamma_I=1.0).fit(X[:90], np.r_[ys[:90]])
    assert small.solver_info_["solver"] == "direct"


def test_bad_inputs_before_work():
    F = _features(50, tol=0.0, landmarks="uniform", random_state=0).features_
    with pytest.raises(ValueError, match="M"):
        g.nystrom_laprls_fit(F, S, Y, M[:10, :10], 1e-3, 1.0)
    with pytest.raises(ValueError, match="gamma_A"):
        g.nystrom_laprls_fit(F, S, Y, M, 0.0, 1.0)
    with pytest.raises(ValueError, match="Y"):
        g.nystrom_laprls_fit(F, S, Y[:3], M, 1e-3, 1.0)
    with pytest.raises(ValueError, match="P"):
        g.nystrom_plaprls_fit(F, S, Y, M, 1e-3, 1.0, P=np.eye(3))
    with pytest.raises(ValueError, match="F"):
        g.nystrom_consistency_grams(X[S], X, F[:10])
    with pytest.raises(ValueError, match="solver"):
        g.LapRLSClassifier(solver="lowrank").fit(X, np.r_[0, 1, np.full(X.shape[0] - 2, -1)])


@pytest.mark.parametrize("gamma_I,m,tol", [(0.0, 100, 1e-2), (1e3, 100, 2e-2), (1e5, 200, 5e-3)])
def test_laprls_low_rank_out_of_sample(gamma_I, m, tol):
    """Decision values at 400 points not in the graph, Nystrom (m of n = 600 k-means landmarks) against the
    exact LapRLS, from no graph term to a dominant one (gamma_I / gamma_A = 1e9, the regime the 60000-point
    selection picks).  The error grows with the weight of the graph term (the graph-smooth functions need
    more landmarks); measured relative L2 errors: 1.3e-3, 7.7e-3 (m = 100, 0.38 at gamma_I = 1e5) and
    5.3e-4 (m = 200); the documented tolerances are the parameters."""
    Xa, ya = make_moons(1000, noise=0.1, random_state=0)
    Xt, Xn, yt = Xa[:600], Xa[600:], ya[:600]
    Mt = g.graph_penalty(g.knn_graph(Xt, 8))
    St = np.r_[np.flatnonzero(yt == 0)[:5], np.flatnonzero(yt == 1)[:5]]
    Yt = np.where(yt[St] == 1, 1.0, -1.0)
    f = g.pairwise_kernel(Xn, Xt, sigma=SIG) @ g.laprls_fit(g.pairwise_kernel(Xt, sigma=SIG), St, Yt, Mt, 1e-4,
                                                            gamma_I)
    ny = g.NystromFeatures(Xt, sigma=SIG, n_components=m, tol=0.0, landmarks="kmeans", random_state=0)
    fl = ny.transform(Xn) @ g.nystrom_laprls_fit(ny.features_, St, Yt, Mt, 1e-4, gamma_I)
    assert _rel(fl, f) < tol
    assert np.mean(np.sign(fl) == np.sign(f)) >= 0.99


def test_graph_gram_reused():
    """The selection's F^T M F (returned) gives the same fit as recomputing it; a wrong shape is refused."""
    F = _features(60, tol=0.0, landmarks="uniform", random_state=0).features_
    _, G = g.select_nystrom_laprls(F, S, Y, M, [1e-3], [1e4], return_graph_gram=True)
    np.testing.assert_allclose(G, F.T @ (M @ F), rtol=1e-10, atol=1e-12 * np.abs(G).max())
    w = g.nystrom_laprls_fit(F, S, Y, M, 1e-3, 10.0)
    np.testing.assert_allclose(g.nystrom_laprls_fit(F, S, Y, M, 1e-3, 10.0, graph_gram=G), w, rtol=1e-10)
    with pytest.raises(ValueError, match="graph_gram"):
        g.nystrom_laprls_fit(F, S, Y, M, 1e-3, 10.0, graph_gram=G[:5, :5])


# ---------------------------------------------------------------------------
# select_laprls_lowrank: the joint (width, ratio, gamma_A) selection on a low-rank surrogate
# ---------------------------------------------------------------------------

def test_warped_lowrank_gram_all_landmarks_is_the_exact_warped_gram(exact_features):
    """m = n: A diag(1/(1 + rho d)) A^T is ManifoldRidgePath's exact G_SS = [K (I + rho' M K)^-1]_SS."""
    from graphrkhs.solvers._lowrank import _warped_lowrank, _warped_lowrank_gram

    A, d, _ = _warped_lowrank(exact_features.features_, S, M)
    mp = g.ManifoldRidgePath(K, S, M)
    for rho in [0.0, 1e3, 1e6]:
        G = mp.gram(rho)
        np.testing.assert_allclose(_warped_lowrank_gram(A, d, rho), G, atol=1e-8 * np.abs(G).max())


def test_warped_lowrank_gram_is_the_cholesky_form():
    """The eigen form equals F_S (I + rho F^T M F / n^2)^-1 F_S^T (a direct solve) at m < n."""
    from graphrkhs.solvers._lowrank import _warped_lowrank, _warped_lowrank_gram

    F = _features(50, tol=0.0, landmarks="uniform", random_state=1).features_
    A, d, _ = _warped_lowrank(F, S, M)
    n, rho = X.shape[0], 3e5
    B = np.eye(F.shape[1]) + rho * (F.T @ (M @ F)) / n ** 2
    G = F[S] @ np.linalg.solve(B, F[S].T)
    np.testing.assert_allclose(_warped_lowrank_gram(A, d, rho), (G + G.T) / 2, atol=1e-10 * np.abs(G).max())


def test_lowrank_selection_loo_is_brute_force_refits_of_the_surrogate():
    """The surrogate's LOO scores: refits of nystrom_laprls_fit with the label left out (its point stays
    in the graph), at every (ratio, gamma_A) of a small grid, on the landmarks of the selection."""
    sig = [SIG]
    rhos, gAs = np.array([0.0, 1e3, 1e6]), np.array([1e-4, 1e-2])
    res = g.select_laprls_lowrank(X, S, Y, M, sig, gAs, rhos, n_components=40, extend=False, random_state=3)
    F = g.NystromFeatures(X, sigma=SIG, n_components=40, tol=0, landmarks="uniform", random_state=3,
                          dtype=np.float64).features_
    l = S.size
    for j, rho in enumerate(rhos):
        for k, gA in enumerate(gAs):
            resid = []
            for i in range(l):
                keep = np.delete(np.arange(l), i)
                # the engine keeps l in the ridge: gamma * l / (l - 1) on l - 1 points is the same system
                c = l / (l - 1)
                w = g.nystrom_laprls_fit(F, S[keep], Y[keep], M, gA * c, rho * gA * c)
                resid.append(Y[i] - F[S[i]] @ w)
            np.testing.assert_allclose(-res.scores[0, j, k], np.mean(np.square(resid)), rtol=1e-6)


def test_lowrank_selection_exact_step():
    """The returned fit is the exact LapRLS (laprls_fit) at the selected values; its gamma_A minimizes the
    exact LOO (brute-force refits) among the grid at the selected (sigma, ratio)."""
    Xs, Ss, Ys, Ms = X[:200], S[S < 200], Y[S < 200], g.graph_penalty(g.knn_graph(X[:200], 8))
    res, alpha, b = g.select_laprls_lowrank(Xs, Ss, Ys, Ms, [0.15, 0.3, 0.6], [1e-5, 1e-3, 1e-1],
                                            n_components=50, extend=False, return_coef=True)
    p = res.best_params
    Ks = g.pairwise_kernel(Xs, sigma=p["sigma"])
    np.testing.assert_allclose(Ks @ alpha, Ks @ g.laprls_fit(Ks, Ss, Ys, Ms, p["gamma_A"], p["gamma_I"]),
                               atol=1e-7)
    np.testing.assert_allclose(b, 0.0)
    mse = _exact_loo_mse(Ks, Ss, Ys, Ms, p["ratio"], res.grid["gamma_A"])
    np.testing.assert_allclose(-res.exact_scores, mse, rtol=1e-5)
    assert p["gamma_A"] == res.grid["gamma_A"][int(np.argmin(mse))]


def test_lowrank_selection_all_landmarks_picks_the_exact_loo_point():
    """n_components >= n: the surrogate is exact, so its best (sigma, ratio, gamma_A) is that of the exact LOO
    over the same grid (ManifoldRidgePath per width and ratio)."""
    Xs, Ss, Ys, Ms = X[:150], S[S < 150], Y[S < 150], g.graph_penalty(g.knn_graph(X[:150], 8))
    sig, rhos, gAs = np.array([0.2, 0.4]), np.array([0.0, 1e2, 1e4]), np.array([1e-4, 1e-2, 1.0])
    res = g.select_laprls_lowrank(Xs, Ss, Ys, Ms, sig, gAs, rhos, n_components=150, extend=False)
    exact = np.empty((2, 3, 3))
    for i, s in enumerate(sig):
        mp = g.ManifoldRidgePath(g.pairwise_kernel(Xs, sigma=s), Ss, Ms)
        for j, r in enumerate(rhos):
            exact[i, j] = -np.mean(np.square(mp.path(r, False).loo_residuals(Ys[:, None], gAs * Ss.size)), axis=(1, 2))
    np.testing.assert_allclose(res.scores, exact, rtol=1e-5, atol=1e-10)
    i, j, k = np.unravel_index(np.argmax(exact), exact.shape)
    assert (res.best_params["sigma"], res.best_params["ratio"], res.best_params["gamma_A"]) == (sig[i], rhos[j], gAs[k])


def test_nystrom_plaprls_target_in_a_non_constant_basis_keeps_the_graph_term():
    # y = 1 + 2x on the labels lies in span(Psi) for Psi = [1, x], but M x != 0: the graph term of the
    # basis is not zero, so (w = 0, beta = lstsq) is not the minimizer.  Oracle: the dense normal equations
    # of the same objective, written out here.
    x = np.linspace(0, 1, 30)[:, None]
    n = x.shape[0]
    Kx = g.pairwise_kernel(x, sigma=0.2)
    kap = Kx.mean()
    F = g.NystromFeatures(x, sigma=0.2, n_components=n).features_ / np.sqrt(kap)
    Mx = g.graph_penalty(g.knn_graph(x, 3))
    Psi = np.hstack([np.ones((n, 1)), x])
    Sx = np.array([0, 10, 29])
    y = 1.0 + 2.0 * x[Sx, 0]
    gA, gI = 1e-3, 1e4
    w, beta = g.nystrom_plaprls_fit(F, Sx, y, Mx, gA, gI, Psi=Psi)
    l, r = Sx.size, F.shape[1]
    lam1, lam2 = gA * l, gI * l / n ** 2
    C = F.T @ F / n
    P = (np.eye(r) - C) @ (np.eye(r) - C)
    Md = Mx.toarray()
    A = np.block([[F[Sx].T @ F[Sx] + lam1 * P + lam2 * F.T @ Md @ F, F[Sx].T @ Psi[Sx] + lam2 * F.T @ Md @ Psi],
                  [Psi[Sx].T @ F[Sx] + lam2 * Psi.T @ Md @ F, Psi[Sx].T @ Psi[Sx] + lam2 * Psi.T @ Md @ Psi]])
    z = np.linalg.lstsq(A, np.concatenate([F[Sx].T @ y, Psi[Sx].T @ y]), rcond=None)[0]

    def objective(w_, b_):
        f = F @ w_ + Psi @ b_
        return ((y - f[Sx]) ** 2).sum() / l + gA * w_ @ P @ w_ + gI / n ** 2 * f @ Md @ f

    assert objective(z[:r], z[r:]) < 0.5 * objective(np.zeros(r), np.linalg.lstsq(Psi[Sx], y, rcond=None)[0])
    np.testing.assert_allclose(objective(w, beta), objective(z[:r], z[r:]), rtol=1e-9)
    np.testing.assert_allclose(F @ w + Psi @ beta, F @ z[:r] + Psi @ z[r:], atol=1e-7)


def test_nystrom_plaprls_constant_target_with_constant_basis_is_beta_alone(exact_features):
    # M 1 = 0 for the combinatorial Laplacian: a constant target is the basis alone, exactly
    w, beta = g.nystrom_plaprls_fit(exact_features.features_, S, np.full(S.size, 3.0), M, 1e-3, 1e2)
    assert np.abs(w).max() == 0.0
    np.testing.assert_allclose(beta, [3.0], rtol=1e-12)


@pytest.mark.parametrize("grid", [[0.0], [5.0, 50.0]])
def test_nystrom_laprls_selects_on_the_users_gamma_I_grid(grid):
    # with every point a landmark the Nystrom model is the exact one: its selection over the user's gamma_I
    # values must pick what the exact path picks (before, it replaced the grid by its own ratio grid: 1000)
    yp = np.full(YY.shape, -1)
    lab = np.random.default_rng(0).choice(600, 20, replace=False)
    yp[lab] = YY[lab]
    exact = g.LapRLSClassifier(sigma=SIG, gamma_I=grid, solver="direct").fit(X, yp)
    low = g.LapRLSClassifier(sigma=SIG, gamma_I=grid, solver="nystrom", n_components=600).fit(X, yp)
    assert low.gamma_I_ in grid
    assert low.gamma_I_ == exact.gamma_I_
    assert low.gamma_A_ == pytest.approx(exact.gamma_A_, rel=1e-9)


def test_exact_step_passes_over_a_ratio_whose_warped_gram_is_indefinite(monkeypatch):
    """A ratio whose exact G_SS KernelRidgePath refuses as indefinite (a ValueError) is dropped like a singular
    one: the selection takes the next usable (width, ratio).  Before, only LinAlgError was caught and the
    check of the path's eigenvalues could not fire (they are clipped at 0), so the ValueError escaped."""
    Xs, Ss, Ys, Ms = X[:200], S[S < 200], Y[S < 200], g.graph_penalty(g.knn_graph(X[:200], 8))
    free = g.select_laprls_lowrank(Xs, Ss, Ys, Ms, [0.3], [1e-3], [1e2, 1e4], n_components=50, extend=False)
    refused = free.best_params["ratio"]
    real_path = g.ManifoldRidgePath.path

    def path(self, ratio, fit_intercept):
        if ratio == refused:
            raise ValueError("K is not positive semidefinite (as KernelRidgePath says it)")
        return real_path(self, ratio, fit_intercept)
    monkeypatch.setattr(g.ManifoldRidgePath, "path", path)
    res = g.select_laprls_lowrank(Xs, Ss, Ys, Ms, [0.3], [1e-3], [1e2, 1e4], n_components=50, extend=False)
    assert res.best_params["ratio"] == ({1e2, 1e4} - {refused}).pop()


def _exact_loo_mse(Ks, Ss, Ys, Ms, ratio, gamma_As):
    """The exact LapRLS LOO MSE by refits (laprls_fit, the label left out, its point kept in the graph)."""
    l = Ss.size
    out = []
    for gA in gamma_As:
        resid = []
        for i in range(l):
            keep = np.delete(np.arange(l), i)
            c = l / (l - 1)
            a = g.laprls_fit(Ks, Ss[keep], Ys[keep], Ms, gA * c, ratio * gA * c)
            resid.append(Ys[i] - Ks[Ss[i]] @ a)
        out.append(np.mean(np.square(resid)))
    return np.array(out)


def test_lowrank_selection_exact_step_extends_an_auto_gamma_A_at_its_edge():
    """An "auto" gamma_A whose exact-LOO best is the first value of the grid grows below it in the exact step
    (as the surrogate's axes do), towards the rounding floor; the choice is the argmin of the brute-force exact
    LOO over the grown grid, and no edge warning names it.  (The surrogate's best was inside the grid, the
    exact step took the grid's first value and warned on every default LapRLS fit of the digits demo.)"""
    Xs, Ss, Ys, Ms = X[:200], S[S < 200], Y[S < 200], g.graph_penalty(g.knn_graph(X[:200], 8))
    grid = [1e-3, 1e-2, 1e-1]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = g.select_laprls_lowrank(Xs, Ss, Ys, Ms, [0.15, 0.3, 0.6], grid, n_components=50,
                                      extend=("gamma_A",))
    assert not [w for w in caught if "gamma_A=" in str(w.message)]
    p = res.best_params
    assert res.exact_grid[0] < grid[0] and set(grid) <= set(res.exact_grid)
    mse = _exact_loo_mse(g.pairwise_kernel(Xs, sigma=p["sigma"]), Ss, Ys, Ms, p["ratio"], res.exact_grid)
    np.testing.assert_allclose(-res.exact_scores, mse, rtol=1e-5)
    assert p["gamma_A"] == res.exact_grid[int(np.argmin(mse))] < grid[0]
    assert p["gamma_I"] == p["ratio"] * p["gamma_A"]


def test_lowrank_selection_exact_step_reports_ones_own_gamma_A_grid_at_its_edge():
    """One's own gamma_A grid (extend names the width only) is not grown by the exact step; a choice at its
    edge is reported once, naming gamma_A."""
    Xs, Ss, Ys, Ms = X[:200], S[S < 200], Y[S < 200], g.graph_penalty(g.knn_graph(X[:200], 8))
    grid = [1e-3, 1e-2, 1e-1]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = g.select_laprls_lowrank(Xs, Ss, Ys, Ms, [0.15, 0.3, 0.6], grid, n_components=50,
                                      extend=("sigma",))
    p = res.best_params
    np.testing.assert_array_equal(res.exact_grid, grid)
    mse = _exact_loo_mse(g.pairwise_kernel(Xs, sigma=p["sigma"]), Ss, Ys, Ms, p["ratio"], grid)
    assert p["gamma_A"] == grid[int(np.argmin(mse))] == grid[0]
    edge = [w for w in caught if "gamma_A=" in str(w.message)]
    assert len(edge) == 1 and issubclass(edge[0].category, g.SelectionWarning)


@pytest.mark.parametrize("n_labels, n_components", [(60, 20), (10, 40)])
def test_lowrank_selection_scores_are_those_of_the_dense_surrogate_grams(n_labels, n_components):
    """The surrogate's scores over the whole grid (every width and ratio, after the extensions) equal the LOO of
    the dense l x l surrogate Gram A diag(1/(1 + rho d)) A^T (KernelRidgePath of it): l > r (the path on the
    r-dimensional column space of A) and l < r; and the surrogate's best point is the dense one's."""
    from graphrkhs.solvers import _lowrank
    rng = np.random.default_rng(1)
    Ss = np.sort(rng.choice(200, n_labels, replace=False))
    Xs, Ms = X[:200], g.graph_penalty(g.knn_graph(X[:200], 8))
    Ys = np.where(YY[Ss] == 1, 1.0, -1.0)
    res = g.select_laprls_lowrank(Xs, Ss, Ys, Ms, [0.15, 0.3], n_components=n_components, random_state=2)
    ny = g.NystromFeatures(Xs, sigma=0.15, n_components=n_components, tol=0, landmarks="uniform",
                           random_state=2, dtype=np.float64)
    l = Ss.size
    dense = np.empty_like(res.scores)
    for i, s in enumerate(res.grid["sigma"]):
        A, d = _lowrank._warped_lowrank(ny.with_sigma(Xs, float(s)).features_, Ss, Ms)[:2]
        for j, rho in enumerate(res.grid["ratio"]):
            Kr = (A / (1.0 + rho * d)) @ A.T
            R = g.KernelRidgePath(Kr).loo_residuals(Ys[:, None], res.grid["gamma_A"] * l)
            dense[i, j] = -np.mean(np.square(R), axis=(1, 2))
    np.testing.assert_allclose(res.scores, dense, rtol=1e-6)
    assert np.argmax(res.scores) == np.argmax(dense)
