"""Guards of the neighbour and radius searches (graphrkhs.graphs._search): arguments and memory estimates, before they allocate.

Each limit is lowered with ``validation._physical_memory`` so that a small problem stands for a
large one; peaks are read with tracemalloc (NumPy reports its buffers to it).
"""

import tracemalloc

import numpy as np
import pytest

from graphrkhs import epsilon_graph, knn_graph
from graphrkhs._core import validation
from graphrkhs.graphs import _search


@pytest.mark.parametrize("algorithm", ["kd_tree", "brute"])
def test_epsilon_graph_estimates_its_pairs_before_the_search(monkeypatch, algorithm):
    # the number of pairs grows like n^2 r^d and was never estimated: a radius spanning the data asked
    # for n^2 / 2 pairs (120 B each) with no guard
    X = np.random.default_rng(0).random((2000, 2))
    monkeypatch.setattr(validation, "_physical_memory", lambda: 64 * 2**20)   # limit 48 MiB; ~2e6 pairs: 244 MiB
    with pytest.raises(MemoryError, match=r"pairs within the radius \(estimated from 1000 points\) would need"):
        epsilon_graph(X, 10.0, algorithm=algorithm)
    W = epsilon_graph(X, 0.02, algorithm=algorithm, weight="binary")   # ~2500 pairs pass the same limit
    d2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    oracle = (d2 <= 0.02**2) & ~np.eye(2000, dtype=bool)
    np.testing.assert_array_equal(W.toarray() > 0, oracle)


def test_brute_radius_search_counts_the_pairs_it_keeps(monkeypatch):
    # the sample estimate can miss a dense cluster; the pairs kept are counted exactly as the search runs
    X = np.random.default_rng(1).random((2000, 20))
    monkeypatch.setattr(_search, "_guard_pairs", lambda *args: None)
    monkeypatch.setattr(_search, "_TILE_BYTES", 8 * 2000 * 100)        # tiles of 100 rows
    monkeypatch.setattr(validation, "_physical_memory", lambda: 64 * 2**20)
    with pytest.raises(MemoryError, match="the graph of the more than .* pairs within the radius would need"):
        epsilon_graph(X, 100.0, algorithm="brute")


def test_recall_estimate_allocates_bounded_blocks(monkeypatch):
    # the neighbour differences of a block were (block, k, d) doubles with the block sized for the
    # (block, n) distance tile only: 300 x k x d, 12 GB for k = 50, d = 10^5
    rng = np.random.default_rng(2)
    n, d, k = 300, 400, 30
    X = rng.standard_normal((n, d))
    idx = np.stack([rng.choice(np.delete(np.arange(n), i), k, replace=False) for i in range(n)])
    sample = np.arange(n)
    full = _search.estimate_recall(X, idx, sample)
    tile = 2**20
    monkeypatch.setattr(_search, "_TILE_BYTES", tile)
    tracemalloc.start()
    try:
        blocked = _search.estimate_recall(X, idx, sample)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert blocked == full
    # X and its centred copy (2 x 0.9 MiB) plus a few tiles; unbounded, one block was 300 x 30 x 400 x 8 = 27 MiB
    assert peak < 2 * X.nbytes + 8 * tile


@pytest.mark.parametrize("algorithm, d", [("kd_tree", 3), ("brute", 20)])
def test_knn_search_guard_covers_its_measured_peak(algorithm, d):
    # the guard counted 32 bytes per neighbour slot; the search and assembly grow by 37-126
    from graphrkhs import knn_graph

    rng = np.random.default_rng(3)
    knn_graph(rng.random((300, d)), 10, algorithm=algorithm, weight="self-tuning")   # compiled, imported
    n, k = 6000, 10
    X = rng.random((n, d))
    tracemalloc.start()
    try:
        knn_graph(X, k, algorithm=algorithm, weight="self-tuning")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak <= _search._search_bytes(n, d, k, algorithm)


@pytest.mark.parametrize("algorithm", ["brute", "kd_tree"])
@pytest.mark.parametrize("n, k", [(1, 1), (5, 5), (5, 7), (5, 0)])
def test_knn_search_refuses_a_neighbour_count_it_cannot_return(algorithm, n, k):
    # brute: n = 1 left no candidate column and the compiled top-k kernel read column -1 of an empty
    # array; k >= n came back with n - 1 columns, no error.  kd-tree: an index message about the tree.
    X = np.random.default_rng(4).random((n, 20 if algorithm == "brute" else 2))
    with pytest.raises(ValueError, match=r"n_neighbors must be in \[1, n_samples - 1\]"):
        _search.knn_search(X, k, algorithm, np.random.default_rng(0))


def test_approximate_search_refuses_a_neighbour_listed_twice(monkeypatch):
    # the compiled assembly stored a twice-listed neighbour twice: w_ij = 2 w, w_ji = w, no error
    import sys
    import types

    class FakeIndex:   # hnswlib's interface, answering every query with point 0 listed twice
        def __init__(self, space, dim):
            pass

        def init_index(self, **kwargs):
            pass

        def set_num_threads(self, t):
            pass

        def add_items(self, X, labels):
            self.n = X.shape[0]

        def set_ef(self, ef):
            pass

        def knn_query(self, X, k):
            labels = np.tile(np.arange(k), (X.shape[0], 1))
            labels[:, 1] = labels[:, 2] = (np.arange(X.shape[0]) + 1) % self.n
            return labels, np.tile(np.arange(k, dtype=np.float32), (X.shape[0], 1))

    monkeypatch.setitem(sys.modules, "hnswlib", types.SimpleNamespace(Index=FakeIndex))
    X = np.random.default_rng(5).random((40, 3))
    with pytest.raises(RuntimeError, match="hnswlib returned the same neighbour twice"):
        _search.ann_search(X, 4, "hnswlib", np.random.default_rng(0))
    with pytest.raises(RuntimeError, match="hnswlib returned the same neighbour twice"):
        knn_graph(X, 4, algorithm="hnswlib")            # asked for by name: the error
    # chosen by "auto": exact neighbours with a warning, not an error (as for a recall below target)
    monkeypatch.setattr(_search, "auto_algorithm", lambda n, d: "hnswlib")
    with pytest.warns(RuntimeWarning, match="hnswlib returned the same neighbour twice for some points; "
                                            "recomputing with exact search"):
        W, info = knn_graph(X, 4, return_info=True)
    assert info["fallback"] and info["exact"] and info["algorithm"] == "kd_tree" and info["recall"] == 1.0
    assert np.isnan(info["approximate_recall"])
    assert (W != knn_graph(X, 4, algorithm="kd_tree")).nnz == 0


@pytest.mark.parametrize("algorithm", ["kd_tree", "brute"])
def test_radius_search_gathers_pair_differences_in_bounded_blocks(monkeypatch, algorithm):
    # the exact re-check gathered X[i] - X[j] for every pair at once: pairs x d doubles (26 GiB for the
    # 4.5e6 pairs of 3000 points in 784 dimensions, whose graph is 0.5 GiB)
    n, d = 300, 200
    X = np.random.default_rng(6).random((n, d))
    monkeypatch.setattr(_search, "_TILE_BYTES", 2**20)
    tracemalloc.start()
    try:
        i, j, dist = _search.pairs_within_radius(X, 1e3, algorithm)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert i.size == n * (n - 1) // 2   # every pair; all at once the differences were 72 MiB
    np.testing.assert_allclose(dist, np.linalg.norm(X[i] - X[j], axis=1), rtol=1e-14)
    assert peak < 24 * 2**20
