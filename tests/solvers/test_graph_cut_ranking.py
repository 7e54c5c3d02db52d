"""graph_cut_choice(return_ranking=True): the order of the choice itself (rank 1 = the point returned, then the
other candidates by normalized cut, then the rest by LOO MSE)."""

import numpy as np

from graphrkhs.solvers import graph_cut_choice


def test_ranking_follows_the_choice():
    # 4 points on a path 0-1-2-3; candidates (accuracy within one standard error of 1.0 at l = 4: all of
    # acc = 1) are (0, 0), (0, 1), (1, 0); (1, 1) is not a candidate
    acc = np.array([[1.0, 1.0], [1.0, 0.25]])
    mse = np.array([[0.1, 0.2], [0.3, 0.05]])
    labelings = {(0, 0): [0, 1, 0, 1], (0, 1): [0, 0, 1, 1], (1, 0): [0, 0, 0, 1], (1, 1): [1, 1, 1, 1]}
    edges = (np.array([0, 1, 2]), np.array([1, 2, 3]))

    def predict(i, js):
        return np.array([labelings[(i, int(j))] for j in js])

    i, j, rank, ncut = graph_cut_choice(acc, mse, 4, predict, edges, n_classes=2, return_ranking=True)
    # Ncut: [0,0,1,1] cuts 1 edge, volumes 3 and 3: 2/3; [0,0,0,1]: cut 1, volumes 5 and 1: 1/5 + 1 = 1.2;
    # [0,1,0,1]: cut 3, volumes 3 and 3: 2
    np.testing.assert_allclose(ncut[0, 1], 2 / 3)
    np.testing.assert_allclose(ncut[1, 0], 1.2)
    np.testing.assert_allclose(ncut[0, 0], 2.0)
    assert np.isinf(ncut[1, 1])
    assert (i, j) == (0, 1) == graph_cut_choice(acc, mse, 4, predict, edges, n_classes=2)
    np.testing.assert_array_equal(rank, [[3, 1], [2, 4]])
