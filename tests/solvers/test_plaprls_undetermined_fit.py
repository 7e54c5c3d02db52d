"""PLapRLS (empirical operator, constant null space) when the normalized kernel's rows all sum to n (points of a
regular lattice on a circle, copies of two points in equal numbers): alpha + t 1 with beta - n t has the same
objective for every t (K 1 = n 1 changes neither the fit on the points nor the penalty K (I - K/n)^2), so the fit
at new points is not determined.  The solvers returned different members without a word (40 points on a circle:
the prediction at the centre -0.18 by "direct", 0.007 by "cg", 0.03 by "nystrom").  Now: a warning, and the
minimum-norm alpha along that direction, the same for every solver; no warning on a well-posed problem."""
import warnings

import numpy as np
import pytest

from graphrkhs import GraphRKHSWarning, PLapRLSRegressor


def _circle():
    t = np.linspace(0, 2 * np.pi, 40, endpoint=False)
    X = np.c_[np.cos(t), np.sin(t)]
    y = np.full(40, np.nan)
    rows = [0, 5, 10, 20, 30]
    y[rows] = np.sin(t[rows])
    return X, y


def _copies():
    X = np.r_[np.zeros((10, 1)), np.ones((10, 1))]
    y = np.full(20, np.nan)
    y[[0, 1, 10, 11]] = [0.0, 0.0, 1.0, 1.0]
    return X, y


@pytest.mark.parametrize("data, new, sigma", [(_circle, [[0.0, 0.0], [2.0, 0.0], [0.5, 0.3]], 0.5),
                                              (_copies, [[0.5], [2.0], [-1.0]], 0.18)])
def test_undetermined_fit_warns_and_solvers_agree(data, new, sigma):
    X, y = data()
    preds = []
    for solver in ("direct", "cg", "nystrom"):
        est = PLapRLSRegressor(sigma=sigma, gamma_A=1e-2, gamma_I=1.0, solver=solver, n_neighbors=3)
        with pytest.warns(GraphRKHSWarning, match="not determined"):
            est.fit(X, y)
        preds.append(est.predict(np.asarray(new, dtype=float)))
    # the minimum-norm member: alpha has no component along the constant (the undetermined direction)
    assert abs(float(np.sum(est.coef_))) < 1e-8 * max(float(np.abs(est.coef_).sum()), 1e-300)
    np.testing.assert_allclose(preds[1], preds[0], atol=1e-5)
    np.testing.assert_allclose(preds[2], preds[0], atol=1e-5)


def test_well_posed_problem_does_not_warn():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = np.full(40, np.nan)
    y[:6] = X[:6, 0]
    for solver in ("direct", "cg", "nystrom"):
        with warnings.catch_warnings():
            warnings.simplefilter("error", GraphRKHSWarning)
            PLapRLSRegressor(sigma=0.5, gamma_A=1e-2, gamma_I=1.0, solver=solver, n_neighbors=4).fit(X, y)
