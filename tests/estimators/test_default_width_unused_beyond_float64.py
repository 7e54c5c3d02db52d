"""RLS / G-RLS with a kernel that has no width (a callable, linear) on points near +-1e308, whose median distance
is beyond float64: the fit does not need the default width and goes on (default_sigma's ValueError, right for the
Gaussian kernel, was raised for a width nobody reads); the Gaussian kernel keeps the error.  Oracle: the same fit
with an explicit sigma, which these kernels ignore."""
import numpy as np
import pytest

from graphrkhs import GRLSRegressor, RLSRegressor

X = np.array([[-1.5e308], [-1.4e308], [1.4e308], [1.5e308], [1.6e308]])
Y = np.array([1.0, 2.0, 3.0, np.nan, np.nan])


def _kernel(A, B):
    return np.exp(-((A / 1e308) - (B / 1e308).T) ** 2)


@pytest.mark.parametrize("estimator, kw", [(RLSRegressor, dict(alpha=0.1)), (GRLSRegressor, dict(gamma=0.1))])
def test_a_kernel_without_width_fits_points_near_the_float_limit(estimator, kw):
    fitted = estimator(kernel=_kernel, **kw).fit(X, Y)
    oracle = estimator(kernel=_kernel, sigma=1.0, **kw).fit(X, Y)
    np.testing.assert_allclose(fitted.predict(X), oracle.predict(X), rtol=1e-12)


def test_the_gaussian_kernel_keeps_the_error():
    with pytest.raises(ValueError, match="beyond the float64 range"):
        RLSRegressor(alpha=0.1).fit(X, Y)
