"""GraphKernel applied to a sparse block of signals (scipy's LinearOperator and chebyshev_filter take one).

``K @ scipy.sparse.eye(n)`` raised ``TypeError: X must be a real numeric array ...; got dtype object``: the
overridden ``dot`` / ``matmat`` / ``matvec`` made the sparse matrix a 0-d object array with ``np.asarray``,
while ``chebyshev_filter(L, phi, sparse)`` and any other scipy LinearOperator accept it.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs import GraphKernel, filters, laplacian


def _oracle(W, phi):
    lam, U = np.linalg.eigh(laplacian(W, "normalized").toarray())
    lam[np.abs(lam) < 1e-12] = 0.0
    return (U * phi(lam)) @ U.T


@pytest.mark.parametrize("method", ["chebyshev", "lanczos", "exact"])
@pytest.mark.parametrize("make", [sp.csr_matrix, sp.csr_array, sp.coo_array])
def test_sparse_signal_block(method, make):
    W = np.zeros((6, 6))
    for i, j, w in [(0, 1, 1.0), (1, 2, 2.0), (3, 4, 0.5)]:   # two components and an isolated node
        W[i, j] = W[j, i] = w
    phi = filters.Heat(1.0)
    K = GraphKernel(W, phi, method=method)
    ref = _oracle(W, phi)
    E = np.eye(6)[:, [0, 3, 5]]
    S = make(E)
    for got in (K @ S, K.dot(S), K.matmat(S)):
        assert isinstance(got, np.ndarray) and got.shape == (6, 3)
        np.testing.assert_allclose(got, ref[:, [0, 3, 5]], atol=1e-7)
    col = K.matvec(make(E[:, :1]))
    np.testing.assert_allclose(np.asarray(col).reshape(-1), ref[:, 0], atol=1e-7)
