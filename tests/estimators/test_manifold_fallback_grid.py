"""manifold_selection's "no usable value" fallbacks stay inside one's own grids (as every other fallback,
``_auto.unselected``): a system singular at every grid value must not give a gamma the grid excluded."""

import numpy as np
import pytest

import graphrkhs as g
from graphrkhs import SelectionWarning
from graphrkhs.estimators import _inductive as ind
from graphrkhs.solvers import ManifoldRidgePath


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    y = np.full(30, np.nan)
    y[:10] = X[:10, 0]
    return X, y


def test_fixed_gamma_I_no_usable_gamma_A_stays_in_grid(monkeypatch):
    # every ratio numerically singular (what candidate_path reports with None)
    monkeypatch.setattr(ManifoldRidgePath, "candidate_path", lambda self, *a, **k: None)
    X, y = _data()
    with pytest.warns(SelectionWarning, match="no value of the grid gives a usable system"):
        est = g.LapRLSRegressor(sigma=1.0, gamma_A=[1e-2, 1e-1], gamma_I=0.5).fit(X, y)
    assert est.gamma_A_ == 1e-2          # the grid's value nearest the fallback 1e-6, not 1e-6
    assert est.gamma_I_ == 0.5


def test_own_gamma_I_grid_no_usable_value_stays_in_grids(monkeypatch):
    def singular(*a, **k):
        raise np.linalg.LinAlgError("singular")
    monkeypatch.setattr(ind, "select_manifold_gammas", singular)
    X, y = _data()
    with pytest.warns(SelectionWarning, match="no gamma_A of the grid gives a usable system"):
        est = g.LapRLSRegressor(sigma=1.0, gamma_A=[1e-2, 1e-1], gamma_I=[0.5, 5.0]).fit(X, y)
    assert est.gamma_A_ == 1e-2          # nearest the fallbacks 1e-6 and 1e2 in log scale
    assert est.gamma_I_ == 5.0



_SINGULAR_GRIDS = [
    dict(sigma=1.0, gamma_A=[1e-12, 1e-11], gamma_I=1e3),          # fixed gamma_I: select_grid in the estimator
    dict(sigma=1.0, gamma_A=[1e-12, 1e-11], gamma_I=[1e3, 1e4]),   # own grids: select_manifold_gammas per gamma_A
    dict(sigma=1.0, gamma_A=1e-12, gamma_I=[1e3, 1e4]),            # a gamma_I grid with gamma_A fixed
]


@pytest.mark.parametrize("cls, params", [(c, p) for c in (g.LapRLSRegressor, g.PLapRLSRegressor)
                                         for p in _SINGULAR_GRIDS]
                         + [(g.PLapRLSRegressor, dict(sigma=1e4))])     # 'auto': (I - K/n)^2 singular
def test_a_grid_singular_everywhere_is_reported_once(cls, params):
    # Every ratio gamma_I / gamma_A of these grids is refused as numerically singular (real systems, no
    # monkeypatch).  select_grid warned "the selection criterion is undefined (inf/NaN) on the whole grid" (once
    # per gamma_A of one's own grid) and then the estimator its own fallback warning about the same event: 2-3
    # SelectionWarnings per fit.  Now only the one that names the fallback used.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = np.full(40, np.nan)
    y[:10] = X[:10, 0]
    with pytest.warns(SelectionWarning) as rec:
        cls(**params).fit(X, y)
    msgs = [str(w.message) for w in rec if issubclass(w.category, SelectionWarning)]
    assert len(msgs) == 1, msgs
    assert "usable system" in msgs[0] and "undefined (inf/NaN)" not in msgs[0]
