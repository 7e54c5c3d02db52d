"""Identical labeled rows that carry different class labels: every classifier says so, once, at fit.

Before, the fit went on silently: a transductive learner kept each copy a node of its own and predict(X)
at the point averaged them (LaplacianRegularizationClassifier: transduction_ [0, 1] on the two copies of
row 0, predict [1, 1]); a learner on points fitted one value there.
"""
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_moons

import graphrkhs as g
from graphrkhs import GraphRKHSWarning, SelectionWarning
from graphrkhs._core.labels import conflicting_copies

TRANSDUCTIVE = [g.LaplacianRegularizationClassifier, g.PoissonLearningClassifier, g.GraphKernelRidgeClassifier,
                g.GraphTVClassifier]
POINTS = [g.RLSClassifier, g.LapRLSClassifier]


def _data(flip=3):
    X, y = make_moons(80, noise=0.1, random_state=0)
    labels = np.full(80, -1)
    labels[:20] = y[:20]
    # rows 80.. copy the labeled rows 0..5; the first `flip` of them carry the other label
    copies = labels[:6].copy()
    copies[:flip] = 1 - copies[:flip]
    return np.r_[X, X[:6]], np.r_[labels, copies]


def _ours(est, X, y):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(X, y)
    return [w for w in caught if issubclass(w.category, GraphRKHSWarning) and "identical" in str(w.message)]


def test_groups_of_conflicting_copies_dense_and_sparse_agree():
    X, y = _data()
    S = np.flatnonzero(y != -1)
    dense = conflicting_copies(X[S], y[S])
    sparse = conflicting_copies(sp.csr_array(X[S]), y[S])
    expected = [[0, 20], [1, 21], [2, 22]]           # positions in the labeled rows (rows 80, 81, 82 of X)
    assert [list(G) for G in dense] == expected
    assert [list(G) for G in sparse] == expected
    # -0.0 and 0.0 are one point; copies with equal labels are no conflict
    Z = np.array([[0.0, 1.0], [-0.0, 1.0], [1.0, 1.0], [1.0, 1.0]])
    assert [list(G) for G in conflicting_copies(Z, np.array([0, 1, 0, 0]))] == [[0, 1]]
    assert conflicting_copies(Z, np.array([0, 0, 1, 1])) == []


@pytest.mark.parametrize("Est", TRANSDUCTIVE + POINTS)
def test_conflicting_copies_are_warned_once(Est):
    X, y = _data()
    caught = _ours(Est(), X, y)
    assert len(caught) == 1, [str(w.message) for w in caught]
    msg = str(caught[0].message)
    assert "3 groups of identical labeled rows carry different labels (6 rows; e.g. rows 0 and 80" in msg
    assert caught[0].filename == __file__
    if Est in TRANSDUCTIVE:
        assert "predict(X) at such a point gives the mean of the copies' scores" in msg
    else:
        assert "one value" in msg


def test_sparse_points_are_checked():
    # (the learners on points refuse sparse X with a TypeError naming the fix)
    X, y = _data()
    assert len(_ours(g.LaplacianRegularizationClassifier(), sp.csr_array(X), y)) == 1


def test_point_learner_selecting_warns_once_not_twice():
    # the selection's own warning about copies (SelectionWarning) is not repeated for classifiers
    X, y = _data()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        g.RLSClassifier().fit(X, y)
    assert not [w for w in caught if issubclass(w.category, SelectionWarning) and "repeat other" in str(w.message)]


@pytest.mark.parametrize("Est", TRANSDUCTIVE + POINTS)
def test_copies_with_equal_labels_and_unlabeled_copies_are_silent(Est):
    X, y = _data(flip=0)
    assert not _ours(Est(), X, y)
    X, y = _data()
    y[80:] = -1                                     # copies unlabeled: nothing conflicts
    assert not _ours(Est(), X, y)


def test_precomputed_graph_is_not_checked():
    X, y = _data()
    W = g.knn_graph(X)
    assert not _ours(g.LaplacianRegularizationClassifier(graph="precomputed"), W, y)
