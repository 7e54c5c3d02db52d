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


# --- points far from the origin (relative to their spacing), in more than 15 dimensions ------------------

def _far_points(offset):
    # 30 features: scikit-learn's NearestNeighbors searches by brute force there, with the squared distances
    # expanded as |a|^2 - 2 a.b + |b|^2, whose rounding is about eps |a|^2 -- not zero for a == b
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 60)
    X = rng.normal(size=(120, 30))
    X[:, :3] += 3.0 * y[:, None]
    t = np.where(np.isin(np.arange(120), [0, 1, 2, 60, 61, 62]), X[:, 0] + X[:, 1], np.nan)
    X_new = rng.normal(size=(10, 30)) + 1.5
    return X + offset, t, X_new + offset


@pytest.mark.parametrize("offset", [1e3, 1e5])
def test_predict_of_far_fitted_points_is_the_transduction(offset):
    # Before: the rounded distance of a fitted point to its own node (~1e-4 of its neighbourhood radius at 1e3,
    # against the 1e-6 of the coincidence rule) made 24 (1e3) / 23 (1e5) of the 120 fitted points new points:
    # predict(X_fit) was their neighbours' weighted average, up to 1.5 away from transduction_ (a labeled node
    # with target -0.006 predicted 1.15)
    X, t, X_new = _far_points(offset)
    est = LaplacianRegularizationRegressor(alpha=0.0).fit(X, t)
    np.testing.assert_allclose(est.predict(X), est.transduction_, rtol=1e-12, atol=1e-12)
    clf = PoissonLearningClassifier().fit(X, np.where(np.isnan(t), -1, (X[:, 0] > offset + 1.5).astype(int)))
    np.testing.assert_array_equal(clf.predict(X), clf.transduction_)
    np.testing.assert_allclose(clf.predict_proba(X), clf.label_distributions_, rtol=1e-12, atol=1e-14)


def test_predict_of_far_new_points_is_the_rule_of_their_exact_distances():
    # the out-of-sample rule (k nearest fitted nodes, weights exp(-(d / d_k)^2 / 2)) from the exact distances of
    # the shifted points, as the dense oracle computes them from the differences
    X, t, X_new = _far_points(1e3)
    est = LaplacianRegularizationRegressor(alpha=0.0).fit(X, t)
    d = np.linalg.norm(X_new[:, None] - X[None], axis=2)
    idx = np.argsort(d, axis=1)[:, :10]
    dk = np.take_along_axis(d, idx, axis=1)
    w = np.exp(-(dk / dk[:, -1:]) ** 2 / 2)
    np.testing.assert_allclose(est.predict(X_new), (w * est.transduction_[idx]).sum(1) / w.sum(1), rtol=1e-9)


@pytest.mark.parametrize("name", ["PoissonLearningClassifier", "GraphKernelRidgeClassifier", "GraphTVClassifier",
                                  "PoissonRidgeEnsembleClassifier", "LaplacianRegularizationRegressor"])
def test_sparse_new_points_after_a_dense_fit_are_the_dense_ones(name):
    # fit accepts sparse X; predicting sparse new points after a dense fit raised scikit-learn's "kd_tree does not
    # work with sparse matrices ... set algorithm='brute'", an option the estimators do not have
    import warnings

    import graphrkhs

    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 0.5, (30, 2)), rng.normal(3, 0.5, (30, 2))])
    y = np.full(60, -1)
    y[[0, 1, 2, 30, 31, 32]] = [0, 0, 0, 1, 1, 1]
    Q = rng.normal(1.5, 2.0, (20, 2))
    E = getattr(graphrkhs, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", graphrkhs.GraphRKHSWarning)
        model = E().fit(X, y if "Classifier" in name else np.where(y < 0, np.nan, y))
        dense = model.predict_proba(Q) if "Classifier" in name else model.predict(Q)
        sparse = (model.predict_proba if "Classifier" in name else model.predict)(sp.csr_matrix(Q))
    assert np.array_equal(dense, sparse)


@pytest.mark.parametrize("scale", [3e100, 3e160, 1e300])
def test_new_points_too_far_to_rank_their_neighbours_get_the_mean_score_and_a_warning(scale):
    # at 3e100 the ten distances to 60 points near the origin were equal in float64: the first fitted point in tie
    # order decided, with full confidence (class 0, while at 3e6 the nearer blob's class 1); beyond 1e154 the
    # distances overflowed and inf / inf leaked numpy's "invalid value encountered in divide"
    import re
    import warnings

    import graphrkhs

    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 0.5, (30, 2)), rng.normal(3, 0.5, (30, 2))])
    y = np.full(60, -1)
    y[[0, 1, 2, 30, 31, 32]] = [0, 0, 0, 1, 1, 1]
    model = graphrkhs.LaplacianRegularizationClassifier().fit(X, y)
    mean = model.predict_proba(X).mean(axis=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.warns(graphrkhs.GraphWarning, match=re.escape(
                "1 new point(s) lie so far outside the fitted points (more than 1e8 times their largest norm away, e.g. "
                "row 0) that their nearest fitted points cannot be told apart in float64: they get the mean score.")):
            P = model.predict_proba([[scale, scale], [3.0, 3.0]])
    np.testing.assert_allclose(P[0], mean, rtol=1e-12)
    assert P[1].tolist() == [0.0, 1.0]
    # far, but still ranked: the nearer blob, no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert model.predict([[3e6, 3e6]]).tolist() == [1]
