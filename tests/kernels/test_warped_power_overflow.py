"""WarpedKernel's root of L^p refuses powers whose entries leave float64's range (an inf / NaN kernel before)."""

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs import WarpedKernel


def _path(n):
    e = np.ones(n - 1)
    return sp.csr_array(sp.diags([e, e], [-1, 1]))


def _X(n):
    return np.linspace(0.0, 1.0, n)[:, None]


def test_huge_power_refused_up_front():
    with pytest.raises(ValueError, match=r"laplacian_power=1000000: the largest entry of L\*\*1000000 would be at "
                                         r"least .*laplacian='normalized'"):
        WarpedKernel(_X(50), graph=_path(50), laplacian_power=10**6)


@pytest.mark.parametrize("p", [600, 601])
def test_overflow_found_during_the_products(p):
    # passes the up-front bound (3**p / 50 < 2**1000); R^T R = L^k passes 2**1000 near k = 503
    with pytest.raises(ValueError, match=rf"laplacian_power={p}: an entry of L\*\*5\d\d is 2\*\*100\d"):
        WarpedKernel(_X(50), graph=_path(50), laplacian_power=p)


@pytest.mark.parametrize("kind", ["normalized", "randomwalk"])
def test_bounded_spectrum_kernel_finite(kind):
    K = WarpedKernel(_X(50), graph=_path(50), laplacian=kind, laplacian_power=600)
    assert np.isfinite(K.R.data).all()
    # no false refusal: eigenvalues <= 2, so L^600 = R^T R stays below 2**600
    assert np.isfinite((K.R.T @ K.R).data).all()
