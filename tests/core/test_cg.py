"""Block conjugate gradients and the AMG preconditioner against dense solves."""

import warnings
import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from graphrkhs import ConvergenceWarning, amg_preconditioner, conjugate_gradient, knn_graph, laplacian


def _spd_system(n=300, seed=0):
    X = np.random.default_rng(seed).normal(size=(n, 3))
    L = laplacian(knn_graph(X, 8))
    A = sp.csr_array(L + 0.05 * sp.eye_array(n))
    return A


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("precondition", [None, "amg", "jacobi"])
def test_block_cg_matches_dense_solve(dtype, precondition):
    A = _spd_system()
    B = np.random.default_rng(1).normal(size=(A.shape[0], 4)).astype(dtype)
    M = {None: None, "amg": amg_preconditioner(A), "jacobi": sp.diags_array(1 / A.diagonal())}[precondition]
    rtol = 1e-5 if dtype == np.float32 else 1e-10
    res = conjugate_gradient(A.astype(dtype), B, M=M, tol=rtol)
    assert res.converged.all()
    exact = np.linalg.solve(A.toarray(), B.astype(np.float64))
    cond = np.linalg.cond(A.toarray())
    np.testing.assert_allclose(res.x, exact, atol=10 * rtol * cond * np.abs(exact).max())
    # the reported residuals are the true ones
    true = np.linalg.norm(B - A @ res.x, axis=0) / np.linalg.norm(B, axis=0)
    if dtype == np.float32:
        # the residual itself is formed in float32: it is known to within the rounding of B - A x
        rounding = 4 * np.finfo(np.float32).eps * (
            np.abs(A).max() * np.sqrt(A.shape[0]) * np.linalg.norm(res.x, axis=0) + np.linalg.norm(B, axis=0)
        ) / np.linalg.norm(B, axis=0)
        assert np.all(np.abs(res.residual_norms - true) <= rounding)
        assert np.all(true <= rtol + rounding)
    else:
        np.testing.assert_allclose(res.residual_norms, true, rtol=1e-6, atol=1e-12)


def test_block_cg_equals_columnwise_cg_and_handles_zero_columns():
    A = _spd_system(seed=2)
    B = np.random.default_rng(3).normal(size=(A.shape[0], 3))
    B[:, 1] = 0.0
    res = conjugate_gradient(A, B, tol=1e-10)
    np.testing.assert_array_equal(res.x[:, 1], 0.0)
    for j in (0, 2):
        single = conjugate_gradient(A, B[:, j], tol=1e-10)
        assert single.x.shape == (A.shape[0],)
        np.testing.assert_allclose(res.x[:, j], single.x, rtol=1e-8, atol=1e-10)


def test_warm_start_and_operator_forms():
    A = _spd_system(seed=4)
    b = np.random.default_rng(5).normal(size=A.shape[0])
    exact = np.linalg.solve(A.toarray(), b)
    res = conjugate_gradient(A, b, x0=exact, tol=1e-8)
    assert res.n_iter == 0 and res.converged.all()
    op = spla.aslinearoperator(A)
    np.testing.assert_allclose(conjugate_gradient(op, b, tol=1e-10).x, exact, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(conjugate_gradient(lambda V: A @ V, b, tol=1e-10).x, exact, rtol=1e-6, atol=1e-8)


def test_nonconvergence_warns_raises_or_reports():
    A = _spd_system(seed=6)
    b = np.random.default_rng(9).normal(size=A.shape[0])  # (not the constant vector: an eigenvector of A)
    with pytest.warns(ConvergenceWarning, match="did not reach"):
        res = conjugate_gradient(A, b, tol=1e-12, max_iter=2)
    assert not res.converged.all()
    with pytest.raises(RuntimeError, match="did not reach"):
        conjugate_gradient(A, b, tol=1e-12, max_iter=2, on_failure="raise")
    res = conjugate_gradient(A, b, tol=1e-12, max_iter=2, on_failure="ignore")
    assert not res.converged.all() and res.n_iter == 2


def test_indefinite_matrix_is_detected():
    A = np.diag([1.0, -1.0, 2.0])
    with pytest.raises(np.linalg.LinAlgError, match="not positive definite"):
        conjugate_gradient(A, np.ones(3))


@pytest.mark.parametrize("form", [np.array, sp.csr_array])
def test_non_symmetric_operator_is_refused_before_iterating(form):
    """CG needs a symmetric A (and M): on diag(1..5) with A[0, 1] = 0.5 it ran its 50 iterations and warned
    "raise max_iter, loosen tol or use a preconditioner" (relative residual 7.9e-6), which was not the fix."""
    A = np.diag(np.arange(1.0, 6.0))
    A[0, 1] = 0.5
    with pytest.raises(ValueError, match=r"A must be symmetric for conjugate gradients: max \|A - A\^T\| = 0\.5 "
                                         r"\(max \|A\| = 5\).*symmetric formulation.*gmres.*spsolve"):
        conjugate_gradient(form(A), np.ones(5))
    with pytest.raises(ValueError, match=r"M must be symmetric for conjugate gradients"):
        conjugate_gradient(form(np.diag(np.arange(1.0, 6.0))), np.ones(5), M=form(A))


@pytest.mark.parametrize("form", [np.array, sp.csr_array])
def test_boolean_and_unsigned_matrices_are_checked_in_real_arithmetic(form):
    """The symmetry check subtracted A^T in A's dtype: a boolean identity (solved before the check) raised
    numpy's "boolean subtract is not supported", and a uint8 difference of 1 was reported as 255."""
    b = np.array([1.0, -2.0, 3.0])
    np.testing.assert_array_equal(conjugate_gradient(form(np.eye(3, dtype=bool)), b).x, b)
    A = np.array([[2, 1, 0], [0, 2, 0], [0, 0, 2]], dtype=np.uint8)
    with pytest.raises(ValueError, match=r"max \|A - A\^T\| = 1 \(max \|A\| = 2\)"):
        conjugate_gradient(form(A), b)


@pytest.mark.parametrize("fmt", ["lil", "dok"])
def test_list_and_dictionary_sparse_formats_are_solved(fmt):
    """The finiteness check read A.data: a lil matrix's is an object array of lists (numpy's "ufunc 'isfinite'
    not supported"), a dok matrix has none ("'dok_array' object has no attribute 'data'")."""
    A = _spd_system(n=30, seed=5)
    b = np.random.default_rng(6).normal(size=30)
    ref = conjugate_gradient(A, b, tol=1e-10)
    res = conjugate_gradient(sp.csr_array(A).asformat(fmt), b, tol=1e-10, M=sp.diags_array(1 / A.diagonal()).asformat(fmt))
    assert res.converged.all()
    np.testing.assert_allclose(res.x, ref.x, rtol=0, atol=1e-8 * np.abs(ref.x).max())
    with pytest.raises(ValueError, match="A contains NaN or infinity"):
        bad = sp.csr_array(A).asformat(fmt)
        bad[0, 0] = np.nan
        conjugate_gradient(bad, b)


@pytest.mark.parametrize("dtype, rel", [(np.float64, 1e-13), (np.float32, 1e-6)])
def test_rounding_level_asymmetry_is_accepted(dtype, rel):
    # the asymmetry a product in another order leaves (the Jacobi-scaled D^-1/2 A D^-1/2, a float32 Gram)
    A = _spd_system(n=60, seed=3).toarray()
    rng = np.random.default_rng(4)
    Ap = (A * (1 + rel * rng.uniform(-1, 1, size=A.shape))).astype(dtype)
    assert np.abs(Ap - Ap.T).max() > 0
    b = rng.normal(size=60).astype(dtype)
    tol = 1e-5 if dtype == np.float32 else 1e-10
    res = conjugate_gradient(Ap, b, tol=tol)
    assert res.converged.all()
    assert np.linalg.norm(b - Ap.astype(np.float64) @ res.x) <= 2 * tol * np.linalg.norm(b)


def test_amg_preconditioner_is_symmetric_and_reused():
    A = _spd_system(seed=7)
    M = amg_preconditioner(A)
    rng = np.random.default_rng(8)
    u, v = rng.normal(size=(2, A.shape[0]))
    assert np.isclose(u @ M.matvec(v), v @ M.matvec(u), rtol=1e-8)
    block = M.matmat(np.column_stack([u, v]))
    np.testing.assert_allclose(block[:, 0], M.matvec(u))
    plain = conjugate_gradient(A, u, tol=1e-8)
    pre = conjugate_gradient(A, u, M=M, tol=1e-8)
    assert pre.n_iter < plain.n_iter


@pytest.mark.parametrize("kwargs,error,match", [
    (dict(B=np.ones((3, 2, 2))), ValueError, "B must have shape"),
    (dict(A=np.eye(4)), ValueError, "A must have shape"),
    (dict(A="matrix"), TypeError, "A must be"),
    (dict(tol=0.0), ValueError, "tol must be > 0"),
    # max_iter=0 returned the start x0 with only a ConvergenceWarning; the project rule (_check_iterations of
    # the solvers) is an int >= 1 or None, and this test used to assert that 0 was allowed ("must be >= 0")
    (dict(max_iter=-1), ValueError, "max_iter must be >= 1"),
    (dict(max_iter=0), ValueError, "max_iter must be >= 1"),
    (dict(max_iter=0, x0=np.zeros(3)), ValueError, "max_iter must be >= 1"),
    # a relative residual tol >= 1 is met by the zero start: x = 0 came back "converged" after 0 iterations
    (dict(tol=1.0), ValueError, "tol must be < 1; got 1.0"),
    (dict(tol=2.0), ValueError, "tol must be < 1; got 2.0"),
    (dict(on_failure="explode"), ValueError, "on_failure"),
    (dict(M=np.eye(2)), ValueError, "M must have shape"),
])
def test_conjugate_gradient_bad_input(kwargs, error, match):
    args = dict(A=np.eye(3), B=np.ones(3))
    args.update(kwargs)
    A, B = args.pop("A"), args.pop("B")
    with pytest.raises(error, match=match):
        conjugate_gradient(A, B, **args)


@pytest.mark.parametrize("kwargs,error,match", [
    # a transposed start has the right size but not the right shape: it used to be reshaped silently
    (dict(B=np.ones((3, 2)), x0=np.ones((2, 3))), ValueError, r"x0 must have the shape of B \(3, 2\); got \(2, 3\)"),
    (dict(A=np.eye(3) * (1 + 0j)), TypeError, "A must be a real numeric array; got complex"),
    (dict(A=sp.csr_array(np.eye(3) * (1 + 0j))), TypeError, "A must be a real numeric array; got complex"),
    (dict(M=np.eye(3) * (1 + 0j)), TypeError, "M must be a real numeric array; got complex"),
    (dict(A=np.eye(3).astype(object)), TypeError, "A must be a real numeric array"),
])
def test_conjugate_gradient_rejects_mis_shaped_start_and_complex_operators(kwargs, error, match):
    args = dict(A=np.eye(3), B=np.ones(3))
    args.update(kwargs)
    A, B = args.pop("A"), args.pop("B")
    with pytest.raises(error, match=match):
        conjugate_gradient(A, B, **args)


def test_inconsistent_singular_laplacian_system_names_the_consistency_condition():
    """L x = 1 on a connected path has no solution (1 is not orthogonal to L's null space, the
    constants); CG meets p^T L p = 0 and the error says to check the consistency of B, not only SPD."""
    n = 30
    W = sp.diags([np.ones(n - 1), np.ones(n - 1)], [-1, 1]).tocsr()
    L = sp.diags(np.asarray(W.sum(axis=1)).ravel()) - W
    with pytest.raises(np.linalg.LinAlgError, match=r"not positive definite.*B is consistent: orthogonal to A's "
                                                    r"null space \(for a Laplacian, summing to 0 on every"):
        conjugate_gradient(L, np.ones(n), tol=1e-10)
    # the consistent right-hand side (centred) is solved
    b = np.arange(n, dtype=float) - (n - 1) / 2
    x = conjugate_gradient(L, b, tol=1e-12).x
    np.testing.assert_allclose(L @ x, b, atol=1e-9)


@pytest.mark.parametrize("k", [600, -600])
@pytest.mark.parametrize("precondition", [None, "jacobi"])
def test_cg_at_extreme_scales_is_the_unscaled_solve_times_the_scale(k, precondition):
    # A, B scaled by 2^k: the squared residual norms overflowed (2^1200, NaN never below tol) or
    # underflowed (2^-1200 = 0, x = 0 counted as converged).  Power-of-two scales are exact, so the
    # scaled solves are the unscaled one bit for bit (x unchanged when A and B scale alike, x * 2^k
    # when only B does, x * 2^-k when only A does).
    A = _spd_system(n=120, seed=4)
    B = np.random.default_rng(5).normal(size=(A.shape[0], 2))
    B[:, 1] *= 1e-3          # columns of different sizes keep their own units
    s = 2.0 ** k
    jac = (lambda A: sp.diags_array(1 / A.diagonal())) if precondition == "jacobi" else (lambda A: None)
    ref = conjugate_gradient(A, B, M=jac(A), tol=1e-10)
    exact = np.linalg.solve(A.toarray(), B)
    np.testing.assert_allclose(ref.x, exact, rtol=1e-7, atol=1e-9 * np.abs(exact).max())
    for As, Bs, factor in [(A * s, B * s, 1.0), (A, B * s, s), (A * s, B, 1 / s)]:
        res = conjugate_gradient(As, Bs, M=jac(As), tol=1e-10)
        assert res.converged.all() and res.n_iter == ref.n_iter
        np.testing.assert_array_equal(res.x, ref.x * factor)
        np.testing.assert_array_equal(res.residual_norms, ref.residual_norms)
    # a 1-D right-hand side and a warm start at scale
    res = conjugate_gradient(A * s, B[:, 0] * s, x0=ref.x[:, 0] * 0.5, tol=1e-10)
    np.testing.assert_allclose(res.x, exact[:, 0], rtol=1e-7, atol=1e-9 * np.abs(exact).max())


def test_cg_columns_of_opposite_extreme_scales():
    # one global scale would push the small column to 2^-1200 = 0: each column has its own
    A = _spd_system(n=80, seed=6)
    B = np.random.default_rng(7).normal(size=(A.shape[0], 2))
    res = conjugate_gradient(A, B * [2.0 ** 600, 2.0 ** -600], tol=1e-10)
    ref = conjugate_gradient(A, B, tol=1e-10)
    assert res.converged.all()
    np.testing.assert_array_equal(res.x, ref.x * [2.0 ** 600, 2.0 ** -600])


def _ill_conditioned_ridge_system(kind, a, mu=1e-3):
    """J + mu (I + a L) on two kNN components, symmetrically scaled to unit diagonal (what Jacobi CG solves)."""
    from graphrkhs import knn_graph, laplacian
    rng = np.random.default_rng(3)
    W = knn_graph(rng.normal(size=(30, 2)), 5).toarray()
    n = 30
    Wt = np.zeros((2 * n, 2 * n))
    Wt[:n, :n] = W
    Wt[n:, n:] = 2.0 * W[::-1, ::-1]
    S = np.array([0, 4, 9, 17, 25, n + 1, n + 8, n + 20])
    Y = np.eye(3)[[0, 1, 2, 0, 0, 1, 2, 2]] + np.array([0.0, 0.5, -0.25])
    L = laplacian(Wt, kind)
    jd = np.zeros(2 * n)
    jd[S] = 1.0
    A = sp.csr_array(mu * (sp.eye_array(2 * n) + a * L) + sp.diags_array(jd))
    B = np.zeros((2 * n, 3))
    B[S] = Y
    s = 1.0 / np.sqrt(A.diagonal())
    return sp.csr_array(A.multiply(s[:, None]).multiply(s[None, :])), s[:, None] * B


@pytest.mark.parametrize("kind", ["combinatorial", "normalized"])
def test_cg_meets_tol_in_the_true_residual_on_an_ill_conditioned_system(kind):
    # The stopping rule read the recursive residual, the final check the true one b - A x; on this system
    # (Jacobi-scaled J + mu (I + 1e10 L)) they drifted apart: CG stopped with the recursive residual at 1e-8 and
    # the true one 1.31e-8 (combinatorial) / 1.06e-8 (normalized), with a ConvergenceWarning.  Now a column that
    # claims tol is checked, and restarted from its true residual (residual replacement).
    A, B = _ill_conditioned_ridge_system(kind, 1e10)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = conjugate_gradient(A, B, tol=1e-8)
    true = np.linalg.norm(B - A @ res.x, axis=0) / np.linalg.norm(B, axis=0)
    assert res.converged.all()
    assert true.max() <= 1e-8 * 1.01


def test_cg_names_the_attainable_accuracy_when_tol_is_below_it():
    # at a = 1e12 the rounding of A x alone is ~1e-6 of |b|: tol=1e-8 cannot be met; the warning says so
    A, B = _ill_conditioned_ridge_system("combinatorial", 1e12)
    with pytest.warns(ConvergenceWarning, match=r"rounding of the product A x alone is [0-9.]+e-0[67] of \|b\|"):
        res = conjugate_gradient(A, B, tol=1e-8)
    assert not res.converged.all()


def test_symmetry_tolerance_follows_the_precision_of_the_dtype():
    """CG takes a dense float16 A as it is (its products run in float32), and checked it at the float64
    tolerance 1e-10: a matrix one float16 unit in the last place (2^-10 at 1) away from symmetric was
    refused, though float16 cannot store it closer.  The rule max(1e-10, 10^(1 - finfo.precision)) keeps
    float32's 1e-5 and float64's 1e-10 and gives float16 1e-2; exact dtypes keep 1e-10."""
    from graphrkhs._core.linalg import symmetry_rtol
    assert symmetry_rtol(np.float64) == 1e-10
    assert symmetry_rtol(np.float32) == 1e-5
    assert symmetry_rtol(np.float16) == 1e-2
    assert symmetry_rtol(np.longdouble) == 1e-10
    assert symmetry_rtol(np.int64) == symmetry_rtol(np.bool_) == 1e-10
    A = _spd_system(n=40, seed=7).toarray()
    A16 = (A / np.abs(A).max()).astype(np.float16)
    A16[0, 1] = np.nextafter(A16[1, 0], np.float16(np.inf))            # one float16 ulp off symmetric
    gap = abs(float(A16[0, 1]) - float(A16[1, 0]))
    assert 0 < gap <= 2.0 ** -10 * abs(float(A16[1, 0])) * 2
    b = np.random.default_rng(8).normal(size=40)
    res = conjugate_gradient(A16, b, tol=1e-3)
    assert res.converged.all()
    assert np.linalg.norm(b - A16.astype(np.float64) @ res.x) <= 2e-3 * np.linalg.norm(b)
    A16[0, 1] = A16[1, 0] + np.float16(0.05)                            # 5 % of max |A| = 1: refused
    with pytest.raises(ValueError, match=r"A must be symmetric for conjugate gradients: max \|A - A\^T\| = 0\.05"):
        conjugate_gradient(A16, b)
