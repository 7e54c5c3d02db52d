r"""A row-distributed CSR matrix with ghost rows: the operator the serial numerics run on.

Process r holds the rows of its part (:class:`~graphrkhs.distributed.PartitionPlan`)
split by column into

* ``A_own`` -- (n_own, n_own), the columns it owns (local numbers), and
* ``A_ghost`` -- (n_boundary, n_ghost), the columns of its ghost rows, for the
  boundary rows only (the tail of the local order).

A fused step of :mod:`graphrkhs._core.spmm`,
:math:`\mathrm{out} = \alpha(a L\,\mathrm{cur} + b\,\mathrm{cur}) + \beta\,\mathrm{out} + \gamma X`,
then runs as: post the halo exchange of ``cur``; the whole step on the owned
columns (the exchange travels meanwhile); wait; add
:math:`\alpha a\,A_{ghost}\,\mathrm{ghost}` to the boundary rows.  Every
arithmetic operation on a row is that of the serial step, in the same
order except for the split of the row's sum into its owned and ghost parts,
so the products agree with the serial ones to rounding.

:class:`DistributedCSR` has the interface of
:class:`graphrkhs._core.reorder.PreparedOperator` (``step``, ``matmat``,
``to_internal``, ``to_user``, ``astype``), so :func:`graphrkhs.spectral.chebyshev_apply`
runs on it unchanged; :meth:`DistributedCSR.linear_operator` and
:meth:`DistributedCSR.allreduce` are what :func:`graphrkhs.conjugate_gradient`
needs (its ``allreduce`` argument).
"""

import copy
import numbers
import zlib

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from scipy.sparse import csgraph

from .._core.spmm import fused_step, seal_csr
from .._core.reorder import REORDER_MIN_NODES
from .._core.validation import check_dtype
from ._comm import any_rank, call_together, check_same_inputs, compute_on_root, world
from ._partition import PartitionPlan, partition_graph

__all__ = ["DistributedCSR"]


def _check_values(comm, A, dtype, name, where):
    """``dtype`` float32/float64 (None: float64) and the same on every process, and the stored values of ``A``
    finite, decided on every process together (a NaN in one process's rows raises everywhere, none waits in a
    later collective).  ``where``: the caller, for the message of a dtype that differs between processes."""
    # a bad dtype on one process raised there alone (the others waited in the next collective, forever), and
    # float32 on one process with float64 on another aborted MPI in the first halo exchange (types differ)
    dtype = call_together(comm, lambda: check_dtype(dtype) or np.dtype(np.float64))
    check_same_inputs(comm, where, {"dtype": dtype})
    data = A.data
    bad = data.dtype.kind not in "biuf" or not np.isfinite(data).all()
    if any_rank(comm, bad):
        raise ValueError(f"{name} contains NaN or infinity, or is not real{' here' if bad else ' on another process'}"
                         "; a distributed operator computes with finite real values only.")
    return dtype


def _csr(A, dtype):
    A = sp.csr_array(A, dtype=dtype)
    if not A.has_canonical_format:
        A = A.copy()      # in place on arrays shared with the caller's matrix would rewrite them (_pattern)
        A.sum_duplicates()
    index_dtype = np.int32 if max(A.nnz, max(A.shape)) < 2**31 - 1 else np.int64
    out = sp.csr_array((A.data, A.indices.astype(index_dtype), A.indptr.astype(index_dtype)), shape=A.shape)
    out.has_sorted_indices = True
    return seal_csr(out)


class DistributedCSR:
    r"""This process's rows of a sparse matrix distributed by a partition plan.

    Build it with :meth:`from_global` (every process holds the whole matrix:
    the same script as serial) or :meth:`from_local` (each process holds only
    its rows in global column numbers, the 10^8-node case).

    Attributes
    ----------
    comm : Communicator
    shape : (n_own, n_own)
        The *local* shape (the operator acts on this process's rows).
    n_global : int
    owned : ndarray (n_own,)
        Global numbers of the local rows, in local order.
    A_own, A_ghost : scipy.sparse.csr_array
    n_interior : int
    halo : HaloExchange
    plan : PartitionPlan or None
        The whole plan (:meth:`from_global` only).
    """

    is_matrix = False     # the spectral layer must not treat it as a serial matrix
    perm = None

    def __init__(self, comm, n_global, owned, n_interior, A_own, A_ghost, halo, dtype, plan=None):
        self.comm = comm
        self.n_global = int(n_global)
        self.owned = np.asarray(owned, dtype=np.int64)
        self.n_interior = int(n_interior)
        self.dtype = np.dtype(dtype)
        self.A_own = _csr(A_own, self.dtype)
        self.A_ghost = _csr(A_ghost, self.dtype)
        self.halo = halo
        self.plan = plan
        self.shape = (self.owned.size, self.owned.size)
        self.reorder_time = 0.0
        self.counts = np.asarray(comm.allgather(self.owned.size), dtype=np.int64)
        self._user_order = None

    # -- construction ---------------------------------------------------------
    @classmethod
    def from_global(cls, L, comm=None, *, dtype=np.float64, plan=None, part=None, method="auto", order="auto"):
        r"""Distribute a matrix every process holds (the same script as serial).

        The partition is computed on rank 0 (METIS, or RCM blocks) and
        broadcast, so that all processes agree (a ``part``, ``order`` or
        ``plan`` of the caller's, and ``L`` itself, must be the same on every
        process: they are compared by checksum, and a difference raises a
        ValueError on every process instead of a hang or wrong products: with
        values differing each process would multiply by its own rows, a matrix
        no process holds); ``order="auto"`` orders each
        part's rows by reverse Cuthill-McKee of the whole graph from
        ``REORDER_MIN_NODES`` nodes (cache locality, as the serial path).
        """
        comm = world() if comm is None else comm
        L = sp.csr_array(L)
        n = L.shape[0]
        if L.shape != (n, n):
            raise ValueError(f"L must be square; got shape {L.shape}.")
        dtype = _check_values(comm, L, dtype, "L", "DistributedCSR.from_global")
        # L whole (pattern and values; a few milliseconds for 10^7 entries) before the partition: the plan's
        # checksum below covers the pattern only, and the partition is computed from rank 0's L
        check_same_inputs(comm, "DistributedCSR.from_global", {"L": L})
        if plan is None:
            if part is None:
                # on rank 0, broadcast; a failure there (bad method, METIS) is raised on every rank
                part = compute_on_root(comm, lambda: partition_graph(L, comm.size, method=method))
            if isinstance(order, str) and order == "auto":
                order = None
                if n >= REORDER_MIN_NODES:
                    order = csgraph.reverse_cuthill_mckee(sp.csr_matrix(L), symmetric_mode=True)
            # a bad part on one process only must not leave the others waiting in the halo set-up
            plan = call_together(comm, lambda: PartitionPlan(L, part, comm.size, order=order))
        _check_same_plan(comm, plan)
        if plan.n_parts != comm.size:
            raise ValueError(f"the plan has {plan.n_parts} parts for {comm.size} processes.")
        if plan.n != n:
            raise ValueError(f"the plan is for {plan.n} nodes, L has {n}: build it from L (partition_plan(L, ...)).")
        rp = plan.rank_plan(comm.rank)
        owned, ghosts = rp["owned"], rp["ghosts"]
        rows = L[owned] if owned.size else sp.csr_array((0, n), dtype=L.dtype)
        col_map = np.full(n, -1, dtype=np.int64)
        col_map[owned] = np.arange(owned.size)
        col_map[ghosts] = owned.size + np.arange(ghosts.size)
        rows = sp.csr_array(rows)
        # a plan that lacks one of this process's ghost columns (built for another pattern) raises here; on every
        # process together: a process whose rows were covered went on into the halo set-up and waited forever
        A_own, A_ghost = call_together(comm, lambda: cls._split(rows, col_map[rows.indices], owned.size, ghosts.size,
                                                                rp["n_interior"]))
        halo = comm.halo(rp["sources"], rp["recv_counts"], rp["destinations"], rp["send_counts"],
                         rp["send_index"])
        return cls(comm, n, owned, rp["n_interior"], A_own, A_ghost, halo, dtype, plan=plan)

    @classmethod
    def from_local(cls, rows, owned, n_global, comm=None, *, dtype=np.float64):
        r"""Distribute a matrix of which each process holds only its own rows (no global copy anywhere).

        Parameters
        ----------
        rows : sparse matrix of shape (len(owned), n_global)
            This process's rows, columns in global node numbers.
        owned : array of int
            The global numbers of those rows (disjoint across processes, all
            of ``range(n_global)`` together; a process may own none).
        n_global : int

        The plan is built collectively: the owners of all nodes are gathered
        (one int32 per node on every process), each process lists its ghost
        columns by owner and sends each owner the list it needs (one
        ``alltoall``); the owners answer with nothing but their send lists.
        Local order: interior rows first, then boundary rows, each in the
        given order.
        """
        comm = world() if comm is None else comm
        owned_in = np.asarray(owned)
        # node numbers: integers (an empty list, float64 by default, is a process that owns none); a float
        # array was truncated by the int64 conversion (owned=[0.7, 1.2] became nodes 0 and 1, silently)
        bad_ids = owned_in.ndim != 1 or (owned_in.size > 0 and owned_in.dtype.kind not in "iu")
        owned = np.zeros(0, dtype=np.int64) if bad_ids else owned_in.astype(np.int64)
        rows = sp.csr_array(rows)
        # a whole number of nodes (n_global=50.7 was truncated to 50 by int(), silently); 50.0 is 50
        n_in = n_global
        n_global, bad_n = owned.size, True
        if np.ndim(n_in) == 0 and not isinstance(n_in, (bool, np.bool_, str, bytes)) and \
                np.asarray(n_in).dtype != bool:
            try:                        # Python and numpy numbers, 0-d arrays, Decimal / Fraction
                value = float(n_in)
                bad_n = not (np.isfinite(value) and value.is_integer())
                n_global = owned.size if bad_n else int(n_in) if isinstance(n_in, numbers.Integral) else int(value)
            except (TypeError, ValueError):
                pass
        # checked collectively: a rank that raised alone would leave the others waiting in the allgather
        bad = rows.shape != (owned.size, n_global)
        all_owned = comm.allgather((owned, bad, bad_ids, bad_n))
        n_bad_n = sum(b for *_, b in all_owned)
        if n_bad_n:
            raise ValueError(f"n_global must be a whole number of nodes; got {n_in!r} (not truncated)." if bad_n
                             else f"n_global must be a whole number of nodes on every process; {n_bad_n} "
                             "process(es) passed another value.")
        all_owned = [a[:3] for a in all_owned]
        if bad_ids:
            raise TypeError(f"owned must be a 1-D array of integer node numbers; got dtype {owned_in.dtype} and "
                            f"shape {owned_in.shape} (a float array would be truncated: pass whole numbers as "
                            "an int array).")
        n_bad_ids = sum(b for _, _, b in all_owned)
        if n_bad_ids:
            raise TypeError(f"owned must be a 1-D array of integer node numbers on every process; {n_bad_ids} "
                            "process(es) passed another array.")
        if bad:
            raise ValueError(f"rows must have shape (len(owned), n_global) = ({owned.size}, {n_global}); "
                             f"got {rows.shape}.")
        n_bad = sum(b for _, b, _ in all_owned)
        if n_bad:
            raise ValueError(f"rows must have shape (len(owned), n_global) on every process; {n_bad} process(es) "
                             "passed another shape.")
        all_owned = [o for o, _, _ in all_owned]
        dtype = _check_values(comm, rows, dtype, "rows", "DistributedCSR.from_local")
        if not rows.has_canonical_format:
            rows = rows.copy()    # csr_array(rows) shares the caller's arrays: not summed in place (_pattern)
            rows.sum_duplicates()
        part = np.full(n_global, -1, dtype=np.int32)
        for r, o in enumerate(all_owned):   # one array per process (every rank checks all: all raise alike)
            if o.size and (o.min() < 0 or o.max() >= n_global):
                raise ValueError(f"process {r} owns node ids outside [0, n_global = {n_global}).")
            if np.unique(o).size != o.size:
                raise ValueError(f"process {r} lists a node twice in owned.")
            if (part[o] != -1).any():
                raise ValueError(f"process {r} owns a node that another process owns too.")
            part[o] = r
        if (part < 0).any():
            raise ValueError(f"{int((part < 0).sum())} node(s) are owned by no process.")
        me = comm.rank
        cols = rows.indices.astype(np.int64)
        foreign = part[cols] != me
        row_of = np.repeat(np.arange(owned.size), np.diff(rows.indptr))
        boundary = np.zeros(owned.size, dtype=bool)
        boundary[row_of[foreign]] = True
        local = np.concatenate([np.flatnonzero(~boundary), np.flatnonzero(boundary)])
        owned, rows = owned[local], sp.csr_array(rows[local])
        n_interior = int((~boundary).sum())
        ghost_ids = np.unique(cols[foreign])
        ghost_owner = part[ghost_ids].astype(np.int64)
        o = np.lexsort((ghost_ids, ghost_owner))
        ghosts, ghost_owner = ghost_ids[o], ghost_owner[o]
        sources, recv_counts = np.unique(ghost_owner, return_counts=True)
        requests = [ghosts[ghost_owner == d] for d in range(comm.size)]   # one list per process
        asked = comm.alltoall(requests)
        # global -> local numbers by binary search (no array of the global size besides `part`)
        own_sorter = np.argsort(owned)
        ghost_sorter = np.argsort(ghosts)

        def lookup(ids, keys, sorter, offset):
            pos = np.searchsorted(keys, ids, sorter=sorter)
            pos = np.minimum(pos, max(keys.size - 1, 0))
            hit = keys[sorter[pos]] == ids if keys.size else np.zeros(ids.size, dtype=bool)
            return np.where(hit, sorter[pos] + offset if keys.size else -1, -1)

        destinations = np.array([d for d in range(comm.size) if asked[d].size], dtype=np.int64)
        send_counts = np.array([asked[d].size for d in destinations], dtype=np.int64)
        send_index = (np.concatenate([lookup(np.asarray(asked[d], dtype=np.int64), owned, own_sorter, 0)
                                      for d in destinations]) if destinations.size else np.zeros(0, dtype=np.int64))
        if (send_index < 0).any():
            raise ValueError("a process asked for a row this process does not own (inconsistent ownership).")
        cols = rows.indices.astype(np.int64)
        local_cols = lookup(cols, owned, own_sorter, 0)
        miss = local_cols < 0
        local_cols[miss] = lookup(cols[miss], ghosts, ghost_sorter, owned.size)
        A_own, A_ghost = cls._split(rows, local_cols, owned.size, ghosts.size, n_interior)
        halo = comm.halo(sources, recv_counts, destinations, send_counts, send_index)
        return cls(comm, n_global, owned, n_interior, A_own, A_ghost, halo, dtype)

    @staticmethod
    def _split(rows, local_cols, n_own, n_ghost, n_interior):
        """Owned-column and ghost-column blocks of the local rows, given their local column numbers."""
        if (local_cols < 0).any():
            raise ValueError("the partition plan misses a ghost row of this process (plan built for another matrix?).")
        mat = sp.csr_array((rows.data, local_cols, rows.indptr), shape=(rows.shape[0], n_own + n_ghost))
        A_own = sp.csr_array(mat[:, :n_own]) if n_own else sp.csr_array((rows.shape[0], 0))
        A_ghost = sp.csr_array(mat[n_interior:, n_own:]) if n_ghost else sp.csr_array((rows.shape[0] - n_interior, 0))
        return A_own, A_ghost

    # -- PreparedOperator interface ------------------------------------------
    def astype(self, dtype):
        dtype = np.dtype(dtype)
        if dtype == self.dtype:
            return self
        new = copy.copy(self)
        new.dtype = dtype
        new.A_own = _csr(self.A_own, dtype)
        new.A_ghost = _csr(self.A_ghost, dtype)
        return new

    def to_internal(self, X, copy=False):
        """This process's rows (local order) of a global (n, m) block every process holds.

        Collective: the block is compared across processes first (:func:`check_same_inputs`, one small
        ``allgather``): a signal drawn differently on each rank was filtered as a mixture of the ranks'
        rows, or stopped one rank alone on its shape.
        """
        X = np.asarray(X)
        self.check_same_inputs("a signal block of backend='mpi' (the X of chebyshev_filter or of a GraphKernel "
                               "product, the labeled set of kernel columns)", {"X": X})
        return self._local_rows(X)

    def check_same_inputs(self, what, items):
        """:func:`graphrkhs.distributed._comm.check_same_inputs` on this operator's communicator (collective)."""
        check_same_inputs(self.comm, what, items)

    def _local_rows(self, X):
        """:meth:`to_internal` without the comparison across processes (the caller compared ``X``)."""
        X = np.asarray(X)
        if X.shape[0] != self.n_global:
            raise ValueError(f"X must have {self.n_global} rows (the global graph); got {X.shape}.")
        return np.ascontiguousarray(X[self.owned], dtype=self.dtype)

    def gather(self, Y, node_axis=None):
        """The global block (user order) from every process's local rows, on every process.

        Works on (n_own, ...) and (F, n_own, ...) blocks: ``node_axis`` 0 or 1, by default 1 for a 3-D block
        (a filter bank's responses to a signal block) and 0 otherwise; pass ``node_axis=1`` for the
        (F, n_own) responses of a bank to one signal (:func:`distributed_chebyshev_filter` on a 1-D block),
        which a 2-D block cannot tell from (n_own, m) signals.  A node axis of another length than this
        process's rows is a ``ValueError`` on every process (it failed deep inside numpy, or gathered the
        filter axis as nodes when its length happened to match).
        """
        Y = np.asarray(Y)
        if node_axis is None:
            node_axis = 1 if Y.ndim == 3 else 0
        if node_axis not in (0, 1) or node_axis >= max(Y.ndim, 1):
            raise ValueError(f"node_axis must be 0 or 1 and an axis of Y (shape {Y.shape}); got {node_axis!r}.")
        # collective: the same decision on every process (a rank raising alone left the others in the gather)
        bad = Y.ndim == 0 or Y.shape[node_axis] != self.shape[0]
        if self.comm.allreduce(np.array([float(bad)]), op="max")[0] > 0:
            raise ValueError(f"Y's node axis (axis {node_axis}) must have this process's {self.shape[0]} rows on "
                             f"every process; got shape {Y.shape} here. A filter bank's responses to one signal are "
                             "(F, n_own): pass node_axis=1.")
        if node_axis == 1:
            if Y.ndim == 2:
                return self.gather(Y.T).T
            return np.stack([self.gather(Y[f]) for f in range(Y.shape[0])])   # the few responses of a bank
        allrows = self.comm.allgather_rows(np.ascontiguousarray(Y))
        if self._user_order is None:
            self._user_order = np.concatenate(self.comm.allgather(self.owned)) if self.comm.size > 1 else self.owned
        out = np.empty_like(allrows)
        out[self._user_order] = allrows
        return out

    to_user = gather

    def internal_index(self, idx):
        raise NotImplementedError("indicator blocks are formed densely on a distributed operator.")

    def use_numba(self, m):
        return True

    def step(self, a, b, alpha, beta, gamma, cur, out, X=None, weights=None, R=None):
        r"""The fused step on this process's rows, with the halo exchange of ``cur`` overlapped."""
        n_own = self.shape[0]
        # a neighbourhood collective: every rank takes part, also one without neighbours or rows
        pending = self.halo.start(cur) if self.halo.collective else None
        if n_own:
            fused_step(self.A_own, a, b, alpha, beta, gamma, cur, out, X)
        if pending is not None:
            ghost = pending.wait()
            if n_own and self.A_ghost.shape[0] and self.halo.n_ghost:
                tail = out[self.n_interior:]
                fused_step(self.A_ghost, alpha * a, 0.0, 1.0, 1.0, 0.0, ghost, tail)
        if weights is not None and n_own:
            for f in range(weights.shape[0]):  # the few responses of a bank
                R[f] += weights[f] * out
        return out

    def matmat(self, cur, out=None):
        """``L @ cur`` on this process's rows (local order), for a block (n_own, m) or a vector (n_own,)."""
        cur = np.asarray(cur)
        if cur.ndim not in (1, 2) or cur.shape[0] != self.shape[0]:
            raise ValueError(f"cur must hold this process's rows: shape ({self.shape[0]},) or ({self.shape[0]}, m) "
                             f"(use to_internal on a global block); got {cur.shape}.")
        if cur.ndim == 1:
            # the fused step works on (rows, m) blocks, as the Dask operator's parts do
            res = self.matmat(cur[:, None], None if out is None else out.reshape(-1, 1))
            return res[:, 0]
        cur = np.ascontiguousarray(cur, dtype=self.dtype)
        if out is None:
            out = np.empty_like(cur)
        return self.step(1.0, 0.0, 1.0, 0.0, 0.0, cur, out)

    # -- CG / Lanczos support -------------------------------------------------
    def allreduce(self, a):
        """Sum of ``a`` over all processes (the ``allreduce`` of :func:`graphrkhs.conjugate_gradient`)."""
        return self.comm.allreduce(a)

    def linear_operator(self):
        """This process's rows as a :class:`~scipy.sparse.linalg.LinearOperator` of the local shape."""
        def apply(V):
            V = np.asarray(V, dtype=self.dtype)
            V2 = np.ascontiguousarray(V[:, None] if V.ndim == 1 else V)   # also (0, m) on a rank without rows
            return self.matmat(V2).reshape(V.shape)
        return spla.LinearOperator(self.shape, matvec=apply, matmat=apply, rmatvec=apply, rmatmat=apply,
                                   dtype=self.dtype)

    def diagonal_block(self):
        """The owned-by-owned block of the matrix (for block-Jacobi preconditioners)."""
        return self.A_own

    def gershgorin(self):
        """:math:`\\max_i \\sum_j |L_{ij}|` over all rows of all processes.  Collective (an ``allreduce``): every
        rank must call it, e.g. not inside ``if comm.rank == 0:``."""
        own = np.asarray(abs(self.A_own).sum(axis=1)).ravel() if self.shape[0] else np.zeros(0)
        if self.A_ghost.shape[0] and self.A_ghost.nnz:
            own[self.n_interior:] += np.asarray(abs(self.A_ghost).sum(axis=1)).ravel()
        local = float(own.max()) if own.size else 0.0
        return float(self.comm.allreduce(np.array([local]), op="max")[0])

    def halo_bytes(self, m, itemsize=8):
        """Bytes this process receives per product on an (n, m) block."""
        return self.halo.n_ghost * m * itemsize

    def __repr__(self):
        return (f"DistributedCSR(rank={self.comm.rank}/{self.comm.size}, n_global={self.n_global}, "
                f"n_own={self.shape[0]}, n_ghost={self.halo.n_ghost}, nnz={self.A_own.nnz + self.A_ghost.nnz})")


def _check_same_plan(comm, plan):
    """Raise on every process unless all of them hold the same partition plan.

    A plan built from a ``part`` (or ``order``, or pattern of ``L``) that differs
    between processes gives halo lists that do not match: the exchange then waits
    forever or delivers the wrong rows.  One CRC-32 per process over the plan's
    integer arrays is all-gathered (the values of ``L`` are compared before, by
    :func:`from_global`'s ``check_same_inputs``; a plan may serve several
    matrices of one pattern).
    """
    if comm.size == 1:
        return
    crcs = comm.allgather(_plan_checksum(plan))
    differ = [r for r, c in enumerate(crcs) if c != crcs[0]]
    if differ:
        raise ValueError(
            f"from_global: the partition plan of process(es) {differ} differs from that of process 0; "
            "every process must pass the same L (sparsity pattern), part, order and plan. Leave "
            "part=None to have it computed on process 0 and broadcast.")


def _plan_checksum(plan):
    """CRC-32 over a partition plan's integer arrays (sizes, parts, local orders, ghost lists)."""
    crc = zlib.crc32(np.array([plan.n, plan.n_parts], dtype=np.int64).tobytes())
    for block in (plan.part, plan.n_interior, *plan.owned, *plan.ghosts):
        crc = zlib.crc32(np.ascontiguousarray(block, dtype=np.int64).tobytes(), crc)
    return crc
