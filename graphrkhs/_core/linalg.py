r"""Dense linear algebra shared by the kernel and solver layers.

Kernel-type matrices reach the solvers either as arrays or as operators that
apply themselves blockwise (:class:`graphrkhs.KernelOperator`, a
:class:`scipy.sparse.linalg.LinearOperator`); the helpers here treat both
alike by duck typing (``matmat`` / ``toarray`` / ``shape``), so that this
module needs no higher layer.
"""

import contextlib
import contextvars
import functools

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from .validation import ConvergenceWarning, check_matrix, memory_guard, warn

__all__ = ["apply_matrix", "dense_matrix", "n_rows", "psd_solve", "psd_part", "check_square", "check_solution",
           "rounding_floor", "symmetry_gap", "symmetry_rtol", "operator_symmetry_rtol", "reuses_operator_symmetry",
           "lanczos_tridiagonal", "small_dense_threads", "guarded_sparse_product",
           "POWER_LOG2_MAX", "power_growth_guard", "check_power_entries"]

#: Dense factorizations of at most this order run on one BLAS thread (:func:`small_dense_threads`).  2048
#: covers the LOO engine's kernels of the digits with every class labeled (l = 1730): at 512 their
#: eigendecompositions ran on two threads and took 4-19 s each at load 3-4 against 0.6 s on one.
SMALL_DENSE_ORDER = 2048

_BLAS_CONTROLLER = None


def small_dense_threads(order):
    """A context that runs BLAS on one thread for a dense problem of ``order`` <= ``SMALL_DENSE_ORDER``.

    For such orders a second BLAS thread gains little on an idle machine, and on a
    shared one OpenBLAS's threads spin waiting for each other: an eigendecomposition
    of order 64 / 256 / 1000 took 12.6 / 1101 / 3730 ms with two threads against
    1.3 / 23 / 484 ms with one at load 10 on 2 cores, and a LapRLS fit on 30 points
    (about 130 small eigendecompositions in its selection) 10-15x longer.  At order 1730 (the
    digits with 173 labels per class) it took 4.3-18.6 s with two threads against 0.62-0.66 s with
    one at load 3-4 (order 3000: 1.8-36 s against 3.2-3.6 s): ``RLSClassifier().fit`` there ran
    over 120 s; an idle machine loses at most the second core's share (under 2x) on orders up to 2048.  The same
    rule as the Lanczos reorthogonalization (:mod:`graphrkhs.spectral`).  Larger
    orders keep the caller's thread settings.  The controller (a scan of the loaded
    libraries, about 1 ms) is built once; entering the limit costs about 60 us.
    """
    global _BLAS_CONTROLLER
    if order > SMALL_DENSE_ORDER:
        return contextlib.nullcontext()
    if _BLAS_CONTROLLER is None:
        from threadpoolctl import ThreadpoolController
        _BLAS_CONTROLLER = ThreadpoolController()
    return _BLAS_CONTROLLER.limit(limits=1, user_api="blas")


def guarded_sparse_product(A, B, what, alternative):
    """``A @ B`` for sparse A, B after a memory estimate of the product (:func:`memory_guard`).

    Products of sparse Laplacians fill in (powers of L: a k-hop pattern, n x n after a few steps on a kNN
    graph).  Row i of the product has at most min(n_cols, sum of B's row lengths over row i of A)
    nonzeros; 32 bytes each (values, int64 column indices, and a copy made by a later conversion).
    """
    A = sp.csr_array(A)
    B = sp.csr_array(B)
    pattern = sp.csr_array((np.ones(A.nnz), A.indices, A.indptr), shape=A.shape)
    bound = float(np.minimum(pattern @ np.diff(B.indptr).astype(np.float64), B.shape[1]).sum())
    memory_guard(32.0 * bound, f"{what} (up to {bound:.3g} nonzeros: products of sparse Laplacians fill in, up to "
                 f"{float(A.shape[0]) * float(B.shape[1]):.3g})", alternative)
    return A @ B


#: log2 of the largest entry a power of a Laplacian may reach (:func:`power_growth_guard`,
#: :func:`check_power_entries`): 2**1000, 2**24 below float64's overflow, so that the penalty's consumers
#: (gamma-scaled sums of n**2 products with kernel entries) stay finite too.
POWER_LOG2_MAX = 1000.0


def _power_message(p, kind, found):
    fix = "use a smaller laplacian_power"
    if kind == "combinatorial":
        fix += " or laplacian='normalized' (its eigenvalues are <= 2, so its powers grow at most like 2**p)"
    return (f"laplacian_power={p}: {found}, beyond the 2**{POWER_LOG2_MAX:g} that float64 arithmetic on the penalty "
            f"can carry (the entries of L**p grow like lambda_max**p and would overflow to inf/NaN); {fix}.")


def power_growth_guard(L, p, kind, scale=1.0):
    r"""Refuse before any product when the entries of ``scale``-weighted :math:`L^p` surely exceed 2**1000.

    ``L`` is the symmetric Laplacian (combinatorial or normalized; for the random-walk penalty
    :math:`D^{1/2} N^p D^{1/2}` pass the normalized N and ``scale`` the smallest positive degree).
    :math:`L^p` is positive semidefinite, so its largest entry is on its diagonal and is at least
    trace / n >= scale * lambda_max**p / n; lambda_max is bounded below by the Rayleigh quotients
    of :math:`e_i` and :math:`e_i - e_j` over the edges (exact lower bounds, so this never refuses
    a power whose entries would fit: without it a p = 10**6 ran for hours before overflowing).
    """
    L = sp.csr_array(L).tocoo()
    n = L.shape[0]
    if n == 0 or L.nnz == 0 or scale <= 0:
        return
    diag = np.asarray(L.diagonal(), dtype=np.float64)
    lam = float(diag.max()) if diag.size else 0.0
    off = L.row != L.col
    if off.any():
        i, j, v = L.row[off], L.col[off], np.asarray(L.data[off], dtype=np.float64)
        lam = max(lam, float(np.max((diag[i] + diag[j] - 2.0 * v) / 2.0)))
    if not lam > 1.0:
        return
    log2_entry = p * np.log2(lam) + np.log2(scale) - np.log2(n)
    if log2_entry > POWER_LOG2_MAX:
        raise ValueError(_power_message(p, kind, f"the largest entry of L**{p} would be at least "
                                                 f"2**{log2_entry:.0f} (lambda_max >= {lam:.4g})"))


def check_power_entries(M, p, kind, power, root=False):
    """Refuse when the running power (``M = L**power``, or with ``root`` a factor R with
    :math:`R^T R = L^{power}`) has an entry of :math:`L^{power}` above 2**1000 or a non-finite one.

    For the root, the largest entry of the PSD :math:`R^T R` is its largest diagonal entry, the largest
    squared column norm of R (computed in units of max|R| so that it cannot overflow itself).
    """
    data = np.abs(sp.csr_array(M).data)
    if data.size == 0:
        return
    top = float(data.max())
    if not np.isfinite(top):
        log2_entry = np.inf
    elif top == 0.0:
        return
    elif root:
        R = sp.csr_array(M).tocoo()
        cols = np.bincount(R.col, weights=(np.abs(R.data) / top) ** 2, minlength=R.shape[1])
        log2_entry = np.log2(cols.max()) + 2.0 * np.log2(top)
    else:
        log2_entry = np.log2(top)
    if log2_entry > POWER_LOG2_MAX:
        found = ("an entry of L**{0} is not finite" if not np.isfinite(log2_entry)
                 else f"an entry of L**{{0}} is 2**{log2_entry:.0f}").format(power)
        raise ValueError(_power_message(p, kind, found))


def check_square(K, name="K", dtype=None):
    """K as a finite square (l, l) array, or an error naming ``name``: :func:`check_matrix` with ``square=True``."""
    return check_matrix(K, name, square=True, dtype=dtype)


#: Bytes of one float64 row block of a float32 matrix in :func:`apply_matrix` (mixed precision).
UPCAST_BLOCK_BYTES = 2**26


def apply_matrix(K, V):
    """``K @ V`` for an array, a sparse matrix or an operator with ``matmat`` (blockwise kernels).

    A float32 array times a float64 block accumulates in float64 (rows of K
    upcast in blocks of ``UPCAST_BLOCK_BYTES``, never a full float64 copy of K),
    so that a solver running in float64 on float32 data (:func:`~graphrkhs.laprls_fit`)
    is not limited by float32 products.
    """
    if hasattr(K, "matmat") and np.ndim(V) == 2:
        return K.matmat(V)
    if isinstance(K, np.ndarray) and K.dtype == np.float32 and np.asarray(V).dtype == np.float64 and K.ndim == 2:
        V = np.asarray(V)
        out = np.empty((K.shape[0],) + V.shape[1:], dtype=np.float64)
        rows = max(1, UPCAST_BLOCK_BYTES // (8 * max(1, K.shape[1])))
        for s in range(0, K.shape[0], rows):   # row blocks bound the float64 copy
            out[s:s + rows] = K[s:s + rows].astype(np.float64) @ V
        return out
    return K @ V


def dense_matrix(K):
    """The dense array of K (``K.toarray()`` for operators and sparse matrices).

    An operator with a ``dense_view()`` (a kernel operator with a dense cache) gives its cache read-only instead of
    a copy: the callers read K, and a copy of the cache doubled a direct solve's n x n memory."""
    view = getattr(K, "dense_view", None)
    if callable(view):
        return view()
    return K.toarray() if hasattr(K, "toarray") else np.asarray(K)


def n_rows(K):
    """Number of rows of an array, sparse matrix or operator."""
    return K.shape[0] if hasattr(K, "shape") else np.asarray(K).shape[0]


def symmetry_rtol(dtype):
    r"""Relative asymmetry :math:`\max |A - A^T| / \max |A|` accepted as rounding in a matrix of ``dtype``.

    :math:`\max(10^{-10}, 10^{1-p})` with :math:`p` the dtype's decimal digits (``np.finfo(dtype).precision``,
    so :math:`10^{1-p}` is ten times its resolution):
    :math:`10^{-5}` for float32, :math:`10^{-2}` for float16 (one unit in its last place is
    :math:`2^{-10} \approx 10^{-3}`), and :math:`10^{-10}` for float64, long double and the exact integer and
    boolean dtypes -- the floor, since a float64 matrix assembled by sums of products in another order
    (a scaled :math:`D^{-1/2} A D^{-1/2}`, a Gram matrix) differs from its transpose by many units.
    """
    dtype = np.dtype(dtype)
    if dtype.kind != "f":
        return 1e-10
    return max(1e-10, float(f"1e{1 - np.finfo(dtype).precision}"))   # the decimal literal: 1e-5 exactly


def symmetry_gap(A, name="A", *, transpose=None):
    r"""``(max |A - A^T|, max |A|)`` of a square sparse matrix or array, as Python floats (0.0 when empty).

    O(nnz) for a sparse matrix; an array is compared in row blocks of about 4M entries, so that no
    temporary of A's size is formed.  Integer and boolean entries are compared in float64 (an int8
    difference wraps: 127 - (-1) is -128; uint8 reported 255 for a difference of 1; booleans have no
    subtraction).  A NaN entry, or infinities in mirror positions, give a NaN gap for arrays as for sparse
    matrices, so that ``gap <= tol`` is False for them (callers that test ``gap > tol`` check finiteness
    first).  A matrix that is not square is a ``ValueError`` naming ``name``.  The symmetry measure of the
    AMG set-up, conjugate gradients, the spectral filters' and ``lmax``'s checks, ``as_adjacency`` and
    ``laprls_fit``'s check of K, each with its own tolerance against the scale ``max |A|``; the kernels given
    to the leave-one-out engine and the selections are judged entry by entry in units of their diagonal
    instead (:func:`graphrkhs._core.loo.check_symmetric_kernel`).

    ``transpose``: a sparse A's transpose as a CSR matrix when the caller needs it anyway
    (``as_adjacency`` averages both directions), so that it is not formed twice.

    A :class:`scipy.sparse.linalg.LinearOperator` (no entries to compare) gets the dot test of one product
    with 8 fixed unit vectors z_i (PCG64 draws in [-1, 1) from a fixed seed, cast to A's dtype; within a call
    decorated with :func:`reuses_operator_symmetry`, once per operator object):
    ``(max_ij |z_i^T A z_j - z_j^T A z_i|, 2 max_i |A z_i|)``, to be compared with
    :func:`operator_symmetry_rtol`.  For a symmetric A the gap is rounding of the products; otherwise
    :math:`2 |z_i^T S z_j|`, S the skew part, non-zero but for a set of vectors of measure zero (the largest
    of 28 pairs: one pair can fall near 0; with one pair a random-walk Laplacian measured 2e-5).  Measured on
    10-NN graphs (:func:`~graphrkhs.knn_graph`) of 10^3 - 10^5 Gaussian 3-D points: random-walk Laplacians
    3.4e-4 to 3.6e-3 of the scale with these PCG64 vectors (2.8e-4 to 4.1e-3 with the earlier node-hash ones;
    about 1/sqrt(n) for unit vectors with spread entries),
    combinatorial and normalized ones 1e-16 (float64) and 4e-9 (float32; 1.6e-8 declared float64 around a
    float32 matrix, 100 nodes).  Both are computed in units of the largest entry of the products (exact for
    operators of any scale); where one of them would leave the float range in A's own units, the pair is
    returned in those units (the same ratio).  An operator that gives NaN or infinity for these finite
    vectors is a ``ValueError`` (its entries cannot be checked otherwise).
    """
    if isinstance(A, spla.LinearOperator):
        return _operator_symmetry_gap(A, name)
    shape = getattr(A, "shape", None) if sp.issparse(A) else np.shape(A)
    if shape is None or len(shape) != 2 or shape[0] != shape[1]:
        raise ValueError(f"{name} must be a square matrix; got shape {shape}.")
    A = A if sp.issparse(A) else np.asarray(A)
    as_float = None if A.dtype.kind in "fc" else np.float64    # integers and booleans: in float64
    if sp.issparse(A):
        A = sp.csr_array(A, dtype=as_float)
        with np.errstate(invalid="ignore"):          # inf - inf: NaN, the caller's finiteness check names it
            diff = sp.csr_array(A - (A.T if transpose is None else sp.csr_array(transpose, dtype=as_float)))
        diff.sum_duplicates()                             # our temporary; A (the caller's arrays) is not touched
        # max |a_ij| over the stored data when each entry is stored once (no copy of the index arrays)
        # (abs() of a matrix with duplicates sums them in place: on a copy, A shares the caller's arrays)
        scale = np.abs(A.data).max(initial=0.0) if A.has_canonical_format else (abs(A.copy()).max() if A.nnz else 0.0)
        return float(np.abs(diff.data).max(initial=0.0)), float(scale)
    n = A.shape[0]
    step = max(1, (1 << 22) // max(n, 1))
    gap = scale = 0.0
    for i in range(0, n, step):
        rows = np.asarray(A[i:i + step], dtype=as_float)
        cols = np.asarray(A[:, i:i + step], dtype=as_float).T
        # np.maximum, not max(): Python's max(0.0, nan) is 0.0, which hid a NaN
        with np.errstate(invalid="ignore"):
            gap = float(np.maximum(gap, np.abs(rows - cols).max(initial=0.0)))
        scale = float(np.maximum(scale, np.abs(rows).max(initial=0.0)))
    return gap, scale


#: Vectors of a LinearOperator's dot test (:func:`symmetry_gap`): the largest gap over their pairs.
_OPERATOR_DOT_VECTORS = 8
#: Floor of the relative tolerance of a LinearOperator's dot test (:func:`operator_symmetry_rtol`).
OPERATOR_SYMMETRY_RTOL = 1e-6


def operator_symmetry_rtol(dtype):
    """The relative tolerance of :func:`symmetry_gap`'s dot test of a LinearOperator: that of a matrix of
    ``dtype`` (:func:`symmetry_rtol`), but at least ``OPERATOR_SYMMETRY_RTOL`` = 1e-6.

    The test sees the rounding of the products, not of stored entries, and an operator may compute in a lower
    precision than its declared dtype: one declared float64 around a float32 matrix measured gaps of 4e-9 of the
    scale (1e-10 refused it), where random-walk Laplacians measure 1e-4 and above.
    """
    return max(symmetry_rtol(dtype), OPERATOR_SYMMETRY_RTOL)


#: Seed of the dot test's vectors (:func:`symmetry_gap` of a LinearOperator).
_OPERATOR_DOT_SEED = 0x5EED5
#: The dot tests of the public call under way (:func:`reuses_operator_symmetry`): id(A) -> (A, (gap, scale)),
#: or None outside such a call.  A context variable: each thread (and asyncio task) has its own.
_OPERATOR_GAPS = contextvars.ContextVar("graphrkhs_operator_symmetry_gaps", default=None)


def reuses_operator_symmetry(func):
    """Decorate a public function so that :func:`symmetry_gap` tests each LinearOperator object once per call.

    chebyshev_filter(lmax=None) tested the symmetry of an operator three times (itself, then ``lmax``, then
    ``check_psd_spectrum``) and lanczos_filter twice, each a product with 8 vectors (and, before, building
    them cost more than the product: 0.25 s at n = 1e6).  Within the outermost decorated call the pair
    ``(gap, scale)`` of an operator is kept (with the operator itself, so that its id is not reused) and
    returned again; each caller still compares it with its own tolerance.  Matrices are not concerned (their
    gap is O(nnz) and exact).  The memory ends with the call: a later call tests again.
    """
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        if _OPERATOR_GAPS.get() is not None:
            return func(*args, **kwargs)
        token = _OPERATOR_GAPS.set({})
        try:
            return func(*args, **kwargs)
        finally:
            _OPERATOR_GAPS.reset(token)
    return wrapper


def _returned_shape(A, X):
    """The shape of what A's own product gave for X, bypassing scipy's wrapper (whose reshape of a wrong-sized
    result fails with "cannot reshape array of size 99 into shape (100,1)", naming no argument): ``(kind, shape
    of the input, shape returned)``, or None when the product fails for another reason."""
    try:
        return "matmat", X.shape, np.shape(A._matmat(X))   # the default _matmat goes through matvec: fails again
    except Exception:
        pass
    try:
        return "matvec", X[:, 0].shape, np.shape(A._matvec(X[:, 0]))
    except Exception:
        return None


def operator_matmat(A, X, name):
    """``A.matmat(X)`` of a LinearOperator as an (n, m) ndarray, or a ``ValueError`` naming ``name`` and the shapes.

    The one check of a LinearOperator's products for every public entry point (the symmetry dot test that the
    spectral filters, ``lmax`` and the kernels run on an operator before any other product, and each product of
    :func:`~graphrkhs.conjugate_gradient` with ``A`` or ``M``): a ``matvec`` returning a vector of the wrong
    length, or a ``matmat`` a block of the wrong shape (the transpose (m, n) was reshaped into wrong numbers and
    refused as not symmetric), is refused here, before the heavy work.
    """
    n, m = A.shape[0], X.shape[1]
    try:
        Y = A.matmat(X)
    except ValueError as exc:
        found = _returned_shape(A, X)
        if found is None:
            raise
        kind, given, got = found
        want = (n,) + given[1:]
        if got == want or (kind == "matvec" and got == (n, 1)):
            raise
        raise ValueError(f"{name} (a LinearOperator of shape {A.shape}) returned an array of shape {got} from its "
                         f"{kind} of an input of shape {given}; expected shape {want}: {name}'s {kind} must return "
                         f"one value per row of {name} ({n}) for each input column.") from exc
    Y = np.asarray(Y)
    if Y.shape != (n, m):
        raise ValueError(f"{name} (a LinearOperator of shape {A.shape}) returned an array of shape {Y.shape} from its "
                         f"matmat of an input of shape {X.shape}; expected shape ({n}, {m}): {name}'s matmat must "
                         f"return one value per row of {name} ({n}) for each input column.")
    return Y


def _operator_symmetry_gap(A, name):
    shape = A.shape
    if len(shape) != 2 or shape[0] != shape[1]:
        raise ValueError(f"{name} must be a square matrix; got shape {shape}.")
    memo = _OPERATOR_GAPS.get()
    if memo is not None and id(A) in memo and memo[id(A)][0] is A:
        return memo[id(A)][1]
    result = _operator_dot_test(A, name)
    if memo is not None:
        memo[id(A)] = (A, result)
    return result


def _operator_dot_test(A, name):
    n = A.shape[0]
    if n == 0:
        return 0.0, 0.0
    dtype = np.float32 if np.dtype(A.dtype) == np.float32 else np.float64
    # any fixed vectors will do (an asymmetry is missed on a set of measure zero only): PCG64 draws cost a
    # quarter of node_hash_vector's (65 against 250 ms for 8 vectors of 1e6 entries), and nothing here needs
    # the same entries for a node whatever the partition (the distributed dot test has its own vectors)
    Z = np.random.default_rng(_OPERATOR_DOT_SEED).random((n, _OPERATOR_DOT_VECTORS))
    Z *= 2.0
    Z -= 1.0
    Z /= np.linalg.norm(Z, axis=0)
    Z = Z.astype(dtype)
    AZ = np.asarray(operator_matmat(A, Z, name), dtype=np.float64)
    if not np.isfinite(AZ).all():
        # the caller cannot read an operator's entries to name them (a symmetry error would mislead)
        raise ValueError(f"{name} (a LinearOperator) gave NaN or infinity for a finite vector; {name} must be finite.")
    Z = Z.astype(np.float64)
    # in units of A Z's largest entry: the norms squared entries below 1e-163 to 0 (a symmetric operator of
    # scale 1e-170 was refused, gap 1e-184 > 0 * rtol) and above 1e154 to inf (any gap passed)
    peak = float(np.abs(AZ).max())
    if peak == 0.0:
        return 0.0, 0.0
    AZ = AZ / peak
    M = Z.T @ AZ                                       # M_ij = z_i^T A z_j / peak
    gap_unit = float(np.abs(M - M.T).max())
    scale_unit = float(np.linalg.norm(AZ, axis=0).max() * 2.0)     # >= |A z_i| + |A z_j| for every pair
    with np.errstate(over="ignore", under="ignore"):
        gap, scale = gap_unit * peak, scale_unit * peak
    if np.isfinite(scale) and (gap > 0.0 or gap_unit == 0.0):
        return gap, scale
    return gap_unit, scale_unit                        # beyond the float range in A's units: the same ratio


def psd_solve(A, B):
    r"""Solve :math:`A X = B` for symmetric positive *semi*-definite A by Cholesky.

    A diagonal shift :math:`\epsilon I`, :math:`\epsilon = n\,\mathrm{eps}\,\max_i A_{ii}`
    (the size of the rounding error in forming A), makes the factorization
    exist when A is singular to working precision (Gaussian Gram matrices);
    it is raised 100-fold at most three times if Cholesky still fails.
    Directions damped by the shift carry functions of RKHS norm at rounding
    level, so the fitted function is unaffected.

    Parameters
    ----------
    A : ndarray of shape (n, n)
        Symmetric positive semidefinite.
    B : ndarray of shape (n,) or (n, k)

    Returns
    -------
    ndarray like B

    Raises
    ------
    numpy.linalg.LinAlgError
        When A is indefinite beyond rounding (Cholesky fails after the shifts).
    """
    A = np.asarray(A)
    if A.dtype.kind != "f":   # np.finfo of an integer dtype raised "data type ... not inexact"
        A = A.astype(np.float64)
    n = A.shape[0]
    if n == 0:
        return np.zeros_like(B)
    # the factor is one n x n copy (the shifted matrix is that copy: no n x n identity is formed)
    memory_guard(A.itemsize * n * n, f"the Cholesky factor of a {n} x {n} matrix",
                 "use fewer points (or a low-rank / Nystrom solver).")
    eps = np.finfo(A.dtype).eps
    top = float(np.max(np.abs(np.diag(A))))
    shift = 0.0
    for attempt in range(4):  # at most three growing shifts
        try:
            Ashift = np.array(A, order="F")   # Fortran order: LAPACK factors it in place, no second copy
            if shift:
                Ashift.flat[::n + 1] += shift
            c = sla.cho_factor(Ashift, lower=True, overwrite_a=True, check_finite=False)
            return sla.cho_solve(c, B, check_finite=False)
        except np.linalg.LinAlgError:
            shift = n * eps * max(top, np.finfo(A.dtype).tiny) * (100.0 ** attempt)
    raise np.linalg.LinAlgError(
        "the system matrix is not positive semidefinite (Cholesky failed even with a diagonal shift of "
        f"{shift:.1e}); check that the kernel is positive definite and the weights non-negative."
    )


def psd_part(A):
    r"""The positive semidefinite part :math:`A_+ = V \max(\Lambda, 0) V^T` of a symmetric matrix.

    :math:`A_+` is the PSD matrix nearest to A in the Frobenius norm.  A
    matrix that is PSD up to rounding (Cholesky of
    :math:`A + n\,\mathrm{eps}\max_i |A_{ii}|\, I` succeeds, :math:`n^3/3`
    flops) is returned as it is; the eigendecomposition (:math:`\approx 9 n^3`
    flops) is computed only when that Cholesky fails.

    Parameters
    ----------
    A : ndarray of shape (n, n)
        Symmetric (its symmetric part is used).

    Returns
    -------
    A_plus : ndarray of shape (n, n)
        A itself when it is PSD up to rounding, else its PSD part (float64).
    extremes : tuple of two floats or None
        None when A was returned, else its smallest and largest eigenvalues
        (the caller decides whether the negative part was beyond rounding).
    """
    A = np.asarray(A)
    n = A.shape[0]
    if n == 0:
        return A, None
    eps = float(np.finfo(A.dtype).eps) if A.dtype.kind == "f" else float(np.finfo(np.float64).eps)
    top = max(float(np.max(np.abs(np.diag(A)))), float(np.finfo(np.float64).tiny))
    # the Cholesky test works on one float copy of A, shifted on its diagonal (no n x n identity)
    trial = A.astype(A.dtype if A.dtype.kind == "f" else np.float64, order="F")
    memory_guard(trial.nbytes, f"the PSD test of a {n} x {n} matrix", "use fewer points.")
    trial.flat[::n + 1] += n * eps * top
    try:
        sla.cho_factor(trial, lower=True, overwrite_a=True, check_finite=False)
        return A, None
    except np.linalg.LinAlgError:
        pass
    del trial
    # eigh of the symmetric part: that matrix, V, the scaled V and the product, n x n float64 each
    memory_guard(4 * 8 * n * n, f"the PSD part of a {n} x {n} matrix (an eigendecomposition)", "use fewer points.")
    S = np.asarray(A, dtype=np.float64)
    w, V = np.linalg.eigh((S + S.T) / 2)
    Ap = (V * np.clip(w, 0.0, None)) @ V.T
    Ap += Ap.T.copy()
    Ap /= 2
    return Ap, (float(w[0]), float(w[-1]))


def relative_residuals(A, X, B):
    r"""Column-wise :math:`\|b - A x\| / \|b\|` (1 where b = 0 and x != 0, 0 where both vanish)."""
    B2 = _cols(B)
    X2 = _cols(X)
    if B2.shape[0] == 0:
        return np.zeros(B2.shape[1])
    return _relative(B2 - _cols(apply_matrix(A, X2)), B2)


def _cols(V):
    """V as a float64 (n, m) block ((n,) -> (n, 1); works for n = 0)."""
    V = np.asarray(V, dtype=np.float64)
    return V[:, None] if V.ndim == 1 else V


def _relative(R, B):
    R, B = _cols(R), _cols(B)
    # both norms in units of the column's largest entry (the ratio is unchanged): numpy's norm squares
    # the entries, which overflowed beyond ~1e154 (inf / inf = NaN, never above tol: the check passed)
    # and underflowed below ~1e-162 (0: a wrong solution measured as exact)
    unit = np.maximum(np.abs(R).max(axis=0, initial=0.0), np.abs(B).max(axis=0, initial=0.0))
    unit = np.where((unit > 0) & np.isfinite(unit), unit, 1.0)
    rn = np.linalg.norm(R / unit, axis=0)
    bn = np.linalg.norm(B / unit, axis=0)
    return np.where(bn > 0, rn / np.where(bn > 0, bn, 1.0), np.where(rn > 0, 1.0, 0.0))


def rounding_floor(A, X, B, eps=None):
    r"""Column-wise :math:`\epsilon\,\|\,|A|\,|x|\,\| / \|b\|`: the relative residual left by the rounding
    of the product :math:`A x` alone, below which no solve in that precision can push
    :math:`\|b - A x\| / \|b\|` (a backward-stable one lands about there).

    ``A``: an array or sparse matrix (its entrywise absolute value is taken); ``eps``: the unit
    roundoff of the working precision (default float64's).  The norms are scale-safe (see
    :func:`relative_residuals`).  The one measure of attainable accuracy of
    :func:`~graphrkhs._core.cg.conjugate_gradient`'s warning and :func:`check_solution`'s.
    """
    eps = float(np.finfo(np.float64).eps) if eps is None else float(eps)
    B2 = _cols(B)
    if B2.shape[0] == 0:
        return np.zeros(B2.shape[1])
    absA = abs(A) if sp.issparse(A) else np.abs(np.asarray(A))
    return eps * _relative(apply_matrix(absA, np.abs(_cols(X))), B2)


def check_solution(A, X, B, tol, what, fix, product=True, floor=None):
    r"""Residual check after a direct solve of :math:`A X = B`; returns the worst relative residual.

    Non-finite entries in X raise ``numpy.linalg.LinAlgError`` (never NaN
    returned); a relative residual :math:`\|b - Ax\| / \|b\|` above ``tol``
    in some column emits a :class:`~graphrkhs.ConvergenceWarning`.  ``what``
    names the system, ``fix`` says what to do.  A backward-stable
    factorization leaves a residual of about :math:`\epsilon\,\kappa(A)`
    relative to b at worst, so the warning means a condition number near
    ``tol`` / eps: the answer may have lost all its digits.

    The floor of :func:`rounding_floor`, :math:`\epsilon \| |A| |x| \| / \|b\|`,
    decides which warning: when every column above ``tol`` lies within 10 times
    it, the solve reached the accuracy float64 allows on this system and the
    warning says that ``tol`` is below it (loosen tol, rescale or regularize),
    as :func:`~graphrkhs._core.cg.conjugate_gradient`'s does; above that, the
    factorization itself lost accuracy and the warning gives ``fix`` (and the
    floor, for comparison).  Without A (``product=False``) the caller passes
    ``floor``, a callable of the boolean mask of failing columns returning
    their floors (called only when some column fails); without it there is no
    floor and every failure reads as ill-conditioning.
    """
    if not np.isfinite(X).all():
        raise np.linalg.LinAlgError(f"{what}: the direct solve produced NaN or infinity (the matrix is singular "
                                    f"to working precision); {fix}")
    # product=False: X is already A X (computed by the caller, e.g. after A was overwritten by its LU)
    res = relative_residuals(A, X, B) if product else _relative(_cols(B) - _cols(X), B)
    worst = float(res.max()) if res.size else 0.0
    if worst > tol:
        head = f"{what}: the direct solve left a relative residual of {worst:.2e}, above tol={tol:g}"
        if (product and A is not None) or floor is not None:
            bad = res > tol
            floor = rounding_floor(A, _cols(X)[:, bad], _cols(B)[:, bad]) if floor is None else \
                np.asarray(floor(bad), dtype=np.float64)
            top = float(floor.max())
            if np.all(res[bad] <= 10 * floor):
                warn(f"{head}, but float64 cannot do better on this system: the rounding of the product A x alone "
                     f"is {top:.1e} of |b| here (eps |A| |x| / |b|), so tol={tol:g} is at or below its attainable "
                     f"accuracy (the solve is backward stable); loosen tol, or rescale / regularize the system.",
                     ConvergenceWarning)
                return worst
            head += f" and far above the rounding of the product A x alone ({top:.1e} of |b|)"
        warn(f"{head} (the matrix is ill-conditioned); {fix}", ConvergenceWarning)
    return worst


def node_hash_vector(ids, seed=0):
    r"""A pseudo-random vector in [-1, 1) indexed by global node ids: the same entries whichever process
    holds a node and however the nodes are split (splitmix64 of the id and the seed).

    The start vector of a distributed Lanczos run: drawn per process from one seed, the same numbers
    would repeat on every process, a vector with the symmetry of the partition (mirror halves on two
    processes), blind to the eigenvectors of the other symmetry class.
    """
    z = np.asarray(ids, dtype=np.int64).astype(np.uint64)
    with np.errstate(over="ignore"):
        z = z + np.uint64((int(seed) * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) % 2**64)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(11)).astype(np.float64) * 2.0 ** -52 - 1.0


def lanczos_tridiagonal(matvec, n, steps, rng, allreduce=None, start=None):
    r"""A short Lanczos run on a symmetric operator: the tridiagonal :math:`T_k = Q_k^T A Q_k`.

    ``matvec(q)`` returns :math:`A q` (float64, shape (n,)); the start vector
    is Gaussian from ``rng``.  Full reorthogonalization, twice per step (a
    handful of vectors: no ghost Ritz values).  Stops early on an invariant
    subspace (or a non-finite product).  Returns ``(alpha, beta)``: the
    diagonal (length k) and the k off-diagonal norms, ``beta[-1]`` being the
    norm of the last residual, so that the largest Ritz value :math:`\theta`
    with eigenvector s of :math:`T_k` satisfies :math:`\|A v - \theta v\| =
    \beta_k |s_k|` (the residual bound used by the callers).  The one Lanczos
    of the spectral bounds in :mod:`graphrkhs._core.amg` and
    :func:`graphrkhs.spectral.lmax`'s given-bound check.

    For a row-distributed operator (:mod:`graphrkhs.distributed`) ``n`` is
    the number of this process's rows, ``steps`` must already be capped by
    the global size, and ``allreduce(a)`` sums an array over all processes:
    every inner product is a local partial sum passed through it (the same
    code serially and distributed; ``rng`` must draw the same numbers on
    every process for the run to be reproducible).  ``start``: the start
    vector (this process's rows) instead of a draw from ``rng``; a
    distributed run should pass one indexed by global node
    (:func:`node_hash_vector`).
    """
    reduce = (lambda a: a) if allreduce is None else (lambda a: np.asarray(allreduce(a), dtype=np.float64))
    k = max(1, int(steps) if allreduce is not None else min(int(steps), n))
    # the Lanczos basis is (k + 1) x n: n^2 doubles when steps reaches n (a public steps= passes through)
    memory_guard(8 * (k + 1) * n, f"the Lanczos basis of {k} steps on {n} rows", "ask for fewer steps.")
    Q = np.zeros((k + 1, n))
    q = rng.standard_normal(n) if start is None else np.asarray(start, dtype=np.float64).reshape(n)
    Q[0] = q / np.sqrt(reduce(np.array([q @ q]))[0])
    alpha = np.zeros(k)
    beta = np.zeros(k)
    m = k
    for j in range(k):
        w = np.asarray(matvec(Q[j]), dtype=np.float64).ravel()
        alpha[j] = reduce(np.array([Q[j] @ w]))[0]
        w -= Q[: j + 1].T @ reduce(Q[: j + 1] @ w)
        w -= Q[: j + 1].T @ reduce(Q[: j + 1] @ w)
        beta[j] = np.sqrt(reduce(np.array([w @ w]))[0])
        if not np.isfinite(beta[j]) or beta[j] <= 1e-12 * max(abs(alpha[: j + 1]).max(), 1e-300):
            m = j + 1
            break
        Q[j + 1] = w / beta[j]
    return alpha[:m], beta[:m]
