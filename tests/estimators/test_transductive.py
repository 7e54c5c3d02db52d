"""Tests of the transductive estimators (graphrkhs.transductive)."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs import (
    GraphKernelRidgeClassifier,
    GraphKernelRidgeRegressor,
    GraphTVClassifier,
    GraphTVRegressor,
    GraphWarning,
    LaplacianRegularizationClassifier,
    LaplacianRegularizationRegressor,
    PoissonLearningClassifier,
    PoissonMBOClassifier,
    PoissonRidgeEnsembleClassifier,
    VolumeMBOClassifier,
    filters,
    graph_kernel_ridge,
    graph_kernel_tv,
    connected_components,
    graph_tv,
    harmonic_solution,
    knn_graph,
    laplacian,
    poisson_learning,
    tikhonov_solution,
)
from graphrkhs.datasets import load_digits, sample_labels

CLASSIFIERS = [LaplacianRegularizationClassifier, PoissonLearningClassifier, GraphKernelRidgeClassifier,
               GraphTVClassifier]
REGRESSORS = [LaplacianRegularizationRegressor, GraphKernelRidgeRegressor, GraphTVRegressor]


# scikit-learn's common checks for every estimator: tests/estimators/test_common.py.


# --- fixtures ---------------------------------------------------------------------------------

def _two_moons(n=120, seed=0):
    from sklearn.datasets import make_moons

    X, y = make_moons(n, noise=0.06, random_state=seed)
    return X, y


def _partial(y, per_class, seed=0):
    y_partial, keep = sample_labels(y, per_class, random_state=seed)
    return y_partial, keep


# --- estimators equal their plain functions ---------------------------------------------------

@pytest.mark.parametrize("est, fn", [
    (LaplacianRegularizationClassifier(0.0, graph="precomputed"), lambda W, S, Y: harmonic_solution(W, S, Y)),
    (LaplacianRegularizationClassifier(0.1, graph="precomputed"),
     lambda W, S, Y: tikhonov_solution(W, S, Y, alpha=0.1)),
    (PoissonLearningClassifier(graph="precomputed"), lambda W, S, Y: poisson_learning(W, S, Y)),
    (GraphKernelRidgeClassifier(filters.RegularizedLaplacian(5.0), alpha=0.01, graph="precomputed"),
     lambda W, S, Y: graph_kernel_ridge(W, S, Y, filters.RegularizedLaplacian(5.0), alpha=0.01)),
    (GraphTVClassifier(0.5, R="incidence", tol=1e-6, graph="precomputed"),
     lambda W, S, Y: graph_tv(W, S, Y, alpha=0.5, tol=1e-6)),
    (GraphTVClassifier(0.5, tol=1e-6, graph="precomputed"),
     lambda W, S, Y: graph_kernel_tv(W, S, Y, alpha=0.5, tol=1e-6)),
])
def test_classifier_is_thin_layer_over_function(est, fn):
    X, y = _two_moons()
    W = knn_graph(X, 8)
    y_partial, keep = _partial(y, 4)
    est.fit(W, y_partial)
    Y = np.eye(2)[y[keep]]
    F = fn(W, keep, Y)
    np.testing.assert_allclose(est.scores_, F, rtol=1e-6, atol=1e-8)
    np.testing.assert_array_equal(est.transduction_, F.argmax(axis=1))
    np.testing.assert_allclose(est.label_distributions_.sum(axis=1), 1.0, rtol=1e-12)
    np.testing.assert_array_equal(est.classes_, [0, 1])


def test_points_path_equals_precomputed_graph():
    X, y = _two_moons()
    y_partial, _ = _partial(y, 3)
    a = PoissonLearningClassifier(n_neighbors=7, weight="gaussian").fit(X, y_partial)
    W = knn_graph(X, 7, weight="gaussian")
    b = PoissonLearningClassifier(graph="precomputed").fit(W, y_partial)
    np.testing.assert_allclose(a.label_distributions_, b.label_distributions_, rtol=1e-10, atol=1e-12)


def test_self_tuning_graph_is_knn_graphs():
    # The estimators' graph is GraphSpec(...).build(X), i.e. knn_graph with the same parameters (the
    # former estimator-only "sharpness" power of the self-tuning weights is gone: one graph builder).
    X, y = _two_moons()
    y_partial, _ = _partial(y, 3)
    a = LaplacianRegularizationClassifier(n_neighbors=6, weight="self-tuning").fit(X, y_partial)
    W1 = knn_graph(X, 6, weight="self-tuning")
    b = LaplacianRegularizationClassifier(graph="precomputed").fit(W1, y_partial)
    np.testing.assert_allclose(a.scores_, b.scores_, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("cls", CLASSIFIERS)
def test_string_labels(cls):
    X, y = _two_moons()
    names = np.array(["left", "right"])[y].astype(object)
    y_partial = names.copy()
    _, keep = _partial(y, 4)
    hide = np.ones(y.size, dtype=bool)
    hide[keep] = False
    y_partial[hide] = -1
    est = cls(n_neighbors=8).fit(X, y_partial)
    assert set(est.classes_) == {"left", "right"}
    assert np.mean(est.transduction_[hide] == names[hide]) > 0.9
    assert est.predict(X[:5]).dtype == object


def test_out_of_sample_rule_precomputed_and_points():
    X, y = _two_moons()
    W = knn_graph(X, 8)
    y_partial, _ = _partial(y, 5)
    est = LaplacianRegularizationClassifier(graph="precomputed").fit(W, y_partial)
    # precomputed: X_new is the new nodes' edge weights to the fitted nodes
    rng = np.random.default_rng(0)
    Wn = sp.random_array((4, X.shape[0]), density=0.05, random_state=1) + sp.csr_array(
        (np.ones(4), (np.arange(4), rng.integers(0, X.shape[0], 4))), shape=(4, X.shape[0]))
    F = est.label_distributions_
    expected = (Wn @ F) / np.asarray(Wn.sum(axis=1)).reshape(-1, 1)
    np.testing.assert_array_equal(est.predict(Wn), expected.argmax(axis=1))
    # points: Gaussian-weighted average over the k nearest fitted points, h = k-th distance
    est2 = LaplacianRegularizationClassifier(n_neighbors=8).fit(X, y_partial)
    Xn = X[:3] + 0.01
    d = np.linalg.norm(Xn[:, None] - X[None], axis=2)
    idx = np.argsort(d, axis=1)[:, :8]
    dk = np.take_along_axis(d, idx, axis=1)
    w = np.exp(-(dk / dk[:, -1:]) ** 2 / 2)
    scores = np.einsum("ik,ikc->ic", w, est2.label_distributions_[idx]) / w.sum(1, keepdims=True)
    np.testing.assert_array_equal(est2.predict(Xn), scores.argmax(axis=1))
    reg = LaplacianRegularizationRegressor(n_neighbors=8).fit(X, np.where(y_partial >= 0, y_partial, np.nan))
    scores_r = np.einsum("ik,ik->i", w, reg.transduction_[idx]) / w.sum(1)
    np.testing.assert_allclose(reg.predict(Xn), scores_r, rtol=1e-10)


def test_precomputed_new_node_without_edges_gets_mean_with_warning():
    W = np.diag(np.ones(3), 1)
    W = W + W.T
    est = LaplacianRegularizationRegressor(graph="precomputed").fit(W, [0.0, np.nan, np.nan, 3.0])
    with pytest.warns(GraphWarning, match="no edge"):
        out = est.predict(np.zeros((1, 4)))
    np.testing.assert_allclose(out, [est.transduction_.mean()])


def test_ridge_auto_alpha_equals_brute_force_loo_selection():
    X, y = _two_moons(80)
    W = knn_graph(X, 8)
    rng = np.random.default_rng(3)
    keep = rng.choice(80, 16, replace=False)
    yr = np.sin(3 * X[:, 0])
    y_partial = np.full(80, np.nan)
    y_partial[keep] = yr[keep]
    phi = filters.RegularizedLaplacian(3.0)
    alphas = (1e-3, 1e-2, 1e-1, 1.0)
    est = GraphKernelRidgeRegressor(phi, alphas=alphas, fit_intercept=False, graph="precomputed").fit(W, y_partial)
    # brute force: refit without each labeled node, on the dense kernel
    L = laplacian(W, "normalized").toarray()
    lam, U = np.linalg.eigh(L)
    Phi = (U * phi(lam)) @ U.T
    errs = []
    for a in alphas:
        e = 0.0
        for i in range(keep.size):
            S = np.delete(keep, i)
            beta = np.linalg.solve(Phi[np.ix_(S, S)] + a * np.eye(S.size), yr[S])
            e += (yr[keep[i]] - Phi[keep[i], S] @ beta) ** 2
        errs.append(e)
    assert est.alpha_ == alphas[int(np.argmin(errs))]
    beta = np.linalg.solve(Phi[np.ix_(keep, keep)] + est.alpha_ * np.eye(keep.size), yr[keep])
    np.testing.assert_allclose(est.transduction_, Phi[:, keep] @ beta, rtol=1e-6, atol=1e-8)


def test_ridge_kernel_grid_requires_auto():
    X, y = _two_moons(40)
    est = GraphKernelRidgeClassifier([filters.Heat(1.0), filters.Heat(2.0)], alpha=0.1, n_neighbors=5)
    with pytest.raises(ValueError, match="alpha='auto'"):
        est.fit(X, np.where(np.arange(40) < 6, y, -1))


def test_regressor_recovers_piecewise_constant_with_tv_better_than_ridge():
    # two dense clusters joined by a thin bridge, signal 0 on one and 1 on the other
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(0, 0.3, (60, 2)), rng.normal(0, 0.3, (60, 2)) + [3.0, 0.0]]
    truth = np.r_[np.zeros(60), np.ones(60)]
    y = np.full(120, np.nan)
    lab = np.r_[0:5, 60:65]
    y[lab] = truth[lab]
    tv = GraphTVRegressor(alpha=0.05, n_neighbors=8).fit(X, y).transduction_
    ridge = GraphKernelRidgeRegressor(filters.Heat(2.0), alpha=0.1, n_neighbors=8).fit(X, y).transduction_
    err_tv = np.abs(tv - truth).max()
    err_ridge = np.abs(ridge - truth).max()
    assert err_tv < 0.05
    assert err_ridge > 4 * err_tv


def test_digits_accuracy_floor():
    X, y = load_digits()
    y_partial, keep = sample_labels(y, 10, random_state=0)
    hide = np.ones(y.size, dtype=bool)
    hide[keep] = False
    acc = {}
    for cls in (LaplacianRegularizationClassifier, GraphKernelRidgeClassifier, PoissonLearningClassifier):
        est = cls().fit(X, y_partial)
        acc[cls.__name__] = np.mean(est.transduction_[hide] == y[hide])
    assert acc["LaplacianRegularizationClassifier"] > 0.95
    assert acc["GraphKernelRidgeClassifier"] > 0.95
    assert acc["PoissonLearningClassifier"] > 0.93


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("cls", CLASSIFIERS)
def test_float32_and_float64_points(cls, dtype):
    X, y = _two_moons()
    y_partial, keep = _partial(y, 5)
    est = cls(n_neighbors=8).fit(X.astype(dtype), y_partial)
    hide = np.ones(y.size, dtype=bool)
    hide[keep] = False
    assert np.isfinite(est.label_distributions_).all()
    assert np.mean(est.transduction_[hide] == y[hide]) > 0.9


# --- bad input ------------------------------------------------------------------------------

def _bad_cases():
    X, y = _two_moons(40)
    y_partial = np.where(np.arange(40) < 8, y, -1)
    return [
        ("no labels", {}, X, np.full(40, -1), ValueError, "no labeled"),
        ("one class", {}, X, np.where(np.arange(40) < 8, 1, -1), ValueError, "one class"),
        ("y wrong length", {}, X, y_partial[:-1], ValueError, "40 samples"),
        ("y is None", {}, X, None, ValueError, "requires y"),
        ("alpha < 0", {"alpha": -1.0}, X, y_partial, ValueError, "alpha"),
        ("alpha string", {"alpha": "big"}, X, y_partial, (TypeError, ValueError), "alpha"),
        ("graph name", {"graph": "full"}, X, y_partial, ValueError, "graph"),
        ("epsilon without radius", {"graph": "epsilon"}, X, y_partial, ValueError, "radius"),
        ("k too large", {"n_neighbors": 40}, X, y_partial, ValueError, "n_neighbors"),
        ("k not int", {"n_neighbors": 2.5}, X, y_partial, TypeError, "n_neighbors"),
        ("weight name", {"weight": "cosine"}, X, y_partial, ValueError, "weight"),
        ("X with NaN", {}, np.where(np.eye(40, 2) > 0, np.nan, X), y_partial, ValueError, "NaN"),
        ("continuous y", {}, X, np.where(np.arange(40) < 8, X[:, 0], -1), ValueError, "continuous"),
    ]


@pytest.mark.parametrize("cls", [LaplacianRegularizationClassifier, GraphKernelRidgeClassifier,
                                 GraphTVClassifier])
@pytest.mark.parametrize("case", _bad_cases(), ids=lambda c: c[0])
def test_bad_input_classifiers(cls, case):
    _, params, X, y, err, match = case
    with pytest.raises(err, match=match):
        cls(**{"n_neighbors": 5, **params}).fit(X, y)


def test_bad_input_poisson_priors_and_regression_targets():
    X, y = _two_moons(40)
    y_partial = np.where(np.arange(40) < 8, y, -1)
    with pytest.raises(ValueError, match="class_priors"):
        PoissonLearningClassifier(class_priors=[0.5, 0.3, 0.2], n_neighbors=5).fit(X, y_partial)
    with pytest.raises(ValueError, match="no labeled"):
        LaplacianRegularizationRegressor(n_neighbors=5).fit(X, np.full(40, np.nan))
    with pytest.raises(ValueError, match="alpha"):
        GraphTVRegressor(alpha=0.0, n_neighbors=5).fit(X, np.where(y_partial >= 0, 1.0, np.nan))


def test_labels_on_isolated_node_warn_and_no_nan():
    W = np.zeros((5, 5))
    W[0, 1] = W[1, 0] = W[1, 2] = W[2, 1] = W[2, 3] = W[3, 2] = 1.0   # node 4 isolated
    y = np.array([0, -1, -1, 1, 1])
    with pytest.warns(GraphWarning, match="isolated"):
        est = LaplacianRegularizationClassifier(graph="precomputed", unlabeled=-1).fit(W, y)
    assert np.isfinite(est.label_distributions_).all()
    np.testing.assert_array_equal(est.transduction_[[0, 3, 4]], [0, 1, 1])


def test_component_without_labels_gets_class_prior():
    W = np.zeros((6, 6))
    for i, j in [(0, 1), (1, 2), (3, 4), (4, 5)]:
        W[i, j] = W[j, i] = 1.0
    y = np.array([0, 1, 1, -1, -1, -1])
    for cls in CLASSIFIERS:
        with pytest.warns(GraphWarning, match="without any labeled node"):
            est = cls(graph="precomputed").fit(W, y)
        assert np.isfinite(est.label_distributions_).all()
        np.testing.assert_allclose(est.scores_[3:], np.tile([1 / 3, 2 / 3], (3, 1)))
        np.testing.assert_allclose(est.label_distributions_[3:], np.tile([1 / 3, 2 / 3], (3, 1)))
        np.testing.assert_array_equal(est.transduction_[3:], [1, 1, 1])


# --- Laplacian regularization: alpha="auto" -----------------------------------------------------

def test_laplacian_regularization_auto_is_the_engine_choice_and_its_solution():
    from graphrkhs.solvers import TIKHONOV_ALPHAS, select_tikhonov_solution

    rng = np.random.default_rng(0)
    X = rng.uniform(size=(300, 2))
    W = knn_graph(X, 8)
    f = np.sin(4 * X[:, 0]) + 2 * X[:, 1] + 3.0
    S = np.sort(rng.choice(300, 60, replace=False))
    y = np.full(300, np.nan)
    y[S] = f[S] + 0.5 * rng.normal(size=60)          # noisy labels: smoothing must win over the harmonic
    reg = LaplacianRegularizationRegressor(graph="precomputed").fit(W, y)
    F, res = select_tikhonov_solution(W, S, y[S], TIKHONOV_ALPHAS)
    assert reg.alpha_ == res.best_params["alpha"] > 0
    np.testing.assert_array_equal(reg.cv_results_["mean_test_score"], res.cv_results_["mean_test_score"])
    np.testing.assert_allclose(reg.transduction_, tikhonov_solution(W, S, y[S], alpha=reg.alpha_), atol=1e-9)
    harm = LaplacianRegularizationRegressor(0.0, graph="precomputed").fit(W, y)
    assert harm.alpha_ == 0 and harm.cv_results_ is None
    # the harmonic solution keeps the noise on the labeled nodes; the selected alpha removes some of it
    err = lambda g: np.sqrt(np.mean((g[S] - f[S]) ** 2))   # noqa: E731
    assert err(reg.transduction_) < 0.8 * err(harm.transduction_)
    # one's own grid is scored, not extended
    own = LaplacianRegularizationRegressor([0.0, 1e-3, 1e-2], graph="precomputed")
    with pytest.warns(Warning, match="edge of its grid"):
        own.fit(W, y)
    assert own.alpha_ == 1e-2 and own.cv_results_["param_alpha"].tolist() == [0.0, 1e-3, 1e-2]


def test_laplacian_regularization_classifier_auto_scores_loo_accuracy():
    X, y = _two_moons(150)
    W = knn_graph(X, 8)
    y_partial, keep = _partial(y, 6)
    est = LaplacianRegularizationClassifier(graph="precomputed").fit(W, y_partial)
    cv = est.cv_results_
    assert cv["param_alpha"][0] == 0.0 and est.alpha_ in cv["param_alpha"]
    # the score is a LOO accuracy over the 12 labels, the selected point ranks first
    assert set(np.round(cv["mean_test_score"] * 12, 9)) <= set(range(13))
    assert cv["rank_test_score"][list(cv["param_alpha"]).index(est.alpha_)] == 1
    fixed = LaplacianRegularizationClassifier(est.alpha_, graph="precomputed").fit(W, y_partial)
    np.testing.assert_allclose(est.scores_, fixed.scores_, atol=1e-9)


# --- graph TV: alpha="auto" by k-fold CV --------------------------------------------------------

def test_tv_regressor_auto_alpha_is_the_kfold_choice_of_independent_refits():
    import warnings

    from graphrkhs.solvers import kfold_splits

    rng = np.random.default_rng(3)
    X = rng.uniform(size=(200, 2))
    W = knn_graph(X, 8)
    f = np.where(X[:, 0] > 0.5, 2.0, -1.0) + 5.0
    S = np.sort(rng.choice(200, 30, replace=False))
    y = np.full(200, np.nan)
    y[S] = f[S] + 0.3 * rng.normal(size=30)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reg = GraphTVRegressor(graph="precomputed", R="incidence").fit(W, y)
    cv = reg.cv_results_
    grid = np.asarray(cv["param_alpha"])
    np.testing.assert_allclose(grid, np.std(y[S]) * np.array([0.1, 0.4, 1.6]))
    # oracle: the same folds, cold starts at a tight duality gap; the folds are drawn on the labeled
    # nodes in the canonical order, here that of their (distinct) weighted degrees
    folds = kfold_splits(np.zeros(30), 3, stratify=False, random_state=0)
    deg = np.asarray(W.sum(axis=1)).ravel()[S]
    assert np.unique(deg).size == 30
    Sc = S[np.argsort(deg, kind="stable")]
    oracle = []
    for a in grid:
        errs = []
        for tr, te in folds:
            F = graph_tv(W, Sc[tr], y[Sc][tr], alpha=a, tol=1e-7, max_iter=100000)
            errs.append(np.mean((F[Sc[te]] - y[Sc][te]) ** 2))
        oracle.append(-np.mean(errs))
    np.testing.assert_allclose(cv["mean_test_score"], oracle, rtol=0.05)
    assert reg.alpha_ == grid[np.argmax(oracle)]
    fixed = GraphTVRegressor(reg.alpha_, graph="precomputed", R="incidence").fit(W, y)
    np.testing.assert_allclose(reg.transduction_, fixed.transduction_, atol=1e-12)
    assert fixed.cv_results_ is None and fixed.alpha_ == reg.alpha_



@pytest.mark.parametrize("R", ["incidence", "kernel", "auto"])
@pytest.mark.parametrize("c", [1e-200, 1e200])
def test_tv_regressor_auto_grid_for_targets_near_the_ends_of_float64(c, R):
    # the grid is (0.1, 0.4, 1.6) std(y_S); the std of y ~ 1e200 overflowed (its squares): an infinite
    # grid and a ValueError about alpha the user never passed
    rng = np.random.default_rng(3)
    X = rng.uniform(size=(60, 2))
    W = knn_graph(X, 6)
    S = np.sort(rng.choice(60, 12, replace=False))
    v = np.where(X[S, 0] > 0.5, 2.0, -1.0) + 0.3 * rng.normal(size=12)
    y = np.full(60, np.nan)
    y[S] = v * c
    reg = GraphTVRegressor(graph="precomputed", R=R).fit(W, y)
    np.testing.assert_allclose(np.unique(reg.cv_results_["param_alpha"]) / c,
                               np.std(v) * np.array([0.1, 0.4, 1.6]), rtol=1e-12)
    assert np.isfinite(reg.transduction_).all()
    if reg.R_ == "incidence":           # graph TV's maximum principle (a kernel expansion may overshoot)
        assert np.abs(reg.transduction_ / c).max() <= np.abs(v).max() * (1 + 1e-12)   # inside [min y, max y]
    # the CV scores are finite and rank the grid as at unit scale (they were all -inf / all 0: ties)
    scores = np.asarray(reg.cv_results_["mean_test_score"])
    assert np.isfinite(scores).all() and np.ptp(scores) > 0
    unit = GraphTVRegressor(graph="precomputed", R=R).fit(W, y / c)
    assert np.argmax(scores) == np.argmax(unit.cv_results_["mean_test_score"])
    assert reg.alpha_ / c == pytest.approx(unit.alpha_, rel=1e-12)
    assert reg.R_ == unit.R_
    np.testing.assert_allclose(reg.transduction_ / c, unit.transduction_, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("R, grid", [("kernel", [0.1, 0.3, 0.9]), ("incidence", [0.5, 0.9])])
def test_tv_classifier_auto_alpha_two_folds_and_fallback(R, grid):
    X, y = _two_moons(120)
    W = knn_graph(X, 8)
    y_partial, keep = _partial(y, 5)
    est = GraphTVClassifier(R=R, graph="precomputed").fit(W, y_partial)
    assert est.cv_results_["param_alpha"].tolist() == grid and est.alpha_ in grid
    # accuracies over 2 stratified folds of 5 + 5 labels: multiples of 1/10 averaged over two folds
    assert np.all(np.isclose((np.asarray(est.cv_results_["mean_test_score"]) * 20) % 1, 0)
                  | np.isclose((np.asarray(est.cv_results_["mean_test_score"]) * 20) % 1, 1))
    # one label per class: no folds, the middle of the grid, no table
    y1, _ = _partial(y, 1)
    one = GraphTVClassifier(R=R, graph="precomputed").fit(W, y1)
    assert one.cv_results_ is None and one.alpha_ == 0.5


# --- matrix-free LOO above the label threshold --------------------------------------------------

def test_graph_kernel_ridge_and_tikhonov_switch_to_the_stochastic_loo_above_the_threshold(monkeypatch):
    import warnings

    import graphrkhs.estimators._transductive as tr
    import graphrkhs.solvers._selection as sel

    rng = np.random.default_rng(11)
    X = rng.uniform(size=(300, 2))
    W = knn_graph(X, 8)
    f = np.sin(5 * X[:, 0]) + X[:, 1] + 4.0
    S = np.sort(rng.choice(300, 60, replace=False))
    y = np.full(300, np.nan)
    y[S] = f[S] + 0.4 * rng.normal(size=60)
    grid = (1e-4, 1e-2, 1.0)           # well separated: the exact and the estimated LOO agree on the choice
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exact = GraphKernelRidgeRegressor(alphas=grid, graph="precomputed").fit(W, y)
        tik_exact = LaplacianRegularizationRegressor([0.0, 0.1, 1.0, 10.0], graph="precomputed").fit(W, y)
        monkeypatch.setattr(tr, "STOCHASTIC_MIN_LABELS", 10)
        monkeypatch.setattr(sel, "STOCHASTIC_MIN_LABELS", 10)
        stoch = GraphKernelRidgeRegressor(alphas=grid, graph="precomputed").fit(W, y)
        tik = LaplacianRegularizationRegressor([0.0, 0.1, 1.0, 10.0], graph="precomputed").fit(W, y)
    ex, st = np.asarray(exact.cv_results_["mean_test_score"]), np.asarray(stoch.cv_results_["mean_test_score"])
    # 64 probes: a relative error of the LOO MSE well below 1 / sqrt(64) (see stochastic_loo_errors)
    np.testing.assert_allclose(st, ex, rtol=1 / 8)
    assert stoch.alpha_ == exact.alpha_
    # the CG fit with the free constant eliminated equals the dense saddle-point fit
    np.testing.assert_allclose(stoch.transduction_, exact.transduction_, atol=1e-5)
    np.testing.assert_allclose(tik.cv_results_["mean_test_score"], tik_exact.cv_results_["mean_test_score"],
                               rtol=1 / 8)
    assert tik.alpha_ == tik_exact.alpha_
    np.testing.assert_allclose(tik.transduction_, tik_exact.transduction_, atol=1e-6)


# --- GraphTVClassifier(R="kernel"): the generalized TV with R = phi(L)^{-1} ------------------------

def test_tv_classifier_kernel_operator_is_graph_kernel_tv_and_refuses_a_kernel_without_polynomial_inverse():
    from graphrkhs import filters, graph_kernel_tv

    X, y = _two_moons(120)
    W = knn_graph(X, 8)
    y_partial, keep = _partial(y, 5)
    est = GraphTVClassifier(0.3, graph="precomputed").fit(W, y_partial)
    S = np.flatnonzero(y_partial >= 0)
    F = graph_kernel_tv(W, S, np.eye(2)[y_partial[S]], alpha=0.3)
    np.testing.assert_allclose(est.scores_, F, atol=1e-8)
    assert not est.unreached_.any() and est.alpha_ == 0.3
    with pytest.raises(ValueError, match="needs a kernel whose inverse"):
        GraphTVClassifier(0.3, kernel=filters.Heat(1.0), graph="precomputed").fit(W, y_partial)


def _dense_kernel(W, phi):
    lam, U = np.linalg.eigh(laplacian(W, "normalized").toarray())
    return (U * phi(lam)) @ U.T


def test_ridge_with_one_label_per_class_uses_the_largest_alpha_without_a_selection():
    from graphrkhs import SelectionWarning
    from sklearn.datasets import make_blobs
    X, y = make_blobs(60, centers=[[0, 0], [3, 0], [0, 3]], cluster_std=0.8, random_state=2)
    W = knn_graph(X, 6)
    keep = np.array([np.flatnonzero(y == c)[0] for c in range(3)])
    y_partial = np.full(60, -1)
    y_partial[keep] = y[keep]
    phi = filters.RegularizedLaplacian(3.0)
    alphas = (1e-3, 1e-1, 10.0)
    # one's own grid, not selected: its largest value, with the SelectionWarning of every such fallback
    # (_auto.unselected) and no grid-edge warning
    with pytest.warns(SelectionWarning, match="alphas=10 of the given grid is used") as rec:
        est = GraphKernelRidgeClassifier(phi, alphas=alphas, fit_intercept=False, graph="precomputed").fit(W, y_partial)
    assert len(rec) == 1
    assert est.alpha_ == 10.0
    assert est.cv_results_ is None
    Phi = _dense_kernel(W, phi)
    F = Phi[:, keep] @ np.linalg.solve(Phi[np.ix_(keep, keep)] + 10.0 * np.eye(3), np.eye(3))
    np.testing.assert_allclose(est.scores_, F, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("E", [LaplacianRegularizationClassifier, PoissonLearningClassifier, GraphKernelRidgeClassifier,
                               PoissonRidgeEnsembleClassifier, GraphTVClassifier, PoissonMBOClassifier,
                               VolumeMBOClassifier], ids=lambda E: E.__name__)
def test_predict_of_the_fitted_points_is_the_transduction(E):
    # a new point on a fitted node is that node (the Nadaraya-Watson average over its neighbours is not)
    X, y = _two_moons(120)
    y_partial, _ = _partial(y, 3)
    est = E(n_neighbors=8).fit(X, y_partial)
    np.testing.assert_allclose(est._scores(X), est.scores_, rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(est.predict(X), est.transduction_)
    # a point off the nodes keeps the Nadaraya-Watson rule (weights of all its k neighbours)
    Xn = X[:5] + 1e-3
    d = np.linalg.norm(Xn[:, None] - X[None], axis=2)
    idx = np.argsort(d, axis=1)[:, :8]
    dk = np.take_along_axis(d, idx, axis=1)
    w = np.exp(-(dk / dk[:, -1:]) ** 2 / 2)
    expected = np.einsum("ik,ik...->i...", w, est.scores_[idx]) / w.sum(1).reshape((-1,) + (1,) * (est.scores_.ndim - 1))
    np.testing.assert_allclose(est._scores(Xn), expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("E", [LaplacianRegularizationClassifier, PoissonLearningClassifier, GraphKernelRidgeClassifier,
                               PoissonRidgeEnsembleClassifier, GraphTVClassifier, PoissonMBOClassifier,
                               VolumeMBOClassifier], ids=lambda E: E.__name__)
@pytest.mark.parametrize("priors", [None, (0.3, 0.7)])
def test_predict_proba_of_the_fitted_points_is_the_label_distribution(E, priors):
    # with a cluster that no label reaches (its own component): there label_distributions_ is the class
    # prior -- class_priors when given (they were ignored there), else the labeled proportions 4/7, 3/7 --
    # and so is predict_proba on those points
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 1, (80, 2)), rng.normal(0, 1, (20, 2)) + 100])
    y = np.full(100, -1)
    y[:4], y[40:43] = 0, 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # the GraphWarning of the label-free component
        est = E(n_neighbors=5, class_priors=priors).fit(X, y)
    expected = [4 / 7, 3 / 7] if priors is None else priors
    np.testing.assert_allclose(est.label_distributions_[80:], np.tile(expected, (20, 1)), rtol=1e-12)
    np.testing.assert_allclose(est.predict_proba(X), est.label_distributions_, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("E", [LaplacianRegularizationRegressor, GraphKernelRidgeRegressor, GraphTVRegressor],
                         ids=lambda E: E.__name__)
def test_regressor_predict_of_the_fitted_points_is_the_transduction(E):
    X, y = _two_moons(120)
    y_partial, _ = _partial(y, 3)
    est = E(n_neighbors=8).fit(X, np.where(y_partial >= 0, y_partial, np.nan).astype(float))
    np.testing.assert_allclose(est.predict(X), est.transduction_, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("E", [GraphTVRegressor, GraphTVClassifier], ids=lambda E: E.__name__)
def test_graph_tv_auto_alpha_does_not_depend_on_the_node_numbering(E):
    """alpha="auto" drew its k-fold CV folds in node order, so numbering the same graph's nodes otherwise
    (a permutation of the rows of X) changed alpha_ (0.035 against 0.139 on two moons) and the fit; the
    folds are now drawn on a canonical order of the labeled nodes (targets, degree, squared weights)."""
    from sklearn.datasets import make_moons

    X, y = make_moons(120, noise=0.1, random_state=0)
    W = knn_graph(X, 8)
    rng = np.random.default_rng(0)
    S = np.r_[rng.choice(np.flatnonzero(y == 0), 6, replace=False), rng.choice(np.flatnonzero(y == 1), 6,
                                                                                  replace=False)]
    target = np.full(120, -1 if E is GraphTVClassifier else np.nan)
    target[S] = y[S]
    fits = []
    for seed in range(4):
        perm = np.random.default_rng(seed).permutation(120) if seed else np.arange(120)
        est = E(graph="precomputed", tol=1e-6).fit(W[np.ix_(perm, perm)], target[perm])
        out = np.empty_like(est.transduction_)
        out[perm] = est.transduction_
        fits.append((est.alpha_, out))
    for alpha, out in fits[1:]:
        assert alpha == fits[0][0]
        np.testing.assert_allclose(out, fits[0][1], atol=1e-5)


@pytest.mark.parametrize("E", [LaplacianRegularizationClassifier, PoissonLearningClassifier, GraphTVClassifier])
def test_nodes_no_label_reaches_are_labeled_with_the_most_probable_class_of_their_prior(E):
    # points on a line: node 0 labeled 0, nodes 1-3 labeled 1 (prior (1/4, 3/4)), nodes 4-11 beyond them,
    # and a far group of 5 no label reaches.  The far nodes' label distribution is the prior, so their
    # label is class 1.  mean_shift subtracts the column means over the reached unlabeled nodes (all on
    # class 1's side) from their scores (the prior vector): (1/4 - m_0, 3/4 - m_1) had its argmax at class
    # 0, and transduction_ and predict said 0 while label_distributions_ gave class 1 3/4
    X = np.r_[np.arange(12.0), 100.0 + np.arange(5.0)][:, None]
    y = np.full(17, -1)
    y[[0, 1, 2, 3]] = [0, 1, 1, 1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = E(n_neighbors=2, class_normalization="mean_shift").fit(X, y)
        pred = est.predict(X)
        d = est.decision_function(X)
    far = np.arange(12, 17)
    np.testing.assert_allclose(est.label_distributions_[far], np.tile([0.25, 0.75], (5, 1)), rtol=1e-12)
    np.testing.assert_array_equal(est.transduction_[far], np.ones(5, dtype=int))
    np.testing.assert_array_equal(pred[far], np.ones(5, dtype=int))
    # decision_function agrees (binary: positive means classes_[1]); it was -0.5, their normalized scores
    assert (d[far] > 0).all()


@pytest.mark.parametrize("make", [
    lambda: GraphKernelRidgeRegressor(alpha=0.1),
    lambda: LaplacianRegularizationRegressor(alpha=0.1),
    lambda: GraphTVRegressor(alpha=0.1),
], ids=["kernel_ridge", "laplace", "tv"])
def test_transductive_regressors_keep_float32(make):
    # float32 points gave float64 transduction_ and predict, while the point regressors
    # (RLSRegressor, ...) return float32: results keep the input dtype (DESIGN)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = X[:, 0] + X[:, 1] ** 2
    y[::2] = np.nan
    new = rng.normal(size=(5, 2))
    m64 = make().fit(X, y)
    m32 = make().fit(X.astype(np.float32), y.astype(np.float32))
    assert m64.transduction_.dtype == np.float64 and m64.predict(new).dtype == np.float64
    assert m32.transduction_.dtype == np.float32
    p32 = m32.predict(new.astype(np.float32))
    assert p32.dtype == np.float32
    # same values to float32 rounding (the graph of float32 points, the solves in float64)
    scale = float(np.abs(m64.transduction_).max())
    np.testing.assert_allclose(m32.transduction_, m64.transduction_, atol=1e-4 * scale)
    np.testing.assert_allclose(p32, m64.predict(new), atol=1e-4 * scale)
    # two targets: float32 out, too
    Y2 = np.column_stack([y, -y])
    m2 = make().fit(X.astype(np.float32), Y2)
    assert m2.transduction_.dtype == np.float32 and m2.transduction_.shape == (40, 2)
    W32 = knn_graph(X.astype(np.float32), 5)  # a float32 precomputed graph
    mp = make().set_params(graph="precomputed").fit(W32, y)
    assert mp.transduction_.dtype == np.float32 and mp.predict(W32[:3]).dtype == np.float32


def _two_component_problem(seed=0):
    """Two clusters far apart (two components of a 6-NN graph), 8 labeled nodes in each."""
    rng = np.random.default_rng(seed)
    X = np.r_[rng.normal(size=(30, 2)), rng.normal(size=(30, 2)) + 100.0]
    W = knn_graph(X, 6)
    n_comp, comp = connected_components(W)
    assert n_comp == 2
    A, B = np.flatnonzero(comp == comp[0]), np.flatnonzero(comp != comp[0])
    SA, SB = np.sort(rng.choice(A, 8, replace=False)), np.sort(rng.choice(B, 8, replace=False))
    return W, A, B, SA, SB, rng


def test_tv_regressor_kernel_fit_of_a_component_ignores_the_labels_of_another():
    # The kernel operator R = phi(L)^{-1} is not blind to constants, so the regressor solves for y minus a midrange
    # and adds it back; one midrange over all labels made component A's fit move with the labels of component B
    # (B's labels + 10: A's predictions moved by up to 2.8 on a target range of 1.5).  The constant is per
    # connected component.  Oracle: cvxpy on A alone, for y_A minus its own midrange.
    W, A, B, SA, SB, rng = _two_component_problem()
    yA = np.where(rng.uniform(size=8) > 0.5, 1.0, -0.5)
    y = np.full(W.shape[0], np.nan)
    y[SA], y[SB] = yA, rng.normal(size=8)
    fits = []
    for shift, scale in [(0.0, 1.0), (10.0, 1.0), (-3.0, 7.0)]:
        y2 = y.copy()
        y2[SB] = scale * y[SB] + shift
        reg = GraphTVRegressor(alpha=0.2, R="kernel", graph="precomputed", tol=1e-10).fit(W, y2)
        fits.append(reg.transduction_[A])
    for f in fits[1:]:
        np.testing.assert_allclose(f, fits[0], rtol=0, atol=1e-10)
    # the dense oracle on A alone: min sum_S lam (y - f)^2 + mu ||R f||_1 for y_A - c_A, plus c_A
    import cvxpy as cp
    WA = W[A][:, A]
    phi = filters.default_kernel()
    L = laplacian(WA, "normalized").toarray()
    R = sum(ck * np.linalg.matrix_power(L, k) for k, ck in enumerate(phi.inverse_polynomial()))
    loc = np.searchsorted(A, SA)
    lam = np.abs(R).sum(axis=0)[loc]
    c = yA.min() / 2 + yA.max() / 2
    f = cp.Variable(A.size)
    prob = cp.Problem(cp.Minimize(cp.sum(cp.multiply(lam, cp.square(yA - c - f[loc]))) + 0.2 * cp.norm1(R @ f)))
    prob.solve(solver=cp.CLARABEL, tol_gap_rel=1e-12, tol_gap_abs=1e-12, tol_feas=1e-12)
    np.testing.assert_allclose(fits[0], f.value + c, atol=1e-5)


def test_tv_classifier_kernel_scores_of_a_component_ignore_the_labels_of_another():
    # the classifier solves the one-hot columns as they are (no offset), so it never had the regressor's global
    # midrange: each component's scores are its own (a guard; this passed before the regressor's fix too)
    W, A, B, SA, SB, rng = _two_component_problem(1)
    y = np.full(W.shape[0], -1)
    y[SA] = np.arange(8) % 2
    scores = []
    for labels_B in (np.arange(8) % 2, np.zeros(8, dtype=int), np.r_[np.ones(7, dtype=int), 0]):
        y2 = y.copy()
        y2[SB] = labels_B
        clf = GraphTVClassifier(alpha=0.3, R="kernel", graph="precomputed", tol=1e-10).fit(W, y2)
        scores.append(clf.label_distributions_[A])
    for s in scores[1:]:
        np.testing.assert_allclose(s, scores[0], rtol=0, atol=1e-10)
