"""NystromFeatures(landmarks="uniform") on points with exact copies: no landmark is drawn twice, and at
n_components >= the number of distinct points the factor is exact, as with landmarks="kmeans".

The uniform sample drew rows, copies included: 12 points x 5 copies with n_components=12 gave 8 distinct
landmarks and F F^T off the kernel by 0.29, where the 12 distinct points give K exactly.  Oracle:
pairwise_kernel (the exact kernel) and the landmark rows themselves.
"""
import numpy as np
import pytest

from graphrkhs import NystromFeatures, pairwise_kernel


def _copies(n_distinct=12, copies=5, seed=0):
    rng = np.random.default_rng(seed)
    P = rng.normal(size=(n_distinct, 3))
    return P[rng.permutation(np.repeat(np.arange(n_distinct), copies))]


@pytest.mark.parametrize("n_components", [12, 20, 59])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_uniform_landmarks_on_copies_are_exact_at_the_distinct_count(n_components, seed):
    X = _copies(seed=seed)
    ny = NystromFeatures(X, sigma=1.0, n_components=n_components, landmarks="uniform", tol=0, random_state=seed)
    F = ny.features_
    np.testing.assert_allclose(F @ F.T, pairwise_kernel(X, sigma=1.0), rtol=0, atol=1e-10)
    assert ny.n_components_ == 12
    assert len(np.unique(X[ny.landmark_index_], axis=0)) == 12


@pytest.mark.parametrize("seed", range(5))
def test_uniform_landmarks_below_the_distinct_count_are_distinct_points(seed):
    X = _copies(n_distinct=30, copies=4, seed=seed)
    ny = NystromFeatures(X, sigma=1.0, n_components=10, landmarks="uniform", tol=0, random_state=seed)
    Z = X[ny.landmark_index_]
    assert ny.n_components_ == 10 and len(np.unique(Z, axis=0)) == 10
    np.testing.assert_array_equal(ny.landmarks_, Z)


def test_uniform_landmarks_without_copies_are_the_uniform_draw():
    # points without copies: the sample is rng.choice's, as before
    X = np.random.default_rng(1).normal(size=(50, 2))
    ny = NystromFeatures(X, n_components=10, landmarks="uniform", tol=0, random_state=3)
    expected = np.random.default_rng(3).choice(50, 10, replace=False)
    assert sorted(ny.landmark_index_.tolist()) == sorted(expected.tolist())
