"""Uncertainty / entropy sampling when a classifier's probabilities round to one-hot.

Poisson learning on tight blobs has class scores (potentials) hundreds to thousands apart: the softmax
rounds every row to one-hot, every margin to 1 and every entropy to 0, and the proposals used to be the
lowest unlabeled indices (nodes 1..5 first on the two blobs below, potentials of +-1700).  The oracle is the
exact margin / entropy of the softmax of the classifier's class scores, in 1600-digit arithmetic.
"""
import warnings

import mpmath
import numpy as np
import pytest

from graphrkhs import PoissonLearningClassifier, propose_labels, propose_labels_for


def _blobs(centres, per, seed):
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(c, 0.3, (per, 2)) for c in centres])
    y = np.full(len(X), -1)
    y[np.arange(len(centres)) * per] = np.arange(len(centres))
    return X, y


def _exact_order(S, rows, criterion, n_points):
    with mpmath.workdps(1600):
        def value(row):
            e = [mpmath.exp(mpmath.mpf(float(v))) for v in row]
            z = sum(e)
            p = sorted((v / z for v in e), reverse=True)
            if criterion == "uncertainty":
                return -(p[0] - p[1])
            return -sum(q * mpmath.log(q) for q in p)
        vals = [value(S[i]) for i in rows]
        # in the 1600 digits (negating or comparing outside them rounds every value to -1 or 0 again)
        order = sorted(range(len(rows)), key=lambda j: -vals[j])   # stable: equal values by index
        assert all(vals[order[j]] > vals[order[j + 1]] for j in range(n_points))   # the oracle has no ties
    return rows[order]


@pytest.mark.parametrize("centres, per, k", [(([0, 0], [3, 3]), 10, 10), (([0, 0], [3, 3], [0, 3]), 8, 8)])
@pytest.mark.parametrize("criterion", ["uncertainty", "entropy"])
def test_saturated_probabilities_are_ordered_as_the_exact_ones(centres, per, k, criterion):
    X, y = _blobs(centres, per, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = PoissonLearningClassifier(n_neighbors=k).fit(X, y)
    S = clf.decision_function(X)
    if S.ndim == 1:
        S = np.c_[-S, S]
    unlabeled = np.flatnonzero(y == -1)
    P = clf.label_distributions_
    assert (P[unlabeled].max(axis=1) == 1.0).sum() >= 7       # the probabilities are one-hot there
    # the whole ranking (n_points = every unlabeled node): the one-hot rows too
    m = unlabeled.size
    expected = _exact_order(S, unlabeled, criterion, m - 1)
    got = propose_labels_for(clf, X, y, m, criterion=criterion)
    np.testing.assert_array_equal(got, expected)
    # the fitted classifier given to propose_labels itself answers the same
    np.testing.assert_array_equal(propose_labels(clf, m, criterion=criterion, labeled=y != -1), expected)
