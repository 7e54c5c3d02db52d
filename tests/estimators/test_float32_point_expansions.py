"""Float32 points: the inductive kernel expansions are evaluated in float64 and returned in float32.

Near interpolation (the small ridges the selections choose) the coefficients of LapRLS, PRLS and PLapRLS
are 1e3 - 1e4 times the fitted values; their float32 rounding and a float32 kernel times them cancelled to
6e-3 (LapRLS), 2e-3 (PRLS) and 8e-4 (PLapRLS) of the values, while the float64 fit on the same (float32)
points is the same model.  The float32 predictions are now that model's values rounded to float32.
"""

import numpy as np
import pytest

from graphrkhs import LapRLSClassifier, LapRLSRegressor, PLapRLSRegressor, PRLSRegressor


def _data():
    rng = np.random.default_rng(2)
    X = rng.uniform(-2, 2, size=(60, 2))
    f = np.sin(X[:, 0]) + 0.3 * X[:, 1]
    y = np.full(60, np.nan)
    lab = rng.choice(60, 15, replace=False)
    y[lab] = f[lab] + 0.05 * rng.normal(size=15)
    # float32 points, and targets exact in float32: both fits solve the same problem
    return X.astype(np.float32), y.astype(np.float32).astype(np.float64)


# the default ("auto") paths and LapRLS's direct solve at fixed gammas, all on float64 grams (the fixed
# gamma_A / gamma_I of PLapRLS still solve on a float32 gram, and CG keeps X's dtype: not tested here)
CASES = [
    (LapRLSRegressor, dict()),
    (LapRLSRegressor, dict(sigma=5.826, gamma_A=3.162e-7, gamma_I=0.1733)),
    (PRLSRegressor, dict(sigma=4.12, gamma=1e-6)),
    (PRLSRegressor, dict()),
    (PLapRLSRegressor, dict()),
]


@pytest.mark.parametrize("cls, kw", CASES, ids=["LapRLS", "LapRLS-fixed", "PRLS-fixed", "PRLS", "PLapRLS"])
def test_float32_points_predict_the_float64_model(cls, kw):
    X32, y = _data()
    X64 = X32.astype(np.float64)
    m32 = cls(**kw).fit(X32, y)
    m64 = cls(**kw).fit(X64, y)
    p32, p64 = m32.predict(X32), m64.predict(X64)
    assert p32.dtype == np.float32 and p64.dtype == np.float64
    # the float64 model's values rounded to float32 (up to the rounding of the fit itself): before, a
    # float32 evaluation of coefficients near 1e4 was off by up to 6e-3 (values of order 1)
    np.testing.assert_allclose(p32, p64, rtol=0, atol=2e-6 * np.abs(p64).max())
    # the float32 model evaluated at float64 points is the same function
    np.testing.assert_allclose(m32.predict(X64), p64, rtol=0, atol=2e-6 * np.abs(p64).max())


def test_float32_points_classifier_decision_in_float32():
    X32, y = _data()
    yc = np.where(np.isnan(y), -1, (y > 0.3).astype(int))
    kw = dict(sigma=5.826, gamma_A=3.162e-7, gamma_I=0.1733)
    for params in ({}, kw):             # "auto" and the direct solve at fixed gammas
        d32 = LapRLSClassifier(**params).fit(X32, yc).decision_function(X32)
        d64 = LapRLSClassifier(**params).fit(X32.astype(np.float64), yc).decision_function(X32.astype(np.float64))
        assert d32.dtype == np.float32
        np.testing.assert_allclose(d32, d64, rtol=0, atol=2e-6 * np.abs(d64).max())
