"""A criterion equal at every grid point neither extends the grid nor reports its edge.

Zero targets (or any target every parameter fits exactly) give every LOO residual 0: every grid point ties,
the tie rule takes the largest regularization, at the edge of the grid -- and select_grid extended the grid
twice along the flat criterion (alpha 1e4 for select_ridge_alpha's default grid ending at 10) and then
warned "the criterion may improve beyond it", which it cannot.
"""

import warnings

import numpy as np

from graphrkhs.solvers import SelectionWarning, kfold_scores, select_grid, select_kernel_ridge, select_ridge_alpha


def _kernel(width=0.1):
    x = np.linspace(0, 1, 12)
    return np.exp(-(x[:, None] - x[None]) ** 2 / width)


def test_zero_targets_keep_the_grid_and_its_tie_rule_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error", SelectionWarning)
        res = select_ridge_alpha(_kernel(), np.zeros(12))
        res_fi = select_ridge_alpha(_kernel(), np.zeros(12), fit_intercept=True)
        res_kr = select_kernel_ridge(_kernel, np.zeros((12, 2)), [0.05, 0.1, 0.2])
    for r in (res, res_fi):
        np.testing.assert_array_equal(r.grid["alpha"], np.geomspace(1e-6, 1e1, 15))
        assert r.n_extensions == 0
        assert r.best_params["alpha"] == 10.0                  # ties: the largest regularization
        assert np.all(r.scores == 0.0)
    assert res_kr.n_extensions == 0
    assert res_kr.best_params == {"sigma": 0.2, "alpha": 10.0}


def test_a_criterion_flat_in_score_but_ranked_by_its_tie_break_still_extends():
    # equal scores, distinct tie-breaks: the tie-break ranks the points, the best at the edge extends as before
    res = select_grid(lambda a: (np.zeros(a.size), -a), {"a": [1.0, 2.0, 4.0]}, extend=("a",),
                      max_extensions=1, bounds={"a": (1.0, np.inf)})
    assert res.n_extensions == 0 and res.best_params["a"] == 1.0           # at its bound: no growth
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        res = select_grid(lambda a: (np.zeros(a.size), a), {"a": [1.0, 2.0, 4.0]}, extend=("a",), max_extensions=1)
    assert res.n_extensions == 1 and res.best_params["a"] == 32.0
    assert len([w for w in rec if issubclass(w.category, SelectionWarning)]) == 1


def test_kfold_flat_accuracy_does_not_walk_the_grid():
    y = np.array([0, 1] * 6)
    res = kfold_scores(lambda tr, te, alpha: y[te], y, {"alpha": [0.1, 0.3, 0.9]}, n_splits=2, extend=("alpha",))
    assert res.n_extensions == 0 and res.best_params["alpha"] == 0.9
