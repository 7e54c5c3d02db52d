"""graph="precomputed" refused a numeric object-dtype adjacency ("the adjacency array must be numeric; got dtype
object") although numeric object-dtype points (and predict's object-dtype new rows) are accepted: it is now
converted the same way, and the fit equals the float64 one; text entries are still refused."""
import numpy as np
import pytest

from graphrkhs import GraphKernelRidgeClassifier, LaplacianRegularizationRegressor, knn_graph


def _data():
    X = np.random.default_rng(0).normal(size=(20, 2))
    W = knn_graph(X, 4).toarray()
    y = np.full(20, np.nan)
    y[[0, 1, 2, 10, 11, 12]] = X[[0, 1, 2, 10, 11, 12], 0]
    return W, y


def test_object_adjacency_fits_as_float():
    W, y = _data()
    ref = LaplacianRegularizationRegressor(graph="precomputed", alpha=0.1).fit(W, y).transduction_
    got = LaplacianRegularizationRegressor(graph="precomputed", alpha=0.1).fit(W.astype(object), y).transduction_
    np.testing.assert_allclose(got, ref, rtol=0, atol=0)
    codes = np.full(20, -1)
    codes[[0, 1, 2]], codes[[10, 11, 12]] = 0, 1
    a = GraphKernelRidgeClassifier(graph="precomputed", alpha=1e-2).fit(W, codes).transduction_
    b = GraphKernelRidgeClassifier(graph="precomputed", alpha=1e-2).fit(W.astype(object), codes).transduction_
    assert (a == b).all()


def test_object_adjacency_with_text_refused():
    W, y = _data()
    Wt = W.astype(object)
    Wt[0, 1] = "0.5"
    with pytest.raises((TypeError, ValueError), match="X"):
        LaplacianRegularizationRegressor(graph="precomputed", alpha=0.1).fit(Wt, y)


def test_model_change_proposals_take_the_object_adjacency_too():
    from graphrkhs import LaplacianRegularizationClassifier, propose_labels_for

    W, _ = _data()
    codes = np.full(20, -1)
    codes[[0, 1, 2]], codes[[10, 11, 12]] = 0, 1
    clf = LaplacianRegularizationClassifier(graph="precomputed", alpha=0.1).fit(W.astype(object), codes)
    got = propose_labels_for(clf, W.astype(object), codes, 3, criterion="model_change", return_values=True)
    ref = propose_labels_for(clf, W, codes, 3, criterion="model_change", return_values=True)
    np.testing.assert_array_equal(got[0], ref[0])
    np.testing.assert_allclose(got[1], ref[1], rtol=0, atol=0)
