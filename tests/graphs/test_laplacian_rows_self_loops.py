"""laplacian_rows(..., degrees=) removes the self-loops of the rows it is given, as laplacian / as_adjacency do.

With ``degrees`` given the row block was used as it came: a self-loop w_ii was subtracted from the diagonal,
so on W = [[2, 1, 0], [1, 0, 1], [0, 1, 3]] (degrees without the loops 1, 2, 1) the rows 1:3 had L_22 = -2
in every kind -- a normalized or random-walk Laplacian with a negative diagonal -- where laplacian(W) gives
1 (it drops the loops with a GraphWarning); no warning, no error.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs import GraphWarning
from graphrkhs.graphs import laplacian_rows


def _dense_laplacian(W, kind):
    d = W.sum(1)
    if kind == "combinatorial":
        return np.diag(d) - W
    if kind == "normalized":
        return np.eye(len(d)) - W / np.sqrt(np.outer(d, d))
    return np.eye(len(d)) - W / d[:, None]


@pytest.mark.parametrize("kind", ["combinatorial", "normalized", "randomwalk"])
@pytest.mark.parametrize("form", [np.asarray, sp.csr_array, sp.coo_matrix])
def test_self_loops_of_a_row_block_are_removed(kind, form):
    W = np.array([[2.0, 1, 0], [1, 0, 1], [0, 1, 3]])
    plain = W - np.diag(np.diag(W))
    expected = _dense_laplacian(plain, kind)
    d = plain.sum(1)
    for start, stop, block in [(1, 3, W[1:]), (0, 3, W), (0, 1, W[:1]), (2, 3, W)]:
        with pytest.warns(GraphWarning, match="self-loops"):
            L = laplacian_rows(form(block), kind, start, stop, degrees=d)
        np.testing.assert_allclose(L.toarray(), expected[start:stop], rtol=1e-14, atol=0)
    assert W[0, 0] == 2.0          # the caller's matrix is left as it was
    S = sp.csr_array(W)
    with pytest.warns(GraphWarning, match="self-loops"):
        laplacian_rows(S, kind, 0, 3, degrees=d)
    np.testing.assert_array_equal(S.toarray(), W)


def test_a_block_without_self_loops_does_not_warn():
    import warnings

    W = sp.csr_array(np.array([[0.0, 1, 0], [1, 0, 1], [0, 1, 0]]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        L = laplacian_rows(W[1:], "normalized", 1, 3, degrees=[1.0, 2.0, 1.0])
    np.testing.assert_allclose(L.toarray(), _dense_laplacian(W.toarray(), "normalized")[1:], rtol=1e-14)
