"""LapRLS's kernel CG on a low-rank kernel (the linear kernel: rank d) reaches the solution of its system.

The iteration works in the range of K; the part of the residual of (J K + M K + gamma_A l I) alpha = J y in
K's null space it cannot reduce, and it stopped after d iterations reporting "not converged" (relative residual
4.5) although K alpha was exact.  That part is now solved exactly, rho / (gamma_A l) (``identity_shift``).
"""
import warnings

import numpy as np
import pytest

from graphrkhs import ConvergenceWarning, KernelOperator, kernel_cg, knn_graph, laplacian, laprls_fit


def _problem(seed=5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(50, 2)) + np.array([10.0, -5.0])
    labeled = np.zeros(50, dtype=bool)
    labeled[::5] = True
    y = 2.0 * X[labeled, 0] - X[labeled, 1]
    M = laplacian(knn_graph(X, 6))
    return X, labeled, y, M


@pytest.mark.parametrize("seed", [5, 6])
def test_laprls_cg_on_a_low_rank_kernel_converges_to_the_direct_solution(seed):
    X, labeled, y, M = _problem(seed)
    K = KernelOperator(X, kernel="linear")      # rank 2 on 50 points
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        alpha, info = laprls_fit(K, labeled, y, M, 1e-2, 1.0, solver="cg", tol=1e-8, return_info=True)
    assert info["converged"].all() and info["residual"].max() <= 1e-8
    direct = laprls_fit(K, labeled, y, M, 1e-2, 1.0, solver="direct")
    np.testing.assert_allclose(alpha, direct, rtol=0, atol=1e-7 * np.abs(direct).max())


@pytest.mark.parametrize("max_iter", [1, 6])
def test_identity_shift_solves_the_null_space_part_of_the_residual(max_iter):
    # T = N G + c I with G of rank 1: CG alone cannot leave the range of G (and with more iterations than its rank
    # it divided 0 by 0: a NaN column)
    rng = np.random.default_rng(0)
    g = rng.normal(size=(6, 1))
    G = g @ g.T
    N = np.diag([1.0, 1.0, 0.0, 0.0, 0.0, 0.0])
    c = 0.3
    T = N @ G + c * np.eye(6)
    C = rng.normal(size=(6, 2))
    exact = np.linalg.solve(T, C)
    X, info = kernel_cg(lambda P, GP: N @ GP + c * P, lambda V: G @ V, C, tol=1e-10, on_failure="ignore",
                        max_iter=max_iter)
    assert np.isfinite(X).all()
    assert not info["converged"].any()                               # without the shift: stuck in range(G)
    X, info = kernel_cg(lambda P, GP: N @ GP + c * P, lambda V: G @ V, C, tol=1e-10, identity_shift=c,
                        max_iter=max_iter)
    assert info["converged"].all()
    np.testing.assert_allclose(X, exact, rtol=0, atol=1e-10 * np.abs(exact).max())


@pytest.mark.parametrize("scale", [1e-300, 1e-200, 1e-160, 1e200, 1e300])
def test_kernel_cg_is_exact_in_the_scale_of_the_right_hand_side(scale):
    # the squared norms of the recurrences underflowed at |C| ~ 1e-200 (X = 0 reported as converged with
    # residual 0, silently) and overflowed at 1e200 (X = 0, NaN residual); each column is now solved in units
    # of a power of two, exactly
    K = np.array([[2.0, 1.0], [1.0, 2.0]])
    N = np.diag([1.0, 0.0])
    T = N @ K + 0.1 * np.eye(2)
    C = np.array([[1.0, 0.5], [0.0, -2.0]])
    exact = np.linalg.solve(T, C)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        X, info = kernel_cg(lambda P, GP: N @ GP + 0.1 * P, lambda V: K @ V, C * scale, tol=1e-10)
    assert info["converged"].all()
    np.testing.assert_allclose(X / scale, exact, rtol=1e-9, atol=1e-12)


def test_laprls_cg_on_tiny_targets_is_the_scaled_fit():
    X, labeled, y, M = _problem()
    K = KernelOperator(X, kernel="gaussian", sigma=3.0)
    ref = laprls_fit(K, labeled, y, M, 1e-2, 1.0, solver="cg", tol=1e-10)
    tiny = laprls_fit(K, labeled, y * 1e-250, M, 1e-2, 1.0, solver="cg", tol=1e-10)
    # (y * 1e-250 is not a power-of-two multiple of y: the two CG runs agree to their tol, not bit for bit)
    np.testing.assert_allclose(tiny * 1e250, ref, rtol=0, atol=1e-8 * np.abs(ref).max())
