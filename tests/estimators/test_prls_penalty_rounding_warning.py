"""PRLS's penalty P = K - 2K' + K'' is formed by cancellation from terms of size max diag(K, K', K''): its
eigenvalues are rounding up to about l eps times that size.  On copies of two points P vanishes, and its
computed eigenvalues -2.7e-15 .. 1.2e-14 (terms of size 2) were reported as "P is indefinite" (the test was
relative to P's own largest eigenvalue).  A truly indefinite P (the heat penalty with m below the number of
features) still warns."""

import warnings

import numpy as np
import pytest

import graphrkhs as gr
from graphrkhs.solvers._kernel import _consistency_penalty


def test_prls_nystrom_on_copies_of_two_points_does_not_warn_indefinite():
    X = np.repeat(np.random.default_rng(0).normal(size=(2, 2)), 50, axis=0)
    y = np.full(100, np.nan)
    y[:2], y[50:52] = 0.0, 1.0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = gr.PRLSRegressor(solver="nystrom", n_components=2, random_state=1).fit(X, y)
    # the landmarks are the two points (random_state=1), so the Nystrom grams are exact
    assert np.abs(np.sort(est.nystrom_.landmarks_, axis=0) - np.sort(X[[0, 50]], axis=0)).max() < 1e-12
    assert not [w for w in caught if "indefinite" in str(w.message)]
    # leave-group-out: without one point's copies the fit is the other point's target (the kept kernel columns
    # are constants, absorbed by beta), so the LOO MSE is exactly 1 at every gamma -- the criterion is flat (the
    # old normal equations scored rounding: -0.99924 at gamma 1e-9, which was then chosen)
    assert np.abs(np.asarray(est.cv_results_["mean_test_score"]) + 1.0).max() <= 1e-12
    # a small gamma interpolates the two points
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        small = gr.PRLSRegressor(gamma=1e-9, solver="nystrom", n_components=2, random_state=1).fit(X, y)
    assert np.allclose(small.predict(X[[0, 50]]), [0.0, 1.0], atol=1e-6)


def test_a_truly_indefinite_heat_penalty_still_warns():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 3))
    K, Kp, Kpp, _ = gr.consistency_grams(X[:12], X, integral_operator="heat", m=1, sigma=1.0)
    lo = np.linalg.eigvalsh(np.asarray(K) - 2 * np.asarray(Kp) + np.asarray(Kpp))[0]
    assert lo < -1e-3                                      # the oracle: indefinite beyond any rounding
    with pytest.warns(UserWarning, match="indefinite"):
        _consistency_penalty(K, Kp, Kpp)
