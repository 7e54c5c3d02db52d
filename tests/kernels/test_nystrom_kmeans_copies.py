"""NystromFeatures(landmarks="kmeans") on points that are copies of a few distinct points.

k-means' optimum with at least as many centres as distinct points puts a centre on each; one
mini-batch pass from random initial centres averaged copies of different points instead (two
points x 50 copies, 2 centres: landmarks off the points for 5 of 6 seeds), which made PRLS's
low-rank penalty indefinite. Oracle: the distinct rows of X, and the exact Gram matrix.
"""

import warnings

import numpy as np
import pytest

from graphrkhs import NystromFeatures, PRLSRegressor, pairwise_kernel

P = np.array([[0.0, 0.0], [1.0, 2.0], [-1.0, 0.5]])


@pytest.mark.parametrize("distinct, n_components", [(2, 2), (2, 5), (3, 3), (3, 10)])
@pytest.mark.parametrize("seed", range(6))
def test_kmeans_landmarks_are_the_distinct_points(distinct, n_components, seed):
    X = np.repeat(P[:distinct], 50, axis=0)
    ny = NystromFeatures(X, sigma=0.5, n_components=n_components, random_state=seed)
    # the landmarks are the distinct rows (as a set), their number capped by them
    assert ny.n_components_ == distinct
    Z = ny.landmarks_
    assert np.array_equal(np.unique(Z, axis=0), np.unique(X, axis=0))
    assert np.array_equal(X[ny.landmark_index_], Z)
    # the factor is exact on such points
    F = ny.features_
    np.testing.assert_allclose(F @ F.T, pairwise_kernel(X, sigma=0.5), atol=1e-12)


def test_prls_nystrom_on_copies_has_a_psd_penalty():
    X = np.repeat(P[:2], 50, axis=0)
    y = np.repeat([0.0, 1.0], 50)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for seed in range(6):
            # gamma="auto" (its penalty checked on every grid point: no indefinite-penalty warning); the
            # leave-group-out criterion is flat on copies of two points (cb04d60), so the interpolation is
            # asserted at a small fixed gamma
            PRLSRegressor(solver="nystrom", n_components=2, sigma=1.0, random_state=seed).fit(X, y)
            m = PRLSRegressor(solver="nystrom", n_components=2, sigma=1.0, gamma=1e-9, random_state=seed).fit(X, y)
            np.testing.assert_allclose(m.predict(P[:2]), [0.0, 1.0], atol=1e-8)


def test_points_without_copies_keep_kmeans_centres():
    X = np.random.default_rng(0).normal(size=(300, 2))
    ny = NystromFeatures(X, sigma=1.0, n_components=20, tol=0.1, random_state=0)
    assert ny.landmark_index_ is None and ny.n_components_ <= 20
