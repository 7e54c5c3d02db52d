"""poisson_learning on several labeled components: the offset of each is local and scale free."""
import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs import knn_graph, poisson_learning


def _two_components():
    rng = np.random.default_rng(0)
    WA = knn_graph(rng.normal(size=(40, 2)), 5)
    WB = knn_graph(rng.normal(size=(30, 2)) + 50.0, 5)
    W = sp.csr_array(sp.block_diag([WA, WB]))
    # A: three labels of class 0 and one of class 1 (its label mean differs from the global one); B: class 1
    S = np.array([0, 1, 2, 3, 40, 41])
    return W, S, np.eye(2)[[0, 0, 0, 1, 1, 1]]


def test_one_heavy_edge_in_one_component_leaves_the_other_unchanged():
    # the offset (ybar_c - ybar) / w_max used the graph-wide largest weight: one edge of B times 1e6
    # relabeled 6 of the 40 nodes of A (class 1 on 6 nodes before, 12 after)
    W, S, Y = _two_components()
    F0 = poisson_learning(W, S, Y)
    W2 = W.tolil()
    j = W[[45]].indices[0]
    W2[45, j] = W2[j, 45] = W[45, j] * 1e6
    F1 = poisson_learning(sp.csr_array(W2), S, Y)
    np.testing.assert_allclose(F1[:40], F0[:40], rtol=1e-9, atol=0)    # A's scores are A's business
    assert (F1[40:].argmax(1) == 1).all()


@pytest.mark.parametrize("c", [1e-3, 7.0, 1e5])
def test_scaling_all_weights_scales_the_scores_by_one_over_c(c):
    W, S, Y = _two_components()
    F0 = poisson_learning(W, S, Y)
    Fc = poisson_learning(W * c, S, Y)
    np.testing.assert_allclose(Fc * c, F0, rtol=1e-7, atol=1e-9 * np.abs(F0).max())
    assert (Fc.argmax(1) == F0.argmax(1)).all()
