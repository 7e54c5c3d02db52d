"""The RLS width selection of PRLS / PLapRLS: its ridge is internal, so no edge report names it."""
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_moons

from graphrkhs import PLapRLSRegressor, PRLSRegressor, RLSRegressor
from graphrkhs.solvers import SelectionWarning


def _moons():
    X, _ = make_moons(30, noise=0.1, random_state=0)
    y = np.full(30, np.nan)
    y[:8] = X[:8, 0]
    return X, y


def _edge_reports(est):
    X, y = _moons()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(X, y)
    return [str(w.message) for w in caught if issubclass(w.category, SelectionWarning)]


@pytest.mark.parametrize("Est", [PRLSRegressor, PLapRLSRegressor])
def test_no_edge_report_names_the_width_selections_internal_ridge(Est):
    # these learners have no alpha; "the selected alpha=1e-09 is at the edge ... Pass a wider grid or a fixed
    # value" named the internal ridge of the RLS that ranks the widths
    messages = _edge_reports(Est())
    assert not [m for m in messages if m.startswith("the selected alpha=")]
    # the width itself is still reported at its edge (sigma = 19 / 26.8 on these 30 moons)
    assert [m for m in messages if m.startswith("the selected sigma=")]


def test_rls_still_reports_its_own_alpha_at_the_edge():
    # for RLS the ridge is the estimator's alpha: its edge report stays
    assert [m for m in _edge_reports(RLSRegressor()) if m.startswith("the selected alpha=")]
