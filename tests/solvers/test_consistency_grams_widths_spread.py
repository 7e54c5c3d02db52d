"""consistency_grams_widths over widths far apart: each width's grams equal consistency_grams at that width."""

import numpy as np
import pytest

from graphrkhs import consistency_grams, consistency_grams_widths


@pytest.mark.parametrize("sigmas", [[0.1, 0.2, 100.0], [100.0, 0.2, 0.1], [0.05, 3.0, 0.4, 40.0]])
def test_widths_far_apart_equal_one_call_per_width(sigmas):
    # points of spread ~10: at the middle width 0.2 most Gaussian entries underflow to 0 (d / sigma ~ 50),
    # and a wider width read them back as 0 (K_0.2^(1/250000) of 0): at sigma = 100, K was 99.7 % off
    X = np.random.default_rng(0).uniform(size=(40, 2)) * 10
    XS = X[:8]
    for got, sg in zip(consistency_grams_widths(XS, X, sigmas), sigmas):
        ref = consistency_grams(XS, X, integral_operator="empirical", sigma=sg)
        for a, b in zip(got[:3], ref[:3]):
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-13 * np.abs(b).max())
        assert np.isclose(got[3], ref[3], rtol=1e-10)


def test_extreme_width_ratio_keeps_near_pairs():
    # a width ratio of 1e9: an entry computed as a power of the widest width's kernel, exp(-x)^p with
    # x below float64's epsilon, is 1 whatever p; the near pairs' entries at the narrow width must not be
    X = np.array([[0.0], [1e-9], [2e-9], [5.0]])
    sigmas = [1e-9, 1.0]
    for got, sg in zip(consistency_grams_widths(X[:3], X, sigmas), sigmas):
        ref = consistency_grams(X[:3], X, integral_operator="empirical", sigma=sg)
        for a, b in zip(got[:3], ref[:3]):
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-13 * np.abs(b).max())
