r"""Graph kernels :math:`\Phi = \varphi(L)` as symmetric linear operators."""

from __future__ import annotations

import inspect
import time
from typing import Literal

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from numpy.typing import ArrayLike, NDArray

from .._core.backend import prepare_operator, serial_only
from .._core.linalg import symmetry_rtol
from .._core.reorder import PreparedOperator
from .._core.types import Backend, GraphLike, Reorder, ResponseLike, SymmetricLaplacianKind
from .._core.validation import (check_numeric_dtype, dense_array, check_option, check_scalar, check_signals, float_dtype,
                                memory_guard, native_byte_order, sparse_storable)
from ..graphs import as_adjacency, bipartite_component_count, laplacian
from ..spectral import (
    DEFAULT_MAX_ORDER,
    EXACT_MAX_NODES,
    as_filter,
    chebyshev_apply,
    column_exponents,
    chebyshev_plan,
    check_filter_options,
    exact_eigh,
    is_symmetric,
    lanczos_apply,
    laplacian_null_space,
    resolve_lmax,
)

__all__ = ["GraphKernel"]

METHODS = ("chebyshev", "lanczos", "exact")
#: Laplacian kind built from an adjacency or a graph object (also graph_kernel_ridge's default).
DEFAULT_LAPLACIAN = "normalized"
# toarray() refuses to build a dense kernel above this many nodes unless asked
# (20000^2 float64 = 3.2 GB).
TOARRAY_MAX_NODES = 20_000
# Working memory of one batch of columns in columns()/submatrix(): about three
# (n, batch) blocks of the recurrence.
COLUMN_BATCH_BYTES = 2**30


def _matrix_kind(M):
    r"""Whether a square matrix is a Laplacian or an adjacency, by its signs and row sums.

    * Laplacian: off-diagonal entries <= 0 (at least one < 0) and either zero
      row sums (combinatorial, :math:`D - W`) or a diagonal of ones and zeros
      (normalized, :math:`I - D^{-1/2} W D^{-1/2}`; 0 for isolated nodes);
    * adjacency: off-diagonal entries >= 0 (at least one > 0) and a
      non-negative diagonal (self-loops, which :func:`~graphrkhs.as_adjacency`
      removes with a warning);
    * the zero matrix: either (both give L = 0).

    Anything else -- mixed signs off the diagonal, a negative diagonal, a
    non-zero diagonal without off-diagonal entries, non-positive off-diagonals
    with non-zero row sums and a diagonal other than ones (e.g. L + c I) -- is
    ambiguous: a ``ValueError`` asks for ``input=``.  Rounding tolerance:
    ``1e-5`` (float32) or ``1e-10`` relative to the largest entry.
    """
    C = sp.coo_array(M)
    off = C.row != C.col
    od, dd = C.data[off], C.data[~off]
    diag = np.zeros(C.shape[0])
    np.add.at(diag, C.row[~off], dd)
    scale = float(np.abs(C.data).max()) if C.nnz else 0.0
    eps = symmetry_rtol(C.dtype) * scale
    fix = ("pass input='laplacian' or input='adjacency' to say which it is (or build the Laplacian with "
           "graphrkhs.laplacian(W, kind)).")
    if scale == 0.0:
        return "adjacency"
    if (diag < -eps).any():
        raise ValueError(f"L has a negative diagonal entry ({diag.min():.3g}): neither a Laplacian nor an "
                         f"adjacency matrix; {fix}")
    neg, pos = (od < -eps).any(), (od > eps).any()
    if neg and pos:
        raise ValueError("L has off-diagonal entries of both signs: a Laplacian has none > 0, an adjacency none "
                         f"< 0; {fix}")
    if pos:
        return "adjacency"
    if not neg:
        raise ValueError("L has a positive diagonal but no off-diagonal entries: a Laplacian of a graph without "
                         f"edges is 0, so it is neither (an adjacency of self-loops only, or a shifted Laplacian?); "
                         f"{fix}")
    rows = np.asarray(sp.csr_array(M).sum(axis=1)).ravel()
    if np.abs(rows).max() <= eps * 10:
        return "laplacian"
    if np.all((np.abs(diag - 1.0) <= eps * 10) | (np.abs(diag) <= eps)):
        return "laplacian"
    raise ValueError("L has non-positive off-diagonal entries like a Laplacian, but its rows do not sum to zero "
                     f"(largest |row sum| {np.abs(rows).max():.3g}) and its diagonal is not that of a normalized "
                     f"Laplacian (ones); if it is a generalized Laplacian (e.g. L + c I), {fix}")


class GraphKernel(spla.LinearOperator):
    r"""The graph kernel :math:`\Phi = \varphi(L)` as a symmetric :class:`~scipy.sparse.linalg.LinearOperator`.

    :math:`\Phi` is the reproducing kernel of the graph RKHS
    :math:`\mathcal H_\varphi` with :math:`\|f\|^2 = \sum_l \hat f(l)^2 / \varphi(\lambda_l)`
    (Pena 2017; Smola & Kondor 2003); it is positive definite because the
    response is checked to be positive on :math:`[0, \lambda_{max}]`.
    Products :math:`\Phi X` run a Chebyshev recurrence (or Lanczos, or a cached
    dense eigendecomposition) -- :math:`\Phi` itself is never formed.

    Parameters
    ----------
    L : graph or Laplacian
        A symmetric Laplacian (sparse or dense), or any graph form
        :func:`graphrkhs.as_adjacency` accepts (pygsp / networkx graphs,
        adjacency matrices).  A matrix is told apart by signs and row sums:
        non-positive off-diagonals with zero row sums (combinatorial) or a unit
        diagonal (normalized) make a Laplacian, non-negative off-diagonals an
        adjacency (a positive diagonal there is a self-loop, removed with a
        :class:`~graphrkhs.GraphWarning`); the all-zero matrix is both, with
        the same result.  Anything else (e.g. a diagonal matrix, or L + c I)
        is a ``ValueError`` asking for ``input``, which overrides the check.
    phi : filter or callable
        The response (:mod:`graphrkhs.filters`).
    method : {"chebyshev", "lanczos", "exact"}, default="chebyshev"
        Chebyshev: fixed polynomial, cheapest per product, exactly symmetric.
        Lanczos: adapts to each vector, for responses that polynomials
        approximate badly (its operator is symmetric only to ``tol``); L's
        null space is deflated exactly (see :func:`graphrkhs.lanczos_filter`):
        the components' :math:`D^{1/2} 1` of a normalized Laplacian built here
        from the graph, the indicators of a combinatorial one (a normalized
        Laplacian given as a matrix has no degrees to give it and is not
        deflated).  Without it ``Heat(1e16)`` was 0.43 off on a normalized
        Laplacian of 23 nodes.
        Exact: dense eigendecomposition once (n <= 5000), then dense products.
    order : int, optional
        Chebyshev degree; None picks the lowest reaching ``tol``
        (:func:`graphrkhs.chebyshev_order`).  ``order``, ``damping`` and ``max_order``
        are options of ``method="chebyshev"``: given with another method, a ``ValueError``.
    lmax : float, optional
        Spectrum bound; None computes :func:`graphrkhs.lmax` (0 for a graph
        without edges: then :math:`\Phi = \varphi(0) I` exactly).  A given value
        below a Rayleigh quotient of L (20 Lanczos steps) is a ``ValueError``.
    tol : float, default=1e-8
        Relative accuracy of the Chebyshev / Lanczos approximation;
        ``method="exact"`` (exact to rounding) accepts and does not use it, so
        that one call can loop over the methods.
    laplacian : {"normalized", "combinatorial"}, optional
        Kind built from an adjacency or a graph object.  Default
        ``"normalized"``, the default of :func:`~graphrkhs.graph_kernel_ridge`
        and of the graph kernel ridge estimators: its spectrum lies in [0, 2]
        whatever the degrees, so one response scale (e.g.
        :func:`~graphrkhs.filters.default_kernel`) suits every graph.  Giving
        it with a Laplacian is an error.
    input : {"auto", "laplacian", "adjacency"}, default="auto"
        How to read a matrix ``L`` (see above).
    reorder : {"auto", True, False}, default="auto"
        Reverse Cuthill-McKee renumbering, computed once and cached (see
        :func:`graphrkhs.chebyshev_filter`); results are always in the
        user's node order.
    damping, max_order, backend
        As in :func:`graphrkhs.chebyshev_filter`.  A distributed ``backend``
        (``"mpi"``, ``"dask"``, or ``"auto"`` under ``mpiexec``) partitions L
        once at construction and serves every product (``matmat``,
        ``columns``...) from it; ``method="chebyshev"`` only.
    check_positive : bool, default=True
        Refuse a response that is not strictly positive on
        :math:`[0, \lambda_{max}]` (the operator would not be a kernel).
        For a normalized Laplacian built here (``laplacian="normalized"``)
        the spectrum lies in :math:`[0, 2]`, so a computed bound above 2 is
        lowered to 2, and in :math:`[0, 2)` when no connected component is
        bipartite (Chung 1997, Lemma 1.7): then a response positive on
        :math:`[0, 2)` and 0 at 2 (``InverseCosine()``, ``RandomWalk(2, p)``)
        is accepted (it is tested at the largest float below 2).

    Attributes
    ----------
    L : scipy.sparse.csr_array
        The Laplacian, in the user's node order.
    phi : Filter
    lmax : float
    order : int or None
        The Chebyshev degree (None for the other methods).
    perm : ndarray or None
        The cached reordering (internal node r is user node ``perm[r]``).
    timings : dict
        Seconds spent on ``"reorder"``, ``"lmax"`` (computed on the reordered
        matrix, whose products are cheaper) and ``"coefficients"`` (order
        selection, or the dense eigendecomposition of method="exact") at construction.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import GraphKernel, exact_filter, filters
    >>> W = np.diag(np.ones(19), 1); W = W + W.T          # a path (an adjacency)
    >>> K = GraphKernel(W, filters.Heat(1.0))             # the normalized Laplacian by default
    >>> K.shape, K.L.diagonal()[:3].tolist()
    ((20, 20), [1.0, 1.0, 1.0])
    >>> C = K.columns([0, 5])
    >>> bool(np.allclose(C, exact_filter(K.L, filters.Heat(1.0), np.eye(20)[:, [0, 5]]), atol=1e-8))
    True
    >>> bool(np.allclose(K.submatrix([5], [0]), C[5, 0]))
    True
    """

    def __init__(self, L: GraphLike, phi: ResponseLike, *,
                 method: Literal["chebyshev", "lanczos", "exact"] = "chebyshev", order: int | None = None,
                 lmax: float | None = None, tol: float = 1e-8,
                 laplacian: SymmetricLaplacianKind | None = None,
                 input: Literal["auto", "laplacian", "adjacency"] = "auto", reorder: Reorder = "auto",
                 damping: Literal["jackson"] | None = None, max_order: int = DEFAULT_MAX_ORDER,
                 backend: Backend = "auto", check_positive: bool = True) -> None:
        check_option(method, "method", METHODS)
        check_option(input, "input", ("auto", "laplacian", "adjacency"))
        if laplacian is not None:
            check_option(laplacian, "laplacian", ("combinatorial", "normalized"))
        self.phi = as_filter(phi)
        order, tol, max_order = check_filter_options(order, tol, max_order, damping, reorder, backend)
        if method != "chebyshev":
            # options of the Chebyshev series only: GraphKernel(L, phi, method="lanczos", order=5) ran Lanczos to
            # tol and ignored order=5 (and damping, max_order) without a word
            given = [f"{name}={value!r}" for name, value, default in
                     (("order", order, None), ("damping", damping, None), ("max_order", max_order, DEFAULT_MAX_ORDER))
                     if value != default]
            if given:
                raise ValueError(f"{', '.join(given)} set(s) the Chebyshev series, which method={method!r} does not use; "
                                 "drop it, or use method='chebyshev'.")
        self.L, degrees = self._laplacian(L, laplacian, input)
        n = self.L.shape[0]
        if method == "exact" and n > EXACT_MAX_NODES:
            raise ValueError(f"method='exact' factorizes a dense matrix: n={n} is above {EXACT_MAX_NODES}; "
                             "use method='chebyshev' or 'lanczos'.")
        self.method = method
        self.tol = tol
        self.timings = {}
        dtype = float_dtype(self.L.dtype)
        super().__init__(dtype=dtype, shape=(n, n))
        self._backend = backend
        self._reorder = reorder
        self.order = None
        self._coefs = None
        self._eig = None
        self._null = None
        # a normalized Laplacian built here: spectrum in [0, 2], and in [0, 2) without a bipartite component
        self._normalized = degrees is not None
        given_lmax = lmax is not None
        if given_lmax:  # cheap checks first
            self.lmax = resolve_lmax(self.L, lmax)
            self._check_positive(check_positive)
        if method == "exact":
            serial_only(backend, "GraphKernel(method='exact')")
            self._op = None
            self.perm = None
            self.timings["reorder"] = 0.0
        else:
            if method == "lanczos":
                serial_only(backend, "GraphKernel(method='lanczos')")
                self._op = PreparedOperator(self.L, dtype, reorder, backend)
                # L's null space, deflated exactly by every product (see lanczos_filter): the degrees of a
                # normalized Laplacian built here give it; a given Laplacian is deflated when combinatorial
                if degrees is not None and self._op.perm is not None:
                    degrees = degrees[self._op.perm]
                self._null = laplacian_null_space(self._op.L, self.L.dtype, degrees)
            else:
                self._op = prepare_operator(self.L, dtype, reorder, backend, "GraphKernel")
            self.perm = self._op.perm
            self.timings["reorder"] = self._op.reorder_time
        t0 = time.perf_counter()
        if not given_lmax:
            # Same spectrum in any node order; Lanczos products are cheaper on the reordered matrix.
            self.lmax = resolve_lmax(self._op.L if self._op is not None and self._op.is_matrix else self.L, None)
            if self._normalized and self.lmax > 2.0:
                # the normalized Laplacian's spectrum lies in [0, 2] (a theorem): the Lanczos bound's margin
                # gave 2.003 to 2.01 on odd cycles of 23 to 101 nodes with a pendant path (Gershgorin 2.22)
                self.lmax = 2.0
        self.timings["lmax"] = time.perf_counter() - t0
        if not given_lmax:
            self._check_positive(check_positive)
        t0 = time.perf_counter()
        if method == "chebyshev":
            self._coefs, self.order = chebyshev_plan(self.phi, self.lmax, order=order, tol=tol, damping=damping,
                                                        max_order=max_order)
        elif method == "exact":
            lam, U = exact_eigh(self.L)
            with np.errstate(all="ignore"):
                phis = np.asarray(self.phi(lam), dtype=np.float64)
            if not np.isfinite(phis).all():   # check_positive=False lets such a response through
                raise ValueError(f"the response {self.phi!r} is not finite on the eigenvalues of L "
                                 f"(in [{lam.min():.6g}, {lam.max():.6g}]); a response must be finite on the spectrum.")
            self._eig = (phis, U)
        self.timings["coefficients"] = time.perf_counter() - t0

    def _check_positive(self, check_positive):
        if not check_positive:
            return
        test = self.phi.is_positive
        try:   # a Filter subclass written before is_positive took dtype: its own test, in float64
            takes_dtype = "dtype" in inspect.signature(test).parameters
        except (TypeError, ValueError):
            takes_dtype = False
        def positive(top):
            return test(top, dtype=self.dtype) if takes_dtype else test(top)

        ok = positive(self.lmax)
        below_two = float(np.nextafter(np.asarray(2.0, dtype=self.dtype), 0))
        if not ok and self._normalized and self.lmax > below_two and bipartite_component_count(self.L) == 0:
            # A bound of 2 (or more) on a normalized Laplacian is not its spectrum: that lies in [0, 2) when no
            # component is bipartite (Chung 1997, Lemma 1.7), so a response positive on [0, 2) and 0 at 2
            # (InverseCosine, RandomWalk(2, p)) gives a positive definite kernel.  Tested at the largest float
            # below 2 of the kernel's dtype: on an odd cycle of 23 nodes (top eigenvalue 1.9907) the bound 2
            # refused InverseCosine.  (A spectral gap 2 - lambda_max below one rounding unit cannot be told
            # from 0 by the products anyway.)  float32: a bound of 1.99999994 rounds to 2 there.
            ok = positive(below_two)
        if not ok:
            raise ValueError(
                f"{self.phi!r} is not strictly positive on [0, lmax] = [0, {self.lmax:.6g}] (as evaluated in "
                f"{np.dtype(self.dtype).name}: a response that underflows to 0 counts as 0), so phi(L) is not a "
                "positive definite kernel; choose a response positive on the spectrum (e.g. RandomWalk with "
                "a > lmax, InverseCosine on the normalized Laplacian of a graph without bipartite components) or pass "
                "check_positive=False."
            )

    @staticmethod
    def _laplacian(G, kind, input):
        is_matrix = sp.issparse(G) or isinstance(G, (np.ndarray, list, tuple))
        if is_matrix and input != "adjacency":
            # float16 -> float64; big-endian data in the native byte order (scipy.sparse refuses it)
            M = sp.csr_array(native_byte_order(G)) if sp.issparse(G) else sparse_storable(G)
            if np.iscomplexobj(M):  # would lose its imaginary part with only a ComplexWarning
                check_numeric_dtype(M, "L")
            if M.dtype != object and np.issubdtype(M.dtype, np.number) and \
                    not np.isfinite(M.data if sp.issparse(M) else M).all():
                # before telling a Laplacian from an adjacency by signs, which NaN makes a misleading error
                raise ValueError("L contains NaN or infinity.")
            if M.ndim == 2 and M.shape[0] == M.shape[1] and M.dtype != object and \
                    np.issubdtype(M.dtype, np.number) and \
                    (input == "laplacian" or _matrix_kind(M) == "laplacian"):
                if kind is not None:
                    raise ValueError(
                        f"laplacian={kind!r} was given but L is already a Laplacian (it has negative off-diagonal "
                        "or positive diagonal entries); pass the adjacency to build a Laplacian of that kind, or "
                        "drop the laplacian argument."
                    )
                dtype = np.float32 if M.dtype == np.float32 else np.float64
                L = sp.csr_array(M, dtype=dtype)
                if not L.has_canonical_format:
                    # csr_array(M) shares M's arrays: sorting or summing duplicates in place rewrote the
                    # caller's matrix (and any other matrix built on the same arrays); work on a copy
                    L = L.copy()
                    L.sum_duplicates()
                if not np.isfinite(L.data).all():
                    raise ValueError("L contains NaN or infinity.")
                if not is_symmetric(L):
                    raise ValueError(
                        "L must be symmetric for a kernel phi(L); the random-walk Laplacian is not: use the "
                        "normalized Laplacian, which has the same spectrum."
                    )
                L.sort_indices()
                return L, None
        W = as_adjacency(G)
        kind = kind or DEFAULT_LAPLACIAN
        # the degrees give a normalized Laplacian's null space, D^(1/2) 1 on each component (L alone does not)
        degrees = np.asarray(W.sum(axis=1), dtype=np.float64).ravel() if kind == "normalized" else None
        return laplacian(W, kind), degrees

    def _product_bytes(self, m, dtype):
        """An upper bound on the work memory of one product ``Phi X`` with m signals computed in ``dtype``.

        Chebyshev (and Lanczos, whose basis is bounded separately): six (n, m) blocks of ``dtype`` -- the
        signal in internal order, its power-of-two scaled copy, Clenshaw's two work blocks, SciPy's product
        L b and one temporary of the step's sums (three blocks had been counted; 3.6 were measured with the
        compiled step, 5.6 with SciPy's) -- plus a copy of L's values when the operator is cast to ``dtype``.
        Exact: three float64 blocks (the signal in float64, U^T X and the scaled product, then the result) and
        the result cast to ``dtype``.
        """
        n = self.shape[0]
        if self.method == "exact":
            return n * m * (3 * 8 + dtype.itemsize)
        nbytes = 6 * n * m * dtype.itemsize
        L = getattr(self._op, "L", None)
        if sp.issparse(L) and L.dtype != dtype:
            nbytes += L.nnz * dtype.itemsize
        return nbytes

    # -- LinearOperator -----------------------------------------------------
    def _apply_block(self, X):
        if np.iscomplexobj(X):
            # check_signals would cast it with a ComplexWarning: Phi (1j x) came back as 0
            raise TypeError(f"X must be real; got complex dtype {np.asarray(X).dtype}. Phi is real: apply it to "
                            "X.real and X.imag separately.")
        X2, was_1d = check_signals(X, self.shape[0])
        dtype = float_dtype(np.result_type(self.dtype, X2.dtype))
        memory_guard(self._product_bytes(X2.shape[1], dtype),
                     f"Phi X for {X2.shape[1]} signal(s) of {X2.shape[0]} nodes",
                     "apply the kernel to fewer columns at a time.")
        if self.method == "exact":
            phis, U = self._eig
            Y = (U @ (phis[:, None] * (U.T @ X2.astype(np.float64)))).astype(dtype)
        elif self.method == "lanczos":
            op = self._op.astype(dtype)
            Y = op.to_user(lanczos_apply(op, [self.phi], op.to_internal(X2), self.tol,
                                           null_space=self._null)[0][0])
        else:
            op = self._op.astype(dtype)
            # a signal near the largest float (or whose products with L are) overflowed in the recurrence
            exps = column_exponents(X2, dtype, self.lmax)
            if exps is not None:
                X2 = np.ldexp(X2.astype(dtype), -exps)
            Y = op.to_user(chebyshev_apply(op, self._coefs, self.lmax, op.to_internal(X2))[0])
            if exps is not None:
                Y = np.ldexp(Y, exps).astype(dtype, copy=False)
        return Y[:, 0] if was_1d else Y

    # Public products validated here, so that a wrong shape gets a message naming the rows expected.
    @staticmethod
    def _dense(x):
        # a sparse block of signals (scipy's LinearOperator takes one; chebyshev_filter densifies it too):
        # np.asarray made it a 0-d object array, refused as "dtype object"
        return dense_array(x)

    def matvec(self, x: ArrayLike) -> NDArray[np.floating]:
        x = self._dense(x)
        if x.ndim == 2 and x.shape[1] == 1:
            return self._apply_block(x)
        if x.ndim != 1:
            raise ValueError(f"x must have shape (n,) or (n, 1) with n = {self.shape[0]}; got {x.shape}.")
        return self._apply_block(x)

    def matmat(self, X: ArrayLike) -> NDArray[np.floating]:
        X = self._dense(X)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D of shape (n, m) with n = {self.shape[0]}; got {X.shape}.")
        return self._apply_block(X)

    rmatvec = matvec
    rmatmat = matmat

    def dot(self, x: ArrayLike | spla.LinearOperator) -> NDArray[np.floating] | spla.LinearOperator:
        if isinstance(x, spla.LinearOperator) or np.isscalar(x):
            return super().dot(x)
        x = self._dense(x)
        return self.matvec(x) if x.ndim == 1 else self._apply_block(x)

    def _matvec(self, x):
        return self._apply_block(np.asarray(x).reshape(-1))

    def _matmat(self, X):
        return self._apply_block(X)

    def _rmatvec(self, x):
        return self._matvec(x)

    def _rmatmat(self, X):
        return self._matmat(X)

    def _adjoint(self):
        return self

    def _transpose(self):
        return self

    def __repr__(self):
        extra = f", order={self.order}" if self.order is not None else ""
        return (f"GraphKernel(n={self.shape[0]}, phi={self.phi!r}, method={self.method!r}, "
                f"lmax={self.lmax:.6g}{extra})")

    # -- entries --------------------------------------------------------------
    def _index(self, idx, name):
        arr = np.asarray(idx)
        if arr.dtype == bool:
            if arr.shape != (self.shape[0],):
                raise ValueError(f"a boolean {name} mask must have shape ({self.shape[0]},); got {arr.shape}.")
            return np.flatnonzero(arr)
        if arr.ndim == 0:
            arr = arr.reshape(1)
        if arr.ndim != 1 or not (np.issubdtype(arr.dtype, np.integer) or arr.size == 0):
            raise TypeError(f"{name} must be a 1-D array of node indices or a boolean mask; got {arr!r:.60}.")
        arr = arr.astype(np.int64)
        n = self.shape[0]
        if arr.size and (arr.min() < -n or arr.max() >= n):
            raise ValueError(f"{name} must hold node indices in [-{n}, {n}); got range [{arr.min()}, {arr.max()}].")
        return np.where(arr < 0, arr + n, arr)

    def _batch(self, batch_size, dtype):
        if batch_size is not None:
            return check_scalar(batch_size, "batch_size", kind="int", low=1)
        per_column = 3 * self.shape[0] * np.dtype(dtype).itemsize
        return max(1, COLUMN_BATCH_BYTES // per_column)

    def columns(self, idx: ArrayLike, *, batch_size: int | None = None,
                out: NDArray[np.floating] | None = None) -> NDArray[np.floating]:
        r""":math:`\Phi[:, idx]` as an (n, len(idx)) array.

        For Chebyshev, each batch of indicator columns :math:`e_i` runs one
        block recurrence in which the indicators are never stored densely
        (they enter as a scatter of :math:`c_k` per step); batches bound the
        working memory to about ``3 n batch_size`` numbers besides the result.

        Parameters
        ----------
        idx : array-like of int or boolean mask
        batch_size : int, optional
            Columns per recurrence; default fits ~1 GiB of working memory (each
            batch re-reads L once per degree, so larger batches amortize it).
        out : float32 or float64 ndarray of shape (n, len(idx)), optional
            Where to write the result (e.g. a memory map for very many columns).
        """
        idx = self._index(idx, "idx")
        n = self.shape[0]
        if out is None:
            memory_guard(n * idx.size * np.dtype(self.dtype).itemsize, f"Phi[:, idx] ({n} x {idx.size})",
                         "request fewer columns at a time or pass out= (e.g. a numpy.memmap).")
            out = np.empty((n, idx.size), dtype=self.dtype)
        elif not isinstance(out, np.ndarray) or out.dtype not in (np.float32, np.float64):
            # an integer out= truncated every kernel entry (to 0 for Heat) without a word
            raise TypeError(f"out must be a float32 or float64 ndarray (e.g. a numpy.memmap); got "
                            f"{type(out).__name__} of dtype {getattr(out, 'dtype', None)}.")
        elif out.shape != (n, idx.size):
            raise ValueError(f"out must have shape ({n}, {idx.size}); got {out.shape}.")
        batch = self._batch(batch_size, self.dtype)
        for s in range(0, idx.size, batch):  # batches of columns bound the memory
            cols = idx[s: s + batch]
            if self.method == "chebyshev" and not isinstance(self._op, PreparedOperator):
                # a distributed operator: the indicator columns are formed (each rank its rows)
                E = np.zeros((n, cols.size), dtype=self.dtype)
                E[cols, np.arange(cols.size)] = 1
                out[:, s: s + cols.size] = self._apply_block(E)
            elif self.method == "chebyshev":
                op = self._op
                R = chebyshev_apply(op, self._coefs, self.lmax,
                                     indicator=(op.internal_index(cols), cols.size))[0]
                out[:, s: s + cols.size] = op.to_user(R)
            elif self.method == "exact":
                phis, U = self._eig
                out[:, s: s + cols.size] = U @ (phis[:, None] * U[cols].T)
            else:
                E = np.zeros((n, cols.size), dtype=self.dtype)
                E[cols, np.arange(cols.size)] = 1
                out[:, s: s + cols.size] = self._apply_block(E)
        return out

    def submatrix(self, rows: ArrayLike, cols: ArrayLike, *, batch_size: int | None = None) -> NDArray[np.floating]:
        r""":math:`\Phi[rows][:, cols]` as a (len(rows), len(cols)) array.

        By symmetry the shorter index list is the one whose columns are
        computed; only the requested rows of each batch are kept.
        """
        rows = self._index(rows, "rows")
        cols = self._index(cols, "cols")
        transpose = rows.size < cols.size
        # the result itself (n^2 numbers for all rows and columns; twice that with the transposed copy); each
        # batch of columns is guarded by columns()
        memory_guard((2 if transpose else 1) * rows.size * cols.size * np.dtype(self.dtype).itemsize,
                     f"Phi[rows][:, cols] ({rows.size} x {cols.size})",
                     "request fewer rows or columns at a time (columns(idx, out=...) writes into a numpy.memmap).")
        a, b = (cols, rows) if transpose else (rows, cols)
        out = np.empty((a.size, b.size), dtype=self.dtype)
        batch = self._batch(batch_size, self.dtype)
        for s in range(0, b.size, batch):  # batches of columns bound the memory
            out[:, s: s + batch] = self.columns(b[s: s + batch], batch_size=batch)[a]
        return out.T.copy() if transpose else out

    def diagonal(self, *, batch_size: int | None = None, max_nodes: int = TOARRAY_MAX_NODES) -> NDArray[np.floating]:
        r"""The diagonal :math:`\Phi_{ii}` (n column computations; refused above ``max_nodes`` nodes).

        Each diagonal entry needs a whole column, so this is as much work as :meth:`toarray` (quadratic in n:
        41 s and 1.7 GB at n = 20000 on a path graph, n = 200000 never finished) and has the same default
        bound, ``max_nodes=20000``.  For a few nodes use ``columns(idx)[idx, np.arange(len(idx))]``.
        """
        n = self.shape[0]
        max_nodes = check_scalar(max_nodes, "max_nodes", kind="int", low=1)
        if n > max_nodes:
            work = "" if self.order is None else f", {self.order} products with L per batch of columns"
            raise ValueError(
                f"diagonal() computes all {n} columns of the kernel (as much work as toarray(): {float(n) * n:.3g} "
                f"entries{work}), above max_nodes={max_nodes}; use columns(idx)[idx, np.arange(len(idx))] for the "
                "nodes you need, or raise max_nodes knowingly.")
        d = np.empty(n, dtype=self.dtype)
        batch = self._batch(batch_size, self.dtype)
        for s in range(0, n, batch):  # batches of columns bound the memory
            cols = np.arange(s, min(n, s + batch))
            C = self.columns(cols, batch_size=batch)
            d[cols] = C[cols, np.arange(cols.size)]
        return d

    def toarray(self, *, max_nodes: int = TOARRAY_MAX_NODES) -> NDArray[np.floating]:
        r"""The dense n-by-n kernel matrix (refused above ``max_nodes`` nodes, default 20000 = 3.2 GB)."""
        n = self.shape[0]
        max_nodes = check_scalar(max_nodes, "max_nodes", kind="int", low=1)
        if n > max_nodes:
            raise ValueError(
                f"toarray() would build a dense {n} x {n} kernel ({8 * n * n / 2**30:.1f} GB), above max_nodes="
                f"{max_nodes}; use columns(idx) / submatrix(rows, cols), or raise max_nodes knowingly."
            )
        if self.method == "exact":
            phis, U = self._eig
            return ((U * phis) @ U.T).astype(self.dtype)
        return self.columns(np.arange(n))
