"""The auction with a class of size 0 whose row maximum lies in that class (its sub-problem was not re-centred).

size_constrained_assignment subtracts each row's maximum before the auction so that the bids (eps = 1e-10 of the
score range) are not lost to rounding in S - p.  A class of size 0 is dropped and the others auctioned on their
own, but their rows were not re-centred: where the dropped class held the row maximum, the remaining scores sat
at about -2 while differing by 2^-52, the bids (~1e-31) vanished in S - p and the auction cycled until
max_iter ("raise max_iter or tol": no value finishes).  Poisson MBO and volume MBO with class_priors on a
4-node complete graph, one class labeled, hit it.
"""
import itertools
import warnings

import numpy as np
import pytest

from graphrkhs.solvers import poisson_mbo, size_constrained_assignment, volume_mbo


def _best_total(S, sizes):
    best = -np.inf
    for labels in itertools.product(range(S.shape[1]), repeat=S.shape[0]):
        labels = np.array(labels)
        if np.array_equal(np.bincount(labels, minlength=S.shape[1]), sizes):
            best = max(best, S[np.arange(S.shape[0]), labels].sum())
    return best


def test_empty_class_holding_the_row_maximum():
    S = np.array([[1.0, 3.0, 1.0], [1.0, 3.0, 1.0 + 2.0 ** -52], [1.0, 3.0, 1.0]])
    sizes = np.array([1, 0, 2])
    labels, prices = size_constrained_assignment(S, sizes)
    assert np.array_equal(np.bincount(labels, minlength=3), sizes)
    # optimal within the auction's n eps (eps = 1e-10 of the score range)
    assert S[np.arange(3), labels].sum() >= _best_total(S, sizes) - 3 * 1e-10 * 2.0
    assert np.isfinite(prices).all()


W4 = np.array([[0.0, 0.8818977567545631, 1.7823246016486547, 1.3772697307578943],
               [0.8818977567545631, 0.0, 0.7053772626132062, 0.3657870248848938],
               [1.7823246016486547, 0.7053772626132062, 0.0, 1.0331619053186885],
               [1.3772697307578943, 0.3657870248848938, 1.0331619053186885, 0.0]])


@pytest.mark.parametrize("solver", [poisson_mbo, volume_mbo])
def test_mbo_with_priors_one_class_labeled(solver):
    Y = np.array([[0.0, 1.0, 0.0], [0.0, 1.0, 0.0]])
    priors = np.array([0.37872192, 0.23415746, 0.38712061])
    priors = priors / priors.sum()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")        # the tiny graph's steady-state / proportion warnings
        F = solver(W4, [3, 0], Y, class_priors=priors)
    labels = np.asarray(F).argmax(axis=1)
    assert labels[3] == 1 and labels[0] == 1
    assert np.isfinite(F).all()
