"""Chebyshev, Lanczos and exact filters against dense oracles and closed forms."""

import warnings

import numpy as np
import pygsp
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from numpy.polynomial import chebyshev as npcheb
from scipy.special import ive

import graphrkhs as gr
from graphrkhs import (
    AccuracyWarning,
    ConvergenceWarning,
    chebyshev_coefficients,
    chebyshev_filter,
    chebyshev_order,
    exact_filter,
    filters,
    knn_graph,
    lanczos_filter,
    laplacian,
    lmax,
    to_pygsp,
)


def _path(n):
    W = np.zeros((n, n))
    i = np.arange(n - 1)
    W[i, i + 1] = W[i + 1, i] = 1.0
    return W


def _ring(n):
    W = _path(n)
    W[0, n - 1] = W[n - 1, 0] = 1.0
    return W


def _geometric(n=150, seed=0):
    X = np.random.default_rng(seed).random((n, 2))
    return knn_graph(X, 6).toarray()


def _isolated():
    W = np.zeros((25, 25))
    W[:24, :24] = _path(24)
    W[3, 10] = W[10, 3] = 0.5
    return W  # node 24 is isolated


GRAPHS = {"path": _path(30), "ring": _ring(40), "geometric": _geometric(), "isolated": _isolated()}


def _families(kind):
    bank = [filters.Heat(0.8), filters.RegularizedLaplacian(0.7), filters.InverseCosine(),
            filters.Matern(2, 1.5), filters.Matern(1.5, 1.0)]
    bank.append(filters.RandomWalk(2.5, 3) if kind == "normalized" else filters.RandomWalk(40.0, 2))
    bank.append(filters.Filter(lambda x: 1.0 / (1.0 + x) ** 2 + 0.1 * np.sin(x), name="custom"))
    return bank


def _scale(phi, lmax_):
    return np.abs(phi(np.linspace(0, lmax_, 2001))).max()


def _rel_err(Y, E, X, scale):
    """max |Y - E| per column relative to max|phi| ||x||_2 (the Chebyshev error bound's units)."""
    Y = np.asarray(Y, dtype=np.float64).reshape(len(X), -1)
    E = np.asarray(E, dtype=np.float64).reshape(len(X), -1)
    nx = np.linalg.norm(np.asarray(X, dtype=np.float64).reshape(len(X), -1), axis=0)
    return float((np.abs(Y - E).max(axis=0) / (scale * nx)).max())


# ---------------------------------------------------------------------------
# Coefficients
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("t,lmax_", [(0.5, 4.0), (1.0, 2.0), (0.05, 60.0), (3.0, 12.0)])
def test_heat_coefficients_bessel_closed_form(t, lmax_):
    """c_k = 2 (-1)^k exp(-t lmax / 2) I_k(t lmax / 2), to 1e-12."""
    K = 60
    c = chebyshev_coefficients(filters.Heat(t), K, lmax_)
    k = np.arange(K + 1)
    np.testing.assert_allclose(c, 2 * (-1.0) ** k * ive(k, t * lmax_ / 2), rtol=0, atol=1e-12)


def test_coefficients_match_pygsp_with_its_quadrature():
    G = to_pygsp(_geometric(80))
    G.estimate_lmax(method="bounds")      # deterministic (the Lanczos estimate has a random start)
    g = pygsp.filters.Heat(G, scale=[2.0, 7.0])
    ref = pygsp.filters.approximations.compute_cheby_coeff(g, m=20)
    ours = chebyshev_coefficients(filters.Heat(2.0 / G.lmax), 20, G.lmax, n_points=21)
    np.testing.assert_allclose(ours, ref[0], rtol=0, atol=1e-14)
    bank = chebyshev_coefficients([filters.Heat(2.0 / G.lmax), filters.Heat(7.0 / G.lmax)], 20, G.lmax,
                                  n_points=21)
    assert bank.shape == (2, 21)
    np.testing.assert_allclose(bank[0], ours, rtol=0, atol=1e-15)


def test_coefficients_of_polynomial_response_are_exact():
    # (3 - lambda)^2 on [0, 2]: y = lambda - 1, (2 - y)^2 = 4 - 4y + y^2 = 4.5 T0 - 4 T1 + 0.5 T2
    c = chebyshev_coefficients(filters.RandomWalk(3.0, 2), 6, 2.0)
    np.testing.assert_allclose(c, [9.0, -4.0, 0.5, 0, 0, 0, 0], atol=1e-14)


def test_jackson_damping():
    g = chebyshev_coefficients(filters.Filter(lambda x: np.ones_like(x)), 10, 2.0, damping="jackson")
    assert g[0] == pytest.approx(2.0)            # g_0 = 1 keeps the mean
    assert np.all(np.abs(g[1:]) < 1e-12)          # a constant has no higher terms to damp
    step = filters.Filter(lambda x: (x < 1.0).astype(float), name="step")
    x = np.linspace(-1, 1, 4001)
    plain = chebyshev_coefficients(step, 40, 2.0).copy()
    damped = chebyshev_coefficients(step, 40, 2.0, damping="jackson").copy()
    plain[0] /= 2
    damped[0] /= 2
    overshoot_plain = npcheb.chebval(x, plain).max() - 1
    overshoot_damped = npcheb.chebval(x, damped).max() - 1
    assert overshoot_plain > 0.05                 # Gibbs
    assert overshoot_damped < 1e-3                # Jackson kernel is positive: no overshoot


def test_jackson_auto_order_can_be_zero_and_respects_max_order():
    # the damped degree search started at 1: a constant response got degree 1, and max_order=0 could return 1
    const = filters.Filter(lambda x: np.full_like(x, 3.0), name="three")
    assert chebyshev_order(const, 2.0, damping="jackson") == 0
    assert chebyshev_order(filters.Heat(1e-4), 2.0, tol=1e-2, damping="jackson") == 0   # |e^-2e-4 - 1| < 1e-2 / 2
    for max_order in (0, 1, 2):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", AccuracyWarning)
            for phi in (filters.Heat(1e-4), filters.Heat(1.0), const):
                assert chebyshev_order(phi, 2.0, tol=1e-2, damping="jackson", max_order=max_order) <= max_order
    x = np.random.default_rng(0).normal(size=10)
    y = chebyshev_filter(laplacian(_path(10)), const, x, damping="jackson")
    np.testing.assert_allclose(y, 3.0 * x, rtol=1e-14)


@pytest.mark.parametrize("phi,lmax_,tol", [(filters.Heat(1.0), 10.0, 1e-8), (filters.RegularizedLaplacian(2.0), 5.0, 1e-10),
                                           (filters.Matern(1.5, 1.0), 20.0, 1e-6), (filters.InverseCosine(), 2.0, 1e-12)])
def test_auto_order_is_lowest_reaching_tol(phi, lmax_, tol):
    K = chebyshev_order(phi, lmax_, tol)
    lam = np.linspace(0, lmax_, 20001)
    y = 2 * lam / lmax_ - 1
    scale = np.abs(phi(lam)).max()

    def err(order):
        c = chebyshev_coefficients(phi, order, lmax_).copy()
        c[0] /= 2
        return np.abs(npcheb.chebval(y, c) - phi(lam)).max() / scale

    assert err(K) <= tol
    assert err(K - 1) > 0.25 * tol


def test_auto_order_warns_when_unreachable():
    with pytest.warns(AccuracyWarning, match="maximum order 5"):
        assert chebyshev_order(filters.Heat(2.0), 50.0, 1e-8, max_order=5) == 5
    step = filters.Filter(lambda x: (x < 1.0).astype(float), name="step")
    with pytest.warns(AccuracyWarning):
        chebyshev_order(step, 2.0, 1e-3, max_order=50)


# ---------------------------------------------------------------------------
# Chebyshev filtering against the dense oracle
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("graph", sorted(GRAPHS))
@pytest.mark.parametrize("kind", ["combinatorial", "normalized"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_chebyshev_matches_exact_for_every_family(graph, kind, dtype):
    L = laplacian(GRAPHS[graph].astype(dtype), kind)
    n = L.shape[0]
    X = np.random.default_rng(1).normal(size=(n, 3)).astype(dtype)
    bound = lmax(laplacian(GRAPHS[graph], kind))   # float64: graphrkhs.lmax checks symmetry to 1e-8
    tol = 1e-8 if dtype == np.float64 else 1e-4
    eps = np.finfo(dtype).eps
    # InverseCosine is meant for the normalized Laplacian (spectrum in [0, 2])
    bank = [phi for phi in _families(kind)
            if kind == "normalized" or not isinstance(phi, filters.InverseCosine)]
    exact = exact_filter(laplacian(GRAPHS[graph], kind), bank, X.astype(np.float64))   # one eigh, float64
    for phi, E in zip(bank, exact):
        Y = chebyshev_filter(L, phi, X, tol=tol, lmax=bound)
        assert Y.dtype == dtype and Y.shape == X.shape
        order = chebyshev_order(phi, bound, tol)
        c = chebyshev_coefficients(phi, order, bound)
        scale = _scale(phi, bound)
        rounding = 10 * (order + 1) * eps * np.abs(c).sum() / scale
        assert _rel_err(Y, E, X, scale) <= tol + rounding, (phi, order)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_numba_and_scipy_backends_and_reordering_agree(dtype):
    L = laplacian(_geometric(400, seed=3).astype(dtype))
    X = np.random.default_rng(2).normal(size=(400, 5)).astype(dtype)
    phi = filters.Heat(0.2)
    ref = chebyshev_filter(L, phi, X, order=25, lmax=30.0, backend="scipy", reorder=False)
    rtol = 1e-5 if dtype == np.float32 else 1e-12
    for backend in ["numba", "scipy"]:
        for reorder in [True, False]:
            Y = chebyshev_filter(L, phi, X, order=25, lmax=30.0, backend=backend, reorder=reorder)
            np.testing.assert_allclose(Y, ref, rtol=0, atol=rtol * np.abs(ref).max())
    # single column through the kernel's scalar path; 1-D in, 1-D out
    y = chebyshev_filter(L, phi, X[:, 0], order=25, lmax=30.0, backend="numba", reorder=True)
    assert y.shape == (400,)
    np.testing.assert_allclose(y, ref[:, 0], rtol=0, atol=rtol * np.abs(ref).max())


@pytest.mark.parametrize("backend", ["numba", "scipy"])
def test_filter_bank_equals_separate_filters(backend):
    L = laplacian(_geometric(200, seed=4), "normalized")
    X = np.random.default_rng(0).normal(size=(200, 4))
    bank = [filters.Heat(0.5), filters.Heat(3.0), filters.InverseCosine()]
    B = chebyshev_filter(L, bank, X, order=30, lmax=2.0, backend=backend)
    assert B.shape == (3, 200, 4)
    for f, phi in enumerate(bank):
        np.testing.assert_allclose(B[f], chebyshev_filter(L, phi, X, order=30, lmax=2.0, backend=backend),
                                   rtol=0, atol=1e-12)
    B1 = chebyshev_filter(L, bank, X[:, 1], order=30, lmax=2.0, backend=backend)
    assert B1.shape == (3, 200)
    np.testing.assert_allclose(B1, B[:, :, 1], atol=1e-13)


def test_low_orders_and_polynomial_exactness():
    L = laplacian(_ring(12))
    x = np.random.default_rng(5).normal(size=12)
    c = 0.37
    y0 = chebyshev_filter(L, filters.Filter(lambda lam: np.full_like(lam, c)), x, order=0, lmax=4.0)
    np.testing.assert_allclose(y0, c * x, atol=1e-15)
    # (5 - L)^p is a polynomial of degree p: Chebyshev of order p is exact
    for p in (1, 2, 3):
        phi = filters.RandomWalk(5.0, p)
        ref = np.linalg.matrix_power(5 * np.eye(12) - L.toarray(), p) @ x
        np.testing.assert_allclose(chebyshev_filter(L, phi, x, order=p, lmax=4.0), ref, rtol=1e-12,
                                   atol=1e-12 * np.abs(ref).max())
        assert chebyshev_order(phi, 4.0) == p


def test_random_walk_laplacian_by_similarity():
    """L_rw = D^-1/2 L_sym D^1/2: phi(L_rw) x = D^-1/2 phi(L_sym) D^1/2 x (Chebyshev needs no symmetry)."""
    W = _geometric(120, seed=6)
    d = W.sum(axis=1)
    Lrw = laplacian(W, "randomwalk")
    Lsym = laplacian(W, "normalized")
    x = np.random.default_rng(0).normal(size=120)
    phi = filters.Heat(1.5)
    ref = exact_filter(Lsym, phi, np.sqrt(d) * x) / np.sqrt(d)
    np.testing.assert_allclose(chebyshev_filter(Lrw, phi, x, lmax=2.0), ref, atol=1e-8 * np.abs(ref).max() * 10)


def test_random_walk_laplacian_takes_the_normalized_laplacians_bound():
    # the documented call: lmax of the normalized Laplacian (same spectrum) for the random-walk one; a
    # symmetric Lanczos check on the non-symmetric matrix must not refuse it
    W = _geometric(120, seed=6)
    d = W.sum(axis=1)
    bound = gr.lmax(laplacian(W, "normalized"))
    assert bound < 2.0
    x = np.random.default_rng(1).normal(size=120)
    phi = filters.Heat(1.0)
    ref = exact_filter(laplacian(W, "normalized"), phi, np.sqrt(d) * x) / np.sqrt(d)
    y = chebyshev_filter(laplacian(W, "randomwalk"), phi, x, lmax=bound)
    np.testing.assert_allclose(y, ref, atol=1e-7 * np.abs(ref).max())


@pytest.mark.parametrize("shift", ["negated", "minus 2I"])
@pytest.mark.parametrize("given_lmax", [False, True])
def test_matrix_with_negative_eigenvalues_is_refused(shift, given_lmax):
    # the filters approximate phi on [0, lmax]: on -L (negative semidefinite) the old code returned phi(0) x,
    # on L - 2I an error 1e5 times the tolerance, both silently
    L = laplacian(_geometric(100, seed=3))
    M = sp.csr_array(-L) if shift == "negated" else sp.csr_array(L - 2.0 * sp.eye_array(100))
    x = np.random.default_rng(0).normal(size=100)
    with pytest.raises(ValueError, match="negative eigenvalue"):
        chebyshev_filter(M, filters.Heat(0.5), x, lmax=gr.lmax(L) if given_lmax else None)


@pytest.mark.parametrize("shift", ["negated", "minus 2I"])
@pytest.mark.parametrize("kind", ["combinatorial", "normalized"])
def test_lanczos_and_exact_filters_refuse_negative_eigenvalues_as_chebyshev_does(shift, kind):
    # lanczos_filter(-L, Heat(1), x) and exact_filter(-L, ...) returned exp(L) x silently, while
    # chebyshev_filter refused the same matrix; a Laplacian's spectrum is [0, lmax]
    L = laplacian(_geometric(100, seed=3), kind)
    M = sp.csr_array(-L) if shift == "negated" else sp.csr_array(L - 2.0 * sp.eye_array(100))
    x = np.random.default_rng(0).normal(size=100)
    for f in (lanczos_filter, exact_filter):
        with pytest.raises(ValueError, match="negative eigenvalue"):
            f(M, filters.Heat(0.5), x)
    # the Laplacian itself, and in float32, still filters
    np.testing.assert_allclose(lanczos_filter(L, filters.Heat(0.5), x, tol=1e-10),
                               exact_filter(L, filters.Heat(0.5), x), atol=1e-8)
    exact_filter(sp.csr_array(L, dtype=np.float32), filters.Heat(0.5), x.astype(np.float32))
    lanczos_filter(sp.csr_array(L, dtype=np.float32), filters.Heat(0.5), x.astype(np.float32))


@pytest.mark.parametrize("given_lmax", [False, True])
def test_float32_rounding_of_the_spectrum_is_not_a_wrong_spectrum(given_lmax):
    # a float32 normalized Laplacian is exact to float32 rounding only: the complete graph's eigenvalue 0 becomes
    # -3e-8 and a bipartite graph's 2 becomes 2 + 2e-7; both were refused ("negative eigenvalue", "lmax=2 is below
    # the spectrum ... a Rayleigh quotient of L is 2"), though phi(L) x is right to float32 accuracy
    W_complete = np.ones((12, 12)) - np.eye(12)
    paths = []
    for seed in (0, 2):   # weighted paths on 8 nodes, bipartite: eigenvalue 2 of the normalized L
        w = np.random.default_rng(seed).uniform(0.1, 3.0, 7)
        paths.append(np.diag(w, 1) + np.diag(w, -1))
    for W in (W_complete, *paths):
        L32 = laplacian(W.astype(np.float32), "normalized")
        assert L32.dtype == np.float32
        x = np.random.default_rng(0).normal(size=W.shape[0]).astype(np.float32)
        phi = filters.Heat(1.0)
        y = chebyshev_filter(L32, phi, x, lmax=2.0 if given_lmax else None)
        lam, U = np.linalg.eigh(laplacian(W, "normalized").toarray())   # float64 oracle
        ref = U @ (phi(lam) * (U.T @ x.astype(np.float64)))
        np.testing.assert_allclose(y, ref, rtol=0, atol=1e-5 * np.abs(ref).max())
        # a matrix that really has a negative eigenvalue is still refused in float32
        M = sp.csr_array(L32 - np.float32(1e-3) * sp.eye_array(W.shape[0], dtype=np.float32))
        with pytest.raises(ValueError, match="negative eigenvalue"):
            chebyshev_filter(M, phi, x, lmax=2.0 if given_lmax else None)


def _path_closed_form(n):
    # combinatorial Laplacian of the path: eigenvalues 2 - 2 cos(pi k / n), eigenvectors cos(pi k (j + 1/2) / n)
    k = np.arange(n)
    lam = 2.0 - 2.0 * np.cos(np.pi * k / n)
    U = np.cos(np.pi * np.outer(np.arange(n) + 0.5, k) / n)
    return lam, U / np.linalg.norm(U, axis=0)


@pytest.mark.parametrize("n", [10, 30])
def test_response_defined_on_zero_to_lmax_is_not_evaluated_below_zero(n):
    # sqrt(lambda) + 1 is finite on [0, lmax]; exact_filter and lanczos_filter evaluated it at the rounding-negative
    # zero eigenvalue (-5e-16) and returned all-NaN results (n=10: exact, n=30: Lanczos), while chebyshev_filter was right
    phi = filters.Filter(lambda lam: np.sqrt(lam) + 1.0, name="sqrt_plus_one")
    lam, U = _path_closed_form(n)
    x = np.random.default_rng(0).normal(size=n)
    ref = U @ ((np.sqrt(lam) + 1.0) * (U.T @ x))
    L = laplacian(_path(n))
    # sqrt of a rounding-level eigenvalue (1e-16) is 1e-8: the accuracy a kink at 0 allows
    np.testing.assert_allclose(exact_filter(L, phi, x), ref, rtol=0, atol=1e-7 * np.abs(ref).max())
    np.testing.assert_allclose(lanczos_filter(L, phi, x, tol=1e-12), ref, rtol=0, atol=1e-6 * np.abs(ref).max())


def test_response_not_finite_on_the_spectrum_is_refused_by_every_method():
    # sqrt(lambda - 1) is NaN on [0, 1): exact and Lanczos returned NaN everywhere; Chebyshev refused it
    phi = filters.Filter(lambda lam: np.sqrt(lam - 1.0), name="nan_below_one")
    L = laplacian(_path(10))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for apply in (chebyshev_filter, lanczos_filter, exact_filter):
            with pytest.raises(ValueError, match="not finite"):
                apply(L, phi, np.ones(10))


def test_response_infinite_at_zero_is_refused_by_exact_filter_whatever_the_rounding_of_the_zero_eigenvalue():
    # phi = 1/lambda on a connected graph's Laplacian: chebyshev_filter refuses it (phi(0) = inf on [0, lmax]);
    # exact_filter refused it only when eigh returned the zero eigenvalue as -1e-16 (clipped to 0), and as +1e-16
    # returned phi(L) x with entries near 1e12 (the kNN graphs); lanczos_filter likewise from a Ritz value at
    # +-1e-16 on the paths of 9, 11-14 nodes (entries up to 8e15) -- a rounding-level eigenvalue taken for the
    # spectrum
    from graphrkhs import knn_graph

    phi = filters.Filter(lambda lam: 1.0 / lam, name="inverse")
    graphs = [_path(n) for n in range(8, 16)]
    graphs += [knn_graph(np.random.default_rng(seed).normal(size=(40, 2)), 5) for seed in range(4)]
    signs = set()
    for W in graphs:
        L = laplacian(W)
        signs.add(np.sign(np.linalg.eigvalsh(L.toarray()).min()))
        x = np.random.default_rng(1).normal(size=L.shape[0])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            for apply in (chebyshev_filter, lanczos_filter, exact_filter):
                with pytest.raises(ValueError, match="not finite"):
                    apply(L, phi, x)
    assert 1.0 in signs         # the case that slipped through is among them
    # a response finite at 0 is unchanged: Heat on the path against the closed form
    lam, U = _path_closed_form(10)
    x = np.random.default_rng(0).normal(size=10)
    np.testing.assert_allclose(exact_filter(laplacian(_path(10)), filters.Heat(0.7), x),
                               U @ (np.exp(-0.7 * lam) * (U.T @ x)), rtol=0, atol=1e-13)


def test_lanczos_does_not_stop_before_reaching_the_low_end_of_the_spectrum():
    # weights spanning 1e-8..1e8: Heat(200) is 0 on every Ritz value of the first steps (all >= 1e4), so two
    # estimates 5 steps apart were both 0 and the column was "converged" -- a zero result with relative error 1
    # (the true one is the projection on the eigenvalues near 0); the Gauss-Radau check with a node at 0 sees it
    rng = np.random.default_rng(0)
    n = 50
    W = (rng.random((n, n)) < 0.2) * 10 ** rng.uniform(-8, 8, (n, n))
    W = np.triu(W, 1)
    W = W + W.T
    L = laplacian(W)
    lam, U = np.linalg.eigh(L.toarray())
    x = np.random.default_rng(1).normal(size=n)
    for phi in (filters.Heat(200.0), filters.Filter(lambda v: (v < 0.3) + 0.01, name="step")):
        ref = U @ (phi(np.clip(lam, 0, None)) * (U.T @ x))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", ConvergenceWarning)
            y, info = lanczos_filter(L, phi, x, tol=1e-8, return_info=True)
        if info["converged"].all():
            assert not caught
            assert np.linalg.norm(y - ref) <= 1e-6 * np.linalg.norm(x)
        else:                                             # an honest warning is the other acceptable outcome
            assert any(issubclass(w.category, ConvergenceWarning) for w in caught)


def test_isolated_node_gets_phi_of_zero():
    L = laplacian(_isolated())
    x = np.random.default_rng(0).normal(size=25)
    phi = filters.Matern(2, 1.0)
    y = chebyshev_filter(L, phi, x)
    assert y[24] == pytest.approx(phi(0.0) * x[24], rel=1e-8)


def test_agrees_with_pygsp_chebyshev_heat():
    W = _geometric(150, seed=8)
    G = to_pygsp(W)
    # PyGSP's default estimate (Lanczos, tol 5e-3, random start, times 1.01) can land below the spectrum
    # (7.576 against a Rayleigh quotient of 7.616 in one CI run), which our lmax check rightly refuses:
    # its deterministic upper bound gives both implementations the same valid interval
    G.estimate_lmax(method="bounds")
    s = np.random.default_rng(0).normal(size=(150, 2))
    for tau in (1.0, 10.0):
        ref = pygsp.filters.Heat(G, scale=tau).filter(s, method="chebyshev", order=30)
        ours = chebyshev_filter(laplacian(W), filters.Heat(tau / G.lmax), s, order=30, lmax=G.lmax)
        np.testing.assert_allclose(ours, ref, rtol=0, atol=1e-12)


def test_accepts_linear_operator_and_does_not_mutate():
    L = laplacian(_geometric(100, seed=9))
    X = np.random.default_rng(0).normal(size=(100, 2))
    X_copy = X.copy()
    data_copy = L.data.copy()
    op = spla.aslinearoperator(L)
    Y = chebyshev_filter(op, filters.Heat(0.3), X, lmax=lmax(L))
    np.testing.assert_allclose(Y, chebyshev_filter(L, filters.Heat(0.3), X), atol=1e-13)
    np.testing.assert_array_equal(X, X_copy)
    np.testing.assert_array_equal(L.data, data_copy)


# ---------------------------------------------------------------------------
# Lanczos
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_lanczos_matches_exact_on_hard_response(dtype):
    L = laplacian(_geometric(300, seed=10).astype(dtype))
    X = np.random.default_rng(0).normal(size=(300, 3)).astype(dtype)
    phi = filters.RegularizedLaplacian(50.0)     # pole close to the interval: slow for polynomials
    tol = 1e-9 if dtype == np.float64 else 1e-5
    Y, info = lanczos_filter(L, phi, X, tol=tol, return_info=True)
    assert Y.dtype == dtype and info["converged"].all()
    E = exact_filter(L.astype(np.float64), phi, X.astype(np.float64))
    assert _rel_err(Y, E, X, 1.0) <= 10 * tol
    # a Chebyshev degree fit for the same accuracy would be far larger than the Krylov dimension
    assert info["n_iter"].max() < chebyshev_order(phi, lmax(L), tol)


def test_lanczos_bank_zero_column_and_polynomial():
    L = laplacian(_geometric(100, seed=11), "normalized")
    X = np.random.default_rng(0).normal(size=(100, 3))
    X[:, 1] = 0
    bank = [filters.Heat(2.0), filters.RandomWalk(3.0, 2)]
    Y, info = lanczos_filter(L, bank, X, return_info=True)
    assert Y.shape == (2, 100, 3)
    np.testing.assert_array_equal(Y[:, :, 1], 0)
    E = exact_filter(L, bank, X)
    np.testing.assert_allclose(Y, E, atol=1e-8 * np.abs(E).max())
    # small graph: the Krylov space is exhausted (breakdown) and the result exact
    Ls = laplacian(_path(6))
    x = np.arange(6.0)
    np.testing.assert_allclose(lanczos_filter(Ls, filters.Heat(1.0), x),
                               exact_filter(Ls, filters.Heat(1.0), x), atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_lanczos_is_linear_in_signals_at_the_ends_of_the_float_range(dtype):
    # phi(L) (c x) = c phi(L) x: the column norm sqrt(sum x_i^2) underflowed to 0 for c = 1e-300 (float32:
    # 1e-30), and the column was taken for zero (result 0), and overflowed to inf for c = 1e300 (all NaN;
    # at 1e308 the norm itself overflows though phi(L) x is finite)
    L = laplacian(_geometric(60, seed=4).astype(dtype), "normalized")
    X = np.random.default_rng(1).uniform(-1, 1, size=(60, 2)).astype(dtype)
    phi = filters.Heat(3.0)
    ref = exact_filter(L.astype(np.float64), phi, X.astype(np.float64))
    tol = 1e-8 if dtype == np.float64 else 1e-4
    for c in ((1e-300, 1e300, 1e308) if dtype == np.float64 else (1e-30, 1e30, 3e38)):
        Y = lanczos_filter(L, phi, X * dtype(c), tol=tol)
        assert Y.dtype == dtype and np.isfinite(Y).all()
        np.testing.assert_allclose(Y.astype(np.float64) / c, ref, atol=10 * tol * np.abs(ref).max())
        K = gr.GraphKernel(L, phi, method="lanczos", tol=tol)
        np.testing.assert_allclose((K @ (X * dtype(c))).astype(np.float64) / c, ref, atol=10 * tol * np.abs(ref).max())


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_chebyshev_is_linear_in_signals_near_the_largest_float(dtype):
    # Clenshaw's b_k exceed max|x| (by sum |c_k| and more): a signal near the largest float overflowed to
    # inf inside the recurrence (float32, 3e38) though phi(L) x is finite
    L = laplacian(_geometric(60, seed=4).astype(dtype), "normalized")
    X = np.random.default_rng(1).uniform(-1, 1, size=(60, 2)).astype(dtype)
    ref = exact_filter(L.astype(np.float64), filters.Heat(3.0), X.astype(np.float64))
    c = float(np.finfo(dtype).max) / 1.5
    tol = 1e-8 if dtype == np.float64 else 1e-5
    for phi in (filters.Heat(3.0), [filters.Heat(3.0), filters.Heat(1.0)]):
        Y = chebyshev_filter(L, phi, X * dtype(c), tol=tol)
        Y = Y if not isinstance(phi, list) else Y[0]
        assert Y.dtype == dtype and np.isfinite(Y).all()
        np.testing.assert_allclose(Y.astype(np.float64) / c, ref, atol=10 * tol * np.abs(ref).max())
        K = gr.GraphKernel(L, filters.Heat(3.0), tol=tol)
        np.testing.assert_allclose((K @ (X * dtype(c))).astype(np.float64) / c, ref, atol=10 * tol * np.abs(ref).max())


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_lanczos_is_invariant_to_the_scale_of_the_weights(dtype):
    # phi(t L) with L = laplacian(c W), t = 1/c is phi applied to laplacian(W): ||L v - a v|| as a plain sum
    # of squares overflowed (c = 1e300: inf, taken for a breakdown) or underflowed (c = 1e-300: 0) at the
    # first step, and the one-step estimate came back (error 0.24 on the kernel's columns)
    W = _geometric(40, seed=6).astype(dtype)
    X = np.eye(40, 3, dtype=dtype)
    tol = 1e-8 if dtype == np.float64 else 1e-4
    ref = exact_filter(laplacian(W.astype(np.float64)), filters.Heat(1.0), X.astype(np.float64))
    for c in ((1e300, 1e-300) if dtype == np.float64 else (1e30, 1e-30)):
        L = laplacian(W * dtype(c))
        Y = lanczos_filter(L, filters.Heat(1.0 / c), X, tol=tol)
        np.testing.assert_allclose(Y, ref, atol=10 * tol)


def test_lanczos_warns_when_not_converged():
    L = laplacian(_geometric(200, seed=12))
    x = np.random.default_rng(0).normal(size=200)
    with pytest.warns(ConvergenceWarning, match="lanczos_filter did not reach"):
        _, info = lanczos_filter(L, filters.RegularizedLaplacian(100.0), x, max_iter=4, return_info=True)
    assert not info["converged"].any()


# ---------------------------------------------------------------------------
# Exact filter: closed forms
# ---------------------------------------------------------------------------

def test_exact_filter_ring_closed_form():
    """Ring of n nodes: phi(L) e_0 = (1/n) sum_k phi(2 - 2 cos(2 pi k / n)) cos(2 pi k j / n)."""
    n = 16
    phi = filters.Heat(0.6)
    k = np.arange(n)
    lam = 2 - 2 * np.cos(2 * np.pi * k / n)
    ref = (phi(lam)[None, :] * np.cos(2 * np.pi * np.outer(k, k) / n)).sum(axis=1) / n
    e0 = np.zeros(n)
    e0[0] = 1
    np.testing.assert_allclose(exact_filter(laplacian(_ring(n)), phi, e0), ref, atol=1e-14)


def test_exact_filter_complete_graph_closed_form():
    n = 7
    L = laplacian(np.ones((n, n)) - np.eye(n))     # n I - J: eigenvalues 0 (constants) and n
    phi = filters.RegularizedLaplacian(0.3)
    J = np.ones((n, n)) / n
    ref = phi(0.0) * J + phi(float(n)) * (np.eye(n) - J)
    np.testing.assert_allclose(exact_filter(L, phi, np.eye(n)), ref, atol=1e-14)


# ---------------------------------------------------------------------------
# Bad input (raised before any product: the operator below fails if applied)
# ---------------------------------------------------------------------------

def _trap(n=10):
    def fail(x):
        raise AssertionError("L was applied before the input was validated")
    return spla.LinearOperator((n, n), matvec=fail, matmat=fail, dtype=np.float64)


X10 = np.ones(10)
HEAT = filters.Heat(1.0)
BAD = [
    (lambda: chebyshev_filter(_trap(), HEAT, X10, order=-1, lmax=2.0), ValueError, "order must be >= 0"),
    (lambda: chebyshev_filter(_trap(), HEAT, X10, order=2.5, lmax=2.0), TypeError, "order must be an int"),
    (lambda: chebyshev_filter(_trap(), HEAT, X10, tol=0.0, lmax=2.0), ValueError, "tol must be > 0"),
    (lambda: chebyshev_filter(_trap(), HEAT, np.ones(9), lmax=2.0), ValueError, "expected 10 rows"),
    (lambda: chebyshev_filter(_trap(), HEAT, np.ones((10, 2, 2)), lmax=2.0), ValueError, "shape"),
    (lambda: chebyshev_filter(_trap(), HEAT, np.full(10, np.nan), lmax=2.0), ValueError, "NaN"),
    (lambda: chebyshev_filter(_trap(), HEAT, np.array(["a"] * 10), lmax=2.0), TypeError, "numeric"),
    (lambda: chebyshev_filter(_trap(), HEAT, X10 + 1j, lmax=2.0), TypeError, "X must be real"),
    (lambda: chebyshev_filter(_trap(), HEAT, X10, lmax=-1.0), ValueError, "lmax must be > 0"),
    (lambda: chebyshev_filter(_trap(), HEAT, X10, lmax=2.0, damping="fejer"), ValueError, "damping"),
    (lambda: chebyshev_filter(_trap(), HEAT, X10, lmax=2.0, reorder="yes"), ValueError, "reorder"),
    (lambda: chebyshev_filter(_trap(), HEAT, X10, lmax=2.0, backend="gpu"), ValueError, "backend"),
    (lambda: chebyshev_filter(_trap(), HEAT, X10, lmax=2.0, max_order=-2), ValueError, "max_order"),
    (lambda: chebyshev_filter(_trap(), 3.0, X10, lmax=2.0), TypeError, "phi must be"),
    (lambda: chebyshev_filter(_trap(), [], X10, lmax=2.0), ValueError, "empty filter bank"),
    (lambda: chebyshev_filter(_trap(), filters.Filter(lambda x: 1 / x), X10, lmax=2.0), ValueError,
     "not finite"),
    (lambda: chebyshev_filter(np.ones((3, 4)), HEAT, np.ones(3)), ValueError, "square"),
    (lambda: chebyshev_filter(sp.csr_array(np.full((2, 2), np.inf)), HEAT, np.ones(2)), ValueError, "NaN"),
    (lambda: chebyshev_coefficients(HEAT, -1, 2.0), ValueError, "order must be >= 0"),
    (lambda: chebyshev_coefficients(HEAT, 5, 0.0), ValueError, "lmax must be > 0"),
    (lambda: chebyshev_coefficients(HEAT, 5, 2.0, n_points=3), ValueError, "n_points must be >= 6"),
    (lambda: chebyshev_order(HEAT, 2.0, tol=-1), ValueError, "tol must be > 0"),
    (lambda: lanczos_filter(_trap(), HEAT, np.ones(9)), ValueError, "expected 10 rows"),
    (lambda: lanczos_filter(_trap(), HEAT, X10, max_iter=0), ValueError, "max_iter must be >= 1"),
    (lambda: lanczos_filter(_trap(), HEAT, X10, tol=0), ValueError, "tol must be > 0"),
    (lambda: lanczos_filter(laplacian(_path(5), "randomwalk"), HEAT, np.ones(5)), ValueError, "symmetric"),
    (lambda: exact_filter(laplacian(_path(30)), HEAT, np.ones(30), max_nodes=20), ValueError, "max_nodes=20"),
    (lambda: exact_filter(laplacian(_path(5), "randomwalk"), HEAT, np.ones(5)), ValueError, "symmetric"),
    (lambda: exact_filter(laplacian(_path(5)), HEAT, np.ones(4)), ValueError, "expected 5 rows"),
]


@pytest.mark.parametrize("call,error,match", BAD)
def test_bad_input(call, error, match):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(error, match=match):
            call()


def test_row_chunks_shared_between_threads(monkeypatch):
    """Many small row chunks claimed by the caller and a helper thread give the same result."""
    from graphrkhs._core import spmm as _spmm

    monkeypatch.setattr(_spmm, "_CHUNK_ENTRIES", 50)
    L = laplacian(_geometric(300, seed=13))
    X = np.random.default_rng(0).normal(size=(300, 4))
    assert _spmm._chunks(L, 4).size > 10
    ref = chebyshev_filter(L, filters.Heat(0.3), X, order=20, lmax=lmax(L), backend="scipy")
    for _ in range(3):
        Y = chebyshev_filter(L, filters.Heat(0.3), X, order=20, lmax=lmax(L), backend="numba")
        np.testing.assert_allclose(Y, ref, atol=1e-12)
        y = chebyshev_filter(L, filters.Heat(0.3), X[:, 0], order=20, lmax=lmax(L), backend="numba")
        np.testing.assert_allclose(y, ref[:, 0], atol=1e-12)

    def boom(start, stop):
        raise FloatingPointError("from a chunk")

    with pytest.raises(FloatingPointError, match="from a chunk"):
        _spmm._RowPool(1).run(boom, (), np.array([0, 1, 2, 3]))


def test_locality_measure_and_rcm_permutation():
    from graphrkhs._core.reorder import mean_index_distance, permute_symmetric

    A = sp.random(400, 400, density=0.02, format="csr", random_state=0)
    A = sp.csr_array(A + A.T)
    rows = np.repeat(np.arange(400), np.diff(A.indptr))
    assert mean_index_distance(A) == pytest.approx(np.abs(rows - A.indices).mean(), rel=1e-12)
    perm = np.random.default_rng(0).permutation(400)
    P, iperm = permute_symmetric(A, perm)
    np.testing.assert_array_equal(P.toarray(), A.toarray()[np.ix_(perm, perm)])
    np.testing.assert_array_equal(iperm[perm], np.arange(400))
    assert all(np.all(np.diff(P.indices[P.indptr[i]:P.indptr[i + 1]]) > 0) for i in range(0, 400, 37))


@pytest.mark.parametrize("backend", ["numba", "scipy"])
@pytest.mark.parametrize("order", [0, 1, 2, 3, 4, 7])
def test_low_orders_equal_the_truncated_chebyshev_series(order, backend):
    """Clenshaw with the leading b_k kept implicit (multiples of X): every short order against the
    series sum'_k c_k T_k(L~) X evaluated on the dense eigendecomposition."""
    from graphrkhs.spectral import chebyshev_coefficients

    X = np.random.default_rng(11).random((60, 2))
    L = laplacian(knn_graph(X, 5))
    S = np.random.default_rng(12).standard_normal((60, 3))
    phi, top = filters.Heat(0.7), 9.0
    c = chebyshev_coefficients(phi, order, top)
    lam, U = np.linalg.eigh(L.toarray())
    x = 2 * lam / top - 1
    series = c[0] / 2 + sum((c[k] * np.cos(k * np.arccos(np.clip(x, -1, 1))) for k in range(1, order + 1)),
                            np.zeros_like(x))
    expected = U @ (series[:, None] * (U.T @ S))
    Y = chebyshev_filter(L, phi, S, order=order, lmax=top, backend=backend)
    np.testing.assert_allclose(Y, expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("src_dtype,out_dtype", [(np.float64, np.float64), (np.float64, np.float32),
                                                 (np.float32, np.float32)])
def test_parallel_row_gather_equals_fancy_indexing(src_dtype, out_dtype):
    from graphrkhs._core.spmm import gather_rows

    rng = np.random.default_rng(13)
    src = rng.standard_normal((120_000, 16)).astype(src_dtype)
    rows = rng.permutation(120_000)
    out = gather_rows(src, rows, dtype=out_dtype)        # 1.9 M entries: several row chunks
    assert out.dtype == out_dtype and out.flags.c_contiguous
    np.testing.assert_array_equal(out, src[rows].astype(out_dtype))
    strided = src[:, ::3]                                 # any source layout
    np.testing.assert_array_equal(gather_rows(strided, rows), strided[rows])
    ints = np.arange(12).reshape(6, 2)                    # non-float sources take NumPy's path
    np.testing.assert_array_equal(gather_rows(ints, np.array([5, 0, 3])), ints[[5, 0, 3]])


@pytest.mark.parametrize("form", ["networkx", "pygsp"])
@pytest.mark.parametrize("fn", ["chebyshev_filter", "lanczos_filter", "exact_filter", "lmax"])
def test_graph_objects_are_refused_with_the_fix(form, fn):
    """The filters take a Laplacian, whose kind is the caller's: a graph object gets a TypeError naming laplacian(G)."""
    import networkx as nx

    from graphrkhs import to_pygsp

    W = np.diag(np.ones(9), 1)
    W = W + W.T
    G = nx.from_numpy_array(W) if form == "networkx" else to_pygsp(W)
    call = {
        "chebyshev_filter": lambda: gr.chebyshev_filter(G, filters.Heat(1.0), np.ones(10)),
        "lanczos_filter": lambda: gr.lanczos_filter(G, filters.Heat(1.0), np.ones(10)),
        "exact_filter": lambda: gr.exact_filter(G, filters.Heat(1.0), np.ones(10)),
        "lmax": lambda: gr.lmax(G),
    }[fn]
    with pytest.raises(TypeError, match=r"laplacian\(G"):
        call()


def test_filter_plan_building_blocks_match_chebyshev_filter():
    """The public plan pieces (GraphKernel's machinery) reproduce chebyshev_filter and the exact oracle."""
    from graphrkhs._core.reorder import PreparedOperator
    from graphrkhs.spectral import (
        chebyshev_apply, chebyshev_plan, check_filter_options, exact_eigh, is_symmetric, lanczos_apply,
        resolve_lmax,
    )

    W = np.diag(np.ones(29), 1)
    W = W + W.T
    L = gr.laplacian(W)
    phi = filters.Heat(0.8)
    X = np.random.default_rng(0).normal(size=(30, 2))
    order, tol, max_order = check_filter_options(None, 1e-10)
    assert is_symmetric(L)
    lmax = resolve_lmax(L)
    coefs, order = chebyshev_plan(phi, lmax, order=order, tol=tol, max_order=max_order)
    op = PreparedOperator(L, np.float64, False, "scipy")
    Y = op.to_user(chebyshev_apply(op, coefs, lmax, op.to_internal(X))[0])
    lam, U = exact_eigh(L)
    exact = U @ (np.exp(-0.8 * lam)[:, None] * (U.T @ X))
    np.testing.assert_allclose(Y, exact, atol=1e-9)
    np.testing.assert_allclose(Y, gr.chebyshev_filter(L, phi, X, tol=1e-10), atol=1e-12)
    Yl, n_iter, conv = lanczos_apply(op, [phi], op.to_internal(X), 1e-10)
    assert conv.all()
    np.testing.assert_allclose(op.to_user(Yl[0]), exact, atol=1e-8)
    with pytest.raises(ValueError, match="damping"):
        check_filter_options(damping="lanczos")


@pytest.mark.parametrize("bad, error, fragment", [
    ({"max_iter": 2.5}, TypeError, "max_iter must be an int"),
    ({"max_iter": "7"}, TypeError, "max_iter must be an int"),
    ({"max_iter": 0}, ValueError, "max_iter must be >= 1"),
    ({"tol": -1e-8}, ValueError, "tol must be > 0"),
    ({"check_every": 0}, ValueError, "check_every must be >= 1"),
])
def test_lanczos_apply_checks_its_arguments_as_lanczos_filter_does(bad, error, fragment):
    # int("7") and int(2.5) passed; max_iter=0 ran no iteration and returned zeros as "not converged"
    from graphrkhs._core.reorder import PreparedOperator
    from graphrkhs.spectral import lanczos_apply

    W = np.diag(np.ones(9), 1)
    L = gr.laplacian(W + W.T)
    op = PreparedOperator(L, np.float64, False, "scipy")
    args = {"tol": 1e-8, "max_iter": None, "check_every": 5, **bad}
    with pytest.raises(error, match=fragment):
        lanczos_apply(op, [filters.Heat(0.8)], np.ones((10, 1)), **args)


@pytest.mark.parametrize("lmax, bad, error, fragment", [
    (None, {}, TypeError, r"lmax must be a real number >= 0.*resolve_lmax\(L\)"),
    ("2", {}, TypeError, "lmax must be a real number"),
    (-1.0, {}, ValueError, "lmax must be >= 0"),
    (np.nan, {}, ValueError, "lmax must be finite"),
    (2.0, {"order": "x"}, TypeError, "order must be an int"),
    (2.0, {"order": -1}, ValueError, "order must be >= 0"),
    (2.0, {"max_order": None}, TypeError, "max_order must be an int"),
    (2.0, {"tol": -1.0}, ValueError, "tol must be > 0"),
    (2.0, {"damping": "foo"}, ValueError, "damping must be None or 'jackson'"),
])
def test_chebyshev_plan_checks_its_arguments_as_chebyshev_filter_does(lmax, bad, error, fragment):
    # lmax=None raised "unsupported operand type(s) for *: 'float' and 'NoneType'" from the coefficient
    # code, order="x" a str concatenation error, order=-1 an IndexError; lmax=-1, tol=-1 and damping="foo"
    # returned coefficients
    from graphrkhs.spectral import chebyshev_plan

    with pytest.raises(error, match=fragment):
        chebyshev_plan(filters.Heat(0.8), lmax, **bad)


def test_chebyshev_plan_on_the_zero_matrix_interval_is_exact_at_degree_0():
    # resolve_lmax gives 0.0 for the zero matrix: phi(0) I, the series c_0 / 2 at degree 0
    from graphrkhs.spectral import chebyshev_plan, resolve_lmax

    lmax = resolve_lmax(sp.csr_array((4, 4)))
    coefs, order = chebyshev_plan(filters.Heat(0.8), lmax)
    assert lmax == 0.0 and order == 0
    np.testing.assert_allclose(coefs[0, 0] / 2, 1.0, rtol=1e-15)


def test_column_peaks_equal_the_largest_absolute_entry_of_each_column():
    # the blocked reduction of the overflow gate of chebyshev_filter: rows grouped to ~4096 entries, a
    # remainder of rows, C- and F-ordered and strided blocks
    from graphrkhs.spectral._chebyshev import _column_peaks

    rng = np.random.default_rng(3)
    for shape in [(1, 1), (5, 3), (1000, 7), (4097, 1), (300, 5000)]:
        X = rng.normal(size=shape) * np.exp(rng.normal(size=shape[1]) * 50)
        for A in (X, np.asfortranarray(X), X[::2]):
            np.testing.assert_array_equal(_column_peaks(A), np.abs(A).max(axis=0))


def test_order_warning_advice_matches_damping():
    # the AccuracyWarning at max_order suggested damping='jackson' even when it was in use
    def step(x):
        return (x < 1.0).astype(float)

    with pytest.warns(AccuracyWarning, match=r"damping='jackson' for a non-smooth") as rec:
        chebyshev_order(step, 2.0, 1e-3, max_order=20)
    assert "damping=None" not in str(rec[0].message)
    with pytest.warns(AccuracyWarning, match=r"damping=None for a smooth response") as rec:
        chebyshev_order(step, 2.0, 1e-3, max_order=20, damping="jackson")
    assert "damping='jackson'" not in str(rec[0].message)
    L = laplacian(sp.csr_array(sp.diags([np.ones(9), np.ones(9)], [-1, 1])))
    with pytest.warns(AccuracyWarning, match=r"damping=None for a smooth response") as rec:
        chebyshev_filter(L, step, np.ones((10, 1)), tol=1e-3, max_order=20, damping="jackson")
    assert "damping='jackson'" not in str(rec[0].message)


def test_chebyshev_coefficients_estimates_the_memory_of_n_points(monkeypatch):
    """n_points (the quadrature nodes) is unbounded, and the samples and their DCT (three arrays of
    n_points numbers per response) were allocated unchecked: n_points=10**10 asks for 240 GB.  With a
    48 KiB limit, 10**4 nodes (234 KiB) now raise a MemoryError naming n_points; the coefficients of a
    valid call are the heat kernel's closed form 2 (-1)^k e^{-a} I_k(a), a = t lmax / 2."""
    from scipy.special import ive

    from graphrkhs import chebyshev_coefficients, filters
    from graphrkhs._core import validation

    k = np.arange(11)
    c = chebyshev_coefficients(filters.Heat(0.5), 10, 4.0, n_points=2000)
    np.testing.assert_allclose(c, 2 * (-1.0) ** k * ive(k, 1.0), rtol=0, atol=1e-14)
    monkeypatch.setattr(validation, "_physical_memory", lambda: 64 * 2**10)   # limit 48 KiB
    with pytest.raises(MemoryError, match="n_points"):
        chebyshev_coefficients(filters.Heat(0.5), 10, 4.0, n_points=10**4)


@pytest.mark.parametrize("form", [np.asarray, sp.csr_array])
def test_integer_asymmetry_that_wraps_around_is_not_symmetric(form):
    """L[0, 1] - L[1, 0] = 127 - (-1) wrapped to -128 in int8, whose absolute value is -128: is_symmetric
    said True on both forms and lmax accepted the sparse one.  One measure (symmetry_gap, in float64 for
    integers) for both checks now."""
    from graphrkhs.spectral import is_symmetric

    L = form(np.array([[0, 127], [-1, 0]], dtype=np.int8))
    assert not is_symmetric(L)
    with pytest.raises(ValueError, match="lmax needs a symmetric L"):
        gr.lmax(L)
    assert is_symmetric(form(np.array([[2, -1], [-1, 2]], dtype=np.int8)))
