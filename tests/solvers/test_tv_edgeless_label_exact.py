"""graph_tv: "a labeled node without edges ... has no TV term and keeps its target exactly" (its docstring).  The
primal-dual iterate left it 1.7e-5 off at the default tol (0.99998307 for the target 1, 0.69998813 for 0.7): its
value is now set to the target, the exact minimizer of its own term."""

import numpy as np
import scipy.sparse as sp

from graphrkhs.solvers import graph_tv


def _path_and_isolated():
    W = np.zeros((5, 5))
    for i in range(3):
        W[i, i + 1] = W[i + 1, i] = 1.0
    return W                                   # nodes 0-3 a path, node 4 without edges


def test_edgeless_labeled_node_keeps_its_target_exactly():
    W = _path_and_isolated()
    S = [0, 3, 4]
    for Y in (np.array([[1.0, 0.0], [0.0, 1.0], [0.0, 1.0]]), np.array([1.0, 0.0, 0.7])):
        for fidelity in ("degree", "uniform"):
            F = graph_tv(W, S, Y, fidelity=fidelity)
            assert np.array_equal(np.asarray(F)[4], Y[2]), (fidelity, F[4])
            F, res = graph_tv(W, S, Y, fidelity=fidelity, R=sp.csr_array(np.diag(W.sum(1)) - W), return_info=True)
            assert np.array_equal(np.asarray(F)[4], Y[2]), (fidelity, F[4])


def test_other_nodes_unchanged():
    W = _path_and_isolated()
    Y = np.array([1.0, 0.0, 0.7])
    F = graph_tv(W, [0, 3, 4], Y)
    G = graph_tv(W[:4, :4], [0, 3], Y[:2])      # the path alone: the isolated node does not touch it
    np.testing.assert_allclose(F[:4], G, atol=1e-12)
