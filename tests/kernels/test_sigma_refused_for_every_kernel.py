"""An invalid sigma is refused by every kernel, also by those that ignore it (linear, polynomial, callable), as the
estimators' sigma constraint and scikit-learn's gamma are; a valid sigma still leaves those kernels unchanged."""
import numpy as np
import pytest

from graphrkhs import KernelOperator, NystromFeatures, consistency_grams, pairwise_kernel

X = np.random.default_rng(0).normal(size=(8, 2))
KERNELS = ["linear", "polynomial", lambda A, B: A @ B.T]


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("sigma, exc", [(-1.0, ValueError), (0.0, ValueError), (float("nan"), ValueError),
                                        ("abc", TypeError)])
def test_invalid_sigma_refused(kernel, sigma, exc):
    with pytest.raises(exc, match="sigma"):
        pairwise_kernel(X, kernel=kernel, sigma=sigma)
    with pytest.raises(exc, match="sigma"):
        NystromFeatures(X, kernel=kernel, sigma=sigma, n_components=4)
    with pytest.raises(exc, match="sigma"):
        KernelOperator(X, kernel=kernel, sigma=sigma)
    with pytest.raises(exc, match="sigma"):         # blockwise: no product at construction
        KernelOperator(X, kernel=kernel, sigma=sigma, cache_bytes=0)
    with pytest.raises(exc, match="sigma"):
        consistency_grams(X, kernel=kernel, sigma=sigma, integral_operator="empirical")


@pytest.mark.parametrize("kernel", KERNELS)
def test_valid_sigma_ignored(kernel):
    ref = X @ X.T if kernel != "polynomial" else (X @ X.T + 1.0) ** 2
    for s in (1e-3, 1.0, 7.5):
        np.testing.assert_allclose(pairwise_kernel(X, kernel=kernel, sigma=s), ref, rtol=1e-12, atol=1e-12)
