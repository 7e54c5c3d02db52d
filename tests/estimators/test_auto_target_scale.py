"""The "auto" selections of LapRLS, PRLS and the warped kernel are scale-free in y, and their warnings name the
values the fit uses.

Targets near 1e300 make every LOO mean squared error overflow float64 (each score is minus the largest float),
targets near 1e-300 underflow it to 0: only the tie-break (minus log MSE) still ranks the grid.  The exact step
of the joint width selection ranked by the score alone and took the first width (0.296 against 19 at y ~ 1,
predictions 76 % off, while its SelectionWarning named 19); PRLS's projection of y snapped a target at 1e+-300 to
zero (norms squared over/underflowed) and fitted the mean alone.
"""
import functools
import re
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_moons

from graphrkhs import SelectionWarning
from graphrkhs.estimators import FredholmRegressor, LapRLSRegressor, PRLSRegressor, WarpedKernelRegressor


def _data():
    X, _ = make_moons(30, noise=0.1, random_state=0)
    y = np.full(30, np.nan)
    y[:8] = X[:8, 0]
    return X, y


@functools.lru_cache(maxsize=None)
def _reference(cls):
    X, y = _data()
    return _fit(cls, X, y)[0]


def _fit(cls, X, y):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        est = cls().fit(X, y)
    return est, [str(x.message) for x in w if issubclass(x.category, SelectionWarning)]


@pytest.mark.parametrize("cls", [LapRLSRegressor, PRLSRegressor, WarpedKernelRegressor, FredholmRegressor])
@pytest.mark.parametrize("scale", [1e300, 1e-300, 1e-3, 1e3])
def test_auto_selection_is_scale_free_in_y(cls, scale):
    X, y = _data()
    ref = _reference(cls)
    est, _ = _fit(cls, X, y * scale)
    assert est.sigma_ == ref.sigma_
    p0 = ref.predict(X)
    p = est.predict(X) / scale
    assert np.abs(p - p0).max() <= 1e-6 * np.abs(p0).max()


@pytest.mark.parametrize("cls", [LapRLSRegressor, WarpedKernelRegressor])
@pytest.mark.parametrize("scale", [1e300, 1e-300])
def test_edge_warning_names_the_width_used(cls, scale):
    X, y = _data()
    est, msgs = _fit(cls, X, y * scale)
    named = [float(m.group(1)) for m in (re.match(r"the selected sigma=([0-9.e+-]+) ", s) for s in msgs) if m]
    assert named                     # the width is at the edge of its grid here: the warning is expected
    for v in named:
        assert v == pytest.approx(est.sigma_, rel=1e-2)


def test_prls_width_warning_names_the_refined_width_used():
    # PRLS refines the RLS width by its own LOO (x 2^-1/2, 1, 2^1/2): the RLS selection's warning "the selected
    # sigma=19 is at the edge of its grid" was emitted although the fit used 13.4 (an interior width of the
    # widths tried, 19 x 2^1/2 among them); here the refinement goes beyond the RLS grid's edge (26.8 against 19)
    # and the warning must name that width
    X, y = _data()
    est, msgs = _fit(PRLSRegressor, X, y)
    named = [float(m.group(1)) for m in (re.match(r"the selected sigma=([0-9.e+-]+) ", s) for s in msgs) if m]
    assert named and all(v == pytest.approx(est.sigma_, rel=1e-2) for v in named), (named, est.sigma_)
