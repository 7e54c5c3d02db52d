"""chebyshev_filter's memory guard must be an upper bound on the call's measured peak (tracemalloc)."""

import tracemalloc

import numpy as np
import pytest

import graphrkhs.spectral._chebyshev as cheb
from graphrkhs import chebyshev_filter, filters, laplacian
from graphrkhs.graphs import knn_graph


@pytest.mark.parametrize("n_filters, backend, l_dtype, x_dtype", [
    (1, "scipy", np.float64, np.float64),
    (1, "numba", np.float32, np.float32),
    (3, "scipy", np.float32, np.float64),
    (3, "numba", np.float64, np.float64),
])
def test_guard_estimate_bounds_measured_peak(monkeypatch, n_filters, backend, l_dtype, x_dtype):
    rng = np.random.default_rng(0)
    n, m = 1500, 20
    L = laplacian(knn_graph(rng.normal(size=(n, 3)), 8)).astype(l_dtype)
    X = rng.normal(size=(n, m)).astype(x_dtype)
    phi = [filters.Heat(0.5 + f) for f in range(n_filters)] if n_filters > 1 else filters.Heat(1.0)
    kw = dict(order=20, max_order=20, tol=1.0, lmax=2.0 * float(L.diagonal().max()), backend=backend, reorder=True)
    chebyshev_filter(L, phi, X, **kw)    # warm-up (compiled kernels)
    estimates = []
    original = cheb.memory_guard
    monkeypatch.setattr(cheb, "memory_guard", lambda n_bytes, *a, **k: (estimates.append(n_bytes),
                                                                        original(n_bytes, *a, **k)))
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        chebyshev_filter(L, phi, X, **kw)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # before: (F + 2) n m blocks and no error grid for a given order -- 2.2x below the peak for one response
    assert estimates and max(estimates) >= peak, (estimates, peak)


def test_given_order_is_not_charged_the_warning_search(monkeypatch):
    # A given order is estimated with its own error grid; the degree search up to max_order (94 MiB at the
    # default 1000) runs only for the accuracy warning of an order above tol, and is guarded there: on a machine
    # of 8 MiB the filter is computed (the plain call's result) and the warning says the search does not fit.
    from graphrkhs import AccuracyWarning
    from graphrkhs._core import validation

    rng = np.random.default_rng(3)
    n = 200
    L = laplacian(knn_graph(rng.normal(size=(n, 2)), 6))
    X = rng.normal(size=(n, 2))
    kw = dict(order=6, lmax=2.0 * float(L.diagonal().max()))
    expected = chebyshev_filter(L, filters.Heat(1.0), X, tol=1.0, **kw)      # order 6 meets tol = 1
    monkeypatch.setattr(validation, "_physical_memory", lambda: 8 * 2**20)
    np.testing.assert_array_equal(chebyshev_filter(L, filters.Heat(1.0), X, tol=1.0, **kw), expected)
    with pytest.warns(AccuracyWarning, match="would not fit in memory: lower max_order"):
        got = chebyshev_filter(L, filters.Heat(1.0), X, tol=1e-12, **kw)
    np.testing.assert_array_equal(got, expected)
