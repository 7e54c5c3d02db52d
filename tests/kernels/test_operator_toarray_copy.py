"""KernelOperator.toarray() of a cached operator must not hand out its cache."""

import numpy as np

from graphrkhs import KernelOperator, pairwise_kernel


def test_toarray_mutation_does_not_change_products():
    X = np.random.default_rng(0).normal(size=(6, 2))
    op = KernelOperator(X, sigma=1.3)
    assert op.is_dense
    K = op.toarray()
    K[:] = 0.0
    v = np.ones(6)
    np.testing.assert_allclose(op @ v, pairwise_kernel(X, sigma=1.3) @ v, rtol=1e-12)
    np.testing.assert_allclose(op.toarray(), pairwise_kernel(X, sigma=1.3), rtol=1e-12)
