"""LapRLS / PLapRLS on float32 points return float32 outputs on every path (the fixed-gamma, CG and Nystrom fits
gave float64), with the values of the float64 fit on the same points."""

import numpy as np
import pytest

from graphrkhs import LapRLSClassifier, LapRLSRegressor, PLapRLSRegressor


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2)).astype(np.float32)
    y = np.full(40, np.nan)
    y[:12] = np.sin(2 * X[:12, 0].astype(np.float64))
    return X, y


@pytest.mark.parametrize("cls, solver", [(LapRLSRegressor, "auto"), (LapRLSRegressor, "cg"),
                                         (LapRLSRegressor, "nystrom"), (PLapRLSRegressor, "nystrom")])
def test_float32_points_float32_predictions(cls, solver):
    X, y = _data()
    kw = dict(sigma=1.0, gamma_A=1e-3, gamma_I=1.0, solver=solver, n_components=20, landmarks="uniform",
              random_state=0)
    p32 = cls(**kw).fit(X, y).predict(X)
    p64 = cls(**kw).fit(X.astype(np.float64), y).predict(X.astype(np.float64))
    assert p32.dtype == np.float32 and p64.dtype == np.float64
    np.testing.assert_allclose(p32, p64, rtol=0, atol=1e-4 * np.abs(p64).max())


def test_float32_points_float32_decision_function():
    X, y = _data()
    yc = np.where(np.isnan(y), -1, (y > 0).astype(int))
    est = LapRLSClassifier(sigma=1.0, gamma_A=1e-3, gamma_I=1.0).fit(X, yc)
    assert est.decision_function(X).dtype == np.float32
    assert est.predict_proba(X).dtype == np.float32
