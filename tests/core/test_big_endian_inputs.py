"""Big-endian arrays (as read from FITS / HDF5 / .npy files written on such machines) are ordinary numbers here.

A dense big-endian adjacency or Laplacian reached scipy.sparse, which refused it ("scipy.sparse does not support
dtype >f8", naming no argument): as_adjacency, laplacian, chebyshev_filter, lanczos_filter and exact_filter failed;
so did a CSR matrix built from big-endian data (scipy accepts it, then refuses it in its own operations).
Big-endian float32 points and signals ('>f4') gave float64 graphs, kernels and filters, against "float32 input gives
a float32 result".  Oracles: the same calls on the native-order arrays, and a dense eigendecomposition.
"""
import numpy as np
import scipy.sparse as sp

from graphrkhs import (GraphKernel, as_adjacency, chebyshev_filter, exact_filter, filters, knn_graph, lanczos_filter,
                       laplacian, pairwise_kernel, symmetrize)

rng = np.random.default_rng(0)
X = rng.normal(size=(12, 2))
W = knn_graph(X, 3).toarray()


def test_big_endian_adjacency_and_laplacian():
    for kind in ("combinatorial", "normalized"):
        L = laplacian(W.astype(">f8"), kind).toarray()
        np.testing.assert_array_equal(L, laplacian(W, kind).toarray())
    np.testing.assert_array_equal(as_adjacency((W > 0).astype(">i8")).toarray(), (W > 0).astype(float))
    A32 = as_adjacency(W.astype(">f4"))
    assert A32.dtype == np.float32
    np.testing.assert_array_equal(A32.toarray(), W.astype(np.float32))


def test_big_endian_laplacian_in_filters():
    L = laplacian(W).toarray()
    lam, U = np.linalg.eigh(L)
    x = rng.normal(size=(12, 2))
    ref = U @ (np.exp(-np.clip(lam, 0, None))[:, None] * (U.T @ x))
    Lb = L.astype(">f8")
    for f in (chebyshev_filter, lanczos_filter, exact_filter):
        kw = {"tol": 1e-12} if f is not exact_filter else {}
        np.testing.assert_allclose(f(Lb, filters.Heat(1.0), x, **kw), ref, atol=1e-9)


def test_big_endian_float32_stays_float32():
    Xb = X.astype(">f4")
    G = knn_graph(Xb, 3)
    assert G.dtype == np.float32
    np.testing.assert_array_equal(G.toarray(), knn_graph(X.astype(np.float32), 3).toarray())
    K = pairwise_kernel(Xb)
    assert K.dtype == np.float32
    np.testing.assert_array_equal(K, pairwise_kernel(X.astype(np.float32)))
    L32 = laplacian(W).astype(np.float32)
    y = chebyshev_filter(L32, filters.Heat(1.0), rng.normal(size=12).astype(">f4"), tol=1e-6)
    assert y.dtype == np.float32


def _big_endian_csr(A, dtype=">f8"):
    A = sp.csr_array(A)
    return sp.csr_array((A.data.astype(dtype), A.indices, A.indptr), shape=A.shape)


def test_big_endian_sparse_inputs():
    # a CSR matrix built from big-endian data (scipy accepts it, then refuses it in its own operations)
    Wb = _big_endian_csr(W)
    np.testing.assert_array_equal(laplacian(Wb, "normalized").toarray(), laplacian(W, "normalized").toarray())
    np.testing.assert_array_equal(symmetrize(Wb).toarray(), symmetrize(W).toarray())
    G = knn_graph(_big_endian_csr(X, ">f4"), 3)
    assert G.dtype == np.float32
    np.testing.assert_array_equal(G.toarray(), knn_graph(X.astype(np.float32), 3).toarray())
    x = rng.normal(size=12)
    np.testing.assert_allclose(GraphKernel(Wb, filters.Heat(1.0)) @ x, GraphKernel(W, filters.Heat(1.0)) @ x,
                               rtol=1e-13, atol=1e-15)
    L32 = laplacian(W).astype(np.float32)
    np.testing.assert_array_equal(lanczos_filter(_big_endian_csr(L32, ">f4"), filters.Heat(1.0), x.astype(np.float32)),
                                  lanczos_filter(L32, filters.Heat(1.0), x.astype(np.float32)))
