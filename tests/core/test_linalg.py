"""Dense helpers of graphrkhs._core.linalg on the inputs that reach them: dtypes and memory estimates."""

import numpy as np
import pytest

from graphrkhs._core import validation
import scipy.sparse as sp

from graphrkhs._core.linalg import psd_part, psd_solve, symmetry_gap


def test_psd_solve_accepts_integer_matrices():
    # np.finfo(int64) raised "data type <class 'numpy.int64'> not inexact"
    A = np.array([[4, 1, 0], [1, 3, 1], [0, 1, 2]])
    B = np.array([1.0, -2.0, 0.5])
    np.testing.assert_allclose(psd_solve(A, B), np.linalg.solve(A.astype(float), B), rtol=1e-13)


def test_psd_solve_shift_on_the_diagonal_equals_the_shifted_solve():
    # a singular PSD matrix: the shifted factorization must solve (A + eps I) x = b for the shift it chose
    rng = np.random.default_rng(0)
    F = rng.standard_normal((30, 5))
    A = F @ F.T                       # rank 5
    b = A @ rng.standard_normal(30)   # in the range of A
    x = psd_solve(A, b)
    np.testing.assert_allclose(A @ x, b, rtol=0, atol=1e-6 * np.abs(b).max())


def test_dense_helpers_estimate_their_copies(monkeypatch):
    # the n x n copies (a shifted matrix plus an identity, the eigendecomposition) were never estimated
    monkeypatch.setattr(validation, "_physical_memory", lambda: 4 * 2**20)   # limit 3 MiB
    A = np.eye(700)                                                          # 3.7 MiB
    with pytest.raises(MemoryError, match="the Cholesky factor of a 700 x 700 matrix would need 3.7 MiB"):
        psd_solve(A, np.ones(700))
    with pytest.raises(MemoryError, match="the PSD test of a 700 x 700 matrix would need 3.7 MiB"):
        psd_part(A)
    B = -np.eye(350)                                                         # 0.9 MiB; eigh: 4 x 0.9
    with pytest.raises(MemoryError, match=r"the PSD part of a 350 x 350 matrix \(an eigendecomposition\)"):
        psd_part(B)


def test_psd_part_equals_the_clipped_eigendecomposition():
    rng = np.random.default_rng(1)
    M = rng.standard_normal((40, 40))
    M = (M + M.T) / 2
    P, extremes = psd_part(M)
    w, V = np.linalg.eigh(M)
    np.testing.assert_allclose(P, (V * np.clip(w, 0, None)) @ V.T, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(P, P.T)
    assert extremes == pytest.approx((w[0], w[-1]))
    I = np.eye(5, dtype=np.int64)    # PSD: returned as it is
    assert psd_part(I)[0] is I and psd_part(I)[1] is None


def test_lanczos_estimates_its_basis(monkeypatch):
    # (steps + 1) x n doubles, n^2 when steps reaches n (rayleigh_lower_bound passes steps= through)
    from graphrkhs._core.linalg import lanczos_tridiagonal

    d = np.linspace(1.0, 2.0, 2000)
    monkeypatch.setattr(validation, "_physical_memory", lambda: 4 * 2**20)   # limit 3 MiB
    with pytest.raises(MemoryError, match="the Lanczos basis of 500 steps on 2000 rows would need 7.6 MiB"):
        lanczos_tridiagonal(lambda q: d * q, 2000, 500, np.random.default_rng(0))
    alpha, beta = lanczos_tridiagonal(lambda q: d * q, 2000, 20, np.random.default_rng(0))
    T = np.diag(alpha) + np.diag(beta[:-1], 1) + np.diag(beta[:-1], -1)
    theta = np.linalg.eigvalsh(T)
    assert 1.0 <= theta.min() and theta.max() <= 2.0 + 1e-12   # Rayleigh quotients of diag(d)
    assert theta.max() > 2.0 - 1e-2   # 20 steps on a uniform spectrum reach 1.997


def test_small_dense_problems_run_on_one_blas_thread_and_large_ones_keep_the_callers():
    from threadpoolctl import ThreadpoolController, threadpool_limits

    from graphrkhs._core.linalg import SMALL_DENSE_ORDER, small_dense_threads

    def blas_threads():
        return {lib["filepath"]: lib["num_threads"] for lib in ThreadpoolController().select(user_api="blas").info()}

    with threadpool_limits(limits=2, user_api="blas"):
        callers = blas_threads()        # 2 each (1 for a single-threaded BLAS another test may have loaded)
        assert 2 in callers.values()
        with small_dense_threads(SMALL_DENSE_ORDER):
            assert set(blas_threads().values()) == {1}
            # the results do not depend on it: an eigendecomposition inside equals its oracle
            A = np.diag(np.arange(1.0, 6.0))
            np.testing.assert_allclose(np.linalg.eigh(A)[0], np.arange(1.0, 6.0))
        assert blas_threads() == callers
        with small_dense_threads(SMALL_DENSE_ORDER + 1):
            assert blas_threads() == callers


def _ridge_system(a):
    # J + (I + a L) on a path of 40 nodes, labels at both ends: at a = 1e10 the rounding of A x alone is
    # ~1e-6 of |b| (entries of size a next to the unit entries of J and I)
    n = 40
    W = np.diag(np.ones(n - 1), 1)
    W = W + W.T
    L = np.diag(W.sum(axis=1)) - W
    J = np.zeros(n)
    J[[0, n - 1]] = 1.0
    A = np.diag(J) + np.eye(n) + a * L
    B = np.zeros((n, 2))
    B[0, 0] = B[n - 1, 1] = 1.0
    return A, B


def test_check_solution_names_the_rounding_floor_when_tol_is_below_it():
    # a backward-stable solve of J + (I + 1e10 L) left ~1e-7 of |b|: the warning said only "the matrix is
    # ill-conditioned" and to check the graph, not that float64 cannot reach tol=1e-8 on this system (what
    # conjugate_gradient says).  The floor eps |A| |x| / |b| is computed here by hand.
    from graphrkhs._core.linalg import check_solution
    from graphrkhs import ConvergenceWarning
    A, B = _ridge_system(1e10)
    X = np.linalg.solve(A, B)
    res = np.linalg.norm(B - A @ X, axis=0) / np.linalg.norm(B, axis=0)
    floor = np.finfo(float).eps * np.linalg.norm(np.abs(A) @ np.abs(X), axis=0) / np.linalg.norm(B, axis=0)
    assert 1e-8 < res.max() <= floor.max()             # tol unattainable: the residual sits at the floor
    with pytest.warns(ConvergenceWarning) as rec:
        check_solution(A, X, B, 1e-8, "test system", "check the graph.")
    msg = str(rec[0].message)
    assert f"rounding of the product A x alone is {floor[res > 1e-8].max():.1e} of |b|" in msg
    assert "float64 cannot do better" in msg and "check the graph" not in msg


def test_check_solution_keeps_the_ill_conditioned_warning_far_above_the_floor():
    # a solution wrong by far more than rounding: the factorization's fault, and the message says so
    from graphrkhs._core.linalg import check_solution
    from graphrkhs import ConvergenceWarning
    A, B = _ridge_system(1e2)
    X = np.linalg.solve(A, B) * (1 + 1e-6)
    floor = np.finfo(float).eps * np.linalg.norm(np.abs(A) @ np.abs(X), axis=0) / np.linalg.norm(B, axis=0)
    with pytest.warns(ConvergenceWarning, match=r"above tol=1e-08 and far above the rounding of the product A x "
                                                rf"alone \({floor.max():.1e} of \|b\|\) \(the matrix is "
                                                r"ill-conditioned\); check the graph\."):
        check_solution(A, X, B, 1e-8, "test system", "check the graph.")


@pytest.mark.parametrize("sparse", [False, True])
def test_symmetry_gap_of_integer_and_boolean_matrices(sparse):
    """The gap in real arithmetic: uint8 A - A^T wrapped around (max |A - A^T| = 255 for a difference of 1),
    and a boolean array raised numpy's "boolean subtract is not supported" (conjugate_gradient refused
    np.eye(3, dtype=bool), which it solved before the symmetry check)."""
    import scipy.sparse as sp
    from graphrkhs._core.linalg import symmetry_gap

    wrap = lambda A: sp.csr_array(A) if sparse else A
    assert symmetry_gap(wrap(np.array([[2, 1], [0, 2]], dtype=np.uint8))) == (1.0, 2.0)
    assert symmetry_gap(wrap(np.array([[0, 127], [-128, 0]], dtype=np.int8))) == (255.0, 128.0)
    assert symmetry_gap(wrap(np.array([[True, True], [False, True]]))) == (1.0, 1.0)
    assert symmetry_gap(wrap(np.eye(3, dtype=bool))) == (0.0, 1.0)


@pytest.mark.parametrize("sparse", [False, True])
def test_symmetry_gap_refuses_a_non_square_matrix_by_name(sparse):
    """It was numpy's "operands could not be broadcast together" (scipy's "inconsistent shapes"), reached by
    dask_conjugate_gradient, which checks symmetry before building its operator."""
    import scipy.sparse as sp
    from graphrkhs._core.linalg import symmetry_gap

    A = np.ones((3, 4))
    with pytest.raises(ValueError, match=r"M must be a square matrix; got shape \(3, 4\)"):
        symmetry_gap(sp.csr_array(A) if sparse else A, "M")


@pytest.mark.parametrize("form", [np.asarray, sp.csr_array])
def test_symmetry_gap_of_integer_entries_is_their_exact_difference(form):
    # int8 differences wrapped: 127 - (-1) = 128 became -128, whose absolute value is -128 in int8, and the
    # gap came out 0.0 -- the matrix passed as symmetric (is_symmetric and lmax's check said so)
    A = np.array([[0, 127], [-1, 0]], dtype=np.int8)
    assert symmetry_gap(form(A)) == (128.0, 127.0)
    U = np.array([[0, 1], [255, 0]], dtype=np.uint8)          # 1 - 255 wrapped to 2
    assert symmetry_gap(form(U)) == (254.0, 255.0)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_symmetry_gap_of_a_dense_array_propagates_nan_as_the_sparse_one_does(bad):
    # max(0.0, nan) is 0.0 in Python: a NaN (or inf - inf) in a dense array gave a gap of 0.0, as if
    # symmetric, where the sparse path gives nan; a caller's "gap <= tol" must be False for it
    A = np.eye(3)
    A[0, 1] = A[1, 0] = bad
    with np.errstate(invalid="ignore"):
        dense, sparse = symmetry_gap(A), symmetry_gap(sp.csr_array(A))
    assert np.isnan(dense[0]) and np.isnan(sparse[0])
