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


def _z(F):
    # z(F)_ic = (F_ic - mean_j F_jc) / std_j F_jc over all nodes j (ddof 0)
    return (F - F.mean(axis=0)) / F.std(axis=0)


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
    expected = w * _z(P.scores_) + (1 - w) * _z(R.scores_)
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
    np.testing.assert_allclose(e1.scores_, _z(P.scores_), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(e0.scores_, _z(R.scores_), rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(e1.transduction_, P.classes_[_z(P.scores_).argmax(axis=1)])
    np.testing.assert_array_equal(e0.transduction_, R.classes_[_z(R.scores_).argmax(axis=1)])


def test_weight_zero_predicts_new_points_as_standardized_kernel_ridge():
    # the out-of-sample rule is a normalized weighted mean of fitted scores, so it commutes with the
    # per-column affine map z: predict = argmax of z's map applied to kernel ridge's new-point scores
    X, y, yy = _blobs(seed=1)
    X_new = _blobs(30, seed=2)[0]
    R = GraphKernelRidgeClassifier(n_neighbors=6).fit(X, yy)
    e0 = PoissonRidgeEnsembleClassifier(poisson_weight=0.0, n_neighbors=6).fit(X, yy)
    F = R.scores_
    G = (R.decision_function(X_new) - F.mean(axis=0)) / F.std(axis=0)
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
