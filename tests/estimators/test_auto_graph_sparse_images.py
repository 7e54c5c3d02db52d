"""graph="auto" of PoissonRidgeEnsembleClassifier on square images given as a sparse matrix.

The documented contract (fit's docstring, user guide "graphs"): a transductive estimator fits on sparse X
with the labels and scores of the dense fit, graph="auto" included.  On square raster images the dense fit
builds the tangent-distance graph, but the image test (``square_image_shape``) took no sparse X, so the same
digits as a CSR matrix silently got the cosine graph: other scores, and 2 of the first 400 digits labeled
differently (3 labels a class).
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_digits

import graphrkhs as G


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    X, y = X[:150], y[:150]
    keep = np.concatenate([np.flatnonzero(y == c)[:2] for c in range(10)])
    partial = np.full(y.shape, -1)
    partial[keep] = y[keep]
    return X, partial


def test_auto_graph_fit_and_predict_on_sparse_images_equal_the_dense_ones(digits):
    X, y = digits
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dense = G.PoissonRidgeEnsembleClassifier().fit(X, y)
        sparse = G.PoissonRidgeEnsembleClassifier().fit(sp.csr_array(X), y)
    assert dense.graph_spec_.metric == "tangent"
    assert sparse.graph_spec_ == dense.graph_spec_
    np.testing.assert_array_equal(sparse.transduction_, dense.transduction_)
    np.testing.assert_allclose(sparse.label_distributions_, dense.label_distributions_, rtol=0, atol=1e-10)
    new = X[:7] + 0.5
    np.testing.assert_allclose(sparse.predict_proba(sp.csr_matrix(new)), dense.predict_proba(new), rtol=0, atol=1e-10)
    np.testing.assert_allclose(dense.predict_proba(sp.csr_matrix(new)), dense.predict_proba(new), rtol=0, atol=1e-10)
    got = G.propose_labels_for(sparse, sp.csr_array(X), y, n_points=2, criterion="model_change", random_state=0)
    ref = G.propose_labels_for(dense, X, y, n_points=2, criterion="model_change", random_state=0)
    np.testing.assert_array_equal(got, ref)


def test_auto_graph_spec_of_sparse_images_in_any_format(digits):
    from graphrkhs.estimators._transductive import _auto_graph_spec

    X, _ = digits
    assert _auto_graph_spec(X).image_shape == (8, 8)
    for fmt in (sp.csr_array, sp.csc_matrix, sp.coo_array):
        assert _auto_graph_spec(fmt(X)) == _auto_graph_spec(X)
