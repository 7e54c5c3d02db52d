"""A constant regression target: every parameter value of a learner that fits constants freely fits it exactly,
so leave-one-out cannot rank the values (``loo_selects``): no selection on rounding noise, no grid extension,
no SelectionWarning for "auto"; the documented fallback values are used, one's own grid its value nearest them."""

import warnings

import numpy as np
import pytest

import graphrkhs as g
from graphrkhs import SelectionWarning
from graphrkhs.estimators import _datadependent as dd, _inductive as ind
from graphrkhs.estimators._auto import loo_selects


def _data(jitter=0.0):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = np.full(40, np.nan)
    y[:12] = 3.0 + jitter * rng.normal(size=12)
    return X, y


# (estimator, fitted attribute, its fallback value)
CASES = [
    (g.RLSRegressor, "alpha_", ind.FALLBACK_ALPHA),
    (g.GRLSRegressor, "sigma_", None),
    (g.PRLSRegressor, "gamma_", ind.FALLBACK_GAMMA),
    (g.LapRLSRegressor, "gamma_I_", ind.UNSELECTED_GAMMA_I),
    (g.PLapRLSRegressor, "gamma_I_", ind.UNSELECTED_GAMMA_I),
    (g.WarpedKernelRegressor, "gamma_I_", ind.UNSELECTED_GAMMA_I),
    (g.FredholmRegressor, "sigma_", None),
    (g.LaplacianRegularizationRegressor, "alpha_", 0.0),
    (g.GraphKernelRidgeRegressor, "alpha_", 1.0),
]


@pytest.mark.parametrize("jitter", [0.0, 3e-15], ids=["exact", "rounding"])
@pytest.mark.parametrize("cls, attr, fallback", CASES, ids=[c[0].__name__ for c in CASES])
def test_constant_target_is_not_selected(cls, attr, fallback, jitter):
    # 3 + 3e-15 z: constant up to rounding (a few ulps of 3), its LOO scores rounding too: the gate's constant
    X, y = _data(jitter)
    assert (np.ptp(y[:12]) > 0) == (jitter > 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SelectionWarning)
        est = cls().fit(X, y)
    np.testing.assert_allclose(est.predict(X), 3.0, rtol=0, atol=1e-9)
    assert est.cv_results_ is None          # nothing was scored: every value ties exactly
    if fallback is not None:
        assert getattr(est, attr) == pytest.approx(fallback)


def test_constant_target_sigma_is_the_grid_centre():
    """The width is the centre of its grid (the median distance), not an edge pushed out by extensions."""
    X, y = _data()
    est = g.FredholmRegressor().fit(X, y)
    ref = g.FredholmRegressor(sigma=None).fit(X, y)
    assert est.sigma_ == pytest.approx(ref.sigma_)
    assert est.alpha_ == pytest.approx(ref.alpha_)


def test_constant_target_own_grid_warns_constant():
    X, y = _data()
    with pytest.warns(SelectionWarning, match="gamma=0.001 of the given grid is used") as rec:
        est = g.PRLSRegressor(gamma=[1e-3, 1.0, 1e3]).fit(X, y)
    assert "not constant" in str(rec[0].message)
    assert est.gamma_ == 1e-3


def test_constant_target_without_free_constant_still_selects():
    """Without a free constant a constant target is not fitted exactly: the LOO ranks, the selection runs."""
    X, y = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SelectionWarning)     # the fit's own edge: not this test's concern
        est = g.RLSRegressor(fit_intercept=False).fit(X, y)
    assert est.cv_results_ is not None
    assert loo_selects(np.full((5, 1), 2.0), False) is True
    assert loo_selects(np.full((5, 1), 2.0), False, fits_constants=True) is False
    assert loo_selects(np.array([[2.0], [2.0], [2.5]]), False, fits_constants=True) is True
    # the threshold: a spread of 64 eps times the largest |y| is rounding, 65 eps is not
    eps = np.finfo(float).eps
    assert loo_selects(np.array([[2.0], [2.0], [2.0 + 128 * eps]]), False, fits_constants=True) is False
    assert loo_selects(np.array([[2.0], [2.0], [2.0 + 132 * eps]]), False, fits_constants=True) is True
