"""A LinearOperator L is checked for symmetry as a matrix L is (the dot test x^T L y = y^T L x).

The symmetry of a matrix L was checked by lmax, chebyshev_filter (lmax=None) and lanczos_filter, that of a
LinearOperator never: the random-walk Laplacian of a star (centre last) as an operator got lmax 1.32 for a
spectrum reaching 2 (the dense path of n <= 64 reads the lower triangle only), chebyshev_filter returned
exp(-L) x 2.4e-5 off at tol=1e-8 and lanczos_filter 0.15 off, all without an error or a warning.
"""
import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from graphrkhs import chebyshev_filter, filters, laplacian, lmax
from graphrkhs.spectral import lanczos_filter


def _star(leaves, centre_last=True):
    n = leaves + 1
    c = n - 1 if centre_last else 0
    W = np.zeros((n, n))
    W[c, [i for i in range(n) if i != c]] = 1.0
    return W + W.T


def _random_walk_oracle(W, x):
    # exp(-L_rw) x = D^-1/2 exp(-L_sym) D^1/2 x, from the dense eigendecomposition of the normalized Laplacian
    d = W.sum(axis=1)
    lam, U = np.linalg.eigh(laplacian(W, "normalized").toarray())
    return d ** -0.5 * (U @ (np.exp(-np.clip(lam, 0, None)) * (U.T @ (d ** 0.5 * x))))


@pytest.mark.parametrize("leaves", [10, 100])      # the dense path (n <= 64) and ARPACK's
def test_lmax_refuses_a_non_symmetric_operator(leaves):
    L = spla.aslinearoperator(laplacian(_star(leaves), "randomwalk"))
    with pytest.raises(ValueError, match="lmax needs a symmetric L"):
        lmax(L)


def test_chebyshev_filter_without_lmax_refuses_a_non_symmetric_operator():
    L = spla.aslinearoperator(laplacian(_star(10), "randomwalk"))
    with pytest.raises(ValueError, match=r"^chebyshev_filter needs a symmetric L to bound its spectrum"):
        chebyshev_filter(L, filters.Heat(1.0), np.ones(11))


def test_lanczos_filter_refuses_a_non_symmetric_operator():
    L = spla.aslinearoperator(laplacian(_star(10), "randomwalk"))
    with pytest.raises(ValueError, match="lanczos_filter needs a symmetric L"):
        lanczos_filter(L, filters.Heat(1.0), np.ones(11))


def _matvec_only(L):
    # a LinearOperator given by its matvec alone (matmat column by column)
    return spla.LinearOperator(L.shape, matvec=lambda v: L @ v, dtype=L.dtype)


@pytest.mark.parametrize("kind", ["combinatorial", "normalized"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("wrap", [spla.aslinearoperator, _matvec_only])
def test_symmetric_operators_are_still_accepted(kind, dtype, wrap):
    rng = np.random.default_rng(0)
    W = np.triu(rng.random((70, 70)) < 0.1, 1) * rng.uniform(0.5, 2.0, (70, 70))
    W = W + W.T
    L = laplacian(W, kind, dtype=dtype)
    lam, U = np.linalg.eigh(L.toarray().astype(np.float64))
    op = wrap(L)
    assert lmax(op) >= lam.max() * (1 - 1e-6)
    x = rng.normal(size=70).astype(dtype)
    expected = U @ (np.exp(-np.clip(lam, 0, None)) * (U.T @ x.astype(np.float64)))
    atol = 1e-4 if dtype == np.float32 else 1e-8
    np.testing.assert_allclose(chebyshev_filter(op, filters.Heat(1.0), x), expected, rtol=0, atol=atol)
    np.testing.assert_allclose(lanczos_filter(op, filters.Heat(1.0), x), expected, rtol=0, atol=atol)


def test_random_walk_matrix_with_lmax_is_still_filtered():
    W = _star(10)
    x = np.arange(11.0)
    y = chebyshev_filter(sp.csr_array(laplacian(W, "randomwalk")), filters.Heat(1.0), x, lmax=2.0, tol=1e-12)
    np.testing.assert_allclose(y, _random_walk_oracle(W, x), rtol=0, atol=1e-10)


def _knn_random_walk():
    # seed 1 of 3-NN graphs of 40 points of spread scales: its operator was refused before (below)
    from graphrkhs import knn_graph
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 2)) * np.exp(rng.normal(size=(40, 1)))
    return knn_graph(X, 3, weight="binary").toarray()


@pytest.mark.parametrize("make", [_knn_random_walk, lambda: _star(10), lambda: _star(10, centre_last=False)])
def test_random_walk_operator_with_lmax_is_filtered_as_the_matrix(make):
    # the documented use of a given lmax (symmetry not checked; the random-walk Laplacian with the normalized
    # one's bound).  The matrix was accepted, its LinearOperator refused: the check of the given lmax ran its
    # symmetric Lanczos test on the non-symmetric operator, whose 'Rayleigh quotient' -0.0079 was reported
    # as a negative eigenvalue
    W = make()
    n = W.shape[0]
    x = np.cos(np.arange(n))
    expected = _random_walk_oracle(W, x)
    L = laplacian(W, "randomwalk")
    for form in (L, spla.aslinearoperator(L)):
        y = chebyshev_filter(form, filters.Heat(1.0), x, lmax=2.0, tol=1e-12)
        np.testing.assert_allclose(y, expected, rtol=0, atol=1e-10)


def test_float64_operator_computing_in_float32_is_accepted():
    # an operator declared float64 whose products are float32 (a float32 matrix inside): its dot-test gap is float32
    # rounding of the products, ~4e-9 of the scale, not an asymmetry; float64's 1e-10 refused it
    from graphrkhs import knn_graph
    W = knn_graph(np.random.default_rng(0).normal(size=(100, 3)), 10)
    for kind in ("combinatorial", "normalized"):
        L32 = laplacian(W, kind, dtype=np.float32)
        op = spla.LinearOperator(L32.shape, matvec=lambda v: np.asarray(L32 @ v.astype(np.float32), dtype=np.float64),
                                 dtype=np.float64)
        lam, U = np.linalg.eigh(L32.toarray().astype(np.float64))
        x = np.cos(np.arange(100.0))
        expected = U @ (np.exp(-np.clip(lam, 0, None)) * (U.T @ x))
        assert lmax(op) >= lam.max() * (1 - 1e-6)
        np.testing.assert_allclose(chebyshev_filter(op, filters.Heat(1.0), x), expected, rtol=0, atol=1e-5)
        np.testing.assert_allclose(lanczos_filter(op, filters.Heat(1.0), x), expected, rtol=0, atol=1e-5)


@pytest.mark.parametrize("scale", [1e-170, 1e-160, 1e155, 1e160])
def test_operator_dot_test_at_the_ends_of_the_float_range(scale):
    # the products' norms squared entries below 1e-163 to 0 (a symmetric operator refused, and a given lmax below
    # its spectrum then unchecked) and above 1e154 to inf (a non-symmetric one accepted: lmax 1.32e155 for 2e155)
    W = _star(10)
    symmetric = spla.aslinearoperator(laplacian(W, "combinatorial") * scale)
    true = np.linalg.eigvalsh(laplacian(W, "combinatorial").toarray()).max() * scale
    assert lmax(symmetric) >= true
    with pytest.raises(ValueError, match="below the spectrum"):
        chebyshev_filter(symmetric, filters.Heat(1.0 / scale), np.ones(11), lmax=true / 4)
    skewed = spla.aslinearoperator(laplacian(W, "randomwalk") * scale)
    with pytest.raises(ValueError, match="lmax needs a symmetric L"):
        lmax(skewed)
    with pytest.raises(ValueError, match="lanczos_filter needs a symmetric L"):
        lanczos_filter(skewed, filters.Heat(1.0 / scale), np.ones(11))
