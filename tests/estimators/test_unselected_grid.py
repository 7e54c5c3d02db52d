"""When leave-one-out cannot choose (``loo_selects`` says no), one's own grid still bounds the value used.

The fallback values (``gamma_I = 1e6``, ``alpha = 1e-3``, the median distance, ...) lie outside most grids:
``LapRLSRegressor(gamma_A=[1e-3, 1e-2], gamma_I=[0.1, 1.0])`` with 2 labels of 20 points fitted at
gamma_A_ = 1e-6, gamma_I_ = 1e6.  The value used is the grid's member nearest the fallback in log scale,
with a SelectionWarning; "auto" keeps the fallback itself.
"""

import warnings

import numpy as np
import pytest

import graphrkhs as g
from graphrkhs import SelectionWarning


def _data(n=20, labels=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = np.full(n, np.nan)
    idx = rng.choice(n, labels, replace=False)
    y[idx] = np.sin(X[idx, 0]) + X[idx, 1]
    return X, y


GA, GI, SIG = [1e-3, 1e-2], [0.1, 1.0], [0.3, 0.5]

CASES = [
    (g.RLSRegressor, dict(alpha=[1e-1, 1.0], sigma=SIG), {"alpha_": [1e-1, 1.0], "sigma_": SIG}),
    (g.PRLSRegressor, dict(gamma=[1e-1, 1.0], sigma=SIG), {"gamma_": [1e-1, 1.0], "sigma_": SIG}),
    (g.GRLSRegressor, dict(gamma=[1e-1, 1.0], sigma=SIG), {"gamma_": [1e-1, 1.0], "sigma_": SIG}),
    (g.LapRLSRegressor, dict(gamma_A=GA, gamma_I=GI, sigma=SIG, n_neighbors=5),
     {"gamma_A_": GA, "gamma_I_": GI, "sigma_": SIG}),
    (g.LapRLSRegressor, dict(gamma_A=GA, gamma_I=GI, sigma=0.5, n_neighbors=5, solver="nystrom", n_components=10,
                             random_state=0), {"gamma_A_": GA, "gamma_I_": GI}),
    (g.PLapRLSRegressor, dict(gamma_A=GA, gamma_I=GI, sigma=SIG, n_neighbors=5),
     {"gamma_A_": GA, "gamma_I_": GI, "sigma_": SIG}),
    (g.PLapRLSRegressor, dict(gamma_A=GA, gamma_I=GI, sigma=0.5, n_neighbors=5, solver="nystrom", n_components=10,
                              random_state=0), {"gamma_A_": GA, "gamma_I_": GI}),
    (g.FredholmRegressor, dict(alpha=[1e-1, 1.0], sigma=SIG), {"sigma_": SIG}),
    (g.WarpedKernelRegressor, dict(gamma_A=GA, gamma_I=GI, sigma=SIG, n_neighbors=5),
     {"gamma_A_": GA, "gamma_I_": GI, "sigma_": SIG}),
    (g.LaplacianRegularizationRegressor, dict(alpha=[0.1, 1.0], n_neighbors=5), {"alpha_": [0.1, 1.0]}),
]


@pytest.mark.parametrize("cls, params, grids", CASES, ids=lambda c: getattr(c, "__name__", ""))
def test_own_grid_bounds_the_value_used_when_loo_cannot_choose(cls, params, grids):
    X, y = _data()
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        est = cls(**params).fit(X, y)
    for attr, grid in grids.items():
        assert getattr(est, attr) in grid, (attr, getattr(est, attr), grid)
    msgs = [str(w.message) for w in rec if issubclass(w.category, SelectionWarning)]
    for attr in grids:
        name = attr[:-1]
        assert any(m.startswith(f"{name}:") and "cannot choose" in m and f"{name}={getattr(est, attr):g}" in m
                   for m in msgs), (name, msgs)
    assert np.isfinite(est.predict(X)).all()


@pytest.mark.parametrize("cls, alpha, labels", [
    (g.GraphTVRegressor, [0.6, 0.9], [0.0, 1.0]),          # fallback: the geometric middle 0.735
    (g.GraphTVClassifier, [0.1, 0.9], [0, 1]),             # fallback 0.5 (inside the range, not a member)
])
def test_graph_tv_own_grid_bounds_the_value_used_when_cv_cannot_choose(cls, alpha, labels):
    X, _ = _data()
    y = np.full(20, np.nan if cls is g.GraphTVRegressor else -1, dtype=float if cls is g.GraphTVRegressor else int)
    y[[0, 1]] = labels
    with pytest.warns(SelectionWarning, match="alpha: the labels cannot choose it"):
        est = cls(alpha=alpha, n_neighbors=5).fit(X, y)
    assert est.alpha_ in alpha


def test_fredholm_relative_ridge_of_own_grid_when_loo_cannot_choose():
    # Fredholm's alpha is relative to the kernel's scale: alpha_ = a * mean(diag G) / l with a of the grid
    # (the fallback 1e-3 relative was used whatever the grid, and a grid was scored on 2 labels)
    X, y = _data()
    with pytest.warns(SelectionWarning, match=r"alpha: the labels cannot choose.*alpha=0\.1 "):
        est = g.FredholmRegressor(alpha=[1e-1, 1.0], sigma=0.5).fit(X, y)
    G = np.asarray(est.kernel_(est.labeled_points_, est.labeled_points_), dtype=np.float64)
    assert est.alpha_ == pytest.approx(0.1 * np.trace(G) / 2 / 2, rel=1e-10)


def test_auto_keeps_the_fallback_values():
    X, y = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("error", SelectionWarning)
        lap = g.LapRLSRegressor(n_neighbors=5).fit(X, y)
        rls = g.RLSRegressor().fit(X, y)
    assert (lap.gamma_A_, lap.gamma_I_) == (1e-6, 1e6)
    assert rls.alpha_ == 1e-3


def test_nearest_in_log():
    from graphrkhs.estimators._auto import nearest_in_log

    assert nearest_in_log([1e-3, 1e-2], 1e-6) == 1e-3
    assert nearest_in_log([0.1, 1.0], 1e6) == 1.0
    assert nearest_in_log([0.0, 1.0], 0.0) == 0.0
    assert nearest_in_log([0.0, 1e-9], 1e-3) == 1e-9
    assert nearest_in_log([0.1, 0.4, 10.0], 3.0) == 10.0     # log distances 2.01 and 1.20 (linear: 0.4)


def test_grls_own_grids_bound_the_values_when_the_features_leave_loo_nothing():
    # 4 labels, 3 linear features in 2-D: the gate passes, but each LOO refit interpolates the 3 labels left by
    # the features, so nothing is selected; gamma_ was the fallback 1e-3 and sigma_ the median distance
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 2))
    y = np.full(20, np.nan)
    y[:4] = [0.1, 0.5, 0.3, 0.9]
    with pytest.warns(SelectionWarning, match="gamma: leave-one-out needs more labeled points than features"):
        est = g.GRLSRegressor(gamma=[0.1, 1.0], sigma=[0.3, 0.5], features="linear").fit(X, y)
    assert est.gamma_ == 0.1 and est.sigma_ in (0.3, 0.5)


def test_laplace_learning_one_label_per_class_own_grid_warns_like_every_fallback():
    # every class labeled once: the largest value of the grid is used (leave-one-out would remove a
    # class's only label); with one's own grid that was logged at INFO only, while every other fallback
    # of one's own grid gives a SelectionWarning naming it.  "auto" stays silent (a documented default).
    X = np.random.default_rng(0).normal(size=(30, 2))
    y = np.full(30, -1)
    y[[0, 1, 2]] = [0, 1, 2]
    with pytest.warns(SelectionWarning, match="alpha=1 of the given grid"):
        est = g.LaplacianRegularizationClassifier(alpha=[0.1, 1.0], n_neighbors=5).fit(X, y)
    assert est.alpha_ == 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("error", SelectionWarning)
        assert g.LaplacianRegularizationClassifier(n_neighbors=5).fit(X, y).alpha_ == 1e3
