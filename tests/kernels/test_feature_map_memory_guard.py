"""feature_map(features="poly2") estimates its peak memory as 3 n q numbers (measured 2.94 n q float64 at n = 2000,
d = 100: the gathered factors X[:, i] and X[:, j] with their products, then the products with the stacked result);
the guard counted 2 n q, so a call estimated inside the limit could use about 1.5 times it. The limit is lowered with
validation._physical_memory so that a small problem stands for a large one."""

import tracemalloc

import numpy as np
import pytest

from graphrkhs import feature_map
from graphrkhs._core import validation


X = np.random.default_rng(0).standard_normal((200, 20))
Q = 1 + 20 + 20 * 21 // 2                 # 231 poly2 features
RESULT_BYTES = X.shape[0] * Q * 8


def test_peak_is_about_three_results():
    tracemalloc.start()
    try:
        feature_map(X, "poly2")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert 2.5 * RESULT_BYTES < peak <= 3.2 * RESULT_BYTES


def test_guard_counts_the_peak(monkeypatch):
    # limit 2.5 results: above the old estimate (2), below the peak (about 3)
    monkeypatch.setattr(validation, "_physical_memory", lambda: 2.5 * RESULT_BYTES / 0.75)
    with pytest.raises(MemoryError, match=r"the poly2 features of 200 points \(200 x 231\)"):
        feature_map(X, "poly2")


def test_linear_features_unaffected(monkeypatch):
    monkeypatch.setattr(validation, "_physical_memory", lambda: 2.5 * RESULT_BYTES / 0.75)
    np.testing.assert_array_equal(feature_map(X, "linear"), np.hstack([np.ones((200, 1)), X]))


def test_linear_features_guard_counts_about_their_size(monkeypatch):
    # review of 830a391: the 3 n q of poly2 was applied to every kind; "linear" peaks at 1.04 x its result, so a
    # limit of 2.5 x its result refused it where it fits
    X = np.random.default_rng(0).standard_normal((2000, 50))
    result_bytes = 2000 * 51 * 8
    monkeypatch.setattr(validation, "_physical_memory", lambda: 2.5 * result_bytes / 0.75)
    Psi = feature_map(X, "linear")
    np.testing.assert_array_equal(Psi, np.hstack([np.ones((2000, 1)), X]))
