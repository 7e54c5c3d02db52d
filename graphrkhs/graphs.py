r"""Sparse graphs from point clouds, Laplacians and conversions.

Every graph this module returns is a :class:`scipy.sparse.csr_array` that is
symmetric, non-negative, has a zero diagonal and sorted indices, in float64
unless float32 was given or asked for.  Every function that takes a graph
accepts a sparse matrix or array of any format, a dense array, a
:class:`pygsp.graphs.Graph` or a :class:`networkx.Graph`, through
:func:`as_adjacency`.

Weights (``d`` the Euclidean distance between two points)

=================  ===================================================================
``"binary"``       :math:`w_{ij} = 1`
``"gaussian"``     :math:`w_{ij} = \exp(-d_{ij}^2 / (2\sigma^2))`; ``sigma=None`` uses the mean
                   distance over the graph's (directed) neighbour pairs
``"self-tuning"``  :math:`w_{ij} = \exp(-d_{ij}^2 / (\sigma_i \sigma_j))` with :math:`\sigma_i`
                   the distance from :math:`x_i` to its k-th neighbour
                   (Zelnik-Manor & Perona, NIPS 2004)
=================  ===================================================================

Laplacians (``D`` the diagonal degree matrix)

* ``"combinatorial"``: :math:`L = D - W`, spectrum in :math:`[0, 2 d_{max}]`;
* ``"normalized"``: :math:`L = I - D^{-1/2} W D^{-1/2}`, spectrum in :math:`[0, 2]`;
* ``"randomwalk"``: :math:`L = I - D^{-1} W` (not symmetric; same spectrum as the normalized one).

An isolated node (degree 0) gives a zero row and column in every kind, never
NaN: its signal value is unconstrained by the graph.
"""

import sys
import time

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from scipy.sparse import csgraph

from . import _knn
from ._validation import (
    GraphWarning,
    check_dtype,
    check_option,
    check_points,
    check_random_state,
    check_scalar,
    warn,
)

__all__ = [
    "knn_graph",
    "epsilon_graph",
    "symmetrize",
    "laplacian",
    "lmax",
    "degrees",
    "connected_components",
    "as_adjacency",
    "to_pygsp",
    "to_networkx",
]

WEIGHTS = ("binary", "gaussian", "self-tuning")
MODES = ("union", "mutual", "average")
LAPLACIANS = ("combinatorial", "normalized", "randomwalk")
KNN_ALGORITHMS = ("auto", "kd_tree", "brute", "pynndescent", "hnswlib")
RADIUS_ALGORITHMS = ("auto", "kd_tree", "brute")


class _Progress:
    """Timestamps on stderr when the user asked for ``verbose=True``; silent otherwise."""

    def __init__(self, verbose, what):
        self.verbose = bool(verbose)
        self.what = what
        self.t0 = time.perf_counter()

    def __call__(self, message):
        if self.verbose:
            print(f"[graphrkhs.{self.what} {time.perf_counter() - self.t0:7.2f}s] {message}",
                  file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# Graph construction
# ---------------------------------------------------------------------------

def knn_graph(X, n_neighbors=10, *, weight="gaussian", sigma=None, mode="union", algorithm="auto",
              dtype=None, verbose=False, random_state=None):
    r"""Symmetric k-nearest-neighbour graph of a point cloud.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Points, finite.  float32 input gives a float32 graph.
    n_neighbors : int, default=10
        k, the number of neighbours of each point, itself excluded;
        ``1 <= k < n_samples``.  10 is the usual choice in graph-based
        semi-supervised learning (Calder et al. 2020 use 10).
    weight : {"gaussian", "binary", "self-tuning"}, default="gaussian"
        Edge weights, see the module documentation.
    sigma : float > 0, optional
        Gaussian width in :math:`\exp(-d^2 / (2\sigma^2))`.  None uses the
        mean distance over all k-nearest-neighbour pairs, which keeps the
        weights of typical edges near :math:`e^{-1/2}` whatever the scale of
        ``X``.  Ignored by the other weights.
    mode : {"union", "mutual", "average"}, default="union"
        Symmetrization of the directed kNN relation: ``"union"`` joins i and j
        when either is among the other's k nearest (every node keeps degree
        >= k), ``"mutual"`` when both are (can leave nodes isolated),
        ``"average"`` uses :math:`(W + W^T) / 2`.
    algorithm : {"auto", "kd_tree", "brute", "pynndescent", "hnswlib"}, default="auto"
        ``"auto"`` takes the kd-tree up to 16 dimensions and the blocked BLAS
        search above (kd-trees lose to BLAS in high dimension).  Both are
        exact.  ``"pynndescent"`` and ``"hnswlib"`` are approximate and need
        the optional ``ann`` extra.
    dtype : {None, float32, float64}
        Graph dtype; None keeps float32 input as float32, float64 otherwise.
    verbose : bool, default=False
        Report progress on stderr.
    random_state : int, Generator or None
        Seeds the approximate backends only (exact search is deterministic).

    Returns
    -------
    W : scipy.sparse.csr_array of shape (n_samples, n_samples)
        Symmetric, non-negative, zero diagonal.

    Notes
    -----
    Duplicate points are neighbours at distance 0 (weight 1); a point with
    more than k duplicates is linked to k of them.  With Gaussian weights an
    edge whose weight underflows to 0 is dropped.  The exact paths give the
    same edge set as :class:`sklearn.neighbors.NearestNeighbors` on data
    without distance ties.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import knn_graph
    >>> X = np.random.default_rng(0).normal(size=(100, 3))
    >>> W = knn_graph(X, n_neighbors=5)
    >>> W.shape, bool((W != W.T).nnz == 0), bool(W.diagonal().max() == 0)
    ((100, 100), True, True)
    """
    X = check_points(X, "X", min_samples=2)
    n = X.shape[0]
    n_neighbors = check_scalar(n_neighbors, "n_neighbors", kind="int", low=1)
    if n_neighbors >= n:
        raise ValueError(f"n_neighbors must be < n_samples = {n}; got {n_neighbors}.")
    check_option(weight, "weight", WEIGHTS)
    sigma = check_scalar(sigma, "sigma", low=0, low_inclusive=False, allow_none=True)
    check_option(mode, "mode", MODES)
    check_option(algorithm, "algorithm", KNN_ALGORITHMS)
    out_dtype = _output_dtype(dtype, X.dtype)
    rng = check_random_state(random_state)

    progress = _Progress(verbose, "knn_graph")
    progress(f"searching {n_neighbors} neighbours of {n} points in {X.shape[1]} dimensions ({algorithm})")
    dist, idx = _knn.knn_search(X, n_neighbors, algorithm, rng)
    progress("neighbour search done; weighting and symmetrizing")
    W = _knn_weights_to_graph(dist, idx, weight, sigma, mode)
    progress(f"graph with {W.nnz} stored edges")
    return W.astype(out_dtype, copy=False)


def _knn_weights_to_graph(dist, idx, weight, sigma, mode):
    n, k = idx.shape
    d2 = dist * dist
    if weight == "binary":
        w = np.ones_like(d2)
    elif weight == "gaussian":
        if sigma is None:
            sigma = float(dist.mean()) or 1.0  # all-duplicate data: any width gives weight 1
        w = np.exp(d2 * (-0.5 / sigma**2))
    else:  # self-tuning
        scale = dist[:, -1].copy()
        positive = scale > 0
        # A point with k duplicates has scale 0; borrow the smallest positive scale.
        scale[~positive] = scale[positive].min() if positive.any() else 1.0
        w = np.exp(-d2 / (scale[:, None] * scale[idx]))
    data, indices, indptr = _knn.symmetric_from_lists(idx, w, mode)
    W = sp.csr_array((data, indices, indptr), shape=(n, n))
    W.has_sorted_indices = True  # rows are sorted by the assembly
    if data.size and not data.all():  # Gaussian weights that underflowed: no edge
        W.eliminate_zeros()
    return W


def symmetrize(W, mode="union"):
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
        Symmetric, with explicit zeros removed and sorted indices.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import symmetrize
    >>> symmetrize(np.array([[0., 1.], [0., 0.]]), "union").toarray()
    array([[0., 1.],
           [1., 0.]])
    """
    check_option(mode, "mode", MODES)
    W = sp.csr_array(W)
    if W.ndim != 2 or W.shape[0] != W.shape[1]:
        raise ValueError(f"W must be a square matrix; got shape {W.shape}.")
    WT = W.T.tocsr()
    if mode == "union":
        S = W.maximum(WT)
    elif mode == "mutual":
        S = W.minimum(WT)
    else:
        S = (W + WT) * 0.5
    S = sp.csr_array(S)
    S.eliminate_zeros()
    S.sort_indices()
    return S


def epsilon_graph(X, radius, *, weight="gaussian", sigma=None, algorithm="auto", dtype=None,
                  verbose=False):
    r"""Epsilon-ball graph: i and j are joined when :math:`\|x_i - x_j\| \le` ``radius``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    radius : float > 0
        Ball radius.
    weight : {"gaussian", "binary", "self-tuning"}, default="gaussian"
        ``"self-tuning"`` uses :math:`\sigma_i` = the largest distance from
        :math:`x_i` to a point in its ball (nodes with an empty ball are
        isolated anyway).
    sigma : float > 0, optional
        Gaussian width; None uses the mean edge length.
    algorithm : {"auto", "kd_tree", "brute"}, default="auto"
        Both exact; ``"auto"`` as in :func:`knn_graph`.
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
    X = check_points(X, "X", min_samples=1)
    radius = check_scalar(radius, "radius", low=0, low_inclusive=False)
    check_option(weight, "weight", WEIGHTS)
    sigma = check_scalar(sigma, "sigma", low=0, low_inclusive=False, allow_none=True)
    check_option(algorithm, "algorithm", RADIUS_ALGORITHMS)
    out_dtype = _output_dtype(dtype, X.dtype)
    n = X.shape[0]
    progress = _Progress(verbose, "epsilon_graph")
    progress(f"searching pairs within {radius:g} among {n} points")
    i, j, dist = _knn.pairs_within_radius(X, radius, algorithm)
    progress(f"{i.size} pairs found")
    d2 = dist * dist
    if weight == "binary":
        w = np.ones_like(d2)
    elif weight == "gaussian":
        if sigma is None:
            sigma = float(dist.mean()) if dist.size and dist.mean() > 0 else 1.0
        w = np.exp(d2 * (-0.5 / sigma**2))
    else:
        scale = np.zeros(n)
        np.maximum.at(scale, i, dist)
        np.maximum.at(scale, j, dist)
        positive = scale > 0
        scale[~positive] = scale[positive].min() if positive.any() else 1.0
        w = np.exp(-d2 / (scale[i] * scale[j]))
    rows = np.concatenate([i, j])
    cols = np.concatenate([j, i])
    W = sp.csr_array((np.concatenate([w, w]), (rows, cols)), shape=(n, n))
    W.eliminate_zeros()
    W.sort_indices()
    if verbose:
        isolated = int(np.count_nonzero(np.diff(W.indptr) == 0))
        progress(f"graph with {W.nnz} stored edges, {isolated} isolated nodes")
    return W.astype(out_dtype, copy=False)


def _output_dtype(dtype, input_dtype):
    dtype = check_dtype(dtype)
    if dtype is not None:
        return dtype
    return np.dtype(np.float32) if input_dtype == np.float32 else np.dtype(np.float64)


# ---------------------------------------------------------------------------
# Conversions
# ---------------------------------------------------------------------------

def as_adjacency(G, *, dtype=None, symmetry_rtol=None):
    r"""Convert any supported graph form to a validated CSR adjacency matrix.

    Parameters
    ----------
    G : scipy sparse matrix/array, ndarray, pygsp.graphs.Graph or networkx.Graph
        The weighted adjacency.  A networkx graph is read with its edge
        attribute ``"weight"`` (1 where absent), rows in ``G.nodes`` order.
    dtype : {None, float32, float64}
        None keeps float32 input as float32 and uses float64 otherwise.
    symmetry_rtol : float, optional
        Relative tolerance of the symmetry check, scaled by the largest
        weight; default 1e-10 for float64 and 1e-5 for float32 input.  An
        adjacency within tolerance is symmetrized exactly as
        :math:`(W + W^T)/2`.

    Returns
    -------
    W : scipy.sparse.csr_array
        A copy (the input is never modified): symmetric, non-negative, finite,
        zero diagonal, explicit zeros removed, sorted indices.

    Raises
    ------
    TypeError
        For an unsupported type (including a LinearOperator or a directed
        networkx graph).
    ValueError
        For a non-square, empty, non-finite, negative or asymmetric matrix.

    Notes
    -----
    Self-loops are removed with a :class:`GraphWarning`: they do not change the
    combinatorial Laplacian :math:`D - W` but would distort the normalized one.

    Examples
    --------
    >>> import networkx as nx
    >>> from graphrkhs import as_adjacency
    >>> as_adjacency(nx.path_graph(3)).toarray()
    array([[0., 1., 0.],
           [1., 0., 1.],
           [0., 1., 0.]])
    """
    W = _to_sparse(G)
    if W.ndim != 2 or W.shape[0] != W.shape[1]:
        raise ValueError(f"the adjacency must be square (n, n); got shape {W.shape}.")
    if W.shape[0] == 0:
        raise ValueError("the adjacency is empty (0 nodes).")
    if W.dtype == bool or np.issubdtype(W.dtype, np.integer):
        W = W.astype(np.float64)
    if np.issubdtype(W.dtype, np.complexfloating) or not np.issubdtype(W.dtype, np.floating):
        raise TypeError(f"the adjacency must hold real weights; got dtype {W.dtype}.")
    target = check_dtype(dtype) or (np.dtype(np.float32) if W.dtype == np.float32 else np.dtype(np.float64))
    W = sp.csr_array(W, dtype=target, copy=True)
    W.sum_duplicates()
    if not np.isfinite(W.data).all():
        raise ValueError("the adjacency has NaN or infinite weights; weights must be finite.")
    if (W.data < 0).any():
        raise ValueError(
            f"the adjacency has negative weights (min {W.data.min():g}); graph weights must be >= 0."
        )
    W.eliminate_zeros()
    if W.nnz and W.diagonal().any():
        warn("the adjacency has self-loops; they were removed (graphs here have a zero diagonal).",
             GraphWarning)
        W.setdiag(0)
        W.eliminate_zeros()
    rtol = symmetry_rtol if symmetry_rtol is not None else (1e-5 if target == np.float32 else 1e-10)
    if W.nnz:
        WT = W.T.tocsr()
        diff = W - WT
        gap = float(abs(diff).max()) if diff.nnz else 0.0
        if gap > rtol * float(W.data.max()):
            raise ValueError(
                f"the adjacency is not symmetric (max |W - W.T| = {gap:.3g}); symmetrize it first, e.g. "
                "graphrkhs.symmetrize(W, 'union') (max of both directions), 'mutual' (min) or "
                "'average' ((W + W.T) / 2)."
            )
        if gap > 0:
            W = sp.csr_array((W + WT) * 0.5)
            W.eliminate_zeros()
    W.sort_indices()
    return W


def _to_sparse(G):
    if isinstance(G, spla.LinearOperator):
        raise TypeError("a LinearOperator cannot be used as a graph; pass the adjacency matrix itself.")
    if sp.issparse(G):
        return sp.csr_array(G)
    module = type(G).__module__ or ""
    if module.startswith("pygsp"):
        W = getattr(G, "W", None)
        if W is None:
            raise TypeError("this pygsp object has no adjacency matrix W.")
        return sp.csr_array(W)
    if module.startswith("networkx"):
        import networkx as nx

        if G.is_directed():
            raise TypeError(
                "a directed networkx graph is not supported; convert it with G.to_undirected() "
                "(or symmetrize the adjacency with graphrkhs.symmetrize)."
            )
        if G.number_of_nodes() == 0:
            raise ValueError("the networkx graph has no nodes.")
        if G.is_multigraph():
            G = nx.Graph(G)  # parallel edges: networkx keeps the last weight; documented by networkx
        return sp.csr_array(nx.to_scipy_sparse_array(G, weight="weight", format="csr", dtype=np.float64))
    if isinstance(G, np.ndarray) or isinstance(G, (list, tuple)):
        arr = np.asarray(G)
        if arr.dtype == object:
            raise TypeError("the adjacency array must be numeric; got dtype object.")
        if arr.ndim != 2:
            raise ValueError(f"the adjacency must be a 2-D (n, n) array; got {arr.ndim}-D.")
        return sp.csr_array(arr)
    raise TypeError(
        "graph must be a scipy sparse matrix or array, a dense numpy array, a pygsp.graphs.Graph or a "
        f"networkx.Graph; got {type(G).__module__}.{type(G).__name__}."
    )


def to_pygsp(W):
    """A :class:`pygsp.graphs.Graph` on the adjacency ``W`` (any graph form).

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import to_pygsp
    >>> to_pygsp(np.array([[0., 2.], [2., 0.]])).N
    2
    """
    from pygsp import graphs

    return graphs.Graph(as_adjacency(W))


def to_networkx(W):
    """A :class:`networkx.Graph` with the weights of ``W`` as the edge attribute ``"weight"``.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import to_networkx
    >>> G = to_networkx(np.array([[0., 2.], [2., 0.]]))
    >>> G[0][1]["weight"]
    2.0
    """
    import networkx as nx

    return nx.from_scipy_sparse_array(as_adjacency(W), edge_attribute="weight")


# ---------------------------------------------------------------------------
# Laplacians and spectra
# ---------------------------------------------------------------------------

def degrees(W):
    """Weighted degrees :math:`d_i = \\sum_j w_{ij}` of any graph form."""
    W = as_adjacency(W)
    return np.asarray(W.sum(axis=1)).ravel()


def laplacian(W, kind="combinatorial", *, dtype=None):
    r"""Graph Laplacian of an adjacency matrix.

    Parameters
    ----------
    W : graph
        Any form :func:`as_adjacency` accepts.
    kind : {"combinatorial", "normalized", "randomwalk"}, default="combinatorial"
        :math:`D - W`, :math:`I - D^{-1/2} W D^{-1/2}` or :math:`I - D^{-1} W`.
    dtype : {None, float32, float64}
        As in :func:`as_adjacency`.

    Returns
    -------
    L : scipy.sparse.csr_array
        Symmetric for the first two kinds.  Rows (and columns) of isolated
        nodes are zero in every kind: the normalized forms use
        :math:`d_i^{-1/2} = 0` and put 0, not 1, on their diagonal.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import laplacian
    >>> laplacian(np.array([[0., 1.], [1., 0.]])).toarray()
    array([[ 1., -1.],
           [-1.,  1.]])
    """
    check_option(kind, "kind", LAPLACIANS)
    W = as_adjacency(W, dtype=dtype)
    n = W.shape[0]
    d = np.asarray(W.sum(axis=1)).ravel()
    connected = (d > 0).astype(W.dtype)
    if kind == "combinatorial":
        L = sp.diags_array(d.astype(W.dtype)) - W
    elif kind == "normalized":
        inv_sqrt = np.zeros_like(d)
        inv_sqrt[d > 0] = 1.0 / np.sqrt(d[d > 0])
        scale = sp.diags_array(inv_sqrt.astype(W.dtype))
        L = sp.diags_array(connected) - scale @ W @ scale
    else:
        inv = np.zeros_like(d)
        inv[d > 0] = 1.0 / d[d > 0]
        L = sp.diags_array(connected) - sp.diags_array(inv.astype(W.dtype)) @ W
    L = sp.csr_array(L, dtype=W.dtype)
    L.sort_indices()
    assert L.shape == (n, n)
    return L


def connected_components(W):
    """Connected components of an (undirected) graph.

    Returns
    -------
    n_components : int
    labels : ndarray of shape (n,)
        Component index of each node.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import connected_components
    >>> connected_components(np.array([[0., 1, 0], [1, 0, 0], [0, 0, 0]]))
    (2, array([0, 0, 1], dtype=int32))
    """
    W = as_adjacency(W)
    return csgraph.connected_components(W, directed=False)


def _as_square_operator(L, name="L"):
    if isinstance(L, spla.LinearOperator):
        if L.shape[0] != L.shape[1]:
            raise ValueError(f"{name} must be square; got shape {L.shape}.")
        return L
    if sp.issparse(L):
        L = sp.csr_array(L)
    else:
        L = np.asarray(L)
        if L.dtype == object or not np.issubdtype(L.dtype, np.number):
            raise TypeError(f"{name} must be a numeric matrix or a LinearOperator; got dtype {L.dtype}.")
    if L.ndim != 2 or L.shape[0] != L.shape[1] or L.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty square matrix; got shape {L.shape}.")
    data = L.data if sp.issparse(L) else L
    if not np.isfinite(data).all():
        raise ValueError(f"{name} contains NaN or infinity.")
    return L


def _is_symmetric(L):
    # Relative tolerance scaled to the dtype: a float32 Laplacian built from a symmetric
    # adjacency is symmetric only to float32 rounding (normalization by sqrt(d_i d_j)).
    rtol = 1e-5 if L.dtype == np.float32 else 1e-8
    if sp.issparse(L):
        diff = L - L.T
        if diff.nnz == 0:
            return True
        scale = abs(L).max() or 1.0
        return abs(diff).max() <= rtol * scale
    return np.allclose(L, L.T, rtol=0, atol=rtol * (np.abs(L).max() or 1.0))


def lmax(L, method="lanczos", *, margin=0.005, tol=1e-4, random_state=0):
    r"""A guaranteed upper bound on the largest eigenvalue of a symmetric Laplacian.

    Chebyshev filters (:mod:`graphrkhs.spectral`) approximate a response on
    :math:`[0, \lambda_{max}]`; a bound *below* the spectrum makes the
    polynomial blow up, one far above wastes degree.  This function returns a
    bound that is never below :math:`\lambda_{max}` and, by default, within
    about 1% of it.

    Parameters
    ----------
    L : sparse matrix, ndarray or LinearOperator of shape (n, n)
        Symmetric.  (The random-walk Laplacian has the spectrum of the
        normalized one: pass that.)
    method : {"lanczos", "gershgorin"}, default="lanczos"
        ``"gershgorin"``: :math:`\max_i \sum_j |L_{ij}|`, free and always valid
        (:math:`2 d_{max}` for the combinatorial Laplacian), but can be far
        above (the normalized Laplacian's spectrum lies in [0, 2] whatever
        this bound says).  ``"lanczos"``: the largest Ritz
        value :math:`\theta` of an implicitly restarted Lanczos run (ARPACK)
        plus its residual norm :math:`\|L v - \theta v\|` (an eigenvalue lies
        within it) and ``margin`` :math:`\theta`, capped by the Gershgorin
        bound when ``L`` is a matrix.
    margin : float >= 0, default=0.005
        Relative safety margin of the Lanczos bound.
    tol : float > 0, default=1e-4
        Relative tolerance of the Lanczos run; its residual is added anyway.
    random_state : int, Generator or None, default=0
        Seeds the Lanczos start vector (results are reproducible by default).

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import laplacian, lmax
    >>> L = laplacian(np.ones((4, 4)) - np.eye(4))    # complete graph K4: eigenvalues 0, 4, 4, 4
    >>> 4.0 <= lmax(L) <= 4.0 * 1.01
    True
    >>> float(lmax(L, "gershgorin"))
    6.0
    """
    check_option(method, "method", ("lanczos", "gershgorin"))
    margin = check_scalar(margin, "margin", low=0)
    tol = check_scalar(tol, "tol", low=0, low_inclusive=False)
    L = _as_square_operator(L)
    is_operator = isinstance(L, spla.LinearOperator)
    gersh = None
    if not is_operator:
        absL = abs(L)
        gersh = float(np.asarray(absL.sum(axis=1)).max())
        if method == "gershgorin":
            return gersh
        if not _is_symmetric(L):
            raise ValueError(
                "lmax needs a symmetric L; the random-walk Laplacian I - D^-1 W has the spectrum of the "
                "normalized Laplacian: compute lmax(laplacian(W, 'normalized')) instead."
            )
    elif method == "gershgorin":
        raise TypeError("method='gershgorin' needs the matrix entries; a LinearOperator was given.")
    n = L.shape[0]
    if n <= 64:
        dense = L @ np.eye(n) if is_operator else (L.toarray() if sp.issparse(L) else np.asarray(L, float))
        ev = float(np.linalg.eigvalsh(np.asarray(dense, dtype=np.float64)).max())
        bound = ev + margin * abs(ev) + 64 * np.finfo(float).eps * (gersh or abs(ev) or 1.0)
        return float(min(bound, gersh) if gersh is not None else bound)
    rng = check_random_state(random_state)
    v0 = rng.standard_normal(n)
    op = spla.aslinearoperator(L) if not is_operator else L
    if op.dtype != np.float64:
        # ARPACK on float32 limits the attainable accuracy; run the iteration in float64.
        op = spla.LinearOperator(op.shape, matvec=lambda x: np.asarray(L @ x.astype(op.dtype), dtype=np.float64),
                                 dtype=np.float64)
    try:
        theta, vec = spla.eigsh(op, k=1, which="LA", tol=tol, v0=v0, ncv=min(n, 24), maxiter=50 * n)
    except spla.ArpackNoConvergence as exc:  # fall back on what converged, or Gershgorin
        if exc.eigenvalues.size:
            theta, vec = exc.eigenvalues, exc.eigenvectors
        elif gersh is not None:
            return gersh
        else:
            raise
    theta = float(theta[0])
    v = vec[:, 0]
    residual = float(np.linalg.norm(op.matvec(v) - theta * v) / np.linalg.norm(v))
    bound = theta + residual + margin * abs(theta)
    return float(min(bound, gersh) if gersh is not None else bound)
