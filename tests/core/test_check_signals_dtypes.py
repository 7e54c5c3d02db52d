"""Graph signals of boolean and complex dtype (``_core.validation.check_signals``).

A boolean signal is the indicator of a node set: filtering it must equal filtering its 0 / 1 values.  It was
refused as "not numeric".  A complex signal must be refused by check_signals itself (its callers refused it
before calling it; a direct call cast it with only numpy's ComplexWarning, the imaginary part lost).
"""

import numpy as np
import pytest

from graphrkhs._core.validation import check_signals
from graphrkhs.graphs import knn_graph, laplacian
from graphrkhs.kernels import GraphKernel
from graphrkhs.spectral import chebyshev_filter, filters


@pytest.fixture
def small_graph():
    X = np.random.default_rng(3).normal(size=(25, 2))
    return knn_graph(X, n_neighbors=4)


def test_boolean_signal_is_read_as_zero_one_values():
    mask = np.arange(7) % 3 == 0
    arr, was_1d = check_signals(mask, 7)
    assert was_1d and arr.dtype == np.float64
    np.testing.assert_array_equal(arr[:, 0], [1, 0, 0, 1, 0, 0, 1])


def test_complex_signal_is_refused_by_check_signals():
    with pytest.raises(TypeError, match=r"x must be a real numeric array; got complex dtype complex128.*x\.real"):
        check_signals(np.ones(4) + 1j, 4, name="x")


@pytest.mark.parametrize("method", ["exact", "lanczos", "chebyshev"])
def test_graph_kernel_filters_an_indicator_as_its_zero_one_values(small_graph, method):
    mask = np.arange(25) < 8
    K = GraphKernel(small_graph, filters.Heat(2.0), method=method, laplacian="normalized", input="adjacency")
    # the oracle: a dense eigendecomposition of the same normalized Laplacian
    lam, U = np.linalg.eigh(laplacian(small_graph, "normalized").toarray())
    expected = U @ (np.exp(-2.0 * lam) * (U.T @ mask.astype(float)))
    np.testing.assert_allclose(K @ mask, expected, atol=1e-6)


def test_chebyshev_filter_of_an_indicator_block(small_graph):
    L = laplacian(small_graph)
    masks = np.stack([np.arange(25) < 8, np.arange(25) % 2 == 1], axis=1)
    lam, U = np.linalg.eigh(L.toarray())
    expected = U @ (np.exp(-lam)[:, None] * (U.T @ masks.astype(float)))
    np.testing.assert_allclose(chebyshev_filter(L, filters.Heat(1.0), masks), expected, atol=1e-6)
