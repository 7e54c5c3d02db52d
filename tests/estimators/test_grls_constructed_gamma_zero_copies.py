"""GRLSRegressor(method="constructed", gamma=0) with copies of a labeled point: the least-squares fit of the
constructed system.  Kt is singular there (equal rows of H), and the Cholesky factor of Kt^T Kt had pivots at
its rounding: coefficients ~1e16 of opposite signs on the copies, whose rounding reached the predictions
(features="linear": 2.18 off the minimizer with consistent copies, 29.1 with a conflicting one)."""

import warnings

import numpy as np

import graphrkhs as gr


def _gauss(A, B, s=1.0):
    d2 = ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)
    return np.exp(-d2 / (2 * s * s))


def _oracle(XS, yS, T):
    """gamma -> 0+: the interpolant of the distinct points (copies merged, their targets averaged) with the
    features free, [[Phi, Psi], [Psi^T, 0]] [c; beta] = [y; 0] (Phi positive definite on distinct points)."""
    U, g = np.unique(XS, axis=0, return_inverse=True)
    g = g.ravel()
    yU = np.bincount(g, weights=yS) / np.bincount(g)
    Psi = np.c_[np.ones(len(U)), U]
    q = Psi.shape[1]
    A = np.block([[_gauss(U, U), Psi], [Psi.T, np.zeros((q, q))]])
    sol = np.linalg.solve(A, np.r_[yU, np.zeros(q)])
    return _gauss(T, U) @ sol[:len(U)] + np.c_[np.ones(len(T)), T] @ sol[len(U):]


def _data(conflict):
    rng = np.random.default_rng(6)
    X = rng.normal(size=(15, 2))
    y = X[:, 0] - X[:, 1] ** 2
    XS, yS = np.vstack([X, X[:3]]), np.r_[y, y[:3]]
    if conflict:
        yS[15] += 1.0
    return XS, yS, rng.normal(size=(6, 2))


def test_constructed_gamma_zero_with_copies_is_the_limit():
    for conflict in (False, True):
        XS, yS, T = _data(conflict)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = gr.GRLSRegressor(sigma=1.0, gamma=0.0, features="linear", method="constructed").fit(XS, yS)
        oracle = _oracle(XS, yS, T)
        assert np.abs(est.predict(T) - oracle).max() <= 1e-8 * np.abs(oracle).max()


def test_constructed_gamma_zero_without_copies_interpolates():
    XS, yS, T = _data(False)
    est = gr.GRLSRegressor(sigma=1.0, gamma=0.0, features="linear", method="constructed").fit(XS[:15], yS[:15])
    assert np.abs(est.predict(XS[:15]) - yS[:15]).max() <= 1e-9
    assert np.abs(est.predict(T) - _oracle(XS[:15], yS[:15], T)).max() <= 1e-8
