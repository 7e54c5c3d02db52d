r"""Adjoint (dot) and symmetry tests for every linear operator graphrkhs returns.

One table, ``OPERATORS``, lists a factory per operator (built on a small
random graph or point cloud) with a dense oracle computed independently of
the code under test (numpy / scipy formulas written out here), whether the
operator is meant to be symmetric, and the accuracy it claims.  Every entry
runs the same checks:

* shape and dtype: ``op.shape``, ``op.dtype`` and the dtype of a product;
* matvec == matmat column by column == the dense oracle;
* the dot test (PyLops style): random x, y with
  :math:`|\langle A x, y\rangle - \langle x, A^H y\rangle| \le
  \mathrm{tol}\,|\langle A x, y\rangle|`, ``tol`` scaled to the dtype's
  machine epsilon (plus the approximation accuracy an operator documents,
  e.g. Lanczos "symmetric only to tol");
* symmetry, where the operator is meant to be symmetric: ``A @ I`` equals its
  transpose, and :math:`x^T A y = y^T A x`.

``test_every_operator_is_in_the_table`` scans the public API (and the
private modules that build operators) so that a new operator class, or a
function documented to return one, fails the suite until it has a row here.
"""

import dataclasses
import importlib
import inspect
import pkgutil
import re
from typing import Callable

import numpy as np
import pytest
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import graphrkhs
from graphrkhs import (
    GraphKernel,
    KernelOperator,
    amg_preconditioner,
    chebyshev_filter,
    exact_filter,
    filters,
    incidence_matrix,
    knn_graph,
    lanczos_filter,
    laplacian,
)
from graphrkhs._core.amg import SmoothedAggregationPreconditioner
from graphrkhs._core.reorder import PreparedOperator
from graphrkhs.solvers._graph import _make_preconditioner, _range_projected

# Small problems: every product below is O(n^2) at most.
N_GRAPH = 40
N_POINTS = 30


def _eps(dtype):
    return float(np.finfo(dtype).eps)


# ---------------------------------------------------------------------------
# Random test objects (seeded) and independent dense oracles
# ---------------------------------------------------------------------------

def random_graph(n=N_GRAPH, seed=0, p=0.15):
    """A connected weighted graph: a random spanning path plus Erdos-Renyi edges, weights in [0.5, 2]."""
    rng = np.random.default_rng(seed)
    W = np.zeros((n, n))
    W[np.triu(rng.random((n, n)) < p, k=1)] = 1.0
    order = rng.permutation(n)
    W[order[:-1], order[1:]] = 1.0
    W = np.triu(W + W.T > 0, k=1) * rng.uniform(0.5, 2.0, size=(n, n))
    return W + W.T


def dense_laplacian(W, kind):
    d = W.sum(axis=1)
    if kind == "combinatorial":
        return np.diag(d) - W
    if kind == "normalized":
        s = 1 / np.sqrt(d)
        return np.eye(len(d)) - s[:, None] * W * s[None, :]
    return np.eye(len(d)) - W / d[:, None]


def dense_gaussian(X, sigma):
    D = ((X[:, None, :].astype(np.float64) - X[None, :, :]) ** 2).sum(-1)
    return np.exp(-D / (2 * sigma**2))


def dense_heat_filter(L, t):
    return sla.expm(-t * np.asarray(L, dtype=np.float64))


# ---------------------------------------------------------------------------
# The table
# ---------------------------------------------------------------------------

@dataclasses.dataclass
class Case:
    """One operator of the table.

    ``build()`` returns ``(apply, dense, dtype, shape)``: ``apply`` the object
    under test, ``dense`` the oracle (float64).  ``accuracy`` is the relative
    accuracy the operator documents against the oracle; ``adjoint_accuracy``
    the part of it that may show up as asymmetry (0 for operators whose
    rounding alone breaks the dot test).
    """

    name: str
    build: Callable
    symmetric: bool
    covers: tuple            # public classes / functions (dotted names) this row tests
    accuracy: float = 0.0
    adjoint_accuracy: float = 0.0


def _graph_kernel(method, dtype):
    def build():
        W = random_graph()
        L = laplacian(W).astype(dtype)
        phi = filters.Heat(0.7)
        K = GraphKernel(L, phi, method=method, tol=1e-10 if dtype == np.float64 else 1e-5)
        return K, dense_heat_filter(dense_laplacian(W, "combinatorial"), 0.7), np.dtype(dtype), (N_GRAPH, N_GRAPH)
    return build


def _graph_kernel_from_adjacency(kind):
    def build():
        W = random_graph(seed=3)
        K = GraphKernel(W, filters.RegularizedLaplacian(2.0), laplacian=kind, method="chebyshev", tol=1e-10)
        L = dense_laplacian(W, kind)
        oracle = np.linalg.inv(np.eye(N_GRAPH) + 2.0 * L)
        return K, oracle, np.dtype(np.float64), (N_GRAPH, N_GRAPH)
    return build


def _kernel_operator(cache, dtype):
    def build():
        X = np.random.default_rng(1).normal(size=(N_POINTS, 3)).astype(dtype)
        op = KernelOperator(X, sigma=1.3, cache_bytes=10**9 if cache else 0)
        assert op.is_dense == cache
        return op, dense_gaussian(X, 1.3), np.dtype(dtype), (N_POINTS, N_POINTS)
    return build


def _kernel_operator_scaled():
    def build():
        X = np.random.default_rng(2).normal(size=(N_POINTS, 2))
        op = KernelOperator(X, kernel="polynomial", degree=3, coef0=0.5, scale=0.25, cache_bytes=0)
        return op, 0.25 * (X @ X.T + 0.5) ** 3, np.dtype(np.float64), (N_POINTS, N_POINTS)
    return build


def _shifted_laplacian(n=N_GRAPH, seed=0, shift=1e-2):
    W = random_graph(n, seed=seed)
    A = dense_laplacian(W, "combinatorial") + shift * np.eye(n)
    return sp.csr_array(A), A


def _amg_single_level():
    # n <= max_coarse: the hierarchy is one level, solved by its exact (pseudo-)inverse, M = A^{-1}.
    def build():
        A, dense = _shifted_laplacian()
        M = amg_preconditioner(A)
        assert len(M.levels) == 1
        return M, np.linalg.inv(dense), np.dtype(np.float64), (N_GRAPH, N_GRAPH)
    return build


def _amg_multilevel(cls):
    # A genuine V-cycle: no closed form, so the oracle is the operator's own columns; the table
    # still checks matvec == matmat, the dot test and symmetry, and test_amg_is_spd_approximate_inverse
    # checks the mathematics (SPD, ||I - M A||_A < 1).
    def build():
        A, _ = _shifted_laplacian(n=300, seed=4)
        M = amg_preconditioner(A, max_coarse=20) if cls == "function" else \
            SmoothedAggregationPreconditioner(A, max_coarse=20, degree=2)
        assert len(M.levels) >= 2
        return M, None, np.dtype(np.float64), (300, 300)
    return build


def _jacobi():
    def build():
        A, dense = _shifted_laplacian()
        return _make_preconditioner(A, "jacobi"), np.diag(1 / np.diag(dense)), np.dtype(np.float64), A.shape
    return build


def _range_projection():
    # P M P with P removing each component's mean (two components here).
    def build():
        W1, W2 = random_graph(20, seed=5), random_graph(N_GRAPH - 20, seed=6)
        A = sp.csr_array(sla.block_diag(dense_laplacian(W1, "combinatorial"), dense_laplacian(W2, "combinatorial")))
        comp = np.repeat([0, 1], [20, N_GRAPH - 20])
        M0 = spla.aslinearoperator(sp.diags_array(1 / A.diagonal()))
        op = _range_projected(M0, comp, 2)
        P = np.eye(N_GRAPH)
        P[:20, :20] -= 1 / 20
        P[20:, 20:] -= 1 / (N_GRAPH - 20)
        return op, P @ np.diag(1 / A.diagonal()) @ P, np.dtype(np.float64), A.shape
    return build


def _incidence(weighted):
    def build():
        W = random_graph(seed=7)
        if not weighted:
            W = (W > 0).astype(float)
        R = incidence_matrix(W)
        i, j = np.nonzero(np.triu(W, k=1))
        dense = np.zeros((i.size, N_GRAPH))
        dense[np.arange(i.size), i] = W[i, j]
        dense[np.arange(i.size), j] = -W[i, j]
        # The edge order is not part of the contract: compare rows up to a permutation (sorted).
        order = np.lexsort(np.asarray(R.toarray()).T[::-1])
        dense = dense[np.lexsort(dense.T[::-1])]
        return _RowPermuted(R, order), dense, np.dtype(np.float64), dense.shape
    return build


class _RowPermuted:
    """R with its rows taken in a fixed order (the oracle's), as a LinearOperator-compatible pair."""

    def __init__(self, R, order):
        self.R, self.order = R, order
        inv = np.empty_like(order)
        inv[order] = np.arange(order.size)
        self.inv = inv
        self.op = spla.aslinearoperator(R)
        self.shape, self.dtype = R.shape, R.dtype

    def matvec(self, x):
        return self.op.matvec(x)[self.order]

    def matmat(self, X):
        return self.op.matmat(X)[self.order]

    def rmatmat(self, Y):
        out = np.zeros((self.R.shape[0],) + Y.shape[1:])
        out[self.order] = Y
        return self.op.rmatmat(out) if Y.ndim == 2 else self.op.rmatvec(out)


def _laplacian_matrix(kind, dtype):
    def build():
        W = random_graph(seed=8)
        return laplacian(W, kind, dtype=dtype), dense_laplacian(W, kind), np.dtype(dtype), W.shape
    return build


class _Prepared:
    """PreparedOperator as a user-order operator: to_user(L_internal @ to_internal(X))."""

    def __init__(self, P, n):
        self.P, self.shape, self.dtype = P, (n, n), P.dtype

    def matmat(self, X):
        return self.P.to_user(self.P.matmat(self.P.to_internal(X)))

    def matvec(self, x):
        return self.matmat(np.asarray(x).reshape(-1, 1))[:, 0]


def _prepared(dtype, backend, reorder):
    def build():
        W = random_graph(seed=9)
        L = laplacian(W, "normalized")
        P = PreparedOperator(L, dtype, reorder=reorder, backend=backend)
        if reorder is True:
            assert P.perm is not None and not np.array_equal(P.perm, np.arange(N_GRAPH))
        return _Prepared(P, N_GRAPH), dense_laplacian(W, "normalized"), np.dtype(dtype), W.shape
    return build


class _FunctionOperator:
    """The linear map X -> f(L, phi, X) of a spectral filter function, as an operator."""

    def __init__(self, f, L, phi, dtype, **kw):
        self.f, self.L, self.phi, self.kw = f, L, phi, kw
        self.shape, self.dtype = L.shape, np.dtype(dtype)

    def matmat(self, X):
        return self.f(self.L, self.phi, X, **self.kw)

    def matvec(self, x):
        return self.f(self.L, self.phi, x, **self.kw)


def _filter_function(f, dtype, **kw):
    def build():
        W = random_graph(seed=10)
        L = laplacian(W, dtype=dtype)
        op = _FunctionOperator(f, L, filters.Heat(0.5), dtype, **kw)
        return op, dense_heat_filter(dense_laplacian(W, "combinatorial"), 0.5), np.dtype(dtype), W.shape
    return build


def _knn_laplacian():
    # the path of the estimators: points -> kNN graph -> Laplacian
    def build():
        X = np.random.default_rng(11).normal(size=(N_GRAPH, 2))
        W = knn_graph(X, 5)
        Wd = W.toarray()
        return laplacian(W, "normalized"), dense_laplacian(Wd, "normalized"), np.dtype(np.float64), W.shape
    return build


def _warped_point_cloud_matrix(kind, p):
    # M = gamma_I / (gamma_A n^2) L^p, for the random-walk kind L (D^-1 L)^(p-1) (self-adjoint form)
    def build():
        X = np.random.default_rng(13).normal(size=(N_POINTS, 2))
        K = graphrkhs.WarpedKernel(X, sigma=1.0, gamma_A=0.1, gamma_I=2.0, n_neighbors=5, laplacian=kind,
                                   laplacian_power=p)
        W = K.W.toarray()
        d = W.sum(axis=1)
        if kind == "randomwalk":
            Lc = np.diag(d) - W
            core = Lc @ np.linalg.matrix_power(Lc / d[:, None], p - 1)
        else:
            core = np.linalg.matrix_power(dense_laplacian(W, kind), p)
        c = 2.0 / (0.1 * N_POINTS**2)
        return K.point_cloud_matrix(), c * core, np.dtype(np.float64), (N_POINTS, N_POINTS)
    return build


F64_CHEB = 1e-9     # GraphKernel(tol=1e-10) against expm: Chebyshev / Lanczos accuracy
F32 = 1e-4          # float32 operators against a float64 oracle

OPERATORS = [
    Case("GraphKernel-chebyshev-float64", _graph_kernel("chebyshev", np.float64), True,
         ("graphrkhs.GraphKernel",), accuracy=F64_CHEB),
    Case("GraphKernel-lanczos-float64", _graph_kernel("lanczos", np.float64), True,
         ("graphrkhs.GraphKernel",), accuracy=F64_CHEB),
    Case("GraphKernel-exact-float64", _graph_kernel("exact", np.float64), True,
         ("graphrkhs.GraphKernel",), accuracy=1e-12),
    Case("GraphKernel-chebyshev-float32", _graph_kernel("chebyshev", np.float32), True,
         ("graphrkhs.GraphKernel",), accuracy=F32),
    Case("GraphKernel-lanczos-float32", _graph_kernel("lanczos", np.float32), True,
         ("graphrkhs.GraphKernel",), accuracy=F32),
    Case("GraphKernel-exact-float32", _graph_kernel("exact", np.float32), True,
         ("graphrkhs.GraphKernel",), accuracy=F32),
    Case("GraphKernel-adjacency-combinatorial", _graph_kernel_from_adjacency("combinatorial"), True,
         ("graphrkhs.GraphKernel",), accuracy=F64_CHEB),
    Case("GraphKernel-adjacency-normalized", _graph_kernel_from_adjacency("normalized"), True,
         ("graphrkhs.GraphKernel",), accuracy=F64_CHEB),
    Case("KernelOperator-cached-float64", _kernel_operator(True, np.float64), True,
         ("graphrkhs.KernelOperator",), accuracy=1e-12),
    Case("KernelOperator-blockwise-float64", _kernel_operator(False, np.float64), True,
         ("graphrkhs.KernelOperator",), accuracy=1e-12),
    Case("KernelOperator-cached-float32", _kernel_operator(True, np.float32), True,
         ("graphrkhs.KernelOperator",), accuracy=F32),
    Case("KernelOperator-blockwise-float32", _kernel_operator(False, np.float32), True,
         ("graphrkhs.KernelOperator",), accuracy=F32),
    Case("KernelOperator-polynomial-scaled", _kernel_operator_scaled(), True,
         ("graphrkhs.KernelOperator",), accuracy=1e-12),
    Case("amg_preconditioner-one-level", _amg_single_level(), True,
         ("graphrkhs.amg_preconditioner", "graphrkhs._core.amg.SmoothedAggregationPreconditioner"),
         accuracy=1e-9),
    Case("amg_preconditioner-multilevel", _amg_multilevel("function"), True,
         ("graphrkhs.amg_preconditioner",)),
    Case("SmoothedAggregationPreconditioner-multilevel", _amg_multilevel("class"), True,
         ("graphrkhs._core.amg.SmoothedAggregationPreconditioner",)),
    Case("jacobi-preconditioner", _jacobi(), True,
         ("graphrkhs.solvers._graph._make_preconditioner",), accuracy=1e-15),
    Case("range-projected-preconditioner", _range_projection(), True,
         ("graphrkhs.solvers._graph._range_projected",), accuracy=1e-13),
    Case("incidence_matrix-weighted", _incidence(True), False,
         ("graphrkhs.incidence_matrix",), accuracy=1e-15),
    Case("incidence_matrix-unweighted", _incidence(False), False,
         ("graphrkhs.incidence_matrix",), accuracy=1e-15),
    Case("laplacian-combinatorial-float64", _laplacian_matrix("combinatorial", np.float64), True,
         ("graphrkhs.laplacian",), accuracy=1e-15),
    Case("laplacian-normalized-float64", _laplacian_matrix("normalized", np.float64), True,
         ("graphrkhs.laplacian",), accuracy=1e-14),
    Case("laplacian-randomwalk-float64", _laplacian_matrix("randomwalk", np.float64), False,
         ("graphrkhs.laplacian",), accuracy=1e-14),
    Case("laplacian-normalized-float32", _laplacian_matrix("normalized", np.float32), True,
         ("graphrkhs.laplacian",), accuracy=1e-6),
    Case("laplacian-normalized-knn", _knn_laplacian(), True, ("graphrkhs.laplacian",), accuracy=1e-14),
    Case("PreparedOperator-reordered-numba-float64", _prepared(np.float64, "numba", True), True,
         ("graphrkhs._core.reorder.PreparedOperator",), accuracy=1e-14),
    Case("PreparedOperator-scipy-float64", _prepared(np.float64, "scipy", False), True,
         ("graphrkhs._core.reorder.PreparedOperator",), accuracy=1e-14),
    Case("PreparedOperator-reordered-numba-float32", _prepared(np.float32, "numba", True), True,
         ("graphrkhs._core.reorder.PreparedOperator",), accuracy=1e-6),
    Case("PreparedOperator-reordered-scipy-float32", _prepared(np.float32, "scipy", True), True,
         ("graphrkhs._core.reorder.PreparedOperator",), accuracy=1e-6),
    Case("WarpedKernel.point_cloud_matrix-combinatorial-p1", _warped_point_cloud_matrix("combinatorial", 1), True,
         ("graphrkhs.WarpedKernel",), accuracy=1e-13),
    Case("WarpedKernel.point_cloud_matrix-combinatorial-p2", _warped_point_cloud_matrix("combinatorial", 2), True,
         ("graphrkhs.WarpedKernel",), accuracy=1e-13),
    Case("WarpedKernel.point_cloud_matrix-normalized-p3", _warped_point_cloud_matrix("normalized", 3), True,
         ("graphrkhs.WarpedKernel",), accuracy=1e-13),
    Case("WarpedKernel.point_cloud_matrix-randomwalk-p2", _warped_point_cloud_matrix("randomwalk", 2), True,
         ("graphrkhs.WarpedKernel",), accuracy=1e-13),
    Case("chebyshev_filter-float64", _filter_function(chebyshev_filter, np.float64, tol=1e-10), True,
         ("graphrkhs.chebyshev_filter",), accuracy=F64_CHEB),
    Case("chebyshev_filter-float32", _filter_function(chebyshev_filter, np.float32, tol=1e-5), True,
         ("graphrkhs.chebyshev_filter",), accuracy=F32),
    Case("lanczos_filter-float64", _filter_function(lanczos_filter, np.float64, tol=1e-10), True,
         ("graphrkhs.lanczos_filter",), accuracy=F64_CHEB),
    Case("exact_filter-float64", _filter_function(exact_filter, np.float64), True,
         ("graphrkhs.exact_filter",), accuracy=1e-12),
]

IDS = [c.name for c in OPERATORS]


@pytest.fixture(scope="module")
def built():
    cache = {}

    def get(case):
        if case.name not in cache:
            cache[case.name] = case.build()
        return cache[case.name]
    return get


# ---------------------------------------------------------------------------
# Generic products: the object's own API, whatever it is
# ---------------------------------------------------------------------------

def matmat(op, X):
    return np.asarray(op @ X if sp.issparse(op) else op.matmat(X))


def matvec(op, x):
    if sp.issparse(op):
        return np.asarray(op @ x)
    if hasattr(op, "matvec"):
        return np.asarray(op.matvec(x))
    return np.asarray(op.matmat(x))    # KernelOperator: its matmat takes (n,) too


def adjoint_matmat(op, Y, symmetric):
    """A^H Y through the object's own adjoint, never through the oracle."""
    if sp.issparse(op):
        return np.asarray(op.T @ Y)
    if isinstance(op, spla.LinearOperator):
        return np.asarray(op.H.matmat(Y))
    if hasattr(op, "rmatmat"):
        return np.asarray(op.rmatmat(Y))
    assert symmetric, "an operator without an adjoint must be symmetric"
    return matmat(op, Y)     # self-adjoint by contract: the test below checks that contract


def dot_scale(Ax, y):
    r"""The scale of :math:`\langle A x, y\rangle` against which rounding is measured.

    :math:`|\langle A x, y\rangle|`, floored at its typical size for a Gaussian y,
    :math:`\|A x\|\,\|y\| / \sqrt{n}`: a draw that happens to make the product
    cancel to near zero leaves the rounding error (of order eps times the terms)
    unchanged, so dividing by the cancelled value would test luck, not the adjoint.
    """
    Ax, y = np.ravel(Ax), np.ravel(y)
    return max(abs(float(Ax @ y)), float(np.linalg.norm(Ax) * np.linalg.norm(y)) / np.sqrt(y.size))


def dtype_tol(dtype, n):
    """Rounding of a length-n inner product of O(1) terms, with room for a few dozen operations each."""
    return 100 * np.sqrt(n) * _eps(dtype)


def _rand(shape, dtype, seed):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


# ---------------------------------------------------------------------------
# The checks
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("case", OPERATORS, ids=IDS)
def test_shape_and_dtype(case, built):
    op, _, dtype, shape = built(case)
    assert tuple(op.shape) == shape
    assert np.dtype(op.dtype) == dtype
    x = _rand(shape[1], dtype, 0)
    X = _rand((shape[1], 3), dtype, 1)
    y, Y = matvec(op, x), matmat(op, X)
    assert y.shape == (shape[0],)
    assert Y.shape == (shape[0], 3)
    assert y.dtype == dtype and Y.dtype == dtype


@pytest.mark.parametrize("case", OPERATORS, ids=IDS)
def test_matvec_matmat_and_dense_oracle(case, built):
    op, dense, dtype, shape = built(case)
    X = _rand((shape[1], 4), dtype, 2)
    Y = matmat(op, X).astype(np.float64)
    tol = max(case.accuracy, dtype_tol(dtype, shape[1]))
    for j in range(X.shape[1]):
        np.testing.assert_allclose(matvec(op, X[:, j]), Y[:, j], rtol=0,
                                   atol=dtype_tol(dtype, shape[1]) * np.abs(Y[:, j]).max()
                                   + case.adjoint_accuracy * np.abs(Y[:, j]).max())
    if dense is not None:
        ref = dense @ X.astype(np.float64)
        np.testing.assert_allclose(Y, ref, rtol=0, atol=tol * np.abs(ref).max())


@pytest.mark.parametrize("case", OPERATORS, ids=IDS)
def test_dot_test(case, built):
    op, _, dtype, shape = built(case)
    tol = dtype_tol(dtype, max(shape)) + case.adjoint_accuracy
    for seed in range(3):
        x = _rand((shape[1], 1), dtype, 10 + seed)
        y = _rand((shape[0], 1), dtype, 20 + seed)
        Ax = matmat(op, x).astype(np.float64)
        AHy = adjoint_matmat(op, y, case.symmetric).astype(np.float64)
        lhs = float(Ax[:, 0] @ y[:, 0].astype(np.float64))
        rhs = float(x[:, 0].astype(np.float64) @ AHy[:, 0])
        assert abs(lhs - rhs) <= tol * dot_scale(Ax, y.astype(np.float64)), (case.name, seed, lhs, rhs)


@pytest.mark.parametrize("case", [c for c in OPERATORS if c.symmetric],
                         ids=[c.name for c in OPERATORS if c.symmetric])
def test_symmetry(case, built):
    op, _, dtype, shape = built(case)
    n = shape[0]
    D = matmat(op, np.eye(n, dtype=dtype)).astype(np.float64)
    tol = dtype_tol(dtype, n) + case.adjoint_accuracy
    np.testing.assert_allclose(D, D.T, rtol=0, atol=tol * np.abs(D).max())
    for seed in range(3):
        x, y = _rand(n, dtype, 30 + seed), _rand(n, dtype, 40 + seed)
        x, y = x.astype(np.float64), y.astype(np.float64)
        Ay, Ax = matvec(op, y).astype(np.float64), matvec(op, x).astype(np.float64)
        xAy, yAx = float(x @ Ay), float(y @ Ax)
        assert abs(xAy - yAx) <= tol * dot_scale(Ay, x), (case.name, seed, xAy, yAx)


def test_amg_is_spd_approximate_inverse():
    """The multilevel V-cycle: M symmetric positive definite and ||I - M A||_A < 1 (it contracts)."""
    A, dense = _shifted_laplacian(n=300, seed=4)
    for M in (amg_preconditioner(A, max_coarse=20), SmoothedAggregationPreconditioner(A, max_coarse=20, degree=2)):
        Md = M.matmat(np.eye(300))
        Md = (Md + Md.T) / 2     # symmetric: test_symmetry
        assert np.linalg.eigvalsh(Md).min() > 0
        # eigenvalues of M A (similar to A^1/2 M A^1/2) lie in (0, 2): I - M A contracts in the A-norm
        ev = np.sort(np.linalg.eigvals(Md @ dense).real)
        assert ev[0] > 0 and ev[-1] < 2


# ---------------------------------------------------------------------------
# Every operator the project exposes has a row
# ---------------------------------------------------------------------------

def _operator_like(obj):
    if not inspect.isclass(obj):
        return False
    if issubclass(obj, spla.LinearOperator):
        return True
    return any(callable(getattr(obj, a, None)) for a in ("_matvec", "_matmat", "matmat", "matvec", "__matmul__"))


def _returns_operator(obj):
    """A function whose numpydoc Returns section names a LinearOperator."""
    if not inspect.isfunction(obj):
        return False
    doc = inspect.getdoc(obj) or ""
    m = re.search(r"^Returns\n-+\n(.*?)(?=^\S[^\n]*\n-+\n|\Z)", doc, flags=re.M | re.S)
    return bool(m) and "LinearOperator" in m.group(1)


def _namespaces():
    mods = [graphrkhs]
    for pkg in ("graphs", "spectral", "kernels", "solvers", "estimators", "_core"):
        mod = importlib.import_module(f"graphrkhs.{pkg}")
        mods.append(mod)
        for info in pkgutil.iter_modules(mod.__path__):
            mods.append(importlib.import_module(f"graphrkhs.{pkg}.{info.name}"))
    return mods


def _exposed_operators():
    found = {}
    for mod in _namespaces():
        names = getattr(mod, "__all__", None)
        if names is None or mod.__name__.startswith("graphrkhs._core"):
            names = [n for n in vars(mod)]
        for name in names:
            obj = getattr(mod, name, None)
            if obj is None or not getattr(obj, "__module__", "").startswith("graphrkhs"):
                continue
            if inspect.isclass(obj) and issubclass(obj, BaseException):
                continue
            if _operator_like(obj) or _returns_operator(obj):
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return found


def _covered():
    out = set()
    for case in OPERATORS:
        for dotted in case.covers:
            mod, _, name = dotted.rpartition(".")
            obj = getattr(importlib.import_module(mod), name)
            out.add(f"{obj.__module__}.{obj.__qualname__}")
    return out


# Operator-like classes that are deliberately not linear operators of the project's API,
# each with the reason (keep this list short; anything else needs a row in OPERATORS).
NOT_OPERATORS = {
    # filters are spectral responses phi(lambda), callables on eigenvalues, not maps of signals
}


def test_every_operator_is_in_the_table():
    exposed = _exposed_operators()
    assert "graphrkhs.kernels._graph.GraphKernel" in exposed       # the scan sees what it must
    assert "graphrkhs._core.cg.amg_preconditioner" in exposed
    missing = sorted(set(exposed) - _covered() - set(NOT_OPERATORS))
    assert not missing, (f"operators without a dot/symmetry test: {missing}; add a Case to OPERATORS in "
                         "tests/core/test_operators.py")


# ---------------------------------------------------------------------------
# Kernel functions: not operators, but their Gram matrices must be symmetric
# ---------------------------------------------------------------------------

KERNEL_FUNCTIONS = {
    "FredholmKernel": lambda X: graphrkhs.FredholmKernel(X, sigma=1.0),
    "FredholmKernel-normalized": lambda X: graphrkhs.FredholmKernel(X, sigma=1.0, normalized=True),
    "WarpedKernel": lambda X: graphrkhs.WarpedKernel(X, sigma=1.0, n_neighbors=5),
    "GRLSKernel": lambda X: graphrkhs.GRLSKernel(X, sigma=1.0),
}


@pytest.mark.parametrize("name", sorted(KERNEL_FUNCTIONS))
def test_kernel_function_is_symmetric(name):
    """k(A, B) = k(B, A)^T between any two point sets, and the Gram k(X, X) is symmetric."""
    rng = np.random.default_rng(12)
    X = rng.normal(size=(N_POINTS, 2))
    A, B = rng.normal(size=(7, 2)), rng.normal(size=(5, 2))
    k = KERNEL_FUNCTIONS[name](X)
    KAB, KBA = np.asarray(k(A, B)), np.asarray(k(B, A))
    tol = dtype_tol(np.float64, N_POINTS)
    np.testing.assert_allclose(KAB, KBA.T, rtol=0, atol=tol * np.abs(KAB).max())
    G = np.asarray(k(X, X))
    np.testing.assert_allclose(G, G.T, rtol=0, atol=tol * np.abs(G).max())


def test_scan_catches_a_new_operator(monkeypatch):
    """A LinearOperator added to a public namespace without a row is seen by the scan (and not covered)."""
    class NewOperator(spla.LinearOperator):
        def __init__(self):
            super().__init__(dtype=np.float64, shape=(2, 2))

        def _matvec(self, x):
            return x

    NewOperator.__module__ = "graphrkhs.kernels._new"
    monkeypatch.setattr(graphrkhs.kernels, "NewOperator", NewOperator, raising=False)
    monkeypatch.setattr(graphrkhs.kernels, "__all__", list(graphrkhs.kernels.__all__) + ["NewOperator"])
    name = f"graphrkhs.kernels._new.{NewOperator.__qualname__}"
    assert name in _exposed_operators()
    assert name not in _covered()
