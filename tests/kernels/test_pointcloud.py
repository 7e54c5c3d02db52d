"""Point-cloud kernels: heat semigroup family, G-RLS features, anchors and kernel construction."""

import numpy as np
import pytest
from sklearn.metrics.pairwise import rbf_kernel

from graphrkhs import (
    GRLSKernel,
    feature_map,
    heat_kernel,
    heat_log_normalization,
    heat_semigroup,
    pairwise_kernel,
    unisolvent_points,
)

DTYPES = [np.float32, np.float64]


def tol(dtype):
    return 1e-5 if dtype == np.float32 else 1e-12


@pytest.fixture
def pts():
    return np.random.default_rng(0).normal(size=(40, 3))


# ---------------------------------------------------------------------------
# pairwise_kernel (existing behaviour that other modules rely on)
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_gaussian_matches_sklearn_and_blocks(pts, dtype):
    X = pts.astype(dtype)
    K = pairwise_kernel(X, kernel="gaussian", sigma=1.3)
    assert K.dtype == dtype
    np.testing.assert_allclose(K, rbf_kernel(pts, gamma=1 / (2 * 1.3**2)), rtol=tol(dtype) * 10, atol=tol(dtype))
    Kb = pairwise_kernel(X, kernel="gaussian", sigma=1.3, block_bytes=1)   # one row per block
    np.testing.assert_allclose(Kb, K, rtol=0, atol=tol(dtype))


# ---------------------------------------------------------------------------
# Heat kernels
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_heat_scaled_s1_is_the_gaussian(pts, dtype):
    X = pts.astype(dtype)
    K = heat_kernel(X, sigma=0.7)
    assert K.dtype == dtype
    np.testing.assert_allclose(K, pairwise_kernel(pts, kernel="gaussian", sigma=0.7), rtol=tol(dtype) * 10,
                               atol=tol(dtype))


def test_heat_unscaled_closed_form_and_pairwise_heat(pts):
    sigma, m = 0.9, 2
    t = sigma**2 / 2
    D2 = ((pts[:, None, :] - pts[None, :, :]) ** 2).sum(-1)
    for s in (1, 2, 3):
        expected = (4 * np.pi * s * t) ** (-m / 2) * np.exp(-D2 / (4 * s * t))
        np.testing.assert_allclose(heat_kernel(pts, sigma=sigma, m=m, s=s, scaled=False), expected, rtol=1e-12)
    np.testing.assert_allclose(heat_kernel(pts, sigma=sigma, m=m, scaled=False),
                               pairwise_kernel(pts, kernel="heat", sigma=sigma, m=m), rtol=1e-12)
    assert np.isclose(heat_log_normalization(sigma, m), np.log((4 * np.pi * t) ** (-m / 2)))


def test_heat_semigroup_by_quadrature_1d():
    """K_t * K_t = K_2t and K_t * K_2t = K_3t (uniform density on a wide 1-D grid)."""
    sigma = 0.3
    grid = np.linspace(-6, 7, 26001)
    x = np.array([[0.1], [0.5], [1.2]])
    Kt_xg = heat_kernel(x, grid[:, None], sigma=sigma, m=1, scaled=False)
    K2t_xg = heat_kernel(x, grid[:, None], sigma=sigma, m=1, s=2, scaled=False)
    quad2 = np.trapezoid(Kt_xg[:, None, :] * Kt_xg[None, :, :], grid, axis=-1)
    quad3 = np.trapezoid(Kt_xg[:, None, :] * K2t_xg[None, :, :], grid, axis=-1)
    np.testing.assert_allclose(quad2, heat_kernel(x, sigma=sigma, m=1, s=2, scaled=False), rtol=1e-8)
    np.testing.assert_allclose(quad3, heat_kernel(x, sigma=sigma, m=1, s=3, scaled=False), rtol=1e-8)
    # the scaled family keeps the same ratios
    K1, K2, K3 = heat_semigroup(x, sigma=sigma, m=1)
    c = np.exp(heat_log_normalization(sigma, 1))
    np.testing.assert_allclose(K2 * c, heat_kernel(x, sigma=sigma, m=1, s=2, scaled=False), rtol=1e-12)
    np.testing.assert_allclose(K3 * c, heat_kernel(x, sigma=sigma, m=1, s=3, scaled=False), rtol=1e-12)


@pytest.mark.parametrize("dtype", DTYPES)
def test_heat_scaled_no_overflow_in_high_dimension(dtype):
    rng = np.random.default_rng(1)
    X = rng.uniform(size=(5, 784)).astype(dtype)
    with np.errstate(over="raise", invalid="raise"):
        K1, K2, K3 = heat_semigroup(X, sigma=0.1)      # (4 pi t)^(-392) = 10^(470): would overflow
    for K in (K1, K2, K3):
        assert np.isfinite(K).all() and K.dtype == dtype
    assert np.allclose(np.diag(K1), 1.0)
    if dtype == np.float64:    # 2^-392 is representable in float64; float32 underflows to 0 harmlessly
        np.testing.assert_allclose(np.log(np.diag(K2)), -392 * np.log(2), rtol=1e-12)
        np.testing.assert_allclose(np.log(np.diag(K3)), -392 * np.log(3), rtol=1e-12)


def test_heat_penalty_is_psd(pts):
    K1, K2, K3 = heat_semigroup(pts, sigma=0.8)
    P = K1 - 2 * K2 + K3
    assert np.linalg.eigvalsh((P + P.T) / 2).min() > -1e-12


@pytest.mark.parametrize("kwargs, exc", [
    (dict(sigma=0.0), ValueError),
    (dict(sigma=-1.0), ValueError),
    (dict(sigma="1"), TypeError),
    (dict(m=0), ValueError),
    (dict(m=2.5), TypeError),
    (dict(s=0), ValueError),
    (dict(scaled="yes"), TypeError),
])
def test_heat_bad_parameters(pts, kwargs, exc):
    with pytest.raises(exc):
        heat_kernel(pts, **kwargs)


@pytest.mark.parametrize("A, B, exc, match", [
    (np.array([[np.nan, 0.0]]), None, ValueError, "NaN"),
    (np.zeros((3, 2)), np.zeros((3, 3)), ValueError, "same number of features"),
    (np.zeros(3), None, ValueError, "2-D"),
    ("abc", None, TypeError, "A must"),
])
def test_heat_bad_points(A, B, exc, match):
    with pytest.raises(exc, match=match):
        heat_semigroup(A, B, sigma=1.0)


# ---------------------------------------------------------------------------
# Features and anchors
# ---------------------------------------------------------------------------

def test_feature_maps():
    X = np.array([[1.0, 2.0], [3.0, -1.0]])
    np.testing.assert_array_equal(feature_map(X, "constant"), np.ones((2, 1)))
    np.testing.assert_array_equal(feature_map(X, "linear"), [[1, 1, 2], [1, 3, -1]])
    np.testing.assert_array_equal(feature_map(X, "poly2"), [[1, 1, 2, 1, 2, 4], [1, 3, -1, 9, -3, 1]])
    np.testing.assert_array_equal(feature_map(X, lambda A: A[:, 0]), [[1.0], [3.0]])


@pytest.mark.parametrize("features, exc", [
    ("cubic", ValueError),
    (lambda A: np.ones((A.shape[0] + 1, 1)), ValueError),
    (lambda A: np.full((A.shape[0], 1), np.nan), ValueError),
])
def test_feature_map_bad(features, exc):
    with pytest.raises(exc, match="features"):
        feature_map(np.zeros((3, 1)), features)


def test_unisolvent_points_avoids_duplicates_and_rejects_dependent_features():
    x = np.array([0.0, 0.0, 0.0, 1.0, 2.0])[:, None]
    Psi = feature_map(x, "poly2")
    idx = unisolvent_points(Psi)
    assert np.linalg.matrix_rank(Psi[idx]) == 3            # "the first 3" would be singular
    with pytest.raises(ValueError, match="not unisolvent"):
        unisolvent_points(np.column_stack([np.ones(5), 2 * np.ones(5)]))
    with pytest.raises(ValueError, match="not unisolvent"):
        unisolvent_points(feature_map(np.array([[1.0], [1.0], [2.0]]), "poly2"))   # 2 distinct x for a parabola
    with pytest.raises(ValueError, match="cannot be unisolvent"):
        unisolvent_points(np.ones((2, 3)))


# ---------------------------------------------------------------------------
# G-RLS kernel construction (Li, Lee & Leung 2006, Eqs. 10-18)
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("features", ["constant", "linear", "poly2"])
def test_grls_kernel_properties(features):
    rng = np.random.default_rng(3)
    X = rng.uniform(-2, 2, size=(30, 2))
    Z = rng.uniform(-2, 2, size=(7, 2))
    Kc = GRLSKernel(X, features=features, sigma=1.0)
    Xa = Kc.anchor_points
    q = Xa.shape[0]
    phi_Z = Kc.lagrange(Z)
    np.testing.assert_allclose(Kc.lagrange(Xa), np.eye(q), atol=1e-10)        # Eq. 13
    np.testing.assert_allclose(Kc(Xa, Z), phi_Z.T, atol=1e-10)               # Eq. 14: K_{x_a} = phi
    np.testing.assert_allclose(Kc.H(Xa, Z), 0, atol=1e-10)                   # Eq. 15: H_{x_a} = 0
    np.testing.assert_allclose(Kc(Xa), np.eye(q), atol=1e-10)                # orthonormal in H_K (Eq. 18)
    G = Kc(X)
    np.testing.assert_allclose(G, G.T, atol=1e-12)
    assert np.linalg.eigvalsh(G).min() > 0                                    # positive definite
    # the features lie in span(phi): psi(x) = phi(x) psi(X_a)
    np.testing.assert_allclose(feature_map(Z, features), phi_Z @ feature_map(Xa, features), atol=1e-9)


def test_grls_kernel_rejects_non_unisolvent():
    with pytest.raises(ValueError, match="unisolvent"):
        GRLSKernel(np.array([[0.0], [1.0]]), features="poly2")


def test_kernel_operator_validates_at_construction_and_block_shapes():
    from graphrkhs import KernelOperator

    X = np.random.default_rng(0).normal(size=(30, 3))
    # a blockwise operator (nothing cached) accepted these and failed at its first product, or never
    # (scale=nan: every product NaN)
    for kw, err, match in [
        (dict(sigma=0.0), ValueError, "sigma must be > 0"),
        (dict(kernel="rbf"), ValueError, "kernel must be one of"),
        (dict(kernel="heat_penalty", sigma=-1.0), ValueError, "sigma must be > 0"),
        (dict(kernel="polynomial", degree=0), ValueError, "degree must be >= 1"),
        (dict(scale=np.nan), ValueError, "scale must be finite"),
        (dict(cache_bytes=-1), ValueError, "cache_bytes must be >= 0"),
    ]:
        with pytest.raises(err, match=match):
            KernelOperator(X, cache_bytes=0, **kw) if "cache_bytes" not in kw else KernelOperator(X, **kw)
    ref = np.exp(-((X[:, None, :] - X[None, :, :]) ** 2).sum(-1) / 2.0)     # sigma = 1
    V = np.random.default_rng(1).normal(size=(30, 2, 2))
    for cache in (0, 10**9):
        op = KernelOperator(X, sigma=1.0, cache_bytes=cache)
        np.testing.assert_allclose(op @ V[:, :, 0], ref @ V[:, :, 0], rtol=1e-12)
        # a (30, 2, 2) block came back reshaped to (30, 4); a wrong row count raised numpy's matmul/reshape error
        for bad in (V, np.ones(29), np.ones((29, 2))):
            with pytest.raises(ValueError, match=r"V must have shape \(30,\) or \(30, k\)"):
                op @ bad


def test_grls_features_callable_with_inconsistent_q_is_a_clear_error():
    # q = 1 on the 20 training points, 2 elsewhere: scipy's "Shapes of lu (1, 1) and b (2, 3) are incompatible"
    X = np.random.default_rng(0).normal(size=(20, 2))
    K = GRLSKernel(X, features=lambda A: np.ones((len(A), 1 if len(A) == 20 else 2)))
    with pytest.raises(ValueError, match="same number of columns for every input"):
        K(X[:3])


@pytest.mark.parametrize("kernel", ["gaussian", "linear", "polynomial", lambda A, B: A @ B.T])
def test_pairwise_kernel_estimates_its_memory_before_allocating(kernel, monkeypatch):
    """The (len(A), len(B)) kernel matrix -- RLS's l x l Gram, every learner's dense kernel -- is checked
    against the memory limit before it is allocated (it was allocated and filled unchecked: 50000 labels
    asked for 20 GB of the shared 24 GB)."""
    from graphrkhs._core import validation
    from graphrkhs import pairwise_kernel
    monkeypatch.setattr(validation, "_physical_memory", lambda: 64 * 2**20)     # limit 48 MiB
    A = np.random.default_rng(0).normal(size=(3000, 2))                          # 3000^2 * 8 B = 69 MiB
    with pytest.raises(MemoryError, match="would need"):
        pairwise_kernel(A, kernel=kernel, sigma=1.0)
    assert pairwise_kernel(A[:100], A[:50], kernel=kernel, sigma=1.0).shape == (100, 50)


@pytest.mark.parametrize("call", [
    lambda X: pairwise_kernel(X, kernel="heat", sigma=1e-20),
    lambda X: heat_kernel(X, sigma=1e-20, scaled=False),
])
def test_unscaled_heat_kernel_whose_peak_overflows_float32(call):
    """The true heat kernel of float32 points is float32: at sigma = 1e-20 in 2-D its peak
    (4 pi t)^(-1) = 1.6e39 is above float32's 3.4e38, and the kernel came back with inf entries (the check
    compared the peak with float64's range only).  A ValueError naming sigma and the dtype now."""
    X = (np.random.default_rng(0).normal(size=(6, 2)) * 1e-20).astype(np.float32)
    with pytest.raises(ValueError, match=r"sigma = 1e-20 is too small .* overflows float32"):
        call(X)
    # the same points in float64 hold the peak: the closed form (4 pi t)^(-1) exp(-|a - b|^2 / (4t))
    X64 = X.astype(np.float64)
    D = ((X64[:, None, :] - X64[None, :, :]) ** 2).sum(-1)
    t = 1e-40 / 2
    np.testing.assert_allclose(call(X64), np.exp(-D / (4 * t)) / (4 * np.pi * t), rtol=1e-10)


def test_pairwise_kernel_callable_values_are_real_in_the_points_dtype(pts):
    """A kernel callable's matrix is returned in the points' float dtype, as documented: a complex matrix
    came back complex128 (a later solve then worked in complex arithmetic or dropped the imaginary part with
    a ComplexWarning), an integer one int64 and a float16 one float16 (numpy.linalg refuses float16)."""
    with pytest.raises(TypeError, match="kernel callable returned complex"):
        pairwise_kernel(pts, kernel=lambda A, B: A @ B.T + 0j)
    ones = pairwise_kernel(pts, kernel=lambda A, B: np.ones((len(A), len(B)), dtype=np.int64))
    assert ones.dtype == np.float64 and (ones == 1).all()
    half = pairwise_kernel(pts, kernel=lambda A, B: (A @ B.T).astype(np.float16))
    assert half.dtype == np.float64
    np.testing.assert_array_equal(half, (pts @ pts.T).astype(np.float16).astype(np.float64))
    p32 = pts.astype(np.float32)
    assert pairwise_kernel(p32, kernel=lambda A, B: (A @ B.T).astype(np.float64)).dtype == np.float32


@pytest.mark.parametrize("block_bytes, exc", [(np.nan, TypeError), (0, ValueError), (1.5e6, TypeError)])
def test_pairwise_kernel_validates_block_bytes(pts, block_bytes, exc):
    """block_bytes=NaN failed with "cannot convert float NaN to integer", naming no argument."""
    with pytest.raises(exc, match="block_bytes"):
        pairwise_kernel(pts, block_bytes=block_bytes)


def test_unisolvent_points_validates_rtol_and_needs_a_feature():
    """rtol=NaN made the rank test 'R_qq <= NaN R_11' always False: dependent features (x and 2x) were
    declared unisolvent and the G-RLS construction factorized a singular matrix; rtol=-1 likewise.  An
    (n, 0) Psi failed with an IndexError."""
    x = np.arange(5.0)
    dependent = np.column_stack([np.ones(5), x, 2 * x])
    with pytest.raises(ValueError, match="not unisolvent"):
        unisolvent_points(dependent)
    with pytest.raises(ValueError, match="rtol must be finite"):
        unisolvent_points(dependent, rtol=np.nan)
    with pytest.raises(ValueError, match="rtol must be >= 0"):
        unisolvent_points(dependent, rtol=-1.0)
    with pytest.raises(ValueError, match="at least one feature"):
        unisolvent_points(np.zeros((5, 0)))


@pytest.mark.parametrize("call", [
    lambda A: heat_semigroup(A, sigma=1.0),
    lambda A: heat_kernel(A, sigma=1.0, s=2),
])
def test_heat_semigroup_estimates_its_memory_before_allocating(call, monkeypatch):
    """heat_semigroup returns len(times) dense (len(A), len(B)) matrices (three by default, PRLS's K, K', K''),
    but unlike pairwise_kernel it allocated and filled them unchecked: 3 x 300^2 doubles (2.1 MiB) past a
    48 KiB limit.  A MemoryError naming the size now; under the limit the values are the closed form."""
    from graphrkhs._core import validation

    A = np.random.default_rng(0).normal(size=(300, 2))
    D = ((A[:20, None, :] - A[None, :20, :]) ** 2).sum(-1)
    np.testing.assert_allclose(heat_kernel(A[:20], sigma=1.0, s=2), np.exp(-D / 4) / 2, rtol=1e-12)
    monkeypatch.setattr(validation, "_physical_memory", lambda: 64 * 2**10)   # limit 48 KiB
    with pytest.raises(MemoryError, match="300 x 300"):
        call(A)


def test_feature_map_estimates_its_memory_before_allocating(monkeypatch):
    """The poly2 features grow with the square of the dimension, q = 1 + d + d(d + 1)/2 (308505 columns for
    784 pixels: 172 GB on 70000 images), and were allocated unchecked: 300 points in 40 dimensions (861
    columns, 2 MiB) passed a 48 KiB limit.  A MemoryError naming the size and q now."""
    from graphrkhs._core import validation

    X = np.random.default_rng(0).normal(size=(300, 40))
    assert feature_map(X[:2], "poly2").shape == (2, 861)
    monkeypatch.setattr(validation, "_physical_memory", lambda: 64 * 2**10)   # limit 48 KiB
    with pytest.raises(MemoryError, match="861"):
        feature_map(X, "poly2")


@pytest.mark.parametrize("features", ["linear", "poly2"])
@pytest.mark.parametrize("scale", [1e-11, 1e-6, 1e6, 1e11])
def test_unisolvent_anchors_and_grls_kernel_do_not_depend_on_the_units(features, scale):
    """Unisolvency (an invertible Psi_a) does not depend on the units of X, but the pivoted-QR rank test
    compared |R_qq| with |R_11| across features of different units (1, x, x^2): poly2 features of points
    scaled by 1e6 or 1e-6 and linear ones at 1e11 or 1e-11 were "not unisolvent" (numerical rank 3-5 < q),
    and the anchors moved with the units.  Features are now compared at unit column scale: the same anchors
    at every scale, and the constructed kernel of (X c, sigma c) equals that of (X, sigma) (the Gaussian
    depends on x / sigma only and the Lagrange features of scaled monomials are the same functions)."""
    X = np.random.default_rng(0).normal(size=(40, 2))
    ref = GRLSKernel(X, features=features, sigma=1.0)
    got = GRLSKernel(X * scale, features=features, sigma=scale)
    np.testing.assert_array_equal(got.anchors, ref.anchors)
    np.testing.assert_array_equal(unisolvent_points(feature_map(X * scale, features)), ref.anchors)
    np.testing.assert_allclose(got(X[:8] * scale), ref(X[:8]), atol=1e-8)


@pytest.mark.parametrize("X, dtype, what", [
    (np.random.default_rng(0).normal(size=(20, 2)) * 1e200, np.float64, "overflow"),
    (np.random.default_rng(0).normal(size=(20, 2)) * 1e30, np.float32, "overflow"),
    (np.random.default_rng(0).normal(size=(20, 2)) * 1e-30, np.float32, "underflow"),
])
def test_poly2_features_outside_the_dtype_are_a_clear_error(X, dtype, what):
    """The poly2 features x_i x_j of finite points can leave the dtype: feature_map(X * 1e200, 'poly2')
    returned inf features without a word, GRLSKernel then said 'Psi contains NaN or infinity; remove or
    impute those entries' (of an array the user never gave), and float32 points at 1e-30 had every product
    underflow to 0, reported as 'features are not unisolvent'.  A ValueError naming the features, the dtype
    and the fix now; the same points rescaled give the closed-form monomials."""
    X = X.astype(dtype)
    with pytest.raises(ValueError, match=f"poly2 features .* {what} {np.dtype(dtype).name}"):
        feature_map(X, "poly2")
    with pytest.raises(ValueError, match=f"poly2 features .* {what} {np.dtype(dtype).name}"):
        GRLSKernel(X, features="poly2")
    Z = (X / np.abs(X).max()).astype(dtype)
    np.testing.assert_array_equal(feature_map(Z, "poly2")[:, 3:], np.column_stack([Z[:, 0] ** 2, Z[:, 0] * Z[:, 1],
                                                                                  Z[:, 1] ** 2]))
