"""LapRLS / PLapRLS / G-RLS on a float32 kernel matrix with float64 targets outside float32's range.

The targets were cast to the kernel's dtype before the solves: laprls_fit (float64 coefficients) raised
"the direct solve produced NaN" at 1e45 and returned zero coefficients at 1e-50, silently; plaprls_fit and
grls_fit (coefficients in the kernel's dtype) returned NaN at 1e45 and zeros at 1e-50.  Now laprls_fit solves the
float64 targets (its result is float64), and the float32 results either hold the coefficients or raise a
ValueError naming Y and the kernel's dtype.
"""
import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs import pairwise_kernel
from graphrkhs.solvers import grls_fit, laprls_fit, plaprls_fit


def _problem():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(8, 2))
    K = pairwise_kernel(X, sigma=1.0)
    K /= K.mean()
    A = (rng.random((8, 8)) < 0.5).astype(float)
    A = np.triu(A, 1)
    A = A + A.T
    return K, sp.csr_array(np.diag(A.sum(axis=1)) - A), rng.normal(size=3), [0, 3, 5]


@pytest.mark.parametrize("scale", [1e-300, 1e-50, 1e-30, 1.0, 1e30, 1e45, 1e300])
def test_laprls_float32_kernel_any_target_scale(scale):
    K, M, y, S = _problem()
    a64 = laprls_fit(K, S, y * scale, M, 1e-2, 1.0)
    a32 = laprls_fit(K.astype(np.float32), S, y * scale, M, 1e-2, 1.0)
    assert np.isfinite(a32).all()
    assert np.allclose(a32, a64, rtol=1e-4, atol=0)


@pytest.mark.parametrize("scale", [1e-30, 1.0, 1e30])
def test_float32_results_in_range(scale):
    K, M, y, S = _problem()
    a64, b64 = plaprls_fit(K, S, y * scale, M, 1e-2, 1.0)
    a32, b32 = plaprls_fit(K.astype(np.float32), S, y * scale, M, 1e-2, 1.0)
    assert a32.dtype == np.float32 and np.allclose(a32, a64, rtol=1e-4, atol=0)
    KS = K[np.ix_(S, S)]
    c64, g64 = grls_fit(KS, np.ones((3, 1)), y * scale, 0.1)
    c32, g32 = grls_fit(KS.astype(np.float32), np.ones((3, 1)), y * scale, 0.1)
    assert c32.dtype == np.float32 and np.allclose(c32, c64, rtol=1e-4, atol=0)
    assert np.allclose(g32, g64, rtol=1e-4, atol=0)


@pytest.mark.parametrize("scale", [1e-300, 1e-50, 1e45, 1e300])
def test_float32_results_out_of_range_raise(scale):
    K, M, y, S = _problem()
    with pytest.raises(ValueError, match="float32"):
        plaprls_fit(K.astype(np.float32), S, y * scale, M, 1e-2, 1.0)
    with pytest.raises(ValueError, match="Phi's dtype, float32"):
        grls_fit(K[np.ix_(S, S)].astype(np.float32), np.ones((3, 1)), y * scale, 0.1)


@pytest.mark.parametrize("scale", [1e-300, 1e300])
def test_grls_float64_extreme_targets(scale):
    K, M, y, S = _problem()
    KS = K[np.ix_(S, S)]
    c1, g1 = grls_fit(KS, np.ones((3, 1)), y, 0.1)
    c, g = grls_fit(KS, np.ones((3, 1)), y * scale, 0.1)
    assert np.allclose(c / scale, c1, rtol=1e-12) and np.allclose(g / scale, g1, rtol=1e-12)
