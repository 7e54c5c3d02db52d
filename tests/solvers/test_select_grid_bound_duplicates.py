"""select_grid's extension towards a bound adds no value that an axis already holds up to rounding.

New values are clipped to the bound; when the bound lies within rounding of a geometric value (a ridge floor
1e-10 times a kernel diagonal of 0.99999999999999), the axis held both -- one grid point twice, with two
scores and two rows of ``cv_results_`` (seen: gamma_A 9.999999999999996e-11 beside 9.999999999999986e-11).
"""

import warnings

import numpy as np
import pytest

from graphrkhs.solvers import SelectionWarning, select_grid


def test_a_bound_within_rounding_of_a_geometric_value_is_one_grid_point():
    lo = 1e-4 * (1 - 1e-14)
    calls = []

    def evaluate(alpha):
        calls.append(alpha.copy())
        return -alpha                    # the smallest alpha is best: the axis grows down to its bound

    with warnings.catch_warnings():
        warnings.simplefilter("error", SelectionWarning)    # the choice is at the bound: no edge warning
        res = select_grid(evaluate, {"alpha": np.geomspace(1e-3, 1, 4)}, extend=("alpha",),
                          bounds={"alpha": (lo, np.inf)})
    a = res.grid["alpha"]
    assert a.size == 5
    assert np.all(np.diff(a) > 1e-9 * a[1:])
    assert res.best_params["alpha"] == lo          # the bound itself is the new end of the axis
    assert len(res.cv_results_["params"]) == 5


def test_values_clipped_to_a_bound_never_double_an_axis_value():
    # every ratio of extension and a bound just below / above an axis value: the axis stays strictly distinct
    for ratio in (10.0, np.sqrt(10.0), 2.0):
        grid = 1e-3 * ratio ** np.arange(4)
        for k in range(1, 6):
            for rel in (-1e-13, 0.0, 1e-13):
                lo = 1e-3 / ratio ** k * (1 + rel)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", SelectionWarning)
                    res = select_grid(lambda alpha: -alpha, {"alpha": grid}, extend=("alpha",),
                                      bounds={"alpha": (lo, np.inf)}, max_extensions=3)
                a = res.grid["alpha"]
                assert np.all(np.diff(a) > 1e-9 * a[1:]), (ratio, k, rel, a)


@pytest.mark.parametrize("bound", [(10.0, 0.1), (np.nan, 1.0), (0.0, np.nan)])
def test_inverted_or_nan_bounds_raise_naming_the_argument(bound):
    # bounds={"a": (10, 0.1)} ran without error (every extension clipped into an empty interval)
    calls = []

    def evaluate(a):
        calls.append(a)
        return -a

    with pytest.raises(ValueError, match=r"bounds\['a'\] must be \(low, high\) with low <= high"):
        select_grid(evaluate, {"a": [1.0, 2.0]}, extend=("a",), bounds={"a": bound})
    assert not calls                    # before any evaluation


def test_bounds_that_are_no_pair_raise_naming_the_argument():
    with pytest.raises(ValueError, match=r"bounds\['a'\] must be a pair \(low, high\) of numbers"):
        select_grid(lambda a: -a, {"a": [1.0, 2.0]}, bounds={"a": 3.0})


def test_equal_and_infinite_bounds_are_accepted():
    res = select_grid(lambda a: -a, {"a": [1.0, 2.0]}, extend=("a",), bounds={"a": (1.0, 1.0)})
    assert res.best_params["a"] == 1.0
    res = select_grid(lambda a: -(a - 2.0) ** 2, {"a": [1.0, 2.0, 4.0]}, bounds={"a": (0.0, np.inf)})
    assert res.best_params["a"] == 2.0
