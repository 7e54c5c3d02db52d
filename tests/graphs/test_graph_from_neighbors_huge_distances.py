"""graph_from_neighbors with sigma=None: the mean distance of lists near the float64 limit is finite.

The mean was taken as a plain sum, which overflowed for distances around 1e308 (finite, scale=1): the
Gaussian width became inf and every weight exp(0) = 1 -- here [1, 1, 1] for the oracle's
[0.720, 0.477, 0.623] -- with only numpy's "overflow encountered in reduce" RuntimeWarning.
"""

import warnings

import numpy as np
import pytest

from graphrkhs.graphs import graph_from_neighbors


@pytest.mark.parametrize("mode", ["union", "mutual", "average"])
def test_mean_width_of_huge_distances(mode):
    dist = np.array([[1e308, 1.5e308], [1e308, 1.2e308], [1.2e308, 1.5e308]])
    idx = np.array([[1, 2], [0, 2], [1, 0]])
    # oracle: the same formula in units of 1e300, where nothing overflows
    small = dist / 1e300
    sigma = small.mean()
    w = np.exp(-small ** 2 / (2 * sigma ** 2))
    A = np.zeros((3, 3))
    for i in range(3):
        A[i, idx[i]] = w[i]
    M = A > 0
    expected = {"union": np.maximum(A, A.T), "mutual": np.where(M & M.T, np.minimum(A, A.T), 0),
                "average": (A + A.T) / 2}[mode]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        W = graph_from_neighbors(dist, idx, mode=mode)
    np.testing.assert_allclose(W.toarray(), expected, rtol=1e-13, atol=0)
    assert W.toarray().max() < 0.75
    assert not [str(c.message) for c in caught]
