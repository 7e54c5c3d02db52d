"""One's own ``gamma_I`` grid of LapRLS / PLapRLS / the warped kernel: a choice at its edge is reported.

Before, every fit with a ``gamma_I`` grid (with ``gamma_A`` a number, a grid or "auto") returned a value at
the edge of a grid without a :class:`~graphrkhs.SelectionWarning` (``estimators._auto``: "a sequence of
values: one's own grid, scored the same way, not extended (a SelectionWarning says when the choice is at
its edge)"); with a ``gamma_A`` grid as well, not even that grid's edge was reported.
"""

import warnings

import numpy as np
import pytest

from graphrkhs import LapRLSRegressor, PLapRLSRegressor, SelectionWarning, WarpedKernelRegressor


def _problem():
    rng = np.random.default_rng(5)
    X = rng.uniform(-1, 1, size=(40, 2))
    y = 1.0 + np.sin(2 * X[:, 0]) + X[:, 1] + 0.3 * rng.normal(size=40)
    labeled = np.zeros(40, dtype=bool)
    labeled[rng.choice(40, 12, replace=False)] = True
    return X, np.where(labeled, y, np.nan)


def _fit(cls, **kw):
    X, y = _problem()
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        est = cls(sigma=1.0, **kw).fit(X, y)
    return est, [str(w.message) for w in rec if issubclass(w.category, SelectionWarning)]


def _cv_best(est):
    cv = est.cv_results_
    best = int(np.argmin(cv["rank_test_score"]))
    return cv["params"][best]


@pytest.mark.parametrize("cls", [LapRLSRegressor, PLapRLSRegressor, WarpedKernelRegressor])
@pytest.mark.parametrize("gamma_A", [1e-2, [1e-2, 3e-2, 1e-1]])
def test_gamma_I_choice_at_the_edge_of_ones_own_grid_warns_once(cls, gamma_A):
    grid = [1e3, 1e4]
    est, msgs = _fit(cls, gamma_A=gamma_A, gamma_I=grid)
    assert est.gamma_I_ in grid
    # the choice is the best of the table (its scores are the exact LOO, tests/estimators/test_selection_exact.py)
    assert _cv_best(est)["gamma_I"] == est.gamma_I_ and _cv_best(est)["gamma_A"] == est.gamma_A_
    on_gamma_I = [m for m in msgs if "selected gamma_I=" in m]
    assert len(on_gamma_I) == 1         # a two-value grid: every choice is at its edge
    assert "is at the edge of its grid [1e+03, 1e+04]" in on_gamma_I[0]
    on_gamma_A = [m for m in msgs if "selected gamma_A=" in m]
    at_edge_A = np.ndim(gamma_A) == 1 and est.gamma_A_ in (gamma_A[0], gamma_A[-1])
    assert len(on_gamma_A) == int(at_edge_A)
    assert len(msgs) == len(on_gamma_I) + len(on_gamma_A)


def test_a_gamma_I_of_zero_at_the_head_of_the_grid_is_no_edge():
    # 0 (no graph term) is the end of the gamma_I axis: the choice 0 is not "at the edge" (select_grid's rule)
    est, msgs = _fit(LapRLSRegressor, gamma_A=1e-2, gamma_I=[0.0, 1e3, 1e4])
    assert est.gamma_I_ == 0.0
    assert msgs == []


def test_auto_gamma_A_with_ones_own_gamma_I_grid_still_reports_only_that_grid():
    est, msgs = _fit(LapRLSRegressor, gamma_I=[1e3, 1e4])
    assert est.gamma_I_ == 1e3
    assert [m for m in msgs if "selected gamma_I=1e+03" in m] == msgs and len(msgs) == 1


@pytest.mark.parametrize("solver", ["auto", "nystrom"])
def test_the_fitted_gamma_I_is_a_member_of_ones_own_grid(solver):
    # gamma_I was ratio * gamma_A = (0.7 / 0.3) * 0.3 = 0.7000000000000001, a value of no grid the user gave
    X, y = _problem()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SelectionWarning)
        est = LapRLSRegressor(sigma=1.0, gamma_A=0.3, gamma_I=[0.7, 7.0], solver=solver, n_components=20,
                              random_state=0).fit(X, y)
    assert est.gamma_I_ in (0.7, 7.0)


@pytest.mark.parametrize("kw", [
    dict(gamma_A=1e-2, gamma_I=[1e3, 1e4]),
    dict(gamma_A=[1e-2, 3e-2, 1e-1], gamma_I=[1e3, 1e4]),
    dict(gamma_A=[10.0, 100.0]),
    dict(gamma_A=[10.0, 100.0], gamma_I=1.0),
])
def test_nystrom_path_reports_a_choice_at_the_edge_of_ones_own_grid(kw):
    # the Nystrom path (solver="nystrom", or above 10000 rows) never reported one's own grids' edges
    est, msgs = _fit(LapRLSRegressor, solver="nystrom", n_components=20, random_state=0, **kw)
    expected = []
    for name, grid in kw.items():
        if np.ndim(grid) == 1:            # one's own grid: the fitted value is a member, its edge reported
            value = getattr(est, name + "_")
            assert value in grid
            if value in (grid[0], grid[-1]):
                expected.append(f"the selected {name}={value:.3g} is at the edge of its grid")
    assert expected                       # every case here has a two-value grid: an edge is chosen
    assert sorted(m.split(" [")[0] for m in msgs) == sorted(expected)
