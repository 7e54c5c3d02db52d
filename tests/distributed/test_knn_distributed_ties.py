"""Cell-wise kNN graphs break exact distance ties as the serial exact searches do: by the points' contents.

Among points at exactly the same distance the one whose coordinates come first lexicographically wins
(exact copies by index), so the graph does not depend on the order of the rows.

Oracles: neighbour lists of integer points ordered by (squared distance, content rank), both computed in
integer arithmetic (np.lexsort; the content rank by np.lexsort over the columns), for the edge sets; the serial knn_graph (whose lists
tests/graphs/test_knn_ties.py checks against the same oracle) for the weights, which must agree to 1e-15.
Under ``mpiexec -n 2`` the MPI executor runs on two ranks (each rank its cells).
"""
import itertools

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs import knn_graph
from graphrkhs.distributed._knn import distributed_knn_graph


def _content_rank(P):
    """Each row's position in the order (row values lexicographically, then index)."""
    n, d = P.shape
    order = np.lexsort((np.arange(n),) + tuple(P[:, c] for c in range(d - 1, -1, -1)))
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    return rank


def _oracle_lists(P, k):
    P = np.asarray(P, dtype=np.int64)
    D = ((P[:, None, :] - P[None, :, :]) ** 2).sum(axis=2)
    rank = _content_rank(P)
    n = len(P)
    out = np.empty((n, k), dtype=np.int64)
    for i in range(n):
        others = np.delete(np.arange(n), i)
        o = np.lexsort((rank[others], D[i, others]))
        out[i] = others[o[:k]]
    return out


def _union_adjacency(lists, n):
    A = np.zeros((n, n))
    rows = np.repeat(np.arange(n), lists.shape[1])
    A[rows, lists.ravel()] = 1.0
    return np.maximum(A, A.T)


def _check(P, k, n_cells, partitioner, executor, weights=("binary", "gaussian"), dtype=np.float64):
    X = np.asarray(P, dtype=dtype)
    expected = _union_adjacency(_oracle_lists(P, k), len(P))
    for weight in weights:
        W, cells = distributed_knn_graph(X, k, n_cells=n_cells, partitioner=partitioner, weight=weight,
                                         executor=executor, random_state=0)
        W0 = knn_graph(X, k, weight=weight)
        assert W.dtype == W0.dtype
        W, W0 = sp.csr_array(W).toarray(), sp.csr_array(W0).toarray()
        np.testing.assert_array_equal(W != 0, expected != 0, err_msg=f"{weight} {n_cells} {partitioner}")
        assert np.abs(W - W0).max() <= 1e-15, (weight, n_cells, partitioner)


@pytest.mark.parametrize("first", [0, 4])
@pytest.mark.parametrize("executor", ["serial", "mpi"])
@pytest.mark.parametrize("partitioner", ["kmeans", "rcb"])
def test_halfway_point_links_to_the_lexicographically_first_point(executor, partitioner, first):
    # node 8 is at distance exactly 1 from (-1, 0) and (1, 0); serially (-1, 0) wins, node 0, or node 4 once
    # the clusters' rows are swapped.  With 3 k-means cells node 8 once found node 4 (the cell of nodes 4-7 was
    # visited after its own cell).
    X = np.array([[-1, 0], [-1.1, 0], [-1.2, 0], [-1.3, 0], [1, 0], [1.1, 0], [1.2, 0], [1.3, 0], [0, 0]])
    if first == 4:
        X = X[[4, 5, 6, 7, 0, 1, 2, 3, 8]]
    expected_row = np.zeros(9)
    expected_row[first] = 1.0
    for n_cells in (1, 2, 3, 9):
        W, _ = distributed_knn_graph(X, 1, n_cells=n_cells, partitioner=partitioner, weight="binary",
                                     executor=executor, random_state=0)
        np.testing.assert_array_equal(W.toarray()[8], expected_row, err_msg=str(n_cells))
        assert abs(W - knn_graph(X, 1, weight="binary")).max() == 0


@pytest.mark.parametrize("executor", ["serial", "mpi"])
@pytest.mark.parametrize("partitioner", ["kmeans", "rcb"])
@pytest.mark.parametrize("k", [1, 3, 5])
def test_lattice_graph_is_the_serial_graph(executor, partitioner, k):
    P = np.array(list(itertools.product(range(7), range(6))))   # 4 neighbours at distance 1 inside
    P = P[np.random.default_rng(2).permutation(len(P))]
    for n_cells, weights in ((2, ("binary",)), (3, ("binary", "self-tuning")), (5, ("gaussian",))):
        _check(P, k, n_cells, partitioner, executor, weights)


@pytest.mark.parametrize("partitioner", ["kmeans", "rcb"])
@pytest.mark.parametrize("k", [2, 9, 13])
def test_duplicated_points_graph_is_the_serial_graph(partitioner, k):
    # 15 copies of one point (more than k + the extra candidates of a query), and pairs of duplicates
    base = np.array([[0, 0]] * 15 + [[3, 0], [3, 0], [0, 4], [0, 4], [5, 5], [-2, 1], [-2, 1], [4, -3]])
    P = base[np.random.default_rng(0).permutation(len(base))]
    for n_cells in (2, 4):
        _check(P, k, n_cells, partitioner, "serial")


@pytest.mark.parametrize("k", [3, 12])
def test_ties_straddling_the_halo_candidates(k):
    # 4-D lattice {-1,0,1}^4: 8 points at distance 1 and 24 at sqrt(2) around the centre
    P = np.array(list(itertools.product([-1, 0, 1], repeat=4)))
    P = P[np.random.default_rng(1).permutation(len(P))]
    for n_cells, partitioner in ((3, "kmeans"), (4, "rcb"), (8, "rcb")):
        _check(P, k, n_cells, partitioner, "serial")


@pytest.mark.parametrize("partitioner", ["kmeans", "rcb"])
def test_high_dimensional_ties_are_the_serial_graph(partitioner):
    # above 16 dimensions the halo queries take the brute-force path: ties broken the same way there
    rng = np.random.default_rng(3)
    P = np.zeros((60, 20), dtype=np.int64)
    P[:, :3] = np.array(list(itertools.product(range(5), range(4), range(3))))
    P = P[rng.permutation(len(P))]
    for n_cells in (2, 5):
        _check(P, 4, n_cells, partitioner, "serial", weights=("binary", "gaussian"))


def test_float32_lattice_is_the_serial_graph():
    P = np.array(list(itertools.product(range(6), range(5))))
    _check(P, 3, 4, "rcb", "serial", dtype=np.float32)


@pytest.mark.parametrize("executor", ["serial", "mpi"])
@pytest.mark.parametrize("partitioner", ["kmeans", "rcb"])
def test_permuted_rows_give_the_permuted_graph(executor, partitioner):
    # small integers in 5 dimensions (many equal distances) and scikit-learn's digits (integer pixels, 64
    # dimensions: the brute-force halo queries); no copies, so the permuted graph is the graph permuted
    from sklearn.datasets import load_digits

    rng = np.random.default_rng(6)
    small = np.unique(rng.integers(0, 4, size=(180, 5)), axis=0)     # distinct rows (np.unique sorts them) ...
    small = small[rng.permutation(len(small))].astype(float)         # ... shuffled
    for X, k, n_cells in ((small, 6, 4),
                          (load_digits().data[:300], 10, 3)):
        W, _ = distributed_knn_graph(X, k, n_cells=n_cells, partitioner=partitioner, weight="binary",
                                     executor=executor, random_state=0)
        np.testing.assert_array_equal(W.toarray() != 0, _union_adjacency(_oracle_lists(X, k), len(X)) != 0)
        for seed in (1, 2):
            p = np.random.default_rng(seed).permutation(len(X))
            Wp, _ = distributed_knn_graph(X[p], k, n_cells=n_cells, partitioner=partitioner, weight="binary",
                                          executor=executor, random_state=0)
            np.testing.assert_array_equal(Wp.toarray(), W.toarray()[p][:, p])
