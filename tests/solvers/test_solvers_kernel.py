"""Solvers of RLS, LapRLS, PRLS, PLapRLS and G-RLS: dense oracles, brute-force minimizers, identities."""

import warnings

import numpy as np
import pytest
import scipy.linalg as sla
from sklearn.kernel_ridge import KernelRidge

from graphrkhs import (
    ConvergenceWarning,
    GRLSKernel,
    KernelOperator,
    consistency_grams,
    consistency_grams_widths,
    feature_map,
    graph_penalty,
    grls_fit,
    grls_fit_constructed,
    heat_kernel,
    heat_semigroup,
    kernel_cg,
    knn_graph,
    laplacian,
    laprls_fit,
    loo_predictions,
    pairwise_kernel,
    plaprls_fit,
    prls_fit,
    rls_fit,
)

DTYPES = [np.float32, np.float64]


def rtol_for(dtype):
    return 2e-3 if dtype == np.float32 else 1e-7


def psd_sqrt(A):
    w, V = np.linalg.eigh((A + A.T) / 2)
    return (V * np.sqrt(np.clip(w, 0, None))) @ V.T


def lstsq_min(blocks, rhs):
    """Brute-force minimizer of sum ||A_i z - b_i||^2 (SVD least squares, independent of the solvers)."""
    return np.linalg.lstsq(np.vstack(blocks), np.concatenate(rhs), rcond=1e-13)[0]


@pytest.fixture(scope="module")
def problem():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 2))
    y = np.sign(X[:, 0] + 0.3 * X[:, 1])
    S = np.arange(0, 120, 8)
    W = knn_graph(X, 6)
    return X, y, S, W


# ---------------------------------------------------------------------------
# RLS
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_rls_equals_kernel_ridge(problem, dtype):
    X, y, S, _ = problem
    K = pairwise_kernel(X[S].astype(dtype), sigma=1.0)
    c = rls_fit(K, y[S].astype(dtype), alpha=0.01)
    kr = KernelRidge(alpha=0.01 * S.size, kernel="precomputed").fit(K.astype(np.float64), y[S])
    np.testing.assert_allclose(c, kr.dual_coef_, rtol=rtol_for(dtype) * 10, atol=rtol_for(dtype))


def test_loo_identity_matches_refits(problem):
    X, y, S, _ = problem
    K = pairwise_kernel(X[S], sigma=1.0)
    lam = 0.3
    H = K @ np.linalg.inv(K + lam * np.eye(S.size))
    loo = loo_predictions(H, y[S])
    for i in range(S.size):
        keep = np.arange(S.size) != i
        c = np.linalg.solve(K[np.ix_(keep, keep)] + lam * np.eye(S.size - 1), y[S][keep])
        assert np.isclose(loo[i], K[i, keep] @ c)


# ---------------------------------------------------------------------------
# LapRLS
# ---------------------------------------------------------------------------

def laprls_dense_oracle(K, S, y, M, gA, gI):
    n, l = K.shape[0], S.size
    J = np.zeros((n, n))
    J[S, S] = 1
    Jy = np.zeros(n)
    Jy[S] = y
    return np.linalg.solve(J @ K + gA * l * np.eye(n) + gI * l / n**2 * M @ K, Jy)


@pytest.mark.parametrize("solver", ["direct", "cg"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_laprls_equals_dense_nonsymmetric_system(problem, solver, dtype):
    X, y, S, W = problem
    M = graph_penalty(W)
    K = pairwise_kernel(X, sigma=1.0)
    a0 = laprls_dense_oracle(K, S, y[S], M.toarray(), 1e-3, 5.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")            # must converge: a ConvergenceWarning fails the test
        a, info = laprls_fit(K.astype(dtype), S, y[S].astype(dtype), M, 1e-3, 5.0, solver=solver,
                             tol=1e-10 if dtype == np.float64 else 1e-3, max_iter=2000, return_info=True)
    assert info["solver"] == solver
    f0, f = K @ a0, K @ a.astype(np.float64)
    np.testing.assert_allclose(f, f0, atol=rtol_for(dtype) * np.abs(f0).max() * 10)


def test_laprls_is_the_brute_force_minimizer(problem):
    X, y, S, W = problem
    n, l = X.shape[0], S.size
    M = graph_penalty(W).toarray()
    K = pairwise_kernel(X, sigma=1.0)
    gA, gI = 1e-3, 5.0
    a = laprls_fit(K, S, y[S], M, gA, gI)
    # objective (1/l)||J(y - K a)||^2 + gA a^T K a + gI/n^2 a^T K M K a as one least-squares problem
    z = lstsq_min([K[S] / np.sqrt(l), np.sqrt(gA) * psd_sqrt(K), np.sqrt(gI) / n * psd_sqrt(M) @ K],
                  [y[S] / np.sqrt(l), np.zeros(n), np.zeros(n)])
    np.testing.assert_allclose(K @ a, K @ z, atol=1e-6)


def test_laprls_gamma_I_zero_is_rls(problem):
    X, y, S, W = problem
    K = pairwise_kernel(X, sigma=1.0)
    a = laprls_fit(K, S, y[S], graph_penalty(W), 1e-2, 0.0)
    c = rls_fit(K[np.ix_(S, S)], y[S], 1e-2)
    assert np.abs(np.delete(a, S)).max() < 1e-10
    np.testing.assert_allclose(a[S], c, rtol=1e-8, atol=1e-10)


def test_laprls_blockwise_operator_matches_dense(problem):
    X, y, S, W = problem
    M = graph_penalty(W)
    op = KernelOperator(X, sigma=1.0, cache_bytes=0)
    assert not op.is_dense
    a_op, info = laprls_fit(op, S, y[S], M, 1e-3, 5.0, solver="cg", tol=1e-10, max_iter=2000, return_info=True)
    a_d = laprls_fit(pairwise_kernel(X, sigma=1.0), S, y[S], M, 1e-3, 5.0, solver="direct")
    assert info["converged"].all()
    np.testing.assert_allclose(op @ a_op, op @ a_d, atol=1e-7)


def test_kernel_cg_reports_non_convergence(problem):
    X, y, S, W = problem
    K = pairwise_kernel(X, sigma=1.0)
    with pytest.warns(ConvergenceWarning, match="did not reach"):
        _, info = laprls_fit(K, S, y[S], graph_penalty(W), 1e-6, 5.0, solver="cg", tol=1e-12, max_iter=2,
                             return_info=True)
    assert not info["converged"].all()
    with pytest.raises(RuntimeError, match="did not reach"):
        kernel_cg(lambda P, GP: GP + 1e-6 * P, lambda V: K @ V, np.ones((120, 1)), tol=1e-12, max_iter=1,
                  on_failure="raise")


def test_graph_penalty_forms(problem):
    _, _, _, W = problem
    L = laplacian(W).toarray()
    np.testing.assert_allclose(graph_penalty(W, laplacian_power=2).toarray(), L @ L, atol=1e-12)
    np.testing.assert_allclose(graph_penalty(W, "randomwalk").toarray(), L, atol=1e-12)
    Ln = laplacian(W, "normalized").toarray()
    np.testing.assert_allclose(graph_penalty(W, "normalized", 3).toarray(), Ln @ Ln @ Ln, atol=1e-12)
    with pytest.raises(ValueError, match="laplacian_power"):
        graph_penalty(W, laplacian_power=0)


def test_kernel_operator_heat_penalty(problem):
    X = problem[0][:30]
    op = KernelOperator(X, kernel="heat_penalty", sigma=0.8, cache_bytes=0)
    K1, K2, K3 = heat_semigroup(X, sigma=0.8)
    V = np.random.default_rng(1).normal(size=(30, 2))
    np.testing.assert_allclose(op @ V, (K1 - 2 * K2 + K3) @ V, atol=1e-12)


# ---------------------------------------------------------------------------
# PRLS
# ---------------------------------------------------------------------------

def test_empirical_grams_equal_their_definitions():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(25, 2))
    S = np.array([0, 3, 7, 11])
    K, Kp, Kpp, kappa = consistency_grams(X[S], X, integral_operator="empirical", sigma=0.9)
    Kall = pairwise_kernel(X, sigma=0.9)
    assert np.isclose(kappa, Kall.mean())
    Kh = Kall / kappa
    n = X.shape[0]
    # K'_ij = <K_xi, L_K K_xj> = (1/n) sum_k K(x_i, x_k) K(x_k, x_j)
    brute_p = np.einsum("ik,kj->ij", Kh[S], Kh[:, S]) / n
    brute_pp = np.einsum("ik,kq,qj->ij", Kh[S], Kh, Kh[:, S]) / n**2
    np.testing.assert_allclose(K, Kh[np.ix_(S, S)], rtol=1e-12)
    np.testing.assert_allclose(Kp, brute_p, rtol=1e-12)
    np.testing.assert_allclose(Kpp, brute_pp, rtol=1e-12)


def test_heat_grams_are_the_semigroup_by_quadrature():
    """K' = <K_xi, L_K K_xj>_K = int K_t(x_i, y) K_t(y, x_j) dy (uniform density), Eq. 16."""
    sigma = 0.25
    x = np.array([[0.2], [0.45], [0.9]])
    K, Kp, Kpp, kappa = consistency_grams(x, integral_operator="heat", sigma=sigma, m=1)
    grid = np.linspace(-5, 6, 22001)[:, None]
    c = np.exp(-0.5 * np.log(2 * np.pi * sigma**2))            # (4 pi t)^(-1/2)
    Kt = heat_kernel(x, grid, sigma=sigma, m=1, scaled=False)
    quad_p = np.trapezoid(Kt[:, None, :] * Kt[None, :, :], grid[:, 0], axis=-1)
    LKt = heat_kernel(x, grid, sigma=sigma, m=1, s=2, scaled=False)   # L_K K_x = K_2t(x, .)
    quad_pp = np.trapezoid(LKt[:, None, :] * Kt[None, :, :], grid[:, 0], axis=-1)
    # the returned matrices are scaled by 1/c (Gaussian RKHS norm)
    np.testing.assert_allclose(Kp * c, quad_p, rtol=1e-8)
    np.testing.assert_allclose(Kpp * c, quad_pp, rtol=1e-8)
    assert kappa == 1.0


def test_consistency_grams_widths_equal_one_call_per_width(problem):
    # the entrywise powers K_s0^((s0/s)^2) against the grams computed afresh at each width;
    # widths in any order, the refinement's sigma 2^(+-1/2) and a non-power-of-two ratio
    X, _, S, _ = problem
    sigmas = [0.7 * 2 ** 0.5, 0.7, 0.7 * 2 ** -0.5, 1.3]
    for got, sg in zip(consistency_grams_widths(X[S], X, sigmas), sigmas):
        ref = consistency_grams(X[S], X, integral_operator="empirical", sigma=sg)
        for a, b in zip(got[:3], ref[:3]):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15 * np.abs(b).max())
        assert np.isclose(got[3], ref[3], rtol=1e-13)
    with pytest.raises(ValueError, match="sigmas"):
        consistency_grams_widths(X[S], X, [0.5, -1.0])


@pytest.mark.parametrize("op", ["heat", "empirical"])
@pytest.mark.parametrize("gamma", [1e-3, 1.0, 1e3])
def test_prls_constant_target_exact(problem, op, gamma):
    X, _, S, _ = problem
    K, Kp, Kpp, _ = consistency_grams(X[S], X, integral_operator=op, sigma=0.7)
    a, b = prls_fit(K, Kp, Kpp, np.full(S.size, -2.5), gamma)
    # zero up to the rounding of the projection Q y (1e-16) amplified by the system's conditioning
    assert np.abs(a).max() < 1e-9
    assert np.isclose(b[0], -2.5, rtol=1e-12)
    np.testing.assert_allclose(K @ a + b, -2.5, rtol=1e-12)


@pytest.mark.parametrize("op", ["heat", "empirical"])
def test_prls_gradient_vanishes_and_brute_force(problem, op):
    X, y, S, _ = problem
    yS = y[S] + 0.1 * X[S, 1]
    l = S.size
    K, Kp, Kpp, _ = consistency_grams(X[S], X, integral_operator=op, sigma=0.7)
    P = K - 2 * Kp + Kpp
    gamma = 0.05
    a, b = prls_fit(K, Kp, Kpp, yS, gamma)
    Psi = np.ones((l, 1))
    r = yS - K @ a - Psi @ b
    grad_a = -2 / l * K @ r + 2 * gamma * P @ a
    grad_b = -2 / l * Psi.T @ r
    assert np.abs(grad_a).max() < 1e-9 and np.abs(grad_b).max() < 1e-9
    z = lstsq_min([np.hstack([K, Psi]) / np.sqrt(l), np.hstack([np.sqrt(gamma) * psd_sqrt(P), np.zeros((l, 1))])],
                  [yS / np.sqrt(l), np.zeros(l)])
    np.testing.assert_allclose(K @ a + b, K @ z[:l] + z[l], atol=1e-6)


def test_prls_stable_as_gamma_grows(problem):
    """Their Fig. 1 right: the constant part is free, so large gamma does not shrink f to 0."""
    X, y, S, _ = problem
    x = X[S]
    yS = 1.0 + 0.005 * np.random.default_rng(5).normal(size=S.size)
    K, Kp, Kpp, _ = consistency_grams(x, integral_operator="heat", sigma=0.5, m=2)
    f = [K @ prls_fit(K, Kp, Kpp, yS, g)[0] + prls_fit(K, Kp, Kpp, yS, g)[1] for g in (1e3, 1e6)]
    np.testing.assert_allclose(f[0], f[1], atol=1e-3)
    assert np.abs(f[1] - yS.mean()).max() < 1e-3
    c = rls_fit(K, yS, 1e2)                                   # RLS over-penalizes the constant
    assert np.abs(K @ c).max() < 0.5


# ---------------------------------------------------------------------------
# PLapRLS
# ---------------------------------------------------------------------------

def plaprls_brute(K, P, S, y, M, gA, gI):
    n, l = K.shape[0], S.size
    G = np.hstack([K, np.ones((n, 1))])
    return lstsq_min([G[S] / np.sqrt(l), np.hstack([np.sqrt(gA) * psd_sqrt(P), np.zeros((n, 1))]),
                      np.sqrt(gI) / n * psd_sqrt(M) @ G], [y / np.sqrt(l), np.zeros(n), np.zeros(n)])


@pytest.mark.parametrize("op", ["heat", "empirical"])
@pytest.mark.parametrize("solver", ["direct", "cg"])
def test_plaprls_matches_brute_force_minimization(op, solver):
    rng = np.random.default_rng(4)
    X = rng.normal(size=(60, 2))
    y = np.sign(X[:, 0]) + 0.2 * X[:, 1]
    S = np.arange(0, 60, 6)
    M = graph_penalty(knn_graph(X, 5))
    n = X.shape[0]
    if op == "heat":
        K, Kp, Kpp = heat_semigroup(X, sigma=0.8)
        P = K - 2 * Kp + Kpp
        Parg = P
    else:
        K = pairwise_kernel(X, sigma=0.8)
        K /= K.mean()
        P = K - 2 * K @ K / n + K @ K @ K / n**2
        Parg = None
    gA, gI = 1e-2, 20.0
    a, b, info = plaprls_fit(K, S, y[S], M, gA, gI, P=Parg, solver=solver, tol=1e-11, max_iter=5000,
                             return_info=True)
    z = plaprls_brute(K, P, S, y[S], M.toarray(), gA, gI)
    np.testing.assert_allclose(K @ a + b, K @ z[:n] + z[n], atol=1e-6)
    # stationarity of objective (12) in beta (the printed Eq. 14 would give a different beta)
    l = S.size
    f = K @ a + b
    grad_b = -2 / l * (y[S] - f[S]).sum() + 2 * gI / n**2 * np.ones(n) @ (M @ f)
    assert abs(grad_b) < 1e-8


def _heat_grams_m1(X, sigma):
    """The heat grams of dimension m = 1 written out (scaled by (4 pi t)^(1/2), t = sigma^2 / 2)."""
    D2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    return (np.exp(-D2 / (2 * sigma**2)), 2**-0.5 * np.exp(-D2 / (4 * sigma**2)),
            3**-0.5 * np.exp(-D2 / (6 * sigma**2)))


def test_plaprls_heat_below_ambient_dimension_is_the_psd_part_minimizer():
    """m = 1 on 2-D points: K_t - 2K_2t + K_3t is indefinite beyond rounding (Fourier symbol
    z - 2 sqrt2 z^2 + sqrt3 z^3 < 0 near z = 1), and so was the normal-equation matrix: Cholesky
    raised LinAlgError.  The direct solve now minimizes objective (12) with the PSD part of P,
    equal to the brute-force least-squares minimizer (psd_sqrt clips the negative eigenvalues)."""
    from sklearn.datasets import make_moons

    from graphrkhs import GraphRKHSWarning

    X, y = make_moons(60, noise=0.1, random_state=0)
    n = X.shape[0]
    rng = np.random.default_rng(0)
    S = np.sort(np.r_[rng.choice(np.flatnonzero(y == 0), 3, replace=False),
                      rng.choice(np.flatnonzero(y == 1), 3, replace=False)])
    l = S.size
    yS = 2.0 * y[S] - 1
    K, K2, K3 = _heat_grams_m1(X, sigma=0.4)
    P = K - 2 * K2 + K3
    M = graph_penalty(knn_graph(X, 6)).toarray()
    gA, gI = 1e-2, 10.0
    # the premise: P and the raw normal equations (beta eliminated) are indefinite beyond rounding
    assert np.linalg.eigvalsh(P)[0] < -0.5
    N = np.zeros((n, n))
    N[S, S] = 1.0
    N += gI * l / n**2 * M
    Npsi = N - np.outer(N.sum(1), N.sum(0)) / N.sum()
    assert np.linalg.eigvalsh(K @ Npsi @ K + gA * l * P)[0] < -1e-3
    with pytest.warns(GraphRKHSWarning, match="penalty P is indefinite"):
        a, b = plaprls_fit(K, S, yS, M, gA, gI, P=P, solver="direct")
    z = plaprls_brute(K, P, S, yS, M, gA, gI)
    np.testing.assert_allclose(K @ a + b, K @ z[:n] + z[n], atol=1e-6)
    # stationarity of objective (12) with P_+ (a minimizer: P_+ is PSD)
    w, V = np.linalg.eigh(P)
    Pp = (V * np.clip(w, 0, None)) @ V.T
    f = K @ a + b
    r = np.zeros(n)
    r[S] = yS - f[S]
    grad_a = -2 / l * K @ r + 2 * gA * Pp @ a + 2 * gI / n**2 * K @ (M @ f)
    assert np.abs(grad_a).max() < 1e-8 * np.abs(K @ r).max() / l + 1e-10


def test_prls_heat_below_ambient_dimension_is_the_psd_part_minimizer():
    """PRLS with the same penalty (m = 1, 2-D points): Cholesky of gamma l P + K Q K failed at large
    gamma; the solution now minimizes the objective with the PSD part of P (brute force)."""
    from sklearn.datasets import make_moons

    from graphrkhs import GraphRKHSWarning

    X, y = make_moons(60, noise=0.1, random_state=0)
    S = np.arange(0, 60, 3)
    x, yS, l = X[S], 2.0 * y[S] - 1, S.size
    K, Kp, Kpp = _heat_grams_m1(x, sigma=0.4)
    P = K - 2 * Kp + Kpp
    assert np.linalg.eigvalsh(P)[0] < -0.1
    gamma = 1e3
    with pytest.warns(GraphRKHSWarning, match="PRLS penalty .* is indefinite"):
        a, b = prls_fit(K, Kp, Kpp, yS, gamma)
    z = lstsq_min([np.hstack([K, np.ones((l, 1))]) / np.sqrt(l),
                   np.hstack([np.sqrt(gamma) * psd_sqrt(P), np.zeros((l, 1))])], [yS / np.sqrt(l), np.zeros(l)])
    np.testing.assert_allclose(K @ a + b, K @ z[:l] + z[l], atol=1e-6)


def test_plaprls_printed_eq14_gives_another_beta():
    """Printed second row: (Psi^T J K - lam2 Psi^T L K) alpha + (Psi^T Psi - lam2 Psi^T L Psi) beta = Psi^T Y.

    With Psi = 1, 1^T L = 0, so it reads n beta = sum_S y - 1^T J K alpha, while stationarity of (12)
    in beta needs l beta = sum_S y - 1^T J K alpha (Psi^T J Psi = l, not Psi^T Psi = n)."""
    rng = np.random.default_rng(6)
    X = rng.normal(size=(40, 2))
    S = np.arange(0, 40, 5)
    y = X[S, 0] + 3.0
    M = graph_penalty(knn_graph(X, 5)).toarray()
    K = pairwise_kernel(X, sigma=0.8)
    K /= K.mean()
    n, l = 40, S.size
    a, b = plaprls_fit(K, S, y, M, 1e-2, 10.0)
    resid = y.sum() - (K[S] @ a).sum()
    assert np.isclose(b[0], resid / l, rtol=1e-10)          # the derived row
    assert not np.isclose(resid / n, b[0], rtol=1e-3)       # the printed row


def test_plaprls_constant_target_exact(problem):
    X, _, S, W = problem
    K = pairwise_kernel(X, sigma=1.0)
    K /= K.mean()
    a, b = plaprls_fit(K, S, np.full(S.size, 4.0), graph_penalty(W), 1e-3, 50.0)
    assert np.abs(a).max() < 1e-12 and np.isclose(b[0], 4.0, rtol=1e-13)


# ---------------------------------------------------------------------------
# G-RLS
# ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def vee():
    rng = np.random.default_rng(7)
    x = np.sort(rng.uniform(0, 10, 30))[:, None]
    y = np.abs(5 - x[:, 0]) + 0.3 * rng.normal(size=30)
    return x, y


def grls_brute(Kc, x, y, gamma):
    """Minimize (2) over f = sum_i c_i K_xi + sum_p beta_p psi_p in the constructed kernel."""
    m = x.shape[0]
    Kx = Kc(x)
    Psi = feature_map(x, "poly2")
    Hx = Kc.H(x)
    q = Psi.shape[1]
    z = lstsq_min([np.hstack([Kx, Psi]) / np.sqrt(m), np.hstack([np.sqrt(gamma) * psd_sqrt(Hx), np.zeros((m, q))])],
                  [y / np.sqrt(m), np.zeros(m)])
    return lambda Z: Kc(Z, x) @ z[:m] + feature_map(Z, "poly2") @ z[m:]


@pytest.mark.parametrize("gamma", [1e-3, 1e-1, 10.0])
def test_grls_saddle_constructed_and_brute_force_agree(vee, gamma):
    x, y = vee
    Z = np.linspace(-1, 11, 50)[:, None]
    Phi = pairwise_kernel(x, sigma=1.0)
    Psi = feature_map(x, "poly2")
    c, beta = grls_fit(Phi, Psi, y, gamma)
    f_saddle = pairwise_kernel(Z, x, sigma=1.0) @ c + feature_map(Z, "poly2") @ beta
    Kc = GRLSKernel(x, features="poly2", sigma=1.0)
    at, ct, rest = grls_fit_constructed(Kc, x, y, gamma)
    f_con = Kc.lagrange(Z) @ at + Kc.H(Z, x[rest]) @ ct
    f_brute = grls_brute(Kc, x, y, gamma)
    np.testing.assert_allclose(f_con, f_saddle, atol=1e-6)
    inside = (Z[:, 0] > 0.5) & (Z[:, 0] < 9.5)       # the SVD brute force is least accurate where data ends
    np.testing.assert_allclose(f_brute(Z[inside]), f_saddle[inside], atol=1e-4)
    # the identity behind the saddle form: ||f - Pf||_K^2 = c^T H c = c^T Phi c when Psi^T c = 0
    np.testing.assert_allclose(c @ Kc.H(x) @ c, c @ Phi @ c, rtol=1e-6, atol=1e-12)
    np.testing.assert_allclose(Psi.T @ c, 0, atol=1e-9)            # orthogonality constraint (9)


def test_grls_as_printed_interpolates_anchors_and_differs(vee):
    x, y = vee
    gamma = 0.1
    Kc = GRLSKernel(x, features="poly2", sigma=1.0)
    at, ct, rest = grls_fit_constructed(Kc, x, y, gamma, as_printed=True)
    f_printed = Kc.lagrange(x) @ at + Kc.H(x, x[rest]) @ ct
    np.testing.assert_allclose(f_printed[Kc.anchors], y[Kc.anchors], atol=1e-10)     # anchors interpolated
    c, beta = grls_fit(pairwise_kernel(x, sigma=1.0), feature_map(x, "poly2"), y, gamma)
    f_true = pairwise_kernel(x, sigma=1.0) @ c + feature_map(x, "poly2") @ beta
    assert np.abs(f_true[Kc.anchors] - y[Kc.anchors]).max() > 1e-2                    # the minimizer does not
    assert np.abs(f_printed - f_true).max() > 1e-2


@pytest.mark.parametrize("gamma", [0.0, 1e-15, 1e-12])
def test_grls_with_a_point_given_twice_fits_the_mean_of_its_targets(gamma):
    # a repeated point with two targets: Phi is singular, and the shifted Cholesky solve at gamma = 0
    # leaked the 1/eps null-space part into beta (the fit at the distinct point x = 1 was 1.167, not 1;
    # 1.059 at gamma = 1e-15).  Oracle: the distinct points with the mean target, interpolated by the
    # nonsingular saddle system (the gamma -> 0+ limit; at these gamma within 1e-9 of it).
    x = np.array([[0.0], [0.0], [1.0], [2.0], [3.0], [4.5]])
    y = np.array([0.0, 2.0, 1.0, 0.5, 3.0, -1.0])
    Psi = feature_map(x, "linear")
    c, beta = grls_fit(pairwise_kernel(x, sigma=1.0), Psi, y, gamma)
    xu, yu = x[1:], np.concatenate([[1.0], y[2:]])
    Pu = feature_map(xu, "linear")
    q = Pu.shape[1]
    block = np.block([[pairwise_kernel(xu, sigma=1.0), Pu], [Pu.T, np.zeros((q, q))]])
    z = np.linalg.solve(block, np.concatenate([yu, np.zeros(q)]))
    Z = np.linspace(-1, 5, 25)[:, None]
    f_oracle = pairwise_kernel(Z, xu, sigma=1.0) @ z[:-q] + feature_map(Z, "linear") @ z[-q:]
    f = pairwise_kernel(Z, x, sigma=1.0) @ c + feature_map(Z, "linear") @ beta
    np.testing.assert_allclose(f, f_oracle, atol=1e-8)
    np.testing.assert_allclose(Psi.T @ c, 0, atol=1e-9)


@pytest.mark.parametrize("dtype", DTYPES)
def test_grls_reproduction_property(vee, dtype):
    x, _ = vee
    Psi = feature_map(x, "poly2")
    y = Psi @ np.array([1.0, -0.5, 0.2])
    c, beta = grls_fit(pairwise_kernel(x.astype(dtype), sigma=1.0), Psi.astype(dtype), y.astype(dtype), 0.01)
    tol = 1e-4 if dtype == np.float32 else 1e-10
    assert np.abs(c).max() < tol
    np.testing.assert_allclose(beta, [1.0, -0.5, 0.2], atol=tol * 10)


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------

def _K(n=10):
    return pairwise_kernel(np.arange(n, dtype=float)[:, None], sigma=2.0)


@pytest.mark.parametrize("call, exc, match", [
    (lambda: rls_fit(_K(), np.ones(10), -1.0), ValueError, "alpha"),
    (lambda: rls_fit(_K(), np.ones(9), 1.0), ValueError, "K must have shape"),
    (lambda: rls_fit(_K(), np.r_[np.nan, np.ones(9)], 1.0), ValueError, "NaN"),
    (lambda: laprls_fit(_K(), [0, 1], np.ones(2), np.eye(10), 0.0, 1.0), ValueError, "gamma_A"),
    (lambda: laprls_fit(_K(), [0, 1], np.ones(2), np.eye(10), 1e-2, -1.0), ValueError, "gamma_I"),
    (lambda: laprls_fit(_K(), np.array([], dtype=int), np.ones(0), np.eye(10), 1e-2, 1.0), ValueError, "empty"),
    (lambda: laprls_fit(_K(), [0, 1], np.ones(3), np.eye(10), 1e-2, 1.0), ValueError, "one row per labeled"),
    (lambda: laprls_fit(_K(), [0, 1], np.ones(10), np.eye(10), 1e-2, 1.0), ValueError,
     r"one row per labeled point \(2\); got 10, one per point: pass Y\[labeled\]"),
    (lambda: laprls_fit(_K(), [0, 12], np.ones(2), np.eye(10), 1e-2, 1.0), ValueError, "labeled indices"),
    (lambda: laprls_fit(_K(), [0, 1], np.ones(2), np.eye(9), 1e-2, 1.0), ValueError, "M must"),
    (lambda: laprls_fit(_K(), [0, 1], np.ones(2), np.eye(10), 1e-2, 1.0, solver="lu"), ValueError, "solver"),
    (lambda: prls_fit(_K(), _K(), _K(), np.ones(10), -0.1), ValueError, "gamma"),
    (lambda: prls_fit(_K(), _K(9), _K(), np.ones(10), 0.1), ValueError, "Kp must"),
    (lambda: prls_fit(_K(), _K(), _K(), np.ones(10), 0.1, Psi=np.ones((10, 2))), ValueError, "rank-deficient"),
    (lambda: plaprls_fit(_K(), [0], np.ones(1), np.zeros((10, 10)), 1e-2, 1.0, Psi=np.c_[np.ones(10), np.arange(10)]),
     ValueError, "null_space"),
    (lambda: grls_fit(_K(), np.ones((10, 1)), np.ones(10), -1.0), ValueError, "gamma"),
    (lambda: grls_fit(_K(), np.ones((10, 2)), np.ones(10), 1.0), ValueError, "features"),
    # more basis functions than labeled points: never full column rank, although the reduced QR's R
    # (10 x 11) has a nonzero diagonal; before, beta came back as one of infinitely many solutions
    (lambda: grls_fit(_K(), np.random.default_rng(0).normal(size=(10, 11)), np.ones(10), 1.0), ValueError,
     "features: the null-space basis is rank-deficient"),
    (lambda: prls_fit(_K(), _K(), _K(), np.ones(10), 0.1, Psi=np.random.default_rng(0).normal(size=(10, 11))),
     ValueError, "null_space: the null-space basis is rank-deficient"),
    (lambda: consistency_grams(np.zeros((3, 1)), integral_operator="heat", kernel="linear"), ValueError, "heat"),
    (lambda: consistency_grams(np.zeros((3, 1)), integral_operator="nystrom"), ValueError, "integral_operator"),
    (lambda: consistency_grams(np.array([[1.0], [-1.0]]), integral_operator="empirical", kernel="linear"),
     ValueError, "positive mean"),
])
def test_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


@pytest.mark.parametrize("fit", [laprls_fit, plaprls_fit], ids=["laprls", "plaprls"])
@pytest.mark.parametrize("solver", ["direct", "cg"])
@pytest.mark.parametrize("kw, exc, match", [
    (dict(tol=0.0), ValueError, "tol must be > 0"),
    (dict(tol=1.0), ValueError, "tol must be < 1"),
    (dict(max_iter=0), ValueError, "max_iter must be >= 1"),
    (dict(max_iter=2.5), TypeError, "max_iter must be an int"),
])
def test_bad_tol_and_max_iter_are_refused_on_every_solver(fit, solver, kw, exc, match):
    # Before: tol and max_iter were not checked.  The direct path accepted max_iter=-1 / 2.5 silently and
    # tol=0 / -1 with a spurious ConvergenceWarning; CG ran every iteration at tol <= 0, returned
    # alpha = 0 (its zero start meets a relative residual tol >= 1) without a warning at tol=1, and
    # returned alpha = 0 with a ConvergenceWarning at max_iter=0.
    K = _K()
    M = np.diag(np.r_[1.0, 2 * np.ones(8), 1.0]) - np.eye(10, k=1) - np.eye(10, k=-1)    # path Laplacian
    with pytest.raises(exc, match=match):
        fit(K, [0, 9], np.array([1.0, -1.0]), M, 1e-2, 1.0, solver=solver, **kw)


def test_one_rls_solve_behind_rls_fit_and_rls_coefficients():
    """rls_coefficients is rls_fit in float64: (K + alpha l I) c = y, checked against a dense solve."""
    from graphrkhs import rls_coefficients

    rng = np.random.default_rng(5)
    Z = rng.normal(size=(20, 2))
    K = pairwise_kernel(Z, sigma=1.3)
    Y = rng.normal(size=(20, 2))
    ref = np.linalg.solve(K + 0.05 * 20 * np.eye(20), Y)
    np.testing.assert_allclose(rls_fit(K, Y, 0.05), ref, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(rls_coefficients(K, Y, 0.05), ref, rtol=1e-8, atol=1e-10)
    with pytest.raises(np.linalg.LinAlgError, match="K is indefinite, with an eigenvalue below -0.2"):
        rls_coefficients(np.diag([1.0, -5.0]), np.ones(2), 0.1)           # indefinite K
    with pytest.raises(ValueError, match="square"):
        rls_fit(np.ones((2, 3)), np.ones(2), 0.1)
    with pytest.raises(ValueError, match="K contains NaN"):
        rls_fit(np.array([[1.0, np.nan], [np.nan, 1.0]]), np.ones(2), 0.1)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("overwrite_K", [False, True])
def test_rls_fit_alpha_0_on_a_singular_gram_is_the_minimum_norm_least_squares_solution(dtype, overwrite_K):
    """alpha = 0 with the linear kernel K = X X^T of rank 3 < l = 20: the alpha -> 0 limit of the ridge
    solution is c = K^+ y, and the function it represents, f(x) = x^T w with w = X^T c, is the least-squares
    fit of y on X (numpy.linalg.lstsq, X of full column rank: unique).

    y outside K's range cannot be interpolated; the shifted Cholesky returned coefficients of 5.7e13 (the
    pseudo-inverse's are 0.098) and fitted values 0.069 off the projection of y, silently.  A y inside the
    range is interpolated, as before (its coefficients may differ from K^+ y by null vectors of K: the
    same function)."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((20, 3))
    K64 = X @ X.T
    Y = np.column_stack([rng.standard_normal(20), K64 @ rng.standard_normal(20)])   # outside, inside the range
    K = K64.astype(dtype)
    eps = np.finfo(dtype).eps
    C = rls_fit(K.copy() if overwrite_K else K, Y.astype(dtype), 0.0, overwrite_K=overwrite_K)
    assert C.dtype == dtype
    w = np.linalg.lstsq(X, Y, rcond=None)[0]                         # the oracle function of each column
    np.testing.assert_allclose(X.T @ C, w, rtol=0, atol=1e2 * eps * np.abs(w).max())
    c0 = np.linalg.pinv(K64) @ Y[:, 0]                              # minimum-norm coefficients (exact K)
    np.testing.assert_allclose(C[:, 0], c0, rtol=0, atol=1e2 * eps * np.abs(c0).max())
    np.testing.assert_allclose(K64 @ C[:, 1], Y[:, 1], rtol=0, atol=1e2 * eps * np.abs(Y[:, 1]).max())
    c1 = rls_fit(K, Y[:, 0].astype(dtype), 0.0)                     # 1-D y: the same column
    np.testing.assert_allclose(c1, c0, rtol=0, atol=1e2 * eps * np.abs(c0).max())


@pytest.mark.parametrize("scale", [1.0, 1e300])
def test_rls_fit_alpha_0_minimum_norm_where_the_residual_is_not_finite(scale):
    """K = 0 (or [[0]]): the shifted Cholesky divided y by a subnormal shift and returned inf / NaN
    coefficients, whose NaN residual passed the interpolation test; K^+ y = 0.  A linear kernel of points
    near 1e150 (K ~ 1e300): K @ C overflowed, the test passed, and the coefficients were ~1e13 (K^+ y is
    ~0.05).  A residual that is not finite now counts as not interpolated."""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")             # no RuntimeWarning from the residual either
        np.testing.assert_array_equal(rls_fit(np.zeros((3, 3)), np.array([1.0, -2.0, 3.0]), 0.0), np.zeros(3))
        np.testing.assert_array_equal(rls_fit(np.array([[0.0]]), np.array([1.0]), 0.0), [0.0])
        rng = np.random.default_rng(0)
        X = rng.standard_normal((20, 3))
        K = X @ X.T
        y = rng.standard_normal(20)
        c = rls_fit(K * scale, y * scale, 0.0)
    c0 = np.linalg.pinv(K) @ y
    np.testing.assert_allclose(c, c0, rtol=0, atol=1e-10 * np.abs(c0).max())


def test_return_convention_solution_arrays_then_info(problem):
    """Solvers return their solution arrays; diagnostics only with return_info=True, appended last."""
    X, y, S, W = problem
    K = pairwise_kernel(X, sigma=1.0)
    M = graph_penalty(W)
    a = laprls_fit(K, S, y[S], M, 1e-3, 5.0)
    assert isinstance(a, np.ndarray) and a.shape == (X.shape[0],)
    a2, info = laprls_fit(K, S, y[S], M, 1e-3, 5.0, return_info=True)
    np.testing.assert_array_equal(a, a2)
    assert info["solver"] == "direct"
    out = plaprls_fit(K / K.mean(), S, y[S], M, 1e-3, 5.0)
    assert isinstance(out, tuple) and len(out) == 2
    a3, b3, info3 = plaprls_fit(K / K.mean(), S, y[S], M, 1e-3, 5.0, return_info=True)
    np.testing.assert_array_equal(out[0], a3)
    np.testing.assert_array_equal(out[1], b3)
    assert info3["solver"] == "direct"


def test_consistency_grams_default_is_the_estimators_empirical_operator():
    from graphrkhs import PLapRLSClassifier, PRLSClassifier

    X = np.random.default_rng(1).uniform(size=(25, 3))
    default = consistency_grams(X, sigma=0.5)
    empirical = consistency_grams(X, integral_operator="empirical", sigma=0.5)
    for a, b in zip(default, empirical):
        np.testing.assert_array_equal(a, b)
    assert PRLSClassifier().integral_operator == PLapRLSClassifier().integral_operator == "empirical"


def test_public_solver_functions_are_annotated():
    """Type hints on every public function of graphrkhs.solvers and on the CG / AMG entry points."""
    import inspect

    import graphrkhs.solvers as solvers
    from graphrkhs._core.cg import amg_preconditioner, conjugate_gradient

    funcs = [getattr(solvers, n) for n in solvers.__all__
             if inspect.isfunction(getattr(solvers, n)) and getattr(solvers, n).__module__.startswith("graphrkhs.solvers")]
    funcs += [conjugate_gradient, amg_preconditioner]
    assert len(funcs) >= 18
    for f in funcs:
        sig = inspect.signature(f)
        missing = [p.name for p in sig.parameters.values() if p.annotation is inspect.Parameter.empty]
        assert not missing, f"{f.__name__}: no annotation for {missing}"
        assert sig.return_annotation is not inspect.Signature.empty, f"{f.__name__}: no return annotation"


def test_prls_with_a_nearly_constant_kernel_is_solved_not_refused():
    """sigma far above the spread of the points (K = 1 1^T to within 1e-10): K Q K, with Q the projector
    off the constants, formed as K @ (Q K) is indefinite at the rounding of Q K (its true entries are
    ~1e-10), and prls_fit raised "not positive semidefinite" (PRLSClassifier(sigma=1e5) failed).  As the
    Gram (QK)^T (QK) it is PSD by construction.  The fit is finite and beta is optimal for its alpha
    (the loss's derivative in beta, 1^T r, vanishes)."""
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(0, 1, (4, 2)), rng.normal(3, 1, (4, 2))]
    y = np.r_[-np.ones(4), np.ones(4)]
    K, Kp, Kpp, _ = consistency_grams(X, X, sigma=1e5)
    alpha, beta = prls_fit(K, Kp, Kpp, y, 1e-3)
    assert np.isfinite(alpha).all() and np.isfinite(beta).all()
    r = y - K @ alpha - beta[0]
    assert abs(r.sum()) < 1e-8 * np.abs(y).sum()            # d/d beta of the loss: 1^T r = 0


def test_rls_coefficients_treat_float32_rounding_asymmetry_as_rounding():
    # a float32 Gram is symmetric to float32 rounding only; that asymmetry (one ulp of float32 here) is
    # rounding, so the symmetrized system is solved -- it was compared with float64's eps after the cast,
    # taken for a real asymmetry and LU-solved as computed (FredholmClassifier on float32 points moved by
    # 1e-4 relative, 5e-3 in the oldest supported numpy / scipy)
    from graphrkhs import rls_coefficients
    from graphrkhs.solvers._kernel import rls_fit

    rng = np.random.default_rng(4)
    A = rng.normal(size=(20, 5))
    K32 = (A @ A.T + 1e-3 * np.eye(20)).astype(np.float32)
    upper = np.triu(np.ones((20, 20), dtype=bool), 1) & (rng.random((20, 20)) < 0.5)
    K32[upper] = np.nextafter(K32[upper], np.float32(np.inf))
    y = rng.normal(size=20)
    K64 = K32.astype(np.float64)
    want = rls_fit((K64 + K64.T) / 2, y, 1e-6)
    np.testing.assert_allclose(rls_coefficients(K32, y, 1e-6), want, rtol=1e-10, atol=0)


@pytest.mark.parametrize("kind", ["combinatorial", "randomwalk"])
def test_graph_penalty_power_estimates_its_fill_in_before_the_product(monkeypatch, kind):
    # L^p of a sparse Laplacian fills in (a p-hop pattern): on a 400-node cycle L^200 is dense, 160000 nonzeros
    # (~2.5 MiB here, n^2 on any graph after enough steps), and graph_penalty formed it without a memory estimate.
    # Limit lowered to 768 KiB so that a small problem stands for a large one.
    from graphrkhs import graph_penalty
    from graphrkhs._core import validation
    n = 400
    W = np.zeros((n, n))
    W[np.arange(n), (np.arange(n) + 1) % n] = 1.0
    W = W + W.T
    monkeypatch.setattr(validation, "_physical_memory", lambda: 2**20)
    with pytest.raises(MemoryError, match=r"the graph penalty L\^\d+ \(up to .* nonzeros.*use a smaller laplacian_power"):
        graph_penalty(W, kind, laplacian_power=200)
    # a power that fits is computed as before: the dense oracle (D^-1 L: D (D^-1 L)^2 = L D^-1 L)
    L = np.diag(W.sum(axis=1)) - W
    expected = L @ L if kind == "combinatorial" else L @ np.diag(1.0 / W.sum(axis=1)) @ L
    np.testing.assert_allclose(graph_penalty(W, kind, laplacian_power=2).toarray(), expected, rtol=0, atol=1e-12)


def test_rls_fit_targets_near_the_float64_limit():
    # coefficients float64 cannot hold (constant targets 1e308 on 6 Gaussian-kernel points: 2.3 x 2^1023) came back
    # as inf / NaN without a word; now a ValueError naming Y.  Targets that are large but whose coefficients fit
    # are solved in units of 2^e: exactly 2^e times the solve on Y / 2^e
    import re

    from graphrkhs import pairwise_kernel

    X = np.random.default_rng(0).normal(0, 0.5, (6, 2))
    K = pairwise_kernel(X, X, "gaussian", sigma=1.0)
    with pytest.raises(ValueError, match="^" + re.escape("Y is too large: the result reaches 2.27743 x 2^1023, beyond "
                                                         "float64's range (below 2^1024).")):
        rls_fit(K, np.full(6, 1e308), 1e-3)
    y = np.ldexp(np.array([1.0, -3.0, 2.0, 0.5, 1.0, -1.0]), 1000)
    C = rls_fit(K, y, 1e-3)
    assert np.isfinite(C).all()
    assert np.array_equal(C, np.ldexp(rls_fit(K, np.ldexp(y, -1000), 1e-3), 1000))
