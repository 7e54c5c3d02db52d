"""PRLSRegressor(gamma=0) is the gamma -> 0+ limit: the interpolant K alpha + beta = y of least
alpha^T (K - 2K' + K'') alpha.  At gamma = 0 the interpolants are a family (l equations, l + 1 unknowns) and
the normal equations are singular; their Cholesky solve at the rounding of K Q K (cond(K)^2) gave a fit that
moved with the order of the training rows (12 labels, sigma 1: by 7.8 on targets +-1)."""

import warnings

import numpy as np

import graphrkhs as gr


def _gauss(A, B, s):
    return np.exp(-((A[:, None, :] - B[None, :, :]) ** 2).sum(-1) / (2 * s * s))


def _data():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 2))
    y = np.sign(X[:, 0])
    y[12:] = np.nan
    return X, y, rng.normal(size=(5, 2))


def _oracle(X, y, T, s):
    """The limit from the empirical-operator grams written out: K = Kh_SS, K' = Kh_Sn Kh_nS / n,
    K'' = Kh_Sn Kh_nn Kh_nS / n^2 (Kh = K / kappa); alpha = K^-1 (y - beta), beta minimizing alpha^T P alpha."""
    S = ~np.isnan(y)
    n = X.shape[0]
    kappa = _gauss(X, X, s).mean()
    KSn = _gauss(X[S], X, s) / kappa
    K = KSn[:, S]
    P = K - 2 * KSn @ KSn.T / n + KSn @ (_gauss(X, X, s) / kappa) @ KSn.T / n ** 2
    a = np.linalg.solve(K, y[S])
    b = np.linalg.solve(K, np.ones(S.sum()))
    beta = (b @ P @ a) / (b @ P @ b)
    alpha = a - beta * b
    return _gauss(T, X[S], s) / kappa @ alpha + beta


def test_prls_gamma_zero_is_the_limit():
    X, y, T = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = gr.PRLSRegressor(gamma=0.0, sigma=1.0).fit(X, y)
    oracle = _oracle(X, y, T, 1.0)
    assert np.abs(est.predict(T) - oracle).max() <= 1e-6 * np.abs(oracle).max()
    S = ~np.isnan(y)
    assert np.abs(est.predict(X[S]) - y[S]).max() <= 1e-9          # it interpolates the labels


def test_prls_gamma_zero_does_not_depend_on_the_row_order():
    X, y, T = _data()
    perm = np.random.default_rng(0).permutation(len(y))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = gr.PRLSRegressor(gamma=0.0, sigma=1.0).fit(X, y).predict(T)
        b = gr.PRLSRegressor(gamma=0.0, sigma=1.0).fit(X[perm], y[perm]).predict(T)
    assert np.abs(a - b).max() <= 1e-8 * np.abs(a).max()


def test_prls_gamma_zero_low_rank_kernel_is_the_least_squares_fit():
    # the linear kernel has rank 2 on 12 labeled points: the fit is the least-squares fit by [x, 1], not an
    # interpolant; and copies of a point with different targets get their mean
    rng = np.random.default_rng(5)
    X = rng.normal(size=(30, 2)) + 3.0
    y = X[:, 0] + 0.5 * X[:, 1] ** 2 + 1.0
    y[12:] = np.nan
    S = ~np.isnan(y)
    B = np.c_[X[S], np.ones(S.sum())]
    est = gr.PRLSRegressor(gamma=0.0, kernel="linear").fit(X, y)
    assert np.abs(est.predict(X[S]) - B @ np.linalg.lstsq(B, y[S], rcond=None)[0]).max() <= 1e-9
    X2, y2, _ = _data()
    X2, y2 = np.vstack([X2, X2[:2]]), np.r_[y2, y2[:2] + 1.0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = gr.PRLSRegressor(gamma=0.0, sigma=1.0).fit(X2, y2)
    assert np.abs(est.predict(X2[:2]) - (y2[:2] + y2[-2:]) / 2).max() <= 1e-8
