"""Poisson learning and the recommended ensemble balance their class scores by construction (an implicit prior
of equal class sizes).  With ``class_priors=None`` they warn when the label counts reject that prior: labels
drawn at random from a 95 / 5 % split (29 + 1) made Poisson learning predict the rare class on a fifth of the
points, silently (found by ``benchmarks/default_fits.py``)."""

import warnings

import numpy as np
import pytest
from scipy.stats import chi2
from sklearn.datasets import make_blobs

from graphrkhs import (GraphKernelRidgeClassifier, GraphRKHSWarning, PoissonLearningClassifier,
                       PoissonRidgeEnsembleClassifier)
from graphrkhs._core.labels import EQUAL_SIZES_P_VALUE, warn_unequal_label_counts

MESSAGE = "treats the classes as equal in size"


def _pearson_p(counts):
    counts = np.asarray(counts, dtype=float)
    counts = counts[counts > 0]
    m = counts.mean()
    return chi2.sf(np.sum((counts - m) ** 2 / m), counts.size - 1)


@pytest.mark.parametrize("counts", [[29, 1], [25, 3, 2], [10, 10], [6, 4], [5, 5, 5, 5], [9, 1, 5, 5],
                                    [40, 20], [40, 10], [3, 0, 3], [1, 7]])
def test_warns_exactly_when_pearsons_test_rejects_equal_sizes(counts):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warned = warn_unequal_label_counts(counts)
    expected = _pearson_p(counts) < EQUAL_SIZES_P_VALUE
    assert warned == expected == bool([w for w in caught if MESSAGE in str(w.message)])


@pytest.fixture(scope="module")
def unbalanced():
    X, y = make_blobs([570, 30], centers=[[0, 0], [3, 0]], cluster_std=1.0, random_state=0)
    lab = np.random.default_rng(0).choice(600, 30, replace=False)
    y_partial = np.full(600, -1)
    y_partial[lab] = y[lab]
    assert list(np.bincount(y[lab])) == [29, 1]
    return X, y, y_partial


@pytest.mark.parametrize("cls", [PoissonLearningClassifier, PoissonRidgeEnsembleClassifier])
def test_balanced_by_construction_learners_warn_on_random_labels_of_unequal_classes(unbalanced, cls):
    X, y, y_partial = unbalanced
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cls().fit(X, y_partial)
    found = [w for w in caught if MESSAGE in str(w.message)]
    assert len(found) == 1 and issubclass(found[0].category, GraphRKHSWarning)
    assert found[0].filename == __file__ and "(29, 1)" in str(found[0].message)
    # what the warning advises: the label proportions as class_priors (no warning then), which repairs the fit
    unlabeled = y_partial == -1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fixed = cls(class_priors=[29 / 30, 1 / 30]).fit(X, y_partial)
    assert not [w for w in caught if MESSAGE in str(w.message)]
    before = (cls().fit(X, y_partial).transduction_[unlabeled] == y[unlabeled]).mean()
    assert (fixed.transduction_[unlabeled] == y[unlabeled]).mean() > before


def test_other_learners_and_equal_counts_do_not_warn(unbalanced):
    X, y, y_partial = unbalanced
    per_class = np.full(600, -1)
    keep = np.r_[np.flatnonzero(y == 0)[:5], np.flatnonzero(y == 1)[:5]]
    per_class[keep] = y[keep]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        GraphKernelRidgeClassifier().fit(X, y_partial)
        PoissonLearningClassifier().fit(X, per_class)
        PoissonLearningClassifier(class_normalization="mass").fit(X, y_partial)
    assert not [w for w in caught if MESSAGE in str(w.message)]
