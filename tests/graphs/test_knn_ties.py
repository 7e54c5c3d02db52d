"""Exact kNN search breaks ties at equal distances by the lower index, on every exact path.

Oracles: squared distances of integer (or exactly representable) coordinates, computed in integer
arithmetic, ordered by (distance, index) with np.lexsort.
"""
import itertools

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs import harmonic_solution, knn_graph
from graphrkhs.graphs._search import knn_search, sparse_brute_search

PATHS = ["brute", "kd_tree", "sparse"]


def _graph(X, k, path):
    if path == "sparse":
        return knn_graph(sp.csr_array(X), k, weight="binary").toarray()
    return knn_graph(X, k, weight="binary", algorithm=path).toarray()


def _lists(X, k, path):
    if path == "sparse":
        return sparse_brute_search(sp.csr_array(X, dtype=np.float64), k)[1]
    return knn_search(X, k, path, None)[1]


def _oracle_lists(P, k):
    """(distance, index)-ordered k nearest of integer points ``P`` (the point itself excluded)."""
    P = np.asarray(P, dtype=np.int64)
    D = ((P[:, None, :] - P[None, :, :]) ** 2).sum(axis=2)
    n = len(P)
    out = np.empty((n, k), dtype=np.int64)
    for i in range(n):
        others = np.delete(np.arange(n), i)
        o = np.lexsort((others, D[i, others]))
        out[i] = others[o[:k]]
    return out


def _union_adjacency(lists, n):
    A = np.zeros((n, n))
    rows = np.repeat(np.arange(n), lists.shape[1])
    A[rows, lists.ravel()] = 1.0
    return np.maximum(A, A.T)


def test_halfway_point_links_to_lower_index_on_every_exact_path():
    X = np.array([[-1, 0], [-1.1, 0], [-1.2, 0], [-1.3, 0], [1, 0], [1.1, 0], [1.2, 0], [1.3, 0], [0, 0]])
    graphs = {p: _graph(X, 1, p) for p in PATHS}
    # node 8 is at distance exactly 1 from nodes 0 and 4: the lower index, 0, wins
    expected_row = np.zeros(9)
    expected_row[0] = 1.0
    for p, A in graphs.items():
        np.testing.assert_array_equal(A[8], expected_row, err_msg=p)
        np.testing.assert_array_equal(A, graphs["brute"], err_msg=p)
    labels = [harmonic_solution(sp.csr_array(A), [1, 5], np.eye(2))[-1] for A in graphs.values()]
    for lab in labels:
        np.testing.assert_array_equal(lab, labels[0])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("k", [1, 2, 3, 5])
def test_lattice_lists_match_distance_index_oracle(k, dtype):
    P = np.array(list(itertools.product(range(6), range(5))))   # 4 neighbours at distance 1 inside
    expected = _oracle_lists(P, k)
    X = P.astype(dtype)
    for p in PATHS:
        np.testing.assert_array_equal(_lists(X, k, p), expected, err_msg=p)
        np.testing.assert_array_equal(_graph(X, k, p), _union_adjacency(expected, len(P)), err_msg=p)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("k", [2, 5, 9])
def test_duplicated_points_lists_match_oracle(k, dtype):
    # 12 copies of one point (more than k + the extra columns queried), and pairs of duplicates
    base = np.array([[0, 0]] * 12 + [[3, 0], [3, 0], [0, 4], [0, 4], [5, 5], [-2, 1], [-2, 1]])
    P = base[np.random.default_rng(0).permutation(len(base))]
    expected = _oracle_lists(P, k)
    X = P.astype(dtype)
    for p in PATHS:
        np.testing.assert_array_equal(_lists(X, k, p), expected, err_msg=p)


@pytest.mark.parametrize("k", [3, 9, 12])
def test_ties_straddling_the_candidate_lists(k):
    # 4-D lattice {-1,0,1}^4: the centre has 8 points at distance 1 and 24 at sqrt(2), so the tie at
    # the k-th distance extends beyond every path's k + extra candidates
    P = np.array(list(itertools.product([-1, 0, 1], repeat=4)))
    P = P[np.random.default_rng(1).permutation(len(P))]
    expected = _oracle_lists(P, k)
    for p in PATHS:
        np.testing.assert_array_equal(_lists(P.astype(float), k, p), expected, err_msg=p)
        np.testing.assert_array_equal(_graph(P.astype(float), k, p), _union_adjacency(expected, len(P)),
                                      err_msg=p)


def _float_oracle_lists(X, k):
    """(distance, index)-ordered k nearest with the squared distances summed left to right over the columns in
    float64 (what every exact path returns; 0 where the squares of tiny differences underflow)."""
    X = np.asarray(X, dtype=np.float64)
    n, d = X.shape
    D = np.zeros((n, n))
    for c in range(d):
        t = X[:, None, c] - X[None, :, c]
        D = D + t * t
    out = np.empty((n, k), dtype=np.int64)
    for i in range(n):
        others = np.delete(np.arange(n), i)
        out[i] = others[np.lexsort((others, D[i, others]))[:k]]
    return out


@pytest.mark.parametrize("k", [2, 5])
def test_copies_and_underflowing_near_copies_match_the_oracle(k):
    # 14 copies of the origin and, at lower indices, two points 1e-170 and 3e-171 away from it: the squares of
    # those differences underflow, so they are at the final distance 0 too and come first by index.  The kd-tree
    # path took "the k lowest-indexed exact copies" (grouping equal rows) and left them out; the brute path now
    # takes that shortcut as well (a row with k copies re-ranked every point: O(n d) per row), only where a
    # distance 0 means equal rows (no non-zero coordinate below 2^-460).
    rng = np.random.default_rng(2)
    X = np.vstack([[[1e-170, 0.0], [0.0, 3e-171]], np.zeros((14, 2)), rng.integers(1, 9, size=(30, 2))])
    X = X[np.r_[0, 1, rng.permutation(np.arange(2, len(X)))]]
    expected = _float_oracle_lists(X, k)
    for p in PATHS:
        np.testing.assert_array_equal(_lists(X, k, p), expected, err_msg=p)


@pytest.mark.parametrize("k", [3, 10])
def test_many_copies_lists_match_oracle_on_every_exact_path(k):
    # a third of the points are copies of 4 points (about 10 copies each, beyond the k + 8 candidates of the
    # brute path for k = 3): the shortcut by grouping equal rows (dense brute, kd-tree) and the block re-search
    # of the sparse path give the (distance, index) oracle
    rng = np.random.default_rng(5)
    P = rng.integers(-20, 21, size=(120, 3))
    P[rng.choice(120, 40, replace=False)] = P[rng.integers(0, 4, size=40)]
    expected = _oracle_lists(P, k)
    for p in PATHS:
        np.testing.assert_array_equal(_lists(P.astype(float), k, p), expected, err_msg=p)
