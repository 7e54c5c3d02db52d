"""select_grid extends an axis only by values float64 holds: from a stand-in 1e-300 for 0 the geometric step
(1e300) gave 0 and inf (with numpy's overflow RuntimeWarning) and a duplicate 0 row; the end of what the axis can
hold is reported like a bound (no 'the criterion may improve beyond it')."""

import warnings

import numpy as np

from graphrkhs.solvers import select_grid


def test_no_unrepresentable_extension():
    def evaluate(ratio):
        return -np.log10(ratio + 1.0)           # best at the smallest ratio, the stand-in for 0

    with warnings.catch_warnings():
        warnings.simplefilter("error")           # neither RuntimeWarning nor SelectionWarning
        res = select_grid(evaluate, {"ratio": [1e-300, 1.0, 1e3]}, extend=("ratio",), max_extensions=2)
    np.testing.assert_array_equal(res.grid["ratio"], [1e-300, 1.0, 1e3])
    assert res.best_params["ratio"] == 1e-300
    assert res.n_extensions == 0


def test_representable_extension_still_grows():
    res = select_grid(lambda a: -np.abs(np.log10(a) + 5.0), {"a": [1e-2, 1e-1, 1.0]}, extend=("a",),
                      max_extensions=2)
    np.testing.assert_allclose(res.best_params["a"], 1e-5)
    assert res.grid["a"][0] > 0 and np.isfinite(res.grid["a"]).all()
