"""Tuple class labels (DESIGN: any hashable label is a class)."""

import numpy as np
import pytest

from graphrkhs import LaplacianRegularizationClassifier, LapRLSClassifier
from graphrkhs._core.labels import split_classification_labels


def _objects(items):
    out = np.empty(len(items), dtype=object)
    for i, v in enumerate(items):
        out[i] = v
    return out


def test_tuple_labels_are_classes():
    # scikit-learn's type_of_target raised "You appear to be using a legacy multi-label data representation"
    labeled, classes, codes = split_classification_labels(
        np.array([(0, 1), (1, 1), None, (0, 1)], dtype=object), 4)
    assert labeled.tolist() == [True, True, False, True]
    assert classes.tolist() == [(0, 1), (1, 1)] and codes.tolist() == [0, 1, -1, 0]


def test_list_of_tuple_labels_is_one_label_per_sample():
    # np.asarray made a list of pairs a (4, 2) array: "y must be 1-D ... got shape (4, 2)"
    labeled, classes, codes = split_classification_labels([(0, 1), (1, 1), (1, 1), (0, 1)], 4, unlabeled=None)
    assert classes.tolist() == [(0, 1), (1, 1)] and codes.tolist() == [0, 1, 1, 0]


@pytest.mark.parametrize("cls", [LaplacianRegularizationClassifier, LapRLSClassifier])
def test_estimators_fit_and_predict_tuple_labels(cls):
    # two separated clusters, one labeled point each: the predictions are the tuples themselves
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(size=(10, 2)) * 0.3, rng.normal(size=(10, 2)) * 0.3 + 2.0]
    y = _objects([("a", 1)] + [None] * 9 + [("b", 2)] + [None] * 9)
    m = cls().fit(X, y)
    truth = [("a", 1)] * 10 + [("b", 2)] * 10
    assert m.predict(X).tolist() == truth
    # score: accuracy_score refused tuple labels (legacy multi-label); one wrong truth in 20 -> 0.95
    assert m.score(X, truth[:-1] + [("a", 1)]) == pytest.approx(0.95)
