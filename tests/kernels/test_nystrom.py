"""NystromFeatures: the factor against the kernel matrix (exact with all points as landmarks,
interpolation at the landmarks, a PSD remainder whose trace is the reported error, the rank
chosen by the tolerance) and the warped kernel on it."""

import warnings

import numpy as np
import pytest

import graphrkhs as g

RNG = np.random.default_rng(0)
X = RNG.normal(size=(400, 3))


@pytest.mark.parametrize("kernel,kw", [("gaussian", {"sigma": 1.0}), ("polynomial", {"degree": 2, "coef0": 1.0}),
                                       (lambda A, B: (A @ B.T + 1.0) ** 2, {})])
def test_all_points_as_landmarks_is_exact(kernel, kw):
    Z = X[:60]
    ny = g.NystromFeatures(Z, kernel=kernel, n_components=60, **kw)
    K = g.pairwise_kernel(Z, kernel=kernel, **kw)
    F = ny.features_
    np.testing.assert_allclose(F @ F.T, K, atol=1e-8 * np.abs(K).max())
    assert ny.n_components_ == 60
    # the trace error of the eigenvalues at rounding level, measured, not asserted to be 0
    assert 0.0 <= ny.error_ <= 1e-10
    np.testing.assert_allclose(ny.error_, max((np.trace(K) - np.sum(F * F)) / np.trace(K), 0.0), atol=1e-12)


@pytest.mark.parametrize("sigma", [0.5, 3.0])
def test_all_points_as_landmarks_in_float32_report_the_trace_error_of_the_dropped_eigenvalues(sigma):
    # float32 kernel blocks: K_ZZ's eigenvalues below m eps32 of the largest are dropped and leave a
    # trace error of ~1e-4 (error_ read 0 here); error_ is the dense oracle's trace(K - F F^T) / trace(K)
    Z = np.random.default_rng(1).normal(size=(500, 2)).astype(np.float32)
    ny = g.NystromFeatures(Z, sigma=sigma, n_components=500)
    assert ny.rank_ < 500
    K = g.pairwise_kernel(Z.astype(np.float64), sigma=sigma)
    F = ny.features_.astype(np.float64)
    R = K - F @ F.T
    oracle = np.trace(R) / np.trace(K)
    assert oracle > 1e-6
    np.testing.assert_allclose(ny.error_, oracle, rtol=0.02)


@pytest.mark.parametrize("landmarks", ["kmeans", "uniform"])
def test_factor_against_the_kernel_matrix(landmarks):
    ny = g.NystromFeatures(X, sigma=1.0, n_components=80, tol=0.0, landmarks=landmarks, random_state=0)
    K = g.pairwise_kernel(X, sigma=1.0)
    F = ny.features_
    R = K - F @ F.T
    # the remainder is PSD (Schur complement) and its trace is the reported error (sample = all 400 points)
    assert np.linalg.eigvalsh((R + R.T) / 2).min() > -1e-8
    np.testing.assert_allclose(np.trace(R) / np.trace(K), ny.error_, rtol=1e-6, atol=1e-12)
    # the approximation interpolates the kernel at the landmarks: phi(z)^T phi(x) = k(z, x)
    Kz = g.pairwise_kernel(ny.landmarks_, X, sigma=1.0)
    np.testing.assert_allclose(ny.transform(ny.landmarks_) @ F.T, Kz, atol=1e-7)
    np.testing.assert_allclose(ny.kernel(X[:5], X[5:9]), F[:5] @ F[5:9].T, atol=1e-12)
    if landmarks == "uniform":
        np.testing.assert_array_equal(X[ny.landmark_index_], ny.landmarks_)


def test_rank_by_tolerance():
    caps, warned = {}, {}
    for tol in (1e-1, 1e-2, 1e-4, 0.0):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ny = g.NystromFeatures(X, sigma=1.0, n_components=300, tol=tol, landmarks="uniform", random_state=1)
        caps[tol] = ny.n_components_
        warned[tol] = any(issubclass(w.category, g.AccuracyWarning) for w in caught)
        if ny.n_components_ < 300:
            assert ny.error_ <= tol
        # the cap (300 < n landmarks) reached with the error still above a positive tol: said, else silent
        assert warned[tol] == (tol > 0 and ny.n_components_ == 300 and ny.error_ > tol)
    assert warned[1e-4] and not warned[0.0]
    assert caps[0.0] == 300
    assert caps[1e-1] <= caps[1e-2] <= caps[1e-4] <= caps[0.0]
    assert caps[1e-1] < 300


def test_float32_points():
    Z = X[:100].astype(np.float32)
    ny = g.NystromFeatures(Z, sigma=1.0, n_components=100)
    assert ny.features_.dtype == np.float32
    K = g.pairwise_kernel(Z.astype(np.float64), sigma=1.0)
    # eigenvalues below float32 rounding are dropped: the error is at float32 level relative to K
    assert np.abs(ny.features_.astype(np.float64) @ ny.features_.T.astype(np.float64) - K).max() < 1e-3


def test_fredholm_inner_uses_the_factor():
    """FredholmKernel's Nystrom inner kernel is this factor (uniform landmarks, no rank search)."""
    Z = X[:200]
    K = g.FredholmKernel(Z, sigma=1.0, inner_approximation="nystrom", n_components=50, random_state=3)
    ny = g.NystromFeatures(Z, sigma=1.0, n_components=50, tol=0.0, landmarks="uniform", random_state=3)
    np.testing.assert_allclose(K._factor, ny.features_, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("gamma_I", [0.0, 1.0, 100.0])
def test_warped_nystrom_all_landmarks_equals_direct(gamma_I):
    Z = X[:150]
    a = g.WarpedKernel(Z, sigma=1.0, gamma_A=1e-3, gamma_I=gamma_I, n_neighbors=6, solver="direct")
    b = g.WarpedKernel(Z, sigma=1.0, gamma_A=1e-3, gamma_I=gamma_I, n_neighbors=6, solver="nystrom",
                       n_components=150)
    new = RNG.normal(size=(7, 3))
    for A, B in ((Z[:10], Z[10:30]), (new, Z[:12]), (new, None)):
        Ka = a(A, B)
        np.testing.assert_allclose(b(A, B), Ka, atol=1e-9 * np.abs(Ka).max())


def test_warped_nystrom_low_rank_error():
    """m = 100 of 400 points: the warped kernel within 1e-2 (relative, max-norm) of the direct one."""
    a = g.WarpedKernel(X, sigma=1.0, gamma_A=1e-3, gamma_I=1.0, n_neighbors=6, solver="direct")
    b = g.WarpedKernel(X, sigma=1.0, gamma_A=1e-3, gamma_I=1.0, n_neighbors=6, solver="nystrom",
                       n_components=100, landmarks="kmeans", random_state=0)
    Ka, Kb = a(X[:40], X[40:80]), b(X[:40], X[40:80])
    assert np.abs(Ka - Kb).max() <= 1e-2 * np.abs(Ka).max()
    G = b(X[:30])
    assert np.allclose(G, G.T) and np.linalg.eigvalsh(G).min() > -1e-10


def test_bad_inputs_before_work():
    with pytest.raises(ValueError, match="landmarks"):
        g.NystromFeatures(X, landmarks="random")
    with pytest.raises(ValueError, match="n_components"):
        g.NystromFeatures(X, n_components=0)
    with pytest.raises(ValueError, match="tol"):
        g.NystromFeatures(X, tol=-1.0)
    ny = g.NystromFeatures(X[:20], n_components=20)
    with pytest.raises(ValueError, match="features"):
        ny.transform(np.ones((2, 4)))
    with pytest.raises(ValueError, match="solver"):
        g.WarpedKernel(X, solver="lowrank")
    # dtype=int cast the features to integers (every entry truncated to 0 or +-1), silently
    for bad in (int, np.int32, "float16", bool):
        with pytest.raises(ValueError, match="dtype must be float32, float64 or None"):
            g.NystromFeatures(X[:20], n_components=20, dtype=bad)
    with pytest.raises(TypeError, match="dtype must be"):
        g.NystromFeatures(X[:20], n_components=20, dtype="not a dtype")


@pytest.mark.parametrize("n_b", [5, 40])
def test_fredholm_factored_call_either_order(n_b):
    """K_F(A, B) = Phi_A Phi_B^T whichever way the product is grouped (|B| <= m or |B| > m components)."""
    X = np.random.default_rng(3).normal(size=(120, 3))
    kern = g.FredholmKernel(X, sigma=1.0, inner_approximation="nystrom", n_components=20, random_state=0)
    A, B = X[:30], X[50:50 + n_b]
    expected = kern.features(A) @ kern.features(B).T
    np.testing.assert_allclose(kern(A, B), expected, rtol=1e-10, atol=1e-14 * np.abs(expected).max())


def test_with_sigma_is_the_factor_of_the_same_landmarks():
    """with_sigma(X, s2): the same uniform landmarks, F F^T = k(X, Z) K_ZZ^+ k(Z, X) at the new width (the
    factor built from scratch with the same seed), and error_ is the trace error on X."""
    X = np.random.default_rng(5).normal(size=(300, 3))
    NystromFeatures, pairwise_kernel = g.NystromFeatures, g.pairwise_kernel
    a = NystromFeatures(X, sigma=0.7, n_components=60, tol=0, landmarks="uniform", random_state=2)
    b = a.with_sigma(X, 1.6)
    c = NystromFeatures(X, sigma=1.6, n_components=60, tol=0, landmarks="uniform", random_state=2)
    np.testing.assert_array_equal(b.landmarks_, c.landmarks_)
    Z = X[b.landmark_index_]
    KXZ = pairwise_kernel(X, Z, sigma=1.6)
    expect = KXZ @ np.linalg.pinv(pairwise_kernel(Z, None, sigma=1.6), rcond=1e-13) @ KXZ.T
    np.testing.assert_allclose(b.features_ @ b.features_.T, expect, atol=1e-6)
    np.testing.assert_allclose(b.error_, (300 - np.trace(expect)) / 300, atol=1e-8)
    d = a.with_sigma(X, 1.6, keep_distances=True)           # the distances kept: the same factor
    d2 = a.with_sigma(X, 1.6, keep_distances=True)
    np.testing.assert_allclose(d.features_ @ d.features_.T, expect, atol=1e-6)
    np.testing.assert_allclose(d2.features_, d.features_, atol=1e-12)
    np.testing.assert_allclose(a.features_ @ a.features_.T,
                               NystromFeatures(X, sigma=0.7, n_components=60, tol=0, landmarks="uniform",
                                               random_state=2).kernel(X), atol=1e-10)


def test_nystrom_kernel_matrix_estimates_its_memory(monkeypatch):
    """NystromFeatures.kernel(A, B) forms the dense (len(A), len(B)) product phi(A) phi(B)^T; its feature
    blocks are small (len(A) x r) but the product was allocated unchecked: 300 x 300 (703 KiB) passed a
    48 KiB limit.  A MemoryError naming the size now; a small request is phi(A) phi(B)^T."""
    from graphrkhs._core import validation

    X = np.random.default_rng(0).normal(size=(300, 2))
    ny = g.NystromFeatures(X, sigma=1.0, n_components=10, landmarks="uniform", random_state=0)
    FA, FB = ny.transform(X[:5]), ny.transform(X[5:9])
    np.testing.assert_allclose(ny.kernel(X[:5], X[5:9]), FA @ FB.T, rtol=1e-12)
    monkeypatch.setattr(validation, "_physical_memory", lambda: 64 * 2**10)   # limit 48 KiB
    with pytest.raises(MemoryError, match="300 x 300"):
        ny.kernel(X)
