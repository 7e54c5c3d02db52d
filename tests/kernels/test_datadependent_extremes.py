"""Data-dependent kernels at extreme inputs (points far beyond the data's scale, degenerate problems)."""

import warnings

import numpy as np
import pytest

from graphrkhs import FredholmKernel, gaussian_kernel


@pytest.mark.parametrize("far", [1e155, 1e300])
def test_normalized_fredholm_kernel_of_a_point_beyond_the_exponent_range(far):
    """normalized=True, dense outer kernel, a point whose squared distance over 2 sigma^2 overflows
    float64 (a ratio ~1e155 to the data's spread): every exponent was -inf, -inf - (-inf) = NaN, and
    the kernel raised "the outer kernel has a row with a non-positive sum" with a RuntimeWarning.  Its
    normalized outer row is a probability vector over the n points, so k_F(a, b) is a convex
    combination of the columns of K_H P_b^T: finite and between their extremes."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    K = FredholmKernel(X, sigma=0.5, normalized=True)
    a = np.array([[far, far]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        P = K.outer_weights(a)
        G = K(a, X[:3])
    assert np.isfinite(P).all() and (P >= 0).all()
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=1e-12)
    R = gaussian_kernel(X, sigma=0.5) @ K.outer_weights(X[:3]).T      # (n, 3): K_H P_B^T
    assert np.isfinite(G).all()
    assert (G >= R.min(axis=0) * (1 - 1e-12)).all() and (G <= R.max(axis=0) * (1 + 1e-12)).all()


def test_normalized_fredholm_far_point_weights_unchanged_inside_the_range():
    """A far point whose exponents are finite keeps its softmax weights (the nearest points' limit)."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 2))
    K = FredholmKernel(X, sigma=0.3, normalized=True)
    a = np.array([[400.0, -2.0]])
    e = -((a - X) ** 2).sum(axis=1) / (2 * 0.3 ** 2)
    w = np.exp(e - e.max())
    np.testing.assert_allclose(K.outer_weights(a)[0], w / w.sum(), rtol=1e-9, atol=1e-300)


def test_random_features_estimate_their_memory_first(monkeypatch):
    """inner_approximation="random_features": the (n, m) features were allocated without an estimate (the
    Nystrom factor had one): on a machine whose limit is 600 KiB the 1.5 MiB factor of 2000 points and 100
    features was built.  Now a MemoryError naming the array and the fix comes first."""
    from graphrkhs._core import validation

    X = np.random.default_rng(0).normal(size=(2000, 3))
    monkeypatch.setattr(validation, "_physical_memory", lambda: 800 * 2**10)      # limit 600 KiB
    with pytest.raises(MemoryError, match=r"random features of n = 2000 points \(2000 x 100\).*n_components"):
        FredholmKernel(X, sigma=1.0, inner_approximation="random_features", n_components=100)
