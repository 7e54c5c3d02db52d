"""The symmetry check of as_adjacency uses the precision the weights were given in, not only the requested dtype.

A float32 adjacency that differs from its transpose by float32 rounding (here a scaled kernel
(K a_i) a_j: one unit in the last place, 6e-8 of the largest weight) was accepted by ``laplacian(W)`` but
refused as "not symmetric" by ``laplacian(W, dtype=float64)`` / ``as_adjacency(W, dtype=float64)`` -- the
way every solver reads its graph -- because the tolerance was float64's 1e-10 although the documented
default is 1e-5 for float32 input.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs import as_adjacency, laplacian


def _float32_rounded_kernel():
    X = np.random.default_rng(0).normal(size=(30, 3)).astype(np.float32)
    K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1)).astype(np.float32)
    np.fill_diagonal(K, 0)
    a = (1 / np.sqrt(K.sum(1))).astype(np.float32)
    W = (K * a[:, None]) * a[None, :]
    gap = np.abs(W - W.T).max() / W.max()
    assert 0 < gap < 1e-6                      # asymmetric by float32 rounding only
    return W


@pytest.mark.parametrize("form", [np.asarray, sp.csr_array, sp.coo_matrix])
def test_float32_adjacency_read_in_float64(form):
    W = _float32_rounded_kernel()
    A = as_adjacency(form(W), dtype=np.float64)
    ref = (W.astype(np.float64) + W.T.astype(np.float64)) / 2       # the documented symmetrization
    assert A.dtype == np.float64
    np.testing.assert_allclose(A.toarray(), ref, rtol=1e-15, atol=0)
    for kind in ("combinatorial", "normalized", "randomwalk"):
        d = ref.sum(1)
        if kind == "combinatorial":
            dense = np.diag(d) - ref
        elif kind == "normalized":
            dense = np.eye(len(d)) - ref / np.sqrt(np.outer(d, d))
        else:
            dense = np.eye(len(d)) - ref / d[:, None]
        L = laplacian(form(W), kind, dtype=np.float64)
        assert L.dtype == np.float64
        np.testing.assert_allclose(L.toarray(), dense, rtol=1e-12, atol=1e-15)


def test_float16_adjacency_has_float16_tolerance():
    W = np.array([[0, 1], [1.001, 0]], dtype=np.float16)     # one float16 unit apart
    np.testing.assert_array_equal(as_adjacency(W).toarray(), [[0, 1.00048828125], [1.00048828125, 0]])


def test_float64_asymmetry_is_still_refused():
    W = np.array([[0, 1.0], [1.0 + 1e-8, 0]])
    with pytest.raises(ValueError, match="not symmetric"):
        as_adjacency(W, dtype=np.float64)
    with pytest.raises(ValueError, match="not symmetric"):
        as_adjacency(W.astype(np.float32) + np.array([[0, 0], [1e-3, 0]], np.float32), dtype=np.float64)
