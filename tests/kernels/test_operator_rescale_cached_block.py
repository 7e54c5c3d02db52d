"""KernelOperator.rescale on a cached operator scales block() and ``scale`` too, not only the cached matrix."""
import numpy as np
import pytest

from graphrkhs import KernelOperator, pairwise_kernel


@pytest.mark.parametrize("cache_bytes", [0, 2**30])
def test_rescaled_rows_match_the_matrix(cache_bytes):
    X = np.random.default_rng(0).normal(size=(6, 2))
    A = np.random.default_rng(1).normal(size=(3, 2))
    op = KernelOperator(X, sigma=1.0, cache_bytes=cache_bytes).rescale(0.5)
    K = 0.5 * pairwise_kernel(X, sigma=1.0)
    np.testing.assert_allclose(op.toarray(), K, rtol=1e-14, atol=0)
    # the rows for the points themselves are rows of the (rescaled) matrix; before, the cached operator's
    # block(X) kept the factor 1 (2x the matrix) and ``scale`` read 1.0
    np.testing.assert_allclose(op.block(X[:2]), K[:2], rtol=1e-14, atol=0)
    np.testing.assert_allclose(op.block(A), 0.5 * pairwise_kernel(A, X, sigma=1.0), rtol=1e-14, atol=0)
    assert op.scale == 0.5
