r"""Distributed k-nearest-neighbour graphs: cells, exact search per cell, and a halo pass.

The points are split into ``P`` *cells* by a partition fitted on a random
sample; each cell's points find their k nearest neighbours among the cell's
own points, then a *halo pass* visits, for every point :math:`x_i`, each other
cell whose region could hold a point closer than the current k-th neighbour
distance :math:`r_i`:

.. math::

    \operatorname{dist}(x_i, \Omega_b) \le r_i ,

with a lower bound of :math:`\operatorname{dist}(x_i, \Omega_b)` that is
cheap to evaluate:

* ``partitioner="kmeans"``: :math:`\Omega_b` is the Voronoi cell of the
  centre :math:`\mu_b` (k-means on the sample, scikit-learn), which lies in
  the half-space closer to :math:`\mu_b` than to :math:`\mu_a`, the centre of
  :math:`x_i`'s own cell; the distance to its bisector hyperplane

  .. math::

      h_{ab}(x) = \frac{\|x - \mu_b\|^2 - \|x - \mu_a\|^2}{2\,\|\mu_b - \mu_a\|}

  bounds :math:`\operatorname{dist}(x, \Omega_b)` from below.  Cells adapt to
  clusters and to any dimension; the bound loosens in high dimension (more
  cells visited).
* ``partitioner="rcb"``: recursive coordinate bisection (cut the widest
  coordinate of the sample at the quantile that splits the cells in
  proportion; Berger & Bokhari 1987); :math:`\Omega_b` is an axis-aligned
  box and the bound is the exact point-to-box distance
  :math:`\|\max(l_b - x, 0, x - u_b)\|`.  Balanced cells and tight bounds in
  low dimension (point clouds, meshes); the cells are slabs in high dimension.

Since :math:`r_i` (own cell) is at least the true k-th neighbour distance, a
cell that fails the test holds no neighbour: the complete halo pass
(``halo="exact"``) returns the exact neighbour lists, hence the graph of
:func:`graphrkhs.knn_graph` with the same weights and symmetrization (the
graph is finished by :func:`graphrkhs.graphs.graph_from_neighbors`).  The
lists follow the serial exact searches' one rule: final squared distances
from ``graphrkhs.graphs._search._exact_rerank``, neighbours in (distance, tie
rank) order (``_order_ties``, ``tie_ranks``: the rows' lexicographic order,
exact copies by index), so on tied data (grids, duplicates) the same
neighbours win, whatever the order of the rows.  The cells name the points by
their global tie ranks while they search (every comparison of two names is
then the tie rule) and the lists are renamed to row numbers at the end; each
halo query screens ``k + 8`` candidates of a cell and re-ranks every point of
it for a row where a tie may straddle them.  An
integer ``halo=h`` visits at most the h candidate cells with the smallest
bound per point (approximate; the recall is reported).

The work is organised by cells, never by points: the same two per-cell
functions run in a serial loop, on MPI ranks (each rank its cells, the
neighbour lists all-gathered) or as Dask tasks (one task per cell and phase).
The cells are returned as a node partition (``cells[i]`` the cell of point i)
for the distributed operators.
"""

from __future__ import annotations

import time
import warnings

import numpy as np

from .._core.progress import _Progress
from .._core.validation import (
    check_flag,
    check_index_array,
    check_option,
    check_points,
    check_random_state,
    check_scalar,
    memory_guard,
    power_of_two_exponent,
)
from ..graphs import (
    MODES,
    WEIGHTS,
    estimate_recall,
    graph_from_neighbors,
    knn_search,
    knn_search_bytes,
)
# the serial exact searches' final distances and tie rule (one rule on every exact path)
from ..graphs import ascending_rows as _ascending
from ..graphs import exact_sq_distances as _exact_rerank
from ..graphs import lexsort_rows as _lexsort_rows
from ..graphs import order_ties as _order_ties
from ..graphs import tie_ranks
from ._comm import call_together, check_same_inputs, compute_on_root

__all__ = ["distributed_knn_graph", "edge_recall", "fit_cells", "KNNCells"]

PARTITIONERS = ("kmeans", "rcb")

# Sample of points the partition is fitted on (k-means and RCB alike): enough for stable
# cells (~hundreds of points per cell), small next to n.
DEFAULT_SAMPLE_SIZE = 20_000

# Dimensions up to which the halo queries use a kd-tree (as graphrkhs.knn_graph does).
_KD_TREE_MAX_DIM = 16

# Screened candidates per halo query beyond k (as the serial brute-force search keeps), so that
# distance ties at the k-th neighbour are seen and broken by the serial rule.
_HALO_EXTRA = 8

# Query blocks of at least this many points use both cores in the kd-tree (smaller ones: one thread).
_PARALLEL_QUERIES = 2000


# ---------------------------------------------------------------------------
# Partitions
# ---------------------------------------------------------------------------

class KNNCells:
    r"""A partition of space into cells, fitted on a sample, with a distance lower bound per cell.

    Attributes
    ----------
    kind : {"kmeans", "rcb"}
    n_cells : int
    centers : ndarray of shape (n_cells, d)
        ``"kmeans"``: the cell centres.
    lower, upper : ndarray of shape (n_cells, d)
        ``"rcb"``: the cell boxes (infinite on the outer faces).
    slack : float
        Rounding allowance added to the bounds (squared-distance units of the data).
    """

    def __init__(self, kind, n_cells, centers=None, lower=None, upper=None, tree=None, slack=0.0):
        self.kind = kind
        self.n_cells = n_cells
        self.centers = centers
        self.lower = lower
        self.upper = upper
        self.tree = tree
        self.slack = slack

    # -- assignment ---------------------------------------------------------
    def assign(self, X):
        """The cell of each row of ``X`` (int64 array)."""
        if self.kind == "kmeans":
            return np.argmin(self._center_d2(X), axis=1).astype(np.int64)
        labels = np.zeros(X.shape[0], dtype=np.int64)
        # Walk down the bisection tree: one vectorized comparison per internal node.
        stack = [(0, np.arange(X.shape[0]))]
        while stack:
            node, rows = stack.pop()
            kind = self.tree[node]
            if kind[0] == "leaf":
                labels[rows] = kind[1]
                continue
            _, dim, cut, left, right = kind
            go_left = X[rows, dim] < cut
            stack.append((left, rows[go_left]))
            stack.append((right, rows[~go_left]))
        return labels

    def _center_d2(self, X):
        c = self.centers
        d2 = (np.einsum("ij,ij->i", X, X)[:, None] + np.einsum("ij,ij->i", c, c)[None, :]
              - 2.0 * (X @ c.T))
        return np.maximum(d2, 0.0)

    # -- bounds -------------------------------------------------------------
    def bounds(self, X, own):
        r"""Lower bounds of the distance from each row of ``X`` (all in cell ``own``) to every cell.

        Returns an (m, n_cells) array, 0 in the own cell's column.  Lowered by
        the rounding allowance, so that a bound never exceeds the true distance.
        """
        m = X.shape[0]
        P = self.n_cells
        if self.kind == "kmeans":
            d2 = self._center_d2(X)
            gap = self.centers - self.centers[own]
            sep = np.sqrt(np.einsum("ij,ij->i", gap, gap))
            # a centre equal to the own one (k-means on duplicates) has no bisector: bound 0, always visited
            same = sep == 0
            sep[same] = 1.0
            h = (d2 - d2[:, [own]] - self.slack) / (2.0 * sep)
            h[:, same] = 0.0
            return np.maximum(h, 0.0)
        out = np.empty((m, P))
        # blocks of cells, each vectorized over its points and cells (about 2**20 gaps, 8 MB an array); one
        # pass per cell cost 34 of 35 s on 2000 points in 1999 cells (4 million passes of a few points each)
        step = max(1, int(2**20 // max(1, m * X.shape[1])))
        for b0 in range(0, P, step):  # a loop over blocks of cells
            lo, up = self.lower[b0:b0 + step], self.upper[b0:b0 + step]
            gap = np.maximum(lo[None] - X[:, None], 0.0) + np.maximum(X[:, None] - up[None], 0.0)
            out[:, b0:b0 + step] = np.sqrt(np.einsum("ijk,ijk->ij", gap, gap))
        out *= 1.0 - 1e-12
        out[:, own] = 0.0
        return out


def _kmeans_cells(S, n_cells, seed):
    from sklearn.cluster import KMeans
    from sklearn.exceptions import ConvergenceWarning

    from threadpoolctl import threadpool_limits

    n_cells = min(n_cells, S.shape[0])
    # One thread: the sample is small, and OpenMP's spinning threads slow Lloyd's iterations down
    # many times over on a machine shared with other processes (measured: 9 s instead of 0.2 s).
    with threadpool_limits(1), warnings.catch_warnings():
        # fewer distinct sample points than cells (duplicates) repeat centres, which the cells handle
        # (an empty cell, bound 0): scikit-learn's ConvergenceWarning about it is no news to the caller
        warnings.simplefilter("ignore", ConvergenceWarning)
        km = KMeans(n_clusters=n_cells, n_init=1, random_state=seed, max_iter=100).fit(S)
    centers = np.ascontiguousarray(km.cluster_centers_, dtype=np.float64)
    return centers


def _rcb_tree(S, n_cells):
    """Recursive coordinate bisection of the sample ``S`` into ``n_cells`` boxes.

    Returns ``(tree, lower, upper)``: ``tree[node]`` is ``("leaf", cell)`` or
    ``("split", dim, cut, left, right)`` (points with ``x[dim] < cut`` go left).
    """
    d = S.shape[1]
    tree = []
    lower = np.full((n_cells, d), -np.inf)
    upper = np.full((n_cells, d), np.inf)
    next_cell = [0]

    def build(rows, p, lo, hi):
        node = len(tree)
        tree.append(None)
        if p == 1 or rows.size < 2:
            # a leaf; a node whose sample ran out still gets its p cells as empty leaves
            cell = next_cell[0]
            next_cell[0] += 1
            lower[cell], upper[cell] = lo, hi
            tree[node] = ("leaf", cell)
            for _ in range(p - 1):  # cells the sample could not populate: empty boxes
                c = next_cell[0]
                next_cell[0] += 1
                lower[c], upper[c] = np.full(d, np.inf), np.full(d, -np.inf)
            return node
        p_left = p // 2
        pts = S[rows]
        dim = int(np.argmax(pts.max(axis=0) - pts.min(axis=0)))
        cut = float(np.quantile(pts[:, dim], p_left / p))
        go_left = pts[:, dim] < cut
        if not go_left.any():  # many equal coordinates: cut just above the lowest value
            cut = float(np.nextafter(pts[:, dim].min(), np.inf))
            go_left = pts[:, dim] < cut
        hi_left, lo_right = hi.copy(), lo.copy()
        hi_left[dim] = cut
        lo_right[dim] = cut
        left = build(rows[go_left], p_left, lo, hi_left)
        right = build(rows[~go_left], p - p_left, lo_right, hi)
        tree[node] = ("split", dim, cut, left, right)
        return node

    build(np.arange(S.shape[0]), n_cells, np.full(d, -np.inf), np.full(d, np.inf))
    return tree, lower, upper


def fit_cells(X, n_cells, partitioner="kmeans", sample_size=None, random_state=None):
    r"""Fit a partition of ``X`` into ``n_cells`` cells on a random sample.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Points, finite (computed on in float64).
    n_cells : int >= 1
        Cells asked for (k-means makes at most one per sampled point).
    partitioner, sample_size, random_state
        As in :func:`distributed_knn_graph`.

    Returns ``(cells, labels)``: the :class:`KNNCells` and the cell of each point.
    """
    # checked here too, as distributed_knn_graph checks them: a public function (partitioner="foo" fitted RCB
    # boxes without a word, n_cells=0 failed inside scikit-learn's KMeans, NaN points gave RCB cells)
    X = check_points(X, "X", dtype=np.float64)
    n_cells = check_scalar(n_cells, "n_cells", kind="int", low=1)
    check_option(partitioner, "partitioner", PARTITIONERS)
    sample_size = check_scalar(sample_size, "sample_size", kind="int", low=1, allow_none=True)
    rng = check_random_state(random_state)
    n, d = X.shape
    m = min(n, DEFAULT_SAMPLE_SIZE if sample_size is None else sample_size)
    sample = np.sort(rng.choice(n, size=m, replace=False)) if m < n else np.arange(n)
    S = X[sample]
    if partitioner == "kmeans":
        centers = _kmeans_cells(S, n_cells, int(rng.integers(0, 2**31 - 1)))
        # Rounding of the expanded squared distances |x|^2 + |c|^2 - 2 x.c (float64), twice
        # (the assignment of the target point and the bound of the query point).
        big = float(np.einsum("ij,ij->i", X, X).max()) + float(np.einsum("ij,ij->i", centers, centers).max())
        slack = 4 * 64 * (d + 3) * np.finfo(np.float64).eps * big
        cells = KNNCells("kmeans", centers.shape[0], centers=centers, slack=slack)
    else:
        tree, lower, upper = _rcb_tree(S, n_cells)
        cells = KNNCells("rcb", n_cells, lower=lower, upper=upper, tree=tree)
    return cells, cells.assign(X)


# ---------------------------------------------------------------------------
# Per-cell work (the same functions run serially, on MPI ranks and as Dask tasks)
# ---------------------------------------------------------------------------

def _own_search(Xc, members, k):
    """k nearest neighbours of the cell's points among the cell's points.

    ``members``: the points' global names, their tie ranks (:func:`~graphrkhs.graphs._search.tie_ranks` of all
    the points; the rows of ``Xc`` in ascending row number).  Returns (d2, idx) of shape (m, k): the final
    squared distances of the serial exact searches (:func:`~graphrkhs.graphs._search._exact_rerank`) and
    global names, in (distance, name) order, the serial tie rule (the local search's tie ranks order the
    cell's points as their global ones do: the same contents, copies in the same row order); a cell of at
    most k points pads with distance inf and name -1.
    """
    m = Xc.shape[0]
    d2 = np.full((m, k), np.inf)
    idx = np.full((m, k), -1, dtype=np.int64)
    rows = np.arange(m)
    if m > k:
        # graphrkhs' own exact search: the same neighbours, ties by tie rank, as knn_graph
        _, i_loc = knn_search(Xc, k, "auto", np.random.default_rng(0), workers=-1 if m >= _PARALLEL_QUERIES else 1)
        d2[:], idx[:] = _order_ties(_exact_rerank(Xc, rows, i_loc), members[i_loc], k)
    elif m > 1:
        others = np.array([np.delete(rows, i) for i in rows])
        d2_all, i_all = _lexsort_rows(_exact_rerank(Xc, rows, others), members[others])
        d2[:, : m - 1], idx[:, : m - 1] = d2_all, i_all
    return d2, idx


def _query(Xq, Xt, members_t, k, tree=None):
    """k nearest points of the target block ``Xt`` (global names ``members_t``, the tie ranks) to each query row.

    Returns ``(d2, idx)`` of shape (m_q, min(k, m_t)): the serial searches' final squared distances
    (:func:`~graphrkhs.graphs._search._exact_rerank`) and global names, the first ``min(k, m_t)``
    of the block in (distance, name) order (:func:`~graphrkhs.graphs._search._order_ties`), ties
    straddling the screened candidates included.  ``tree``: a cKDTree of ``Xt`` to reuse (low dimension).
    """
    mq, mt = Xq.shape[0], Xt.shape[0]
    kk = min(k, mt)
    if mq == 0 or kk == 0:
        return np.empty((mq, 0)), np.empty((mq, 0), dtype=np.int64)
    # queries and targets in one array for the serial re-ranking (rows 0..mq-1 the queries)
    Z = np.concatenate([Xq, Xt])
    qrows = np.arange(mq)

    def exact(q, cand):   # final squared distances of queries q to local target candidates, ascending
        e2, c = _ascending(_exact_rerank(Z, q, mq + cand), cand)
        return e2, members_t[c]

    if mt <= kk + _HALO_EXTRA:   # every target is a candidate
        e2, gi = exact(qrows, np.broadcast_to(np.arange(mt), (mq, mt)))
        return _order_ties(e2, gi, kk)
    m = kk + _HALO_EXTRA
    d = Xt.shape[1]
    if d <= _KD_TREE_MAX_DIM:
        from scipy.spatial import cKDTree

        tree = cKDTree(Xt) if tree is None else tree
        # both cores only for a large query block (starting threads costs more than a small query)
        dq, iq = tree.query(Xq, k=m, workers=-1 if mq >= _PARALLEL_QUERIES else 1)
        iq = iq.reshape(mq, m).astype(np.int64)
        screen = dq.reshape(mq, m)[:, -1] ** 2
        check_index_array(iq, mt, "halo candidate indices")
        e2, gi = exact(qrows, iq)
        # a target beyond the candidates may tie with the k-th unless the tree's last distance is
        # clearly above it (the tree's and the final squared distances agree to this factor)
        tol = 1.0 + 8 * (d + 2) * 2.0**-53
        certified = screen > e2[:, kk - 1] * tol
    else:
        e2, gi, certified = _screen_brute(Xq, Xt, members_t, m, kk, exact)
    d2_out, i_out = np.empty((mq, kk)), np.empty((mq, kk), dtype=np.int64)
    ok = np.flatnonzero(certified)
    d2_out[ok], i_out[ok] = _order_ties(e2[ok], gi[ok], kk)
    # the other rows: every target point re-ranked, in blocks of bounded memory
    bad = np.flatnonzero(~certified)
    block = max(1, int(2**25 // (8 * mt)))
    for s in range(0, bad.size, block):
        q = bad[s:s + block]
        e2_q, gi_q = exact(q, np.broadcast_to(np.arange(mt), (q.size, mt)))
        d2_out[q], i_out[q] = _order_ties(e2_q, gi_q, kk)
    return d2_out, i_out


def _screen_brute(Xq, Xt, members_t, m, kk, exact):
    r"""Screening of the halo queries above 16 dimensions: ``m`` candidates per query by float64 expanded
    distances on centred points (blocked products), re-ranked exactly (``exact``) and certified.

    The screened value :math:`s_{ij} = \mathrm{fl}(|y_j|^2 - 2 x_i \cdot y_j)` (centred) is within
    :math:`e_i = 2c(|x_i|^2 + |x_i| M + M^2)` of :math:`d_{ij}^2 - |x_i|^2`, :math:`c = (d + 3) u/(1 - (d + 3) u)`,
    :math:`M = \max_j |y_j|` (centring rounding included); a row is certified when its k-th final
    distance is below the floor :math:`s_{i,(m)} + |x_i|^2 - e_i` of every non-candidate (shrunk by the final
    distances' own rounding), so that no point outside the candidates can reach or tie with the k-th.
    Returns ``(e2, gi, certified)``.
    """
    mq, mt = Xq.shape[0], Xt.shape[0]
    d = Xt.shape[1]
    mu = Xt.mean(axis=0)
    Yc, Qc = Xt - mu, Xq - mu
    sq_t = np.einsum("ij,ij->i", Yc, Yc)
    sq_q = np.einsum("ij,ij->i", Qc, Qc)
    cand = np.empty((mq, m), dtype=np.int64)
    s_m = np.empty(mq)
    block = max(1, int(2**25 // (8 * mt)))
    for s in range(0, mq, block):
        S = sq_t[None, :] - 2.0 * (Qc[s:s + block] @ Yc.T)
        part = np.argpartition(S, m - 1, axis=1)[:, :m]
        cand[s:s + block] = part
        s_m[s:s + block] = np.take_along_axis(S, part, axis=1).max(axis=1)
    e2, gi = exact(np.arange(mq), cand)
    u = 2.0**-53
    c = (d + 3) * u / (1 - (d + 3) * u)
    M = float(np.sqrt(sq_t.max()))
    nq = np.sqrt(sq_q)
    bound = 2.0 * c * (sq_q + nq * M + M * M) + 4 * u * (nq + M) ** 2
    floor = (s_m + sq_q - bound) * (1.0 - 4 * (d + 3) * u)
    return e2, gi, e2[:, kk - 1] < floor


def _merge(d2, idx, d_new, i_new):
    """The k first of two candidate lists per row in (distance, name) order (names = tie ranks: the serial tie
    rule)."""
    k = d2.shape[1]
    D, I = _lexsort_rows(np.concatenate([d2, d_new], axis=1), np.concatenate([idx, i_new], axis=1))
    return D[:, :k], I[:, :k]


def _candidates(cells, Xc, own, r, halo):
    """(m, P) bool: which other cells each point must visit (bound <= current k-th distance)."""
    bound = cells.bounds(Xc, own)
    need = bound <= r[:, None]
    need[:, own] = False
    if halo != "exact":
        # at most `halo` cells per point, those with the smallest bounds
        h = int(halo)
        if h == 0:
            need[:] = False
        elif h < cells.n_cells - 1:
            b = np.where(need, bound, np.inf)
            keep = np.argsort(b, axis=1, kind="stable")[:, :h]
            mask = np.zeros_like(need)
            np.put_along_axis(mask, keep, True, axis=1)
            need &= mask
    return need


def cell_phase1(Xc, members, own, cells, k, halo):
    """Own-cell search of cell ``own`` and the cells its points must visit.

    ``members``: the cell's points' global names (their tie ranks).  Returns ``(d2, idx, need)``: the (m, k)
    lists (squared distances, global names) and the (m, P) visit mask.
    """
    d2, idx = _own_search(Xc, members, k)
    need = (_candidates(cells, Xc, own, np.sqrt(d2[:, -1]), halo) if Xc.shape[0]
            else np.zeros((0, cells.n_cells), bool))
    return d2, idx, need


def cell_phase2(Xc, phase1, targets, trees=None):
    """Halo pass of one cell: merge the k nearest of each visited cell into the lists.

    ``targets`` maps a cell number to ``(X_b, members_b)``, the visited cells' points;
    ``trees``, optional, a dict in which the kd-trees of the visited cells are kept for reuse.
    """
    from scipy.spatial import cKDTree

    d2, idx, need = phase1
    k = d2.shape[1]
    # the visited cells of at most k + _HALO_EXTRA points, which _query would search by brute force one by one,
    # are searched as one block: one call instead of one per cell (a call costs about 50 us of Python, and with
    # cells of at most k points every point visits every cell: 399 cells of 400 points made 158802 calls).  The
    # block's rows are those that visit any of its cells: a cell a row does not visit holds no point within its
    # k-th distance (the bound), so it cannot enter the row's list, and the lists stay exact.
    small = [b for b, (Xt, _) in targets.items() if Xt.shape[0] <= k + _HALO_EXTRA]
    if len(small) > 1:
        rows = np.flatnonzero(need[:, small].any(axis=1))
        if rows.size:
            Xt = np.concatenate([targets[b][0] for b in small])
            members_t = np.concatenate([targets[b][1] for b in small])
            d_new, i_new = _query(Xc[rows], Xt, members_t, k)
            d2[rows], idx[rows] = _merge(d2[rows], idx[rows], d_new, i_new)
        targets = {b: t for b, t in targets.items() if t[0].shape[0] > k + _HALO_EXTRA}
    for b, (Xt, members_t) in targets.items():  # a loop over the visited cells
        rows = np.flatnonzero(need[:, b])
        if rows.size == 0:
            continue
        tree = None
        if trees is not None and Xt.shape[1] <= _KD_TREE_MAX_DIM and Xt.shape[0]:
            tree = trees.get(b)
            if tree is None:
                tree = trees[b] = cKDTree(Xt)
        d_new, i_new = _query(Xc[rows], Xt, members_t, d2.shape[1], tree)
        d2[rows], idx[rows] = _merge(d2[rows], idx[rows], d_new, i_new)
    return d2, idx


# ---------------------------------------------------------------------------
# Executors
# ---------------------------------------------------------------------------

def _run_serial(Xs, labels, names, cells, k, halo, progress):
    P = cells.n_cells
    members = [np.flatnonzero(labels == c) for c in range(P)]
    blocks = [(Xs[mem], names[mem]) for mem in members]
    n = Xs.shape[0]
    d2 = np.empty((n, k))
    idx = np.empty((n, k), dtype=np.int64)
    visits = np.zeros(P, dtype=np.int64)
    trees = {}   # each cell's kd-tree built once for all the cells that visit it
    for c in range(P):  # a loop over cells
        Xc, named = blocks[c]
        mem = members[c]
        ph1 = cell_phase1(Xc, named, c, cells, k, halo)
        wanted = np.flatnonzero(ph1[2].any(axis=0))
        visits[c] = int(ph1[2].sum())
        d2[mem], idx[mem] = cell_phase2(Xc, ph1, {b: blocks[b] for b in wanted}, trees)
        progress(f"cell {c + 1}/{P}: {mem.size} points, {wanted.size} cells visited")
    return d2, idx, visits


def _dtype_name(dtype):
    """``dtype`` as compared across the ranks: np.float32 and "float32" alike; a bad one as given (refused later,
    by the graph's own check, on every rank)."""
    try:
        return None if dtype is None else np.dtype(dtype).str
    except TypeError:
        return repr(dtype)


def _mpi_comm(comm):
    if comm is not None:
        return comm
    try:
        from mpi4py import MPI
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise ImportError("executor='mpi' needs mpi4py: pip install mpi4py mpich") from exc
    return MPI.COMM_WORLD


def _run_mpi(Xs, labels, names, cells, k, halo, comm, progress):
    """Each rank its cells (c = rank, rank + size, ...); the neighbour lists are all-gathered."""
    size, rank = comm.Get_size(), comm.Get_rank()
    P = cells.n_cells
    members = [np.flatnonzero(labels == c) for c in range(P)]
    mine = list(range(rank, P, size))
    local_rows, local_d, local_i = [], [], []
    visits = np.zeros(P, dtype=np.int64)
    trees = {}

    def search_my_cells():
        for c in mine:  # a loop over this rank's cells
            mem = members[c]
            Xc = Xs[mem]
            ph1 = cell_phase1(Xc, names[mem], c, cells, k, halo)
            wanted = np.flatnonzero(ph1[2].any(axis=0))
            visits[c] = int(ph1[2].sum())
            d, i = cell_phase2(Xc, ph1, {b: (Xs[members[b]], names[members[b]]) for b in wanted}, trees)
            local_rows.append(mem), local_d.append(d), local_i.append(i)

    # a failure in one rank's cells (memory, a search error) is raised on every rank, none waits in the allgather
    call_together(comm, search_my_cells)
    rows = np.concatenate(local_rows) if local_rows else np.empty(0, np.int64)
    d = np.concatenate(local_d) if local_d else np.empty((0, k))
    i = np.concatenate(local_i) if local_i else np.empty((0, k), np.int64)
    # Every rank needs all lists for the symmetrization (an edge i -> j decides row j too).
    parts = comm.allgather((rows, d, i))
    n = Xs.shape[0]
    d2 = np.empty((n, k))
    idx = np.empty((n, k), dtype=np.int64)
    for r, dd, ii in parts:  # one entry per rank
        d2[r], idx[r] = dd, ii
    visits = comm.allreduce(visits)
    return d2, idx, visits


def _phase1_task(block, own, cells, k, halo):
    Xc, mem = block
    return cell_phase1(Xc, mem, own, cells, k, halo)


def _phase2_task(block, ph1, wanted, *target_blocks):
    Xc, _ = block
    return cell_phase2(Xc, ph1, dict(zip(wanted, target_blocks)))


def _needed_cells(ph1):
    need = ph1[2]
    return np.flatnonzero(need.any(axis=0)), int(need.sum())


def _run_dask(Xs, labels, names, cells, k, halo, client, progress):
    """One task per cell and phase; each cell's points are scattered once and fetched by the tasks that visit it."""
    P = cells.n_cells
    members = [np.flatnonzero(labels == c) for c in range(P)]
    blocks = client.scatter([(Xs[mem], names[mem]) for mem in members], hash=False)
    cells_f = client.scatter(cells, broadcast=True, hash=False)
    ph1 = [client.submit(_phase1_task, blocks[c], c, cells_f, k, halo, pure=False) for c in range(P)]
    # Only the small visit lists come back to the client, to wire the halo tasks to the cells they read.
    needed = client.gather([client.submit(_needed_cells, f, pure=False) for f in ph1])
    progress(f"own-cell searches done; halo pass over {sum(w.size for w, _ in needed)} cell pairs")
    ph2 = [client.submit(_phase2_task, blocks[c], ph1[c], needed[c][0].tolist(),
                         *[blocks[b] for b in needed[c][0]], pure=False) for c in range(P)]
    results = client.gather(ph2)
    n = Xs.shape[0]
    d2 = np.empty((n, k))
    idx = np.empty((n, k), dtype=np.int64)
    for c in range(P):  # one entry per cell
        d2[members[c]], idx[members[c]] = results[c]
    visits = np.array([v for _, v in needed], dtype=np.int64)
    return d2, idx, visits


def _resolve_executor(executor):
    if executor is None or (isinstance(executor, str) and executor in ("serial", "numpy")):
        return "serial"
    if isinstance(executor, str):
        check_option(executor, "executor", ("serial", "numpy", "mpi", "dask"))
        return executor
    try:
        from distributed import Client
    except ImportError:  # pragma: no cover - without dask no Client object can exist
        Client = ()
    if Client and isinstance(executor, Client):
        return "dask"
    raise TypeError(f"executor must be None, 'serial', 'mpi', 'dask' or a distributed.Client; got "
                    f"{type(executor).__name__}.")


# ---------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------

def distributed_knn_graph(X, n_neighbors=10, *, n_cells=None, partitioner="kmeans", halo="exact",
                          weight="gaussian", sigma=None, mode="union", relative_width=1.0, sample_size=None,
                          executor=None,
                          comm=None, recall_sample=0, dtype=None, verbose=None, random_state=None,
                          return_info=False):
    r"""kNN graph of a point cloud built cell by cell: exact search per cell plus a halo pass.

    The cells come from a partition fitted on a random sample
    (``partitioner``, see the module documentation); every point searches its
    own cell, then the other cells whose distance lower bound is at most its
    current k-th neighbour distance.  With the complete halo pass the
    neighbour lists are exact and the graph equals :func:`graphrkhs.knn_graph`
    (exact algorithm) with the same ``weight``, ``sigma`` and ``mode``:
    the same edges, tied data included (the final distances are the serial
    search's and exact ties go by the points' contents, as there), and the weights
    computed by the same function, :func:`graphrkhs.graphs.graph_from_neighbors`.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Points, finite.  Under MPI every rank passes the same ``X``.
    n_neighbors : int, default=10
        k, with ``1 <= k < n_samples``.
    n_cells : int >= 1, optional
        Number of cells.  Default: the number of MPI ranks or Dask workers,
        1 serially.  The halo bound prunes only when the cells hold more
        than k points: a cell of at most k points finds no k-th neighbour
        among its own, so its points visit every other cell, and with
        ``n_cells`` near ``n_samples`` the search compares all pairs (still
        exact).  The visited cells of at most ``k + 8`` points are searched
        as one block per cell (400 points in 399 cells: about 1 s on two
        cores; it was 150 s when every pair of cells was a query), so the
        cost of such a partition is that of a brute-force search, about
        :math:`n^2 d` operations; about ``n_samples / (k + 1)`` cells or
        fewer keep the halo pass local.
    partitioner : {"kmeans", "rcb"}, default="kmeans"
        k-means cells (Voronoi cells of centres fitted on the sample;
        bisector-hyperplane bound) or recursive coordinate bisection (boxes;
        point-to-box bound).  k-means for clustered or high-dimensional data
        (Fashion-MNIST), RCB for low-dimensional point clouds.
    halo : "exact" or int >= 0, default="exact"
        ``"exact"`` visits every cell that passes the bound (exact lists);
        an int visits at most that many cells per point (those with the
        smallest bounds), 0 none: approximate, see ``recall_sample``.
    weight, sigma, mode, relative_width
        As in :func:`graphrkhs.knn_graph`.
    sample_size : int, optional
        Points the partition is fitted on (default ``min(n, 20000)``).
    executor : None, "serial", "mpi", "dask" or distributed.Client
        Where the cells run: a loop in this process; the ranks of ``comm``
        (``mpiexec -n P python script.py``, each rank its cells, the lists
        all-gathered, every rank returns the whole graph); or one Dask task
        per cell and phase (``"dask"`` takes the active client).
    comm : mpi4py communicator, optional
        For ``executor="mpi"``; default ``MPI.COMM_WORLD``.
    recall_sample : int >= 0, default=0
        Estimate recall@k of the lists on this many random points against
        exact search of those points (brute force over all points,
        :func:`graphrkhs.graphs.estimate_recall`); reported in ``info``.
    dtype, verbose, random_state
        As in :func:`graphrkhs.knn_graph`; ``random_state`` seeds the sample,
        k-means and the recall sample (under MPI the partition is fitted on
        rank 0 and broadcast).
    return_info : bool, default=False
        Also return a dict: ``"n_cells"``, ``"partitioner"``, ``"cell_sizes"``,
        ``"halo_visits"`` (per cell: point-cell visits of the halo pass),
        ``"visits_per_point"``, ``"exact"`` (complete halo pass),
        ``"recall"`` (None without ``recall_sample``), ``"seconds"``.

    Returns
    -------
    W : scipy.sparse.csr_array of shape (n_samples, n_samples)
    cells : ndarray of int64, shape (n_samples,)
        The cell of each point, in ``[0, n_cells)`` (a cell may be empty):
        a node partition for the distributed operators.
    info : dict
        Only with ``return_info=True``.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import knn_graph
    >>> from graphrkhs.distributed._knn import distributed_knn_graph
    >>> X = np.random.default_rng(0).normal(size=(500, 3))
    >>> W, cells = distributed_knn_graph(X, 5, n_cells=4, partitioner="rcb", random_state=0)
    >>> bool(abs(W - knn_graph(X, 5)).max() < 1e-12), np.bincount(cells).tolist()
    (True, [125, 125, 125, 125])
    """
    t0 = time.perf_counter()
    X = check_points(X, "X", min_samples=2)
    n, d = X.shape
    k = check_scalar(n_neighbors, "n_neighbors", kind="int", low=1)
    if k >= n:
        raise ValueError(f"n_neighbors must be < n_samples = {n}; got {k}.")
    check_option(partitioner, "partitioner", PARTITIONERS)
    if not (isinstance(halo, str) and halo == "exact"):
        if isinstance(halo, str):
            raise ValueError(f"halo must be 'exact' or an int >= 0; got {halo!r}.")
        halo = check_scalar(halo, "halo", kind="int", low=0)
    check_option(weight, "weight", WEIGHTS)
    check_option(mode, "mode", MODES)
    sigma = check_scalar(sigma, "sigma", low=0, low_inclusive=False, allow_none=True)
    relative_width = check_scalar(relative_width, "relative_width", low=0, low_inclusive=False)
    sample_size = check_scalar(sample_size, "sample_size", kind="int", low=1, allow_none=True)
    recall_sample = check_scalar(recall_sample, "recall_sample", kind="int", low=0)
    check_flag(return_info, "return_info")
    kind = _resolve_executor(executor)
    rng = check_random_state(random_state)
    client = comm_ = None
    if kind == "mpi":
        comm_ = _mpi_comm(comm)
        default_cells = comm_.Get_size()
        # every rank searches its cells in its own X with rank 0's partition: points or options differing between
        # the ranks gave a graph mixed from the ranks' data (or waits in the exchange); random_state and verbose
        # may differ (the partition and the recall sample are drawn on rank 0 and broadcast)
        check_same_inputs(comm_, "distributed_knn_graph(X, executor='mpi')",
                          {"X": X, "n_neighbors": k, "n_cells": n_cells, "partitioner": partitioner, "halo": halo,
                           "weight": weight, "sigma": sigma, "mode": mode, "relative_width": relative_width,
                           "sample_size": sample_size, "recall_sample": recall_sample,
                           "dtype": _dtype_name(dtype), "return_info": return_info})
    elif kind == "dask":
        from ._workers import dask_workers, get_dask_client

        client = get_dask_client(None if isinstance(executor, str) else executor, argument="executor='dask'")

        default_cells = max(1, len(dask_workers(client)))
    else:
        default_cells = 1
    n_cells = check_scalar(default_cells if n_cells is None else n_cells, "n_cells", kind="int", low=1)
    n_cells = min(n_cells, n)

    def check_memory():
        # the whole neighbour lists and the graph assembly, as knn_graph estimates them (every MPI rank
        # holds them all; the cells' own searches are checked again, each on its own points)
        memory_guard(knn_search_bytes(n, d, k, "kd_tree" if d <= _KD_TREE_MAX_DIM else "brute"),
                     f"the neighbour lists of {n} points ({k} neighbours each) and their graph",
                     "reduce n_neighbors or the number of points.")

    if kind == "mpi" and comm_.Get_size() > 1:
        call_together(comm_, check_memory)   # a rank short of memory raises on every rank, none waits
    else:
        check_memory()

    progress = _Progress(verbose, "distributed_knn_graph")
    # Search on X / 2^e (exact), as knn_graph does: no squared distance can overflow.
    e = power_of_two_exponent(X)
    Xs = np.ldexp(np.asarray(X, dtype=np.float64), -e) if e else np.asarray(X, dtype=np.float64)
    seed = int(rng.integers(0, 2**31 - 1))
    if kind == "mpi" and comm_.Get_size() > 1:
        # fitted on rank 0 and broadcast; a failure there is raised on every rank (none waits in the bcast)
        cells, labels = compute_on_root(comm_, lambda: fit_cells(Xs, n_cells, partitioner, sample_size, seed))
    else:
        cells, labels = fit_cells(Xs, n_cells, partitioner, sample_size, seed)
    n_cells = cells.n_cells
    progress(f"{n_cells} {partitioner} cells of sizes {np.bincount(labels, minlength=n_cells).tolist()}")
    # the cells name the points by their tie ranks (the serial searches' tie rule, computed alike on every MPI
    # rank from the same points): ties between names are then ties between contents, as in knn_graph
    names = tie_ranks(Xs)
    if kind == "serial":
        d2, idx, visits = _run_serial(Xs, labels, names, cells, k, halo, progress)
    elif kind == "mpi":
        d2, idx, visits = _run_mpi(Xs, labels, names, cells, k, halo, comm_, progress)
    else:
        d2, idx, visits = _run_dask(Xs, labels, names, cells, k, halo, client, progress)
    dist = np.sqrt(d2)   # the serial searches' final distances (knn_search), bit for bit
    if (idx < 0).any():  # only an approximate halo leaves a point with fewer than k candidates
        raise RuntimeError(f"halo={halo} left some points with fewer than {k} neighbours; use more cells "
                           "per point (a larger halo) or halo='exact'.")
    row_of = np.empty(n, dtype=np.int64)
    row_of[names] = np.arange(n)
    idx = row_of[idx]   # names back to row numbers
    # graph_from_neighbors' warnings (a sigma that underflows every edge of a node: knn_graph's GraphWarning)
    # name the caller's line, as knn_graph's do; on MPI every rank builds the graph, so every rank warns once
    W = graph_from_neighbors(dist, idx, weight=weight, sigma=sigma, relative_width=relative_width, mode=mode,
                             scale=2.0**e,
                             dtype=dtype if dtype is not None else (np.float32 if X.dtype == np.float32 else None))
    if not return_info:
        return W, labels
    recall = None
    if recall_sample:
        sample = np.sort(rng.choice(n, size=min(n, recall_sample), replace=False))
        if kind == "mpi" and comm_.Get_size() > 1:
            # rank 0's sample on every rank (an unseeded generator draws differently per rank): one recall
            sample = comm_.bcast(sample, root=0)
        recall = float(estimate_recall(Xs, idx, sample))
    info = {"n_cells": n_cells, "partitioner": partitioner, "executor": kind,
            "cell_sizes": np.bincount(labels, minlength=n_cells), "halo_visits": visits,
            "visits_per_point": float(visits.sum()) / n, "exact": halo == "exact", "recall": recall,
            "seconds": time.perf_counter() - t0}
    return W, labels, info


def edge_recall(W, W_exact):
    r"""Fraction of the edges of a reference graph that a graph has: :math:`|E \cap E_{exact}| / |E_{exact}|`.

    For a cell-wise graph against :func:`graphrkhs.knn_graph` with the same
    parameters (1.0 when the halo pass is complete).  Both graphs are compared by their stored off-diagonal pattern.

    Parameters
    ----------
    W, W_exact : sparse matrices of the same shape (n, n)

    Returns
    -------
    float in [0, 1] (1.0 when ``W_exact`` has no edges)
    """
    import scipy.sparse as sp

    if not (sp.issparse(W) and sp.issparse(W_exact)):
        raise TypeError("W and W_exact must be scipy sparse matrices.")
    if W.shape != W_exact.shape:
        raise ValueError(f"W and W_exact must have the same shape; got {W.shape} and {W_exact.shape}.")
    A = sp.csr_array(W, dtype=np.float64, copy=True)   # copies: the patterns are set to 1 below
    B = sp.csr_array(W_exact, dtype=np.float64, copy=True)
    for M in (A, B):
        # an edge stored twice (a CSR with duplicate entries, e.g. built from its arrays) is one edge: counted
        # twice, A's duplicates made A.multiply(B) sum to 2 there (recall 1.0 for a graph with half the edges)
        M.sum_duplicates()
        M.setdiag(0)
        M.eliminate_zeros()
        M.data[:] = 1.0
    if B.nnz == 0:
        return 1.0
    return float(A.multiply(B).sum() / B.nnz)
