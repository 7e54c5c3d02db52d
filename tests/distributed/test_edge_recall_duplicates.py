"""``edge_recall`` on graphs whose CSR stores an edge more than once.

A CSR matrix may hold duplicate entries (scipy sums them: one edge of the summed weight).  ``edge_recall``
set every stored value to 1 and multiplied the patterns, so an edge stored twice in ``W`` counted twice:
a graph with a third of the reference edges, each stored twice, had "recall" 2/3 (one with half of the
edges of a path on 3 nodes, 1.0); duplicates in the reference inflated its edge count.  The oracle is the sets of edges, by brute force.
"""

import numpy as np
import scipy.sparse as sp

from graphrkhs.distributed import edge_recall


def _edges(M):
    C = sp.coo_array(M)
    return {(int(i), int(j)) for i, j, v in zip(C.row, C.col, C.data) if i != j and v != 0}


def _csr_with_duplicates(pairs, n, copies):
    rows = np.repeat([i for i, _ in pairs], copies)
    cols = np.repeat([j for _, j in pairs], copies)
    order = np.argsort(rows, kind="stable")
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=n))])
    return sp.csr_array((np.full(rows.size, 0.5), cols[order], indptr), shape=(n, n))


def _recall(W, W_exact):
    ref = _edges(W_exact)
    return len(_edges(W) & ref) / len(ref)


def test_an_edge_stored_twice_is_one_edge():
    exact = sp.csr_array(np.array([[0, 1, 0, 1], [1, 0, 1, 0], [0, 1, 0, 0], [1, 0, 0, 0.0]]))
    half = _csr_with_duplicates([(0, 1), (1, 0)], 4, copies=2)   # 2 of the 6 stored edges, each twice
    assert not half.has_canonical_format
    assert _recall(half, exact) == 2 / 6
    assert edge_recall(half, exact) == 2 / 6
    # duplicates in the reference: still its 6 edges
    exact_dup = _csr_with_duplicates(sorted(_edges(exact)), 4, copies=3)
    assert edge_recall(half, exact_dup) == 2 / 6
    assert edge_recall(exact, exact_dup) == 1.0
    # the caller's matrices are not changed
    assert not half.has_canonical_format and half.nnz == 4
