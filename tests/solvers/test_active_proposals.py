"""propose_labels: ties to rounding are ties (lowest index, or random with random_state), scores near the
float64 maximum give the margins of their probabilities, a fitted classifier needs its labeled nodes."""

import warnings

import numpy as np
import pytest

from graphrkhs import propose_labels

# rows 0 and 1 are the same probabilities (0.3, 0.7); 0.1 + 0.2 rounds to 0.30000000000000004
P_TIED = np.array([[0.3, 0.7], [0.1 + 0.2, 0.7], [0.9, 0.1]])
PATH = np.diag(np.ones(5), 1) + np.diag(np.ones(5), -1)          # path on 6 nodes, ends labeled
HARMONIC = np.c_[np.linspace(1, 0, 6), np.linspace(0, 1, 6)]     # its harmonic solution


@pytest.mark.parametrize("criterion", ["uncertainty", "entropy"])
def test_uncertainty_ties_to_rounding_go_to_the_lowest_index(criterion):
    assert propose_labels(P_TIED, 1, criterion=criterion).tolist() == [0]
    assert propose_labels(P_TIED, 2, criterion=criterion).tolist() == [0, 1]
    picks = {int(propose_labels(P_TIED, 1, criterion=criterion, random_state=s)[0]) for s in range(20)}
    assert picks == {0, 1}                          # a seed breaks the tie at random


@pytest.mark.parametrize("F", [HARMONIC, HARMONIC[:, ::-1], HARMONIC[::-1]], ids=["F", "classes-swapped", "mirrored"])
def test_model_change_mirror_ties_go_to_the_lowest_index(F):
    # nodes 2 and 3 mirror each other: MC(2) = MC(3) (exactly, up to the rounding of the covariance)
    nodes, values = propose_labels(F, 1, criterion="model_change", labeled=[0, 5], graph=PATH, return_values=True)
    assert nodes.tolist() == [2]
    # closed form: C_UU = L_UU^{-1} of the path's 4 inner nodes, MC(k) = |C_:k| |yhat_k - F_k| / C_kk
    C = np.linalg.inv(np.diag([2.0] * 4) - np.diag([1.0] * 3, 1) - np.diag([1.0] * 3, -1))
    np.testing.assert_allclose(values[0], np.linalg.norm(C[:, 1]) * np.sqrt(2) * 0.4 / C[1, 1], rtol=1e-12)
    picks = {int(propose_labels(F, 1, criterion="model_change", labeled=[0, 5], graph=PATH, random_state=s)[0])
             for s in range(20)}
    assert picks == {2, 3}


def test_distinct_values_are_not_ties():
    P = np.array([[0.4499, 0.5501], [0.45, 0.55], [0.9, 0.1]])   # margins 0.1002 and 0.1
    for s in range(10):
        assert propose_labels(P, 2, random_state=s).tolist() == [1, 0]


def test_scores_near_the_float64_maximum():
    # (1e308, 1.7e308) are the probabilities (1/2.7, 1.7/2.7): margin 0.259 > 0.1 of the second row
    P = np.array([[1e308, 1.7e308], [0.45, 0.55]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")               # no overflow RuntimeWarning
        nodes, values = propose_labels(P, 2, return_values=True)
        ent = propose_labels(P, 2, criterion="entropy", return_values=True)[1]
    assert nodes.tolist() == [1, 0]
    np.testing.assert_allclose(values, [-0.1, -0.7 / 2.7], rtol=1e-12)
    q = np.array([1.0, 1.7]) / 2.7
    np.testing.assert_allclose(ent, [-(0.45 * np.log(0.45) + 0.55 * np.log(0.55)), -(q * np.log(q)).sum()],
                               rtol=1e-12)


def test_fitted_classifier_without_labeled_is_refused():
    # a fitted classifier has labeled nodes; labeled=None ("nothing labeled yet") proposed them: here the
    # labeled node 4 (class 0 amid class 1's side) came first for Poisson learning
    from graphrkhs import PoissonLearningClassifier
    X = np.linspace(0, 1, 9)[:, None]
    y = np.full(9, -1)
    y[0], y[8], y[4] = 0, 1, 0
    clf = PoissonLearningClassifier(n_neighbors=2).fit(X, y)
    with pytest.raises(ValueError, match=r"labeled=None with a fitted PoissonLearningClassifier.*propose_labels_for"):
        propose_labels(clf, 3)
    nodes = propose_labels(clf, 3, labeled=y != -1)
    assert not np.isin(nodes, [0, 4, 8]).any()
    np.testing.assert_array_equal(nodes, propose_labels(clf.label_distributions_, 3, labeled=[0, 4, 8]))
