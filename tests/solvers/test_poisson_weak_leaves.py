"""Poisson learning's iterative solves with a node whose edges are below float64's resolution of its neighbours'.

One unlabeled node of degree 1.4e-32 among 6000 blob points (a Gaussian-weighted kNN graph's outlier) got
potentials ~2e14 from every iterative path (AMG broke down, Jacobi and plain CG could not resolve it) where the
weighted mean of its neighbours is ~0.1; the direct path was right.  Such weak leaves are now eliminated
exactly (star-mesh elimination) before the iterative solve.
"""
import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_blobs

from graphrkhs import knn_graph, poisson_learning


def _graph_with_a_weak_leaf(weight):
    X, t = make_blobs(300, centers=3, cluster_std=1.0, random_state=0)
    W = sp.lil_array(sp.block_diag([knn_graph(X, 10), sp.csr_array((1, 1))]))
    for j, w in zip([5, 17, 42], [1.0, 2.0, 0.5]):
        W[300, j] = W[j, 300] = w * weight
    rng = np.random.default_rng(1)
    S = np.concatenate([rng.choice(np.flatnonzero(t == c), 2, replace=False) for c in range(3)])
    return sp.csr_array(W), S, np.eye(3)[t[S]]


@pytest.mark.parametrize("preconditioner", ["amg", "jacobi", None])
def test_a_weak_leaf_is_its_neighbours_weighted_mean(preconditioner):
    W, S, Y = _graph_with_a_weak_leaf(1e-33)
    direct = poisson_learning(W, S, Y, preconditioner="auto")          # 301 nodes: the direct path
    F = poisson_learning(W, S, Y, preconditioner=preconditioner, tol=1e-10)
    w = W[[300]].toarray().ravel()
    np.testing.assert_allclose(F[300], w @ F / w.sum(), rtol=1e-8, atol=1e-8 * np.abs(F).max())
    np.testing.assert_allclose(F, direct, rtol=0, atol=1e-6 * np.abs(direct).max())


def test_a_labeled_weak_leaf_keeps_its_exact_potential():
    # labeled, the leaf's potential is its source over its degree plus its neighbours' mean: huge, and exact
    W, S, Y = _graph_with_a_weak_leaf(1e-33)
    S, Y = np.r_[S, 300], np.r_[Y, [[1.0, 0.0, 0.0]]]
    direct = poisson_learning(W, S, Y, preconditioner="auto")
    F = poisson_learning(W, S, Y, preconditioner="amg", tol=1e-10)
    np.testing.assert_allclose(F[300], direct[300], rtol=1e-8)
    np.testing.assert_allclose(F[:300], direct[:300], rtol=0, atol=1e-6 * np.abs(direct[:300]).max())


def test_selected_tikhonov_solution_on_the_iterative_path_keeps_the_maximum_principle():
    # select_tikhonov_solution's iterative path (above 5000 unlabeled nodes, or an explicit preconditioner) solved
    # the unit-diagonal D^-1/2 L_UU D^-1/2, whose residual tests are blind to a node of degree 1e-32: the harmonic
    # scores left [0, 1] (LaplacianRegularizationClassifier(alpha="auto"): 1.5e5 on 6000 blob points)
    from graphrkhs.solvers import select_tikhonov_solution

    W, S, Y = _graph_with_a_weak_leaf(1e-33)
    F_direct, _ = select_tikhonov_solution(W, S, Y, [0.0, 1e-2], preconditioner="auto")
    F, res = select_tikhonov_solution(W, S, Y, [0.0, 1e-2], preconditioner="amg")
    assert res.best_params["alpha"] == 0.0
    assert F.min() >= -1e-8 and F.max() <= 1 + 1e-8
    np.testing.assert_allclose(F, F_direct, rtol=0, atol=1e-6)
