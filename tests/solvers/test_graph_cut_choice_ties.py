"""graph_cut_choice breaks exact ties by the selection module's documented rule: towards the larger regularization.

The module notes of graphrkhs.solvers._selection: "Ties are broken towards the *larger* regularization (the smoother
function)"; GridResult: remaining ties to the largest value of the first axis, then of the second.  graph_cut_choice
returned the first grid point (the smallest width and ridge) when accuracy, normalized cut and LOO MSE all tie.
"""
import numpy as np

from graphrkhs.solvers import graph_cut_choice


def test_exact_ties_go_to_the_last_grid_point():
    acc = np.full((3, 4), 0.5)
    mse = np.full((3, 4), 1.0)
    labels = np.array([0, 0, 1, 1])
    edges = (np.array([0, 1, 2]), np.array([1, 2, 3]))
    i, j, rank, _ = graph_cut_choice(acc, mse, 4, lambda i, js: np.tile(labels, (len(js), 1)), edges,
                                     n_classes=2, return_ranking=True)
    assert (i, j) == (2, 3)
    assert rank[2, 3] == 1 and rank[2, 2] == 2 and rank[0, 0] == 12


def test_mse_still_decides_before_the_tie_rule():
    acc = np.full((2, 2), 0.5)
    mse = np.array([[0.5, 1.0], [1.0, 1.0]])
    labels = np.array([0, 1])
    i, j = graph_cut_choice(acc, mse, 4, lambda i, js: np.tile(labels, (len(js), 1)), (np.array([0]), np.array([1])),
                            n_classes=2)
    assert (i, j) == (0, 0)
