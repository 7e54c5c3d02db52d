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


@pytest.mark.parametrize("criterion", ["model_change", "uncertainty"])
def test_targets_other_than_the_fits_are_refused(criterion):
    # the active-learning loop without the refit: node 4 labeled in y after the fit.  The stale scores
    # proposed node 3 (model change 0.577), the refit model proposes node 2 (0.668): a silent wrong answer
    X, y, clf = _fitted()
    y2 = y.copy()
    y2[4] = 1
    with pytest.raises(ValueError, match=r"y is not the target LaplacianRegularizationClassifier was fitted on: "
                                         r"1 row\(s\) labeled .* \(row 4\).*refit"):
        propose_labels_for(clf, X, y2, criterion=criterion)
    assert propose_labels_for(LaplacianRegularizationClassifier(n_neighbors=2).fit(X, y2), X, y2,
                              criterion="model_change").tolist() == [2]


def test_targets_with_other_labels_on_the_fits_rows_are_refused():
    X, y, clf = _fitted()
    swapped = y.copy()
    swapped[[0, 8]] = [1, 0]
    with pytest.raises(ValueError, match=r"2 labeled row\(s\) hold another label than in the fit \(row 0\)"):
        propose_labels_for(clf, X, swapped, criterion="uncertainty")
    y3 = np.full(9, -1)
    y3[[0, 8]] = [0, 1]            # the same labels, in another container: accepted
    assert propose_labels_for(clf, X, y3.astype(float), criterion="model_change").tolist() == [4]
