"""Small exact re-rankings run on one thread, with the same bits as the parallel loop.

Starting numba's parallel loop cost 7.7 ms a call on two shared cores (OpenMP layer) where the sums of 10 x 10
pairs in 3-D took 0.5 us on one thread; distributed_knn_graph's halo pass re-ranks once per pair of cells (400
points in 40 cells: 1448 calls, 4.3 of 5.2 s).
"""

import numpy as np
import pytest

from graphrkhs.graphs import _search


def test_small_rerankings_run_on_one_thread_with_the_same_bits(monkeypatch):
    # the re-ranking's parallel loop cost 7.7 ms a call on 10 x 10 pairs (0.5 us on one thread): calls of
    # fewer than _PARALLEL_PAIR_WORK squared differences run the serial loop, which sums every entry in the
    # same order, so the distances are the same bits
    rng = np.random.default_rng(2)
    X = rng.normal(size=(300, 5)) * 10.0 ** rng.integers(-3, 4, size=(300, 1))
    rows = np.arange(300)
    cand = rng.integers(0, 300, size=(300, 20))
    expected = ((X[rows][:, None, :] - X[cand]) ** 2).sum(axis=2)         # the oracle, in NumPy
    parallel = np.empty(cand.shape)
    _search._pair_sq_sums(X, rows, cand, parallel)
    used = []
    monkeypatch.setattr(_search, "_pair_sq_sums", lambda *a: used.append("parallel") or pytest.fail("parallel"))
    small = _search._exact_rerank(X, rows, cand)                  # 300 * 20 * 5 = 30000 < 2**20 differences
    np.testing.assert_array_equal(small, parallel)
    np.testing.assert_allclose(small, expected, rtol=1e-14)
    assert not used


def test_large_rerankings_run_the_parallel_loop_with_the_same_bits(monkeypatch):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 5))
    rows = np.arange(300)
    cand = rng.integers(0, 300, size=(300, 800))                 # 300 * 800 * 5 = 1.2e6 >= 2**20 differences
    serial = np.empty(cand.shape)
    _search._pair_sq_sums_serial(X, rows, cand, serial)
    real, used = _search._pair_sq_sums, []
    monkeypatch.setattr(_search, "_pair_sq_sums", lambda *a: used.append(1) or real(*a))
    np.testing.assert_array_equal(_search._exact_rerank(X, rows, cand), serial)
    assert used == [1]
