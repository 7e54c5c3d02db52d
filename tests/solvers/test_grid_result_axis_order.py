"""GridResult breaks ties towards the largest *value* of the first axis, and reports an edge by value, in
whatever order an axis is given (the class is public; select_grid passes increasing axes).

Before, both went by position: GridResult({"alpha": [3.0, 2.0, 1.0]}, zeros) chose alpha = 1, the weakest
regularization, against its documented rule, and GridResult({"alpha": [1.0, 3.0, 2.0]}, ...) with the best
score at 2.0 called that interior value "at the edge".
"""
import numpy as np

from graphrkhs.solvers import GridResult


def test_tie_goes_to_the_largest_value_in_any_order():
    for axis in ([1.0, 2.0, 3.0], [3.0, 2.0, 1.0], [2.0, 3.0, 1.0]):
        res = GridResult({"alpha": axis}, np.zeros(3))
        assert res.best_params == {"alpha": 3.0}
        assert res.at_edge == {"alpha": True}
        ranks = dict(zip(axis, res.rank.tolist()))
        assert ranks == {3.0: 1, 2.0: 2, 1.0: 3}


def test_edge_by_value():
    res = GridResult({"alpha": [1.0, 3.0, 2.0]}, np.array([0.0, 0.0, 1.0]))
    assert res.best_params == {"alpha": 2.0}
    assert res.at_edge == {"alpha": False}


def test_second_axis_tie_by_value():
    res = GridResult({"sigma": [1.0], "alpha": [5.0, 0.5]}, np.zeros((1, 2)))
    assert res.best_params == {"sigma": 1.0, "alpha": 5.0}
