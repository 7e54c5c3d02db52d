"""Leave-one-out and GCV scores over a grid of ridges are computed in batches of ridges: the same scores.

A grid of 10^6 ridges on 74 labels allocated its (ridges x labels x targets) arrays at once: 4.5 GB, then numpy's
MemoryError after 17 s.  Batches bound the memory whatever the grid; they must not change any score.
"""
import numpy as np
import pytest

from graphrkhs._core import loo
from graphrkhs.solvers import select_ridge_alpha


@pytest.mark.parametrize("criterion", ["loo", "gcv"])
@pytest.mark.parametrize("scoring", ["mse", "accuracy"])
def test_batches_give_the_scores_of_one_pass(monkeypatch, criterion, scoring):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 2)
    Y = np.eye(2)[(X[:, 0] > 0).astype(int)] if scoring == "accuracy" else np.sin(X[:, :2])
    alphas = np.geomspace(1e-6, 10, 37)
    whole = select_ridge_alpha(K, Y, alphas, criterion=criterion, scoring=scoring, extend=False)
    monkeypatch.setattr(loo, "RIDGE_BATCH_BYTES", 1)          # one ridge a batch
    batched = select_ridge_alpha(K, Y, alphas, criterion=criterion, scoring=scoring, extend=False)
    np.testing.assert_allclose(batched.scores, whole.scores, rtol=1e-12)      # (BLAS blocking: last bits)
    assert batched.best_params == whole.best_params


def test_graph_kernel_ridge_selection_in_batches(monkeypatch):
    from sklearn.datasets import make_blobs

    from graphrkhs import GraphKernelRidgeClassifier

    X, t = make_blobs(120, centers=3, random_state=0)
    y = np.where(np.random.default_rng(0).random(120) < 0.2, t, -1)
    grid = list(np.geomspace(1e-4, 1e2, 25))
    whole = GraphKernelRidgeClassifier(alphas=grid).fit(X, y)
    monkeypatch.setattr(loo, "RIDGE_BATCH_BYTES", 1)
    batched = GraphKernelRidgeClassifier(alphas=grid).fit(X, y)
    assert batched.alpha_ == whole.alpha_
    np.testing.assert_array_equal(batched.transduction_, whole.transduction_)
