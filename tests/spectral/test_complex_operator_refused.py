"""A complex L is refused as 'L must be real' as a LinearOperator too, not filtered on its real part.

A Hermitian magnetic Laplacian of a 6-cycle (spectrum 0.119 .. 3.881) given as a complex matrix was a TypeError
('L must be real') for the filters; as a LinearOperator lmax returned 3.547, below its largest eigenvalue, and
chebyshev_filter / lanczos_filter / exact_filter returned the filter of its real part (numpy's ComplexWarning,
naming nothing, the only sign), where exp(-L) x is complex.  lmax of the complex matrix said 'lmax needs a
symmetric L' (it is Hermitian) and named the random-walk Laplacian.
"""
import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from graphrkhs import chebyshev_filter, exact_filter, filters, lmax
from graphrkhs.spectral import lanczos_filter


def _magnetic_cycle(n=6, theta=0.7):
    A = np.zeros((n, n), complex)
    for i in range(n):
        A[i, (i + 1) % n] = np.exp(1j * theta)
    A = A + A.conj().T
    return 2 * np.eye(n) - A


CALLS = {
    "lmax": lambda L: lmax(L),
    "chebyshev_filter": lambda L: chebyshev_filter(L, filters.Heat(1.0), np.ones(6)),
    "chebyshev_filter(lmax=4)": lambda L: chebyshev_filter(L, filters.Heat(1.0), np.ones(6), lmax=4.0),
    "lanczos_filter": lambda L: lanczos_filter(L, filters.Heat(1.0), np.ones(6)),
    "exact_filter": lambda L: exact_filter(L, filters.Heat(1.0), np.ones(6)),
}


@pytest.mark.parametrize("form", [np.asarray, sp.csr_array, lambda M: spla.aslinearoperator(sp.csr_array(M))],
                         ids=["dense", "sparse", "operator"])
@pytest.mark.parametrize("call", list(CALLS))
def test_complex_L_is_refused_as_not_real(form, call):
    L = form(_magnetic_cycle())
    assert np.linalg.eigvalsh(_magnetic_cycle()).max() > 3.88      # a Hermitian L, not a real one
    with pytest.raises(TypeError, match=r"^L must be real; got .*complex128"):
        CALLS[call](L)


def test_real_operator_still_accepted():
    L = np.real(_magnetic_cycle(theta=0.0))     # the combinatorial Laplacian of the cycle
    lam, U = np.linalg.eigh(L)
    x = np.cos(np.arange(6.0))
    expected = U @ (np.exp(-np.clip(lam, 0, None)) * (U.T @ x))
    op = spla.aslinearoperator(sp.csr_array(L))
    assert lmax(op) >= lam.max()
    np.testing.assert_allclose(chebyshev_filter(op, filters.Heat(1.0), x, tol=1e-12), expected, atol=1e-10)
    np.testing.assert_allclose(lanczos_filter(op, filters.Heat(1.0), x), expected, atol=1e-10)
