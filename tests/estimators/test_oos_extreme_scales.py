"""The transductive out-of-sample rule at extreme point scales.

The graph and ``transduction_`` are invariant to the scale of the points (knn_graph searches in units of a
power of two), but ``predict`` searched the fitted points with scikit-learn's NearestNeighbors on the raw
points: squared distances overflowed near 1e155 (NaN weights) and underflowed near 1e-200 (every point "on"
a fitted node), so predict(X_fit) labeled 15 of 30 points of two separated blobs wrong while
``transduction_`` had them all right.  The rule depends on distance ratios only, so a scale of 2^k (exact)
changes nothing.
"""

import scipy.sparse as sp
import numpy as np
import pytest

from graphrkhs import LaplacianRegularizationRegressor, PoissonLearningClassifier


def _blobs():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(15, 2)), rng.normal(size=(15, 2)) + 4])
    y = np.full(30, -1)
    y[[0, 1, 15, 16]] = [0, 0, 1, 1]
    X_new = rng.normal(size=(8, 2)) * 3 + 2
    return X, y, X_new


@pytest.mark.parametrize("k", [600, -700], ids=["2^600", "2^-700"])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
def test_classifier_predict_is_scale_invariant(k, sparse):
    X, y, X_new = _blobs()
    s = np.ldexp(1.0, k)
    wrap = sp.csr_array if sparse else np.asarray
    ref = PoissonLearningClassifier().fit(wrap(X), y)
    est = PoissonLearningClassifier().fit(wrap(X * s), y)
    np.testing.assert_array_equal(est.transduction_, ref.transduction_)
    # predict of the fitted points is transduction_ (before: 15 of the 30 wrong at either scale)
    np.testing.assert_array_equal(est.predict(wrap(X * s)), est.transduction_)
    # new points: the same rule as at scale 1 (it reads distance ratios only)
    np.testing.assert_array_equal(est.predict(wrap(X_new * s)), ref.predict(wrap(X_new)))
    np.testing.assert_allclose(est.predict_proba(wrap(X_new * s)), ref.predict_proba(wrap(X_new)),
                               rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("k", [600, -700], ids=["2^600", "2^-700"])
def test_regressor_predict_is_scale_invariant(k):
    X, y, X_new = _blobs()
    t = np.where(y < 0, np.nan, X[:, 0] + 0.5 * X[:, 1])
    s = np.ldexp(1.0, k)
    ref = LaplacianRegularizationRegressor(alpha=0.0).fit(X, t)
    est = LaplacianRegularizationRegressor(alpha=0.0).fit(X * s, t)
    np.testing.assert_allclose(est.predict(X * s), est.transduction_, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(est.predict(X_new * s), ref.predict(X_new), rtol=1e-12, atol=1e-12)
