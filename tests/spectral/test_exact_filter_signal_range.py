"""exact_filter on signals at the ends of float64's range: phi(L) is linear, so phi(L) (2^e x) = 2^e phi(L) x.

A subnormal signal (2^-1060 times integers) lost bits in U^T x and its products (relative error 4.7e-7, 8 units
of the subnormal grid; 2.6e-5 for x * 1e-318); the result is now that of x scaled exactly, to one unit of the
grid the result is stored on.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs import exact_filter, filters, laplacian

TINY = 2.0 ** -1074       # the subnormal grid's spacing


def graph_laplacian():
    rng = np.random.default_rng(0)
    A = np.triu(rng.random((30, 30)) < 0.2, 1)
    return laplacian(sp.csr_array((A + A.T).astype(float)), "normalized"), rng


@pytest.mark.parametrize("phi", [filters.Heat(1.0), filters.RegularizedLaplacian(1.0)], ids=["heat", "reglap"])
@pytest.mark.parametrize("e", [-1060, -1040])
def test_subnormal_signal_is_the_scaled_filter(phi, e):
    L, rng = graph_laplacian()
    x = rng.integers(-1000, 1000, size=(30, 2)).astype(float)
    ref = exact_filter(L, phi, x)
    y = exact_filter(L, phi, np.ldexp(x, e))          # exact: integers below 2^14 times 2^e >= 2^-1074
    # the oracle 2^e ref, rounded onto the same grid: one grid unit apart (subnormal entries) plus rounding
    # of the normal ones
    want = np.ldexp(ref, e)
    assert np.abs(y - want).max() <= TINY + 8 * np.finfo(float).eps * np.abs(want).max()

def test_columns_scaled_separately_and_bank():
    # a normal column next to a subnormal one is unchanged, and a bank scales like one filter
    L, rng = graph_laplacian()
    x = rng.standard_normal(30)
    X = np.column_stack([np.ldexp(np.round(x * 1000), -1060), x])
    bank = [filters.Heat(1.0), filters.Heat(3.0)]
    Y = exact_filter(L, bank, X)
    for k, phi in enumerate(bank):
        np.testing.assert_allclose(Y[k, :, 1], exact_filter(L, phi, x), rtol=0, atol=1e-14)
        assert np.abs(Y[k, :, 0] - np.ldexp(exact_filter(L, phi, np.round(x * 1000)), -1060)).max() <= TINY
