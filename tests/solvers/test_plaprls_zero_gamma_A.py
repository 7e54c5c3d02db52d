"""plaprls_fit with gamma_A = 0 (documented: gamma_A >= 0) on the direct path of the empirical operator.

With gamma_A = 0 the direct path factored T = N_Psi K by LU, but T is singular there (N_Psi annihilates Psi;
with copies of a point K is singular too), and T alpha = r0 need not have a solution: gamma_I = 0 gave NaN
coefficients (scipy's 'exactly singular' LinAlgWarning only) and two copies of a labeled point gave coefficients
~ 5e16 with a fit 0.56 instead of 0.5 (with a third label: -84 / 172 against 0.49 / 0.22).  The consistent normal
equations K N_Psi K alpha = K r0 are solved instead, in the range of K (as least squares on K N_Psi K, whose
condition number is cond(K)^2, ordinary fits were 1.1 off the minimizer).
"""
import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs import knn_graph, laplacian, pairwise_kernel
from graphrkhs.solvers import plaprls_fit


def _problem(copies):
    rng = np.random.default_rng(1)
    n = 8
    X = rng.normal(size=(n, 2))
    if copies:
        X[1] = X[0]
    K = pairwise_kernel(X, sigma=1.0)
    K = K / K.mean()
    A = (rng.random((n, n)) < 0.5).astype(float)
    A = np.triu(A, 1)
    A = A + A.T
    M = np.diag(A.sum(axis=1)) - A
    return K, M


def _minimizer_values(K, M, S, y, gamma_A, gamma_I):
    """f = K alpha + Psi beta of the objective's normal equations (Psi = constants), minimum norm (f is unique
    when J + gamma_I M is positive definite)."""
    n, l = K.shape[0], len(S)
    J = np.zeros(n)
    J[S] = 1
    Jy = np.zeros(n)
    Jy[S] = y
    N = np.diag(J) + gamma_I * l / n ** 2 * M
    P = K @ (np.eye(n) - K / n) @ (np.eye(n) - K / n)
    Psi = np.ones((n, 1))
    H = np.block([[K @ N @ K + gamma_A * l * P, K @ N @ Psi], [Psi.T @ N @ K, Psi.T @ N @ Psi]])
    z = np.linalg.lstsq(H, np.concatenate([K @ Jy, Psi.T @ Jy]), rcond=1e-12)[0]
    return K @ z[:n] + z[n:]


def test_no_graph_term_interpolates_without_nan():
    K, M = _problem(copies=False)
    S, y = [0, 1, 3], np.array([1.0, 0.0, 0.2])
    a, b = plaprls_fit(K, S, y, sp.csr_array(M), 0.0, 0.0, solver="direct")
    assert np.isfinite(a).all() and np.isfinite(b).all()
    assert np.allclose((K @ a + b[0])[S], y, atol=1e-8)


def test_copies_with_graph_term_match_the_minimizer():
    K, M = _problem(copies=True)
    for S, y in (([0, 1], np.array([1.0, 0.0])), ([0, 1, 3], np.array([1.0, 0.0, 0.2]))):
        a, b = plaprls_fit(K, S, y, sp.csr_array(M), 0.0, 1.0, solver="direct")
        f = K @ a + b[0]
        assert np.allclose(f, _minimizer_values(K, M, S, y, 0.0, 1.0), atol=1e-8)
        assert np.allclose(f[[0, 1]], f[0])                     # the copies share their value


def test_explicit_penalty_with_copies():
    # an explicit PSD penalty (the heat form, made PSD): the direct path's shifted Cholesky of the singular
    # K N_Psi K raised "not positive semidefinite" on copies of a point at gamma_A = 0
    K, M = _problem(copies=True)
    X = np.random.default_rng(1).normal(size=(8, 2))
    X[1] = X[0]
    c = pairwise_kernel(X, sigma=1.0).mean()
    P = (pairwise_kernel(X, sigma=1.0) - 2 * pairwise_kernel(X, sigma=2 ** 0.5) + pairwise_kernel(X, sigma=3 ** 0.5)) / c
    w, V = np.linalg.eigh(P)
    P = (V * np.abs(w)) @ V.T
    for S, y in (([0, 1], np.array([1.0, 0.0])), ([0, 1, 3], np.array([1.0, 0.0, 0.2]))):
        for gamma_I in (0.0, 1.0):
            a, b = plaprls_fit(K, S, y, sp.csr_array(M), 0.0, gamma_I, P=P, solver="direct")
            f = K @ a + b[0]
            expected = [0.5, 0.5, 0.2][:len(S)] if gamma_I == 0 else _minimizer_values(K, M, S, y, 0.0, 1.0)[S]
            assert np.allclose(f[S], expected, atol=1e-8)


@pytest.mark.parametrize("seed", [1, 2])
def test_gamma_A_zero_on_a_positive_definite_kernel_is_the_minimizer(seed):
    # an ordinary fit at gamma_A = 0: K positive definite (cond ~ 5e7), so f = K alpha ranges over R^n and the
    # minimizer of sum_S (f_i - y_i)^2 + c f^T L f solves (J + c L) f = J y.  The least squares on
    # K N_Psi K alpha = K r0 (cond(K)^2) was 1.1 off it; the LU of T, 7e-10
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((60, 3))
    y = rng.standard_normal(20)
    K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 4.5)
    L = laplacian(knn_graph(X, 8)).toarray()
    S, n, gamma_I = np.arange(20), 60, 1e-2
    alpha, beta = plaprls_fit(K, S, y, sp.csr_array(L), 0.0, gamma_I, solver="direct")
    c = gamma_I * S.size / n ** 2
    J = np.zeros(n)
    J[S] = 1
    f_opt = np.linalg.solve(np.diag(J) + c * L, J * np.r_[y, np.zeros(n - S.size)])
    np.testing.assert_allclose(K @ alpha + beta[0], f_opt, atol=1e-6)
