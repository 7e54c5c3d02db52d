"""FredholmClassifier's SelectionWarning names the (width, ridge) used, not the LOO choice it replaced.

The classifier's graph-cut step (graph_cut_choice) replaces the LOO choice of select_kernel_ridge; the edge report
was emitted before it, about the LOO choice: on two moons (50 points, 8 labels, a 4-width grid) it said "the
selected sigma=0.298 is at the edge" with sigma_ an inner width (seed 6), named the other edge (seed 3), and said
nothing with sigma_ at an edge (seed 0).  Oracle: the documented
contract (a SelectionWarning exactly when the value used is the first or last of its grid; rank 1 of cv_results_
is the point used).
"""
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_moons

import graphrkhs as g


@pytest.mark.parametrize("seed", [0, 3, 6])
def test_edge_warning_is_about_the_width_used(seed):
    X, y = make_moons(50, noise=0.12, random_state=seed)
    rng = np.random.default_rng(seed)
    ys = np.full(50, -1)
    idx = rng.choice(50, 8, replace=False)
    ys[idx] = y[idx]
    grid = list(g.default_sigma(X) * np.array([0.25, 0.5, 1.0, 2.0]))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        est = g.FredholmClassifier(sigma=grid).fit(X, ys)
    named = [str(x.message) for x in w if issubclass(x.category, g.SelectionWarning) and "sigma=" in str(x.message)]
    cr = est.cv_results_
    used = float(np.asarray(cr["param_sigma"])[np.asarray(cr["rank_test_score"]) == 1][0])
    assert used == est.sigma_
    at_edge = est.sigma_ in (min(grid), max(grid))
    assert len(named) == int(at_edge), (est.sigma_, grid, named)
    if named:
        assert f"sigma={est.sigma_:.3g}" in named[0]
