"""The one label encoder (graphrkhs._core.labels): inputs of mixed and unusual label types."""

import numpy as np
import pytest

from sklearn.exceptions import DataConversionWarning

from graphrkhs._core.labels import labeled_rows, split_classification_labels, split_regression_targets


@pytest.mark.parametrize("y", [["a", 1, None, "a"], np.array(["a", 2.0, np.nan, "a"], dtype=object),
                               ["a", True, None, "a"]])
def test_text_and_numbers_mixed_is_a_clear_type_error(y):
    # was a bare "'<' not supported between instances of 'int' and 'str'" from scikit-learn's type_of_target
    with pytest.raises(TypeError, match=r"y mixes text and numeric labels .*not y\.astype\(str\)"):
        split_classification_labels(y, 4)


def test_one_label_type_in_an_object_array_is_encoded():
    labeled, classes, codes = split_classification_labels(["b", "a", None, "b"], 4)
    assert labeled.tolist() == [True, True, False, True]
    assert classes.tolist() == ["a", "b"] and codes.tolist() == [1, 0, -1, 1]
    labeled, classes, codes = split_classification_labels(np.array([2, -1, None, 5], dtype=object), 4)
    assert classes.tolist() == [2, 5] and codes.tolist() == [0, -1, -1, 1]


# ---- masked arrays (numpy.ma): a masked entry is a missing label, read as unlabeled ----------------

@pytest.mark.parametrize("data, classes", [([0, 1, 0, 1, 7, 7], [0, 1]),
                                           (["a", "b", "a", "b", "zz", "zz"], ["a", "b"]),
                                           ([0.0, 1.0, 0.0, 1.0, 7.0, 7.0], [0.0, 1.0])])
def test_masked_entries_are_unlabeled(data, classes):
    # the mask was dropped by np.asarray: the hidden 7 / "zz" became a third class, every row labeled
    y = np.ma.masked_array(data, mask=[0, 0, 0, 0, 1, 1])
    labeled, got, codes = split_classification_labels(y, 6)
    assert labeled.tolist() == [True] * 4 + [False] * 2
    assert got.tolist() == classes and codes.tolist() == [0, 1, 0, 1, -1, -1]
    y2, keep = labeled_rows(y, 6)
    assert keep.tolist() == [True] * 4 + [False] * 2


def test_a_masked_infinity_is_no_label_and_no_error():
    y = np.ma.masked_array([0.0, 1.0, 0.0, np.inf], mask=[0, 0, 0, 1])
    assert split_classification_labels(y, 4)[0].tolist() == [True, True, True, False]
    with pytest.raises(ValueError, match="y contains infinity"):     # an unmasked one still is
        split_classification_labels(np.ma.masked_array([0.0, 1.0, np.inf, 0.0], mask=[0, 0, 0, 1]), 4)


def test_masked_column_vector_and_marker_together():
    y = np.ma.masked_array([[0], [1], [-1], [9]], mask=[[0], [0], [0], [1]])
    with pytest.warns(DataConversionWarning):
        labeled, classes, codes = split_classification_labels(y, 4, unlabeled=-1)
    assert labeled.tolist() == [True, True, False, False] and classes.tolist() == [0, 1]


def test_masked_regression_targets_are_unlabeled():
    y = np.ma.masked_array([1.5, 2.5, 100.0, 3], mask=[0, 0, 1, 0])
    labeled, values = split_regression_targets(y, 4)
    assert labeled.tolist() == [True, True, False, True]
    assert values[labeled].tolist() == [1.5, 2.5, 3.0] and np.isnan(values[2])
    y = np.ma.masked_array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], mask=[[0, 0], [1, 1], [0, 0]])
    labeled, values = split_regression_targets(y, 3)
    assert labeled.tolist() == [True, False, True]


def test_masked_labels_through_an_estimator():
    from graphrkhs import LaplacianRegularizationClassifier
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(0, 0.3, (10, 2)), rng.normal(3, 0.3, (10, 2))]
    truth = np.r_[np.zeros(10, int), np.ones(10, int)]
    y = np.ma.masked_array(np.full(20, 5), mask=True)
    y[[0, 1, 10, 11]] = truth[[0, 1, 10, 11]]
    clf = LaplacianRegularizationClassifier(1.0).fit(X, y)
    assert clf.classes_.tolist() == [0, 1]
    assert clf.score(X, np.ma.masked_array(truth, mask=y.mask)) == clf.score(X[~y.mask], truth[~y.mask])


# ---- bool and int labels: True == 1 in Python, so they would merge into one class -----------------

@pytest.mark.parametrize("y", [[True, 1, 0, -1], np.array([True, 1, 0, -1], dtype=object),
                               [True, 2, 0, -1], [False, 0.0, 1.0, None]])
def test_bool_and_number_labels_mixed_is_a_type_error(y):
    # [True, 1, 0] as objects gave classes [0, True] (True and 1 one class); as a list numpy made
    # True the integer 1 without a word
    with pytest.raises(TypeError, match=r"y mixes boolean and numeric labels"):
        split_classification_labels(y, 4)


def test_bool_labels_with_the_numeric_marker_stay_bool():
    # a bool label list with -1 for the unlabeled rows: numpy made it int [1, 0, -1] (classes 0, 1)
    labeled, classes, codes = split_classification_labels([True, False, -1, True], 4)
    assert labeled.tolist() == [True, True, False, True]
    assert classes.tolist() == [False, True] and codes.tolist() == [1, 0, -1, 1]
    assert all(type(c) is bool for c in classes.tolist())


@pytest.mark.parametrize("y", [[False, False, -1, -1, True, True], np.array([False, False, None, np.nan, True, True],
                                                                            dtype=object)])
def test_boolean_labels_with_unlabeled_rows_fit_and_score(y):
    # an object array of booleans was encoded as object classes, which scikit-learn's metrics call
    # "unknown": score raised "Classification metrics can't handle a mix of binary and unknown targets"
    from graphrkhs import LaplacianRegularizationClassifier
    X = np.array([[0.0], [0.1], [0.2], [3.0], [3.1], [3.2]])
    clf = LaplacianRegularizationClassifier(1.0, n_neighbors=2).fit(X, y)
    assert clf.classes_.dtype == bool and clf.classes_.tolist() == [False, True]
    assert clf.predict(X).tolist() == [False, False, False, True, True, True]
    assert clf.score(X, y) == 1.0


def test_a_boolean_or_bytes_marker_on_string_labels():
    # unlabeled=True matched the class "1" (its text "1") and dropped it; unlabeled=b"x" raised
    # "could not convert string to float: b'x'"
    labeled, classes, codes = split_classification_labels(np.array(["0", "1", "1", "2"]), 4, unlabeled=True)
    assert labeled.all() and classes.tolist() == ["0", "1", "2"]
    labeled, classes, codes = split_classification_labels(np.array(["a", "b", "x", "a"]), 4, unlabeled=b"x")
    assert labeled.tolist() == [True, True, False, True] and classes.tolist() == ["a", "b"]
    labeled, classes, codes = split_classification_labels(np.array(["a", "b", "-1", "a"]), 4, unlabeled=-1)
    assert labeled.tolist() == [True, True, False, True]


def test_complex_targets_and_labels_are_a_type_error_naming_y():
    # regression: [1+2j, 2, 3] was fitted as [1, 2, 3] with only a ComplexWarning; classification
    # raised scikit-learn's multi-line "Complex data not supported" naming no argument
    with pytest.raises(TypeError, match=r"y must be a real numeric array; got complex dtype complex128.*y\.real"):
        split_regression_targets(np.array([1 + 2j, 2, 3]), 3)
    with pytest.raises(TypeError, match=r"y must be a real numeric array; got complex dtype complex128"):
        split_classification_labels(np.array([1 + 0j, 2, -1, 1]), 4)


# ---- session 14: bytes labels and text regression targets ------------------------------------------

_BYTES_LABELS = [np.array([b"a", b"b", b"", b"a"]),                       # dtype S: b"" was unlabeled
                 np.array([b"a", b"b", b"", b"a"], dtype=object),         # object: b"" was a label
                 [b"a", b"b", None, b"a"],
                 np.array(["a", b"b", None, "a"], dtype=object)]          # str and bytes: a bare '<' error


@pytest.mark.parametrize("y", _BYTES_LABELS)
def test_bytes_labels_are_a_type_error_naming_y_and_the_fix(y):
    # fit raised scikit-learn's "Support for labels represented as bytes is not supported" (no argument
    # named), or "'<' not supported between instances of 'bytes' and 'str'"; scoring kept the labels and
    # read b"" as unlabeled in a dtype-S array but as a label in an object array
    with pytest.raises(TypeError, match=r"^y holds bytes labels .*np\.char\.decode\(y, 'utf-8'\)"):
        split_classification_labels(y, 4)
    with pytest.raises(TypeError, match=r"^y holds bytes labels .*np\.char\.decode\(y, 'utf-8'\)"):
        labeled_rows(y, 4)


def test_bytes_labels_in_fit_and_score_of_an_estimator():
    from graphrkhs import LaplacianRegularizationClassifier

    X = np.array([[0.0], [0.1], [0.2], [5.0], [5.1], [5.2]])
    y = ["a", "a", "", "b", "b", ""]
    clf = LaplacianRegularizationClassifier(n_neighbors=2, alpha=0.1).fit(X, y)
    assert clf.score(X, ["a", "a", "a", "b", "b", "b"]) == 1.0
    with pytest.raises(TypeError, match=r"^y holds bytes labels"):
        clf.score(X, np.array([b"a", b"a", b"a", b"b", b"b", b"b"]))
    with pytest.raises(TypeError, match=r"^y holds bytes labels"):
        LaplacianRegularizationClassifier(n_neighbors=2).fit(X, np.array(y, dtype="S"))


@pytest.mark.parametrize("y", [["1.5", "2", "nan", "3"], np.array(["1.5", "2", "nan", "3"]),
                               np.array([b"1.5", b"2", b"nan", b"3"]),
                               np.array(["1.5", 2.0, None, 3], dtype=object)])
def test_text_regression_targets_are_a_type_error_naming_y_and_the_fix(y):
    # ['1.5', '2', 'nan', '3'] was parsed into the floats [1.5, 2, nan, 3] and fitted: text read as numbers
    # without a word (and 'nan' silently became an unlabeled row)
    with pytest.raises(TypeError, match=r"^y holds text .*'1\.5'.*numbers.*y\.astype\(float\)"):
        split_regression_targets(y, 4)


def test_numeric_object_regression_targets_still_work():
    labeled, y = split_regression_targets(np.array([1.5, 2, None, 3], dtype=object), 4)
    assert labeled.tolist() == [True, True, False, True]
    np.testing.assert_array_equal(y[labeled], [1.5, 2.0, 3.0])


# ---- pandas extension dtypes as regression targets; NaT ---------------------------------------------

@pytest.mark.parametrize("dtype", ["Int64", "Float64", "category"])
def test_pandas_nullable_and_categorical_regression_targets(dtype):
    # np.dtype(y.dtype) in the complex-target check raised "TypeError: Cannot interpret 'Int64Dtype()' as a
    # data type" for every pandas extension dtype: a nullable Int64 / Float64 target could not be fitted
    import pandas as pd

    y = pd.Series([0.5 if dtype != "Int64" else 3, 1, None, 2], dtype=dtype)
    labeled, values = split_regression_targets(y, 4)
    assert labeled.tolist() == [True, True, False, True]
    np.testing.assert_array_equal(values[labeled], [0.5 if dtype != "Int64" else 3.0, 1.0, 2.0])


def test_pandas_string_regression_targets_are_the_text_type_error():
    import pandas as pd

    with pytest.raises(TypeError, match=r"^y holds text \('0\.5'\)"):
        split_regression_targets(pd.Series(["0.5", "1", None, "2"], dtype="string"), 4)


@pytest.mark.parametrize("make", [
    lambda: np.array(["2020-01-01", "2021-01-01", "NaT", "2020-01-01"], dtype="datetime64[D]"),
    lambda: np.array([1, 2, "NaT", 1], dtype="timedelta64[s]"),
])
def test_nat_is_unlabeled_not_a_class(make):
    # NaT (numpy's missing date) was labeled: the classes were [2020-01-01, 2021-01-01, None], every row labeled
    y = make()
    labeled, classes, codes = split_classification_labels(y, 4)
    assert labeled.tolist() == [True, True, False, True]
    assert classes.size == 2 and codes.tolist() == [0, 1, -1, 0]
    _, keep = labeled_rows(y, 4)
    assert keep.tolist() == [True, True, False, True]


def test_date_and_duration_regression_targets_are_a_type_error():
    # datetime64 targets were fitted as nanoseconds since 1970, and NaT as the labeled value -9.2e18
    with pytest.raises(TypeError, match=r"^y holds dates or durations \(datetime64\[D\]\).*\(y - t0\) / np\.timedelta64\(1, 's'\)"):
        split_regression_targets(np.array(["2020-01-01", "NaT", "2021-01-01"], dtype="datetime64[D]"), 3)
    with pytest.raises(TypeError, match=r"^y holds dates or durations \(timedelta64\[s\]\)"):
        split_regression_targets(np.array([1, 2, 3], dtype="timedelta64[s]"), 3)


def test_categorical_integer_labels_with_missing_entries_stay_integers():
    # np.asarray of a Categorical with a missing entry is float64: the classes were [0.0, 1.0] (and
    # predict returned floats) where the categories are the integers 0 and 1, as a nullable Int64 keeps them
    import pandas as pd

    y = pd.Series(pd.Categorical([0, 1, None, 0, 5]))
    labeled, classes, codes = split_classification_labels(y, 5)
    assert classes.dtype.kind == "i" and classes.tolist() == [0, 1, 5]
    assert labeled.tolist() == [True, True, False, True, True] and codes.tolist() == [0, 1, -1, 0, 2]
    y2, keep = labeled_rows(y, 5)
    assert keep.tolist() == [True, True, False, True, True] and y2.dtype.kind == "i"
    labeled, classes, codes = split_classification_labels(pd.Categorical(["b", "a", None, "b"]), 4)
    assert classes.tolist() == ["a", "b"] and codes.tolist() == [1, 0, -1, 1]


# ---- boolean regression targets: a TypeError, not a silent 1 / 0 fit (session 15) ---------------------

def _bool_targets():
    import pandas as pd

    return [np.array([True, False, True, False]), [True, None, False, True],
            np.array([True, False, None, True], dtype=object),
            pd.Series([True, None, False, True], dtype="boolean"),
            pd.Series([True, False, False, True], dtype="category")]


@pytest.mark.parametrize("i", range(5))
def test_boolean_regression_targets_are_a_type_error(i):
    # split_regression_targets(np.array([True, False, ...])) returned [1., 0., ...]: fitted silently as 1 / 0
    y = _bool_targets()[i]
    with pytest.raises(TypeError, match=r"^y holds booleans \(True / False\), but regression targets must be "
                                        r"numbers: .*Use a classifier for boolean labels, or cast to float if you "
                                        r"mean 0 / 1 \(y\.astype\(float\)"):
        split_regression_targets(y, 4)


def test_boolean_targets_through_a_regressor_fit_and_score():
    from graphrkhs import GraphKernelRidgeRegressor

    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 2))
    y = X[:, 0] > 0
    with pytest.raises(TypeError, match=r"y holds booleans"):
        GraphKernelRidgeRegressor(n_neighbors=4).fit(X, y)
    model = GraphKernelRidgeRegressor(n_neighbors=4).fit(X, y.astype(float))   # the documented cast works
    with pytest.raises(TypeError, match=r"y holds booleans"):
        model.score(X, y)
    assert np.isfinite(model.score(X, y.astype(float)))


@pytest.mark.parametrize("flag", [True, False, np.True_])
def test_a_bool_is_not_taken_for_a_seed(flag):
    # bool is an int to Python: random_state=True used to seed the generator with 1, silently
    from graphrkhs._core.validation import check_random_state
    from graphrkhs.datasets import sample_labels
    with pytest.raises(TypeError, match=r"random_state must be None, an int .*a bool\): pass an int seed"):
        check_random_state(flag)
    with pytest.raises(TypeError, match="random_state"):
        sample_labels([0, 0, 1, 1], 1, random_state=flag)


def test_infinite_targets_and_labels_name_their_rows_and_the_fix():
    # before: "y contains infinity." with no row and no word on what is accepted
    y = np.full(6, np.nan)
    y[[1, 4]] = [np.inf, -np.inf]
    with pytest.raises(ValueError, match=r"y contains infinity in 2 rows \(e\.g\. row 1\).*finite.*NaN marks"):
        split_regression_targets(y, 6)
    with pytest.raises(ValueError, match=r"y contains infinity in 1 row \(e\.g\. row 2\).*NaN marks"):
        split_classification_labels(np.array([0.0, 1.0, np.inf, -1.0]), 4)


def test_partly_missing_target_row_is_named():
    Y = np.array([[1.0, 2.0], [np.nan, np.nan], [3.0, np.nan]])
    with pytest.raises(ValueError, match=r"row 2 .*NaN in some but not all columns.*all its columns NaN"):
        split_regression_targets(Y, 3)


def test_a_0_1_integer_mask_for_labeled_names_the_fix():
    # labeled=(y >= 0).astype(int) is a mask written as integers: read as indices, its repeated 0s and 1s gave
    # "labeled indices must be distinct." without saying which index or why
    from graphrkhs import harmonic_solution, propose_labels

    W = np.diag(np.ones(5), 1)
    W = W + W.T
    mask = np.array([1, 0, 0, 0, 0, 1])
    with pytest.raises(ValueError, match=r"labeled indices must be distinct; 0 appears 4 times\. labeled looks like "
                                         r"a 0/1 mask of the 6 nodes: pass it as booleans"):
        harmonic_solution(W, mask, np.array([0.0, 1.0]))
    with pytest.raises(ValueError, match=r"labeled looks like a 0/1 mask of the 6 nodes"):
        propose_labels(np.full((6, 2), 0.5), labeled=mask)
    # plain repeated indices: named, without the mask hint
    with pytest.raises(ValueError, match=r"labeled indices must be distinct; 3 appears 2 times\.$"):
        harmonic_solution(W, [0, 3, 3], np.array([0.0, 1.0, 1.0]))


@pytest.mark.parametrize("text", ["nan", "None"])
def test_missing_values_turned_into_text_warn_instead_of_becoming_a_class(text):
    # the mixed-types message advised y.astype(str), which turns None / NaN into the classes 'None' / 'nan': the 54
    # unlabeled rows of a fuzzed y were then fitted as a third class with no word
    import re

    from graphrkhs._core.labels import LabelCollisionWarning

    y = np.full(10, None, dtype=object)
    y[:2], y[5:7] = 0, "b"
    if text == "nan":
        y[y == None] = np.nan           # noqa: E711  (element-wise)
    with pytest.raises(TypeError, match=re.escape("not y.astype(str), which turns None and NaN into the classes "
                                                  "'None' and 'nan'")):
        split_classification_labels(y, 10)
    with pytest.warns(LabelCollisionWarning, match=re.escape(
            f"y holds the class {text!r} (6 entries), the text of a missing value (y.astype(str) turns None and NaN "
            f"into 'None' and 'nan'): if these rows are unlabeled, pass unlabeled={text!r}")):
        labeled, classes, _ = split_classification_labels(y.astype(str), 10)
    assert classes.tolist() == sorted(["0", "b", text])
    # the fix the warning names: those rows unlabeled
    labeled, classes, _ = split_classification_labels(y.astype(str), 10, unlabeled=text)
    assert classes.tolist() == ["0", "b"] and labeled.sum() == 4
