"""Graph Laplacians, degrees and connected components."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from scipy.sparse import csgraph

from .._core.backend import DISTRIBUTED_BACKENDS, check_backend, get_backend
from .._core.types import FloatDType, GraphLike, LaplacianKind
from .._core.validation import GraphWarning, check_index_array, check_option, check_scalar, warn
from .._core.labels import label_free_mask
from ._convert import _to_sparse, as_adjacency


__all__ = [
    "laplacian",
    "laplacian_rows",
    "degrees",
    "connected_components",
    "unlabeled_components",
]


def _row_sums(W):
    # an overflowing row sum is inf; the callers test for it and say so
    with np.errstate(over="ignore"):
        return np.asarray(W.sum(axis=1)).ravel()


def degrees(W: GraphLike) -> NDArray[np.floating]:
    """Weighted degrees :math:`d_i = \\sum_j w_{ij}` of any graph form.

    Raises a ``ValueError`` when a row sum of finite weights overflows the dtype (scale W down: the
    normalized Laplacians do not depend on its scale).
    """
    W = as_adjacency(W)
    d = _row_sums(W)
    if not np.isfinite(d).all():
        raise ValueError(f"the degrees (row sums) of W overflow {np.dtype(d.dtype).name}; scale W down (the "
                         "normalized Laplacians do not depend on its scale).")
    return d


def laplacian(W: GraphLike, kind: LaplacianKind = "combinatorial", *, dtype: FloatDType = None,
              backend: str = "auto") -> sp.csr_array:
    r"""Graph Laplacian of an adjacency matrix.

    Parameters
    ----------
    W : graph
        Any form :func:`as_adjacency` accepts.
    kind : {"combinatorial", "normalized", "randomwalk"}, default="combinatorial"
        :math:`D - W`, :math:`I - D^{-1/2} W D^{-1/2}` or :math:`I - D^{-1} W`.
    dtype : {None, float32, float64}
        As in :func:`as_adjacency`.
    backend : {"auto", "numpy", "numba", "scipy", "mpi", "dask"}, default="auto"
        ``"mpi"`` / ``"dask"``: the rows are split into contiguous blocks of
        equal numbers of stored entries, each rank / worker computes the
        degrees of its rows, the degrees are gathered, each computes its rows
        of L (:func:`laplacian_rows`) and the blocks are gathered, so every
        rank (or the Dask client) gets the whole matrix -- equal to the serial
        one entry for entry (the same floating-point operations on every
        entry).  ``"auto"`` and ``"numpy"`` compute it in this process, also
        under ``mpiexec`` or with a Dask client: with the adjacency already on
        every process, one pass over its entries (O(nnz), about 0.3 s at
        10^6 nodes and 1.2 x 10^7 entries) costs less than gathering the
        blocks of L.  ``"numba"`` / ``"scipy"`` (the serial spellings every
        ``backend`` argument accepts) compute it in this process as ``"numpy"``.

    Returns
    -------
    L : scipy.sparse.csr_array
        Symmetric for the first two kinds.  Rows (and columns) of isolated
        nodes are zero in every kind: the normalized forms use
        :math:`d_i^{-1/2} = 0` and put 0, not 1, on their diagonal.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import laplacian
    >>> laplacian(np.array([[0., 1.], [1., 0.]])).toarray()
    array([[ 1., -1.],
           [-1.,  1.]])
    """
    check_option(kind, "kind", LAPLACIANS)
    check_backend(backend)
    W = as_adjacency(W, dtype=dtype)
    if backend in DISTRIBUTED_BACKENDS:
        return get_backend(backend).laplacian(W, kind)
    return laplacian_rows(W, kind, 0, W.shape[0])


def laplacian_rows(W: GraphLike, kind: LaplacianKind = "combinatorial", start: int = 0, stop: int | None = None, *,
                   degrees: ArrayLike | None = None) -> sp.csr_array:
    r"""Rows ``start:stop`` of the graph Laplacian: the block a process computes in a row-distributed build.

    With :math:`d` the degrees, the rows are those of :func:`laplacian`:
    :math:`L_{ij} = d_i [i=j] - w_{ij}` (combinatorial),
    :math:`[i=j][d_i>0] - w_{ij} d_i^{-1/2} d_j^{-1/2}` (normalized) or
    :math:`[i=j][d_i>0] - w_{ij} / d_i` (random walk), with
    :math:`d_i^{-1/2} = 1/d_i = 0` for isolated nodes.  Each entry is computed
    by the same floating-point operations whatever the block, so stacking the
    blocks of any row split gives :func:`laplacian` exactly.

    Parameters
    ----------
    W : graph
        The adjacency (any form :func:`as_adjacency` accepts), of which only
        the rows ``start:stop`` are read -- or, with ``degrees`` given, just
        those rows (a ``(stop - start, n)`` sparse block).
    kind : {"combinatorial", "normalized", "randomwalk"}
        As in :func:`laplacian`.
    start, stop : int
        The row range (``stop=None``: to the last row).
    degrees : array of shape (n,), optional
        The degrees of *all* nodes (row sums of the whole adjacency); the
        normalized Laplacian needs the degrees of the columns too.  Default:
        the row sums of ``W`` (which must then be the whole ``(n, n)``
        adjacency).  Self-loops of a given row block are removed with a
        :class:`~graphrkhs.GraphWarning`, as :func:`as_adjacency` removes those
        of a whole adjacency.

    Returns
    -------
    L_rows : scipy.sparse.csr_array of shape (stop - start, n)
        Sorted indices, no explicit zeros off the diagonal.
    """
    check_option(kind, "kind", LAPLACIANS)
    # int(0.5) silently made row 0 the start
    start = check_scalar(start, "start", kind="int")
    stop = check_scalar(stop, "stop", kind="int", allow_none=True)
    if degrees is None:
        shape = np.shape(W) if not sp.issparse(W) else W.shape
        if len(shape) == 2 and shape[0] != shape[1]:
            raise ValueError(f"W has shape {shape}: pass the whole (n, n) adjacency, or its row block with "
                             "degrees= the degrees of all n nodes.")
        W = as_adjacency(W)              # the whole adjacency: validated (symmetric, finite, >= 0) and float
    else:
        # a row block (no symmetry to check): float, finite and non-negative
        # read as as_adjacency reads a graph: integer and boolean sparse input cast to float64 before the CSR
        # conversion, which sums duplicate COO entries in the input's dtype (uint8 200 + 100 wrapped around to
        # 44, and L_01 was -44 for laplacian's -300); float16 arrays upcast (scipy.sparse refused them with an
        # error naming no argument); strings and objects refused with a TypeError
        try:
            W = _to_sparse(W)
        except TypeError as exc:      # its messages speak of "the adjacency": here W is a row block
            raise TypeError(f"W (a row block): {exc}") from None
        if np.issubdtype(W.dtype, np.complexfloating) or not (np.issubdtype(W.dtype, np.number)
                                                                or W.dtype == bool):
            # astype(float64) dropped the imaginary part with only a ComplexWarning
            raise TypeError(f"W must hold real weights; got dtype {W.dtype}.")
        if W.dtype not in (np.float32, np.float64):
            W = W.astype(np.float64)
        if not W.has_canonical_format:
            # duplicate entries summed (on a copy) before the check: w_01 stored as -1 and 4 is the weight 3
            W = sp.csr_array(W, copy=True)
            W.sum_duplicates()
        if not np.isfinite(W.data).all() or (W.data < 0).any():
            raise ValueError("W must hold finite non-negative edge weights.")
    n = W.shape[1]
    if degrees is None:
        if W.shape[0] != n:
            raise ValueError(f"W has shape {W.shape}: pass the whole (n, n) adjacency, or its row block with "
                             "degrees= the degrees of all n nodes.")
        d = _row_sums(W)
        if kind != "combinatorial" and not np.isfinite(d).all():
            # degrees above the largest float: the normalized forms do not change when W is multiplied by
            # c > 0, so a power of two (exact) that keeps every row sum finite gives the same matrix
            # (1/sqrt(inf) = 0 zeroed those rows' entries).  k = ceil(log2 n) + 1 suffices: w_ij <= max.
            W = W * np.asarray(2.0 ** -(int(np.ceil(np.log2(n))) + 1), dtype=W.dtype)
            d = _row_sums(W)
    else:
        d = np.asarray(degrees).ravel()
        if d.dtype.kind != "f":
            d = d.astype(np.float64)
        if d.shape != (n,):
            raise ValueError(f"degrees must have one entry per node ({n}); got shape {d.shape}.")
        if np.isnan(d).any() or (d < 0).any():
            # a negative degree gave a diagonal of -1 (combinatorial) or a zero row (normalized) silently
            raise ValueError("degrees must be finite and >= 0 (the row sums of the whole adjacency); got "
                             f"{'NaN' if np.isnan(d).any() else f'min {d.min():g}'}.")
    if not np.isfinite(d).all():
        raise ValueError(f"the degrees (row sums) of W overflow {np.dtype(d.dtype).name}: "
                         + ("D - W is not representable; scale W down." if kind == "combinatorial"
                            else "pass finite degrees=, or scale W down."))
    stop = n if stop is None else stop
    if not 0 <= start <= stop <= n:
        raise ValueError(f"need 0 <= start <= stop <= n = {n}; got start={start}, stop={stop}.")
    if W.shape[0] == n:
        block = W if (start, stop) == (0, n) else W[start:stop]
    elif W.shape[0] == stop - start:
        block = W        # the caller's row block itself
    else:
        raise ValueError(f"W has {W.shape[0]} rows: pass the whole adjacency or exactly the rows start:stop "
                         f"({stop - start}).")
    rows = np.arange(stop - start)
    if degrees is not None and block.nnz:
        # as as_adjacency removes them from a whole adjacency: a self-loop w_ii kept here was subtracted from the
        # diagonal (a normalized L_ii of 1 - w_ii / d_i, e.g. -2, where laplacian gives 1)
        on_diagonal = block.indices == np.repeat(rows, np.diff(block.indptr)) + start
        if on_diagonal.any():
            warn("W has self-loops; they were removed (graphs here have a zero diagonal).", GraphWarning)
            block = sp.csr_array(block, copy=True)
            block.data[on_diagonal] = 0
            block.eliminate_zeros()
    d_rows = d[start:stop]
    if kind == "combinatorial":
        diag = d_rows.astype(W.dtype)
        off = block
    else:
        inv = np.zeros(d.shape, dtype=d.dtype)   # floating (W is): no truncation of 1/sqrt(d)
        diag = (d_rows > 0).astype(W.dtype)
        row_of_entry = np.repeat(rows, np.diff(block.indptr))
        if kind == "normalized":
            # 1/sqrt(d) is finite for every positive float d, subnormal included
            inv[d > 0] = 1.0 / np.sqrt(d[d > 0])
            # w_ij * a_i * a_j with the larger factor first, so that L_ij and L_ji are the same rounded
            # product (L exactly symmetric) and no intermediate leaves the range: a_max = 1/sqrt(min(d_i, d_j))
            # and w_ij <= min(d_i, d_j) keep w_ij a_max <= sqrt(w_ij), and w_ij a_max >= w_ij / sqrt(d) is
            # no smaller than the result where a_min < 1.  The smaller factor first underflowed: float32
            # w = 1e-30 between degrees 1e30 and 1e-30 gave L_ij = -1.4e-30 (a subnormal 1e-45 rescaled)
            # for -1e-30, and float64 w = 1e-300 between 1e300 and 1e-300 gave 0 for -1e-300
            a_row = inv[start:stop][row_of_entry].astype(W.dtype)
            a_col = inv[block.indices].astype(W.dtype)
            values = (block.data * np.maximum(a_row, a_col)) * np.minimum(a_row, a_col)
        else:
            # w_ij / d_i, not w_ij * (1/d_i): 1/d_i is inf for a subnormal degree, w_ij / d_i <= 1 always
            d_entry = d_rows[row_of_entry].astype(W.dtype)
            values = np.zeros_like(block.data)
            np.divide(block.data, d_entry, out=values, where=d_entry > 0)
        off = sp.csr_array((values, block.indices, block.indptr), shape=block.shape)
    # the diagonal block in CSR form with the adjacency's index dtype: built from int64 (row, col) pairs
    # it would make scipy give L 64-bit indices (twice the memory, and refused by pyamg's compiled code)
    index_dtype = block.indices.dtype if block.nnz else np.int32
    if n >= np.iinfo(np.int32).max:
        index_dtype = np.int64
    D = sp.csr_array((diag, (rows + start).astype(index_dtype), np.arange(stop - start + 1, dtype=index_dtype)),
                     shape=block.shape)
    L = sp.csr_array(D - off, dtype=W.dtype)
    if L.indices.dtype != index_dtype and L.nnz < np.iinfo(np.int32).max and index_dtype == np.int32:
        L.indices, L.indptr = L.indices.astype(np.int32), L.indptr.astype(np.int32)
    L.sort_indices()
    return L


def connected_components(W: GraphLike) -> tuple[int, NDArray[np.integer]]:
    """Connected components of an (undirected) graph.

    Returns
    -------
    n_components : int
    labels : ndarray of shape (n,)
        Component index of each node.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import connected_components
    >>> connected_components(np.array([[0., 1, 0], [1, 0, 0], [0, 0, 0]]))
    (2, array([0, 0, 1], dtype=int32))
    """
    W = as_adjacency(W)
    return csgraph.connected_components(W, directed=False)


def bipartite_component_count(W) -> int:
    r"""The number of connected components with at least one edge that are bipartite.

    Such a component is what puts the eigenvalue 2 in the spectrum of the
    normalized Laplacian :math:`I - D^{-1/2} W D^{-1/2}`, which otherwise lies
    in :math:`[0, 2)` (Chung, *Spectral Graph Theory*, 1997, Lemma 1.7).
    Counted on the bipartite double cover :math:`\begin{pmatrix} 0 & W \\ W & 0 \end{pmatrix}`:
    a connected component of W lifts to two components of the cover if it is
    bipartite (an isolated node too) and to one otherwise, so the count is
    ``c(cover) - c(W) - (isolated nodes)``; O(n + nnz), no eigenvalue.

    ``W`` is a sparse matrix whose off-diagonal non-zeros are the edges (an
    adjacency, or a Laplacian: the diagonal is ignored, signs do not matter).
    """
    A = sp.coo_array(W)
    off = A.row != A.col
    off &= A.data != 0
    r, c = A.row[off], A.col[off]
    n = A.shape[0]
    r, c = np.concatenate([r, c]), np.concatenate([c, r])   # both directions: a triangle given is a graph
    G = sp.coo_array((np.ones(r.size, dtype=np.int8), (r, c)), shape=(n, n)).tocsr()
    cover = sp.coo_array((np.ones(2 * r.size, dtype=np.int8), (np.concatenate([r, r + n]), np.concatenate([c + n, c]))),
                         shape=(2 * n, 2 * n)).tocsr()
    isolated = int(np.count_nonzero(np.diff(G.indptr) == 0))
    n_g = csgraph.connected_components(G, directed=False)[0]
    n_cover = csgraph.connected_components(cover, directed=False)[0]
    return int(n_cover - n_g - isolated)


LAPLACIANS = ("combinatorial", "normalized", "randomwalk")


def unlabeled_components(W: GraphLike, labeled_idx: ArrayLike) -> NDArray[np.bool_]:
    """Boolean mask of the nodes whose connected component holds no labeled node.

    Parameters
    ----------
    W : graph
        Any form :func:`~graphrkhs.as_adjacency` accepts.
    labeled_idx : array of int
        Labeled nodes.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import unlabeled_components
    >>> W = np.array([[0., 1, 0], [1, 0, 0], [0, 0, 0]])
    >>> unlabeled_components(W, [0])
    array([False, False,  True])
    """
    W = as_adjacency(W)
    idx = np.asarray(labeled_idx)
    if idx.dtype == bool and idx.shape == (W.shape[0],):
        idx = np.flatnonzero(idx)
    elif idx.size == 0:
        idx = idx.astype(np.int64)  # [] reads as float64
    # an index past the end would otherwise surface as an IndexError deep inside
    check_index_array(idx.ravel(), W.shape[0], "labeled_idx")
    return label_free_mask(W, idx.ravel())
