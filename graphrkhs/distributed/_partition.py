r"""Graph partitioning and the communication plan of a row-distributed sparse matrix.

A partition assigns every node (row) to one of P processes.  Process r then
*owns* the rows of its nodes and, to multiply its rows of L with a block of
signals, needs the signal rows of the nodes its rows reference but does not
own: its *ghost rows*.  :class:`PartitionPlan` lists, for every process,

* ``owned`` -- its nodes in local order: *interior* nodes (no edge to another
  part) first, then *boundary* nodes, each group in a locality order (RCM or
  the given order), so that the rows that wait for ghost data are a
  contiguous tail of the local block;
* ``ghosts`` -- the ghost nodes, grouped by owning process (ascending), then
  by node number;
* the send lists: which of its owned rows each neighbour needs, in the order
  that neighbour stores them as ghosts.

The partition itself comes from METIS (``pymetis``, k-way, minimizing the
edge cut, i.e. the halo volume); without pymetis, contiguous blocks of
equal size in reverse Cuthill-McKee order (a warning says so).  A given
assignment (e.g. the cells of a distributed kNN construction) is used as is.
"""

import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph

from .._core.validation import GraphWarning, check_scalar, warn

__all__ = ["PartitionPlan", "partition_graph", "partition_plan"]

PARTITIONERS = ("auto", "metis", "rcm")


def _pattern(A):
    A = sp.csr_array(A)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"A must be a square sparse matrix; got shape {A.shape}.")
    if not A.has_canonical_format:
        # csr_array(A) shares the caller's arrays: summing its duplicates in place rewrote them (the caller's
        # W then had stale entries past its nnz: W.tocoo() raised, W.count_nonzero() counted 7 of 4 entries)
        A = A.copy()
        A.sum_duplicates()
    return A


def _rcm_blocks(A, n_parts):
    n = A.shape[0]
    order = csgraph.reverse_cuthill_mckee(sp.csr_matrix(A), symmetric_mode=True).astype(np.int64)
    part = np.empty(n, dtype=np.int64)
    # equal-size contiguous blocks of the RCM order (the last ones may be empty when n < P)
    bounds = (np.arange(n_parts + 1) * n) // n_parts
    part[order] = np.searchsorted(bounds, np.arange(n), side="right") - 1
    return part, order


def partition_graph(A, n_parts, *, method="auto", seed=0):
    r"""Assign each node of a graph to one of ``n_parts`` parts.

    Parameters
    ----------
    A : sparse matrix of shape (n, n)
        Adjacency or Laplacian; only the off-diagonal pattern is used
        (symmetrized).
    n_parts : int >= 1
    method : {"auto", "metis", "rcm"}, default="auto"
        ``"metis"``: METIS k-way partitioning through pymetis (minimal edge
        cut under a 3% imbalance); ``"rcm"``: contiguous blocks of equal size
        along the reverse Cuthill-McKee order; ``"auto"``: METIS when pymetis
        is installed, else RCM with a :class:`~graphrkhs.GraphWarning`.
    seed : int in [0, 2**32 - 1], default=0
        METIS's random seed (the same partition on every process).  METIS
        reads it as a 32-bit unsigned seed, so other integers are refused:
        ``-1`` would be METIS's "default seed" (4321) and ``2**32 + s`` the
        seed ``s``, two requests silently answered with another one's
        partition.  Unused by ``method="rcm"``, which draws nothing, but checked
        for every method (``"auto"`` may run METIS).  It reaches METIS
        (``pymetis.Options(seed=...)``): seeds 2-5 gave 4 different
        partitions of 10-NN graphs of 200 and 2000 points, but seeds 0 and 1
        the same one (on 40, 200 and 2000 points; METIS seeds the C library's
        ``srand``, which takes 0 for 1 in glibc), and a small or very regular
        graph may have one best partition for every seed.

    Returns
    -------
    part : ndarray of int64, shape (n,)
        Part of every node; some parts may be empty (more parts than nodes).
    """
    A = _pattern(A)
    n = A.shape[0]
    n_parts = check_scalar(n_parts, "n_parts", kind="int", low=1)
    # int(seed) made 2.7 a 2 and True a 1 without a word, and 'a' raised "invalid literal for int()"
    seed = check_scalar(seed, "seed", kind="int")
    if not 0 <= seed < 2**32:
        # METIS reads the seed as a 32-bit unsigned int: -1 gave its default seed 4321's partition, -5 the
        # seed 2**32 - 5's, and 2**32 + s the seed s's, all without a word
        raise ValueError(f"seed must be an int in [0, 2**32 - 1] (METIS's 32-bit unsigned seed); got {seed}. "
                         "Pass a non-negative seed below 2**32.")
    if method not in PARTITIONERS:
        raise ValueError(f"method must be one of {PARTITIONERS}; got {method!r}.")
    if n_parts == 1 or n == 0:
        return np.zeros(n, dtype=np.int64)
    if method in ("auto", "metis"):
        try:
            import pymetis
        except ImportError:
            if method == "metis":
                raise ImportError("method='metis' needs pymetis (pip install pymetis).") from None
            warn("pymetis is not installed: partitioning the graph into contiguous blocks of its reverse "
                 "Cuthill-McKee order, which cuts more edges (more halo traffic) than METIS; "
                 "pip install pymetis.", GraphWarning)
            return _rcm_blocks(A, n_parts)[0]
        S = sp.csr_array(A + A.T)
        S.setdiag(0)
        S.eliminate_zeros()
        S.sort_indices()
        if S.nnz == 0 or n <= n_parts:
            # METIS needs edges to cut; without them any balanced split is optimal
            return _rcm_blocks(A, n_parts)[0]
        opts = pymetis.Options(seed=int(seed))
        adjacency = pymetis.CSRAdjacency(S.indptr.astype(np.int64), S.indices.astype(np.int64))
        _, membership = pymetis.part_graph(n_parts, adjacency, options=opts)
        return np.asarray(membership, dtype=np.int64)
    return _rcm_blocks(A, n_parts)[0]


def check_part(part, n):
    """``part`` as int64 of shape (n,): integers, or floats with integral values (never truncated)."""
    raw = np.asarray(part)
    if raw.shape != (n,):
        raise ValueError(f"part must have shape ({n},); got {raw.shape}.")
    if raw.dtype.kind not in "iufb":
        raise TypeError(f"part must be an integer array of part numbers; got dtype {raw.dtype}.")
    with np.errstate(invalid="ignore"):
        part = raw.astype(np.int64)
    if raw.dtype.kind not in "iu" and not np.array_equal(part, raw):
        # part=1.7 became part 1 (a node silently moved), NaN an arbitrary part
        bad = raw[part != raw][0].item()
        raise ValueError(f"part must hold integer part numbers; got {bad!r}.")
    return part


class PartitionPlan:
    r"""Owned rows, ghost rows and send lists of every part (see the module doc).

    Attributes
    ----------
    n, n_parts : int
    part : ndarray (n,)
        Part of every node.
    owned : list of ndarray
        Per part, its nodes in local order (interior first, then boundary).
    n_interior : ndarray (n_parts,)
        Interior nodes of each part (the first ``n_interior[r]`` of ``owned[r]``).
    ghosts : list of ndarray
        Per part, its ghost nodes grouped by owner (ascending), then by node.
    local_index : ndarray (n,)
        Position of every node in its part's ``owned``.
    halo_volume : ndarray (n_parts,)
        Ghost rows per part (rows received per column of a block product).
    """

    def __init__(self, A, part, n_parts, order=None):
        A = _pattern(A)
        n = A.shape[0]
        part = check_part(part, n)
        # 0 parts failed as "part must hold part numbers in [0, 0)", and 2.5 made 2 parts without a word
        n_parts = check_scalar(n_parts, "n_parts", kind="int", low=1)
        if order is not None:
            order = np.asarray(order)
            if order.shape != (n,) or order.dtype.kind not in "iu" or not np.array_equal(np.sort(order),
                                                                                      np.arange(n)):
                raise ValueError(f"order must be a permutation of range({n}) (a locality order of the nodes); "
                                 f"got an array of shape {order.shape} and dtype {order.dtype} that is not.")
        if n and (part.min() < 0 or part.max() >= n_parts):
            raise ValueError(f"part must hold part numbers in [0, {n_parts}).")
        self.n, self.n_parts, self.part = n, int(n_parts), part
        rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(A.indptr))
        cols = A.indices.astype(np.int64)
        cut = part[rows] != part[cols]
        boundary = np.zeros(n, dtype=bool)
        boundary[rows[cut]] = True
        rank_key = np.arange(n, dtype=np.int64)
        if order is not None:
            rank_key[np.asarray(order, dtype=np.int64)] = np.arange(n, dtype=np.int64)
        # local order: by part, then interior before boundary, then the locality order
        local = np.lexsort((rank_key, boundary, part))
        counts = np.bincount(part, minlength=n_parts)
        starts = np.concatenate([[0], np.cumsum(counts)])
        self.owned = [local[starts[r]:starts[r + 1]] for r in range(n_parts)]   # P slices
        self.n_interior = np.bincount(part[~boundary], minlength=n_parts)
        self.local_index = np.empty(n, dtype=np.int64)
        self.local_index[local] = np.arange(n, dtype=np.int64) - starts[part[local]]
        # ghost entries (dest part, node), unique, sorted by (dest, owner, node)
        dest = part[rows[cut]]
        node = cols[cut]
        key = np.unique(dest * max(n, 1) + node)
        dest, node = key // max(n, 1), key % max(n, 1)
        owner = part[node]
        o = np.lexsort((node, owner, dest))
        self._dest, self._node, self._owner = dest[o], node[o], owner[o]
        gstarts = np.searchsorted(self._dest, np.arange(n_parts + 1))
        self.ghosts = [self._node[gstarts[r]:gstarts[r + 1]] for r in range(n_parts)]  # P slices
        self._gstarts = gstarts
        self.halo_volume = np.diff(gstarts)

    def rank_plan(self, r):
        """The arguments of :meth:`Communicator.halo` for part ``r``, and its owned/ghost nodes.

        Returns a dict with ``owned``, ``ghosts``, ``n_interior``, ``sources``,
        ``recv_counts``, ``destinations``, ``send_counts``, ``send_index``.
        """
        g = slice(self._gstarts[r], self._gstarts[r + 1])
        sources, recv_counts = np.unique(self._owner[g], return_counts=True)
        mine = self._owner == r    # entries r sends, already sorted by (dest, node)
        send_dest = self._dest[mine]
        destinations, send_counts = np.unique(send_dest, return_counts=True)
        return {
            "owned": self.owned[r],
            "ghosts": self.ghosts[r],
            "n_interior": int(self.n_interior[r]),
            "sources": sources,
            "recv_counts": recv_counts,
            "destinations": destinations,
            "send_counts": send_counts,
            "send_index": self.local_index[self._node[mine]],
        }

    def __repr__(self):
        sizes = [o.size for o in self.owned]
        return (f"PartitionPlan(n={self.n}, n_parts={self.n_parts}, sizes={sizes}, "
                f"halo_volume={self.halo_volume.tolist()})")


def partition_plan(A, n_parts, *, part=None, method="auto", order=None, seed=0):
    """Partition ``A`` (or take ``part``) and build its :class:`PartitionPlan`."""
    if part is None:
        part = partition_graph(A, n_parts, method=method, seed=seed)
    return PartitionPlan(A, part, n_parts, order=order)
