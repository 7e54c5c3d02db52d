"""A Python list that mixes numbers with strings: numpy writes its numbers as text, which the label
encoder took for string classes (the class 1 came back as '1' and merged with a class "1" silently),
where the same labels in an object array are refused with a TypeError."""

import numpy as np
import pytest

from graphrkhs import RLSClassifier
from graphrkhs._core.labels import split_classification_labels


def test_int_and_str_labels_in_a_list_are_refused_as_in_an_object_array():
    y = [1, 1, "1", "1", "a", -1]
    with pytest.raises(TypeError, match="mixes text and numeric labels"):
        split_classification_labels(np.array(y, dtype=object), len(y))
    # before: classes ['1', 'a'] -- the int 1 and the str "1" one class, without a word
    with pytest.raises(TypeError, match="mixes text and numeric labels"):
        split_classification_labels(y, len(y))


def test_estimator_fit_on_a_mixed_list_raises_instead_of_merging_classes():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(10, 2)), rng.normal(size=(10, 2)) + 5])
    y = [1, 1] + [-1] * 8 + ["1", "1"] + [-1] * 8
    with pytest.raises(TypeError, match="mixes text and numeric labels"):
        RLSClassifier().fit(X, y)


def test_numeric_labels_with_a_text_marker_in_a_list_stay_numbers():
    labeled, classes, codes = split_classification_labels([0, 1, "?", 1], 4, unlabeled="?")
    assert labeled.tolist() == [True, True, False, True]
    # before: the classes were the strings '0' and '1'
    assert [type(c) for c in classes.tolist()] == [int, int]
    assert classes.tolist() == [0, 1]
    assert codes.tolist() == [0, 1, -1, 1]


def test_the_default_marker_among_string_labels_in_a_list_is_still_unlabeled():
    labeled, classes, codes = split_classification_labels(["a", "b", -1, "", "a"], 5)
    assert labeled.tolist() == [True, True, False, False, True]
    assert classes.tolist() == ["a", "b"]
    assert codes.tolist() == [0, 1, -1, -1, 0]
