"""The estimators' leave-one-out scores (``cv_results_``) against explicit refits of the procedure fitted."""

import numpy as np
import pytest

from graphrkhs import LapRLSRegressor, WarpedKernelRegressor
from graphrkhs.graphs import knn_graph
from graphrkhs.solvers import graph_penalty


def _gauss(X, sigma):
    d2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    return np.exp(-d2 / (2 * sigma ** 2))


def _problem():
    rng = np.random.default_rng(7)
    X = rng.uniform(-1, 1, size=(30, 2))
    y = 2.0 + np.sin(2 * X[:, 0]) + X[:, 1] + 0.3 * rng.normal(size=30)
    labeled = np.zeros(30, dtype=bool)
    labeled[rng.choice(30, 10, replace=False)] = True
    W = knn_graph(X, n_neighbors=5)
    return X, y, labeled, W


def _centred_laprls_loo(K, M, S, y, gamma_A, gamma_I):
    """Mean squared LOO residual of LapRLS with y centred on the mean of the labels left in: each label is
    held out, the others' mean taken out, LapRLS refitted on all n points (the held-out one unlabeled) with
    the full fit's weights (the engine keeps the 1/l scaling), and its prediction plus that mean compared."""
    n, l = K.shape[0], S.size
    res = []
    for i in range(l):
        keep = np.delete(S, i)
        m = y[keep].mean()
        E = np.zeros((n, n))
        E[keep, keep] = 1.0
        rhs = np.zeros(n)
        rhs[keep] = y[keep] - m
        A = E @ K + gamma_A * l * np.eye(n) + (gamma_I * l / n ** 2) * (M @ K)
        alpha = np.linalg.solve(A, rhs)
        res.append(y[S[i]] - (K[S[i]] @ alpha + m))
    return float(np.mean(np.square(res)))


@pytest.mark.parametrize("cls", [LapRLSRegressor, WarpedKernelRegressor])
def test_centred_regressors_loo_is_the_refit_of_the_centred_fit(cls):
    # before: the closed form centred y on the mean of all l labels (the held-out one included), 9 % off
    X, y, labeled, W = _problem()
    sigma, gA, gI = 0.6, [1e-3, 1e-1], [1e-2, 1.0]
    yy = np.where(labeled, y, np.nan)
    est = cls(sigma=sigma, gamma_A=gA, gamma_I=gI, graph=W).fit(X, yy)
    assert est.y_mean_[0] == pytest.approx(y[labeled].mean())
    K = _gauss(X, sigma)
    M = graph_penalty(W).toarray()
    S = np.flatnonzero(labeled)
    cv = est.cv_results_
    for p, score in zip(cv["params"], cv["mean_test_score"]):
        mse = _centred_laprls_loo(K, M, S, y, p["gamma_A"], p["gamma_I"])
        assert -score == pytest.approx(mse, rel=1e-8), p


@pytest.mark.parametrize("cls, name", [("RLSRegressor", "alpha"), ("GRLSRegressor", "gamma")])
def test_width_search_reports_the_users_zero_ridge(cls, name):
    # before: cv_results_ showed the stand-in 1e-12 the width search used for a fixed 0
    import graphrkhs

    X, y, labeled, _ = _problem()
    est = getattr(graphrkhs, cls)(sigma=[0.3, 0.6, 1.2], **{name: 0.0}).fit(X[labeled], y[labeled])
    cv = est.cv_results_
    assert getattr(est, name + "_") == 0.0
    assert list(cv[f"param_{name}"]) == [0.0, 0.0, 0.0]
    assert [p[name] for p in cv["params"]] == [0.0, 0.0, 0.0]
    assert [p["sigma"] for p in cv["params"]] == [0.3, 0.6, 1.2]


def _centred_rls_refit_choice(XS, y, sigmas, alphas):
    """(sigma, alpha) of the best mean squared LOO residual of RLS on y less the mean of the labels left in,
    by explicit refits (ridge alpha * l on the l - 1 points, as the engine's fixed system)."""
    l, best = y.size, None
    for s in sigmas:
        K = _gauss(XS, s)
        for a in alphas:
            r = []
            for i in range(l):
                o = np.arange(l) != i
                yb = y[o].mean()
                c = np.linalg.solve(K[np.ix_(o, o)] + a * l * np.eye(l - 1), y[o] - yb)
                r.append(y[i] - (K[i, o] @ c + yb))
            score = -np.mean(np.square(r))
            if best is None or score > best[0]:
                best = (score, s, a)
    return best[1:]


@pytest.mark.parametrize("seed", [5, 9])
def test_warped_width_preselection_is_the_refit_of_the_centred_rls(seed):
    # with numbers for gamma_A, gamma_I the warped regressor's width is that of the best LOO RLS on the
    # labeled points; its targets are centred on their labeled mean, and the LOO kept the held-out label in
    # that mean (seed 9: sigma 0.4, the refits' choice 1.6)
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(30, 2))
    t = 5 + np.sin(2 * X[:, 0]) + X[:, 1] + 0.3 * rng.normal(size=30)
    lab = np.sort(rng.choice(30, 6, replace=False))
    y = np.full(30, np.nan)
    y[lab] = t[lab]
    sigmas = [0.2, 0.4, 0.8, 1.6]
    est = WarpedKernelRegressor(sigma=sigmas, gamma_A=1e-2, gamma_I=1.0, n_neighbors=5).fit(X, y)
    s, _ = _centred_rls_refit_choice(X[lab], t[lab], sigmas, np.geomspace(1e-6, 1e1, 15))
    assert est.sigma_ == s
