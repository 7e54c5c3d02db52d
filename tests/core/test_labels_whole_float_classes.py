"""The label encoder's real-valued test: float labels are classes when every one is a whole number, whatever
its size (the contract: "real-valued (continuous) labels" raise).  Before, scikit-learn's ``type_of_target``
cast them to int64: the class 1e20 (beyond 2**63) overflowed and was refused as 'continuous' (with numpy's
RuntimeWarning "invalid value encountered in cast"), and ``score`` refused it again; while a list with None
for the unlabeled samples was never checked: [0.1, 0.2, None] gave the classes 0.1 and 0.2."""

import warnings

import numpy as np
import pytest

from graphrkhs import LaplacianRegularizationClassifier
from graphrkhs._core.labels import split_classification_labels


@pytest.mark.parametrize("big", [1e20, -1e19, 2.0 ** 63, np.float32(1e20)])
def test_whole_float_labels_of_any_size_are_classes(big):
    y = np.array([0.0, big, np.nan, big, 0.0], dtype=np.asarray(big).dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # numpy's cast warning too
        labeled, classes, codes = split_classification_labels(y, 5)
    assert labeled.tolist() == [True, True, False, True, True]
    assert sorted(classes.tolist()) == sorted([0.0, float(big)])
    assert [classes[c] for c in codes[labeled]] == [y[i] for i in (0, 1, 3, 4)]


@pytest.mark.parametrize("y", [[0.1, 0.2, None, 0.3], [0, 0.5, None, 1], np.array([0.1, 0.2, np.nan, 0.3])])
def test_fractional_labels_are_refused_as_real_values_whatever_the_container(y):
    with pytest.raises(ValueError, match=r"real values .*e\.g\. 0\.[125]\).*regressor"):
        split_classification_labels(y, 4)


def test_fit_predict_and_score_with_the_class_1e20():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(5, 2)), rng.normal(size=(5, 2)) + 8])
    y = np.full(10, np.nan)
    y[[0, 1]], y[[5, 6]] = 0.0, 1e20
    model = LaplacianRegularizationClassifier(n_neighbors=3, alpha=0.1).fit(X, y)
    assert model.classes_.tolist() == [0.0, 1e20]
    pred = model.predict(X)
    truth = np.r_[np.zeros(5), np.full(5, 1e20)]
    assert model.score(X, truth) == pytest.approx(np.mean(pred == truth))
    assert model.score(X, truth) == 1.0


def test_sequences_as_labels_keep_scikit_learns_refusal():
    y = np.empty(4, dtype=object)
    y[:] = [[1], [2], None, [1]]
    with pytest.raises(ValueError, match="legacy multi-label"):
        split_classification_labels(y, 4)


def test_score_keeps_refusing_labels_fit_refuses():
    # score reads y as fit does: a fractional label, or numbers against string classes, are errors (the
    # equality scoring of float classes beyond int64 returned 0.5 and 0.0 for these)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 2))
    y = (X[:, 0] > 0).astype(float)
    model = LaplacianRegularizationClassifier().fit(X, y)
    with pytest.raises(ValueError, match="continuous"):
        model.score(X, np.r_[np.zeros(10), np.full(10, 0.5)])
    model = LaplacianRegularizationClassifier().fit(X, np.where(y > 0, "a", "b"))
    with pytest.raises(ValueError, match="Mix of label input types"):
        model.score(X, y)


def test_score_of_a_model_with_the_class_1e20_on_labels_without_it():
    # the class 1e20 among the predictions only (held-out rows of class 0 mispredicted as 1e20): scored by
    # equality too (scikit-learn's metrics: "a mix of binary and continuous targets"); a fractional label is
    # still refused
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 2))
    y = np.where(X[:, 0] > 0, 1e20, 0.0)
    model = LaplacianRegularizationClassifier().fit(X, y)
    pred = model.predict(X)
    zeros = np.zeros(20)
    assert 1e20 in pred
    assert model.score(X, zeros) == pytest.approx(np.mean(pred == zeros))
    with pytest.raises(ValueError, match="continuous"):
        model.score(X, np.r_[np.zeros(19), 0.5])


def test_score_of_a_model_with_the_class_1e20_keeps_refusing_what_fit_refuses():
    # string labels against the numeric classes, and a fractional label in an object array (a list with None)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 2))
    model = LaplacianRegularizationClassifier().fit(X, np.where(X[:, 0] > 0, 1e20, 0.0))
    with pytest.raises(ValueError, match="Mix of label input types|can't handle a mix"):     # scikit-learn's
        model.score(X, np.where(X[:, 0] > 0, "a", "b"))
    with pytest.raises(ValueError, match="continuous"):
        model.score(X, np.array([0.5] + [0.0] * 18 + [None], dtype=object))
    assert model.score(X, np.array([1e20] * 10 + [0.0] * 9 + [None], dtype=object)) == pytest.approx(
        np.mean(model.predict(X)[:19] == np.r_[np.full(10, 1e20), np.zeros(9)]))
