"""prls_fit at a small positive gamma is solved at the condition number of K, not of K^2.

Eq. (11)'s normal equations (gamma l P + K Q K) alpha = K Q y, solved by Cholesky, squared K's condition number:
at gamma 1e-12 .. 1e-8 (gamma="auto" once chose 1e-9) PRLSRegressor's predictions moved with the order of the
training rows by 0.06 .. 6e-6 (7.0 at 1e-14), and on a 10-point problem with cond(K) = 2.4e6 they were 0.08 off
the exact solution of the same float64 grams at gamma 1e-10.  prls_fit now solves the stacked least-squares
problem in the coordinates of K's eigenvectors (backward stable)."""

import warnings

import mpmath
import numpy as np
import pytest

import graphrkhs as gr
from graphrkhs import consistency_grams, pairwise_kernel, prls_fit
from graphrkhs.solvers._kernel import _consistency_penalty


def _data():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 2))
    y = np.sign(X[:, 0])
    y[12:] = np.nan
    return X, y, rng.normal(size=(5, 2))


@pytest.mark.parametrize("gamma", [1e-14, 1e-12, 1e-10, 1e-9, 1e-8])
def test_prls_small_gamma_does_not_depend_on_the_row_order(gamma):
    X, y, T = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = gr.PRLSRegressor(gamma=gamma, sigma=1.0).fit(X, y).predict(T)
        worst = 0.0
        for seed in range(3):
            perm = np.random.default_rng(seed).permutation(len(y))
            b = gr.PRLSRegressor(gamma=gamma, sigma=1.0).fit(X[perm], y[perm]).predict(T)
            worst = max(worst, np.abs(a - b).max())
    assert worst <= 1e-9 * np.abs(a).max()


def test_prls_small_gamma_tends_to_the_gamma_zero_limit():
    # gamma -> 0+ is continuous into the exact limit of gamma = 0 (_prls_limit): 1e-14 is within 1e-8 of it
    X, y, T = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f0 = gr.PRLSRegressor(gamma=0.0, sigma=1.0).fit(X, y).predict(T)
        f = gr.PRLSRegressor(gamma=1e-14, sigma=1.0).fit(X, y).predict(T)
    assert np.abs(f - f0).max() <= 1e-8 * np.abs(f0).max()


def _oracle(K, P, y, gamma, KT):
    """Eq. (11) with Psi = constants on the same float64 K and P, solved in 60 significant digits."""
    mpmath.mp.dps = 60
    l = K.shape[0]
    Km, Pm = mpmath.matrix(K.tolist()), mpmath.matrix(P.tolist())
    KK = Km * Km
    A, b = mpmath.matrix(l + 1, l + 1), mpmath.matrix(l + 1, 1)
    for i in range(l):
        for j in range(l):
            A[i, j] = mpmath.mpf(gamma) * l * Pm[i, j] + KK[i, j]
        A[i, l] = A[l, i] = mpmath.fsum(Km[i, k] for k in range(l))
        b[i] = mpmath.fsum(Km[i, k] * mpmath.mpf(y[k]) for k in range(l))
    A[l, l], b[l] = l, mpmath.fsum(mpmath.mpf(v) for v in y)
    z = mpmath.lu_solve(A, b)
    KTm = mpmath.matrix(KT.tolist())
    return np.array([float(mpmath.fsum(KTm[t, k] * z[k] for k in range(l)) + z[l]) for t in range(KT.shape[0])])


@pytest.mark.parametrize("gamma", [1e-10, 1e-8, 1e-6])
def test_prls_small_gamma_is_the_exact_solution(gamma):
    # a well-conditioned case (cond(K) = 2.4e6): the fit equals Eq. (11) solved in high precision on the same
    # grams (the old Cholesky of the normal equations: 0.08 / 9e-4 / 1.4e-5 off)
    rng = np.random.default_rng(1)
    X = np.sort(rng.uniform(0, 3, 10))[:, None]
    y = np.sin(2 * X[:, 0]) + 0.1 * rng.normal(size=10)
    T = np.linspace(0, 3, 7)[:, None]
    K, Kp, Kpp, kappa = consistency_grams(X, X, sigma=0.5)
    KT = pairwise_kernel(T, X, sigma=0.5) / kappa
    a, b = prls_fit(K, Kp, Kpp, y, gamma)
    oracle = _oracle(K, _consistency_penalty(K, Kp, Kpp), y, gamma, KT)
    assert np.abs(KT @ a + b - oracle).max() <= 1e-8 * np.abs(oracle).max()
