"""Every solver-level selection refuses fewer than MIN_LOO_LABELS = 3 labeled points, with one ValueError.

With one label every criterion is flat in exact arithmetic and with two, leaving one out leaves a single label:
the scores differed by rounding only and the "choice" was rounding (``select_ridge_alpha`` on one label
returned alpha = 0.01; ``select_tikhonov_alpha`` with one label returned flat zeros).  The estimators' gate
(``loo_selects``) uses the same number and falls back to documented values.
"""
import numpy as np
import pytest

from graphrkhs import NystromFeatures, consistency_grams, graph_penalty, knn_graph, pairwise_kernel
from graphrkhs import solvers as S
from graphrkhs.estimators._auto import MIN_LABELS, loo_selects

RNG = np.random.default_rng(0)
X = RNG.normal(size=(12, 2))
W = knn_graph(X, 4)
M = graph_penalty(W)
K = pairwise_kernel(X, None, kernel="gaussian", sigma=1.0)
Y = RNG.normal(size=12)
F = NystromFeatures(X, sigma=1.0, n_components=12, tol=0).features_


def _grams(l):
    return consistency_grams(X[:l], X, sigma=1.0)[:3]


SELECTIONS = {
    "ridge_alpha": lambda l, c: S.select_ridge_alpha(K[:l, :l], Y[:l], criterion=c),
    "kernel_ridge": lambda l, c: S.select_kernel_ridge(
        lambda s: pairwise_kernel(X[:l], None, kernel="gaussian", sigma=s), Y[:l], [0.5, 1.0], criterion=c),
    "tikhonov_alpha": lambda l, c: S.select_tikhonov_alpha(W, np.arange(l), Y[:l], criterion=c),
    "tikhonov_solution": lambda l, c: S.select_tikhonov_solution(W, np.arange(l), Y[:l], criterion=c),
    "linear_smoother": lambda l, c: S.select_linear_smoother(
        lambda a: K[:l, :l] @ np.linalg.inv(K[:l, :l] + a * np.eye(l)), Y[:l], {"a": [0.1, 1.0]}, criterion=c),
    "laprls_gammas": lambda l, c: S.select_laprls_gammas(K, np.arange(l), Y[:l], M, criterion=c),
    "manifold_gammas": lambda l, c: S.select_manifold_gammas(K, np.arange(l), Y[:l], M, criterion=c),
    "prls_gamma": lambda l, c: S.select_prls_gamma(*_grams(l), Y[:l]),
    "laprls_lowrank": lambda l, c: S.select_laprls_lowrank(X, np.arange(l), Y[:l], M, [0.5, 1.0]),
    "nystrom_laprls": lambda l, c: S.select_nystrom_laprls(F, np.arange(l), Y[:l], M, [1e-3, 1e-1], [0.1, 10.0]),
}


@pytest.mark.parametrize("name", sorted(SELECTIONS))
@pytest.mark.parametrize("l", [1, 2])
def test_selections_refuse_fewer_than_three_labels(name, l):
    with pytest.raises(ValueError, match=rf"leave-one-out selection needs at least 3 labeled points; got {l}"):
        SELECTIONS[name](l, "loo")


@pytest.mark.parametrize("name", ["ridge_alpha", "tikhonov_alpha", "linear_smoother"])
def test_gcv_selections_follow_the_same_rule(name):
    with pytest.raises(ValueError, match=r"GCV selection needs at least 3 labeled points; got 1"):
        SELECTIONS[name](1, "gcv")


@pytest.mark.parametrize("name", sorted(SELECTIONS))
def test_three_labels_select(name):
    out = SELECTIONS[name](3, "loo")
    res = out[1] if name == "tikhonov_solution" else out[0] if isinstance(out, tuple) else out
    assert np.isfinite(res.scores).any()


def test_the_estimators_gate_is_the_same_number():
    assert MIN_LABELS == S.MIN_LOO_LABELS == 3
    assert not loo_selects(np.arange(2.0)[:, None], False)
    assert loo_selects(np.arange(3.0)[:, None], False)
