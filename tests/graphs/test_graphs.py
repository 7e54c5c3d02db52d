"""Graph construction, Laplacians, lmax and conversions against dense oracles."""

import warnings

import networkx as nx
import numpy as np
import pygsp
import pytest
import scipy.sparse as sp
from scipy.spatial.distance import cdist
from sklearn.neighbors import NearestNeighbors

from graphrkhs import (
    GraphSpec,
    GraphWarning,
    as_adjacency,
    connected_components,
    epsilon_graph,
    knn_graph,
    laplacian,
    lmax,
    symmetrize,
    to_networkx,
    to_pygsp,
)
from graphrkhs.graphs import _search as _knn

RNG = np.random.default_rng(12345)


def _points(n, d, seed=0, dtype=np.float64):
    return np.random.default_rng(seed).normal(size=(n, d)).astype(dtype)


def _sklearn_directed(X, k):
    """Directed kNN (self excluded) by scikit-learn: the oracle."""
    dist, idx = NearestNeighbors(n_neighbors=k, algorithm="brute").fit(X).kneighbors()
    return dist, idx


def _dense_directed(X, k, weights):
    n = X.shape[0]
    dist, idx = _sklearn_directed(np.asarray(X, dtype=np.float64), k)
    A = np.zeros((n, n))
    A[np.repeat(np.arange(n), k), idx.ravel()] = weights(dist, idx).ravel()
    return A


# ---------------------------------------------------------------------------
# kNN search and graphs
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("algorithm", ["kd_tree", "brute"])
@pytest.mark.parametrize("n,d", [(500, 2), (400, 3), (300, 40), (250, 300)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_knn_search_matches_sklearn(algorithm, n, d, dtype):
    X = _points(n, d, seed=n + d, dtype=dtype)
    dist_ref, idx_ref = _sklearn_directed(X.astype(np.float64), 7)
    dist, idx = _knn.knn_search(X, 7, algorithm, np.random.default_rng(0))
    np.testing.assert_array_equal(np.sort(idx, axis=1), np.sort(idx_ref, axis=1))
    # distances sorted ascending, and exact in float64 (from float32-rounded points)
    assert np.all(np.diff(dist, axis=1) >= 0)
    np.testing.assert_allclose(dist, dist_ref, rtol=1e-10, atol=1e-12)


def test_brute_certificate_handles_ties_and_duplicates():
    # Integer grid points: massive distance ties, plus exact duplicates. Edge sets may differ
    # on ties, but every returned distance profile must be the true sorted one.
    grid = np.stack(np.meshgrid(np.arange(6), np.arange(6), np.arange(3)), -1).reshape(-1, 3).astype(float)
    X = np.vstack([grid, grid[:20]])
    X = np.hstack([X, np.zeros((X.shape[0], 30))])  # high-dimensional embedding -> brute path
    k = 8
    dist, idx = _knn.knn_search(X, k, "brute", np.random.default_rng(0))
    D = cdist(X, X)
    np.fill_diagonal(D, np.inf)
    true_sorted = np.sort(D, axis=1)[:, :k]
    np.testing.assert_allclose(dist, true_sorted, atol=1e-12)
    np.testing.assert_allclose(D[np.arange(X.shape[0])[:, None], idx], dist, atol=1e-12)
    assert not np.any(idx == np.arange(X.shape[0])[:, None])


def test_brute_certificate_fallback_is_exact():
    # Points whose float32 screening is ambiguous: huge common offset, tiny spread.
    rng = np.random.default_rng(3)
    X = 1e4 + 1e-3 * rng.normal(size=(300, 20))
    X[:, 0] += np.arange(300) * 1e-7  # break exact ties
    dist, idx = _knn.brute_search(X, 5)
    ref_dist, ref_idx = _sklearn_directed(X, 5)
    D = cdist(X, X)
    np.fill_diagonal(D, np.inf)
    np.testing.assert_allclose(dist, np.sort(D, axis=1)[:, :5], rtol=1e-6)


@pytest.mark.parametrize("mode", ["union", "mutual", "average"])
@pytest.mark.parametrize("weight", ["binary", "gaussian", "self-tuning"])
def test_knn_graph_matches_dense_oracle(mode, weight):
    X = _points(200, 3, seed=1)
    k = 6
    sigma = 0.7

    def weights(dist, idx):
        if weight == "binary":
            return np.ones_like(dist)
        if weight == "gaussian":
            return np.exp(-dist**2 / (2 * sigma**2))
        scale = dist[:, -1]
        return np.exp(-dist**2 / (scale[:, None] * scale[idx]))

    A = _dense_directed(X, k, weights)
    expected = {"union": np.maximum(A, A.T), "mutual": np.minimum(A, A.T), "average": (A + A.T) / 2}[mode]
    W = knn_graph(X, k, weight=weight, sigma=sigma, mode=mode)
    assert isinstance(W, sp.csr_array)
    assert W.has_sorted_indices
    np.testing.assert_allclose(W.toarray(), expected, rtol=1e-12, atol=0)


@pytest.mark.parametrize("mode", ["union", "average"])
@pytest.mark.parametrize("relative_width", [0.5, 1.0, 3.0])
def test_knn_graph_self_tuning_relative_width_matches_dense_oracle(mode, relative_width):
    # w_ij = exp(-d_ij^2 / (r^2 s_i s_j)), s_i the distance to the k-th neighbour (Zelnik-Manor & Perona)
    X = _points(180, 4, seed=11)
    k = 7
    D = cdist(X, X)
    np.fill_diagonal(D, np.inf)
    order = np.argsort(D, axis=1)[:, :k]
    s = np.take_along_axis(D, order, axis=1)[:, -1]
    A = np.zeros_like(D)
    rows = np.repeat(np.arange(180), k)
    A[rows, order.ravel()] = np.exp(-D[rows, order.ravel()] ** 2
                                    / (relative_width**2 * s[rows] * s[order.ravel()]))
    expected = np.maximum(A, A.T) if mode == "union" else (A + A.T) / 2
    W = knn_graph(X, k, weight="self-tuning", relative_width=relative_width, mode=mode)
    np.testing.assert_allclose(W.toarray(), expected, rtol=1e-12, atol=0)
    # the default is Zelnik-Manor & Perona's r = 1; r = 1/2 is the same graph with every weight to the 4th power
    W1 = knn_graph(X, k, weight="self-tuning", mode=mode)
    np.testing.assert_allclose(W1.toarray(), knn_graph(X, k, weight="self-tuning", relative_width=1.0,
                                                       mode=mode).toarray(), rtol=0, atol=0)
    if mode == "union":
        np.testing.assert_allclose(knn_graph(X, k, weight="self-tuning", relative_width=0.5).toarray(),
                                   W1.toarray() ** 4, rtol=1e-12, atol=0)


def test_relative_width_is_scale_free_and_ignored_by_other_weights():
    X = _points(120, 3, seed=12)
    W = knn_graph(X, 5, weight="self-tuning", relative_width=0.5)
    np.testing.assert_allclose(knn_graph(1e-3 * X, 5, weight="self-tuning", relative_width=0.5).toarray(),
                               W.toarray(), rtol=1e-10, atol=0)
    for weight in ("gaussian", "binary"):
        np.testing.assert_array_equal(knn_graph(X, 5, weight=weight, relative_width=0.5).toarray(),
                                      knn_graph(X, 5, weight=weight).toarray())


def test_graph_from_neighbors_and_graphspec_pass_relative_width():
    from graphrkhs import GraphSpec
    from graphrkhs.graphs import graph_from_neighbors

    X = _points(100, 3, seed=13)
    W = knn_graph(X, 6, weight="self-tuning", relative_width=0.4)
    dist, idx = _sklearn_directed(X, 6)
    np.testing.assert_allclose(graph_from_neighbors(dist, idx, weight="self-tuning",
                                                    relative_width=0.4).toarray(), W.toarray(), rtol=1e-12)
    spec = GraphSpec(n_neighbors=6, weight="self-tuning", relative_width=0.4)
    np.testing.assert_allclose(spec.build(X).toarray(), W.toarray(), rtol=1e-12)
    with pytest.raises(ValueError, match="relative_width must be > 0"):
        GraphSpec(relative_width=0.0).validate()
    with pytest.raises(ValueError, match="relative_width must be > 0"):
        graph_from_neighbors(dist, idx, weight="self-tuning", relative_width=-1.0)


@pytest.mark.parametrize("weight", ["self-tuning", "gaussian", "binary"])
@pytest.mark.parametrize("algorithm", ["kd_tree", "brute"])
def test_knn_graph_cosine_metric_matches_dense_oracle(weight, algorithm):
    # neighbours by the cosine distance 1 - cos(theta) (scipy's cdist 'cosine', on the raw rows), weights of
    # the chord distance d^2 = 2 - 2 cos(theta) = 2 * cosine distance between the unit vectors
    rng = np.random.default_rng(21)
    X = rng.normal(size=(150, 5)) * rng.uniform(0.1, 10.0, size=(150, 1))  # rows of very different lengths
    k = 6
    C = cdist(X, X, "cosine")
    np.fill_diagonal(C, np.inf)
    order = np.argsort(C, axis=1)[:, :k]
    rows = np.repeat(np.arange(150), k)
    d2 = 2.0 * C[rows, order.ravel()]
    if weight == "self-tuning":
        s2 = 2.0 * np.take_along_axis(C, order, axis=1)[:, -1]  # squared distance to the k-th neighbour
        w = np.exp(-d2 / (0.5**2 * np.sqrt(s2[rows] * s2[order.ravel()])))
    elif weight == "gaussian":
        w = np.exp(-d2 / (2 * np.mean(np.sqrt(d2)) ** 2))
    else:
        w = np.ones_like(d2)
    A = np.zeros((150, 150))
    A[rows, order.ravel()] = w
    W = knn_graph(X, k, weight=weight, relative_width=0.5, metric="cosine", algorithm=algorithm)
    np.testing.assert_allclose(W.toarray(), np.maximum(A, A.T), rtol=1e-9, atol=1e-14)
    # a positive scaling of every row leaves the graph unchanged; the Euclidean graph of these rows differs
    W2 = knn_graph(X * rng.uniform(0.01, 100.0, size=(150, 1)), k, weight=weight, relative_width=0.5,
                   metric="cosine", algorithm=algorithm)
    np.testing.assert_allclose(W2.toarray(), W.toarray(), rtol=1e-9, atol=1e-14)
    assert (knn_graph(X, k, weight="binary") != knn_graph(X, k, weight="binary", metric="cosine")).nnz > 0


def test_cosine_metric_through_graphspec_and_epsilon_graph():
    from graphrkhs import GraphSpec, epsilon_graph

    rng = np.random.default_rng(22)
    X = rng.normal(size=(80, 4)) * rng.uniform(0.5, 5.0, size=(80, 1))
    U = X / np.linalg.norm(X, axis=1, keepdims=True)
    spec = GraphSpec(n_neighbors=5, weight="self-tuning", relative_width=0.5, metric="cosine")
    np.testing.assert_allclose(spec.build(X).toarray(),
                               knn_graph(U, 5, weight="self-tuning", relative_width=0.5).toarray(), rtol=1e-10)
    # epsilon: i ~ j iff 2 - 2 cos(theta_ij) <= radius^2
    E = epsilon_graph(X, 0.6, weight="binary", metric="cosine").toarray()
    expected = (2.0 * cdist(X, X, "cosine") <= 0.36).astype(float)
    np.fill_diagonal(expected, 0.0)
    np.testing.assert_array_equal(E, expected)
    with pytest.raises(ValueError, match="metric"):
        knn_graph(np.vstack([X, np.zeros((1, 4))]), 5, metric="cosine")


def test_knn_graph_default_sigma_is_mean_knn_distance():
    X = _points(150, 4, seed=2)
    dist, _ = _sklearn_directed(X, 5)
    W_default = knn_graph(X, 5)
    W_explicit = knn_graph(X, 5, sigma=float(dist.mean()))
    np.testing.assert_allclose(W_default.toarray(), W_explicit.toarray(), rtol=1e-12)


@pytest.mark.parametrize("algorithm", ["kd_tree", "brute"])
def test_knn_graph_properties_and_dtype(algorithm):
    for dtype in (np.float32, np.float64):
        X = _points(300, 5, seed=4, dtype=dtype)
        W = knn_graph(X, 8, algorithm=algorithm)
        assert W.dtype == dtype
        assert (W != W.T).nnz == 0
        assert W.diagonal().max() == 0
        assert W.data.min() > 0
        degrees_count = np.diff(W.indptr)
        assert degrees_count.min() >= 8  # union keeps every node's k neighbours
    W64 = knn_graph(_points(300, 5, seed=4, dtype=np.float32), 8, dtype=np.float64)
    assert W64.dtype == np.float64


def test_knn_graph_duplicates():
    base = _points(50, 3, seed=5)
    X = np.vstack([base, base, base[:5], base[:5]])  # some points 4 times
    W = knn_graph(X, 3, weight="gaussian")
    assert W.diagonal().max() == 0
    # a point with >= 3 duplicates links to 3 of its copies, with weight exp(0) = 1
    row = W[[0]].toarray().ravel()
    copies = [50, 100, 105]
    assert np.all(row[copies] == 1.0)
    assert np.isfinite(W.data).all()
    # self-tuning with zero local scales stays finite
    Wst = knn_graph(X, 3, weight="self-tuning")
    assert np.isfinite(Wst.data).all() and Wst.data.max() <= 1.0


def test_knn_graph_does_not_mutate_input():
    X = _points(100, 3, seed=6)
    X0 = X.copy()
    knn_graph(X, 5, algorithm="brute")
    knn_graph(X, 5, algorithm="kd_tree")
    np.testing.assert_array_equal(X, X0)


# pynndescent: in the pytest-xdist group of tests/graphs/test_knn_auto.py (one NN-descent compilation)
@pytest.mark.parametrize("algorithm", [pytest.param("pynndescent", marks=pytest.mark.xdist_group("pynndescent")),
                                       "hnswlib"])
def test_knn_graph_approximate_backends_recall(algorithm):
    X = _points(1500, 10, seed=7)
    _, idx_ref = _sklearn_directed(X, 10)
    dist, idx = _knn.knn_search(X, 10, algorithm, np.random.default_rng(0))
    assert not np.any(idx == np.arange(X.shape[0])[:, None])
    recall = np.mean([np.intersect1d(a, b).size / 10 for a, b in zip(idx, idx_ref)])
    assert recall >= 0.95
    W = knn_graph(X, 10, algorithm=algorithm, random_state=0)
    assert (W != W.T).nnz == 0 and W.diagonal().max() == 0


# ---------------------------------------------------------------------------
# epsilon graphs
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("algorithm", ["kd_tree", "brute"])
@pytest.mark.parametrize("weight", ["binary", "gaussian", "self-tuning"])
def test_epsilon_graph_matches_dense_oracle(algorithm, weight):
    X = _points(150, 3, seed=8)
    r = 0.8
    D = cdist(X, X)
    mask = (D <= r) & ~np.eye(150, dtype=bool)
    if weight == "binary":
        expected = mask * 1.0
    elif weight == "gaussian":
        sigma = D[mask].mean()
        expected = np.where(mask, np.exp(-D**2 / (2 * sigma**2)), 0)
    else:
        scale = np.where(mask, D, 0).max(axis=1)
        scale[scale == 0] = scale[scale > 0].min()
        expected = np.where(mask, np.exp(-D**2 / np.outer(scale, scale)), 0)
    W = epsilon_graph(X, r, weight=weight, algorithm=algorithm)
    np.testing.assert_allclose(W.toarray(), expected, rtol=1e-12, atol=1e-300)
    if weight == "self-tuning":
        # relative width r: exp(-d^2 / (r^2 s_i s_j))
        expected = np.where(mask, np.exp(-D**2 / (0.25 * np.outer(scale, scale))), 0)
        W = epsilon_graph(X, r, weight=weight, algorithm=algorithm, relative_width=0.5)
        np.testing.assert_allclose(W.toarray(), expected, rtol=1e-12, atol=1e-300)


def test_epsilon_graph_isolated_nodes():
    X = np.array([[0.0, 0], [0.5, 0], [10, 10]])
    W = epsilon_graph(X, 1.0, weight="binary")
    np.testing.assert_array_equal(W.toarray(), [[0, 1, 0], [1, 0, 0], [0, 0, 0]])
    for kind in ("combinatorial", "normalized", "randomwalk"):
        L = laplacian(W, kind).toarray()
        assert np.isfinite(L).all()
        np.testing.assert_array_equal(L[2], 0)
        np.testing.assert_array_equal(L[:, 2], 0)
    W_none = epsilon_graph(X, 0.1)
    assert W_none.nnz == 0 and W_none.shape == (3, 3)


# ---------------------------------------------------------------------------
# Laplacians and lmax
# ---------------------------------------------------------------------------

def _random_weighted_graph(n, p, seed, isolated=0):
    rng = np.random.default_rng(seed)
    A = (rng.random((n, n)) < p) * rng.random((n, n))
    A = np.triu(A, 1)
    A = A + A.T
    if isolated:
        A[:isolated] = 0
        A[:, :isolated] = 0
    return A


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_laplacians_match_dense_formulas(dtype):
    A = _random_weighted_graph(40, 0.2, seed=9, isolated=2)
    d = A.sum(axis=1)
    inv_sqrt = np.where(d > 0, 1 / np.sqrt(np.where(d > 0, d, 1)), 0)
    inv = np.where(d > 0, 1 / np.where(d > 0, d, 1), 0)
    I_conn = np.diag((d > 0) * 1.0)
    expected = {
        "combinatorial": np.diag(d) - A,
        "normalized": I_conn - inv_sqrt[:, None] * A * inv_sqrt[None, :],
        "randomwalk": I_conn - inv[:, None] * A,
    }
    tol = 1e-6 if dtype == np.float32 else 1e-13
    for kind, ref in expected.items():
        L = laplacian(A.astype(dtype), kind)
        assert L.dtype == dtype and isinstance(L, sp.csr_array)
        np.testing.assert_allclose(L.toarray(), ref, atol=tol)
    Lc = laplacian(A, "combinatorial")
    np.testing.assert_allclose(Lc @ np.ones(40), 0, atol=1e-13)
    # normalized L annihilates D^{1/2} 1; both normalized forms share the spectrum
    Ln = laplacian(A, "normalized").toarray()
    np.testing.assert_allclose(Ln @ np.sqrt(d), 0, atol=1e-12)
    ev_n = np.sort(np.linalg.eigvalsh(Ln))
    ev_rw = np.sort(np.linalg.eigvals(laplacian(A, "randomwalk").toarray()).real)
    np.testing.assert_allclose(ev_n, ev_rw, atol=1e-10)


def test_laplacian_agrees_with_scipy_csgraph():
    from scipy.sparse.csgraph import laplacian as scipy_laplacian

    A = _random_weighted_graph(30, 0.3, seed=10)
    np.testing.assert_allclose(laplacian(A).toarray(), scipy_laplacian(A), atol=1e-14)
    np.testing.assert_allclose(laplacian(A, "normalized").toarray(), scipy_laplacian(A, normed=True), atol=1e-13)


@pytest.mark.parametrize("kind", ["combinatorial", "normalized"])
def test_lmax_is_an_upper_bound_and_tight(kind):
    worst_ratio = 0.0
    for seed in range(25):
        n = [20, 70, 150, 300][seed % 4]
        p = [0.05, 0.1, 0.3][seed % 3]
        A = _random_weighted_graph(n, p, seed=100 + seed, isolated=seed % 2)
        L = laplacian(A, kind)
        true = np.linalg.eigvalsh(L.toarray()).max()
        for rs in (0, 1):
            bound = lmax(L, random_state=rs)
            assert bound >= true
            worst_ratio = max(worst_ratio, bound / true)
        g = lmax(L, "gershgorin")
        assert g >= true - 1e-12
    assert worst_ratio <= 1.01


def test_lmax_on_knn_graph_and_operator():
    W = knn_graph(_points(800, 3, seed=11), 10)
    L = laplacian(W)
    true = np.linalg.eigvalsh(L.toarray()).max()
    b = lmax(L)
    assert true <= b <= 1.01 * true
    op = sp.linalg.aslinearoperator(L)
    b_op = lmax(op)
    assert true <= b_op <= 1.01 * true
    assert lmax(laplacian(W.astype(np.float32))) >= true * (1 - 1e-6)


def test_lmax_gershgorin_closed_forms():
    A = _random_weighted_graph(50, 0.2, seed=12)
    assert lmax(laplacian(A), "gershgorin") == pytest.approx(2 * A.sum(axis=1).max())
    Ln = laplacian(A, "normalized").toarray()
    assert lmax(Ln, "gershgorin") == pytest.approx(np.abs(Ln).sum(axis=1).max())


# ---------------------------------------------------------------------------
# Conversions and helpers
# ---------------------------------------------------------------------------

def test_as_adjacency_accepts_every_form_and_copies():
    A = _random_weighted_graph(20, 0.3, seed=13)
    forms = [A, sp.csr_matrix(A), sp.coo_array(A), sp.csc_matrix(A), pygsp.graphs.Graph(A),
             nx.from_numpy_array(A)]
    for G in forms:
        W = as_adjacency(G)
        assert isinstance(W, sp.csr_array) and W.dtype == np.float64
        np.testing.assert_allclose(W.toarray(), A)
    M = sp.csr_array(A)
    W = as_adjacency(M)
    W.data[:] = -1
    assert M.data.min() >= 0  # the caller's matrix is untouched
    assert as_adjacency(A.astype(np.float32)).dtype == np.float32
    assert as_adjacency(A > 0).dtype == np.float64


def test_float16_adjacency_is_upcast_to_float64_like_integers():
    """A float16 array reached scipy.sparse, whose error names neither the argument nor a fix; it is
    upcast to float64 as integers and booleans are.  The weights (multiples of 1/4) are exact in
    float16, so every result equals the float64 one exactly."""
    from graphrkhs import degrees

    A = np.array([[0, 1.5, 0, 0.25], [1.5, 0, 2, 0], [0, 2, 0, 1], [0.25, 0, 1, 0]])
    H, I = A.astype(np.float16), (4 * A).astype(np.int64)
    for kind in ("combinatorial", "normalized", "randomwalk"):
        L = laplacian(H, kind)
        assert L.dtype == np.float64 and laplacian(I, kind).dtype == np.float64
        np.testing.assert_array_equal(L.toarray(), laplacian(A, kind).toarray())
    W = as_adjacency(H)
    assert W.dtype == np.float64
    np.testing.assert_array_equal(W.toarray(), A)
    assert as_adjacency(H, dtype=np.float32).dtype == np.float32
    np.testing.assert_array_equal(symmetrize(np.triu(H)).toarray(), A)
    np.testing.assert_array_equal(degrees(H), A.sum(1))
    assert connected_components(H)[0] == 1


def test_as_adjacency_removes_self_loops_with_warning():
    A = _random_weighted_graph(10, 0.5, seed=14) + np.eye(10)
    with pytest.warns(GraphWarning, match="self-loops"):
        W = as_adjacency(A)
    assert W.diagonal().max() == 0


@pytest.mark.parametrize("mode", ["union", "mutual", "average"])
@pytest.mark.parametrize("container", [np.asarray, sp.csr_array, sp.csr_matrix])
def test_symmetrize_removes_self_loops_like_as_adjacency(mode, container):
    """symmetrize kept the diagonal while as_adjacency removes it with a GraphWarning; both now return
    a zero diagonal (DESIGN: returned graphs have one), with the same warning, and the same graph."""
    D = np.array([[2.0, 1.0, 0.0], [0.0, 0.0, 3.0], [0.0, 4.0, 0.5]])
    off = D - np.diag(np.diag(D))
    expected = {"union": np.maximum(off, off.T), "mutual": np.minimum(off, off.T), "average": (off + off.T) / 2}
    M = container(D)
    with pytest.warns(GraphWarning, match="self-loops; they were removed"):
        S = symmetrize(M, mode)
    np.testing.assert_array_equal(S.toarray(), expected[mode])
    assert S.diagonal().max() == 0 and 0 not in S.data            # no explicit zeros left on the diagonal
    assert (np.asarray(M.toarray() if sp.issparse(M) else M) == D).all()   # the input is untouched
    with pytest.warns(GraphWarning, match="self-loops; they were removed"):
        W = as_adjacency(symmetrize(D, mode) + sp.diags_array([1.0, 0.0, 2.0]))
    np.testing.assert_array_equal(W.toarray(), S.toarray())


def test_as_adjacency_near_symmetric_is_symmetrized_exactly():
    A = _random_weighted_graph(10, 0.5, seed=15)
    B = A.copy()
    B[0, 1] += 1e-14 if B[0, 1] else 0
    W = as_adjacency(B)
    assert (W != W.T).nnz == 0


def test_roundtrips():
    A = _random_weighted_graph(25, 0.3, seed=16)
    G = to_pygsp(A)
    assert isinstance(G, pygsp.graphs.Graph)
    np.testing.assert_allclose(G.W.toarray(), A)
    H = to_networkx(A)
    np.testing.assert_allclose(nx.to_numpy_array(H, weight="weight"), A)
    np.testing.assert_allclose(as_adjacency(H).toarray(), A)


def test_connected_components_and_symmetrize():
    A = np.zeros((5, 5))
    A[0, 1] = A[1, 0] = 1
    A[2, 3] = A[3, 2] = 2
    n, labels = connected_components(A)
    assert n == 3
    assert labels[0] == labels[1] != labels[2] == labels[3] != labels[4]
    D = np.array([[0, 2.0, 0], [1.0, 0, 3.0], [0, 0, 0]])
    np.testing.assert_array_equal(symmetrize(D, "union").toarray(), np.maximum(D, D.T))
    np.testing.assert_array_equal(symmetrize(D, "mutual").toarray(), np.minimum(D, D.T))
    np.testing.assert_array_equal(symmetrize(D, "average").toarray(), (D + D.T) / 2)


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------

GOOD_X = _points(20, 3, seed=17)

KNN_BAD = [
    (dict(X=np.array([[0.0, np.nan], [1, 1], [2, 2]])), ValueError, "NaN or infinity"),
    (dict(X=np.array([[0.0, np.inf], [1, 1], [2, 2]])), ValueError, "NaN or infinity"),
    (dict(X=np.zeros(5)), ValueError, "2-D"),
    (dict(X=np.zeros((0, 3))), ValueError, "at least"),
    (dict(X=np.zeros((5, 0))), ValueError, "at least"),
    (dict(X=[["a", "b"], ["c", "d"]]), TypeError, "numbers"),
    # sparse points are taken (tests/graphs/test_sparse_graphs.py); a sparse X is checked as a dense one
    (dict(X=sp.csr_array(np.eye(3) * 1j)), TypeError, "X must be real"),
    (dict(X=sp.csr_array(np.array([[0.0, np.nan], [1, 1], [2, 2]]))), ValueError, "NaN or infinity"),
    (dict(n_neighbors=0), ValueError, "n_neighbors must be >= 1"),
    (dict(n_neighbors=20), ValueError, "n_neighbors must be < n_samples"),
    (dict(n_neighbors=2.5), TypeError, "n_neighbors must be an int"),
    (dict(n_neighbors=True), TypeError, "n_neighbors must be an int"),
    (dict(sigma=0.0), ValueError, "sigma must be > 0"),
    (dict(sigma=-1.0), ValueError, "sigma must be > 0"),
    (dict(sigma=np.nan), ValueError, "sigma must be finite"),
    (dict(weight="cosine"), ValueError, "weight must be one of"),
    (dict(mode="both"), ValueError, "mode must be one of"),
    (dict(algorithm="ball_tree"), ValueError, "algorithm must be one of"),
    (dict(dtype=np.int32), ValueError, "dtype must be"),
    (dict(relative_width=0.0), ValueError, "relative_width must be > 0"),
    (dict(relative_width=np.inf), ValueError, "relative_width must be finite"),
    (dict(relative_width="1/2"), TypeError, "relative_width must be a real number"),
]


@pytest.mark.parametrize("kwargs,error,match", KNN_BAD)
def test_knn_graph_bad_input(kwargs, error, match):
    kwargs = dict(kwargs)
    X = kwargs.pop("X", GOOD_X)
    with pytest.raises(error, match=match):
        knn_graph(X, **{"n_neighbors": 3, **kwargs})


EPS_BAD = [
    (dict(radius=0.0), ValueError, "radius must be > 0"),
    (dict(radius=-1.0), ValueError, "radius must be > 0"),
    (dict(radius="1"), TypeError, "radius must be a real number"),
    (dict(sigma=-2.0), ValueError, "sigma must be > 0"),
    (dict(weight="heat"), ValueError, "weight must be one of"),
    (dict(relative_width=-0.5), ValueError, "relative_width must be > 0"),
    (dict(algorithm="pynndescent"), ValueError, "algorithm must be one of"),
    (dict(X=np.array([[1.0, np.nan]])), ValueError, "NaN"),
]


@pytest.mark.parametrize("kwargs,error,match", EPS_BAD)
def test_epsilon_graph_bad_input(kwargs, error, match):
    kwargs = dict(kwargs)
    X = kwargs.pop("X", GOOD_X)
    with pytest.raises(error, match=match):
        epsilon_graph(X, **{"radius": 1.0, **kwargs})


ADJ_BAD = [
    (np.ones((3, 4)), ValueError, "square"),
    (np.zeros((0, 0)), ValueError, "empty"),
    (np.array([[0, -1.0], [-1.0, 0]]), ValueError, "negative"),
    (np.array([[0, np.nan], [np.nan, 0]]), ValueError, "NaN or infinite"),
    (np.array([[0, np.inf], [np.inf, 0]]), ValueError, "NaN or infinite"),
    (np.array([[0, 1.0], [2.0, 0]]), ValueError, "not symmetric.*symmetrize"),
    (np.array([[0, 1j], [1j, 0]]), TypeError, "real"),
    (np.zeros(4), ValueError, "2-D"),
    ("graph", TypeError, "graph must be"),
    ({"a": 1}, TypeError, "graph must be"),
    (sp.linalg.aslinearoperator(np.eye(3)), TypeError, "LinearOperator"),
    (nx.DiGraph([(0, 1)]), TypeError, "directed"),
    (nx.Graph(), ValueError, "no nodes"),
]


@pytest.mark.parametrize("G,error,match", ADJ_BAD)
def test_as_adjacency_bad_input(G, error, match):
    with pytest.raises(error, match=match):
        as_adjacency(G)


@pytest.mark.parametrize("call,error,match", [
    (lambda: laplacian(np.eye(2) * 0, kind="signless"), ValueError, "kind must be one of"),
    (lambda: laplacian(np.array([[0, 1.0], [0, 0]])), ValueError, "not symmetric"),
    (lambda: lmax(np.ones((2, 3))), ValueError, "square"),
    (lambda: lmax(np.eye(3), method="power"), ValueError, "method must be one of"),
    (lambda: lmax(np.array([[1.0, 2.0], [0.0, 1.0]])), ValueError, "symmetric"),
    (lambda: lmax(sp.linalg.aslinearoperator(np.eye(3)), "gershgorin"), TypeError, "LinearOperator"),
    (lambda: lmax(np.eye(3), margin=-0.1), ValueError, "margin"),
    (lambda: lmax(np.array([[np.nan]])), ValueError, "NaN"),
    (lambda: symmetrize(np.ones((2, 3))), ValueError, "square"),
    (lambda: symmetrize(np.eye(2), "max"), ValueError, "mode must be one of"),
])
def test_laplacian_lmax_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_lmax_accepts_float32_normalized_laplacian():
    W = knn_graph(_points(400, 3, seed=18, dtype=np.float32), 8)
    L = laplacian(W, "normalized")
    assert L.dtype == np.float32
    true = np.linalg.eigvalsh(L.toarray().astype(np.float64)).max()
    assert true <= lmax(L) <= 1.01 * true + 1e-5


# --------------------------------------------------------------------------- row blocks of the Laplacian


def _dense_laplacian(W, kind):
    """Independent dense oracle: the three formulas, isolated nodes given zero rows and columns."""
    W = np.asarray(W, dtype=np.float64)
    d = W.sum(axis=1)
    with np.errstate(divide="ignore"):
        inv_sqrt = np.where(d > 0, 1.0 / np.sqrt(d), 0.0)
        inv = np.where(d > 0, 1.0 / d, 0.0)
    if kind == "combinatorial":
        return np.diag(d) - W
    if kind == "normalized":
        return np.diag((d > 0).astype(float)) - inv_sqrt[:, None] * W * inv_sqrt[None, :]
    return np.diag((d > 0).astype(float)) - inv[:, None] * W


@pytest.mark.parametrize("kind", ["combinatorial", "normalized", "randomwalk"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_laplacian_rows_blocks_stack_to_laplacian_exactly(kind, dtype):
    from graphrkhs.graphs import degrees, laplacian_rows

    rng = np.random.default_rng(3)
    W = knn_graph(rng.normal(size=(120, 3)), 6).tolil()
    W[7, :] = 0
    W[:, 7] = 0                         # an isolated node
    W = sp.csr_array(W, dtype=dtype)
    W.eliminate_zeros()
    L = laplacian(W, kind)
    np.testing.assert_allclose(L.toarray(), _dense_laplacian(W.toarray(), kind),
                               rtol=0, atol=1e-14 if dtype == np.float64 else 1e-6)
    d = degrees(W)
    bounds = [0, 0, 31, 32, 90, 120]    # with an empty block and a one-row block
    blocks = [laplacian_rows(W[a:b], kind, a, b, degrees=d) for a, b in zip(bounds[:-1], bounds[1:])]
    stacked = sp.csr_array(sp.vstack(blocks, format="csr"))
    assert stacked.dtype == L.dtype
    assert np.array_equal(stacked.toarray(), L.toarray())          # bit for bit
    # 32-bit indices, like the adjacency's (pyamg's compiled code refuses 64-bit ones)
    assert L.indices.dtype == np.int32 and L.indptr.dtype == np.int32
    assert all(b.indices.dtype == np.int32 for b in blocks)
    # the whole matrix as input, a block of it selected by start/stop
    assert np.array_equal(laplacian_rows(W, kind, 31, 90).toarray(), L.toarray()[31:90])


@pytest.mark.parametrize("kind", ["combinatorial", "normalized", "randomwalk"])
def test_laplacian_rows_of_an_integer_or_networkx_graph_equals_laplacian(kind):
    # integer weights: the normalized forms once truncated 1/sqrt(d) to 0 (the identity came back)
    import networkx as nx
    from graphrkhs.graphs import laplacian_rows

    W = np.array([[0, 1, 1], [1, 0, 1], [1, 1, 0]])
    np.testing.assert_allclose(laplacian_rows(W, kind).toarray(), _dense_laplacian(W.astype(float), kind),
                               atol=1e-15)
    assert laplacian_rows(W, kind).dtype == np.float64
    G = nx.path_graph(4)
    np.testing.assert_allclose(laplacian_rows(G, kind).toarray(), laplacian(G, kind).toarray(), atol=1e-15)
    with pytest.raises(ValueError, match="not symmetric"):
        laplacian_rows(np.array([[0.0, 1.0], [0.0, 0.0]]), kind)
    with pytest.raises(ValueError, match="finite non-negative"):
        laplacian_rows(sp.csr_array(np.array([[0.0, -1.0, 0.0]])), kind, 0, 1, degrees=np.ones(3))


def test_laplacian_rows_bad_input():
    from graphrkhs.graphs import laplacian_rows

    W = knn_graph(np.random.default_rng(0).normal(size=(20, 2)), 3)
    with pytest.raises(ValueError, match="start <= stop"):
        laplacian_rows(W, "combinatorial", 5, 3)
    with pytest.raises(ValueError, match="one entry per node"):
        laplacian_rows(W[0:5], "normalized", 0, 5, degrees=np.ones(7))
    with pytest.raises(ValueError, match="whole"):
        laplacian_rows(W[0:5], "normalized", 0, 5)
    with pytest.raises(ValueError, match="exactly the rows"):
        laplacian_rows(W[0:5], "normalized", 0, 6, degrees=np.ones(20))
    with pytest.raises(ValueError, match="kind"):
        laplacian_rows(W, "signless")
    with pytest.raises(ValueError, match="backend"):
        laplacian(W, backend="gpu")


@pytest.mark.parametrize("algorithm", ["kd_tree", "brute"])
def test_epsilon_graph_joins_a_pair_at_exactly_the_radius(algorithm):
    # the radius read off a pair's distance (e.g. the largest edge of the minimum spanning tree, the smallest
    # radius that connects the points): that pair is joined, and both algorithms give the same graph
    from scipy.sparse.csgraph import connected_components, minimum_spanning_tree
    from scipy.spatial.distance import pdist, squareform

    rng = np.random.default_rng(5)
    for trial in range(40):
        d = int(rng.integers(1, 30))
        X = rng.normal(size=(30, d)) * 10 ** rng.uniform(-3, 3) + rng.normal() * 10 ** rng.uniform(-3, 3)
        r = minimum_spanning_tree(squareform(pdist(X))).data.max()
        W = epsilon_graph(X, r, weight="binary", algorithm=algorithm)
        assert connected_components(W)[0] == 1, trial
        other = epsilon_graph(X, r, weight="binary", algorithm="brute" if algorithm == "kd_tree" else "kd_tree")
        assert (W != other).nnz == 0, trial


def test_graph_from_neighbors_refuses_repeated_neighbours_and_unsorted_distances():
    from graphrkhs.graphs import graph_from_neighbors

    with pytest.raises(ValueError, match="same neighbour twice"):
        graph_from_neighbors(np.ones((3, 2)), np.array([[1, 1], [0, 2], [1, 0]]), weight="binary")
    with pytest.raises(ValueError, match="sorted ascending"):
        graph_from_neighbors(np.array([[2.0, 1.0], [1.0, 2.0], [1.0, 2.0]]), np.array([[1, 2], [0, 2], [1, 0]]))


@pytest.mark.parametrize("n", [0, 1])
def test_graph_from_neighbors_refuses_fewer_than_two_points_as_knn_graph_does(n):
    # n = 0 used to return an empty graph after numpy's "Mean of empty slice" warnings (the default width is
    # the mean edge length); knn_graph refuses fewer than 2 points, and a point's neighbours are other points
    import warnings

    from graphrkhs.graphs import graph_from_neighbors

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="n >= 2 points"):
            graph_from_neighbors(np.zeros((n, 1)), np.zeros((n, 1), dtype=np.int64))


def test_integer_coo_duplicates_are_summed_without_wrapping_around():
    # uint8 200 + 100 summed in uint8 is 44: the duplicates must be summed as floats
    G = sp.coo_array((np.array([200, 100, 44], np.uint8), ([0, 0, 1], [1, 1, 0])), shape=(2, 2))
    with pytest.raises(ValueError, match="not symmetric"):
        as_adjacency(G)
    G = sp.coo_array((np.array([200, 100, 300], np.uint16), ([0, 0, 1], [1, 1, 0])), shape=(2, 2))
    np.testing.assert_array_equal(as_adjacency(G).toarray(), [[0, 300], [300, 0]])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("scale", ["subnormal", "overflowing"])
def test_normalized_laplacians_are_invariant_to_the_scale_of_the_weights(dtype, scale):
    # I - D^{-1/2} W D^{-1/2} and I - D^{-1} W do not change when W is multiplied by c > 0: weights whose
    # degrees are subnormal (1/d = inf) or overflow (d = inf, so 1/sqrt(d) = 0) give the matrix of W itself
    A = _random_weighted_graph(12, 0.5, seed=3, isolated=1)
    info = np.finfo(dtype)
    if scale == "subnormal":
        # 4 subnormals keep few significant bits: an unweighted graph is exactly representable
        A = (A > 0) * 1.0
        c = float(info.smallest_subnormal) * 4
    else:
        c = float(info.max) / 2
    for kind in ("normalized", "randomwalk"):
        ref = laplacian(A, kind).toarray()
        L = laplacian((A / A.max() * c).astype(dtype), kind)
        assert L.dtype == dtype
        np.testing.assert_allclose(L.toarray(), ref, atol=1e-6 if dtype == np.float32 else 1e-13)


def test_combinatorial_laplacian_refuses_overflowing_degrees():
    # D - W with a degree above the largest float is not representable: it had inf on its diagonal
    W = np.array([[0.0, 1e308, 1e308], [1e308, 0.0, 0.0], [1e308, 0.0, 0.0]])
    with pytest.raises(ValueError, match="overflow"):
        laplacian(W, "combinatorial")


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_normalized_laplacian_is_exactly_symmetric(dtype):
    # w_ij d_i^{-1/2} d_j^{-1/2} rounded in the order (w * a_i) * a_j differed from L_ji by an ulp
    # (|L - L^T| = 3e-8 in float32, 6e-17 in float64), and exact_filter / eigh-based code refused the
    # float32 matrix cast to float64 as not symmetric
    X = np.random.default_rng(0).normal(size=(200, 3)).astype(dtype)
    L = laplacian(knn_graph(X, 5, weight="self-tuning"), "normalized")
    assert L.dtype == dtype
    assert abs(L - L.T).max() == 0


def test_as_adjacency_names_a_cast_that_overflows_the_requested_dtype():
    # finite float64 weights above float32's range became inf in the cast and were reported as
    # "NaN or infinite weights" (with scipy's RuntimeWarning): the message now names the dtype
    W = np.array([[0.0, 1e300], [1e300, 0.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="do not fit float32"):
            as_adjacency(W, dtype=np.float32)
        with pytest.raises(ValueError, match="do not fit float32"):
            laplacian(W, "normalized", dtype=np.float32)
    with pytest.raises(ValueError, match="NaN or infinite"):
        as_adjacency(np.array([[0.0, np.inf], [np.inf, 0.0]]), dtype=np.float32)


def test_averaged_directions_do_not_overflow():
    # (w_ij + w_ji) / 2 of weights above max/2 was inf: symmetrize(W, 'average') and as_adjacency's
    # symmetrization of a matrix symmetric to rounding returned infinite weights
    big = 1.5e308
    W = sp.csr_array(np.array([[0.0, big], [big * (1 - 1e-12), 0.0]]))
    for S in (symmetrize(W, "average"), as_adjacency(W)):
        assert np.isfinite(S.data).all()
        np.testing.assert_allclose(S.toarray(), [[0, big], [big, 0]], rtol=1e-11)
    # subnormal weights keep their average (halving each first would lose the odd last bit)
    tiny = 5e-324
    np.testing.assert_array_equal(symmetrize(sp.csr_array(np.array([[0, tiny], [3 * tiny, 0]])), "average").data,
                                  [2 * tiny, 2 * tiny])


@pytest.mark.parametrize("builder", ["knn", "epsilon"])
def test_self_tuning_weights_at_extreme_relative_widths(builder):
    # exp(-d^2 / (r^2 s_i s_j)): r^2 underflowed to 0 for r = 1e-170, so a duplicate pair (d = 0) got
    # 0/0 = NaN (epsilon_graph returned it, knn_graph raised an internal 'weights must be finite');
    # the limit is weight 1 for duplicates and 0 at positive distances (edges dropped), as for the
    # Gaussian far below the distances; a huge r gives weight 1 on every edge
    X = np.vstack([np.zeros((2, 2)), np.random.default_rng(0).normal(size=(10, 2))])

    def build(r):
        if builder == "knn":
            return knn_graph(X, 3, weight="self-tuning", relative_width=r)
        return epsilon_graph(X, 1.0, weight="self-tuning", relative_width=r)

    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        # the 10 points at positive distances lose every edge: a GraphWarning names relative_width
        with pytest.warns(GraphWarning, match=r"nodes lost every edge.*relative_width = 1e-170"):
            W = build(1e-170)
        np.testing.assert_array_equal(W.toarray(), np.pad([[0.0, 1.0], [1.0, 0.0]], ((0, 10), (0, 10))))
        W1, Wb = build(1e200), build(1.0)
    assert (W1.data == 1).all() and W1.nnz == Wb.nnz


# ---------------------------------------------------------------------------
# session 12: a sigma far below the distances empties the graph with a GraphWarning;
# a float32 graph stores no weight that is 0 in float32
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("builder", ["knn", "epsilon"])
def test_tiny_sigma_warns_naming_sigma(builder):
    X = _points(30, 2)

    def build(**kw):
        if builder == "knn":
            return knn_graph(X, 4, **kw)
        return epsilon_graph(X, 1.5, **kw)

    # exp(-d^2 / (2 sigma^2)) with d >= 1e-3 >> sigma = 1e-6 * min distance: 0 for every pair
    dmin = float(np.min(cdist(X, X)[~np.eye(30, dtype=bool)]))
    with pytest.warns(GraphWarning, match=r"30 of 30 nodes lost every edge.*sigma = .*no edge left.*larger sigma"):
        W = build(sigma=1e-3 * dmin)
    assert W.nnz == 0
    with warnings.catch_warnings():
        warnings.simplefilter("error", GraphWarning)
        W = build(sigma=None)  # the mean distance: no weight underflows here
    assert W.nnz == build(weight="binary").nnz


@pytest.mark.parametrize("builder", ["knn", "epsilon"])
def test_float32_graph_has_no_stored_zero_weights(builder):
    # sigma = 0.02 on unit-normal points: many float64 weights lie below float32's smallest
    # subnormal (1.4e-45) and were stored as explicit zeros by the cast to float32 (94 of 116)
    X = _points(30, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GraphWarning)
        if builder == "knn":
            W32, W64 = (knn_graph(X, 4, sigma=0.02, dtype=t) for t in (np.float32, np.float64))
        else:
            W32, W64 = (epsilon_graph(X, 1.5, sigma=0.02, dtype=t) for t in (np.float32, np.float64))
    assert W32.dtype == np.float32 and W32.nnz > 0
    assert np.all(W32.data != 0)
    expected = W64.toarray().astype(np.float32)  # the float64 weights rounded to float32
    np.testing.assert_array_equal(W32.toarray(), expected)


def test_as_adjacency_float32_cast_underflow_warns():
    # 1e-50 is 0 in float32: the edge (0, 1) vanished without a word
    A = np.array([[0, 1e-50, 1], [1e-50, 0, 1], [1, 1, 0.0]])
    with pytest.warns(GraphWarning, match=r"2 of 6 stored weights.*underflow to 0 in dtype=float32.*dtype=float64"):
        W = as_adjacency(sp.csr_array(A), dtype=np.float32)
    np.testing.assert_array_equal(W.toarray(), [[0, 0, 1], [0, 0, 1], [1, 1, 0]])
    assert W.dtype == np.float32 and W.nnz == 4
    with warnings.catch_warnings():
        warnings.simplefilter("error", GraphWarning)
        np.testing.assert_array_equal(as_adjacency(A).toarray(), A)  # float64 keeps them
        tiny32 = np.float32(1e-45)  # a float32 subnormal survives the cast
        W = as_adjacency(sp.csr_array(np.where(A == 1e-50, float(tiny32), A)), dtype=np.float32)
    assert W.nnz == 6


@pytest.mark.parametrize("rtol, exc, match", [
    (np.nan, ValueError, "symmetry_rtol must be finite"),
    (-1.0, ValueError, "symmetry_rtol must be >= 0"),
    ("1e-3", TypeError, "symmetry_rtol must be a real number"),
])
def test_as_adjacency_validates_symmetry_rtol(rtol, exc, match):
    """symmetry_rtol=NaN switched the symmetry check off (gap > NaN is False): a directed matrix came back
    silently averaged with its transpose; -1 reported a symmetric matrix as "not symmetric (max |W - W.T| =
    0)", and a string failed inside a product ("can't multiply sequence")."""
    W = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 2.0], [0.0, 0.0, 0.0]])   # directed
    with pytest.raises(exc, match=match):
        as_adjacency(W, symmetry_rtol=rtol)
    with pytest.raises(exc, match=match):
        as_adjacency(W + W.T, symmetry_rtol=rtol)
    # a tolerance that admits the asymmetry averages the two directions, as documented
    np.testing.assert_array_equal(as_adjacency(W, symmetry_rtol=1.0).toarray(), (W + W.T) / 2)


def test_laplacian_rows_validates_degrees_block_and_range():
    """laplacian_rows with given degrees (the distributed build): a negative degree gave a combinatorial
    diagonal of -1 and a normalized row of zeros without a word, a NaN degree was reported as "the degrees
    (row sums) of W overflow", a complex row block lost its imaginary part with only a ComplexWarning, and
    start=0.5 was truncated to row 0."""
    from graphrkhs.graphs import laplacian_rows

    W = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 2.0], [0.0, 2.0, 0.0]])
    d = W.sum(axis=1)
    # the valid call: rows 0:1 of D - W
    np.testing.assert_array_equal(laplacian_rows(W[:1], "combinatorial", 0, 1, degrees=d).toarray(),
                                  [[1.0, -1.0, 0.0]])
    for kind in ("combinatorial", "normalized"):
        with pytest.raises(ValueError, match="degrees must be finite and >= 0"):
            laplacian_rows(W[:1], kind, 0, 1, degrees=[-1.0, 3.0, 2.0])
        with pytest.raises(ValueError, match="degrees must be finite and >= 0"):
            laplacian_rows(W[:1], kind, 0, 1, degrees=[np.nan, 3.0, 2.0])
    with pytest.raises(TypeError, match="W must hold real weights"):
        laplacian_rows(W[:1] + 1j, "combinatorial", 0, 1, degrees=d)
    with pytest.raises(TypeError, match="start must be an int"):
        laplacian_rows(W, "combinatorial", 0.5, 2)
    with pytest.raises(TypeError, match="stop must be an int"):
        laplacian_rows(W, "combinatorial", 0, 2.0)


def test_degrees_that_overflow_are_a_clear_error():
    """degrees() of finite weights whose row sums exceed float64 returned inf with numpy's bare "overflow
    encountered in reduceat" RuntimeWarning (laplacian already refused such a W with a clear message).  A
    ValueError naming the overflow and the fix now; finite sums are the row sums."""
    from graphrkhs import degrees

    W = np.array([[0.0, 1e308, 1e308], [1e308, 0.0, 0.0], [1e308, 0.0, 0.0]])
    np.testing.assert_array_equal(degrees(W * 1e-8), [2e300, 1e300, 1e300])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="overflow float64; scale W down"):
            degrees(W)


def test_networkx_graph_with_a_non_numeric_weight_is_a_type_error_naming_the_attribute():
    # networkx's "could not convert string to float: 'a'" named neither G nor the edge attribute
    import networkx as nx

    G = nx.path_graph(3)
    G[0][1]["weight"] = "a"
    with pytest.raises(TypeError, match="G: the networkx edge attribute 'weight' must be a real number"):
        as_adjacency(G)
    G[0][1]["weight"] = 1 + 2j
    with pytest.raises(TypeError, match="'weight' must be a real number"):
        as_adjacency(G)
    G[0][1]["weight"] = 2.5
    np.testing.assert_array_equal(as_adjacency(G).toarray(), [[0, 2.5, 0], [2.5, 0, 1], [0, 1, 0]])


def test_networkx_graph_with_decimal_weights_reads_them_as_their_nearest_float64():
    """decimal.Decimal weights were refused with advice about strings; they are real numbers (as
    fractions.Fraction, accepted), and float(Decimal) is the correctly rounded float64, the precision every
    adjacency here is read in."""
    import decimal
    import fractions
    import networkx as nx

    G, F = nx.path_graph(4), nx.path_graph(4)
    for (u, v), text in zip(G.edges(), ["0.1", "2.5E-300", "123456789.123456789"]):
        G[u][v]["weight"] = decimal.Decimal(text)
        F[u][v]["weight"] = float(text)                 # the correctly rounded float64 of the same decimal
    np.testing.assert_array_equal(as_adjacency(G).toarray(), as_adjacency(F).toarray())
    assert as_adjacency(G)[0, 1] == 0.1
    G[0][1]["weight"] = fractions.Fraction(1, 10)      # the same number as a fraction: the same adjacency
    np.testing.assert_array_equal(as_adjacency(G).toarray(), as_adjacency(F).toarray())


def test_non_real_networkx_weight_message_names_its_type_and_the_fix():
    import networkx as nx

    G = nx.path_graph(3)
    G[0][1]["weight"] = 1 + 2j
    with pytest.raises(TypeError, match=r"edge \(0, 1\) has \(1\+2j\) of type complex\.  Store real numbers as "
                                        r"weights \(int, float, Fraction, Decimal or a NumPy real scalar\)"):
        as_adjacency(G)


@pytest.mark.parametrize("weight", ["2", np.str_("2"), b"2", [2.0]])
def test_networkx_graph_with_a_numeric_string_weight_is_a_type_error_naming_the_attribute(weight):
    # the string "2" was parsed by networkx's float64 conversion and read as the weight 2.0, silently
    import networkx as nx

    G = nx.path_graph(3)
    G[0][1]["weight"] = weight
    with pytest.raises(TypeError, match=r"G: the networkx edge attribute 'weight' must be a real number on every "
                                        r"edge; edge \(0, 1\) has"):
        as_adjacency(G)


def test_networkx_graph_with_numpy_and_boolean_weights_keeps_their_values():
    import networkx as nx

    G = nx.path_graph(4)
    G[0][1]["weight"], G[1][2]["weight"] = np.float32(0.5), np.int64(3)
    G[2][3]["weight"] = True
    np.testing.assert_array_equal(as_adjacency(G).toarray(),
                                  [[0, 0.5, 0, 0], [0.5, 0, 3, 0], [0, 3, 0, 1], [0, 0, 1, 0]])


def test_masked_adjacency_array_is_refused_rather_than_read_without_its_mask():
    # np.asarray dropped the mask: the masked weight 5 became an edge
    W = np.ma.masked_array([[0, 1.0, 5.0], [1.0, 0, 1.0], [5.0, 1.0, 0]],
                           mask=[[0, 0, 1], [0, 0, 0], [1, 0, 0]])
    with pytest.raises(TypeError, match=r"masked array.*mask would be ignored.*W.filled\(0\)"):
        as_adjacency(W)
    # the fix the message names: masked entries as no edge
    np.testing.assert_array_equal(as_adjacency(W.filled(0)).toarray(), [[0, 1, 0], [1, 0, 1], [0, 1, 0]])


@pytest.mark.parametrize("container", [list, tuple])
def test_rows_that_are_masked_arrays_are_refused_as_a_masked_array_is(container):
    """np.asarray of a list of masked rows is a plain array: the masked weight 5 was read as an edge and the
    graph came back with it, without a word."""
    W = np.ma.masked_array([[0, 1.0, 5.0], [1.0, 0, 1.0], [5.0, 1.0, 0]],
                           mask=[[0, 0, 1], [0, 0, 0], [1, 0, 0]])
    with pytest.raises(TypeError) as whole:
        as_adjacency(W)
    with pytest.raises(TypeError) as rows:
        as_adjacency(container(W))                   # the rows are masked arrays
    assert str(rows.value) == str(whole.value)
    with pytest.raises(TypeError, match=r"masked array.*W.filled\(0\)"):
        as_adjacency(container([W[0].data, W[1], W[2].data]))      # one masked row is enough
    # rows without a mask (the fix, row by row) are read as before
    np.testing.assert_array_equal(as_adjacency(container(W.filled(0))).toarray(), [[0, 1, 0], [1, 0, 1], [0, 1, 0]])


@pytest.mark.parametrize("dtype,big,small", [(np.float32, 1e30, 1e-30), (np.float64, 1e300, 1e-300)])
def test_normalized_laplacian_entries_between_degrees_far_apart(dtype, big, small):
    # w_12 = small between degrees ~big and small: L_12 = -small / sqrt(big * small) = -small.  The product
    # w * a_min * a_max underflowed in its first step: -1.4e-30 (float32) and 0 (float64) came back
    from graphrkhs import laplacian as _laplacian
    W = np.array([[0.0, big, 0.0], [big, 0.0, small], [0.0, small, 0.0]])
    d = W.sum(axis=1)
    oracle = np.eye(3) - W / np.outer(np.sqrt(d), np.sqrt(d))  # float64, no product out of range
    L = _laplacian(W.astype(dtype), "normalized")
    assert L.dtype == dtype
    np.testing.assert_allclose(L.toarray(), oracle.astype(dtype), rtol=4 * np.finfo(dtype).eps, atol=0)
    assert (L != L.T).nnz == 0


@pytest.mark.parametrize("radius", [-1.0, 0.0, float("nan"), float("inf")])
def test_graphspec_checks_radius_also_for_a_knn_graph(radius):
    # a kNN spec ignores radius, but validate() let radius=-1 through while an estimator refuses it
    with pytest.raises(ValueError, match="radius must be"):
        GraphSpec(kind="knn", radius=radius).validate()
    with pytest.raises(TypeError, match="radius must be a real number"):
        GraphSpec(radius="1").validate()
    X = np.random.default_rng(0).normal(size=(20, 2))
    assert (GraphSpec(n_neighbors=3, radius=0.5).build(X) != knn_graph(X, 3)).nnz == 0


@pytest.mark.parametrize("make", [lambda: 10 ** 400, lambda: __import__("fractions").Fraction(10 ** 400, 3),
                                  lambda: __import__("decimal").Decimal("1e400")],
                         ids=["int", "Fraction", "Decimal"])
def test_networkx_weight_beyond_float64_range_is_a_value_error_naming_the_edge_and_the_fix(make):
    # a Fraction or int raised a bare OverflowError from numpy's conversion, and Decimal("1e400") was read as
    # inf and reported as "NaN or infinite weights" although the weight given is finite
    import networkx as nx

    G = nx.path_graph(3)
    G[1][2]["weight"] = make()
    with pytest.raises(ValueError, match=r"edge \(1, 2\) has the weight \d\.\d{3}e\+\d+, finite but beyond "
                                         r"float64's range .* divide the weights by a common factor"):
        as_adjacency(G)


def test_networkx_weight_that_is_an_infinite_decimal_is_reported_as_infinite():
    import decimal
    import networkx as nx

    G = nx.path_graph(3)
    G[0][1]["weight"] = decimal.Decimal("Infinity")
    with pytest.raises(ValueError, match="NaN or infinite weights"):
        as_adjacency(G)
