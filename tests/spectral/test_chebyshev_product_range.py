"""Chebyshev filters where the products L x leave the float range although x and phi(L) x do not.

The signal was scaled by a power of two only when its own peak lay within 2^64 of an end of the range; the
recurrence's products L b_k reach lambda_max max|x|.  A Laplacian of weights 1e200 (lambda_max ~ 1e201) and a
signal of 1e150 gave all NaN, without a warning (weights 1e300 and a signal of 1e10 too; float32 weights 1e20
and a signal of 1e18); weights 1e-200 and a signal of 1e-150 underflowed in the products and the result was
3.5 times off.  lanczos_filter and exact_filter were right.  Oracle: the dense eigendecomposition of the
Laplacian of the unscaled weights (phi(s L0) with Heat(t / s) is Heat(t) of L0).
"""

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs import GraphKernel, chebyshev_filter, filters, laplacian


def _graph():
    rng = np.random.default_rng(1)
    n = 12
    A = np.triu((rng.random((n, n)) < 0.4) * rng.uniform(0.5, 2, (n, n)), 1)
    return A + A.T, rng.normal(size=(n, 2))


CASES = [(1e200, 1e150, np.float64), (1e300, 1e10, np.float64), (1e-200, 1e-150, np.float64),
         (1e-300, 1e-10, np.float64), (1e20, 1e18, np.float32), (1e30, 1e8, np.float32)]


@pytest.mark.parametrize("weight_scale, signal_scale, dtype", CASES)
@pytest.mark.parametrize("how", ["chebyshev_filter", "GraphKernel"])
def test_products_out_of_range(weight_scale, signal_scale, dtype, how):
    W0, x0 = _graph()
    lam, U = np.linalg.eigh(laplacian(sp.csr_array(W0)).toarray())
    lam = np.clip(lam, 0.0, None)
    ref = U @ (np.exp(-lam)[:, None] * (U.T @ x0))
    L = laplacian(sp.csr_array((W0 * weight_scale).astype(dtype)))
    phi = filters.Heat(1.0 / weight_scale)
    x = (x0 * signal_scale).astype(dtype)
    with np.errstate(over="raise", invalid="raise"):
        y = chebyshev_filter(L, phi, x) if how == "chebyshev_filter" else GraphKernel(L, phi) @ x
    assert y.dtype == dtype
    err = np.abs(y.astype(np.float64) / signal_scale - ref).max() / np.abs(ref).max()
    assert err <= (1e-5 if dtype == np.float32 else 1e-7)
