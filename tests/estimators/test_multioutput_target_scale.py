"""A multi-output regressor's shared "auto" selection is invariant to rescaling any single target column.

One set of hyperparameters serves all target columns and its criterion (exact LOO, GCV) summed the columns'
squared errors on the raw targets, so a column weighed by its squared scale: multiplying an unrelated column z
by 100 moved column y's fit (graph kernel ridge alpha_ 10 -> 1e6, Laplace learning 0.32 -> 1e6, RLS sigma_
0.82 -> 26, predictions of y 0.5 to 1.2 off).  The regressors now select on the columns divided by their scales
(:func:`graphrkhs.estimators._auto.target_scales`: the labeled standard deviation; a constant column its
absolute value, an all-zero one 1) and scale the fitted functions back; one column is fitted as before.
"""
import re
import warnings

import numpy as np
import pytest

from graphrkhs.estimators import (FredholmRegressor, GRLSRegressor, GraphKernelRidgeRegressor, LapRLSRegressor,
                                  LaplacianRegularizationRegressor, PLapRLSRegressor, PRLSRegressor, RLSRegressor,
                                  WarpedKernelRegressor)
from graphrkhs.estimators._auto import target_scales

SELECTED = ("alpha_", "sigma_", "gamma_", "gamma_A_", "gamma_I_")
REGRESSORS = [GraphKernelRidgeRegressor, LaplacianRegularizationRegressor, RLSRegressor, LapRLSRegressor,
              PRLSRegressor, PLapRLSRegressor, GRLSRegressor, FredholmRegressor, WarpedKernelRegressor]


def _data(seed=0, n=80, labels=30):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = np.sin(2 * X[:, 0]) + 0.5 * rng.normal(size=n)
    z = rng.normal(size=n)                      # a column unrelated to y
    lab = np.zeros(n, bool)
    lab[rng.choice(n, labels, replace=False)] = True
    return X, y, z, lab


def _targets(lab, *columns):
    Y = np.column_stack(columns).astype(np.float64)
    Y[~lab] = np.nan
    return Y


def _fit(cls, X, Y, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # grid-edge reports are not the point here
        return cls(**params).fit(X, Y)


def _selected(est):
    return {k: getattr(est, k) for k in SELECTED if hasattr(est, k)}


def _close(a, b, rtol):
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return np.abs(a - b).max() <= rtol * max(np.abs(b).max(), 1e-300)


@pytest.mark.parametrize("cls", REGRESSORS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("c", [100.0, 1e-6])
def test_selection_invariant_to_rescaling_another_column(cls, c):
    X, y, z, lab = _data()
    ref = _fit(cls, X, _targets(lab, y, z))
    est = _fit(cls, X, _targets(lab, y, c * z))
    sel, ref_sel = _selected(est), _selected(ref)
    assert sel.keys() == ref_sel.keys() and sel
    for k in sel:
        np.testing.assert_allclose(sel[k], ref_sel[k], rtol=1e-12, err_msg=k)
    P, P0 = est.predict(X), ref.predict(X)
    assert _close(P[:, 0], P0[:, 0], 1e-10)             # column y: its own fit, whatever z's scale
    assert _close(P[:, 1], c * P0[:, 1], 1e-10)         # column z: c times its fit


@pytest.mark.parametrize("cls", REGRESSORS, ids=lambda c: c.__name__)
def test_each_column_is_its_own_fit_at_the_selected_values(cls):
    # the multi-output fit, scaled back, equals the single-output fits at the selected values (a fitted
    # attribute left in the standardized units would show here, on the fitted nodes and on new points)
    X, y, z, lab = _data()
    if cls is FredholmRegressor:
        # its alpha is relative to the kernel's scale, its alpha_ the absolute ridge: fixed values for both fits
        fixed = dict(alpha=1e-3, sigma=1.0)
        est = _fit(cls, X, _targets(lab, y, 1e3 * z), **fixed)
    else:
        est = _fit(cls, X, _targets(lab, y, 1e3 * z))
        params = est.get_params()
        fixed = {k[:-1]: v for k, v in _selected(est).items() if k[:-1] in params}
    Xn = np.random.default_rng(1).normal(size=(7, 2))
    for j, col in enumerate((y, 1e3 * z)):
        single = _fit(cls, X, _targets(lab, col)[:, 0], **fixed)
        assert _close(est.predict(X)[:, j], single.predict(X), 1e-9)
        assert _close(est.predict(Xn)[:, j], single.predict(Xn), 1e-9)


def test_rls_selection_is_the_variance_weighted_loo_oracle():
    # dense closed form: H = K (K + alpha l I)^-1, LOO residual (y - H y) / (1 - diag H) per column, the
    # columns' mean squared residuals divided by their labeled variances and summed; alpha_ is its argmin
    X, y, z, lab = _data(n=40, labels=20)
    Y = _targets(lab, y, 50 * z + 3)
    alphas = np.geomspace(1e-4, 1.0, 9)
    sigma = 1.0
    est = _fit(RLSRegressor, X, Y, sigma=sigma, alpha=alphas, fit_intercept=False)
    XS, YS = X[lab], Y[lab]
    l = XS.shape[0]
    K = np.exp(-((XS[:, None, :] - XS[None, :, :]) ** 2).sum(-1) / (2 * sigma ** 2))
    crit = []
    for a in alphas:
        H = K @ np.linalg.inv(K + a * l * np.eye(l))
        R = (YS - H @ YS) / (1 - np.diag(H))[:, None]
        crit.append(((R ** 2).mean(axis=0) / YS.var(axis=0)).sum())
    assert est.alpha_ == alphas[int(np.argmin(crit))]
    raw = [(((YS - (H := K @ np.linalg.inv(K + a * l * np.eye(l))) @ YS) / (1 - np.diag(H))[:, None]) ** 2).sum()
           for a in alphas]
    assert np.argmin(raw) != np.argmin(crit)          # the data tell the two rules apart
    beta = np.linalg.solve(K + est.alpha_ * l * np.eye(l), YS)
    Kx = np.exp(-((X[:, None, :] - XS[None, :, :]) ** 2).sum(-1) / (2 * sigma ** 2))
    assert _close(est.predict(X), Kx @ beta, 1e-10)


def test_single_output_is_the_unweighted_loo_oracle():
    # one column: the raw LOO criterion and the plain ridge fit, exactly as before (no rescaling)
    X, y, _, lab = _data(n=40, labels=20)
    yv = np.where(lab, 100 * y + 7, np.nan)
    alphas = np.geomspace(1e-4, 1.0, 9)
    for target in (yv, yv[:, None]):
        est = _fit(RLSRegressor, X, target, sigma=1.0, alpha=alphas, fit_intercept=False)
        XS, ys = X[lab], yv[lab]
        l = XS.shape[0]
        K = np.exp(-((XS[:, None, :] - XS[None, :, :]) ** 2).sum(-1) / 2)
        crit = []
        for a in alphas:
            H = K @ np.linalg.inv(K + a * l * np.eye(l))
            crit.append(np.mean(((ys - H @ ys) / (1 - np.diag(H))) ** 2))
        assert est.alpha_ == alphas[int(np.argmin(crit))]
        beta = np.linalg.solve(K + est.alpha_ * l * np.eye(l), ys)
        Kx = np.exp(-((X[:, None, :] - XS[None, :, :]) ** 2).sum(-1) / 2)
        assert _close(np.ravel(est.predict(X)), Kx @ beta, 1e-10)
        assert target_scales(target[lab].reshape(l, -1)) is None


@pytest.mark.parametrize("cls", [GraphKernelRidgeRegressor, LaplacianRegularizationRegressor, RLSRegressor],
                         ids=lambda c: c.__name__)
def test_constant_and_zero_columns(cls):
    # a constant column (any size) and an all-zero one: no NaN/inf, the selection of y alone (with a free
    # constant a constant column is fitted exactly at every value: it weighs nothing), the constants fitted
    X, y, _, lab = _data()
    alone = _fit(cls, X, _targets(lab, y)[:, 0])
    for const in (5.0, 5e8, -3e-9):
        est = _fit(cls, X, _targets(lab, y, np.full_like(y, const), np.zeros_like(y)))
        P = est.predict(X)
        assert np.isfinite(P).all()
        assert _selected(est) == _selected(alone)
        assert _close(P[:, 0], alone.predict(X), 1e-10)
        assert _close(P[:, 1], np.full_like(y, const), 1e-8)
        assert np.abs(P[:, 2]).max() == 0.0


def test_constant_column_without_free_constant_is_scale_free():
    # without a free constant a constant column is shrunk toward 0 and does weigh: by its relative error,
    # so its size does not move the selection (raw errors: a column of 1e6 decided it alone)
    X, y, _, lab = _data(n=40, labels=20)
    kw = dict(sigma=1.0, alpha=np.geomspace(1e-6, 10.0, 15), fit_intercept=False)
    ref = _fit(RLSRegressor, X, _targets(lab, y, np.full_like(y, 2.0)), **kw)
    est = _fit(RLSRegressor, X, _targets(lab, y, np.full_like(y, 2e6)), **kw)
    assert est.alpha_ == ref.alpha_
    assert _close(est.predict(X)[:, 0], ref.predict(X)[:, 0], 1e-10)


def test_target_scales():
    Y = np.array([[1.0, 4.0, 0.0, 1e300, 3.0], [3.0, 4.0, 0.0, -1e300, 3.0 + 3e-15]])
    np.testing.assert_allclose(target_scales(Y), [1.0, 4.0, 1.0, 1e300, 3.0 + 3e-15], rtol=1e-15)
    assert target_scales(Y[:, :1]) is None


@pytest.mark.parametrize("cls", [RLSRegressor, FredholmRegressor, GraphKernelRidgeRegressor], ids=lambda c: c.__name__)
def test_multioutput_warnings_point_at_the_callers_fit(cls):
    # the rescaling adds no frame between fit and the member's solve: a warning of the fit (here: labeled
    # points repeated, and for a transductive regressor every row labeled) names the caller's line
    X, y, z, _ = _data(n=30)
    X = np.r_[X, X[:6]]
    # the copies carry other targets (copies of one target are left out together and not warned about)
    Y = np.c_[np.r_[y, y[:6] + 1.0], 10 * np.r_[z, z[:6]]]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cls().fit(X, Y)
    ours = [w for w in caught if "repeat other labeled" in str(w.message) or "all 36 rows are labeled" in str(w.message)]
    assert ours and all(w.filename == __file__ for w in ours)


# Targets near 1e308 (one column): beyond 2^500 in magnitude the regressors fit y / 2^e (e the exponent of
# max|y|, exact) and scale the fitted attributes back by 2^e, so the fit is exactly 2^e times the fit of
# y / 2^e.  On the raw targets PLapRLSRegressor predicted NaN everywhere (no error) at +-1e307 and
# FredholmRegressor raised "coef must be a finite array of shape (len(B), c)", saying nothing about y.

def _two_blobs(big):
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, .5, (30, 2)), rng.normal(3, .5, (30, 2))])
    y = np.full(60, np.nan)
    y[:3], y[30:33] = -big, big
    return X, y


@pytest.mark.parametrize("cls", REGRESSORS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("big", [1e306, 1e300])
def test_targets_near_the_float64_limit_are_fitted_in_units_of_a_power_of_two(cls, big):
    from graphrkhs._core.validation import power_of_two_exponent
    X, y = _two_blobs(big)
    e = power_of_two_exponent(y[~np.isnan(y)])
    pred = _fit(cls, X, y).predict(X)
    assert np.isfinite(pred).all()
    np.testing.assert_array_equal(pred, np.ldexp(_fit(cls, X, np.ldexp(y, -e)).predict(X), e))


@pytest.mark.parametrize("cls", [PLapRLSRegressor, FredholmRegressor], ids=lambda c: c.__name__)
def test_targets_whose_fit_overflows_raise_naming_y(cls):
    # the fitted expansion coefficients reach ~89 (PLapRLS) and ~37 (Fredholm) times max|y|: beyond float64 at 1e307
    X, y = _two_blobs(1e307)
    msg = (f"{cls.__name__}: y is too large: its fitted coef_ overflows float64 (beyond 1.8e308). Scale the targets "
           "down (e.g. divide y by its largest magnitude) and scale the predictions back.")
    with pytest.raises(ValueError, match="^" + re.escape(msg) + "$"):
        _fit(cls, X, y)


@pytest.mark.parametrize("cls", REGRESSORS, ids=lambda c: c.__name__)
def test_ordinary_single_targets_are_fitted_as_they_are(cls):
    X, y = _two_blobs(3.0)
    est = _fit(cls, X, y)
    assert est._y_scales is None
