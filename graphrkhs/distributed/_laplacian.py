r"""Row-distributed construction of graph Laplacians (``laplacian(W, kind, backend="mpi" | "dask")``).

The rows are split into contiguous blocks holding equal numbers of stored
entries.  Each process (MPI rank or Dask task) sums the rows of its block
(the degrees), the degrees are gathered -- the normalized Laplacian's entry
:math:`w_{ij} d_i^{-1/2} d_j^{-1/2}` needs the degree of the column too --
and each process computes its rows of :math:`L` with
:func:`graphrkhs.graphs.laplacian_rows`.  The row blocks are then gathered,
so the result is the whole matrix, as :func:`graphrkhs.graphs.laplacian`
returns it: every entry comes from the same floating-point operations as in
the serial build, so the two agree exactly.
"""

import numpy as np
import scipy.sparse as sp

from .._core.validation import check_scalar
from ..graphs import as_adjacency, laplacian_rows

__all__ = ["row_blocks", "mpi_laplacian", "dask_laplacian"]


def row_blocks(indptr, n_parts):
    """Bounds ``b`` (length ``n_parts + 1``) of contiguous row blocks with equal numbers of stored entries.

    Block ``p`` is rows ``b[p]:b[p+1]``; blocks may be empty (more parts than rows).
    """
    indptr = np.asarray(indptr)
    n_parts = check_scalar(n_parts, "n_parts", kind="int", low=1)   # int(2.5) made 2 parts without a word
    # a decreasing or shifted indptr (not a CSR row pointer) gave bounds that silently dropped or repeated rows
    if (indptr.ndim != 1 or indptr.size == 0 or not np.issubdtype(indptr.dtype, np.integer) or indptr[0] != 0
            or np.any(np.diff(indptr) < 0)):
        raise ValueError("indptr must be a CSR row pointer: 1-D integers starting at 0 and non-decreasing "
                         "(pass W.indptr of a scipy.sparse CSR matrix).")
    n = indptr.size - 1
    nnz = int(indptr[-1])
    if nnz == 0:
        bounds = np.linspace(0, n, n_parts + 1).round().astype(np.int64)
    else:
        bounds = np.searchsorted(indptr, np.linspace(0, nnz, n_parts + 1), side="left").astype(np.int64)
    bounds[0], bounds[-1] = 0, n
    return np.maximum.accumulate(np.minimum(bounds, n))


def _row_sums(block):
    # an overflowing row sum is inf (as the serial build's): _overflows tests for it
    with np.errstate(over="ignore"):
        return np.asarray(block.sum(axis=1)).ravel()


def _overflows(d, kind):
    """Whether the normalized forms need W scaled down: a degree above the largest float (``laplacian``'s rule)."""
    return kind != "combinatorial" and not np.isfinite(d).all()


def _downscaled(block, n):
    """A row block of W times the power of two by which :func:`graphrkhs.laplacian` scales the whole W when a
    degree overflows (``2^-(ceil(log2 n) + 1)``: exact, and the normalized Laplacians do not depend on the scale
    of W), so that every entry comes from the same operations as in the serial build."""
    return block * np.asarray(2.0 ** -(int(np.ceil(np.log2(n))) + 1), dtype=block.dtype)


def _stack(blocks, n, dtype):
    L = sp.csr_array(sp.vstack(blocks, format="csr"), dtype=dtype) if blocks else sp.csr_array((n, n), dtype=dtype)
    L.sort_indices()
    return L


def mpi_laplacian(W, kind, comm):
    """``laplacian(W, kind)`` computed by row blocks on the ranks of ``comm`` (W on every rank).

    W is read by :func:`~graphrkhs.as_adjacency` first, as :func:`~graphrkhs.laplacian` reads it (self-loops
    removed with a warning before the degrees are summed; an asymmetric W refused)."""
    return _mpi_laplacian(as_adjacency(W), kind, comm)


def _mpi_laplacian(W, kind, comm):
    """:func:`mpi_laplacian` on an adjacency already read by :func:`~graphrkhs.as_adjacency` (the backend's
    ``laplacian``, called by :func:`~graphrkhs.laplacian` after its own check).  A self-loop left in W counted in
    the degree of its row block (L_00 = 3 for laplacian's 1) while laplacian_rows dropped it from the row."""
    W = sp.csr_array(W)
    n = W.shape[0]
    bounds = row_blocks(W.indptr, comm.size)
    start, stop = int(bounds[comm.rank]), int(bounds[comm.rank + 1])
    block = W[start:stop]
    d = comm.allgather_rows(_row_sums(block).astype(W.dtype, copy=False))
    if _overflows(d, kind):
        # the gathered degrees are the same on every rank: all take this branch together.  Without it the
        # normalized forms of a W whose degrees overflow raised ("pass finite degrees=") where laplacian(W) works
        block = _downscaled(block, n)
        d = comm.allgather_rows(_row_sums(block).astype(W.dtype, copy=False))
    L_rows = laplacian_rows(block, kind, start, stop, degrees=d)
    counts = comm.allgather_rows(np.diff(L_rows.indptr).astype(np.int64))
    indices = comm.allgather_rows(L_rows.indices.astype(np.int64))
    data = comm.allgather_rows(L_rows.data)
    indptr = np.concatenate([[0], np.cumsum(counts)])
    index_dtype = np.int32 if max(n, data.size) < np.iinfo(np.int32).max else np.int64
    L = sp.csr_array((data, indices.astype(index_dtype), indptr.astype(index_dtype)), shape=(n, n))
    L.sort_indices()
    return L


def dask_laplacian(W, kind, client, n_parts=None):
    """``laplacian(W, kind)`` by row blocks on the workers of a ``distributed.Client``, gathered to the client.

    W is read by :func:`~graphrkhs.as_adjacency` first, as by :func:`mpi_laplacian`."""
    return _dask_laplacian(as_adjacency(W), kind, client, n_parts)


def _dask_laplacian(W, kind, client, n_parts=None):
    """:func:`dask_laplacian` on an adjacency already read by :func:`~graphrkhs.as_adjacency`."""
    W = sp.csr_array(W)
    n = W.shape[0]
    if n_parts is None:
        from ._workers import dask_workers

        n_parts = max(1, len(dask_workers(client)))
    bounds = row_blocks(W.indptr, n_parts)
    spans = [(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]
    if not spans:
        return laplacian_rows(W, kind, 0, n)
    # hash=False: unique keys per call; with content-hashed keys a second call on the same matrix reuses the
    # keys of the first, whose release can drop the data under the new futures ("lost dependencies")
    blocks = client.scatter([W[a:b] for a, b in spans], hash=False)
    sums = client.gather(client.map(_row_sums, blocks))
    d = np.concatenate(sums).astype(W.dtype, copy=False)
    if _overflows(d, kind):
        # as mpi_laplacian: W scaled down as laplacian(W) scales it
        blocks = client.scatter([_downscaled(W[a:b], n) for a, b in spans], hash=False)
        d = np.concatenate(client.gather(client.map(_row_sums, blocks))).astype(W.dtype, copy=False)
    d_future = client.scatter(d, broadcast=True, hash=False)
    parts = client.map(lambda blk, ab, deg: laplacian_rows(blk, kind, ab[0], ab[1], degrees=deg),
                       blocks, spans, [d_future] * len(spans), pure=False)
    return _stack(client.gather(parts), n, W.dtype)
