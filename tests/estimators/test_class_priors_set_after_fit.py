"""``set_params(class_priors=...)`` after ``fit`` does not change the predictions: the prior of the points no
label informs is the fit's.

It was read live from the parameter in predict: RLSClassifier fitted with labeled proportions (0.6, 0.4) gave
a point far from every fitted one class 0 with probabilities (0.6, 0.4); after set_params(class_priors=[0.1,
0.9]), without a refit, class 1 with (0.1, 0.9).  A transductive classifier's predict on the nodes of a component
without labels switched to class 1 while ``transduction_`` (and label_distributions_) kept class 0 (its
documented guarantee: a point on a fitted node gets that node's transduction_).
"""
import warnings

import numpy as np
import pytest

import graphrkhs


def _blobs_and_an_unlabeled_cluster():
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(size=(20, 2)), rng.normal(size=(20, 2)) + 4.0, rng.normal(size=(6, 2)) + 50.0]
    y = np.full(46, -1)
    y[[0, 1, 2, 20, 21]] = [0, 0, 0, 1, 1]          # labeled proportions (0.6, 0.4)
    return X, y


def _outputs(est, X):
    return est.predict(X), est.predict_proba(X), est.decision_function(X)


@pytest.mark.parametrize("make", [
    lambda: graphrkhs.RLSClassifier(sigma=1.0, alpha=1e-2),
    lambda: graphrkhs.LaplacianRegularizationClassifier(n_neighbors=4, alpha=0.1),
    lambda: graphrkhs.PoissonLearningClassifier(n_neighbors=4),
    lambda: graphrkhs.GraphKernelRidgeClassifier(n_neighbors=4, alpha=0.1),
], ids=["RLS", "LaplacianRegularization", "PoissonLearning", "GraphKernelRidge"])
@pytest.mark.parametrize("first, then", [(None, [0.1, 0.9]), ([0.5, 0.5], None), ([0.5, 0.5], {0: 0.05, 1: 0.95})])
def test_predictions_are_the_fits_after_set_params_class_priors(make, first, then):
    X, y = _blobs_and_an_unlabeled_cluster()
    X_new = np.r_[X, [[1e3, 1e3]]]         # the fitted points (a label-free component) and a point far from all
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = make().set_params(class_priors=first).fit(X, y)
        before = _outputs(est, X_new)
        est.set_params(class_priors=then)
        after = _outputs(est, X_new)
    for b, a in zip(before, after):
        np.testing.assert_array_equal(a, b)
    if hasattr(est, "transduction_"):
        np.testing.assert_array_equal(est.predict(X), est.transduction_)
