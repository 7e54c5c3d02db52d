"""``R="auto"`` of the graph-TV estimators: both analysis operators, each with its own alpha selection on the
same folds, the better best CV score kept.

Graph TV (``R="incidence"``) is degenerate on smooth targets over higher-dimensional data (spikes on the
labeled nodes over one constant), and exact on piecewise-constant targets over low-dimensional data; the
regressor's default ``R="auto"`` tells them apart by the CV of the labeled nodes.
"""

import numpy as np
import pytest
from sklearn.datasets import make_friedman1, make_moons

from graphrkhs import GraphTVClassifier, GraphTVRegressor, knn_graph


@pytest.fixture(scope="module")
def regression():
    rng = np.random.default_rng(5)
    X = rng.uniform(size=(200, 2))
    W = knn_graph(X, 8)
    f = np.where(X[:, 0] > 0.5, 1.0, -1.0) + np.sin(4 * X[:, 1])
    S = np.sort(rng.choice(200, 40, replace=False))
    y = np.full(200, np.nan)
    y[S] = f[S] + 0.2 * rng.normal(size=S.size)
    return W, y


def _fits(make, W, y):
    return {R: make(R).fit(W, y) for R in ("kernel", "incidence", "auto")}


def _check_auto(fits):
    """auto's table is the two fixed-operator tables, its choice the better best score (ties: kernel), its
    fit that operator's fit."""
    auto = fits["auto"]
    cv = auto.cv_results_
    for R in ("kernel", "incidence"):
        rows = np.asarray(cv["param_R"]) == R
        np.testing.assert_array_equal(np.asarray(cv["param_alpha"])[rows], fits[R].cv_results_["param_alpha"])
        np.testing.assert_allclose(np.asarray(cv["mean_test_score"])[rows], fits[R].cv_results_["mean_test_score"],
                                   rtol=0, atol=0)
        assert all(p["R"] == R for p, r in zip(cv["params"], rows) if r)
    best = {R: np.max(fits[R].cv_results_["mean_test_score"]) for R in ("kernel", "incidence")}
    assert auto.R_ == ("incidence" if best["incidence"] > best["kernel"] else "kernel")
    chosen = fits[auto.R_]
    assert auto.alpha_ == chosen.alpha_
    np.testing.assert_allclose(auto.transduction_, chosen.transduction_, rtol=0, atol=1e-12)
    mean = np.asarray(cv["mean_test_score"])
    np.testing.assert_array_equal(cv["rank_test_score"], 1 + (mean[None, :] > mean[:, None]).sum(axis=1))


def test_regressor_auto_is_the_better_of_the_two_selections(regression):
    W, y = regression
    _check_auto(_fits(lambda R: GraphTVRegressor(R=R, graph="precomputed"), W, y))


def test_classifier_auto_is_the_better_of_the_two_selections():
    X, y = make_moons(150, noise=0.1, random_state=0)
    W = knn_graph(X, 8)
    rng = np.random.default_rng(0)
    yp = np.full(150, -1)
    keep = np.r_[rng.choice(np.flatnonzero(y == 0), 6, replace=False), rng.choice(np.flatnonzero(y == 1), 6, replace=False)]
    yp[keep] = y[keep]
    fits = _fits(lambda R: GraphTVClassifier(R=R, graph="precomputed"), W, yp)
    _check_auto(fits)
    np.testing.assert_array_equal(fits["auto"].unreached_, fits[fits["auto"].R_].unreached_)


def test_regressor_auto_with_a_number_compares_the_operators_at_it(regression):
    W, y = regression
    auto = GraphTVRegressor(0.3, graph="precomputed").fit(W, y)
    np.testing.assert_array_equal(auto.cv_results_["param_alpha"], [0.3, 0.3])
    assert list(auto.cv_results_["param_R"]) == ["kernel", "incidence"] and auto.alpha_ == 0.3
    fixed = GraphTVRegressor(0.3, graph="precomputed", R=auto.R_).fit(W, y)
    np.testing.assert_allclose(auto.transduction_, fixed.transduction_, rtol=0, atol=1e-12)
    assert fixed.cv_results_ is None


def test_regressor_auto_with_too_few_labels_for_the_folds_uses_the_kernel():
    W = knn_graph(np.random.default_rng(1).uniform(size=(40, 2)), 6)
    y = np.full(40, np.nan)
    y[[0, 7, 19, 33]] = [0.0, 1.0, 2.0, 0.5]            # 4 labels: fewer than 2 per fold of 3
    auto = GraphTVRegressor(graph="precomputed").fit(W, y)
    kernel = GraphTVRegressor(graph="precomputed", R="kernel").fit(W, y)
    assert auto.R_ == "kernel" and auto.cv_results_ is None
    np.testing.assert_allclose(auto.transduction_, kernel.transduction_, rtol=0, atol=1e-12)


def test_regressor_auto_avoids_the_graph_tv_plateau_on_a_smooth_high_dimensional_target():
    # make_friedman1 (10 features, smooth): graph TV predicts one value on every unlabeled point (its R^2 is
    # below 0); the kernel operator, and the default "auto", do not
    X, t = make_friedman1(400, noise=0.5, random_state=0)
    lab = np.random.default_rng(0).choice(400, 40, replace=False)
    y = np.full(400, np.nan)
    y[lab] = t[lab]
    un = np.isnan(y)
    tv = GraphTVRegressor(R="incidence").fit(X, y)
    assert np.ptp(tv.transduction_[un]) < 1e-2 * np.std(t[lab])           # the plateau
    auto = GraphTVRegressor().fit(X, y)
    assert auto.R_ == "kernel"
    r2 = 1 - np.mean((auto.transduction_[un] - t[un]) ** 2) / np.var(t[un])
    assert r2 > 0.2


def test_regressor_auto_keeps_graph_tv_on_a_piecewise_constant_low_dimensional_target():
    X, c = make_moons(600, noise=0.1, random_state=0)
    lab = np.random.default_rng(0).choice(600, 60, replace=False)
    y = np.full(600, np.nan)
    y[lab] = c[lab]
    auto = GraphTVRegressor().fit(X, y)
    assert auto.R_ == "incidence"
    un = np.isnan(y)
    np.testing.assert_allclose(auto.transduction_[un], c[un], atol=0.05)


def test_regressor_auto_drops_a_degenerate_graph_tv_fit_even_when_its_cv_is_better():
    # the diabetes data with 2 % labels (12), draw 3: graph TV's fit is one value on nearly every unlabeled
    # point, yet its 3-fold CV error on the 12 labels is lower than the kernel operator's; the plateau decides
    from sklearn.datasets import load_diabetes

    from graphrkhs.estimators._transductive import PLATEAU_FRACTION

    X, t = load_diabetes(return_X_y=True)
    lab = np.random.default_rng(3).choice(t.size, 12, replace=False)
    y = np.full(t.size, np.nan)
    y[lab] = t[lab]
    un = np.isnan(y)
    tv = GraphTVRegressor(R="incidence").fit(X, y)
    kernel = GraphTVRegressor(R="kernel").fit(X, y)
    assert np.max(tv.cv_results_["mean_test_score"]) > np.max(kernel.cv_results_["mean_test_score"])
    _, counts = np.unique(np.round(tv.transduction_[un] / (1e-3 * np.ptp(t[lab]))), return_counts=True)
    assert counts.max() / un.sum() >= PLATEAU_FRACTION
    auto = GraphTVRegressor().fit(X, y)
    assert auto.R_ == "kernel"
    np.testing.assert_allclose(auto.transduction_, kernel.transduction_, rtol=0, atol=1e-9)
