"""distributed_chebyshev_filter on L = 0 (a graph without edges): the dtype of the serial chebyshev_filter.

lmax = 0 takes the exact branch phi(L) X = phi(0) X; there the float64 values phi(0) times a float32 block
gave a float64 result, where chebyshev_filter (and the same call on a graph with edges) returns float32.
Runs under plain pytest and under ``mpiexec -n 2``.
"""

import numpy as np
import scipy.sparse as sp

import graphrkhs as gr
from graphrkhs import filters
from graphrkhs.distributed import DistributedCSR, distributed_chebyshev_filter


def test_zero_laplacian_float32_keeps_float32(comm):
    n = 7
    Z = sp.csr_array((n, n), dtype=np.float32)
    X = (np.random.default_rng(0).normal(size=(n, 3)) + 1 / 3).astype(np.float32)
    D = DistributedCSR.from_global(Z, comm, dtype=np.float32)
    serial = gr.chebyshev_filter(Z, filters.Heat(0.5), X, backend="numpy")
    assert serial.dtype == np.float32
    for x in (X, X[:, 0]):
        y = distributed_chebyshev_filter(D, filters.Heat(0.5), x[D.owned])
        assert y.dtype == np.float32, y.dtype
        full = D.gather(y)
        np.testing.assert_allclose(full, np.exp(-0.5 * 0.0) * x, rtol=1e-6)   # phi(0) X, the oracle
    bank = distributed_chebyshev_filter(D, [filters.Heat(0.5), filters.RegularizedLaplacian(1.0)], X[D.owned])
    assert bank.dtype == np.float32 and bank.shape == (2,) + X[D.owned].shape
