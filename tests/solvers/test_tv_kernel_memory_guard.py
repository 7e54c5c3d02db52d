"""graph_kernel_tv estimates its dense memory first (the n x l kernel columns and the l x |T| / |T| x |T| lasso
systems of the working set: 13 n^2 float64 measured at l = n = 700, 49 MiB; 195 MiB at n = 1400) and raises a
MemoryError naming the way out, as the library's other dense paths do; it had no guard. The limit is lowered with
validation._physical_memory so that a small problem stands for a large one."""

import numpy as np
import pytest

from graphrkhs import GraphKernel, filters, graph_kernel_tv
from graphrkhs._core import validation


n = 150
W = np.diag(np.ones(n - 1), 1)
W = W + W.T
labels = np.arange(n)
Y = (labels > n // 2).astype(float)
# built before the limit is lowered: the Chebyshev plan has its own guard (degree up to max_order), not tested here
K = GraphKernel(W, filters.default_kernel())


def test_all_labeled_refused_under_small_limit(monkeypatch):
    # limit 0.75 MiB; estimate 8 (n l + 3 l^2 + 8 l^2) = 12 * 8 * 150^2 bytes = 2.1 MiB
    monkeypatch.setattr(validation, "_physical_memory", lambda: 2**20)
    with pytest.raises(MemoryError, match=r"graph_kernel_tv with 150 labeled nodes .* use fewer labeled nodes, "
                                          r"or graph_tv"):
        graph_kernel_tv(K, labels, Y)


def test_few_labels_fit_under_the_same_limit(monkeypatch):
    monkeypatch.setattr(validation, "_physical_memory", lambda: 2**20)
    F = graph_kernel_tv(K, [0, n - 1], np.array([0.0, 1.0]), alpha=0.1)
    assert np.abs(F[[0, n - 1]] - [0.0, 1.0]).max() <= 0.1 / 2 + 1e-9     # |f_j - y_j| <= mu / 2 (docstring)
