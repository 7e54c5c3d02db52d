"""float32 points, float64 targets: the learners that solve in float64 (RLS, G-RLS, PRLS) take the targets
unrounded, so their fit on float32 points is the float64 fit on the same points (outputs in float32)."""

import numpy as np
import pytest

from graphrkhs import GRLSRegressor, PRLSRegressor, RLSRegressor


def _data():
    rng = np.random.default_rng(0)
    X32 = rng.normal(size=(40, 2)).astype(np.float32)
    y = np.full(40, np.nan)
    y[:15] = np.sin(3 * X32[:15, 0].astype(np.float64)) + 0.1 * rng.normal(size=15)
    return X32, y


@pytest.mark.parametrize("cls, kw", [(RLSRegressor, dict(alpha=1e-3)), (GRLSRegressor, dict(gamma=1e-3)),
                                     (GRLSRegressor, dict(gamma=1e-3, method="constructed"))],
                         ids=["RLS", "GRLS", "GRLS-constructed"])
def test_float64_solvers_fit_float32_points_exactly(cls, kw):
    X32, y = _data()
    a = cls(sigma=1.0, **kw).fit(X32, y)
    b = cls(sigma=1.0, **kw).fit(X32.astype(np.float64), y)
    # the same float64 problem (the float32 points are exact in float64): the same coefficients
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-12, atol=1e-12 * np.abs(b.coef_).max())
    np.testing.assert_allclose(a.intercept_, b.intercept_, rtol=1e-12, atol=1e-13)
    pa = a.predict(X32)
    assert pa.dtype == np.float32
    np.testing.assert_array_equal(pa, b.predict(X32.astype(np.float64)).astype(np.float32))


def test_prls_float32_points_targets_unrounded():
    X32, y = _data()
    a = PRLSRegressor(sigma=1.0, gamma=1e-3).fit(X32, y)
    b = PRLSRegressor(sigma=1.0, gamma=1e-3).fit(X32.astype(np.float64), y)
    # coef_ is the float64 solution (as RLS's; session 20: its float32 rounding cost up to 1e-4 of the
    # predictions near interpolation), the same as the float64 fit's (before: 2.0e-7 relative error)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=0, atol=1e-12 * np.abs(b.coef_).max())
    assert a.predict(X32).dtype == np.float32
