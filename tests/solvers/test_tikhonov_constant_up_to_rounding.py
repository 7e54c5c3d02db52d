"""select_tikhonov_alpha / select_tikhonov_solution: a target constant up to rounding is a constant.

The combinatorial Laplacian does not penalize constants, so every alpha fits a constant target: its LOO/GCV
scores are rounding.  Measured before: y = 1e8 + 1e-7 z (a spread of ~25 ulps) extended the grid to alpha = 1e6
with a SelectionWarning, GCV on y = 1 + 1e-15 z down to 1e-7 with one, and an exact constant "chose" 0.03 (LOO)
or 0.1 (GCV) by rounding.  Now a spread of at most 64 eps times max |y| gives flat scores (LOO MSE 0) and the
tie rule's alpha (the largest) with no extension and no warning.
"""

import warnings

import numpy as np
import pytest

from graphrkhs import SelectionWarning
from graphrkhs.solvers import select_tikhonov_alpha, select_tikhonov_solution


def _graph():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    W = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1))
    np.fill_diagonal(W, 0.0)
    return W, np.arange(0, 40, 3)


EPS = np.finfo(float).eps


@pytest.mark.parametrize("offset, spread", [(1.0, 0.0), (1.0, 4 * EPS), (1.0, 40 * EPS), (1e8, 1e-7)])
@pytest.mark.parametrize("criterion", ["loo", "gcv"])
def test_a_target_constant_up_to_rounding_is_not_selected_on(offset, spread, criterion):
    W, S = _graph()
    z = np.random.default_rng(1).uniform(-0.5, 0.5, S.size)
    y = offset + spread * z
    assert np.ptp(y) <= 64 * EPS * np.abs(y).max()
    with warnings.catch_warnings():
        warnings.simplefilter("error", SelectionWarning)
        res = select_tikhonov_alpha(W, S, y, criterion=criterion)
        F, res2 = select_tikhonov_solution(W, S, y, criterion=criterion)
    assert res.n_extensions == 0 and res.grid["alpha"].max() == 1e3
    assert res.best_params["alpha"] == 1e3                     # the tie rule: the largest alpha
    assert np.all(res.scores == 0.0)
    assert res2.best_params["alpha"] == 1e3
    np.testing.assert_allclose(F[:, 0], offset, rtol=1e-12)   # the constant, fitted


def test_a_target_that_varies_beyond_rounding_is_still_selected():
    W, S = _graph()
    y = 1.0 + 1e-3 * np.random.default_rng(1).normal(size=S.size)
    res = select_tikhonov_alpha(W, S, y, extend=False)
    assert np.ptp(res.scores) > 0


def test_the_normalized_laplacian_penalizes_constants_and_still_selects():
    W, S = _graph()
    res = select_tikhonov_alpha(W, S, np.ones(S.size), laplacian="normalized", extend=False)
    assert np.ptp(res.scores) > 0
