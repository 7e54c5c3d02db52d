"""PoissonRidgeEnsembleClassifier: w z(F_poisson) + (1 - w) z(F_ridge) on one graph (issue 15).

Oracles: the scores of the two existing estimators (PoissonLearningClassifier,
GraphKernelRidgeClassifier) on the same graph, standardized here by the formula written out
(column mean and population standard deviation over all nodes); node permutations.
"""

import numpy as np
import pytest
from sklearn.datasets import make_blobs

from graphrkhs import (
    GraphKernelRidgeClassifier,
    GraphSpec,
    PoissonLearningClassifier,
    PoissonRidgeEnsembleClassifier,
    knn_graph,
)


def _z(F, unlabeled):
    # z(F)_ic = (F_ic - mean_j F_jc) / std_j F_jc over the unlabeled nodes j (ddof 0), applied to every node
    return (F - F[unlabeled].mean(axis=0)) / F[unlabeled].std(axis=0)


def _blobs(n=90, seed=0, per_class=2):
    X, y = make_blobs(n, centers=[[0, 0], [3, 0], [0, 3]], cluster_std=1.1, random_state=seed)
    rng = np.random.default_rng(seed)
    keep = np.concatenate([rng.choice(np.flatnonzero(y == c), per_class, replace=False) for c in range(3)])
    yy = np.full(n, -1)
    yy[keep] = y[keep]
    return X, y, yy


@pytest.fixture(scope="module")
def problem():
    X, y, yy = _blobs()
    W = knn_graph(X, 6)
    P = PoissonLearningClassifier(graph="precomputed").fit(W, yy)
    R = GraphKernelRidgeClassifier(graph="precomputed").fit(W, yy)
    return X, y, yy, W, P, R


@pytest.mark.parametrize("w", [0.5, 0.3])
def test_scores_are_the_weighted_sum_of_the_standardized_scores_of_the_two_estimators(problem, w):
    X, y, yy, W, P, R = problem
    est = PoissonRidgeEnsembleClassifier(poisson_weight=w, graph="precomputed").fit(W, yy)
    U = yy == -1
    expected = w * _z(P.scores_, U) + (1 - w) * _z(R.scores_, U)
    np.testing.assert_allclose(est.scores_, expected, rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(est.transduction_, est.classes_[expected.argmax(axis=1)])
    # the ridge part keeps its own leave-one-out choice of alpha
    assert est.alpha_ == R.alpha_ and est.kernel_ == R.kernel_
    np.testing.assert_allclose(est.poisson_scores_, P.scores_, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(est.ridge_scores_, R.scores_, rtol=1e-12, atol=1e-12)
    # labeled nodes keep their labels here (two labels a class, well separated blobs)
    lab = yy != -1
    np.testing.assert_array_equal(est.transduction_[lab], yy[lab])
    assert np.mean(est.transduction_ == y) > 0.75       # a sanity floor (overlapping blobs), not a benchmark


def test_weight_one_and_zero_are_the_standardized_single_methods(problem):
    X, y, yy, W, P, R = problem
    e1 = PoissonRidgeEnsembleClassifier(poisson_weight=1.0, graph="precomputed").fit(W, yy)
    e0 = PoissonRidgeEnsembleClassifier(poisson_weight=0.0, graph="precomputed").fit(W, yy)
    U = yy == -1
    np.testing.assert_allclose(e1.scores_, _z(P.scores_, U), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(e0.scores_, _z(R.scores_, U), rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(e1.transduction_, P.classes_[_z(P.scores_, U).argmax(axis=1)])
    np.testing.assert_array_equal(e0.transduction_, R.classes_[_z(R.scores_, U).argmax(axis=1)])


def test_weight_zero_predicts_new_points_as_standardized_kernel_ridge():
    # the out-of-sample rule is a normalized weighted mean of fitted scores, so it commutes with the
    # per-column affine map z: predict = argmax of z's map applied to kernel ridge's new-point scores
    X, y, yy = _blobs(seed=1)
    X_new = _blobs(30, seed=2)[0]
    R = GraphKernelRidgeClassifier(n_neighbors=6).fit(X, yy)
    e0 = PoissonRidgeEnsembleClassifier(poisson_weight=0.0, n_neighbors=6).fit(X, yy)
    F = R.scores_
    U = yy == -1
    G = (R.decision_function(X_new) - F[U].mean(axis=0)) / F[U].std(axis=0)
    np.testing.assert_allclose(e0.decision_function(X_new), G, rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(e0.predict(X_new), R.classes_[G.argmax(axis=1)])


def test_node_permutation_equivariance(problem):
    X, y, yy, W, P, R = problem
    perm = np.random.default_rng(3).permutation(W.shape[0])
    Wp = W[perm][:, perm]
    a = PoissonRidgeEnsembleClassifier(graph="precomputed").fit(W, yy)
    b = PoissonRidgeEnsembleClassifier(graph="precomputed").fit(Wp, yy[perm])
    np.testing.assert_allclose(b.scores_, a.scores_[perm], rtol=1e-8, atol=1e-8)
    np.testing.assert_array_equal(b.transduction_, a.transduction_[perm])
    np.testing.assert_allclose(b.label_distributions_, a.label_distributions_[perm], rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("exponent", [-600, 600])
def test_scaling_the_edge_weights_changes_nothing(problem, exponent):
    # Poisson's potentials scale as 1/c when W -> c W (L F = source), the kernel ridge on the normalized
    # Laplacian not at all, so the standardized ensemble must not move.  c = 2^-600 put Poisson's scores
    # near 1e180: their squares in the standard deviation overflowed, z was 0 and the Poisson half of the
    # ensemble vanished (with numpy's overflow warning); c = 2^600 put them near 1e-180, the squares
    # underflowed to 0 and the 1e-300 floor blew z up to ~1e120, so Poisson alone decided
    X, y, yy, W, P, R = problem
    a = PoissonRidgeEnsembleClassifier(graph="precomputed").fit(W, yy)
    c = 2.0 ** exponent                       # a power of two: W c is exact
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        b = PoissonRidgeEnsembleClassifier(graph="precomputed").fit(W * c, yy)
    np.testing.assert_allclose(b.poisson_scores_ * c, a.poisson_scores_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(b.scores_, a.scores_, rtol=1e-8, atol=1e-9)
    np.testing.assert_array_equal(b.transduction_, a.transduction_)


def test_points_with_a_cosine_graph_spec_equal_the_precomputed_cosine_graph():
    X, y, yy = _blobs(seed=4)
    X = X + 5.0                                # away from the origin: cosine geometry is meaningful
    spec = GraphSpec(n_neighbors=6, weight="self-tuning", relative_width=0.5, metric="cosine")
    a = PoissonRidgeEnsembleClassifier(graph=spec).fit(X, yy)
    W = knn_graph(X, 6, weight="self-tuning", relative_width=0.5, metric="cosine")
    b = PoissonRidgeEnsembleClassifier(graph="precomputed").fit(W, yy)
    np.testing.assert_allclose(a.scores_, b.scores_, rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(a.transduction_, b.transduction_)


def test_string_labels_and_a_custom_marker():
    X, y, yy = _blobs(seed=5)
    names = np.array(["a", "b", "c"])
    ys = np.where(yy == -1, "?", names[np.maximum(yy, 0)]).astype(object)
    est = PoissonRidgeEnsembleClassifier(n_neighbors=6, unlabeled="?").fit(X, ys)
    ref = PoissonRidgeEnsembleClassifier(n_neighbors=6).fit(X, yy)
    np.testing.assert_array_equal(est.classes_, names)
    np.testing.assert_array_equal(est.transduction_, names[ref.transduction_])


# ---------------------------------------------------------------------------
# graph="auto": the data guard (cosine self-tuning graph for many non-negative columns)
# ---------------------------------------------------------------------------

def _profiles(n_features=40, n=90, seed=0):
    """Non-negative 'images': three class profiles times random brightness plus noise (>= 0)."""
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(3), n // 3)
    profiles = rng.uniform(0, 1, size=(3, n_features)) ** 3
    X = profiles[y] * rng.uniform(0.3, 3.0, size=(n, 1)) + 0.05 * rng.uniform(size=(n, n_features))
    yy = np.full(n, -1)
    for c in range(3):
        yy[np.flatnonzero(y == c)[:2]] = c
    return X, y, yy


def _same_as_precomputed(est, X, yy, W):
    ref = PoissonRidgeEnsembleClassifier(graph="precomputed").fit(W, yy)
    np.testing.assert_allclose(est.scores_, ref.scores_, rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(est.transduction_, ref.transduction_)


def test_auto_graph_is_the_cosine_self_tuning_graph_on_non_negative_high_dimensional_data(caplog):
    X, y, yy = _profiles()
    with caplog.at_level("INFO", logger="graphrkhs"):
        est = PoissonRidgeEnsembleClassifier().fit(X, yy)
    assert est.get_params()["graph"] == "auto"
    assert est.graph_spec_ == GraphSpec(n_neighbors=10, weight="self-tuning", relative_width=0.5, metric="cosine")
    W = knn_graph(X, 10, weight="self-tuning", relative_width=0.5, metric="cosine")
    # the graph itself: exp(-4 d^2 / (s_i s_j)) on the unit rows (d_ij chord distance, s_i the 10th
    # neighbour's), written out densely for the kNN pairs of the library's graph
    U = X / np.linalg.norm(X, axis=1, keepdims=True)
    D = np.sqrt(((U[:, None, :] - U[None, :, :]) ** 2).sum(-1))
    s = np.sort(D, axis=1)[:, 10]
    Wd = W.toarray()
    i, j = np.nonzero(Wd)
    np.testing.assert_allclose(Wd[i, j], np.exp(-4 * D[i, j] ** 2 / (s[i] * s[j])), rtol=1e-10)
    knn = np.argsort(D, axis=1)[:, 1:11]
    A = np.zeros_like(Wd, dtype=bool)
    A[np.repeat(np.arange(X.shape[0]), 10), knn.ravel()] = True
    np.testing.assert_array_equal(Wd > 0, A | A.T)          # the union of the 10-NN relations
    _same_as_precomputed(est, X, yy, W)
    assert any("cosine" in r.getMessage() and "PoissonRidgeEnsembleClassifier" in r.getMessage()
               for r in caplog.records)
    # scaling every point by its own positive factor leaves the cosine graph, so the labels, unchanged
    c = np.random.default_rng(1).uniform(0.1, 10, size=(X.shape[0], 1))
    np.testing.assert_allclose(PoissonRidgeEnsembleClassifier().fit(c * X, yy).scores_, est.scores_,
                               rtol=1e-7, atol=1e-7)


@pytest.mark.parametrize("case", ["2-D", "31 columns", "a negative entry", "a zero row"])
def test_auto_graph_is_the_euclidean_gaussian_graph_otherwise(case):
    X, y, yy = _profiles(31 if case == "31 columns" else 40)
    if case == "2-D":
        X, y, yy = _blobs(seed=6)
    elif case == "a negative entry":
        X[5, 7] = -1e-3
    elif case == "a zero row":
        X[4] = 0.0
    est = PoissonRidgeEnsembleClassifier().fit(X, yy)
    assert est.graph_spec_ == GraphSpec()                 # knn_graph's defaults: k = 10, Gaussian, Euclidean
    _same_as_precomputed(est, X, yy, knn_graph(X, 10))


def test_auto_guard_threshold_is_32_columns():
    from graphrkhs.estimators import AUTO_COSINE_MIN_FEATURES, prefers_cosine_graph
    assert AUTO_COSINE_MIN_FEATURES == 32
    assert prefers_cosine_graph(_profiles(32)[0]) and not prefers_cosine_graph(_profiles(31)[0])


def test_an_explicit_graph_wins_over_the_guard():
    X, y, yy = _profiles()
    knn = PoissonRidgeEnsembleClassifier(graph="knn").fit(X, yy)
    assert knn.graph_spec_ == GraphSpec()
    _same_as_precomputed(knn, X, yy, knn_graph(X, 10))
    spec = GraphSpec(n_neighbors=7, weight="binary")
    given = PoissonRidgeEnsembleClassifier(graph=spec).fit(X, yy)
    assert given.graph_spec_ == spec
    _same_as_precomputed(given, X, yy, knn_graph(X, 7, weight="binary"))
    pre = PoissonRidgeEnsembleClassifier(graph="precomputed").fit(knn_graph(X, 7, weight="binary"), yy)
    assert pre.graph_spec_ is None
    np.testing.assert_allclose(pre.scores_, given.scores_, rtol=1e-9, atol=1e-9)
    # a weight given keeps the guard's metric and takes knn_graph's meaning of the weight
    w = PoissonRidgeEnsembleClassifier(weight="gaussian", n_neighbors=8).fit(X, yy)
    assert w.graph_spec_ == GraphSpec(n_neighbors=8, weight="gaussian", metric="cosine")
    _same_as_precomputed(w, X, yy, knn_graph(X, 8, metric="cosine"))


def test_auto_graph_bad_parameters_fail_before_any_work():
    X, y, yy = _profiles()
    with pytest.raises(ValueError, match="graph"):
        PoissonRidgeEnsembleClassifier(graph="cosine").fit(X, yy)
    with pytest.raises(ValueError, match="weight"):
        PoissonRidgeEnsembleClassifier(weight="cosine").fit(X, yy)
    with pytest.raises(ValueError, match="n_neighbors"):
        PoissonRidgeEnsembleClassifier(n_neighbors=90).fit(X, yy)


def test_new_points_meet_the_cosine_graph_in_its_own_distance():
    # brute-force oracle of the out-of-sample rule on unit rows: the 10 nearest fitted unit rows,
    # weights exp(-(d/h)^2 / 2), h the 10th distance; and invariance to rescaling each new row
    X, y, yy = _profiles()
    X_new = _profiles(seed=3)[0][:12]
    est = PoissonRidgeEnsembleClassifier().fit(X, yy)
    assert est.graph_spec_.metric == "cosine"
    U = X / np.linalg.norm(X, axis=1, keepdims=True)
    Un = X_new / np.linalg.norm(X_new, axis=1, keepdims=True)
    D = np.sqrt(((Un[:, None, :] - U[None, :, :]) ** 2).sum(-1))
    idx = np.argsort(D, axis=1)[:, :10]
    d = np.take_along_axis(D, idx, axis=1)
    w = np.exp(-((d / d[:, -1:]) ** 2) / 2)
    expected = np.einsum("ik,ikc->ic", w, est.scores_[idx]) / w.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(est.decision_function(X_new), expected, rtol=1e-9, atol=1e-12)
    c = np.random.default_rng(2).uniform(0.1, 10, size=(12, 1))
    np.testing.assert_array_equal(est.predict(c * X_new), est.predict(X_new))
    with pytest.raises(ValueError, match="direction"):
        est.predict(np.zeros((1, X.shape[1])))


def test_digits_ten_labels_per_class_accuracy_floor_and_the_tangent_graph_margin():
    # Regression floor of the recommended classifier with its defaults (graph="auto": the tangent-distance
    # graph on these 8 x 8 images) on scikit-learn's digits, 10 labels per class, the fixed draws
    # sample_labels(y, 10, random_state=s), s = 0..9.  Measured (session 24): mean 98.38 % (draws 97.23 to
    # 99.12), and 97.47 % for the same estimator on the cosine self-tuning graph, the default on images
    # before the tangent distance.  Session 36 (the images' one-pixel translates as unlabeled nodes of the
    # solve, SHIFT_COPIES_MAX_IMAGES): mean 98.61 % (draws 97.41 to 99.29); issue 15 asks for 98.5 % (the
    # 20-draw benchmark: 98.65, benchmarks/REPORT.md), which this test guards at these fixed draws.
    from graphrkhs.datasets import load_digits, sample_labels

    X, y = load_digits()
    cosine = GraphSpec(n_neighbors=10, weight="self-tuning", relative_width=0.5, metric="cosine")
    acc_auto, acc_cosine = [], []
    for seed in range(10):
        y_partial, keep = sample_labels(y, 10, random_state=seed)
        hide = np.ones(y.size, dtype=bool)
        hide[keep] = False
        est = PoissonRidgeEnsembleClassifier().fit(X, y_partial)
        assert est.graph_spec_.metric == "tangent" and est.graph_spec_.image_shape == (8, 8)
        acc_auto.append(np.mean(est.transduction_[hide] == y[hide]))
        cos = PoissonRidgeEnsembleClassifier(graph=cosine).fit(X, y_partial)
        acc_cosine.append(np.mean(cos.transduction_[hide] == y[hide]))
    assert np.mean(acc_auto) >= 0.985
    assert min(acc_auto) >= 0.970
    assert np.mean(acc_auto) >= np.mean(acc_cosine) + 0.005


def test_a_graph_warning_of_both_members_is_shown_once():
    # both members solve on the same graph and labels, and each said "2 node(s) lie in connected components
    # without any labeled node" (from two call sites, so both were shown)
    import warnings

    import scipy.sparse as sp

    blocks = [3, 3, 3, 3, 2]
    W = sp.block_diag([sp.csr_array(np.diag(np.ones(b - 1), 1) + np.diag(np.ones(b - 1), -1)) for b in blocks])
    y = np.full(14, -1)
    y[[0, 1, 3, 4, 6, 7, 9, 10]] = [0, 0, 0, 0, 1, 1, 1, 1]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        PoissonRidgeEnsembleClassifier(graph="precomputed").fit(W, y)
    free = [str(w.message) for w in caught if "without any labeled node" in str(w.message)]
    assert len(free) == 1 and free[0].startswith("2 node(s)")


def _with_a_label_free_blob(n_free=15):
    # the blobs' kNN graph plus a far unlabeled blob: a connected component that no label reaches
    import scipy.sparse as sp

    X, y, yy = _blobs()
    far = np.random.default_rng(4).normal(size=(n_free, 2)) + 60.0
    W = sp.csr_array(knn_graph(np.r_[X, far], 6))
    return W, np.r_[yy, np.full(n_free, -1)], X.shape[0]


@pytest.mark.filterwarnings("ignore:.*without any labeled node:graphrkhs.GraphWarning")
@pytest.mark.parametrize("exponent", [-10, 13])
def test_a_label_free_component_leaves_the_reached_nodes_free_of_the_units_of_w(exponent):
    # Poisson learning gives the nodes no label reaches the class prior (no units) and the others potentials
    # in 1/units of W: standardized over all nodes, the units of W moved the decision on reached nodes
    # (W * 1e4: 5 of the 90 changed class)
    W, yy, n = _with_a_label_free_blob()
    c = 2.0 ** exponent                               # exact
    a = PoissonRidgeEnsembleClassifier(graph="precomputed").fit(W, yy)
    b = PoissonRidgeEnsembleClassifier(graph="precomputed").fit(W * c, yy)
    np.testing.assert_array_equal(b.transduction_, a.transduction_)
    np.testing.assert_allclose(b.scores_, a.scores_, rtol=1e-8, atol=1e-9)


@pytest.mark.filterwarnings("ignore:.*without any labeled node:graphrkhs.GraphWarning")
def test_standardized_over_the_reached_nodes_the_others_get_no_information():
    # the oracle: z with the statistics of the unlabeled nodes some label reaches, the formula written out on the
    # two members' scores of the connected part; the label-free nodes get z = 0 and the class prior.  The
    # graphs differ (the kernel ridge's Chebyshev series runs to 1e-8 on another spectrum bound): scores O(1)
    # agree to 1e-6
    W, yy, n = _with_a_label_free_blob()
    est = PoissonRidgeEnsembleClassifier(graph="precomputed", tol=1e-12).fit(W, yy)
    part = W[:n][:, :n]
    P = PoissonLearningClassifier(graph="precomputed", tol=1e-12).fit(part, yy[:n])
    R = GraphKernelRidgeClassifier(graph="precomputed").fit(part, yy[:n])
    U = yy[:n] == -1
    np.testing.assert_allclose(est.scores_[:n], 0.5 * _z(P.scores_, U) + 0.5 * _z(R.scores_, U), atol=1e-6)
    np.testing.assert_array_equal(est.scores_[n:], 0.0)
    np.testing.assert_allclose(est.label_distributions_[n:], np.full((W.shape[0] - n, 3), 1 / 3), rtol=1e-12)
    # a new node joined to label-free nodes only gets the prior too (before: (0.39, 0.28, 0.33) on points)
    np.testing.assert_allclose(est.predict_proba(W[n:n + 1].toarray()), np.full((1, 3), 1 / 3), rtol=1e-12)


@pytest.mark.filterwarnings("ignore:.*without any labeled node:graphrkhs.GraphWarning")
def test_an_isolated_unlabeled_node_changes_no_other_score(problem):
    import scipy.sparse as sp

    X, y, yy, W, P, R = problem
    a = PoissonRidgeEnsembleClassifier(graph="precomputed").fit(W, yy)
    b = PoissonRidgeEnsembleClassifier(graph="precomputed").fit(sp.block_diag([W, sp.csr_array((1, 1))]),
                                                                np.r_[yy, -1])
    np.testing.assert_allclose(b.scores_[:-1], a.scores_, rtol=1e-9, atol=1e-10)
    np.testing.assert_array_equal(b.transduction_[:-1], a.transduction_)
