"""The warped-kernel learner with ``kernel="heat"`` is LapRLS with ``kernel="heat"`` (the Gaussian of width sigma).

Before, the warped learner passed "heat" on to the kernel functions, whose heat kernel carries the factor
:math:`(4\\pi t)^{-m/2}`, t = sigma^2 / 2: at the same (sigma, gamma_A, gamma_I) it was 0.40 away from LapRLS on
a prediction range of 0.90, and its automatic fit moved with the units of X (by 1.7 with X times 64), while
LapRLS -- and the warped learner with the Gaussian -- are invariant.
"""
import warnings

import numpy as np
import pytest

from graphrkhs import LapRLSRegressor, WarpedKernelRegressor


def _problem():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    y = np.full(60, np.nan)
    lab = np.arange(0, 60, 4)
    y[lab] = np.sin(2 * X[lab, 0]) + X[lab, 1]
    return X, y, rng.normal(size=(20, 2))


def test_warped_heat_equals_laprls_heat_at_fixed_parameters():
    X, y, X_new = _problem()
    kw = dict(kernel="heat", sigma=1.5, gamma_A=1e-3, gamma_I=0.1, n_neighbors=6)
    warped = WarpedKernelRegressor(**kw).fit(X, y).predict(X_new)
    laprls = LapRLSRegressor(**kw).fit(X, y).predict(X_new)
    np.testing.assert_allclose(warped, laprls, rtol=0, atol=1e-10 * np.abs(laprls).max())


@pytest.mark.parametrize("c", [3.0, 64.0, 2.0 ** -7])
def test_warped_heat_automatic_fit_does_not_depend_on_the_units_of_X(c):
    X, y, X_new = _problem()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = WarpedKernelRegressor(kernel="heat", n_neighbors=6).fit(X, y)
        scaled = WarpedKernelRegressor(kernel="heat", n_neighbors=6).fit(c * X, y)
    assert scaled.sigma_ == pytest.approx(c * ref.sigma_, rel=1e-12)
    np.testing.assert_allclose(scaled.predict(c * X_new), ref.predict(X_new), rtol=0, atol=1e-8)
