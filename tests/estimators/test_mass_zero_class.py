"""Class mass normalization of a class with no mass on the unlabeled rows keeps that class's labels.

A two-node component whose nodes are both labeled class 2: class 2 has no unlabeled node, its mass was 0 and its
scale 0, which erased its scores on its own labeled nodes; "mass" then gave them class 0 (the docs: Laplace
learning keeps every given label).
"""
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_blobs

from graphrkhs import LaplacianRegularizationClassifier, GraphKernelRidgeClassifier, knn_graph


@pytest.mark.parametrize("make", [LaplacianRegularizationClassifier, GraphKernelRidgeClassifier])
def test_a_class_labeled_only_on_a_fully_labeled_component_keeps_its_labels(make):
    X, t = make_blobs(60, centers=2, random_state=0, cluster_std=1.0)
    pair = sp.csr_array(np.array([[0.0, 1.0], [1.0, 0.0]]))
    W = sp.csr_array(sp.block_diag([knn_graph(X, 10), pair]))
    y = np.full(62, -1)
    y[np.flatnonzero(t == 0)[:3]] = 0
    y[np.flatnonzero(t == 1)[:3]] = 1
    y[60:] = 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = make(graph="precomputed", class_normalization="mass").fit(W, y)
    labeled = y >= 0
    np.testing.assert_array_equal(clf.transduction_[labeled], y[labeled])
    assert np.all(clf.class_scale_ > 0)
    np.testing.assert_array_equal(clf.label_distributions_[60:].argmax(axis=1), [2, 2])
