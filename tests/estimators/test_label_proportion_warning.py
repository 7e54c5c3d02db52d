"""class_priors=None takes the class sizes (MBO, CutSSL) or masses (class_normalization="mass") from the
labeled proportions: a warning when those are unequal and rest on too few labels for some class."""

import warnings

import numpy as np
import pytest

from graphrkhs import GraphRKHSWarning
from graphrkhs.estimators import (CutSSLClassifier, PoissonMBOClassifier, PoissonRidgeEnsembleClassifier,
                                  RLSClassifier, VolumeMBOClassifier)

SIZED = [PoissonMBOClassifier, VolumeMBOClassifier, CutSSLClassifier]
FRAGMENT = "are the labeled class proportions"   # not warn_unequal_label_counts's "treats the classes as equal"


def _blobs(m=21):
    """Two well-separated blobs of m points each (class 0 first), on a line."""
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(0.0, 0.1, (m, 2)), rng.normal(0.0, 0.1, (m, 2)) + [5.0, 0.0]]
    return X, np.repeat([0, 1], m)


def _ours(record):
    return [w for w in record if issubclass(w.category, GraphRKHSWarning) and FRAGMENT in str(w.message)]


def _fit(est, X, y):
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        est.fit(X, y)
    return _ours(record)


@pytest.mark.parametrize("cls", SIZED)
def test_unbalanced_draw_warns_and_names_class_priors(cls):
    X, truth = _blobs()
    y = np.full(truth.size, -1)
    y[0] = 0                       # 1 label of class 0 against 20 of class 1
    y[21:41] = 1
    found = _fit(cls(n_neighbors=5), X, y)
    assert len(found) == 1
    msg = str(found[0].message)
    assert "class sizes" in msg and "class 0 rests on 1 label(s)" in msg and "label counts 1, 20" in msg
    assert "Pass class_priors=" in msg and "classes_" in msg
    assert found[0].filename == __file__           # points at the user's fit call
    # the fix it names: the class proportions of the unlabeled points, (20, 1) of 21 for equal blobs
    # ((N b - l) / (N - l) with N = 42, b = 1/2, l = (1, 20)), label every point correctly, silently
    est = cls(n_neighbors=5, class_priors=[20 / 21, 1 / 21])
    assert _fit(est, X, y) == []
    np.testing.assert_array_equal(est.transduction_, truth)


@pytest.mark.parametrize("cls", SIZED)
@pytest.mark.parametrize("per_class", [1, 10])
def test_balanced_draws_are_silent(cls, per_class):
    X, truth = _blobs()
    y = np.full(truth.size, -1)
    y[:per_class] = 0
    y[21:21 + per_class] = 1
    assert _fit(cls(n_neighbors=5), X, y) == []


@pytest.mark.parametrize("cls", SIZED)
def test_many_labels_per_class_are_silent_when_unequal(cls):
    # 8 and 12 labels: every proportion more than two standard errors above 0
    X, truth = _blobs()
    y = np.full(truth.size, -1)
    y[:8] = 0
    y[21:33] = 1
    assert _fit(cls(n_neighbors=5), X, y) == []


def test_string_labels_are_named():
    X, truth = _blobs()
    y = np.full(truth.size, "", dtype=object)
    y[0] = "cat"
    y[21:41] = "dog"
    found = _fit(PoissonMBOClassifier(n_neighbors=5, unlabeled=""), X, y)
    assert len(found) == 1 and "class 'cat' rests on 1 label(s)" in str(found[0].message)


@pytest.mark.parametrize("cls", [RLSClassifier, PoissonRidgeEnsembleClassifier])
def test_mass_normalization_on_label_proportions_warns(cls):
    X, truth = _blobs()
    y = np.full(truth.size, -1)
    y[0] = 0
    y[21:41] = 1
    found = _fit(cls(class_normalization="mass"), X, y)
    assert len(found) == 1 and "class masses" in str(found[0].message)
    assert found[0].filename == __file__
    # no proportions used: no normalization, "mean_shift" (b / ybar = 1), or given priors
    assert _fit(cls(), X, y) == []
    assert _fit(cls(class_normalization="mean_shift"), X, y) == []
    assert _fit(cls(class_normalization="mass", class_priors=[0.5, 0.5]), X, y) == []


@pytest.mark.parametrize("cls", SIZED)
def test_every_sample_labeled_is_silent(cls):
    # blobs of 3 and 20 points, all labeled: the label proportions are the data's own (no sampling error),
    # and 3 : 20 used to warn (3 < 4 (1 - 3/23) without the finite-population correction)
    X, _ = _blobs(20)
    X = X[17:]
    y = np.repeat([0, 1], [3, 20])
    assert _fit(cls(n_neighbors=3), X, y) == []
    assert _fit(RLSClassifier(class_normalization="mass"), X, y) == []

