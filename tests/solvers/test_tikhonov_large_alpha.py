"""tikhonov_solution at any alpha against the closed form of its eliminated system (dense numpy oracle)."""

import warnings

import numpy as np
import pytest
import scipy.linalg as sla

from graphrkhs import filters, graph_kernel_ridge, knn_graph, tikhonov_solution


def _two_component_graph():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 2))
    W = knn_graph(X, 5).toarray()
    n = W.shape[0]
    Wt = np.zeros((2 * n, 2 * n))
    Wt[:n, :n] = W
    Wt[n:, n:] = 2.0 * W[::-1, ::-1]      # a second component, other weights
    S = np.array([0, 4, 9, 17, 25, n + 1, n + 8, n + 20])
    Y = np.eye(3)[[0, 1, 2, 0, 0, 1, 2, 2]] + np.array([0.0, 0.5, -0.25])
    return Wt, S, Y


def _oracle(W, S, Y, mu, kind):
    r"""Rows U of (J + mu L) F = J Y: F_U = -L_UU^{-1} L_US F_S; rows S: (I + mu T) F_S = Y_S with the Kron
    reduction T = L_SS - L_SU L_UU^{-1} L_US, whose null space is spanned by z_S on each component (z = 1, or
    d^(1/2) for the normalized Laplacian).  F_S = P_z Y + Q V diag(1 / (1 + mu kappa)) V^T Q^T Y, with Q an
    orthonormal basis of the complement of the null space and Q^T T Q = V diag(kappa) V^T: exact at every mu."""
    n = W.shape[0]
    d = W.sum(axis=1)
    L = np.diag(d) - W
    z = np.ones(n)
    if kind == "normalized":
        L = L / np.sqrt(np.outer(d, d))
        z = np.sqrt(d)
    half = n // 2
    comp = (np.arange(n) >= half).astype(int)
    U = np.setdiff1d(np.arange(n), S)
    LUU_inv_LUS = np.linalg.solve(L[np.ix_(U, U)], L[np.ix_(U, S)])
    T = L[np.ix_(S, S)] - L[np.ix_(S, U)] @ LUU_inv_LUS
    Z = np.zeros((S.size, 2))
    Z[np.arange(S.size), comp[S]] = z[S]
    c = np.linalg.lstsq(Z, Y, rcond=None)[0]            # the null-space part of F_S: Z c
    Q = sla.null_space(Z.T)
    kappa, V = np.linalg.eigh(Q.T @ T @ Q)
    assert kappa.min() > 1e-6 * kappa.max()
    HS = Q @ (V @ ((V.T @ (Q.T @ Y)) / (1.0 + mu * kappa)[:, None]))
    F = np.empty((n, Y.shape[1]))
    zc = z[:, None] * c[comp]
    F[S] = zc[S] + HS
    F[U] = zc[U] - LUU_inv_LUS @ HS                     # L z = 0: z c extends itself
    return F


@pytest.mark.parametrize("kind", ["combinatorial", "normalized"])
@pytest.mark.parametrize("mu", [1e-12, 1e-3, 1.0, 1e4, 1e8, 1e12, 1e14, 1e15, 1e16, 1e20])
def test_tikhonov_matches_the_closed_form_of_the_eliminated_system_at_any_alpha(kind, mu):
    # error against this oracle was 2.4e-9 at mu = 1e8, 2.7e-4 at 1e12, 0.035 at 1e14, 0.36 at 1e16 (each
    # with only a ConvergenceWarning), and a LinAlgError at 1e16 on other graphs: the unit entries of J
    # sank in the rounding of mu L.  Now F's part in the null space of L is taken out exactly first.
    W, S, Y = _two_component_graph()
    F0 = _oracle(W, S, Y, mu, kind)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F = tikhonov_solution(W, S, Y, alpha=mu, laplacian=kind)
    np.testing.assert_allclose(F, F0, rtol=0, atol=1e-12)


def test_tikhonov_limits_harmonic_at_zero_and_the_null_space_fit_at_infinity():
    W, S, Y = _two_component_graph()
    n = W.shape[0]
    L = np.diag(W.sum(axis=1)) - W
    U = np.setdiff1d(np.arange(n), S)
    harmonic = np.empty_like(_oracle(W, S, Y, 1.0, "combinatorial"))
    harmonic[S] = Y
    harmonic[U] = -np.linalg.solve(L[np.ix_(U, U)], L[np.ix_(U, S)] @ Y)
    np.testing.assert_allclose(tikhonov_solution(W, S, Y, alpha=1e-12), harmonic, atol=1e-9)
    # mu -> infinity: each component's values tend to the mean of its labels
    F = tikhonov_solution(W, S, Y, alpha=1e300 / 8)
    half = n // 2
    np.testing.assert_allclose(F[:half], np.broadcast_to(Y[S < half].mean(axis=0), (half, 3)), rtol=0, atol=1e-15)
    np.testing.assert_allclose(F[half:], np.broadcast_to(Y[S >= half].mean(axis=0), (half, 3)), rtol=0, atol=1e-15)


@pytest.mark.parametrize("kind", ["combinatorial", "normalized"])
@pytest.mark.parametrize("preconditioner", ["jacobi", "amg", None, "auto"])
@pytest.mark.parametrize("mu", [1e6, 1e8, 1e10])
def test_tikhonov_iterative_paths_get_the_informative_part_at_large_alpha(kind, preconditioner, mu):
    # F = (null-space fit) + H with H = O(1/mu).  H's own component along z (constants / d^(1/2)) is invisible
    # to the relative residual ((J + mu L) z h = J z h is O(1/mu) against an O(1) right-hand side): Jacobi CG
    # met tol=1e-8 with H wrong by 19 % (combinatorial) / 14 % (normalized) of its size at mu = 1e8 and 1e10,
    # plain CG by 8-16 %, AMG by 8e-7 at 1e10, without any warning.  Now that part is recomputed exactly
    # from the rest.  Bound: tol-level on H, plus the rounding of F itself (eps |F|).
    W, S, Y = _two_component_graph()
    F0 = _oracle(W, S, Y, mu, kind)
    H0 = F0 - _oracle(W, S, Y, 1e300, kind)          # the informative part (F minus its mu -> inf limit)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F = tikhonov_solution(W, S, Y, alpha=mu, laplacian=kind, preconditioner=preconditioner)
    err = np.abs(F - F0).max()
    assert err <= 1e-6 * np.abs(H0).max() + 16 * np.finfo(float).eps * np.abs(F0).max()


@pytest.mark.parametrize("kind", ["combinatorial", "normalized"])
@pytest.mark.parametrize("preconditioner", ["jacobi", None, "auto"])
@pytest.mark.parametrize("a", [1e8, 1e10])
def test_graph_kernel_ridge_sparse_path_at_a_large_response_weight(kind, preconditioner, a):
    # (J + mu (I + a L)) F = J y, the "sparse" form of ridge in H_phi for RegularizedLaplacian(a): F's part in
    # the null space of L is O(1), the rest O(1/(mu a)); the part along z was left wrong by the solve (invisible
    # to its relative residual): at a = 1e10 errors of 0.7 % (combinatorial) to 5 % (normalized, Jacobi CG) of
    # that informative part, every preconditioner and the direct solve alike.  Oracle: the representer form
    # Phi_{:,S} (Phi_SS + mu I)^{-1} Y with Phi = U diag(1 / (1 + a lambda)) U^T (dense eigh).
    from graphrkhs import filters, graph_kernel_ridge
    W, S, Y = _two_component_graph()
    n, mu = W.shape[0], 1e-3
    d = W.sum(axis=1)
    L = np.diag(d) - W
    if kind == "normalized":
        L = L / np.sqrt(np.outer(d, d))
    lam, U = np.linalg.eigh(L)
    lam = np.where(lam < 1e-12, 0.0, lam)                # the two components' exact zeros
    Phi = (U * (1.0 / (1.0 + a * lam))) @ U.T
    F0 = Phi[:, S] @ np.linalg.solve(Phi[np.ix_(S, S)] + mu * np.eye(S.size), Y)
    U0 = U[:, lam == 0]
    H0 = F0 - U0 @ (U0.T @ F0)                           # the informative part, O(1/(mu a))
    with warnings.catch_warnings():
        # at a = 1e10 the direct solve and plain CG of the combinatorial system warn: the rounding of A x alone,
        # eps |A| |x| / |b| = 7.7e-8, is above tol (Jacobi CG meets tol in the scaled system)
        warnings.simplefilter("ignore")
        F = graph_kernel_ridge(W, S, Y, filters.RegularizedLaplacian(a), alpha=mu, method="sparse",
                               laplacian=kind, preconditioner=preconditioner)
    assert np.abs(F - F0).max() <= 1e-5 * np.abs(H0).max()


@pytest.mark.parametrize("given", ["adjacency", "laplacian"])
@pytest.mark.parametrize("preconditioner", ["jacobi", "amg", "auto"])
@pytest.mark.parametrize("a", [1e8, 1e10])
def test_graph_kernel_ridge_sparse_path_with_a_prebuilt_normalized_kernel(given, preconditioner, a):
    # The same problem through a prebuilt GraphKernel of the normalized Laplacian (built from W, or from L with
    # input="laplacian"): its degrees are not known, so the null-space correction was skipped and the part of F
    # along d^(1/2) was left to the solve: errors of 1.7e-2 (a = 1e8) to 76-97 (a = 1e10) times the informative
    # part at mu = 1 (the same problem given as W: 1e-8).  Now z is the null vector of the prebuilt L.
    from graphrkhs import GraphKernel, filters, graph_kernel_ridge
    W, S, Y = _two_component_graph()
    mu = 1.0
    d = W.sum(axis=1)
    L = (np.diag(d) - W) / np.sqrt(np.outer(d, d))
    lam, U = np.linalg.eigh(L)
    lam = np.where(lam < 1e-12, 0.0, lam)
    Phi = (U * (1.0 / (1.0 + a * lam))) @ U.T
    F0 = Phi[:, S] @ np.linalg.solve(Phi[np.ix_(S, S)] + mu * np.eye(S.size), Y)
    U0 = U[:, lam == 0]
    H0 = F0 - U0 @ (U0.T @ F0)
    phi = filters.RegularizedLaplacian(a)
    K = GraphKernel(W, phi, method="exact") if given == "adjacency" else \
        GraphKernel(L, phi, method="exact", input="laplacian")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        F = graph_kernel_ridge(K, S, Y, alpha=mu, method="sparse", preconditioner=preconditioner)
    assert np.abs(F - F0).max() <= 1e-5 * np.abs(H0).max()


def test_prebuilt_normalized_kernel_null_vector_is_computed_once_per_kernel_and_laplacian(monkeypatch):
    # The null vector of a prebuilt normalized kernel's L (one grounded sparse solve) was recomputed on every
    # graph_kernel_ridge(method="sparse") call: 1.4 s of a 1.7 s call on a 20000-node kNN graph.  It is now
    # kept per kernel: one solve for two calls, the same bits as a fresh computation, and a new solve
    # when the kernel's L is replaced (the result then equals that of a kernel built on the new L).
    from graphrkhs import GraphKernel, filters, graph_kernel_ridge
    import graphrkhs.solvers._graph as sg
    W, S, Y = _two_component_graph()
    phi = filters.RegularizedLaplacian(1e8)
    K = GraphKernel(W, phi, method="exact")
    fresh = graph_kernel_ridge(GraphKernel(W, phi, method="exact"), S, Y, alpha=1.0, method="sparse")
    calls = []
    orig = sg._normalized_null_vector

    def counting(L, comp):
        calls.append(L.shape)
        return orig(L, comp)

    monkeypatch.setattr(sg, "_normalized_null_vector", counting)
    F1 = graph_kernel_ridge(K, S, Y, alpha=1.0, method="sparse")
    F2 = graph_kernel_ridge(K, S, Y, alpha=1.0, method="sparse")
    assert len(calls) == 1
    assert np.array_equal(F1, fresh) and np.array_equal(F2, fresh)
    W2 = W.copy()
    W2[0, 1] = W2[1, 0] = 3.0 * W[0, 1] + 1.0          # another graph on the same nodes
    K.L = GraphKernel(W2, phi, method="exact").L
    F3 = graph_kernel_ridge(K, S, Y, alpha=1.0, method="sparse")
    assert len(calls) == 2
    assert np.array_equal(F3, graph_kernel_ridge(GraphKernel(W2, phi, method="exact"), S, Y, alpha=1.0,
                                                 method="sparse"))


# J + mu L is singular to working precision once mu L's entries are 1e16 times J's: the sparse LU found an exact
# zero pivot on a unit-weight path at mu = 1e16 (and at most mu up to 1e304), and tikhonov_solution raised
# LinAlgError "check the graph for nearly disconnected parts" on a plain path.  The system for the O(1/mu) rest is
# consistent, so it is then solved by CG; the fit tends to each component's label mean (the mu -> infinity limit).

def _path(n=6):
    P = np.diag(np.ones(n - 1), 1)
    return P + P.T


@pytest.mark.parametrize("alpha", [1e16, 1e24, 1e100, 1e300])
def test_tikhonov_at_huge_alpha_is_the_label_mean(alpha):
    F = tikhonov_solution(_path(), [0, 5], np.array([1.0, 4.0]), alpha=alpha)
    np.testing.assert_allclose(F, 2.5, rtol=0, atol=1e-12)


@pytest.mark.parametrize("alpha", [1e16, 1e40])
def test_tikhonov_at_huge_alpha_normalized_is_the_null_space_fit(alpha):
    # normalized Laplacian: the mu -> infinity limit is the least-squares fit of the labels by d^(1/2)
    W = _path()
    d = W.sum(axis=1)
    z = np.sqrt(d)
    y = np.array([1.0, 4.0])
    c = (z[[0, 5]] @ y) / (z[[0, 5]] @ z[[0, 5]])
    F = tikhonov_solution(W, [0, 5], y, alpha=alpha, laplacian="normalized")
    np.testing.assert_allclose(F, c * z, rtol=0, atol=1e-12)


def test_graph_kernel_ridge_sparse_path_with_a_nearly_constant_kernel():
    # RegularizedLaplacian(1e20): phi(L) is the projection onto the constants up to 1e-20, so the fit of labels
    # (1, -1) that sum to zero is 0 up to rounding (the sparse path's J + mu r(L), r = 1 + 1e20 L, raised)
    W = _path()
    for method in ("auto", "sparse"):
        F = graph_kernel_ridge(W, [0, 5], np.array([1.0, -1.0]), filters.RegularizedLaplacian(1e20), alpha=1e-3,
                               method=method, laplacian="combinatorial")
        np.testing.assert_allclose(F, 0.0, rtol=0, atol=1e-12)
