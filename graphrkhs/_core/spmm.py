r"""Compiled sparse kernels behind the Chebyshev and Lanczos filters.

One fused kernel (numba, compiled without the GIL, run on chunks of rows
shared between the calling thread and helper threads) does one step of every
three-term polynomial recurrence used here:

.. math::

    \mathrm{out}_{i,:} \leftarrow \alpha\,\big(a\,(L\,\mathrm{cur})_{i,:} + b\,\mathrm{cur}_{i,:}\big)
    + \beta\,\mathrm{out}_{i,:} + \gamma\,X_{i,:},
    \qquad R_{f,i,:} \mathrel{+}= w_f\,\mathrm{out}_{i,:}\ (f = 1..F)

* a Chebyshev step :math:`T_{k+1} = 2\tilde L T_k - T_{k-1}` with
  :math:`\tilde L = a L + b I` is ``alpha=2, beta=-1`` writing :math:`T_{k+1}`
  over :math:`T_{k-1}` (row i of the result needs row i of the overwritten
  block only, so the update is safe in place), the bank accumulation
  :math:`R_f \mathrel{+}= c_{f,k+1} T_{k+1}` fused in;
* a Clenshaw step :math:`b_k = c_k X + 2\tilde L b_{k+1} - b_{k+2}` is
  ``alpha=2, beta=-1, gamma=c_k``;
* a plain product :math:`L\,\mathrm{cur}` is ``a=1, b=0, alpha=1, beta=0``.

Fusing reads each block once per step instead of once per BLAS-1 pass, and
the row chunks use every core (SciPy's sparse products are single-threaded).
Chunks are claimed one at a time by whichever thread is free, and the caller
never waits for a helper that has not started (see :class:`_RowPool`).  ``beta == 0`` never reads ``out`` (it may hold garbage) and
``gamma == 0`` never reads ``X``.
"""

import os
import threading
import time
import weakref

import numpy as np

from .validation import check_csr_structure, check_index_array

try:
    from numba import njit
except ImportError as exc:  # pragma: no cover - numba is a hard dependency
    raise ImportError("graphrkhs needs numba (pip install numba)") from exc

__all__ = []

# Work per chunk handed to a thread: about 1 ms of products, so that the
# per-chunk overhead (a lock and a compiled-function call, ~10 us) stays small.
_CHUNK_ENTRIES = 400_000
_MAX_CHUNKS = 32


@njit(cache=True, nogil=True)
def _fused_rows(indptr, indices, data, a, b, alpha, beta, gamma, cur, out, X, weights, R, start, stop):
    m = cur.shape[1]
    n_filters = weights.shape[0]
    acc = np.empty(m, dtype=cur.dtype)
    for i in range(start, stop):
        for j in range(m):
            acc[j] = 0
        for p in range(indptr[i], indptr[i + 1]):
            w = data[p]
            col = indices[p]
            for j in range(m):
                acc[j] += w * cur[col, j]
        if b != 0:   # b == 0 never reads row i of cur: the matrix may be rectangular
            for j in range(m):
                acc[j] = alpha * (a * acc[j] + b * cur[i, j])
        else:
            for j in range(m):
                acc[j] = alpha * a * acc[j]
        if beta != 0:
            if gamma != 0:
                for j in range(m):
                    out[i, j] = acc[j] + beta * out[i, j] + gamma * X[i, j]
            else:
                for j in range(m):
                    out[i, j] = acc[j] + beta * out[i, j]
        else:
            if gamma != 0:
                for j in range(m):
                    out[i, j] = acc[j] + gamma * X[i, j]
            else:
                for j in range(m):
                    out[i, j] = acc[j]
        for f in range(n_filters):
            wf = weights[f]
            for j in range(m):
                R[f, i, j] += wf * out[i, j]


@njit(cache=True, nogil=True)
def _fused_rows_1(indptr, indices, data, a, b, alpha, beta, gamma, cur, out, X, weights, R, start, stop):
    """The single-column case of :func:`_fused_rows` on 1-D blocks (scalar accumulator)."""
    n_filters = weights.shape[0]
    use_out = beta != 0
    use_x = gamma != 0
    for i in range(start, stop):
        s = 0.0
        for p in range(indptr[i], indptr[i + 1]):
            s += data[p] * cur[indices[p]]
        v = alpha * (a * s + b * cur[i]) if b != 0 else alpha * a * s
        if use_out:
            v += beta * out[i]
        if use_x:
            v += gamma * X[i]
        out[i] = v
        for f in range(n_filters):
            R[f, i] += weights[f] * v


class _Job:
    """Row chunks of one kernel call, claimed one at a time by whichever thread is free."""

    def __init__(self, func, args, bounds):
        self.func = func
        self.args = args
        self.bounds = bounds
        self.n_chunks = len(bounds) - 1
        self.next = 0
        self.done = 0
        self.error = None
        self.cond = threading.Condition()

    def work(self):
        while True:
            with self.cond:
                if self.next >= self.n_chunks:
                    return
                c = self.next
                self.next += 1
            try:
                if self.error is None:
                    self.func(*self.args, self.bounds[c], self.bounds[c + 1])
            except BaseException as exc:  # reported by the calling thread
                self.error = exc
            with self.cond:
                self.done += 1
                if self.done == self.n_chunks:
                    self.cond.notify_all()

    def wait(self):
        with self.cond:
            while self.done < self.n_chunks:
                self.cond.wait()
        if self.error is not None:
            raise self.error


class _RowPool:
    """Work sharing over row chunks between the calling thread and helper threads.

    The caller works on its own job and waits only for chunks a helper has
    actually started: on a machine shared with other processes a helper that
    is not scheduled costs nothing (the caller takes all chunks), where an
    OpenMP-style fork/join region would wait for it at the barrier -- measured
    here at 10-15x the serial time per product under load.
    """

    def __init__(self, n_helpers):
        self.n_helpers = n_helpers
        self.cond = threading.Condition()
        self.job = None
        self.generation = 0
        self.threads = []
        self.backoff = 0   # serial calls to make after a helper held the caller up
        self.skip = 0

    def _start(self):
        for _ in range(self.n_helpers):
            t = threading.Thread(target=self._helper, name="graphrkhs-spmm", daemon=True)
            t.start()
            self.threads.append(t)

    def _helper(self):
        seen = 0
        while True:
            with self.cond:
                while self.generation == seen:
                    self.cond.wait()
                seen = self.generation
                job = self.job
            job.work()

    def run(self, func, args, bounds):
        job = _Job(func, args, bounds)
        parallel = self.n_helpers > 0 and job.n_chunks > 1 and self.skip == 0
        if self.skip:
            self.skip -= 1
        if parallel:
            if not self.threads:
                self._start()
            with self.cond:
                self.job = job
                self.generation += 1
                self.cond.notify_all()
        t0 = time.perf_counter()
        job.work()
        t1 = time.perf_counter()
        job.wait()
        if parallel:
            # A helper that holds up the caller longer than half the caller's own
            # work is being starved by other processes: run the next calls serially,
            # doubling that stretch each time it happens again (and halving it back
            # after a run where helping paid).
            waited = time.perf_counter() - t1
            if waited > 0.5 * (t1 - t0) and waited > 2e-4:
                self.backoff = min(max(2 * self.backoff, 4), 256)
                self.skip = self.backoff
            else:
                self.backoff //= 2


_POOL = None
_POOL_LOCK = threading.Lock()


def n_threads():
    """Threads used by the kernels: ``GRAPHRKHS_NUM_THREADS`` or the number of cores.

    A value that is not a positive integer raises a ``ValueError`` naming the
    variable (``int()``'s own message did not say where the text came from).
    """
    value = os.environ.get("GRAPHRKHS_NUM_THREADS")
    if value is not None and value.strip():
        try:
            threads = int(value)
        except ValueError:
            threads = 0
        if threads < 1:
            raise ValueError(f"GRAPHRKHS_NUM_THREADS must be a positive integer (the threads of the compiled "
                             f"sparse kernels); got {value!r}.")
        return threads
    return max(1, os.cpu_count() or 1)


def _pool():
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            # a call never has more than _MAX_CHUNKS chunks, so more helpers would only sit idle (a huge
            # GRAPHRKHS_NUM_THREADS used to start that many threads)
            _POOL = _RowPool(min(n_threads(), _MAX_CHUNKS) - 1)
        return _POOL


def _unsigned(a):
    return a.view(np.uint32) if a.dtype == np.int32 else (a.view(np.uint64) if a.dtype == np.int64 else a)


def _chunks(L, m):
    n = L.shape[0]
    work = L.nnz * m + n
    k = int(min(_MAX_CHUNKS, max(1, work // _CHUNK_ENTRIES), n))
    if k == 1:
        return np.array([0, n], dtype=np.int64)
    # equal numbers of stored entries per chunk
    targets = np.linspace(0, L.nnz, k + 1)
    bounds = np.searchsorted(L.indptr, targets).astype(np.int64)
    bounds[0], bounds[-1] = 0, n
    return np.unique(bounds)


# Index arrays sealed by seal_csr (checked and made read-only), by identity: the
# key holds the ids of indices and indptr together with the shape and len(data)
# they were checked against (the same arrays under another shape, or another pair
# of checked arrays, are not vouched for), the value weak references to both
# arrays whose callbacks drop the entry, so that a freed array's id can never
# vouch for a new one.  Kernels run many steps on one matrix, and the O(nnz)
# check is paid once per sealed matrix, not per step; a matrix that is not
# sealed (or whose arrays were made writeable again) is checked on every call.
_CHECKED = {}
# reentrant: a weakref callback (forget) can run in this thread while it holds the lock, when an
# allocation under the lock triggers the cyclic garbage collector
_CHECKED_LOCK = threading.RLock()


def _csr_key(L):
    return (id(L.indices), id(L.indptr), tuple(L.shape), np.shape(L.data)[0])


def _known_csr(L):
    """Whether L's index arrays were sealed by :func:`seal_csr` (checked, read-only, still L's own)."""
    key = _csr_key(L)
    with _CHECKED_LOCK:
        refs = _CHECKED.get(key)
    return (refs is not None and refs[0]() is L.indices and refs[1]() is L.indptr
            and not L.indices.flags.writeable and not L.indptr.flags.writeable)


def seal_csr(L, name="L"):
    """Check a CSR matrix's index arrays once and make them read-only, for many kernel calls.

    The compiled kernels read ``cur[indices[p]]`` unchecked, and the O(nnz)
    check of :func:`~graphrkhs._core.validation.check_csr_structure` is paid
    on every call for a matrix that is not sealed: a caller's matrix can be
    edited in place between two calls (``L.indices[i] = n + 10**6`` after a
    first product read outside the block and crashed the interpreter).  The
    operators that run many steps on matrices of their own (prepared graph
    operators, AMG levels, distributed parts) seal them; ``indptr`` and
    ``indices`` then refuse in-place writes, so the one check stays true.
    Returns ``L``; a matrix already sealed is not checked again.
    """
    if _known_csr(L):
        return L
    check_csr_structure(L, name)
    L.indices.flags.writeable = False
    L.indptr.flags.writeable = False
    _remember_csr(L)
    return L


def _remember_csr(L):
    key = _csr_key(L)

    def forget(_ref, key=key):
        with _CHECKED_LOCK:
            _CHECKED.pop(key, None)

    refs = (weakref.ref(L.indices, forget), weakref.ref(L.indptr, forget))
    with _CHECKED_LOCK:
        _CHECKED[key] = refs


def _overlap(a, b):
    """Whether two blocks share an element (bounded work; a case too hard to decide counts as none)."""
    try:
        return np.shares_memory(a, b, max_work=100_000)
    except np.exceptions.TooHardError if hasattr(np, "exceptions") else np.TooHardError:
        return False


#: The float dtypes numba compiles the kernels for.
_KERNEL_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _same_rows(a, b):
    """Whether two blocks are the same memory with the same layout (row i of one is row i of the other)."""
    return (a.shape == b.shape and a.strides == b.strides and a.dtype == b.dtype
            and a.__array_interface__["data"][0] == b.__array_interface__["data"][0])


def _check_operands(L, cur, out, X, weights, R, b):
    """Shapes and index bounds of a fused step, checked before the compiled kernel runs.

    The kernels read ``cur[indices[p]]`` and write ``out[i]``, ``R[f, i]``
    without bounds checks (an out-of-range index corrupts memory or aborts the
    interpreter), so every index array and block shape is verified here.
    """
    n_rows, n_cols = L.shape
    # complex or object entries fail inside numba's type inference, with a message about the compiler
    data_dtype = np.asarray(L.data).dtype
    if data_dtype.kind not in "fiub" or (data_dtype.kind == "f" and data_dtype not in _KERNEL_FLOATS):
        raise TypeError(f"fused_step: L must have real entries of a dtype the compiled kernel reads (float32, "
                        f"float64, integer or bool); got dtype {data_dtype}.")
    if cur.ndim != 2 or out.ndim != 2 or cur.shape[0] != n_cols or out.shape != (n_rows, cur.shape[1]):
        raise ValueError(f"fused_step: blocks of shape cur {cur.shape} and out {out.shape} do not fit a "
                         f"matrix of shape {L.shape}.")
    # the compiled loop accumulates in cur's dtype and stores into out's: integer blocks would
    # truncate every product silently
    # (numba has no float16 or long double: those failed inside its type inference)
    for block, block_name in ((cur, "cur"), (out, "out"), (X, "X"), (R, "R")):
        if block is not None and block.dtype not in _KERNEL_FLOATS:
            raise TypeError(f"fused_step: {block_name} must be a float block; got dtype {block.dtype} (float32 "
                            f"or float64: convert it with .astype(np.float64) first).")
    # the compiled kernel writes out and R in place; a read-only block fails inside numba's type inference
    for block, block_name in ((out, "out"), (R, "R")):
        if block is not None and not block.flags.writeable:
            raise ValueError(f"fused_step: {block_name} is read-only; pass a writeable block.")
    # row i of out (and of every R[f]) is written while later rows still read cur: an aliased
    # block corrupts the product
    if np.may_share_memory(cur, out) and _overlap(cur, out):
        raise ValueError("fused_step: out shares memory with cur; pass a separate output block.")
    if R is not None and np.may_share_memory(cur, R) and _overlap(cur, R):
        raise ValueError("fused_step: R shares memory with cur; pass a separate accumulator.")
    # row i of X, out and R[f] is read and written at step i only: the very same block is safe (out = X
    # for an in-place update), a shifted view of it reads rows already overwritten
    for (u, u_name), (v, v_name) in (((X, "X"), (out, "out")), ((R, "R"), (out, "out")), ((R, "R"), (X, "X"))):
        if u is not None and v is not None and np.may_share_memory(u, v) and _overlap(u, v) and not (
                _same_rows(u, v) if u.ndim == 2 else any(_same_rows(u[f], v) for f in range(u.shape[0]))):
            raise ValueError(f"fused_step: {u_name} overlaps {v_name} without being the same block; pass "
                             "separate blocks.")
    if b != 0 and n_rows != n_cols:
        raise ValueError(f"fused_step: b != 0 needs a square matrix; got shape {L.shape}.")
    if X is not None and X.shape != out.shape:
        raise ValueError(f"fused_step: X has shape {X.shape}; expected {out.shape}.")
    if weights is not None and (np.ndim(weights) != 1 or np.asarray(weights).dtype.kind not in "fiu"):
        raise ValueError(f"fused_step: weights must be a 1-D real array (one weight per filter); got shape "
                         f"{np.shape(weights)} and dtype {np.asarray(weights).dtype}.")
    if weights is not None and (R is None or R.shape != (weights.shape[0],) + out.shape):
        raise ValueError(f"fused_step: R must have shape {(weights.shape[0],) + out.shape}.")
    if not _known_csr(L):
        check_csr_structure(L, "L")


def fused_step(L, a, b, alpha, beta, gamma, cur, out, X=None, weights=None, R=None):
    """One fused step on a CSR matrix ``L`` (arguments as in the module doc).

    ``cur``, ``out``, ``X`` and ``R`` are C-contiguous blocks of L's dtype;
    ``out`` and ``R`` must not overlap ``cur`` (it is read at every row while
    they are written), and ``X``, ``out`` and the ``R[f]`` may be the very same
    block but not overlap otherwise.  With ``b == 0`` ``L`` may be rectangular
    (``cur`` has L.shape[1] rows, ``out`` L.shape[0]).  Shapes and the CSR
    index arrays are checked before the compiled kernel runs: on every call,
    or once for a matrix sealed by :func:`seal_csr` (read-only index arrays).
    """
    _check_operands(L, cur, out, X, weights, R, b)
    dtype = cur.dtype.type
    if X is None:
        X = cur[:0]  # never read when gamma == 0
        gamma = 0.0
    if weights is None:
        weights = np.zeros(0, dtype=cur.dtype)
        R = np.zeros((0, L.shape[0], cur.shape[1]), dtype=cur.dtype)
    # Unsigned indices spare the compiled loop numba's negative-index wraparound test.
    indptr, indices = _unsigned(L.indptr), _unsigned(L.indices)
    scalars = (dtype(a), dtype(b), dtype(alpha), dtype(beta), dtype(gamma))
    if cur.shape[1] == 1:
        func = _fused_rows_1
        args = (indptr, indices, L.data, *scalars, cur[:, 0], out[:, 0], X[:, 0], weights, R[:, :, 0])
    else:
        func = _fused_rows
        args = (indptr, indices, L.data, *scalars, cur, out, X, weights, R)
    bounds = _chunks(L, cur.shape[1])
    if bounds.size == 2:
        func(*args, 0, L.shape[0])
    else:
        _pool().run(func, args, bounds)
    return out


def spmm(A, cur, out, beta=0.0):
    """``out <- A @ cur + beta * out`` for a CSR ``A`` of any shape, rows shared between cores.

    ``cur`` and ``out`` are C-contiguous (n, m) blocks of A's dtype, not
    aliased; ``beta == 0`` never reads ``out``.
    """
    return fused_step(A, 1.0, 0.0, 1.0, beta, 0.0, cur, out)


@njit(cache=True, nogil=True)
def _gather_rows(src, rows, out, start, stop):
    m = out.shape[1]
    for i in range(start, stop):
        r = rows[i]
        for j in range(m):
            out[i, j] = src[r, j]


def gather_rows(src, rows, dtype=None, out=None):
    """``out[i] = src[rows[i]]`` for an (n, m) block, rows shared between cores.

    NumPy's ``src[rows]`` does the same on one core; on a random permutation
    of a 10^6 x 16 block the memory system can serve two (measured in
    ``benchmarks/spectral.py``).  ``src`` may have any layout and a different
    float dtype than ``out`` (converted on the fly).
    """
    if np.ndim(src) != 2 or np.ndim(rows) != 1:
        raise ValueError(f"gather_rows: src must be 2-D and rows 1-D; got shapes {np.shape(src)} and "
                         f"{np.shape(rows)}.")
    n_out = rows.shape[0]
    m = src.shape[1]
    # the compiled gather reads src[rows[i]] unchecked
    check_index_array(rows, src.shape[0], "rows")
    if out is None:
        out = np.empty((n_out, m), dtype=dtype or src.dtype)
    else:
        if out.shape != (n_out, m):
            raise ValueError(f"gather_rows: out has shape {out.shape}; expected {(n_out, m)}.")
        # an integer out truncated every value silently (the compiled and the NumPy path alike)
        if out.dtype not in _KERNEL_FLOATS or not out.flags.writeable:
            raise TypeError(f"gather_rows: out must be a writeable float32 or float64 block; got dtype {out.dtype}"
                            f"{'' if out.flags.writeable else ', read-only'}.")
        # rows are written while later rows still read src: out == src permuted in place came out wrong
        if np.may_share_memory(src, out) and _overlap(src, out):
            raise ValueError("gather_rows: out shares memory with src; pass a separate output block.")
    work = n_out * m
    k = int(min(_MAX_CHUNKS, max(1, work // _CHUNK_ENTRIES), max(n_out, 1)))
    if k == 1 or src.dtype not in _KERNEL_FLOATS or out.dtype not in _KERNEL_FLOATS:
        out[...] = src[rows]
        return out
    bounds = np.linspace(0, n_out, k + 1).astype(np.int64)
    _pool().run(_gather_rows, (src, rows, out), bounds)
    return out
