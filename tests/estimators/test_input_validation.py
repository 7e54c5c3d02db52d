"""Estimator input validation at fit / predict entry (session 16): text points, missing values in
object points, a boolean marker on numeric labels, non-array y."""

import numpy as np
import pandas as pd
import pytest

from graphrkhs import LaplacianRegularizationClassifier, PoissonLearningClassifier, RLSClassifier


def _data():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(10, 2)), rng.normal(size=(10, 2)) + 5])
    y = np.array([0] * 3 + [-1] * 7 + [1] * 3 + [-1] * 7)
    return X, y


ESTIMATORS = [lambda: LaplacianRegularizationClassifier(alpha=1.0, n_neighbors=5),
              lambda: PoissonLearningClassifier(n_neighbors=5),
              lambda: RLSClassifier(alpha=1e-2, sigma=1.0)]


def _text_forms(X):
    df = pd.DataFrame({"a": X[:, 0].astype(str), "b": X[:, 1]})
    return {"str array": X.astype(str), "bytes array": X.astype("S"), "list of str": X.astype(str).tolist(),
            "object array of str": X.astype(str).astype(object), "data frame with a str column": df}


@pytest.mark.parametrize("make", ESTIMATORS)
@pytest.mark.parametrize("form", ["str array", "bytes array", "list of str", "object array of str",
                                  "data frame with a str column"])
def test_text_points_are_a_type_error_not_parsed(make, form):
    # the transductive learners parsed text points as numbers without a word (scikit-learn's float
    # conversion), RLSClassifier refused a str array but parsed an object array of str
    X, y = _data()
    Xt = _text_forms(X)[form]
    with pytest.raises(TypeError, match=r"X holds text \((b?)'0\.12573") as info:
        make().fit(Xt, y)
    assert "points must be numbers; text is not parsed into numbers silently" in str(info.value)
    assert "X.astype(float)" in str(info.value)


@pytest.mark.parametrize("make", ESTIMATORS)
def test_text_points_at_predict_are_a_type_error(make):
    X, y = _data()
    model = make().fit(X, y)
    with pytest.raises(TypeError, match=r"X holds text \('0\.12573"):
        model.predict(X.astype(str))


@pytest.mark.parametrize("make", ESTIMATORS)
@pytest.mark.parametrize("missing", [None, pd.NA])
def test_missing_values_in_object_points_are_a_value_error(make, missing):
    # RLSClassifier: "TypeError: X must hold numbers; got dtype object with non-numeric entries (float()
    # argument must be a string or a real number, not 'NAType')" -- a missing value, not a type
    X, y = _data()
    Xo = X.astype(object)
    Xo[4, 1] = missing
    with pytest.raises(ValueError, match=r"X contains missing values \(1 entry: None, NaN or pd\.NA\); "
                                         r"impute or drop those rows first"):
        make().fit(Xo, y)


def test_boolean_marker_on_numeric_labels_is_refused():
    # unlabeled=True on integer labels marked no entry (a bool is not read as the number 1): the
    # unlabeled rows, coded 1, were fitted as a class of their own
    X, y = _data()
    y = np.where(y == -1, 1, y + 2)
    with pytest.raises(ValueError, match=r"unlabeled=True is a boolean, but y holds numbers \(int64\): it would "
                                         r"mark no entry"):
        LaplacianRegularizationClassifier(alpha=1.0, n_neighbors=5, unlabeled=True).fit(X, y)


@pytest.mark.parametrize("y_form, shown", [(lambda y: (v for v in y), "generator"),
                                           (lambda y: set(y.tolist()), "set"),
                                           (lambda y: dict(enumerate(y.tolist())), "dict")])
def test_non_sequence_y_is_a_type_error_naming_its_type(y_form, shown):
    # it was "y must be 1-D with one entry per sample; got shape ()"
    X, y = _data()
    with pytest.raises(TypeError, match=rf"y must be an array-like of shape \(n_samples,\); got a {shown}"):
        LaplacianRegularizationClassifier(alpha=1.0, n_neighbors=5).fit(X, y_form(y))
