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


def test_direct_solvers_read_the_cache_without_a_copy():
    # dense_matrix hands the solvers the cache itself, read-only; toarray()'s copy doubled the n x n memory of a
    # direct LapRLS fit on a cached operator (peak 2.2 n^2 floats against 1.2 n^2 with a plain array)
    import tracemalloc

    import scipy.sparse as sp

    from graphrkhs import laprls_fit
    from graphrkhs._core.linalg import dense_matrix

    rng = np.random.default_rng(1)
    n = 600
    X = rng.normal(size=(n, 3))
    op = KernelOperator(X, sigma=1.5)
    K = pairwise_kernel(X, sigma=1.5)
    view = dense_matrix(op)
    assert not view.flags.writeable
    np.testing.assert_array_equal(view, K)
    W = sp.random(n, n, density=0.01, random_state=2)
    M = sp.csr_array(sp.diags(np.asarray((W + W.T).sum(axis=1)).ravel()) - (W + W.T))
    S = np.arange(0, n, 10)
    y = np.sign(X[S, 0])
    expected = laprls_fit(K, S, y, M, 1e-2, 1e-2, solver="direct")
    tracemalloc.start()
    got = laprls_fit(op, S, y, M, 1e-2, 1e-2, solver="direct")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)
    assert peak < 1.6 * n * n * 8
