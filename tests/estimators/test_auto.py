"""``"auto"`` defaults (issue 14): acceptance points at a small size, fixed values and own grids,
scikit-learn meta-estimators."""

import warnings

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

from graphrkhs import (
    FredholmClassifier, FredholmRegressor, GraphKernelRidgeRegressor, LapRLSRegressor, RLSClassifier, RLSRegressor,
)
from graphrkhs.datasets import make_noisy_circles, sample_labels

pytestmark = pytest.mark.filterwarnings("ignore::graphrkhs.GraphRKHSWarning")


def test_noisy_circles_defaults_fredholm_beats_rls_by_three_points():
    """The acceptance is on the mean over label draws (one draw of 20 labels moves either learner by
    several points): four draws of 400 points, and the Fredholm classifier is never below RLS."""
    rls, fred = [], []
    for seed in range(4):
        X, y = make_noisy_circles(400, random_state=seed)
        yp, S = sample_labels(y, 10, random_state=seed)
        U = np.setdiff1d(np.arange(y.size), S)
        rls.append(RLSClassifier().fit(X, yp).score(X[U], y[U]))
        fred.append(FredholmClassifier().fit(X, yp).score(X[U], y[U]))
    assert np.mean(fred) >= np.mean(rls) + 0.03, (fred, rls)
    assert min(f - r for f, r in zip(fred, rls)) > 0, (fred, rls)


@pytest.fixture(scope="module")
def smooth():
    """A smooth signal with a non-zero mean and a trend, 20 noisy observations of 300 points."""
    rng = np.random.default_rng(0)
    Z = rng.uniform(-1, 1, (300, 2))
    f = 5 + 2 * Z[:, 0] + np.sin(3 * Z[:, 1])
    y = np.full(300, np.nan)
    L = rng.choice(300, 20, replace=False)
    y[L] = f[L] + 0.1 * rng.normal(size=20)
    return Z, f, y, np.setdiff1d(np.arange(300), L)


@pytest.mark.parametrize("E", [RLSRegressor, LapRLSRegressor, FredholmRegressor, GraphKernelRidgeRegressor])
def test_regressor_defaults_beat_the_observed_mean_and_follow_a_shift(smooth, E):
    Z, f, y, U = smooth
    est = E().fit(Z, y)
    pred = est.transduction_ if hasattr(est, "transduction_") else est.predict(Z)
    rmse = np.sqrt(np.mean((pred[U] - f[U]) ** 2))
    mean_rmse = np.sqrt(np.mean((np.nanmean(y) - f[U]) ** 2))
    assert rmse < 0.4 * mean_rmse, (rmse, mean_rmse)
    shifted = E().fit(Z, y + 100.0)
    pred2 = shifted.transduction_ if hasattr(shifted, "transduction_") else shifted.predict(Z)
    np.testing.assert_allclose(pred2, pred + 100.0, atol=1e-6)


def test_fixed_values_and_own_grids(smooth):
    Z, f, y, U = smooth
    est = RLSRegressor(sigma=0.5, alpha=1e-2).fit(Z, y)
    assert est.alpha_ == 1e-2 and est.sigma_ == 0.5 and est.cv_results_ is None
    grid = [1e-4, 1e-2, 1.0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = RLSRegressor(sigma=[0.3, 0.6], alpha=grid).fit(Z, y)
    assert est.alpha_ in grid and est.sigma_ in (0.3, 0.6)
    cv = est.cv_results_
    assert len(cv["params"]) == 6 and cv["rank_test_score"].min() == 1
    best = cv["params"][int(np.argmin(cv["rank_test_score"]))]
    assert best == {"sigma": est.sigma_, "alpha": est.alpha_}
    with pytest.raises(ValueError, match="alpha"):
        RLSRegressor(alpha=[-1.0, 1.0]).fit(Z, y)


def test_inside_gridsearchcv_and_pipeline():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 3))
    y = X[:, 0] + 0.1 * rng.normal(size=60)
    pipe = Pipeline([("scale", StandardScaler()), ("rls", RLSRegressor())])
    search = GridSearchCV(pipe, {"rls__alpha": [1e-3, 1e-1]}, cv=3).fit(X, y)
    assert search.best_params_["rls__alpha"] in (1e-3, 1e-1)
    assert search.score(X, y) > 0.8


@pytest.mark.parametrize("grid", [["a"], [1 + 2j], [0.1, "x"], [[1.0], [2.0, 3.0]]])
def test_a_grid_of_non_numbers_is_a_value_error_naming_the_parameter(grid):
    from graphrkhs.estimators._auto import grid_of
    from graphrkhs import LapRLSClassifier, RLSClassifier

    with pytest.raises(ValueError, match=r"alpha: a grid must be a non-empty 1-D sequence of non-negative finite"):
        grid_of(grid, [1.0], "alpha", allow_zero=True)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 2))
    y = np.full(20, -1)
    y[:6] = [0, 1, 0, 1, 0, 1]
    with pytest.raises(ValueError, match=r"^alpha: a grid"):
        RLSClassifier(alpha=grid).fit(X, y)
    with pytest.raises(ValueError, match=r"^gamma_A: a grid .* positive finite numbers"):
        LapRLSClassifier(gamma_A=grid).fit(X, y)
