"""grls_fit_constructed(kernel, X, ...) needs the GRLSKernel built on X (its anchors are row indices of the points
it was built on).  A kernel built on other points gave a silently wrong fit (0.26 off the true minimizer at a
training point) or an IndexError from inside; it is now a ValueError naming kernel and X."""

import numpy as np
import pytest

from graphrkhs import GRLSKernel, grls_fit, grls_fit_constructed, pairwise_kernel


def _values(kernel, X, alpha, c, rest):
    """f at the training points: the Lagrange features at the anchors, features plus H elsewhere (Eq. 19)."""
    f = np.empty(X.shape[0])
    f[kernel.anchors] = alpha
    f[rest] = kernel.lagrange(X[rest]) @ alpha + kernel.H(X[rest]) @ c
    return f


def test_kernel_of_the_same_points_is_the_true_minimizer():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(8, 1))
    y = np.sin(3 * x[:, 0])
    kernel = GRLSKernel(x, features="linear", sigma=0.5)
    alpha, c, rest = grls_fit_constructed(kernel, x, y, gamma=0.1)
    Phi, Psi = pairwise_kernel(x, sigma=0.5), np.c_[np.ones(8), x]
    cc, beta = grls_fit(Phi, Psi, y, 0.1)                 # the saddle-point system (the oracle)
    np.testing.assert_allclose(_values(kernel, x, alpha, c, rest), Phi @ cc + Psi @ beta, atol=1e-10)
    # the same points in float32: the same anchors up to float32 rounding, accepted
    grls_fit_constructed(kernel, x.astype(np.float32), y, gamma=0.1)


def test_kernel_built_on_other_points_is_refused():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(8, 1))
    x2 = rng.normal(size=(8, 1))
    kernel = GRLSKernel(x, features="linear", sigma=0.5)
    with pytest.raises(ValueError, match="kernel was built on other points than X"):
        grls_fit_constructed(kernel, x2, np.sin(3 * x2[:, 0]), gamma=0.1)


def test_kernel_built_on_more_points_is_refused():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(8, 1))
    kernel = GRLSKernel(x, features="linear", sigma=0.5)
    X = x[:3] if kernel.anchors.max() >= 3 else x[:1]
    with pytest.raises(ValueError, match="kernel was built on other points than X"):
        grls_fit_constructed(kernel, X, np.zeros(X.shape[0]), gamma=0.1)
