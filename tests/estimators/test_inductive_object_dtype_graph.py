"""graph=<numeric object-dtype adjacency> for the inductive learners goes through the transductive learners'
helper for a given graph (precomputed_adjacency): it was refused by as_adjacency alone ("the adjacency array
must be numeric; got dtype object") where LaplacianRegularization*(graph="precomputed") takes it; text in it
is refused by the same check, naming graph."""

import warnings

import numpy as np
import pytest

import graphrkhs as gr


def _data():
    X = np.random.default_rng(0).normal(size=(12, 2))
    W = gr.knn_graph(X, 4).toarray()
    y = np.full(12, np.nan)
    y[:3], y[-3:] = 0.0, 1.0
    return X, W, y


@pytest.mark.parametrize("name", ["LapRLSRegressor", "PLapRLSRegressor"])
def test_inductive_learner_accepts_a_numeric_object_dtype_graph(name):
    X, W, y = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = getattr(gr, name)(graph=W, gamma_A=1e-2, gamma_I=1e-1).fit(X, y).predict(X)
        got = getattr(gr, name)(graph=W.astype(object), gamma_A=1e-2, gamma_I=1e-1).fit(X, y).predict(X)
    assert np.array_equal(got, ref)


def test_inductive_learner_refuses_text_in_the_graph_naming_graph():
    X, W, y = _data()
    Wt = W.astype(object)
    Wt[0, 1] = Wt[1, 0] = "a"
    with pytest.raises(TypeError, match="graph holds text"):
        gr.LapRLSRegressor(graph=Wt, gamma_A=1e-2, gamma_I=1e-1).fit(X, y)
