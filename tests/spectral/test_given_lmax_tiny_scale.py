"""The check of a given lmax on Laplacians of tiny weights.

check_given_lmax proves a given lmax wrong by the Ritz values of a short Lanczos run; for weights near 1e-200
the squared norms of its vectors underflowed, the run broke down at its first step, and the Rayleigh quotient
of the random start vector (far below lambda_max) was taken as the bound: lmax at half the spectrum was
accepted and chebyshev_filter / GraphKernel returned 1.02e4 times phi(L) x off (relative), 5.7e-4 at 0.9.
Oracle: the dense eigendecomposition of the Laplacian of the unscaled weights.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs import GraphKernel, chebyshev_filter, filters, laplacian


def _setup(scale):
    rng = np.random.default_rng(1)
    n = 80
    A = np.triu((rng.random((n, n)) < 0.1) * rng.uniform(0.5, 2, (n, n)), 1)
    W0 = A + A.T
    lam, U = np.linalg.eigh(laplacian(sp.csr_array(W0)).toarray())
    lam = np.clip(lam, 0.0, None)
    x = rng.normal(size=n)
    ref = U @ (np.exp(-lam) * (U.T @ x))
    return laplacian(sp.csr_array(W0 * scale)), lam.max() * scale, x, ref


@pytest.mark.parametrize("scale", [1e-200, 1e-300, 1e200])
@pytest.mark.parametrize("fraction", [0.5, 0.9])
def test_too_small_lmax_refused(scale, fraction):
    L, top, x, _ = _setup(scale)
    with pytest.raises(ValueError, match="below the spectrum"):
        chebyshev_filter(L, filters.Heat(1.0 / scale), x, lmax=fraction * top)
    with pytest.raises(ValueError, match="below the spectrum"):
        GraphKernel(L, filters.Heat(1.0 / scale), lmax=fraction * top)


@pytest.mark.parametrize("scale", [1.0, 1e-200, 1e-300, 1e200])
def test_valid_lmax_accepted(scale):
    L, top, x, ref = _setup(scale)
    y = chebyshev_filter(L, filters.Heat(1.0 / scale), x, lmax=1.01 * top)
    assert np.abs(y - ref).max() <= 1e-7 * np.abs(ref).max()
