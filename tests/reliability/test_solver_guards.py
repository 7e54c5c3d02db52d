"""Numerical guards of the solver layer and of the linear algebra below it (issue 13, findings 3, 4, 8, 11).

Each test failed on the code before the guard: Poisson learning on a nearly
disconnected graph (swapped classes, scores of 1e16 and more, or "Factor is
exactly singular"), harmonic / Tikhonov solves raising the same SuperLU error,
direct solves that never checked their residual, conjugate gradients and
kernels that accepted or produced NaN / inf, float32 LapRLS off by 1e-4 - 1e-2.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import graphrkhs
from graphrkhs import (
    ConvergenceWarning,
    GraphWarning,
    LapRLSClassifier,
    conjugate_gradient,
    harmonic_solution,
    pairwise_kernel,
    poisson_learning,
    rls_fit,
    tikhonov_solution,
)
from graphrkhs._core.labels import WEAK_EDGE_RTOL, weak_link_split
from graphrkhs._core.linalg import check_solution
from graphrkhs.datasets import load_digits


def _two_paths(n, bridge):
    """Two paths of n nodes (unit weights) joined by one edge of weight ``bridge`` (node n-1 -- node n)."""
    W = np.zeros((2 * n, 2 * n))
    i = np.arange(n - 1)
    for off in (0, n):
        W[off + i, off + i + 1] = W[off + i + 1, off + i] = 1.0
    W[n - 1, n] = W[n, n - 1] = bridge
    return W


PRECONDITIONERS = ["auto", "amg", "jacobi", None]


# -- finding 3: Poisson learning on a nearly disconnected graph ------------------------------------------

@pytest.mark.parametrize("preconditioner", PRECONDITIONERS)
def test_poisson_nearly_disconnected_keeps_the_classes(preconditioner):
    W = _two_paths(10, 1e-16)
    with pytest.warns(GraphWarning, match=r"nearly disconnected: 10 node\(s\)"):
        F = poisson_learning(W, [0, 10], np.eye(2), preconditioner=preconditioner)
    # Each side is its own component with one label: its class scores 0 (a zero source), the class labeled only
    # on the other side the constant 0 - max|y| / w_max = -1 (the documented multi-component rule), exactly.
    expected = np.repeat([[0.0, -1.0], [-1.0, 0.0]], 10, axis=0)
    np.testing.assert_allclose(F, expected, atol=1e-12)


def test_poisson_weakly_attached_unlabeled_part_gets_the_prior():
    W = _two_paths(10, 1e-16)
    with pytest.warns(GraphWarning) as record:
        F = poisson_learning(W, [0, 1], np.eye(2))
    messages = " ".join(str(w.message) for w in record)
    assert "nearly disconnected: 10 node(s)" in messages
    np.testing.assert_allclose(F[10:], 0.5)          # the class prior of the labels, never 1e16 or NaN
    assert F[:2].argmax(axis=1).tolist() == [0, 1]


def test_weak_link_threshold_is_relative_to_degrees():
    # 1e-9 (above WEAK_EDGE_RTOL = 1e-10) is kept: an honest, solvable graph, no warning;
    # Poisson scores are then large (the potential across the bridge) but the classes right.
    assert WEAK_EDGE_RTOL == 1e-10
    W = _two_paths(10, 1e-9)
    assert weak_link_split(W)[1] == 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F = poisson_learning(W, [0, 10], np.eye(2))
    assert F.argmax(axis=1).tolist() == [0] * 10 + [1] * 10
    assert weak_link_split(_two_paths(10, 1e-11))[1] == 10
    # A leaf hanging on one tiny edge is not weakly attached: that edge is all of its degree.
    W = _two_paths(10, 1.0)
    W2 = np.zeros((21, 21))
    W2[:20, :20] = W
    W2[20, 5] = W2[5, 20] = 1e-20
    assert weak_link_split(W2)[1] == 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F = harmonic_solution(W2, [0, 19], np.array([0.0, 1.0]))
    assert F[20] == pytest.approx(F[5], rel=1e-12)


# -- finding 4: harmonic / Tikhonov: unlabeled and weakly attached components, residual checks ----------

@pytest.mark.parametrize("preconditioner", PRECONDITIONERS)
def test_harmonic_and_tikhonov_nearly_disconnected(preconditioner):
    W = _two_paths(10, 1e-16)
    y = np.array([0.0, 1.0])
    for solve in (lambda: harmonic_solution(W, [0, 9], y, preconditioner=preconditioner),
                  lambda: tikhonov_solution(W, [0, 9], y, alpha=1.0, preconditioner=preconditioner)):
        with pytest.warns(GraphWarning) as record:
            F = solve()
        messages = [str(w.message) for w in record]
        assert any("nearly disconnected: 10 node(s)" in m for m in messages)
        assert any("10 node(s) lie in connected components without any labeled node" in m for m in messages)
        assert np.isfinite(F).all()
        np.testing.assert_allclose(F[10:], 0.5)       # the label-free part: the mean of the labels
    F = harmonic_solution(W[:10, :10], [0, 9], y)
    np.testing.assert_allclose(F, np.linspace(0, 1, 10), atol=1e-12)   # the labeled side: linear


@pytest.mark.parametrize("preconditioner", PRECONDITIONERS)
def test_unlabeled_component_gets_the_prior(preconditioner):
    W = np.zeros((6, 6))
    W[0, 1] = W[1, 0] = W[1, 2] = W[2, 1] = W[3, 4] = W[4, 3] = W[4, 5] = W[5, 4] = 1.0
    with pytest.warns(GraphWarning, match=r"3 node\(s\) lie in connected components without any labeled node"):
        F = harmonic_solution(W, [0, 2], np.array([0.0, 1.0]), preconditioner=preconditioner)
    np.testing.assert_allclose(F, [0.0, 0.5, 1.0, 0.5, 0.5, 0.5], atol=1e-10)


def test_direct_solve_checks_its_residual():
    # tol=1e-20 is below what any float64 solve attains: the direct path must say so, as CG does.
    W = _two_paths(10, 1.0)
    with pytest.warns(ConvergenceWarning, match="direct solve left a relative residual of .* above tol=1e-20"):
        harmonic_solution(W, [0, 19], np.array([0.0, 1.0]), tol=1e-20)
    with pytest.warns(ConvergenceWarning, match="direct solve left a relative residual"):
        poisson_learning(W, [0, 19], np.eye(2), tol=1e-20)


def test_check_solution_refuses_non_finite_solutions():
    with pytest.raises(np.linalg.LinAlgError, match="NaN or infinity"):
        check_solution(np.eye(2), np.array([1.0, np.nan]), np.ones(2), 1e-8, "test system", "do X.")


@pytest.mark.parametrize("exponent", [-600, 600])
def test_check_solution_sees_a_wrong_solution_at_any_scale(exponent):
    # ||b - A x|| / ||b|| is scale-free, but numpy's norm squares the entries: at 2^600 both norms
    # overflowed (inf / inf = NaN, which is not above tol: a wrong solution passed, with numpy's overflow
    # warning), at 2^-600 both underflowed to 0 (and a wrong solution was measured as exact)
    c = 2.0 ** exponent
    A = np.array([[2.0, 1.0], [1.0, 3.0]]) * c
    B = np.array([1.0, 2.0]) * c
    good = np.linalg.solve(A, B)
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        assert check_solution(A, good, B, 1e-12, "test system", "do X.") < 1e-15
        with pytest.warns(ConvergenceWarning, match="relative residual of 1.26e"):   # sqrt(8 / 5)
            check_solution(A, np.ones(2), B, 1e-8, "test system", "do X.")


# -- finding 8: NaN in, NaN out ---------------------------------------------------------------------------

def test_conjugate_gradient_refuses_nan_input():
    A = np.array([[4.0, 1.0], [1.0, 3.0]])
    with pytest.raises(ValueError, match="B contains NaN or infinity"):
        conjugate_gradient(A, np.array([1.0, np.nan]))
    with pytest.raises(ValueError, match="A contains NaN or infinity"):
        conjugate_gradient(np.array([[1.0, np.nan], [np.nan, 1.0]]), np.ones(2))
    with pytest.raises(ValueError, match="A contains NaN or infinity"):
        conjugate_gradient(sp.csr_array(np.array([[1.0, np.inf], [np.inf, 1.0]])), np.ones(2))
    with pytest.raises(ValueError, match="M contains NaN or infinity"):
        conjugate_gradient(A, np.ones(2), M=np.full((2, 2), np.nan))
    with pytest.raises(ValueError, match="x0 contains NaN or infinity"):
        conjugate_gradient(A, np.ones(2), x0=np.array([np.nan, 0.0]))


def test_conjugate_gradient_refuses_an_operator_returning_nan():
    # (An AMG preconditioner that broke down used to make CG return NaN silently.)
    op = sp.linalg.LinearOperator((3, 3), matvec=lambda v: np.full(3, np.nan), dtype=np.float64)
    with pytest.raises(FloatingPointError, match="returned NaN or infinity"):
        conjugate_gradient(op, np.ones(3))
    with pytest.raises(FloatingPointError, match="returned NaN or infinity"):
        conjugate_gradient(np.eye(3) * 2.0, np.ones(3), M=op)


def test_rls_fit_refuses_nan():
    K = np.eye(3)
    with pytest.raises(ValueError, match="Y contains NaN"):
        rls_fit(K, np.array([1.0, np.nan, 0.0]), 0.1)
    with pytest.raises(ValueError, match="K contains NaN"):
        rls_fit(np.full((3, 3), np.nan), np.ones(3), 0.1)


@pytest.mark.parametrize("kernel", ["linear", "polynomial"])
def test_inner_product_kernels_refuse_overflow(kernel):
    X = np.random.default_rng(0).normal(size=(10, 3)) * 1e160
    with pytest.raises(ValueError, match=f"the {kernel} kernel of these points overflows float64: "
                                         r"\|a\^T b\| reaches up to about 1e32\d"):
        pairwise_kernel(X, kernel=kernel)


def test_kernel_callable_returning_nan_is_refused():
    with pytest.raises(ValueError, match="kernel callable returned NaN"):
        pairwise_kernel(np.ones((3, 2)), kernel=lambda A, B: np.full((A.shape[0], B.shape[0]), np.nan))


def test_rls_ridge_below_rounding_names_the_level():
    # A linear kernel on |x| ~ 1e100: K ~ 1e200, so alpha * l = 0.04 is far below its rounding level.
    X = np.random.default_rng(0).normal(size=(40, 3)) * 1e100
    K = pairwise_kernel(X, kernel="linear")
    with pytest.raises(np.linalg.LinAlgError, match=r"rounding level of K about .*e\+18\d\); increase alpha"):
        rls_fit(K, np.ones(40), 1e-3, overwrite_K=True)


def test_rls_on_an_indefinite_kernel_does_not_ask_for_an_alpha_it_already_exceeds():
    # eigenvalues 1 and -0.5 (l = 2): alpha * l = 0.02 is far above the rounding of K (2 eps 0.27 = 1.2e-16) and the
    # message said "increase alpha above 6e-17"; K is indefinite, and the message says so
    K = np.array([[0.25, 0.75], [0.75, 0.25]])
    assert np.linalg.eigvalsh(K).min() == pytest.approx(-0.5)
    with pytest.raises(np.linalg.LinAlgError, match=r"although alpha \* l = 0\.02 is above the rounding level of K "
                                                    r"\(about 1\.2e-16\): K is indefinite, with an eigenvalue below "
                                                    r"-0\.02\. Check that the kernel is positive semidefinite"):
        rls_fit(K.copy(), np.ones(2), 1e-2, overwrite_K=True)


@pytest.mark.parametrize("scale", [1e-300, 1e154, 1e300])
def test_rls_estimator_finite_on_extreme_scales(scale):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    y = (X[:, 0] > 0).astype(float)
    ref = graphrkhs.RLSRegressor().fit(X, y).predict(X)
    out = graphrkhs.RLSRegressor().fit(X * scale, y).predict(X * scale)
    # The Gaussian kernel with the data-driven width is scale-invariant: same predictions.
    np.testing.assert_allclose(out, ref, atol=1e-10)


# -- finding 11: float32 LapRLS ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def digits_358():
    X, y = load_digits()
    keep = (y == 3) | (y == 5) | (y == 8)
    X, y = X[keep][:300], y[keep][:300]
    yl = np.full(y.size, -1)
    idx = np.random.default_rng(0).choice(y.size, 30, replace=False)
    yl[idx] = y[idx]
    return X, yl


@pytest.mark.parametrize("solver", ["direct", "cg"])
def test_float32_laprls_matches_float64(digits_358, solver):
    X, yl = digits_358
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)   # float32 CG used to stall at 1e-4
        # Fixed parameters (the values of the finding): this compares float32 with float64 at one
        # system, not the model selection ("auto" may choose a harder system for CG).
        params = dict(solver=solver, sigma=None, gamma_A=1e-6, gamma_I=1e2)
        d64 = LapRLSClassifier(**params).fit(X, yl).decision_function(X)
        d32 = LapRLSClassifier(**params).fit(X.astype(np.float32), yl).decision_function(X.astype(np.float32))
    # Tolerance 1e-5 (about 170 u, u = 2^-24): the digits are multiples of 1/16, exact in float32, so the
    # data carry no float32 rounding; what float32 may add is the rounding of the stored kernel matrix
    # (relative u per entry), amplified by the cancellation in f = K alpha (|alpha| ~ 1e2 for |f| ~ 1):
    # u * sum_j |K_ij alpha_j| = 7e-5 as a worst case, ~4e-6 for independent roundings (sqrt(n) less), plus
    # CG's own tol=1e-6.  Before the fix the solve itself ran in float32: 7e-5 (LU) and 9e-3 (CG).
    np.testing.assert_allclose(d32, d64, rtol=0, atol=1e-5 * np.abs(d64).max())


def test_amg_breakdown_falls_back_to_jacobi():
    # Degrees from 1e-16 to 1: the AMG V-cycle of Poisson learning produced NaN (returned as scores).
    W = np.zeros((6, 6))
    for i, j, w in [(0, 1, 1e-16), (0, 3, 1e-16), (0, 5, 1e-16), (1, 4, 1.0), (3, 4, 1e-8)]:
        W[i, j] = W[j, i] = w
    Y = np.eye(2)[[0, 1, 0]]
    with pytest.warns(ConvergenceWarning, match="AMG preconditioner broke down"):
        with pytest.warns(GraphWarning):                     # node 2 is isolated and unlabeled
            F = poisson_learning(W, [5, 3, 4], Y, preconditioner="amg")
    with pytest.warns(GraphWarning):
        F_jacobi = poisson_learning(W, [5, 3, 4], Y, preconditioner="jacobi")
    assert np.isfinite(F).all()
    np.testing.assert_allclose(F, F_jacobi, rtol=1e-6)


@pytest.mark.parametrize("kw, message", [
    ({"A": lambda V: (2 * V).ravel()},
     "A must map an (n, m) block to an (n, m) block (n = 5); A(V) of a block of shape (5, 2) returned shape (10,)."),
    ({"A": lambda V: 2 * V[:-1]},
     "A must map an (n, m) block to an (n, m) block (n = 5); A(V) of a block of shape (5, 2) returned shape (4, 2)."),
    ({"M": lambda V: V[:-1]},
     "M must map an (n, m) block to an (n, m) block (n = 5); M(V) of a block of shape (5, 2) returned shape (4, 2)."),
    ({"allreduce": lambda a: None},
     "allreduce must return the sum of its argument over the processes, an array of the argument's shape (1,); it "
     "returned NoneType."),
])
def test_conjugate_gradient_names_a_callable_of_the_wrong_shape(kw, message):
    # before: "einstein sum subscripts string contains too many subscripts", "operands could not be broadcast",
    # "too many indices for array": numpy's words from inside the iteration
    import re

    from graphrkhs import conjugate_gradient

    args = {"A": lambda V: 2 * V, **kw}
    A = args.pop("A")
    with pytest.raises(ValueError, match="^" + re.escape(message) + "$"):
        conjugate_gradient(A, np.ones((5, 2)), **args)
