"""The label encoder, session 16.

Identifier-like class labels (every labeled sample nearly its own class): one rule for the Python API (an
IdentifierLabelsWarning) and ``graphrkhs label`` (a refusal); -1 wrapped by an unsigned dtype; partially
ordered labels; NaN in a list of strings."""

import warnings

import numpy as np
import pytest

import graphrkhs
from graphrkhs._core import labels as core_labels
from graphrkhs._core.labels import looks_like_identifiers, split_classification_labels


@pytest.mark.parametrize("n_classes, n_labeled, n_samples, expected", [
    (21, 21, 40, True),      # every labeled sample its own class, most samples labeled
    (21, 41, 80, True),      # 41 < 2 * 21: fewer than 2 labeled samples per class
    (20, 20, 30, False),     # 20 classes: at most ID_LIKE_MIN_CLASSES is never identifier-like
    (21, 42, 80, False),     # 2 labeled samples per class on average
    (21, 21, 42, False),     # half the samples labeled, not more: one-shot labeling
    (500, 500, 5000, False),  # one label per class on a tenth of the samples
])
def test_identifier_rule_closed_form(n_classes, n_labeled, n_samples, expected):
    assert core_labels.ID_LIKE_MIN_CLASSES == 20
    assert looks_like_identifiers(n_classes, n_labeled, n_samples) is expected


def _ids(n, n_labeled):
    return np.array([f"u{i}" if i < n_labeled else "" for i in range(n)], dtype=object)


def test_encoder_warns_on_identifier_labels():
    # y = a row id: 30 of 40 samples labeled, each its own class; it was encoded silently as 30 classes
    with pytest.warns(graphrkhs.IdentifierLabelsWarning) as rec:
        labeled, classes, codes = split_classification_labels(_ids(40, 30), 40)
    assert classes.size == 30 and labeled.sum() == 30      # a warning, not an error: the encoding stands
    message = str(rec[0].message)
    assert ("y holds 30 distinct classes among its 30 labeled samples (1.00 per class), and 30 of the 40 samples "
            "are labeled: it looks like an identifier (a row id, a name, free text), not class labels") in message
    assert "warnings.filterwarnings('ignore', category=graphrkhs.IdentifierLabelsWarning)" in message


def test_encoder_is_silent_on_one_shot_and_few_classes():
    with warnings.catch_warnings():
        warnings.simplefilter("error", graphrkhs.IdentifierLabelsWarning)
        split_classification_labels(_ids(100, 25), 100)                         # one-shot: 25 of 100 labeled
        split_classification_labels(np.r_[np.arange(20), -np.ones(5)], 25)      # 20 classes
        split_classification_labels(np.repeat(np.arange(30), 2), 60)            # 2 per class


def test_estimator_fit_warns_on_identifier_labels():
    from graphrkhs import LaplacianRegularizationClassifier

    X = np.random.default_rng(0).normal(size=(40, 2))
    y = np.array([i if i < 30 else -1 for i in range(40)])
    with pytest.warns(graphrkhs.IdentifierLabelsWarning, match="looks like an identifier"):
        LaplacianRegularizationClassifier(alpha=1.0, n_neighbors=5).fit(X, y)


def test_command_line_uses_the_same_rule(monkeypatch):
    # the command's refusal is this rule (one place): raising the class threshold lets the same column pass
    from graphrkhs.cli import _label as label_cli
    from graphrkhs.cli._label import LabelCommandError

    names = [f"u{i}" for i in range(30)]
    with pytest.raises(LabelCommandError, match="looks like an identifier"):
        label_cli._check_classes_are_labels("id", ["x", "id"], names, 40, 30)
    monkeypatch.setattr(core_labels, "ID_LIKE_MIN_CLASSES", 30)
    label_cli._check_classes_are_labels("id", ["x", "id"], names, 40, 30)


def test_minus_one_wrapped_by_an_unsigned_dtype_warns():
    # np.array([0, 1, -1]).astype(np.uint8) is [0, 1, 255]: the unlabeled rows became the class 255 silently
    from graphrkhs import LabelCollisionWarning

    y = np.array([0, 0, 1, 1, -1, -1, -1]).astype(np.uint8)
    with pytest.warns(LabelCollisionWarning) as rec:
        labeled, classes, _ = split_classification_labels(y, 7)
    assert classes.tolist() == [0, 1, 255] and labeled.all()
    assert ("y is uint8 and holds 255 (3 entries), which is -1 cast to uint8: if these rows are unlabeled, pass "
            "unlabeled=255 (or give y a signed dtype)") in str(rec[0].message)
    with warnings.catch_warnings():
        warnings.simplefilter("error", LabelCollisionWarning)
        labeled, classes, _ = split_classification_labels(y, 7, unlabeled=255)
        assert classes.tolist() == [0, 1] and labeled.sum() == 4
        split_classification_labels(np.array([0, 1, 7], dtype=np.uint8), 3)      # no 255: silent


def test_partially_ordered_labels_are_distinct_classes():
    # frozenset labels: np.unique sorts by '<', which is the subset order for sets (partial), and left
    # duplicates: classes [{1}, {2}, {1}] -- three classes for two, the codes of one class split
    y = [frozenset({1}), frozenset({2}), None, frozenset({1}), frozenset({2})]
    labeled, classes, codes = split_classification_labels(y, 5)
    assert classes.tolist() == [frozenset({1}), frozenset({2})]      # first-appearance order
    assert codes.tolist() == [0, 1, -1, 0, 1]


@pytest.mark.parametrize("container", [list, tuple])
def test_nan_in_a_list_of_strings_is_unlabeled_not_the_class_nan(container):
    # df["label"].tolist() of a text column with missing cells: numpy turned the float NaN into the
    # string 'nan', a class of its own (classes ['a', 'b', 'nan'], every row labeled)
    y = container(["a", "b", float("nan"), "a", np.nan])
    labeled, classes, codes = split_classification_labels(y, 5)
    assert classes.tolist() == ["a", "b"]
    assert labeled.tolist() == [True, True, False, True, False]
    assert codes.tolist() == [0, 1, -1, 0, -1]
