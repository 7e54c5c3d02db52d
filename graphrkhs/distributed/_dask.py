r"""The ``"dask"`` backend: row blocks held by the workers of a ``distributed.Client``.

For users who already run a Dask cluster.  A graph (Laplacian, or any sparse
SPD matrix) is partitioned (:func:`~graphrkhs.distributed.partition_graph`, or
the cells of :func:`~graphrkhs.distributed._knn.distributed_knn_graph`) and
each part's rows are scattered once to one worker, split like the MPI
operator into the owned columns and the ghost columns of the boundary rows.
Signals live on the workers as per-part row blocks (futures); the driver (the
client process) only submits tasks:

* a product / fused Chebyshev step on part r is one task on r's worker; its
  ghost rows are fetched from the neighbour parts by small tasks that run on
  the neighbours' workers and take only the rows r needs (the send lists of
  the :class:`~graphrkhs.distributed.PartitionPlan`) -- the halo exchange;
* nothing is gathered until the result is asked for.

**Chebyshev filtering reuses the serial recurrence unchanged.**
:class:`DaskOperator` has the interface of
:class:`graphrkhs._core.reorder.PreparedOperator`; its ``step`` does not
compute on the blocks it is handed but records, for the driver-side array
object ``out``, the futures of its new value (the array is made read-only
while its value lives on the workers, so that a driver-side write to it fails
loudly instead of being lost).  The serial Chebyshev / Clenshaw recursion of
:func:`graphrkhs.chebyshev_filter` therefore submits all its K steps without
waiting, and :meth:`DaskOperator.to_user` gathers once at the end.

**CG** cannot run that way: its step lengths are inner products, which the
serial :func:`graphrkhs.conjugate_gradient` sums with an ``allreduce`` between
processes that each hold a part (MPI); Dask tasks have no collectives.
:func:`dask_conjugate_gradient` restates the same block preconditioned CG
(per-column step lengths, converged columns frozen, the same stopping test)
with every vector a list of per-part futures: the parts' partial inner
products (length-m vectors) are taken out on their own workers by small tasks,
and every part sums all of them (in part order, so that all hold the same bits)
into the step lengths itself, so that only ghost rows and partial sums move
between workers and no reduction task sits between two per-part tasks (four
task hops per iteration).  Whole sweeps of iterations are submitted before the
driver gathers the convergence flags (every ``check_every`` iterations; the
iterations submitted beyond convergence leave the frozen columns unchanged).
The preconditioner is block-Jacobi with a smoothed-aggregation AMG hierarchy
(:func:`graphrkhs.amg_preconditioner`) per part, built on its worker, as in the
MPI backend.
"""

import sys
import threading
import weakref

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from scipy.sparse import csgraph

from .._core.backend import register_backend
from ._csr import _csr     # the one canonical CSR (sorted, 32-bit indices when they fit)
from .._core.cg import (CGResult, amg_preconditioner, check_cg_symmetric, check_on_failure, replace_residual,
                        report_failure)
from .._core.validation import check_dtype, check_finite_array, check_matrix, check_scalar, column_scales
from .._core.reorder import REORDER_MIN_NODES
from .._core.spmm import fused_step, seal_csr
from ._partition import PartitionPlan, check_part, partition_graph
from ._workers import dask_workers, get_dask_client

__all__ = ["DaskOperator", "DaskBackend", "dask_conjugate_gradient", "get_dask_client"]


def _in_worker():
    try:
        from distributed import get_worker
        get_worker()
        return True
    except (ImportError, ValueError):
        return False


# ---------------------------------------------------------------------------
# Worker-side functions (run as tasks; never mutate their inputs)
# ---------------------------------------------------------------------------

class _Part:
    """One part's rows: owned columns ``A_own`` and, for the boundary rows (the tail), ``A_ghost``."""

    def __init__(self, A_own, A_ghost, n_interior):
        self.A_own = A_own
        self.A_ghost = A_ghost
        self.n_interior = n_interior

    def __setstate__(self, state):
        # a part unpickled on a worker has writeable copies of its index arrays: seal them again, or every
        # product would re-check them
        self.__dict__.update(state)
        seal_csr(self.A_own, "A_own")
        seal_csr(self.A_ghost, "A_ghost")

    @property
    def n_own(self):
        return self.A_own.shape[0]


def _take_rows(block, rows):
    """The rows of a part's block that a neighbour needs as its ghost rows (runs on the owner's worker)."""
    return np.ascontiguousarray(block[rows]) if block.ndim == 2 else np.ascontiguousarray(block[:, rows])


def _part_step(part, a, b, alpha, beta, gamma, cur, out_prev, X, *ghost_pieces):
    r"""One fused step on a part: :math:`\alpha(a L\,cur + b\,cur) + \beta\,out_{prev} + \gamma X`, a new block.

    The arithmetic of :func:`graphrkhs._core.spmm.fused_step` on the owned
    columns, then :math:`\alpha a A_{ghost}\,ghost` added to the boundary rows
    (as the MPI operator does).
    """
    out = np.empty_like(cur)
    if part.n_own == 0:
        return out
    if beta != 0 and gamma == 0:
        # the old block enters through the kernel's X slot: acc + beta * out_prev, the serial arithmetic
        fused_step(part.A_own, a, b, alpha, 0.0, beta, cur, out, out_prev)
    else:
        if beta != 0:
            np.copyto(out, out_prev)   # the input block stays untouched (tasks never mutate inputs)
        fused_step(part.A_own, a, b, alpha, beta, gamma, cur, out, X)
    if ghost_pieces and part.A_ghost.shape[0] and part.A_ghost.shape[1]:
        # a piece is the rows a neighbour sent, or (its whole block, the row list) to take them from
        pieces = [p[0][p[1]] if isinstance(p, tuple) else p for p in ghost_pieces]
        ghost = pieces[0] if len(pieces) == 1 else np.concatenate(pieces)
        fused_step(part.A_ghost, alpha * a, 0.0, 1.0, 1.0, 0.0, np.ascontiguousarray(ghost),
                   out[part.n_interior:])
    return out


def _accumulate(R, weights, out):
    """``R[f] + weights[f] * out`` for the responses of a bank (a new block)."""
    R = R.copy()
    for f in range(weights.shape[0]):  # the few responses of a bank
        R[f] += weights[f] * out
    return R


def _build_preconditioner(part, kind):
    if kind == "none" or part.n_own == 0:
        return None
    A = sp.csr_array(part.A_own, dtype=np.float64)
    if kind == "jacobi":
        d = A.diagonal()
        return 1.0 / np.where(d > 0, d, 1.0)
    return amg_preconditioner(A)


def _apply_preconditioner(M, R):
    if M is None:
        return R
    if isinstance(M, np.ndarray):
        return R * M[:, None]
    return np.asarray(M.matmat(R) if R.shape[1] > 1 else M.matvec(R[:, 0])[:, None], dtype=np.float64)


def _cg_start(B, M):
    """Per part: the state (X, R, Z) of CG started at X = 0, and the partial r^T z."""
    X = np.zeros_like(B)
    R = B.copy()
    Z = np.ascontiguousarray(_apply_preconditioner(M, R))
    return X, R, Z, np.einsum("ij,ij->j", R, Z)


def _cg_restart(X, R, M):
    """Per part: the state (X, R, Z) of CG restarted at X along its true residual R (residual replacement),
    and the partial r^T z."""
    Z = np.ascontiguousarray(_apply_preconditioner(M, R))
    return X, R, Z, np.einsum("ij,ij->j", R, Z)


# The partial sums that the step lengths and the stopping test add up move between workers on their own (small
# futures), never inside a part's (n_r, m) blocks: a task's arguments are shipped whole to the worker that runs
# it, and reductions handed the parts' whole tuples (X, R, Z, ...) moved about 5 n m floats per iteration to add
# up a few length-m vectors.  Every part forms the step lengths itself from all parts' partial sums (the same
# arithmetic, summed in part order, so all parts hold the same bits): no reduction task sits on the critical
# path, and an iteration is four task hops (_cg_send / _cg_partials, _cg_product, _cg_pap, _cg_update).

def _cg_partials(state):
    """A part's partial sums, taken on its worker: (r^T r, r^T z) after an update, (r^T z,) at a (re)start."""
    return tuple(state[3:])


def _cg_send(state, prev, rows):
    r"""For a neighbour, on a part's worker: the rows ``rows`` of Z and of the previous direction P (stacked),
    and the part's partial sums.  The neighbour forms its ghost rows of the new direction
    :math:`z + \beta p` itself once it has :math:`\beta` (so that this task waits for no reduction).

    ``prev`` is the previous product ``(P, AP, pAp, scalars)``, or None at a (re)start (where
    :math:`\beta = 0` and the first direction is :math:`z_0`).
    """
    Z = state[2]
    P = Z if prev is None else prev[0]
    return np.stack((Z[rows], P[rows])), _cg_partials(state)


def _cg_pap(product):
    """A part's partial p^T A p and the scalars its product used (small), taken on its worker."""
    return product[2], product[3]


def _cg_direction(Z, P, scalars):
    r"""The new search direction :math:`p \leftarrow z + \beta p` on the columns still active (the
    converged ones keep theirs, unused)."""
    beta, active = scalars[1], scalars[2]
    return np.ascontiguousarray(np.where(active, Z + P * beta, P))


def _cg_rule_scalars(rule, prev, partials):
    """The scalars (rz, beta, active, n_iter) of the current iterate from all parts' partial sums (in part
    order): after an update ``rule = ("update", bnorm, tol)`` and the previous scalars are the previous
    product's; at the start ``("initial", bnorm, tol)``; at a restart ``("restart", active, n_iter)``."""
    if rule[0] == "update":
        return _cg_scalars(prev[3], rule[1], rule[2], *partials)
    if rule[0] == "initial":
        return _cg_initial_scalars(rule[1], rule[2], *partials)
    return _cg_restart_scalars(rule[1], rule[2], *partials)


def _cg_product(part, state, prev, rule, r, sources, others, *pieces):
    """Per part r: the scalars, the new direction P, A P (its ghost rows from the neighbours' pieces) and the
    partial p^T A p; returns ``(P, AP, pAp, scalars)``.

    ``pieces``: the :func:`_cg_send` pieces of the parts ``sources`` (r's neighbours, in the order of its ghost
    columns), then the :func:`_cg_partials` of the parts ``others`` (neither r nor a neighbour).
    """
    partials = [None] * (1 + len(sources) + len(others))
    partials[r] = _cg_partials(state)
    for s, piece in zip(sources, pieces):
        partials[s] = piece[1]
    for q, piece in zip(others, pieces[len(sources):]):
        partials[q] = piece
    scalars = _cg_rule_scalars(rule, prev, partials)
    Z = state[2]
    P = _cg_direction(Z, Z if prev is None else prev[0], scalars)
    ghosts = [_cg_direction(piece[0][0], piece[0][1], scalars) for piece in pieces[:len(sources)]]
    AP = _part_step(part, 1.0, 0.0, 1.0, 0.0, 0.0, P, None, None, *ghosts)
    return P, AP, np.einsum("ij,ij->j", P, AP), scalars


def _cg_alpha(rz, active, *paps):
    r""":math:`\alpha_j = r_j^T z_j / p_j^T A p_j` on the active columns (0 on the others), from the parts' partial sums."""
    pap = np.sum(paps, axis=0)
    if np.any(~np.isfinite(pap[active])):
        raise FloatingPointError("conjugate_gradient (dask): the product with A (or the preconditioner M) "
                                 "returned NaN or infinity; check the operator on finite input.")
    if np.any(pap[active] <= 0):
        bad = np.flatnonzero(active & (pap <= 0))
        raise np.linalg.LinAlgError(f"conjugate_gradient (dask): A is not positive definite along the search "
                                    f"direction (p^T A p <= 0 in column(s) {bad.tolist()[:5]}); check that the "
                                    "system is SPD.")
    return np.where(active, rz / np.where(active, pap, 1.0), 0.0)


def _cg_update(state, product, M, r, *paps):
    """Per part r: alpha from all parts' partial p^T A p (its own from ``product``, the others' ``paps`` from
    :func:`_cg_pap`, in part order), X += alpha P, R -= alpha A P, Z = M R, and the partials r^T r, r^T z."""
    scalars = product[3]
    paps = [p[0] for p in paps]
    paps.insert(r, product[2])
    alpha = _cg_alpha(scalars[0], scalars[2], *paps)
    X, R = state[0], state[1]
    P, AP = product[0], product[1]
    X = X + P * alpha
    R = R - AP * alpha
    Z = np.ascontiguousarray(_apply_preconditioner(M, R))
    return X, R, Z, np.einsum("ij,ij->j", R, R), np.einsum("ij,ij->j", R, Z)


def _cg_scalars(scalars, bnorm, tol, *partials):
    r"""The stopping test and :math:`\beta_j` from the parts' partial sums (r^T r, r^T z); counts the iteration."""
    rz, active, n_iter = scalars[0], scalars[2], scalars[3]
    rr = np.sum([s[0] for s in partials], axis=0)
    rz_new = np.sum([s[1] for s in partials], axis=0)
    still = active & ~(np.sqrt(rr) <= tol * bnorm)
    beta = np.where(still, rz_new / np.where(still & (rz != 0), rz, 1.0), 0.0)
    return np.where(still, rz_new, rz), beta, still, n_iter + int(active.any())


def _cg_initial_scalars(bnorm, tol, *partials):
    # beta = 0: the first direction is z_0 itself
    rz = np.sum([s[0] for s in partials], axis=0)
    return rz, np.zeros_like(rz), bnorm > tol * bnorm, 0


def _cg_restart_scalars(active, n_iter, *partials):
    # a restart (residual replacement) of the columns ``active``: beta = 0, the new direction is z itself
    rz = np.sum([s[0] for s in partials], axis=0)
    return rz, np.zeros_like(rz), np.asarray(active, dtype=bool), n_iter


def _cg_check(bnorm, tol, pap, *partials):
    """The scalars after the last update submitted (for the driver's look at the convergence flags): from the
    scalars of the last product (in ``pap``) and the parts' partial sums."""
    return _cg_scalars(pap[1], bnorm, tol, *partials)


def _cg_solution(state):
    return state[0]


def _active(scalars):
    return scalars[2]


def _n_iter(scalars):
    return scalars[3]


# ---------------------------------------------------------------------------
# The distributed operator
# ---------------------------------------------------------------------------

class DaskOperator:
    r"""A sparse matrix partitioned over the workers of a Dask client, with the PreparedOperator interface.

    Parameters
    ----------
    L : sparse matrix of shape (n, n)
        Held by the driver; its rows are scattered once.
    client : distributed.Client, optional
        Default: the active client.
    dtype : float32 or float64
    part : int array of shape (n,), optional
        A part number per node (e.g. the cells of a distributed kNN
        construction); default METIS (or RCM blocks) into ``n_parts`` parts.
    n_parts : int, optional
        Default: the number of workers.
    order : "auto", None or permutation
        Locality order of the rows inside each part (RCM from
        ``REORDER_MIN_NODES`` nodes, as the serial path).

    Notes
    -----
    Internal order is the user's order (``perm`` is None): a driver-side block
    of shape (n, m) stands for its parts, ``futures[r]`` holding the rows
    ``plan.owned[r]``.  See the module documentation for how ``step`` defers.
    """

    is_matrix = False   # the spectral layer must not treat it as a serial matrix
    perm = None

    def __init__(self, L, client=None, *, dtype=np.float64, part=None, n_parts=None, order="auto", halo="rows"):
        self.client = get_dask_client(client)
        if halo not in ("rows", "blocks"):
            raise ValueError(f"halo must be 'rows' or 'blocks'; got {halo!r}.")
        self.halo = halo
        L = sp.csr_array(L)
        n = L.shape[0]
        if L.shape != (n, n):
            raise ValueError(f"L must be a square sparse matrix; got shape {L.shape}.")
        # as DistributedCSR: a float dtype and finite values (a NaN in L gave NaN products without a word)
        dtype = check_dtype(dtype) or np.dtype(np.float64)
        if L.dtype.kind not in "biuf":
            raise TypeError(f"L must be real; got dtype {L.dtype}.")
        check_finite_array(L.data, "L", "a distributed operator computes with finite values only")
        self.L_global = L
        self.dtype = np.dtype(dtype)
        self.shape = (n, n)
        self.reorder_time = 0.0
        workers = dask_workers(self.client)
        if not workers:
            raise RuntimeError("the Dask client has no workers.")
        # int(2.7) made 2 parts without a word, and 0 parts failed as "part numbers in [0, 0)"
        n_parts = check_scalar(n_parts, "n_parts", kind="int", low=1, allow_none=True)
        if part is None:
            n_parts = len(workers) if n_parts is None else n_parts
            part = partition_graph(L, n_parts) if n_parts > 1 else np.zeros(n, dtype=np.int64)
        else:
            part = check_part(part, n)
            n_parts = (int(part.max()) + 1 if part.size else 1) if n_parts is None else n_parts
        if isinstance(order, str) and order == "auto":
            order = None
            if n >= REORDER_MIN_NODES and L.nnz:
                order = csgraph.reverse_cuthill_mckee(sp.csr_matrix(L), symmetric_mode=True)
        self.plan = plan = PartitionPlan(L, part, n_parts, order=order)
        self.n_parts = n_parts
        # part r lives on worker r mod W; every task on its data is pinned there
        self.workers = [workers[r % len(workers)] for r in range(n_parts)]
        self.owned = plan.owned
        parts, self.sources, send = [], [], []
        for r in range(n_parts):  # a loop over parts
            owned, ghosts = plan.owned[r], plan.ghosts[r]
            col_map = np.full(n, -1, dtype=np.int64)
            col_map[owned] = np.arange(owned.size)
            col_map[ghosts] = owned.size + np.arange(ghosts.size)
            rows = sp.csr_array(L[owned]) if owned.size else sp.csr_array((0, n), dtype=L.dtype)
            cols = col_map[rows.indices]
            mat = sp.csr_array((rows.data, cols, rows.indptr), shape=(owned.size, owned.size + ghosts.size))
            nint = int(plan.n_interior[r])
            A_own = _csr(mat[:, :owned.size], self.dtype)
            A_ghost = _csr(mat[nint:, owned.size:], self.dtype)
            parts.append(_Part(A_own, A_ghost, nint))
            owners = plan.part[ghosts]
            srcs = np.unique(owners)
            self.sources.append(srcs.tolist())
            send.append([plan.local_index[ghosts[owners == s]] for s in srcs])
        self.parts = [self.client.scatter(parts[r], workers=[self.workers[r]], hash=False) for r in range(n_parts)]
        # send lists, scattered once to the owners' workers
        self.send = [[self.client.scatter(idx, workers=[self.workers[s]], hash=False) for s, idx in zip(self.sources[r], send[r])]
                     for r in range(n_parts)]
        self._registry = {}
        self._lock = threading.Lock()

    # -- the driver-side handles ------------------------------------------------
    def _register(self, arr, futures, stale=True):
        """Record the futures of ``arr``; ``stale``: its driver-side content is out of date (read-only)."""
        with self._lock:
            dead = [key for key, (ref, _, _) in self._registry.items() if ref() is None]
            for key in dead:
                del self._registry[key]
            self._registry[id(arr)] = (weakref.ref(arr), futures, stale)
        if stale:
            arr.flags.writeable = False   # its value is on the workers now

    def _entry(self, arr):
        with self._lock:
            entry = self._registry.get(id(arr))
        if entry is not None and entry[0]() is arr:
            return entry
        return None

    def _lookup(self, arr):
        entry = self._entry(arr)
        return None if entry is None else entry[1]

    def _futures(self, arr, axis=0):
        """The per-part futures of a driver-side block: recorded, or scattered now (real data)."""
        fut = self._lookup(arr)
        if fut is not None:
            return fut
        arr = np.asarray(arr, dtype=self.dtype)
        take = (lambda o: np.ascontiguousarray(arr[o])) if axis == 0 else (lambda o: np.ascontiguousarray(arr[:, o]))
        return [self.client.scatter(take(self.owned[r]), workers=[self.workers[r]], hash=False) for r in range(self.n_parts)]

    def _submit(self, func, r, *args):
        return self.client.submit(func, *args, workers=[self.workers[r]], allow_other_workers=False, pure=False)

    def _ghosts(self, cur_f, r):
        """The ghost rows of part r, in pieces: tasks on the neighbours' workers that take the rows r needs
        (``halo="rows"``), or the neighbours' whole blocks with the row lists (``halo="blocks"``: no extra
        task on the critical path, more bytes moved)."""
        if self.halo == "blocks":
            return [(cur_f[s], idx) for s, idx in zip(self.sources[r], self.send[r])]
        return [self.client.submit(_take_rows, cur_f[s], idx, workers=[self.workers[s]],
                                   allow_other_workers=False, pure=False)
                for s, idx in zip(self.sources[r], self.send[r])]

    # -- PreparedOperator interface ------------------------------------------
    def astype(self, dtype):
        dtype = np.dtype(dtype)
        if dtype == self.dtype:
            return self
        return DaskOperator(self.L_global, self.client, dtype=dtype, part=self.plan.part, n_parts=self.n_parts,
                            order=None)

    @property
    def L(self):
        return self.L_global

    def to_internal(self, X, copy=False):
        """A driver-side (n, m) block whose parts are scattered to the workers now (read-only view)."""
        X = np.asarray(X)
        if X.shape[0] != self.shape[0]:
            raise ValueError(f"X must have {self.shape[0]} rows; got {X.shape}.")
        Xi = np.ascontiguousarray(X, dtype=self.dtype)
        Xi = Xi.copy() if copy else Xi.view()   # a view: the read-only flag never touches the caller's array
        self._register(Xi, self._futures(Xi), stale=False)
        return Xi

    def gather(self, Y):
        """The value of a driver-side block (or of a view of one) in user order: gathered from the workers."""
        base, views = Y, []
        while base is not None and self._entry(base) is None:
            views.append(base)
            base = base.base if isinstance(base, np.ndarray) else None
        if base is None or not self._entry(base)[2]:
            return Y   # real data on the driver already
        futures = self._lookup(base)
        blocks = self.client.gather(futures)
        # the caller's array again, as the serial path returns it: the views taken of the block while it was
        # read-only (R[0] of the Chebyshev bank) stay read-only until made writeable, from the block down
        base.flags.writeable = True
        for view in reversed(views):
            view.flags.writeable = True
        for r, block in enumerate(blocks):  # one entry per part
            if base.ndim == 2:
                base[self.owned[r]] = block
            else:
                base[:, self.owned[r]] = block
        with self._lock:
            self._registry.pop(id(base), None)
        return Y

    to_user = gather

    def internal_index(self, idx):
        return idx

    def use_numba(self, m):
        return True

    def step(self, a, b, alpha, beta, gamma, cur, out, X=None, weights=None, R=None):
        r"""Submit ``out = alpha (a L cur + b cur) + beta out + gamma X`` (and ``R[f] += weights[f] out``) per part.

        Returns ``out``, whose value is now the futures of the new blocks (the
        driver-side array becomes read-only until :meth:`gather`).
        """
        cur_f = self._futures(cur)
        X_f = self._futures(X) if (gamma != 0 and X is not None) else [None] * self.n_parts
        out_f = self._futures(out) if beta != 0 else [None] * self.n_parts
        new = []
        for r in range(self.n_parts):  # a loop over parts
            new.append(self._submit(_part_step, r, self.parts[r], a, b, alpha, beta, gamma, cur_f[r], out_f[r],
                                    X_f[r], *self._ghosts(cur_f, r)))
        if weights is not None:
            R_f = self._futures(R, axis=1)
            w = np.asarray(weights, dtype=self.dtype)
            R_new = [self._submit(_accumulate, r, R_f[r], w, new[r]) for r in range(self.n_parts)]
            self._register(R, R_new)
        self._register(out, new)
        return out

    def matmat(self, cur, out=None):
        """``L @ cur`` (gathered), for a block (n, m) or a vector (n,)."""
        cur = np.asarray(cur)
        if cur.ndim not in (1, 2) or cur.shape[0] != self.shape[0]:
            # the parts take their rows by index: a longer block lost its extra rows, a shorter one or a
            # 3-D one failed with IndexError on the workers
            raise ValueError(f"cur must have shape ({self.shape[0]},) or ({self.shape[0]}, m); got {cur.shape}.")
        if cur.ndim == 1:
            # the per-part tasks work on (rows, m) blocks (a vector's part would be indexed as a block)
            res = self.matmat(cur[:, None], None if out is None else out.reshape(-1, 1))
            return res[:, 0]
        cur = np.ascontiguousarray(cur, dtype=self.dtype)
        if out is None:
            out = np.empty_like(cur)
        return self.gather(self.step(1.0, 0.0, 1.0, 0.0, 0.0, cur, out))

    def halo_rows(self):
        """Ghost rows per part (rows fetched from the neighbours per column of a product)."""
        return self.plan.halo_volume.copy()

    def __repr__(self):
        sizes = [o.size for o in self.owned]
        return f"DaskOperator(n={self.shape[0]}, parts={sizes}, halo={self.plan.halo_volume.tolist()})"


# ---------------------------------------------------------------------------
# CG
# ---------------------------------------------------------------------------

def dask_conjugate_gradient(A, B, *, client=None, tol=1e-8, max_iter=None, preconditioner="amg", part=None,
                            check_every=8, on_failure="warn"):
    r"""Block preconditioned CG for SPD ``A X = B`` on the workers of a Dask client.

    The iteration of :func:`graphrkhs.conjugate_gradient` (per-column
    :math:`\alpha_j = r_j^T z_j / p_j^T A p_j`, :math:`\beta_j = r_j^{+T} z_j^+ / r_j^T z_j`,
    a column stops when :math:`\|r_j\| \le` ``tol`` :math:`\|b_j\|`) with
    block-Jacobi preconditioning :math:`M = \mathrm{diag}(M_1, \dots, M_P)`;
    see the module documentation for how it is submitted.  When every column
    has met the test on its recursively updated residual, the true residuals
    :math:`b - A x` are computed on the driver, and the columns above ``tol``
    are restarted from them (residual replacement, the rule of the serial CG:
    while each restart lowers the true residual by 10 %).

    Parameters
    ----------
    A : sparse matrix (n, n) or DaskOperator
        SPD.  Checked symmetric as a whole (to :math:`10^{-10} \max |A_{ij}|`)
        on the client before any task is submitted: a ``ValueError``
        otherwise, as :func:`graphrkhs.conjugate_gradient` raises.  A float32
        operator computes its products in float32 only for a float32 ``B``
        (the serial rule); with any other ``B`` a float64 copy is used.
    B : ndarray (n,) or (n, m)
    client : distributed.Client, optional
    tol : float, default=1e-8
    max_iter : int, optional
        Default 10 n.
    preconditioner : {"amg", "jacobi", "none"}, default="amg"
        Per part: smoothed-aggregation AMG of the part's diagonal block, its
        diagonal, or nothing.
    part : int array (n,), optional
        Part of every row (default METIS over the workers).  With ``A`` a
        :class:`DaskOperator` (already partitioned, its rows on its client's
        workers) ``part`` and ``client`` may only repeat the operator's own
        (``A.plan.part``, ``A.client``): another value is a ``ValueError``.
    check_every : int >= 1, default=8
        Iterations submitted between two looks at the convergence flags.
    on_failure : {"warn", "raise", "ignore"}

    Returns
    -------
    CGResult
        ``x`` gathered on the driver; residuals recomputed there from ``A``.
    """
    # ``in`` on the tuple compared an array (a prebuilt matrix M) elementwise: "The truth value of an array with
    # more than one element is ambiguous" instead of the message below
    if preconditioner is None:
        preconditioner = "none"
    elif isinstance(preconditioner, str) and preconditioner == "auto":
        preconditioner = "amg"
    if not isinstance(preconditioner, str) or preconditioner not in ("amg", "jacobi", "none"):
        raise ValueError(f"preconditioner must be 'amg', 'jacobi', 'none' or None for backend='dask'; got "
                         f"{preconditioner!r}.")
    # B and the options as graphrkhs.conjugate_gradient checks them (same exceptions), before any work
    B = check_matrix(B, "B", ndim=(1, 2), min_size=0)
    # the solution in B's dtype, as conjugate_gradient returns it (float32 for a float32 B: it came back float64);
    # the iteration itself runs in float64
    out_dtype = B.dtype
    B = np.asarray(B, dtype=np.float64)
    # tol in (0, 1) and max_iter >= 1: a relative residual >= 1 is met by the zero start, and 0 iterations
    # returned it (the rule of conjugate_gradient and the solvers)
    tol = check_scalar(tol, "tol", low=0, low_inclusive=False, high=1, high_inclusive=False)
    max_iter = check_scalar(max_iter, "max_iter", kind="int", low=1, allow_none=True)
    check_every = check_scalar(check_every, "check_every", kind="int", low=1)
    check_on_failure(on_failure)
    # B's rows against A's before the operator is built (a METIS partition and the parts scattered to the
    # workers, only to refuse B after)
    shape = getattr(A, "shape", None)
    if shape is not None and len(shape) == 2 and B.shape[0] != shape[0]:
        raise ValueError(f"B must have {shape[0]} rows; got shape {B.shape}.")
    # A against A^T on the whole matrix (O(nnz), on the driver): the per-part AMG set-up checks only the
    # diagonal blocks, and an asymmetry between parts (A[5, 40] != A[40, 5]) ran unnoticed
    glob = A.L_global if isinstance(A, DaskOperator) else A
    if sp.issparse(glob) or isinstance(glob, np.ndarray):
        check_cg_symmetric(glob, "A")
    if isinstance(A, DaskOperator):
        # the operator's partition and client are fixed: a different part= or client= was ignored without a word
        if part is not None and not np.array_equal(check_part(part, A.shape[0]), A.plan.part):
            raise ValueError("part differs from the partition of the DaskOperator A (A.plan.part): an operator is "
                             "partitioned once, when built.  Leave part=None, or build the operator with "
                             "DaskOperator(L, part=part), or pass the sparse matrix itself as A.")
        if client is not None and client is not A.client:
            raise ValueError("client is not the client of the DaskOperator A (A.client), whose workers hold its "
                             "rows.  Leave client=None, or build the operator with DaskOperator(L, client), or pass "
                             "the sparse matrix itself as A.")
        # the serial rule (conjugate_gradient): products with A's entries in float32 only when B is float32 too;
        # a float32 operator ran a float64 B's products in float32 (1.8e-7 off at tol=1e-13, a "did not reach
        # tol" warning, where the serial CG on the float32 matrix is 8e-15 off)
        op = A if A.dtype == np.float64 or out_dtype == np.float32 else A.astype(np.float64)
    else:
        op = DaskOperator(A, client, dtype=np.float64, part=part)
    cl = op.client
    was_1d = B.ndim == 1
    B2 = np.ascontiguousarray(B[:, None] if was_1d else B)
    n, m = B2.shape
    if n != op.shape[0]:
        raise ValueError(f"B must have {op.shape[0]} rows; got shape {B.shape}.")
    if m == 0:
        # no right-hand side: the empty solution, as conjugate_gradient (the per-part preconditioner of an
        # (n, 0) block raised IndexError on the workers)
        return CGResult(np.zeros((n, 0), dtype=out_dtype), np.ones(0, dtype=bool), 0, np.zeros(0))
    if max_iter is None:
        max_iter = 10 * n
    P_ = op.n_parts
    # each column in units of a power of two near its largest entry (exact; X scaled back at the end), as
    # conjugate_gradient does: at B ~ 1e-200 the norms underflowed to 0, every column started "done" and x = 0
    # was reported converged (1e-160: 8.7e-3 off, residual 0)
    units = column_scales(B2)
    B2 = B2 / units

    B_f = op._futures(B2)
    bnorm = np.linalg.norm(B2, axis=0)
    bnorm_safe = np.where(bnorm > 0, bnorm, 1.0)
    M = [op._submit(_build_preconditioner, r, op.parts[r], preconditioner) for r in range(P_)]
    state = [op._submit(_cg_start, r, B_f[r], M[r]) for r in range(P_)]
    # the scalars (rz, beta, active, n_iter) are formed by every part's product task from the parts' partial
    # sums; ``rule`` says how (see _cg_rule_scalars)
    rule = ("initial", bnorm, tol)
    Pd = [None] * P_   # the previous products (none at a (re)start)
    # the parts whose partial sums reach part r with no ghost rows (neither r nor one of its neighbours)
    others = [[q for q in range(P_) if q != r and q not in op.sources[r]] for r in range(P_)]
    lone = sorted(set().union(*others))
    it = 0
    X = np.empty((n, m))
    confirmed = np.full(m, np.inf)      # each column's lowest true residual checked (residual replacement)
    while True:
        while it < max_iter:
            sweep = min(check_every, max_iter - it)
            for _ in range(sweep):  # iterations submitted without waiting; four task hops each
                sends = [[op._submit(_cg_send, s, state[s], Pd[s], idx) for s, idx in zip(op.sources[r], op.send[r])]
                         for r in range(P_)]
                alone = {q: op._submit(_cg_partials, q, state[q]) for q in lone}
                prod = [op._submit(_cg_product, r, op.parts[r], state[r], Pd[r], rule, r, op.sources[r], others[r],
                                   *sends[r], *[alone[q] for q in others[r]]) for r in range(P_)]
                pap = [op._submit(_cg_pap, r, prod[r]) for r in range(P_)] if P_ > 1 else []
                state = [op._submit(_cg_update, r, state[r], prod[r], M[r], r, *[pap[q] for q in range(P_) if q != r])
                         for r in range(P_)]
                Pd = prod
                rule = ("update", bnorm, tol)
            it += sweep
            scalars = cl.submit(_cg_check, bnorm, tol, op._submit(_cg_pap, 0, Pd[0]), *_partials(op, state),
                                pure=False)
            if not cl.submit(_active, scalars, pure=False).result().any():
                break
        blocks = cl.gather([op._submit(_cg_solution, r, state[r]) for r in range(P_)])
        for r in range(P_):  # one entry per part
            X[op.owned[r]] = blocks[r]
        n_iter = int(cl.submit(_n_iter, scalars, pure=False).result())
        R_true = B2 - op.L_global @ X
        true_res = np.linalg.norm(R_true, axis=0) / bnorm_safe
        # The recursive residual drifts from the true one, b - A x, on ill-conditioned systems: unpreconditioned
        # Dask CG stopped with it at 1e-8 and the true one 1.7e-8 (Jacobi-scaled J + mu (I + 1e10 L), 60 nodes), a
        # ConvergenceWarning where the serial CG converges.  As serially (replace_residual, the one rule): a column
        # whose true residual is above tol is restarted from it while each restart lowers it by 10 %
        again, confirmed = replace_residual(true_res, tol, confirmed)
        if not again.any() or it >= max_iter:
            break
        state = [op._submit(_cg_restart, r, cl.scatter(np.ascontiguousarray(X[op.owned[r]]), workers=[op.workers[r]],
                                                       hash=False),
                            cl.scatter(np.ascontiguousarray(R_true[op.owned[r]]), workers=[op.workers[r]], hash=False),
                            M[r]) for r in range(P_)]
        rule = ("restart", again, n_iter)
        Pd = [None] * P_
    converged = true_res <= tol * 1.01 + 10 * np.finfo(np.float64).eps
    with np.errstate(over="ignore"):
        X = (X * units).astype(out_dtype, copy=False)
    if out_dtype != np.float64 and np.isfinite(X).all():
        # the residuals of the x returned (rounded to B's float32), not of the float64 iterate: CGResult's
        # "||b - A x|| / ||b||, recomputed explicitly" (a float32 B at tol 1e-8 reported 1.7e-15 and converged
        # for an x whose residual is 6.6e-8)
        true_res = np.linalg.norm(B2 - op.L_global @ (X.astype(np.float64) / units), axis=0) / bnorm_safe
        # judged with the slack of B's precision, conjugate_gradient's rule (10 eps of its working dtype): with
        # float64's, a float32 x as accurate as float32 holds (relative residual 6.6e-8) was "not converged" at
        # the default tol (a ConvergenceWarning, a RuntimeError with on_failure="raise") where
        # conjugate_gradient and distributed_cg report the same x converged
        converged = true_res <= tol * 1.01 + 10 * np.finfo(np.result_type(out_dtype, np.float32)).eps
    if not np.isfinite(X).all():
        raise ValueError(f"dask_conjugate_gradient: the solution overflows {out_dtype} (B is too large for this A); "
                         "divide B by its largest magnitude and multiply X back.")
    result = CGResult(X[:, 0] if was_1d else X, converged, n_iter, true_res)
    if not converged.all():
        report_failure(f"conjugate gradients (dask) did not reach tol={tol:g} in {n_iter} iterations for "
                       f"{int((~converged).sum())} of {m} column(s) (worst relative residual {true_res.max():.2e}); "
                       "raise max_iter, loosen tol or use a preconditioner.", on_failure)
    return result


def _partials(op, state):
    """The parts' partial sums, each taken out of its part's state on the part's worker (a small future)."""
    return [op._submit(_cg_partials, r, state[r]) for r in range(op.n_parts)]


# ---------------------------------------------------------------------------
# The registered backend
# ---------------------------------------------------------------------------

class DaskBackend:
    """The registered ``"dask"`` backend (protocol in :mod:`graphrkhs._core.backend`).

    ``backend="auto"`` picks it when a ``distributed.Client`` is active in
    this process (and the call does not itself run inside a Dask task).
    """

    name = "dask"

    def active(self):
        if "distributed" not in sys.modules:   # no client can exist without the module imported
            return False
        from distributed import Client
        try:
            Client.current()
        except ValueError:
            return False
        return not _in_worker()

    def require(self):
        """An explicit ``backend='dask'`` needs a client (the ``ValueError`` of :func:`get_dask_client`), also
        where the work is done on the driver (direct solves of small systems, an estimator's fit)."""
        get_dask_client()

    def prepare(self, L, dtype, reorder="auto"):
        return DaskOperator(L, dtype=dtype, order="auto" if reorder in ("auto", True) else None)

    def solve_spd(self, A, B, tol, max_iter, preconditioner):
        if isinstance(preconditioner, spla.LinearOperator):
            raise ValueError("backend='dask' builds its own block-Jacobi preconditioner; a prebuilt global "
                             "preconditioner cannot be distributed: pass 'amg', 'jacobi' or None.")
        return dask_conjugate_gradient(A, B, tol=tol, max_iter=max_iter, preconditioner=preconditioner).x

    def laplacian(self, W, kind):
        """The Laplacian by row blocks on the workers, gathered to the client (see ``dask_laplacian``)."""
        from ._laplacian import _dask_laplacian

        return _dask_laplacian(W, kind, get_dask_client())

    def knn_graph(self, X, n_neighbors, **kwargs):
        """The kNN graph built cell by cell, one Dask task per cell (see ``distributed_knn_graph``);
        returns ``(W, cells)``, the cells a partition for :class:`DaskOperator` (``part=``)."""
        from ._knn import distributed_knn_graph

        return distributed_knn_graph(X, n_neighbors, executor=get_dask_client(), **kwargs)

    def lmax(self, op):
        from ..spectral import lmax
        return float(lmax(op.L_global))


register_backend(DaskBackend())
