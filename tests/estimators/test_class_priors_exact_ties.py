"""class_priors on rows whose scores tie exactly: the sizes of the size-constrained assignment are kept.

Three far-apart blobs, one label each, a kNN graph with one component per blob: every unlabeled row of a
blob has equal scores for the classes of the other blobs (one-hot
scores for Laplace learning).  The class prices reproduce the assignment only up to ties, and
every row tied, so the argmax put all moved rows back in their blob's class (5 / 5 / 5 for the sizes
3 / 3 / 9 of priors (0.2, 0.2, 0.6) on the 15 unlabeled rows).  Oracle: the sizes |R| q, and the largest
total score of a labeling with those sizes (rows kept in their blob's class: min(5, size) per blob).
"""
import warnings

import numpy as np
import pytest

from graphrkhs import GraphKernelRidgeClassifier, LaplacianRegularizationClassifier, PoissonLearningClassifier


def _three_blobs():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(c, 0.01, (6, 2)) for c in ([0, 0], [10, 0], [0, 10])])
    y = np.full(18, -1)
    y[[0, 6, 12]] = [0, 1, 2]
    return X, y


@pytest.mark.parametrize("cls", [LaplacianRegularizationClassifier, PoissonLearningClassifier,
                                 GraphKernelRidgeClassifier])
def test_tied_rows_get_the_sizes_of_class_priors(cls):
    X, y = _three_blobs()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = cls(n_neighbors=3, class_priors=[0.2, 0.2, 0.6]).fit(X, y)
    unlabeled = y == -1
    blob = np.repeat([0, 1, 2], 6)
    # the scores of the other classes are equal on every unlabeled row (the ties)
    for b in range(3):
        rows = np.delete(clf.scores_[unlabeled & (blob == b)], b, axis=1)
        assert np.all(rows == rows[:, :1])
    np.testing.assert_array_equal(clf.transduction_[~unlabeled], [0, 1, 2])       # labels kept
    got = clf.transduction_[unlabeled]
    np.testing.assert_array_equal(np.bincount(got, minlength=3), [3, 3, 9])
    # an optimal labeling with those sizes: blobs 0 and 1 keep 3 rows each, blob 2 all 5
    assert int((got == blob[unlabeled]).sum()) == 3 + 3 + 5
    # the fitted points' decision agrees everywhere
    np.testing.assert_array_equal(clf.predict(X), clf.transduction_)
    np.testing.assert_array_equal(clf.classes_[clf.label_distributions_.argmax(axis=1)], clf.transduction_)
    np.testing.assert_array_equal(clf.classes_[clf.predict_proba(X).argmax(axis=1)], clf.transduction_)
