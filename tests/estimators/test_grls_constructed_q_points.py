"""G-RLS "constructed" with exactly q labeled points (q features): the interpolant, as "saddle" gives.

All points are then anchors and no H part remains; the kernel's evaluations at the (empty) other points raised
"A must have at least 1 sample(s) and 1 feature; got shape (0, 2)", an argument the user never passed.
"""
import numpy as np

from graphrkhs import GRLSRegressor


def test_q_labels_reproduce_a_linear_target_with_both_methods():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    y = np.full(60, np.nan)
    y[:3] = 1 + 2 * X[:3, 0] - X[:3, 1]                 # features="linear": q = 3
    Xt = rng.normal(size=(5, 2))
    truth = 1 + 2 * Xt[:, 0] - Xt[:, 1]
    for method in ("saddle", "constructed"):
        pred = GRLSRegressor(features="linear", method=method, sigma=1.0, gamma=1e-3).fit(X, y).predict(Xt)
        np.testing.assert_allclose(pred, truth, rtol=1e-9, atol=1e-9)
