r"""The ``"mpi"`` backend: the serial algorithms on row-distributed operators.

Run the *same script* as serially, under ``mpiexec -n P python script.py``:
every rank builds (or loads) the same graph and signals, the entry points
with ``backend="auto"`` (or ``"mpi"``) partition the graph, each rank works
on its rows, and every rank gets the full result back.  The arguments must be the
same on every rank: each entry point (``solve_spd``, ``prepare``, ``laplacian``,
``knn_graph``; a signal block entering the operator, a Chebyshev recurrence)
first compares shapes, dtypes and CRC-32s across the ranks in one small
``allgather`` and raises the same ``ValueError`` on every rank when they differ
(:func:`~graphrkhs.distributed._comm.check_same_inputs`).  Nothing numerical is
written here:

* Chebyshev / Clenshaw filtering is :func:`graphrkhs.spectral.chebyshev_apply`
  on a :class:`~graphrkhs.distributed.DistributedCSR` (halo exchange inside
  each product);
* CG is :func:`graphrkhs.conjugate_gradient` on the local rows with its
  ``allreduce`` argument (dot products summed over ranks) and a block-Jacobi
  preconditioner: :func:`graphrkhs.amg_preconditioner` (PyAMG smoothed
  aggregation) on each rank's diagonal block;
* ``lmax`` is :func:`distributed_lmax`: the Lanczos run of
  :func:`graphrkhs._core.linalg.lanczos_tridiagonal` with summed inner
  products, its residual bound and the global Gershgorin cap.

Outside ``mpiexec`` (or with one rank) the backend runs on
:class:`~graphrkhs.distributed.SerialComm`: one part, no ghost rows -- the
same code path, which is what the size-1 tests exercise.
"""

import numpy as np
import scipy.linalg
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from .._core.cg import (SYMMETRY_ADVICE, amg_preconditioner, check_cg_symmetric, check_on_failure, forward_checked,
                        conjugate_gradient)
from .._core.linalg import lanczos_tridiagonal, node_hash_vector, symmetry_rtol
from .._core.validation import check_option, check_random_state, check_scalar, float_dtype, memory_guard
from ..spectral import chebyshev_apply, chebyshev_plan, check_filter_options, column_exponents
from ._comm import any_rank, call_together, check_same_inputs, compute_on_root, mpi_world_size, world
from ._csr import DistributedCSR

__all__ = ["MPIBackend", "distributed_lmax", "distributed_cg", "distributed_chebyshev_filter", "block_jacobi_amg"]

# Lanczos steps that check a given lmax (as many as graphrkhs.chebyshev_filter's first check)
_LMAX_CHECK_STEPS = 20


def _identity(n):
    return spla.LinearOperator((n, n), matvec=lambda v: v, matmat=lambda v: v, dtype=np.float64)


def _check_operator(D):
    """``D`` must be a :class:`DistributedCSR` (a scipy matrix failed later with "no attribute 'allreduce'")."""
    if not isinstance(D, DistributedCSR):
        raise TypeError(f"D must be a DistributedCSR (each rank's rows of the matrix); got {type(D).__name__}. "
                        "Build it with DistributedCSR.from_global(L) (every rank holds L) or "
                        "DistributedCSR.from_local(rows, owned, n_global); or pass the whole matrix to "
                        "graphrkhs.chebyshev_filter or the graph solvers with backend='mpi'.")


def block_jacobi_amg(D, kind="amg"):
    r"""Block-Jacobi preconditioner on this rank's rows: AMG (or the diagonal) of the owned diagonal block.

    :math:`M = \mathrm{diag}(M_1, \dots, M_P)` with :math:`M_r` the
    smoothed-aggregation V-cycle of :math:`A_{rr}` (a principal submatrix of
    an SPD matrix is SPD, so M is SPD and CG stays valid).  Every rank
    returns an operator (identity on an empty part), so that all ranks run
    the same collective operations inside CG.
    """
    _check_operator(D)
    n_own = D.shape[0]
    if kind == "none":
        return None
    if n_own == 0:
        return _identity(0)
    A = sp.csr_array(D.diagonal_block(), dtype=np.float64)
    if kind == "jacobi":
        d = A.diagonal()
        return sp.diags_array(1.0 / np.where(d > 0, d, 1.0))
    return amg_preconditioner(A)


def _check_local_rows(D, X_local, name):
    """This rank's rows of a block, checked collectively: a bad block on any rank raises on every rank.

    A rank that raised alone would leave the others waiting in the first reduction of
    the filter or CG (forever).  Returns the block as float32 if it is float32, else as float64 (the rule
    of the serial functions' checks): the caller computes in float32 only when ``D`` is float32 too.
    """
    try:
        X_local = np.asarray(X_local)
        # float32 stays float32, anything else float64 (check_matrix's rule, as the serial functions read
        # their blocks); it was cast to D's dtype, which rounded a float64 block on a float32 operator to float32
        X_local = X_local.astype(float_dtype(X_local.dtype) if X_local.dtype.kind in "biuf" else np.float64,
                                 copy=False)
        bad_shape = X_local.ndim not in (1, 2) or X_local.shape[0] != D.shape[0]
    except (TypeError, ValueError):   # not numeric
        X_local, bad_shape = None, True
    bad_values = not bad_shape and not np.isfinite(X_local).all()
    n_bad_shape, n_bad_values = np.asarray(D.allreduce(np.array([float(bad_shape), float(bad_values)])))
    if n_bad_shape:
        here = "not numeric" if X_local is None else f"shape {X_local.shape}"
        raise ValueError(f"{name} must be numeric of shape (n_own,) or (n_own, m), each rank's own rows (here "
                         f"{D.shape[0]}); got {here} here, a wrong block on {int(n_bad_shape)} rank(s).")
    if n_bad_values:
        raise ValueError(f"{name} contains NaN or infinity (on {int(n_bad_values)} rank(s)).")
    # the same number of columns everywhere: (n_own, 2) on one rank and (n_own, 3) on another passed the checks
    # above and aborted MPI in the first reduction ("Message truncated")
    m = 1 if X_local.ndim == 1 else X_local.shape[1]
    most, fewest, widest = np.asarray(D.comm.allreduce(
        np.array([float(m), -float(m), float(X_local.dtype.itemsize)]), op="max"))
    if most != -fewest:
        raise ValueError(f"{name} must have the same number of columns on every rank; here {m}, between "
                         f"{int(-fewest)} and {int(most)} over the ranks.")
    # one dtype on every rank: a float32 block on one rank and a float64 block on another would set different
    # working dtypes and exchange halos of different types (an MPI abort or a hang); float64 wins, as it would
    # for the whole block in one process
    if widest > X_local.dtype.itemsize:
        X_local = X_local.astype(np.float64)
    return X_local


#: Seeds of the two node-indexed vectors of the dot test (:func:`check_distributed_symmetric`).
_DOT_TEST_SEEDS = (0x5EED1, 0x5EED2)


def check_distributed_symmetric(D, name="D"):
    r"""Refuse a :class:`DistributedCSR` that is not symmetric as a whole, without gathering it (collective).

    No rank may hold the whole matrix (:meth:`DistributedCSR.from_local`), and the per-rank AMG set-up sees
    only its diagonal block, so an asymmetry between two ranks' rows went through.  The dot test: two
    vectors x, y indexed by global node id (:func:`graphrkhs._core.linalg.node_hash_vector`, the same
    entries however the nodes are split) and one product :math:`A [x, y]` (one halo exchange) give
    :math:`x^T A y` and :math:`y^T A x` as sums over the ranks; for a symmetric A they are equal.  In exact
    arithmetic :math:`x^T A y - y^T A x = x^T (A - A^T) y`, a non-zero polynomial in (x, y) for any
    :math:`A \ne A^T`: it vanishes on a set of measure zero only, so the test misses an asymmetry with
    probability zero for generic (random) vectors.  The two vectors here are fixed (seeds
    ``_DOT_TEST_SEEDS``): the outcome is reproducible, and an asymmetry is missed only if it lies in that
    measure-zero set, or if it is below the tolerance.

    The tolerance, :math:`|x^T A y - y^T A x| \le \tau_{round} + \tau_{allow}`:

    * rounding.  :math:`\hat z = fl(A y)` in A's dtype (unit roundoff :math:`u_A`), k the largest number of
      stored entries in a row: :math:`|\hat z - A y| \le \gamma_k(u_A) |A| |y|` with
      :math:`\gamma_m(u) = m u / (1 - m u)`; the dot product over all n rows and the sum over ranks
      (in float64, any order) adds :math:`\gamma_n(u_{64}) |x|^T |\hat z|`.  For a symmetric A both
      computed quantities are within :math:`(\gamma_k(u_A) + \gamma_n(u_{64})(1 + \gamma_k(u_A)))
      |x|^T |A| |y|` of the same number, and :math:`|x|^T |A| |y| \le \|x\| \|A\|_F \|y\|`, so
      :math:`\tau_{round} = 2 (\gamma_k(u_A) + \gamma_n(u_{64})(1 + \gamma_k(u_A))) \|x\| \|A\|_F \|y\|`:
      c = 2 (k + n) to first order, a worst-case bound (the rounding errors of a symmetric A never exceed it).
    * the asymmetry the serial check accepts.  :func:`graphrkhs._core.cg.check_cg_symmetric` takes
      :math:`\max |A - A^T| \le r \max |A|` (r = 1e-10, 1e-5 in float32); such an :math:`E = A - A^T` has
      at most 2 nnz(A) entries, :math:`\|E\|_2 \le \|E\|_F \le r \max |A| \sqrt{2\, nnz}`, so
      :math:`\tau_{allow} = r \max |A| \sqrt{2\, nnz} \|x\| \|y\|`: every matrix the serial solvers take
      passes here too.

    The vectors are cast to A's dtype first (the identity holds exactly for the cast vectors).  Every rank
    raises the same ``ValueError`` (the sums are global), before CG or a preconditioner is built.
    """
    n_own = D.shape[0]
    dtype = np.dtype(D.dtype)
    Z = np.empty((n_own, 2), dtype=dtype)
    for j, seed in enumerate(_DOT_TEST_SEEDS):
        Z[:, j] = node_hash_vector(D.owned, seed)
    AZ = np.asarray(D.matmat(Z), dtype=np.float64)          # collective: every rank, also one without rows
    Z = Z.astype(np.float64)
    x, y = Z[:, 0], Z[:, 1]
    data = [D.A_own.data, D.A_ghost.data]
    sq = sum(float(np.dot(d.astype(np.float64), d.astype(np.float64))) for d in data)
    nnz = sum(d.size for d in data)
    per_row = np.diff(D.A_own.indptr)
    if D.A_ghost.shape[0]:
        per_row = per_row.copy()
        per_row[D.n_interior:] += np.diff(D.A_ghost.indptr)
    sums = np.asarray(D.allreduce(np.array([x @ AZ[:, 1], y @ AZ[:, 0], x @ x, y @ y, sq, float(nnz)])))
    biggest = max((float(np.abs(d).max()) for d in data if d.size), default=0.0)
    k, scale = np.asarray(D.comm.allreduce(np.array([float(per_row.max(initial=0)), biggest]), op="max"))
    xay, yax, xx, yy, fro2, nnz = sums
    u, u64 = np.finfo(dtype).eps / 2, np.finfo(np.float64).eps / 2
    g_k = k * u / (1 - k * u) if k * u < 1 else np.inf      # gamma_k(u_A) (no bound: a 2^23-entry float32 row)
    g_n = D.n_global * u64 / (1 - D.n_global * u64)          # gamma_n(u_64)
    norms = np.sqrt(xx * yy)
    tau_round = 2 * (g_k + g_n * (1 + g_k)) * norms * np.sqrt(fro2)
    r = symmetry_rtol(dtype)                                  # check_cg_symmetric's (1e-10, 1e-5 in float32)
    tau_allow = r * scale * np.sqrt(2 * nnz) * norms
    gap = abs(xay - yax)
    if not gap <= tau_round + tau_allow:
        raise ValueError(
            f"{name} must be symmetric for conjugate gradients: x^T {name} y = {xay:.6g} but y^T {name} x = "
            f"{yax:.6g} for two pseudo-random vectors x, y (difference {gap:.3g}, above the "
            f"{tau_round + tau_allow:.3g} that rounding and an asymmetry of {r:g} max |{name}| allow).  "
            + SYMMETRY_ADVICE)


def distributed_cg(D, B_local, *, tol=1e-8, max_iter=None, preconditioner="amg", M=None, on_failure="warn"):
    r"""Block CG on a :class:`DistributedCSR` system, rows of B local; returns the :class:`~graphrkhs.CGResult`.

    :func:`graphrkhs.conjugate_gradient` with the operator's local product
    and ``allreduce=D.allreduce``; ``M`` a prebuilt local preconditioner or
    ``preconditioner`` in {"amg", "jacobi", "none"} (block-Jacobi).  ``B_local``
    (this rank's rows, in ``D.owned`` order) is checked on every rank together:
    a wrong shape or a NaN on one rank raises a ``ValueError`` on all of them.
    ``D`` not symmetric as a whole is a ``ValueError`` on every rank before
    the preconditioner is built (:func:`check_distributed_symmetric`, a dot
    test with one product and no gathering of the matrix).
    """
    return _distributed_cg(D, B_local, tol=tol, max_iter=max_iter, preconditioner=preconditioner, M=M,
                           on_failure=on_failure, check_symmetric=True)


def _distributed_cg(D, B_local, *, tol, max_iter, preconditioner, M, on_failure, check_symmetric, forward_tol=None):
    """:func:`distributed_cg`; ``check_symmetric=False`` when the caller checked the whole matrix already
    (``MPIBackend.solve_spd``: :func:`check_cg_symmetric` on the A every rank holds, at its own precision);
    ``forward_tol``: :func:`~graphrkhs.conjugate_gradient`'s, for unpreconditioned CG."""
    _check_operator(D)
    if D.n_global == 0:
        # the same on every rank (all raise together); it failed as "max_iter must be >= 1; got 0" (the default
        # 10 n), naming an option the caller had not passed
        raise ValueError("D has no rows (a 0 x 0 system): distributed_cg needs n >= 1 unknowns, as "
                         "conjugate_gradient does; build D from the whole (n, n) matrix.")
    # the options on every rank alike, before any local check or reduction: a tol or max_iter differing between
    # the ranks stopped CG at different iterations (the others waited in the next reduction, forever), and a
    # value refused on one rank only raised there alone
    check_same_inputs(D.comm, "distributed_cg", {"tol": tol, "max_iter": max_iter, "on_failure": on_failure,
                                                 "preconditioner": "a prebuilt M" if M is not None else preconditioner,
                                                 "forward_tol": forward_tol})
    if M is None:
        preconditioner = "none" if preconditioner is None else preconditioner
        check_option(preconditioner, "preconditioner", ("amg", "jacobi", "none"))
    # the options as conjugate_gradient checks them, before the per-rank AMG below (seconds on a large
    # block) was built only for conjugate_gradient to refuse tol=0 or max_iter=0 after it
    tol = check_scalar(tol, "tol", low=0, low_inclusive=False, high=1, high_inclusive=False)
    max_iter = check_scalar(max_iter, "max_iter", kind="int", low=1, allow_none=True)
    check_on_failure(on_failure)
    B_local = _check_local_rows(D, B_local, "B_local")
    # D as a whole (the per-rank AMG below sees its diagonal block only): a communicated dot test
    if check_symmetric:
        check_distributed_symmetric(D, "D")
    if M is None:
        # built on each rank's own block: a block AMG refuses (not SPD) raises on every rank
        M = call_together(D.comm, lambda: block_jacobi_amg(D, preconditioner))
    if max_iter is None:
        max_iter = 10 * D.n_global
    # a 1-D B_local stays 1-D: conjugate_gradient returns x of B's shape (as serially; it returned (n_own, 1))
    # the serial dtypes: B float32 or float64 (conjugate_gradient then iterates in B's dtype), products with
    # A's entries in float64 unless A and B are both float32 (a float32 scipy matrix times a float64 block);
    # B was rounded to A's dtype, and a float32 block iterated in float64
    op = D.astype(float_dtype(np.result_type(D.dtype, B_local.dtype)))
    return conjugate_gradient(op.linear_operator(), B_local, M=M, tol=tol, max_iter=max_iter,
                              on_failure=on_failure, allreduce=D.allreduce, forward_tol=forward_tol)


def distributed_lmax(D, *, steps=40, margin=0.005, random_state=0):
    r"""A guaranteed-in-practice upper bound on :math:`\lambda_{max}` of a distributed symmetric matrix.

    ``steps`` Lanczos steps with full reorthogonalization and inner products
    summed over ranks give the largest Ritz value :math:`\theta` and its
    residual :math:`r = \beta_k |s_k|` (an eigenvalue lies within r of
    :math:`\theta`); the bound is :math:`\theta + r + \text{margin}\,\theta`,
    capped by the Gershgorin bound :math:`\max_i \sum_j |L_{ij}|` (always
    valid).  When the top Ritz value has not settled (:math:`r > 10^{-3}
    \theta`, e.g. too few ``steps``) the residual bound may locate another
    eigenvalue than the largest, and the Gershgorin bound is returned.  The serial :func:`graphrkhs.lmax` uses ARPACK instead, so the
    two bounds differ (both lie above the spectrum).  ``steps`` is an int
    >= 1 and ``margin`` >= 0, checked as :func:`graphrkhs.lmax` checks them
    (a negative margin could put the "bound" below the spectrum).
    """
    _check_operator(D)
    steps = check_scalar(steps, "steps", kind="int", low=1)
    margin = check_scalar(margin, "margin", low=0)
    if not isinstance(random_state, np.random.RandomState):
        # as graphrkhs.lmax checks it, on every path (the Gershgorin one draws nothing): -1, 1.5 or "a" failed
        # inside numpy's seeding without naming the argument, and True seeded the start vector as 1
        check_random_state(random_state)
    gersh = D.gershgorin()
    if gersh == 0.0:
        return 0.0
    theta, residual = _top_ritz(D, steps, random_state)
    if residual > _RITZ_SETTLED * abs(theta):
        # the top Ritz value has not settled: its residual bound locates *an* eigenvalue within r of theta, not
        # necessarily the largest (two components of 10 and 8 nodes, lambda_max 8.12: steps = 1, 2, 3 gave 5.11,
        # 5.95, 6.27, below the spectrum); Gershgorin's bound is valid whatever the steps
        return float(gersh)
    bound = theta + residual + margin * abs(theta)
    return float(min(bound, gersh))


#: ``distributed_lmax`` trusts the top Ritz value once its residual is at most this fraction of it (a settled
#: value whose neighbours in the spectrum are then far below it), and returns the Gershgorin bound otherwise.
_RITZ_SETTLED = 1e-3


def _top_ritz(D, steps, random_state):
    r"""The largest Ritz value :math:`\theta` of ``steps`` distributed Lanczos steps and its residual
    :math:`\beta_k |s_k|` (a Rayleigh quotient: :math:`\lambda_{max} \ge \theta`)."""
    n = D.n_global
    steps = max(1, min(int(steps), n))
    # the library's rule (a legacy RandomState gives a seed): numpy's default_rng takes a RandomState only from
    # numpy 2.x releases after the declared minimum 2.0, which raised "SeedSequence expects int ..."
    rng = check_random_state(random_state)
    w = np.empty((D.shape[0], 1))

    def matvec(q):
        D.matmat(np.ascontiguousarray(q[:, None]), w)
        return w[:, 0]

    # the start vector indexed by global node id (a draw from one seed on every rank would repeat
    # itself across ranks: mirror-symmetric on a mirror-symmetric split, blind to half the spectrum)
    seed = int(rng.integers(0, 2**62))
    alpha, beta = lanczos_tridiagonal(matvec, D.shape[0], steps, rng, allreduce=D.allreduce,
                                      start=node_hash_vector(D.owned, seed))
    k = alpha.size
    if k > 1:
        theta, vecs = scipy.linalg.eigh_tridiagonal(alpha, beta[: k - 1])
    else:
        theta, vecs = alpha.copy(), np.ones((1, 1))
    residual = abs(beta[k - 1] * vecs[-1, -1])
    return float(theta[-1]), float(residual)


def distributed_chebyshev_filter(D, phi, X_local, *, order=None, tol=1e-8, lmax=None, max_order=1000):
    r"""Apply :math:`\varphi(L)` to this rank's rows of a signal block, L held as a :class:`DistributedCSR`.

    The path for graphs no process holds whole (:meth:`DistributedCSR.from_local`):
    ``lmax`` by :func:`distributed_lmax` (unless given), the coefficients by
    :func:`graphrkhs.spectral.chebyshev_plan` (the same on every rank), and
    the recurrence by :func:`graphrkhs.spectral.chebyshev_apply` on the
    distributed operator.  Returns this rank's rows (local order; ``D.gather``
    assembles the whole block where it fits, ``D.gather(Y, node_axis=1)`` for
    a bank's (n_filters, n_own) responses to a 1-D ``X_local``).

    Parameters
    ----------
    D : DistributedCSR
    phi : filter or list of filters
    X_local : ndarray of shape (n_own,) or (n_own, m)
        This rank's rows, in ``D.owned`` order.
    order, tol, lmax, max_order
        As in :func:`graphrkhs.chebyshev_filter`, checked the same way: a
        given ``lmax`` below the largest Ritz value of 20 distributed
        Lanczos steps (a Rayleigh quotient, so below the spectrum) is a
        ``ValueError``.

    Returns
    -------
    ndarray of shape X_local.shape, or (n_filters,) + X_local.shape for a bank

    Notes
    -----
    Every check runs on all ranks together (a bad block, a NaN on one rank
    raises everywhere), and the memory of this rank's recurrence blocks and
    halo, :math:`((F + 2)\,n_{own} + n_{ghost} + n_{send})\,m` entries, is
    estimated before any allocation: a ``MemoryError`` on every rank when one
    rank's estimate exceeds 3/4 of its machine's memory.
    """
    _check_operator(D)
    # the options as chebyshev_filter checks them (the same values on every rank, so every rank raises)
    order, tol, max_order = check_filter_options(order, tol, max_order)
    if lmax is not None:
        lmax = check_scalar(lmax, "lmax", low=0, low_inclusive=False)
    is_bank = isinstance(phi, (list, tuple))
    X_local = _check_local_rows(D, X_local, "X_local")
    # chebyshev_filter's dtype: float32 when L and X are float32, float64 otherwise (a float64 block on a float32
    # operator was rounded to float32 and filtered in float32); D's float32 entries are exact in float64
    work = D.astype(float_dtype(np.result_type(D.dtype, X_local.dtype)))
    was_1d = X_local.ndim == 1
    # (0, m) on a rank without rows
    X2 = np.ascontiguousarray(X_local[:, None] if was_1d else X_local, dtype=work.dtype)
    # the memory of this rank's recurrence blocks and of its halo (ghost rows received, rows sent) before
    # any allocation; decided together, so that a rank short of memory does not leave the others waiting
    n_filters = len(phi) if is_bank else 1
    need = ((n_filters + 2) * D.shape[0] + D.halo.n_ghost + D.halo.n_send) * X2.shape[1] * work.dtype.itemsize
    try:
        memory_guard(need, f"this rank's Chebyshev filter blocks and halo ({D.shape[0]} rows, {D.halo.n_ghost} "
                           f"ghost rows, {X2.shape[1]} signal(s), {n_filters} response(s))",
                     "use more ranks, filter fewer signals at a time, or lower order / max_order.")
        short = None
    except MemoryError as exc:
        short = exc
    if any_rank(D.comm, short is not None):
        raise short if short is not None else MemoryError(
            "another rank cannot hold its Chebyshev filter blocks and halo (see its MemoryError); use more "
            "ranks, filter fewer signals at a time, or lower order / max_order.")
    if lmax is None:
        lmax = distributed_lmax(D)
    elif D.gershgorin() > lmax:
        # a given bound is checked as chebyshev_filter checks it: a Rayleigh quotient above it proves it
        # below the spectrum (the series would diverge there); Gershgorin at or below it proves it safe
        theta, _ = _top_ritz(D, _LMAX_CHECK_STEPS, 0)
        eps = np.finfo(np.float32 if D.dtype == np.float32 else np.float64).eps
        if theta > lmax + 1e-10 * lmax + 64 * eps * abs(theta):
            raise ValueError(f"lmax={lmax:.6g} is below the spectrum of L: a Rayleigh quotient of L is "
                             f"{theta:.6g}, so its largest eigenvalue is at least that and the Chebyshev series "
                             f"would diverge on the eigenvalues above lmax. Pass lmax=None (computed by "
                             "distributed_lmax, a bound) or a value >= that.")
    if lmax == 0.0:
        # L = 0: phi(L) X = phi(0) X exactly
        vals = np.array([float(f(np.array([0.0]))[0]) for f in (phi if is_bank else [phi])])
        # in the block's dtype, as chebyshev_filter returns it (float64 values times a float32 block were float64)
        Y = (vals[:, None, None] * X2[None]).astype(X2.dtype, copy=False)
    else:
        coefs, _ = chebyshev_plan(phi, lmax, order=order, tol=tol, max_order=max_order)
        # columns near the ends of the float range in units of a power of two, as chebyshev_filter scales them
        # (a signal of 1e308 overflowed in the recurrence: NaN for a finite phi(L) x); the exponents from every
        # rank's column peaks (a max over the ranks), so that all scale alike
        peaks = D.comm.allreduce(np.abs(X2).max(axis=0, initial=0.0), op="max")
        exps = column_exponents(np.asarray(peaks, dtype=np.float64)[None, :], work.dtype, lmax)
        if exps is not None:
            X2 = np.ldexp(X2, -exps).astype(work.dtype, copy=False)
        Y = chebyshev_apply(work, coefs, lmax, X2)
        if exps is not None:
            Y = np.ldexp(Y, exps).astype(work.dtype, copy=False)
    if was_1d:
        Y = Y[:, :, 0]
    return Y if is_bank else Y[0]


class MPIBackend:
    """The registered ``"mpi"`` backend (see :mod:`graphrkhs._core.backend` for the protocol)."""

    name = "mpi"

    def active(self):
        if mpi_world_size() <= 1:
            return False
        try:
            import mpi4py  # noqa: F401
        except ImportError:
            return False
        return True

    def comm(self):
        return world()

    def prepare(self, L, dtype, reorder="auto"):
        """A :class:`DistributedCSR` of ``L`` (held by every rank) computing in ``dtype``.

        ``L``, ``dtype`` and ``reorder`` are compared across the ranks first (:func:`check_same_inputs`)."""
        check_same_inputs(self.comm(), "a distributed operator of backend='mpi' (chebyshev_filter, GraphKernel, "
                          "the estimators' kernel columns)",
                          {"L (the graph Laplacian, from W)": L, "dtype": np.dtype(dtype), "reorder": reorder})
        return DistributedCSR.from_global(L, self.comm(), dtype=dtype,
                                          order="auto" if reorder in ("auto", True) else None)

    def solve_spd(self, A, B, tol, max_iter, preconditioner):
        """Solve the SPD system A X = B (both on every rank) by distributed block CG; X on every rank.

        First of all, ``A``, ``B`` and the options are compared across the ranks (:func:`check_same_inputs`):
        drawn differently on each rank (a labeled set or labels without a seed), the solve deadlocked (the
        ranks' refinement rounds or stopping tests disagreed) or returned a mixture of their answers; now
        every rank raises the same ``ValueError``, naming what differs.

        A not symmetric as a whole (``check_cg_symmetric``) is a ``ValueError`` before the partition.  The
        one symmetry check here: that exact test at A's precision, not also :func:`distributed_cg`'s dot
        test, which would run on the float64 copy at the float64 tolerance and refused float32 matrices
        within float32 rounding of symmetric (which the serial solvers take)."""
        if isinstance(preconditioner, spla.LinearOperator):
            raise ValueError("backend='mpi' builds its own block-Jacobi preconditioner; a prebuilt global "
                             "preconditioner operator cannot be distributed: pass 'amg', 'jacobi' or None.")
        kind = {"auto": "amg"}.get(preconditioner, preconditioner)
        # the same system on every rank, before any other collective (and before the local symmetry check,
        # which would raise on the rank whose A is asymmetric only)
        self.check_same_system(A, B, tol, max_iter, preconditioner)
        # A against A^T as a whole (every rank holds it): the per-rank AMG checks only its diagonal block
        check_cg_symmetric(A, "A")
        D = DistributedCSR.from_global(A, self.comm())
        B = np.asarray(B, dtype=np.float64)
        was_1d = B.ndim == 1
        B2 = B.reshape(B.shape[0], -1)
        # unpreconditioned CG, as serially (solvers._graph._solve_spd): on until its estimated forward error
        # meets tol, with an AccuracyWarning when it cannot (forward_checked; the residual bounds the error
        # only to cond(A) times tol: a harmonic solution 0.24 off at tol 1e-8).  The estimate is the serial
        # one: its Ritz values come from the summed inner products, the same on every rank
        plain = kind is None or kind == "none"
        res = _distributed_cg(D, D._local_rows(B2), tol=tol, max_iter=max_iter, preconditioner=kind, M=None,
                              on_failure="warn", check_symmetric=False, forward_tol=tol if plain else None)
        X = D.gather(forward_checked(res, tol) if plain else res.x)
        return X[:, 0] if was_1d else X

    def computed_once(self, func):
        """``func()`` on rank 0, broadcast (collective; :func:`~graphrkhs.distributed._comm.compute_on_root`): the
        serial correction solves of the graph solvers' correction test, whose results decide the refinement
        rounds every rank must take alike."""
        return compute_on_root(self.comm(), func)

    def check_same_inputs(self, what, items):
        """:func:`~graphrkhs.distributed._comm.check_same_inputs` on the world communicator (collective): the
        hook of :func:`graphrkhs._core.backend.check_same_on_every_process`."""
        check_same_inputs(self.comm(), what, items)

    def check_same_system(self, A, B, tol, max_iter, preconditioner):
        """Raise the same ``ValueError`` on every rank unless the graph system and its options agree (collective).

        The first collective of :meth:`solve_spd`, and all the communication of a graph solve that every rank
        does by itself (``graphrkhs.solvers``: a direct factorization of a small system under
        ``preconditioner="auto"``): ranks whose systems differ meet here, whichever of the two paths each
        took, and raise instead of returning each its own answer.  ``preconditioner`` is ``"direct"`` there
        (a rank that factorizes and one that iterates on the same system must not agree); B is compared
        as a block of columns (a vector and its one-column block are the same right-hand side)."""
        B2 = np.asarray(B)
        B2 = B2.reshape(B2.shape[0], -1) if B2.ndim else B2
        check_same_inputs(self.comm(), "a graph solve of backend='mpi' (harmonic_solution, tikhonov_solution, "
                          "poisson_learning, graph_kernel_ridge, the estimators)",
                          {"A (the system matrix, from W, labeled and the options)": A,
                           "B (the right-hand side, from Y and labeled)": B2, "tol": tol, "max_iter": max_iter,
                           "preconditioner": None if isinstance(preconditioner, str) and preconditioner == "none"
                           else preconditioner})

    def laplacian(self, W, kind):
        """The Laplacian by row blocks on the ranks, gathered to every rank (see ``mpi_laplacian``)."""
        from ._laplacian import _mpi_laplacian

        check_same_inputs(self.comm(), "laplacian(W, backend='mpi')", {"W": W, "kind": kind})
        return _mpi_laplacian(W, kind, self.comm())

    def knn_graph(self, X, n_neighbors, **kwargs):
        """The kNN graph built cell by cell, each rank its cells (see ``distributed_knn_graph``); every rank
        gets ``(W, cells)``, the cells a partition for :class:`DistributedCSR`."""
        from ._knn import distributed_knn_graph

        # verbose may legitimately differ (progress on rank 0 only)
        check_same_inputs(self.comm(), "knn_graph(X, backend='mpi')",
                          {"X": np.asarray(X), "n_neighbors": n_neighbors,
                           **{k: v for k, v in kwargs.items() if k != "verbose"}})
        return distributed_knn_graph(X, n_neighbors, executor="mpi", **kwargs)

    def lmax(self, op):
        return distributed_lmax(op)
