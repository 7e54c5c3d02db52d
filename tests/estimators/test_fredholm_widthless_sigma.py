"""Fredholm learners do not select a width their kernel does not have.

With a linear (or polynomial, or callable) outer kernel and the inner kernel's own ``sigma_inner``, ``sigma``
enters no kernel.  ``sigma="auto"`` still ran the joint (sigma, alpha) leave-one-out over 7-15 widths of
identical kernels; the tie fell on an edge of the width grid and warned (SelectionWarning "the selected sigma=169
is at the edge of its grid", six times in the FredLin1 gallery example).  Oracle: the fit with any fixed sigma
(the kernel is the same), and no SelectionWarning.
"""
import warnings

import numpy as np
import pytest

from graphrkhs import FredholmClassifier, FredholmRegressor
from graphrkhs._core.validation import SelectionWarning


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 4)) * np.array([3.0, 1.0, 0.5, 0.2])
    y = X[:, 0] + 0.1 * rng.normal(size=120)
    return X, y


@pytest.mark.parametrize("outer", ["linear", "polynomial"])
@pytest.mark.parametrize("sigma", ["auto", [0.5, 1.0, 2.0]])
def test_regressor_with_widthless_outer_kernel_and_own_inner_width(outer, sigma):
    X, y = _data()
    y_semi = np.full(y.size, np.nan)
    y_semi[:30] = y[:30]
    fixed = FredholmRegressor(outer=outer, inner="gaussian", sigma=7.0, sigma_inner=2.0).fit(X, y_semi)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SelectionWarning)
        tuned = FredholmRegressor(outer=outer, inner="gaussian", sigma=sigma, sigma_inner=2.0).fit(X, y_semi)
    assert tuned.alpha_ == pytest.approx(fixed.alpha_, rel=1e-12)
    np.testing.assert_allclose(tuned.predict(X[30:]), fixed.predict(X[30:]), rtol=1e-9, atol=1e-12)


def test_classifier_with_widthless_outer_kernel_and_own_inner_width():
    X, y = _data()
    labels = (y > 0).astype(int)
    labels[30:] = -1
    fixed = FredholmClassifier(outer="linear", inner="gaussian", sigma=7.0, sigma_inner=2.0).fit(X, labels)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SelectionWarning)
        tuned = FredholmClassifier(outer="linear", inner="gaussian", sigma="auto", sigma_inner=2.0).fit(X, labels)
    np.testing.assert_allclose(tuned.decision_function(X[30:]), fixed.decision_function(X[30:]), rtol=1e-9,
                               atol=1e-12)


def test_the_width_is_still_selected_where_the_inner_kernel_takes_it():
    # outer linear, inner Gaussian without its own width: sigma is the inner kernel's width, selected
    X, y = _data()
    y_semi = np.full(y.size, np.nan)
    y_semi[:30] = y[:30]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SelectionWarning)
        reg = FredholmRegressor(outer="linear", inner="gaussian", sigma=[0.5, 1.0, 2.0, 4.0]).fit(X, y_semi)
    assert reg.cv_results_ is not None and "param_sigma" in reg.cv_results_
