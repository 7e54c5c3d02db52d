"""Estimators on sparse points (scipy.sparse X): the fit on X.toarray() is the oracle."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import graphrkhs as G
from graphrkhs import GraphSpec
from graphrkhs.estimators._transductive import AUTO_COSINE_MIN_FEATURES, prefers_cosine_graph


def _sparse_points(n=120, d=80, density=0.08, seed=0):
    """Non-negative sparse points (as TF-IDF rows), a stored entry in every row."""
    X = sp.random(n, d, density=density, format="csr", random_state=seed)
    rng = np.random.default_rng(seed)
    one = sp.csr_array((rng.uniform(0.5, 1.0, n), (np.arange(n), rng.integers(0, d, n))), shape=(n, d))
    return sp.csr_array(X + one)


def _labels(n, seed=0, n_classes=3, n_labeled=15):
    rng = np.random.default_rng(seed)
    y = np.full(n, -1)
    labeled = rng.choice(n, n_labeled, replace=False)
    y[labeled] = np.arange(n_labeled) % n_classes
    return y


def _fit_both(estimator, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # the same warnings for both (few labels, selection edges)
        dense = _clone(estimator).fit(X.toarray(), y)
        sparse = _clone(estimator).fit(X, y)
    return dense, sparse


def _clone(estimator):
    from sklearn.base import clone

    return clone(estimator)


CLASSIFIERS = [
    G.PoissonRidgeEnsembleClassifier(),
    G.PoissonRidgeEnsembleClassifier(graph="knn", n_neighbors=6),
    G.LaplacianRegularizationClassifier(),
    G.PoissonLearningClassifier(),
    G.GraphKernelRidgeClassifier(),
    G.GraphKernelRidgeClassifier(graph=GraphSpec(n_neighbors=7, weight="self-tuning", metric="cosine",
                                                 relative_width=0.5)),
    G.GraphTVClassifier(),
    G.PoissonMBOClassifier(),
]


@pytest.mark.parametrize("estimator", CLASSIFIERS, ids=lambda e: type(e).__name__)
def test_transductive_classifier_on_sparse_points_equals_dense(estimator):
    X = _sparse_points()
    y = _labels(X.shape[0])
    dense, sparse = _fit_both(estimator, X, y)
    assert np.array_equal(sparse.transduction_, dense.transduction_)
    np.testing.assert_allclose(sparse.scores_, dense.scores_, rtol=0, atol=1e-10)
    np.testing.assert_allclose(sparse.label_distributions_, dense.label_distributions_, rtol=0, atol=1e-10)
    # new points, sparse or dense, to either fit
    new = _sparse_points(n=9, d=80, seed=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = dense.predict_proba(new.toarray())
        for got in (sparse.predict_proba(new), sparse.predict_proba(new.toarray()), dense.predict_proba(new)):
            np.testing.assert_allclose(got, expected, rtol=0, atol=1e-10)
    assert np.array_equal(sparse.predict(X), sparse.transduction_)


@pytest.mark.parametrize("estimator", [G.LaplacianRegularizationRegressor(), G.GraphKernelRidgeRegressor(),
                                       G.GraphKernelRidgeRegressor(graph="epsilon", radius=2.0)],
                         ids=lambda e: type(e).__name__)
def test_transductive_regressor_on_sparse_points_equals_dense(estimator):
    X = _sparse_points(seed=2)
    rng = np.random.default_rng(2)
    y = np.full(X.shape[0], np.nan)
    labeled = rng.choice(X.shape[0], 20, replace=False)
    y[labeled] = rng.normal(size=20)
    dense, sparse = _fit_both(estimator, X, y)
    np.testing.assert_allclose(sparse.transduction_, dense.transduction_, rtol=0, atol=1e-10)
    new = _sparse_points(n=9, d=80, seed=6)
    np.testing.assert_allclose(sparse.predict(new), dense.predict(new.toarray()), rtol=0, atol=1e-10)


def test_auto_graph_of_sparse_points_is_the_dense_choice():
    X = _sparse_points()
    assert X.shape[1] >= AUTO_COSINE_MIN_FEATURES
    assert prefers_cosine_graph(X) and prefers_cosine_graph(X.toarray())
    negative = X.copy()
    negative.data[0] = -1.0
    assert not prefers_cosine_graph(negative) and not prefers_cosine_graph(negative.toarray())
    empty_row = sp.csr_array(sp.vstack([X, sp.csr_array((1, X.shape[1]))]))
    assert not prefers_cosine_graph(empty_row) and not prefers_cosine_graph(empty_row.toarray())
    stored_zero = sp.csr_array(sp.vstack([X, sp.csr_array(([0.0], ([0], [2])), shape=(1, X.shape[1]))]))
    assert not prefers_cosine_graph(stored_zero)
    y = _labels(X.shape[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = G.PoissonRidgeEnsembleClassifier().fit(X, y)
    assert model.graph_spec_.metric == "cosine"
    assert X.nnz == _sparse_points().nnz     # the caller's matrix is untouched


INDUCTIVE = [G.RLSClassifier(), G.LapRLSClassifier(), G.PRLSClassifier(), G.PLapRLSClassifier(), G.GRLSClassifier(),
             G.FredholmClassifier(), G.WarpedKernelClassifier(), G.RLSRegressor(), G.LapRLSRegressor()]


@pytest.mark.parametrize("estimator", INDUCTIVE, ids=lambda e: type(e).__name__)
def test_inductive_learners_refuse_sparse_points_naming_themselves_and_the_fix(estimator):
    X = _sparse_points(n=30, d=10)
    y = _labels(30, n_labeled=6) if type(estimator).__name__.endswith("Classifier") else \
        np.where(_labels(30, n_labeled=6) >= 0, 1.0, np.nan)
    name = type(estimator).__name__
    with pytest.raises(TypeError, match=rf"^{name} needs a dense 2-D array of points; got a scipy.sparse matrix.*"
                                        r"accepted by knn_graph, epsilon_graph.*transductive estimators.*"
                                        r"pass X.toarray\(\)"):
        _clone(estimator).fit(X, y)


def test_inductive_predict_refuses_sparse_points():
    X = _sparse_points(n=30, d=10)
    fitted = G.RLSClassifier().fit(X.toarray(), _labels(30, n_labeled=6))
    with pytest.raises(TypeError, match=r"^RLSClassifier needs a dense 2-D array of points; got a scipy.sparse "
                                        r"matrix.*pass X.toarray\(\)"):
        fitted.predict(X)


def test_propose_labels_for_a_fit_on_sparse_points():
    # dense enough that every row has more than k = 10 rows sharing a feature with it: rows that share none
    # are all at the same cosine distance, and tied neighbours may be picked differently by the two searches
    X = _sparse_points(n=60, d=40, density=0.3, seed=3)
    y = _labels(60, n_labeled=6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sparse = G.PoissonRidgeEnsembleClassifier().fit(X, y)
        dense = G.PoissonRidgeEnsembleClassifier().fit(X.toarray(), y)
    got, got_values = G.propose_labels_for(sparse, X, y, n_points=3, criterion="model_change", return_values=True,
                                      random_state=0)
    ref, ref_values = G.propose_labels_for(dense, X.toarray(), y, n_points=3, criterion="model_change",
                                           return_values=True, random_state=0)
    assert np.array_equal(got, ref)
    np.testing.assert_allclose(got_values, ref_values, rtol=1e-9, atol=1e-12)
