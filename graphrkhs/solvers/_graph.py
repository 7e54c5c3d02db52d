r"""Transductive solvers on graphs (plain functions).

Notation: n nodes, S the labeled nodes (:math:`|S| = l`), U the others,
:math:`J = \mathrm{diag}(1_S)`, L a Laplacian, :math:`Y_S` an (l, m) block of
targets (one-hot class indicators or real values).  Every function solves all
m columns at once (one block CG, one AMG hierarchy) and returns an (n, m)
block, or (n,) for a 1-D ``Y``.

=============================  ========================================================
:func:`harmonic_solution`      :math:`L_{UU} F_U = -L_{US} Y_S`, :math:`F_S = Y_S`
:func:`tikhonov_solution`      :math:`(J + \mu L) F = J Y`
:func:`poisson_learning`       :math:`L F = \sum_{j \in S} (y_j - \bar y)\,\delta_j`
:func:`graph_kernel_ridge`     :math:`F = \Phi_{:,S} (\Phi_{SS} + \mu I)^{-1} Y_S`
:func:`graph_kernel_ridge_loo` exact leave-one-out residuals of the ridge
:func:`graph_tv`               :math:`\min_f \sum_{S} (y_j - f_j)^2 + \mu \|R f\|_1`
=============================  ========================================================

Components of the graph that hold no labeled node cannot be reached by any of
these methods: their nodes get the mean of the labeled targets (the class
prior for one-hot targets) with a :class:`~graphrkhs.GraphWarning`, never NaN.

Nearly disconnected graphs (harmonic, Tikhonov, Poisson): an edge with
:math:`w_{ij} \le 10^{-10} \min(d_i, d_j)` (``WEAK_EDGE_RTOL`` in
``graphrkhs._core.labels``; a random walk crosses it with probability at most
1e-10) makes the Laplacian system singular to working precision when it is
the only link of a part of the graph (at 1e-16 SuperLU reports an exactly
singular factor and CG drifts to scores of 1e16 - 1e32 with the classes
swapped).  Such links are dropped with a :class:`~graphrkhs.GraphWarning`
naming the number of nodes they held: each weakly attached part becomes its
own component (solved on its own with its labels, or given the class prior
without), the same rule as for truly disconnected parts.  Links that do not
disconnect anything are kept, and a graph without weak links is solved as is.

Every solve checks its outcome: CG its true residual
(:func:`~graphrkhs.conjugate_gradient`), the sparse direct solves their
residual :math:`\|b - Ax\| / \|b\|` against ``tol``
(:class:`~graphrkhs.ConvergenceWarning` above it, ``LinAlgError`` for a
singular factor or a non-finite solution).

Computations run in float64 (AMG and the Chebyshev recursions do); results
come back in the dtype of ``Y`` when it is float32, in float64 otherwise.
"""

import math
import weakref
from typing import Callable, Optional, Tuple, Union

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from scipy.linalg import cho_factor, cho_solve
from scipy.sparse import csgraph

from .._core.backend import check_backend, get_backend, is_distributed, require_backend, resolve_backend
from .._core.cg import amg_preconditioner, conjugate_gradient
from .._core.linalg import check_solution
from .._core.loo import KernelRidgePath, check_ridges, check_symmetric_kernel
from .._core.types import ArrayLike, GraphLike, Indices, MatrixLike
from ._common import check_normal_degrees, labeled_graph_problem, spd_splu
from .._core.cg import forward_checked
from .._core.progress import logger
from .._core.validation import (AccuracyWarning, ConvergenceWarning, check_flag, check_matrix, check_option, check_scalar, float_dtype, memory_guard,
                                held_warnings, power_of_two_exponent, warn)
from ..spectral.filters import default_kernel
from ..graphs import LAPLACIANS, as_adjacency, laplacian as graph_laplacian
from ..kernels import GraphKernel
from .._core.labels import (_check_labeled_index, _check_targets, _orphans, absent_classes_below,
                            check_labeled_classes_have_priors,
                            from_target_units, in_target_units)

__all__ = [
    "harmonic_solution",
    "tikhonov_solution",
    "poisson_learning",
    "graph_kernel_ridge",
    "graph_kernel_ridge_loo",
    "graph_kernel_columns",
]

PRECONDITIONERS = ("auto", "amg", "jacobi", "none")

#: Systems with at most this many unknowns are solved by a sparse direct
#: factorization (SuperLU) under ``preconditioner="auto"``: below it the
#: factorization is faster than building an AMG hierarchy (digits, n = 1797:
#: 3x), above it fill-in makes it slower and memory-hungry.
DIRECT_MAX_NODES = 5000
RIDGE_METHODS = ("auto", "direct", "cg", "sparse")

#: Largest number of labeled nodes for which the ridge forms Phi[:, S] (n x l)
#: and Cholesky-factors Phi_SS; above it the matrix-free CG path is used.
DIRECT_MAX_LABELED = 2000

#: Iterative solves rescale A and B by powers of two when either's largest entry lies beyond
#: 2^(+-this) (far inside the range where CG's squares over- or underflow, ~2^(+-500)).
_CG_SCALE_EXPONENT = 64


# ---------------------------------------------------------------------------
# Shared validation
# ---------------------------------------------------------------------------


def _check_preconditioner(preconditioner):
    if preconditioner is None:
        return "none"
    if isinstance(preconditioner, spla.LinearOperator):
        return preconditioner
    return check_option(preconditioner, "preconditioner", PRECONDITIONERS)


def _check_iterations(tol, max_iter):
    """``tol`` in (0, 1) and ``max_iter`` (an int >= 1, or None for CG's default), checked on every path:
    the direct solve of small systems does not iterate, but a bad value is the caller's error all the
    same (before, -3 and 2.5 were accepted there, and 0 returned F_U = 0 on the iterative paths).
    A relative residual ``tol`` >= 1 is met by CG's zero start: it returned F_U = 0 without a warning."""
    tol = check_scalar(tol, "tol", low=0, low_inclusive=False, high=1, high_inclusive=False)
    max_iter = check_scalar(max_iter, "max_iter", kind="int", low=1, allow_none=True)
    return tol, max_iter


def _finish(F, was_1d, out_dtype):
    F = F.astype(out_dtype, copy=False)
    return F[:, 0] if was_1d else F


def _solves_directly(preconditioner, n):
    """Whether :func:`_solve_spd` factorizes a system of n unknowns (``"auto"`` up to ``DIRECT_MAX_NODES``)."""
    return isinstance(preconditioner, str) and preconditioner == "auto" and n <= DIRECT_MAX_NODES


def _solve_spd(A, B, preconditioner, tol, max_iter, backend="numpy", warn_forward=True, null_components=None,
               recomputed=None, amg=None, degrees=None, offset=None):
    """Block CG on the SPD sparse system A X = B with the requested preconditioner.

    A distributed ``backend`` (resolved at call time) solves by block CG with
    summed dot products and a block-Jacobi preconditioner of the kind asked
    for (AMG per partition for "amg"/"auto"); systems of at most
    ``DIRECT_MAX_NODES`` unknowns under "auto" are factorized on every process
    instead (the same result everywhere, cheaper than any communication).

    "jacobi" scales the system symmetrically, :math:`(D^{-1/2} A D^{-1/2})
    (D^{1/2} X) = D^{-1/2} B`, and runs plain CG on it: the iterates of
    Jacobi-preconditioned CG at a lower cost per step (the stopping rule
    then measures the scaled residual).

    Unpreconditioned CG (``None`` and ``"jacobi"``) also iterates until its estimated forward error
    meets ``tol`` (``forward_tol`` of :func:`~graphrkhs.conjugate_gradient`) and warns
    (:class:`~graphrkhs.AccuracyWarning`, :func:`forward_checked`) when it cannot, unless the refinement
    below removes the error it reported;
    ``warn_forward=False`` keeps the iteration but not the warning, for a solve whose relative error is
    not that of the caller's result (a small correction added to a start).

    ``null_components``: for a singular Laplacian system (Poisson learning), each row's connected component;
    A's null space is then the constants of each component, B must sum to zero on each, and the residuals of
    the refinement are projected the same way before they are solved for (rounding leaves them inconsistent).
    ``recomputed``: ``(z, comp)`` when the caller recomputes X's part along z on each component exactly
    afterwards (:func:`_null_space_corrected`); the correction test of :func:`_refined` then judges the rest.
    ``amg``: a serial AMG preconditioner built by the caller for ``preconditioner="amg"`` (Poisson learning's,
    projected onto the range of L), used instead of a new hierarchy.
    ``degrees``: the graph degrees of A's rows when A's diagonal does not carry them (a normalized Laplacian,
    whose diagonal is 1 whatever the degrees); their spread counts as the diagonal's below.
    ``offset``: a start :math:`X_0` (B's shape) when X is a correction and the caller returns
    :math:`X_0 + X` (the harmonic start of :func:`_solve_tikhonov_rest`); the final tests of
    :func:`_refined` then also judge :math:`X_0 + X` against the full system and warn, whatever
    ``warn_forward``, when it misses them.

    Every serial iterative solve is then refined on its row-normalized residual (:func:`_refined`): on
    graphs whose degrees span many orders of magnitude each preconditioner's residual test left the
    solution 1e-2 to 4e-1 off at tol 1e-8 without a warning.  The distributed backends' solves are refined
    the same way, and get the correction test below where the serial solve does (its rough solves serial: on
    the Dask driver, on MPI rank 0 and broadcast).  Unpreconditioned and Jacobi-scaled solves are then checked by a correction solve to 1 %
    (``_CHECK_TOL``), repeated while the correction is above 10 tol times X: nearly disconnected parts of the
    graph hold an error that no residual sees (Jacobi: 0.21 off, silently, on 3000 nodes); about a quarter
    more time on ordinary graphs (harmonic solution, Jacobi, 10^5 uniform points: 2.8 -> 3.5 s; the
    Fashion-MNIST 10-NN graph: 4.6 -> 5.7 s, medians of 3).  Direct solves are corrected by their own
    factors (:func:`_direct_solve`).  AMG solves get the test (by a Jacobi-scaled correction: an AMG
    correction to 1 % did not see the error) only when the diagonal spans more than ``_CHECK_DEGREE_SPREAD``:
    elsewhere their coarse levels hold the nearly disconnected parts (the 3000 nodes above: 1e-7 off) and the
    check would cost more than the solve.  On 1500-4000 nodes with degrees down to 1e-25 AMG is 1e-6 to 1e-5
    off at tol 1e-8, float64's limit there, and the test warns or not depending on the rounding (the number
    of BLAS threads).  A correction that does not shrink by half is not applied (:func:`_contracting`).
    A normalized Laplacian's diagonal is 1 whatever the degrees, so its callers pass the ``degrees``: the
    harmonic solution of a 5200-node Gaussian kNN graph with 200 outliers (degrees down to 6e-10) was 0.10
    off serially (AMG) and 0.045 away from that on Dask, both at tol 1e-8 and silently; with the test 2e-8.
    """
    if _solves_directly(preconditioner, A.shape[0]):
        _check_same_system(A, B, tol, max_iter, "direct", backend)
        return _direct_solve(A, B, tol, recomputed)
    if isinstance(preconditioner, str) and preconditioner == "auto":
        preconditioner = "amg"
    prebuilt = preconditioner is not None and not isinstance(preconditioner, str)
    # CG's inner products square the entries: with weights ~2^-600 the residual's squares underflowed
    # to 0 (CG stopped at X = 0, "converged"), ~2^600 they overflowed.  Far from 1, solve in units of
    # powers of two of A and B (exact): A' = 2^-a A, B' = 2^-b B, X = 2^(b-a) X', M' = 2^a M.
    ea, eb = power_of_two_exponent(A.data if sp.issparse(A) else A), power_of_two_exponent(np.asarray(B))
    if max(abs(ea), abs(eb)) > _CG_SCALE_EXPONENT:
        A = sp.csr_array(A * np.ldexp(1.0, -ea))
        B = np.ldexp(np.asarray(B, dtype=np.float64), -eb)
        if prebuilt:
            preconditioner = spla.aslinearoperator(preconditioner) * np.ldexp(1.0, ea)
        if offset is not None:
            offset = np.ldexp(np.asarray(offset, dtype=np.float64), ea - eb)
        return np.ldexp(_solve_spd(A, B, preconditioner, tol, max_iter, backend, warn_forward, null_components,
                                   recomputed, degrees=degrees, offset=offset), eb - ea)
    # a prebuilt (global, serial) preconditioner keeps backend="auto" serial: a script that passes one runs
    # unchanged under mpiexec or next to a Dask client; an explicit distributed backend still refuses it
    resolved = "numpy" if (prebuilt and backend == "auto") else resolve_backend(backend)
    B = np.asarray(B, dtype=np.float64)
    was_1d = B.ndim == 1
    B2 = B.reshape(B.shape[0], -1)
    if offset is not None:
        offset = np.asarray(offset, dtype=np.float64).reshape(B2.shape)
    rough = None
    d = A.diagonal()
    s = 1.0 / np.sqrt(np.where(d > 0, d, 1.0))
    spread = _spread(d) or (degrees is not None and _spread(np.asarray(degrees, dtype=np.float64)))

    def jacobi_rough(Rk):
        # a correction solve to _CHECK_TOL by Jacobi-scaled CG, whose forward-error iteration (relative to the
        # small correction) finds the mode of a nearly disconnected part
        return s[:, None] * conjugate_gradient(As, s[:, None] * Rk, tol=_CHECK_TOL, max_iter=max_iter,
                                               forward_tol=_CHECK_TOL, on_failure="ignore").x

    def plain_rough(Rk):
        return conjugate_gradient(A, Rk, tol=_CHECK_TOL, max_iter=max_iter, forward_tol=_CHECK_TOL,
                                  on_failure="ignore").x
    kind = preconditioner if isinstance(preconditioner, str) else ("none" if preconditioner is None else "prebuilt")
    if is_distributed(resolved):
        # refined like the serial solves: A, B and the gathered X are the same on every process (MPI) or on the
        # driver (Dask), so every rank takes the same rounds and none waits alone in a collective
        backend_impl = get_backend(resolved)

        def solve(Bk, warn_now):
            # warn_now=False (a correction solve of the refinement, whose relative error is not that of X): no
            # AccuracyWarning, as serially; the MPI solve's forward-error check warned there regardless (the
            # harmonic solution 1.8e-9 off at tol 1e-8: a false alarm the serial solve does not give)
            with held_warnings() as said:     # this thread's only (a warnings filter is process-wide)
                X = np.asarray(backend_impl.solve_spd(A, Bk, tol, max_iter, preconditioner),
                               dtype=np.float64).reshape(Bk.shape)
            for w in said:
                if warn_now or not isinstance(w, AccuracyWarning):
                    warn(w)
            return X

        # the serial correction test, for the same solves and by the same rough solves as serially (Jacobi
        # distributed CG left the linked outliers' harmonic solution 2.6e-7 off at tol 1e-8, silently; serial
        # Jacobi 2e-9).  The rough solves are serial: on the driver (Dask), or on rank 0 and broadcast (MPI: the
        # ranks must take the same rounds; the backend's optional computed_once hook)
        base = None
        if kind == "jacobi" or (kind == "amg" and spread):
            As = sp.csr_array(A.multiply(s[:, None]).multiply(s[None, :]))
            base = jacobi_rough
        elif kind == "none":
            base = plain_rough
        once = getattr(backend_impl, "computed_once", None)
        if base is not None:
            def rough(Rk):
                return base(Rk) if once is None else once(lambda: base(Rk))

        with held_warnings() as held:
            X = np.array(solve(B2, warn_forward))
        X = _refined(A, B2, X, solve, tol, warn_forward, held, rough, null_components, recomputed, offset)
        return X[:, 0] if was_1d else X
    if isinstance(preconditioner, str) and preconditioner == "jacobi":
        As = sp.csr_array(A.multiply(s[:, None]).multiply(s[None, :]))

        def solve(Bk, warn_now):
            return s[:, None] * forward_checked(conjugate_gradient(As, s[:, None] * Bk, tol=tol, max_iter=max_iter,
                                                                    forward_tol=tol), tol, warn_now)
        rough = jacobi_rough
    else:
        is_amg = isinstance(preconditioner, str) and preconditioner == "amg"
        M = amg if (is_amg and amg is not None) else _make_preconditioner(A, preconditioner)
        if is_amg:
            def solve(Bk, warn_now):
                return _amg_or_jacobi(lambda: conjugate_gradient(A, Bk, M=M, tol=tol, max_iter=max_iter,
                                                                 on_failure="ignore"), A, Bk, tol, max_iter,
                                      null_components)

            if spread:
                # degrees spanning more than 1e8 (outliers): the AMG solve was 1.6e-6 off at tol 1e-8 on 4030
                # nodes with degrees down to 1e-20, silently, and an AMG correction to 1 % did not see it
                As = sp.csr_array(A.multiply(s[:, None]).multiply(s[None, :]))
                rough = jacobi_rough
        elif M is None:
            def solve(Bk, warn_now):
                return forward_checked(conjugate_gradient(A, Bk, tol=tol, max_iter=max_iter, forward_tol=tol), tol,
                                       warn_now)

            rough = plain_rough
        else:
            def solve(Bk, warn_now):
                return conjugate_gradient(A, Bk, M=M, tol=tol, max_iter=max_iter).x
    # the first solve's warnings are held until the refinement has run: an AccuracyWarning about an error that
    # the refinement then removes (checked by one more correction, _refined) would be a false alarm
    # (this thread's graphrkhs warnings: warnings.catch_warnings(record=True) swapped the process's showwarning,
    # and two threads of iterative solves left a recording one installed, losing every later warning)
    with held_warnings() as held:
        X = solve(B2, warn_forward)
    X = _refined(A, B2, X, solve, tol, warn_forward, held, rough, null_components, recomputed, offset)
    return X[:, 0] if was_1d else X


#: Relative tolerance of the correction solves that check an unpreconditioned or Jacobi-scaled CG solution
#: (``rough`` of :func:`_refined`): a correction is compared with 10 tol times X, so 1 % of its own size is
#: accuracy enough, at a quarter to a third of a full solve's iterations.
_CHECK_TOL = 1e-2

def _degrees(W):
    """Row sums of the adjacency W (inf where one overflows: a spread, as far as :func:`_spread` is concerned)."""
    with np.errstate(over="ignore"):
        return np.asarray(W.sum(axis=1), dtype=np.float64).ravel()


def _spread(d):
    """Whether the (non-negative) degrees ``d`` span more than ``_CHECK_DEGREE_SPREAD``."""
    return bool(d.size) and d.max() > _CHECK_DEGREE_SPREAD * max(d.min(), 0.0)


#: AMG solves get the correction test (by Jacobi-scaled CG) when the diagonal, or the graph degrees a caller
#: passes for a normalized Laplacian (whose diagonal is 1), spans more than this ratio:
#: outliers of a Gaussian-weighted graph (degrees 1e-8 to 1e-25 next to 1).  On the others their coarse
#: levels hold the nearly disconnected parts, and a Jacobi correction would cost more than the AMG solve.
_CHECK_DEGREE_SPREAD = 1e8

#: Refinement rounds of :func:`_refined` at most, and the factor over ``tol`` its row-normalized residual may
#: keep without a round (a residual test at tol leaves ordinary kNN graphs' row-normalized residuals within a
#: few tol; the outlier nodes it is for leave them at 1e-3 to 1).
_REFINE_ROUNDS = 3
_REFINE_SLACK = 10.0


def _row_normalized_residual(A, B, X, d):
    r"""Per column, :math:`\|D^{-1}(B - A X)\|_2 / \|D^{-1} B\|_2` with :math:`D = \mathrm{diag}(A)`, and the
    residual :math:`B - A X`."""
    R = B - A @ X
    num = np.linalg.norm(R / d[:, None], axis=0)
    den = np.linalg.norm(B / d[:, None], axis=0)
    return np.where(den > 0, num / np.where(den > 0, den, 1.0), num), R


def _refined(A, B, X, solve, tol, warn_forward, held=(), rough=None, null_components=None, recomputed=None,
             offset=None):
    r"""``X`` of an iterative solve of the SPD graph system A X = B, refined until its residual is small in
    the units of X, and, for the solves without a coarse correction, until a correction of X is small.

    1. The **row-normalized residual** :math:`\|D^{-1}(B - AX)\| / \|D^{-1}B\|`, D the diagonal of A (the
       residual of the equations "a node's value = the weighted mean of its neighbours' plus its source",
       whatever the node's degree), at most ``_REFINE_SLACK`` tol.  Why: every stopping rule of CG
       measures the residual :math:`\|B - AX\| / \|B\|` in the units of the degrees (or of their square
       roots, Jacobi scaling, or of the preconditioner), and at a node of degree :math:`d_i` an error
       :math:`e_i` leaves a residual of only :math:`d_i e_i`.  On Gaussian-weighted kNN graphs with outliers
       (degrees 1e-8 next to 1; 600-3000 nodes, tol 1e-8) AMG-CG met its test with the harmonic solution
       1.7e-2 to 3.5e-2 off and plain CG 0.23 off, without a warning; refined, 2e-7 to 6e-14 (AMG).
       Iterative refinement (a solve of :math:`A \delta = B - AX` by the same method, :math:`X \leftarrow
       X + \delta`) shrinks the error the row-normalized residual sees by about ``tol`` per round; an
       :class:`~graphrkhs.AccuracyWarning` when ``_REFINE_ROUNDS`` rounds do not reach the target (if
       ``warn_forward``).  Costs one product with A when no round is needed (no round on the digits' or
       Fashion-MNIST's kNN graphs, nor on 10^5 uniform points).

    2. With ``rough`` (unpreconditioned and Jacobi-scaled CG, AMG on graphs of widely spread degrees): the
       **correction test**.  ``rough(R)`` solves
       :math:`A \delta = R` to ``_CHECK_TOL`` (1 %), by CG with its own forward-error iteration, and
       :math:`X \leftarrow X + \delta`; X is accepted when the correction is at most ``_REFINE_SLACK`` tol
       times X (max-norms, per column: the a posteriori error estimate of iterative refinement), else the
       test is repeated, at most ``_REFINE_ROUNDS`` times, and an :class:`~graphrkhs.AccuracyWarning` names
       the last relative correction.  Why: outliers linked more to each other than to the cloud form a
       nearly disconnected part, whose common value is a mode that neither residual above sees (its
       row-normalized residual is :math:`10^{-19}` of its error).  Jacobi-scaled CG stopped there with the
       harmonic solution 0.21 off (3000 nodes, tol 1e-8) and 1.6e-4 off (2000 nodes), silently; a correction
       solve, whose forward-error iteration is relative to the small correction itself, finds the mode:
       2.2e-7 and 3e-9 after three tests.  Costs a quarter to a third of the solve on ordinary kNN graphs
       (digits: 18 iterations after 65; 3 x 10^4 uniform points: 71 after 294).  A correction more than half
       the previous one is rounding noise and is not applied (:func:`_contracting`).

    ``held``: the warnings of the solve that gave X, emitted here, except an
    :class:`~graphrkhs.AccuracyWarning` about X's forward error (CG's Lanczos estimate) once the target is met
    and a correction, at most ``_REFINE_ROUNDS`` of them, is smaller than 10 tol times X: the error it
    reported is gone (outliers of degree 1e-16: plain CG 7e-2 off and warned; refined, 1e-10).  Where the
    corrections stay large the warning stands (with ``rough``: instead of the correction test's warning).

    ``null_components`` (a singular Laplacian A, see :func:`_solve_spd`): every residual is made to sum to
    zero on each component before it is solved for, as B does (its rounding is not, and CG refused it).
    ``recomputed`` (``(z, comp)``, see :func:`_solve_spd`): the correction test compares the parts of the
    correction and of X orthogonal to z on each component, the rest being recomputed by the caller (the
    Tikhonov system at mu = 1e10, whose part along z no residual sees: the test warned about it).
    ``offset`` (:math:`X_0`, see :func:`_solve_spd`): X is a correction and the caller's answer is
    :math:`X_0 + X`.  The rounds above still aim at X's own units (bit-identical results), but what is left
    is also judged in the answer's units -- the correction test by :math:`\max|\delta| / \max|X_0 + X|`,
    the row-normalized residual against :math:`B + A X_0`, the full system's right-hand side -- and a miss
    there warns whatever ``warn_forward`` (which then only silences the judgements in X's units).  Why: the
    Tikhonov solve from the harmonic start judged only the O(mu) correction and did not warn about it, so
    nothing judged the answer: on 800 Gaussian points with 20 outliers (degrees down to 1e-14; normalized
    Laplacian, tol 1e-8) the AMG solve at mu = 0.1 was 8.5e-3 off and Jacobi's at mu = 1e-3 5.8e-6 off,
    both silently.
    """
    if null_components is None:
        def consistent(R):
            return np.ascontiguousarray(R)
    else:
        comp = np.asarray(null_components)
        counts = np.bincount(comp).astype(np.float64)

        def consistent(R):
            sums = _comp_sums(comp, counts.size, R)
            return np.ascontiguousarray(R - (sums / np.maximum(counts, 1.0)[:, None])[comp])
    off_modes = _without_recomputed(recomputed)
    d = A.diagonal()
    d = np.where(d > 0, d, 1.0)
    target = _REFINE_SLACK * tol
    tiny = np.finfo(float).tiny
    est, R = _row_normalized_residual(A, B, X, d)
    rounds = 0
    # a refinement or correction solve whose CG broke down (p^T A p <= 0): A is positive definite, but singular
    # to working precision (outliers linked more to each other than to the rest, degrees near 1e-17 next to 1:
    # L_UU had an eigenvalue of -3e-15 in float64, and the LinAlgError "not positive definite" escaped from a
    # solve of a valid graph with every explicit preconditioner); X is kept as it is and the warning below says so
    broke = None
    while np.any(est > target) and rounds < _REFINE_ROUNDS:
        bad = np.flatnonzero(est > target)
        try:
            X[:, bad] += solve(consistent(R[:, bad]), False)
        except np.linalg.LinAlgError as exc:
            broke = exc
            break
        rounds += 1
        est, R = _row_normalized_residual(A, B, X, d)
    accuracy = [w for w in held if isinstance(w, AccuracyWarning)]
    if rough is not None and broke is None:
        # the correction test: every column once, then the ones whose correction was large
        cols = np.arange(X.shape[1])
        rel = np.full(X.shape[1], np.inf)
        stalled = np.zeros(X.shape[1], dtype=bool)
        for _ in range(_REFINE_ROUNDS):
            try:
                delta = rough(consistent(R[:, cols]))
            except np.linalg.LinAlgError as exc:
                broke = exc
                break
            step, keep = _contracting(delta, X[:, cols], rel[cols], off_modes)
            X[:, cols[keep]] += delta[:, keep]
            rel[cols[keep]] = step[keep]
            stalled[cols[~keep]] = True
            est, R = _row_normalized_residual(A, B, X, d)
            cols = np.flatnonzero((rel > target) & ~stalled)
            if not cols.size:
                break
        cols = np.flatnonzero(rel > target)
        if broke is not None:
            pass                    # the warning below
        elif not cols.size and not np.any(est > target):
            accuracy = []           # the error the first solve's estimate reported is gone
        elif (warn_forward and not accuracy) or (offset is not None and np.any(_in_units_of(
                rel, X, offset, off_modes) > target)):
            # (a held forward-error warning says the same and stands; with an offset, the answer X0 + X is
            # judged whatever warn_forward: a correction large next to X may be small next to X0 + X)
            shown = rel if offset is None else _in_units_of(rel, X, offset, off_modes)
            warn(f"the iterative solve met its residual test, but a correction of its solution is still "
                 f"{float(shown.max()):.1e} of it after {_REFINE_ROUNDS} refinement rounds, above {target:.0e} "
                 f"(10 tol), and the error may be larger: a nearly disconnected part of the graph (outliers linked "
                 f"more to each other than to the rest) holds an error that the solve and its Jacobi-scaled "
                 f"corrections cannot resolve, or the system is at the limit of float64 there (degrees near 1e-20: "
                 f"every solver's error, a direct one's too). Use preconditioner='auto' (a direct solve up to "
                 f"{DIRECT_MAX_NODES} unknowns), 'amg' instead of unpreconditioned or Jacobi-scaled CG (its coarse "
                 f"levels hold such parts), or self-tuning weights.", AccuracyWarning)
    checks = 0 if rough is None else _REFINE_ROUNDS          # with rough, the correction test did this
    while accuracy and broke is None and not np.any(est > target) and checks < _REFINE_ROUNDS:
        # the first solve's forward-error estimate says X may be off although its residual is small: correct
        # X until a correction is below 10 tol times X (the a posteriori error estimate of refinement); then
        # the warning is about an error that is gone
        try:
            delta = solve(consistent(R), False)
        except np.linalg.LinAlgError as exc:
            broke = exc
            break
        X += delta
        checks += 1
        if np.all(np.abs(delta).max(axis=0) <= target * np.maximum(np.abs(X).max(axis=0), tiny)):
            accuracy = []
        est, R = _row_normalized_residual(A, B, X, d)
    for w in held:
        if not isinstance(w, AccuracyWarning) or w in accuracy:
            warn(w)
    if broke is not None:
        # warned whatever warn_forward: nothing else says that X was not checked
        warn(f"the iterative solve's refinement broke down ({broke}): this positive definite system is singular "
             f"to working precision (nodes of tiny degree linked more to each other than to the rest, e.g. "
             f"outliers of a Gaussian-weighted graph), and the solution was not checked there; it may be off by "
             f"O(1) on such nodes (every solver's limit in float64, a direct one's too). Use self-tuning weights "
             f"(GraphSpec(weight='self-tuning')), a larger kernel width, or remove the outliers.", AccuracyWarning)
    elif np.any(est > target) and (warn_forward or (offset is not None and np.any(
            _row_normalized_residual(A, B + A @ offset, X + offset, d)[0] > target))):
        if not warn_forward:
            est = _row_normalized_residual(A, B + A @ offset, X + offset, d)[0]
        warn(f"the iterative solve met its residual test, but its row-normalized residual "
             f"||D^-1 (B - A X)|| / ||D^-1 B|| is {float(est.max()):.1e} after {rounds} refinement round(s), above "
             f"{target:.0e} (10 tol): nodes of tiny degree next to large ones (outliers of a Gaussian-weighted "
             f"graph) hold errors their residuals hide. Use preconditioner='auto' (a direct solve up to "
             f"{DIRECT_MAX_NODES} unknowns), self-tuning weights, or a smaller tol.", AccuracyWarning)
    return X


def _in_units_of(rel, X, offset, off_modes):
    """Relative corrections ``rel`` of X (:func:`_relative_corrections`) re-expressed relative to
    ``offset + X``, the caller's answer (the parts off the recomputed modes, as there)."""
    tiny = np.finfo(float).tiny
    return (rel * np.maximum(np.abs(off_modes(X)).max(axis=0, initial=0.0), tiny)
            / np.maximum(np.abs(off_modes(offset + X)).max(axis=0, initial=0.0), tiny))


def _without_recomputed(recomputed):
    """``V -> V`` minus its part along z on each component, for ``recomputed = (z, comp)`` (the identity for
    None): what the correction tests judge when the caller recomputes that part (see :func:`_solve_spd`)."""
    if recomputed is None:
        return lambda V: V
    z, comp = np.asarray(recomputed[0], dtype=np.float64), np.asarray(recomputed[1])
    n_comp = int(comp.max()) + 1 if comp.size else 0
    zz = np.bincount(comp, weights=z ** 2, minlength=n_comp)

    def off_modes(V):
        coef = _comp_sums(comp, n_comp, z[:, None] * V) / np.where(zz > 0, zz, 1.0)[:, None]
        return V - z[:, None] * coef[comp]
    return off_modes


def _relative_corrections(delta, X, off_modes=lambda V: V):
    """Per column, max |delta| / max |X| (their parts off the recomputed modes): the a posteriori error
    estimate of one refinement step."""
    return (np.abs(off_modes(delta)).max(axis=0, initial=0.0)
            / np.maximum(np.abs(off_modes(X)).max(axis=0, initial=0.0), np.finfo(float).tiny))


def _contracting(delta, X, previous, off_modes):
    """The relative size of the corrections ``delta`` of X (:func:`_relative_corrections`, after the update)
    and, per column, whether to apply them: unless one is more than half the column's previous one.  A
    correction that does not shrink is rounding noise at the system's accuracy floor (applied, three of them
    took a solution 5e-6 off to 4e-5 off on 1520 nodes with degrees down to 4e-19); the previous size then
    stands as the error estimate."""
    step = _relative_corrections(delta, X + delta, off_modes)
    return step, ~(step > 0.5 * previous)


def _amg_or_jacobi(solve, A, B, tol, max_iter, null_components=None):
    """Run an AMG-preconditioned CG (``solve() -> CGResult``, run with ``on_failure="ignore"``); if the
    V-cycle breaks down (NaN or infinity, which happens on systems whose rows differ in scale by ~1e16),
    the preconditioned iteration loses positive definiteness to rounding (p^T A p <= 0: Poisson learning's
    Laplacian with outliers of degree 1e-17, where numpy's LinAlgError escaped from a valid graph), or it
    stalls short of ``tol`` (what the same V-cycle does on such systems with other pyamg releases), warn and
    solve with symmetric Jacobi scaling, which is invariant to that scaling (and warns in turn if it does not
    converge either).  ``null_components``: as :func:`_solve_spd`'s, for a singular Laplacian system."""
    try:
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):   # a breakdown is reported below
            res = solve()
    except FloatingPointError:
        what = "NaN or infinity"
    except np.linalg.LinAlgError:
        what = "p^T A p <= 0 in CG: positive definiteness lost to rounding"
    else:
        if np.all(res.converged):
            return res.x
        what = (f"CG stalled at relative residual {float(np.max(res.residual_norms)):.1e} after {res.n_iter} "
                f"iterations")
    warn(f"the AMG preconditioner broke down ({what}) on this system (badly scaled rows, e.g. node degrees "
         f"spanning many orders of magnitude); solved with Jacobi scaling instead. Pass "
         f"preconditioner='jacobi' to skip AMG.", ConvergenceWarning)
    return _solve_spd(A, B, "jacobi", tol, max_iter, null_components=null_components)


_DIRECT_FIX = ("check the graph for nearly disconnected parts or edge weights spanning many orders of "
               "magnitude, or solve iteratively (preconditioner='amg') to see how far CG gets.")


def _check_same_system(A, B, tol, max_iter, preconditioner, backend):
    """Before a direct solve under a distributed backend (every process factorizes by itself): the backend's
    comparison of the system across processes (MPI: the same ``ValueError`` on every rank when they differ).

    A system drawn differently on each MPI rank (labels without a seed) gave each rank its own answer,
    silently; the iterative path compares the same way first thing (``solve_spd``), so ranks that took
    different paths meet in the comparison too."""
    resolved = resolve_backend(backend)
    if is_distributed(resolved):
        require_backend(resolved)                   # Dask without a client: its error, not a silent serial solve
        same = getattr(get_backend(resolved), "check_same_system", None)     # Dask: one driver, nothing to compare
        if same is not None:
            same(A, B, tol, max_iter, preconditioner)


def _direct_solve(A, B, tol, recomputed=None):
    r"""Sparse LU (SuperLU) of the SPD system A X = B, with the residual checked (:func:`check_solution`)
    and the solution checked by corrections.

    The system is scaled symmetrically to unit diagonal first, :math:`(D^{-1/2} A D^{-1/2})(D^{1/2} X)
    = D^{-1/2} B` (exact up to rounding, O(nnz)): the factorization then sees rows of one scale even
    when node degrees span many orders of magnitude, where the unscaled LU lost every digit; it is
    ordered symmetrically and factored without pivoting (:func:`spd_splu`).

    A backward-stable solve is accurate only to about :math:`\epsilon\,\mathrm{cond}`: on graphs with
    outliers linked more to each other than to the rest (degrees down to 4e-19, 1500 nodes) it was 2.6e-5
    off at tol 1e-8, with a residual at the rounding level.  So X is corrected by the same factors
    (:math:`X \leftarrow X + A^{-1}(B - AX)`, two triangular solves) while the correction is above 10 tol
    times X, at most ``_REFINE_ROUNDS`` times, and an :class:`~graphrkhs.AccuracyWarning` names the last
    relative correction when it stays above.  ``recomputed``: as for :func:`_solve_spd`.
    """
    B = np.asarray(B, dtype=np.float64)
    d = A.diagonal()
    s = 1.0 / np.sqrt(np.where(d > 0, d, 1.0))
    As = sp.csc_matrix(A.multiply(s[:, None]).multiply(s[None, :]))
    try:
        lu = spd_splu(As)
    except RuntimeError as exc:   # SuperLU: "Factor is exactly singular"
        raise np.linalg.LinAlgError(f"the sparse direct solve failed ({exc}): the Laplacian system is singular to "
                                    f"working precision; {_DIRECT_FIX}") from None

    def solve(V):
        sc = s.reshape((-1,) + (1,) * (V.ndim - 1))
        return sc * lu.solve(sc * V).reshape(V.shape)

    X = solve(B)
    check_solution(A, X, B, tol, "Laplacian system", _DIRECT_FIX)
    if B.size:
        off_modes = _without_recomputed(recomputed)
        X2 = X.reshape(X.shape[0], -1)
        target = _REFINE_SLACK * tol
        rel = np.full(X2.shape[1], np.inf)
        for _ in range(_REFINE_ROUNDS):
            delta = solve(B.reshape(X2.shape) - A @ X2)
            step, keep = _contracting(delta, X2, rel, off_modes)
            X2 = X2 + delta * keep
            rel = np.where(keep, step, rel)
            if not np.any(rel > target) or not keep.any():
                break
        if np.any(rel > target):
            warn(f"the direct solve met its residual test, but a correction of its solution is still "
                 f"{float(rel.max()):.1e} of it after {_REFINE_ROUNDS} rounds, above {target:.0e} (10 tol): the "
                 f"system is ill-conditioned to the limit of float64 (nodes of degree near 1e-20 next to ones "
                 f"near 1: outliers of a Gaussian-weighted graph), and the solution is accurate to about that "
                 f"only. Use self-tuning weights, or connect the outliers (a larger n_neighbors).", AccuracyWarning)
        X = X2.reshape(X.shape)
    return X


def _range_projected(M, comp, n_comp):
    """:math:`P M P` with P removing each component's mean: SPD on the range of a singular Laplacian."""
    counts = np.maximum(np.bincount(comp, minlength=n_comp), 1)[:, None]

    def project(R):
        R2 = R.reshape(R.shape[0], -1)
        sums = np.zeros((n_comp, R2.shape[1]))
        np.add.at(sums, comp, R2)
        return (R2 - (sums / counts)[comp]).reshape(R.shape)

    def apply(R):
        return project(M.matmat(project(np.asarray(R)).reshape(R.shape[0], -1)).reshape(np.shape(R)))

    # P M P is symmetric (M is): its adjoint is itself, so .H / rmatvec work too.
    return spla.LinearOperator(M.shape, matvec=apply, matmat=apply, rmatvec=apply, rmatmat=apply,
                               dtype=np.float64)


def _comp_sums(comp, n_comp, V):
    """Per-component column sums of V (n, m) -> (n_comp, m)."""
    out = np.zeros((n_comp, V.shape[1]))
    np.add.at(out, comp, V)
    return out


def _null_space_corrected(X, z, comp, n_comp, d, rhs_z):
    r"""The solution X of :math:`(D + c\,R) X = B` with its part along the null space of R recomputed exactly.

    ``R`` is symmetric with :math:`R z = 0` on each component (``comp``) -- :math:`z = 1` for the
    combinatorial Laplacian, :math:`d^{1/2}` for the normalized one -- and D = diag(``d``) >= 0;
    ``rhs_z`` holds :math:`z^T B` per component.  When c is large the part of X along z is invisible
    to the solve's relative residual: :math:`(D + cR) z h = D z h` is O(1) against :math:`c R X_\perp`,
    so a solve that meets its ``tol`` (or a direct one, by rounding) leaves h wrong by up to
    tol |B| -- 19 % of the O(1/c) informative part of Tikhonov's solution at c = 1e8 with Jacobi CG.
    The rest, :math:`X_\perp` (z-free on each component), is bounded by the residual,
    :math:`\|\delta X_\perp\| \le \|r\| / (c \lambda_2)`, and h follows from it exactly:
    :math:`z^T (D + cR) X = z^T D X = z^T B` gives
    :math:`h = (z^T B - (Dz)^T X_\perp) / (z^T D z)`.  Components with :math:`z^T D z = 0` keep X.
    """
    X = np.asarray(X, dtype=np.float64)
    zz = np.bincount(comp, weights=z ** 2, minlength=n_comp)
    X_perp = X - z[:, None] * (_comp_sums(comp, n_comp, z[:, None] * X) / np.where(zz > 0, zz, 1.0)[:, None])[comp]
    dzz = np.bincount(comp, weights=d * z ** 2, minlength=n_comp)
    ok = (dzz > 0) & (zz > 0)
    h = (rhs_z - _comp_sums(comp, n_comp, (d * z)[:, None] * X_perp)) / np.where(ok, dzz, 1.0)[:, None]
    out = X_perp + z[:, None] * h[comp]
    bad = ~ok[comp]
    out[bad] = X[bad]
    return out


def _make_preconditioner(A, preconditioner):
    if isinstance(preconditioner, spla.LinearOperator):
        if preconditioner.shape != A.shape:
            raise ValueError(f"the preconditioner must have shape {A.shape}; got {preconditioner.shape}.")
        return preconditioner
    if preconditioner == "amg":
        return amg_preconditioner(A)
    if preconditioner == "jacobi":
        d = A.diagonal()
        return sp.diags_array(1.0 / np.where(d > 0, d, 1.0))
    return None


# ---------------------------------------------------------------------------
# Laplace learning: harmonic and Tikhonov
# ---------------------------------------------------------------------------

def harmonic_solution(W: GraphLike, labeled: Indices, Y: ArrayLike, *, laplacian: str = "combinatorial",
                      tol: float = 1e-8, max_iter: Optional[int] = None,
                      preconditioner: Union[str, None, spla.LinearOperator] = "auto",
                      backend: str = "auto", _warn_label_free: bool = True) -> np.ndarray:
    r"""Harmonic extension (Laplace learning, Zhu, Ghahramani & Lafferty 2003).

    Solves :math:`L_{UU} F_U = -L_{US} Y_S` with :math:`F_S = Y_S`: the limit
    :math:`\mu \to 0` of Tikhonov regularization :math:`(J + \mu L) F = J Y`
    (:func:`tikhonov_solution`).  All columns of ``Y`` (e.g. one-hot classes)
    are solved in one block CG with one AMG hierarchy.

    Parameters
    ----------
    W : graph
        Any form :func:`~graphrkhs.as_adjacency` accepts.
    labeled : array of int or bool mask
        The labeled nodes S.
    Y : ndarray of shape (len(S),) or (len(S), m)
        Targets on S, in the order of ``labeled``.
    laplacian : {"combinatorial", "normalized", "randomwalk"}, default="combinatorial"
        Laplacian kind.  The random-walk Laplacian :math:`D^{-1} L` has the
        same harmonic solution as the combinatorial one (it is used).  The
        combinatorial one is the default because its harmonic solution is a
        weighted average of the labels (maximum principle).
    tol : float in (0, 1), default=1e-8
        Relative residual of the CG stopping rule; tight, because the solve is
        cheap with AMG and loose solves bias the class scores (at 1 or more
        the zero start would meet it: refused).
    max_iter : int >= 1, optional
        CG iteration cap (default ``10 n``); checked on every path, the
        direct solve included.
    preconditioner : {"auto", "amg", "jacobi", None} or LinearOperator, default="auto"
        "auto": a sparse direct solve (SuperLU) up to ``DIRECT_MAX_NODES``
        (5000) unknowns, AMG above.  Otherwise: smoothed-aggregation AMG
        (built once for all columns), diagonal
        (symmetric Jacobi scaling), none, or a prebuilt operator approximating
        :math:`L_{UU}^{-1}`.  AMG (:func:`~graphrkhs.amg_preconditioner`)
        wins on low-dimensional geometric graphs by far (10^6-node 3-D kNN
        graph: 14 CG steps, 7x faster than plain CG) and still beats
        "jacobi" on kNN graphs of images, where plain CG already converges
        in ~100 steps (Fashion-MNIST: 1.2 s against 2.0-2.4 s; see
        ``benchmarks/transductive.py``).  Unpreconditioned CG (``None``,
        ``"jacobi"``) also bounds its estimated forward error by ``tol``: a
        relative residual bounds the error only to cond(:math:`L_{UU}`)
        times it, and nodes of tiny degree (outliers of a Gaussian-weighted
        kNN graph) make :math:`L_{UU}` badly conditioned (6000 Gaussian
        points, 10-NN, 20 labels: cond 4.5e8, and plain CG met tol=1e-8 with
        F 0.47 off).  CG goes on until the residual over its Lanczos
        estimate of :math:`\lambda_{min}` meets ``tol`` (there: 2061
        iterations instead of 1512, F within 1e-11), and raises an
        :class:`~graphrkhs.AccuracyWarning` naming "auto" / "amg" when it
        cannot.
    backend : {"auto", "numpy", "numba", "scipy", "mpi", "dask"}, default="auto"
        Where the CG solve runs (see :func:`~graphrkhs.chebyshev_filter`): a
        distributed backend partitions the system and runs block CG with
        summed dot products and block-Jacobi AMG (one hierarchy per
        partition); ``"auto"`` is MPI under ``mpiexec`` with several ranks.
        Results agree with the serial solve to ``tol``.

    Returns
    -------
    F : ndarray of shape (n,) or (n, m)
        Equal to ``Y`` on S.  Nodes in components without any labeled node get
        the mean of ``Y`` (the class prior for one-hot targets), with a
        :class:`~graphrkhs.GraphWarning`.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import harmonic_solution
    >>> W = np.diag(np.ones(4), 1); W = W + W.T          # path on 5 nodes
    >>> harmonic_solution(W, [0, 4], np.array([0.0, 1.0])).round(6)
    array([0.  , 0.25, 0.5 , 0.75, 1.  ])
    """
    check_option(laplacian, "laplacian", LAPLACIANS)
    preconditioner = _check_preconditioner(preconditioner)
    tol, max_iter = _check_iterations(tol, max_iter)
    check_backend(backend)
    W, S, Y2, was_1d, out_dtype = labeled_graph_problem(W, labeled, Y, cut_weak=True)
    Y2, e = in_target_units(Y2)         # targets near 1e308: solved in units of 2^e, exactly scaled back
    n = W.shape[0]
    lap_kind = "combinatorial" if laplacian == "randomwalk" else laplacian
    L = graph_laplacian(W, lap_kind)
    F = np.empty((n, Y2.shape[1]))
    F[S] = Y2
    # _warn_label_free=False (private): a solve inside a model selection (the matrix-free LOO scores only the
    # labeled nodes); the fit at the chosen parameters reports the label-free components, once
    orphan = _orphans(W, S, Y2, F, report=_warn_label_free)
    is_free = np.ones(n, dtype=bool)
    is_free[S] = False
    is_free &= ~orphan
    U = np.flatnonzero(is_free)
    if U.size:
        L_U = L[U]
        L_UU = sp.csr_array(L_U[:, U])
        rhs = -(L_U[:, S] @ Y2)
        # a normalized Laplacian's diagonal hides the degrees, whose spread calls for the correction test
        deg = _degrees(W)[U] if lap_kind == "normalized" else None
        F[U] = _solve_spd(L_UU, rhs, preconditioner, tol, max_iter, backend, degrees=deg)
    return _finish(from_target_units(F, e), was_1d, out_dtype)


def tikhonov_solution(W: GraphLike, labeled: Indices, Y: ArrayLike, *, alpha: float = 0.0,
                      laplacian: str = "combinatorial", tol: float = 1e-8, max_iter: Optional[int] = None,
                      preconditioner: Union[str, None, spla.LinearOperator] = "auto",
                      backend: str = "auto", _warn_label_free: bool = True) -> np.ndarray:
    r"""Laplacian (Tikhonov) regularization on a graph.

    .. math::

        F = \arg\min_F \sum_{j \in S} \|y_j - F_j\|^2 + \mu \operatorname{tr}(F^T L F)
        \quad\Longleftrightarrow\quad (J + \mu L) F = J Y,

    with :math:`\mu` = ``alpha`` (Belkin, Matveeva & Niyogi 2004; Pena 2017,
    slide "Transductive learning").  :math:`J + \mu L` is SPD on every
    component holding a label and is solved by AMG-preconditioned block CG.
    As :math:`\mu \to 0` the solution tends to :func:`harmonic_solution`,
    which ``alpha=0`` (this function's default) returns;
    :class:`~graphrkhs.LaplacianRegularizationClassifier`'s ``alpha="auto"``
    chooses among 0 and 15 positive values by leave-one-out.

    Parameters
    ----------
    W, labeled, Y, laplacian, tol, max_iter, preconditioner, backend
        As in :func:`harmonic_solution`.
    alpha : float >= 0, default=0.0
        The weight :math:`\mu` of the smoothness term.  0 is the limit
        :math:`\mu \to 0`, the harmonic solution (labels kept exactly, best
        when they are clean; one of the estimators' "auto" candidates); a positive value
        lets the fit depart from noisy labels (1e-2 is mild relative to unit
        edge weights).  Any finite value is solved to the rounding of F: the
        part of F in the null space of L (each component's least-squares fit
        of the labels by the constants, or by :math:`d^{1/2}` for the
        normalized Laplacian, the limit :math:`\mu \to \infty`) is taken out
        exactly, and only the O(1/mu) rest is solved for (before, the unit
        entries of J sank in the rounding of :math:`\mu L`: errors 3e-4 at
        1e12, 0.36 at 1e16).  The rest's own part along the null space,
        invisible to the solve's relative residual, is then recomputed
        exactly from the others (the iterative solves left it wrong by up to
        19 % at 1e8), so ``tol`` bounds the error of :math:`F` minus its
        :math:`\mu \to \infty` limit on every path.  At the other end
        (:math:`\mu` times L's largest entry below 1) the iterative paths
        start from the :math:`\mu \to 0` limit, the harmonic extension of the
        labels (one more solve, with :math:`L_{UU}`), and solve for the O(mu)
        rest: the unlabeled rows :math:`\mu L` weigh little in the residual
        against J, and from zero the AMG solve at tol 1e-8 left F 3.5e-3 off at
        :math:`\mu = 10^{-6}` (6000-node kNN graph, 20 labels), now 1.3e-8.

    Returns
    -------
    F : ndarray of shape (n,) or (n, m)

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import tikhonov_solution
    >>> W = np.diag(np.ones(2), 1); W = W + W.T          # path on 3 nodes
    >>> tikhonov_solution(W, [0, 2], np.array([0.0, 1.0]), alpha=1.0).round(6)
    array([0.25, 0.5 , 0.75])
    >>> tikhonov_solution(W, [0, 2], np.array([0.0, 1.0])).round(6)      # alpha=0: harmonic
    array([0. , 0.5, 1. ])
    """
    check_option(laplacian, "laplacian", LAPLACIANS)
    alpha = check_scalar(alpha, "alpha", low=0)
    if alpha == 0:
        return harmonic_solution(W, labeled, Y, laplacian=laplacian, tol=tol, max_iter=max_iter,
                                 preconditioner=preconditioner, backend=backend, _warn_label_free=_warn_label_free)
    preconditioner = _check_preconditioner(preconditioner)
    tol, max_iter = _check_iterations(tol, max_iter)
    check_backend(backend)
    W, S, Y2, was_1d, out_dtype = labeled_graph_problem(W, labeled, Y, cut_weak=True)
    Y2, e = in_target_units(Y2)         # targets near 1e308: solved in units of 2^e, exactly scaled back
    n = W.shape[0]
    if laplacian == "randomwalk":
        raise ValueError("laplacian='randomwalk' gives a non-symmetric Tikhonov system for alpha > 0; use "
                         "'combinatorial' or 'normalized'.")
    L = graph_laplacian(W, laplacian)
    largest = float(np.abs(L.data).max()) if L.nnz else 0.0
    if not math.isfinite(alpha * largest * 4.0):   # Python floats: inf, not numpy's overflow warnings
        raise ValueError(f"alpha={alpha:g} times the Laplacian's largest entry ({largest:g}) overflows float64; "
                         "use a smaller alpha (as alpha grows, each component's values tend to the mean of its "
                         "labels).")
    F = np.empty((n, Y2.shape[1]))
    orphan = _orphans(W, S, Y2, F, report=_warn_label_free)     # False: as in harmonic_solution
    keep = np.flatnonzero(~orphan)
    pos = np.full(n, -1, dtype=np.int64)
    pos[keep] = np.arange(keep.size)
    # The fit's part in the null space of L, z c (z = 1, or d^(1/2) for the normalized Laplacian, on each
    # component; c the least-squares fit of Y_S by z_S), is taken out exactly: (J + mu L)(z c + H) = J Y
    # gives (J + mu L) H = J (Y - z c), whose solution is O(1/mu).  The solve's absolute error then stays
    # at the rounding level of L whatever mu (it was 3e-4 at mu = 1e12, with the whole of F in the solve).
    n_comp, comp = csgraph.connected_components(W, directed=False)
    z = np.ones(n) if laplacian == "combinatorial" else np.sqrt(np.asarray(W.sum(axis=1), dtype=np.float64).ravel())
    zz = np.bincount(comp[S], weights=z[S] ** 2, minlength=n_comp)
    zy = np.zeros((n_comp, Y2.shape[1]))
    np.add.at(zy, comp[S], z[S, None] * Y2)
    c = zy / np.where(zz > 0, zz, 1.0)[:, None]
    null_part = z[keep, None] * c[comp[keep]]
    A = sp.csr_array(L[keep][:, keep]) * alpha
    jdiag = np.zeros(keep.size)
    jdiag[pos[S]] = 1.0
    A = sp.csr_array(A + sp.diags_array(jdiag))
    B = np.zeros((keep.size, Y2.shape[1]))
    B[pos[S]] = Y2 - null_part[pos[S]]
    H = _solve_tikhonov_rest(A, B, sp.csr_array(L[keep][:, keep]), pos[S], alpha * largest, preconditioner, tol,
                             max_iter, backend, recomputed=(z[keep], comp[keep]),
                             degrees=_degrees(W)[keep] if laplacian == "normalized" else None)
    # H = O(1/mu) has a part along z too, which the residual of the solve cannot see: recomputed exactly
    # (z^T B = 0 here: B is the residual of the least-squares fit of Y_S by z_S on each component)
    H = _null_space_corrected(H, z[keep], comp[keep], n_comp, jdiag, np.zeros((n_comp, H.shape[1])))
    F[keep] = null_part + H
    return _finish(from_target_units(F, e), was_1d, out_dtype)


def _solve_tikhonov_rest(A, B, L, labeled_rows, scale, preconditioner, tol, max_iter, backend, recomputed=None,
                         degrees=None):
    r"""Solve :math:`(J + \mu L) H = B` (B supported on the labeled rows), from the :math:`\mu \to 0` limit.

    L is any symmetric positive semidefinite matrix with a nonsingular block on the unlabeled rows of
    each component: the Laplacian of :func:`tikhonov_solution`, or :math:`r(L) = 1/\varphi(L)` of the
    "sparse" path of :func:`graph_kernel_ridge` (whose :math:`\mu \to 0` limit extends the labels by
    :math:`r(L)_{UU} H_U = -r(L)_{US} B_S` in the same way).

    A relative residual ``tol`` bounds the error of H only to :math:`\mathrm{cond}(A)` times it, and
    for small :math:`\mu` the unlabeled rows (:math:`\mu L`) weigh nothing in the residual against the
    labeled ones (J): on a 6000-node kNN graph with 20 labels the AMG solve at tol 1e-8 left F 3.5e-3
    off at :math:`\mu = 10^{-6}` (5e-2 without a preconditioner), against 2e-7 for the harmonic
    solution it tends to.  So when the iterative solvers run and ``scale`` (:math:`\mu` times L's
    largest entry) is below 1, the solve starts from that limit, the harmonic extension
    :math:`H_0` of :math:`B_S` (:math:`L_{UU} H_{0U} = -L_{US} B_S`, as :func:`harmonic_solution`
    solves it), and solves for the rest: :math:`A G = B - A H_0 = -\mu L H_0`, an O(mu) right-hand
    side, so the residual bound tol :math:`\|B - A H_0\|` holds on the unlabeled rows too.  Columns
    whose start residual is not below :math:`\|B\|` start from 0 as before.  The direct solve (``"auto"``
    up to ``DIRECT_MAX_NODES`` unknowns) is accurate to rounding and runs as it did.
    ``recomputed``: as for :func:`_solve_spd`, the caller's exact recomputation of H's part along z.
    ``degrees``: as for :func:`_solve_spd` (a normalized L: the graph degrees of the rows).
    """
    n = A.shape[0]
    direct = _solves_directly(preconditioner, n)
    free = np.ones(n, dtype=bool)
    free[labeled_rows] = False
    if direct:
        try:
            return _solve_spd(A, B, preconditioner, tol, max_iter, backend, recomputed=recomputed, degrees=degrees)
        except np.linalg.LinAlgError:
            if scale * np.finfo(np.float64).eps < 1e-3:
                raise
            # mu L's entries beyond 1 / eps times J's: J + mu L is singular to working precision (its LU found
            # an exact zero pivot on a unit-weight path at mu = 1e16), while the system for H is consistent (B
            # is orthogonal to L's null space, handled exactly by the caller): CG stays in the range of L
            # (logged, not warned: the answer is as accurate; only the path differs from what "auto" said)
            logger.info("the direct solve of J + mu L found it singular to working precision (mu times L's "
                        "largest entry is %.1e, beyond 1/eps); solved by AMG-preconditioned CG instead.", scale)
            return _solve_spd(A, B, "amg", tol, max_iter, backend, recomputed=recomputed, degrees=degrees)
    if scale >= 1.0 or not free.any():
        return _solve_spd(A, B, preconditioner, tol, max_iter, backend, recomputed=recomputed, degrees=degrees)
    # a prebuilt preconditioner approximates A^-1, not L_UU^-1: the harmonic start then runs with AMG
    harmonic_pc = preconditioner if isinstance(preconditioner, str) else "amg"
    H0 = np.zeros_like(B)
    H0[labeled_rows] = B[labeled_rows]
    L_F = sp.csr_array(L[free])
    # H0's own accuracy warnings stand: G corrects H0's error, but not always to tol (unpreconditioned CG at mu = 1e-6
    # on a graph of outliers: F 2e-7 off at tol 1e-8, told only by H0's forward-error warning), at the price of a
    # false alarm where G does (graph_kernel_ridge's Matern(1, 1e3) on outliers: H0 3.9e-7, F 1e-14 off)
    H0[free] = _solve_spd(sp.csr_array(L_F[:, free]), -(L_F @ H0), harmonic_pc, tol, max_iter, backend,
                          degrees=None if degrees is None else degrees[free])
    R = B - A @ H0
    use = np.linalg.norm(R, axis=0) < np.linalg.norm(B, axis=0)
    H0[:, ~use] = 0.0
    R[:, ~use] = B[:, ~use]
    # the columns started from H0 solve for an O(mu) correction: its relative error is not F's (an estimate of
    # 1e-2 for the correction at mu = 1e-6 with F accurate to 1e-10), so no AccuracyWarning about it in its own
    # units; offset=H0 has the final tests judge H0 + G, the answer, instead (AMG at mu = 0.1 on a graph of
    # outliers: G 13 % off, F 8.5e-3 off, and nothing said so)
    # (no column started from H0: a plain solve of A F = B, judged in its own units, with no offset -- a zero offset
    # would repeat a held forward-error warning's message)
    return H0 + _solve_spd(A, R, preconditioner, tol, max_iter, backend, warn_forward=not use.any(),
                           recomputed=recomputed, degrees=degrees, offset=H0 if use.any() else None)


# ---------------------------------------------------------------------------
# Poisson learning
# ---------------------------------------------------------------------------

def poisson_learning(W: GraphLike, labeled: Indices, Y: ArrayLike, *, class_priors: Optional[ArrayLike] = None,
                     tol: float = 1e-6, max_iter: Optional[int] = None,
                     preconditioner: Union[str, None, spla.LinearOperator] = "auto",
                     backend: str = "auto") -> np.ndarray:
    r"""Poisson learning (Calder, Cook, Thorpe & Slepcev, ICML 2020).

    Solves the graph Poisson equation with the combinatorial Laplacian
    :math:`L = D - W`

    .. math::

        L F = \sum_{j \in S} (y_j - \bar y)\, \delta_j, \qquad
        \bar y = \frac{1}{l} \sum_{j \in S} y_j, \qquad
        \sum_i d_i F_i = 0,

    then rescales column c by :math:`b_c / \bar y_c` (their Algorithm 1,
    "class-size reweighting"; :math:`b` the class priors).  Unlike Laplace
    learning, the solution does not degenerate to a constant at very low
    label rates.

    The system is singular but consistent (the source sums to zero on each
    component): block CG from zero iterates in the range of L, then the
    solution is shifted to degree-weighted zero mean.  On a graph with
    several labeled components, each is solved with its own label mean
    (the Poisson equation has no solution otherwise), so that its scores
    are those of the component alone and do not depend on the others; a
    column with no nonzero target among a component's labels (a class not
    labeled there) is set, on that component, below all its other scores
    (their minimum less :math:`\max|y| / w_{\max}`, :math:`w_{\max}` the
    component's largest edge weight), so that a component predicts only
    the classes labeled in it -- one whose labels share a class predicts
    that class.  The scores scale as 1/c when W is multiplied by c > 0;
    the labels do not change.

    Parameters
    ----------
    W, labeled, max_iter
        As in :func:`harmonic_solution`.
    Y : ndarray of shape (len(S),) or (len(S), m)
        Targets on S, one-hot class indicators for classification.
    class_priors : array of shape (m,), optional
        Class proportions :math:`b` for the reweighting (non-negative, not
        all zero; their sum does not matter; 0 only for a column without
        labeled nodes: ValueError otherwise, as in :func:`poisson_mbo`).  None uses the
        labeled proportions :math:`\bar y` (the rescaling is then the
        identity) -- the rule that never looks at unlabeled labels.
    tol : float, default=1e-6
        Relative residual of the CG stopping rule.  Class decisions are
        stable well before that (GraphLearning stops at an absolute 1e-3).
    preconditioner : {"auto", "amg", "jacobi", None} or LinearOperator, default="auto"
        As in :func:`harmonic_solution` (a prebuilt operator acts on the
        nodes of labeled components, in node order).  The direct path of
        "auto" grounds one node per component (:math:`F_r = 0`, exact because
        the source sums to zero there) to make the system nonsingular.
    backend : {"auto", "numpy", "numba", "scipy", "mpi", "dask"}, default="auto"
        Where the CG solve runs (as in :func:`harmonic_solution`): a
        distributed backend runs block CG from zero with block-Jacobi AMG (one
        hierarchy per partition; on this consistent singular system the
        constants the iterates may pick up on a component are removed by the
        zero-mean shift); the direct path of "auto" (up to 5000 nodes) is
        factorized on every process.  Results agree with the serial solve to
        ``tol``.

    Returns
    -------
    F : ndarray of shape (n,) or (n, m)
        Scores (argmax over columns is the class).  Nodes of label-free
        components get the mean of ``Y``.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import poisson_learning
    >>> W = np.diag(np.ones(3), 1); W = W + W.T          # path on 4 nodes
    >>> F = poisson_learning(W, [0, 3], np.eye(2))
    >>> F.argmax(axis=1)
    array([0, 0, 1, 1])
    >>> bool(np.allclose(np.array([1, 2, 2, 1]) @ F, 0))    # degree-weighted zero mean
    True
    """
    preconditioner = _check_preconditioner(preconditioner)
    tol, max_iter = _check_iterations(tol, max_iter)
    check_backend(backend)
    W, S, Y2, was_1d, out_dtype = labeled_graph_problem(W, labeled, Y, cut_weak=True)
    check_normal_degrees(W, "poisson_learning")       # scores scale by 1 / c with W: the labels do not
    n = W.shape[0]
    m = Y2.shape[1]
    if class_priors is not None:
        if np.asarray(class_priors).dtype.kind not in "fiu":     # "0.5" and True parsed as numbers
            raise TypeError(f"class_priors must be {m} real numbers (one per column of Y); got {class_priors!r}.")
        class_priors = np.asarray(class_priors, dtype=np.float64)
        if class_priors.shape != (m,) or not np.isfinite(class_priors).all() or (class_priors < 0).any():
            raise ValueError(f"class_priors must be {m} non-negative finite numbers (one per column of Y); "
                             f"got {class_priors!r}.")
        if not class_priors.any():      # every score times 0: all nodes tied
            raise ValueError("class_priors must not be all zero (they are class proportions; None: the labeled "
                             "proportions).")
        # a column with labels weighted by 0 kept its class on its labeled nodes only: refused, as by the
        # MBO solvers (the labeled nodes of column c: its nonzero entries)
        check_labeled_classes_have_priors(class_priors, np.count_nonzero(Y2, axis=0))
    # targets near 1e308: solved in units of 2^e (the source, the offsets and the label means overflowed), and
    # the scores scaled back exactly (with class_priors they do not depend on the scale of Y: only the
    # label-free components' mean of Y is scaled back)
    Y2, e = in_target_units(Y2)
    n_comp, comp = csgraph.connected_components(W, directed=False)
    F = np.zeros((n, m))
    orphan = _orphans(W, S, Y2, F)
    # Source: y_j minus the mean of the labels of j's component.
    counts = np.bincount(comp[S], minlength=n_comp).astype(np.float64)
    comp_sum = np.zeros((n_comp, m))
    np.add.at(comp_sum, comp[S], Y2)
    comp_mean = comp_sum / np.maximum(counts, 1)[:, None]
    source = np.zeros((n, m))
    np.add.at(source, S, Y2 - comp_mean[comp[S]])
    d = np.asarray(W.sum(axis=1)).ravel()
    L = graph_laplacian(W)
    # The source sums to zero on every labeled component, so L F = source is consistent: CG started
    # at 0 stays in the range of L (orthogonal to the constants of each component) and converges at
    # the rate of the nonzero spectrum.  (Grounding a node instead would add a tiny eigenvalue.)
    idx = np.flatnonzero(~orphan)
    if idx.size:
        A = sp.csr_array(L[idx][:, idx])
        if isinstance(preconditioner, str) and preconditioner == "auto":
            preconditioner = "direct" if idx.size <= DIRECT_MAX_NODES else "amg"
        if preconditioner == "direct":
            _check_same_system(A, source[idx], tol, max_iter, "direct", backend)
            # Ground one node per labeled component: F_r = 0 there, then the system is SPD.
            sub_comp = comp[idx]
            first = np.ones(idx.size, dtype=bool)
            order = np.argsort(sub_comp, kind="stable")
            first[order[1:]] = sub_comp[order][1:] != sub_comp[order][:-1]
            free = ~first
            free[order[0]] = False
            sol = np.zeros((idx.size, m))
            sol[free] = _direct_solve(sp.csr_array(A[free][:, free]), source[idx][free], tol)
            F[idx] = sol
            preconditioner = None
        else:
            F[idx] = _poisson_iterative(A, source[idx], comp[idx], n_comp, preconditioner, tol, max_iter, backend)
    # Degree-weighted zero mean on each labeled component.
    vol = np.bincount(comp, weights=d, minlength=n_comp)
    wsum = np.zeros((n_comp, m))
    np.add.at(wsum, comp, d[:, None] * F)
    shift = wsum / np.where(vol > 0, vol, 1.0)[:, None]
    F -= shift[comp]
    if class_priors is not None:
        ybar = Y2.mean(axis=0)
        F *= class_priors / np.where(ybar != 0, ybar, 1.0)
    if n_comp > 1:
        absent_classes_below(F, W, S, Y2, comp, n_comp, orphan)
    if class_priors is not None:
        F[orphan] = from_target_units(Y2.mean(axis=0), e)
    else:
        F[orphan] = Y2.mean(axis=0)
        F = from_target_units(F, e)
    return _finish(F, was_1d, out_dtype)


def _poisson_iterative(A, B, comp, n_comp, preconditioner, tol, max_iter, backend):
    r"""The iterative solve of Poisson learning's singular system :math:`L F = B` on the labeled components (``comp``:
    each row's component), after eliminating its weak leaves (:func:`_weak_leaves`)."""
    reduced = _weak_leaves(A)
    if reduced is not None:
        keep, A_keep, to_reduced, back = reduced
        return back(_poisson_iterative(A_keep, to_reduced(B), comp[keep], n_comp, preconditioner, tol, max_iter,
                                       backend), B)
    null_components = np.unique(comp, return_inverse=True)[1]
    if isinstance(preconditioner, str) and preconditioner == "amg" and not is_distributed(resolve_backend(backend)):
        # serial AMG projected onto the range of L (a distributed backend builds its own block-Jacobi AMG), with the
        # refinement and correction test of every graph solve
        M = _range_projected(amg_preconditioner(A), comp, n_comp)
        return _solve_spd(A, B, "amg", tol, max_iter, "numpy", null_components=null_components, amg=M)
    return _solve_spd(A, B, preconditioner, tol, max_iter, backend, null_components=null_components)


def _weak_leaves(A):
    r"""The Schur complement of a Laplacian system on its weak leaves, or None when it has none.

    A weak leaf is a node i whose every edge is below float64's resolution of the neighbour's degree,
    :math:`w_{ij} \le \epsilon\, d_j` (an outlier of a Gaussian-weighted graph: degree 1.4e-32 next to
    degrees near 7), none of whose neighbours is one.  Its equation :math:`d_i F_i - \sum_j w_{ij} F_j = b_i` fixes
    :math:`F_i = (b_i + \sum_j w_{ij} F_j) / d_i` exactly, but in the whole system it adds an eigenvalue
    near :math:`d_i`, below the rounding of the others: CG (any preconditioner) left such a node's Poisson
    potential at 2e14 where its neighbours' weighted mean is 0.1, and the AMG V-cycle broke down.  Eliminated,
    the rest solves :math:`(L_{RR} - W_{wR}^T D_w^{-1} W_{wR}) F_R = b_R + W_{wR}^T D_w^{-1} b_w` (star-mesh
    elimination: again a Laplacian, same components, same null space) and each leaf is then its neighbours'
    weighted mean plus its source over its degree.

    Returns ``(keep, A_keep, to_reduced, back)``: the kept rows, their system, the map of a right-hand side B
    to the reduced one, and ``back(X_keep, B)`` -> the solution on every row.
    """
    A = sp.csr_array(A)
    d = A.diagonal()
    if not d.size or not np.all(d > 0):
        return None
    Wt = sp.csr_array(-(A - sp.diags_array(d)))               # the edge weights, w_ij >= 0
    Wt.eliminate_zeros()
    if not Wt.nnz:
        return None
    rows = np.repeat(np.arange(d.size), np.diff(Wt.indptr))
    rel = np.zeros(d.size)
    np.maximum.at(rel, rows, np.abs(Wt.data) / d[Wt.indices])  # max_j |w_ij| / d_j per row
    weak = (rel <= np.finfo(np.float64).eps) & (np.diff(Wt.indptr) > 0)
    if weak.any():
        weak &= (abs(Wt) @ weak.astype(np.float64)) == 0      # no weak neighbour: its neighbours' values are solved for
    if not weak.any():
        return None
    keep = ~weak
    W_wk = sp.csr_array(Wt[weak][:, keep])                     # (leaves, kept)
    inv_dw = 1.0 / d[weak]
    A_keep = sp.csr_array(A[keep][:, keep] - W_wk.T @ sp.diags_array(inv_dw) @ W_wk)

    def to_reduced(B):
        B = np.asarray(B, dtype=np.float64)
        return B[keep] + W_wk.T @ (inv_dw.reshape((-1,) + (1,) * (B.ndim - 1)) * B[weak])

    def back(X_keep, B):
        B = np.asarray(B, dtype=np.float64)
        X = np.empty(B.shape)
        X[keep] = X_keep
        X[weak] = inv_dw.reshape((-1,) + (1,) * (B.ndim - 1)) * (B[weak] + W_wk @ X_keep)
        return X

    return keep, A_keep, to_reduced, back


# ---------------------------------------------------------------------------
# Graph kernel ridge (Pena 2017)
# ---------------------------------------------------------------------------

def _annihilates_constants(L, dtype):
    r"""Whether the Laplacian L (float64 CSR, stored in ``dtype``) is combinatorial: :math:`L 1 = 0` to the
    rounding of its storage, row by row :math:`|(L 1)_i| \le 4\,\epsilon\,\mathrm{nnz}_i \sum_j |L_{ij}|`
    (a row sum of nnz_i rounded entries), or within 1e-12 of L's largest entry.

    The tolerance follows ``dtype``: a float32 combinatorial Laplacian leaves :math:`L 1` at ~1e-7 of its
    entries, which the fixed 1e-12 read as "not combinatorial" (no null-space correction on the "sparse"
    path of :func:`graph_kernel_ridge`)."""
    n = L.shape[0]
    if n == 0:
        return False
    eps = float(np.finfo(float_dtype(dtype)).eps)
    absL = abs(L)
    rowabs = absL @ np.ones(n)
    scale = float(absL.data.max()) if L.nnz else 0.0
    off = np.abs(L @ np.ones(n))
    return bool(np.all(off <= np.maximum(4 * eps * np.diff(L.indptr) * rowabs, 1e-12 * scale)))


def _kernel_setup(W, kernel, laplacian_kind):
    """(L, phi, GraphKernel or None, z) for a graph + response, or a prebuilt GraphKernel.

    z spans the null space of L on each component (1 for the combinatorial Laplacian, d^(1/2) for the
    normalized one); None for a prebuilt kernel whose Laplacian does not annihilate the constants
    (its degrees are not known: the "sparse" path computes z from L, :func:`_normalized_null_vector`)."""
    if isinstance(W, GraphKernel):
        phi = getattr(W, "phi", kernel)
        L = sp.csr_array(W.L, dtype=np.float64)
        return L, phi, W, (np.ones(L.shape[0]) if _annihilates_constants(L, W.L.dtype) else None)
    if kernel is None or not callable(kernel):
        raise TypeError("kernel must be a spectral response from graphrkhs.filters (a callable on "
                        f"eigenvalues, e.g. filters.RegularizedLaplacian(10.0)); got {kernel!r}.")
    check_option(laplacian_kind, "laplacian", ("combinatorial", "normalized"))
    Wa = as_adjacency(W)
    L = graph_laplacian(Wa, laplacian_kind, dtype=np.float64)
    z = np.ones(L.shape[0]) if laplacian_kind == "combinatorial" else \
        np.sqrt(np.asarray(Wa.sum(axis=1), dtype=np.float64).ravel())
    return L, kernel, None, z


def _normalized_null_vector(L, comp):
    r"""z > 0 with :math:`L z = 0` on each component for a normalized Laplacian given without its graph.

    :math:`L = I - D^{-1/2} W D^{-1/2}` has null vectors :math:`d^{1/2}` (one per component), which a
    prebuilt :class:`~graphrkhs.GraphKernel` does not know (only L).  Up to one scale per component (which
    :func:`_null_space_corrected` does not see) they solve the grounded system: :math:`z_r = 1` at one node r
    of each component and :math:`L_{FF} z_F = -L_{F r}` on the others (SPD), by the sparse direct solve up
    to ``DIRECT_MAX_NODES`` nodes (residual at the rounding of L, like :math:`d^{1/2}` computed from W) and
    AMG CG to 1e-13 above.  Isolated nodes (zero rows) get 0, as :math:`d^{1/2}` does.  None when L's
    diagonal is not that of a normalized Laplacian (ones, zeros for isolated nodes)."""
    n = L.shape[0]
    diag = L.diagonal()
    if not np.all((np.abs(diag - 1.0) <= 1e-10) | (np.abs(diag) <= 1e-10)):
        return None
    z = np.zeros(n)
    roots = np.unique(comp, return_index=True)[1]
    z[roots] = 1.0
    free = np.ones(n, dtype=bool)
    free[roots] = False
    free &= np.abs(diag) > 1e-10
    if free.any():
        Lf = sp.csr_array(L[free])
        z[free] = _solve_spd(sp.csr_array(Lf[:, free]), -(Lf @ z), "auto", 1e-13, None, "numpy")
    z[np.abs(diag) <= 1e-10] = 0.0
    return z


# A prebuilt normalized-Laplacian GraphKernel's null vector (one grounded solve of its L, 79 % of a
# 20000-node graph_kernel_ridge(method="sparse") call), kept per kernel: kernel -> (its L, z).  The kernel's
# L object is part of the key (a kernel given a new L recomputes it); the entry goes with the kernel.
_NULL_VECTORS = weakref.WeakKeyDictionary()


def _prebuilt_null_vector(kernel, L, comp):
    """:func:`_normalized_null_vector` of a prebuilt GraphKernel's L (``L``, its float64 copy, with components
    ``comp``), computed once per kernel and Laplacian object: a function of L alone, so the same bits."""
    hit = _NULL_VECTORS.get(kernel)
    if hit is not None and hit[0] is kernel.L:
        return hit[1]
    z = _normalized_null_vector(L, comp)
    if z is not None:
        z.flags.writeable = False
    _NULL_VECTORS[kernel] = (kernel.L, z)
    return z


def _poly_matrix(L, coef):
    """Sparse :math:`\\sum_k c_k L^k` (Horner)."""
    n = L.shape[0]
    eye = sp.eye_array(n, format="csr")
    R = coef[-1] * eye
    for c in coef[-2::-1]:
        R = sp.csr_array(R @ L) + c * eye
    return sp.csr_array(R)


def graph_kernel_ridge(W: Union[GraphLike, GraphKernel], labeled: Indices, Y: ArrayLike,
                       kernel: Optional[Callable] = None, *, alpha: float = 1e-3, method: str = "auto",
                       laplacian: str = "normalized", order: Optional[int] = None, filter_tol: float = 1e-8,
                       tol: float = 1e-8, max_iter: Optional[int] = None,
                       preconditioner: Union[str, None, spla.LinearOperator] = "auto",
                       return_coef: bool = False,
                       backend: str = "auto",
                       _warn_label_free: bool = True) -> Union[np.ndarray, Tuple[np.ndarray, Optional[np.ndarray]]]:
    r"""Kernel ridge regression in the graph RKHS :math:`\mathcal H_\varphi` (Pena 2017).

    .. math::

        f = \arg\min_{f \in \mathcal H_\varphi} \sum_{j \in S} (y_j - f_j)^2
            + \mu \|f\|_{\mathcal H_\varphi}^2,
        \qquad \|f\|_{\mathcal H_\varphi}^2 = \sum_l \hat f(l)^2 / \varphi(\lambda_l),

    with :math:`\mu` = ``alpha``.  By the representer theorem (Pena's slides,
    "A representer theorem", step 4)
    :math:`f = \Phi_{:,S}\,\beta`, :math:`\beta = (\Phi_{SS} + \mu I)^{-1} y_S`,
    :math:`\Phi = \varphi(L)`.  Three equivalent ways to compute it:

    * ``"direct"``: form :math:`\Phi_{:,S}` (one Chebyshev pass on l columns)
      and Cholesky-factor :math:`\Phi_{SS} + \mu I`;
    * ``"cg"``: matrix-free CG on :math:`\Phi_{SS} + \mu I`, each product one
      Chebyshev pass on the whole graph (memory O(n m), any l);
    * ``"sparse"``: the full-space system
      :math:`(J + \mu\, r(L)) f = J y` with :math:`r = 1/\varphi` a polynomial
      (``kernel.inverse_polynomial()``, e.g. ``RegularizedLaplacian``:
      :math:`J + \mu (I + a L)`), sparse SPD, AMG-preconditioned CG.

    Parameters
    ----------
    W : graph or GraphKernel
        A graph in any form :func:`~graphrkhs.as_adjacency` accepts, or a
        prebuilt :class:`~graphrkhs.GraphKernel` (reused, e.g. across a grid of
        ``alpha``; then ``kernel`` and ``laplacian`` are ignored, and "direct"
        and "cg" solve with that :math:`\Phi` as built -- its order, damping,
        ``lmax`` and method; "sparse" with the exact polynomial
        :math:`1/\varphi` of its response, and for a normalized Laplacian
        with its null vectors :math:`d^{1/2}` recovered from L by one grounded
        sparse solve, since the kernel does not keep the degrees).
    labeled : array of int or bool mask
        The labeled nodes S.
    Y : ndarray of shape (len(S),) or (len(S), m)
        Targets on S.
    kernel : filter from :mod:`graphrkhs.filters`, optional
        The response :math:`\varphi`, positive on the spectrum; None:
        :func:`graphrkhs.filters.default_kernel` (``Matern(2, 10.0)``), the
        estimators' default too.
    alpha : float > 0, default=1e-3
        The ridge weight :math:`\mu`; small because the labels of graph
        benchmarks are clean (choose it by :func:`graph_kernel_ridge_loo`).
    method : {"auto", "direct", "cg", "sparse"}, default="auto"
        "auto": "sparse" when :math:`1/\varphi` is a polynomial of degree
        <= 2, else "direct" when ``l <= DIRECT_MAX_LABELED`` (2000: an n x l
        block and an l x l Cholesky), else "cg".
    laplacian : {"normalized", "combinatorial"}, default="normalized"
        Laplacian kind; the normalized one has its spectrum in [0, 2], so
        one kernel scale suits graphs of any degree (the default of
        :class:`~graphrkhs.GraphKernel` as well).
    order, filter_tol
        Chebyshev degree (None: chosen to reach ``filter_tol``) and its tolerance.
    tol, max_iter
        CG stopping rule of the "cg" and "sparse" paths (relative residual).
    preconditioner : {"auto", "amg", "jacobi", None}, default="auto"
        Solver of the "sparse" path's system, as in :func:`harmonic_solution`.
    return_coef : bool, default=False
        Also return :math:`\beta` (None for "sparse", which never forms it).
    backend : {"auto", "numpy", "numba", "scipy", "mpi", "dask"}, default="auto"
        Where the products and solves run (see :func:`harmonic_solution`):
        the Chebyshev passes of "direct" and "cg" on the kernel's distributed
        operator, the "sparse" system by distributed block CG.  Ignored for a
        prebuilt ``GraphKernel`` (it has its own).

    Returns
    -------
    F : ndarray of shape (n,) or (n, m)
        :math:`\Phi_{:,S}\,\beta`, except on the nodes of connected components without any
        labeled node, where that is 0: they get the mean of ``Y`` (the class prior for one-hot
        targets), with a :class:`~graphrkhs.GraphWarning`, as in :func:`harmonic_solution`.
    beta : ndarray of shape (l,) or (l, m), only with ``return_coef``.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import graph_kernel_ridge, filters
    >>> W = np.diag(np.ones(5), 1); W = W + W.T          # path on 6 nodes
    >>> Y = np.array([0.0, 1.0])
    >>> F1 = graph_kernel_ridge(W, [0, 5], Y, filters.RegularizedLaplacian(2.0), method="direct")
    >>> F2 = graph_kernel_ridge(W, [0, 5], Y, filters.RegularizedLaplacian(2.0), method="sparse")
    >>> bool(np.allclose(F1, F2, atol=1e-6))
    True
    """
    check_flag(return_coef, "return_coef")
    check_option(method, "method", RIDGE_METHODS)
    check_backend(backend)
    alpha = check_scalar(alpha, "alpha", low=0, low_inclusive=False)
    # checked here, whichever path runs: the "sparse" path never builds the Chebyshev filter that checks them
    order = check_scalar(order, "order", kind="int", low=0, allow_none=True)
    filter_tol = check_scalar(filter_tol, "filter_tol", low=0, low_inclusive=False)
    preconditioner = _check_preconditioner(preconditioner)
    tol, max_iter = _check_iterations(tol, max_iter)
    L, phi, K, z = _kernel_setup(W, kernel if kernel is not None else default_kernel(), laplacian)
    n = L.shape[0]
    S = _check_labeled_index(labeled, n)
    Y2, was_1d, out_dtype = _check_targets(Y, S.size, n)
    Y2, e = in_target_units(Y2)         # targets near 1e308: solved in units of 2^e, exactly scaled back
    m = Y2.shape[1]
    poly = None
    if method in ("auto", "sparse"):
        inv = getattr(phi, "inverse_polynomial", None)
        poly = inv() if inv is not None else None
        if method == "sparse" and poly is None:
            raise ValueError(f"method='sparse' needs a response whose inverse 1/phi is a polynomial in lambda "
                             f"(e.g. filters.RegularizedLaplacian); {phi!r} has none. Use 'direct' or 'cg'.")
    if method == "auto":
        if poly is not None and len(poly) <= 3:
            method = "sparse"
        else:
            method = "direct" if S.size <= DIRECT_MAX_LABELED else "cg"
    if method == "cg" and K is None:
        K = GraphKernel(L, phi, order=order, tol=filter_tol, input="laplacian", backend=backend)
    Wg = sp.csr_array(-L)  # off-diagonal pattern: the graph's edges
    Wg.setdiag(0)
    Wg.eliminate_zeros()
    F = np.empty((n, m))
    # _warn_label_free=False (private): a solve inside a model selection (the matrix-free LOO), which uses only
    # beta; the fit at the chosen alpha reports the label-free components, once
    orphan = _orphans(Wg, S, Y2, F, report=_warn_label_free)
    beta = None
    if method == "sparse":
        coef = np.asarray(poly, dtype=np.float64)
        keep = np.flatnonzero(~orphan)
        pos = np.full(n, -1, dtype=np.int64)
        pos[keep] = np.arange(keep.size)
        R = _poly_matrix(L, coef)
        Rk = sp.csr_array(R[keep][:, keep])
        A = Rk * alpha
        jd = np.zeros(keep.size)
        jd[pos[S]] = 1.0
        A = sp.csr_array(A + sp.diags_array(jd))
        B = np.zeros((keep.size, m))
        B[pos[S]] = Y2
        # from the alpha -> 0 limit when alpha R is small against J (see _solve_tikhonov_rest): from zero
        # the AMG solve left F 6.2e-5 off at the default alpha = 1e-3 (6000-node kNN graph, tol 1e-8)
        largest = float(abs(Rk).max()) if Rk.nnz else 0.0
        n_comp, comp = csgraph.connected_components(Wg, directed=False)
        if z is None:      # a prebuilt kernel of a normalized Laplacian: its null vectors from L itself, once
            z = _prebuilt_null_vector(K, L, comp)
        # a normalized Laplacian's degrees are z^2 (z = d^(1/2), or L's own null vector for a prebuilt kernel, up
        # to a scale per component): the correction test needs their spread, which R's diagonal hides (Matern(1,
        # 1e6) on a graph of outliers was 0.19 off without a warning, where the degrees bring it to 3.5e-7)
        normalized = z is not None and not np.all(z == 1.0)
        Fk = _solve_tikhonov_rest(A, B, Rk, pos[S], alpha * largest, preconditioner, tol, max_iter, backend,
                                  recomputed=None if z is None else (z[keep], comp[keep]),
                                  degrees=z[keep] ** 2 if normalized else None)
        if z is not None:
            # r(L) z = c_0 z: F's part along z is recomputed exactly (see _null_space_corrected); with a
            # large response weight, RegularizedLaplacian(1e10), the solve left it wrong by 3 % of F's
            # informative part (by 76-97 times it at mu = 1 for a prebuilt normalized kernel, before its
            # z was computed)
            ck = comp[keep]
            Fk = _null_space_corrected(Fk, z[keep], ck, n_comp, jd + alpha * coef[0],
                                       _comp_sums(ck, n_comp, z[keep, None] * B))
        F[keep] = Fk
    elif method == "direct":
        # Phi[:, S]: of the prebuilt kernel when one was passed (its own order, damping, lmax and method)
        C = K.columns(S) if K is not None else graph_kernel_columns(L, phi, S, order=order, tol=filter_tol,
                                                                     backend=backend)
        G = C[S] + alpha * np.eye(S.size)
        G = (G + G.T) / 2
        beta = cho_solve(cho_factor(G), Y2)
        check_solution(G, beta, Y2, tol, "the kernel ridge system Phi_SS + alpha I",
                       "increase alpha or lower filter_tol (the Chebyshev kernel is not positive definite "
                       "to its accuracy).")
        F_all = C @ beta
        F[~orphan] = F_all[~orphan]
    else:
        def apply_SS(V):
            X = np.zeros((n, V.shape[1] if V.ndim == 2 else 1))
            X[S] = V.reshape(S.size, -1)
            out = np.asarray(K.matmat(X))[S] + alpha * V.reshape(S.size, -1)
            return out if V.ndim == 2 else out[:, 0]

        op = spla.LinearOperator((S.size, S.size), matvec=apply_SS, matmat=apply_SS, dtype=np.float64)
        beta = conjugate_gradient(op, Y2, tol=tol, max_iter=max_iter).x
        X = np.zeros((n, m))
        X[S] = beta
        F_all = np.asarray(K.matmat(X))
        F[~orphan] = F_all[~orphan]
    F = _finish(from_target_units(F, e), was_1d, out_dtype)
    if return_coef:
        if beta is not None:
            beta = from_target_units(beta, e)
        if beta is not None and was_1d:
            beta = beta[:, 0]
        return F, beta
    return F


def graph_kernel_ridge_loo(K_SS: ArrayLike, Y: ArrayLike, alphas: ArrayLike) -> np.ndarray:
    r"""Exact leave-one-out residuals of kernel ridge over a grid of ``alpha``.

    For :math:`\beta = (K + \mu I)^{-1} y` the fit on S is
    :math:`\hat y = y - \mu \beta` and the hat matrix is
    :math:`H = K (K + \mu I)^{-1}`, so the leave-one-out residual is
    (Allen 1974; Rifkin & Lippert 2007)

    .. math::

        y_i - \hat y_{-i}(x_i) = \frac{y_i - \hat y_i}{1 - H_{ii}}
        = \frac{\beta_i}{[(K + \mu I)^{-1}]_{ii}} .

    One eigendecomposition of :math:`K = \Phi_{SS}` serves every ``alpha``: a
    thin wrapper of the leave-one-out engine (:class:`~graphrkhs.KernelRidgePath`,
    whose ``gcv`` gives generalized cross-validation on the same path).

    Parameters
    ----------
    K_SS : ndarray of shape (l, l)
        The kernel on the labeled nodes, symmetric positive (semi)definite
        (symmetric to ``1e-6`` of its largest entry, else ``ValueError``).
    Y : ndarray of shape (l,) or (l, m)
    alphas : array of float > 0

    Returns
    -------
    residuals : ndarray of shape (len(alphas), l, m)
        Leave-one-out residuals :math:`y_i - \hat y_{-i}(x_i)`; the
        leave-one-out predictions are ``Y - residuals``.  ``inf`` where the
        leave-one-out fit is undefined: a label the smoother interpolates,
        or one whose :math:`1 - H_{ii}` is decided by eigenvalues of K at its
        rounding level (a singular K and a ridge below about
        :math:`l \epsilon \max_i s_i`), where the float64 answer would be
        the rounding's, not the kernel's.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import graph_kernel_ridge_loo
    >>> K = np.array([[2.0, 1.0], [1.0, 2.0]])
    >>> R = graph_kernel_ridge_loo(K, np.array([1.0, 0.0]), [1.0])
    >>> R[0, :, 0].round(6)          # without node 1, node 1 is predicted K_10 * 1 / (K_00 + 1) = 1/3
    array([ 1.      , -0.333333])
    """
    K_SS = check_matrix(K_SS, "K_SS", square=True, dtype=np.float64)
    # the path reads (K + K^T) / 2: an asymmetry beyond a kernel's rounding means another matrix was passed
    check_symmetric_kernel(K_SS, "K_SS", "pass the kernel on the labeled nodes, Phi[S][:, S].")
    Y2, _, _ = _check_targets(Y, K_SS.shape[0])
    alphas = check_ridges(alphas, "alphas")
    return KernelRidgePath(K_SS).loo_residuals(Y2, alphas)


def graph_kernel_columns(L: MatrixLike, phi: Callable, cols: Indices, *, order: Optional[int] = None,
                         tol: float = 1e-8, backend: str = "auto") -> np.ndarray:
    r"""The columns :math:`\Phi_{:, cols}` of the graph kernel :math:`\Phi = \varphi(L)`, as an (n, len(cols)) array.

    One Chebyshev pass on the unit vectors :math:`e_i, i \in` ``cols``
    (:meth:`graphrkhs.GraphKernel.columns`; the indicators are never formed
    densely).  :math:`\Phi_{SS}` = ``graph_kernel_columns(L, phi, S)[S]`` is
    what the leave-one-out engine needs (:func:`graph_kernel_ridge_loo`).

    Parameters
    ----------
    L : sparse matrix or ndarray of shape (n, n)
        A symmetric Laplacian.
    phi : filter from :mod:`graphrkhs.filters`
    cols : array of int
        Node indices.
    order : int, optional
        Chebyshev degree (None: the lowest reaching ``tol``).
    tol : float, default=1e-8
        Relative accuracy of the Chebyshev approximation.
    backend : {"auto", "numpy", "numba", "scipy", "mpi", "dask"}, default="auto"
        Where the Chebyshev pass runs (see :class:`~graphrkhs.GraphKernel`).

    Returns
    -------
    ndarray of shape (n, len(cols)), float64

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import exact_filter, filters, graph_kernel_columns, laplacian
    >>> W = np.diag(np.ones(7), 1); W = W + W.T                # path on 8 nodes
    >>> L = laplacian(W, "normalized")
    >>> C = graph_kernel_columns(L, filters.Heat(1.0), [0, 3])
    >>> bool(np.allclose(C, exact_filter(L, filters.Heat(1.0), np.eye(8)[:, [0, 3]]), atol=1e-8))
    True
    """
    L = sp.csr_array(check_matrix(L, "L", square=True, allow_sparse=True, dtype=np.float64))
    n = L.shape[0]
    cols = np.asarray(cols)
    if cols.size == 0:
        cols = cols.astype(np.int64)
    if cols.ndim != 1 or cols.dtype.kind not in "iu":
        raise TypeError(f"cols must be a 1-D array of integer node indices; got dtype {cols.dtype}, "
                        f"shape {cols.shape}.")
    if cols.size and (cols.min() < 0 or cols.max() >= n):
        bad = int(cols.min() if cols.min() < 0 else cols.max())
        raise ValueError(f"cols holds the node index {bad}, outside [0, {n}) for a graph of {n} nodes.")
    cols = cols.astype(np.int64, copy=False)
    memory_guard(8.0 * n * cols.size, f"Phi[:, S] for {cols.size} labeled nodes", "use method='cg'.")
    K = GraphKernel(L, phi, order=order, tol=tol, input="laplacian", backend=backend)
    return np.asarray(K.columns(cols), dtype=np.float64)


# Old private name (the estimators used it before graph_kernel_columns was public).
_kernel_columns = graph_kernel_columns
