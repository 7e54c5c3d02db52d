"""chebyshev_filter with lmax=None on a non-symmetric L: the error says L must be symmetric and how to get one.

It was lmax's message, "lmax needs a symmetric L; the random-walk Laplacian I - D^-1 W has the spectrum of the
normalized Laplacian: compute lmax(laplacian(W, 'normalized')) instead" -- about a function the user did not call,
and assuming every non-symmetric L is a random-walk Laplacian.
"""
import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs import chebyshev_filter, filters, laplacian

MESSAGE = (r"^chebyshev_filter needs a symmetric L to bound its spectrum \(lmax=None\); L is not symmetric\.  Pass a "
           r"symmetric Laplacian: the combinatorial one, laplacian\(W\), or the symmetric normalized one, "
           r"laplacian\(W, 'normalized'\); or, for an L with a real spectrum in \[0, lmax\], pass lmax\.$")


def _path(n=8):
    W = np.diag(np.ones(n - 1), 1)
    return W + W.T


@pytest.mark.parametrize("form", [np.asarray, sp.csr_array])
@pytest.mark.parametrize("make", [
    lambda W: laplacian(W, "randomwalk").toarray(),
    lambda W: laplacian(W).toarray() + np.triu(np.full(W.shape, 0.1), 1),     # not a Laplacian of any kind
])
def test_non_symmetric_L_without_lmax_names_the_symmetric_laplacians(form, make):
    L = form(make(_path()))
    with pytest.raises(ValueError, match=MESSAGE) as ei:
        chebyshev_filter(L, filters.Heat(1.0), np.ones(8))
    assert "random-walk" not in str(ei.value)


def test_random_walk_laplacian_with_lmax_is_still_filtered():
    # the documented use: the random-walk Laplacian D^-1 L = D^-1/2 L_sym D^1/2 with lmax of the normalized one
    W = _path()
    d = W.sum(1)
    Ls = laplacian(W, "normalized").toarray()
    lam, U = np.linalg.eigh(Ls)
    x = np.arange(8.0)
    expected = (d ** -0.5)[:, None] * (U @ np.diag(np.exp(-lam)) @ U.T) @ (d ** 0.5 * x)
    y = chebyshev_filter(laplacian(W, "randomwalk"), filters.Heat(1.0), x, lmax=2.0, tol=1e-12)
    np.testing.assert_allclose(y, expected, rtol=0, atol=1e-10)
