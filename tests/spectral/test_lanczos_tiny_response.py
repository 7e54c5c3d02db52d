"""lanczos_filter on responses whose values lie below ~1e-154 (squares underflow).

The stopping test compared np.linalg.norm of the difference of two estimates with tol times the response's
scale; for values near 1e-160 the squares underflowed, the norm was 0 and the column stopped early, reported
converged: Matern(100, 2.0) (phi(0) = 1.3e-170, a response the Matern constructor accepts) was 1.8e-5 off on a
path of 20 nodes, and 1e-180 exp(-lambda) with check_every=1 stopped after 2 steps, 0.53 off (the same response
times 1 was exact to 1e-15).
"""

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs import GraphKernel, filters, lanczos_filter, laplacian


def _oracle(L, phi, x):
    lam, U = np.linalg.eigh(L.toarray())
    lam = np.clip(lam, 0.0, None)
    lam[lam < 1e-12] = 0.0
    return U @ (phi(lam) * (U.T @ x))


def _path(n):
    W = np.diag(np.ones(n - 1), 1)
    return W + W.T


@pytest.mark.parametrize("kind", ["combinatorial", "normalized"])
@pytest.mark.parametrize("nu", [100, 160])
def test_matern_with_a_tiny_peak(kind, nu):
    W = _path(20)
    L = laplacian(sp.csr_array(W), kind)
    phi = filters.Matern(nu, 2.0)                  # phi(0) = 50^-100 = 1.3e-170, 80^-160 = 3.2e-305
    x = np.random.default_rng(0).normal(size=20)
    ref = _oracle(L, phi, x)
    y, info = lanczos_filter(L, phi, x, tol=1e-8, return_info=True)
    assert info["converged"].all()
    assert np.abs(y - ref).max() <= 1e-8 * np.abs(ref).max()
    yk = GraphKernel(W, phi, laplacian=kind, method="lanczos") @ x
    assert np.abs(yk - ref).max() <= 1e-8 * np.abs(ref).max()


@pytest.mark.parametrize("c", [1.0, 1e-160, 1e-180, 1e-250])
@pytest.mark.parametrize("check_every", [1, 5])
def test_scaled_response_is_scaled_result(c, check_every):
    rng = np.random.default_rng(1)
    n = 12
    A = np.triu((rng.random((n, n)) < 0.4) * rng.uniform(0.5, 2, (n, n)), 1)
    L = laplacian(sp.csr_array(A + A.T))
    x = rng.normal(size=n)
    phi = filters.Filter(lambda lam: c * np.exp(-lam), name="scaled_heat")
    ref = _oracle(L, phi, x)
    y = lanczos_filter(L, phi, x, tol=1e-8, check_every=check_every)
    assert np.abs(y - ref).max() <= 1e-8 * np.abs(ref).max()
