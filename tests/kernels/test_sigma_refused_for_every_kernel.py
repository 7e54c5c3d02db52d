"""An invalid sigma (and degree, coef0, m) is refused by every kernel, also by those that ignore it (linear, polynomial, callable), as the
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


@pytest.mark.parametrize("kernel", ["gaussian", "heat", "linear", lambda A, B: A @ B.T])
@pytest.mark.parametrize("kw, exc, name", [(dict(degree=0), ValueError, "degree"),
                                           (dict(degree=2.5), TypeError, "degree"),
                                           (dict(coef0=float("nan")), ValueError, "coef0"),
                                           (dict(coef0="a"), TypeError, "coef0"),
                                           (dict(m=0), ValueError, "m must"),
                                           (dict(m="a"), TypeError, "m must")])
def test_other_invalid_kernel_parameters_refused(kernel, kw, exc, name):
    # the estimators' constraints refuse these for every kernel (degree an int >= 1, coef0 finite, m an int >= 1)
    with pytest.raises(exc, match=name):
        pairwise_kernel(X, kernel=kernel, **kw)
    with pytest.raises(exc, match=name):
        KernelOperator(X, kernel=kernel, cache_bytes=0, **kw)


def test_valid_unused_parameters_leave_kernels_unchanged():
    D = ((X[:, None] - X[None]) ** 2).sum(-1)
    np.testing.assert_allclose(pairwise_kernel(X, sigma=0.8, degree=5, coef0=-3.0, m=7), np.exp(-D / 1.28),
                               rtol=1e-13)
    np.testing.assert_allclose(pairwise_kernel(X, kernel="linear", degree=4, coef0=2.0, m=1), X @ X.T, rtol=1e-13)


@pytest.mark.parametrize("kw, exc, name", [(dict(degree=0), ValueError, "degree"),
                                           (dict(coef0=float("nan")), ValueError, "coef0")])
def test_heat_penalty_operator_and_nystrom_check_the_parameters_first(monkeypatch, kw, exc, name):
    # KernelOperator's heat penalty (checked by heat_semigroup: sigma and m only) and NystromFeatures before its
    # landmarks (its first kernel block refused degree=0 only after the k-means pass)
    with pytest.raises(exc, match=name):
        KernelOperator(X, kernel="heat_penalty", cache_bytes=0, **kw)
    import graphrkhs.kernels._nystrom as nystrom

    def no_landmarks(*args, **kwargs):
        raise AssertionError("the landmarks were chosen before the parameters were checked")
    monkeypatch.setattr(nystrom, "_first_distinct_rows", no_landmarks)
    with pytest.raises(exc, match=name):
        NystromFeatures(np.random.default_rng(1).normal(size=(200, 2)), n_components=10, **kw)
