"""exact_filter (the oracle) and GraphKernel(method="exact") take a Laplacian's c null eigenvalues as 0.

eigh returns them as +-1e-16 (float32 entries: +-1e-8); the positive ones met sharp low-pass responses:
Heat(1e16) was up to 0.29 (combinatorial) and 0.6 (normalized) off on random graphs of 4-40 nodes, Heat(1e12)
3e-4 and 2e-4 (float32: 0.3 and 0.4).  Reference: phi(0) on the exact null space (D^(1/2) 1 on each component),
numpy eigh of L restricted to its complement.
"""

import numpy as np
import pytest
import scipy.linalg as sla
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from graphrkhs import GraphKernel, exact_filter, filters, laplacian


def _reference(W, kind, phi, X):
    n = W.shape[0]
    c, labels = connected_components(sp.csr_array(W), directed=False)
    v = np.ones(n) if kind == "combinatorial" else np.sqrt(W.sum(axis=1))
    v[v == 0] = 1.0
    Q = np.zeros((n, c))
    Q[np.arange(n), labels] = v
    Q /= np.linalg.norm(Q, axis=0)
    B = sla.qr(Q, mode="full")[0][:, c:]
    theta, S = np.linalg.eigh(B.T @ laplacian(W, kind).toarray() @ B)
    theta = np.clip(theta, 0.0, None)
    return phi(np.zeros(1))[0] * Q @ (Q.T @ X) + B @ S @ (phi(theta)[:, None] * (S.T @ (B.T @ X)))


def _graphs():
    rng = np.random.default_rng(0)
    for _ in range(12):
        n = int(rng.integers(4, 40))
        W = np.triu((rng.random((n, n)) < 0.3) * rng.random((n, n)), 1)
        yield W + W.T, rng.normal(size=(n, 2))


@pytest.mark.parametrize("kind", ["combinatorial", "normalized"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_exact_filter_sharp_heat(kind, dtype):
    for W, X in _graphs():
        L = laplacian(W, kind).astype(dtype)
        for t in (1.0, 1e12, 1e16):
            err = np.abs(exact_filter(L, filters.Heat(t), X.astype(dtype)) - _reference(W, kind, filters.Heat(t), X))
            assert err.max() <= 64 * np.finfo(dtype).eps * np.abs(X).max()


@pytest.mark.parametrize("kind", ["combinatorial", "normalized"])
def test_graph_kernel_exact_sharp_heat(kind):
    for W, X in _graphs():
        K = GraphKernel(W, filters.Heat(1e16), method="exact", laplacian=kind, check_positive=False)
        assert np.abs(K @ X - _reference(W, kind, filters.Heat(1e16), X)).max() <= 1e-12 * np.abs(X).max()


def test_a_shifted_laplacian_keeps_its_smallest_eigenvalue():
    # L + 1e-3 I is no Laplacian (row sums 1e-3, diagonal not ones): nothing is set to 0
    W = np.diag(np.ones(4), 1)
    W = W + W.T
    A = laplacian(W).toarray() + 1e-3 * np.eye(5)
    lam, U = np.linalg.eigh(A)
    x = np.arange(5.0)
    ref = U @ (np.exp(-100 * lam) * (U.T @ x))
    np.testing.assert_allclose(exact_filter(A, filters.Heat(100.0), x), ref, rtol=0, atol=1e-14)
