r"""Class sizes on graphs: the size-constrained assignment (auction) and the MBO schemes built on it.

* :func:`size_constrained_assignment` -- the labels that maximize the total score
  :math:`\sum_i S_{i, c(i)}` among all labelings with given class sizes (a
  transportation problem), by Bertsekas' auction algorithm with
  :math:`\varepsilon`-scaling, one bid at a time in compiled code (numba).  Its dual variables (the class *prices* :math:`p`) make the
  rule portable: :math:`\arg\max_c (S_{ic} - p_c)` labels any node, fitted or new.
* :func:`poisson_mbo` -- Poisson MBO (Calder, Cook, Thorpe & Slepcev, ICML 2020,
  Algorithm 2): Poisson learning, then rounds of explicit heat steps with the
  Poisson source as a forcing term, each followed by the class-size projection.
* :func:`volume_mbo` -- volume-constrained MBO (Jacobs, Merkurjev & Esedoglu,
  J. Comput. Phys. 354, 2018, "Auction dynamics"): diffusion of the class
  indicators, then the assignment with exact class volumes by an auction; labeled
  nodes stay fixed.
* :func:`cut_ssl` -- CutSSL (Holtz, Chen, Wan, Cheng & Mishne, NeurIPS 2024): the
  size-constrained minimum cut as a nonconvex quadratic program over the
  polytope of class indicators with the class sizes, by ADMM along a homotopy
  from the convex (Laplace learning with sizes) problem.
"""

from typing import Optional, Tuple, Union

import numpy as np
import scipy.sparse as sp
from numba import njit

from .._core.cg import conjugate_gradient
from .._core.labels import (_orphans, check_labeled_classes_have_priors, label_free_mask,
                             warn_untrusted_label_proportions)
from .._core.progress import logger, progress_bar, verbosity
from .._core.types import ArrayLike, GraphLike, Indices
from .._core.validation import (ConvergenceWarning, GraphRKHSWarning, check_class_priors, check_flag, check_matrix,
                                check_scalar, warn)
from ..graphs import connected_components
from ..graphs import laplacian as graph_laplacian
from ._common import check_normal_degrees, labeled_graph_problem
from ._graph import poisson_learning

__all__ = ["size_constrained_assignment", "class_sizes", "poisson_mbo", "volume_mbo", "cut_ssl"]

#: Default budget of :func:`size_constrained_assignment`'s bidding rounds: ``max(MIN_AUCTION_ROUNDS,
#: AUCTION_ROUNDS_PER_NODE * n)`` (13 times the 1.55 n rounds measured on 69990 nodes).
MIN_AUCTION_ROUNDS = 100000
AUCTION_ROUNDS_PER_NODE = 20

#: :func:`poisson_mbo` and :func:`volume_mbo` warn (``ConvergenceWarning``) when their last round still moved more
#: than this fraction of the projected nodes; fewer moves are logged (INFO) and reported by ``return_info``'s
#: ``converged`` only.  The MBO rounds approach their fixed point with a long tail: on Fashion-MNIST (70000 nodes,
#: the recommended classifier's graph) Poisson MBO's 20 rounds (the paper's N_outer) left 6-12 label changes
#: (0.01-0.02 %), and the fixed point took 23-42 rounds with the same accuracy to 0.03 points, so every default
#: fit of that data set warned.
MBO_SETTLED_FRACTION = 1e-3

#: Smallest relative residual :func:`cut_ssl` asks of its block solves (10 float64 epsilons): a smaller
#: ``cg_tol`` is raised to it (see its docstring).
CG_TOL_FLOOR = 10 * float(np.finfo(np.float64).eps)

#: Most values of :func:`cut_ssl`'s schedule ``s``.  Each is a stage of at least ``min(patience, max_iter)``
#: ADMM iterations (50 by default), so 1000 stages are at least 50000 iterations: 45 s on 600 nodes (20
#: stages of linspace(0, 0.5) took 0.9 s), hours on 70000 (500 iterations took about 80 s on Fashion-MNIST).
MAX_CUT_STAGES = 1000

#: :func:`cut_ssl` raises ``FloatingPointError`` when its primal residual exceeds this (a diverging ADMM: the
#: rows of X and Z are class indicators, so the residual is of order 1 while the iteration is sound).
DIVERGED_RESIDUAL = 1e6


def class_sizes(class_priors: ArrayLike, n: int) -> np.ndarray:
    r"""Integer class sizes :math:`n_c` with :math:`\sum_c n_c = n` closest to :math:`n b_c`
    (largest remainders: each :math:`n_c` is :math:`\lfloor n b_c \rfloor` or one more).

    Parameters
    ----------
    class_priors : array of shape (k,)
        Class proportions b (non-negative, summing to 1).
    n : int
        Number of nodes to share out.

    Returns
    -------
    sizes : ndarray of int64, shape (k,)

    Examples
    --------
    >>> from graphrkhs.solvers import class_sizes
    >>> class_sizes([0.5, 0.25, 0.25], 10)
    array([5, 3, 2])
    """
    n = int(check_scalar(n, "n", kind="int", low=0))
    b = check_class_priors(class_priors, np.size(class_priors))
    exact = b / b.sum() * n
    sizes = np.floor(exact).astype(np.int64)
    rest = n - int(sizes.sum())
    if rest > 0:
        # stable order: ties go to the class that comes first
        order = np.argsort(-(exact - sizes), kind="stable")
        sizes[order[:rest]] += 1
    return sizes


def _auction(S, sizes, eps_final, max_rounds):
    """Auction with eps-scaling for max sum S[i, c_i] subject to |c| = sizes[c] (sum sizes = n).

    Returns (labels, prices, n_rounds).  Each class is ``sizes[c]`` identical objects (slots), kept in a
    min-heap of the prices paid for them; a bidder pays the price of the cheapest slot of its best class
    (the class price ``p_c``), raised by its margin over its second-best class plus eps, and evicts the
    slot's holder.  Bids are made one node at a time (Gauss-Seidel: each bid sees the prices of the bids
    before it; Bertsekas 1988), in compiled code; a *round* is one pass over the nodes that were free
    when it began.  The previous, vectorized (Jacobi) auction made every free node bid on the same prices
    and needed 19089-32078 rounds (4-14 s) on one Fashion-MNIST assignment of 69990 nodes.
    """
    n, k = S.shape
    empty = sizes == 0
    if empty.any() and not empty.all():
        # classes of size 0 take no node: auction the others, then price the empty ones out of reach
        active = np.flatnonzero(~empty)
        # each row less its maximum over the classes auctioned (as size_constrained_assignment does over all
        # of them): with the row maximum in an empty class, scores of -0.25 that differ by 1e-17 had bids of
        # eps ~ 1e-32 lost to rounding in S - p, and the auction cycled to max_iter (a row shift changes no labeling)
        Sa = S[:, active]
        lab, p, rounds = _auction(Sa - Sa.max(axis=1, keepdims=True), sizes[active], eps_final, max_rounds)
        span = float(S.max() - S.min()) if n else 0.0
        prices = np.full(k, p.max() + 2.0 * span + 1.0)
        prices[active] = p
        return active[lab], prices, rounds
    prices = np.zeros(k)
    span = float(S.max() - S.min()) if n else 0.0
    labels = np.zeros(n, dtype=np.int64)
    if k == 1 or n == 0 or span == 0.0:
        if span == 0.0 and k > 1:
            labels = np.repeat(np.arange(k), sizes)
        return labels, prices, 0
    eps_final = max(eps_final * span, 1e-15 * span)
    # every index the compiled loop reads is checked here: S is (n, k) float64 and C-ordered, the sizes are
    # k non-negative int64 summing to n (size_constrained_assignment's checks), so the slot offsets stay in [0, n]
    S = np.ascontiguousarray(S, dtype=np.float64)
    sizes = np.ascontiguousarray(sizes, dtype=np.int64)
    if sizes.shape != (k,) or (sizes < 1).any() or int(sizes.sum()) != n:
        raise ValueError("internal: _auction needs k positive sizes summing to n")
    labels, prices, rounds = _auction_kernel(S, sizes, span / 4.0, eps_final, int(max_rounds))
    if rounds > max_rounds:
        raise RuntimeError("auction did not converge")  # caught by the caller
    return labels, prices, rounds


@njit(cache=True, nogil=True)
def _auction_kernel(S, sizes, eps, eps_final, max_rounds):  # pragma: no cover - compiled (tested through _auction)
    """The bidding of :func:`_auction` (its arguments checked there).  Returns rounds = max_rounds + 1 when
    the budget ran out."""
    n, k = S.shape
    start = np.zeros(k + 1, dtype=np.int64)
    for c in range(k):
        start[c + 1] = start[c] + sizes[c]
    price = np.zeros(n)                  # slot prices, class c's heap in price[start[c]:start[c + 1]]
    owner = np.empty(n, dtype=np.int64)
    labels = np.empty(n, dtype=np.int64)
    free = np.empty(n, dtype=np.int64)
    evicted = np.empty(n, dtype=np.int64)
    class_price = np.zeros(k)
    rounds = 0
    while True:
        # a scaling phase: every node free; each class's slots start at its price (the cheapest slot's)
        for c in range(k):
            for s in range(start[c], start[c + 1]):
                price[s] = class_price[c]
        owner[:] = -1
        labels[:] = -1
        for i in range(n):
            free[i] = i
        n_free = n
        while n_free > 0:
            rounds += 1
            if rounds > max_rounds:
                return labels, class_price, rounds
            n_evicted = 0
            for t in range(n_free):
                i = free[t]
                best, second, c_best = -np.inf, -np.inf, -1
                for c in range(k):
                    v = S[i, c] - price[start[c]]
                    if v > best:
                        second = best
                        best = v
                        c_best = c
                    elif v > second:
                        second = v
                top = start[c_best]
                bid = price[top] + (best - second) + eps
                if not bid > price[top]:          # eps lost to the price's rounding: the smallest rise
                    bid = np.nextafter(price[top], np.inf)
                held = owner[top]
                if held >= 0:
                    labels[held] = -1
                    evicted[n_evicted] = held
                    n_evicted += 1
                labels[i] = c_best
                # the cheapest slot now costs the bid: sift it down class c_best's min-heap
                m = sizes[c_best]
                pos = 0
                while True:
                    child = 2 * pos + 1
                    if child >= m:
                        break
                    if child + 1 < m and price[top + child + 1] < price[top + child]:
                        child += 1
                    if price[top + child] >= bid:
                        break
                    price[top + pos] = price[top + child]
                    owner[top + pos] = owner[top + child]
                    pos = child
                price[top + pos] = bid
                owner[top + pos] = i
            for t in range(n_evicted):
                free[t] = evicted[t]
            n_free = n_evicted
        for c in range(k):
            class_price[c] = price[start[c]]
        if eps <= eps_final:
            return labels, class_price, rounds
        eps = max(eps / 8.0, eps_final)


def _separating_prices(S, labels, k):
    r"""Prices p with :math:`\arg\max_c (S_{ic} - p_c) = \text{labels}_i` for every i, by the widest
    margin, or None when no price vector separates the labeling (ties, or a labeling that is not
    optimal for its class sizes).

    The labeling is separated with margin :math:`\delta` iff :math:`p_j - p_c \ge A_{cj} + \delta`
    for all classes :math:`c \ne j`, :math:`A_{cj} = \max_{i : \text{labels}_i = c} (S_{ij} - S_{ic})`
    (a system of difference constraints).  It is feasible iff every cycle of the class graph with
    edge weights :math:`A + \delta` has non-positive weight, so the widest margin is
    :math:`\delta^* = -\lambda^*`, :math:`\lambda^*` the maximum cycle mean of A (Karp, Discrete
    Math. 23, 1978).  With :math:`\delta = \delta^*/2` the longest paths from a zero source
    (Bellman-Ford, k rounds) are prices under which every node is :math:`\delta^*/2` inside its
    class -- the auction's own prices leave each class's price-setting node :math:`\varepsilon`
    outside it, so their plain argmax misses the sizes by up to k - 1 nodes.
    """
    n = S.shape[0]
    A = np.full((k, k), -np.inf)
    for c in range(k):
        members = labels == c
        if members.any():
            Sc = S[members]
            A[c] = (Sc - Sc[:, [c]]).max(axis=0)
    np.fill_diagonal(A, -np.inf)         # no constraint of a class on itself
    # Karp on the class graph plus a source joined to every class by a zero edge (N = k + 1 nodes):
    # D[m, v] = the heaviest walk of m edges from the source to v.
    N = k + 1
    D = np.full((N + 1, k), -np.inf)
    D[1] = 0.0
    for m in range(2, N + 1):
        D[m] = (D[m - 1][:, None] + A).max(axis=0)
    lam = -np.inf
    with np.errstate(invalid="ignore"):
        for v in np.flatnonzero(np.isfinite(D[N])):
            ok = np.isfinite(D[1:N, v])
            m = np.arange(1, N)[ok]
            lam = max(lam, float(np.min((D[N, v] - D[m, v]) / (N - m))))
    span = float(S.max() - S.min()) if n else 0.0
    delta = span + 1.0 if lam == -np.inf else -lam / 2.0   # no cycle: any margin is feasible
    if not delta > 0:
        return None
    p = np.zeros(k)
    for _ in range(k):                   # no positive cycle: k rounds reach the longest paths
        cand = (p[:, None] + A + delta).max(axis=0)
        p = np.maximum(p, cand)
    if not np.array_equal((S - p).argmax(axis=1), labels):   # margins lost to rounding: not separated
        return None
    return p


def size_constrained_assignment(S: ArrayLike, sizes: ArrayLike, *, tol: float = 1e-10,
                                max_iter: Optional[int] = None) -> Tuple[np.ndarray, np.ndarray]:
    r"""Labels with given class sizes that maximize the total score (auction algorithm).

    Solves the transportation problem

    .. math::

        \max_{c : \{1..n\} \to \{1..k\}} \sum_i S_{i, c(i)}
        \quad \text{subject to} \quad |\{i : c(i) = j\}| = n_j ,

    by the auction algorithm (Bertsekas 1988; for classes of many identical
    "objects" as in the volume-constrained MBO of Jacobs, Merkurjev & Esedoglu
    2018) with :math:`\varepsilon`-scaling down to
    :math:`\varepsilon = \mathrm{tol} \cdot (\max S - \min S)`: the labeling is
    within :math:`n \varepsilon` of the optimum, and every node's class is within
    :math:`\varepsilon` of its best class at the final prices :math:`p`
    (:math:`\varepsilon`-complementary slackness).  The prices are the dual
    variables: the shift of each class's score that makes the plain argmax
    respect the sizes.  The auction's own prices leave each class's
    price-setting node :math:`\varepsilon` short of its class; they are then
    replaced by the prices that separate the labeling with the widest margin
    :math:`\delta`, :math:`S_{i,c(i)} - p_{c(i)} \ge S_{ij} - p_j + \delta`
    for all :math:`j \ne c(i)` (difference constraints on the k prices; the
    widest :math:`\delta` is minus the maximum cycle mean of the class graph,
    Karp 1978; prices at half of it by Bellman-Ford), so that
    :math:`\arg\max_c (S_{ic} - p_c)` reproduces the labels, and the sizes,
    exactly.  When no price vector separates the labeling (exact score ties,
    or a labeling within :math:`n \varepsilon` but not at the optimum) the
    auction's prices are kept, and the argmax differs from the labels only at
    :math:`\varepsilon`-ties.

    Parameters
    ----------
    S : array of shape (n, k)
        Scores (larger is better), finite.
    sizes : array of int, shape (k,)
        Class sizes, non-negative, summing to n (see :func:`class_sizes`).
    tol : float, default=1e-10
        Final :math:`\varepsilon` relative to the score range.
    max_iter : int or None, default=None
        Cap on bidding rounds (over all scaling phases); None:
        :math:`\max(10^5, 20 n)`.  A round is one pass over the nodes
        that were free when it began.  The rounds grow faster than n: 815 /
        3715 / 30312 for 2000 / 20000 / 69990 rows of one problem (Poisson
        learning's scores on Fashion-MNIST, 1 label per class, uniform
        priors; about 0.1 s for the 69990 rows).

    Returns
    -------
    labels : ndarray of int64, shape (n,)
        Class index of every node; ``np.bincount(labels, minlength=k) == sizes``.
    prices : ndarray of shape (k,)
        Class prices :math:`p`.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs.solvers import size_constrained_assignment
    >>> S = np.array([[0.9, 0.1], [0.8, 0.2], [0.7, 0.3]])
    >>> labels, prices = size_constrained_assignment(S, [2, 1])
    >>> labels                                  # the node that loses least moves to class 1
    array([0, 0, 1])
    """
    if sp.issparse(S):
        raise TypeError(f"S must be a dense (n, k) score array; got a sparse {type(S).__name__} (read as a 0-d object "
                        "array): pass S.toarray().")
    S = np.asarray(S)
    if S.dtype.kind not in "fiu" or S.ndim != 2:
        raise ValueError(f"S must be a real (n, k) score matrix; got dtype {S.dtype} and shape {S.shape}.")
    S = S.astype(np.float64)
    if not np.isfinite(S).all():
        raise ValueError("S must be finite (NaN or inf scores found).")
    n, k = S.shape
    if k == 0:
        raise ValueError("S has no columns (classes).")
    if n:
        # the prices are differences of scores, up to about 2 (k + 1) times the score range: beyond
        # float64's range the bids overflowed (inf prices, labels not optimal)
        with np.errstate(over="ignore"):
            reach = np.abs(S).max() + 2.0 * (k + 2) * (S.max() - S.min())
        if not np.isfinite(reach):
            raise ValueError(f"S's scores (max |S| = {np.abs(S).max():.3g}) are too large for the auction's prices in "
                             "float64; divide S by a positive constant (the optimal labels do not change).")
    sizes = np.asarray(sizes)
    if sizes.shape != (k,) or sizes.dtype.kind not in "iu" and not (
            sizes.dtype.kind == "f" and np.all(sizes == np.round(sizes))):
        raise ValueError(f"sizes must be {k} non-negative integers (one per column of S); got {sizes!r}.")
    sizes = sizes.astype(np.int64)
    if (sizes < 0).any() or int(sizes.sum()) != n:
        raise ValueError(f"sizes must be non-negative and sum to the number of rows of S ({n}); got {sizes!r} "
                         f"(sum {int(sizes.sum())}).")
    tol = check_scalar(tol, "tol", low=0, low_inclusive=False)
    # a budget that grows with n (see max_iter): a fixed 1e5 stopped class-priors fits on 70000 nodes
    max_iter = max(MIN_AUCTION_ROUNDS, AUCTION_ROUNDS_PER_NODE * n) if max_iter is None else \
        check_scalar(max_iter, "max_iter", kind="int", low=1)
    try:
        # a constant added to a row changes no labeling: the auction runs on S minus each row's maximum,
        # so that its bids and prices are of the size of the score differences (on scores near 0.5 that
        # differ by 3e-16 the bids of eps = 3e-26 were lost to rounding in S - p, and it cycled to max_iter)
        labels, prices, _ = _auction(S - S.max(axis=1, keepdims=True) if n else S, sizes, tol, max_iter)
    except RuntimeError:
        raise RuntimeError(f"the auction did not finish within max_iter={max_iter} bidding rounds; "
                           "raise max_iter or tol.") from None
    # the auction's prices leave each class's price-setting node eps outside it: replace them, when the
    # labeling allows it, by prices that separate it (then argmax(S - p) has the sizes exactly)
    exact = _separating_prices(S, labels, k) if n else None
    return labels, (prices if exact is None else exact)


def _report_unsettled(solver, max_iter, n_changed, n_projected):
    """The MBO loop ended at ``max_iter`` with ``n_changed`` of ``n_projected`` labels still moving: a
    ConvergenceWarning above :data:`MBO_SETTLED_FRACTION` of them, else an INFO record (a tail of a few nodes)."""
    message = (f"{solver}: labels still changed in round {max_iter} ({n_changed} node(s) of {n_projected})")
    if n_changed > MBO_SETTLED_FRACTION * n_projected:
        warn(message + "; raise max_iter.", ConvergenceWarning)
    else:
        logger.info("%s; at most %g of the nodes, the tail of the rounds' approach to their fixed point: not warned.",
                    message, MBO_SETTLED_FRACTION)


def _argmax_is(V, labels):
    """V with each row's entry of ``labels`` raised to just above the row maximum where it is not
    already the (first) argmax: the rows the class prices of the assignment leave tied (identical
    rows split between classes; at most the auction's epsilon), so that argmax(V) is ``labels`` and has
    the class sizes."""
    off = np.flatnonzero(V.argmax(axis=1) != labels)
    if off.size:
        V[off, labels[off]] = np.nextafter(V[off].max(axis=1), np.inf)
    return V


def _keep_on_tie(V, prev, new, sizes):
    """``prev`` when it has the class ``sizes`` and scores as much as the projection's labeling ``new``
    on the scores V (up to the auction's tolerance), else ``new``.

    Exactly tied rows (identical nodes) are assigned arbitrarily by the auction: on the complete graph
    K_8 with two labels the 6 unlabeled nodes swapped classes every round, and the MBO never reached a
    fixed point.  An equally good previous labeling is kept, so the iteration settles.
    """
    if np.array_equal(prev, new) or not np.array_equal(np.bincount(prev, minlength=sizes.size), sizes):
        return new
    rows = np.arange(V.shape[0])
    gain = float(V[rows, new].sum() - V[rows, prev].sum())
    # the auction is optimal within n eps (eps = 1e-10 of the score range), the sums within their rounding
    slack = V.shape[0] * (1e-10 * float(V.max() - V.min()) + 8 * np.finfo(np.float64).eps * float(np.abs(V).max()))
    return prev if gain <= slack else new


def _in_dtype(F, dtype):
    """F in the dtype of the input Y (as every transductive solver returns), each row's argmax kept:
    float32 rounding merged scores that the class prices (or a nextafter) had just separated."""
    if F.dtype == dtype:
        return F
    labels = F.argmax(axis=1)
    return _argmax_is(F.astype(dtype), labels)


def _mixed_spread(U, comp, labels, free):
    """The largest spread (max - min over the nodes, largest over the classes) of the diffused indicators U
    over a connected component that holds free nodes and at least two classes (None: no such component).

    U's rows are averages of indicators (I - tau L is stochastic), so the spread is at most 1; a spread at
    rounding level means the diffusion mixed the component: its labels then follow rounding."""
    if not free.any():
        return None
    held = np.unique(comp[free])
    idx = np.flatnonzero(np.isin(comp, held))
    order = idx[np.argsort(comp[idx], kind="stable")]
    c = comp[order]
    starts = np.flatnonzero(np.r_[True, c[1:] != c[:-1]])
    lab = labels[order]
    mixed = np.maximum.reduceat(lab, starts) != np.minimum.reduceat(lab, starts)   # >= 2 classes
    if not mixed.any():
        return None
    Uo = U[order]
    spread = np.maximum.reduceat(Uo, starts, axis=0) - np.minimum.reduceat(Uo, starts, axis=0)
    return float(spread[mixed].max())


def _heat_steps(P, U, n_steps, force=None):
    r"""``n_steps`` explicit heat steps :math:`U \leftarrow P U` (:math:`+` ``force``), the steps after the
    iterates start to repeat skipped: the result is bit for bit that of all the steps.

    The steps are a deterministic map of floating-point arrays, so an iterate equal (bit for bit) to an
    earlier one starts a cycle: :math:`U_t = U_c` (:math:`c < t`) gives :math:`U_{t+s} = U_{c+s}` for every
    :math:`s`, and the last iterate is :math:`U_{t+r}`, :math:`r = (n - t) \bmod (t - c)`: r more steps
    instead of :math:`n - t`.  A diffusion that has converged in floating point repeats: its steady state
    rounded (a fixed point; with :math:`\tau = 1 / \max_i d_i` one entered after 53 steps and found at step
    64 on two dense 6-node classes, about 350000 steps on 200 points in two Gaussian blobs, spectral gap
    :math:`\tau \lambda_2 = 7.5 \cdot 10^{-5}`) or, where :math:`I - \tau L` has the
    eigenvalue -1 (a regular bipartite component), a cycle of period 2.  Cycles are found as by Brent's
    algorithm (R. P. Brent, BIT 20, 1980): the iterate at each power-of-two step is kept and each later one
    compared with it (one row first, then the whole array: a few % of a sparse product), so a cycle entered
    at step e is found by step 2 e plus its period.  A diffusion that never repeats -- a forced one whose
    forcing has a nonzero mean on a component, so that U grows linearly there (``poisson_mbo`` centres its
    forcing per component, so not its own) -- runs all the steps.

    Returns
    -------
    U : ndarray
        The iterate after ``n_steps`` steps.
    repeat : tuple (c, p) or None
        The step c by which the iterates had entered a cycle of period p (so that every number of steps
        from c on with the same remainder modulo p gives this U), or None when all the steps ran.
    """
    saved, c, t, repeat = U, 0, 0, None
    while t < n_steps:
        U = P @ U if force is None else P @ U + force
        t += 1
        if U[0, 0] == saved[0, 0] and np.array_equal(U, saved):
            period = t - c
            repeat = (c, period)
            for _ in range((n_steps - t) % period):
                U = P @ U if force is None else P @ U + force
            break
        if t == 2 * c or c == 0:
            saved, c = U, t
    return U, repeat


def _repeat_words(repeat, n_inner):
    """The cycle ``(c, p)`` of :func:`_heat_steps` in words, with the fewest steps that give the same result."""
    c, p = repeat
    what = "a fixed point in floating point" if p == 1 else f"a cycle of {p} steps"
    return f"{what}; n_inner={c + (n_inner - c) % p} gives the same result"


def _warn_steady(solver, n_inner, repeat):
    """Poisson MBO's forced heat steps reached their steady state (rounded) within ``n_inner``: warn once."""
    c, p = repeat
    warn(f"{solver}: the forced heat steps reached their steady state in floating point by step {c} (a fixed "
         f"point: later steps repeat it), so the rest of the n_inner={n_inner} steps were skipped, with the same "
         f"result (as n_inner={c}). The steady state depends on the round's labels only through how many nodes of "
         "each class each connected component holds, so the rounds project (nearly) the same scores and the MBO's "
         f"label dynamics are lost; lower n_inner (below {c}; the paper's 40 diffuses briefly).", GraphRKHSWarning)


def _mbo_setup(W, labeled, Y, class_priors, solver):
    W, S, Y2, was_1d, out_dtype = labeled_graph_problem(W, labeled, Y)
    n, k = W.shape[0], Y2.shape[1]
    if S.size == 0:
        raise ValueError("labeled is empty: MBO needs at least one labeled node.")
    if k < 2:
        # a 1-D Y of class codes (0, 1, ...) was read as one column of values
        raise ValueError(f"Y must hold one-hot class indicators of shape (len(labeled), k), one column per class "
                         f"and at least two (e.g. np.eye(k)[codes] for integer class codes); got Y of shape "
                         f"{np.shape(Y)}.")
    # exactly 0 / 1: Poisson MBO's forcing takes Y's values as weights (a row (0.2, 0) moved other labels)
    if not (np.isin(Y2, (0.0, 1.0)).all() and (Y2.sum(axis=1) == 1).all()):
        raise ValueError("Y must hold one-hot class indicators (one entry 1 per labeled row, the others 0; e.g. "
                         "np.eye(k)[codes] for integer class codes).")
    codes = Y2.argmax(axis=1)
    if class_priors is None:
        # the labeled proportions as class sizes: warn when they rest on too few labels to be trusted
        warn_untrusted_label_proportions(np.bincount(codes, minlength=k), n)
        class_priors = np.bincount(codes, minlength=k) / codes.size
    b = check_class_priors(class_priors, k)
    # before any heavy work: a contradiction, not a rounding
    check_labeled_classes_have_priors(b, np.bincount(codes, minlength=k))
    # the diagonal carries no diffusion; drop it as the Laplacian does
    W = sp.csr_array(W)
    W.setdiag(0)
    W.eliminate_zeros()
    check_normal_degrees(W, solver)
    return W, S, Y2, codes, b, n, k, out_dtype


def poisson_mbo(W: GraphLike, labeled: Indices, Y: ArrayLike, *, class_priors: Optional[ArrayLike] = None,
                mu: float = 1.0, n_inner: int = 40, max_iter: int = 20, tol: float = 1e-6,
                preconditioner: Union[str, None] = "auto", verbose: Optional[bool] = None,
                return_info: bool = False) -> Union[np.ndarray, Tuple[np.ndarray, dict]]:
    r"""Poisson MBO (Calder, Cook, Thorpe & Slepcev, ICML 2020, Algorithm 2).

    Starts from the labels of Poisson learning (:func:`poisson_learning`,
    argmax of its scores) as one-hot :math:`U`, then repeats ``max_iter``
    times: ``n_inner`` explicit steps of the forced heat equation

    .. math::

        U \leftarrow U - \tau \big(L U - \mu B\big), \qquad
        \tau = 1 / \max_i d_i, \qquad
        B = \sum_{j \in S} (y_j - \bar y)\, \delta_j^\top ,

    (:math:`L = D - W`; :math:`\tau \le 1/\max d` keeps the step stable), followed
    by the class-size projection: :math:`U` becomes the one-hot labels of the
    assignment with sizes :math:`u' b_c` (the unlabeled reached nodes') that maximizes :math:`\sum_i U_{i,c(i)}`
    (:func:`size_constrained_assignment`; the paper, and GraphLearning, find
    multiplicative class weights by gradient steps until the sizes match to a
    tolerance -- here the sizes are met exactly).  Labeled nodes keep their
    classes (as in :func:`volume_mbo` and :func:`cut_ssl`): the projection
    labels the other reached nodes, with the sizes of the priors.  Stops early at a fixed point (no label changes in a round;
    where the previous labels score as much as the projection's, exact ties,
    they are kept).

    Parameters
    ----------
    W, labeled
        As in :func:`harmonic_solution`.
    Y : ndarray of shape (l, k)
        One-hot class indicators of the labeled nodes, k >= 2
        (``np.eye(k)[codes]`` for integer class codes; a 1-D Y is refused).
    class_priors : array of shape (k,), optional
        Class proportions b (non-negative, summing to 1); None: the labeled
        proportions (a :class:`~graphrkhs.GraphRKHSWarning` when they are
        unequal and some class's rests on 3 labels or fewer, see
        :func:`cut_ssl`).  A labeled class needs :math:`b_c > 0` (ValueError).
        The proportions of the :math:`u'` unlabeled nodes some label reaches:
        class c gets :math:`u' b_c` of them (:func:`class_sizes`), the labeled
        nodes are not counted -- the rule of every classifier's
        ``class_priors``.  The paper sizes all nodes; for proportions
        :math:`\beta` of all :math:`N` nodes with :math:`l_c` labels of class c
        pass :math:`b_c = (N \beta_c - l_c) / (N - l)`.
    mu : float > 0, default=1.0
        Weight of the Poisson forcing (the paper's fidelity parameter and its
        default), in the units of the edge weights: scaling W by c acts as
        scaling ``mu`` by 1/c (1 suits weights of order 1, as those of
        :func:`~graphrkhs.knn_graph` and GraphLearning's graphs).
    n_inner : int, default=40
        Heat steps per round (the paper's :math:`N_{inner}` = 40).  Steps
        that would only repeat earlier ones are skipped, with the same
        result bit for bit: the steps are a deterministic map, so once an
        iterate equals an earlier one (the forced heat equation's steady
        state reached in floating point, or a cycle) the rest is known; it
        is found at a cost of a few % of a step (Brent's cycle detection, see
        ``_heat_steps``).  A steady state reached within ``n_inner`` makes
        the rounds project (nearly) the same scores, whatever the labels: a
        :class:`~graphrkhs.GraphRKHSWarning` then names the step it was
        reached by and asks for a smaller ``n_inner`` (``n_inner=10**9`` on
        two dense 6-node classes stopped after 64 steps, where the steps
        would have taken hours).  The forcing is centred on each connected
        component (its labels less their component's mean, as in
        :func:`~graphrkhs.poisson_learning`), so it sums to zero on every
        component and the iterates stay bounded; a slowly mixing graph still
        runs many steps before it repeats.
    max_iter : int, default=20
        Rounds (the paper's :math:`N_{outer}` = 20); stops earlier at a fixed
        point.  A :class:`~graphrkhs.ConvergenceWarning` when the last round
        still moved more than ``MBO_SETTLED_FRACTION`` (0.1 %) of the projected
        nodes; a smaller tail is only logged (``return_info``'s ``converged``
        stays False).
    tol, preconditioner
        Of the initial Poisson solve.
    verbose : bool, optional
        Progress bar of the rounds.
    return_info : bool, default=False
        Also return a dict: ``n_iter`` (rounds run), ``changed`` (labels changed
        by each round's projection), ``converged`` (a fixed point was reached;
        a :class:`~graphrkhs.ConvergenceWarning` when not).

    Returns
    -------
    F : ndarray of shape (n, k)
        (float32 for float32 ``Y``, else float64, as :func:`harmonic_solution`.)
        The last diffused :math:`U` shifted by minus the class prices of its
        projection: :math:`\arg\max` of a row is the node's class, the
        projection's labels exactly (where no prices separate them, e.g. at
        tied rows, the assigned entry is raised to just above the row's
        maximum: at most the auction's :math:`\varepsilon`); class sizes
        :math:`u' b_c` on the :math:`u'` unlabeled nodes some label reaches;
        labeled nodes carry their one-hot class plus the largest score.
        Nodes of components without labels are not projected (nothing informs
        them): their rows are the priors b (:class:`~graphrkhs.GraphWarning`).

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs.solvers import poisson_mbo
    >>> W = np.diag(np.ones(5), 1); W = W + W.T               # path on 6 nodes
    >>> F = poisson_mbo(W, [0, 5], np.eye(2), class_priors=[0.5, 0.5])
    >>> F.argmax(axis=1)
    array([0, 0, 0, 1, 1, 1])
    """
    check_flag(return_info, "return_info")
    with verbosity(verbose):
        mu = check_scalar(mu, "mu", low=0, low_inclusive=False)
        n_inner = check_scalar(n_inner, "n_inner", kind="int", low=1)
        max_iter = check_scalar(max_iter, "max_iter", kind="int", low=1)
        W, S, Y2, codes, b, n, k, out_dtype = _mbo_setup(W, labeled, Y, class_priors, "poisson_mbo")
        F0 = poisson_learning(W, S, Y2, tol=tol, preconditioner=preconditioner)   # warns of label-free nodes
        orphan = label_free_mask(W, S)
        reach = np.flatnonzero(~orphan)
        d = np.asarray(W.sum(axis=1)).ravel()
        tau = 1.0 / d.max() if d.max() > 0 else 1.0
        P = sp.csr_array(sp.eye_array(n, format="csr") - tau * graph_laplacian(W))
        # the source y_j minus the mean of the labels of j's connected component (as poisson_learning's): it
        # sums to zero on every component, so the forced heat steps settle there.  With the global label mean a
        # component labeled in other proportions than the whole graph got a nonzero net forcing: U grew linearly
        # on it, each step adding the same class offsets to all its nodes, which outgrew the diffused indicators
        # and gave the whole component its label majority (two components of two clusters each, 5 + 1 and 1 + 5
        # labels: 0.51 accuracy at n_inner=100, 0.84 at 40)
        n_comp, comp = connected_components(W)
        counts = np.bincount(comp[S], minlength=n_comp).astype(np.float64)
        comp_mean = np.zeros((n_comp, k))
        np.add.at(comp_mean, comp[S], Y2)
        comp_mean /= np.maximum(counts, 1.0)[:, None]
        if n_comp == 1:
            comp_mean[0] = Y2.mean(axis=0)      # a connected graph: the same bits as before (pairwise summation)
        source = np.zeros((n, k))
        np.add.at(source, S, Y2 - comp_mean[comp[S]])
        force = (mu * tau) * source
        # the sizes are those of the unlabeled nodes some label reaches (the convention of every classifier,
        # CLASS_PRIORS_DOC): components without labels carry no information (their rows would be assigned at
        # random and take the reached nodes' places), and labeled nodes keep their classes (as in volume_mbo
        # and cut_ssl; projected with the labeled nodes, priors (0.9, 0.05, 0.05) at 3 labels a class moved
        # 2 of the 9 labeled nodes out of their classes)
        free = ~orphan
        free[S] = False
        reach = np.flatnonzero(free)
        sizes = class_sizes(b, reach.size)
        labels = F0.argmax(axis=1)
        labels[S] = codes
        changed, converged, steady_warned = [], False, False
        with progress_bar(total=max_iter, desc="Poisson MBO", unit="round") as bar:
            for _ in range(max_iter):
                U = np.zeros((n, k))
                U[np.arange(n), labels] = 1.0
                U, repeat = _heat_steps(P, U, n_inner, force)
                if repeat is not None and not steady_warned:
                    if repeat[1] == 1:
                        _warn_steady("poisson_mbo", n_inner, repeat)
                    else:       # a cycle (a regular bipartite component): its oscillation depends on the labels
                        logger.info("poisson_mbo: the heat steps repeated from step %d on (%s): the rest of the "
                                    "n_inner=%d steps were skipped.", repeat[0], _repeat_words(repeat, n_inner),
                                    n_inner)
                    steady_warned = True
                new, prices = size_constrained_assignment(U[reach], sizes)
                new = _keep_on_tie(U[reach], labels[reach], new, sizes)
                n_changed = int((new != labels[reach]).sum())
                changed.append(n_changed)
                labels[reach] = new
                bar.update(1)
                if n_changed == 0:
                    converged = True
                    break
        if not converged:
            _report_unsettled("poisson_mbo", max_iter, changed[-1], reach.size)
        F = U - prices
        # tied rows (no prices separate them): their argmax put them all in one class (sizes [5, 1] for
        # [3, 3] on the complete graph K_6 with two labels)
        F[reach] = _argmax_is(F[reach], labels[reach])
        # labeled nodes: their one-hot class above every score of the reached nodes (the label-free rows get
        # the priors below and must not move them: appending an isolated node moved them by 1e-2)
        low, top = F[~orphan].min(), F[~orphan].max()
        F[S] = low - 1.0
        F[S, codes] = top + 1.0
        F[orphan] = b
        info = {"n_iter": len(changed), "changed": changed, "converged": converged}
        F = _in_dtype(F, out_dtype)
        return (F, info) if return_info else F


_MIXED = float(np.sqrt(np.finfo(np.float64).eps))   # spread of diffused indicators below which volume_mbo warns


def volume_mbo(W: GraphLike, labeled: Indices, Y: ArrayLike, *, class_priors: Optional[ArrayLike] = None,
               n_inner: int = 100, max_iter: int = 100, init: Optional[ArrayLike] = None,
               verbose: Optional[bool] = None, return_info: bool = False) -> Union[np.ndarray, Tuple[np.ndarray, dict]]:
    r"""Volume-constrained MBO by auction dynamics (Jacobs, Merkurjev & Esedoglu, J. Comput. Phys. 2018).

    MBO for the graph-cut energy with exact class volumes: alternate a diffusion
    of the class indicators :math:`U` (``n_inner`` heat steps
    :math:`U \leftarrow (I - \tau L) U`, :math:`\tau = 1/\max_i d_i`, the graph
    form of their convolution with the heat kernel) with the assignment of
    every unlabeled node to a class so that :math:`\sum_i U_{i,c(i)}` is maximal
    and the classes have the volumes :math:`u' b_c` (:math:`u'` the unlabeled nodes some label
    reaches; their paper counts the labeled nodes too) -- their auction step
    (:func:`size_constrained_assignment`).  Labeled nodes keep their classes
    (the hard fidelity of the semi-supervised version).  Start: the labeled
    indicators, diffused until they reach the graph (up to ``n`` steps), then
    assigned (or the assignment of ``init``).  Stops at a fixed point (no
    unlabeled label changes; where the previous labels score as much as the
    assignment's, exact ties, they are kept) or after ``max_iter`` rounds.  This is their scheme with fixed volumes
    (GraphLearning's ``volume_mbo`` with ``volume_constraint=1``); their
    bounds-on-volumes variant is not offered.

    Parameters
    ----------
    W, labeled
        As in :func:`harmonic_solution`.
    Y : ndarray of shape (l, k)
        One-hot class indicators of the labeled nodes, k >= 2
        (``np.eye(k)[codes]`` for integer class codes; a 1-D Y is refused).
    class_priors : array of shape (k,), optional
        Class proportions b of the unlabeled nodes some label reaches, as in
        :func:`poisson_mbo` (their paper, too, counts the labeled nodes in the
        volumes; the conversion is given there); None: the labeled proportions.
    n_inner : int, default=100
        Heat steps per round (the diffusion time is ``n_inner`` :math:`\tau`).
        On the digits (GraphLearning's graph, true priors, 5 draws) 3 / 10 / 30 /
        100 steps gave 75.6 / 82.3 / 88.4 / 91.4% at one label per class and
        92.0 / 94.8 / 97.0 / 97.5% at five; 300 steps lost at ten labels per
        class (96.0% against 98.9% with 100).  The diffusion time suits
        sparse graphs (kNN graphs of hundreds of nodes and more); on a small
        dense graph, where :math:`I - \tau L` contracts fast, 100 steps mix
        a component completely (two dense classes of 6 nodes: the diffused
        indicators constant to 1e-16, the labels following rounding): when
        the indicators over a component that holds two classes agree to
        :math:`\sqrt{\varepsilon_{64}} \approx 1.5 \cdot 10^{-8}` a
        :class:`~graphrkhs.GraphRKHSWarning` says so and suggests a smaller
        ``n_inner``.  Steps that would only repeat earlier ones are skipped,
        with the same result bit for bit: the steps are a deterministic map,
        so once an iterate equals an earlier one (the diffusion converged in
        floating point: a fixed point, or a cycle of 2 steps on a regular
        bipartite component) the rest is known; it is found at a cost of a
        few % of a step (Brent's cycle detection).  The warning then also
        names the step the iterates repeated from and the ``n_inner`` that
        gives the same result (``n_inner=10**9`` on the two dense classes
        above stopped after 64 steps a round, where the steps would have
        taken hours).  A diffusion that converges slowly still runs until it
        repeats: about :math:`\log(\varepsilon_{64}) / \log(1 - \tau
        \lambda_2)` steps (350000 on 200 points in two Gaussian blobs).
    max_iter : int, default=100
        Rounds; stops earlier at a fixed point (a
        :class:`~graphrkhs.ConvergenceWarning` when the last round still moved
        more than 0.1 % of the projected nodes, as :func:`poisson_mbo`).
    init : array of shape (n, k), optional
        Scores to start from (a warm start, as Poisson MBO starts from Poisson
        learning): the first labels of the unlabeled nodes are the assignment
        of their rows of ``init`` with the class sizes, instead of the diffused
        labeled indicators.  MBO descends to a nearby fixed point, so a better
        start gives a better partition: on the digits with 10 labels per class
        (20 draws, the cosine self-tuning 10-NN graph, the label proportions as
        sizes), starting from :class:`~graphrkhs.PoissonRidgeEnsembleClassifier`'s
        scores gave 98.55% against 98.31% from the default start, and a second
        call with ``n_inner=30`` from the first one's output 98.65% (99.05% with
        the true class proportions).  That diffusion time suits well-separated
        clusters of equal size, not overlapping classes: on Fashion-MNIST (10
        labels per class) it lost 1.6 points to the ensemble's own labels
        (``benchmarks/results/label_rates_exploration.md``, session 4).
        Passing a previous output ``F`` as ``init`` restarts from its labels.
    verbose : bool, optional
        Progress bar of the rounds.
    return_info : bool, default=False
        Also return a dict ``n_iter``, ``changed``, ``converged``.

    Returns
    -------
    F : ndarray of shape (n, k)
        (float32 for float32 ``Y``, else float64, as :func:`harmonic_solution`.)
        The last diffused :math:`U` minus the class prices (argmax is the
        assigned class; tied rows as in :func:`poisson_mbo`); labeled nodes carry
        their one-hot class plus the largest score (argmax is the class).  The
        volumes :math:`u' b_c` are those of the :math:`u'` unlabeled nodes some
        label reaches; nodes of components without labels are not assigned (nothing
        informs them): their rows are the priors b (:class:`~graphrkhs.GraphWarning`).

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs.solvers import volume_mbo
    >>> W = np.diag(np.ones(5), 1); W = W + W.T               # path on 6 nodes
    >>> volume_mbo(W, [0, 5], np.eye(2), class_priors=[0.5, 0.5]).argmax(axis=1)
    array([0, 0, 0, 1, 1, 1])
    """
    check_flag(return_info, "return_info")
    with verbosity(verbose):
        n_inner = check_scalar(n_inner, "n_inner", kind="int", low=1)
        max_iter = check_scalar(max_iter, "max_iter", kind="int", low=1)
        W, S, Y2, codes, b, n, k, out_dtype = _mbo_setup(W, labeled, Y, class_priors, "volume_mbo")
        if init is not None:
            init = check_matrix(init, "init", dtype=np.float64)
            if init.shape != (n, k):
                raise ValueError(f"init must have shape (n_nodes, n_classes) = ({n}, {k}); got {init.shape}.")
        orphan = _orphans(W, S, Y2, np.zeros((n, k)))
        d = np.asarray(W.sum(axis=1)).ravel()
        tau = 1.0 / d.max() if d.max() > 0 else 1.0
        P = sp.csr_array(sp.eye_array(n, format="csr") - tau * graph_laplacian(W))
        free = ~orphan                       # label-free components: no information, the priors b
        free[S] = False
        free_idx = np.flatnonzero(free)
        sizes = class_sizes(b, free_idx.size)      # the unlabeled reached nodes' (as poisson_mbo)
        if init is not None:
            U = init
        else:
            U = np.zeros((n, k))
            U[S, codes] = 1.0
            # start: diffuse the labeled indicators until every reachable node has mass
            reach = ~orphan
            for _ in range(n):
                if (U[reach].sum(axis=1) > 0).all():
                    break
                U = P @ U
        labels = np.full(n, int(np.argmax(b)), dtype=np.int64)   # label-free nodes: never assigned; their
        labels[S] = codes                                          # own components, so they diffuse nowhere
        new, prices = size_constrained_assignment(U[free_idx], sizes)
        labels[free_idx] = new
        changed, converged, mixed_warned, steady_warned = [], False, False, False
        comp = connected_components(W)[1]
        with progress_bar(total=max_iter, desc="volume MBO", unit="round") as bar:
            for _ in range(max_iter):
                U = np.zeros((n, k))
                U[np.arange(n), labels] = 1.0
                U, repeat = _heat_steps(P, U, n_inner)
                spread = None if mixed_warned else _mixed_spread(U, comp, labels, free)
                if spread is not None and spread < _MIXED:
                    # the slowest mode decays like spread ** (1 / steps) a step: about this many steps leave
                    # a spread of 1e-2 (fewer when the spread is at rounding level); the steps that count are
                    # those run before the iterates repeated (n_inner=10**9: a fixed point found at step 64)
                    steps = n_inner if repeat is None else repeat[0] + repeat[1]
                    fewer = max(1, int(steps * np.log(1e-2) / np.log(max(spread, np.finfo(float).eps))))
                    done = f"after n_inner={n_inner} heat steps" if repeat is None else (
                        f"the heat steps repeated from step {repeat[0]} on ({_repeat_words(repeat, n_inner)}), so "
                        f"the rest of the n_inner={n_inner} steps were skipped; after them")
                    warn(f"volume_mbo: {done} the diffused class indicators are constant to {spread:.1e} over a "
                         "connected component (the diffusion time is long against the graph's mixing time, as on "
                         "small dense graphs), so the assignment follows rounding, not the graph; lower n_inner (to "
                         f"about {fewer}).", GraphRKHSWarning)
                    mixed_warned = True
                elif repeat is not None and not steady_warned:
                    logger.info("volume_mbo: the heat steps repeated from step %d on (%s): the rest of the "
                                "n_inner=%d steps were skipped.", repeat[0], _repeat_words(repeat, n_inner), n_inner)
                    steady_warned = True
                new, prices = size_constrained_assignment(U[free_idx], sizes)
                new = _keep_on_tie(U[free_idx], labels[free_idx], new, sizes)
                n_changed = int((new != labels[free_idx]).sum())
                changed.append(n_changed)
                labels[free_idx] = new
                bar.update(1)
                if n_changed == 0:
                    converged = True
                    break
        if not converged:
            _report_unsettled("volume_mbo", max_iter, changed[-1], free_idx.size)
        F = U - prices
        F[free_idx] = _argmax_is(F[free_idx], labels[free_idx])    # tied rows: as in poisson_mbo
        low, top = F[~orphan].min(), F[~orphan].max()      # as in poisson_mbo: the reached rows only
        F[S] = low - 1.0
        F[S, codes] = top + 1.0
        F[orphan] = b
        info = {"n_iter": len(changed), "changed": changed, "converged": converged}
        F = _in_dtype(F, out_dtype)
        return (F, info) if return_info else F


def _check_homotopy(s, max_iter, rho):
    """The concavity schedule ``s`` and its iteration counts, as float / int tuples of one length."""
    s_arr = np.atleast_1d(np.asarray(s, dtype=object))
    if s_arr.ndim != 1 or s_arr.size == 0:
        raise ValueError(f"s must be a number or a non-empty 1-D sequence of numbers; got {s!r}.")
    if s_arr.size > MAX_CUT_STAGES:
        # before the per-value checks: a schedule of 1e6 values was accepted and ran for hours
        raise ValueError(f"s has {s_arr.size} values, more than {MAX_CUT_STAGES}: each value is an ADMM stage of at "
                         f"least min(patience, max_iter) iterations (50 by default) and at most max_iter (400 by "
                         f"default), so this schedule would take at least {50 * s_arr.size:.3g} iterations at the "
                         f"defaults. Pass at most {MAX_CUT_STAGES} values (the authors' homotopy has 2).")
    if max_iter is None:                 # the authors' (100, 400) for their two stages
        max_iter = (100,) + (400,) * (s_arr.size - 1)
    it_arr = np.atleast_1d(np.asarray(max_iter, dtype=object))
    if it_arr.ndim != 1 or it_arr.size not in (1, s_arr.size):
        raise ValueError(f"max_iter must be an int or a sequence with one entry per value of s ({s_arr.size}); "
                         f"got {max_iter!r}.")
    s_vals = tuple(check_scalar(v, "s", low=0) for v in s_arr)
    iters = tuple(check_scalar(v, "max_iter", kind="int", low=1) for v in it_arr)
    if it_arr.size == 1:
        iters = iters * len(s_vals)
    if any(b < a for a, b in zip(s_vals, s_vals[1:])):
        raise ValueError(f"s must be non-decreasing (a homotopy from the convex problem); got {s_vals}.")
    if s_vals[-1] > rho / 2:
        # ADMM diverges past this bound.  With the active set of Z fixed, an entry held at Z = 0 along a
        # direction of curvature q of L - sD (in the D-norm of the proximal term) has its multiplier
        # multiplied by q / (rho + q) each iteration; q >= -s (L is PSD), so s <= rho / 2 keeps that
        # factor at most 1 in modulus for every active set, and beyond it the factor exceeds 1 on graphs
        # whose curvature reaches below -rho / 2 (300 blobs at rho = 1: bounded at s = 0.7, at s = 0.8 a
        # growth of 1.27 per iteration, q = -0.56, and scores of 2.5e42 after 400 iterations)
        raise ValueError(f"every s must be at most rho / 2 = {rho / 2:g}: beyond it the ADMM's multipliers "
                         f"can grow geometrically (by up to s / (rho - s) per iteration) and the iterates "
                         f"diverge; got s = {s_vals[-1]:g} with rho = {rho:g}. Lower s to at most {rho / 2:g} "
                         f"or raise rho to at least 2 s = {2 * s_vals[-1]:g}.")
    return s_vals, iters


def cut_ssl(W: GraphLike, labeled: Indices, Y: ArrayLike, *, class_priors: Optional[ArrayLike] = None,
            s: Union[float, Tuple[float, ...]] = (0.0, 0.1), max_iter: Union[int, Tuple[int, ...], None] = None,
            rho: float = 1.0, tol: float = 1e-3, patience: int = 50, cg_tol: float = 1e-6, exact_sizes: bool = True,
            verbose: Optional[bool] = None,
            return_info: bool = False) -> Union[np.ndarray, Tuple[np.ndarray, dict]]:
    r"""CutSSL: the cardinality-constrained graph cut by a nonconvex quadratic program (Holtz et al., NeurIPS 2024).

    Holtz, Chen, Wan, Cheng & Mishne, *Continuous partitioning for
    graph-based semi-supervised learning* (NeurIPS 2024) label the unlabeled
    nodes :math:`U` with class indicators :math:`X \in \mathbb{R}^{|U| \times k}`
    minimizing the cut with the labeled nodes' classes fixed, under the class
    sizes :math:`m`, relaxed to the polytope

    .. math::

        \min_X \; \tfrac12 \operatorname{tr}\big(X^\top (L - sD)_{UU} X\big)
                - \operatorname{tr}(X^\top B)
        \quad \text{s.t.} \quad X \ge 0,\; X 1_k = 1_{|U|},\; X^\top 1_{|U|} = m,

    with :math:`B = W_{US} Y` (the labeled neighbours' classes), :math:`L = D - W`.
    At :math:`s = 0` this is Laplace learning with class sizes (convex); the
    concave term :math:`-\tfrac s2 \operatorname{tr}(X^\top D X)` drives the
    solution to the vertices of the polytope (integer labels), where it is the
    size-constrained minimum cut exactly (their Theorem: the relaxation is
    exact for large enough s).  As in the paper the problem is solved for an
    increasing schedule ``s`` (a homotopy from the convex problem), each stage
    by ADMM on the splitting :math:`X = Z`, :math:`Z \ge 0`:

    .. math::

        X &\leftarrow \arg\min_{X 1 = 1,\, X^\top 1 = m}
              \tfrac12 \operatorname{tr}(X^\top A_s X) - \operatorname{tr}(X^\top B)
              + \tfrac\rho2 \|X - Z + \Lambda\|_{D}^2, \\
        Z &\leftarrow \max(X + \Lambda, 0), \qquad \Lambda \leftarrow \Lambda + X - Z .

    The proximal term is weighted by the degrees (:math:`\|V\|_D^2 =
    \operatorname{tr} V^\top D V`; the authors' code uses the identity), so the
    iterates do not depend on the scale of W, and the X-step is one block
    solve with :math:`H = L_{UU} + (\rho - s) D_{UU}` (SPD for
    :math:`s \le \rho / 2`; Jacobi-preconditioned CG, warm-started): its two
    equality constraints have closed-form multipliers,

    .. math::

        R = B + \rho D (Z - \Lambda), \quad
        \mu_2 = \tfrac1k (R 1_k - H 1), \quad
        \mu_1 = \tfrac1c \big(R^\top z - m - \tfrac1k (1^\top R^\top z - |U|) 1_k\big), \quad
        X = H^{-1}(R - \mu_2 1_k^\top - 1 \mu_1^\top),

    :math:`z = H^{-1} 1`, :math:`c = 1^\top z` (the authors alternate one
    Gauss-Seidel sweep of the two multipliers per iteration instead).  A stage
    ends after ``max_iter`` iterations, or earlier when the labels
    :math:`\arg\max Z` have not changed for ``patience`` iterations and
    :math:`\max |X - Z| \le` ``tol``.

    Parameters
    ----------
    W, labeled
        As in :func:`harmonic_solution`.
    Y : ndarray of shape (l, k)
        One-hot class indicators of the labeled nodes, k >= 2
        (``np.eye(k)[codes]`` for integer class codes; a 1-D Y is refused).
    class_priors : array of shape (k,), optional
        Class proportions b of the unlabeled nodes some label reaches: their
        sizes m are :func:`class_sizes` (b, their number), the rule of every
        classifier's ``class_priors`` (the authors' code sizes all nodes and
        subtracts the labeled counts; for proportions :math:`\beta` of all
        :math:`N` nodes with :math:`l_c` labels of class c pass
        :math:`b_c = (N \beta_c - l_c) / (N - l)`); None: the labeled proportions, which
        are the class proportions only for a uniform random sample of labels.
        A proportion :math:`\hat p_c = n_c / l` of :math:`l` such labels has
        standard error :math:`\sqrt{\hat p_c (1 - \hat p_c) / l \cdot (n - l) /
        (n - 1)}` (with the finite-population correction: 0 when every node is
        labeled); when the label counts are unequal and some class's
        proportion is within two standard errors of 0
        (:math:`n_c < 4 (1 - \hat p_c) (n - l) / (n - 1)`: at most 3 labels)
        its size rests on nothing the labels can tell apart from 0, and a
        :class:`~graphrkhs.GraphRKHSWarning` asks for ``class_priors`` (on
        two equal blobs of 21 nodes labeled 1 : 20, sizes 2 : 40).  Equal
        counts (one or ten labels per class) give equal sizes and no warning.
    s : float or sequence of floats, default=(0.0, 0.1)
        The concavity schedule, non-decreasing (the authors' default), each
        at most ``rho / 2`` (ValueError otherwise): with the active set of
        Z fixed, an entry held at 0 along a direction of curvature
        :math:`q \ge -s` of :math:`L - sD` has its multiplier multiplied by
        :math:`q / (\rho + q)` each iteration, which exceeds 1 in modulus
        for :math:`q < -\rho / 2`.  On 300 blobs (three classes, five
        labels each, rho = 1) s = 0.8 grew the iterates by 1.27 per
        iteration (scores of 2.5e42 after 400 iterations, accuracy 55 %
        against 91 % with the default); should the primal residual still
        pass ``DIVERGED_RESIDUAL`` (1e6), a ``FloatingPointError`` asks to
        lower s or raise rho.  Values near the bound settle
        slowly: there s = 0.5 had not settled after 1000 iterations (77 %).
        Each value is a stage of at least ``min(patience, max_iter)`` and at
        most ``max_iter`` ADMM iterations (one block solve with k columns
        each), so the cost grows in proportion to the number of values: at
        most ``MAX_CUT_STAGES`` (1000) values (ValueError otherwise; 20 values
        took 0.9 s on 600 nodes, 1354 iterations).
    max_iter : int or sequence of ints, optional
        ADMM iterations of each stage; one int applies to every stage.  None:
        100 for the first stage and 400 for each later one (the authors'
        (100, 400) for their two stages).
    rho : float > 0, default=1.0
        ADMM penalty, relative to the degrees.  Each step of Z is of order
        :math:`1 / \rho`, so the iterations a stage needs grow about in
        proportion to rho: on 300 blobs (three classes, five labels each)
        169 at rho = 1, 1134 at 10, 11310 at 100, the same labels.
    tol : float > 0, default=1e-3
        Primal and dual residual of the early stop.  The primal residual is
        the root mean square of :math:`X - Z` in the norm of the proximal
        term, :math:`\big(\sum_i d_i \|x_i - z_i\|^2 / \sum_i
        d_i\big)^{1/2}` (the rows of X and Z are class indicators, so this is
        absolute); the dual residual (Boyd et al. 2011, sec. 3.3) is
        :math:`\rho` times the same norm of the last change of Z.  A stage
        has settled when both are at most ``tol`` and the labels have not
        changed for ``patience`` iterations (the primal test alone let
        rho = 1e4 stop after 50 iterations with Z still moving, at 56 %
        accuracy against 91 % at rho = 1); a
        :class:`~graphrkhs.ConvergenceWarning` when the last stage ends
        without settling.  On Fashion-MNIST at one label per class (70000
        nodes) the default 100 + 400 iterations end near ``tol`` with labels
        still changing, and 1000 + 1500 labeled 3.4 points more on one draw
        (58.1 against 54.7 %).
    patience : int >= 1, default=50
        Iterations without a label change of the early stop.
    cg_tol : float in (0, 1), default=1e-6
        Relative residual of each block solve (checked: a
        :class:`~graphrkhs.ConvergenceWarning` if a solve stops short).
        Values below ``CG_TOL_FLOOR`` (10 machine epsilons, 2.2e-15) solve
        to it: no smaller relative residual is attainable or certified in
        float64 (:func:`~graphrkhs.conjugate_gradient` judges convergence
        with 10 eps of slack), and below about 1e-154 the squared residual
        norms of CG underflow.
    exact_sizes : bool, default=True
        Label the unlabeled nodes by the size-constrained assignment of
        :math:`Z` (:func:`size_constrained_assignment`), so the classes have the
        sizes m exactly, as every classifier given ``class_priors`` does.
        False: the argmax of :math:`Z` (the paper's rule; the sizes hold on the
        relaxed :math:`X`, not on the labels unless Z is integral).  On the
        digits at one label per class (the recommended classifier's cosine graph, true
        sizes, 3 draws) the argmax labeled 1.4 points more on two draws.
    verbose : bool, optional
        Progress bar of the iterations.
    return_info : bool, default=False
        Also return a dict: ``n_iter`` (iterations of each stage),
        ``integral`` (fraction of unlabeled rows of Z with an entry above
        0.99), ``primal_residual`` and ``dual_residual`` (the final
        residuals of ``tol``), ``converged`` (the last stage settled).

    Returns
    -------
    F : ndarray of shape (n, k)
        (float32 for float32 ``Y``, else float64, as :func:`harmonic_solution`.)
        On the unlabeled nodes :math:`Z`, or with ``exact_sizes`` :math:`Z`
        minus the class prices of the assignment plus its one-hot labels (so
        the argmax of a row is its assigned class also where rows of Z tie); on the labeled nodes their one-hot
        class; nodes of components without labels get the priors b
        (:class:`~graphrkhs.GraphWarning`).

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs.solvers import cut_ssl
    >>> W = np.diag(np.ones(5), 1); W = W + W.T               # path on 6 nodes
    >>> cut_ssl(W, [0, 5], np.eye(2), class_priors=[0.5, 0.5]).argmax(axis=1)
    array([0, 0, 0, 1, 1, 1])
    """
    check_flag(return_info, "return_info")
    with verbosity(verbose):
        rho = check_scalar(rho, "rho", low=0, low_inclusive=False)
        s_vals, iters = _check_homotopy(s, max_iter, rho)
        tol = check_scalar(tol, "tol", low=0, low_inclusive=False)
        patience = check_scalar(patience, "patience", kind="int", low=1)
        # in (0, 1), as conjugate_gradient's tol: 1 or more stopped every inner solve at its start
        cg_tol = check_scalar(cg_tol, "cg_tol", low=0, low_inclusive=False, high=1, high_inclusive=False)
        # conjugate_gradient certifies no relative residual below 10 eps (its check is tol + 10 eps), and
        # below ~1e-154 its squared residual norms underflow to 0, read as p^T A p <= 0: cg_tol = 1e-200
        # raised "A is not positive definite" on an SPD H.  Solve to the attainable accuracy instead.
        cg_tol = max(cg_tol, CG_TOL_FLOOR)
        W, S, Y2, codes, b, n, k, out_dtype = _mbo_setup(W, labeled, Y, class_priors, "cut_ssl")
        F = np.zeros((n, k))
        orphan = _orphans(W, S, Y2, F)
        free = ~orphan
        free[S] = False
        idx = np.flatnonzero(free)
        m = class_sizes(b, idx.size)               # the unlabeled reached nodes' (as poisson_mbo)
        F[S, codes] = 1.0
        F[orphan] = b
        info = {"n_iter": [], "integral": 1.0, "primal_residual": 0.0, "dual_residual": 0.0, "converged": True}
        if idx.size == 0:
            F = _in_dtype(F, out_dtype)
            return (F, info) if return_info else F
        u = idx.size
        W_rows = W[idx]
        W_UU = sp.csr_array(W_rows[:, idx])
        onehot = np.zeros((S.size, k))
        onehot[np.arange(S.size), codes] = 1.0
        B = np.asarray(W_rows[:, S] @ onehot)
        d = np.asarray(W.sum(axis=1)).ravel()[idx]   # > 0: a reached unlabeled node has an edge
        ones = np.ones((u, 1))
        m_f = m.astype(np.float64)
        X = np.tile(m_f / u, (u, 1))                  # the centre of the polytope
        Z, Lam = X.copy(), np.zeros_like(X)
        labels = Z.argmax(axis=1)
        residual = dual = 0.0
        with progress_bar(total=sum(iters), desc="CutSSL", unit="iter") as bar:
            for s_j, T in zip(s_vals, iters):
                H = sp.csr_array(sp.diags_array((1.0 + rho - s_j) * d) - W_UU)
                jacobi = sp.diags_array(1.0 / ((1.0 + rho - s_j) * d))
                z = conjugate_gradient(H, ones, M=jacobi, tol=1e-10, max_iter=10 * u).x[:, 0]
                c = float(z.sum())
                H1 = d * (1.0 + rho - s_j) - np.asarray(W_UU.sum(axis=1)).ravel()
                quiet, done = 0, 0
                for _ in range(T):
                    R = B + rho * d[:, None] * (Z - Lam)
                    mu2 = (R.sum(axis=1) - H1) / k
                    g = R.T @ z
                    mu1 = (g - m_f - (g.sum() - u) / k) / c
                    X = conjugate_gradient(H, R - mu2[:, None] - mu1[None, :], M=jacobi, x0=X, tol=cg_tol).x
                    Z_old = Z
                    Z = np.maximum(X + Lam, 0.0)
                    gap = X - Z
                    dZ = Z - Z_old
                    Lam += gap
                    done += 1
                    bar.update(1)
                    new = Z.argmax(axis=1)
                    changed = int(np.count_nonzero(new != labels))
                    quiet = quiet + 1 if changed == 0 else 0
                    labels = new
                    residual = float(np.sqrt(np.einsum("i,ij,ij->", d, gap, gap) / d.sum()))
                    # ADMM's dual residual rho D (Z - Z_prev) (Boyd et al. 2011, sec. 3.3), in the D^-1 norm per
                    # unit degree as the primal one: with a large rho, X - Z stays small (0 at rho = 1e4 on 300
                    # blobs) while Z creeps by O(1 / rho) a step, and the primal test alone "settled" there
                    dual = rho * float(np.sqrt(np.einsum("i,ij,ij->", d, dZ, dZ) / d.sum()))
                    if not residual <= DIVERGED_RESIDUAL:
                        # the rows of X and Z are class indicators (residual O(1) while the ADMM is sane); s <=
                        # rho / 2 keeps it bounded, and this guard keeps a divergence (scores of 1e42 at
                        # s = 0.8, rho = 1) from ever being returned
                        raise FloatingPointError(
                            f"cut_ssl: the ADMM diverged at s = {s_j:g}, rho = {rho:g}: primal residual "
                            f"{residual:.2e} after {done} iteration(s) of the stage (the rows of X and Z are class "
                            f"indicators, so it stays of order 1 while the iteration is sound). Lower s or raise "
                            f"rho (s <= rho / 2 keeps every multiplier factor at most 1).")
                    settled = quiet >= patience and residual <= tol and dual <= tol
                    if settled:
                        break
                info["n_iter"].append(done)
        info["integral"] = float(np.mean(Z.max(axis=1) > 0.99))
        info["primal_residual"] = residual
        info["dual_residual"] = dual
        info["converged"] = settled
        if not settled:
            # the primal residual alone is not enough: ADMM's iterates also have to stop moving (the
            # dual residual), and the labels are what moves -- on Fashion-MNIST the residual is near
            # tol after 100 + 400 iterations while thousands of labels still change
            # a large rho is the usual cause of a dual residual above tol: every step of Z is O(1 / rho),
            # and on 300 blobs the iterations to settle were 169 at rho = 1, 1134 at 10, 11310 at 100
            slow = dual > tol and rho > 1
            warn(f"cut_ssl: the ADMM stopped after {done} iteration(s) of its last stage before it settled: "
                 f"primal residual {residual:.2e}, dual residual {dual:.2e} (tol {tol:g}), labels unchanged for "
                 f"the last {quiet} of the {patience} iteration(s) required ({changed} changed in the last one). "
                 "The labels may be under-converged: "
                 + (f"rho = {rho:g} shortens every step of the iterates (the iterations needed grow about in "
                    f"proportion to rho): lower rho towards 1 (keeping rho >= 2 s = {2 * s_vals[-1]:g}), or raise "
                    "max_iter." if slow else
                    "raise max_iter (large graphs with few labels need thousands of iterations).")
                 + (f" The last stage's max_iter ({iters[-1]}) is below patience ({patience}), so the early stop "
                    "could not be reached: lower patience with it." if iters[-1] < patience else ""),
                 ConvergenceWarning)
        if exact_sizes:
            assigned, prices = size_constrained_assignment(Z, m)
            # near-integral rows tie exactly (many rows are (1, 0, ...)), so no prices separate the
            # labeling: add the assignment's one-hot labels, which argmax then returns (the auction's
            # epsilon-complementary slackness keeps Z - prices within epsilon << 1 of the row maximum)
            Z = Z - prices
            Z[np.arange(u), assigned] += 1.0
        F[idx] = Z
        F = _in_dtype(F, out_dtype)
        return (F, info) if return_info else F
