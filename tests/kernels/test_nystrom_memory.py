"""NystromFeatures estimates its (points x landmarks) arrays before allocating them."""

import numpy as np
import pytest

from graphrkhs import NystromFeatures
from graphrkhs._core import validation


@pytest.fixture
def features():
    X = np.random.default_rng(0).normal(size=(2000, 3))
    return X, NystromFeatures(X, sigma=1.0, n_components=100, tol=0, landmarks="uniform", random_state=0)


def test_transform_estimates_its_output(features, monkeypatch):
    """transform(A) allocates (len(A), r): 20000 points x 100 features = 15.3 MiB was allocated on a machine
    whose limit is 6 MiB; now a MemoryError naming the array comes first."""
    X, ny = features
    monkeypatch.setattr(validation, "_physical_memory", lambda: 8 * 2**20)       # limit 6 MiB
    with pytest.raises(MemoryError, match=r"20000 x 100.*fewer points"):
        ny.transform(np.zeros((20000, 3)))
    assert ny.transform(X[:10]).shape == (10, ny.rank_)                           # small blocks still work


def test_with_sigma_estimates_the_kept_distances(features, monkeypatch):
    """with_sigma(keep_distances=True) keeps (n, m) float64 distances and exponentiates a copy besides the
    features: 2000 x 100 x (8 + 8 + 8) bytes = 4.6 MiB, above a 3 MiB limit that the features alone (1.5 MiB)
    fit in.  It was allocated; now a MemoryError names it and keep_distances=False still works."""
    X, ny = features
    monkeypatch.setattr(validation, "_physical_memory", lambda: 4 * 2**20)       # limit 3 MiB
    with pytest.raises(MemoryError, match=r"new width \(2000 x 100, with the kept distances\).*keep_distances=False"):
        ny.with_sigma(X, 2.0, keep_distances=True)
    assert ny.with_sigma(X, 2.0).features_.shape == (2000, ny.rank_)
