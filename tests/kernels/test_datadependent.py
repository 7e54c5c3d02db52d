"""Fredholm and warped kernels, and the plain-function learners on them.

Oracles are written here from the papers' formulas with numpy/scipy only
(cdist, dense solves, dense Laplacian powers), never with the code under test.
"""

import logging
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.spatial.distance import cdist

from graphrkhs import (
    AccuracyWarning,
    FREDHOLM_PRESETS,
    FredholmKernel,
    WarpedKernel,
    default_sigma,
    fredholm_rls,
    knn_graph,
    laplacian,
    rls_coefficients,
    rls_loo_error,
    warped_rls,
)

DTYPES = [np.float32, np.float64]


def tol(dtype):
    return 2e-4 if dtype == np.float32 else 1e-10


def gauss(A, B, s):
    return np.exp(-cdist(A, B, "sqeuclidean") / (2 * s * s))


def oracle_kernel(name, A, B, s):
    if name == "gaussian":
        return gauss(A, B, s)
    if name == "linear":
        return A @ B.T
    raise AssertionError(name)


def fredholm_oracle(X, A, B, outer, inner, s_out, s_in, normalized):
    """k_F(a, b) = sum_ij w(a, x_i) k_H(x_i, x_j) w(b, x_j), term by term (einsum)."""
    X, A, B = (np.asarray(Z, dtype=np.float64) for Z in (X, A, B))
    n = X.shape[0]
    KA, KB = oracle_kernel(outer, A, X, s_out), oracle_kernel(outer, B, X, s_out)
    if normalized:
        KA, KB = KA / KA.sum(1, keepdims=True), KB / KB.sum(1, keepdims=True)
    else:
        KA, KB = KA / n, KB / n
    return np.einsum("ai,ij,bj->ab", KA, oracle_kernel(inner, X, X, s_in), KB)


@pytest.fixture(scope="module")
def cloud():
    rng = np.random.default_rng(0)
    return rng.normal(size=(120, 4)), rng.normal(size=(7, 4))


# ---------------------------------------------------------------------------
# Fredholm kernel
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("preset", list(FREDHOLM_PRESETS))
def test_fredholm_matrix_form_equals_pointwise_sum(cloud, preset, dtype):
    X, A = cloud
    outer, inner, normalized = FREDHOLM_PRESETS[preset]
    K = FredholmKernel.from_preset(preset, X.astype(dtype), sigma=1.3, sigma_inner=2.1)
    got = K(A.astype(dtype), X[:9].astype(dtype))
    want = fredholm_oracle(X, A, X[:9], outer, inner, 1.3, 2.1, normalized)
    assert got.shape == (7, 9)
    assert got.dtype == dtype
    np.testing.assert_allclose(got, want, rtol=10 * tol(dtype), atol=tol(dtype) * np.abs(want).max())


def test_fredholm_matrix_form_equals_product_of_kernel_matrices(cloud):
    # K_F = K_{l,n} K_H K_{l,n}^T / n^2 (Que et al., Eq. 5) versus the double sum.
    X, _ = cloud
    n = X.shape[0]
    Kln = gauss(X[:10], X, 1.0)
    want = Kln @ gauss(X, X, 1.5) @ Kln.T / n**2
    got = FredholmKernel(X, sigma=1.0, sigma_inner=1.5)(X[:10])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)


def test_fredholm_delta_outer_kernel_is_plain_rls(cloud):
    # The paper's remark: with the delta function as outer kernel, Fredholm RLS is RLS with k_H.
    X, _ = cloud
    n = X.shape[0]

    def delta(P, Q):
        return n * (cdist(P, Q) == 0).astype(float)

    S = np.arange(0, 120, 6)
    KH = gauss(X, X, 1.7)
    K = FredholmKernel(X, outer=delta, inner="gaussian", sigma=1.0, sigma_inner=1.7)
    np.testing.assert_allclose(K(X[S]), KH[np.ix_(S, S)], rtol=1e-12)
    y = np.sign(X[S, 0])
    f = fredholm_rls(X, S, y, alpha=0.05, outer=delta, sigma_inner=1.7)
    c = np.linalg.solve(KH[np.ix_(S, S)] + 0.05 * S.size * np.eye(S.size), y)
    np.testing.assert_allclose(f(X[S]), KH[np.ix_(S, S)] @ c, rtol=1e-10)


@pytest.mark.parametrize("n_neighbors", [None, 15])
def test_normalized_outer_rows_sum_to_one(cloud, n_neighbors):
    X, A = cloud
    K = FredholmKernel(X, sigma=0.8, normalized=True, n_neighbors=n_neighbors)
    for pts in (A, X):
        P = K.outer_weights(pts)
        np.testing.assert_allclose(np.asarray(P.sum(axis=1)).ravel(), 1.0, rtol=1e-12)
    # A weighted average: with a constant inner kernel the normalized kernel is that constant.
    K1 = FredholmKernel(X, sigma=0.8, normalized=True, inner=lambda P, Q: np.full((len(P), len(Q)), 3.0),
                        inner_approximation="exact", n_neighbors=n_neighbors)
    np.testing.assert_allclose(K1(A, X[:5]), 3.0, rtol=1e-12)


def test_unnormalized_outer_rows_are_kernel_over_n(cloud):
    X, A = cloud
    K = FredholmKernel(X, sigma=0.8)
    np.testing.assert_allclose(K.outer_weights(A), gauss(A, X, 0.8) / X.shape[0], rtol=1e-12)


@pytest.mark.parametrize("outer, normalized", [("gaussian", False), ("gaussian", True), ("linear", False),
                                               ("asymmetric", False), ("asymmetric", True)])
def test_fredholm_symmetric_psd_whenever_inner_is(cloud, outer, normalized):
    # Proposition 3: PSD for a PSD inner kernel, whatever the (even non-symmetric) outer kernel.
    X, A = cloud
    if outer == "asymmetric":
        def outer(P, Q):
            return np.exp(-cdist(P, Q) ** 2 / 2) * (1.5 + np.tanh(P[:, :1]))  # k(x, z) != k(z, x)
    K = FredholmKernel(X, outer=outer, inner="gaussian", sigma=1.0, sigma_inner=1.2, normalized=normalized)
    Z = np.vstack([X[:30], A])
    G = K(Z)
    np.testing.assert_allclose(G, G.T, rtol=1e-10, atol=1e-14 * np.abs(G).max())
    assert np.linalg.eigvalsh(G).min() >= -1e-10 * np.abs(G).max()
    np.testing.assert_allclose(K(A, X[:5]), K(X[:5], A).T, rtol=1e-10, atol=1e-15)


def test_theorem4_linear_outer_gaussian_inner_closed_form():
    # Que et al., Theorem 4: data N(0, diag(s^2)), k(u, v) = u^T v, k_H = exp(-|u - v|^2 / 2t):
    # k_F(x, z) -> x^T Sigma_F z, Sigma_F = prod_d sqrt(t / (2 s_d^2 + t)) diag(s_d^4 / (2 s_d^2 + t)).
    # Monte Carlo: the entries' spread over seeds at n = 3000 is <= 0.03 of the largest (measured),
    # so 0.1 is > 3 standard deviations at n = 4000.
    s = np.array([1.5, 1.0, 0.5])
    t = 1.0
    sigma_F = np.prod(np.sqrt(t / (2 * s**2 + t))) * np.diag(s**4 / (2 * s**2 + t))
    X = np.random.default_rng(1).normal(size=(4000, 3)) * s
    K = FredholmKernel.from_preset("FredLin1", X, sigma_inner=np.sqrt(t))
    got = K(np.eye(3))
    np.testing.assert_allclose(got, sigma_F, atol=0.1 * sigma_F.max())
    # soft thresholding: the rescaling shrinks the low-variance direction most
    ratios = np.diag(got) / s**2
    assert ratios[0] > ratios[1] > ratios[2]


@pytest.mark.parametrize("outer", ["gaussian", "heat"])
@pytest.mark.parametrize("normalized", [False, True])
@pytest.mark.parametrize("dtype", DTYPES)
def test_sparse_outer_with_all_neighbours_equals_dense(cloud, outer, normalized, dtype):
    X, A = cloud
    Xd, Ad = X.astype(dtype), A.astype(dtype)
    dense = FredholmKernel(Xd, outer=outer, sigma=1.1, normalized=normalized)
    sparse = FredholmKernel(Xd, outer=outer, sigma=1.1, normalized=normalized, n_neighbors=X.shape[0])
    P = sparse.outer_weights(Ad)
    assert sp.issparse(P)
    want = dense(Ad, Xd[:6])
    scale = np.abs(want).max()
    np.testing.assert_allclose(sparse(Ad, Xd[:6]), want, atol=tol(dtype) * scale)
    # the training points go through the self-search path
    np.testing.assert_allclose(sparse(Xd, Xd[:6]), dense(Xd, Xd[:6]), atol=tol(dtype) * scale)


@pytest.mark.parametrize("d", [3, 30])  # kd-tree path and blocked-BLAS path
def test_sparse_outer_keeps_the_k_nearest(d):
    rng = np.random.default_rng(2)
    X, A = rng.normal(size=(200, d)), rng.normal(size=(9, d))
    k = 7
    K = FredholmKernel(X, sigma=2.0, n_neighbors=k)
    for pts in (A, X):
        P = K.outer_weights(pts)
        D = cdist(pts, X, "sqeuclidean")
        nearest = np.argsort(D, axis=1)[:, :k]
        dense = P.toarray()
        assert (np.diff(P.indptr) == k).all()
        rows = np.arange(len(pts))[:, None]
        np.testing.assert_allclose(dense[rows, nearest], np.exp(-D[rows, nearest] / 8.0) / 200, rtol=1e-5)
        assert np.count_nonzero(dense) == k * len(pts)


def test_nystrom_with_all_landmarks_is_exact(cloud):
    X, A = cloud
    exact = FredholmKernel(X, sigma=1.0, sigma_inner=2.0, inner_approximation="exact")
    ny = FredholmKernel(X, sigma=1.0, sigma_inner=2.0, inner_approximation="nystrom", n_components=120,
                        random_state=0)
    want = exact(A, X[:8])
    np.testing.assert_allclose(ny(A, X[:8]), want, atol=1e-7 * np.abs(want).max())
    np.testing.assert_allclose(ny.features(A) @ ny.features(X[:8]).T, want, atol=1e-7 * np.abs(want).max())


def test_random_features_converge(cloud):
    # Random Fourier features: relative error ~ 1/sqrt(m); fixed seeds.
    X, A = cloud
    exact = FredholmKernel(X, sigma=1.0, sigma_inner=2.0)(A, X[:8])
    errs = []
    for m in (100, 10000):
        K = FredholmKernel(X, sigma=1.0, sigma_inner=2.0, inner_approximation="random_features", n_components=m,
                           random_state=3)
        errs.append(np.linalg.norm(K(A, X[:8]) - exact) / np.linalg.norm(exact))
    assert errs[1] < 0.05
    assert errs[1] < errs[0]


def test_right_factor_reuse_and_default_sigma(cloud):
    X, A = cloud
    K = FredholmKernel(X)
    assert K.sigma == default_sigma(X) == K.sigma_inner
    R = K.right_factor(X[:4])
    np.testing.assert_allclose(K(A, X[:4], right=R), K(A, X[:4]), rtol=1e-12)
    D = cdist(X, X)[np.triu_indices(120, 1)]
    assert default_sigma(X) == pytest.approx(np.median(D), rel=1e-7)  # expanded |x|^2 - 2x.z + |z|^2


def test_inputs_not_mutated(cloud):
    X, A = cloud
    X0, A0 = X.copy(), A.copy()
    FredholmKernel(X, normalized=True, n_neighbors=10)(A)
    WarpedKernel(X, n_neighbors=5)(A)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(A, A0)


FREDHOLM_BAD = [
    (dict(outer="cosine"), ValueError, "outer"),
    (dict(inner=3), ValueError, "inner"),
    (dict(sigma=0.0), ValueError, "sigma"),
    (dict(sigma=-1.0), ValueError, "sigma"),
    (dict(sigma="wide"), TypeError, "sigma"),
    (dict(sigma_inner=0.0), ValueError, "sigma_inner"),  # t <= 0
    (dict(sigma_inner=np.inf), ValueError, "sigma_inner"),
    (dict(normalized="yes"), TypeError, "normalized"),
    (dict(outer="linear", normalized=True), ValueError, "normalized"),
    (dict(outer="linear", n_neighbors=5), ValueError, "n_neighbors"),
    (dict(n_neighbors=0), ValueError, "n_neighbors"),
    (dict(n_neighbors=2.5), TypeError, "n_neighbors"),
    (dict(n_neighbors=500), ValueError, "n_neighbors"),
    (dict(inner_approximation="svd"), ValueError, "inner_approximation"),
    (dict(inner="linear", inner_approximation="random_features"), ValueError, "random_features"),
    (dict(n_components=0), ValueError, "n_components"),
    (dict(random_state="seed"), TypeError, "random_state"),
]


@pytest.mark.parametrize("kwargs, exc, word", FREDHOLM_BAD)
def test_fredholm_bad_input(cloud, kwargs, exc, word):
    X, _ = cloud
    with pytest.raises(exc, match=word):
        FredholmKernel(X, **kwargs)


@pytest.mark.parametrize("X, exc", [
    (np.zeros(5), ValueError),
    (np.array([[0.0, np.nan], [1.0, 2.0]]), ValueError),
    (np.zeros((1, 3)), ValueError),
    ("points", TypeError),
    (sp.csr_array(np.eye(3)), TypeError),
])
def test_bad_points(X, exc):
    with pytest.raises(exc, match="X"):
        FredholmKernel(X)
    with pytest.raises(exc, match="X"):
        WarpedKernel(X)


def test_evaluation_bad_points(cloud):
    X, _ = cloud
    with pytest.raises(ValueError, match="features"):
        FredholmKernel(X)(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="features"):
        WarpedKernel(X, n_neighbors=5)(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="non-positive"):
        FredholmKernel(X, outer=lambda P, Q: -np.ones((len(P), len(Q))), normalized=True)(X[:2])
    with pytest.raises(ValueError, match="features"):
        FredholmKernel(X, inner="gaussian", inner_approximation="exact").features(X[:2])


# ---------------------------------------------------------------------------
# Warped kernel
# ---------------------------------------------------------------------------

def dense_M(X, n_neighbors, kind, p, gamma_A, gamma_I):
    W = knn_graph(X, n_neighbors)
    L = laplacian(W, kind).toarray()
    if kind == "randomwalk":  # the documented self-adjoint form D (D^-1 L)^p
        M = np.diag(np.asarray(W.sum(axis=1)).ravel()) @ np.linalg.matrix_power(L, p)
    else:
        M = np.linalg.matrix_power(L, p)
    return gamma_I / (gamma_A * X.shape[0] ** 2) * M


@pytest.mark.parametrize("solver", ["direct", "cg"])
@pytest.mark.parametrize("kind", ["combinatorial", "normalized", "randomwalk"])
@pytest.mark.parametrize("p", [1, 2, 3])
def test_warped_kernel_equals_formula(cloud, solver, kind, p):
    X, A = cloud
    gA, gI = 1e-3, 1.0
    K = WarpedKernel(X, sigma=1.2, gamma_A=gA, gamma_I=gI, n_neighbors=6, laplacian=kind, laplacian_power=p,
                     solver=solver, tol=1e-12)
    M = dense_M(X, 6, kind, p, gA, gI)
    np.testing.assert_allclose(K.point_cloud_matrix().toarray(), M, rtol=1e-9, atol=1e-12 * np.abs(M).max())
    KXX = gauss(X, X, 1.2)
    want = gauss(A, X[:5], 1.2) - gauss(A, X, 1.2) @ np.linalg.solve(np.eye(120) + M @ KXX, M @ gauss(X, X[:5], 1.2))
    np.testing.assert_allclose(K(A, X[:5]), want, atol=1e-9)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("solver", ["direct", "cg"])
def test_warped_kernel_symmetric_psd(cloud, dtype, solver):
    X, A = cloud
    K = WarpedKernel(X.astype(dtype), sigma=1.0, gamma_A=1e-4, gamma_I=1.0, n_neighbors=6, laplacian_power=2,
                     solver=solver)
    Z = np.vstack([X[:40], A]).astype(dtype)
    G = K(Z).astype(np.float64)
    np.testing.assert_allclose(G, G.T, atol=50 * tol(dtype))
    assert np.linalg.eigvalsh((G + G.T) / 2).min() > -50 * tol(dtype)
    # the deformation only removes norm: k~(x, x) <= k(x, x) = 1
    assert np.diag(G).max() <= 1 + 50 * tol(dtype)


def test_warped_kernel_without_intrinsic_term_is_base_kernel(cloud):
    X, A = cloud
    K = WarpedKernel(X, sigma=0.9, gamma_I=0.0, n_neighbors=5)
    np.testing.assert_allclose(K(A, X[:4]), gauss(A, X[:4], 0.9), rtol=1e-12)


def laprls_oracle(X, S, y, sigma, gA, gI, M_unscaled, Xeval):
    """Belkin et al. 2006: alpha = (J K + gamma_A l I + gamma_I l / n^2 L^p K)^{-1} J y."""
    n, l = X.shape[0], S.size
    K = gauss(X, X, sigma)
    J = np.zeros((n, n))
    J[S, S] = 1.0
    Jy = np.zeros(n)
    Jy[S] = y
    a = np.linalg.solve(J @ K + gA * l * np.eye(n) + gI * l / n**2 * M_unscaled @ K, Jy)
    return gauss(Xeval, X, sigma) @ a


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kind, p", [("combinatorial", 1), ("normalized", 2), ("combinatorial", 3)])
@pytest.mark.parametrize("solver", ["direct", "cg"])
def test_warped_rls_equals_laprls(cloud, dtype, kind, p, solver):
    # Sindhwani, Niyogi & Belkin's central identity: RLS on k~ = LapRLS, on and off the points.
    X, A = cloud
    S = np.arange(0, 120, 10)
    y = np.sign(X[S, 1] + 0.3)
    gA, gI = 1e-3, 0.5
    f = warped_rls(X.astype(dtype), S, y, gamma_A=gA, gamma_I=gI, sigma=1.1, n_neighbors=6, laplacian=kind,
                   laplacian_power=p, solver=solver, tol=1e-12 if dtype == np.float64 else 1e-5)
    M_unscaled = dense_M(X, 6, kind, p, 1.0, 1.0) * 120**2
    Z = np.vstack([X, A])
    want = laprls_oracle(X, S, y, 1.1, gA, gI, M_unscaled, Z)
    got = f(Z.astype(dtype))
    np.testing.assert_allclose(got, want, atol=(2e-3 if dtype == np.float32 else 1e-8) * np.abs(want).max())


WARPED_BAD = [
    (dict(laplacian_power=0), ValueError, "laplacian_power"),
    (dict(laplacian_power=1.5), TypeError, "laplacian_power"),
    (dict(laplacian="signless"), ValueError, "laplacian"),
    (dict(gamma_A=0.0), ValueError, "gamma_A"),
    (dict(gamma_I=-1.0), ValueError, "gamma_I"),
    (dict(kernel="rbf"), ValueError, "kernel"),
    (dict(sigma=0.0), ValueError, "sigma"),
    (dict(graph="full"), ValueError, "graph"),
    (dict(graph="epsilon"), ValueError, "radius"),
    (dict(n_neighbors=120), ValueError, "n_neighbors"),
    (dict(weight="cosine"), ValueError, "weight"),
    (dict(solver="lu"), ValueError, "solver"),
    (dict(tol=0.0), ValueError, "tol"),
]


@pytest.mark.parametrize("kwargs, exc, word", WARPED_BAD)
def test_warped_bad_input(cloud, kwargs, exc, word):
    X, _ = cloud
    with pytest.raises(exc, match=word):
        WarpedKernel(X, **kwargs)


def test_warped_epsilon_graph(cloud):
    X, A = cloud
    K = WarpedKernel(X, sigma=1.0, gamma_A=1e-3, graph="epsilon", radius=1.5)
    G = K(A)
    np.testing.assert_allclose(G, G.T, atol=1e-10)


# ---------------------------------------------------------------------------
# RLS helpers
# ---------------------------------------------------------------------------

def test_rls_loo_error_equals_refits():
    rng = np.random.default_rng(4)
    Z = rng.normal(size=(15, 3))
    K = gauss(Z, Z, 1.0)
    y = rng.normal(size=15)
    alpha = 0.01
    l = 15
    res = []
    for i in range(l):  # explicit refits without point i, same ridge alpha * l
        keep = np.delete(np.arange(l), i)
        c = np.linalg.solve(K[np.ix_(keep, keep)] + alpha * l * np.eye(l - 1), y[keep])
        res.append(y[i] - K[i, keep] @ c)
    assert rls_loo_error(K, y, [alpha])[0] == pytest.approx(np.mean(np.square(res)), rel=1e-8)


@pytest.mark.parametrize("args, exc, word", [
    ((np.ones((2, 3)), np.ones(2), 1.0), ValueError, "square"),
    ((np.eye(2), np.ones(3), 1.0), ValueError, "Y"),
    ((np.eye(2), np.ones(2), 0.0), ValueError, "alpha"),
    ((np.eye(2), np.array([1.0, np.nan]), 1.0), ValueError, "Y"),
    ((np.array([[1.0, 0.0], [0.0, np.nan]]), np.ones(2), 1.0), ValueError, "K"),
])
def test_rls_coefficients_bad_input(args, exc, word):
    with pytest.raises(exc, match=word):
        rls_coefficients(*args)


def test_rls_loo_bad_alphas():
    with pytest.raises(ValueError, match="alphas"):
        rls_loo_error(np.eye(3), np.ones(3), [0.0])


@pytest.mark.parametrize("labeled", [[], [0, 0], [500], np.zeros(7, dtype=bool)])
def test_learners_bad_labeled(cloud, labeled):
    X, _ = cloud
    with pytest.raises(ValueError, match="labeled"):
        fredholm_rls(X, labeled, np.ones(len(labeled)))
    with pytest.raises(ValueError, match="labeled"):
        warped_rls(X, labeled, np.ones(len(labeled)))


def test_blockwise_evaluation_equals_one_block(cloud, monkeypatch):
    # Force tiny row blocks: the blocked evaluation of many points must equal the single-block one.
    import graphrkhs.kernels._datadependent as dd

    X, A = cloud
    F = FredholmKernel(X, sigma=1.0, normalized=True)
    W = WarpedKernel(X, sigma=1.0, n_neighbors=5)
    want_F, want_W = F(X, X[:7]), W(X, X[:7])
    monkeypatch.setattr(dd, "_BLOCK_BYTES", 8 * 120 * 16)  # 16 rows per block
    np.testing.assert_allclose(F(X, X[:7]), want_F, rtol=1e-12)
    np.testing.assert_allclose(W(X, X[:7]), want_W, rtol=1e-10, atol=1e-14)


def test_verbose_reports_progress_and_is_silent_otherwise(cloud, capsys, caplog):
    X, _ = cloud
    FredholmKernel(X, n_neighbors=5, inner_approximation="nystrom", n_components=20, random_state=0)(X)
    WarpedKernel(X, n_neighbors=5, solver="cg")(X[:3])
    assert capsys.readouterr().err == ""
    # verbose=True without logging configured: the stage messages go to stderr, one line each,
    # also for work done after construction (the outer kNN search, the CG solve of a call)
    FredholmKernel(X, n_neighbors=5, inner_approximation="nystrom", n_components=20, random_state=0,
                   verbose=True)(X)
    WarpedKernel(X, n_neighbors=5, solver="cg", verbose=True)(X[:3])
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("graphrkhs: ")]
    assert any(line.startswith("graphrkhs: FredholmKernel: nystrom factor") for line in lines)
    assert any(line.startswith("graphrkhs: FredholmKernel: neighbour search done") for line in lines)
    assert any(line.startswith("graphrkhs: WarpedKernel: CG done in ") for line in lines)
    assert not [r for r in caplog.records if r.name == "graphrkhs"]
    # with the graphrkhs logger at INFO the same messages are log records instead (not printed twice)
    caplog.set_level(logging.INFO, logger="graphrkhs")
    WarpedKernel(X, n_neighbors=5, solver="cg")(X[:3])
    assert "CG done" not in capsys.readouterr().err
    assert any(r.getMessage().startswith("WarpedKernel: CG done in ") for r in caplog.records)


@pytest.mark.parametrize("kw", [{}, {"normalized": True}, {"n_neighbors": 7}, {"inner": "linear"},
                                {"outer": "heat", "inner": "heat"}])
def test_fredholm_with_sigma_equals_a_fresh_kernel_and_shares_the_distances(kw):
    from graphrkhs import FredholmKernel

    rng = np.random.default_rng(4)
    X = rng.normal(size=(60, 3)) + 1e3          # an offset: the shared distances are those of the centred frame
    A = rng.normal(size=(5, 3)) + 1e3
    K1 = FredholmKernel(X, sigma=0.8, **kw)
    for s, si in [(1.5, None), (0.6, 2.0)]:
        K2 = K1.with_sigma(s, si)
        ref = FredholmKernel(X, sigma=s, sigma_inner=si, **kw)
        assert (K2.sigma, K2.sigma_inner) == (ref.sigma, ref.sigma_inner)
        for pts in (X, A):
            np.testing.assert_allclose(K2(pts, X[:9]), ref(pts, X[:9]), rtol=1e-10, atol=1e-300)
    shared = K1._distances
    assert shared is K2._distances
    if kw in ({}, {"normalized": True}):       # the exact Gaussian inner kernel used them
        assert shared[0] is not None and shared[0].shape == (60, 60)
    K1.release_distances()
    assert not shared and K1._distances is None     # released for the whole family
    np.testing.assert_allclose(K2(X[:4], X[:9]), FredholmKernel(X, sigma=0.6, sigma_inner=2.0, **kw)(X[:4], X[:9]),
                               rtol=1e-10, atol=1e-300)
    assert not K2._distances                        # and not computed again by a later call


# ---------------------------------------------------------------------------------------------
# gram_of_rows, right_factor(coef=), right_factor_of_rows, apply_inner, landmark evaluation
# ---------------------------------------------------------------------------------------------

def _dense_fredholm(X, sigma, sigma_inner, normalized, A=None, B=None):
    """Dense oracle P_A K_H P_B^T from the formula (no code of the kernel)."""
    from scipy.spatial.distance import cdist

    def gauss(P, Q, s):
        return np.exp(-cdist(P, Q, "sqeuclidean") / (2 * s * s))

    A = X if A is None else A
    B = X if B is None else B
    PA, PB = gauss(A, X, sigma), gauss(B, X, sigma)
    if normalized:
        PA, PB = PA / PA.sum(1, keepdims=True), PB / PB.sum(1, keepdims=True)
    else:
        PA, PB = PA / len(X), PB / len(X)
    return PA @ gauss(X, X, sigma_inner) @ PB.T


@pytest.mark.parametrize("normalized", [False, True])
@pytest.mark.parametrize("shared", [False, True])
@pytest.mark.parametrize("sigma_inner", [None, 1.7])
def test_gram_of_rows_is_the_dense_gram_and_right_factors_agree(normalized, shared, sigma_inner):
    from graphrkhs import FredholmKernel

    rng = np.random.default_rng(7)
    X = rng.normal(size=(300, 4))           # 300 rows: several row blocks of the half products
    idx = rng.choice(300, 25, replace=False)
    K = FredholmKernel(X, sigma=1.1, sigma_inner=sigma_inner, normalized=normalized)
    if shared:
        K = K.with_sigma(1.1, sigma_inner)
    G, right = K.gram_of_rows(idx)
    ref = _dense_fredholm(X, 1.1, sigma_inner or 1.1, normalized, X[idx], X[idx])
    np.testing.assert_allclose(G, ref, rtol=1e-11, atol=1e-14 * np.abs(ref).max())
    assert (right is None) == shared             # the half products build no K_H P^T
    if shared:
        np.testing.assert_array_equal(G, G.T)
    C = rng.normal(size=(25, 3))
    A = rng.normal(size=(7, 4))
    full = _dense_fredholm(X, 1.1, sigma_inner or 1.1, normalized, A, X[idx])
    oracle = full @ C
    for r in (K.right_factor(X[idx], coef=C), K.right_factor_of_rows(idx, coef=C)):
        np.testing.assert_allclose(K(A, X[idx], right=r), oracle, rtol=1e-10, atol=1e-14 * np.abs(oracle).max())
    np.testing.assert_allclose(K(A, X[idx], right=K.right_factor_of_rows(idx)), full, rtol=1e-10,
                               atol=1e-14 * np.abs(full).max())


def test_apply_inner_is_the_inner_gram_times_v():
    from scipy.spatial.distance import cdist

    from graphrkhs import FredholmKernel

    rng = np.random.default_rng(8)
    X = rng.normal(size=(80, 3))
    V = rng.normal(size=(80, 2))
    KH = np.exp(-cdist(X, X, "sqeuclidean") / (2 * 1.3 ** 2))
    for K in (FredholmKernel(X, sigma=0.9, sigma_inner=1.3), FredholmKernel(X, sigma=0.9).with_sigma(0.9, 1.3)):
        np.testing.assert_allclose(K.apply_inner(V), KH @ V, rtol=1e-12, atol=1e-12)
    ny = FredholmKernel(X, sigma=0.9, sigma_inner=1.3, inner_approximation="nystrom", n_components=80,
                        random_state=0)          # all points as landmarks: F F^T = K_H
    np.testing.assert_allclose(ny.apply_inner(V), KH @ V, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("normalized", [False, True])
def test_landmark_evaluation_exact_with_all_points_as_landmarks(normalized):
    """outer_approximation="nystrom": with every point a landmark phi(a)^T F^T = k(a, X) K^-1 K = k(a, X)."""
    from graphrkhs import FredholmKernel

    rng = np.random.default_rng(9)
    X = rng.normal(size=(60, 2))
    A = rng.normal(size=(9, 2))
    K = FredholmKernel(X, sigma=1.5, inner_approximation="nystrom", n_components=60, normalized=normalized,
                       random_state=0)
    right = K.right_factor(X[:6])
    exact = K(A, X[:6], right=right)
    for mode in ("nystrom", "auto"):
        np.testing.assert_allclose(K(A, X[:6], right=right, outer_approximation=mode), exact, rtol=1e-5,
                                   atol=1e-7 * np.abs(exact).max())
    # an exact inner kernel: "auto" is exact, "nystrom" refuses
    E = FredholmKernel(X, sigma=1.5, normalized=normalized)
    np.testing.assert_array_equal(E(A, X[:6], outer_approximation="auto"), E(A, X[:6]))
    with pytest.raises(ValueError, match="outer_approximation"):
        E(A, X[:6], outer_approximation="nystrom")


def test_landmark_evaluation_agrees_with_exact_predictions():
    """Documented tolerance of the landmark evaluation (FredholmKernel.__call__): m = 150 of n = 1500 points
    (two noisy circles in 6-D), relative error of the values < 10 %, classes agree on >= 95 % of new points."""
    from graphrkhs import FredholmClassifier
    from graphrkhs.datasets import sample_labels

    rng = np.random.default_rng(10)
    def circles(n):
        t = rng.uniform(0, 2 * np.pi, n)
        r = rng.integers(0, 2, n)
        Z = np.column_stack([(1 + r) * np.cos(t), (1 + r) * np.sin(t), 0.3 * rng.normal(size=(n, 4))])
        return Z + 0.1 * rng.normal(size=Z.shape), r
    X, y = circles(1500)
    A, yA = circles(500)
    yp, _ = sample_labels(y, 5, random_state=0)
    est = FredholmClassifier(sigma=0.8, alpha=1e-3, inner_approximation="nystrom", n_components=150,
                             random_state=0).fit(X, yp)
    approx = est.decision_function(A)                # the landmark path (a Nystrom inner kernel)
    exact = np.asarray(est.kernel_(A, est.labeled_points_, right=est.right_)) @ est.coef_ + est.intercept_
    exact = exact.ravel() if approx.ndim == 1 else exact
    assert np.linalg.norm(approx - exact) < 0.1 * np.linalg.norm(exact)
    assert np.mean(np.sign(approx) == np.sign(exact)) >= 0.95


@pytest.mark.parametrize("scale", [1e-3, 1.0, 1e4])
def test_default_sigma_scales_with_x_when_most_pairs_coincide(scale):
    """More than half of the pairs at distance 0 (65 copies of one row among 85): the median distance is 0,
    and the width fell back to 1.0 at every scale of X (the Fredholm classifier then labeled 82 % at
    X * 1e-3 against 100 % at X).  Now the median of the distances between distinct rows, which scales
    with X."""
    rng = np.random.default_rng(0)
    X = np.r_[np.zeros((65, 2)), rng.normal(0, 0.3, (5, 2)), 1 + rng.normal(0, 0.3, (15, 2))]
    D = cdist(X, X)[np.triu_indices(85, 1)]
    expected = np.median(D[D > 0])
    assert default_sigma(scale * X) == pytest.approx(scale * expected, rel=1e-9)
    assert default_sigma(np.ones((4, 2))) == 1.0        # no two distinct rows: the documented 1.0


@pytest.mark.parametrize("n_neighbors", [None, 5])
def test_normalized_fredholm_kernel_of_a_point_far_from_the_data(n_neighbors):
    """normalized=True at a finite point so far from every x_i that each k(a, x_i) underflows to 0: the
    normalized row k(a, x_i) / sum_n k(a, x_n) is still defined (the weights of the nearest points, a
    softmax of -|a - x_i|^2 / (2 sigma^2)); it raised a ValueError ("non-positive sum"), so
    FredholmClassifier(normalized=True).predict failed on such a point."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    K = FredholmKernel(X, sigma=0.5, normalized=True, n_neighbors=n_neighbors)
    a = np.array([[1000.0, 3.0]])
    e = -((a - X) ** 2).sum(axis=1) / (2 * 0.5 ** 2)
    if n_neighbors is not None:
        e[np.argsort(-e)[n_neighbors:]] = -np.inf        # the truncated outer kernel keeps the k nearest
    w = np.exp(e - e.max())
    w /= w.sum()
    PB = K.outer_weights(X[:3])
    PB = PB.toarray() if sp.issparse(PB) else PB
    from graphrkhs import gaussian_kernel
    oracle = w @ gaussian_kernel(X, sigma=0.5) @ PB.T
    np.testing.assert_allclose(K(a, X[:3]), oracle[None, :], rtol=1e-10, atol=0)


def test_warped_rls_equals_laprls_at_a_large_ratio():
    """gamma_I / gamma_A = 1e12 on 60 points with one label per cluster (the estimators' fallback): the
    warped Gram of the labeled points is asymmetric well above rounding, and rls_coefficients symmetrized
    it although f is evaluated with its columns as computed -- an offset of ~0.06 against values ~5e-4."""
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(0, 1, (30, 2)), rng.normal(3, 1, (30, 2))]
    S = np.array([0, 30])
    y = np.array([-1.0, 1.0])
    f = warped_rls(X, S, y, gamma_A=1e-6, gamma_I=1e6, sigma=2.8)
    W = knn_graph(X, 10)
    want = laprls_oracle(X, S, y, 2.8, 1e-6, 1e6, laplacian(W).toarray(), X)
    assert np.abs(f(X) - want).max() < 0.05 * np.abs(want).max()



@pytest.mark.parametrize("outer, normalized", [("gaussian", False), ("gaussian", True), ("heat", True)])
@pytest.mark.parametrize("dtype, scale", [(np.float64, 1e-170), (np.float64, 1e-20), (np.float64, 1e200),
                                          (np.float32, 1e-20), (np.float32, 1e15)])
def test_sparse_outer_weights_at_extreme_scales(outer, normalized, dtype, scale):
    """The kNN-truncated outer weights (n_neighbors) of points and width scaled by c: sigma**2 in
    -0.5 / sigma**2 under/overflowed (ZeroDivisionError at sigma = 1e-170, OverflowError at 1e200), a float32
    factor -0.5 / sigma^2 = -6e39 became -inf and the self weight 0 * -inf = NaN (sigma = 1e-20), and
    dist * dist overflowed for |x| ~ 1e200.  These weights depend on d / sigma only (the normalized heat
    weights too: the normalization cancels its peak), so (X c, sigma c) has the weights of (X, sigma), as
    the dense outer kernel has (oracle: the formula on distances from cdist of the unscaled points)."""
    rng = np.random.default_rng(3)
    X, A = rng.normal(size=(30, 2)), rng.normal(size=(4, 2))
    k, sigma = 5, 0.9
    K = FredholmKernel((X * scale).astype(dtype), outer=outer, sigma=sigma * scale, normalized=normalized,
                       n_neighbors=k)
    for pts in (A, X):
        P = K.outer_weights((pts * scale).astype(dtype)).toarray().astype(np.float64)
        D = cdist(pts, X, "sqeuclidean")
        nearest = np.argsort(D, axis=1)[:, :k]
        rows = np.arange(len(pts))[:, None]
        w = np.exp(-D[rows, nearest] / (2 * sigma**2))
        want = w / w.sum(axis=1, keepdims=True) if normalized else w / 30
        assert np.isfinite(P).all()
        np.testing.assert_allclose(P[rows, nearest], want, rtol=tol(dtype) * 10)


@pytest.mark.parametrize("scale", [1e-20, 1e20])
def test_sparse_heat_outer_weights_at_extreme_widths(scale):
    """The kNN-truncated heat outer weights (4 pi t)^(-d/2) exp(-d^2 / 4t) / n, t = sigma^2 / 2, at widths
    where the peak c^-2 (c the scale) is far from 1 but inside float64: the formula evaluated in logarithms
    (guards the evaluation of the weights through the scaled exponent and the log-normalization)."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 2))
    k, sigma = 5, 0.9
    K = FredholmKernel(X * scale, outer="heat", sigma=sigma * scale, n_neighbors=k)
    P = K.outer_weights(X * scale).toarray()
    D = cdist(X, X, "sqeuclidean")
    nearest = np.argsort(D, axis=1)[:, :k]
    rows = np.arange(30)[:, None]
    log_peak = -(np.log(2 * np.pi) + 2 * np.log(sigma * scale))      # -d/2 log(4 pi t), d = 2
    want = np.exp(log_peak - D[rows, nearest] / (2 * sigma**2)) / 30
    np.testing.assert_allclose(P[rows, nearest], want, rtol=1e-10)


def test_sparse_heat_outer_weights_whose_peak_overflows():
    """sigma = 1e-170 in 2-D: the heat peak (4 pi t)^(-1) = 1e339 is not a float64.  The dense outer kernel
    says so (ValueError naming sigma); the kNN-truncated one returned NaN weights."""
    X = np.random.default_rng(3).normal(size=(30, 2)) * 1e-170
    K = FredholmKernel(X, outer="heat", sigma=1e-170, n_neighbors=5)
    with pytest.raises(ValueError, match="sigma = 1e-170 is too small for the normalized heat kernel"):
        K.outer_weights(X)


@pytest.mark.parametrize("solver", ["direct", "cg", "nystrom"])
def test_warped_kernel_refuses_a_weight_ratio_that_overflows(solver):
    """gamma_I / (gamma_A n^2) = 1e305 / (1e-10 * 1600) overflows to inf: the direct and Nystrom solvers
    returned an all-NaN kernel, CG a FloatingPointError blaming "the operator".  A ValueError naming
    gamma_I and gamma_A, before the graph is built."""
    X = np.random.default_rng(0).normal(size=(40, 2))
    with pytest.raises(ValueError, match=r"gamma_I / \(gamma_A n\^2\)"):
        WarpedKernel(X, sigma=1.0, gamma_A=1e-10, gamma_I=1e305, n_neighbors=5, solver=solver, random_state=0)


@pytest.mark.parametrize("scale", [1e-310, 1e-200, 1e200])
def test_random_features_at_extreme_scales(scale):
    """Random Fourier features of the inner Gaussian at points and width scaled by c: omega ~ N(0, 1/sigma^2)
    was drawn with scale 1/sigma = inf for sigma = 1e-310 (the default width of X * 1e-310), and every
    feature was NaN.  cos(x^T omega + b) depends on x / sigma only: the features of (X c, sigma c) equal
    those of (X, sigma) for the same seed."""
    X = np.random.default_rng(1).normal(size=(30, 2))
    ref = FredholmKernel(X, sigma=0.8, inner_approximation="random_features", n_components=40, random_state=5)
    got = FredholmKernel(X * scale, sigma=0.8 * scale, inner_approximation="random_features", n_components=40,
                         random_state=5)
    F_ref, F_got = ref.features(X), got.features(X * scale)
    assert np.isfinite(F_got).all()
    np.testing.assert_allclose(F_got, F_ref, rtol=1e-9, atol=1e-12 * np.abs(F_ref).max())



@pytest.mark.parametrize("make", [
    lambda X: FredholmKernel(X, sigma=1.0, n_neighbors=5),
    lambda X: FredholmKernel(X, sigma=1.0, n_neighbors=5, inner_approximation="random_features",
                             n_components=20, random_state=0),
    lambda X: WarpedKernel(X[:40], sigma=1.0, n_neighbors=5),
    lambda X: WarpedKernel(X[:40], sigma=1.0, n_neighbors=5, solver="nystrom", n_components=10, random_state=0),
])
def test_data_dependent_kernel_matrix_estimates_its_memory(make, monkeypatch):
    """K(A) of a data-dependent kernel is a dense (len(A), len(A)) matrix (the exact Fredholm kernel's right
    factor an (n, len(A)) one), but only the dense outer weights and pairwise_kernel's row blocks were
    guarded: the kNN-truncated Fredholm kernel, and the warped kernel whose row blocks each fit (blocks of 3
    rows here, standing for many points against a large n), filled a result of 300 x 300 (703 KiB) past a
    48 KiB limit.  A MemoryError naming the size now, before the products."""
    from graphrkhs._core import validation
    from graphrkhs.kernels import _datadependent

    X = np.random.default_rng(0).normal(size=(300, 2))
    K = make(X)
    G = K(X[:10])
    assert G.shape == (10, 10) and np.isfinite(G).all()
    if isinstance(K, FredholmKernel):
        K.outer_weights(X)      # the kNN search of X (guarded on its own) done and cached before the limit
    monkeypatch.setattr(_datadependent, "_BLOCK_BYTES", 1024)
    monkeypatch.setattr(validation, "_physical_memory", lambda: 64 * 2**10)   # limit 48 KiB
    with pytest.raises(MemoryError, match="300"):
        K(X)


def test_default_sigma_estimates_its_memory_before_allocating(monkeypatch):
    """default_sigma forms all m^2 distances of its sample of m = min(n, max_points) rows; max_points=10**6 on
    10**6 points asked for 8 TB without a check: here 300 rows (300^2 distances and their pair indices,
    about 2 MiB) passed a 48 KiB limit.  A MemoryError naming max_points now."""
    from graphrkhs._core import validation

    X = np.random.default_rng(0).normal(size=(300, 2))
    D = cdist(X[:30], X[:30])[np.triu_indices(30, 1)]
    assert default_sigma(X[:30]) == pytest.approx(np.median(D), rel=1e-12)
    monkeypatch.setattr(validation, "_physical_memory", lambda: 64 * 2**10)   # limit 48 KiB
    with pytest.raises(MemoryError, match="max_points"):
        default_sigma(X, max_points=300)


@pytest.mark.parametrize("dtype,scale,outer,inner,sigma,fragment", [
    # the bound |k_F| <= (outer peak)^2 (inner peak) below the smallest normal number: K_F was the zero matrix
    # (or subnormals with lost digits), silently
    (np.float32, 1e-30, "linear", "gaussian", 1.0, "rescale X"),
    (np.float32, 1e-10, "linear", "gaussian", 1.0, "use float64 points"),
    (np.float32, 1e-20, "gaussian", "linear", 1.0, "rescale X"),
    (np.float64, 1e-80, "linear", "linear", 1.0, "rescale X"),
    (np.float64, 1e-160, "polynomial", "gaussian", 1.0, None),   # (r^2 + 1)^2 = 1: representable, no error
])
def test_fredholm_kernel_refuses_points_whose_kernel_underflows(dtype, scale, outer, inner, sigma, fragment):
    X = (np.random.default_rng(0).normal(size=(20, 3)) * scale).astype(dtype)
    if fragment is None:
        K = FredholmKernel(X, outer=outer, inner=inner, sigma=sigma)(X)
        assert np.abs(K).max() > 0.5
        return
    with pytest.raises(ValueError, match=rf"underflows {np.dtype(dtype).name}.*{fragment}"):
        FredholmKernel(X, outer=outer, inner=inner, sigma=sigma)


def test_fredholm_heat_kernel_in_high_dimension_is_refused_not_zero():
    # heat outer kernel in d = 784 with sigma = 5: (4 pi t)^(-d/2) = 1e-861 twice: K_F was exactly 0
    X = np.random.default_rng(0).normal(size=(10, 784))
    with pytest.raises(ValueError, match=r"underflows float64.*smaller sigma or the Gaussian kernel"):
        FredholmKernel(X, outer="heat", inner="gaussian", sigma=5.0)
    # normalized: the heat factor cancels in the row normalization; a Gaussian inner kernel is at most 1
    K = FredholmKernel(X, outer="heat", inner="gaussian", sigma=5.0, normalized=True)(X)
    assert np.isfinite(K).all() and np.abs(K).max() > 0


def test_fredholm_linear_kernel_of_small_float64_points_is_exact():
    # float64 points of norm 1e-30: |k_F| ~ 1e-120 is representable and computed to full precision
    X = np.random.default_rng(1).normal(size=(15, 3))
    K1 = FredholmKernel(X, outer="linear", inner="linear")(X)
    Ks = FredholmKernel(X * 2.0 ** -100, outer="linear", inner="linear")(X * 2.0 ** -100)
    np.testing.assert_allclose(Ks * 2.0 ** 600, K1, rtol=1e-13)


@pytest.mark.parametrize("rows", [None, slice(0, 5)])
def test_fredholm_kernel_that_overflows_is_an_error_not_inf(rows):
    # float32 points of norm ~1e30 with a linear inner kernel: <x_i, x_j> ~ 1e60 exceeds float32's 3.4e38.
    # K_F came back with inf entries and only numpy's RuntimeWarning (the training Gram and any other rows)
    X = (np.random.default_rng(0).normal(size=(20, 3)) * 1e30).astype(np.float32)
    K = FredholmKernel(X, outer="gaussian", inner="linear", sigma=1e30)
    A = X if rows is None else X[rows].copy()
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)       # no numpy overflow note beside the error
        with pytest.raises(ValueError, match=r"overflows float32.*rescale X.*float64 points"):
            K(A, X)
    # the same points in float64 are representable: finite, and the definition's P K_H P^T
    X64 = X.astype(np.float64)
    K64 = FredholmKernel(X64, outer="gaussian", inner="linear", sigma=1e30)
    P = K64.outer_weights(X64)
    P = P.toarray() if hasattr(P, "toarray") else np.asarray(P)
    np.testing.assert_allclose(K64(X64[rows] if rows is not None else X64, X64),
                               (P @ (X64 @ X64.T) @ P.T)[rows if rows is not None else slice(None)], rtol=1e-10)


@pytest.mark.parametrize("kind", ["combinatorial", "normalized", "randomwalk"])
def test_warped_kernel_estimates_the_fill_in_of_high_laplacian_powers(monkeypatch, kind):
    # WarpedKernel forms a root R of L^p by sparse products and M = c R^T R, without a memory estimate; powers of
    # a sparse L fill in (n^2 nonzeros on this 400-point cycle at p = 200).  The memory limit is lowered to 768 KiB
    # so that a small problem stands for a large one: a MemoryError naming the power, before the products.
    from graphrkhs import WarpedKernel
    from graphrkhs._core import validation
    t = np.linspace(0.0, 2 * np.pi, 400, endpoint=False)
    X = np.c_[np.cos(t), np.sin(t)]
    i = np.arange(400)
    W = sp.csr_array((np.ones(800), (np.r_[i, i], np.r_[(i + 1) % 400, (i - 1) % 400])), shape=(400, 400))
    monkeypatch.setattr(validation, "_physical_memory", lambda: 2**20)
    with pytest.raises(MemoryError, match=r"L\^200 \(up to .* nonzeros.*use a smaller laplacian_power"):
        WarpedKernel(X, sigma=1.0, graph=W, laplacian=kind, laplacian_power=200, solver="nystrom",
                     n_components=20, landmarks="uniform", random_state=0)


def _two_blobs():
    rng = np.random.default_rng(0)
    return np.vstack([rng.normal(size=(30, 2)), rng.normal(size=(30, 2)) + [4, 0]])


def test_warped_cg_kernel_is_accurate_to_tol_at_a_large_ratio():
    """c = gamma_I / (gamma_A n^2) = 2.8e4 on two blobs: CG stopped at the relative residual tol = 1e-8 of
    (I + c R K R^T) s = R k_b, but c amplifies that residual in the kernel (by up to sqrt(c k_b^T L k_b)
    = 284 here): error 4.5e-8 against the dense formula, above tol, with no warning.  The kernel is now
    accurate to tol (oracle: the dense solve of I + M K, itself accurate to ~1.4e-9 here, measured
    against a 40-digit solve)."""
    X = _two_blobs()
    gA, gI = 1.0, 1e8
    M = dense_M(X, 10, "combinatorial", 1, gA, gI)
    KXX = gauss(X, X, 2.8)
    want = KXX - KXX @ np.linalg.solve(np.eye(60) + M @ KXX, M @ KXX)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = WarpedKernel(X, sigma=2.8, gamma_A=gA, gamma_I=gI, solver="cg", tol=1e-8)(X)
    assert np.abs(got - want).max() < 1e-8


def test_warped_cg_warns_when_the_ratio_puts_tol_out_of_reach():
    """The same blobs at tol = 1e-12: the residual 1e-12 / 284 the kernel needs lies below CG's
    attainable floor, so the kernel's error (2e-12, measured against a 40-digit solve) cannot be
    bounded by tol.  It was returned silently; an AccuracyWarning with the bound and the remedy."""
    X = _two_blobs()
    with pytest.warns(AccuracyWarning, match=r"bounds the kernel's error by .* use a smaller gamma_I / gamma_A"):
        WarpedKernel(X, sigma=2.8, gamma_A=1.0, gamma_I=1e8, solver="cg", tol=1e-12)(X)


@pytest.mark.parametrize("d", [2, 20])     # the kd-tree lookup (d <= 16) and the blocked brute force
def test_outer_weights_of_new_points_do_not_depend_on_the_row_order(d):
    # a cell centre of the integer grid has 4 grid points at distance 0.71 and 8 at 1.58: its 6 outer
    # neighbours take 2 of the 8, by index (kd-tree) or by argpartition's order (brute force), where the
    # fitted points' own lists (knn_search) take them by tie rank; P_A moved with the row order of X
    g = np.arange(8.0)
    X = np.zeros((64, d))
    X[:, :2] = [(a, b) for a in g for b in g]
    A = np.zeros((49, d))
    A[:, :2] = [(a + 0.5, b + 0.5) for a in g[:7] for b in g[:7]]
    perm = np.random.default_rng(7).permutation(64)
    P = FredholmKernel(X, sigma=1.0, n_neighbors=6).outer_weights(A).toarray()
    Q = FredholmKernel(X[perm], sigma=1.0, n_neighbors=6).outer_weights(A).toarray()
    assert (np.count_nonzero(P, axis=1) == 6).all()
    np.testing.assert_allclose(Q, P[:, perm], rtol=1e-12, atol=0)
