r"""Graph total variation by a diagonally preconditioned primal-dual method.

.. math::

    \min_f \; \sum_{j \in S} \lambda_j (y_j - f_j)^2 + \mu \|R f\|_1

(:math:`\lambda_j = d_j`, the weighted degree, by default: scale-invariant)

with R the weighted incidence (graph gradient) operator,
:math:`(R f)_e = w_e (f_i - f_j)` for the edge :math:`e = \{i, j\}`, so that
:math:`\|R f\|_1 = \sum_e w_e |f_i - f_j|` is the graph total variation (the
generalized TV of Pena 2017, slide "Can we do it for other problems?"), or
any sparse R, e.g. a polynomial :math:`g(L)`.
"""

from dataclasses import dataclass
from typing import Callable, Optional, Tuple, Union
import warnings

import numpy as np
import scipy.linalg
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from scipy.sparse.csgraph import reverse_cuthill_mckee
from numba import njit

from .._core.backend import check_backend
from .._core.cg import check_on_failure, report_failure
from .._core.reorder import LOCAL_ORDER_FRACTION, REORDER_MIN_NODES, mean_index_distance
from .._core.spmm import _pool
from .._core.labels import _orphans, label_free_mask
from .._core.progress import logger
from .._core.validation import (GraphWarning, check_flag, check_numeric_dtype, check_scalar, memory_guard,
                                power_of_two_exponent, warn)
from ..graphs import as_adjacency, laplacian as graph_laplacian
from ..kernels import GraphKernel
from ..spectral.filters import default_kernel
from .._core.types import ArrayLike, GraphLike, Indices, MatrixLike
from ._common import labeled_graph_problem
from ._graph import _poly_matrix

__all__ = ["graph_tv", "graph_kernel_tv", "incidence_matrix", "TVResult"]

#: Default relative primal-dual gap of graph_tv and of the TV estimators.  Measured on a 3000-node
#: kNN graph (two classes, 30 labels): 3340 iterations to 1e-2, 6010 to 1e-4, 8850 to 1e-6 --
#: 1e-4 bounds the relative suboptimality of the objective far below the statistical error of a
#: regression, and keeps classification scores settled, at 1.8x the cost of 1e-2.
TV_TOL = 1e-4

#: The incidence fast path iterates in float32 when ``tol`` is at least this (the gap itself is
#: always summed in float64, so it stays a valid certificate for the float32 iterate).
FLOAT32_MIN_TOL = 1e-5


def incidence_matrix(W: GraphLike) -> sp.csr_array:
    r"""Weighted incidence (graph gradient) operator of an undirected graph.

    Row e of R, for the edge :math:`e = \{i, j\}` with :math:`i < j`, holds
    :math:`+w_e` in column i and :math:`-w_e` in column j, so that
    :math:`\|R f\|_1 = \sum_e w_e |f_i - f_j|` (graph TV).  (With
    :math:`\sqrt{w_e}` instead one would get :math:`R^T R = L`; TV weighs
    differences by :math:`w_e` itself.)

    Parameters
    ----------
    W : graph
        Any form :func:`~graphrkhs.as_adjacency` accepts.

    Returns
    -------
    R : scipy.sparse.csr_array of shape (n_edges, n)

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import incidence_matrix
    >>> incidence_matrix(np.array([[0., 2.], [2., 0.]])).toarray()
    array([[ 2., -2.]])
    """
    W = as_adjacency(W)
    U = sp.triu(sp.coo_array(W), k=1)
    e = U.nnz
    rows = np.repeat(np.arange(e), 2)
    cols = np.column_stack([U.row, U.col]).ravel()
    vals = np.column_stack([U.data, -U.data]).ravel()
    return sp.csr_array((vals, (rows, cols)), shape=(e, W.shape[0]))


class TVResult:
    """Outcome of :func:`graph_tv`.

    Attributes
    ----------
    f : ndarray of shape (n,) or (n, m)
        The primal solution.
    p : ndarray of shape (r,) or (r, m)
        The dual variable (pass it back as ``p0`` to warm-start).
    objective : ndarray of shape (m,)
        Primal objective of each column.
    gap : ndarray of shape (m,)
        Relative primal-dual gap of each column.
    n_iter : int
    converged : bool
    """

    def __init__(self, f, p, objective, gap, n_iter, converged):
        self.f, self.p, self.objective, self.gap = f, p, objective, gap
        self.n_iter, self.converged = n_iter, converged

    def __repr__(self):
        return (f"TVResult(converged={self.converged}, n_iter={self.n_iter}, "
                f"max_gap={float(np.max(self.gap)) if np.size(self.gap) else 0.0:.2e})")


def _operator_norm(R, n, iters=50):
    """Spectral norm of R by power iteration on R^T R (seeded, deterministic)."""
    v = np.random.default_rng(0).standard_normal((n, 1))
    v /= np.linalg.norm(v)
    est = 0.0
    for _ in range(iters):          # a fixed small number of steps, not a loop over nodes
        w = R.rmatmat(R.matmat(v))
        est_new = float(np.linalg.norm(w))
        if not np.isfinite(est_new):
            # NaN steps would run every iteration of the solve and return NaN
            raise FloatingPointError("graph_tv: the operator R returned NaN or infinity on a finite vector "
                                     "(power iteration for its norm); check R (and R.rmatvec, its adjoint).")
        if est_new == 0:
            return 1.0
        v = w / est_new
        if abs(est_new - est) <= 1e-6 * est_new:
            est = est_new
            break
        est = est_new
    return np.sqrt(est)


def _conj_box_loss(Q, Y_S, S, lam, lo, hi):
    r""":math:`G^*(Q)` per column, G the weighted squared loss
    :math:`\sum_S \lambda_j (y_j - f_j)^2` plus the box [lo, hi]."""
    val = np.maximum(Q * lo, Q * hi)                       # unlabeled: sup of a linear function on a box
    QS = Q[S]
    fstar = np.clip(Y_S + QS / (2 * lam), lo, hi)
    val[S] = QS * fstar - lam * (Y_S - fstar) ** 2
    return val.sum(axis=0)


def _is_difference_operator(Rm):
    r"""Whether every row of R is a weighted difference :math:`w (e_i - e_j)` (or zero): then clipping f to
    [min y, max y] lowers :math:`\|Rf\|_1` and the TV minimizer lies in that box."""
    if isinstance(Rm, spla.LinearOperator):
        return False
    R = sp.csr_array(Rm)
    R.eliminate_zeros()
    nnz = np.diff(R.indptr)
    if (nnz > 2).any() or (nnz == 1).any():
        return False
    rows = np.flatnonzero(nnz == 2)
    a, b = R.data[R.indptr[rows]], R.data[R.indptr[rows] + 1]
    return bool(np.all(a == -b))


def _fidelity_weights(fidelity, W, Rm, S):
    r"""The fidelity weights :math:`\lambda_j, j \in S`, as a column (l, 1).

    ``"degree"``: :math:`\lambda_j = \sum_e |R_{ej}|` (the weighted degree
    :math:`d_j` for the incidence operator; the degree of W for an operator R,
    whose entries are unknown); ``"uniform"``: 1.  A labeled node without any
    edge (:math:`\lambda_j = 0`, no TV term either) gets 1, which keeps its label exactly.
    """
    if fidelity == "uniform":
        return np.ones((S.size, 1))
    if isinstance(Rm, spla.LinearOperator):
        lam = np.asarray(abs(W).sum(axis=1)).ravel()[S]
    else:
        lam = np.asarray(abs(Rm).sum(axis=0)).ravel()[S]
    return np.where(lam > 0, lam, 1.0)[:, None]



# ---------------------------------------------------------------------------------------------
# The incidence-operator fast path: fused, compiled sweeps over nodes and edges
# ---------------------------------------------------------------------------------------------
# One iteration of the preconditioned primal-dual method reads every edge twice (divergence at the
# nodes, gradient on the edges) and touches each (node, column) and (edge, column) entry once: two
# compiled passes instead of a dozen NumPy passes over (n_edges, m) blocks, in float32 when the
# tolerance allows it.  Sums that enter the duality gap are accumulated in float64.  The sweeps run
# on row chunks shared between cores by the work-sharing pool of graphrkhs._core.spmm, not numba's
# parallel loops: those end in a barrier, and on a shared machine (load well above the core count)
# one descheduled thread made each sweep 10-30x slower than the serial one.

@njit(cache=True, nogil=True)
def _primal_sweep(indptr, edge, sgnw, P, F, Fbar, Fa, inv_k, tau, omega, lab, lam, Yl, lo, hi, start, stop):
    """Primal step at every node: divergence of P (float64 sum), prox of the fidelity and the box,
    extrapolation Fbar = 2 V - F, F <- V, running average Fa."""
    m = F.shape[1]
    acc = np.empty(m)
    for v in range(start, stop):
        s = lab[v]
        acc[:] = 0.0
        for q in range(indptr[v], indptr[v + 1]):      # row of P read once for all columns
            e = edge[q]
            for c in range(m):
                acc[c] += sgnw[q] * P[e, c]
        for c in range(m):
            t = tau[v] / omega[c]
            x = F[v, c] - t * acc[c]
            if s >= 0:
                lt = 2.0 * t * lam[s]
                x = (x + lt * Yl[s, c]) / (1.0 + lt)
            if x < lo[c]:
                x = lo[c]
            elif x > hi[c]:
                x = hi[c]
            Fbar[v, c] = 2.0 * x - F[v, c]
            F[v, c] = x
            Fa[v, c] += (x - Fa[v, c]) * inv_k[c]


@njit(cache=True, nogil=True)
def _dual_sweep(ei, ej, w, sig, Fbar, P, Pa, inv_k, omega, mu, start, stop):
    """Dual step on every edge: P <- clip(P + sigma omega (R Fbar), -mu, mu), running average Pa."""
    m = P.shape[1]
    for e in range(start, stop):
        i = ei[e]
        j = ej[e]
        for c in range(m):
            x = P[e, c] + sig[e] * omega[c] * (w[e] * (Fbar[i, c] - Fbar[j, c]))
            if x < -mu:
                x = -mu
            elif x > mu:
                x = mu
            P[e, c] = x
            # a rounded average may step past mu; keep it dual feasible
            Pa[e, c] = min(max(Pa[e, c] + (x - Pa[e, c]) * inv_k[c], -mu), mu)



@njit(cache=True, nogil=True)
def _tv_term(ei, ej, w, F):
    r"""Per column, in float64: :math:`\sum_e w_e |F_i - F_j|`."""
    r, m = ei.size, F.shape[1]
    out = np.zeros(m)
    for e in range(r):
        for c in range(m):
            out[c] += w[e] * abs(np.float64(F[ei[e], c]) - np.float64(F[ej[e], c]))
    return out


@njit(cache=True, nogil=True)
def _dual_value(indptr, edge, sgnw, P, lab, lam, Yl, lo, hi):
    r""":math:`-G^*(-R^T P)` per column in float64 (see :func:`_conj_box_loss`)."""
    n, m = indptr.size - 1, P.shape[1]
    out = np.zeros(m)
    acc = np.empty(m)
    for v in range(n):
        s = lab[v]
        acc[:] = 0.0
        for q in range(indptr[v], indptr[v + 1]):
            e = edge[q]
            for c in range(m):
                acc[c] += sgnw[q] * np.float64(P[e, c])
        for c in range(m):
            Q = -acc[c]
            if s < 0:
                out[c] -= max(Q * lo[c], Q * hi[c])
            else:
                fs = min(max(Yl[s, c] + Q / (2.0 * lam[s]), lo[c]), hi[c])
                out[c] -= Q * fs - lam[s] * (Yl[s, c] - fs) ** 2
    return out


_CHUNK_ENTRIES = 400_000       # (entries x columns) per chunk: ~1 ms of work against ~10 us overhead
_MAX_CHUNKS = 32


def _bounds(indptr, m):
    """Row chunks with about equal numbers of stored entries (one chunk when the work is small)."""
    n, nnz = indptr.size - 1, int(indptr[-1])
    k = int(min(_MAX_CHUNKS, max(1, nnz * m // _CHUNK_ENTRIES), max(n, 1)))
    if k == 1:
        return np.array([0, n], dtype=np.int64)
    b = np.searchsorted(indptr, np.linspace(0, nnz, k + 1)).astype(np.int64)
    b[0], b[-1] = 0, n
    return np.unique(b)


def _float32_safe(Y, alpha, W):
    """Whether float32 iterates can carry this problem: targets, alpha and weights well inside
    float32's range, and the targets' offset small against their spread (f lives in [min y, max y];
    y + 1e8 with a spread of 1 would keep no significant digit)."""
    lo, hi = Y.min(axis=0), Y.max(axis=0)
    spread = hi - lo
    big = np.maximum(np.abs(lo), np.abs(hi))
    w = W.data if W.nnz else np.ones(1)
    return bool(np.all(spread <= 1e20) and np.all((spread >= 1e-20) | (big == 0))
                and np.all(big <= 1e3 * spread) and 1e-20 <= alpha <= 1e20
                and 1e-20 <= w.min() and w.max() <= 1e20)


def _unit_scale(Y2, alpha):
    r"""The power of two :math:`s` with :math:`\max |y| / s \in [1, 2)` (1 for y = 0), and
    :math:`\mu / s`.

    Both TV problems are homogeneous: :math:`f(c y, c \mu) = c f(y, \mu)`.  They are solved for
    :math:`y / s` and :math:`\mu / s` (exact: s is a power of two) and the solution scaled back, so
    that the squares of the objective and of the duality gap neither underflow (y ~ 1e-160: the gap
    was 0 at the start, a wrong f reported converged) nor overflow (y ~ 1e160: NaN gaps).
    """
    top = float(np.max(np.abs(Y2))) if Y2.size else 0.0
    s = float(np.ldexp(1.0, power_of_two_exponent(Y2) - 1)) if top > 0 else 1.0
    with np.errstate(over="ignore", under="ignore"):
        a = alpha / s
    if not (np.isfinite(a) and a > 0):
        raise ValueError(f"alpha={alpha:g} and the targets (max |y| = {top:g}) differ by more than float64's "
                         "range (alpha / max |y| over- or underflows); pass alpha in the units of y.")
    return s, a


def _edge_map(row, col, rank, ei, ej, n):
    """Where each edge (row, col) of the original numbering sits among the renumbered edges
    (ei < ej), and the sign of its orientation there (the dual variable flips with it)."""
    a, b = rank[row], rank[col]
    key = np.minimum(a, b) * n + np.maximum(a, b)
    new_key = ei * n + ej
    order = np.argsort(new_key)
    pos = order[np.searchsorted(new_key[order], key)]
    return pos, np.where(a < b, 1.0, -1.0)[:, None]


def _without_subnormal_edges(W):
    r"""``(W without its subnormal edges, mask of the kept rows of incidence_matrix(W))``.

    An edge of subnormal weight (:math:`w_e` below float64's smallest normal number, 2.2e-308) has
    the dual step :math:`\sigma_e = 1 / (2 w_e)` = inf, and the first sweep turned every iterate into
    NaN (``graph_tv`` returned NaN for finite input).  Its term :math:`\mu w_e |f_i - f_j|` is below
    the rounding of any objective value, so the problem is solved without it (a node attached only
    through such edges is then label-free, as for the other graph solvers, and gets the prior)."""
    U = sp.triu(sp.coo_array(W), k=1)
    kept = U.data >= np.finfo(np.float64).tiny
    if kept.all():
        return W, kept
    W = sp.csr_array(W, copy=True)
    W.data[W.data < np.finfo(np.float64).tiny] = 0.0
    W.eliminate_zeros()
    return W, kept


def _run(func, args, bounds):
    if bounds.size == 2:
        func(*args, bounds[0], bounds[1])
    else:
        _pool().run(func, args, bounds)


class _IncidenceProblem:
    """The graph, in the two layouts the sweeps read: edges (i < j, w) in :func:`incidence_matrix`'s
    row order, and the node-to-edge lists of :math:`R^T` (CSR; entries :math:`\\pm w_e`)."""

    def __init__(self, W, S, Y, lam, alpha, dtype):
        self.dtype = dtype
        U = sp.triu(sp.coo_array(W), k=1)
        self.n, self.r = W.shape[0], U.nnz
        self.ei = U.row.astype(np.int64)
        self.ej = U.col.astype(np.int64)
        self.w = U.data.astype(np.float64)
        RT = sp.csr_array((np.concatenate([self.w, -self.w]),
                           (np.concatenate([self.ei, self.ej]), np.tile(np.arange(self.r), 2))),
                          shape=(self.n, self.r))
        RT.sort_indices()
        self.indptr, self.edge, self.sgnw = RT.indptr.astype(np.int64), RT.indices.astype(np.int64), RT.data
        deg = np.asarray(abs(RT).sum(axis=1)).ravel()              # sum_e |R_ej| = d_j
        self.tau = 1.0 / np.where(deg > 0, deg, 1.0)
        self.sig = 1.0 / (2.0 * self.w) if self.r else np.zeros(0)  # sum_j |R_ej| = 2 w_e
        self.lab = np.full(self.n, -1, dtype=np.int64)
        self.lab[S] = np.arange(S.size)
        self.lam = np.ascontiguousarray(lam[:, 0], dtype=np.float64)
        self.alpha = float(alpha)
        self.Y = np.ascontiguousarray(Y, dtype=np.float64)
        self.lo = self.Y.min(axis=0)
        self.hi = self.Y.max(axis=0)

    def objective(self, F, cols):
        """Primal objective of the columns ``cols`` (F holds just those), in float64."""
        S = np.flatnonzero(self.lab >= 0)
        fid = (self.lam[self.lab[S], None] * (self.Y[self.lab[S]][:, cols] - F[S].astype(np.float64)) ** 2).sum(axis=0)
        return fid + self.alpha * _tv_term(self.ei, self.ej, self.w, F)

    def dual(self, P, cols):
        """Dual objective of the columns ``cols`` (P holds just those), in float64."""
        return _dual_value(self.indptr, self.edge, self.sgnw, P, self.lab, self.lam,
                           np.ascontiguousarray(self.Y[:, cols]), self.lo[cols], self.hi[cols])


# Adaptive restarts (Applegate, Hinder, Lu & Lubin 2023, "Faster first-order primal-dual methods for
# linear programming using restarts and sharpness"), with the true duality gap as the merit (finite
# here thanks to the box): restart a column from the better of its current and averaged iterate when
# the gap fell by _RESTART_SUFFICIENT since the last restart, or by _RESTART_NECESSARY and stopped
# falling, or after _RESTART_ARTIFICIAL of all iterations; at each restart the primal weight omega
# (tau / omega, sigma * omega) moves halfway (in log) towards the ratio of the dual and primal moves.
_RESTART_SUFFICIENT, _RESTART_NECESSARY, _RESTART_ARTIFICIAL = 0.2, 0.8, 0.36

#: A float32 iterate whose gap has not halved in this many iterations (and in as many as it took to
#: get there) goes on in float64.  Where the minimizer has plateaus at values float32 cannot hold
#: (regression levels inside the box, e.g. 0.2), neighbours jitter by an ulp and the TV of that
#: jitter, ~ mu sum_e w_e 1e-8 |y|, can exceed tol times the gap's denominator (an optimum near 0:
#: a component labeled with one value); float32 then never certifies tol.
_FLOAT32_STALL = 1000


@dataclass
class _Columns:
    """The columns of :func:`_solve_incidence`'s block that still iterate, and their state: the iterates
    (current, running average, at the last restart, the extrapolation ``Fbar``: (n, m) and (r, m) blocks in the
    block's dtype) and per column the restart state and the value box [lo, hi].  Every array is indexed by the
    block's columns, so that :meth:`drop` can take converged columns out of all of them at once."""

    active: np.ndarray              # which columns of Y they are
    F: np.ndarray
    P: np.ndarray
    Fa: np.ndarray
    Pa: np.ndarray
    Fr: np.ndarray
    Pr: np.ndarray
    Fbar: np.ndarray
    omega: np.ndarray               # primal weight
    k: np.ndarray                   # iterations since the column's last restart
    g_restart: np.ndarray           # the gap at the last restart
    g_prev: np.ndarray              # the gap at the previous check
    g_mark: np.ndarray              # the gap at its last halving
    it_mark: np.ndarray             # and when
    lo: np.ndarray
    hi: np.ndarray

    def drop(self, done):
        """Take the columns marked ``done`` out of the block (the sweeps then skip them)."""
        keep = ~done
        self.active = self.active[keep]
        self.F, self.P, self.Fa, self.Pa, self.Fr, self.Pr = (
            np.ascontiguousarray(A[:, keep]) for A in (self.F, self.P, self.Fa, self.Pa, self.Fr, self.Pr))
        self.Fbar = np.empty_like(self.F)
        self.omega, self.k, self.g_restart, self.g_prev = (
            self.omega[keep], self.k[keep], self.g_restart[keep], self.g_prev[keep])
        self.g_mark, self.it_mark = self.g_mark[keep], self.it_mark[keep]
        self.lo, self.hi = self.lo[keep], self.hi[keep]


def _solve_incidence(prob, F0, P0, tol, max_iter, check_every, floor, check_start=False):
    """Diagonally preconditioned primal-dual iterations with adaptive restarts on all columns at once;
    converged columns leave the block (``check_start``: a warm start's columns already within tol, before any
    iteration).  Returns F, P (float64), objective, gap, n_iter."""
    n, r, m = prob.n, prob.r, prob.Y.shape[1]
    dt = prob.dtype
    lo, hi, mu = prob.lo, prob.hi, prob.alpha
    # the dual iterate must stay inside |p| <= mu after rounding to the block's dtype, or D(p) is no
    # lower bound: clip to the largest representable value not above mu
    mu_dt = dt(mu)
    if float(mu_dt) > mu:               # (a Python float against float32 would be cast down first)
        mu_dt = np.nextafter(mu_dt, dt(0))
    mu = float(mu_dt)
    F_out, P_out = np.empty((n, m)), np.empty((r, m))
    obj_out, gap_out = np.full(m, np.inf), np.full(m, np.inf)
    F = np.clip(F0, lo, hi).astype(dt)
    P = np.clip(P0, -mu, mu).astype(dt)
    # the block of the columns still iterating (a converged column leaves it: _Columns.drop)
    b = _Columns(active=np.arange(m), F=F, P=P, Fa=F.copy(), Pa=P.copy(), Fr=F.copy(), Pr=P.copy(),
                 Fbar=np.empty_like(F), omega=np.ones(m), k=np.zeros(m), g_restart=np.full(m, np.inf),
                 g_prev=np.full(m, np.inf), g_mark=np.full(m, np.inf), it_mark=np.zeros(m), lo=lo, hi=hi)
    tau_col, sig_col = prob.tau[:, None], prob.sig[:, None]
    sgnw = prob.sgnw.astype(dt)
    bounds = None
    it = 0
    if check_start:
        # a warm start already within tol (the TVResult of this very problem passed back) is returned as it is:
        # the iterations moved it away first (from omega = 1, not the primal weight that reached it) and took
        # 1790 iterations to certify it again on a 1500-node graph, or ended above tol after 20000 (6000 nodes)
        obj0 = prob.objective(b.F, b.active)
        g0 = (obj0 - prob.dual(b.P, b.active)) / np.maximum(obj0, floor[b.active])
        done = g0 <= tol
        for c in np.flatnonzero(done):
            F_out[:, c], P_out[:, c], obj_out[c], gap_out[c] = b.F[:, c], b.P[:, c], obj0[c], g0[c]
        if done.any():
            b.drop(done)
    while it < max_iter and b.active.size:
        b.k += 1
        inv_k = 1.0 / b.k
        if bounds is None or bounds[0] != b.active.size:
            bounds = (b.active.size, _bounds(prob.indptr, b.active.size),
                      _bounds(np.arange(0, 2 * prob.r + 1, 2), b.active.size))   # edges: 2 entries each
            Y_act = np.ascontiguousarray(prob.Y[:, b.active])
        _run(_primal_sweep, (prob.indptr, prob.edge, sgnw, b.P, b.F, b.Fbar, b.Fa, inv_k, prob.tau, b.omega,
                             prob.lab, prob.lam, Y_act, b.lo, b.hi), bounds[1])
        _run(_dual_sweep, (prob.ei, prob.ej, prob.w, prob.sig, b.Fbar, b.P, b.Pa, inv_k, b.omega, mu), bounds[2])
        it += 1
        if it % check_every and it != max_iter:
            continue
        F, P, Fa, Pa, active = b.F, b.P, b.Fa, b.Pa, b.active       # the same arrays: written in place
        obj_c, obj_a = prob.objective(F, active), prob.objective(Fa, active)
        gap_c = (obj_c - prob.dual(P, active)) / np.maximum(obj_c, floor[active])
        gap_a = (obj_a - prob.dual(Pa, active)) / np.maximum(obj_a, floor[active])
        use_a = gap_a < gap_c
        g = np.where(use_a, gap_a, gap_c)
        done = (g <= tol) | (it == max_iter)
        restart = ~done & ((g <= _RESTART_SUFFICIENT * b.g_restart)
                           | ((g <= _RESTART_NECESSARY * b.g_restart) & (g > b.g_prev))
                           | (b.k >= _RESTART_ARTIFICIAL * it))
        for c in np.flatnonzero(done | restart):          # a few columns, a few times: not a node loop
            if use_a[c]:
                F[:, c], P[:, c] = Fa[:, c], Pa[:, c]
        for c in np.flatnonzero(done):
            j = active[c]
            F_out[:, j], P_out[:, j] = F[:, c], P[:, c]
            obj_out[j] = obj_a[c] if use_a[c] else obj_c[c]
            gap_out[j] = g[c]
        if restart.any():
            dx = np.sqrt((((F[:, restart] - b.Fr[:, restart]).astype(np.float64) ** 2) / tau_col).sum(axis=0))
            dy = np.sqrt((((P[:, restart] - b.Pr[:, restart]).astype(np.float64) ** 2) / sig_col).sum(axis=0))
            ok = (dx > 0) & (dy > 0) & np.isfinite(dx) & np.isfinite(dy)
            sel = np.flatnonzero(restart)[ok]
            b.omega[sel] = np.exp(0.5 * np.log(dy[ok] / dx[ok]) + 0.5 * np.log(b.omega[sel]))
            b.Fr[:, restart], b.Pr[:, restart] = F[:, restart], P[:, restart]
            Fa[:, restart], Pa[:, restart] = F[:, restart], P[:, restart]
            b.k[restart] = 0
            b.g_restart[restart] = g[restart]
        b.g_prev = g
        halved = g <= 0.5 * b.g_mark
        b.g_mark, b.it_mark = np.where(halved, g, b.g_mark), np.where(halved, it, b.it_mark)
        if dt == np.float32 and np.any(~done & (it - b.it_mark >= np.maximum(_FLOAT32_STALL, b.it_mark))):
            # float32 cannot certify tol here (_FLOAT32_STALL): go on in float64 from the iterate
            dt = np.float64
            b.F, b.P, b.Fa, b.Pa, b.Fr, b.Pr = (A.astype(np.float64) for A in (F, P, Fa, Pa, b.Fr, b.Pr))
            b.Fbar = np.empty_like(b.F)
            sgnw = prob.sgnw.astype(np.float64)
            mu = prob.alpha
            b.g_mark, b.it_mark = np.full(g.size, np.inf), np.full(g.size, float(it))
            logger.debug("graph_tv: the float32 iterate stalled at gaps %s after %d iterations; float64 "
                         "from here", np.array2string(g, precision=2), it)
        if done.any():
            b.drop(done)
    return F_out, P_out, obj_out, gap_out, it


def graph_tv(W: GraphLike, labeled: Indices, Y: ArrayLike, *, alpha: float = 0.5,
             fidelity: str = "degree",
             R: Union[str, MatrixLike, spla.LinearOperator] = "incidence", tol: float = TV_TOL,
             max_iter: int = 20000, check_every: int = 10, f0: Optional[ArrayLike] = None,
             p0: Optional[ArrayLike] = None, on_failure: str = "warn",
             return_info: bool = False) -> Union[np.ndarray, Tuple[np.ndarray, "TVResult"]]:
    r"""Graph total-variation regression / classification scores.

    .. math::

        \min_f \; \sum_{j \in S} \lambda_j (y_j - f_j)^2 + \mu \|R f\|_1 ,
        \qquad \mu = \texttt{alpha},
        \qquad \lambda_j = \sum_e |R_{ej}| \ (\texttt{fidelity="degree"}),

    so that for the incidence operator :math:`\lambda_j = d_j = \sum_i w_{ij}`.

    *Why the degree.*  With unit fidelity (:math:`\lambda_j = 1`) the
    problem is not invariant to the scale of the weights: W -> cW multiplies
    the TV term by c and is the same as :math:`\mu \to c\mu`, so an absolute
    :math:`\mu` means different things on different graphs (on the digits, a
    Gaussian kNN graph scaled by 10 lost 60% of the labeled nodes' own labels).
    With :math:`\lambda_j = \sum_e |R_{ej}|` both terms are homogeneous of
    degree 1 in R, so the minimizer does not change when W is scaled
    (``alpha`` is relative to the graph).  And the optimality condition at a
    labeled node, :math:`2 \lambda_j (y_j - f_j) \in \mu (R^T p)_j` with
    :math:`|p_e| \le 1`, gives :math:`|(R^T p)_j| \le \sum_e |R_{ej}| = \lambda_j`,
    hence

    .. math::

        |f_j - y_j| \le \mu / 2 \qquad (j \in S),

    whatever the graph, at the minimizer (the returned iterate meets it up to
    the solver's ``tol``: 4e-5 over at the default on a small graph): for
    one-hot class targets and :math:`\mu < 1`, every
    labeled node keeps its class (own score :math:`\ge 1 - \mu/2 > 1/2`, the
    others :math:`\le \mu / 2`).  ``fidelity="uniform"`` (:math:`\lambda_j = 1`)
    is the unweighted problem.  For a LinearOperator R (entries unknown)
    :math:`\lambda_j` is the degree of W; a labeled node without edges gets
    :math:`\lambda_j = 1` (it has no TV term and keeps its target exactly).

    Solved by the primal-dual method of Chambolle & Pock (2011) with the
    diagonal preconditioning of Pock & Chambolle (ICCV 2011):
    :math:`\tau_j = 1 / \sum_e |R_{ej}|`, :math:`\sigma_e = 1 / \sum_j |R_{ej}|`
    (no step size to tune, no norm estimate).  When every row of R is a
    weighted difference :math:`w(e_i - e_j)` (the incidence operator) the
    minimizer lies in the box :math:`[\min y, \max y]` (clipping f to it
    lowers both terms), so the primal function is restricted to that box;
    this leaves the solution unchanged and makes the dual function finite.
    For any other R (:math:`g(L)`, a kernel operator) the minimizer may leave
    that box (second-order differences extrapolate the labels), so the box is
    a working bound: when the converged f touches it, it is widened 4x and
    the iteration goes on, until f lies strictly inside (then the minimizer
    within the box is the unconstrained one).  The relative
    primal-dual gap

    .. math::

        \frac{P(f) - D(p)}{P(f)}, \quad P(f) = \sum_S \lambda_j (y_j - f_j)^2 + \mu \|Rf\|_1,
        \quad D(p) = -G^*(-R^T p), \ \|p\|_\infty \le \mu,

    is an upper bound on the relative suboptimality of f: the stopping rule
    (the denominator is floored at
    :math:`10^{-8} \sum_S \lambda_j\, (\max y - \min y)^2`, or with
    :math:`\max |y|^2` for constant labels, so that an optimum
    of value ~0 does not make the relative gap meaningless; for a sparse
    R the numerator is less the rounding of :math:`\mu\|Rf\|_1`,
    :math:`2\epsilon\mu \sum |R||f|`, so that an optimum of 0 attained
    exactly, e.g. constant labels with an R cancelling constants, is
    certified at any ``tol``).
    Each column of ``Y`` is solved independently (vectorized).

    *The incidence operator* (``R="incidence"``, the default) has a fast
    path: each iteration is two compiled sweeps, one over the nodes (the
    divergence :math:`R^T p` from the node-to-edge lists, then the primal
    prox) and one over the edges (the gradient of the extrapolated primal and
    the projection of the dual), all columns of ``Y`` at once; its cost is
    linear in the number of edges.  Columns restart adaptively (Applegate,
    Hinder, Lu & Lubin 2023, restarted PDHG): from the better of the current
    and the averaged iterate when the gap has fallen by 0.2 since the last
    restart (or by 0.8 and stopped falling), with the primal weight
    :math:`\omega` (steps :math:`\tau/\omega, \sigma\omega`) moved towards the
    ratio of the dual and primal moves; a converged column leaves the block.
    With ``tol >= 1e-5`` (``FLOAT32_MIN_TOL``) the iterates are float32 (unless
    y, ``alpha`` or the weights lie far outside float32's comfortable range, or
    y's offset is large against its spread: then float64); the
    gap is summed in float64 and the dual iterate is kept inside
    :math:`|p| \le \mu` after rounding, so the gap remains a valid bound on
    the suboptimality of the returned f.  A float32 iterate whose gap stops
    falling (no halving in 1000 iterations, ``_FLOAT32_STALL``: plateaus at
    values float32 cannot hold jitter by an ulp, whose TV can exceed ``tol``
    times the gap's denominator when the optimum is near 0) goes on in float64.  The minimizer is the same as the
    generic loop's (tested against it and against cvxpy).  The iteration
    count still grows with the graph when labels are few: on Fashion-MNIST
    kNN graphs with 10 labels per class, about 350 / 650 / 970 / 1260
    iterations at n = 2000 / 5000 / 10000 / 20000 (tol 1e-4; the generic loop:
    510 / 1100 / 1880 at the first three), see ``benchmarks/tv.py``.

    Parameters
    ----------
    W : graph
        Any form :func:`~graphrkhs.as_adjacency` accepts.
    labeled : array of int or bool mask
    Y : ndarray of shape (len(S),) or (len(S), m)
    alpha : float > 0, default=0.5
        The TV weight :math:`\mu`, relative to the graph with
        ``fidelity="degree"`` (labeled targets move by at most :math:`\mu/2`, in
        the units of y); in the units of the edge weights with ``"uniform"``.
    fidelity : {"degree", "uniform"}, default="degree"
        The fidelity weights :math:`\lambda_j`: :math:`\sum_e |R_{ej}|` (the
        weighted degree for the incidence operator; scale-invariant) or 1.
    R : "incidence", sparse matrix or LinearOperator of shape (r, n), default="incidence"
        The analysis operator: the weighted graph gradient
        (:func:`incidence_matrix`), any sparse R (e.g. :math:`g(L)` for a
        polynomial g), or a LinearOperator such as
        ``GraphKernel(L, g)`` (:math:`R = g(L)` applied by Chebyshev).  Sparse
        R gets the diagonal preconditioner; an operator, whose entries are
        unknown, gets scalar steps :math:`\tau = \sigma = 0.99 / \|R\|`
        (norm by power iteration; an operator whose products are NaN or
        infinite raises ``FloatingPointError`` there, a complex R ``TypeError``).
    tol : float > 0, default=1e-4
        Stop when every column's relative gap is <= ``tol`` (``TV_TOL``, the
        default of :class:`~graphrkhs.GraphTVClassifier` and
        :class:`~graphrkhs.GraphTVRegressor` as well: the gap bounds the
        relative suboptimality of the objective).
    max_iter : int, default=20000
        Iteration cap; a :class:`~graphrkhs.ConvergenceWarning` (or
        ``RuntimeError`` with ``on_failure="raise"``) reports a miss.
    check_every : int, default=10
        Gap evaluation period (each evaluation costs about one iteration).
    f0, p0 : ndarray, optional
        Warm start (primal of shape (n, m), dual of shape (r, m), finite), e.g.
        from the :class:`TVResult` of a nearby ``alpha`` (``return_info=True``);
        for the incidence operator p's rows follow :func:`incidence_matrix`'s.
        With the incidence operator, the columns of a warm start whose duality gap
        already meets ``tol`` are returned as they are (``n_iter`` 0 when all do;
        rounded to float32 where the iterations run in it, tol >= 1e-5); the
        others iterate.  A general ``R`` always iterates from the start.
    on_failure : {"warn", "raise", "ignore"}, default="warn"
    return_info : bool, default=False
        Also return the :class:`TVResult` (dual variable ``p`` for warm
        starts, objective, gap, iterations).

    Returns
    -------
    F : ndarray of shape (n,) or (n, m)
        The minimizer.  Nodes of components without labels get the mean of
        ``Y`` (:class:`~graphrkhs.GraphWarning`) when that does not raise the
        objective (R cancels constants there, as the incidence operator and
        polynomials of L without constant term do); for another R (e.g.
        :math:`L + cI`) they keep the minimizer's values, with a GraphWarning.
    result : TVResult, only with ``return_info=True``

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import graph_tv
    >>> W = np.diag(np.ones(5), 1); W = W + W.T          # path on 6 nodes
    >>> F, res = graph_tv(W, [0, 1, 4, 5], np.array([0.0, 0.0, 1.0, 1.0]), alpha=0.1, return_info=True)
    >>> bool(res.converged), F[[0, 1, 4, 5]].round(3)       # mu / (2 (d_0 + d_1)) = 0.1 / 6
    (True, array([0.017, 0.017, 0.983, 0.983]))
    """
    check_flag(return_info, "return_info")
    alpha = check_scalar(alpha, "alpha", low=0, low_inclusive=False)
    tol = check_scalar(tol, "tol", low=0, low_inclusive=False)
    max_iter = check_scalar(max_iter, "max_iter", kind="int", low=1)
    check_every = check_scalar(check_every, "check_every", kind="int", low=1)
    check_on_failure(on_failure)
    if fidelity not in ("degree", "uniform"):
        raise ValueError(f"fidelity must be 'degree' or 'uniform'; got {fidelity!r}.")
    W, S, Y2, was_1d, out_dtype = labeled_graph_problem(W, labeled, Y)
    n = W.shape[0]
    m = Y2.shape[1]
    Y_user, (scale, alpha) = Y2, _unit_scale(Y2, alpha)      # solved in the units of max |y| (_unit_scale)
    Y2 = Y2 / scale
    fast = isinstance(R, str)
    if fast:
        if R != "incidence":
            raise ValueError(f"R must be 'incidence' or a sparse matrix of shape (r, {n}); got {R!r}.")
        W_given, W, kept = W, *_without_subnormal_edges(W)
        Rm = incidence_matrix(W_given)
    elif sp.issparse(R) or isinstance(R, np.ndarray):
        check_numeric_dtype(R, "R")        # a complex R lost its imaginary part with a ComplexWarning
        Rm = sp.csr_array(R, dtype=np.float64)
        if Rm.ndim != 2 or Rm.shape[1] != n:
            raise ValueError(f"R must have shape (r, {n}); got {Rm.shape}.")
        if not np.isfinite(Rm.data).all():
            raise ValueError("R contains NaN or infinity.")
    elif isinstance(R, spla.LinearOperator):
        if R.shape[1] != n:
            raise ValueError(f"R must have shape (r, {n}); got {R.shape}.")
        Rm = R
    else:
        raise TypeError(f"R must be 'incidence', a sparse matrix or a LinearOperator; got {type(R).__name__}.")
    r = Rm.shape[0]
    if fast:
        F, P = _start(f0, p0, n, r, m, scale)
        P = P[kept]
        warm = f0 is not None or p0 is not None
        # Solved for W / 2^e with the largest weight in [1/2, 2) (exact).  With degree fidelity the
        # objective is homogeneous in W (the minimizer and p do not change, the objective scales by
        # 2^e); with uniform fidelity mu scales by 2^e and p with it.  In the units of W the steps and
        # the gap's floor lost the problem: at W * 1e-40 the floor (with the unit weight of an
        # edgeless labeled node) certified f = 0.98 for a minimizer of 1, at W * 1e40 20000
        # iterations did not reach tol.
        w_exp = power_of_two_exponent(W.data) if W.nnz else 0
        if fidelity == "uniform" and not np.isfinite(np.ldexp(alpha, w_exp)):
            w_exp = 0
        if w_exp:
            W = sp.csr_array(W, copy=True)
            W.data = np.ldexp(W.data, -w_exp)
            if fidelity == "uniform":
                alpha, P = np.ldexp(alpha, w_exp), np.ldexp(P, w_exp)
        lam = _fidelity_weights(fidelity, W, incidence_matrix(W), S)
        lo, hi = Y2.min(axis=0), Y2.max(axis=0)
        spread = np.where(hi > lo, hi - lo, np.maximum(np.abs(lo), np.abs(hi)))   # as in the generic loop below
        floor = 1e-8 * lam.sum() * np.maximum(spread ** 2, np.finfo(float).tiny)
        dtype = np.float32 if tol >= FLOAT32_MIN_TOL and _float32_safe(Y2, alpha, W) else np.float64
        if n >= REORDER_MIN_NODES and mean_index_distance(W) > LOCAL_ORDER_FRACTION * n:
            # Renumber the nodes by reverse Cuthill-McKee so that the rows each sweep gathers are
            # near each other in memory (halved the time per iteration on the 70000-node
            # Fashion-MNIST graph); results come back in the caller's node and edge order.
            order = reverse_cuthill_mckee(sp.csr_matrix(W), symmetric_mode=True).astype(np.int64)
            rank = np.empty(n, dtype=np.int64)
            rank[order] = np.arange(n)
            prob = _IncidenceProblem(sp.csr_array(W[order][:, order]), rank[S], Y2, lam, alpha, dtype)
            U = sp.triu(sp.coo_array(W), k=1)
            pos, sign = _edge_map(U.row, U.col, rank, prob.ei, prob.ej, n)
            Pp = np.empty_like(P)
            Pp[pos] = sign * P
            F, Pp, obj, gap, it = _solve_incidence(prob, F[order], Pp, tol, max_iter, check_every, floor,
                                                         check_start=warm)
            F, P = F[rank], sign * Pp[pos]
        else:
            prob = _IncidenceProblem(W, S, Y2, lam, alpha, dtype)
            F, P, obj, gap, it = _solve_incidence(prob, F, P, tol, max_iter, check_every, floor, check_start=warm)
        converged = bool((gap <= tol).all())
        if w_exp:                       # back to the units of W
            if fidelity == "uniform":
                P = np.ldexp(P, -w_exp)
            else:
                with np.errstate(over="ignore", under="ignore"):
                    obj = np.ldexp(obj, w_exp)
        P_given = np.zeros((r, m))      # a dropped edge's dual: 0 (feasible; its term is below rounding)
        P_given[kept] = P
        _edgeless_labels_exact(F, S, Y2, np.asarray(abs(W_given).sum(axis=1)).ravel())
        return _finish(W, S, Y_user, F, P_given, obj, gap, it, converged, tol, on_failure, was_1d, out_dtype,
                       return_info, scale)
    F, P = _start(f0, p0, n, r, m, scale)
    if isinstance(Rm, spla.LinearOperator):
        # No entries to precondition with: scalar steps tau = sigma = 0.99 / ||R||.
        norm = 1.05 * _operator_norm(Rm, n)
        tau = np.full((n, 1), 0.99 / norm)
        sigma = np.full((r, 1), 0.99 / norm)
        RT = Rm.adjoint()
    else:
        absR = abs(Rm)
        col = np.asarray(absR.sum(axis=0)).ravel()
        row = np.asarray(absR.sum(axis=1)).ravel()
        # Pock & Chambolle's steps 1 / sum |R|, capped at 1 / tiny: a subnormal row or column sum made
        # them inf and the iterates NaN.  A smaller step keeps the method convergent, and sigma (R x)
        # stays below |x| (|R x| <= row |x|).
        tiny = np.finfo(np.float64).tiny
        tau = (1.0 / np.where(col > 0, np.maximum(col, tiny), 1.0))[:, None]
        sigma = (1.0 / np.where(row > 0, np.maximum(row, tiny), 1.0))[:, None]
        RT = sp.csr_array(Rm.T)
    # the rounding of ||R f||_1 (a bound: 2 eps |R| |f|, summed); not known for an operator
    rounding = None if isinstance(Rm, spla.LinearOperator) else \
        (lambda G: 2 * np.finfo(np.float64).eps * (absR @ np.abs(G)).sum(axis=0))
    lam = _fidelity_weights(fidelity, W, Rm, S)
    lo, hi = Y2.min(axis=0), Y2.max(axis=0)
    # Gap denominator floor: when the optimum is (nearly) 0 -- labels already consistent, e.g. a class
    # on its own component -- the relative gap is measured against 1e-8 of the data scale
    # sum_S lambda_j (max y - min y)^2 (scales with W under fidelity="degree", as the objective does).
    # Constant labels (max y = min y) take the scale of y itself: their floor was ~1e-308, and the relative gap
    # of an optimum of value ~0 (f = y on every node, R 1 = 0) stayed at 1 under rounding (never converged)
    spread = np.where(hi > lo, hi - lo, np.maximum(np.abs(lo), np.abs(hi)))
    floor = 1e-8 * lam.sum() * np.maximum(spread ** 2, np.finfo(float).tiny)
    Y_S = Y2
    tauS = tau[S]
    lam_tau = 2 * tauS * lam
    # The box [min y, max y] holds the minimizer when every row of R is a weighted difference
    # w (e_i - e_j): clipping f to it lowers both terms.  For another R (g(L), a kernel operator) it
    # need not (second-order TV extrapolates beyond the labels): the box is then a working bound,
    # widened whenever the converged f touches it, until f is strictly inside (a minimizer of the
    # convex problem inside the box is then the unconstrained one).
    box_exact = _is_difference_operator(Rm)
    np.clip(F, lo, hi, out=F)
    np.clip(P, -alpha, alpha, out=P)
    obj = np.full(m, np.inf)
    gap = np.full(m, np.inf)
    converged = False
    it = 0
    while it < max_iter:
        # primal step: prox of tau * (squared loss on S + box)
        V = F - tau * (RT @ P)
        V[S] = (V[S] + lam_tau * Y_S) / (1 + lam_tau)
        np.clip(V, lo, hi, out=V)
        # dual step: prox of sigma * F^*, the projection on |p| <= mu
        P += sigma * (Rm @ (2 * V - F))
        np.clip(P, -alpha, alpha, out=P)
        F = V
        it += 1
        if it % check_every == 0 or it == max_iter:
            obj = (lam * (Y_S - F[S]) ** 2).sum(axis=0) + alpha * np.abs(Rm @ F).sum(axis=0)
            dual = -_conj_box_loss(-(RT @ P), Y_S, S, lam, lo, hi)
            gap = (obj - dual) / np.maximum(obj, floor)
            if rounding is not None:
                # less the rounding of R f in the objective (eps |R| |f|): at an exactly attained optimum of 0
                # (constant labels, R cancelling constants up to its stored rounding) ||R f||_1 alone was
                # ~5e-8 of the floor, so tol=1e-8 ran to max_iter and warned on the exact minimizer
                gap = np.maximum(gap - alpha * rounding(F) / np.maximum(obj, floor), 0.0)
            if (gap <= tol).all():
                half = (hi - lo) / 2
                # an objective within tol of 0, the objective's lower bound, is certified whatever the box: y = 0
                # (box [0, 0], f = 0 optimal) was widened to [0, 0] again and again until max_iter.  Within tol, not
                # within the floor: an objective below the floor is 1 / tol times what the certificate allows (R = c D2
                # with c = 1e-8 on a path, labels 0, 1, 2: f clipped to (0, 1, 2, 2, 2, 2), objective 1e-8 against
                # the optimum 0 of the extrapolation, reported converged)
                slack = obj if rounding is None else np.maximum(obj - alpha * rounding(F), 0.0)
                touch = ((F <= lo + 1e-6 * half) | (F >= hi - 1e-6 * half)).any(axis=0) & \
                    (slack > tol * np.maximum(obj, floor))
                if box_exact or not touch.any():
                    converged = True
                    break
                # widen the touched columns' box 4x about its centre (and at least to cover 0)
                mid = (hi + lo) / 2
                wide = 4 * np.maximum(half, np.maximum(np.abs(lo), np.abs(hi)))
                lo = np.where(touch, mid - wide, lo)
                hi = np.where(touch, mid + wide, hi)
    if not isinstance(Rm, spla.LinearOperator):
        _edgeless_labels_exact(F, S, Y_S, col)
    # The mean on the label-free components (the rule of the graph solvers) is a minimizer only where R
    # cancels constants there; for another R (L + c I, a kernel's inverse) it is not: with R = L + 0.5 I the
    # returned f had objective 1.41 against the reported (and optimal) 0.74, converged=True.  Those columns
    # keep the minimizer.
    keep = _label_free_keep(W, S, Y_S, F, obj, tol, floor,
                            lambda G: (lam * (Y_S - G[S]) ** 2).sum(axis=0) + alpha * np.abs(Rm @ G).sum(axis=0))
    F_kept = F[:, keep].copy()
    F = _finish(W, S, Y_user, F, P, obj, gap, it, converged, tol, on_failure, was_1d, out_dtype, return_info, scale,
                orphans=not keep.all())
    if keep.any():
        f = F[0] if return_info else F
        f2 = f.reshape(n, -1)
        f2[:, keep] = (F_kept * scale).astype(f2.dtype, copy=False)
    return F


def _edgeless_labels_exact(F, S, Y, col):
    """Set in place the labeled nodes that no row of R touches (``col``: the column sums of |R|, 0 there) to their
    targets: they have no TV term, their fidelity term alone is minimized there, and the iterate left them a
    rounding of the solver's tolerance off (1.7e-5 at the default tol, against the documented exact target)."""
    alone = col[S] == 0
    if alone.any():
        F[S[alone]] = Y[alone]


def _label_free_keep(W, S, Y_S, F, obj, tol, floor, objective):
    """The columns whose label-free components keep the minimizer's values ``F`` rather than the mean of ``Y_S``.

    The mean (the rule of the graph solvers, :func:`_orphans`) minimizes only where R cancels constants on those
    components; a column keeps F when the mean raises its objective (``objective(G)``, shape (m,)) above the
    minimum ``obj`` by more than the gap tolerance, with a GraphWarning.  Boolean array of shape (m,).
    """
    orphan = label_free_mask(W, S)
    keep = np.zeros(F.shape[1], dtype=bool)
    if orphan.any():
        G = F.copy()
        G[orphan] = Y_S.mean(axis=0)
        keep = objective(G) > obj + tol * np.maximum(obj, floor)
        if keep.any():
            warn(f"{int(orphan.sum())} node(s) lie in connected components without any labeled node, where R does "
                 f"not cancel constants: {int(keep.sum())} column(s) keep the minimizer's values there (the mean of "
                 "the labeled targets would raise the objective).", GraphWarning)
    return keep


def _holds_block(a, rows, m):
    """``a`` is a (rows, m) block, or one reshaped to ``rows`` rows (a vector for m = 1).  Not by
    ``a.reshape(a.shape[0], -1)``: with no rows (a graph without edges: r = 0) that reshape is ambiguous and
    raised numpy's "cannot reshape array of size 0"."""
    return a.ndim >= 1 and a.shape[0] == rows and a.size == rows * m


def _start(f0, p0, n, r, m, scale=1.0):
    """Checked warm start (zeros by default), divided by ``scale`` (the units of :func:`_unit_scale`)."""
    F = np.zeros((n, m))
    P = np.zeros((r, m))
    if f0 is not None:
        f0 = np.asarray(f0, dtype=np.float64)
        if not _holds_block(f0, n, m):
            raise ValueError(f"f0 must have shape ({n}, {m}); got {f0.shape}.")
        F[:] = f0.reshape(n, m)
    if p0 is not None:
        p0 = np.asarray(p0, dtype=np.float64)
        if not _holds_block(p0, r, m):
            raise ValueError(f"p0 must have shape ({r}, {m}); got {p0.shape}.")
        P[:] = p0.reshape(r, m)
    if not (np.isfinite(F).all() and np.isfinite(P).all()):
        raise ValueError("f0 and p0 must be finite.")
    if scale != 1.0:
        F /= scale
        P /= scale
    return F, P


def _finish(W, S, Y2, F, P, obj, gap, it, converged, tol, on_failure, was_1d, out_dtype, return_info, scale=1.0,
            orphans=True):
    if scale != 1.0:                  # back to the units of y (the objective may overflow to inf there)
        F, P = F * scale, P * scale
        with np.errstate(over="ignore", under="ignore"):
            obj = obj * scale * scale
    if not converged:
        report_failure(f"graph_tv did not reach the relative duality gap tol={tol:g} in {it} iterations "
                       f"(worst gap {gap.max():.2e}); raise max_iter, loosen tol or warm-start with f0/p0.",
                       on_failure)
    # Label-free components have no data term (any constant minimizes): the one rule of the
    # graph solvers gives them the prior, with a GraphWarning.
    if orphans:
        _orphans(W, S, Y2, F)
    F = F.astype(out_dtype, copy=False)
    result = TVResult(F[:, 0], P[:, 0], obj, gap, it, converged) if was_1d else \
        TVResult(F, P, obj, gap, it, converged)
    return (result.f, result) if return_info else result.f


# ---------------------------------------------------------------------------------------------
# Generalized TV with the analysis operator of the graph RKHS, R = phi(L)^{-1}
# ---------------------------------------------------------------------------------------------

#: Default cap on the working-set rounds of :func:`graph_kernel_tv` (each round: one small lasso on
#: the working set and one product with the (n, l) kernel columns).
KERNEL_TV_MAX_ITER = 50


def _refit_on_support(A, b, s, mu):
    r"""The lasso :math:`\min_s \|b - A s\|^2 + \mu \|s\|_1` solved exactly on the support and signs of ``s``
    (column by column): :math:`s_E = (A_E^T A_E)^{-1} (A_E^T b - \tfrac{\mu}{2} \sigma_E)`, kept for a column
    only where the signs agree with :math:`\sigma_E` and the objective does not grow (else ``s``'s column)."""
    out = s.copy()
    for c in range(b.shape[1]):          # the few columns of Y
        E = np.flatnonzero(s[:, c])
        if not E.size:
            continue
        sign = np.sign(s[E, c])
        AE = A[:, E]
        G = AE.T @ AE
        try:
            factor = scipy.linalg.cho_factor(G, check_finite=False)
            sE = scipy.linalg.cho_solve(factor, AE.T @ b[:, c] - 0.5 * mu * sign, check_finite=False)
        except np.linalg.LinAlgError:    # a singular support (twin columns): keep the iterate
            continue
        if not np.all(np.isfinite(sE)) or np.any(np.sign(sE) != sign):
            continue
        old = ((b[:, c] - A @ s[:, c]) ** 2).sum() + mu * np.abs(s[:, c]).sum()
        new = ((b[:, c] - AE @ sE) ** 2).sum() + mu * np.abs(sE).sum()
        if new <= old:
            out[:, c] = 0.0
            out[E, c] = sE
    return out


#: Cap on the steps of :func:`_active_set_lasso` per column, as a multiple of the working set's size (each step
#: adds or drops at least one source; the optimum of a pattern is never revisited in exact arithmetic).
ACTIVE_SET_STEPS = 4


def _pattern_step(AE, GE, rhs, theta, start):
    r"""The end point of a step of :func:`_active_set_lasso` on the pattern (columns ``AE``, signs ``theta``):
    ``(target, None)`` with the minimizer of the lasso restricted to the pattern,
    :math:`A_E^T A_E\, s = A_E^T b - \tfrac{\mu}{2} \theta` (``GE``, ``rhs``), when :math:`A_E` has full column
    rank (by Cholesky, refined; by the SVD of :math:`A_E` when the refinement does not settle).  When
    :math:`A_E` is rank-deficient (a support larger than the rows, or exactly equal columns) and
    :math:`d = -P \theta \ne 0` (P the projection on the null space of :math:`A_E`, along which the fit stays
    and the l1 norm falls): ``(target, k)``, the point along d where the first source k reaches 0.  Otherwise
    (:math:`P \theta = 0`: the restricted problem is consistent) its minimum-norm solution."""
    if AE.shape[1] == 0:                 # the empty pattern (s = 0); SciPy 1.13's LAPACK wrappers refuse 0 x 0
        return np.zeros(0), None
    if AE.shape[1] <= AE.shape[0]:
        try:
            factor = scipy.linalg.cho_factor(GE, check_finite=False)
            target = scipy.linalg.cho_solve(factor, rhs, check_finite=False)
            # two rounds of refinement with the residual from A_E itself: the Gram matrix squares the condition
            # of nearly equal columns (1e-6 apart: 1e12), and its rounding alone left steps that did not lower
            # the objective (relative gaps 0.02-0.6 on such columns before)
            for _ in range(2):
                target += scipy.linalg.cho_solve(factor, rhs - AE.T @ (AE @ target), check_finite=False)
            if np.all(np.isfinite(target)) and \
                    np.abs(rhs - AE.T @ (AE @ target)).max() <= 1e-9 * np.abs(rhs).max():
                return target, None
            # refinement diverges when the condition of A_E squared passes 1/eps (2.7e10 on a mutual kNN graph
            # with duplicated points: the KKT on the support was off by 35 %): the SVD of A_E below
        except (np.linalg.LinAlgError, ValueError):
            pass
    _, sv, Vt = scipy.linalg.svd(AE, full_matrices=True, check_finite=False)
    rank = int((sv > sv[0] * max(AE.shape) * np.finfo(float).eps).sum()) if sv.size and sv[0] > 0 else 0
    N = Vt[rank:].T
    if N.shape[1]:
        d = -(N @ (N.T @ theta))
        reach = (start != 0) & (theta * d < 0)
        if reach.any() and np.linalg.norm(d) > 1e-12 * np.sqrt(theta.size):
            with np.errstate(divide="ignore", invalid="ignore"):
                t_k = np.where(reach, -start / d, np.inf)
            k = int(np.argmin(t_k))
            return start + t_k[k] * d, k
    # (A_E^T A_E)^+ = V S^-2 V^T from the SVD of A_E itself (the minimum-norm solution when A_E is rank-deficient
    # and the system consistent: a least-squares solve on the Gram matrix, condition 1e35 for two equal columns,
    # left the KKT on the support off by 37 %), refined twice
    V, inv = Vt[:rank].T, 1.0 / sv[:rank] ** 2
    target = V @ (inv * (V.T @ rhs))
    for _ in range(2):
        target += V @ (inv * (V.T @ (rhs - AE.T @ (AE @ target))))
    return target, None


def _active_set_lasso(A, b, s0, mu):
    r"""The lasso :math:`\min_s \|b - A s\|^2 + \mu \|s\|_1`, column by column, solved exactly by a primal
    active-set method warm-started at ``s0`` (the feature-sign search of Lee, Battle, Raina & Ng 2007).

    On the support E and signs :math:`\theta` of the iterate, the lasso restricted to that pattern is a linear
    system, :math:`s_E = (A_E^T A_E)^{-1} (A_E^T b - \tfrac{\mu}{2} \theta)`; the step goes from the iterate to
    that point, stopping at whichever zero crossing on the way (or the end point) has the lowest true objective,
    and drops the sources it brings to 0.  At the end point of a pattern every source off E is checked
    (:math:`|2 a_k^T r| \le \mu`); the most violating one joins E with the sign that lowers the objective.  Each
    step lowers the objective, so no pattern repeats and the method ends at the exact optimum after finitely many
    steps -- on nearly collinear columns too (duplicated points: twin nodes whose kernel columns agree to 1e-3,
    with large opposite sources), where LARS broke down and coordinate descent crept.  A singular
    :math:`A_E^T A_E` (exactly equal columns, or more sources than rows) is handled by the SVD of :math:`A_E`
    (:func:`_pattern_step`): a step along its null space that lowers the l1 norm, else the minimum-norm
    solution.  Stops at rounding level: when a step
    no longer lowers the objective, or after ``ACTIVE_SET_STEPS`` times the number of columns of A steps."""
    k = A.shape[1]
    G = A.T @ A
    Ab = A.T @ b
    out = np.array(s0, dtype=np.float64)
    for c in range(b.shape[1]):                   # the few columns of Y
        s, q, bc = out[:, c].copy(), Ab[:, c], b[:, c]
        r = bc - A @ s
        obj = float(r @ r + mu * np.abs(s).sum())
        settled = False                           # the iterate is the optimum of its own pattern
        for _ in range(ACTIVE_SET_STEPS * (k + 1)):
            theta = np.sign(s)
            if settled:
                grad = 2.0 * (G @ s - q)          # of the squared loss; optimality: |grad| <= mu off E
                off = np.where(theta == 0, np.abs(grad), 0.0)
                i = int(np.argmax(off)) if k else 0
                if not k or off[i] <= mu * (1 + 1e-12):
                    break
                theta[i] = -np.sign(grad[i])
            E = np.flatnonzero(theta)
            start = s[E]
            target, block = _pattern_step(A[:, E], G[np.ix_(E, E)], q[E] - 0.5 * mu * theta[E], theta[E], start)
            d = target - start
            # zero crossings of the sources already nonzero (a joining source starts at 0 with its sign)
            with np.errstate(divide="ignore", invalid="ignore"):
                t_cross = np.where((start != 0) & (np.sign(target) != theta[E]), -start / d, np.inf)
            ts = np.unique(np.append(t_cross[(t_cross > 0) & (t_cross < 1)], 1.0))
            u = A[:, E] @ d
            r0 = bc - A[:, E] @ start
            quad = r0 @ r0 - 2.0 * ts * (r0 @ u) + ts ** 2 * (u @ u)
            l1 = mu * (np.abs(start[None, :] + ts[:, None] * d[None, :]).sum(axis=1)
                       + np.abs(np.delete(s, E)).sum())
            vals = quad + l1
            j = int(np.argmin(vals))
            if not vals[j] < obj and (ts.size > 1 or block is not None) and vals[0] <= obj + 1e-12 * abs(obj):
                # a source within rounding of 0 that the step would take across it at once (its crossing at t ~
                # 1e-17), or a step along the null space of A_E that ends at once: no measurable decrease; the
                # source leaves the support, and the pattern is solved again without it
                j = 0
            elif not vals[j] < obj:
                if settled:
                    # the joining source i, moved alone to its own minimum (a coordinate step, which lowers the
                    # objective by (|grad_i| - mu)^2 / (4 G_ii) > 0) when the step on the pattern does not
                    si = -(grad[i] + mu * theta[i]) / (2.0 * G[i, i]) if G[i, i] > 0 else 0.0
                    trial = s.copy()
                    trial[i] = si
                    rt = bc - A @ trial
                    val = float(rt @ rt + mu * np.abs(trial).sum())
                    if not val < obj:             # rounding level
                        break
                    s, obj, settled = trial, val, False
                    continue
                settled = True                    # rounding level on the pattern: check the sources off it
                continue
            t = ts[j]
            new = start + t * d
            new[t_cross == t] = 0.0               # the sources this step brings to 0 leave the support
            if t == 1.0 and block is not None:
                new[block] = 0.0
            s[E] = new
            obj = float(vals[j])
            # the optimum of its pattern only at the end point with every sign kept (taking it across a crossing
            # changes the pattern)
            settled = t == 1.0 and block is None and np.array_equal(np.sign(new), theta[E])
        out[:, c] = s
    return out


def _kernel_tv_memory_guard(n, l, t):
    """The dense arrays of graph_kernel_tv with l labels and a working set of t sources, checked before they exist.

    The kernel columns Phi[:, S] (n x l) and the working set's A_T (l x t) with LARS's Gram, copies and path (measured:
    13 n^2 float64 at l = t = n = 700, 49 MiB; 9 of them inside LassoLars.fit).
    """
    memory_guard(8.0 * (float(n) * l + 3.0 * l * t + 8.0 * float(t) * t),
                 f"graph_kernel_tv with {l} labeled nodes and {t} working sources on {n} nodes (the {n} x {l} kernel "
                 f"columns and {t} x {t} lasso systems)",
                 "use fewer labeled nodes, or graph_tv (the sparse incidence operator).")


def graph_kernel_tv(W: Union[GraphLike, GraphKernel], labeled: Indices, Y: ArrayLike,
                    kernel: Optional[Callable] = None, *, alpha: float = 0.5,
                    laplacian: str = "normalized", fidelity: str = "degree", tol: float = TV_TOL,
                    max_iter: int = KERNEL_TV_MAX_ITER, columns: Optional[ArrayLike] = None,
                    filter_tol: float = 1e-8, on_failure: str = "warn", return_info: bool = False,
                    compute_f: bool = True,
                    backend: str = "auto") -> Union[np.ndarray, Tuple[np.ndarray, "TVResult"]]:
    r"""Generalized graph TV with :math:`R = \varphi(L)^{-1}`: an l1 penalty on the kernel's "sources".

    .. math::

        \min_f \; \sum_{j \in S} \lambda_j (y_j - f_j)^2 + \mu \|R f\|_1 ,
        \qquad R = \Phi^{-1} = \varphi(L)^{-1}, \quad \mu = \texttt{alpha},

    the generalized TV of Pena (2017, slides "Generalized TV", :math:`R = g(L)`)
    with :math:`g = 1/\varphi`, :math:`\Phi = \varphi(L)` the reproducing
    kernel of the graph RKHS :math:`\mathcal H_\varphi` (the kernel of
    :func:`~graphrkhs.graph_kernel_ridge`; default
    :func:`~graphrkhs.filters.default_kernel`, whose :math:`1/\varphi` is a
    degree-2 polynomial, so R is a sparse matrix).  The fidelity weights are
    :math:`\lambda_j = \sum_i |R_{ij}|` (``fidelity="degree"``, the rule of
    :func:`graph_tv`: both terms scale alike with :math:`\Phi`, and
    :math:`|f_j - y_j| \le \mu / 2` on S) or 1 (``"uniform"``).

    *Why this operator.*  With the incidence operator (:func:`graph_tv`) the
    minimizer at low label rates is degenerate: cutting a labeled node off its
    neighbours costs :math:`\mu d_j`, a constant, so with a few labels on a
    large graph each class column is a spike on its own labels over a flat
    plateau that carries no class information (p = 1 is far below the
    dimension; Slepcev & Thorpe 2019 show the same for p-Laplacian learning
    with p <= d).  With :math:`R = \Phi^{-1}` the substitution
    :math:`s = R f` turns the problem into a lasso on the sources,

    .. math::

        \min_s \; \|\Lambda^{1/2} (y - \Phi_{S,:} s)\|^2 + \mu \|s\|_1 ,
        \qquad f = \Phi s ,

    so f is a sparse combination of kernel columns, :math:`f = \sum_k s_k
    \Phi_{:,k}` -- the representer form of the slides (after Unser, Fageot &
    Ward 2016) -- smooth away from the labels, where the graph kernel ridge has
    the l2 counterpart :math:`f = \Phi_{:,S}\beta`.  Only the rows
    :math:`\Phi_{S,:} = (\Phi_{:,S})^T` enter: l kernel columns (one
    Chebyshev pass, :func:`~graphrkhs.graph_kernel_columns`).

    *Solver.*  Working sets: start from the sources on S, solve the lasso on
    the working set exactly by LARS (Efron, Hastie, Johnstone & Tibshirani
    2004; :class:`sklearn.linear_model.LassoLars`: a few steps per active
    source, where coordinate descent crawled on these strongly correlated
    kernel columns -- 10 s against 0.07 s with 150 labels on 150 nodes); if
    rounding leaves the gap above ``tol`` (or LARS breaks down or stops early
    on nearly equal columns: duplicated points, twin nodes), the lasso solved
    exactly on LARS's support and signs (one linear system per column, kept
    where the signs agree), then by an exact primal active-set method
    warm-started there (feature-sign search, Lee, Battle, Raina & Ng 2007:
    the linear system of each support and sign pattern, a step to its
    solution or the best zero crossing on the way, the most violating source
    joining; nearly singular supports by the SVD of their columns, singular
    ones along their null space); then check the whole graph: the dual point :math:`\nu = 2 \rho (b - A s)`
    (:math:`A = \Lambda^{1/2}\Phi_{S,:}`, :math:`b = \Lambda^{1/2} y`,
    :math:`\rho \le 1` scaling it into :math:`\|A^T \nu\|_\infty \le \mu`)
    gives the dual value :math:`D = \nu^T b - \|\nu\|^2 / 4` and the relative
    primal-dual gap :math:`(P - D) / P` over all n sources, the stopping rule
    (as in :func:`graph_tv`).  Nodes violating :math:`|A^T \nu| \le \mu`
    before scaling join the working set; without violators the lasso on the
    working set is exact and the gap at rounding level.  On mutual kNN graphs
    of points with duplicates (many small components, twin nodes) coordinate
    descent had crept and stalled there: 31 of 120 random cases missed the
    gap, with objectives up to 137 % above cvxpy's; none of 1200 now
    (tests/solvers/test_tv_kernel.py).  ``p`` of the result is :math:`A^T \nu` (length n,
    :math:`|p| \le \mu`), the dual variable of :func:`graph_tv`'s form
    (:math:`R^T p = 2 \Lambda (y - f)` on S, 0 elsewhere, at the optimum).

    Parameters
    ----------
    W : graph or GraphKernel
        Any form :func:`~graphrkhs.as_adjacency` accepts, or a prebuilt
        :class:`~graphrkhs.GraphKernel` (its response and Laplacian are used;
        ``kernel`` and ``laplacian`` are then ignored), which saves the
        Chebyshev set-up across repeated calls.
    labeled : array of int or bool mask
    Y : ndarray of shape (len(S),) or (len(S), m)
    kernel : filter from :mod:`graphrkhs.filters`, optional
        The response :math:`\varphi` (default :func:`~graphrkhs.filters.default_kernel`).
        ``fidelity="degree"`` needs :math:`1/\varphi` to be a polynomial
        (``kernel.inverse_polynomial()``) for the entries of R.
    alpha : float > 0, default=0.5
        :math:`\mu`; a labeled value moves by at most :math:`\mu/2` (``"degree"``).
    laplacian : {"normalized", "combinatorial"}, default="normalized"
    fidelity : {"degree", "uniform"}, default="degree"
    tol : float > 0, default=1e-4
        Relative primal-dual gap.  The gap is that of the problem with the
        Chebyshev approximation of :math:`\Phi` (``filter_tol``): with
        :math:`R = \Phi^{-1}` dense, the filter's error spreads over every
        node's :math:`\ell_1` term, so the exact problem's objective at the
        returned f can exceed its minimum by more than ``tol`` (about 1e-6
        relative at ``tol=1e-10`` and the default ``filter_tol`` on 40-70
        node graphs, 6e-12 at ``filter_tol=1e-13``); lower ``filter_tol``
        with ``tol``.
    max_iter : int, default=50
        Cap on the working-set rounds (``KERNEL_TV_MAX_ITER``; 2-3 were
        measured on Fashion-MNIST graphs of 2000 to 70000 nodes).
    columns : ndarray of shape (n, len(S)), optional
        :math:`\Phi_{:,S}` if already computed (e.g. once for all the folds
        of a cross-validation); computed otherwise.
    filter_tol : float, default=1e-8
        Accuracy of the Chebyshev passes (kernel columns and :math:`f = \Phi s`).
    on_failure : {"warn", "raise", "ignore"}, default="warn"
    return_info : bool, default=False
        Also return the :class:`TVResult` (with the sources ``s`` of shape
        (n, m) as the extra attribute ``sources``).  The sources can exceed
        :math:`\max |y|` tenfold (the kernel's entries are small): for targets within
        a decade of float64's largest value they can overflow to inf while
        f is finite (f is formed before the solve's units are scaled back;
        an f beyond float64 raises ValueError).
    compute_f : bool, default=True
        False skips the final Chebyshev pass :math:`f = \Phi s`: F is then
        None and the sources (``return_info=True``) are the answer, e.g. for
        a cross-validation that needs f only where kernel columns are known
        (:math:`f_k = (\Phi_{:,k})^T s`).
    backend : {"auto", "numpy", "numba", "scipy", "mpi", "dask"}, default="auto"
        Where the Chebyshev passes run.  Unused for a prebuilt ``GraphKernel``
        (it has its own), but still checked.

    Returns
    -------
    F : ndarray of shape (n,) or (n, m), or None with ``compute_f=False``
        :math:`\Phi s`.  Nodes of components without labels keep the
        minimizer's value 0 there (R does not cancel constants: the mean of
        ``Y`` would raise the objective), with a
        :class:`~graphrkhs.GraphWarning`; a column whose labels have mean 0
        is unchanged by the mean.
    result : TVResult, only with ``return_info=True``

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import graph_kernel_tv
    >>> W = np.diag(np.ones(5), 1); W = W + W.T          # path on 6 nodes
    >>> F, res = graph_kernel_tv(W, [0, 5], np.array([0.0, 1.0]), alpha=0.1, return_info=True)
    >>> bool(res.converged), bool(np.abs(F[[0, 5]] - [0.0, 1.0]).max() <= 0.1 / 2)   # |f_j - y_j| <= mu / 2
    (True, True)
    """
    check_flag(return_info, "return_info")
    # compute_f="False" (truthy) ran the Chebyshev pass and returned f, compute_f=None returned None
    compute_f = check_flag(compute_f, "compute_f")
    from sklearn.exceptions import ConvergenceWarning as SklearnConvergenceWarning
    from sklearn.linear_model import LassoLars

    alpha = check_scalar(alpha, "alpha", low=0, low_inclusive=False)
    tol = check_scalar(tol, "tol", low=0, low_inclusive=False)
    max_iter = check_scalar(max_iter, "max_iter", kind="int", low=1)
    filter_tol = check_scalar(filter_tol, "filter_tol", low=0, low_inclusive=False)
    check_on_failure(on_failure)
    if fidelity not in ("degree", "uniform"):
        raise ValueError(f"fidelity must be 'degree' or 'uniform'; got {fidelity!r}.")
    if laplacian not in ("normalized", "combinatorial"):
        raise ValueError(f"laplacian must be 'normalized' or 'combinatorial'; got {laplacian!r}.")
    phi = default_kernel() if kernel is None else kernel
    if isinstance(W, GraphKernel):
        phi = getattr(W, "phi", phi)
    if not callable(phi):
        raise TypeError("kernel must be a spectral response from graphrkhs.filters (e.g. "
                        f"filters.RegularizedLaplacian(10.0)); got {kernel!r}.")
    poly = phi.inverse_polynomial() if hasattr(phi, "inverse_polynomial") else None
    if fidelity == "degree" and poly is None:
        raise ValueError(f"fidelity='degree' needs the entries of R = 1/phi(L): a kernel whose inverse is a "
                         f"polynomial (kernel.inverse_polynomial(), e.g. filters.Matern or "
                         f"filters.RegularizedLaplacian); {phi!r} has none. Use fidelity='uniform'.")
    check_backend(backend)                  # checked also when a prebuilt kernel (with its own) makes it unused
    if isinstance(W, GraphKernel):          # a prebuilt kernel (its Chebyshev plan is reused)
        K = W
        L = sp.csr_array(K.L, dtype=np.float64)
        W = sp.csr_array(-L)                # the off-diagonal pattern: the graph's edges
        W.setdiag(0)
        W.eliminate_zeros()
    else:
        K = None
    W, S, Y2, was_1d, out_dtype = labeled_graph_problem(W, labeled, Y)
    n, l, m = W.shape[0], S.size, Y2.shape[1]
    _kernel_tv_memory_guard(n, l, np.unique(S).size)         # before the kernel columns
    Y_user, (scale, alpha) = Y2, _unit_scale(Y2, alpha)      # solved in the units of max |y| (_unit_scale)
    Y2 = Y2 / scale
    if K is None:
        L = graph_laplacian(W, laplacian, dtype=np.float64)
        K = GraphKernel(L, phi, tol=filter_tol, input="laplacian", backend=backend)
    if columns is None:
        C = K.columns(S)
    else:
        C = np.asarray(columns, dtype=np.float64)
        if C.shape != (n, l):
            raise ValueError(f"columns must be Phi[:, labeled] of shape ({n}, {l}); got {C.shape}.")
        if not np.isfinite(C).all():
            raise ValueError("columns contains NaN or infinity.")
    if fidelity == "degree":
        lam = np.asarray(abs(_poly_matrix(L, np.asarray(poly, dtype=np.float64))).sum(axis=0)).ravel()[S]
    else:
        lam = np.ones(l)
    sq = np.sqrt(lam)
    b = sq[:, None] * Y2                              # (l, m)
    floor = 1e-8 * lam.sum() * np.maximum((Y2.max(axis=0) - Y2.min(axis=0)) ** 2, np.finfo(float).tiny)
    # the lasso of scikit-learn minimizes (1 / 2l) ||b - A s||^2 + a ||s||_1: a = mu / (2 l)
    lars = LassoLars(alpha=alpha / (2 * l), fit_intercept=False, precompute=True, max_iter=100_000)
    use_lars = True
    T = np.unique(S)                                  # working set: node indices of free sources
    sT = np.zeros((T.size, m))
    gap = np.full(m, np.inf)
    obj = np.full(m, np.inf)
    it, converged = 0, False
    while it < max_iter:
        it += 1
        _kernel_tv_memory_guard(n, l, T.size)
        A_T = np.asfortranarray(sq[:, None] * C[T].T)                # (l, |T|)
        if use_lars:
            with warnings.catch_warnings():
                # its own iteration cap is not the stopping rule: the gap below is
                warnings.simplefilter("ignore", SklearnConvergenceWarning)
                lars.fit(A_T, b if m > 1 else b[:, 0])
            sT = np.asarray(lars.coef_, dtype=np.float64).reshape(m, T.size).T
            r = b - A_T @ sT
            if not np.all(np.isfinite(sT)) or not np.all(
                    (r ** 2).sum(axis=0) + alpha * np.abs(sT).sum(axis=0) <= (b ** 2).sum(axis=0)):
                # worse than s = 0, which every lasso solution beats: LARS broke down on nearly equal
                # columns (duplicated points: twin nodes whose kernel rows differ at the Chebyshev
                # accuracy), its coefficients +-1e9.  The exact active-set method from zero instead.
                use_lars = False
                sT = np.zeros_like(sT)
        if not use_lars:
            # the lasso on the working set solved exactly, warm-started (LARS's refit, or the previous round's
            # optimum with the new sources at 0)
            sT = _active_set_lasso(A_T, b, sT, alpha)
        res = b - A_T @ sT                                            # (l, m)
        corr = 2.0 * (C @ (sq[:, None] * res))                        # A^T (2 res), all n nodes
        cmax = np.abs(corr).max(axis=0)
        rho = np.minimum(1.0, alpha / np.maximum(cmax, np.finfo(float).tiny))
        nu = 2.0 * rho * res
        obj = (res ** 2).sum(axis=0) + alpha * np.abs(sT).sum(axis=0)
        dual = (nu * b).sum(axis=0) - 0.25 * (nu ** 2).sum(axis=0)
        gap = (obj - dual) / np.maximum(obj, floor)
        if (gap <= tol).all():
            converged = True
            break
        inside = np.zeros(n, dtype=bool)
        inside[T] = True
        new = np.flatnonzero((np.abs(corr) > alpha).any(axis=1) & ~inside)
        if new.size:
            pos = np.searchsorted(T, new)
            T = np.insert(T, pos, new)
            sT = np.insert(sT, pos, 0.0, axis=0)
        elif use_lars:
            # LARS rounding, or LARS stopped early on nearly equal columns ("residues are small": an edge labeled
            # -1/2, +1/2, kernel columns 312.62 / 312.38, both sources left at 0).  First the lasso's exact
            # solution on LARS's support and signs, one linear system per column (kept where its signs agree and
            # its objective is not worse; with most nodes labeled, the digits at 173 labels per class, this alone
            # settles most columns), then the exact active-set method from there
            sT = _refit_on_support(A_T, b, sT, alpha)
            use_lars = False
        else:                                   # exact on the working set, no violator outside: rounding level
            break
    # back to the units of y.  The sources of f = Phi s can exceed max |y| by far (Phi's entries are small), and
    # f = Phi s is formed in the solve's units before the scale: K.matmat(s) on the scaled-back sources raised
    # "X contains NaN or infinity" for finite targets near 1e308 (s overflowed, f did not)
    s_unit = np.zeros((n, m))
    s_unit[T] = sT
    obj_unit = obj
    with np.errstate(over="ignore", under="ignore"):
        s = s_unit * scale
        p = rho * corr * scale
        obj = obj * scale * scale
    if not converged:
        report_failure(f"graph_kernel_tv did not reach the relative duality gap tol={tol:g} in {it} working-set "
                       f"rounds (worst gap {gap.max():.2e}); raise max_iter or loosen tol.", on_failure)
    if compute_f:
        with np.errstate(over="ignore"):
            F_unit = K.matmat(s_unit)
            F = F_unit * scale
        if not np.isfinite(F).all():
            raise ValueError(f"graph_kernel_tv: the fitted f overflows float64 (max |y| = "
                             f"{float(np.max(np.abs(Y_user))):.3g}); divide Y by its largest magnitude and "
                             "multiply f back.")

        def objective(G):
            # G differs from f = Phi s on label-free nodes only (the data term is unchanged).  Phi = phi(L) and
            # R = phi(L)^{-1} are block diagonal over the components, and the sources s are 0 on a label-free
            # component C, where f is 0: R G = s + R (G - f) adds alpha ||R_CC (G - f)_C||_1 > 0 to the objective
            # wherever G moves f (R_CC invertible).  No pass of 1/phi is needed (it had cost a Chebyshev series
            # of up to max_order terms, with an AccuracyWarning, for a kernel without an inverse polynomial)
            return np.where(np.any(G - F_unit != 0, axis=0), np.inf, obj_unit)

        # R = phi(L)^{-1} never cancels constants (it is invertible): the mean of the labels on a label-free
        # component raised the objective (7 nodes, two components: 1.061 against the reported 0.124,
        # converged=True).  The rule of graph_tv: those columns keep the minimizer (0 there).
        keep = _label_free_keep(W, S, Y2, F_unit, obj_unit, tol, floor, objective)
        F_kept = F[:, keep].copy()
        if not keep.all():
            _orphans(W, S, Y_user, F)
        F[:, keep] = F_kept
        F = F.astype(out_dtype, copy=False)
        result = TVResult(F[:, 0] if was_1d else F, None, obj, gap, it, converged)
    else:
        result = TVResult(None, None, obj, gap, it, converged)
    result.p = p[:, 0] if was_1d else p
    result.sources = s[:, 0] if was_1d else s
    return (result.f, result) if return_info else result.f
