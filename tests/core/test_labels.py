"""The one label encoder (graphrkhs._core.labels): inputs of mixed and unusual label types."""

import numpy as np
import pytest

from graphrkhs._core.labels import split_classification_labels


@pytest.mark.parametrize("y", [["a", 1, None, "a"], np.array(["a", 2.0, np.nan, "a"], dtype=object),
                               ["a", True, None, "a"]])
def test_text_and_numbers_mixed_is_a_clear_type_error(y):
    # was a bare "'<' not supported between instances of 'int' and 'str'" from scikit-learn's type_of_target
    with pytest.raises(TypeError, match=r"y mixes text and numeric labels .*y\.astype\(str\)"):
        split_classification_labels(y, 4)


def test_one_label_type_in_an_object_array_is_encoded():
    labeled, classes, codes = split_classification_labels(["b", "a", None, "b"], 4)
    assert labeled.tolist() == [True, True, False, True]
    assert classes.tolist() == ["a", "b"] and codes.tolist() == [1, 0, -1, 1]
    labeled, classes, codes = split_classification_labels(np.array([2, -1, None, 5], dtype=object), 4)
    assert classes.tolist() == [2, 5] and codes.tolist() == [0, -1, -1, 1]
