"""graph_penalty's L^p refuses powers whose entries leave float64's range (they came back all NaN, silently)."""

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs import graph_penalty, laplacian


def _path(n):
    e = np.ones(n - 1)
    return sp.csr_array(sp.diags([e, e], [-1, 1]))


def test_huge_power_refused_before_any_product():
    # lambda_max of the path's combinatorial L is > 3 (Rayleigh quotient of e_i - e_j): L^(10**6) has entries
    # >= 3**(10**6) / 50; refused up front (it ran for hours before)
    with pytest.raises(ValueError, match=r"laplacian_power=1000000: the largest entry of L\*\*1000000 would be at "
                                         r"least 2\*\*\d+ .*use a smaller laplacian_power or laplacian='normalized'"):
        graph_penalty(_path(50), "combinatorial", 10**6)


def test_overflow_found_during_the_products():
    # p = 600 passes the up-front bound (3**600 / 50 < 2**1000) but lambda_max ~ 3.996 makes L^k pass 2**1000
    # near k = 503: refused there instead of an all-inf/NaN matrix
    with pytest.raises(ValueError, match=r"laplacian_power=600: an entry of L\*\*5\d\d is 2\*\*100\d"):
        graph_penalty(_path(50), "combinatorial", 600)


@pytest.mark.parametrize("kind", ["normalized", "randomwalk"])
def test_bounded_spectrum_not_refused(kind):
    # eigenvalues <= 2: 2**600 fits, no false refusal, and the result is finite
    M = graph_penalty(_path(50), kind, 600)
    assert np.isfinite(M.data).all()


def test_randomwalk_huge_power_refused():
    with pytest.raises(ValueError, match=r"laplacian_power=3000: .*use a smaller laplacian_power\.$"):
        graph_penalty(_path(50), "randomwalk", 3000)


@pytest.mark.parametrize("kind", ["combinatorial", "normalized"])
def test_small_power_bit_identical(kind):
    W = _path(30)
    L = laplacian(W, kind)
    expected = L
    for _ in range(4):
        expected = expected @ L
    M = graph_penalty(W, kind, 5)
    np.testing.assert_array_equal(M.toarray(), sp.csr_array(expected).toarray())
