"""GraphKernel(method="lanczos") deflates L's null space, the normalized Laplacian's too (from the degrees).

Before, Heat(1e12) on three weighted paths and an isolated node was 1.7e-6 (combinatorial) and 8.5e-5
(normalized) off (max abs, signals of norm ~5), Heat(1e16) 0.013 and 0.43.  Reference: phi(0) on the exact null space (D^(1/2) 1 on each
component), numpy eigh of L restricted to its complement.
"""

import numpy as np
import pytest
import scipy.linalg as sla
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from graphrkhs import GraphKernel, filters, laplacian


def _graph():
    def path(s):
        return np.diag(np.ones(s - 1), 1) + np.diag(np.ones(s - 1), -1)
    W = sla.block_diag(path(7), path(3), np.zeros((1, 1)), path(12))
    W[0, 1] = W[1, 0] = 3.0
    W[12, 13] = W[13, 12] = 0.25
    perm = np.random.default_rng(0).permutation(W.shape[0])
    return W[np.ix_(perm, perm)]


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


@pytest.mark.parametrize("kind", ["normalized", "combinatorial"])
@pytest.mark.parametrize("reorder", [False, True])
def test_sharp_heat_kernel_is_exact_to_rounding(kind, reorder):
    W = _graph()
    X = np.random.default_rng(1).normal(size=(W.shape[0], 3))
    for t in (1.0, 1e12, 1e16):
        phi = filters.Heat(t)
        K = GraphKernel(W, phi, method="lanczos", laplacian=kind, reorder=reorder, check_positive=False)
        assert np.abs(K @ X - _reference(W, kind, phi, X)).max() <= 1e-13
    # a combinatorial Laplacian given as a matrix is deflated too (zero row sums)
    if kind == "combinatorial":
        K = GraphKernel(laplacian(W), filters.Heat(1e16), method="lanczos", reorder=reorder, check_positive=False)
        assert np.abs(K @ X - _reference(W, kind, filters.Heat(1e16), X)).max() <= 1e-13
