"""Chebyshev filters of responses whose values approach the top of float64's range.

The coefficients are a DCT of the samples, which sums the N quadrature samples: for RandomWalk(1e102, 3)
(phi(0) = 1e306, positive on the spectrum, accepted by GraphKernel) the 260 samples of the degree search
overflowed to inf, every coefficient was NaN, the degree search ended at max_order=1000 without a warning (NaN
errors compare False), and chebyshev_filter / GraphKernel returned all NaN where phi(L) x is finite.  Same for
2^1018 exp(-lambda).
"""

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs import GraphKernel, chebyshev_coefficients, chebyshev_filter, chebyshev_order, filters, laplacian


def _graph():
    rng = np.random.default_rng(1)
    n = 12
    A = np.triu((rng.random((n, n)) < 0.4) * rng.uniform(0.5, 2, (n, n)), 1)
    W = A + A.T
    return W, rng.normal(size=n)


def _oracle(L, phi, x):
    lam, U = np.linalg.eigh(L.toarray())
    lam = np.clip(lam, 0.0, None)
    return U @ (phi(lam) * (U.T @ x))


@pytest.mark.parametrize("method", ["chebyshev_filter", "GraphKernel", "columns"])
def test_random_walk_with_a_huge_peak(method):
    W, x = _graph()
    L = laplacian(sp.csr_array(W))
    phi = filters.RandomWalk(1e102, 3)                   # phi(0) = 1e306
    ref = _oracle(L, phi, x)
    assert np.isfinite(ref).all()
    if method == "chebyshev_filter":
        y = chebyshev_filter(L, phi, x)
    elif method == "GraphKernel":
        y = GraphKernel(L, phi) @ x
    else:
        y = GraphKernel(L, phi).columns(np.arange(12)) @ x
    assert np.abs(y - ref).max() <= 1e-7 * np.abs(ref).max()


def test_a_power_of_two_times_the_response_is_that_power_times_the_result():
    W, x = _graph()
    L = laplacian(sp.csr_array(W))
    heat = filters.Filter(lambda lam: np.exp(-lam), name="heat")
    big = filters.Filter(lambda lam: 2.0**1018 * np.exp(-lam), name="big_heat")   # 2.8e306
    np.testing.assert_array_equal(chebyshev_coefficients(big, 80, 10.0),
                                  2.0**1018 * chebyshev_coefficients(heat, 80, 10.0))
    assert chebyshev_order(big, 10.0) == chebyshev_order(heat, 10.0)
    np.testing.assert_array_equal(chebyshev_filter(L, big, x), 2.0**1018 * chebyshev_filter(L, heat, x))


def test_coefficients_that_overflow_are_refused():
    flat = filters.Filter(lambda lam: np.full(lam.shape, 1.7e308), name="flat")
    with pytest.raises(ValueError, match="overflow float64"):
        chebyshev_coefficients(flat, 4, 2.0)
