"""Numerical guards of the spectral and kernel layers (issue 13, findings 5, 9, 10, 15).

Each test failed on the code before the guard: an ARPACK error on a graph
without edges (5), a silent 2e58 error for a user-given lmax below the
spectrum (9), minutes of work then a MemoryError for a huge Chebyshev degree
(10), an adjacency with a self-loop silently read as a Laplacian (15).
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import graphrkhs
from graphrkhs import GraphKernel, chebyshev_filter, exact_filter, filters, graph_kernel_ridge, laplacian, lmax
from graphrkhs._core import validation
from graphrkhs.spectral import chebyshev_order


def _path(n):
    W = np.diag(np.ones(n - 1), 1)
    return W + W.T


# -- finding 5: a graph without edges ----------------------------------------------------------------

@pytest.mark.parametrize("L", [sp.csr_array((100, 100)), np.zeros((100, 100)), np.zeros((3, 3))],
                         ids=["sparse", "dense", "small"])
def test_lmax_of_the_zero_matrix_is_zero(L):
    # The spectrum of the zero matrix is {0}: 0 is the exact (and tightest) bound.
    assert lmax(L) == 0.0
    assert lmax(L, "gershgorin") == 0.0


def test_lmax_of_a_zero_operator_is_zero():
    op = sp.linalg.aslinearoperator(sp.csr_array((100, 100)))
    assert lmax(op) == 0.0


def test_chebyshev_filter_on_a_graph_without_edges_is_phi0_times_X():
    L = laplacian(sp.csr_array((100, 100)))
    X = np.random.default_rng(0).normal(size=(100, 3))
    phi = filters.Matern(2, 3.0)
    Y = chebyshev_filter(L, phi, X)
    # phi(L) = phi(0) I exactly when L = 0.
    np.testing.assert_allclose(Y, float(phi(0.0)) * X, rtol=1e-15)
    bank = chebyshev_filter(L, [filters.Heat(1.0), phi], X)
    np.testing.assert_allclose(bank[0], X, rtol=1e-15)
    np.testing.assert_allclose(bank[1], float(phi(0.0)) * X, rtol=1e-15)


def test_graph_kernel_on_a_graph_without_edges():
    K = GraphKernel(sp.csr_array((100, 100)), filters.Heat(2.0))      # an adjacency without edges
    assert K.lmax == 0.0
    X = np.random.default_rng(1).normal(size=(100, 2))
    np.testing.assert_allclose(K @ X, X, rtol=1e-15)                  # exp(-2 * 0) = 1
    np.testing.assert_allclose(K.columns([0, 7]), np.eye(100)[:, [0, 7]], atol=0)


def test_graph_kernel_ridge_on_a_graph_without_edges():
    # Every node is its own component: labeled nodes get the ridge fit phi0 / (phi0 + alpha) y,
    # the others the mean of y, with a GraphWarning -- never ArpackError or NaN.
    W = sp.csr_array((100, 100))
    y = np.array([1.0, -3.0])
    phi = filters.Heat(1.0)
    with pytest.warns(graphrkhs.GraphWarning, match="98 node"):
        F = graph_kernel_ridge(W, [3, 50], y, phi, alpha=0.5, method="direct")
    expected = np.full(100, y.mean())
    expected[[3, 50]] = y / 1.5
    np.testing.assert_allclose(F, expected, rtol=1e-12)


# -- finding 9: a user-given lmax below the spectrum ---------------------------------------------------

def test_given_lmax_below_the_spectrum_is_refused():
    L = laplacian(_path(50))             # eigenvalues up to 4 - O(1/n^2)
    x = np.random.default_rng(0).normal(size=50)
    with pytest.raises(ValueError, match=r"lmax=1 is below the spectrum of L: a Rayleigh quotient of L is 3\.9"):
        chebyshev_filter(L, filters.Heat(1.0), x, lmax=1.0)
    with pytest.raises(ValueError, match="lmax=3.5 is below the spectrum"):
        GraphKernel(L, filters.Heat(1.0), lmax=3.5)


def test_given_lmax_above_the_spectrum_is_accepted_and_exact():
    L = laplacian(_path(50))
    x = np.random.default_rng(0).normal(size=50)
    true = float(np.linalg.eigvalsh(L.toarray()).max())
    for given in (true, 4.0, 40.0):      # tight (rounding-level), Gershgorin-like, loose
        y = chebyshev_filter(L, filters.Heat(1.0), x, lmax=given, tol=1e-10)
        np.testing.assert_allclose(y, exact_filter(L, filters.Heat(1.0), x), atol=1e-9)


# -- finding 10: a huge Chebyshev degree --------------------------------------------------------------

def test_huge_order_is_refused_before_any_work():
    L = laplacian(_path(20))
    x = np.ones(20)
    with pytest.raises(ValueError, match="order=10000000 is above the limit of 100000"):
        chebyshev_filter(L, filters.Heat(1.0), x, order=10**7)
    with pytest.raises(ValueError, match="max_order=10000000 is above the limit"):
        chebyshev_filter(L, filters.Heat(1.0), x, max_order=10**7)
    with pytest.raises(ValueError, match="order=10000000 is above the limit"):
        GraphKernel(L, filters.Heat(1.0), order=10**7)
    with pytest.raises(ValueError, match="max_order=200000 is above the limit"):
        chebyshev_order(filters.Heat(1.0), 4.0, max_order=200_000)


def test_memory_estimate_before_allocation(monkeypatch):
    # Pretend the machine has 4 MiB (limit: 3 MiB): a degree-2000 filter of 100 signals on 2000
    # nodes needs 7 * 2000 * 100 * 8 B = 10.7 MiB for the recurrence, 187.6 MiB for the error grid of the
    # degree (3 (4096, 2001) float64 arrays) and 0.3 MiB of coefficients and L's copy.  (This test had
    # asserted the 4.8 MiB of the old estimate, (1 + 2) blocks and no error grid: below the measured peak.)
    monkeypatch.setattr(validation, "_physical_memory", lambda: 4 * 2**20)
    L = laplacian(_path(2000))
    X = np.ones((2000, 100))
    with pytest.raises(MemoryError, match=r"degree 2000 .* 100 signal\(s\) of 2000 nodes would need 198\.6 MiB"):
        chebyshev_filter(L, filters.Heat(1.0), X, order=2000, lmax=4.0)
    # The automatic degree search is estimated up to max_order: 3 (4096, 1001) float64 arrays = 94 MiB.
    with pytest.raises(MemoryError, match="degree up to 1000"):
        GraphKernel(L, filters.Heat(1.0), lmax=4.0)


# -- finding 15: adjacency or Laplacian ---------------------------------------------------------------

def test_adjacency_with_a_self_loop_is_read_as_an_adjacency():
    W = _path(30)
    A = W.copy()
    A[0, 0] = 1.0                         # a self-loop: positive diagonal, positive off-diagonals
    with pytest.warns(graphrkhs.GraphWarning, match="self-loop"):
        K = GraphKernel(A, filters.Heat(1.0))
    # Same as the kernel of the graph without the self-loop (as_adjacency strips it).
    np.testing.assert_allclose(K.L.toarray(), laplacian(W, "normalized").toarray(), atol=1e-15)
    assert float(np.linalg.eigvalsh(K.L.toarray()).min()) > -1e-12


def test_laplacians_are_recognised():
    W = _path(30)
    for kind in ("combinatorial", "normalized"):
        L = laplacian(W, kind)
        K = GraphKernel(L, filters.Heat(1.0))
        assert (K.L != sp.csr_array(L)).nnz == 0
    with pytest.raises(ValueError, match="laplacian='normalized' was given but L is already a Laplacian"):
        GraphKernel(laplacian(W), filters.Heat(1.0), laplacian="normalized")


@pytest.mark.parametrize("M, what", [
    (np.eye(5), "no off-diagonal entries"),
    (laplacian(_path(5)).toarray() + np.eye(5), "rows do not sum to zero"),
    (np.array([[0.0, 1.0, -1.0], [1.0, 0.0, 1.0], [-1.0, 1.0, 0.0]]), "both signs"),
], ids=["diagonal", "shifted-laplacian", "mixed-signs"])
def test_ambiguous_matrix_asks_for_the_input_argument(M, what):
    with pytest.raises(ValueError, match=f"(?s){what}.*input="):
        GraphKernel(M, filters.Heat(1.0))


def test_explicit_input_overrides_the_check():
    M = laplacian(_path(5)).toarray() + np.eye(5)       # L + I, a generalized Laplacian
    K = GraphKernel(M, filters.Heat(1.0), input="laplacian", method="exact")
    np.testing.assert_allclose(K.toarray(), exact_filter(M, filters.Heat(1.0), np.eye(5)), atol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", graphrkhs.GraphWarning)
        K2 = GraphKernel(np.eye(5) + _path(5), filters.Heat(1.0), input="adjacency")
    np.testing.assert_allclose(K2.L.toarray(), laplacian(_path(5), "normalized").toarray(), atol=1e-15)


def test_graph_learners_on_a_graph_without_edges():
    # Every node is its own component: labeled nodes keep their class (Poisson: 0 for their class, whose source
    # is zero there, and the other class below it by max|y| / w_max = 1, the edgeless graph's unit), the others
    # get the class prior -- no ArpackError, no NaN.
    W = sp.csr_array((100, 100))
    Y = np.eye(2)[[0, 1, 0, 1]]
    with pytest.warns(graphrkhs.GraphWarning, match="96 node"):
        F = graphrkhs.poisson_learning(W, [0, 1, 2, 3], Y)
    np.testing.assert_allclose(F[:4], Y - 1.0, atol=1e-15)
    np.testing.assert_allclose(F[4:], 0.5)
    with pytest.warns(graphrkhs.GraphWarning, match="96 node"):
        F = graphrkhs.harmonic_solution(W, [0, 1, 2, 3], Y)
    np.testing.assert_allclose(F[:4], Y)
    np.testing.assert_allclose(F[4:], 0.5)


def test_graph_kernel_ridge_estimator_on_a_graph_without_edges():
    y = np.full(100, -1)
    y[:4] = [0, 1, 0, 1]
    W = sp.csr_array((100, 100))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", graphrkhs.GraphWarning)     # isolated labeled nodes, label-free nodes
        est = graphrkhs.GraphKernelRidgeClassifier(graph="precomputed").fit(W, y)
    assert np.isfinite(est.label_distributions_).all()
    assert est.transduction_.shape == (100,)


def test_given_lmax_between_the_short_lanczos_ritz_value_and_lmax_is_refused():
    # 20 Lanczos steps leave the largest Ritz value 1.47% below lambda_max on this kNN Laplacian: a
    # given lmax just above it passed the check, and the degree-107 series of 1 / (1 + 10 lambda) was
    # off by 44 times the response's maximum on the eigenvalues above lmax (tolerance 1e-8)
    from graphrkhs import knn_graph, lmax as lmax_bound
    from graphrkhs.spectral._lmax import _ritz_extremes

    L = sp.csr_array(laplacian(knn_graph(np.random.default_rng(1).random((500, 2)), 10)))
    w, V = np.linalg.eigh(L.toarray())
    ritz = _ritz_extremes(L)[1]
    assert ritz < 0.99 * w[-1]
    phi = filters.RegularizedLaplacian(10.0)
    with pytest.raises(ValueError, match=r"lmax=12\.4\d* is below the spectrum of L: a Rayleigh quotient of L "
                                         r"is 12\.61.*Pass lmax=None"):
        chebyshev_filter(L, phi, V[:, -3:], lmax=ritz * (1 + 1e-6))
    with pytest.raises(ValueError, match="lmax=12.4.* is below the spectrum"):
        GraphKernel(L, phi, lmax=ritz * (1 + 1e-6))
    # the exact largest eigenvalue and graphrkhs.lmax's bound are accepted, and the filter meets its
    # tolerance on every eigenvalue (dense oracle: p(lambda_i) = v_i^T p(L) v_i)
    for given in (w[-1], lmax_bound(L)):
        Y = chebyshev_filter(L, phi, V, lmax=given)
        p = np.einsum("ij,ij->j", V, Y)
        assert np.abs(p - phi(w)).max() <= 1e-8 * phi(0.0)


def test_given_lmax_left_undecided_by_both_short_runs_is_settled_by_arpack(monkeypatch):
    # both short runs stopped at 20 steps (Ritz value 1.47% low, residual 0.56): the converged Ritz
    # value decides, and refuses a bound just above the short run's Ritz value
    from graphrkhs import knn_graph
    from graphrkhs.spectral import _lmax

    short = _lmax._ritz_extremes
    monkeypatch.setattr(_lmax, "_ritz_extremes",
                        lambda L, steps=20, random_state=0, residual=False: short(L, 20, random_state, residual))
    L = sp.csr_array(laplacian(knn_graph(np.random.default_rng(1).random((500, 2)), 10)))
    top = float(np.linalg.eigvalsh(L.toarray()).max())
    _, ritz, r = short(L, 20, residual=True)
    given = ritz * (1 + 1e-6)
    assert ritz < given < ritz + 2 * r
    with pytest.raises(ValueError, match=r"lmax=12\.4\d* is below the spectrum of L: a converged \(ARPACK\) "
                                         r"Rayleigh quotient of L is 12\.613"):
        _lmax.check_given_lmax(L, given)
    for ok in (top, lmax(L)):          # the exact largest eigenvalue and the library's own bound
        assert _lmax.check_given_lmax(L, ok) == ok
