"""plaprls_fit with an explicit penalty P (the heat semigroup) at small gammas: the loss rows kept apart from the
penalties (a stacked least-squares problem in K's eigenvector coordinates).

The system (V^T N_Psi V + lam1 Lambda^{-1} V^T P V Lambda^{-1}) c = V^T r0, solved by Cholesky after diagonal
scaling, mixed the loss (rank l) with penalties of size gamma: its condition number was of order 1 / gamma while the
minimizer's is not, and on 30 points (12 labels, sigma 1) the predictions at new points were 6.4e-5 / 7.3e-7 off a
40-digit solution of the same matrices at gamma_A = gamma_I = 1e-12 / 1e-10 (3.7e-5 / 5.6e-7 with the rows
permuted); now 2.7e-11 / 2.1e-12."""

import warnings

import mpmath
import numpy as np
import pytest

from graphrkhs import heat_semigroup, pairwise_kernel
from graphrkhs.solvers import plaprls_fit


def _problem():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 2))
    T = rng.normal(size=(5, 2))
    S = np.arange(12)
    y = np.sin(2 * X[S, 0])
    W = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1))
    np.fill_diagonal(W, 0)
    M = np.diag(W.sum(1)) - W                       # combinatorial Laplacian: M 1 = 0
    return X, T, S, y, M


def _grams(X):
    K, K2, K3 = heat_semigroup(X, sigma=1.0)
    return np.asarray(K), np.asarray(K - 2 * K2 + K3)


def _mp_predictions(K, P, M, S, y, lam1, lam2, kT):
    """f at new points of the minimizer of ||J(y - K a - 1 b)||^2 + lam1 a^T P a + lam2 f^T M f (f = K a + 1 b):
    its normal equations [K N K + lam1 P, K N 1; 1^T N K, 1^T N 1] [a; b] = [K J y; 1^T J y], N = J + lam2 M, solved
    in 40 digits from the float64 matrices."""
    mpmath.mp.dps = 40
    n = K.shape[0]
    Km, Pm = mpmath.matrix(K.tolist()), mpmath.matrix(P.tolist())
    N = mpmath.matrix(M.tolist()) * mpmath.mpf(lam2)
    Jy = mpmath.matrix(n, 1)
    for k, s in enumerate(S):
        N[int(s), int(s)] += 1
        Jy[int(s)] = mpmath.mpf(y[k])
    KN = Km * N
    KNK, KN1, KJy = KN * Km, KN * mpmath.matrix([1] * n), Km * Jy
    A, b = mpmath.matrix(n + 1, n + 1), mpmath.matrix(n + 1, 1)
    for i in range(n):
        for j in range(n):
            A[i, j] = KNK[i, j] + mpmath.mpf(lam1) * Pm[i, j]
        A[i, n] = A[n, i] = KN1[i]
        b[i] = KJy[i]
    A[n, n] = mpmath.fsum(N[i, j] for i in range(n) for j in range(n))
    b[n] = mpmath.fsum(Jy)
    z = mpmath.lu_solve(A, b)
    return np.array([float(mpmath.fsum(mpmath.mpf(kT[t, i]) * z[i] for i in range(n)) + z[n])
                     for t in range(kT.shape[0])])


@pytest.mark.parametrize("gamma", [1e-12, 1e-10])
def test_plaprls_heat_small_gammas_are_the_exact_minimizer(gamma):
    X, T, S, y, M = _problem()
    K, P = _grams(X)
    kT = pairwise_kernel(T, X, sigma=1.0)
    n, l = X.shape[0], S.size
    exact = _mp_predictions(K, P, M, S, y, gamma * l, gamma * l / n ** 2, kT)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a, b = plaprls_fit(K, S, y, M, gamma, gamma, P=P, solver="direct")
    f = kT @ a + b[0]
    assert np.abs(f - exact).max() <= 1e-9 * np.abs(exact).max()
    # the row order: the same minimizer from the permuted matrices (the oracle moves by 6e-14 there)
    for seed in range(2):
        p = np.random.default_rng(seed).permutation(n)
        inv = np.argsort(p)
        Kp, Pp = _grams(X[p])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ap, bp = plaprls_fit(Kp, inv[S], y, M[np.ix_(p, p)], gamma, gamma, P=Pp, solver="direct")
        fp = pairwise_kernel(T, X[p], sigma=1.0) @ ap + bp[0]
        assert np.abs(fp - exact).max() <= 1e-9 * np.abs(exact).max()
