r"""Sparse graphs from point clouds, Laplacians and conversions.

Every graph this module returns is a :class:`scipy.sparse.csr_array` that is
symmetric, non-negative, has a zero diagonal and sorted indices, in float64
unless float32 was given or asked for.  Every function that takes a graph
accepts a sparse matrix or array of any format, a dense array, a
:class:`pygsp.graphs.Graph` or a :class:`networkx.Graph`, through
:func:`as_adjacency`.

Weights (``d`` the Euclidean distance between two points; with ``metric="cosine"`` the Euclidean
distance between the points scaled to unit length, :math:`d_{ij} = \sqrt{2 - 2\cos\theta_{ij}}`)

=================  ===================================================================
``"binary"``       :math:`w_{ij} = 1`
``"gaussian"``     :math:`w_{ij} = \exp(-d_{ij}^2 / (2\sigma^2))`; ``sigma=None`` uses the mean
                   distance over the graph's (directed) neighbour pairs
``"self-tuning"``  :math:`w_{ij} = \exp(-d_{ij}^2 / (r^2 \sigma_i \sigma_j))` with :math:`\sigma_i`
                   the distance from :math:`x_i` to its k-th neighbour and :math:`r` the
                   ``relative_width`` (default 1: Zelnik-Manor & Perona, NIPS 2004)
=================  ===================================================================

Laplacians (``D`` the diagonal degree matrix)

* ``"combinatorial"``: :math:`L = D - W`, spectrum in :math:`[0, 2 d_{max}]`;
* ``"normalized"``: :math:`L = I - D^{-1/2} W D^{-1/2}`, spectrum in :math:`[0, 2]`;
* ``"randomwalk"``: :math:`L = I - D^{-1} W` (not symmetric; same spectrum as the normalized one).

An isolated node (degree 0) gives a zero row and column in every kind, never
NaN: its signal value is unconstrained by the graph.
"""

from __future__ import annotations

import contextlib
import contextvars
from typing import Literal

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike

from . import _search as _knn
from . import _tangent
from .._core.validation import (
    check_flag,
    check_option,
    check_points,
    check_random_state,
    check_scalar,
    power_of_two_exponent,
    warn,
    GraphWarning,
)
from .._core.backend import DISTRIBUTED_BACKENDS, check_backend, get_backend
from .._core.progress import _Progress
from .._core.types import FloatDType, RandomStateLike, SparseMatrix
from ._convert import _drop_self_loops, _mean_of_directions, _output_dtype, _to_sparse

__all__ = [
    "knn_graph",
    "epsilon_graph",
    "symmetrize",
]

WEIGHTS = ("binary", "gaussian", "self-tuning")
MODES = ("union", "mutual", "average")
KNN_ALGORITHMS = ("auto", "kd_tree", "brute", "pynndescent", "hnswlib")
METRICS = ("euclidean", "cosine", "tangent")
#: The metrics of an epsilon-ball graph (the tangent distance ranks candidates of a kNN search only).
RADIUS_METRICS = ("euclidean", "cosine")


def _apply_metric(X, metric):
    r"""The points whose Euclidean distances are the graph's distances under ``metric``.

    ``"cosine"`` (and ``"tangent"``, whose candidates and tangent planes are those unit rows): every
    row scaled to unit length, so that
    :math:`\|x_i/|x_i| - x_j/|x_j|\|^2 = 2 - 2\cos\theta_{ij}` -- the same
    neighbours as the cosine distance :math:`1 - \cos\theta_{ij}` (a monotone
    function of it), with an exact Euclidean search.  A zero row has no
    direction and raises.
    """
    if metric == "euclidean":
        return X
    if sp.issparse(X):
        return _unit_rows_sparse(X)
    # divide by the largest |entry| first so that the norm never overflows (any finite X)
    peak = np.abs(X).max(axis=1, keepdims=True)
    _refuse_zero_rows(np.flatnonzero(peak[:, 0] == 0))
    U = X / peak
    U /= np.linalg.norm(U, axis=1, keepdims=True)
    return U


def check_radius_metric(metric, knn):
    """``metric`` of an epsilon-ball graph (``RADIUS_METRICS``); ``"tangent"`` gets the kNN alternative ``knn``."""
    if isinstance(metric, str) and metric == "tangent":
        raise ValueError(f"metric='tangent' re-ranks the candidates of a kNN search and has no epsilon graph: use "
                         f"{knn}, or metric='cosine'.")
    check_option(metric, "metric", RADIUS_METRICS)


def _check_tangent_options(X, metric, image_shape, backend):
    """``image_shape`` checked against ``metric`` (and the options ``metric="tangent"`` cannot take)."""
    if metric != "tangent":
        if image_shape is not None:
            raise ValueError(f"image_shape={image_shape!r} is used by metric='tangent' only; got metric={metric!r}.  "
                             "Pass metric='tangent' for the tangent distance between images, or drop image_shape.")
        return None
    if image_shape is None:
        raise ValueError("metric='tangent' needs image_shape=(height, width), the shape of the images whose pixels "
                         "the rows of X hold row by row.")
    if sp.issparse(X):
        raise TypeError("metric='tangent' takes dense images; X is sparse.  Pass X.toarray(), or metric='cosine'.")
    if backend in DISTRIBUTED_BACKENDS:
        raise ValueError(f"metric='tangent' runs in this process; backend={backend!r} searches cell by cell with the "
                         "Euclidean or cosine distance.  Pass backend='numpy', or metric='cosine'.")
    return _tangent.check_image_shape(image_shape, X.shape[1])


def _refuse_zero_rows(zero):
    if zero.size:
        raise ValueError(f"metric='cosine' (and 'tangent') needs rows of X with a direction; rows "
                         f"{zero[:5].tolist()} ({zero.size} in all) are zero.  Drop them or use metric='euclidean' (an "
                         "estimator: graph=GraphSpec(metric='euclidean'); its graph='auto' picks the cosine or "
                         "tangent metric for non-negative features).")


def _unit_rows_sparse(X):
    """:func:`_apply_metric`'s cosine scaling of a canonical CSR ``X`` (no explicit zeros), entry by
    entry as for dense rows (peak, then norm, in the dtype of ``X``): a new CSR, never densified."""
    X = sp.csr_array(X, copy=True)
    X.sum_duplicates()
    counts = np.diff(X.indptr)
    # an empty row (or one of explicit zeros only) is a zero row, refused as in the dense path
    peak = np.zeros(X.shape[0], dtype=X.dtype)
    filled = np.flatnonzero(counts > 0)
    if filled.size:
        peak[filled] = np.maximum.reduceat(np.abs(X.data), X.indptr[filled])
    _refuse_zero_rows(np.flatnonzero(peak == 0))
    row_of = np.repeat(np.arange(X.shape[0]), counts)
    X.data = X.data / peak[row_of]
    norm = np.sqrt(np.add.reduceat(X.data * X.data, X.indptr[:-1]))
    X.data /= norm[row_of]
    return X
RADIUS_ALGORITHMS = ("auto", "kd_tree", "brute")


# ---------------------------------------------------------------------------
# Graph construction
# ---------------------------------------------------------------------------

def knn_graph(X: ArrayLike, n_neighbors: int = 10, *,
              weight: Literal["binary", "gaussian", "self-tuning"] = "gaussian", sigma: float | None = None,
              relative_width: float = 1.0, mode: Literal["union", "mutual", "average"] = "union",
              algorithm: Literal["auto", "kd_tree", "brute", "pynndescent", "hnswlib"] = "auto",
              metric: Literal["euclidean", "cosine", "tangent"] = "euclidean",
              image_shape: tuple[int, int] | None = None,
              dtype: FloatDType = None, verbose: bool | None = None,
              random_state: RandomStateLike = None, return_info: bool = False, backend: str = "auto"):
    r"""Symmetric k-nearest-neighbour graph of a point cloud.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples, n_features)
        Points, finite.  float32 input gives a float32 graph.  A
        scipy.sparse matrix or array (any format; e.g. TF-IDF features) is
        searched as it is, never densified: exact brute-force search on the
        CSR rows (candidates from scikit-learn's
        ``NearestNeighbors(algorithm="brute")``, re-ranked with exact
        distances and certified as in the dense ``"brute"`` path), giving the
        graph of ``X.toarray()``.
    n_neighbors : int, default=10
        k, the number of neighbours of each point, itself excluded;
        ``1 <= k < n_samples``.  10 is the usual choice in graph-based
        semi-supervised learning (Calder et al. 2020 use 10).
    weight : {"gaussian", "binary", "self-tuning"}, default="gaussian"
        Edge weights, see the module documentation.  Gaussian is also the
        default of every estimator's graph (:class:`GraphSpec`): it labeled best
        in our comparison with self-tuning weights (Laplace, Poisson and graph
        kernel ridge on the digits, two moons and two circles; table in the
        user guide, "Graphs").
    sigma : float > 0, optional
        Gaussian width in :math:`\exp(-d^2 / (2\sigma^2))`.  None uses the
        mean distance over all k-nearest-neighbour pairs, which keeps the
        weights of typical edges near :math:`e^{-1/2}` whatever the scale of
        ``X``.  Ignored by the other weights.
    relative_width : float > 0, default=1.0
        :math:`r` in the self-tuning weight
        :math:`w_{ij} = \exp(-d_{ij}^2 / (r^2 \sigma_i \sigma_j))`,
        :math:`\sigma_i` the distance from :math:`x_i` to its k-th neighbour:
        the width of the kernel relative to the local scales.  1 is
        Zelnik-Manor & Perona's (NIPS 2004) weight; 1/2 gives
        :math:`\exp(-4 d_{ij}^2 / (\sigma_i \sigma_j))`, the symmetric form
        of the weight of Calder et al.'s GraphLearning, which labeled about
        1 point better than r = 1 with every learner on Fashion-MNIST and
        the digits (benchmarks/results/label_rates_exploration.md).  Ignored
        by the other weights.
    mode : {"union", "mutual", "average"}, default="union"
        Symmetrization of the directed kNN relation: ``"union"`` joins i and j
        when either is among the other's k nearest (every node keeps degree
        >= k), ``"mutual"`` when both are (can leave nodes isolated),
        ``"average"`` uses :math:`(W + W^T) / 2`.
    algorithm : {"auto", "kd_tree", "brute", "pynndescent", "hnswlib"}, default="auto"
        Neighbour search.  ``"kd_tree"`` and ``"brute"`` are exact;
        ``"pynndescent"`` (the optional ``ann`` extra) and ``"hnswlib"`` are
        approximate.  ``"auto"`` takes the fastest path that meets the recall
        target: the kd-tree up to 16 dimensions; above, pynndescent for
        ``n_samples >= 50000`` when it is installed, the exact blocked BLAS
        search otherwise.  Before the approximate index on all the points,
        ``"auto"`` runs it on a pilot of 5000 random points and takes exact
        search when the recall there is below the target (recall falls as the
        points grow, so the full index would miss it too; e.g. 32-dimensional
        Gaussian points).  After an approximate search the recall@k is
        estimated on 300 random points against exact search of those points
        (:math:`\approx 600 \cdot n \cdot d` flops); below the target 0.95
        ``"auto"`` recomputes the graph exactly, with a RuntimeWarning (an
        explicitly requested approximate backend only warns).  The estimate is
        logged at INFO on the ``graphrkhs`` logger and returned with
        ``return_info=True``.  The thresholds and their measurement are in the
        user guide, "Graphs".  Sparse ``X``: ``"auto"`` and ``"brute"`` are
        the exact sparse search; ``"pynndescent"`` and ``"hnswlib"`` take
        dense points only and fall back to it with a RuntimeWarning
        (``info["fallback"]``); ``"kd_tree"`` raises a ValueError.
    metric : {"euclidean", "cosine", "tangent"}, default="euclidean"
        The distance of the graph.  ``"cosine"`` searches and weights the
        rows of ``X`` scaled to unit length: the neighbours of the cosine
        distance :math:`1 - \cos\theta_{ij}`, and weights of the chord
        distance :math:`d_{ij} = \sqrt{2 - 2\cos\theta_{ij}}` between the
        unit vectors (invariant to a positive scaling of each row, e.g. the
        brightness of an image).  A zero row raises.  Evidence on
        Fashion-MNIST: benchmarks/results/label_rates_exploration.md.
        ``"tangent"``: for images (``image_shape`` required, dense ``X``),
        the cosine graph's chord distance less what small translations,
        rotation, scaling, shears and line thickness explain -- Simard, LeCun
        & Denker's one-sided tangent distance (NIPS 1993) between the unit
        rows, :math:`d_{ij}^2 = \|u_i - u_j\|^2 - \|Q_i^\top(u_i - u_j)\|^2`,
        :math:`Q_i` an orthonormal basis of :math:`u_i`'s seven tangent
        vectors (module ``graphrkhs.graphs._tangent``).  The neighbours are the k
        nearest in this distance among 3k candidates of the cosine search
        (``algorithm`` chooses that search).  On scikit-learn's digits and
        Fashion-MNIST it labels 1-3 points more than the cosine graph at 1
        label per class and 0.5-1.5 more at 10 (benchmarks/REPORT.md,
        "Accuracy against the label rate").  Not with ``backend="mpi"`` /
        ``"dask"``.
    image_shape : (int, int), optional
        ``(height, width)`` of the images whose pixels the rows of ``X`` hold
        row by row; required by ``metric="tangent"`` and refused by the others.
    dtype : {None, float32, float64}
        Graph dtype; None keeps float32 input as float32, float64 otherwise.
    verbose : bool or None, default=None
        ``True`` shows a progress bar over the search and stage messages on
        stderr (or as INFO records of the ``graphrkhs`` logger when logging is
        configured); ``False`` silences them.  None: as the enclosing call
        decided, else on when the ``graphrkhs`` logger is at INFO, off otherwise.
    random_state : int, Generator or None
        Seeds the approximate backends and the recall sample (exact search is
        deterministic).  A fixed seed gives the same graph on every call.
    return_info : bool, default=False
        Also return a dict about the search, with the same keys on every
        in-process path (dense or sparse ``X``): ``"algorithm"`` (the backend
        whose result was used), ``"requested"``, ``"exact"``, ``"recall"``
        (estimated recall@k; 1.0 for exact search; measured on distances: a
        listed neighbour no farther than the exact k-th one is a hit, so on
        duplicated rows any choice among tied copies scores 1, though it may
        differ from exact search's lowest-index tie rule), ``"recall_sample"``
        (number of query points of the estimate, 0 for exact search),
        ``"recall_target"``, ``"approximate_recall"`` (the estimate of the
        approximate backend's lists on all the points, NaN when none were
        estimated), ``"fallback"`` (an approximate result was replaced by
        exact search: its estimate missed the target, or the backend's lists
        were unusable -- a neighbour listed twice or an unfilled slot),
        ``"pilot_recall"`` and ``"pilot_sample"`` (``"auto"``'s estimate on
        its pilot and the pilot's size; NaN and 0 when no pilot ran),
        ``"sparse"`` (``X`` was searched as sparse rows) and ``"seconds"``; with
        ``metric="tangent"`` also ``"tangent_candidates"`` (the cosine
        candidates re-ranked per point; the recall keys are those of their search).
    backend : {"auto", "numpy", "numba", "scipy", "mpi", "dask"}, default="auto"
        Where the search runs (sparse ``X``: in this process only; ``"mpi"``
        and ``"dask"`` raise a TypeError).  ``"mpi"`` / ``"dask"``: cell by cell on the
        ranks / workers (:func:`graphrkhs.distributed.distributed_knn_graph`:
        k-means cells fitted on a sample, exact search in each cell and a
        complete halo pass), so the graph equals the exact search's, and
        ``algorithm`` must be ``"auto"`` or an exact one; with
        ``return_info=True`` the info has the keys above (``"algorithm"``
        ``"cells (mpi)"`` / ``"cells (dask)"``, ``"exact"`` True and
        ``"recall"`` 1.0, no fallback, no pilot) plus the cells
        (``"cells"``, a node partition for the distributed operators) and
        the search statistics of
        :func:`~graphrkhs.distributed.distributed_knn_graph`
        (``"n_cells"``, ``"partitioner"``, ``"executor"``, ``"cell_sizes"``,
        ``"halo_visits"``, ``"visits_per_point"``).
        ``"auto"`` and ``"numpy"`` search in this process: unlike the solvers,
        the search does not switch by itself under ``mpiexec`` or with a Dask
        client, because its ``"auto"`` algorithm may be approximate and the
        cell-wise build is exact -- the graph a script gets must not depend on
        how it was launched.  ``"numba"`` / ``"scipy"`` (the serial spellings
        every ``backend`` argument accepts, which choose the sparse product
        kernel elsewhere) search in this process exactly as ``"numpy"``.

    Returns
    -------
    W : scipy.sparse.csr_array of shape (n_samples, n_samples)
        Symmetric, non-negative, zero diagonal.
    info : dict
        Only with ``return_info=True``, see above.

    Notes
    -----
    Duplicate points are neighbours at distance 0 (weight 1); a point with
    more than k duplicates is linked to k of them.  With Gaussian weights an
    edge whose weight underflows to 0 is dropped.

    Any finite ``X`` is accepted, up to the float64 limit: the search runs on
    ``X`` divided by a power of two (exact), so squared distances never
    overflow (:math:`|x| \ge 10^{154}`, or :math:`10^{19}` in the float32
    screening of the brute-force path) and ``knn_graph(c * X)`` has the edges of
    ``knn_graph(X)``, with equal weights for ``"binary"``, ``"self-tuning"``
    and ``"gaussian"`` with ``sigma=None``.  A ``sigma`` far above every
    distance gives weight 1 on every edge; far below, every weight underflows
    to 0 and the graph has no edges (the floating-point limits of the
    formula, never an error or NaN), with a :class:`~graphrkhs.GraphWarning`
    naming ``sigma`` whenever underflow leaves a node without any edge.  NaN or infinite entries raise a ValueError.  The exact paths give the
    same edge set as :class:`sklearn.neighbors.NearestNeighbors` on data
    without distance ties.

    Ties at equal distances are broken by the points' contents on every
    exact path (``"brute"``, ``"kd_tree"``, sparse ``X``, the candidates and
    re-ranking of ``metric="tangent"``): each point's neighbours are the
    first ``n_neighbors`` in (distance, tie rank) order, the tie rank
    ordering the (rescaled) rows lexicographically by their values (first
    coordinate, then the second, ...; -0.0 equals +0.0) and exact copies of
    one point by index.  So among candidates at exactly its k-th distance
    the lexicographically first are kept, the exact paths give identical
    graphs on tied data, and the graph does not depend on the order of the
    rows: ``knn_graph(X[p])`` is ``knn_graph(X)`` with its nodes permuted
    by ``p``, up to swapping exact copies of a point (which are told apart
    by index only; the two graphs are then isomorphic through that swap).
    The distances compared are the returned ones,
    :math:`\sum_c (x_{ic} - x_{jc})^2` summed over the features in order
    (the same numbers on every exact path), so a tie is a tie in floating
    point: points tied in exact arithmetic whose coordinate differences
    round (e.g. decimals) may come out unequal.  The rule is still an
    asymmetry: a point exactly halfway between two clusters with
    ``n_neighbors=1`` is linked to one side only (the one whose point comes
    first lexicographically), and Laplace learning gives it that side's
    label with confidence 1.  Exact ties arise on lattices, duplicated or
    quantized data; jittering ``X`` by far less than its spacing, or
    ``mode="union"`` with a larger ``n_neighbors``, makes the choice
    immaterial.  The approximate paths (``"pynndescent"``, ``"hnswlib"``,
    and ``"auto"`` when it keeps their result) follow no tie rule and
    depend on the order of the rows through their random index.

    Sparse ``X`` gives the graph of ``X.toarray()`` (same edges, weights equal
    up to rounding, about 1e-16, on data without distance ties at a node's
    k-th neighbour) without forming it.  Under ``metric="cosine"`` rows that
    share no feature are all at distance :math:`\sqrt 2`, so on very sparse
    data a node with fewer than k rows sharing a feature has tied k-th neighbours;
    each exact search then links it to some of them, not necessarily the same
    ones (as ``"kd_tree"`` and ``"brute"`` may differ on dense ties).  Memory is that of the
    neighbour lists, a copy of ``X`` and distance blocks of at most 256 MiB,
    checked before the search.  With ``metric="cosine"`` a row without a
    non-zero entry (empty, or explicit zeros only) raises as a zero dense row
    does.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import knn_graph
    >>> X = np.random.default_rng(0).normal(size=(100, 3))
    >>> W = knn_graph(X, n_neighbors=5)
    >>> W.shape, bool((W != W.T).nnz == 0), bool(W.diagonal().max() == 0)
    ((100, 100), True, True)
    """
    check_flag(return_info, "return_info")
    X = check_points(X, "X", min_samples=2, accept_sparse=True)
    n = X.shape[0]
    n_neighbors = check_scalar(n_neighbors, "n_neighbors", kind="int", low=1)
    if n_neighbors >= n:
        raise ValueError(f"n_neighbors must be < n_samples = {n}; got {n_neighbors}: pass n_neighbors="
                         f"{n - 1} or fewer (a point has at most n_samples - 1 neighbours).")
    check_option(weight, "weight", WEIGHTS)
    sigma = check_scalar(sigma, "sigma", low=0, low_inclusive=False, allow_none=True)
    relative_width = check_scalar(relative_width, "relative_width", low=0, low_inclusive=False)
    check_option(mode, "mode", MODES)
    check_option(algorithm, "algorithm", KNN_ALGORITHMS)
    check_option(metric, "metric", METRICS)
    out_dtype = _output_dtype(dtype, X.dtype)
    check_backend(backend)
    image_shape = _check_tangent_options(X, metric, image_shape, backend)
    if sp.issparse(X) and backend in DISTRIBUTED_BACKENDS:
        raise TypeError(f"backend={backend!r} takes dense points; X is sparse.  Use backend='numpy' (exact "
                        "search on the sparse rows), or pass X.toarray().")
    X = _apply_metric(X, metric)
    if backend in DISTRIBUTED_BACKENDS:
        if algorithm not in ("auto", "kd_tree", "brute"):
            raise ValueError(f"algorithm={algorithm!r}: backend={backend!r} builds the graph by exact search cell by "
                             "cell; pass algorithm='auto' (or an exact one), or backend='numpy' for an approximate "
                             "search.")
        # relative_width only when it differs from 1, so that a backend without it still builds every other graph
        extra = {} if relative_width == 1.0 else {"relative_width": relative_width}
        out = get_backend(backend).knn_graph(X, n_neighbors, weight=weight, sigma=sigma, mode=mode, **extra,
                                             dtype=out_dtype, verbose=verbose, random_state=random_state,
                                             return_info=return_info)
        if not return_info:
            return out[0]
        W, cells, info = out
        # the keys of every in-process path (INFO_KEYS; before, only the distributed search's own: a caller
        # reading info["fallback"] or info["recall_sample"] got a KeyError under backend="mpi" / "dask"),
        # then the cells' own.  The cell-wise search with its complete halo pass is exact: recall 1.0, as
        # kd_tree's and brute's, with no sample (distributed_knn_graph's "recall" is None without one)
        common = _knn._new_info(algorithm, f"cells ({backend})", False)
        exact = bool(info["exact"])
        recall = info.get("recall")
        common.update(exact=exact, seconds=info["seconds"],
                      recall=(1.0 if exact else float("nan")) if recall is None else float(recall))
        extra = {key: value for key, value in info.items() if key not in common}
        return W, {**common, **extra, "cells": cells}
    rng = check_random_state(random_state)


    progress = _Progress(verbose, "knn_graph")
    if sp.issparse(X):
        chosen = "exact search on the sparse rows"
    else:
        chosen = _knn.auto_algorithm(n, X.shape[1]) if algorithm == "auto" else algorithm
        if algorithm == "auto" and chosen not in ("kd_tree", "brute"):
            # the pilot inside knn_search_report may still turn it into exact search
            chosen = f"{chosen} if its pilot meets the recall target, else exact"
    progress(f"searching {n_neighbors} neighbours of {n} points in {X.shape[1]} dimensions ({chosen})")
    # Distances come back in units of a power of two of max |X| (exact rescaling), so that
    # no squared distance overflows; only the user's sigma is converted, see _gaussian.
    # the tangent distance re-ranks TANGENT_CANDIDATES k candidates of the cosine search
    n_search = n_neighbors if image_shape is None else min(n - 1, _tangent.TANGENT_CANDIDATES * n_neighbors)
    with progress.scope():
        if sp.issparse(X):
            dist, idx, scale, info = _knn.sparse_knn_search_report(X, n_search, algorithm)
        else:
            dist, idx, scale, info = _knn.knn_search_report(X, n_search, algorithm, rng)
    if image_shape is not None:
        progress(f"tangent distances of {n_search} candidates per point")
        U = np.asarray(X, dtype=np.float64)
        # candidates at equal tangent distances in the cosine search's tie order (the rows' contents)
        dist, idx = _tangent.tangent_rerank(U, U, idx, n_neighbors, image_shape, tie=_knn._TieRanks(U))
        scale = 1.0          # unit rows: distances <= 2, never near overflow
        info["tangent_candidates"] = n_search
    progress("neighbour search done; weighting and symmetrizing")
    W = _knn_weights_to_graph(dist, idx, weight, sigma, mode, scale, relative_width, dtype=out_dtype)
    progress(f"graph with {W.nnz} stored edges")
    return (W, info) if return_info else W


def _gaussian(dist, sigma, scale=1.0):
    r""":math:`\exp(-(s d)^2 / (2\sigma^2))` for distances ``d`` in units of ``s`` = ``scale``.

    Evaluated as :math:`t = d \cdot (s/\sigma)`, :math:`\exp(-t^2/2)` so that neither
    :math:`\sigma^2` nor :math:`(s d)^2` is ever formed: any ``sigma`` > 0 gives the
    limit the formula has in floating point -- weight 1 for every pair when
    ``sigma`` is far above the distances (e.g. 1e200), 0 for every pair at a
    positive distance and 1 for duplicates when it is far below (e.g. 1e-170).
    """
    with np.errstate(over="ignore", under="ignore"):
        ratio = scale / sigma
        # ratio = inf would turn a zero distance into inf * 0 = NaN; the largest float does not.
        ratio = min(ratio, np.finfo(np.float64).max)
        t = dist * ratio
        return np.exp(-0.5 * (t * t))


def _self_tuning(dist, scale_i, scale_j, relative_width):
    r""":math:`\exp(-d^2 / (r^2 \sigma_i \sigma_j))` (Zelnik-Manor & Perona 2004 for r = 1).

    ``dist`` and the local scales in the same units, so the weights do not depend on them.  Evaluated
    as :math:`((d/\sigma_i)(d/\sigma_j)/r)/r`: :math:`r^2` (or :math:`d^2`, :math:`\sigma_i\sigma_j`)
    underflowed to 0 for r = 1e-170 and a duplicate pair got 0/0 = NaN; now any r > 0 gives the
    limit, weight 1 for duplicates and 0 at positive distances when r is far below 1, 1 on every
    edge when far above.
    """
    with np.errstate(over="ignore", under="ignore"):
        q = ((dist / scale_i) * (dist / scale_j) / relative_width) / relative_width
        return np.exp(-q)


#: The name the caller gave the Gaussian width under, for the underflow warning: ``sigma`` (knn_graph's, epsilon_graph's,
#: GraphSpec's), or e.g. ``graph_sigma`` where an estimator's ``sigma`` is its kernel width (LapRLS, PLapRLS, the warped
#: kernel); set by :meth:`GraphSpec.build` (``sigma_name=``) through :func:`_sigma_named`.
_SIGMA_NAME = contextvars.ContextVar("graphrkhs_sigma_name", default="sigma")


@contextlib.contextmanager
def _sigma_named(name):
    """Within the block, the underflow warning names the Gaussian width ``name`` instead of ``sigma``."""
    token = _SIGMA_NAME.set(name)
    try:
        yield
    finally:
        _SIGMA_NAME.reset(token)


def _eliminate_underflowed(W, weight, sigma, relative_width, dist, unit):
    """Drop the explicit zeros of ``W`` (weights that underflowed) in place, with a
    :class:`GraphWarning` naming the width argument when that leaves a node without any edge.

    ``dist`` are the candidate distances in units of ``unit`` (the user's units after the
    product); ``sigma`` is the width actually used (the mean distance for ``sigma=None``).
    """
    before = np.diff(W.indptr)
    total = W.nnz
    W.eliminate_zeros()
    lost = int(np.count_nonzero((before > 0) & (np.diff(W.indptr) == 0)))
    if not lost:
        return W
    n = W.shape[0]
    typical = float(np.median(dist)) * unit if dist.size else 0.0
    state = "the graph has no edge left" if W.nnz == 0 else f"{total - W.nnz} of {total} stored edges dropped"
    if weight == "gaussian":
        name = _SIGMA_NAME.get()
        what = (f"their Gaussian weights exp(-d^2 / (2 {name}^2)) underflowed to 0 with {name} = {sigma:.3g}")
        fix = (f"pass a larger {name} (the median neighbour distance is {typical:.3g}), "
               f"or {name}=None (the mean neighbour distance)")
    else:
        what = (f"their self-tuning weights underflowed to 0 with relative_width = {relative_width:.3g}")
        fix = "pass a larger relative_width (1 is the Zelnik-Manor & Perona width)"
    warn(f"{lost} of {n} nodes lost every edge: {what} ({state}).  To keep them connected, {fix}.",
         GraphWarning)
    return W


def _mean_distance(dist):
    """The mean of the (finite, >= 0) distances ``dist``, finite however close they are to the float64 limit.

    Their plain sum overflowed for distances near 1.8e308 (graph_from_neighbors with scale=1): the mean was
    inf, the Gaussian width inf and every weight 1 -- with numpy's RuntimeWarning only.  Then the mean is
    taken of the distances divided by a power of two (exact) and multiplied back.
    """
    with np.errstate(over="ignore"):
        mean = float(dist.mean())
    if np.isfinite(mean):
        return mean
    e = power_of_two_exponent(dist)
    return float(np.ldexp(np.mean(np.ldexp(dist, -e)), e))


def _knn_weights_to_graph(dist, idx, weight, sigma, mode, unit=1.0, relative_width=1.0, dtype=np.float64):
    n, k = idx.shape
    user_unit, width = unit, sigma  # width: the sigma used, in the user's units (for a warning)
    if weight == "binary":
        w = np.ones_like(dist)
    elif weight == "gaussian":
        if sigma is None:
            # The mean neighbour distance, in the same units as dist: the weights depend
            # on dist / sigma only, hence are the same for X and c X.
            sigma, unit = _mean_distance(dist) or 1.0, 1.0  # all-duplicate data: any width gives weight 1
            with np.errstate(over="ignore"):
                width = sigma * user_unit
        w = _gaussian(dist, sigma, unit)
    else:  # self-tuning
        scale = dist[:, -1].copy()
        positive = scale > 0
        # A point with k duplicates has scale 0; borrow the smallest positive scale.
        scale[~positive] = scale[positive].min() if positive.any() else 1.0
        w = _self_tuning(dist, scale[:, None], scale[idx], relative_width)
    data, indices, indptr = _knn.symmetric_from_lists(idx, w, mode)
    # cast before dropping zeros: a float64 weight below float32's tiniest subnormal is 0 there
    W = sp.csr_array((data.astype(dtype, copy=False), indices, indptr), shape=(n, n))
    W.has_sorted_indices = True  # rows are sorted by the assembly
    if W.data.size and not W.data.all():  # Gaussian weights that underflowed: no edge
        _eliminate_underflowed(W, weight, width, relative_width, dist, user_unit)
    return W


def graph_from_neighbors(distances: ArrayLike, indices: ArrayLike, *,
                         weight: Literal["binary", "gaussian", "self-tuning"] = "gaussian",
                         sigma: float | None = None, relative_width: float = 1.0,
                         mode: Literal["union", "mutual", "average"] = "union",
                         scale: float = 1.0, dtype: FloatDType = None) -> sp.csr_array:
    r"""The symmetric weighted kNN graph of given neighbour lists (the last stage of :func:`knn_graph`).

    For neighbour lists found elsewhere (the cells of
    :mod:`graphrkhs.distributed`): the weights and symmetrization of
    :func:`knn_graph` (see the module documentation), applied to lists of the
    same layout, so that the same lists give the same graph.

    Parameters
    ----------
    distances : array of shape (n, k)
        Distance of each point to its k neighbours, ascending per row, in
        units of ``scale``.
    indices : int array of shape (n, k)
        Neighbour indices in ``[0, n)``, never the row's own index.
    weight, sigma, relative_width, mode, dtype
        As in :func:`knn_graph` (``sigma`` in the units of the points).
    scale : float > 0, default=1
        The unit of ``distances`` (:func:`knn_graph` searches on ``X / 2^e``
        and passes ``2^e``).

    Returns
    -------
    csr_array of shape (n, n)
    """
    check_option(weight, "weight", WEIGHTS)
    check_option(mode, "mode", MODES)
    sigma = check_scalar(sigma, "sigma", low=0, low_inclusive=False, allow_none=True)
    relative_width = check_scalar(relative_width, "relative_width", low=0, low_inclusive=False)
    scale = check_scalar(scale, "scale", low=0, low_inclusive=False)
    dist = np.asarray(distances, dtype=np.float64)
    idx = np.asarray(indices)
    if dist.ndim != 2 or idx.shape != dist.shape or dist.shape[1] < 1 or dist.shape[0] < 2:
        # n >= 2 as knn_graph requires: a point's k >= 1 neighbours are other points (with n = 0 the
        # mean edge length of the default width was numpy's "Mean of empty slice" warning and a NaN)
        raise ValueError(f"distances and indices must both have shape (n, k) with n >= 2 points and k >= 1 "
                         f"neighbours; got {dist.shape} and {idx.shape}.")
    if not np.issubdtype(idx.dtype, np.integer):
        raise TypeError(f"indices must be integers; got dtype {idx.dtype}.")
    if not np.isfinite(dist).all() or (dist < 0).any():
        raise ValueError("distances must be finite and >= 0.")
    if (np.diff(dist, axis=1) < 0).any():
        # the weights read column j as the (j+1)-th nearest (the self-tuning scale: the last column)
        raise ValueError("distances must be sorted ascending in every row (column j the (j+1)-th nearest "
                         "neighbour), as NearestNeighbors.kneighbors returns them.")
    if idx.shape[1] > 1 and (np.diff(np.sort(idx, axis=1), axis=1) == 0).any():
        raise ValueError("indices: a row lists the same neighbour twice; each row must hold k distinct "
                         "neighbours.")
    out_dtype = _output_dtype(dtype, np.dtype(np.float64))
    return _knn_weights_to_graph(dist, idx.astype(np.int64, copy=False), weight, sigma, mode, scale, relative_width,
                                 dtype=out_dtype)


def symmetrize(W: SparseMatrix | ArrayLike, mode: Literal["union", "mutual", "average"] = "union") -> sp.csr_array:
    r"""Symmetrize a directed, non-negative adjacency matrix.

    Parameters
    ----------
    W : sparse matrix or array of shape (n, n)
        Non-negative weights, not necessarily symmetric.
    mode : {"union", "mutual", "average"}
        ``"union"``: :math:`\max(w_{ij}, w_{ji})` (an edge if either direction has one);
        ``"mutual"``: :math:`\min(w_{ij}, w_{ji})` (an edge only if both do);
        ``"average"``: :math:`(w_{ij} + w_{ji}) / 2`.

    Returns
    -------
    csr_array
        Symmetric, zero diagonal, with explicit zeros removed and sorted indices.

    Notes
    -----
    Self-loops (a non-zero diagonal) are removed with a :class:`~graphrkhs.GraphWarning`,
    as :func:`as_adjacency` removes them: graphs here have a zero diagonal (a
    self-loop does not change the combinatorial Laplacian but distorts the
    normalized one), so a symmetrized matrix is an adjacency every function accepts
    unchanged.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import symmetrize
    >>> symmetrize(np.array([[0., 1.], [0., 0.]]), "union").toarray()
    array([[0., 1.],
           [1., 0.]])
    """
    check_option(mode, "mode", MODES)
    W = _to_sparse(W)
    if W.ndim != 2 or W.shape[0] != W.shape[1]:
        raise ValueError(f"W must be a square matrix; got shape {W.shape}.")
    # a copy with duplicate entries summed (as as_adjacency reads W): the checks below read W.data, and a
    # CSR matrix storing w_01 as -1 and 4 is the weight 3, not a negative weight
    W = sp.csr_array(W, copy=True)
    W.sum_duplicates()
    if W.dtype == bool or np.issubdtype(W.dtype, np.integer):
        W = W.astype(np.float64)
    if not np.issubdtype(W.dtype, np.floating):
        raise TypeError(f"W must hold real weights; got dtype {W.dtype}.")
    # max / min of the two directions is only a union / intersection of edges for weights >= 0,
    # and a NaN would silently win or lose those comparisons
    if not np.isfinite(W.data).all():
        raise ValueError("W has NaN or infinite weights; weights must be finite.")
    if (W.data < 0).any():
        raise ValueError(f"W has negative weights (min {W.data.min():g}); graph weights must be >= 0.")
    WT = W.T.tocsr()
    if mode == "union":
        S = W.maximum(WT)
    elif mode == "mutual":
        S = W.minimum(WT)
    else:
        S = _mean_of_directions(W, WT)
    S = sp.csr_array(S)
    S.eliminate_zeros()
    S = _drop_self_loops(S, "W")
    S.sort_indices()
    return S


def epsilon_graph(X: ArrayLike, radius: float, *, weight: Literal["binary", "gaussian", "self-tuning"] = "gaussian",
                  sigma: float | None = None, relative_width: float = 1.0, algorithm: Literal["auto", "kd_tree", "brute"] = "auto",
                  metric: Literal["euclidean", "cosine"] = "euclidean",
                  dtype: FloatDType = None, verbose: bool | None = None) -> sp.csr_array:
    r"""Epsilon-ball graph: i and j are joined when :math:`\|x_i - x_j\| \le` ``radius``.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples, n_features)
        Points, finite.  Sparse ``X`` (any scipy.sparse format) is never
        densified: exact screening of the expanded squared distances in
        blocks of at most 256 MiB with a rounding-error margin, then exact
        distances of the row differences, giving the graph of
        ``X.toarray()``.
    radius : float > 0
        Ball radius (with a relative slack of 1e-12, ``RADIUS_RTOL``, so that
        a pair at exactly this distance -- e.g. a radius read off a computed
        distance -- is joined by either search algorithm).
    weight : {"gaussian", "binary", "self-tuning"}, default="gaussian"
        ``"self-tuning"`` uses :math:`\sigma_i` = the largest distance from
        :math:`x_i` to a point in its ball (nodes with an empty ball are
        isolated anyway).
    sigma : float > 0, optional
        Gaussian width; None uses the mean edge length.
    relative_width : float > 0, default=1.0
        :math:`r` in the self-tuning weight
        :math:`\exp(-d_{ij}^2 / (r^2 \sigma_i \sigma_j))`, as in :func:`knn_graph`.
    algorithm : {"auto", "kd_tree", "brute"}, default="auto"
        Both exact; ``"auto"`` as in :func:`knn_graph`.  Sparse ``X``:
        ``"auto"`` and ``"brute"`` search the sparse rows, ``"kd_tree"``
        raises a ValueError.
    metric : {"euclidean", "cosine"}, default="euclidean"
        As in :func:`knn_graph`: ``"cosine"`` joins the rows scaled to unit
        length within the chord distance ``radius`` (:math:`2 - 2\cos\theta
        \le` ``radius**2``).
    dtype, verbose
        As in :func:`knn_graph`.

    Returns
    -------
    W : scipy.sparse.csr_array of shape (n_samples, n_samples)

    Notes
    -----
    Points with no other point within ``radius`` are isolated nodes (zero rows);
    the Laplacians treat them as documented in :func:`laplacian`.  The number of
    edges grows like :math:`n^2 r^d`: pick the radius from the data's scale.
    Extreme magnitudes of ``X`` and extreme widths ``sigma`` behave as in
    :func:`knn_graph` (``epsilon_graph(c * X, c * radius)`` has the edges of
    ``epsilon_graph(X, radius)``).

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import epsilon_graph
    >>> X = np.array([[0.0], [1.0], [5.0]])
    >>> epsilon_graph(X, 1.5, weight="binary").toarray()
    array([[0., 1., 0.],
           [1., 0., 0.],
           [0., 0., 0.]])
    """
    X = check_points(X, "X", min_samples=1, accept_sparse=True)
    radius = check_scalar(radius, "radius", low=0, low_inclusive=False)
    check_option(weight, "weight", WEIGHTS)
    sigma = check_scalar(sigma, "sigma", low=0, low_inclusive=False, allow_none=True)
    relative_width = check_scalar(relative_width, "relative_width", low=0, low_inclusive=False)
    check_option(algorithm, "algorithm", RADIUS_ALGORITHMS)
    check_radius_metric(metric, "knn_graph(X, n_neighbors, metric='tangent', image_shape=...)")
    out_dtype = _output_dtype(dtype, X.dtype)
    X = _apply_metric(X, metric)
    n = X.shape[0]
    progress = _Progress(verbose, "epsilon_graph")
    progress(f"searching pairs within {radius:g} among {n} points")
    # distances in units of `unit` (a power of two of max |X|), as in knn_graph
    with progress.scope():
        if sp.issparse(X):
            i, j, dist, unit = _knn.sparse_pairs_within_radius(X, radius, algorithm)
        else:
            i, j, dist, unit = _knn.pairs_within_radius(X, radius, algorithm, return_scale=True)
    progress(f"{i.size} pairs found")
    search_unit, width = unit, sigma  # width: the sigma used, in the user's units (for a warning)
    if weight == "binary":
        w = np.ones_like(dist)
    elif weight == "gaussian":
        if sigma is None:
            sigma = float(dist.mean()) if dist.size and dist.mean() > 0 else 1.0
            width = sigma * unit
            unit = 1.0
        w = _gaussian(dist, sigma, unit)
    else:
        scale = np.zeros(n)
        np.maximum.at(scale, i, dist)
        np.maximum.at(scale, j, dist)
        positive = scale > 0
        scale[~positive] = scale[positive].min() if positive.any() else 1.0
        w = _self_tuning(dist, scale[i], scale[j], relative_width)
    rows = np.concatenate([i, j])
    cols = np.concatenate([j, i])
    # cast before dropping zeros: a float64 weight below float32's tiniest subnormal is 0 there
    W = sp.csr_array((np.concatenate([w, w]).astype(out_dtype, copy=False), (rows, cols)), shape=(n, n))
    _eliminate_underflowed(W, weight, width, relative_width, dist, search_unit)
    W.sort_indices()
    if progress.enabled():
        isolated = int(np.count_nonzero(np.diff(W.indptr) == 0))
        progress(f"graph with {W.nnz} stored edges, {isolated} isolated nodes")
    return W


# ---------------------------------------------------------------------------
# Conversions
# ---------------------------------------------------------------------------


# ---------------------------------------------------------------------------
# Laplacians and spectra
# ---------------------------------------------------------------------------


