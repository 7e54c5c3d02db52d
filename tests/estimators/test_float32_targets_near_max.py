"""Regressors on float32 points with targets near float32's largest value (3.3e38, which float32 holds): the
centred targets and the solves' sums overflowed (LapRLSRegressor and PLapRLSRegressor raised
'Y contains NaN or infinity').  Fitted in units of a power of two of y (exact), the predictions equal the float64
fit's to float32's accuracy; a prediction float32 cannot hold raises a ValueError naming float32."""
import warnings

import numpy as np
import pytest

import graphrkhs.estimators as E


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 2))
    y = np.full(12, np.nan)
    y[:5] = rng.normal(size=5)
    return X, y / np.nanmax(np.abs(y)) * 3.3e38, rng


@pytest.mark.parametrize("name", ["LapRLSRegressor", "PLapRLSRegressor", "WarpedKernelRegressor", "RLSRegressor",
                                  "LaplacianRegularizationRegressor"])
def test_targets_near_float32_max(name):
    X, y, _ = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p64 = getattr(E, name)().fit(X, y).predict(X)
        p32 = getattr(E, name)().fit(X.astype(np.float32), y).predict(X.astype(np.float32))
    assert p32.dtype == np.float32
    np.testing.assert_allclose(p32, p64, rtol=1e-5, atol=1e-5 * np.abs(p64).max())


def test_prediction_beyond_float32_names_the_dtype():
    X, y, rng = _data()
    Xn = 3 * rng.normal(size=(5, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert np.abs(E.LapRLSRegressor().fit(X, y).predict(Xn)).max() > 3.5e38     # float64: beyond float32
        est = E.LapRLSRegressor().fit(X.astype(np.float32), y)
        with pytest.raises(ValueError, match="overflows float32"):
            est.predict(Xn.astype(np.float32))
