"""pairwise_kernel with a callable kernel that returns a scipy.sparse matrix (a truncated, kNN-sparse kernel).

It raised ``ValueError: the kernel callable returned shape (); expected (6, 4)``: ``np.asarray`` of a sparse
matrix is a 0-d object array.  The Gram matrix is now the dense form of what the callable returned.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs import KernelOperator, pairwise_kernel


def _truncated_gaussian(make):
    def kernel(A, B):
        D = ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)
        K = np.exp(-D / 2.0)
        K[K < 0.3] = 0.0
        return make(K)
    return kernel


@pytest.mark.parametrize("make", [sp.csr_matrix, sp.csr_array, sp.coo_array])
def test_sparse_callable_gram(make):
    rng = np.random.default_rng(0)
    A, B = rng.normal(size=(6, 2)), rng.normal(size=(4, 2))
    D = ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)
    ref = np.where(np.exp(-D / 2.0) < 0.3, 0.0, np.exp(-D / 2.0))
    K = pairwise_kernel(A, B, _truncated_gaussian(make))
    assert isinstance(K, np.ndarray) and K.dtype == np.float64
    np.testing.assert_allclose(K, ref, rtol=1e-15, atol=0)
    op = KernelOperator(A, kernel=_truncated_gaussian(make))
    v = np.arange(6.0)
    np.testing.assert_allclose(op @ v, pairwise_kernel(A, A, _truncated_gaussian(np.asarray)) @ v, rtol=1e-14)


def test_sparse_callable_float32_points():
    A = np.random.default_rng(1).normal(size=(5, 3)).astype(np.float32)
    K = pairwise_kernel(A, None, _truncated_gaussian(sp.csr_array))
    assert K.dtype == np.float32 and K.shape == (5, 5)
    np.testing.assert_allclose(np.diag(K), 1.0)
