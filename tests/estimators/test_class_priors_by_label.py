"""class_priors keyed by class label (a dict or a pandas Series) are aligned with classes_, not read by position."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from graphrkhs.estimators import (CutSSLClassifier, PoissonLearningClassifier, PoissonMBOClassifier,
                                  PoissonRidgeEnsembleClassifier, RLSClassifier, VolumeMBOClassifier)

rng = np.random.default_rng(0)
# 30 "cat" points and 10 "dog" points, two labels each: the sizes of the 36 unlabeled ones (28 : 8, the
# priors 7/9 : 2/9) come from the priors
X = np.r_[rng.normal(0.0, 0.1, (30, 2)), rng.normal(0.0, 0.1, (10, 2)) + [5.0, 0.0]]
Y = np.array([""] * 40, dtype=object)
Y[:2], Y[30:32] = "cat", "dog"
TRUTH = np.array(["cat"] * 30 + ["dog"] * 10, dtype=object)
SIZED = [PoissonMBOClassifier, VolumeMBOClassifier, CutSSLClassifier]


def _fit(E, priors):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return E(n_neighbors=5, unlabeled="", class_priors=priors).fit(X, Y)


@pytest.mark.parametrize("E", SIZED)
@pytest.mark.parametrize("priors", [pd.Series({"dog": 2 / 9, "cat": 7 / 9}), {"dog": 2 / 9, "cat": 7 / 9}],
                         ids=["series", "dict"])
def test_priors_by_label_give_each_class_its_own_size(E, priors):
    est = _fit(E, priors)
    assert list(est.classes_) == ["cat", "dog"]
    # the unlabeled points' proportions 28 : 8, the labeled ones kept: every point in its blob
    np.testing.assert_array_equal(est.transduction_, TRUTH)
    ref = _fit(E, [7 / 9, 2 / 9])
    np.testing.assert_array_equal(est.scores_, ref.scores_)
    np.testing.assert_array_equal(est.label_distributions_, ref.label_distributions_)


@pytest.mark.parametrize("E", [PoissonLearningClassifier, PoissonRidgeEnsembleClassifier])
def test_every_classifier_reads_priors_by_label(E):
    est = _fit(E, pd.Series([2 / 9, 7 / 9], index=["dog", "cat"]))
    ref = _fit(E, [7 / 9, 2 / 9])
    np.testing.assert_array_equal(est.transduction_, ref.transduction_)
    np.testing.assert_array_equal(est.label_distributions_, ref.label_distributions_)
    np.testing.assert_array_equal(est.predict_proba(X[:3] + 0.01), ref.predict_proba(X[:3] + 0.01))


def test_a_series_with_the_default_index_is_read_in_order():
    est = _fit(PoissonMBOClassifier, pd.Series([7 / 9, 2 / 9]))
    np.testing.assert_array_equal(est.transduction_, TRUTH)


def test_integer_classes_by_label():
    y = np.full(40, -1)
    y[:2], y[30:32] = 7, 3                       # classes_ = [3, 7]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = PoissonMBOClassifier(n_neighbors=5, class_priors={7: 7 / 9, 3: 2 / 9}).fit(X, y)
    np.testing.assert_array_equal(est.transduction_, np.where(TRUTH == "cat", 7, 3))


@pytest.mark.parametrize("priors, match", [
    ({"cat": 1.0}, r"no proportion for class\(es\) 'dog'"),
    ({"cat": 0.5, "dog": 0.3, "mouse": 0.2}, r"proportions for 'mouse', which no labeled sample has"),
    (pd.Series([0.5, 0.5], index=["cat", "cat"]), r"index repeats a class label"),
    ({"cat": 0.5, "dog": 0.6}, r"class_priors must sum to 1"),
])
def test_priors_by_label_that_do_not_match_raise_naming_class_priors(priors, match):
    with pytest.raises(ValueError, match=match):
        PoissonMBOClassifier(n_neighbors=5, unlabeled="", class_priors=priors).fit(X, Y)


def test_dict_priors_survive_clone_and_get_params():
    est = RLSClassifier(class_priors={"dog": 2 / 9, "cat": 7 / 9}, unlabeled="")
    assert clone(est).get_params()["class_priors"] == {"dog": 2 / 9, "cat": 7 / 9}
    fitted = est.fit(X, Y)
    np.testing.assert_array_equal(fitted.predict(X), RLSClassifier(class_priors=[7 / 9, 2 / 9], unlabeled="")
                                  .fit(X, Y).predict(X))
