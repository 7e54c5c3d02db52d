"""PoissonRidgeEnsembleClassifier on graphs with fewer than 10 unlabeled reached nodes.

Its class columns are standardized by their mean and spread over the unlabeled reached nodes.  Over one node every
z-score is 0, over two every column is +-1 in the same order: the classes tied and the first won, so a 3-node path
labeled (0, 1, unlabeled) was labeled 0 everywhere -- its labeled 1 and that node's only neighbour included --
where both members (Poisson learning and graph kernel ridge, fitted on their own) give 0, 1, 1.  With fewer than
ENSEMBLE_MIN_UNLABELED_STATISTICS unlabeled reached nodes one mean and one spread per member are taken over all its
columns (still over the unlabeled reached nodes: a labeled outlier's Poisson peak stays out of them), which keeps
each member's own decision.  Oracles: the two members' own labels where they agree; the documented formula.
"""
import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs import GraphKernelRidgeClassifier, PoissonLearningClassifier, PoissonRidgeEnsembleClassifier
from graphrkhs.estimators._transductive import ENSEMBLE_MIN_UNLABELED_STATISTICS


def _path(n):
    A = np.zeros((n, n))
    i = np.arange(n - 1)
    A[i, i + 1] = A[i + 1, i] = 1.0
    return sp.csr_array(A)


@pytest.mark.parametrize("n_nodes", [3, 4, 5])
def test_ensemble_labels_a_path_as_both_members_do(n_nodes):
    W = _path(n_nodes)
    y = np.array([0, 1] + [-1] * (n_nodes - 2))
    members = [cls(graph="precomputed", unlabeled=-1).fit(W, y).transduction_
               for cls in (PoissonLearningClassifier, GraphKernelRidgeClassifier)]
    np.testing.assert_array_equal(members[0], [0] + [1] * (n_nodes - 1))
    np.testing.assert_array_equal(members[1], members[0])
    ensemble = PoissonRidgeEnsembleClassifier(graph="precomputed", unlabeled=-1).fit(W, y)
    np.testing.assert_array_equal(ensemble.transduction_, members[0])


def _z(F, ref, pooled):
    # the documented standardization: mean and population standard deviation over the rows ref, of each column
    # or (pooled) of all columns together
    axis = None if pooled else 0
    return (F - F[ref].mean(axis=axis)) / F[ref].std(axis=axis)


@pytest.mark.parametrize("n_nodes", [4, 11, 12, 30])
def test_ensemble_scores_are_the_members_standardized_over_the_documented_nodes(n_nodes):
    # a connected random graph, two labels: n - 2 unlabeled reached nodes; per class column from
    # ENSEMBLE_MIN_UNLABELED_STATISTICS (10) of them on, pooled over the columns below
    rng = np.random.default_rng(n_nodes)
    A = np.triu(rng.uniform(0.1, 1.0, (n_nodes, n_nodes)) * (rng.uniform(size=(n_nodes, n_nodes)) < 0.4), 1)
    A[np.arange(n_nodes - 1), np.arange(1, n_nodes)] = 1.0
    W = sp.csr_array(A + A.T)
    y = np.array([0, 1] + [-1] * (n_nodes - 2))
    ensemble = PoissonRidgeEnsembleClassifier(graph="precomputed", unlabeled=-1).fit(W, y)
    ref = np.arange(n_nodes) >= 2
    pooled = n_nodes - 2 < ENSEMBLE_MIN_UNLABELED_STATISTICS
    w = ensemble.poisson_weight
    expected = w * _z(ensemble.poisson_scores_, ref, pooled) + (1 - w) * _z(ensemble.ridge_scores_, ref, pooled)
    np.testing.assert_allclose(ensemble.scores_, expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("poisson_weight", [1.0, 0.5])
def test_a_labeled_outlier_stays_out_of_the_statistics_with_few_unlabeled_nodes(poisson_weight):
    # two dense halves of 10 nodes, 6 labels each, 8 unlabeled nodes, and a labeled node of class 0 joined by an
    # edge of 1e-13 (its Poisson potential ~5e12): in the statistics it set its column's spread alone (every other
    # node's Poisson z-score ~0); with poisson_weight=1 every unlabeled node got class 1.  Oracle: Poisson
    # learning's own labels, which are the true halves here
    rng = np.random.default_rng(0)
    n = 20
    truth = np.repeat([0, 1], 10)
    A = np.triu(rng.uniform(0.2, 1, (n, n)) * (rng.uniform(size=(n, n)) < np.where(truth[:, None] == truth, 0.6, 0.08)),
                1)
    i = np.arange(n - 1)
    A[i, i + 1] = np.maximum(A[i, i + 1], 0.05)
    W = np.zeros((n + 1, n + 1))
    W[:n, :n] = A + A.T
    W[n, 0] = W[0, n] = 1e-13
    y = np.full(n + 1, -1)
    labeled = np.r_[rng.choice(10, 6, replace=False), 10 + rng.choice(10, 6, replace=False)]
    y[labeled] = truth[labeled]
    y[n] = 0
    unlabeled = np.flatnonzero(y < 0)
    poisson = PoissonLearningClassifier(graph="precomputed", unlabeled=-1).fit(W, y).transduction_
    np.testing.assert_array_equal(poisson[unlabeled], truth[unlabeled])
    ensemble = PoissonRidgeEnsembleClassifier(graph="precomputed", unlabeled=-1, poisson_weight=poisson_weight)
    np.testing.assert_array_equal(ensemble.fit(W, y).transduction_[unlabeled], truth[unlabeled])


def test_one_unlabeled_node_where_the_members_disagree_is_decided_the_same_in_every_node_order():
    # one unlabeled node, two classes: each member's pooled z-scores are +-1 and cancel exactly; the rounding of
    # the sum decided the class, and it moved with the order of the nodes (65 / 55 of 120 orders).  Now a tie,
    # decided by the class prior (three labels of class 1 against one of class 0) in every order
    A = np.array([[0, .5, 0, 0, 0], [.5, 0, .9, 0, .5], [0, .9, 0, .5, 0], [0, 0, .5, 0, .7], [0, .5, 0, .7, 0]])
    y = np.array([0, -1, 1, 1, 1])
    members = [cls(graph="precomputed", unlabeled=-1).fit(A, y).transduction_[1]
               for cls in (PoissonLearningClassifier, GraphKernelRidgeClassifier)]
    assert members == [0, 1]                      # they disagree at node 1
    rng = np.random.default_rng(0)
    labels = set()
    for _ in range(24):
        order = rng.permutation(5)
        fitted = PoissonRidgeEnsembleClassifier(graph="precomputed", unlabeled=-1).fit(A[order][:, order], y[order])
        labels.add(int(fitted.transduction_[np.argsort(order)[1]]))
    assert labels == {1}
