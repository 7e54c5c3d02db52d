"""propose_labels_for(criterion="model_change") on a LaplacianRegularizationClassifier with a class normalization
labels each node with the classifier's predicted class.

On a path of 7 nodes labeled 0, 0 at the left end and 1 at the right end, the harmonic scores of node 4 are
(0.4, 0.6), but class_normalization="mass" predicts class 0 there (transduction_).  The look-ahead used the argmax
of the raw scores (class 1) as node 4's label, which gave it the change 0.76 and proposed node 3 (0.76); labeling
node 4 with its predicted class 0 changes the Laplace-learning solution by 1.14, the largest change.
"""

import warnings

import numpy as np
import pytest

from graphrkhs import LaplacianRegularizationClassifier, propose_labels, propose_labels_for


def _path(n):
    W = np.diag(np.ones(n - 1), 1)
    return W + W.T


def _harmonic(W, labeled, codes, k):
    """Dense harmonic solution L_UU F_U = -L_US Y_S."""
    L = np.diag(W.sum(axis=1)) - W
    n = W.shape[0]
    U = np.setdiff1d(np.arange(n), labeled)
    F = np.zeros((n, k))
    F[labeled] = np.eye(k)[codes]
    F[U] = np.linalg.solve(L[np.ix_(U, U)], -L[np.ix_(U, labeled)] @ F[labeled])
    return F


def test_model_change_uses_the_predicted_class_of_the_normalized_classifier():
    W = _path(7)
    y = np.full(7, -1)
    y[[0, 1, 6]] = [0, 0, 1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = LaplacianRegularizationClassifier(alpha=0.0, graph="precomputed", class_normalization="mass").fit(W, y)
    labeled = np.flatnonzero(y >= 0)
    F = _harmonic(W, labeled, y[labeled], 2)
    np.testing.assert_allclose(clf.scores_, F, atol=1e-10)
    assert clf.transduction_[4] == 0 and F[4].argmax() == 1     # the normalization moved node 4
    # oracle: the change of the harmonic solution when node k gets the classifier's predicted label
    change = {}
    for k in np.flatnonzero(y < 0):
        S = np.r_[labeled, k]
        change[k] = np.linalg.norm(_harmonic(W, S, np.r_[y[labeled], clf.transduction_[k]], 2) - F)
    best = max(change, key=change.get)
    assert best == 4 and change[4] == pytest.approx(1.1401754, rel=1e-6)
    nodes, values = propose_labels_for(clf, W, y, criterion="model_change", return_values=True)
    assert nodes.tolist() == [4]
    assert values[0] == pytest.approx(change[4], rel=1e-9)


def test_decision_map_is_validated():
    W = _path(4)
    F = np.array([[1.0, 0.0], [0.6, 0.4], [0.4, 0.6], [0.0, 1.0]])
    with pytest.raises(ValueError, match="decision_map must be a pair"):
        propose_labels(F, criterion="model_change", labeled=[0, 3], graph=W, decision_map=([1.0], [0.0]))
    with pytest.raises(TypeError, match="decision_map must be a pair"):
        propose_labels(F, criterion="model_change", labeled=[0, 3], graph=W, decision_map=1.0)
