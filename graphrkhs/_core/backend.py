r"""The execution-backend switch: ``backend="auto" | "numpy" | "mpi" | "dask"``.

The scalable entry points (:func:`~graphrkhs.chebyshev_filter`,
:class:`~graphrkhs.GraphKernel`, the CG-based solvers and the estimators on
them) take a ``backend`` argument resolved *at call time* by
:func:`resolve_backend`.  The layers that own those entry points sit below
:mod:`graphrkhs.distributed` and never import it (not even inside a
function); instead that package *registers* its implementations here when it
is imported (``graphrkhs/__init__.py`` imports it, and it imports neither
mpi4py nor dask until a distributed backend is actually used).

A registered backend is an object with

* ``name`` -- ``"mpi"`` or ``"dask"``;
* ``active()`` -- whether ``backend="auto"`` should pick it now (MPI: the
  process runs under ``mpiexec`` with more than one rank; Dask: a
  ``distributed.Client`` is active);
* ``prepare(L, dtype, reorder)`` -- a distributed operator with the interface
  of :class:`graphrkhs._core.reorder.PreparedOperator` (``shape``, ``dtype``,
  ``step``, ``matmat``, ``to_internal``, ``to_user``, ``astype``,
  ``is_matrix``, ``perm``, ``reorder_time``) on which the serial numerics
  (Chebyshev / Clenshaw recurrences) run unchanged;
* ``solve_spd(A, B, tol, max_iter, preconditioner)`` -- block CG on the SPD
  system with a distributed operator, distributed dot products and a
  distributed preconditioner (e.g. block-Jacobi AMG), returning the full
  solution on every process;
* optionally (MPI, whose processes each hold the arguments) ``check_same_inputs(what, items)``
  and ``check_same_system(A, B, tol, max_iter, preconditioner)``: the same ``ValueError`` on
  every process when arguments differ between them (:func:`check_same_on_every_process`; the
  graph solvers' direct factorizations, which every process runs by itself);
* optionally (Dask) ``require()``: raise the backend's own clear error when it was chosen explicitly
  but cannot run now (Dask: no active ``distributed.Client``), called before work that every process
  does by itself (an estimator's fit, a direct factorization), which would otherwise run serially
  without a word (:func:`check_same_on_every_process`);
* optionally (MPI) ``computed_once(func)``: ``func()`` evaluated on one process and its result
  given to all (the serial correction solves of the graph solvers' correction test, whose
  results decide the refinement rounds every process takes).  Without it ``func()`` runs where
  the solver is called (Dask: the driver).

``"numpy"`` is the serial path (the compiled row-parallel kernels of
:mod:`graphrkhs._core.spmm` or SciPy); its two kernels can still be forced by
the older spellings ``"numba"`` and ``"scipy"``.
"""

import threading

__all__ = ["BACKENDS", "SERIAL_BACKENDS", "DISTRIBUTED_BACKENDS", "register_backend", "resolve_backend",
           "get_backend", "check_backend", "is_distributed", "prepare_operator", "serial_only",
           "check_same_on_every_process"]

#: Distributed backends (implemented in :mod:`graphrkhs.distributed`).
DISTRIBUTED_BACKENDS = ("mpi", "dask")
#: Serial spellings: "numpy" (the kernel chosen by size) and the two kernels by name.
SERIAL_BACKENDS = ("numpy", "numba", "scipy")
#: Every accepted value of a ``backend`` argument.
BACKENDS = ("auto",) + SERIAL_BACKENDS + DISTRIBUTED_BACKENDS

_REGISTRY = {}
_LOCK = threading.Lock()


def register_backend(impl):
    """Register (or replace) a distributed backend implementation under ``impl.name``."""
    name = getattr(impl, "name", None)
    if name not in DISTRIBUTED_BACKENDS:
        raise ValueError(f"a backend must be named one of {DISTRIBUTED_BACKENDS}; got {name!r}.")
    with _LOCK:
        _REGISTRY[name] = impl
    return impl


def check_backend(backend, name="backend"):
    """Validate a ``backend`` argument (one of :data:`BACKENDS`) without resolving it."""
    if not isinstance(backend, str) or backend not in BACKENDS:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, BACKENDS))}; got {backend!r}.")
    return backend


def resolve_backend(backend, name="backend"):
    """The backend a call runs on: a serial spelling, or ``"mpi"`` / ``"dask"``.

    ``"auto"`` is the first registered distributed backend whose ``active()``
    is true (MPI under ``mpiexec -n P`` with P > 1, Dask with an active
    client), else ``"auto"`` again, meaning the serial path with its kernel
    chosen by size.  Every process of an MPI run resolves the same way (the
    decision depends only on the launch environment).
    """
    check_backend(backend, name)
    if backend == "auto":
        with _LOCK:
            impls = [_REGISTRY[k] for k in DISTRIBUTED_BACKENDS if k in _REGISTRY]
        for impl in impls:
            if impl.active():
                return impl.name
        return "auto"
    return backend


def is_distributed(resolved):
    """Whether a resolved backend name is a distributed one."""
    return resolved in DISTRIBUTED_BACKENDS


def get_backend(name):
    """The registered implementation of a distributed backend, or an ImportError saying how to get it."""
    with _LOCK:
        impl = _REGISTRY.get(name)
    if impl is None:
        raise ImportError(
            f"backend={name!r} is not available: it is provided by graphrkhs.distributed (import graphrkhs "
            f"registers it); install its dependencies with pip install 'graphrkhs[mpi]' (mpi4py, mpich, pymetis) "
            "or 'graphrkhs[dask]' (dask[distributed])."
        )
    return impl


def prepare_operator(L, dtype, reorder="auto", backend="auto", what="this computation"):
    """The operator a spectral computation runs on: serial :class:`~graphrkhs._core.reorder.PreparedOperator`
    or the distributed backend's (``backend`` resolved here, at call time)."""
    from .reorder import PreparedOperator   # same layer; deferred because reorder compiles numba kernels

    resolved = resolve_backend(backend)
    if is_distributed(resolved):
        if not hasattr(L, "tocsr") and not hasattr(L, "indptr"):
            if backend == "auto":
                return PreparedOperator(L, dtype, reorder, "auto")
            raise ValueError(f"backend={backend!r} distributes the rows of a sparse matrix; {what} got a "
                             f"{type(L).__name__} (pass the Laplacian as a scipy.sparse matrix).")
        return get_backend(resolved).prepare(L, dtype, reorder)
    return PreparedOperator(L, dtype, reorder, resolved if resolved in ("numba", "scipy") else "auto")


def check_same_on_every_process(backend, what, items):
    """Under a distributed backend whose processes each hold the arguments (MPI), refuse arguments that differ
    between them: the backend's ``check_same_inputs(what, items)`` (one small collective; the same
    ``ValueError`` on every process, naming the first of ``items`` -- name -> argument -- that differs).

    For work every process does by itself before (or instead of) the distributed parts -- an estimator's
    targets, a direct factorization -- where arguments drawn differently on each process gave each its own
    answer, silently.  Serially, and under a backend without the hook (Dask: one driver), nothing; but an
    explicit backend that cannot run now (``backend="dask"`` without an active client) is its ``require()``
    error here, as it is in the distributed parts, not a silent serial fit."""
    resolved = resolve_backend(backend)
    if is_distributed(resolved):
        require_backend(resolved)
        hook = getattr(get_backend(resolved), "check_same_inputs", None)
        if hook is not None:
            hook(what, items)


def require_backend(backend):
    """An explicit distributed backend that cannot run now is its ``require()`` error (Dask: no active
    ``distributed.Client``), also for work done serially on the driver (a direct solve, an exact selection),
    which would otherwise run without a word; nothing otherwise."""
    resolved = resolve_backend(backend)
    if is_distributed(resolved):
        require = getattr(get_backend(resolved), "require", None)
        if require is not None:
            require()


def serial_only(backend, what):
    """Refuse an explicit distributed backend for a computation that has no distributed version.

    ``"auto"`` falls back to the serial path (every process computes it
    redundantly under ``mpiexec``); an explicit ``"mpi"`` / ``"dask"`` is a
    ``ValueError`` naming what to use instead.
    """
    check_backend(backend)
    if backend in DISTRIBUTED_BACKENDS:
        raise ValueError(f"{what} has no {backend!r} backend (only Chebyshev filtering, GraphKernel products and "
                         "the CG solvers are distributed); pass backend='auto' or 'numpy'.")
    return backend
