"""Exact kNN search breaks ties at equal distances by the points' contents, on every exact path.

Among points at exactly the same distance the one whose coordinates come first in lexicographic order
(first coordinate, then the second, ...) wins, and only exact copies of one point go by index: the graph
does not depend on the order of the rows (up to swapping identical points).

Oracles: squared distances of integer (or exactly representable) coordinates, computed in integer
arithmetic, ordered by (distance, content rank, index) with np.lexsort, the content rank also from
np.lexsort over the columns.
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


def _content_rank(X):
    """Each row's position in the order (row values lexicographically, then index): np.lexsort, whose last key
    is the primary one, on the columns in reverse (-0.0 and +0.0 compare equal there)."""
    X = np.asarray(X, dtype=np.float64)
    n, d = X.shape
    order = np.lexsort((np.arange(n),) + tuple(X[:, c] for c in range(d - 1, -1, -1)))
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    return rank


def _oracle_lists(P, k):
    """(distance, content rank)-ordered k nearest of integer points ``P`` (the point itself excluded)."""
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


@pytest.mark.parametrize("first", [0, 4])
def test_halfway_point_links_to_the_lexicographically_first_point_on_every_exact_path(first):
    X = np.array([[-1, 0], [-1.1, 0], [-1.2, 0], [-1.3, 0], [1, 0], [1.1, 0], [1.2, 0], [1.3, 0], [0, 0]])
    if first == 4:   # the two clusters' rows swapped: the same point (-1, 0) must win, now node 4
        X = X[[4, 5, 6, 7, 0, 1, 2, 3, 8]]
    graphs = {p: _graph(X, 1, p) for p in PATHS}
    # node 8 is at distance exactly 1 from (-1, 0) and (1, 0): (-1, 0) comes first lexicographically, whatever
    # its index (the lower index won before: the graph depended on the order of the rows)
    expected_row = np.zeros(9)
    expected_row[first] = 1.0
    for p, A in graphs.items():
        np.testing.assert_array_equal(A[8], expected_row, err_msg=p)
        np.testing.assert_array_equal(A, graphs["brute"], err_msg=p)
    labels = [harmonic_solution(sp.csr_array(A), [1, 5], np.eye(2))[-1] for A in graphs.values()]
    for lab in labels:
        np.testing.assert_array_equal(lab, labels[0])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("k", [1, 2, 3, 5])
def test_lattice_lists_match_the_content_rank_oracle(k, dtype):
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
    """(distance, content rank)-ordered k nearest with the squared distances summed left to right over the columns in
    float64 (what every exact path returns; 0 where the squares of tiny differences underflow)."""
    X = np.asarray(X, dtype=np.float64)
    n, d = X.shape
    D = np.zeros((n, n))
    for c in range(d):
        t = X[:, None, c] - X[None, :, c]
        D = D + t * t
    rank = _content_rank(X)
    out = np.empty((n, k), dtype=np.int64)
    for i in range(n):
        others = np.delete(np.arange(n), i)
        out[i] = others[np.lexsort((rank[others], D[i, others]))[:k]]
    return out


@pytest.mark.parametrize("k", [2, 5])
def test_copies_and_underflowing_near_copies_match_the_oracle(k):
    # 14 copies of the origin and, at lower indices, two points 1e-170 and 3e-171 away from it: the squares of
    # those differences underflow, so they are at the final distance 0 too (and come after the copies of the
    # origin, which precede them lexicographically).  The kd-tree
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
    # of the sparse path give the (distance, content rank) oracle
    rng = np.random.default_rng(5)
    P = rng.integers(-20, 21, size=(120, 3))
    P[rng.choice(120, 40, replace=False)] = P[rng.integers(0, 4, size=40)]
    expected = _oracle_lists(P, k)
    for p in PATHS:
        np.testing.assert_array_equal(_lists(P.astype(float), k, p), expected, err_msg=p)


# ---------------------------------------------------------------------------------------------------------------
# Permutation equivariance: knn_graph(X[p]) is knn_graph(X) with its nodes permuted, on tied data.
# ---------------------------------------------------------------------------------------------------------------

def _keeping_copies_in_order(X, p):
    """``p`` with each group of identical rows re-sorted: the positions in ``X[p]`` of the copies of one row
    take that row's original indices in ascending order.  Exact copies are told apart by index only, so
    knn_graph(X[p]) is knn_graph(X)[q][:, q] for this q (an automorphism swapping identical points away
    from p); q = p where X has no duplicated rows."""
    _, group = np.unique(np.asarray(X, dtype=np.float64), axis=0, return_inverse=True)
    group = group.ravel()[p]
    q = np.array(p, copy=True)
    for g in np.unique(group):   # a loop over the groups of copies (the test's own bookkeeping)
        at = np.flatnonzero(group == g)
        q[at] = np.sort(p[at])
    return q


def _digits(n=None):
    from sklearn.datasets import load_digits

    X = load_digits().data
    return X if n is None else X[:n]


def _tied_data(name):
    rng = np.random.default_rng(11)
    if name == "grid":            # 2-D integer lattice: 4 neighbours at distance 1 inside
        return np.array(list(itertools.product(range(9), range(7))), dtype=float)
    if name == "grid4":           # {-1, 0, 1}^4: ties straddling every path's candidates
        return np.array(list(itertools.product([-1, 0, 1], repeat=4)), dtype=float)
    if name == "small_integers":  # digits-like: few integer levels, many equal distances
        return rng.integers(0, 4, size=(150, 6)).astype(float)
    if name == "duplicates":      # groups of copies, some larger than k + the extra candidates
        base = rng.integers(-3, 4, size=(30, 3))
        return base[rng.integers(0, 30, size=120)].astype(float)
    if name == "digits":          # scikit-learn's digits: integer pixels 0..16 in 64 dimensions
        return _digits(400)
    raise ValueError(name)


def _assert_permuted_graph(W, Wp, q, msg):
    W, Wp = sp.csr_array(W), sp.csr_array(Wp)
    expected = W[q][:, q].toarray()
    got = Wp.toarray()
    np.testing.assert_array_equal(got != 0, expected != 0, err_msg=msg)
    np.testing.assert_allclose(got, expected, rtol=1e-14, atol=0, err_msg=msg)


@pytest.mark.filterwarnings("ignore:.*lost every edge:graphrkhs.GraphWarning")   # copies: median distance 0
@pytest.mark.parametrize("data", ["grid", "grid4", "small_integers", "duplicates", "digits"])
@pytest.mark.parametrize("path", PATHS)
def test_permuted_rows_give_the_permuted_graph(data, path):
    X = _tied_data(data)
    rng = np.random.default_rng(7)
    for trial in range(2):
        p = rng.permutation(len(X))
        q = _keeping_copies_in_order(X, p)
        for k in (1, 4, 10):
            for mode in ("union", "mutual", "average"):
                for weight in ("binary", "gaussian"):
                    def build(Y):
                        if path == "sparse":
                            return knn_graph(sp.csr_array(Y), k, weight=weight, mode=mode)
                        return knn_graph(Y, k, weight=weight, mode=mode, algorithm=path)
                    _assert_permuted_graph(build(X), build(X[p]), q, f"{data} {path} k={k} {mode} {weight}")


@pytest.mark.parametrize("path", PATHS)
def test_permuted_rows_give_the_permuted_lists_with_copies(path):
    # arbitrary permutations of data with copies: the lists are those of X, relabelled by q (copies in order)
    X = _tied_data("duplicates")
    rng = np.random.default_rng(8)
    for k in (2, 9):
        lists = _lists(X, k, path)
        for trial in range(3):
            p = rng.permutation(len(X))
            q = _keeping_copies_in_order(X, p)
            inv = np.empty_like(q)
            inv[q] = np.arange(len(q))
            np.testing.assert_array_equal(_lists(X[p], k, path), inv[lists[q]], err_msg=f"{path} k={k}")


@pytest.mark.parametrize("k", [1, 5, 10])
def test_digits_lists_match_the_oracle_and_agree_between_paths(k):
    # scikit-learn's digits (integer pixels): 116 of 24678 graph entries moved under a permutation of the rows
    # when ties went to the lower index
    P = _digits(500).astype(np.int64)
    expected = _oracle_lists(P, k)
    for p in PATHS:
        np.testing.assert_array_equal(_lists(P.astype(float), k, p), expected, err_msg=p)


def test_signed_zeros_are_equal_contents():
    # -0.0 and +0.0 are the same coordinate: copies differing only in the sign of a zero go by index, and the
    # dense and sparse paths (which store no zero) agree
    X = np.array([[0.0, 1.0], [-0.0, 1.0], [0.0, -0.0], [1.0, 0.0], [-0.0, 0.0], [1.0, -0.0]])
    expected = _oracle_lists(X.astype(np.int64), 2)
    for p in PATHS:
        np.testing.assert_array_equal(_lists(X, 2, p), expected, err_msg=p)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sparse_rows_with_explicit_zeros_rank_as_their_dense_rows(dtype):
    # explicit zeros and unsorted column indices in the CSR input: the same contents, the same ties
    P = np.array(list(itertools.product(range(4), range(4), range(3))))
    P = P[np.random.default_rng(4).permutation(len(P))]
    X = sp.csr_array(P.astype(dtype))
    X.data[::3] = 0.0   # explicit zeros ...
    dense = X.toarray()
    rows = np.repeat(np.arange(X.shape[0]), np.diff(X.indptr))
    coo = sp.coo_array((X.data[::-1], (rows[::-1], X.indices[::-1])), shape=X.shape)   # ... and unsorted entries
    expected = _oracle_lists(dense.astype(np.int64), 4)
    np.testing.assert_array_equal(knn_search(dense, 4, "brute", None)[1], expected)
    np.testing.assert_array_equal(knn_graph(coo.tocsr(), 4, weight="binary").toarray(),
                                  _union_adjacency(expected, len(P)))


@pytest.mark.parametrize("d", [1, 3, 16, 17, 40])
def test_tie_ranks_are_the_lexicographic_order_of_dense_and_sparse_rows(d):
    # both sorts (NumPy's lexsort up to 16 columns, the compiled merge sort above) and the CSR comparator give
    # the oracle's order: values lexicographically, -0.0 equal to +0.0, copies by index
    from graphrkhs.graphs._search import tie_ranks

    rng = np.random.default_rng(d)
    X = rng.integers(-2, 3, size=(300, d)).astype(float) * rng.choice([1.0, 0.5], size=(1, d))
    X[rng.integers(0, 300, 40)] = X[rng.integers(0, 300, 40)]     # copies
    X[X == 0] *= rng.choice([1.0, -1.0], size=int((X == 0).sum()))  # signed zeros
    expected = _content_rank(X)
    np.testing.assert_array_equal(tie_ranks(X), expected)
    np.testing.assert_array_equal(tie_ranks(sp.csr_array(X)), expected)
    np.testing.assert_array_equal(tie_ranks(np.asfortranarray(X)), expected)
