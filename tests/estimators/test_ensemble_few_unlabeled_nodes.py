"""PoissonRidgeEnsembleClassifier on graphs with fewer than 10 unlabeled reached nodes.

Its class columns are standardized by their mean and spread over the unlabeled reached nodes.  Over one node every
z-score is 0, over two every column is +-1 in the same order: the classes tied and the first won, so a 3-node path
labeled (0, 1, unlabeled) was labeled 0 everywhere -- its labeled 1 and that node's only neighbour included --
where both members (Poisson learning and graph kernel ridge, fitted on their own) give 0, 1, 1.  With fewer than
ENSEMBLE_MIN_UNLABELED_STATISTICS unlabeled reached nodes the statistics are taken over every reached node.
Oracle: the two members' own labels where they agree.
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


def _z(F, ref):
    # the documented standardization: mean and population standard deviation of each column over ref
    return (F - F[ref].mean(axis=0)) / F[ref].std(axis=0)


@pytest.mark.parametrize("n_nodes", [4, 11, 12, 30])
def test_ensemble_scores_are_the_members_standardized_over_the_documented_nodes(n_nodes):
    # a connected random graph, two labels: n - 2 unlabeled reached nodes; the statistics over them from
    # ENSEMBLE_MIN_UNLABELED_STATISTICS (10) of them on, over every node below
    rng = np.random.default_rng(n_nodes)
    A = np.triu(rng.uniform(0.1, 1.0, (n_nodes, n_nodes)) * (rng.uniform(size=(n_nodes, n_nodes)) < 0.4), 1)
    A[np.arange(n_nodes - 1), np.arange(1, n_nodes)] = 1.0
    W = sp.csr_array(A + A.T)
    y = np.array([0, 1] + [-1] * (n_nodes - 2))
    ensemble = PoissonRidgeEnsembleClassifier(graph="precomputed", unlabeled=-1).fit(W, y)
    ref = np.arange(n_nodes) >= 2
    if n_nodes - 2 < ENSEMBLE_MIN_UNLABELED_STATISTICS:
        ref[:] = True
    w = ensemble.poisson_weight
    expected = w * _z(ensemble.poisson_scores_, ref) + (1 - w) * _z(ensemble.ridge_scores_, ref)
    np.testing.assert_allclose(ensemble.scores_, expected, rtol=1e-10, atol=1e-12)
