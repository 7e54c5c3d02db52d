"""KernelOperator applied to a scipy.sparse block V (e.g. indicator columns of labeled points).

``op @ scipy.sparse.csr_array(V)`` raised ``ValueError: V must have shape (8,) or (8, k), one row per point;
got shape ()`` -- ``np.asarray`` of a sparse matrix is a 0-d object array -- for a block of the right shape.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs import KernelOperator, pairwise_kernel


@pytest.mark.parametrize("cache_bytes", [0, 10**6])          # blockwise and cached dense
@pytest.mark.parametrize("make", [sp.csr_matrix, sp.csr_array, sp.coo_array])
def test_sparse_block(cache_bytes, make):
    X = np.random.default_rng(0).normal(size=(8, 3))
    op = KernelOperator(X, sigma=1.5, cache_bytes=cache_bytes)
    E = np.eye(8)[:, [1, 6]]
    got = op @ make(E)
    assert isinstance(got, np.ndarray) and got.shape == (8, 2)
    np.testing.assert_allclose(got, pairwise_kernel(X, sigma=1.5)[:, [1, 6]], rtol=1e-14)
