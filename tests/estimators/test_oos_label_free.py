"""A new point next to fitted nodes that no label reaches gets the class prior, as those nodes do.

The out-of-sample rule averaged the raw scores of its fitted neighbours -- the label-free ones' too -- and then
applied the class normalization: a point 0.01 from a label-free cluster whose nodes have the uniform prior got
class 2 with probability 0.83 ("mean_shift"), and with class priors (0.6, 0.2, 0.2) probability 0.38 for class 0.
Label-free neighbours now carry no weight; a point whose neighbours are all label-free is one of them.
"""
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_blobs

from graphrkhs import GraphKernelRidgeClassifier, LaplacianRegularizationClassifier, PoissonLearningClassifier


def _data():
    X, t = make_blobs(90, centers=3, cluster_std=1.5, random_state=0)
    y = np.full(90, -1)
    rng = np.random.default_rng(0)
    for c in range(3):
        y[rng.choice(np.flatnonzero(t == c), 3, replace=False)] = c
    far = np.random.default_rng(0).normal(size=(15, 2)) * 0.5 + 500       # a cluster no label reaches
    return np.r_[X, far], np.r_[y, np.full(15, -1)], far


@pytest.mark.parametrize("make, prior", [
    (lambda: LaplacianRegularizationClassifier(class_normalization="mean_shift"), [1 / 3, 1 / 3, 1 / 3]),
    (lambda: LaplacianRegularizationClassifier(class_normalization="mass"), [1 / 3, 1 / 3, 1 / 3]),
    (lambda: GraphKernelRidgeClassifier(class_normalization="mean_shift"), [1 / 3, 1 / 3, 1 / 3]),
    (lambda: PoissonLearningClassifier(class_priors=[0.6, 0.2, 0.2]), [0.6, 0.2, 0.2]),
])
def test_a_new_point_among_label_free_nodes_gets_the_prior(make, prior):
    X, y, far = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = make().fit(X, y)
    np.testing.assert_allclose(clf.label_distributions_[90:], np.tile(prior, (15, 1)), atol=1e-12)
    new = far[:3] + 1e-2
    np.testing.assert_allclose(clf.predict_proba(new), np.tile(prior, (3, 1)), atol=1e-12)
    np.testing.assert_array_equal(clf.predict(new), clf.transduction_[90:93])
    # points among the labeled blobs are untouched by the rule: their neighbours are all reached
    np.testing.assert_array_equal(clf.predict(X[:90]), clf.transduction_[:90])
