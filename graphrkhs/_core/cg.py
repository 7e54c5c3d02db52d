r"""Iterative building blocks: multi-column conjugate gradients with a
convergence check, and a reusable algebraic-multigrid preconditioner.

Conjugate gradients here run on all right-hand sides at once (one sparse
matrix-matrix product per iteration for, say, all one-hot class columns),
each column with its own step lengths and stopping test.  That is the same
arithmetic as running :func:`scipy.sparse.linalg.cg` column by column, but
the product ``A @ P`` on an (n, m) block reads the matrix once instead of m
times.
"""

import math
from typing import Callable, Optional, Union

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from scipy.linalg import eigvalsh_tridiagonal

from .amg import SmoothedAggregationPreconditioner, check_smoother_degree
from .linalg import operator_matmat, rounding_floor, symmetry_gap, symmetry_rtol
from .types import ArrayLike, OperatorLike
from .progress import progress_bar
from .validation import (AccuracyWarning, ConvergenceWarning, check_finite_array, check_matrix, check_numeric_dtype,
                         check_scalar, warn)

__all__ = ["conjugate_gradient", "amg_preconditioner", "CGResult"]


class CGResult:
    r"""Outcome of :func:`conjugate_gradient`.

    Attributes
    ----------
    x : ndarray of shape (n,) or (n, m)
        The solution block: a column that did not converge is its last
        iterate, the one of least error in the (preconditioned) energy norm
        :math:`\|x - x^*\|_A` -- CG lowers that error at every step
        (Hestenes & Stiefel 1952) while its residual can rise above the
        start's on ill-conditioned systems, so no earlier iterate is closer.
    converged : ndarray of bool, shape (m,)
        Whether each column reached ``tol``.
    n_iter : int
        Iterations run.
    residual_norms : ndarray of shape (m,)
        Final relative residual norms :math:`\|b - A x\| / \|b\|` (recomputed
        explicitly, not the recursively updated estimate).
    error_estimates : ndarray of shape (m,) or None
        With ``forward_tol``: each column's estimated relative forward error
        :math:`\|b - A x\| / (\theta_{min} \|x\|)`, :math:`\theta_{min}` the
        smallest Ritz value of the iteration (NaN where CG ran no step).
        None otherwise.
    attainable : ndarray of shape (m,) or None
        With ``forward_tol``: the relative forward error the working
        precision allows on this system, :math:`10\,\epsilon\,
        \theta_{max} / \theta_{min}` (the Ritz estimate of
        :math:`10\,\epsilon\,\mathrm{cond}(A)`, which no backward-stable
        solver beats).  None otherwise.
    """

    def __init__(self, x, converged, n_iter, residual_norms, error_estimates=None, attainable=None):
        self.x = x
        self.converged = converged
        self.n_iter = n_iter
        self.residual_norms = residual_norms
        self.error_estimates = error_estimates
        self.attainable = attainable

    def __repr__(self):
        return (f"CGResult(converged={bool(self.converged.all())}, n_iter={self.n_iter}, "
                f"max_residual={self.residual_norms.max() if self.residual_norms.size else 0:.2e})")


ON_FAILURE = ("warn", "raise", "ignore")


def check_on_failure(on_failure: str) -> str:
    """Validate an ``on_failure`` argument (one of :data:`ON_FAILURE`)."""
    if on_failure not in ON_FAILURE:
        raise ValueError(f"on_failure must be 'warn', 'raise' or 'ignore'; got {on_failure!r}.")
    return on_failure


def report_failure(message: str, on_failure: str) -> None:
    """Act on a solver that missed its tolerance: warn (ConvergenceWarning), raise RuntimeError, or ignore.

    The one policy of every iterative solver's ``on_failure`` argument (CG,
    kernel CG, graph TV).
    """
    if on_failure == "raise":
        raise RuntimeError(message)
    if on_failure == "warn":
        warn(message, ConvergenceWarning)


#: What to do with a matrix CG refused as not symmetric (:func:`check_cg_symmetric`, the MPI dot test).
SYMMETRY_ADVICE = ("Solve a symmetric formulation (the combinatorial or normalized Laplacian rather than the "
                   "random-walk one, a symmetrized graph, the normal equations), or use a solver for general "
                   "matrices such as scipy.sparse.linalg.gmres or scipy.sparse.linalg.spsolve.")


def check_cg_symmetric(A, name="A"):
    r"""Refuse a matrix that is not symmetric to its rounding (``ValueError`` naming ``name``), O(nnz).

    The tolerance follows A's precision (:func:`graphrkhs._core.linalg.symmetry_rtol`):
    :math:`\max |A - A^T| \le r \max |A|` with :math:`r = 10^{-5}` for float32 and :math:`10^{-10}` for
    float64 (those of the AMG set-up), :math:`10^{-2}` for a dense float16 A (taken as it is; its
    products run in float32) and :math:`10^{-10}` for integer and boolean entries.  CG minimizes the A-norm of the error
    only for a symmetric A; on another matrix it may stagnate (and then the convergence warning's
    advice is no fix) or stop anywhere.
    """
    gap, scale = symmetry_gap(A, name)
    rtol = symmetry_rtol(A.dtype)
    if gap > rtol * scale:
        raise ValueError(
            f"{name} must be symmetric for conjugate gradients: max |{name} - {name}^T| = {gap:.3g} (max |{name}| = "
            f"{scale:.3g}).  " + SYMMETRY_ADVICE)


def replace_residual(true_rel, stop, confirmed):
    r"""The residual-replacement rule of CG (serial :func:`conjugate_gradient` and the Dask CG alike).

    For columns whose recursively updated residual met its target ``stop``, with ``true_rel`` their true
    relative residuals :math:`\|b - A x\| / \|b\|` and ``confirmed`` the lowest true residual checked
    before (inf at first): returns ``(again, confirmed)``, ``again`` the columns to restart from their
    true residual (above ``stop``, and at least 10 % below every earlier check: when a restart no longer
    lowers it, ``stop`` lies below the system's attainable accuracy and the column stops) and the updated
    lowest residuals.  The recursive residual drifts from the true one on ill-conditioned systems.
    """
    true_rel, stop, confirmed = np.asarray(true_rel), np.asarray(stop), np.asarray(confirmed)
    again = (true_rel > stop) & (true_rel <= 0.9 * confirmed)
    return again, np.minimum(confirmed, true_rel)


def _as_operator(A, n, name):
    if sp.issparse(A) or isinstance(A, np.ndarray):
        if A.shape != (n, n):
            raise ValueError(f"{name} must have shape ({n}, {n}); got {A.shape}.")
        if sp.issparse(A) and A.format in ("lil", "dok"):
            A = sp.csr_array(A)      # their entries are not one flat array (.data) for the checks below
        # complex or object entries would fail inside the first product with a message naming nothing
        check_numeric_dtype(A, name)
        check_finite_array(A.data if sp.issparse(A) else A, name, "CG needs a finite matrix")
        check_cg_symmetric(A, name)
        return A
    if isinstance(A, spla.LinearOperator):
        if A.shape != (n, n):
            raise ValueError(f"{name} must have shape ({n}, {n}); got {A.shape}.")
        return A
    if callable(A):
        def block(V, _func=A):
            # a callable that returns another shape failed inside CG's first inner product ("einstein sum
            # subscripts ...", "operands could not be broadcast"), naming neither the callable nor the shapes
            out = np.asarray(_func(V))
            if out.shape != V.shape:
                raise ValueError(f"{name} must map an (n, m) block to an (n, m) block (n = {n}); {name}(V) of a "
                                 f"block of shape {V.shape} returned shape {out.shape}.")
            return out
        op = spla.LinearOperator((n, n), matvec=A, matmat=block, dtype=np.float64)
        op._graphrkhs_checked = True     # block names the callable and its shapes itself (_apply)
        return op
    raise TypeError(f"{name} must be a sparse matrix, an ndarray, a LinearOperator or a callable.")


def _apply(op, X, name):
    if isinstance(op, spla.LinearOperator) and not getattr(op, "_graphrkhs_checked", False):
        return operator_matmat(op, X, name)    # a product of the wrong shape: named, at the first product
    if isinstance(op, spla.LinearOperator):
        return op.matmat(X)
    return op @ X


class _RitzTracker:
    r"""The extreme Ritz values of each column's CG iteration, from its step lengths (the Lanczos link).

    CG's coefficients :math:`\alpha_k, \beta_k` are those of the Lanczos tridiagonal
    :math:`T_k` (diagonal :math:`1/\alpha_k + \beta_k/\alpha_{k-1}`, off-diagonal
    :math:`\sqrt{\beta_k}/\alpha_{k-1}`), whose eigenvalues approximate A's extreme ones from
    inside: :math:`\theta_{min} \ge \lambda_{min}`, converging to it as the Krylov space sees
    the lowest mode.  A restart (residual replacement) begins a new sequence; the extremes
    found by the earlier ones are kept.  All columns share A, so the extremes are pooled over the
    columns: one column's iteration may find a low mode another's has not seen yet (two columns
    on a graph with an outlier node: one found lambda_min = 1e-12, the other stopped with its
    Ritz values above 1e-3 and a solution 0.1 off).  Scalars only: no product with A.
    """

    def __init__(self, m):
        self.alphas = [[] for _ in range(m)]
        self.betas = [[] for _ in range(m)]
        self.lo = np.full(m, np.inf)          # extremes of each column's finished sequences and last look
        self.hi = np.zeros(m)

    def add(self, cols, alpha, beta=None, restart=None):
        for i, j in enumerate(cols):
            if beta is None:
                self.alphas[j].append(float(alpha[i]))
            elif restart[i]:
                self.close(j)
                self.alphas[j], self.betas[j] = [], []
            else:
                self.betas[j].append(float(beta[i]))

    def _segment(self, j):
        a = np.asarray(self.alphas[j])
        if not a.size:
            return np.inf, 0.0
        b = np.asarray(self.betas[j][:a.size - 1])
        diag = 1.0 / a
        diag[1:] += b / a[:-1]
        if a.size == 1:
            return float(diag[0]), float(diag[0])
        off = np.sqrt(b) / a[:-1]
        # bisection for the two extremes only: O(k) each
        lo = eigvalsh_tridiagonal(diag, off, select="i", select_range=(0, 0))[0]
        hi = eigvalsh_tridiagonal(diag, off, select="i", select_range=(a.size - 1, a.size - 1))[0]
        return float(lo), float(hi)

    def close(self, j):
        lo, hi = self._segment(j)
        self.lo[j], self.hi[j] = min(self.lo[j], lo), max(self.hi[j], hi)

    def extremes(self, j=None):
        """(smallest, largest) Ritz value so far, pooled over the columns, with column j's (all columns' when
        None) current sequence looked at now ((inf, 0) before the first step)."""
        for k in (range(len(self.alphas)) if j is None else [j]):
            self.close(k)
        return float(self.lo.min()), float(self.hi.max())


def conjugate_gradient(A: Union[OperatorLike, Callable[[np.ndarray], np.ndarray]], B: ArrayLike, *,
                       M: Optional[Union[OperatorLike, Callable[[np.ndarray], np.ndarray]]] = None,
                       x0: Optional[ArrayLike] = None, tol: float = 1e-8, max_iter: Optional[int] = None,
                       on_failure: str = "warn",
                       allreduce: Optional[Callable[[np.ndarray], np.ndarray]] = None,
                       forward_tol: Optional[float] = None) -> "CGResult":
    r"""Solve :math:`A X = B` for symmetric positive definite A, all columns at once.

    Parameters
    ----------
    A : sparse matrix, ndarray, LinearOperator or callable of shape (n, n)
        SPD; a callable maps an (n, m) block to an (n, m) block.  A sparse
        matrix or an array that is not symmetric (beyond
        :math:`10^{-10} \max |A_{ij}|`, :math:`10^{-5}` in float32,
        :math:`10^{-2}` in float16) is
        refused with a ``ValueError`` before iterating (use GMRES or a direct
        solver for it); an operator or a callable is not checked.
    B : ndarray of shape (n,) or (n, m)
        Right-hand sides.
    M : same kinds as ``A``, optional
        SPD preconditioner approximating :math:`A^{-1}` (for instance
        :func:`amg_preconditioner`); a matrix is checked for symmetry as ``A``.
    x0 : ndarray like ``B``, optional
        Start (warm start); zeros by default.
    tol : float in (0, 1), default=1e-8
        Stop a column when :math:`\|b - A x\| \le` ``tol`` :math:`\|b\|`
        (1 or more is refused: the zero start meets it).
    max_iter : int >= 1, optional
        Default ``10 n`` (CG converges in at most n steps in exact arithmetic).
        0 is refused (``ValueError``), as by every solver: it returned the
        start unchanged with only a warning.
    on_failure : {"warn", "raise", "ignore"}, default="warn"
        What to do when a column does not reach ``tol``: emit a
        :class:`~graphrkhs.ConvergenceWarning`, raise a ``RuntimeError``, or
        only report it in the result.
    allreduce : callable, optional
        For a row-distributed system (:mod:`graphrkhs.distributed`): ``A``,
        ``M``, ``B`` and ``x0`` are this process's rows (possibly none), and
        ``allreduce(a)`` returns the sum of the array ``a`` over all processes.
        Every inner product and norm of the iteration is a local partial sum
        passed through it, so the same code runs serially (None: the sums are
        local) and distributed; ``max_iter`` should then be given (its default
        is 10 times the global number of rows).
    forward_tol : float in (0, 1), optional
        Also bound each column's estimated relative forward error,
        :math:`\|b - A x\| / (\theta_{min} \|x\|)` with :math:`\theta_{min}`
        the smallest Ritz value of the iteration (the Lanczos estimate of
        :math:`\lambda_{min}(A)`, from CG's own step lengths): a column
        that meets ``tol`` with a larger estimate goes on iterating to a
        residual that meets it, or to the working precision's limit,
        :math:`10\,\epsilon\,\theta_{max}/\theta_{min}` (see
        ``CGResult.attainable``).  A relative residual bounds the error only
        to :math:`\mathrm{cond}(A)` times it: Laplacian systems with nodes of
        tiny degree (outliers of a Gaussian-weighted kNN graph) met tol=1e-8
        with solutions 0.4 off.  Unpreconditioned CG only (``M=None``: the
        Ritz values of a preconditioned iteration are those of :math:`MA`).
        The estimates are in ``CGResult.error_estimates``; this function does
        not warn about them (the caller knows the remedy).  None (default):
        the residual test alone.

    Returns
    -------
    CGResult

    Notes
    -----
    Each column is solved in units of a power of two (that of its largest
    entry): the iteration's squared norms neither overflow nor underflow
    for A and B anywhere in the floating-point range (entries of order
    :math:`2^{\pm 600}`), and since such a rescaling is exact the result
    is that of the unscaled system times the scale.

    The stopping test reads the recursively updated residual; a column that
    meets ``tol`` there is checked against its true residual
    :math:`b - A x` and, above ``tol``, restarted from it (residual
    replacement) for as long as each restart lowers it by 10 %.  A ``tol``
    below the system's attainable accuracy is reported with that floor,
    :math:`\epsilon \| |A| |x| \| / \|b\|`, in the warning.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import conjugate_gradient
    >>> A = np.array([[4.0, 1.0], [1.0, 3.0]])
    >>> res = conjugate_gradient(A, np.array([1.0, 2.0]))
    >>> np.allclose(A @ res.x, [1.0, 2.0]), bool(res.converged.all())
    (True, True)
    """
    # (n, 0) blocks are allowed (nothing to solve); an empty first axis is not a system
    B = check_matrix(B, "B", ndim=(1, 2), min_size=0)
    if allreduce is not None and not callable(allreduce):
        raise TypeError(f"allreduce must be a callable a -> the sum of a over the processes; got {allreduce!r}.")

    def reduce(a):
        if allreduce is None:
            return a
        total = allreduce(a)
        out = np.asarray(total, dtype=np.float64) if total is not None else None
        if out is None or out.shape != np.shape(a):
            raise ValueError(f"allreduce must return the sum of its argument over the processes, an array of the "
                             f"argument's shape {np.shape(a)}; it returned {type(total).__name__}"
                             f"{'' if out is None else ' of shape ' + str(out.shape)}.")
        return out

    def colnorm(V):
        # column norms from (globally) summed squares
        return np.sqrt(reduce(np.einsum("ij,ij->j", V, V)))

    if B.shape[0] == 0 and allreduce is None:
        raise ValueError(f"B must have shape (n,) or (n, m) with n >= 1 rows; got shape {B.shape}.")
    was_1d = B.ndim == 1
    B2 = B[:, None] if was_1d else B         # (0, m) on a process without rows: reshape(0, -1) is ambiguous
    n, m = B2.shape
    A = _as_operator(A, n, "A")
    if M is not None:
        M = _as_operator(M, n, "M")
    # in (0, 1), the solvers' rule: a relative residual >= 1 is met by the zero start (x = 0 came back
    # "converged" after 0 iterations)
    tol = check_scalar(tol, "tol", low=0, low_inclusive=False, high=1, high_inclusive=False)
    if max_iter is None:
        max_iter = 10 * int(round(float(reduce(np.array([float(n)]))[0])))   # 10 x the global size
    # an int >= 1, the solvers' rule (_check_iterations): 0 returned the start x0 with only a warning
    max_iter = check_scalar(max_iter, "max_iter", kind="int", low=1)
    check_on_failure(on_failure)
    if forward_tol is not None:
        forward_tol = check_scalar(forward_tol, "forward_tol", low=0, low_inclusive=False, high=1,
                                   high_inclusive=False)
        if M is not None:
            raise ValueError("forward_tol needs unpreconditioned CG (M=None): the Ritz values of a preconditioned "
                             "iteration estimate the spectrum of M A, not of A.")
    dtype = np.result_type(B2.dtype, np.float32)
    if x0 is not None:
        x0 = np.asarray(x0)
        # the shape itself, not the size: a transposed (m, n) start would be reshaped into scrambled columns
        if x0.shape != B.shape:
            raise ValueError(f"x0 must have the shape of B {B.shape}; got {x0.shape}.")
        check_numeric_dtype(x0, "x0")
        check_finite_array(x0, "x0", "start from finite values (or x0=None)")
    # Every column in units of a power of two, 2^e_j with e_j the exponent of max_i |B_ij| (summed over the
    # processes' rows when distributed: the same order of magnitude): the squared norms and p^T A p below
    # then neither overflow (B ~ 2^600) nor underflow to 0 (B ~ 2^-600, which read as converged at x=0).
    # Exact: a power-of-two scale commutes with rounding, so the iterates are those of the unscaled system
    # times 2^-e_j (bit for bit, barring subnormals), and x = 2^e_j x' at the end.  One pass over B per solve.
    colmax = np.abs(B2).max(axis=0, initial=0.0).astype(np.float64) if n else np.zeros(m)
    if allreduce is not None:
        # each process's maxima above 1 divided by the number of processes before they are summed (the sum is
        # then at most the largest plus the number of processes): summed as they were, two maxima of 1e308
        # overflowed to inf, no column was scaled, and distributed CG returned x = 0 after 0 iterations (a
        # serial solve is exact).  Only those above 1: a subnormal maximum divided would round to 0 (5e-324 / 2),
        # and a zero column peak made CG return x = 0 as converged
        colmax = reduce(np.where(colmax > 1.0, colmax / reduce(np.ones(1))[0], colmax))
    exps = np.frexp(np.where(np.isfinite(colmax) & (colmax > 0), colmax, 1.0))[1].astype(np.int64)
    B2 = np.ldexp(B2.astype(dtype, copy=False), -exps).astype(dtype, copy=False)
    X = np.zeros((n, m), dtype=dtype) if x0 is None else \
        np.ldexp(np.array(x0.reshape(n, m), dtype=dtype), -exps).astype(dtype, copy=False)
    bnorm = colnorm(B2)
    bnorm_safe = np.where(bnorm > 0, bnorm, 1.0)
    if x0 is not None and not bnorm.all():
        # a zero column of B has the solution 0 (the minimum-norm one for a singular A), whatever x0: from a
        # nonzero start its relative residual target tol * 0 is unreachable, and the iteration ran on until its
        # squared norms underflowed (p^T A p = 0 raised 'A is not positive definite' on an SPD A; CutSSL's warm
        # starts of a class sized 0) or to max_iter with a warning of 'relative residual 1e36'
        X[:, bnorm == 0] = 0.0
    R = B2 - _apply(A, X, "A") if x0 is not None else B2.copy()
    active = colnorm(R) > tol * bnorm
    Z = _apply(M, R, "M") if M is not None else R.copy()
    P = Z.copy()
    rz = reduce(np.einsum("ij,ij->j", R, Z))
    confirmed = np.full(m, np.inf)         # each column's lowest true residual checked (residual replacement)
    stop = np.full(m, tol)                 # each column's residual target (below tol when forward_tol asks)
    ritz = _RitzTracker(m) if forward_tol is not None else None
    eps = float(np.finfo(dtype).eps)
    it = 0
    # A counter of iterations with the worst relative residual of the unconverged columns
    # (off unless progress is on; see graphrkhs._core.progress).
    # closed however the loop ends (a FloatingPointError below, an exception or KeyboardInterrupt in a
    # product with A or M): an open tqdm bar stays on screen and pushes every later bar one line down
    with progress_bar(desc=f"CG ({m} rhs)" if m > 1 else "CG", unit="it") as bar:
        while active.any() and it < max_iter:
            cols = np.flatnonzero(active)
            # Only active columns are multiplied: converged ones stop costing work.
            Pa = P[:, cols] if cols.size < m else P
            AP = _apply(A, Pa, "A")
            pap = reduce(np.einsum("ij,ij->j", Pa, AP))
            if not np.isfinite(pap).all():
                raise FloatingPointError(
                    "conjugate_gradient: the product with A (or the preconditioner M) returned NaN or infinity; "
                    "check the operator (and M) on finite input."
                )
            if np.any(pap <= 0):
                bad = cols[pap <= 0]
                raise np.linalg.LinAlgError(
                    f"conjugate_gradient: A is not positive definite along the search direction (p^T A p <= 0 "
                    f"in column(s) {bad.tolist()[:5]}); check that the system is SPD, or, for a singular PSD A "
                    f"(a graph Laplacian), that B is consistent: orthogonal to A's null space (for a Laplacian, "
                    f"summing to 0 on every connected component).  An inconsistent B also ends here."
                )
            alpha = rz[cols] / pap
            if ritz is not None:
                ritz.add(cols, alpha)
            c = slice(None) if cols.size == m else cols   # a slice avoids fancy-index copies
            X[:, c] += Pa * alpha
            R[:, c] -= AP * alpha
            it += 1
            rr = reduce(np.einsum("ij,ij->j", R[:, c], R[:, c]))
            done = np.sqrt(rr) <= stop[cols] * bnorm[cols]
            restart = np.zeros(cols.size, dtype=bool)
            if done.any():
                # The recursive residual drifts from the true one, b - A x, on ill-conditioned systems (Jacobi
                # CG on J + mu (I + 1e10 L): 1e-8 recursive, 1.31e-8 true, and a ConvergenceWarning).  A column
                # that claims tol is checked against its true residual; above tol, that residual replaces the
                # recursive one and CG restarts along it (residual replacement) -- while each restart lowers the
                # true residual by 10 %: when it does not, tol lies below the system's attainable accuracy.
                dpos = np.flatnonzero(done)
                dc = cols[dpos]
                Rt = B2[:, dc] - _apply(A, X[:, dc], "A")
                tn = colnorm(Rt) / bnorm_safe[dc]
                again, confirmed[dc] = replace_residual(tn, stop[dc], confirmed[dc])
                if again.any():
                    R[:, dc[again]] = Rt[:, again]
                    pos = dpos[again]
                    restart[pos] = True
                    done[pos] = False
                    rr[pos] = tn[again] ** 2 * bnorm[dc[again]] ** 2
                if ritz is not None:
                    # The residual bounds the error only to cond(A) times it: a column whose estimated forward
                    # error ||r|| / (theta_min ||x||) misses max(forward_tol, what the precision allows) goes on
                    # to the residual that meets it (at least halving its target: the loop ends, at the latest
                    # when the true residual stalls above the target, as for residual replacement above)
                    xn = colnorm(X[:, dc])
                    for i in np.flatnonzero(tn <= stop[dc]):
                        j = dc[i]
                        lo, hi = ritz.extremes(j)
                        if not lo > 0:       # rounding on a singular (consistent) system: no estimate
                            continue
                        goal = max(forward_tol, 10 * eps * hi / lo)
                        if tn[i] * bnorm[j] > goal * lo * xn[i]:
                            stop[j] = min(0.5 * stop[j], goal * lo * xn[i] / bnorm_safe[j])
                            done[dpos[i]] = False
            if not bar.disable:
                # shown when the bar redraws (tqdm's mininterval); no forced redraw in the loop
                bar.set_postfix_str(f"residual {float(np.max(np.sqrt(rr) / bnorm_safe[cols])):.2e}", refresh=False)
                bar.update(1)
            active[cols[done]] = False
            cols, rr, restart = cols[~done], rr[~done], restart[~done]
            if not cols.size:
                break
            c = slice(None) if cols.size == m else cols
            Rc = R[:, c]
            Zc = _apply(M, Rc, "M") if M is not None else Rc
            # Unpreconditioned: r^T z = r^T r, already computed for the stopping test.
            rz_new = rr if M is None else reduce(np.einsum("ij,ij->j", Rc, Zc))
            beta = np.where(restart, 0.0, rz_new / rz[cols])     # a restart: the new direction is z itself
            if ritz is not None:
                ritz.add(cols, None, beta, restart)
            rz[cols] = rz_new
            P[:, c] *= beta
            P[:, c] += Zc
        if reduce(np.array([0.0 if np.isfinite(X).all() else 1.0]))[0] > 0:
            raise FloatingPointError("conjugate_gradient: the iterates overflowed to NaN or infinity; the system is "
                                     "not SPD or badly scaled (rescale A and B).")
        true_res = colnorm(B2 - _apply(A, X, "A")) / bnorm_safe
        if not bar.disable:
            bar.set_postfix_str(f"residual {float(true_res.max()) if m else 0.0:.2e}", refresh=False)
    # The recursive residual can drift below the true one; judge by the true residual,
    # with a little slack for the rounding of the final product itself.
    converged = true_res <= max(tol, 0) * 1.01 + 10 * np.finfo(dtype).eps
    estimates = attainable = None
    if ritz is not None:
        lo, hi = ritz.extremes()
        lo, hi = np.full(m, lo), np.full(m, hi)
        seen = np.isfinite(lo) & (lo > 0)
        xn = colnorm(X)
        with np.errstate(divide="ignore", invalid="ignore"):
            estimates = np.where(bnorm == 0, 0.0, np.where(
                seen, true_res * bnorm / (np.where(seen, lo, 1.0) * xn), np.nan))
            attainable = np.where(seen, 10 * eps * hi / np.where(seen, lo, 1.0), np.nan)
    X = np.ldexp(X, exps).astype(dtype, copy=False)       # back to B's units (exact)
    result = CGResult(X[:, 0] if was_1d else X, converged, it, true_res, estimates, attainable)
    if not converged.all():
        fix = "raise max_iter, loosen tol or use a preconditioner"
        if allreduce is None and (sp.issparse(A) or isinstance(A, np.ndarray)):
            # what the working precision allows: the rounding of the product A x alone, eps |A| |x| / |b|
            bad = np.flatnonzero(~converged)
            floor = rounding_floor(A, np.ldexp(X[:, bad], -exps[bad]), B2[:, bad], eps=np.finfo(dtype).eps)
            if float(floor.max()) > 0.1 * tol:
                fix = (f"the rounding of the product A x alone is {float(floor.max()):.1e} of |b| here "
                       f"(eps |A| |x| / |b|), so tol={tol:g} is at or below the attainable accuracy of this "
                       "system: loosen tol, or rescale / regularize the system")
        report_failure(f"conjugate gradients did not reach tol={tol:g} in {it} iterations for "
                       f"{int((~converged).sum())} of {m} column(s) (worst relative residual "
                       f"{true_res.max():.2e}); {fix}.", on_failure)
    return result


def amg_preconditioner(A: OperatorLike, *, degree: int = 3, ratio: float = 30.0, strength: float = 0.0,
                       max_coarse: int = 500, max_levels: int = 12) -> spla.LinearOperator:
    r"""Smoothed-aggregation AMG V-cycle as a preconditioner for block CG.

    Build it once per matrix and reuse it across right-hand sides and
    repeated solves: the set-up costs a few V-cycles' worth of sparse
    products.  The hierarchy is PyAMG's smoothed aggregation (symmetric
    strength, standard aggregation, Jacobi-smoothed prolongator with
    :math:`\omega = 4/3`); the cycle smooths with a Chebyshev polynomial of
    the Jacobi-scaled operator and applies to all columns of a block at once
    on all cores (module ``graphrkhs._multigrid``), where PyAMG's own cycle
    runs one sequential Gauss-Seidel sweep per column.

    Parameters
    ----------
    A : sparse matrix of shape (n, n)
        Symmetric positive definite, or positive semidefinite with a known
        null space handled by the caller (a graph Laplacian: the coarsest
        level is solved by a pseudo-inverse).  A matrix that cannot be
        (non-symmetric, a negative diagonal entry, or a zero diagonal entry
        in a row with off-diagonal entries: an adjacency matrix) is refused
        with a ``ValueError``.
    degree : int in [1, 20], default=3
        Degree of the Chebyshev smoother (sparse products per smoothing step).
        The smoother runs in the power basis, whose coefficients grow like
        :math:`10^{0.8 k}`: with CG to 1e-8 on a 3-D kNN graph (n = 500 and
        3000) and a 60 x 60 grid it converged up to degree 26 at ``ratio=30``,
        22 at ``ratio=1000``, 20 at ``ratio=1e6``, and not at 28 (NaN at 300),
        so degrees above 20 are refused; beyond about 10 the iteration count
        barely falls.
    ratio : float > 1, default=30
        The smoother damps the upper part :math:`[\lambda_{max}/r,
        \lambda_{max}]` of each level's Jacobi-scaled spectrum.
    strength : float in [0, 1), default=0
        Threshold of the symmetric strength of connection; 0 keeps every
        edge, the right choice for graph Laplacians.
    max_coarse : int >= 1, default=500
        Coarsening stops at this size; the coarsest level is solved densely.
    max_levels : int >= 1, default=12

    Returns
    -------
    scipy.sparse.linalg.LinearOperator
        Symmetric positive definite approximation of :math:`A^{-1}`, applied
        to (n,) or (n, m); its ``levels`` attribute holds the hierarchy.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from graphrkhs import amg_preconditioner, conjugate_gradient, knn_graph, laplacian
    >>> X = np.random.default_rng(0).random((3000, 3))
    >>> A = laplacian(knn_graph(X, 10)) + 1e-3 * sp.eye_array(3000)
    >>> M = amg_preconditioner(A, max_coarse=100)
    >>> B = np.random.default_rng(1).standard_normal((3000, 2))
    >>> pre = conjugate_gradient(A, B, M=M, tol=1e-8)
    >>> plain = conjugate_gradient(A, B, tol=1e-8)
    >>> bool(pre.converged.all()), pre.n_iter < plain.n_iter / 4
    (True, True)
    """
    if not (sp.issparse(A) or isinstance(A, np.ndarray)):
        raise TypeError(f"amg_preconditioner needs a sparse matrix or an ndarray; got {type(A).__name__}.")
    # NaN or infinity would run through the set-up and come out as a NaN preconditioner
    A = check_matrix(A, "A", square=True, allow_sparse=True)
    degree = check_smoother_degree(degree)
    ratio = check_scalar(ratio, "ratio", low=1, low_inclusive=False)
    strength = check_scalar(strength, "strength", low=0, high=1, high_inclusive=False)
    max_coarse = check_scalar(max_coarse, "max_coarse", kind="int", low=1)
    max_levels = check_scalar(max_levels, "max_levels", kind="int", low=1)
    return SmoothedAggregationPreconditioner(A, degree=degree, ratio=ratio, strength=strength,
                                             max_coarse=max_coarse, max_levels=max_levels)


def forward_checked(res, tol, warn_forward=True):
    r"""``res.x`` of an unpreconditioned CG run with ``forward_tol=tol``, with an
    :class:`~graphrkhs.AccuracyWarning` when its estimated forward error misses ``tol``, unless it is
    within what the working precision allows on the system (``res.attainable``, the Ritz estimate of
    :math:`10 \epsilon\, \mathrm{cond}(A)`) and that is at most :math:`\sqrt{tol}`: a floor above it is
    itself a warning (outlier nodes of degree 1e-16, cond ~1e15: the estimate 1.2e-2 sat below the
    floor 1.6e-2 and the solution was 7e-2 off).

    A relative residual ``tol`` bounds the error only to :math:`\mathrm{cond}(A)` times it, and the
    Laplacian systems of kNN graphs can be very badly conditioned (an outlier node of degree 4e-8 of a
    Gaussian-weighted 10-NN graph: cond(L_UU) = 4.5e8, and plain CG at tol 1e-8 left the harmonic
    solution 0.47 off).  CG goes on until its Lanczos estimate of the error,
    :math:`\|r\| / (\theta_{min} \|x\|)`, meets tol (or the precision's limit); when it
    cannot (``max_iter``, stagnation), the result is kept and the estimate reported.
    """
    est = res.error_estimates
    excused = np.minimum(np.nan_to_num(res.attainable), math.sqrt(tol))
    bad = np.isfinite(est) & (est > 1.01 * np.maximum(tol, excused))
    if warn_forward and bad.any():
        warn(f"the CG solve met its residual test but its estimated relative forward error, "
             f"{float(est[bad].max()):.1e} (the residual over the Lanczos estimate of the smallest eigenvalue, "
             f"{int(bad.sum())} of {est.size} column(s)), is above tol={tol:g}: the system is badly conditioned "
             f"(nodes of tiny degree, weakly attached parts). Use preconditioner='auto' or 'amg' (or 'jacobi' "
             f"for degree outliers), or raise max_iter.", AccuracyWarning)
    return res.x
