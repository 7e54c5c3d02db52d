"""LapRLS / PLapRLS at the fallback gammas (gamma_A = 1e-6, gamma_I = 1e6, used when the labels cannot select them):
permutation equivariance within the rounding the conditioning of the system allows, and PLapRLS against a
40-digit oracle.

Three blobs, one label a class, a wide Gaussian kernel (sigma = 2.9, about the selected width): the LU of
PLapRLS's system T = N_Psi K + gamma_A l (I - K/n)^2 (condition number 1e13 - 1e14) moved the predictions at new
points by 5e-3 - 1.6e-1 (relative) under a permutation of the points and was 3.1e-3 off the oracle; the symmetric
form R N_Psi R^T + gamma_A l (I - R R^T/n)^2 (K = R^T R) has condition number 1e8 - 1e9.
"""

import warnings

import mpmath
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_blobs

import graphrkhs as g
from graphrkhs import laprls_fit, pairwise_kernel, plaprls_fit
from graphrkhs.solvers._kernel import graph_penalty

GAMMA_A, GAMMA_I, SIGMA = 1e-6, 1e6, 2.9
EPS = np.finfo(np.float64).eps


def _problem(seed, n):
    X, y = make_blobs(n, centers=[[0, 0], [3, 0], [0, 3]], cluster_std=1.0, random_state=seed)
    S = np.array([np.flatnonzero(y == c)[0] for c in range(3)])
    M = graph_penalty(g.knn_graph(X, 10))
    Xt = np.random.default_rng(1).normal(size=(50, 2)) * 2.0       # new points, some outside the blobs
    return X, S, M, 2.0 * np.eye(3) - 1.0, Xt


def _permuted(K, S, M, perm):
    inv = np.argsort(perm)
    return K[np.ix_(perm, perm)], inv[S], sp.csr_array(M.toarray()[np.ix_(perm, perm)])


def _n_psi(M, S, n):
    """N_Psi = N - N 1 (1^T N 1)^{-1} 1^T N, N = J + gamma_I l / n^2 M (dense, the oracle's)."""
    J = np.zeros(n)
    J[S] = 1.0
    N = np.diag(J) + GAMMA_I * S.size / n ** 2 * M.toarray()
    Np = N.sum(axis=1, keepdims=True)
    return N - Np @ Np.T / Np.sum()


def _plaprls_condition(K, S, M):
    """Condition number of the symmetric form of PLapRLS's system in K's eigenbasis (an oracle independent of
    the solver's Cholesky): diag(h) U^T N_Psi U diag(h) + gamma_A l (I - diag(mu)/n)^2, h = sqrt(max(mu, 0))."""
    n = K.shape[0]
    mu, U = np.linalg.eigh(K)
    h = np.sqrt(np.maximum(mu, 0.0))
    A = h[:, None] * (U.T @ _n_psi(M, S, n) @ U) * h[None, :] + GAMMA_A * S.size * np.diag((1 - mu / n) ** 2)
    return np.linalg.cond((A + A.T) / 2)


def _rel(a, b):
    return np.abs(a - b).max() / np.abs(a).max()


@pytest.mark.parametrize("seed, n", [(0, 90), (1, 90), (0, 300), (1, 300)])
def test_plaprls_at_the_fallback_gammas_is_permutation_equivariant_to_its_conditioning(seed, n):
    X, S, M, Y, Xt = _problem(seed, n)
    K = pairwise_kernel(X, sigma=SIGMA)
    kappa = K.mean()
    K /= kappa                                       # the empirical operator's normalization (row means 1)
    perm = np.random.default_rng(seed).permutation(n)
    Kp, Sp, Mp = _permuted(K, S, M, perm)
    a1, b1 = plaprls_fit(K, S, Y, M, GAMMA_A, GAMMA_I, solver="direct")
    a2, b2 = plaprls_fit(Kp, Sp, Y, Mp, GAMMA_A, GAMMA_I, solver="direct")
    fit1, fit2 = K @ a1 + b1, (Kp @ a2 + b2)[np.argsort(perm)]
    kt = pairwise_kernel(Xt, X, sigma=SIGMA) / kappa
    new1, new2 = kt @ a1 + b1, kt[:, perm] @ a2 + b2
    # a backward-stable solve of a system of condition number c moves the solution by about eps c; 10 eps c
    # allows the products around it (measured: 1e-9 / 1e-6 at fitted / new points, eps c = 3e-8 - 4e-7; the LU
    # of the unsymmetric T moved them by 2.6e-3 / 1.6e-1)
    tol = 10 * EPS * _plaprls_condition(K, S, M)
    assert tol < 1e-5
    assert _rel(fit1, fit2) <= tol
    # at new points kt @ alpha cancels terms 4e6 times the predictions, so the solve's rounding shows there at 0.6 -
    # 1.3 times 10 eps c depending on the rounding of K (the kernel's centring frame, BLAS threads): 100 eps c (3e-6 -
    # 4e-5), over 100 times below the LU's error (5e-3 - 1.6e-1)
    assert _rel(new1, new2) <= 10 * tol


@pytest.mark.parametrize("seed, n", [(0, 90), (1, 300)])
def test_laprls_at_the_fallback_gammas_is_permutation_equivariant_to_its_conditioning(seed, n):
    # LapRLS's LU of B = N K + gamma_A l I: within 10 eps cond(B) (cond(B) 2e9 - 6e10; measured 1e-8 - 1e-6)
    X, S, M, Y, Xt = _problem(seed, n)
    K = pairwise_kernel(X, sigma=SIGMA)
    perm = np.random.default_rng(seed).permutation(n)
    Kp, Sp, Mp = _permuted(K, S, M, perm)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", g.ConvergenceWarning)     # a residual at float64's floor
        a1 = laprls_fit(K, S, Y, M, GAMMA_A, GAMMA_I, solver="direct")
        a2 = laprls_fit(Kp, Sp, Y, Mp, GAMMA_A, GAMMA_I, solver="direct")
    J = np.zeros(n)
    J[S] = 1.0
    B = (np.diag(J) + GAMMA_I * S.size / n ** 2 * M.toarray()) @ K + GAMMA_A * S.size * np.eye(n)
    tol = 10 * EPS * np.linalg.cond(B)
    kt = pairwise_kernel(Xt, X, sigma=SIGMA)
    assert _rel(K @ a1, (Kp @ a2)[np.argsort(perm)]) <= tol
    assert _rel(kt @ a1, kt[:, perm] @ a2) <= tol


def test_plaprls_at_the_fallback_gammas_matches_a_40_digit_oracle():
    # the same normal equations in 40-digit arithmetic (mpmath) on the float64 points: the LU of T was
    # 3.1e-3 off at the new points, the symmetric Cholesky form 1.3e-5 (the eigenbasis form 2.9e-6)
    X, S, M, Y, Xt = _problem(0, 90)
    n, l = X.shape[0], S.size
    mpmath.mp.dps = 40

    def kmp(A, B):
        two_s2 = 2 * mpmath.mpf(SIGMA) ** 2
        return mpmath.matrix([[mpmath.exp(-sum((mpmath.mpf(float(u)) - mpmath.mpf(float(v))) ** 2
                                                for u, v in zip(a, b)) / two_s2) for b in B] for a in A])

    Kmp = kmp(X, X)
    kappa = sum(Kmp[i, j] for i in range(n) for j in range(n)) / (n * n)
    Kmp /= kappa
    N = mpmath.matrix(M.toarray().tolist()) * (mpmath.mpf(GAMMA_I) * l / n ** 2)
    for i in S:
        N[int(i), int(i)] += 1
    one = mpmath.matrix([1] * n)
    Np = N * one
    total = (one.T * Np)[0]
    y = mpmath.zeros(n, 1)
    y[int(S[1]), 0] = 1                                 # the second class's +-1 column
    y[int(S[0]), 0] = y[int(S[2]), 0] = -1
    r0 = y - Np * ((one.T * y)[0] / total)
    E = mpmath.eye(n) - Kmp / n
    T = (N - Np * Np.T / total) * Kmp + mpmath.mpf(GAMMA_A) * l * E * E
    alpha = mpmath.lu_solve(T, r0)
    beta = (one.T * (y - N * (Kmp * alpha)))[0] / total
    ref = np.array([float(v) for v in kmp(Xt, X) * alpha]) / float(kappa) + float(beta)
    K = pairwise_kernel(X, sigma=SIGMA)
    kap = K.mean()
    a, b = plaprls_fit(K / kap, S, Y[:, 1], M, GAMMA_A, GAMMA_I, solver="direct")
    got = pairwise_kernel(Xt, X, sigma=SIGMA) / kap @ a + b
    assert _rel(ref, got) <= 1e-4
