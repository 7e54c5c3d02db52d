"""Spectral responses: formulas, positivity, inverse polynomials, PyGSP conventions, bad input."""

import copy
import math
import pickle

import numpy as np
import pygsp
import pytest

from graphrkhs import filters, laplacian, to_pygsp

LAM = np.linspace(0.0, 3.0, 31)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_families_closed_forms_and_dtype(dtype):
    lam = LAM.astype(dtype)
    rtol = 1e-6 if dtype == np.float32 else 1e-14
    cases = [
        (filters.Heat(0.7), lambda x: np.exp(-0.7 * x)),
        (filters.RegularizedLaplacian(2.5), lambda x: 1 / (1 + 2.5 * x)),
        (filters.RandomWalk(4.0, 3), lambda x: (4.0 - x) ** 3),
        (filters.InverseCosine(), lambda x: np.cos(np.pi * x / 4)),
        (filters.Matern(1.5, 0.8), lambda x: (2 * 1.5 / 0.64 + x) ** -1.5),
    ]
    for phi, formula in cases:
        out = phi(lam)
        assert out.dtype == dtype and out.shape == lam.shape
        ref = formula(LAM)
        np.testing.assert_allclose(out, ref, rtol=rtol, atol=rtol * np.abs(ref).max())
        # scalars in, scalars out
        assert np.ndim(phi(1.0)) == 0


def test_regularized_laplacian_inverse_is_linear():
    phi = filters.RegularizedLaplacian(3.0)
    np.testing.assert_allclose(phi(LAM) * (1 + 3.0 * LAM), 1.0, rtol=1e-15)
    np.testing.assert_array_equal(phi.inverse_polynomial(), [1.0, 3.0])


@pytest.mark.parametrize("nu", [1, 2, 3.0, 5])
def test_matern_inverse_polynomial_is_binomial_expansion(nu):
    phi = filters.Matern(nu, 1.3)
    c = phi.inverse_polynomial()
    assert c.shape == (int(nu) + 1,)
    # sum_k c_k lam^k * phi(lam) == 1 on a grid
    np.testing.assert_allclose(np.polynomial.polynomial.polyval(LAM, c) * phi(LAM), 1.0, rtol=1e-12)
    # leading coefficient 1, constant term (2 nu / kappa^2)^nu
    assert c[-1] == 1.0
    np.testing.assert_allclose(c[0], (2 * nu / 1.3**2) ** nu, rtol=1e-14)


def test_matern_out_of_range_is_refused_not_a_zero_kernel():
    # Matern(2000, 40) has phi(0) = 2.5^-2000 = 1e-796: it evaluated to 0 everywhere, is_positive said True, and
    # GraphKernel / chebyshev_filter silently applied the zero matrix
    with pytest.raises(ValueError, match=r"kappa near sqrt\(2 nu\)"):
        filters.Matern(2000, 40.0)
    with pytest.raises(ValueError, match="phi\\(0\\)"):
        filters.Matern(2, 1e100)                        # phi(0) = (4e-200)^-2 overflows
    # in range at 0 but underflowing inside the spectrum: not a positive definite kernel there
    phi = filters.Matern(400, np.sqrt(800.0))            # (1 + lambda)^-400
    assert phi(0.0) == pytest.approx(1.0, rel=1e-12)
    assert phi.is_positive(2.0) is True                  # 3^-400 = 1e-191
    assert phi.is_positive(10.0) is False                # 11^-400 = 1e-417 underflows to 0
    assert (1.0 + 10.0) ** -400.0 == 0.0


def test_matern_inverse_polynomial_overflow_is_none():
    # binom(nu, k) shift^(nu - k) beyond float64: None (no polynomial), not inf coefficients or an OverflowError
    for nu, kappa in [(200, 20.0), (2000, np.sqrt(4000.0))]:
        phi = filters.Matern(nu, kappa)                  # shift 1: phi(0) = 1, binom(nu, nu / 2) is the issue
        c = phi.inverse_polynomial()
        if nu == 200:                                    # binom(200, 100) = 9e58 fits
            assert np.isfinite(c).all()
            lam = np.array([0.0, 0.5, 1.0])
            np.testing.assert_allclose(np.polynomial.polynomial.polyval(lam, c) * phi(lam), 1.0, rtol=1e-10)
        else:                                            # binom(2000, 1000) = 2e600 does not
            assert c is None


def test_non_polynomial_inverses_are_none():
    for phi in [filters.Heat(1.0), filters.RandomWalk(3.0, 2), filters.InverseCosine(),
                filters.Matern(1.5, 1.0), filters.Filter(np.exp)]:
        assert phi.inverse_polynomial() is None
    declared = filters.Filter(lambda x: 1 / (1 + x), inverse_polynomial=[1, 1])
    np.testing.assert_array_equal(declared.inverse_polynomial(), [1.0, 1.0])


@pytest.mark.parametrize(
    "phi,lmax,expected",
    [
        (filters.Heat(5.0), 100.0, True),
        (filters.RegularizedLaplacian(10.0), 50.0, True),
        (filters.Matern(2, 0.5), 1e3, True),
        (filters.RandomWalk(3.0, 2), 2.0, True),
        (filters.RandomWalk(3.0, 2), 3.0, False),     # zero at lambda = a
        (filters.RandomWalk(3.0, 3), 4.0, False),     # negative beyond a
        (filters.InverseCosine(), 1.9, True),
        (filters.InverseCosine(), 2.0, False),        # cos(pi/2) = 0: semi-definite on bipartite graphs
        (filters.Filter(lambda x: 1.0 - x), 0.5, True),
        (filters.Filter(lambda x: 1.0 - x), 2.0, False),
        (filters.Filter(lambda x: np.cos(8 * x)), 1.0, False),   # changes sign inside
        (filters.Filter(lambda x: np.full_like(x, np.nan)), 1.0, False),
    ],
)
def test_is_positive(phi, lmax, expected):
    assert phi.is_positive(lmax) is expected


def test_repr_equality_hash_copy():
    assert repr(filters.Heat(0.5)) == "Heat(t=0.5)"
    assert repr(filters.RegularizedLaplacian(2)) == "RegularizedLaplacian(alpha=2.0)"
    assert repr(filters.RandomWalk(2.5, 3)) == "RandomWalk(a=2.5, p=3)"
    assert repr(filters.InverseCosine()) == "InverseCosine()"
    assert repr(filters.Matern(1.5, 2)) == "Matern(nu=1.5, kappa=2.0)"
    assert repr(filters.Filter(np.exp, name="e")) == "Filter(e)"
    assert filters.Heat(1) == filters.Heat(1.0)
    assert filters.Heat(1) != filters.Heat(2)
    assert filters.Heat(1) != filters.RegularizedLaplacian(1)
    assert len({filters.Heat(1), filters.Heat(1.0), filters.Matern(1, 1)}) == 2
    for phi in [filters.Heat(0.3), filters.Matern(2, 1.0), filters.InverseCosine()]:
        assert pickle.loads(pickle.dumps(phi)) == phi
        assert copy.deepcopy(phi) == phi


def test_a_custom_filter_with_an_inverse_polynomial_differs_from_one_without():
    # the solvers take the sparse path from the inverse polynomial: two filters that differ in it are not
    # interchangeable, so they must not compare (or hash) equal
    def response(lam):
        return 1.0 / (1.0 + 2.0 * lam)

    with_poly = filters.Filter(response, name="r", inverse_polynomial=[1.0, 2.0])
    assert with_poly != filters.Filter(response, name="r")
    assert with_poly != filters.Filter(response, name="r", inverse_polynomial=[1.0, 3.0])
    same = filters.Filter(response, name="r", inverse_polynomial=np.array([1, 2]))
    assert with_poly == same and hash(with_poly) == hash(same)
    assert len({with_poly, same, filters.Filter(response, name="r")}) == 2


def test_pygsp_heat_convention():
    """PyGSP's Heat(G, scale) is exp(-scale lambda / G.lmax): Heat(t = scale / lmax) here."""
    W = np.zeros((8, 8))
    idx = np.arange(8)
    W[idx, (idx + 1) % 8] = W[(idx + 1) % 8, idx] = 1.0
    G = to_pygsp(W)
    G.compute_fourier_basis()
    g = pygsp.filters.Heat(G, scale=3.0)
    ours = filters.Heat(3.0 / G.lmax)
    np.testing.assert_allclose(g.evaluate(G.e)[0], ours(G.e), rtol=1e-14)
    np.testing.assert_allclose(np.sort(G.e), np.linalg.eigvalsh(laplacian(W).toarray()), atol=1e-12)


BAD = [
    (lambda: filters.Heat(-1.0), ValueError, "t must be >= 0"),
    (lambda: filters.Heat("1"), TypeError, "t must be a real number"),
    (lambda: filters.Heat(True), TypeError, "t must be a real number"),
    (lambda: filters.Heat(np.inf), ValueError, "t must be finite"),
    (lambda: filters.RegularizedLaplacian(-0.5), ValueError, "alpha must be >= 0"),
    (lambda: filters.RandomWalk(0.0, 1), ValueError, "a must be > 0"),
    (lambda: filters.RandomWalk(2.0, 0), ValueError, "p must be >= 1"),
    (lambda: filters.RandomWalk(2.0, 1.5), TypeError, "p must be an int"),
    (lambda: filters.Matern(0.0, 1.0), ValueError, "nu must be > 0"),
    (lambda: filters.Matern(1.0, -2.0), ValueError, "kappa must be > 0"),
    (lambda: filters.Filter(3.0), TypeError, "func must be a callable"),
    (lambda: filters.Filter(np.exp, name=3), TypeError, "name must be a string"),
    (lambda: filters.Filter(np.exp, inverse_polynomial=[np.nan]), ValueError, "inverse_polynomial"),
    (lambda: filters.Filter(lambda x: x[:1])(np.arange(3.0)), ValueError, "elementwise"),
    (lambda: filters.Filter(lambda x: x + 1j)(np.arange(3.0)), TypeError, "real numbers"),
    (lambda: filters.Heat(1.0)("abc"), TypeError, "lam must be"),
    (lambda: filters.Heat(1.0)(np.array([1j])), TypeError, "lam must be real"),
    (lambda: filters.Heat(1.0).is_positive(-1.0), ValueError, "lmax must be >= 0"),
    (lambda: filters.InverseCosine().is_positive("2"), TypeError, "lmax must be a real number"),
]


@pytest.mark.parametrize("call,error,match", BAD)
def test_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()


@pytest.mark.parametrize(
    "phi,lmax,float64,float32",
    [
        # exp(-1e4 lambda) is 0 in float64 for lambda > 0.075: is_positive said True (from the formula)
        (filters.Heat(1e4), 2.0, False, False),
        (filters.Heat(300.0), 2.0, True, False),             # exp(-600) = 3e-261: float32 underflows below 1e-45
        (filters.Heat(50.0), 2.0, True, True),               # exp(-100) = 4e-44 (a float32 subnormal)
        (filters.RegularizedLaplacian(1e300), 1e10, False, False),   # 1 / (1 + 1e310) = 1 / inf = 0
        (filters.RegularizedLaplacian(1e30), 1e10, True, False),     # 1e-40: float32 keeps ~1e-45 at most
        (filters.RandomWalk(2.0 + 1e-10, 40), 2.0, False, False),    # (1e-10)^40 underflows
        (filters.RandomWalk(1e10, 40), 2.0, False, False),   # a^p = 1e400 overflows at lambda = 0
        (filters.RandomWalk(3.0, 40), 2.0, True, True),
        (filters.InverseCosine(), 2.0 - 1e-9, True, False),  # 2 - 1e-9 is 2.0 in float32: cos(pi / 2) <= 0
        (filters.Matern(400, np.sqrt(800.0)), 2.0, True, False),     # 3^-400 = 1e-191
        (filters.Filter(lambda x: np.exp(-300.0 * x)), 2.0, True, False),
    ],
)
def test_is_positive_sees_underflow_and_overflow_in_each_dtype(phi, lmax, float64, float32):
    assert phi.is_positive(lmax) is float64
    assert phi.is_positive(lmax, dtype=np.float64) is float64
    assert phi.is_positive(lmax, dtype=np.float32) is float32


def test_is_positive_dtype_is_checked():
    with pytest.raises(TypeError, match="dtype must be numpy.float32 or numpy.float64"):
        filters.Heat(1.0).is_positive(2.0, dtype=np.int64)
    with pytest.raises(TypeError, match="dtype must be numpy.float32 or numpy.float64"):
        filters.Filter(np.exp).is_positive(2.0, dtype="float16")


def test_graph_kernel_refuses_a_heat_response_that_underflows_on_the_spectrum():
    # GraphKernel(L, Heat(1e4)) on a combinatorial Laplacian was accepted as positive definite; phi(L) was the
    # projector on the constants (every other eigenvalue's exp(-1e4 lambda) is 0): a semi-definite kernel
    from graphrkhs import GraphKernel, laplacian
    W = np.diag(np.ones(7), 1)
    W = W + W.T                                           # path on 8 nodes, lmax < 4
    L = laplacian(W)
    with pytest.raises(ValueError, match=r"not strictly positive on \[0, lmax\].*underflows to 0"):
        GraphKernel(L, filters.Heat(1e4))
    # exp(-100 lmax) = 1e-168: positive in float64, 0 in float32
    with pytest.raises(ValueError, match="as evaluated in float32"):
        GraphKernel(L.astype(np.float32), filters.Heat(100.0))
    assert GraphKernel(L, filters.Heat(100.0)).shape == (8, 8)


def test_graph_kernel_accepts_a_filter_subclass_with_the_old_is_positive_signature():
    # a user's Filter subclass overriding is_positive(self, lmax) (no dtype) keeps working with GraphKernel
    from graphrkhs import GraphKernel, laplacian

    class Shifted(filters.Filter):
        def __init__(self):
            super().__init__(lambda lam: 1.0 / (1.0 + lam), name="shifted")

        def is_positive(self, lmax):
            return lmax < 100.0

    W = np.diag(np.ones(7), 1)
    W = W + W.T
    K = GraphKernel(laplacian(W), Shifted(), method="exact")
    L = laplacian(W).toarray()
    lam, U = np.linalg.eigh(L)
    np.testing.assert_allclose(K @ np.eye(8), (U / (1.0 + lam)) @ U.T, atol=1e-12)


@pytest.mark.parametrize("func, original", [
    (lambda lam: math.exp(-lam), TypeError),               # math.* takes one number
    (lambda lam: 1.0 if lam < 1.5 else 0.0, ValueError),   # a Python branch on the array
])
def test_a_scalar_only_response_is_named_with_the_fix(func, original):
    """A response written for one eigenvalue at a time: before, chebyshev_filter raised numpy's own
    "only 0-dimensional arrays can be converted to Python scalars" (or "The truth value of an array ... is
    ambiguous") from inside the coefficient computation, naming neither phi nor the fix."""
    from graphrkhs import chebyshev_filter, exact_filter

    W = np.diag(np.ones(5), 1)
    L = laplacian(W + W.T)
    x = np.arange(6.0)
    assert isinstance(func(0.5), float)                    # a valid response, one number at a time
    for apply in (chebyshev_filter, exact_filter):
        with pytest.raises(TypeError, match=r"Filter\(<lambda>\) must accept a numpy array of eigenvalues"
                                            r".*np\.vectorize") as info:
            apply(L, func, x)
        assert isinstance(info.value.__cause__, original)
    # the advice works, and gives the response's values (oracle: the eigendecomposition of the path)
    lam, U = np.linalg.eigh(L.toarray())
    expected = U @ (np.array([func(v) for v in np.clip(lam, 0, None)]) * (U.T @ x))
    np.testing.assert_allclose(exact_filter(L, np.vectorize(func, otypes=[float]), x), expected, atol=1e-12)


def test_an_error_of_the_response_itself_is_left_as_it_is():
    """A response that fails on one number too is the user's own error: not relabelled as a vectorization
    problem."""
    phi = filters.Filter(lambda lam: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        phi(np.array([0.5, 1.0]))
