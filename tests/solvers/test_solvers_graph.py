"""Tests of the transductive graph solvers: dense oracles, identities between equivalent forms,
closed forms, an independent convex solver (cvxpy) for TV, and bad input."""

import functools
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs import (
    ConvergenceWarning,
    GraphWarning,
    filters,
    graph_kernel_ridge,
    graph_kernel_ridge_loo,
    graph_tv,
    harmonic_solution,
    incidence_matrix,
    knn_graph,
    laplacian,
    poisson_learning,
    tikhonov_solution,
)
from graphrkhs._core.validation import power_of_two_exponent


def _graph(n=60, k=6, seed=0, dtype=np.float64):
    X = np.random.default_rng(seed).normal(size=(n, 2))
    return knn_graph(X, k).astype(dtype), X


def _labels(n, l, m=3, seed=1):
    rng = np.random.default_rng(seed)
    S = np.sort(rng.choice(n, l, replace=False))
    codes = np.arange(l) % m
    rng.shuffle(codes)
    return S, np.eye(m)[codes]


def _tol(dtype):
    return 1e-4 if dtype == np.float32 else 1e-8


def _dense_kernel(W, phi, kind="normalized"):
    L = laplacian(W, kind).toarray().astype(np.float64)
    lam, U = np.linalg.eigh(L)
    return (U * phi(lam)) @ U.T


# --- harmonic and Tikhonov -----------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("preconditioner", ["auto", "amg", "jacobi", None])
def test_harmonic_equals_dense_formula(dtype, preconditioner):
    W, _ = _graph()
    S, Y = _labels(60, 9)
    F = harmonic_solution(W, S, Y.astype(dtype), preconditioner=preconditioner)
    assert F.dtype == dtype
    L = laplacian(W).toarray()
    U = np.setdiff1d(np.arange(60), S)
    FU = -np.linalg.solve(L[np.ix_(U, U)], L[np.ix_(U, S)] @ Y)
    np.testing.assert_allclose(F[U], FU, rtol=0, atol=_tol(dtype) * 10)
    np.testing.assert_array_equal(F[S], Y.astype(dtype))


def test_harmonic_normalized_kind_equals_dense_formula():
    W, _ = _graph()
    S, Y = _labels(60, 9)
    F = harmonic_solution(W, S, Y, laplacian="normalized")
    L = laplacian(W, "normalized").toarray()
    U = np.setdiff1d(np.arange(60), S)
    np.testing.assert_allclose(F[U], -np.linalg.solve(L[np.ix_(U, U)], L[np.ix_(U, S)] @ Y), atol=1e-8)


def test_harmonic_path_closed_form_and_maximum_principle():
    n = 11
    W = sp.diags_array([np.ones(n - 1), np.ones(n - 1)], offsets=[-1, 1])
    F = harmonic_solution(W, [0, n - 1], np.array([2.0, 7.0]))
    np.testing.assert_allclose(F, 2.0 + 5.0 * np.arange(n) / (n - 1), atol=1e-10)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kind", ["combinatorial", "normalized"])
def test_tikhonov_equals_dense_solve(kind, dtype):
    W, _ = _graph()
    S, Y = _labels(60, 9)
    F = tikhonov_solution(W, S, Y.astype(dtype), alpha=0.3, laplacian=kind)
    L = laplacian(W, kind).toarray()
    J = np.zeros(60)
    J[S] = 1
    B = np.zeros((60, 3))
    B[S] = Y
    np.testing.assert_allclose(F, np.linalg.solve(np.diag(J) + 0.3 * L, B), rtol=0, atol=_tol(dtype) * 10)


def test_tikhonov_tends_to_harmonic_linearly_in_mu():
    W, _ = _graph()
    S, Y = _labels(60, 9)
    H = harmonic_solution(W, S, Y, tol=1e-12)
    errs = [np.abs(tikhonov_solution(W, S, Y, alpha=mu, tol=1e-12) - H).max() for mu in (1e-2, 1e-3, 1e-4)]
    assert errs[0] > errs[1] > errs[2]
    assert errs[2] < 1e-3
    np.testing.assert_allclose(errs[1] / errs[2], 10, rtol=0.05)     # first order in mu


def test_multicolumn_equals_column_by_column():
    W, _ = _graph()
    S, Y = _labels(60, 9)
    for fn in (harmonic_solution, functools.partial(tikhonov_solution, alpha=1e-2), poisson_learning):
        F = fn(W, S, Y)
        for c in range(3):
            np.testing.assert_allclose(F[:, c], fn(W, S, Y[:, c] - (Y[:, c].mean() if fn is poisson_learning
                                                                     else 0)), atol=1e-7)


# --- Poisson learning -----------------------------------------------------------------------

@pytest.mark.parametrize("preconditioner", ["auto", "amg", "jacobi", None])
def test_poisson_solves_the_equation_with_weighted_zero_mean(preconditioner):
    W, _ = _graph()
    S, Y = _labels(60, 6)
    F = poisson_learning(W, S, Y, tol=1e-12, preconditioner=preconditioner)
    L = laplacian(W).toarray()
    b = np.zeros((60, 3))
    b[S] = Y - Y.mean(axis=0)
    np.testing.assert_allclose(L @ F, b, atol=1e-9)
    d = np.asarray(W.sum(axis=1)).ravel()
    np.testing.assert_allclose(d @ F, 0, atol=1e-9)
    # dense oracle: pseudo-inverse solution shifted to degree-weighted zero mean
    P = np.linalg.pinv(L) @ b
    P -= np.outer(np.ones(60), d @ P / d.sum())
    np.testing.assert_allclose(F, P, atol=1e-8)


def test_poisson_matches_graphlearning():
    import graphlearning as gl   # in the test extra: a missing install fails here, never skips
    W, _ = _graph(80)
    S, Y = _labels(80, 6, m=3)
    F = poisson_learning(W, S, Y, tol=1e-12)
    model = gl.ssl.poisson(sp.csr_matrix(W), tol=1e-12)
    U = model.fit(S, Y.argmax(axis=1))
    np.testing.assert_allclose(F, U, atol=1e-7)


def test_poisson_class_prior_reweighting():
    W, _ = _graph()
    S, Y = _labels(60, 6)
    F = poisson_learning(W, S, Y)
    priors = np.array([0.5, 0.3, 0.2])
    G = poisson_learning(W, S, Y, class_priors=priors)
    np.testing.assert_allclose(G, F * (priors / Y.mean(axis=0)), rtol=1e-6, atol=1e-10)


@pytest.mark.parametrize("preconditioner", ["auto", "amg", "jacobi"])
def test_poisson_components_each_get_a_solution(preconditioner):
    W = np.zeros((8, 8))
    for i, j in [(0, 1), (1, 2), (2, 3), (4, 5), (5, 6), (6, 7)]:
        W[i, j] = W[j, i] = 1.0
    # component A holds classes 0 and 1, component B only class 1
    F = poisson_learning(W, [0, 3, 7], np.eye(2)[[0, 1, 1]], preconditioner=preconditioner)
    np.testing.assert_array_equal(F.argmax(axis=1), [0, 0, 1, 1, 1, 1, 1, 1])
    # each component: L F = its own source (its own label mean), degree-weighted zero mean; on B the class not
    # labeled there (0) is the constant min of B's other scores (0: B's source is zero) less max|y| / w_max = 1
    L = laplacian(W).toarray()
    b = np.zeros((8, 2))
    b[[0, 3]] = np.eye(2) - 0.5
    np.testing.assert_allclose(L[:4] @ F, b[:4], atol=1e-7)
    d = W.sum(axis=1)
    np.testing.assert_allclose(d[:4] @ F[:4] / d[:4].sum(), [0.0, 0.0], atol=1e-7)
    np.testing.assert_allclose(F[4:], np.tile([-1.0, 0.0], (4, 1)), atol=1e-7)
    assert np.isfinite(F).all()


def test_poisson_labels_of_a_component_do_not_depend_on_other_components():
    # a two-class component alone, and next to isolated nodes / a component labeled with one class only: its
    # scores and labels are the same (an offset (ybar_k - ybar) / w_max of every column moved 23 of 54 nodes of
    # such a component when one isolated node labeled class 1 was added)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    W = knn_graph(X, 10).toarray()
    S = np.r_[np.flatnonzero(X[:, 0] < 0)[:3], np.flatnonzero(X[:, 0] > 0)[:3]]
    Y = np.eye(2)[[0, 0, 0, 1, 1, 1]]
    alone = poisson_learning(W, S, Y)
    for extra in (1, 3):
        big = np.zeros((60 + extra, 60 + extra))
        big[:60, :60] = W
        together = poisson_learning(big, np.r_[S, 60 + np.arange(extra)], np.r_[Y, np.tile([0.0, 1.0], (extra, 1))])
        np.testing.assert_allclose(together[:60], alone, rtol=1e-9, atol=1e-12)
        np.testing.assert_array_equal(together[60:].argmax(axis=1), np.ones(extra, dtype=int))


@pytest.mark.parametrize("scale", [1e-200, 1e-3, 7.3, 1e100, 1e250])
def test_poisson_labels_on_several_components_do_not_depend_on_the_units_of_w(scale):
    # a path 0..5 labeled 0 at one end and 1 at the other, and a triangle labeled 2.  The potentials
    # scale as 1/c with W -> c W; the component offset must too: at c = 1e100 an offset in absolute
    # units swamped them and the whole path predicted class 0 (it also moved the scores at c = 7.3).
    W = np.zeros((9, 9))
    for i in range(5):
        W[i, i + 1] = W[i + 1, i] = 1.0
    W[0, 1] = W[1, 0] = 0.6
    for i, j in [(6, 7), (7, 8), (6, 8)]:
        W[i, j] = W[j, i] = 0.8
    S, Y = [0, 5, 6], np.eye(3)
    F = poisson_learning(W, S, Y)
    np.testing.assert_array_equal(F.argmax(axis=1), [0, 0, 0, 1, 1, 1, 2, 2, 2])
    F_scaled = poisson_learning(W * scale, S, Y)
    np.testing.assert_array_equal(F_scaled.argmax(axis=1), F.argmax(axis=1))
    np.testing.assert_allclose(F_scaled * scale, F, rtol=1e-10, atol=1e-12)
    # the triangle (only class 2): its classes 0 and 1, labeled elsewhere, sit below its class-2 scores (0) by
    # max|y| / w_max relative to its own largest weight 0.8 (the component's, not the graph's 1.0: a weight
    # elsewhere must not move it)
    np.testing.assert_allclose(F[6:], np.tile([-1 / 0.8, -1 / 0.8, 0.0], (3, 1)), atol=1e-12)


def test_poisson_tiny_labelled_sets_do_not_degenerate():
    # one label per class: Poisson scores still separate two clusters joined by a bridge
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(0, 0.3, (60, 2)), rng.normal(0, 0.3, (60, 2)) + [2.5, 0]]
    W = knn_graph(X, 8)
    F = poisson_learning(W, [0, 60], np.eye(2))
    truth = np.r_[np.zeros(60), np.ones(60)]
    assert np.mean(F.argmax(axis=1) == truth) > 0.95


# --- graph kernel ridge -------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("phi", [filters.RegularizedLaplacian(4.0), filters.Matern(2, 3.0)],
                         ids=["reglap", "matern2"])
def test_ridge_representer_equals_full_space_equals_dense(phi, dtype):
    W, _ = _graph()
    S, Y = _labels(60, 12)
    Phi = _dense_kernel(W, phi)
    mu = 0.05
    beta = np.linalg.solve(Phi[np.ix_(S, S)] + mu * np.eye(S.size), Y)
    F_rep = Phi[:, S] @ beta
    # full-space dense form (J + mu Phi^{-1}) f = J y
    J = np.zeros((60, 60))
    J[S, S] = 1
    B = np.zeros((60, 3))
    B[S] = Y
    F_full = np.linalg.solve(J + mu * np.linalg.inv(Phi), B)
    np.testing.assert_allclose(F_rep, F_full, atol=1e-9)
    tol = 1e-3 if dtype == np.float32 else 1e-6
    scale = np.abs(F_rep).max()
    for method in ("direct", "sparse", "cg"):
        F, b = graph_kernel_ridge(W, S, Y.astype(dtype), phi, alpha=mu, method=method, tol=1e-12,
                                  return_coef=True)
        assert F.dtype == dtype
        np.testing.assert_allclose(F, F_rep, atol=tol * scale, err_msg=method)
        if method != "sparse":
            np.testing.assert_allclose(b, beta, atol=tol * np.abs(beta).max(), err_msg=method)


def test_ridge_heat_kernel_direct_and_cg_equal_dense():
    W, _ = _graph()
    S, Y = _labels(60, 12)
    phi = filters.Heat(2.0)
    Phi = _dense_kernel(W, phi)
    F_ref = Phi[:, S] @ np.linalg.solve(Phi[np.ix_(S, S)] + 0.1 * np.eye(S.size), Y)
    for method in ("auto", "direct", "cg"):
        F = graph_kernel_ridge(W, S, Y, phi, alpha=0.1, method=method, tol=1e-12)
        np.testing.assert_allclose(F, F_ref, atol=1e-6)
    with pytest.raises(ValueError, match="polynomial"):
        graph_kernel_ridge(W, S, Y, phi, alpha=0.1, method="sparse")


def test_ridge_accepts_prebuilt_graph_kernel():
    from graphrkhs.kernels import GraphKernel

    W, _ = _graph()
    S, Y = _labels(60, 12)
    phi = filters.Heat(1.0)
    K = GraphKernel(laplacian(W, "normalized"), phi)
    np.testing.assert_allclose(graph_kernel_ridge(K, S, Y, alpha=0.1),
                               graph_kernel_ridge(W, S, Y, phi, alpha=0.1), atol=1e-10)


@pytest.mark.parametrize("method", ["auto", "direct", "cg"])
def test_ridge_with_a_prebuilt_kernel_solves_with_that_kernel(method):
    # a deliberately coarse Chebyshev kernel (order 4, Jackson damping): every method must use the Phi it
    # was given (its own order, damping, lmax), not a fresh kernel from the same response.  Oracle: the
    # dense ridge on the passed operator's matrix, read off by applying it to the identity.
    from graphrkhs.kernels import GraphKernel

    W, _ = _graph(80, 6)
    S, Y = _labels(80, 12)
    K = GraphKernel(W, filters.Heat(5.0), order=4, damping="jackson")
    Phi = np.asarray(K.matmat(np.eye(80)))
    Phi = (Phi + Phi.T) / 2
    beta = np.linalg.solve(Phi[np.ix_(S, S)] + 1e-2 * np.eye(S.size), Y)
    fresh = graph_kernel_ridge(W, S, Y, filters.Heat(5.0), alpha=1e-2)
    assert np.abs(fresh - Phi[:, S] @ beta).max() > 1e-2        # the coarse kernel is another kernel
    np.testing.assert_allclose(graph_kernel_ridge(K, S, Y, alpha=1e-2, method=method, tol=1e-12),
                               Phi[:, S] @ beta, atol=1e-8)


def test_loo_equals_brute_force_refits():
    W, _ = _graph()
    S, Y = _labels(60, 10)
    Phi = _dense_kernel(W, filters.Heat(3.0))
    K = Phi[np.ix_(S, S)]
    alphas = [1e-3, 0.1, 1.0]
    R = graph_kernel_ridge_loo(K, Y, alphas)
    for a, mu in enumerate(alphas):
        for i in range(S.size):
            keep = np.delete(np.arange(S.size), i)
            beta = np.linalg.solve(K[np.ix_(keep, keep)] + mu * np.eye(keep.size), Y[keep])
            np.testing.assert_allclose(R[a, i], Y[i] - K[i, keep] @ beta, atol=1e-9)


# --- total variation ----------------------------------------------------------------------

def _cvxpy_tv(W, S, y, mu, R=None, lam=None):
    """sum_S lam_j (y_j - f_j)^2 + mu ||R f||_1 by cvxpy; lam=None: the weighted degrees of W
    (graph_tv's default fidelity="degree"), lam=1: fidelity="uniform"."""
    import cvxpy as cp   # in the test extra
    R = incidence_matrix(W) if R is None else R
    if lam is None:
        lam = np.asarray(sp.csr_array(W).sum(axis=1)).ravel()[S]
    f = cp.Variable(W.shape[0])
    prob = cp.Problem(cp.Minimize(cp.sum(cp.multiply(lam, cp.square(y - f[S]))) + mu * cp.norm1(R @ f)))
    prob.solve(solver=cp.CLARABEL, tol_gap_rel=1e-12, tol_gap_abs=1e-12, tol_feas=1e-12)
    return prob.value


@pytest.mark.parametrize("fidelity", ["degree", "uniform"])
@pytest.mark.parametrize("mu", [0.02, 0.3, 2.0])
def test_tv_objective_matches_cvxpy(mu, fidelity):
    W, X = _graph(80, 6)
    rng = np.random.default_rng(2)
    S = np.sort(rng.choice(80, 20, replace=False))
    y = (X[S, 0] > 0).astype(float) + 0.1 * rng.normal(size=20)
    F, res = graph_tv(W, S, y, alpha=mu, fidelity=fidelity, tol=1e-8, max_iter=200000, return_info=True)
    assert F is res.f
    assert res.converged
    lam = np.asarray(sp.csr_array(W).sum(axis=1)).ravel()[S] if fidelity == "degree" else np.ones(S.size)
    ref = _cvxpy_tv(W, S, y, mu, lam=lam)
    assert abs(res.objective[0] - ref) <= 1e-6 * ref
    # the reported objective is the objective of the returned f
    R = incidence_matrix(W)
    obj = np.sum(lam * (y - res.f[S]) ** 2) + mu * np.abs(R @ res.f).sum()
    np.testing.assert_allclose(obj, res.objective[0], rtol=1e-12)


def test_tv_with_general_sparse_operator_matches_cvxpy():
    W, X = _graph(50, 5)
    S = np.arange(0, 50, 5)
    y = np.sin(X[S, 0])
    L = laplacian(W)
    _, res = graph_tv(W, S, y, alpha=0.2, R=L, tol=1e-8, max_iter=200000, return_info=True)
    # fidelity="degree" with a sparse R: lambda_j = sum_e |R_ej| (for R = L: 2 d_j)
    ref = _cvxpy_tv(W, S, y, 0.2, R=L.toarray(), lam=np.abs(L.toarray()).sum(axis=0)[S])
    assert abs(res.objective[0] - ref) <= 1e-6 * ref


def test_tv_with_second_order_operator_leaves_the_label_range_and_matches_cvxpy():
    # R = L^2 (second differences) on a path: the minimizer extrapolates the two labels beyond
    # [min y, max y], so the box that holds TV's minimizer for the incidence operator must not be imposed
    n = 8
    W = np.diag(np.ones(n - 1), 1)
    W = W + W.T
    L = laplacian(W).toarray()
    R = L @ L
    S = np.array([3, 5])
    y = np.array([-0.18577396, -1.41648937])
    F, res = graph_tv(W, S, y, alpha=2.0, R=sp.csr_array(R), tol=1e-8, max_iter=400000, return_info=True)
    assert res.converged
    lam = np.abs(R).sum(axis=0)[S]
    ref = _cvxpy_tv(W, S, y, 2.0, R=R, lam=lam)
    assert abs(res.objective[0] - ref) <= 1e-6 * ref
    assert F.max() > y.max() + 1.0 and F.min() < y.min() - 0.5


def test_difference_operator_recognition():
    from graphrkhs.solvers._tv import _is_difference_operator

    W, _ = _graph(30, 4)
    assert _is_difference_operator(incidence_matrix(W))
    assert not _is_difference_operator(laplacian(W))
    assert not _is_difference_operator(sp.csr_array(np.eye(3)))          # |f_i| is not a difference
    assert not _is_difference_operator(sp.csr_array(np.array([[1.0, -2.0, 0.0]])))


def test_incidence_matrix_identities():
    W, _ = _graph(30, 4)
    R = incidence_matrix(W)
    assert R.shape == (W.nnz // 2, 30)
    np.testing.assert_allclose(R @ np.ones(30), 0, atol=1e-14)
    f = np.random.default_rng(0).normal(size=30)
    Wd = W.toarray()
    tv = 0.5 * np.sum(Wd * np.abs(f[:, None] - f[None, :]))
    np.testing.assert_allclose(np.abs(R @ f).sum(), tv, rtol=1e-12)


def test_tv_recovers_piecewise_constant_signal_that_ridge_smears():
    # path of 40 nodes, signal 0 then 1, labels on a few nodes each side
    n = 40
    W = sp.diags_array([np.ones(n - 1), np.ones(n - 1)], offsets=[-1, 1])
    truth = (np.arange(n) >= 20).astype(float)
    S = np.array([0, 5, 10, 17, 22, 29, 34, 39])
    tv = graph_tv(W, S, truth[S], alpha=0.01, tol=1e-8, max_iter=100000)
    ridge = graph_kernel_ridge(W, S, truth[S], filters.RegularizedLaplacian(10.0), alpha=0.01)
    # any jump position between the labeled nodes 17 and 22 has the same TV: judge the rest
    sure = (np.arange(n) <= 17) | (np.arange(n) >= 22)
    assert np.abs(tv - truth)[sure].max() < 0.01
    assert np.abs(ridge - truth)[sure].max() > 0.2
    assert np.all(np.diff(tv) >= -1e-9)          # monotone: no overshoot


def test_tv_warm_start_needs_fewer_iterations():
    W, X = _graph(80, 6)
    S = np.arange(0, 80, 4)
    y = np.sign(X[S, 0])
    _, cold = graph_tv(W, S, y, alpha=0.5, tol=1e-7, return_info=True)
    _, warm = graph_tv(W, S, y, alpha=0.5, tol=1e-7, f0=cold.f, p0=cold.p, return_info=True)
    assert warm.n_iter < cold.n_iter / 4


def test_tv_reports_non_convergence():
    W, X = _graph(80, 6)
    S = np.arange(0, 80, 4)
    y = np.sign(X[S, 0])
    with pytest.warns(ConvergenceWarning, match="duality gap"):
        _, res = graph_tv(W, S, y, alpha=0.5, tol=1e-12, max_iter=20, return_info=True)
    assert not res.converged
    with pytest.raises(RuntimeError, match="duality gap"):
        graph_tv(W, S, y, alpha=0.5, tol=1e-12, max_iter=20, on_failure="raise")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_tv_multicolumn_and_dtype(dtype):
    W, _ = _graph()
    S, Y = _labels(60, 9)
    F, res = graph_tv(W, S, Y.astype(dtype), alpha=0.3, tol=1e-7, return_info=True)
    assert F.dtype == dtype
    assert res.f.dtype == dtype
    for c in range(3):
        _, one = graph_tv(W, S, Y[:, c], alpha=0.3, tol=1e-7, return_info=True)
        np.testing.assert_allclose(res.objective[c], one.objective[0], rtol=1e-5)


# --- components without labels ------------------------------------------------------------

def _two_components():
    W = np.zeros((7, 7))
    for i, j in [(0, 1), (1, 2), (2, 3), (4, 5), (5, 6)]:
        W[i, j] = W[j, i] = 1.0
    return W


@pytest.mark.parametrize("fn", [
    harmonic_solution,
    lambda W, S, Y: tikhonov_solution(W, S, Y, alpha=0.1),
    poisson_learning,
    lambda W, S, Y: graph_kernel_ridge(W, S, Y, filters.RegularizedLaplacian(1.0), alpha=0.1),
    lambda W, S, Y: graph_kernel_ridge(W, S, Y, filters.Heat(1.0), alpha=0.1),
    lambda W, S, Y: graph_tv(W, S, Y, alpha=0.1),
], ids=["harmonic", "tikhonov", "poisson", "ridge-sparse", "ridge-direct", "tv"])
def test_unlabeled_component_gets_prior_with_warning(fn):
    Y = np.eye(2)[[0, 1, 1]]
    with pytest.warns(GraphWarning, match="without any labeled node"):
        F = fn(_two_components(), [0, 2, 3], Y)
    assert np.isfinite(F).all()
    np.testing.assert_allclose(F[4:], np.tile(Y.mean(axis=0), (3, 1)))


# --- bad input ----------------------------------------------------------------------------

W_SMALL = np.diag(np.ones(4), 1) + np.diag(np.ones(4), -1)
Y2 = np.array([0.0, 1.0])

SOLVERS = {
    "harmonic": harmonic_solution,
    "tikhonov": tikhonov_solution,
    "poisson": poisson_learning,
    "ridge": lambda W, S, Y, **kw: graph_kernel_ridge(W, S, Y, filters.RegularizedLaplacian(1.0), **kw),
    "tv": graph_tv,
}

BAD = [
    ("no labels", (W_SMALL, [], np.zeros(0)), {}, ValueError, "labeled"),
    ("Y wrong length", (W_SMALL, [0, 4], np.zeros(3)), {}, ValueError, "one row per labeled"),
    # a target for every node, scikit-learn style (-1 on the unlabeled ones): the message names the fix
    ("Y for every node", (W_SMALL, [0, 4], np.array([0.0, -1, -1, -1, 1.0])), {}, ValueError,
     r"Y must have one row per labeled node \(2\); got 5, one per node: pass Y\[labeled\]"),
    ("Y with NaN", (W_SMALL, [0, 4], np.array([0.0, np.nan])), {}, ValueError, "NaN"),
    ("Y strings", (W_SMALL, [0, 4], np.array(["a", "b"])), {}, TypeError, "numeric"),
    ("index out of range", (W_SMALL, [0, 5], Y2), {}, ValueError, r"\[0, 5\)"),
    ("duplicate index", (W_SMALL, [0, 0], Y2), {}, ValueError, "distinct"),
    ("float index", (W_SMALL, np.array([0.0, 4.0]), Y2), {}, TypeError, "indices"),
    ("mask wrong length", (W_SMALL, np.array([True, False]), Y2), {}, ValueError, "mask"),
    ("asymmetric graph", (np.triu(np.ones((5, 5)), 1), [0, 4], Y2), {}, ValueError, "symmetric"),
    ("negative weights", (-W_SMALL, [0, 4], Y2), {}, ValueError, "negative"),
    ("graph type", ("graph", [0, 4], Y2), {}, TypeError, "graph"),
]


@pytest.mark.parametrize("name", list(SOLVERS))
@pytest.mark.parametrize("case", BAD, ids=lambda c: c[0])
def test_bad_input_table(name, case):
    _, args, kwargs, err, match = case
    with pytest.raises(err, match=match):
        SOLVERS[name](*args, **kwargs)


@pytest.mark.parametrize("fn, kwargs, err, match", [
    (tikhonov_solution, {"alpha": -1.0}, ValueError, "alpha"),
    (tikhonov_solution, {"alpha": np.nan}, ValueError, "alpha"),
    (tikhonov_solution, {"alpha": 0.1, "laplacian": "randomwalk"}, ValueError, "randomwalk"),
    (harmonic_solution, {"laplacian": "lazy"}, ValueError, "laplacian"),
    (harmonic_solution, {"preconditioner": "ilu"}, ValueError, "preconditioner"),
    (poisson_learning, {"preconditioner": "direct"}, ValueError, "preconditioner"),
    (harmonic_solution, {"tol": 0.0}, ValueError, "tol"),
    (poisson_learning, {"class_priors": [1.0, 2.0, 3.0]}, ValueError, "class_priors"),
    (poisson_learning, {"class_priors": [-1.0]}, ValueError, "class_priors"),
    (graph_tv, {"alpha": -0.5}, ValueError, "alpha"),
    (graph_tv, {"R": "laplacian"}, ValueError, "incidence"),
    (graph_tv, {"R": sp.eye_array(3)}, ValueError, "shape"),
    (graph_tv, {"max_iter": 0}, ValueError, "max_iter"),
    (graph_tv, {"on_failure": "quiet"}, ValueError, "on_failure"),
])
def test_bad_options(fn, kwargs, err, match):
    with pytest.raises(err, match=match):
        fn(W_SMALL, [0, 4], Y2, **kwargs)


@pytest.mark.parametrize("name", ["harmonic", "tikhonov", "poisson", "ridge"])
@pytest.mark.parametrize("max_iter, err, match", [
    (0, ValueError, r"max_iter must be >= 1; got 0"),
    (-3, ValueError, r"max_iter must be >= 1; got -3"),
    (2.5, TypeError, r"max_iter must be an int"),
])
def test_bad_max_iter_is_refused_on_every_path(name, max_iter, err, match):
    # the default preconditioner (a direct solve on small systems) never looked at max_iter: -3 and 2.5 were
    # accepted silently, and max_iter=0 on the iterative paths returned F_U = 0 with a ConvergenceWarning
    # (under "amg" one blaming badly scaled rows); graph_tv already refused max_iter < 1
    kw = {"alpha": 0.5} if name == "tikhonov" else {}
    for preconditioner in ("auto", "amg", None):
        with pytest.raises(err, match=match):
            SOLVERS[name](W_SMALL, [0, 4], Y2, max_iter=max_iter, preconditioner=preconditioner, **kw)


@pytest.mark.parametrize("name", ["harmonic", "tikhonov", "poisson", "ridge"])
@pytest.mark.parametrize("tol", [1.0, 2.0])
def test_relative_tolerance_of_one_or_more_is_refused(name, tol):
    # ||b - A x|| <= tol ||b|| holds at CG's zero start for tol >= 1: harmonic_solution(path of 6 nodes, tol=1,
    # preconditioner="amg") returned F_U = 0 ([0, 0, 0, 0, 0, 1] instead of [0, .2, .4, .6, .8, 1]) without a warning
    kw = {"alpha": 0.5} if name == "tikhonov" else {}
    for preconditioner in ("auto", "amg", None):
        with pytest.raises(ValueError, match=r"tol must be < 1"):
            SOLVERS[name](W_SMALL, [0, 4], Y2, tol=tol, preconditioner=preconditioner, **kw)


def test_poisson_all_zero_priors_are_refused():
    # b = 0 multiplied every score by 0: all nodes tied, every argmax class 0, silently
    with pytest.raises(ValueError, match=r"class_priors must not be all zero"):
        poisson_learning(W_SMALL, [0, 4], np.eye(2), class_priors=[0.0, 0.0])


@pytest.mark.parametrize("kwargs, err, match", [
    ({"alpha": -1.0}, ValueError, "alpha"),
    ({"alpha": 0.0}, ValueError, "alpha"),
    ({"method": "qr"}, ValueError, "method"),
    ({"laplacian": "randomwalk"}, ValueError, "laplacian"),
])
def test_bad_ridge_options(kwargs, err, match):
    with pytest.raises(err, match=match):
        graph_kernel_ridge(W_SMALL, [0, 4], Y2, filters.Heat(1.0), **kwargs)
    with pytest.raises(TypeError, match="kernel"):
        graph_kernel_ridge(W_SMALL, [0, 4], Y2, "heat")


@pytest.mark.parametrize("K, alphas, match", [
    (np.ones((2, 3)), [1.0], "square"),
    (np.eye(2), [], "alphas"),
    (np.eye(2), [0.0], "alphas"),
    (np.eye(2), [np.nan], "alphas"),
    # the lower triangle alone was read (eigh of (K + K^T) / 2): residuals of another kernel, silently
    (np.array([[1.0, 0.5], [0.0, 1.0]]), [1.0], r"K_SS must be symmetric: max \|K_SS_ij - K_SS_ji\| / sqrt\(\|K_SS_ii K_SS_jj\|\) = 0\.5"),
])
def test_bad_loo_input(K, alphas, match):
    with pytest.raises(ValueError, match=match):
        graph_kernel_ridge_loo(K, Y2, alphas)


def test_inputs_not_mutated():
    W, _ = _graph()
    S, Y = _labels(60, 9)
    W0, Y0, S0 = W.copy(), Y.copy(), S.copy()
    for fn in (harmonic_solution, poisson_learning, lambda *a: graph_tv(*a, alpha=0.3)):
        fn(W, S, Y)
    assert (W != W0).nnz == 0
    np.testing.assert_array_equal(Y, Y0)
    np.testing.assert_array_equal(S, S0)


def test_tv_with_operator_R_matches_cvxpy():
    # R = g(L) applied by Chebyshev (GraphKernel), scalar steps from a power-iteration norm
    from graphrkhs.kernels import GraphKernel

    W, X = _graph(40, 5)
    S = np.arange(0, 40, 4)
    y = np.sin(2 * X[S, 0])
    L = laplacian(W, "normalized")
    phi = filters.Heat(0.5)
    R_op = GraphKernel(L, phi, tol=1e-12)
    _, res = graph_tv(W, S, y, alpha=0.05, R=R_op, tol=1e-7, max_iter=200000, return_info=True)
    assert res.converged
    lam, U = np.linalg.eigh(L.toarray())
    ref = _cvxpy_tv(W, S, y, 0.05, R=(U * phi(lam)) @ U.T)
    assert abs(res.objective[0] - ref) <= 1e-6 * ref


def test_graph_tv_returns_the_array_and_the_result_on_request():
    W = np.diag(np.ones(5), 1)
    W = W + W.T
    y = np.array([0.0, 0.0, 1.0, 1.0])
    F = graph_tv(W, [0, 1, 4, 5], y, alpha=0.1)
    assert isinstance(F, np.ndarray) and F.shape == (6,)
    F2, res = graph_tv(W, [0, 1, 4, 5], y, alpha=0.1, return_info=True)
    np.testing.assert_array_equal(F, F2)
    assert res.converged and res.f is F2 and res.p.shape == (5,)
    # closed form: f = a on {0, 1, ...}, b = 1 - a on {..., 4, 5}, one jump; minimize
    # (d_0 + d_1) a^2 + (d_4 + d_5) (1 - b)^2 + mu (b - a) with degrees 1 + 2: a = mu / 6
    np.testing.assert_allclose(F[[0, 1, 4, 5]], [0.1 / 6, 0.1 / 6, 1 - 0.1 / 6, 1 - 0.1 / 6], atol=1e-3)


@pytest.mark.parametrize("kind", ["combinatorial", "normalized", "randomwalk"])
def test_tikhonov_alpha_zero_is_the_harmonic_solution(kind):
    """alpha=0 (the default, the estimators' too) is the mu -> 0 limit, the harmonic solution."""
    W, _ = _graph()
    S, Y = _labels(60, 9)
    H = harmonic_solution(W, S, Y, laplacian=kind, tol=1e-12)
    np.testing.assert_allclose(tikhonov_solution(W, S, Y, alpha=0.0, laplacian=kind, tol=1e-12), H, atol=1e-12)
    np.testing.assert_allclose(tikhonov_solution(W, S, Y, laplacian=kind, tol=1e-12), H, atol=1e-12)
    if kind != "randomwalk":    # and the limit of the Tikhonov systems themselves
        err = np.abs(tikhonov_solution(W, S, Y, alpha=1e-6, laplacian=kind, tol=1e-12) - H).max()
        assert err < 1e-4


def test_one_tv_tolerance_default():
    import inspect

    from graphrkhs.solvers import TV_TOL

    assert inspect.signature(graph_tv).parameters["tol"].default == TV_TOL == 1e-4


@pytest.mark.parametrize("preconditioner", ["amg", "jacobi", None])
@pytest.mark.parametrize("exponent", [-600, 600])
def test_iterative_laplacian_solves_do_not_depend_on_the_scale_of_the_weights(preconditioner, exponent):
    # harmonic: L_UU F_U = -L_US Y_S is homogeneous in W; Tikhonov (J + mu L) F = J Y is unchanged by
    # W -> c W, mu -> mu / c.  CG squares the residual: at W * 2^-600 its squares underflowed to 0, CG
    # stopped at F_U = 0 and reported convergence (error 0.93, no warning); at W * 2^600 (no
    # preconditioner) they overflowed (NaN, "did not reach tol in 0 iterations")
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(0, 1, (30, 2)), rng.normal(3, 1, (30, 2))]
    W = knn_graph(X, 6)
    S = np.array([0, 1, 30, 31])
    Y = np.eye(2)[[0, 0, 1, 1]]
    c = 2.0 ** exponent
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # neither a ConvergenceWarning nor a numpy RuntimeWarning
        for solve, kw, kw_c in [(harmonic_solution, {}, {}),
                                (tikhonov_solution, {"alpha": 0.3}, {"alpha": 0.3 / c})]:
            ref = solve(W, S, Y, preconditioner=preconditioner, **kw)
            F = solve(W * c, S, Y, preconditioner=preconditioner, **kw_c)
            np.testing.assert_allclose(F, ref, atol=1e-6)


def test_the_spd_factorization_orders_symmetrically_and_solves_exactly():
    # SuperLU's default COLAMD ordering (for unsymmetric matrices) filled L + U about 2x more on kNN
    # Laplacian systems (and took 2.8-5x longer); the symmetric minimum-degree ordering of spd_splu
    # keeps the fill down and, without pivoting, solves the SPD system to rounding.
    import scipy.sparse.linalg as spla
    from graphrkhs.solvers._common import spd_splu
    X = np.random.default_rng(0).normal(size=(600, 8))
    L = sp.csr_array(laplacian(knn_graph(X, 10)))
    A = sp.csr_array(L[50:][:, 50:])                     # grounded: SPD
    d = A.diagonal()
    As = sp.csc_matrix(A.multiply(1 / np.sqrt(d)[:, None]).multiply(1 / np.sqrt(d)[None, :]))
    lu, lu_colamd = spd_splu(As), spla.splu(As)
    assert lu.L.nnz + lu.U.nnz < 0.75 * (lu_colamd.L.nnz + lu_colamd.U.nnz)
    B = np.random.default_rng(1).normal(size=(As.shape[0], 3))
    Xs = lu.solve(B)
    np.testing.assert_allclose(As @ Xs, B, atol=1e-10)
    np.testing.assert_allclose(Xs, np.linalg.solve(As.toarray(), B), rtol=1e-8, atol=1e-10)


# Targets near 1e308: the solvers are linear in Y, so they solve in units of 2^e, e the exponent of max|Y|
# (exact), and scale back.  On the raw targets B = -L_US Y and the label means overflowed: harmonic and
# Tikhonov returned NaN on 28 nodes, graph_kernel_ridge on 30, poisson_learning infinity on 30, and
# harmonic_solution(W, [0, 30], [0, 1e308]) raised a LinAlgError blaming "nearly disconnected parts" of W.

def _two_blobs():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, .5, (30, 2)), rng.normal(3, .5, (30, 2))])
    return knn_graph(X, 5), X


_HUGE_TARGETS = [
    (harmonic_solution, [0, 1, 30, 31], [0.0, 1e308, 1.0, 1.0], {}),
    (harmonic_solution, [0, 30], [0.0, 1e308], {}),
    (tikhonov_solution, [0, 1, 30, 31], [0.0, 1e308, 1.0, 1.0], {}),
    (tikhonov_solution, [0, 1, 30, 31], [0.0, 1e308, 1.0, 1.0], {"alpha": 1.0}),
    (tikhonov_solution, [0, 1, 30, 31], [0.0, 1e308, 1.0, 1.0], {"alpha": 1.0, "laplacian": "normalized"}),
    (graph_kernel_ridge, [0, 1, 30, 31], [0.0, 1e308, 1.0, 1.0], {}),
    (graph_kernel_ridge, [0, 1, 30, 31], [0.0, 1e308, 1.0, 1.0], {"method": "direct"}),
    (poisson_learning, [0, 1, 30, 31], [0.0, 1e308, 1.0, 1.0], {}),
    (harmonic_solution, [0, 1, 30, 31], np.array([[0.0, 1.0], [-1e308, 2.0], [1.0, 3.0], [1.0, 4.0]]), {}),
]


@pytest.mark.parametrize("solver, labeled, Y, kwargs", _HUGE_TARGETS,
                         ids=lambda v: getattr(v, "__name__", None))
def test_targets_near_the_float64_limit_are_solved_in_units_of_a_power_of_two(solver, labeled, Y, kwargs):
    W, _ = _two_blobs()
    Y = np.asarray(Y)
    e = power_of_two_exponent(Y)        # 1023: max|Y| / 2^e in [1/2, 2)
    assert e == 1023
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GraphWarning)
        F = solver(W, labeled, Y, **kwargs)
        F_unit = solver(W, labeled, np.ldexp(Y, -e), **kwargs)
    assert np.isfinite(F).all()
    np.testing.assert_array_equal(F, np.ldexp(F_unit, e))
    if solver in (harmonic_solution, tikhonov_solution) and not kwargs.get("alpha"):
        np.testing.assert_array_equal(F[labeled], Y)             # the labels kept exactly


def test_huge_targets_kernel_ridge_coefficients_scaled_back_exactly():
    W, _ = _two_blobs()
    Y = np.array([0.0, 1e308, 1.0, 1.0])
    F, beta = graph_kernel_ridge(W, [0, 1, 30, 31], Y, method="direct", return_coef=True)
    F1, beta1 = graph_kernel_ridge(W, [0, 1, 30, 31], np.ldexp(Y, -1023), method="direct", return_coef=True)
    assert np.isfinite(beta).all()
    np.testing.assert_array_equal(beta, np.ldexp(beta1, 1023))
    np.testing.assert_array_equal(F, np.ldexp(F1, 1023))


def test_huge_targets_poisson_with_class_priors_does_not_depend_on_their_scale():
    # with class_priors the scores are rescaled by b / ybar: independent of the scale of Y
    W, _ = _two_blobs()
    Y = np.array([[1e308, 0.0], [1e308, 0.0], [0.0, 1e308], [0.0, 1e308]])
    F = poisson_learning(W, [0, 1, 30, 31], Y, class_priors=[0.5, 0.5])
    assert np.isfinite(F).all()
    np.testing.assert_array_equal(F, poisson_learning(W, [0, 1, 30, 31], np.ldexp(Y, -1023),
                                                      class_priors=[0.5, 0.5]))


def test_huge_targets_whose_solution_overflows_raise_naming_y():
    # the kernel ridge fit overshoots its labels: 2.08 x 2^1023 is beyond float64, a ValueError naming Y (it was a
    # LinAlgError blaming "nearly disconnected parts" of the graph)
    W, _ = _two_blobs()
    with pytest.raises(ValueError, match=r"^Y is too large: the result reaches \d\.\d+ x 2\^1023, beyond float64's "
                                         r"range \(below 2\^1024\)\. Scale the targets down, e\.g\. pass "
                                         r"np\.ldexp\(Y, -1023\) \(exact: Y / 2\^1023\), and read the result in "
                                         r"those units\.$"):
        graph_kernel_ridge(W, [0, 1, 30, 31], [-1e308, 1e308, 1.0, 1.0])


def test_ordinary_targets_are_not_rescaled():
    # below 2^500 the targets are used as they are (bit for bit); above, in units of 2^e
    from graphrkhs._core.labels import TARGET_UNIT_EXPONENT, in_target_units
    Y = np.array([[np.ldexp(1.0, TARGET_UNIT_EXPONENT - 1)], [-3.0]])
    assert in_target_units(Y)[0] is Y and in_target_units(Y)[1] == 0
    Y2, e = in_target_units(Y * 4)
    assert e == TARGET_UNIT_EXPONENT + 2
    np.testing.assert_array_equal(Y2, np.ldexp(Y * 4, -e))


def test_tikhonov_alpha_near_the_float64_limit_gives_the_component_means():
    # alpha = 1e300 raised "Factor is exactly singular ... nearly disconnected parts" (fuzzing review); the
    # solve is of the O(1/alpha) rest, so it gives the alpha -> inf limit, each component's label mean
    _, X = _two_blobs()
    W = knn_graph(X[:40], 5)                 # the 10 points of the second blob: a label-free component
    with pytest.warns(GraphWarning, match="without any labeled node"):
        F = tikhonov_solution(W, [0, 1, 20, 21], [0.0, 0.0, 1.0, 1.0], alpha=1e300)
    np.testing.assert_allclose(F, 0.5, atol=1e-12)
