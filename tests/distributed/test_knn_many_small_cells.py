"""distributed_knn_graph with about as many cells as points: exact, in one halo query per cell.

With cells of at most k points a cell's own search finds no k-th neighbour (its lists are padded with
infinite distances), so every point visits every other cell.  The halo pass made one query per pair of
cells -- 158802 for 400 points in 399 cells (150 s; each query about 50 us of Python, and each re-ranking
started numba's parallel loop, 7.7 ms on two shared cores: tests/graphs/test_rerank_small_calls.py) -- where the
points of the small cells are now searched as one block.
"""

import numpy as np
import pytest
import scipy.sparse as sp

import graphrkhs.distributed._knn as knn_module
from graphrkhs import knn_graph
from graphrkhs.distributed._knn import distributed_knn_graph


@pytest.mark.parametrize("partitioner", ["kmeans", "rcb"])
def test_as_many_cells_as_points_give_the_exact_graph_in_one_query_per_cell(partitioner, monkeypatch):
    X = np.random.default_rng(0).normal(size=(400, 3))
    calls = []
    real = knn_module._query

    def counting(Xq, Xt, members_t, k, tree=None):
        calls.append(Xt.shape[0])
        return real(Xq, Xt, members_t, k, tree)

    monkeypatch.setattr(knn_module, "_query", counting)
    W, cells, info = distributed_knn_graph(X, 10, n_cells=399, partitioner=partitioner, random_state=0,
                                           return_info=True)
    W0 = knn_graph(X, 10, algorithm="kd_tree")
    # the same edges and weights as the serial exact search
    assert sp.csr_array(W != W0).nnz == 0
    np.testing.assert_array_equal(sp.csr_array(W).toarray(), sp.csr_array(W0).toarray())
    # the cells hold at most k + 8 points each (a cell of that size is searched as part of one block), so the
    # halo pass makes at most one query per cell, not one per pair of cells
    sizes = info["cell_sizes"]
    assert info["n_cells"] == 399 and sizes.max() <= 10 + knn_module._HALO_EXTRA
    assert len(calls) <= 399
    assert info["visits_per_point"] > 100          # every point visited many cells: the case of the many queries


def test_small_and_large_visited_cells_mixed_give_the_exact_graph():
    # cells of very different sizes (points in a dense blob and a sparse halo around it, 60 k-means cells):
    # some visited cells are searched as one block, the others one by one; the lists are exact either way
    rng = np.random.default_rng(1)
    X = np.r_[rng.normal(0, 0.1, (500, 2)), rng.uniform(-3, 3, (100, 2))]
    W, cells = distributed_knn_graph(X, 8, n_cells=60, random_state=0)
    W0 = knn_graph(X, 8, algorithm="kd_tree")
    np.testing.assert_array_equal(sp.csr_array(W).toarray(), sp.csr_array(W0).toarray())
    sizes = np.bincount(cells)
    assert sizes.min() <= 8 + knn_module._HALO_EXTRA < sizes.max()       # both kinds of cell occur
