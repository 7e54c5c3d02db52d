r"""The communication layer: the few collective operations the distributed numerics need.

Everything above this module (distributed CSR products, Chebyshev filtering,
CG, Lanczos) talks to a :class:`Communicator`:

* ``rank``, ``size``;
* :meth:`~Communicator.allreduce` -- elementwise sum (or max) of an array over
  all processes (the dot products of CG and Lanczos);
* :meth:`~Communicator.bcast` -- one Python object from ``root`` to all;
* :meth:`~Communicator.allgather_rows` -- the row blocks of all processes,
  concatenated in rank order, on every process;
* :meth:`~Communicator.alltoall` -- one Python object from every process to
  every process (the ghost-row requests when a plan is built from local rows);
* :meth:`~Communicator.halo` -- a :class:`HaloExchange` for a partition plan
  (:mod:`graphrkhs.distributed._partition`): each process sends the rows of
  its block that its neighbours need (their *ghost rows*) and receives its
  own ghost rows, in one neighbourhood collective.

Two implementations: :class:`SerialComm` (one process, no ghost rows: the
exchanges are no-ops) and :class:`MPIComm` (mpi4py; the halo exchange is
``Ineighbor_alltoallv`` on a ``Create_dist_graph_adjacent`` communicator whose
edges are exactly the pairs of partitions that share an edge of the graph, so
a process talks to its graph neighbours only).  The Dask backend has its own
driver-side scheme and reuses only :class:`SerialComm` inside a worker.
"""

import numbers
import os
import stat
import zlib

import numpy as np

__all__ = ["check_same_inputs", "input_fingerprint", "Communicator", "SerialComm", "MPIComm", "HaloExchange", "world",
           "mpi_world_size"]


def compute_on_root(comm, func, root=0):
    """``func()`` evaluated on ``root`` and broadcast; an exception there is raised on every process.

    The other processes wait in the broadcast: had ``root`` raised on its own (a bad
    option, a METIS failure) they would have waited forever.  The exception object
    itself is broadcast (pickled), so every process raises the same type and message.
    """
    if comm.size == 1:
        return func()
    outcome, error = None, None
    if comm.rank == root:
        try:
            outcome = (True, func())
        except Exception as exc:   # re-raised below, on every process
            error = exc
            outcome = (False, _portable(exc, root))
    ok, value = comm.bcast(outcome, root=root)
    if not ok:
        raise (error if error is not None else value)
    return value


def _portable(exc, rank):
    """``exc`` if it survives pickling, else a RuntimeError with its type and message."""
    import pickle

    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:
        return RuntimeError(f"{type(exc).__name__} on rank {rank}: {exc}")


def call_together(comm, func):
    """``func()`` on every process, with its failure on any process raised on every process.

    For local work between collectives (a per-rank preconditioner, the rank's kNN cells):
    a process that raised alone would leave the others waiting in the next collective.
    The outcomes are all-gathered (one small object per process); a failing process
    raises its own exception, the others the exception of the first failing rank.
    """
    if comm.size == 1:
        return func()
    try:
        value, error = func(), None
    except Exception as exc:
        value, error = None, exc
    errors = comm.allgather(None if error is None else _portable(error, comm.rank))
    if error is not None:
        raise error
    first = next((e for e in errors if e is not None), None)
    if first is not None:
        raise first
    return value


def any_rank(comm, flag):
    """Whether ``flag`` is true on at least one process (a collective: every process must call it).

    Local input checks go through it, so that a bad block on one process makes every
    process raise instead of leaving the others waiting in the next reduction.
    """
    return bool(np.asarray(comm.allreduce(np.array([float(bool(flag))]), op="max"))[0] > 0)


#: What every rank must do when :func:`check_same_inputs` finds a difference.
SAME_INPUTS_ADVICE = ("every rank must call with the same arguments (the same graph, signals, labels and options): "
                      "seed your random draws (np.random.default_rng(0)) or draw them on rank 0 and broadcast them "
                      "(comm.bcast); for independent work on each rank pass backend='numpy'.")


def _crc(arrays):
    crc = 0
    for a in arrays:
        crc = zlib.crc32(np.ascontiguousarray(a).reshape(-1).view(np.uint8), crc)
    return crc


def input_fingerprint(value):
    """A short description of an argument, equal on two processes exactly when the argument is (to a CRC-32).

    Arrays: ``("array", shape, dtype, crc)``, the CRC-32 of the bytes; sparse matrices ``("sparse", shape,
    dtype, nnz, crc)`` over ``indptr``, ``indices`` and ``data`` of the canonical CSR form (the same matrix
    stored with its entries in another order is the same matrix); a NumPy ``Generator`` / ``RandomState`` /
    bare ``BitGenerator`` its state; anything else the ``repr`` (options:
    ``tol``, ``preconditioner``, ...; numbers as Python ints and floats, so that ``np.float64(1e-8)`` and
    ``1e-8`` agree; a long ``repr`` by its length and CRC-32).  One pass over the bytes: a
    few milliseconds for 10^7 entries.
    """
    import scipy.sparse as sp

    if sp.issparse(value):
        A = value if value.format == "csr" else sp.csr_array(value)
        if not A.has_canonical_format:
            A = sp.csr_array(A, copy=True)
            A.sum_duplicates()
        return ("sparse", tuple(A.shape), A.dtype.str, int(A.nnz), _crc((A.indptr.astype(np.int64, copy=False),
                                                                             A.indices.astype(np.int64, copy=False),
                                                                             A.data)))
    if isinstance(value, np.random.Generator):
        # its state, not its repr: "Generator(PCG64) at 0x7F..." holds its address, which differs between
        # processes, so a Generator seeded alike on every rank (random_state=np.random.default_rng(0)) was
        # refused as "inputs differ between MPI ranks"
        return ("value", _short_repr(("Generator", value.bit_generator.state)))
    if isinstance(value, np.random.BitGenerator):
        # a bare bit generator (np.random.PCG64(0)): its repr "<...PCG64 object at 0x7F...>" is its address too,
        # so equal generators were "inputs that differ between MPI ranks" (and unequal ones could look equal)
        return ("value", _short_repr((type(value).__name__, value.state)))
    if isinstance(value, np.random.RandomState):
        kind, keys, pos, has_gauss, cached = value.get_state()
        return ("value", _short_repr(("RandomState", kind, _crc((keys,)), pos, has_gauss, cached)))
    if isinstance(value, np.ndarray):
        if value.dtype.hasobject:
            return ("value", _short_repr(value.tolist()))
        return ("array", tuple(value.shape), value.dtype.str, _crc((value,)))
    if isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_)):
        value = int(value)          # np.int64(3) and 3 are the same option
    elif isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)):
        value = float(value)
    return ("value", _short_repr(value))


def _short_repr(value):
    text = repr(value)
    if len(text) <= 80:
        return text
    return f"{text[:60]}... ({len(text)} characters, CRC-32 {zlib.crc32(text.encode()):08x})"


def _describe(name, fp):
    if fp is None:
        return f"no {name}"
    kind = fp[0]
    if kind == "array":
        return f"{name} of shape {fp[1]}, {np.dtype(fp[2]).name}, CRC-32 {fp[3]:08x}"
    if kind == "sparse":
        return f"{name} of shape {fp[1]}, {np.dtype(fp[2]).name}, {fp[3]} stored entries, CRC-32 {fp[4]:08x}"
    return f"{name}={fp[1]}"


def check_same_inputs(comm, what, items):
    """Raise the same ``ValueError`` on every process unless ``items`` (name -> argument) agree on all of them.

    The MPI backend's entry points (:class:`graphrkhs.distributed.MPIBackend`) take arguments every rank
    holds whole; a script that drew them differently on each rank (a random labeled set without a seed)
    deadlocked (the ranks stopped CG at different iterations, ran Chebyshev recurrences of different
    degrees, waited for rows of different sizes) or returned a mixture of the ranks' answers.  One
    ``allgather`` of each process's fingerprints (:func:`input_fingerprint`: shapes, dtypes, CRC-32s; a few
    hundred bytes, whatever the shapes) decides it before any other collective.  The message names the
    first argument that differs, what each rank holds, and the fix.  A collective: every process calls it.
    """
    if comm.size == 1:
        return
    mine = {name: input_fingerprint(value) for name, value in items.items()}
    everyone = comm.allgather(mine)
    names = list(items) + [k for fps in everyone for k in fps if k not in items]
    for name in names:
        fps = [fps.get(name) for fps in everyone]
        if all(fp == fps[0] for fp in fps):
            continue
        groups = {}
        for rank, fp in enumerate(fps):
            groups.setdefault(fp, []).append(rank)
        held = "; ".join(f"rank{'s' if len(ranks) > 1 else ''} {', '.join(map(str, ranks))} "
                         f"{'have' if len(ranks) > 1 else 'has'} {_describe(name, fp)}" for fp, ranks in groups.items())
        raise ValueError(f"the inputs differ between MPI ranks ({what}): {held}; " + SAME_INPUTS_ADVICE)


#: Set (to its pid) by the process the MPI launcher started, when it imports graphrkhs: its children
#: (subprocesses, joblib / multiprocessing workers) inherit the launcher's variables but are no ranks.
RANK_PID_VARIABLE = "GRAPHRKHS_MPI_RANK_PID"


def _without_pmi_connection():
    """True when the environment names a PMI socket (MPICH / Intel MPI Hydra: ``PMI_FD``) that this process
    does not hold: it inherited a rank's environment but not its connection to the launcher (a
    ``subprocess`` child: Python closes inherited descriptors), so it is no rank -- ``MPI_Init`` could not
    even reach the launcher from here.  Without ``PMI_FD`` (Open MPI, PMIx, ``PMI_PORT``) nothing is known."""
    fd = os.environ.get("PMI_FD")
    if not fd or not fd.isdigit():
        return False
    try:
        return not stat.S_ISSOCK(os.fstat(int(fd)).st_mode)
    except OSError:      # closed (EBADF) or not ours
        return True


def _launcher_size():
    if _without_pmi_connection():
        return 1
    for var in ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "MV2_COMM_WORLD_SIZE"):
        value = os.environ.get(var)
        if value and value.isdigit():
            return int(value)
    return 1


def mpi_world_size():
    """Number of processes of the MPI job this process was launched in (1 outside ``mpiexec``).

    Read from the launcher's environment (MPICH / Intel MPI ``PMI_SIZE``, Open MPI
    ``OMPI_COMM_WORLD_SIZE``, MVAPICH ``MV2_COMM_WORLD_SIZE``) so that the answer is
    known without initializing MPI; if mpi4py has already initialized MPI,
    its ``COMM_WORLD.size`` is used.  A process started *by* a rank (a
    subprocess, a joblib worker) inherits those variables but is no rank: it
    counts as one process (``GRAPHRKHS_MPI_RANK_PID``, set by the rank, names
    another process), so that ``backend="auto"`` runs serially there instead of
    aborting in ``MPI_Init``.  Under MPICH / Intel MPI (Hydra) that holds even when
    the rank had not imported graphrkhs before starting it: a process whose
    ``PMI_FD`` is not an open socket holds no connection to the launcher (a
    ``subprocess`` child; Python closes inherited descriptors) and is no rank.
    """
    import sys
    owner = os.environ.get(RANK_PID_VARIABLE)
    if owner is not None and owner != str(os.getpid()):
        return 1
    mod = sys.modules.get("mpi4py.MPI")
    if mod is not None and mod.Is_initialized() and not mod.Is_finalized():
        return mod.COMM_WORLD.Get_size()
    return _launcher_size()


if _launcher_size() > 1:
    # the first process of the launched environment to import graphrkhs is the rank itself
    os.environ.setdefault(RANK_PID_VARIABLE, str(os.getpid()))


class HaloExchange:
    r"""Fill the ghost rows of a block from their owners.

    For a process that owns ``n_own`` rows and needs ``n_ghost`` ghost rows:
    ``send_index`` lists the owned rows (local numbers) to send, grouped by
    destination in the order of ``destinations`` with ``send_counts`` rows
    each; the ghost block is filled in the order of ``sources`` with
    ``recv_counts`` rows each.  :meth:`start` posts the exchange of an
    (n_own, m) block and returns a handle whose ``wait()`` returns the
    (n_ghost, m) ghost block, so that the interior rows can be computed while
    the messages travel.
    """

    def __init__(self, comm, sources, recv_counts, destinations, send_counts, send_index):
        self.comm = comm
        self.sources = np.asarray(sources, dtype=np.int64)
        self.recv_counts = np.asarray(recv_counts, dtype=np.int64)
        self.destinations = np.asarray(destinations, dtype=np.int64)
        self.send_counts = np.asarray(send_counts, dtype=np.int64)
        self.send_index = np.asarray(send_index, dtype=np.int64)
        self.n_ghost = int(self.recv_counts.sum())
        self.n_send = int(self.send_counts.sum())
        self._graph = None
        self._users = None
        if comm.size > 1:
            self._graph, self._users = _neighbourhood(comm, self.sources, self.destinations)
            self._users.add(self)   # the communicator is not freed while this exchange lives

    @property
    def collective(self):
        """Whether exchanges are neighbourhood collectives (every process of the job must take part)."""
        return self._graph is not None

    @property
    def bytes_per_column(self):
        """Bytes this process receives per float64 column of a block (its halo volume)."""
        return 8 * self.n_ghost

    def start(self, block):
        """Post the exchange of ``block`` (n_own, m), C-contiguous; returns a handle with ``wait()``."""
        m = block.shape[1]
        ghost = np.empty((self.n_ghost, m), dtype=block.dtype)
        if self._graph is None:
            return _Done(ghost)
        from mpi4py.util.dtlib import from_numpy_dtype
        sendbuf = block[self.send_index] if self.n_send else np.empty((0, m), dtype=block.dtype)
        mpitype = from_numpy_dtype(block.dtype)
        scounts = (self.send_counts * m).astype(np.int64)
        rcounts = (self.recv_counts * m).astype(np.int64)
        # one displacement per neighbour (none for a process without neighbours)
        sdispl = np.concatenate([[0], np.cumsum(scounts)])[:-1].astype(np.int64)
        rdispl = np.concatenate([[0], np.cumsum(rcounts)])[:-1].astype(np.int64)
        req = self._graph.Ineighbor_alltoallv([sendbuf, (scounts, sdispl), mpitype],
                                              [ghost, (rcounts, rdispl), mpitype])
        return _Pending(req, ghost, sendbuf)

    def exchange(self, block):
        """The ghost block of ``block``, blocking."""
        return self.start(block).wait()

    def free(self):
        """Drop this exchange's reference to its neighbourhood communicator (shared, kept in the cache; freed
        when the cache is full and no exchange on any process uses it)."""
        if self._users is not None:
            self._users.discard(self)
        self._graph = self._users = None


# Neighbourhood communicators by (communicator, global topology).  MPI has a few thousand communicator
# ids per process (MPICH: 2048), and a communicator is freed only by MPI_Comm_free, collectively: one new
# communicator per operator ran out of them after ~2000 calls of chebyshev_filter(backend="mpi")
# ("Other MPI error" in MPI_Dist_graph_create_adjacent).  Operators with the same topology -- every
# call on the same graph and partition -- share one.  Distinct topologies (operators on many graphs or
# partitions) used to accumulate for good; from _MAX_NEIGHBOURHOODS entries of one parent communicator
# on, a new one first frees those that no exchange on any process uses any more (least recently used
# first in the dict's order, which is the same on every process: lookups are collective).
_NEIGHBOURHOODS = {}
_MAX_NEIGHBOURHOODS = 64


def _neighbourhood(comm, sources, destinations):
    """The ``Create_dist_graph_adjacent`` communicator of these edges, created once per global topology,
    and the set of the exchanges that use it (weak references).

    The key is the topology of every process (all-gathered, a few integers per process), so every
    process finds or misses the same entry and the creation, a collective, is never called by some
    processes only.
    """
    import weakref

    mine = (tuple(int(s) for s in sources), tuple(int(d) for d in destinations))
    key = (id(comm.comm), tuple(comm.allgather(mine)))
    entry = _NEIGHBOURHOODS.pop(key, None)
    if entry is None:
        _free_unused_neighbourhoods(comm)
        graph = comm.comm.Create_dist_graph_adjacent(list(mine[0]), list(mine[1]), reorder=False)
        # the parent communicator is kept alive with it: its id in the key is never reused
        entry = (comm.comm, graph, weakref.WeakSet())
    _NEIGHBOURHOODS[key] = entry   # (re)inserted last: the dict is in order of last use
    return entry[1], entry[2]


def _free_unused_neighbourhoods(comm):
    """With ``_MAX_NEIGHBOURHOODS`` or more cached communicators on ``comm``'s parent, free those that no
    exchange on any process uses (a collective on ``comm``: every process frees the same ones)."""
    keys = [k for k, e in _NEIGHBOURHOODS.items() if e[0] is comm.comm]
    if len(keys) < _MAX_NEIGHBOURHOODS:
        return
    used = np.array([float(len(_NEIGHBOURHOODS[k][2]) > 0) for k in keys])
    used = np.asarray(comm.allreduce(used, op="max"))
    for k, u in zip(keys, used):   # in the same order on every process
        if not u:
            _, graph, _ = _NEIGHBOURHOODS.pop(k)
            graph.Free()


class _Done:
    def __init__(self, ghost):
        self.ghost = ghost

    def wait(self):
        return self.ghost


class _Pending:
    def __init__(self, req, ghost, sendbuf):
        self.req = req
        self.ghost = ghost
        self.sendbuf = sendbuf   # kept alive until the send completes

    def wait(self):
        self.req.Wait()
        self.sendbuf = None
        return self.ghost


class Communicator:
    """Interface of the communication layer (see the module doc); :class:`SerialComm` is the reference."""

    rank = 0
    size = 1

    def allreduce(self, a, op="sum"):
        raise NotImplementedError

    def bcast(self, obj, root=0):
        raise NotImplementedError

    def allgather_rows(self, block):
        raise NotImplementedError

    def allgather(self, obj):
        raise NotImplementedError

    def alltoall(self, objs):
        """``objs[d]`` goes to process d; returns what every process sent to this one, by source."""
        raise NotImplementedError

    def barrier(self):
        raise NotImplementedError

    def halo(self, sources, recv_counts, destinations, send_counts, send_index):
        """A :class:`HaloExchange` for this process's part of a partition plan."""
        return HaloExchange(self, sources, recv_counts, destinations, send_counts, send_index)


class SerialComm(Communicator):
    """One process: reductions return their input, the halo is empty."""

    rank = 0
    size = 1

    def allreduce(self, a, op="sum"):
        return np.array(a, dtype=np.float64, copy=True)

    def bcast(self, obj, root=0):
        return obj

    def allgather_rows(self, block):
        return np.asarray(block)

    def allgather(self, obj):
        return [obj]

    def alltoall(self, objs):
        if len(objs) != 1:
            raise ValueError(f"alltoall on one process needs one object; got {len(objs)}.")
        return list(objs)

    def barrier(self):
        pass


class MPIComm(Communicator):
    """The communication layer on an mpi4py communicator (default ``MPI.COMM_WORLD``).

    Creating it with more than one process sets ``GRAPHRKHS_NUM_THREADS``
    (unless already set) to the cores per process of this node, and limits
    the BLAS / OpenMP thread pools to that number (unless ``OMP_NUM_THREADS``
    or the like is set), so that P processes on a node do not each start one
    thread per core.
    """

    def __init__(self, comm=None):
        from mpi4py import MPI
        self.comm = MPI.COMM_WORLD if comm is None else comm
        self.rank = self.comm.Get_rank()
        self.size = self.comm.Get_size()
        if self.size > 1:
            local = self.comm.Split_type(MPI.COMM_TYPE_SHARED)
            per_node = local.Get_size()
            local.Free()
            threads = max(1, (os.cpu_count() or 1) // per_node)
            if "GRAPHRKHS_NUM_THREADS" not in os.environ:
                os.environ["GRAPHRKHS_NUM_THREADS"] = str(threads)
            if not any(v in os.environ for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")):
                # BLAS threads too: P ranks x all-core BLAS pools on one node spin against each other
                # (a 300 x 300 eigvalsh took 10 s instead of 10 ms with 2 ranks on 2 cores)
                from threadpoolctl import threadpool_limits
                threadpool_limits(limits=threads)

    def allreduce(self, a, op="sum"):
        from mpi4py import MPI
        send = np.ascontiguousarray(a, dtype=np.float64)
        out = np.empty_like(send)
        self.comm.Allreduce(send, out, op={"sum": MPI.SUM, "max": MPI.MAX, "min": MPI.MIN}[op])
        return out

    def bcast(self, obj, root=0):
        return self.comm.bcast(obj, root=root)

    def allgather(self, obj):
        return self.comm.allgather(obj)

    def alltoall(self, objs):
        return self.comm.alltoall(list(objs))

    def allgather_rows(self, block):
        """Row blocks of all ranks concatenated in rank order (each rank's block may have 0 rows)."""
        from mpi4py.util.dtlib import from_numpy_dtype
        block = np.ascontiguousarray(block)
        tail = block.shape[1:]
        width = int(np.prod(tail)) if tail else 1
        rows = np.array(self.comm.allgather(block.shape[0]), dtype=np.int64)
        counts = rows * width
        # the rows from the row counts: a block with no columns (width 0) still has its rows
        out = np.empty((int(rows.sum()),) + tail, dtype=block.dtype)
        displ = np.concatenate([[0], np.cumsum(counts)])[:-1].astype(np.int64)
        mpitype = from_numpy_dtype(block.dtype)
        self.comm.Allgatherv([block, mpitype], [out, (counts, displ), mpitype])
        return out

    def barrier(self):
        self.comm.Barrier()


_WORLD = None


def world():
    """The communicator of this process: :class:`MPIComm` on ``COMM_WORLD`` under mpiexec, else :class:`SerialComm`."""
    global _WORLD
    if _WORLD is None:
        size = mpi_world_size()
        if size > 1:
            try:
                import mpi4py  # noqa: F401
            except ImportError as exc:
                # backend="auto" stays serial here (MPIBackend.active); an explicit "mpi" needs mpi4py
                raise ImportError(f"this process was launched by mpiexec with {size} processes, but mpi4py is not "
                                  "installed: pip install 'graphrkhs[mpi]' (mpi4py, mpich), or use "
                                  "backend='auto' / 'numpy' (every process then computes serially).") from exc
        _WORLD = MPIComm() if size > 1 else SerialComm()
    return _WORLD
