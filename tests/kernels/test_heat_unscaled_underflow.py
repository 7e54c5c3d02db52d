"""heat_kernel / heat_semigroup with scaled=False: a peak (4 pi s t)^(-m/2) below the smallest normal number is
refused as the overflowing peak is (it returned an all-zero matrix, silently)."""

import numpy as np
import pytest

from graphrkhs import heat_kernel, heat_semigroup


X = np.random.default_rng(0).standard_normal((50, 3))


def test_all_zero_unscaled_kernel_refused():
    # log peak = -500 log(2 pi) = -918.9 < log(2.23e-308) = -708.4; largest usable sigma exp(708.4 / 1000) / sqrt(2 pi)
    with pytest.raises(ValueError, match=r"^sigma = 1 is too large for the unnormalized heat kernel in dimension "
                                         r"m = 1000: its peak \(4 pi s t\)\^\(-m/2\) = exp\(-918\.9\) underflows "
                                         r"float64 \(below its smallest normal number 2\.23e-308\), so every entry "
                                         r"would be 0\. Use sigma <= 0\.81, or scaled=True \(the default\)\.$"):
        heat_kernel(X, X, m=1000, sigma=1.0, scaled=False)


def test_semigroup_member_named():
    # m = 700, sigma = 0.8: K_t's peak exp(-487.1) is fine, K_2t's exp(-487.1 - 350 log 2) = exp(-729.7) is not
    with pytest.raises(ValueError, match=r"dimension m = 700 at s = 2: its peak .* = exp\(-729\.7\) .*"
                                         r"Use sigma <= 0\.776, or scaled"):
        heat_semigroup(X, sigma=0.8, m=700, scaled=False)


def test_float32_limit():
    with pytest.raises(ValueError, match=r"underflows float32 .* Use sigma <= [\d.]+, float64 points, or scaled"):
        heat_kernel(X.astype(np.float32), m=100, sigma=1.0, scaled=False)


def test_representable_peak_unchanged():
    # m = 500: peak exp(-459.5), representable: the true kernel, and scaled=True is unaffected at m = 1000
    K = heat_kernel(X, X, m=500, sigma=1.0, scaled=False)
    np.testing.assert_allclose(np.diag(K), np.exp(-250 * np.log(2 * np.pi)), rtol=1e-12)
    np.testing.assert_allclose(np.diag(heat_kernel(X, X, m=1000, sigma=1.0)), 1.0, rtol=1e-15)
