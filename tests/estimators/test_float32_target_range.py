"""Regressors on float32 points with targets outside float32's range: the predictions come back in X's dtype,
so targets float32 cannot hold raise a ValueError naming y and the dtype (they came back as inf / NaN / zeros,
or raised 'Y contains NaN or infinity'); in-range targets give the float64 fit to float32's accuracy."""
import warnings

import numpy as np
import pytest

import graphrkhs.estimators as E

NAMES = ["RLSRegressor", "PRLSRegressor", "GRLSRegressor", "LapRLSRegressor", "PLapRLSRegressor",
         "FredholmRegressor", "LaplacianRegularizationRegressor"]


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 2))
    y = np.full(12, np.nan)
    y[:5] = rng.normal(size=5)
    return X, y


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("scale", [1e45, 1e-50])
def test_out_of_float32_range_targets_raise(name, scale):
    X, y = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p64 = getattr(E, name)().fit(X, y * scale).predict(X)      # float64 points: the fit
        assert np.isfinite(p64).all() and np.abs(p64).max() > 0
        with pytest.raises(ValueError, match=r"y is outside the range of X's dtype, float32"):
            getattr(E, name)().fit(X.astype(np.float32), y * scale)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("scale", [1e37, 1e-37])
def test_in_range_targets_match_float64(name, scale):
    X, y = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p64 = getattr(E, name)().fit(X, y * scale).predict(X)
        p32 = getattr(E, name)().fit(X.astype(np.float32), y * scale).predict(X.astype(np.float32))
    assert p32.dtype == np.float32
    np.testing.assert_allclose(p32, p64, rtol=1e-5, atol=1e-5 * np.abs(p64).max())
