"""cv_results_ of LapRLS-type learners report the parameters as the user gave them: gamma_A and gamma_I (the
engine's ratio gamma_I / gamma_A only beside them when it is the axis searched against a tuned gamma_A), one's own
gamma_I grid with its own values (0 shown as 0, not as the Nystrom path's stand-in 1e-297)."""

import warnings

import numpy as np
import pytest

from graphrkhs import LapRLSRegressor, SelectionWarning


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = np.full(40, np.nan)
    y[:10] = X[:10, 0] + 0.1 * rng.normal(size=10)
    return X, y


def _fit(**kw):
    X, y = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SelectionWarning)
        return LapRLSRegressor(sigma=1.0, n_components=40, landmarks="uniform", random_state=0, **kw).fit(X, y)


@pytest.mark.parametrize("solver", ["auto", "nystrom"])
def test_fixed_gamma_A_own_gamma_I_grid_table(solver):
    est = _fit(gamma_A=1e-3, gamma_I=[0.0, 1.0, 10.0], solver=solver)
    cv = est.cv_results_
    assert sorted(k for k in cv if k.startswith("param_")) == ["param_gamma_A", "param_gamma_I"]
    np.testing.assert_array_equal(np.sort(cv["param_gamma_I"]), [0.0, 1.0, 10.0])
    assert set(cv["param_gamma_A"]) == {1e-3}
    best = cv["params"][int(np.argmin(cv["rank_test_score"]))]
    assert best == {"gamma_A": est.gamma_A_, "gamma_I": est.gamma_I_}


def test_fixed_gamma_A_rows_are_the_refits():
    """Oracle: each row's score is minus the mean squared error of explicit leave-one-out refits at its values."""
    X, y = _data()
    est = _fit(gamma_A=1e-3, gamma_I=[0.0, 1.0, 10.0])
    S = np.flatnonzero(~np.isnan(y))
    cv = est.cv_results_
    for p, score in zip(cv["params"], cv["mean_test_score"]):
        r = []
        for i in S:
            yi = y.copy()
            yi[i] = np.nan
            # the LOO keeps the full fit's weights gamma * l (the 1/l loss scaling is not re-taken at l - 1)
            c = S.size / (S.size - 1)
            f = LapRLSRegressor(sigma=1.0, gamma_A=p["gamma_A"] * c, gamma_I=p["gamma_I"] * c).fit(X, yi)
            r.append(y[i] - f.predict(X[i:i + 1])[0])
        assert -score == pytest.approx(np.mean(np.square(r)), rel=1e-6), p


def test_auto_gamma_I_with_tuned_gamma_A_keeps_ratio_beside_gamma_I():
    est = _fit(gamma_A=[1e-3, 1e-2], gamma_I="auto", solver="nystrom")
    cv = est.cv_results_
    assert sorted(k for k in cv if k.startswith("param_")) == ["param_gamma_A", "param_gamma_I", "param_ratio"]
    np.testing.assert_allclose(cv["param_gamma_I"], cv["param_ratio"] * cv["param_gamma_A"], rtol=1e-15)
    best = cv["params"][int(np.argmin(cv["rank_test_score"]))]
    assert (best["gamma_A"], best["gamma_I"]) == (est.gamma_A_, est.gamma_I_)
