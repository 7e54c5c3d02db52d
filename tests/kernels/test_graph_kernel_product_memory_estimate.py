"""GraphKernel's memory guard for Phi X must be an upper bound on the product's measured peak (tracemalloc)."""

import tracemalloc

import numpy as np
import pytest

import graphrkhs.kernels._graph as graph_module
from graphrkhs import GraphKernel, filters
from graphrkhs.graphs import knn_graph


@pytest.mark.parametrize("method, backend, kernel_dtype, x_dtype", [
    ("chebyshev", "scipy", np.float64, np.float64),
    ("chebyshev", "scipy", np.float32, np.float64),
    ("chebyshev", "numba", np.float64, np.float64),
    ("exact", "auto", np.float32, np.float32),
])
def test_guard_estimate_bounds_measured_peak(monkeypatch, method, backend, kernel_dtype, x_dtype):
    rng = np.random.default_rng(0)
    W = knn_graph(rng.normal(size=(300, 3)), 8).astype(kernel_dtype)
    K = GraphKernel(W, filters.Heat(1.0), method=method, backend=backend, reorder=method != "exact")
    X = rng.normal(size=(300, 20)).astype(x_dtype)
    K @ X   # warm-up (compiled kernels, caches)
    estimates = []
    original = graph_module.memory_guard
    monkeypatch.setattr(graph_module, "memory_guard", lambda n_bytes, *a, **k: (estimates.append(n_bytes),
                                                                                 original(n_bytes, *a, **k)))
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        K @ X
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(estimates) == 1
    assert estimates[0] >= peak, (estimates[0], peak)
