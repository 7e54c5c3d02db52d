"""LapRLS's Nystrom path (``solver="nystrom"``): its leave-one-out scores against explicit refits."""

import numpy as np
import pytest

from graphrkhs import LapRLSRegressor
from graphrkhs.graphs import knn_graph
from graphrkhs.solvers import graph_penalty


def test_nystrom_laprls_regressor_loo_is_the_refit_of_the_centred_fit():
    # before: the Nystrom selection centred y on the mean of all l labels, the held-out one included
    # (cv_results_ 0.391 against 0.456 by refits at gamma_A = 0.1, gamma_I = 0.01, 10 labels)
    rng = np.random.default_rng(7)
    n, r = 30, 12
    X = rng.uniform(-1, 1, size=(n, 2))
    y = 2.0 + np.sin(2 * X[:, 0]) + X[:, 1] + 0.3 * rng.normal(size=n)
    labeled = np.zeros(n, dtype=bool)
    labeled[rng.choice(n, 10, replace=False)] = True
    W = knn_graph(X, n_neighbors=5)
    est = LapRLSRegressor(sigma=0.6, gamma_A=[1e-3, 1e-1], gamma_I=[1e-2, 1.0], graph=W, solver="nystrom",
                          n_components=r, landmarks="uniform", random_state=0).fit(X, np.where(labeled, y, np.nan))
    F = est.nystrom_.features_                       # the model: f = F w, penalty |w|^2 + w' F'MF w / n^2
    assert F.shape == (n, r)
    FMF = F.T @ (graph_penalty(W) @ F)
    S = np.flatnonzero(labeled)
    l = S.size
    cv = est.cv_results_
    # the whole own grid, in the estimator's parameters (before: the best gamma_A's two rows only, named
    # alpha = gamma_A and sigma = gamma_I / gamma_A)
    assert cv["params"] == [{"gamma_A": a, "gamma_I": i} for a in (1e-3, 1e-1) for i in (1e-2, 1.0)]
    best = cv["params"][int(np.argmin(cv["rank_test_score"]))]
    assert best == {"gamma_A": est.gamma_A_, "gamma_I": est.gamma_I_}
    for p, score in zip(cv["params"], cv["mean_test_score"]):
        gA, gI = p["gamma_A"], p["gamma_I"]
        res = []
        for i in range(l):
            keep = np.delete(S, i)
            m = y[keep].mean()
            A = F[keep].T @ F[keep] + gA * l * np.eye(r) + (gI * l / n ** 2) * FMF
            w = np.linalg.solve(A, F[keep].T @ (y[keep] - m))
            res.append(y[S[i]] - (F[S[i]] @ w + m))
        assert -score == pytest.approx(np.mean(np.square(res)), rel=1e-8), p


def test_nystrom_laprls_auto_table_names_the_estimators_parameters():
    # before: cv_results_ of the Nystrom path showed param_alpha (gamma_A) and param_sigma (gamma_I / gamma_A),
    # a "sigma" that is not the estimator's kernel width
    rng = np.random.default_rng(3)
    X = rng.uniform(-1, 1, size=(40, 2))
    y = X[:, 0] + 0.1 * rng.normal(size=40)
    yy = np.where(np.arange(40) % 4 == 0, y, np.nan)
    est = LapRLSRegressor(sigma=0.5, n_neighbors=5, solver="nystrom", n_components=15, random_state=0).fit(X, yy)
    cv = est.cv_results_
    # the searched ratio axis stays, beside the estimator's gamma_I (manifold_cv_results)
    assert sorted(k for k in cv if k.startswith("param_")) == ["param_gamma_A", "param_gamma_I", "param_ratio"]
    best = cv["params"][int(np.argmin(cv["rank_test_score"]))]
    assert best["gamma_A"] == est.gamma_A_
    assert best["gamma_I"] == est.gamma_I_
    assert best["ratio"] * best["gamma_A"] == pytest.approx(est.gamma_I_, rel=1e-12)


def test_plaprls_nystrom_auto_warning_gives_a_solver_it_accepts():
    # before: "... on the Nystrom path (n > the low-rank threshold) ... (pass numbers, or solver='exact' on a
    # smaller problem)": the path was forced by solver='nystrom' on 40 points, and PLapRLS refuses
    # solver='exact' (InvalidParameterError: one of 'auto', 'direct', 'cg', 'nystrom')
    from graphrkhs import PLapRLSClassifier, SelectionWarning

    # (two labels per class: at one label per class no path selects, and the fallback is gamma_I = 1e6)
    X = np.linspace(0, 1, 40)[:, None]
    y = np.full(40, -1)
    y[[0, 1, 38, 39]] = [0, 0, 1, 1]
    with pytest.warns(SelectionWarning, match=r"gamma_A/gamma_I='auto' for PLapRLS are not selected on the Nystrom "
                                              r"path \(solver='nystrom', or 'auto' above 10000 points\): the fallback "
                                              r"values gamma_A=1e-06, gamma_I=100 replace 'auto' \(pass numbers, or "
                                              r"solver='direct' or 'cg' on at most 6000 points\)"):
        PLapRLSClassifier(solver="nystrom", n_components=10, random_state=0).fit(X, y)
    PLapRLSClassifier(solver="direct").fit(X, y)          # the advice is accepted
