r"""Node reordering and the prepared operator the spectral filters run on.

Sparse products on a graph given in random node order gather the rows of the
signal block from all over memory; reverse Cuthill-McKee (RCM,
:func:`scipy.sparse.csgraph.reverse_cuthill_mckee`) renumbers the nodes so
that neighbours get nearby numbers, and the gathered rows stay in cache.  On a
10^6-node 3-D kNN graph that makes a 16-column product about 6x faster.

:class:`PreparedOperator` holds ``P L P^T`` (CSR, sorted, 32-bit indices when
they fit, in the compute dtype) with the permutation, and maps signals in and
out, so that every caller gets results in the user's node order.
"""

import copy
import time

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from scipy.sparse import csgraph

try:
    from numba import njit, prange
except ImportError as exc:  # pragma: no cover
    raise ImportError("graphrkhs needs numba (pip install numba)") from exc

from .spmm import fused_step, gather_rows, seal_csr
from .validation import check_csr_structure, check_index_array

__all__ = []

# Below this many nodes the whole signal block stays in cache: reordering
# cannot pay for itself, and the compiled kernel is not worth its start-up.
REORDER_MIN_NODES = 20_000
NUMBA_MIN_ENTRIES = 20_000   # n * m below which SciPy's product is used
# A node order whose mean |i - j| over the stored entries is below this
# fraction of n is already local (e.g. a grid, or an RCM-ordered input).
LOCAL_ORDER_FRACTION = 0.01


def mean_index_distance(L, max_rows=100_000):
    """Mean :math:`|i - j|` over the stored entries of a CSR matrix (a cheap locality measure).

    Evaluated on at most ``max_rows`` evenly spaced rows.
    """
    if L.nnz == 0:
        return 0.0
    n = L.shape[0]
    step = max(1, n // max_rows)
    sample = np.arange(0, n, step)
    starts, stops = L.indptr[sample], L.indptr[sample + 1]
    counts = (stops - starts).astype(np.int64)
    if counts.sum() == 0:
        return 0.0
    rows = np.repeat(sample, counts)
    pos = np.repeat(starts - np.concatenate([[0], np.cumsum(counts)[:-1]]), counts) + np.arange(counts.sum())
    return float(np.abs(rows - L.indices[pos].astype(np.int64)).mean())


# Rows longer than this are sorted by merge sort instead of insertion sort in _permute_csr.
_INSERTION_MAX = 64


@njit(parallel=True, cache=True, nogil=True)
def _permute_csr(indptr, indices, data, perm, iperm, new_indptr, new_indices, new_data):
    n = perm.shape[0]
    for r in prange(n):
        src = perm[r]
        start = indptr[src]
        length = indptr[src + 1] - start
        dst = new_indptr[r]
        if length > _INSERTION_MAX:
            # a hub's row: insertion sort is quadratic in its length (a star's 32000-edge hub took 1.6 s,
            # a 10^6-edge one would take about half an hour); a stable merge sort keeps duplicates in order
            cols = np.empty(length, dtype=np.int64)
            for q in range(length):
                cols[q] = iperm[indices[start + q]]
            order = np.argsort(cols, kind="mergesort")
            for q in range(length):
                new_indices[dst + q] = cols[order[q]]
                new_data[dst + q] = data[start + order[q]]
            continue
        for q in range(length):  # insertion sort by new column index (rows are short)
            col = iperm[indices[start + q]]
            val = data[start + q]
            pos = dst + q
            while pos > dst and new_indices[pos - 1] > col:
                new_indices[pos] = new_indices[pos - 1]
                new_data[pos] = new_data[pos - 1]
                pos -= 1
            new_indices[pos] = col
            new_data[pos] = val


def permute_symmetric(L, perm):
    r"""``L[perm][:, perm]`` as a sorted CSR array (compiled, parallel)."""
    n = L.shape[0]
    # The compiled permutation indexes with perm, iperm and L's index arrays unchecked.
    if L.shape[0] != L.shape[1]:
        raise ValueError(f"permute_symmetric: L must be square; got shape {L.shape}.")
    check_csr_structure(L, "L")
    perm = check_index_array(perm, n, "perm")
    if perm.shape != (n,) or np.bincount(perm, minlength=n).max(initial=1) != 1:
        raise ValueError(f"perm must be a permutation of 0..{n - 1}.")
    iperm = np.empty_like(perm)
    iperm[perm] = np.arange(n, dtype=perm.dtype)
    counts = np.diff(L.indptr)[perm]
    new_indptr = np.zeros(n + 1, dtype=L.indptr.dtype)
    np.cumsum(counts, out=new_indptr[1:])
    new_indices = np.empty_like(L.indices)
    new_data = np.empty_like(L.data)
    _permute_csr(L.indptr, L.indices, L.data, perm.astype(L.indices.dtype), iperm.astype(L.indices.dtype),
                 new_indptr, new_indices, new_data)
    out = sp.csr_array((new_data, new_indices, new_indptr), shape=L.shape)
    out.has_sorted_indices = True
    return out, iperm


def _arrays_of(M):
    """The NumPy arrays holding a matrix's entries (its index and data arrays, or M itself)."""
    if isinstance(M, np.ndarray):
        return [M]
    found = [getattr(M, name, None) for name in ("indices", "indptr", "data", "row", "col", "offsets")]
    found += list(getattr(M, "coords", None) or ())
    return [a for a in found if isinstance(a, np.ndarray)]


def _compact(L, dtype):
    """CSR with sorted 32-bit indices (when they fit) and data in ``dtype``.

    The index arrays of the result are the operator's own (copied when they
    would share memory with the caller's ``L``): they are checked once here
    and the compiled kernels trust them from then on, so an in-place change to
    the caller's matrix must not reach them (it used to: a GraphKernel applied
    after ``L.indices[i] = n + 10**8`` read out of bounds and crashed the
    interpreter).  The data are copied likewise, so that such a change cannot
    silently alter an operator whose bounds were computed from the old values.
    """
    given = L
    L = sp.csr_array(L)
    if L.dtype.kind not in "fiub":
        # astype(float) below would drop an imaginary part with only NumPy's ComplexWarning
        raise TypeError(f"L must have real entries; got dtype {L.dtype}.")
    check_csr_structure(L, "L")
    if not L.has_sorted_indices:
        L = L.copy()
        L.sort_indices()
    index_dtype = np.int32 if max(L.nnz, L.shape[0]) < 2**31 - 1 else np.int64
    indices = L.indices.astype(index_dtype, copy=False)
    indptr = L.indptr.astype(index_dtype, copy=False)
    data = L.data.astype(dtype, copy=False)
    theirs = _arrays_of(given)
    indices, indptr, data = (arr.copy() if any(np.may_share_memory(arr, a) for a in theirs) else arr
                             for arr in (indices, indptr, data))
    out = sp.csr_array((data, indices, indptr), shape=L.shape)
    out.has_sorted_indices = True
    return seal_csr(out)


class PreparedOperator:
    """A Laplacian ready for repeated products: reordered, compacted, typed.

    Parameters
    ----------
    L : sparse matrix or LinearOperator (n, n)
    dtype : float32 or float64
        The compute dtype.
    reorder : {"auto", True, False}
        ``"auto"`` applies RCM when n >= :data:`REORDER_MIN_NODES` and the
        given order is not already local (mean index distance above
        :data:`LOCAL_ORDER_FRACTION` n), and keeps it only if it at least
        halves that distance.
    backend : {"auto", "numba", "scipy"}
        ``"auto"`` uses the compiled kernel when ``n * m`` reaches
        :data:`NUMBA_MIN_ENTRIES`, SciPy's product below.

    Attributes
    ----------
    perm : ndarray or None
        Internal node r is the user's node ``perm[r]``.
    reorder_time : float
        Seconds spent choosing and applying the permutation.
    """

    def __init__(self, L, dtype, reorder="auto", backend="auto"):
        self.dtype = np.dtype(dtype)
        self.backend = backend
        self.shape = L.shape
        self.perm = None
        self.iperm = None
        self.reorder_time = 0.0
        if isinstance(L, spla.LinearOperator):
            self.is_matrix = False
            self.L = L
            return
        self.is_matrix = True
        t0 = time.perf_counter()
        L = _compact(L, self.dtype)
        n = L.shape[0]
        if reorder is True or (reorder == "auto" and n >= REORDER_MIN_NODES):
            before = mean_index_distance(L)
            if reorder is True or before > LOCAL_ORDER_FRACTION * n:
                perm = csgraph.reverse_cuthill_mckee(L, symmetric_mode=True).astype(np.int64)
                Lp, iperm = permute_symmetric(L, perm)
                if reorder is True or mean_index_distance(Lp) <= 0.5 * before:
                    L, self.perm, self.iperm = Lp, perm, iperm
        self.reorder_time = time.perf_counter() - t0
        self.L = L

    def astype(self, dtype):
        """The same operator (and permutation) computing in another dtype."""
        dtype = np.dtype(dtype)
        if dtype == self.dtype:
            return self
        new = copy.copy(self)
        new.dtype = dtype
        if self.is_matrix:
            new.L = sp.csr_array((self.L.data.astype(dtype), self.L.indices, self.L.indptr), shape=self.shape)
            new.L.has_sorted_indices = True
        return new

    # -- signals in and out -------------------------------------------------
    def to_internal(self, X, copy=False):
        """(n, m) block in internal order, C-contiguous, compute dtype (a new array if ``copy``)."""
        if np.ndim(X) != 2 or X.shape[0] != self.shape[1]:
            # the permuted gather only checks rows < X.shape[0]: n + 10 rows came back cut to n, no error
            raise ValueError(f"the signal block must have shape ({self.shape[1]}, m); got {np.shape(X)}.")
        if self.perm is not None:
            return gather_rows(X, self.perm, dtype=self.dtype)
        Y = np.ascontiguousarray(X, dtype=self.dtype)
        if copy and np.shares_memory(Y, X):
            Y = Y.copy()
        return Y

    def to_user(self, Y):
        """Back to the user's node order (works on (n, ...) and (F, n, ...) blocks along ``axis``)."""
        if self.perm is None:
            return Y
        node_axis = 1 if Y.ndim == 3 else 0
        if Y.shape[node_axis] != self.shape[0]:
            # the permuted gather only checks rows < len(Y): a longer block came back cut to n rows
            raise ValueError(f"the internal block must have {self.shape[0]} rows (nodes); got shape {Y.shape}.")
        if Y.ndim == 2:
            return gather_rows(Y, self.iperm)
        return Y[..., self.iperm, :] if Y.ndim == 3 else Y[self.iperm]

    def internal_index(self, idx):
        """Internal numbers of the user's nodes ``idx``."""
        return idx if self.perm is None else self.iperm[idx]

    # -- products -------------------------------------------------------------
    def use_numba(self, m):
        if not self.is_matrix or self.backend == "scipy":
            return False
        if self.backend == "numba":
            return True
        return self.shape[0] * m >= NUMBA_MIN_ENTRIES

    def step(self, a, b, alpha, beta, gamma, cur, out, X=None, weights=None, R=None):
        r"""``out = alpha (a L cur + b cur) + beta out + gamma X``; ``R[f] += weights[f] out`` (internal order)."""
        if self.use_numba(cur.shape[1]):
            return fused_step(self.L, a, b, alpha, beta, gamma, cur, out, X, weights, R)
        prod = self.L @ cur if self.is_matrix else self.L.matmat(cur)
        prod = np.asarray(prod, dtype=self.dtype)
        if a != 1:
            prod *= self.dtype.type(a)
        if b != 0:
            prod += self.dtype.type(b) * cur
        if alpha != 1:
            prod *= self.dtype.type(alpha)
        if beta != 0:
            prod += self.dtype.type(beta) * out
        if gamma != 0 and X is not None:
            prod += self.dtype.type(gamma) * X
        out[...] = prod
        if weights is not None:
            for f in range(weights.shape[0]):  # loop over the (few) filters of a bank
                R[f] += weights[f] * out
        return out

    def matmat(self, cur, out=None):
        """``L @ cur`` in internal order."""
        if out is None:
            out = np.empty_like(cur)
        return self.step(1.0, 0.0, 1.0, 0.0, 0.0, cur, out)
