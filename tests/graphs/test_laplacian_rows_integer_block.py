"""laplacian_rows(..., degrees=) reads an integer or boolean COO row block with its duplicate entries summed in
float64, as laplacian and as_adjacency do.

The block was converted to CSR in its own dtype, so duplicates were summed there: uint8 200 + 100 wrapped
around to 44, and L_01 came out -44 (silently) where laplacian of the same matrix gives -300; boolean
duplicates were or-ed to 1 where as_adjacency counts them as 2.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs import laplacian
from graphrkhs.graphs import laplacian_rows


def _dense_laplacian(W, kind):
    d = W.sum(1)
    if kind == "combinatorial":
        return np.diag(d) - W
    if kind == "normalized":
        return np.eye(len(d)) - W / np.sqrt(np.outer(d, d))
    return np.eye(len(d)) - W / d[:, None]


@pytest.mark.parametrize("kind", ["combinatorial", "normalized", "randomwalk"])
@pytest.mark.parametrize("dtype, values, total", [(np.uint8, [200, 100], 300.0), (np.int8, [100, 100], 200.0),
                                                 (bool, [True, True], 2.0)])
def test_duplicate_entries_of_an_integer_block(kind, dtype, values, total):
    # a 3-node path 0 - 1 - 2 whose edge 0-1 is stored as two COO entries each way
    rows = np.array([0, 0, 1, 1, 1, 2])
    cols = np.array([1, 1, 0, 0, 2, 1])
    data = np.array(list(values) * 2 + [1, 1], dtype=dtype)
    G = sp.coo_array((data, (rows, cols)), shape=(3, 3))
    dense = np.array([[0, total, 0], [total, 0, 1], [0, 1, 0]])
    expected = _dense_laplacian(dense, kind)
    np.testing.assert_allclose(laplacian(G, kind).toarray(), expected, rtol=1e-14)
    d = dense.sum(1)
    np.testing.assert_allclose(laplacian_rows(G, kind, 0, 3, degrees=d).toarray(), expected, rtol=1e-14)
    block = sp.coo_array((data[:2], (rows[:2], cols[:2])), shape=(1, 3))     # row 0 alone
    np.testing.assert_allclose(laplacian_rows(block, kind, 0, 1, degrees=d).toarray(), expected[:1], rtol=1e-14)


def test_float16_and_string_blocks():
    # a float16 block is read in float64 as laplacian reads a float16 adjacency (scipy.sparse refused it:
    # "scipy.sparse does not support dtype float16", naming no argument); strings raise a TypeError
    W = np.array([[0, 1, 0], [1, 0, 2], [0, 2, 0]], dtype=np.float16)
    d = W.astype(np.float64).sum(1)
    for kind in ("combinatorial", "normalized", "randomwalk"):
        np.testing.assert_allclose(laplacian_rows(W[1:], kind, 1, 3, degrees=d).toarray(),
                                   _dense_laplacian(W.astype(np.float64), kind)[1:], rtol=1e-14)
    with pytest.raises(TypeError, match=r"^W \(a row block\): .* must be numeric"):
        laplacian_rows(np.array([["0", "1"]]), "normalized", 0, 1, degrees=[1.0, 1.0])


@pytest.mark.parametrize("kind", ["combinatorial", "normalized", "randomwalk"])
def test_non_canonical_block_with_a_negative_duplicate(kind):
    # w_01 stored as -1 and 4 (the weight 3, as laplacian reads it) was refused as a negative weight
    B = sp.csr_array((np.array([-1.0, 4.0]), np.array([1, 1]), np.array([0, 2])), shape=(1, 3))
    assert not B.has_canonical_format
    dense = np.array([[0, 3.0, 0], [3.0, 0, 1], [0, 1, 0]])
    got = laplacian_rows(B, kind, 0, 1, degrees=dense.sum(1)).toarray()
    np.testing.assert_allclose(got, _dense_laplacian(dense, kind)[:1], rtol=1e-14)
    np.testing.assert_array_equal(B.data, [-1.0, 4.0])       # the caller's block is untouched
