"""distributed_cg and distributed_chebyshev_filter follow the serial dtype rules.

The serial ``conjugate_gradient`` iterates in B's dtype (float32 stays float32, anything else float64) and a
float32 scipy matrix times a float64 block computes in float64; ``chebyshev_filter`` computes in float32 only
when L and X are both float32.  The distributed functions cast the right-hand side / signal block to the
operator's dtype first: a float64 block on a float32 operator was rounded to float32 (CG relative error 5e-8 at
tol=1e-12 against 5e-16 serially; the filter returned float32, 2e-7 off), and a float32 right-hand side iterated
in float64.  Runs under plain pytest and under ``mpiexec -n 2``.
"""

import warnings

import numpy as np
import scipy.sparse as sp

import graphrkhs as gr
from graphrkhs import filters
from graphrkhs.distributed import DistributedCSR, distributed_cg, distributed_chebyshev_filter


def _laplacian32():
    rng = np.random.default_rng(3)
    n = 12
    W = sp.random(n, n, density=0.4, random_state=1)
    W = W + W.T + sp.diags(np.ones(n - 1), 1) + sp.diags(np.ones(n - 1), -1)   # a path: connected
    W.setdiag(0)
    W = (sp.csr_array(W) > 0).astype(np.float64) * 3.0    # integer weights: the float32 Laplacian is exact
    L = sp.csr_array(gr.laplacian(sp.csr_array(W))).astype(np.float32)
    X = rng.normal(size=(n, 3)) + 1 / 3           # not representable in float32
    return L, X


def test_distributed_cg_keeps_a_float64_right_hand_side_on_a_float32_operator(comm):
    L32, B = _laplacian32()
    A32 = sp.csr_array(L32 + sp.eye_array(L32.shape[0], dtype=np.float32))
    exact = np.linalg.solve(A32.toarray().astype(np.float64), B)          # the oracle: A's float32 entries
    D = DistributedCSR.from_global(A32, comm, dtype=np.float32)
    res = distributed_cg(D, B[D.owned], tol=1e-13, preconditioner="none", on_failure="raise")
    assert res.x.dtype == np.float64
    x = D.gather(res.x)
    assert np.abs(x - exact).max() <= 1e-11 * np.abs(exact).max()
    # a float32 right-hand side: float32 iterates, as conjugate_gradient(A32, B32)
    B32 = B.astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        serial = gr.conjugate_gradient(A32, B32, tol=1e-5)
        res32 = distributed_cg(D, B32[D.owned], tol=1e-5, preconditioner="none")
    assert serial.x.dtype == np.float32 and res32.x.dtype == np.float32
    assert np.abs(D.gather(res32.x) - exact).max() <= 1e-4 * np.abs(exact).max()


def test_distributed_filter_of_a_float64_block_on_a_float32_operator_is_float64(comm):
    L32, X = _laplacian32()
    L64 = L32.astype(np.float64)
    phi = filters.Heat(0.5)
    lam, U = np.linalg.eigh(L64.toarray())
    exact = U @ (np.exp(-0.5 * lam)[:, None] * (U.T @ X))                # the oracle: dense, from the math
    D = DistributedCSR.from_global(L32, comm, dtype=np.float32)
    y = distributed_chebyshev_filter(D, phi, X[D.owned], tol=1e-13)
    assert y.dtype == np.float64 == gr.chebyshev_filter(L32, phi, X, tol=1e-13, backend="numpy").dtype
    assert np.abs(D.gather(y) - exact).max() <= 1e-11
    # integer signals are float64 serially too; float32 with float32 stays float32
    Xi = np.arange(L32.shape[0] * 2).reshape(-1, 2) % 5 - 2
    assert distributed_chebyshev_filter(D, phi, Xi[D.owned], tol=1e-10).dtype == np.float64
    assert distributed_chebyshev_filter(D, phi, X.astype(np.float32)[D.owned], tol=1e-6).dtype == np.float32
    # a float32 block on a float64 operator: float64, as chebyshev_filter(L64, phi, X32)
    D64 = DistributedCSR.from_global(L64, comm)
    assert distributed_chebyshev_filter(D64, phi, X.astype(np.float32)[D64.owned], tol=1e-10).dtype == np.float64
