"""Poisson MBO on a graph of several components: the forcing is centred on each component.

The source of Poisson MBO's forced heat steps is each label less the mean of its component's labels (as in
Poisson learning).  With the global label mean, a component labeled in other proportions than the whole graph got
a nonzero net forcing: the iterates grew linearly there, the same class offset on all its nodes, and once that
offset outgrew the diffused indicators the whole component went to its label majority.
"""
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs.solvers import poisson_mbo


def _two_cliques(m, bridge):
    """Two m-cliques (unit weights) joined by one edge of weight ``bridge``."""
    A = np.ones((m, m)) - np.eye(m)
    W = np.zeros((2 * m, 2 * m))
    W[:m, :m] = A
    W[m:, m:] = A
    W[0, m] = W[m, 0] = bridge
    return W


@pytest.mark.parametrize("n_inner", [40, 100, 1000])
def test_each_clique_gets_its_class_whatever_the_other_components_label_proportions(n_inner):
    # component A: cliques of class 0 and 1 labeled 5 : 1; component B: 1 : 5.  The unlabeled sizes (34 : 34)
    # are those of the truth, and also those of "each component to its label majority" (34 + 0 : 0 + 34): only
    # the scores decide.  Before the fix: 0.975 of the nodes right at n_inner=100, 0.525 at 1000.
    m = 20
    W = sp.block_diag([_two_cliques(m, 5.0), _two_cliques(m, 5.0)]).tocsr()
    y = np.repeat([0, 1, 0, 1], m)
    S = np.r_[1:6, m + 1, 2 * m + 1, 3 * m + 1:3 * m + 6]
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # nothing to warn about here
        F = poisson_mbo(W, S, np.eye(2)[y[S]], class_priors=[0.5, 0.5], n_inner=n_inner)
    np.testing.assert_array_equal(F.argmax(axis=1), y)


def test_balanced_components_are_labeled_as_on_their_own():
    # each component labeled 3 : 3: the global and the per-component means agree, and the fit of the union
    # equals each component's own fit (the sizes split evenly as well)
    m = 15
    block = _two_cliques(m, 5.0)
    W = sp.block_diag([block, block]).tocsr()
    y = np.repeat([0, 1, 0, 1], m)
    S_one = np.r_[1:4, m + 1:m + 4]
    S = np.r_[S_one, 2 * m + S_one]
    F = poisson_mbo(W, S, np.eye(2)[y[S]], class_priors=[0.5, 0.5], n_inner=200)
    F_one = poisson_mbo(sp.csr_array(block), S_one, np.eye(2)[y[S_one]], class_priors=[0.5, 0.5], n_inner=200)
    np.testing.assert_array_equal(F.argmax(axis=1), np.tile(F_one.argmax(axis=1), 2))
    np.testing.assert_array_equal(F.argmax(axis=1), y)
