"""propose_labels_for(criterion="model_change") validates X as the estimator's fit does."""

import numpy as np
import pytest

from graphrkhs import LaplacianRegularizationClassifier, propose_labels_for


def _fitted():
    X = np.linspace(0, 1, 9)[:, None]
    y = np.full(9, -1)
    y[0], y[8] = 0, 1
    return X, y, LaplacianRegularizationClassifier(n_neighbors=2).fit(X, y)


def test_text_points_are_refused_not_parsed():
    # np.asarray(X, dtype=float64) parsed the strings and proposed node 4 as for the numbers
    X, y, clf = _fitted()
    with pytest.raises(TypeError, match="X holds text"):
        propose_labels_for(clf, X.astype(str), y, criterion="model_change")


def test_points_of_other_width_are_refused_with_the_fit_message():
    X, y, clf = _fitted()
    with pytest.raises(ValueError, match="X has 2 features, but LaplacianRegularizationClassifier is expecting 1"):
        propose_labels_for(clf, np.c_[X, X], y, criterion="model_change")


def test_numbers_still_propose_the_middle():
    X, y, clf = _fitted()
    assert propose_labels_for(clf, X, y, criterion="model_change").tolist() == [4]
