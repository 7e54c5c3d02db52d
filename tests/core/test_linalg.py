"""Dense helpers of graphrkhs._core.linalg on the inputs that reach them: dtypes and memory estimates."""

import numpy as np
import pytest

from graphrkhs._core import validation
from graphrkhs._core.linalg import psd_part, psd_solve


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
