"""WarpedKernel at huge gamma_I / gamma_A against a high-precision (mpmath) oracle."""
import warnings

import mpmath
import numpy as np
import pytest

from graphrkhs import AccuracyWarning, WarpedKernel


def _oracle(K, X, B):
    """k~(B, B) = k(B, B) - k_B^T (I + M K)^{-1} M k_B in 50 digits, M = c (D - W) from the float64 W."""
    mpmath.mp.dps = 50
    n = K.n
    Wm = mpmath.matrix(K.W.toarray().tolist())
    L = -Wm
    for i in range(n):
        L[i, i] = mpmath.fsum(Wm[i, j] for j in range(n))
    M = L * (mpmath.mpf(K.gamma_I) / (mpmath.mpf(K.gamma_A) * n * n))
    Km = mpmath.matrix(K._k(X, X).tolist())
    KB = mpmath.matrix(K._k(X, B).tolist())
    V = mpmath.inverse(mpmath.eye(n) + M * Km) * (M * KB)
    out = mpmath.matrix(K._k(B, B).tolist()) - KB.T * V
    return np.array(out.tolist(), dtype=float)


@pytest.mark.parametrize("gamma_I", [1e12, 1e14])
def test_warped_direct_accurate_at_huge_ratio(gamma_I):
    # the LU of the non-symmetric I + M K was 4e-4 off (relative) at 1e14 here, silently; 5e-2 at 1e12 on 40 points
    X = np.random.default_rng(0).normal(size=(16, 2))
    K = WarpedKernel(X, sigma=1.0, gamma_A=1e-2, gamma_I=gamma_I, n_neighbors=3, solver="direct", tol=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("error", AccuracyWarning)
        G = K(X[:3])
    ex = _oracle(K, X, X[:3])
    assert np.abs(G - ex).max() <= 1e-7 * np.abs(ex).max()


@pytest.mark.parametrize("gamma_I, factor", [(1.0, "lu"), (1e3, "lu"), (1e12, "cholesky"), (1e14, "cholesky")])
def test_warped_direct_keeps_the_lu_where_it_is_well_conditioned(gamma_I, factor):
    # the symmetric form costs about 4.5 times the LU (n = 4000: 30 s against 5 s): it is taken only where the
    # LU's estimated error eps cond(I + M K) is above tol, and both agree with the oracle where they are taken
    X = np.random.default_rng(0).normal(size=(16, 2))
    K = WarpedKernel(X, sigma=1.0, gamma_A=1e-2, gamma_I=gamma_I, n_neighbors=3, solver="direct", tol=1e-6)
    G = K(X[:3])
    assert (K._lu is not None, K._chol is not None) == ((True, False) if factor == "lu" else (False, True))
    ex = _oracle(K, X, X[:3])
    assert np.abs(G - ex).max() <= 1e-7 * np.abs(ex).max()


def test_warped_direct_with_float32_points_at_huge_ratio_factors_a_float64_gram():
    # the symmetric form's Cholesky of I + c T K T^T ran on the float32 Gram, PSD to its rounding only:
    # at gamma_I / gamma_A = 1e12 on 300 float32 points LAPACK raised "not positive definite"
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(150, 3)), rng.normal(size=(150, 3)) + 3]).astype(np.float32)
    X64 = X.astype(np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("error", AccuracyWarning)
        G32 = WarpedKernel(X, solver="direct", sigma=1.0, gamma_A=1.0, gamma_I=1e12)(X[:30], X[::5])
    G64 = WarpedKernel(X64, solver="direct", sigma=1.0, gamma_A=1.0, gamma_I=1e12)(X64[:30], X64[::5])
    assert G32.dtype == np.float32
    # float32 accuracy in units of max k(x, x) = 1 (the Gaussian kernel)
    np.testing.assert_allclose(G32, G64, rtol=0, atol=1e-4)


def test_warped_direct_names_the_ratio_where_the_cholesky_fails():
    # at gamma_I / gamma_A = 1e22 on 60 points (c = 2.8e18) the rounding of c T K T^T leaves I + c T K T^T
    # indefinite: LAPACK's bare "57-th leading minor of the array is not positive definite" came out of the
    # estimators (WarpedKernelRegressor(gamma_I=1e20).fit); now the ratio and the fix are named
    import re

    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 0.5, (30, 2)), rng.normal(3, 0.5, (30, 2))])
    K = WarpedKernel(X, sigma=2.0, gamma_A=1e-2, gamma_I=1e20, n_neighbors=5, solver="direct", tol=1e-6)
    message = ("WarpedKernel: I + c T K T^T (c = gamma_I / (gamma_A n^2) = 2.8e+18) is not numerically positive "
               "definite: at gamma_I / gamma_A = 1.0e+22 the warping's rounding exceeds the kernel itself; use a "
               "smaller gamma_I / gamma_A.")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AccuracyWarning)
        with pytest.raises(np.linalg.LinAlgError, match="^" + re.escape(message) + "$"):
            K(X[:3])
