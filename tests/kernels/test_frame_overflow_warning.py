"""Points near both ends of the float range: the kernel is right and no internal RuntimeWarning escapes
(_frame's test of whether x - centre overflows warned "overflow encountered in subtract", twice per call)."""
import warnings

import numpy as np

from graphrkhs.kernels import pairwise_kernel


def test_kernel_of_points_near_both_float_ends_without_warning():
    X = np.array([[-1.5e308], [1.5e308], [1.6e308]])     # x - (lower median 1.5e308) overflows at -1.5e308
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        K = pairwise_kernel(X, sigma=1e308)
    d = np.array([-1.5, 1.5, 1.6])                         # in units of 1e308 = sigma
    oracle = np.exp(-np.abs(d[:, None] - d[None, :]) ** 2 / 2)
    np.testing.assert_allclose(K, oracle, rtol=1e-12, atol=0)
