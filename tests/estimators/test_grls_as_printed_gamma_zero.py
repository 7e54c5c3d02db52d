"""GRLSRegressor(method="as_printed", gamma=0) is the gamma -> 0 limit of the printed Eqs. (26)-(27),
c = H^+ (y_2 - E^T alpha): with conflicting copies of a point H is singular, and the Cholesky solve's
rounding-level shift gave coefficients ~1/eps whose rounding reached the predictions (0.019 off the limit)."""

import warnings

import numpy as np

import graphrkhs as gr


def _data():
    x = np.linspace(-1, 1, 8)[:, None]
    X = np.vstack([x, x[[2, 5]]])                                   # two copies, with other targets
    y = np.r_[np.sin(3 * x[:, 0]), np.sin(3 * x[[2, 5], 0]) + 0.3]
    return X, y


def test_as_printed_gamma_zero_is_the_limit_with_conflicting_copies():
    X, y = _data()
    T = np.linspace(-1, 1, 7)[:, None]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = gr.GRLSRegressor(method="as_printed", gamma=0.0, sigma=0.5).fit(X, y)
    k, XS, rest = est.kernel_, est.X_fit_, est.rest_
    YS = y[np.lexsort(X.T[::-1])]                                   # the fit's (sorted) row order
    alpha = YS[k.anchors]
    b = YS[rest] - k.lagrange(XS[rest]) @ alpha
    # the oracle: copies merged (mean target), on which H is positive definite; H(T, R) H^+ b is unchanged
    uniq, g = np.unique(XS[rest], axis=0, return_inverse=True)
    g = g.ravel()
    bu = np.bincount(g, weights=b) / np.bincount(g)
    Hu = k.H(uniq)
    oracle = k.lagrange(T) @ alpha + k.H(T, uniq) @ np.linalg.solve((Hu + Hu.T) / 2, bu)
    assert np.abs(est.predict(T) - oracle).max() <= 1e-9


def test_as_printed_gamma_zero_without_copies_is_the_interpolant():
    x = np.linspace(-1, 1, 8)[:, None]
    y = np.sin(3 * x[:, 0])
    est = gr.GRLSRegressor(method="as_printed", gamma=0.0, sigma=0.5).fit(x, y)
    assert np.abs(est.predict(x) - y).max() <= 1e-9


def test_as_printed_gamma_zero_distinct_points_is_the_cholesky_solve(monkeypatch):
    # distinct points: H is positive definite and the limit is H^-1 (y_2 - E^T alpha), solved by Cholesky as
    # rls_fit's interpolation; the eigen-solve is for the columns Cholesky does not solve (conflicting copies).
    # Using it for every gamma = 0 fit cost 14x the time on 1500 points and lost accuracy
    from graphrkhs.solvers import _kernel

    def refuse(*args):
        raise AssertionError("the minimum-norm eigen-solve ran for a positive definite H")

    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(60, 2))
    y = np.sin(3 * X[:, 0])
    monkeypatch.setattr(_kernel, "_min_norm_psd_solve", refuse)
    est = gr.GRLSRegressor(method="as_printed", gamma=0.0, sigma=0.5).fit(X, y)
    # the limit interpolates the distinct points (the test above, by the eigen-solve's route before)
    assert np.abs(est.predict(X) - y).max() <= 1e-6
