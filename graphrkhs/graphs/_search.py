"""k-nearest-neighbour search backends used by :func:`graphrkhs.knn_graph`.

Three exact/approximate paths, each returning ``(distances, indices)`` of
shape ``(n, k)`` sorted by increasing distance and never containing the
query point itself.  The exact paths (and the sparse search) return the same
final distances (:func:`_exact_rerank`, :func:`sparse_pair_sq_distances`) and
order neighbours by (distance, tie rank) (:func:`_order_ties`), the tie rank of
a point being its position in the lexicographic order of the (rescaled, as
searched) rows' values, exact copies by index (:func:`tie_ranks`): a tie goes
to the point whose coordinates come first, whatever the order of the rows, so
the exact graphs are permutation-equivariant (up to swapping identical points).
The approximate paths follow no tie rule:

* ``kd_tree`` -- SciPy's :class:`~scipy.spatial.cKDTree`, queried in the
  tree's own leaf order (spatially sorted queries keep the tree's nodes in
  cache; on 10^6 3-D points this is markedly faster than the user's order)
  with both cores.
* ``brute`` -- blocked distance products on BLAS.  The candidate search runs
  in float32 (twice the GEMM throughput), keeps ``k + extra`` candidates per
  row with a parallel compiled top-k kernel, re-ranks them with exact float64
  distances and *certifies* each row with a rounding-error bound; rows whose
  certificate fails (near-ties at the screening boundary) are recomputed in
  float64.  The result is therefore exact, not approximate.
* ``pynndescent`` / ``hnswlib`` -- approximate search from the optional
  ``ann`` extra.

:func:`knn_search_report` is what :func:`graphrkhs.knn_graph` calls: it
resolves ``algorithm="auto"`` (:func:`auto_algorithm`), and after an
approximate search estimates its recall on a random sample of points against
exact search of those points (:func:`estimate_recall`), falling back to exact
search when the estimate is below :data:`RECALL_TARGET`.  :func:`knn_search`
itself stays exact for ``"auto"`` (the kernels and benchmarks use it as an
exact oracle).
"""

import importlib.util
import warnings

import numpy as np
import scipy.sparse as sp

from .._core.progress import _Progress, logger, progress_bar, progress_enabled
from .._core.validation import check_finite_array, check_index_array, memory_guard, power_of_two_exponent, warn

try:  # numba is a hard dependency, but keep import errors readable
    import numba
    from numba import njit, prange
except ImportError as exc:  # pragma: no cover
    raise ImportError("graphrkhs needs numba (pip install numba)") from exc

__all__ = []

# Below this dimension a kd-tree beats blocked BLAS distances on exact search.
KD_TREE_MAX_DIM = 16

# ``algorithm="auto"`` of knn_graph takes approximate search (pynndescent, when installed) for
# at least this many points in more than KD_TREE_MAX_DIM dimensions.  Exact brute force costs
# ~ n^2 d; at n = 70000, d = 784 (Fashion-MNIST) it takes ~54 s on 2 quiet cores, pynndescent
# ~5-20 s once compiled (benchmarks/results/knn_auto.md).  numba compiles pynndescent's kernels the
# first time (~30-75 s on 2 cores); later processes load most of them from numba's on-disk cache
# (cache_pynndescent_kernels) and still compile the few that take the distance function as an
# argument (~10-15 s), so below ~50000 points exact search is about as fast in a fresh process and is kept.
ANN_MIN_SAMPLES = 50_000

# The recall@k that an approximate result must reach (estimated on RECALL_SAMPLE random query
# points against exact search of those points); below it "auto" falls back to exact search.
RECALL_TARGET = 0.95
RECALL_SAMPLE = 300

# Before the full approximate index, ``algorithm="auto"`` runs the approximate backend on a pilot of
# PILOT_SAMPLES random points and estimates its recall there (against exact search within the pilot):
# below RECALL_TARGET it takes exact search straight away.  NN-descent's recall falls as the number of
# points grows on one distribution (measured, k = 10, pynndescent: 50000 x 32 Gaussian points 0.935 /
# 0.896 / 0.858 / 0.72 on 2500 / 5000 / 10000 / all of them; Fashion-MNIST 1.000 / 0.998 / 0.996 / 0.985),
# so a pilot that misses the target predicts a miss on all the points, whose index, recall estimate and
# exact fallback then cost more than exact search alone (the Gaussian case, load 7-12: 44 s against
# 23 s; with the pilot 29 s).  A pilot that meets it is no guarantee: the full result is still estimated
# and replaced when it misses.
# The pilot costs about PILOT_SAMPLES / n of the full index (benchmarks/report/01_graphs.md).
PILOT_SAMPLES = 5000

# Bytes of one float32 distance tile in the brute-force path.
_TILE_BYTES = 256 * 2**20

# With a progress bar, the kd-tree is queried in slices of at least this many points.
_KD_PROGRESS_BLOCK = 20000


def drop_self(indices, distances, n_neighbors):
    """Remove each query's own index from ``(n, k + 1)`` results.

    Where a point has ``k + 1`` or more exact duplicates its own index may be
    missing from its list; the farthest column is dropped instead, so every
    row keeps exactly ``n_neighbors`` entries.
    """
    n = indices.shape[0]
    is_self = indices == np.arange(n)[:, None]
    missing = ~is_self.any(axis=1)
    is_self[missing, -1] = True
    # A row may hold its own index twice only if the backend is broken.
    keep = ~is_self
    return (indices[keep].reshape(n, n_neighbors), distances[keep].reshape(n, n_neighbors))


def _lexsort_rows(dist, idx, tie=None):
    """Rows of ``(dist, idx)`` sorted by (distance, tie rank): ``tie[idx]`` (:func:`tie_ranks`), or the index
    itself when ``tie`` is None."""
    o = np.lexsort((idx if tie is None else tie[idx], dist), axis=-1)
    return np.take_along_axis(dist, o, axis=1), np.take_along_axis(idx, o, axis=1)


def _order_ties(dist, idx, k, requery=None, tie=None):
    """The first ``k`` columns of candidate lists in (distance, tie rank) order.

    Among candidates at exactly the same (final, as returned) distance the lower tie rank
    ``tie[j]`` comes first (:func:`tie_ranks`: the lexicographically first coordinates, then the
    lower index among exact copies; ``tie=None``: the lower index), so every exact path keeps the
    same neighbours on tied data, whatever the order of the rows.  ``dist``/``idx`` are (n, m),
    m >= k, ascending by distance with ties in any order.  Where the last column still ties with
    the k-th (a tie straddling the lists, so a tied point may be missing), ``requery(rows)``
    returns lists for those rows that hold every point tied with their k-th (same conventions, any
    width >= k).  Only rows with an equal adjacent pair are re-sorted: the untied case costs one
    comparison per entry.
    """
    out_d = np.array(dist[:, :k], copy=True)
    out_i = np.array(idx[:, :k], copy=True)
    straddle = np.zeros(dist.shape[0], dtype=bool)
    if requery is not None and dist.shape[1] > k:
        straddle = dist[:, -1] == dist[:, k - 1]
    tied = np.flatnonzero((dist[:, 1:] == dist[:, :-1]).any(axis=1) & ~straddle)
    if tied.size:
        d_t, i_t = _lexsort_rows(dist[tied], idx[tied], tie)
        out_d[tied], out_i[tied] = d_t[:, :k], i_t[:, :k]
    rows = np.flatnonzero(straddle)
    if rows.size:
        d_w, i_w = _lexsort_rows(*requery(rows), tie)
        out_d[rows], out_i[rows] = d_w[:, :k], i_w[:, :k]
    return out_d, out_i


def query_distances(P, fitted, dist, idx, block=2 ** 22):
    r"""The distances of the new points P to their candidate neighbours ``fitted[idx]``, from the differences of
    the points, each row sorted (the search's ``dist`` and ``idx`` as they are when ``fitted`` is None): the
    out-of-sample lookups' final distances (the transductive estimators' predict, FredholmKernel's outer
    weights of new points), on which :func:`query_in_tie_order` breaks ties.

    In more than 15 features scikit-learn's search is brute force, with the squared distances expanded as
    :math:`|a|^2 - 2 a \cdot b + |b|^2`, whose rounding is about :math:`\epsilon |a|^2`: a point far from the
    origin relative to its neighbours' spacing was :math:`\sqrt{\epsilon} |a|` away from its own copy (30
    features shifted by 1e3: about 1e-4 of the neighbourhood radius, against the coincidence rule's 1e-6) and
    the weights carried that error.  A difference is exact for a point and its copy (0).  Rows go in blocks of
    about ``block`` entries of the differences (k rows of the fitted points per new point).
    """
    if fitted is None or not idx.size:
        return dist, idx
    m, k = idx.shape
    exact = np.empty((m, k))
    sparse = sp.issparse(P) or sp.issparse(fitted)      # sparse fitted points may meet dense new ones
    if sparse:
        P, fitted = sp.csr_array(P), sp.csr_array(fitted)
        # a difference row holds at most the stored entries of its two rows: the blocks by those, not by the
        # features (50000 sparse features at density 0.002 made blocks of 8 rows, and predict 2.6x slower)
        width = P.nnz / max(1, P.shape[0]) + fitted.nnz / max(1, fitted.shape[0])
    else:
        width = P.shape[1]
    step = max(1, int(block // (k * max(1.0, width))))
    for lo in range(0, m, step):
        rows, cand = slice(lo, min(m, lo + step)), idx[lo:lo + step]
        if sparse:
            D = P[rows][np.repeat(np.arange(cand.shape[0]), k)] - fitted[cand.ravel()]
            sq = np.asarray(D.multiply(D).sum(axis=1), dtype=np.float64).reshape(cand.shape)
        else:
            D = np.asarray(P[rows], dtype=np.float64)[:, None, :] - fitted[cand]
            sq = np.einsum("ikd,ikd->ik", D, D)
        exact[rows] = np.sqrt(sq)
    order = np.argsort(exact, axis=1, kind="stable")
    return np.take_along_axis(exact, order, axis=1), np.take_along_axis(idx, order, axis=1)


def query_in_tie_order(search, n_queries, n_fitted, k, tie, extra=8):
    """The ``k`` nearest fitted points of each of ``n_queries`` new points, in (distance, tie rank) order: the
    out-of-sample lookups' version of the exact searches' rule (:func:`_order_ties`), so that which of several
    equidistant fitted points a new point takes does not depend on the order of the fitted rows.

    ``search(rows, width)`` returns ``(dist, idx)`` of the queries ``rows`` (None: all of them), ``width``
    candidates each, ascending by their final distances (ties in any order); ``tie`` indexes the fitted points'
    tie ranks (:func:`tie_ranks`, or a :class:`_TieRanks`, looked up only where a tie is to be broken).  The
    ``extra`` columns beyond the k-th show a tie straddling the lists; rows whose last column still ties with
    their k-th are searched again, twice as wide each time, until their last candidate is farther than their
    k-th or the lists hold every fitted point (on 60000 x 50 rounded, integer points with k = 10, one extra
    column sent most new points to a second search; 8 extra columns, as the brute-force search, few).  The
    lists are as exact as ``search``'s candidates: a tied point that ``search`` ranks beyond the width by the
    rounding of a screening distance is not seen (as with the width itself).  Returns ``(dist, idx)``, each
    ``(n_queries, k)``; ``k <= n_fitted``.
    """
    width = min(n_fitted, k + extra)
    dist, idx = search(None, width)

    def requery(rows):
        parts, q, w = [], np.arange(rows.size), width
        while q.size:
            w = min(n_fitted, 2 * w)
            d, i = search(rows[q], w)
            done = (d[:, -1] > d[:, k - 1]) | (w == n_fitted)
            parts.append((q[done], d[done], i[done]))
            q = q[~done]
        # each row's lists padded to the widest with copies of its last candidate (farther than its k-th, or
        # the lists hold every point: never kept ahead of it)
        out_d = np.empty((rows.size, w))
        out_i = np.empty((rows.size, w), dtype=np.int64)
        for r, d, i in parts:
            out_d[r, :d.shape[1]], out_d[r, d.shape[1]:] = d, d[:, -1:]
            out_i[r, :i.shape[1]], out_i[r, i.shape[1]:] = i, i[:, -1:]
        return out_d, out_i

    return _order_ties(dist, idx, k, requery if width > k and width < n_fitted else None, tie)


@njit(cache=True, nogil=True)
def _compare_rows(X, indptr, indices, data, a, b):
    """-1, 0 or 1 as row ``a`` comes before, equals or follows row ``b`` in lexicographic order of their
    values (numeric: -0.0 equals +0.0).  Dense rows of ``X``, or, when ``X`` has no rows, the CSR rows
    ``(indptr, indices, data)`` with ascending column indices (absent entries and explicit zeros are 0)."""
    if X.shape[0]:
        for c in range(X.shape[1]):
            u = X[a, c]
            v = X[b, c]
            if u != v:
                return -1 if u < v else 1
        return 0
    pa, ea = indptr[a], indptr[a + 1]
    pb, eb = indptr[b], indptr[b + 1]
    while pa < ea or pb < eb:
        ca = indices[pa] if pa < ea else -1
        cb = indices[pb] if pb < eb else -1
        c = ca if cb < 0 or (0 <= ca < cb) else cb    # the next column stored in either row
        u = 0.0
        v = 0.0
        if ca == c:
            u = data[pa]
            pa += 1
        if cb == c:
            v = data[pb]
            pb += 1
        if u != v:
            return -1 if u < v else 1
    return 0


@njit(cache=True, nogil=True)
def _lexicographic_order(X, indptr, indices, data, n):
    """The row numbers 0..n-1 sorted by :func:`_compare_rows`, equal rows by number (a bottom-up merge sort,
    stable): O(n log n) comparisons, each stopping at the first differing coordinate."""
    src = np.arange(n)
    dst = np.empty(n, dtype=np.int64)
    width = 1
    while width < n:
        for lo in range(0, n, 2 * width):
            mid = min(lo + width, n)
            hi = min(lo + 2 * width, n)
            i, j, o = lo, mid, lo
            while i < mid and j < hi:
                if _compare_rows(X, indptr, indices, data, src[j], src[i]) < 0:
                    dst[o] = src[j]
                    j += 1
                else:
                    dst[o] = src[i]
                    i += 1
                o += 1
            while i < mid:
                dst[o] = src[i]
                i += 1
                o += 1
            while j < hi:
                dst[o] = src[j]
                j += 1
                o += 1
        src, dst = dst, src
        width *= 2
    return src


#: Up to this many columns :func:`tie_ranks` sorts dense rows with NumPy's lexsort (one stable sort per
#: column); above, with the compiled merge sort, whose comparisons stop at the first differing coordinate
#: (measured, 2 cores: lexsort faster up to 16 columns at 70000 and 10^6 rows, e.g. 0.6 s against 3.3 s on
#: 10^6 x 3; the merge sort faster at 784 columns, 0.2-0.3 s against 1.5 s on the 70000 Fashion-MNIST rows).
_LEXSORT_MAX_COLUMNS = 16


def tie_ranks(X):
    """The tie rank of every row of ``X`` (dense, or CSR): its position in the order of the rows by their values,
    lexicographically (first coordinate, then the second, ...; -0.0 equals +0.0; a CSR row is its dense row),
    rows with equal values by index.  A permutation of 0..n-1 (int64).

    The exact searches order neighbours at equal distances by this rank (:func:`_order_ties`): it depends on
    the points' contents only, so permuting the rows of ``X`` permutes the neighbour lists with them, except
    that exact copies of one point are told apart by index (the graph is equivariant up to swapping identical
    points).  Dense and sparse rows with the same values get the same ranks.  Cost: O(n log n) row
    comparisons, NumPy's lexsort up to ``_LEXSORT_MAX_COLUMNS`` columns, a compiled merge sort above (0.2-0.3 s
    on the 70000 x 784 Fashion-MNIST pixels, about 0.5 % of their exact brute-force search, 50 s; 0.3 s on
    10^6 integer points in 3-D, about 3 % of their kd-tree search, 9 s); the searches compute it only when a
    tie is to be broken (:class:`_TieRanks`), so data without ties pays nothing.
    """
    n = X.shape[0]
    if not sp.issparse(X) and X.ndim == 2 and X.shape[1] <= _LEXSORT_MAX_COLUMNS:
        # np.lexsort's last key is the primary one; its stable sorts compare floats by value (-0.0 == +0.0)
        X = np.asarray(X)
        order = np.lexsort((np.arange(n),) + tuple(X[:, c] for c in range(X.shape[1] - 1, -1, -1)))
        rank = np.empty(n, dtype=np.int64)
        rank[order] = np.arange(n)
        return rank
    if sp.issparse(X):
        X = sp.csr_array(X)
        if not X.has_canonical_format:   # sorted column indices, duplicate entries summed
            X = X.copy()
            X.sum_duplicates()
        order = _lexicographic_order(np.empty((0, 0)), X.indptr.astype(np.int64), X.indices.astype(np.int64),
                                     np.asarray(X.data, dtype=np.float64), n)
    else:
        order = _lexicographic_order(np.ascontiguousarray(X, dtype=np.float64), np.zeros(1, np.int64),
                                     np.zeros(0, np.int64), np.zeros(0), n)
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    return rank


class _TieRanks:
    """:func:`tie_ranks` of ``X``, computed at the first lookup (``tie[j]``): a search whose lists hold no
    tie to break never sorts the rows.  ``tie[:]`` is the whole array."""

    def __init__(self, X):
        self._X = X
        self._ranks = None

    def __getitem__(self, key):
        if self._ranks is None:
            self._ranks = tie_ranks(self._X)
        return self._ranks[key]


def kd_tree_search(X, n_neighbors, workers=-1, extra=1):
    """Exact kNN by SciPy's cKDTree; neighbours in (distance, tie rank) order (:func:`_order_ties`)."""
    from scipy.spatial import cKDTree

    n = X.shape[0]
    k = n_neighbors
    n_neighbors = min(k + extra, n - 1)   # a few extra columns show ties straddling the k-th
    X64 = np.asarray(X, dtype=np.float64)
    tie = _TieRanks(X64)
    tree = cKDTree(X64, leafsize=16, balanced_tree=False, compact_nodes=False)
    order = tree.indices.astype(np.int64)
    if progress_enabled() and n > _KD_PROGRESS_BLOCK:
        # Queried in ~50 slices for the bar; each slice is still large enough to keep both cores busy.
        block = max(_KD_PROGRESS_BLOCK, -(-n // 50))
        dist_sorted = np.empty((n, n_neighbors + 1))
        idx_sorted = np.empty((n, n_neighbors + 1), dtype=np.int64)
        with progress_bar(total=n, desc="kNN search (kd-tree)", unit="pt") as bar:
            for s in range(0, n, block):
                e = min(n, s + block)
                dist_sorted[s:e], idx_sorted[s:e] = tree.query(X64[order[s:e]], k=n_neighbors + 1,
                                                                workers=workers)
                bar.update(e - s)
    else:
        dist_sorted, idx_sorted = tree.query(X64[order], k=n_neighbors + 1, workers=workers)
    idx_sorted = idx_sorted.reshape(n, n_neighbors + 1).astype(np.int64, copy=False)
    dist_sorted = dist_sorted.reshape(n, n_neighbors + 1)
    # The compiled kernel below indexes without bounds checks; cKDTree marks a missing
    # neighbour with the index n (and distance inf), which must never reach it.
    check_index_array(order, n, "kd-tree order")
    check_index_array(idx_sorted, n, "kd-tree neighbour indices")
    check_finite_array(dist_sorted, "kd-tree neighbour distances", "rescale the points")
    if np.any(np.sort(order) != np.arange(n)):
        raise RuntimeError("the kd-tree's leaf order is not a permutation of the points.")
    idx = np.empty((n, n_neighbors), dtype=np.int64)
    dist = np.empty((n, n_neighbors), dtype=np.float64)
    _unpermute_drop_self(order, idx_sorted, dist_sorted, idx, dist)
    # The tree's distances only select candidates: the returned ones are the library's final
    # distances (_exact_rerank), the same numbers as on the brute-force and sparse paths.
    d = X64.shape[1]
    tol = 1.0 + 8 * (d + 2) * 2.0**-53   # the tree's and the final squared distances agree to this factor
    rows = np.arange(n)
    d2, idx = _ascending(_exact_rerank(X64, rows, idx), idx)
    if n_neighbors == k:
        return _finish(*_order_ties(d2, idx, k, tie=tie))
    # Rows where a point beyond the lists may tie with the k-th (the tree's last distance is not
    # clearly above it) are queried again, wider, until it is or the lists hold every point.
    straddle = np.flatnonzero(~(dist[:, -1] ** 2 > d2[:, k - 1] * tol))
    d2_s, idx_s = _order_ties(d2, idx, k, tie=tie)
    zero = d2[straddle, k - 1] == 0.0
    if zero.any() and _zero_distance_means_equal(X64):
        # k or more exact duplicates: the k lowest-indexed copies (equal rows: tie ranks in index order), found
        # by grouping equal rows
        # rather than by a re-query whose width would grow with the number of copies
        dup, found = _lowest_duplicates(X64, straddle[zero], k)
        d2_s[dup], idx_s[dup] = 0.0, found
        straddle = np.setdiff1d(straddle, dup)
    if straddle.size:
        m = n_neighbors + 1
        q = straddle
        while q.size:
            m = min(n, 2 * m)
            d_r, i_r = tree.query(X64[q], k=m, workers=workers)
            d_r, i_r = d_r.reshape(len(q), m), i_r.reshape(len(q), m).astype(np.int64)
            keep = i_r != q[:, None]
            keep[keep.all(axis=1), -1] = False   # a row without its own index drops its last column
            i_r = i_r[keep].reshape(len(q), m - 1)
            d_r = d_r[keep].reshape(len(q), m - 1)
            e2, i_r = _ascending(_exact_rerank(X64, q, i_r), i_r)
            done = (d_r[:, -1] ** 2 > e2[:, k - 1] * tol) | (m == n)
            res_d, res_i = _order_ties(e2[done], i_r[done], k, tie=tie)
            d2_s[q[done]], idx_s[q[done]] = res_d, res_i
            q = q[~done]
    return _finish(d2_s, idx_s)


#: Below this magnitude two distinct coordinates may differ by so little that the square of the difference
#: underflows to 0 (a final distance 0 between distinct points); at or above it (or at 0) the difference of
#: distinct floats is at least 2^-460 * 2^-52, whose square (~4e-312) is still a (subnormal) non-zero.
_TINY_COORDINATE = 2.0**-460


def _zero_distance_means_equal(X):
    """Whether a final squared distance (:func:`_exact_rerank`) of 0 between two rows of ``X`` means the
    rows are equal: no non-zero coordinate smaller than ``_TINY_COORDINATE`` in magnitude."""
    a = np.abs(X)
    return not bool(((a > 0) & (a < _TINY_COORDINATE)).any())


def _lowest_duplicates(X, rows, k):
    """``(rows', idx)``: the ``rows`` with at least ``k`` exact copies elsewhere and, for each, the
    ``k`` lowest indices among its copies (which are also their ``k`` lowest tie ranks, :func:`tie_ranks`:
    copies have equal values and are ranked by index).  (A distance 0 may also be an underflowed square of a
    tiny difference: such rows have fewer copies and are left out; a caller that needs every point
    at distance 0 checks :func:`_zero_distance_means_equal` first.)"""
    _, group = np.unique(X, axis=0, return_inverse=True)
    group = group.ravel()
    rows = rows[np.bincount(group)[group[rows]] >= k + 1]
    by_group = np.lexsort((np.arange(X.shape[0]), group))     # indices grouped, ascending within
    start = np.searchsorted(group[by_group], group[rows])
    cand = by_group[start[:, None] + np.arange(k + 1)]         # the group holds >= k + 1 points
    keep = cand != rows[:, None]
    keep[keep.all(axis=1), -1] = False
    return rows, cand[keep].reshape(len(rows), k)


def _ascending(d2, idx):
    """Rows of candidate lists sorted by distance (only the rows not already ascending)."""
    bad = np.flatnonzero((d2[:, 1:] < d2[:, :-1]).any(axis=1))
    if bad.size:
        o = np.argsort(d2[bad], axis=1, kind="stable")
        d2 = np.array(d2, copy=True)
        idx = np.array(idx, copy=True)
        d2[bad] = np.take_along_axis(d2[bad], o, axis=1)
        idx[bad] = np.take_along_axis(idx[bad], o, axis=1)
    return d2, idx


def _finish(d2, idx):
    return np.sqrt(d2), idx


@njit(parallel=True, cache=True, nogil=True)
def _topk_tile(gram, col_sq, row_start, col_start, heap_val, heap_idx):
    """Merge one tile of screened distances ``col_sq[j] - 2 <x_i, x_j>`` into
    per-row sorted candidate lists (ascending, fixed length)."""
    n_rows, n_cols = gram.shape
    kk = heap_val.shape[1]
    for r in prange(n_rows):
        i = row_start + r
        worst = heap_val[i, kk - 1]
        for c in range(n_cols):
            v = col_sq[c] - 2.0 * gram[r, c]
            if v < worst:
                j = col_start + c
                if j == i:
                    continue
                p = kk - 1
                while p > 0 and heap_val[i, p - 1] > v:
                    heap_val[i, p] = heap_val[i, p - 1]
                    heap_idx[i, p] = heap_idx[i, p - 1]
                    p -= 1
                heap_val[i, p] = v
                heap_idx[i, p] = j
                worst = heap_val[i, kk - 1]


def _exact_rerank(X, rows, cand):
    r"""The final squared distances of every exact path: :math:`\sum_c (x_{ic} - x_{jc})^2` from
    ``X[rows]`` to ``X[cand]`` (float64, uncentred), summed left to right over the columns.

    One formula for the dense ``"brute"`` and ``"kd_tree"`` paths and, summing the same
    differences in the same order, :func:`sparse_pair_sq_distances`: ties at equal distances are
    then ties on every exact path and are broken alike (:func:`_order_ties`).
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    cand = np.ascontiguousarray(cand, dtype=np.int64).reshape(len(rows), -1)
    # the compiled loop reads X[rows[a]] and X[cand[a, b]] unchecked: both index arrays checked here
    check_index_array(rows, X.shape[0], "re-ranked rows")
    check_index_array(cand, X.shape[0], "re-ranked candidates")
    out = np.empty(cand.shape, dtype=np.float64)
    if cand.size * max(X.shape[1], 1) < _PARALLEL_PAIR_WORK:
        _pair_sq_sums_serial(X, rows, cand, out)
    else:
        _pair_sq_sums(X, rows, cand, out)
    return out


#: :func:`_exact_rerank` sums on one thread below this many squared differences (pairs times columns), on
#: all cores from it.  Starting numba's parallel loop costs far more than a small sum: a call on 10 x 10 pairs
#: in 3-D took 7.7 ms in parallel and 0.5 us on one thread (2 cores shared with other jobs, OpenMP
#: layer), and distributed_knn_graph's halo pass makes one such call per pair of cells (400 points in 40
#: cells: 1448 calls, 4.3 of its 5.2 s).  2**20 differences take about 0.5 ms on one thread.
_PARALLEL_PAIR_WORK = 2**20


@njit(parallel=True, cache=True, nogil=True)
def _pair_sq_sums(X, rows, cand, out):
    """``out[a, b] = sum_c (X[rows[a], c] - X[cand[a, b], c])^2``, summed in column order (no
    reassociation: the same bits as a left-to-right sum of the squared differences in NumPy).
    Reads the two rows in place (no gathered n x k x d copy: 2.5x faster than NumPy's column loop
    at d = 784)."""
    d = X.shape[1]
    for a in prange(cand.shape[0]):
        i = rows[a]
        for b in range(cand.shape[1]):
            j = cand[a, b]
            acc = 0.0
            for c in range(d):
                t = X[i, c] - X[j, c]
                acc += t * t
            out[a, b] = acc


@njit(cache=True, nogil=True)
def _pair_sq_sums_serial(X, rows, cand, out):
    """:func:`_pair_sq_sums` on one thread (the same loop, hence the same bits: each entry is summed
    alone, in column order) for small calls, where starting the parallel loop costs more than the sums."""
    d = X.shape[1]
    for a in range(cand.shape[0]):
        i = rows[a]
        for b in range(cand.shape[1]):
            j = cand[a, b]
            acc = 0.0
            for c in range(d):
                t = X[i, c] - X[j, c]
                acc += t * t
            out[a, b] = acc


def _float64_rows(Xc, sq, rows, kk, return_values=False):
    """The kk nearest candidates of a few rows by the float64 expanded formula (the certificate's fallback), and
    with ``return_values`` their computed squared distances (for the float64 certificate of :func:`brute_search`)."""
    n = Xc.shape[0]
    vals = np.empty((len(rows), kk))
    idxs = np.empty((len(rows), kk), dtype=np.int64)
    block = max(1, int(_TILE_BYTES // (8 * n)))
    for s in range(0, len(rows), block):
        r = rows[s:s + block]
        d2 = sq[r][:, None] + sq[None, :] - 2.0 * (Xc[r] @ Xc.T)
        d2[np.arange(len(r)), r] = np.inf
        part = np.argpartition(d2, kk - 1, axis=1)[:, :kk]
        vals[s:s + block] = np.take_along_axis(d2, part, axis=1)
        idxs[s:s + block] = part
    return (idxs, vals) if return_values else idxs


def brute_search(X, n_neighbors, extra=8):
    """Exact kNN by float32 blocked GEMM screening + certified float64 re-ranking."""
    n, d = X.shape
    k = n_neighbors
    kk = min(k + extra, n - 1)
    # Centering does not change distances but shrinks norms, hence rounding error.
    X64 = np.asarray(X, dtype=np.float64)
    tie = _TieRanks(X64)
    Xc = X64 - X64.mean(axis=0)
    sq = np.einsum("ij,ij->i", Xc, Xc)
    X32 = Xc.astype(np.float32)
    sq32 = sq.astype(np.float32)

    heap_val = np.full((n, kk), np.inf, dtype=np.float32)
    heap_idx = np.full((n, kk), -1, dtype=np.int64)
    row_block = min(n, 2048)
    col_block = max(1, min(n, _TILE_BYTES // (4 * row_block)))
    with progress_bar(total=n, desc="kNN search (brute)", unit="pt") as bar:
        for rs in range(0, n, row_block):
            re = min(n, rs + row_block)
            for cs in range(0, n, col_block):
                ce = min(n, cs + col_block)
                gram = X32[rs:re] @ X32[cs:ce].T
                _topk_tile(gram, sq32[cs:ce], rs, cs, heap_val, heap_idx)
            bar.update(re - rs)
    # A slot left at -1 (a NaN or overflowing screened value) would make the fancy
    # indexing below wrap around silently; the caller rescales, so this is a bug guard.
    check_index_array(heap_idx, n, "screened candidate indices")

    # Exact re-ranking of the kk candidates.
    rows = np.arange(n)
    exact = _exact_rerank(X64, rows, heap_idx)
    order = np.argsort(exact, axis=1, kind="stable")
    cand_sorted = np.take_along_axis(heap_idx, order, axis=1)
    exact_sorted = np.take_along_axis(exact, order, axis=1)

    if kk < n - 1:
        # Rounding-error certificate.  The screened value s_ij = fl32(|x_j|^2 - 2 x_i.x_j)
        # differs from d_ij^2 - |x_i|^2 by at most e_i = 2 c (|x_i| M + M^2), with
        # c = (d + 3) u / (1 - (d + 3) u), u = 2^-24 and M = max_j |x_j| (worst-case
        # bound for a float32 dot product of length d, input rounding included).
        # Every non-candidate j has s_ij >= s_i,kk, so its true squared distance is at
        # least s_i,kk + |x_i|^2 - e_i; if that exceeds the k-th exact candidate
        # distance, the k nearest are among the candidates.
        u = 2.0**-24
        c = (d + 3) * u / (1 - (d + 3) * u)
        norms = np.sqrt(sq)
        M = norms.max()
        bound = 2.0 * c * (norms * M + M * M)
        floor = heap_val[:, kk - 1].astype(np.float64) + sq - bound
        failed = np.flatnonzero(~(exact_sorted[:, k - 1] < floor))
        zero = exact_sorted[failed, k - 1] == 0.0
        if zero.any() and _zero_distance_means_equal(X64):
            # k or more exact copies (every one at the final distance 0, no other point there): their k
            # lowest indices (= tie ranks), by grouping equal rows.  The float64 search below and the re-ranking of every
            # point (a tie at 0 straddles any candidate list) cost O(n d) per such row: O(n^2 d) when a
            # fraction of the points are copies.
            dup, found = _lowest_duplicates(X64, failed[zero], k)
            cand_sorted[dup, :k], exact_sorted[dup, :k] = found, 0.0
            exact_sorted[dup, k:] = np.inf
            failed = np.setdiff1d(failed, dup)
        if failed.size:
            cand, vals = _float64_rows(Xc, sq, failed, kk, return_values=True)
            ex = _exact_rerank(X64, failed, cand)
            o = np.argsort(ex, axis=1, kind="stable")
            ex, cand = np.take_along_axis(ex, o, axis=1), np.take_along_axis(cand, o, axis=1)
            # The float64 candidates get the same certificate with u = 2^-53: |x_i|^2 + |x_j|^2 - 2 x_i.x_j in float64
            # is within 2 c64 (|x_i| + M)^2 of d_ij^2.  Points far from the data's mean next to tight clusters (three
            # clusters of spread 0.01 at 0, 1e6 and 2e6 in 20 dimensions: norms^2 ~ 5e12, rounding ~ 1e-3, squared
            # distances within a cluster ~ 4e-3) lost their true neighbours among the candidates -- 1534 of 1428
            # edges' entries wrong, reported exact.  Rows it does not certify are searched against every point.
            c64 = (d + 3) * 2.0**-53 / (1 - (d + 3) * 2.0**-53)
            floor64 = vals.max(axis=1) - 2.0 * c64 * (norms[failed] + M) ** 2
            unsure = np.flatnonzero(~(ex[:, k - 1] < floor64)) if kk < n - 1 else np.array([], dtype=np.int64)
            if unsure.size:
                ex_all, cand_all = _all_rows_exact(X64, failed[unsure], kk, tie)
                ex[unsure], cand[unsure] = ex_all, cand_all
            # a tie straddling the kk float64 candidates: those rows re-ranked against every point
            ex, cand = _order_ties(ex, cand, k, lambda r: _all_rows_exact(X64, failed[r], k, tie), tie)
            cand_sorted[failed, :k] = cand
            exact_sorted[failed, :k] = ex
            exact_sorted[failed, k:] = np.inf   # (stale screening candidates; never re-ordered in)

    # Certified rows hold every point tied with their k-th exact distance (all others are farther).
    exact_sorted, idx = _order_ties(exact_sorted, cand_sorted, k, tie=tie)
    dist = np.sqrt(exact_sorted)
    return dist, idx


def _all_rows_exact(X, rows, k, tie):
    """The first ``k`` of every other point to ``rows`` in (final distance, tie rank) order."""
    n = X.shape[0]
    d2 = np.empty((len(rows), k))
    idx = np.empty((len(rows), k), dtype=np.int64)
    block = max(1, int(_TILE_BYTES // (8 * n)))
    for s in range(0, len(rows), block):
        r = rows[s:s + block]
        cand = np.broadcast_to(np.arange(n), (len(r), n))
        ex = _exact_rerank(X, r, cand)
        ex[np.arange(len(r)), r] = np.inf
        o = np.lexsort((np.broadcast_to(tie[:], ex.shape), ex), axis=-1)[:, :k]   # (distance, tie rank)
        d2[s:s + block] = np.take_along_axis(ex, o, axis=1)
        idx[s:s + block] = o
    return d2, idx


_PYNNDESCENT_CACHING = []   # [True] once pynndescent's kernels have been given numba's on-disk cache


def cache_pynndescent_kernels():
    """Give pynndescent's numba kernels numba's on-disk cache (once per process).

    pynndescent compiles most of its NN-descent kernels without ``cache=True``, so every new process
    spent 15-75 s on 2 cores compiling them before the first approximate search
    (``benchmarks/results/knn_auto_recommended.md``).  Numba dispatchers take a cache after the fact
    (what ``njit(cache=True)`` does through ``Dispatcher.enable_caching``): each kernel is then compiled
    once per machine and pynndescent version and loaded from disk afterwards (next to pynndescent's
    sources, or in numba's user-wide cache directory / ``NUMBA_CACHE_DIR`` when those are read-only),
    with numba's own invalidation (an entry is keyed on its function's bytecode and source file).

    Specializations that take a compiled function as an argument (pynndescent passes its distance
    function to the NN-descent kernels) are not saved: their type names the function object of one
    process, so the next process could never load them and every process would add files to the
    cache.  Those few kernels stay compiled per process, as numba's refusal leaves ``nn_descent``
    itself (it holds ctypes pointers).  Nothing changes in what the kernels compute.  Returns the
    number of kernels given the cache by this call (0 after the first call, or when numba's dispatcher
    internals differ from the ones expected: the search then runs uncached, as before).
    """
    if _PYNNDESCENT_CACHING:
        return 0
    _PYNNDESCENT_CACHING.append(True)
    import sys

    try:
        from numba.core import types
        from numba.core.caching import FunctionCache, NullCache
        from numba.core.dispatcher import Dispatcher
    except ImportError:  # pragma: no cover - another numba layout: stay uncached
        return 0

    class _PortableSignatureCache(FunctionCache):
        # numba's FunctionCache, less the signatures whose types are tied to this process
        def save_overload(self, sig, data):
            if not any(isinstance(t, (types.Dispatcher, types.FunctionType)) for t in sig):
                super().save_overload(sig, data)

    count = 0
    for name, module in list(sys.modules.items()):
        if module is None or not (name == "pynndescent" or name.startswith("pynndescent.")):
            continue
        for obj in list(vars(module).values()):
            if isinstance(obj, Dispatcher) and isinstance(getattr(obj, "_cache", None), NullCache):
                try:
                    obj._cache = _PortableSignatureCache(obj.py_func)
                    count += 1
                except Exception as exc:  # pragma: no cover - e.g. a function numba cannot locate
                    logger.debug("pynndescent kernel %s left uncached: %s", getattr(obj, "__name__", obj), exc)
    logger.debug("gave numba's on-disk cache to %d pynndescent kernels", count)
    return count


class _UnusableApproximateResult(RuntimeError):
    """An approximate backend returned lists no graph can be built from (unfilled slots, a neighbour
    listed twice): an error for an explicit ``algorithm``, exact search for ``"auto"``.  ``reason`` is
    what went wrong, without the advice the message adds for the explicit case."""

    def __init__(self, reason, advice):
        super().__init__(f"{reason}; {advice}")
        self.reason = reason


def ann_search(X, n_neighbors, algorithm, random_state):
    """Approximate kNN with pynndescent or hnswlib (optional ``ann`` extra)."""
    n, d = X.shape
    k1 = n_neighbors + 1
    seed = int(random_state.integers(0, 2**31 - 1))
    if algorithm == "pynndescent":
        try:
            import pynndescent
        except ImportError as exc:
            raise ImportError(
                "algorithm='pynndescent' needs the optional package pynndescent: "
                "pip install 'graphrkhs[ann]'"
            ) from exc
        cache_pynndescent_kernels()
        with warnings.catch_warnings():
            # numba's notice that it cannot cache the two kernels holding ctypes pointers: nothing to act on
            warnings.filterwarnings("ignore", message="Cannot cache compiled function", category=numba.NumbaWarning)
            # pynndescent's notice of unfilled neighbour slots on tiny data: checked below (-1 entries), and the
            # lists' recall is estimated against exact search by the caller
            warnings.filterwarnings("ignore", message="Failed to correctly find n_neighbors", category=UserWarning)
            index = pynndescent.NNDescent(
                np.asarray(X, dtype=np.float32), n_neighbors=max(k1, 15), metric="euclidean",
                random_state=seed, n_jobs=-1, low_memory=True, compressed=True,
            )
            idx, dist = index.neighbor_graph
        idx, dist = idx[:, :k1].astype(np.int64), dist[:, :k1].astype(np.float64)
    elif algorithm == "hnswlib":
        try:
            import hnswlib
        except ImportError as exc:
            raise ImportError("algorithm='hnswlib' needs the optional package hnswlib: pip install hnswlib") from exc
        index = hnswlib.Index(space="l2", dim=d)
        index.init_index(max_elements=n, ef_construction=200, M=16, random_seed=seed)
        index.set_num_threads(-1)
        Xf = np.asarray(X, dtype=np.float32)
        index.add_items(Xf, np.arange(n))
        index.set_ef(max(2 * k1, 50))
        idx, d2 = index.knn_query(Xf, k=k1)
        idx = idx.astype(np.int64)
        dist = np.sqrt(np.maximum(d2.astype(np.float64), 0.0))
    else:  # pragma: no cover - validated by the caller
        raise ValueError(algorithm)
    # Approximate indexes may return -1 for unfilled slots on tiny data.
    if (idx < 0).any():
        raise _UnusableApproximateResult(f"{algorithm} returned fewer than {k1} neighbours for some points",
                                         "use an exact algorithm ('kd_tree' or 'brute') on data this small.")
    idx, dist = drop_self(idx, dist, n_neighbors)
    # a neighbour listed twice in a row would be stored twice by the compiled graph assembly
    # (symmetric_from_lists): w_ij counted twice, w_ji once, a silently asymmetric graph
    if n_neighbors > 1:
        ranked = np.sort(idx, axis=1)
        if (ranked[:, 1:] == ranked[:, :-1]).any():
            raise _UnusableApproximateResult(f"{algorithm} returned the same neighbour twice for some points",
                                             "use an exact algorithm ('kd_tree' or 'brute').")
    # the lists' distances as every exact path computes them (float64, _exact_rerank), in (distance, index)
    # order: where the lists agree with exact search the graph is the exact graph to the last bit (the
    # indexes' float32 distances put weights 5e-8 off and could order near-ties otherwise).  Which of
    # several tied points an approximate index lists depends on its random graph: no tie rule here.
    d2, idx = _lexsort_rows(_exact_rerank(X, np.arange(n), idx), idx)
    return np.sqrt(d2), idx


def exact_algorithm(d):
    """The faster exact backend in ``d`` dimensions: kd-tree up to ``KD_TREE_MAX_DIM``, else brute."""
    return "kd_tree" if d <= KD_TREE_MAX_DIM else "brute"


def have_pynndescent():
    """Whether the optional approximate backend pynndescent is importable."""
    return importlib.util.find_spec("pynndescent") is not None


def auto_algorithm(n, d):
    """``knn_graph``'s choice for ``algorithm="auto"``.

    pynndescent for ``n >= ANN_MIN_SAMPLES`` points in ``d > KD_TREE_MAX_DIM``
    dimensions when it is installed (its recall is then checked, see
    :func:`knn_search_report`); otherwise the exact :func:`exact_algorithm`.
    """
    if d > KD_TREE_MAX_DIM and n >= ANN_MIN_SAMPLES and have_pynndescent():
        return "pynndescent"
    return exact_algorithm(d)


def _rescaled(X):
    """``(X / 2^e, e)`` with ``2^e`` the power of two of ``max |X|`` (exact)."""
    e = power_of_two_exponent(X)
    return (np.ldexp(X, -e) if e else X), e


def _search_rescaled(Xs, n_neighbors, algorithm, random_state, workers):
    n = Xs.shape[0]
    if algorithm == "kd_tree":
        dist, idx = kd_tree_search(Xs, n_neighbors, workers=workers)
    elif algorithm == "brute":
        dist, idx = brute_search(Xs, n_neighbors)
    else:
        dist, idx = ann_search(Xs, n_neighbors, algorithm, random_state)
    check_index_array(idx, n, "neighbour indices")
    return dist, idx


#: Peak bytes of a kNN search and graph assembly per neighbour slot, n (k + 8) slots (the candidate
#: lists, their exact re-ranking and sort order, the weights, the reverse-edge table and the CSR
#: arrays): growth of the tracemalloc peak with n measured at 37-53 (kd-tree, k = 10, 40) and up to
#: 126 (brute, k = 40).  The estimate used to be 32, so a request needing up to 4x the limit passed.
_BYTES_PER_SLOT = 128


def _search_bytes(n, d, n_neighbors, algorithm):
    """Estimated peak bytes of :func:`knn_search` and the graph assembly after it."""
    total = n * (n_neighbors + 8) * _BYTES_PER_SLOT + 16 * n * d   # + the rescaled and centred copies of X
    if algorithm == "brute":
        rows = min(n, 2048)
        total += 4 * rows * min(n, max(1, _TILE_BYTES // (4 * rows)))   # a float32 distance tile
        total += 8 * n * (n_neighbors + 8)                             # the re-ranked distances (_exact_rerank)
        total += 2 * min(8 * n * n, _TILE_BYTES)                       # a float64 fallback tile and its order
    return total


def _check_search_input(X, n_neighbors, algorithm=None):
    n, d = X.shape
    if not 1 <= n_neighbors < n:
        # brute_search keeps min(k + 8, n - 1) candidates: with n = 1 none, and the compiled top-k
        # kernel read column -1 of an empty array; with k >= n it returned n - 1 columns, no error
        raise ValueError(f"n_neighbors must be in [1, n_samples - 1] = [1, {n - 1}] (the point itself is not "
                         f"its own neighbour); got {n_neighbors} for {n} points.")
    check_finite_array(X, "X")
    memory_guard(_search_bytes(n, d, n_neighbors, algorithm), "the neighbour lists",
                 "reduce n_neighbors or the number of points.")


def knn_search(X, n_neighbors, algorithm, random_state, workers=-1, return_scale=False):
    r"""Dispatch to a backend; returns ``(distances, indices)`` each (n, k).

    ``algorithm="auto"`` here is the exact :func:`exact_algorithm` (the
    approximate choice of :func:`graphrkhs.knn_graph` is in
    :func:`knn_search_report`).

    The search runs on :math:`X / 2^e` with :math:`2^e` the power of two of
    ``max |X|`` (exact rescaling), so squared distances can neither overflow
    (:math:`|x| \gtrsim 10^{154}`, or :math:`10^{19}` in the float32 screening)
    nor underflow.  With ``return_scale=True`` the distances are returned in
    those rescaled units together with the factor :math:`2^e`
    (``(distances, indices, scale)``), which the graph builders use so that no
    distance is ever formed in units where it could overflow; otherwise they
    are multiplied back (and may then be ``inf`` for data near the float64 limit).
    """
    n, d = X.shape
    if algorithm == "auto":
        algorithm = exact_algorithm(d)
    _check_search_input(X, n_neighbors, algorithm)
    Xs, e = _rescaled(X)
    dist, idx = _search_rescaled(Xs, n_neighbors, algorithm, random_state, workers)
    if return_scale:
        return dist, idx, 2.0 ** e
    if e:
        with np.errstate(over="ignore"):
            dist = np.ldexp(dist, e)
    return dist, idx


def estimate_recall(X, indices, sample):
    r"""Recall@k of neighbour lists on the query points ``sample``, against exact search.

    For each sampled point :math:`i` the exact k-th neighbour distance
    :math:`r_i` is found by brute force over all points (the point itself
    excluded); the recall is

    .. math:: \frac{1}{|S|\,k} \sum_{i \in S} \#\{a : \|x_i - x_{I_{ia}}\| \le r_i\},

    which is the usual :math:`|I_i \cap N_i| / k` (:math:`N_i` the exact k
    nearest) when there are no distance ties, and does not penalise the choice
    among tied neighbours when there are.  Distances are the exact paths'
    final ones (:func:`_exact_rerank`): the float64 products
    :math:`|x_i|^2 + |x_j|^2 - 2 x_i \cdot x_j` only screen, with a bound on
    their rounding error per pair, and the points that may lie at the k-th
    distance are measured exactly.  (A slack proportional to the largest
    :math:`|x|^2` used to count, on data whose neighbours are closer than about
    :math:`10^{-6}` times its spread -- near-duplicates --, every listed point
    within that slack as a hit: wrong lists were reported with recall 1.)
    A listed query point itself is a miss.  Cost: :math:`|S| \cdot n \cdot d`
    (300 points of Fashion-MNIST: 33 GFLOP in float64, ~1-3 s on 2 cores).

    Returns
    -------
    recall : float in [0, 1]
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    n, d = X.shape
    indices = np.asarray(indices)
    # k >= n columns was numpy's "kth(=k) out of bounds (n)" from the partition below, an empty list or
    # sample a ZeroDivisionError, a list per row missing an IndexError
    if indices.ndim != 2 or indices.shape[0] != n:
        raise ValueError(f"indices must be an (n, k) array of neighbour lists, one row per point of X "
                         f"(n = {n}); got shape {indices.shape}.")
    k = indices.shape[1]
    if not 1 <= k <= n - 1:
        raise ValueError(f"indices has k = {k} columns; a point of X has n - 1 = {n - 1} other points, so "
                         f"neighbour lists hold 1 <= k <= {n - 1} of them.")
    sample = np.asarray(sample)
    if sample.ndim != 1 or sample.size == 0:
        raise ValueError(f"sample must be a non-empty 1-D array of query point indices; got shape {sample.shape}.")
    check_index_array(sample, n, "recall sample")
    sample = sample.astype(np.int64, copy=False)
    check_index_array(indices, n, "neighbour indices")
    Xc = X - X.mean(axis=0)
    sq = np.einsum("ij,ij->i", Xc, Xc)
    eps = np.finfo(np.float64).eps
    # |fl(|x|^2 + |y|^2 - 2 x.y) - |x - y|^2| <= c (|x|^2 + |y|^2) (|2 x.y| <= |x|^2 + |y|^2; generous c), at
    # most s_i = c (|x_i|^2 + max_j |x_j|^2) on row i; the final distances of _exact_rerank are within a
    # factor 1 +- rel of |x - y|^2
    c = 64 * (d + 3) * eps
    rel = 8 * (d + 3) * eps
    sq_max = float(sq.max())
    hits = 0
    # a block holds a (b, n) tile of screened distances and its partition, and at most b n candidates (their
    # indices, exact distances and order): together a few _TILE_BYTES
    block = max(1, int(_TILE_BYTES // (8 * max(4 * n, k * d, 1))))
    for s in range(0, sample.size, block):
        r = sample[s:s + block]
        b = r.size
        d2 = Xc[r] @ Xc.T
        d2 *= -2.0
        d2 += sq[r][:, None]
        d2 += sq[None, :]
        d2[np.arange(b), r] = np.inf
        slack = c * (sq[r] + sq_max)
        # the exact k-th distance is at most E = (1 + rel)(screened k-th + s_i) (every true distance is at
        # most its screened value + s_i); a point at exact distance <= E has a screened value at most
        # E / (1 - rel) + s_i: those candidates are measured exactly, and the k-th of them is the k-th
        kth_screened = np.partition(d2, k - 1, axis=1)[:, k - 1]
        bound = (kth_screened + slack) * ((1.0 + rel) / (1.0 - rel)) + slack
        # every point that may be among the k nearest, measured exactly: the k-th of those is the k-th
        qi, qj = np.nonzero(d2 <= bound[:, None])
        del d2
        exact = _exact_rerank(X, r[qi], qj[:, None])[:, 0]
        o = np.lexsort((exact, qi))
        start = np.searchsorted(qi[o], np.arange(b))                   # every row has >= k candidates
        kth = exact[o][start + k - 1]
        listed = indices[r]
        got = _exact_rerank(X, r, listed)
        got[listed == r[:, None]] = np.inf
        hits += int(np.count_nonzero(got <= kth[:, None]))
    return hits / (sample.size * k)


def _pilot_recall(Xs, n_neighbors, algorithm, random_state):
    """Recall@k of ``algorithm`` on a pilot of :data:`PILOT_SAMPLES` random points of ``Xs``: the backend
    searches the pilot's points among themselves and :func:`estimate_recall` measures the lists on
    ``min(PILOT_SAMPLES, RECALL_SAMPLE)`` of them against exact search within the pilot.  ``(recall, m)``
    with ``m`` the pilot's size; NaN when the backend's lists on the pilot were unusable."""
    n = Xs.shape[0]
    m = min(n, PILOT_SAMPLES)
    pilot = np.sort(random_state.choice(n, size=m, replace=False))
    Xp = Xs[pilot]
    try:
        _, idx = ann_search(Xp, min(n_neighbors, m - 1), algorithm, random_state)
    except _UnusableApproximateResult:
        return float("nan"), m
    sample = np.sort(random_state.choice(m, size=min(m, RECALL_SAMPLE), replace=False))
    return estimate_recall(Xp, idx, sample), m


#: The keys of the dict ``knn_graph(..., return_info=True)`` returns from an in-process search (dense or sparse
#: points), all of them in every case (see :func:`knn_search_report`).
INFO_KEYS = ("requested", "algorithm", "exact", "recall", "recall_sample", "recall_target", "fallback",
             "approximate_recall", "pilot_recall", "pilot_sample", "sparse", "seconds")


def _new_info(requested, algorithm, sparse):
    nan = float("nan")
    return {"requested": requested, "algorithm": algorithm, "exact": algorithm in ("kd_tree", "brute"),
            "recall": 1.0, "recall_sample": 0, "recall_target": RECALL_TARGET, "fallback": False,
            "approximate_recall": nan, "pilot_recall": nan, "pilot_sample": 0, "sparse": sparse, "seconds": nan}


def _report_recall(progress, message):
    """A recall estimate as a stage message when the call is verbose, else at INFO on the logger (always kept)."""
    if progress.enabled():
        progress(message)
    else:
        logger.info("kNN search: %s", message)


def knn_search_report(X, n_neighbors, algorithm, random_state, workers=-1, verbose=None):
    """:func:`knn_search` (rescaled units) for :func:`graphrkhs.knn_graph`, with the
    ``"auto"`` choice, recall estimation and fallback.

    Returns ``(distances, indices, scale, info)``; ``info`` is a dict with the keys
    :data:`INFO_KEYS`, every one in every case (also from :func:`sparse_knn_search_report`):

    * ``"algorithm"``: the backend whose result is returned; ``"requested"``: the argument;
    * ``"exact"``: whether that backend is exact;
    * ``"recall"``: estimated recall@k (1.0 for exact backends), ``"recall_sample"``: the
      number of query points it was estimated on (0 for exact), ``"recall_target"``;
    * ``"approximate_recall"``: the estimated recall of the approximate backend's lists on all the
      points (NaN when none were estimated: an exact choice, or unusable lists);
    * ``"fallback"``: True when an approximate result missed the target and ``"auto"``
      recomputed it exactly (``"approximate_recall"`` then keeps the missed estimate), or when
      the backend's lists were unusable (a neighbour listed twice, an unfilled slot);
    * ``"pilot_recall"``, ``"pilot_sample"``: ``"auto"``'s recall estimate of the approximate backend on
      a pilot of ``"pilot_sample"`` random points (:func:`_pilot_recall`), NaN and 0 when no pilot ran;
    * ``"sparse"``: whether ``X`` was searched as sparse rows (False here);
    * ``"seconds"``: wall time of the search(es) and the estimates.

    With ``algorithm="auto"``, when :func:`auto_algorithm` chooses an approximate backend and ``X`` has
    more than :data:`PILOT_SAMPLES` points, the backend first runs on a pilot of that many random points;
    if its recall there is below ``RECALL_TARGET`` (or its lists are unusable) the search is exact,
    without the full index (NN-descent's recall falls as the points grow, see :data:`PILOT_SAMPLES`).
    An approximate result whose estimated recall is below ``RECALL_TARGET`` is replaced by exact search,
    with a warning; an explicitly requested approximate backend only warns.  The recall is logged
    at INFO on the ``graphrkhs`` logger.
    """
    import time

    t0 = time.perf_counter()
    n, d = X.shape
    requested = algorithm
    if algorithm == "auto":
        algorithm = auto_algorithm(n, d)
    _check_search_input(X, n_neighbors, algorithm)
    Xs, e = _rescaled(X)
    progress = _Progress(verbose, "kNN search")
    info = _new_info(requested, algorithm, False)
    if requested == "auto" and not info["exact"] and n > PILOT_SAMPLES:
        progress(f"estimating the recall of {algorithm} on a pilot of {PILOT_SAMPLES} random points")
        pilot, m = _pilot_recall(Xs, n_neighbors, algorithm, random_state)
        info.update(pilot_recall=pilot, pilot_sample=m)
        if not pilot >= RECALL_TARGET:
            exact = exact_algorithm(d)
            message = (f"{algorithm} recall@{n_neighbors} on a pilot of {m} random points = {pilot:.4f} < "
                       f"{RECALL_TARGET}: exact search ({exact})")
            _report_recall(progress, message)
            algorithm = exact
            info.update(algorithm=exact, exact=True)
    if not info["exact"]:
        progress(f"building the approximate index ({algorithm}; numba compiles pynndescent's kernels the "
                 "first time, which can take a minute on 2 cores, then loads most of them from its cache)"
                 if algorithm == "pynndescent"
                 else f"building the approximate index ({algorithm})")
    try:
        with progress.scope():
            dist, idx = _search_rescaled(Xs, n_neighbors, algorithm, random_state, workers)
    except _UnusableApproximateResult as exc:
        if requested != "auto":
            raise
        # "auto" chose the backend, so it answers with exact neighbours rather than an error
        exact = exact_algorithm(d)
        warn(f"approximate kNN search: {exc.reason}; recomputing with exact search ({exact}).",
             RuntimeWarning)
        progress(f"unusable approximate result: exact search ({exact})")
        with progress.scope():
            dist, idx = _search_rescaled(Xs, n_neighbors, exact, random_state, workers)
        info.update(algorithm=exact, exact=True, fallback=True)
    if not info["exact"]:
        m = min(n, RECALL_SAMPLE)
        sample = np.sort(random_state.choice(n, size=m, replace=False))
        progress(f"{algorithm} done; estimating recall@{n_neighbors} on {m} points against exact search")
        recall = estimate_recall(Xs, idx, sample)
        info.update(recall=recall, recall_sample=m, approximate_recall=recall)
        message = (f"{algorithm} recall@{n_neighbors} = {recall:.4f} estimated on {m} random points "
                   f"(target {RECALL_TARGET})")
        _report_recall(progress, message)
        if recall < RECALL_TARGET:
            if requested == "auto":
                exact = exact_algorithm(d)
                warn(f"approximate kNN search ({algorithm}) reached an estimated recall of "
                     f"{recall:.3f} < {RECALL_TARGET}; recomputing with exact search ({exact}).",
                     RuntimeWarning)
                progress(f"recall below target: exact search ({exact})")
                with progress.scope():
                    dist, idx = _search_rescaled(Xs, n_neighbors, exact, random_state, workers)
                info.update(algorithm=exact, exact=True, recall=1.0, fallback=True)
            else:
                warn(f"approximate kNN search ({algorithm}) reached an estimated recall of "
                     f"{recall:.3f} < {RECALL_TARGET}; use algorithm='auto' or an exact one "
                     "('brute', 'kd_tree') for exact neighbours.", RuntimeWarning)
    info["seconds"] = time.perf_counter() - t0
    return dist, idx, 2.0 ** e, info


def pairs_within_radius(X, radius, algorithm, return_scale=False):
    """All unordered pairs (i < j) at distance <= radius, with their distances.

    Rescaled by a power of two as in :func:`knn_search` (``return_scale``
    likewise returns ``(i, j, distances, scale)`` with the distances in
    rescaled units).
    """
    n, d = X.shape
    if algorithm == "auto":
        algorithm = "kd_tree" if d <= KD_TREE_MAX_DIM else "brute"
    check_finite_array(X, "X")
    e = power_of_two_exponent(X)
    X = np.ldexp(np.asarray(X, dtype=np.float64), -e) if e else np.asarray(X, dtype=np.float64)
    with np.errstate(over="ignore", under="ignore"):
        radius = radius / 2.0 ** e
    # After rescaling no two points are farther apart than 4 sqrt(d); a larger radius
    # (or one that overflowed above) joins every pair all the same.
    radius = min(radius, 4.0 * np.sqrt(d))
    tree = None
    if algorithm == "kd_tree":
        from scipy.spatial import cKDTree

        tree = cKDTree(X)   # one tree for the estimate and the search
    _guard_pairs(X, radius, algorithm, tree)
    i, j, dist = _pairs_within_radius(X, radius, algorithm, tree)
    if return_scale:
        return i, j, dist, 2.0 ** e
    if e:
        with np.errstate(over="ignore"):
            dist = np.ldexp(dist, e)
    return i, j, dist


#: Relative slack of "distance <= radius": a pair at exactly the radius (e.g. the radius read off a
#: distance) is kept whatever the rounding of the distance computed by either search.
RADIUS_RTOL = 1e-12


#: Peak bytes of :func:`graphrkhs.epsilon_graph` per pair within the radius: measured with tracemalloc
#: at 120 (kd-tree; the pair list, distances, weights, both triangles in COO and the CSR result).
_BYTES_PER_PAIR = 128

#: Points whose neighbour counts estimate the number of pairs before the search.
_PAIR_SAMPLE = 1000


def _guard_pairs(X, radius, algorithm, tree=None):
    r"""Fail fast when the pairs within ``radius`` would not fit in memory.

    Their number grows like :math:`n^2 r^d`; it is estimated from the neighbour
    counts of at most :data:`_PAIR_SAMPLE` evenly spaced points,
    :math:`\hat P = \frac{n}{m} \sum_{s} (c_s - 1) / 2` (kd-tree ball counts, or a blocked
    distance product of the sample rows for the brute path: m/n of the search's own cost).
    """
    n, d = X.shape
    m = min(n, _PAIR_SAMPLE)
    if m == 0:
        return
    sample = np.unique(np.linspace(0, n - 1, m).astype(np.int64))
    m = sample.size
    limit = radius * (1 + 1e3 * RADIUS_RTOL)
    if tree is not None:
        counts = tree.query_ball_point(X[sample], limit, return_length=True)
        others = float(np.sum(counts)) - m
    else:
        Xc = X - X.mean(axis=0)
        sq = np.einsum("ij,ij->i", Xc, Xc)
        block = max(1, min(m, int(_TILE_BYTES // (8 * n))))
        others = 0.0
        for s in range(0, m, block):
            r = sample[s:s + block]
            d2 = sq[r][:, None] + sq[None, :] - 2.0 * (Xc[r] @ Xc.T)
            others += float(np.count_nonzero(d2 <= limit * limit + 1e-12 * sq.max())) - r.size
    pairs = max(others, 0.0) * n / m / 2
    memory_guard(pairs * _BYTES_PER_PAIR, f"the graph of the about {pairs:.3g} pairs within the radius "
                 f"(estimated from {m} points)", "pass a smaller radius, or use knn_graph (n * k edges).")


def _pair_distances(X, i, j):
    """``|X[i] - X[j]|`` row by row, gathered in blocks of at most ~_TILE_BYTES.

    Gathering all pairs at once cost pairs x d doubles three times over: 26 GiB for the 4.5e6 pairs of
    3000 points in 784 dimensions, whose graph itself is 0.5 GiB.
    """
    d = X.shape[1]
    out = np.empty(i.shape[0])
    step = max(1, int(_TILE_BYTES // (3 * 8 * max(d, 1))))
    for s in range(0, i.shape[0], step):
        diff = X[i[s:s + step]] - X[j[s:s + step]]
        out[s:s + step] = np.sqrt(np.einsum("ij,ij->i", diff, diff))
    return out


def _pairs_within_radius(X, radius, algorithm, tree=None):
    n, d = X.shape
    limit = radius * (1 + RADIUS_RTOL)
    if algorithm == "kd_tree":
        from scipy.spatial import cKDTree

        X64 = np.asarray(X, dtype=np.float64)
        tree = cKDTree(X64) if tree is None else tree
        # query a little wider (the tree's own distances round differently), then the one rule below
        pairs = tree.query_pairs(radius * (1 + 1e3 * RADIUS_RTOL), output_type="ndarray").astype(np.int64)
        if pairs.size == 0:
            return np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0)
        i, j = pairs[:, 0], pairs[:, 1]
        dist = _pair_distances(X64, i, j)
        keep = dist <= limit
        return i[keep], j[keep], dist[keep]
    Xc = np.asarray(X, dtype=np.float64)
    Xc = Xc - Xc.mean(axis=0)
    sq = np.einsum("ij,ij->i", Xc, Xc)
    block = max(1, min(n, int(_TILE_BYTES // (8 * n))))
    screen = radius * radius * (1 + 1e3 * RADIUS_RTOL) + 1e-12 * sq.max()

    def candidates(s, e):
        return np.nonzero(sq[s:e, None] + sq[None, :] - 2.0 * (Xc[s:e] @ Xc.T) <= screen)

    # exact distances for the survivors (the expansion only screens), on the uncentred rows: the same
    # rounding as the kd-tree path
    return _radius_pairs_by_blocks(n, block, "radius search (brute)", candidates,
                                   lambda i, j: _pair_distances(X, i, j), limit)


def _radius_pairs_by_blocks(n, block, desc, candidates, distances, limit):
    """The pairs ``i < j`` at distance <= ``limit``, one block of ``block`` rows at a time.

    ``candidates(s, e)`` screens rows ``s:e`` against all points (a superset of the true pairs, row
    indices relative to ``s``); ``distances(i, j)`` gives the exact distances of the survivors.  The
    pairs kept so far are counted against the memory guard after every block (an estimate from a
    sample can miss a dense cluster).  Returns ``(i, j, distances)``.
    """
    I, J, D = [np.empty(0, np.int64)], [np.empty(0, np.int64)], [np.empty(0)]
    found = 0
    # a with-block: an exception in the loop (MemoryError, Ctrl-C) closes the bar too; left open it
    # stays registered and pushes every later bar one line down (as in cg.py and amg.py)
    with progress_bar(total=n, desc=desc, unit="pt") as bar:
        for s in range(0, n, block):
            e = min(n, s + block)
            rr, cc = candidates(s, e)
            rr = rr + s
            keep = cc > rr                       # each pair once
            rr, cc = rr[keep], cc[keep]
            dist = distances(rr, cc)
            ok = dist <= limit
            I.append(rr[ok]), J.append(cc[ok]), D.append(dist[ok])
            found += int(np.count_nonzero(ok))
            memory_guard(found * _BYTES_PER_PAIR, f"the graph of the more than {found} pairs within the "
                         "radius", "pass a smaller radius, or use knn_graph (n * k edges).")
            bar.update(e - s)
    return np.concatenate(I), np.concatenate(J), np.concatenate(D)


def _numba_threads():  # pragma: no cover - informational
    return numba.get_num_threads()


# ---------------------------------------------------------------------------
# Compiled assembly of the symmetric graph from directed neighbour lists.
# scipy's W.maximum(W.T) is a single-threaded transpose plus a merge over all
# edges; here each directed edge learns in one parallel pass whether its
# reverse exists (and with which weight), so only the one-way edges move.
# ---------------------------------------------------------------------------

@njit(parallel=True, cache=True)
def _unpermute_drop_self(order, idx_sorted, dist_sorted, idx_out, dist_out):
    """Rows of a tree-order query back to user order, each without its own index
    (or without its farthest column when k + 1 duplicates hide it)."""
    m, k1 = idx_sorted.shape
    for r in prange(m):
        i = order[r]
        has_self = False
        for a in range(k1):
            if idx_sorted[r, a] == i:
                has_self = True
        c = 0
        for a in range(k1):
            j = idx_sorted[r, a]
            if (has_self and j == i) or (not has_self and a == k1 - 1):
                continue
            idx_out[i, c] = j
            dist_out[i, c] = dist_sorted[r, a]
            c += 1


@njit(parallel=True, cache=True)
def _reverse_weights(idx, w, reverse):
    """reverse[i, a] = weight of the edge idx[i, a] -> i, or -1 when there is none."""
    n, k = idx.shape
    for i in prange(n):
        for a in range(k):
            j = idx[i, a]
            r = -1.0
            for b in range(k):
                if idx[j, b] == i:
                    r = w[j, b]
                    break
            reverse[i, a] = r


@njit(cache=True)
def _fill_symmetric(idx, w, reverse, mode, indptr, indices, data):
    n, k = idx.shape
    fill = indptr[:-1].copy()
    for i in range(n):
        for a in range(k):
            j = idx[i, a]
            r = reverse[i, a]
            if r >= 0.0:  # two-way edge: symmetric combination, written from both ends
                if mode == 0:
                    value = max(w[i, a], r)
                elif mode == 1:
                    value = min(w[i, a], r)
                else:
                    value = 0.5 * (w[i, a] + r)
                indices[fill[i]] = j
                data[fill[i]] = value
                fill[i] += 1
            elif mode != 1:  # one-way edge: both entries from this end
                value = w[i, a] if mode == 0 else 0.5 * w[i, a]
                indices[fill[i]] = j
                data[fill[i]] = value
                fill[i] += 1
                indices[fill[j]] = i
                data[fill[j]] = value
                fill[j] += 1


@njit(parallel=True, cache=True)
def _sort_rows(indptr, indices, data):
    n = indptr.shape[0] - 1
    for i in prange(n):
        lo = indptr[i]
        hi = indptr[i + 1]
        for a in range(lo + 1, hi):
            key = indices[a]
            val = data[a]
            b = a - 1
            while b >= lo and indices[b] > key:
                indices[b + 1] = indices[b]
                data[b + 1] = data[b]
                b -= 1
            indices[b + 1] = key
            data[b + 1] = val


def symmetric_from_lists(idx, w, mode):
    """CSR arrays (data, indices, indptr) of the symmetrized kNN graph.

    ``mode``: "union" (max of both directions), "mutual" (min; one-way edges
    dropped) or "average" ((w_ij + w_ji) / 2, a missing direction counting 0).
    The two-way combination is commutative, so the result is exactly symmetric.
    """
    n, k = idx.shape
    idx = np.ascontiguousarray(idx, dtype=np.int64)
    w = np.ascontiguousarray(w, dtype=np.float64)
    # The compiled kernels below index without bounds checks: check before they run.
    check_index_array(idx, n, "neighbour indices")
    if np.any(idx == np.arange(n)[:, None]):
        raise ValueError("neighbour indices: a point is listed as its own neighbour (a self-loop).")
    if w.shape != idx.shape or not np.all(w >= 0) or not np.isfinite(w).all():
        raise ValueError("neighbour weights must be finite, non-negative and shaped like the indices.")
    reverse = np.empty((n, k))
    _reverse_weights(idx, w, reverse)
    two_way = reverse >= 0
    if mode == "mutual":
        counts = two_way.sum(axis=1)
    else:
        counts = k + np.bincount(idx[~two_way], minlength=n)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    indices = np.empty(indptr[-1], dtype=np.int64)
    data = np.empty(indptr[-1], dtype=np.float64)
    _fill_symmetric(idx, w, reverse, _MODE_CODES[mode], indptr, indices, data)
    _sort_rows(indptr, indices, data)
    if indptr[-1] < np.iinfo(np.int32).max:
        indices = indices.astype(np.int32)
        indptr = indptr.astype(np.int32)
    return data, indices, indptr


_MODE_CODES = {"union": 0, "mutual": 1, "average": 2}


# ---------------------------------------------------------------------------
# Sparse points (scipy.sparse CSR): exact search without densifying X.
# Candidates come from scikit-learn's brute force on CSR (expanded squared distances), are re-ranked
# with exact distances of the row differences and certified with a rounding-error bound, as the dense
# brute path does; a row whose certificate fails is searched again over all points.
# ---------------------------------------------------------------------------

#: The relative rounding bound of an expanded squared distance |x|^2 + |y|^2 - 2 x.y in float64 over
#: dot products of at most m terms is gamma_{m+3} (|x| + |y|)^2; this factor covers a differently
#: ordered evaluation and the square root taken and undone between the screening and the certificate.
_SPARSE_BOUND_FACTOR = 4.0


def _sparse_rescaled(X):
    """``(X / 2^e, e)`` for a CSR ``X``, in float64 (the search's dtype; the rescaling is exact)."""
    e = power_of_two_exponent(X.data)
    Xs = sp.csr_array(X, dtype=np.float64, copy=True)
    # sorted column indices: sparse_pair_sq_distances then sums each row's squared differences in
    # column order, as _exact_rerank sums a dense row's (the same final distances)
    Xs.sum_duplicates()
    if e:
        Xs.data = np.ldexp(Xs.data, -e)
    return Xs, e


def _row_sq(X):
    """Squared Euclidean norms of the rows of a CSR ``X``."""
    return np.bincount(np.repeat(np.arange(X.shape[0]), np.diff(X.indptr)), X.data * X.data,
                       minlength=X.shape[0])


def _sparse_error_bound(X, sq):
    """Per row, a bound on the rounding of the expanded squared distance to any other row."""
    m = int(np.diff(X.indptr).max()) if X.shape[0] else 0
    u = 2.0**-53
    gamma = (m + 3) * u / (1 - (m + 3) * u)
    norms = np.sqrt(sq)
    return _SPARSE_BOUND_FACTOR * gamma * (norms + (norms.max() if norms.size else 0.0)) ** 2


def sparse_pair_sq_distances(X, i, j):
    r"""Exact :math:`\|x_i - x_j\|^2` for index pairs of a CSR ``X``: the differences of the rows
    formed entry by entry (as for dense rows), in blocks of bounded memory.  With sorted column
    indices the squares are summed in column order, bit for bit the dense :func:`_exact_rerank`."""
    out = np.empty(len(i))
    per_row = max(1.0, X.nnz / max(1, X.shape[0]))
    step = max(1, int(_TILE_BYTES // (4 * 24 * per_row)))
    for s in range(0, len(i), step):
        D = X[i[s:s + step]] - X[j[s:s + step]]
        D = sp.csr_array(D)
        out[s:s + step] = _row_sq(D)
    return out


def _gram_rows(X, rows):
    """``X[rows] @ X.T`` as a dense (len(rows), n) block (callers bound len(rows) * n)."""
    G = X[rows] @ X.T
    return G.toarray() if sp.issparse(G) else np.asarray(G)


def _sparse_rows_block(n):
    """Rows per dense (rows, n) float64 block of at most ``_TILE_BYTES``."""
    return max(1, int(_TILE_BYTES // (8 * max(n, 1))))


def sparse_brute_search(X, n_neighbors, extra=8):
    """Exact kNN of the rows of a CSR ``X`` (float64): ``(distances, indices)``, each (n, k).

    Candidates: scikit-learn's ``NearestNeighbors(algorithm="brute")``, which takes CSR and
    computes the distances in chunks of ~``_TILE_BYTES`` (never an n x d dense array).
    """
    import sklearn
    from sklearn.neighbors import NearestNeighbors

    n = X.shape[0]
    k = n_neighbors
    kk = min(k + extra, n - 1)
    tie = _TieRanks(X)
    with sklearn.config_context(working_memory=_TILE_BYTES / 2**20):
        nn = NearestNeighbors(n_neighbors=kk, algorithm="brute", metric="euclidean").fit(X)
        screened, cand = nn.kneighbors(None, n_neighbors=kk)   # the query point itself excluded
    cand = np.asarray(cand, dtype=np.int64)
    check_index_array(cand, n, "sparse brute-force candidate indices")
    rows = np.repeat(np.arange(n), kk)
    exact = sparse_pair_sq_distances(X, rows, cand.ravel()).reshape(n, kk)
    order = np.argsort(exact, axis=1, kind="stable")
    cand_sorted = np.take_along_axis(cand, order, axis=1)
    exact_sorted = np.take_along_axis(exact, order, axis=1)
    if kk < n - 1:
        # Every non-candidate j has a screened value >= the kk-th one, so its true squared distance is
        # at least screened_kk - bound_i; beyond the k-th exact candidate, the k nearest are candidates.
        sq = _row_sq(X)
        bound = _sparse_error_bound(X, sq)
        floor = screened[:, kk - 1] ** 2 * (1 - 4 * 2.0**-53) - bound
        failed = np.flatnonzero(~(exact_sorted[:, k - 1] < floor))
        _sparse_research(X, sq, bound, failed, k, cand_sorted, exact_sorted, tie)
        exact_sorted[failed, k:] = np.inf   # (stale screening candidates; never re-ordered in)
    # Certified rows hold every point tied with their k-th exact distance (the others are farther);
    # re-searched rows are already in (distance, tie rank) order.
    exact_sorted, cand_sorted = _order_ties(exact_sorted, cand_sorted, k, tie=tie)
    return np.sqrt(exact_sorted), cand_sorted


def _sparse_research(X, sq, bound, rows, k, cand_sorted, exact_sorted, tie):
    """Exact k nearest of the ``rows`` whose certificate failed, over all points (in place).

    The true k-th squared distance is at most the k-th exact candidate's t_i, so every true
    neighbour has an expanded value <= t_i + 2 bound_i: those are re-ranked exactly.
    """
    n = X.shape[0]
    block = _sparse_rows_block(n)
    for s in range(0, rows.size, block):
        r = rows[s:s + block]
        d2 = sq[r][:, None] + sq[None, :] - 2.0 * _gram_rows(X, r)
        d2[np.arange(r.size), r] = np.inf
        # the whole block at once (a Python loop over the rows before): the survivors of every row's screen,
        # their exact distances, and each row's first k in (distance, tie rank) order
        a, j = np.nonzero(d2 <= (exact_sorted[r, k - 1] + 2.0 * bound[r])[:, None])
        ex = sparse_pair_sq_distances(X, r[a], j)
        o = np.lexsort((j, ex, a))
        same = (a[o][1:] == a[o][:-1]) & (ex[o][1:] == ex[o][:-1])
        if same.any():   # a tie within a row: (distance, tie rank) order
            o = np.lexsort((tie[j], ex, a))
        counts = np.bincount(a, minlength=r.size)
        if counts.min() < k:   # the true k nearest pass the screen: fewer means a broken bound
            raise RuntimeError(f"the exact re-search kept fewer than k={k} candidates for a row.")
        first = (np.cumsum(counts) - counts)[:, None] + np.arange(k)
        cand_sorted[r, :k] = j[o][first]
        exact_sorted[r, :k] = ex[o][first]


def _sparse_search_bytes(n, nnz, n_neighbors):
    """Estimated peak bytes of :func:`sparse_brute_search` and the graph assembly after it."""
    total = n * (n_neighbors + 8) * _BYTES_PER_SLOT + 2 * 16 * nnz   # lists; the rescaled and scaled copies
    total += 2 * min(8 * n * n, _TILE_BYTES)                          # a distance chunk and its order
    total += _TILE_BYTES                                              # a block of row differences
    return total


def sparse_knn_search_report(X, n_neighbors, requested, workers=-1, verbose=None):
    """:func:`knn_search_report` for a CSR ``X``: always exact (``"brute"`` on the sparse rows).

    ``requested`` is the user's ``algorithm``; ``"auto"`` and ``"brute"`` are the exact sparse search,
    an approximate backend falls back to it with a RuntimeWarning (``info["fallback"]``), and the
    kd-tree is refused (it needs dense points).
    """
    import time

    t0 = time.perf_counter()
    n, d = X.shape
    if requested == "kd_tree":
        raise ValueError("algorithm='kd_tree' needs dense points; X is sparse.  Use algorithm='brute' or 'auto' "
                         "(exact search on the sparse rows), or pass X.toarray().")
    if not 1 <= n_neighbors < n:
        raise ValueError(f"n_neighbors must be in [1, n_samples - 1] = [1, {n - 1}] (the point itself is not "
                         f"its own neighbour); got {n_neighbors} for {n} points.")
    check_finite_array(X.data, "X")
    memory_guard(_sparse_search_bytes(n, X.nnz, n_neighbors), "the neighbour lists",
                 "reduce n_neighbors or the number of points.")
    fallback = requested not in ("auto", "brute")
    if fallback:
        warn(f"algorithm={requested!r} takes dense points only; X is sparse, so the neighbours are "
             "found by exact search on the sparse rows ('brute').", RuntimeWarning)
    Xs, e = _sparse_rescaled(X)
    progress = _Progress(verbose, "kNN search")
    with progress.scope():
        dist, idx = sparse_brute_search(Xs, n_neighbors)
    check_index_array(idx, n, "neighbour indices")
    info = _new_info(requested, "brute", True)
    info.update(fallback=fallback, seconds=time.perf_counter() - t0)
    return dist, idx, 2.0 ** e, info


def sparse_pairs_within_radius(X, radius, algorithm):
    """:func:`pairs_within_radius` (``return_scale=True``) for a CSR ``X``: ``(i, j, distances, scale)``.

    Screening by expanded squared distances in dense (rows, n) blocks of ~``_TILE_BYTES`` with a
    rounding-error margin, then exact distances of the row differences for the survivors.
    """
    n, d = X.shape
    if algorithm == "kd_tree":
        raise ValueError("algorithm='kd_tree' needs dense points; X is sparse.  Use algorithm='brute' or 'auto' "
                         "(exact search on the sparse rows), or pass X.toarray().")
    check_finite_array(X.data, "X")
    X, e = _sparse_rescaled(X)
    with np.errstate(over="ignore", under="ignore"):
        radius = radius / 2.0 ** e
    radius = min(radius, 4.0 * np.sqrt(d))     # as in pairs_within_radius: no pair is farther apart
    sq = _row_sq(X)
    bound = _sparse_error_bound(X, sq)
    limit = radius * (1 + RADIUS_RTOL)
    screen = limit * limit * (1 + 1e3 * RADIUS_RTOL)
    block = _sparse_rows_block(n)
    # the pairs' memory, estimated from evenly spaced rows before the search (as _guard_pairs)
    sample = np.unique(np.linspace(0, n - 1, min(n, _PAIR_SAMPLE)).astype(np.int64))
    others = 0.0
    for s in range(0, sample.size, block):
        r = sample[s:s + block]
        d2 = sq[r][:, None] + sq[None, :] - 2.0 * _gram_rows(X, r)
        others += float(np.count_nonzero(d2 <= screen + bound[r][:, None])) - r.size
    pairs = max(others, 0.0) * n / sample.size / 2
    memory_guard(pairs * _BYTES_PER_PAIR, f"the graph of the about {pairs:.3g} pairs within the radius "
                 f"(estimated from {sample.size} points)", "pass a smaller radius, or use knn_graph (n * k edges).")
    def candidates(s, e):
        r = np.arange(s, e)
        return np.nonzero(sq[r][:, None] + sq[None, :] - 2.0 * _gram_rows(X, r) <= screen + bound[r][:, None])

    i, j, dist = _radius_pairs_by_blocks(n, block, "radius search (sparse brute)", candidates,
                                         lambda i, j: np.sqrt(sparse_pair_sq_distances(X, i, j)), limit)
    return i, j, dist, 2.0 ** e
