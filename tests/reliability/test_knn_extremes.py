"""Issue 13, finding 1: graph construction on points of extreme magnitude, and the index guards
in front of every compiled kernel.

The oracle is metamorphic: the kNN / epsilon relation of ``c X`` is that of ``X``, and the
weights that are scale-free by definition (Gaussian with the data-driven width, self-tuning,
binary) must be equal.  Before the fix, |x| >= 1e154 overflowed the squared distances (NaN
weights, self-loops, a -1 or n index handed to the numba assembly) and more than 16 features
with |x| >= 1e19 overflowed the float32 screening of the brute-force search.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs import epsilon_graph, knn_graph
from graphrkhs._core import reorder, spmm
from graphrkhs.graphs import _search

SCALES = [1e19, 1e154, 1e200, 1e300, 1e-300]


def _points(n, d, seed=0):
    return np.random.default_rng(seed).normal(size=(n, d))


def _assert_same_graph(W, W0, rtol=1e-10):
    assert W.shape == W0.shape
    assert np.isfinite(W.data).all()
    assert W.diagonal().max() == 0  # no self-loops
    assert (abs(W - W.T)).max() == 0
    A, A0 = W.tocoo(), W0.tocoo()
    edges = set(zip(A.row.tolist(), A.col.tolist()))
    edges0 = set(zip(A0.row.tolist(), A0.col.tolist()))
    assert edges == edges0
    np.testing.assert_allclose(W.toarray(), W0.toarray(), rtol=rtol, atol=0)


@pytest.mark.parametrize("d,algorithm", [(3, "kd_tree"), (20, "brute"), (20, "auto"), (3, "brute")])
@pytest.mark.parametrize("c", SCALES)
@pytest.mark.parametrize("weight", ["gaussian", "self-tuning", "binary"])
def test_knn_graph_scale_invariant_at_extreme_magnitudes(c, d, algorithm, weight):
    X = _points(60, d)
    W0 = knn_graph(X, 5, weight=weight, algorithm=algorithm)
    W = knn_graph(c * X, 5, weight=weight, algorithm=algorithm)
    _assert_same_graph(W, W0)


@pytest.mark.parametrize("d", [3, 20])
@pytest.mark.parametrize("c", [1e154, 1e300, 1e-300])
def test_epsilon_graph_scale_invariant_at_extreme_magnitudes(c, d):
    X = _points(60, d)
    radius = float(np.sqrt(d))  # a few neighbours per point
    for weight in ("gaussian", "self-tuning", "binary"):
        W0 = epsilon_graph(X, radius, weight=weight)
        W = epsilon_graph(c * X, radius * c, weight=weight)
        assert W0.nnz > 0
        _assert_same_graph(W, W0)


def test_knn_graph_near_float64_limit():
    # |x| ~ 1e307: even the differences x_i - x_j can overflow before rescaling.
    X = _points(40, 5)
    X /= np.abs(X).max()
    W0 = knn_graph(X, 4)
    W = knn_graph(X * 1.5e308, 4)
    _assert_same_graph(W, W0)


def test_knn_graph_float32_extremes():
    # float32 overflows its squares at |x| ~ 2e19.
    X = _points(50, 20).astype(np.float32)
    W0 = knn_graph(X, 5, algorithm="brute")
    W = knn_graph(X * np.float32(1e30), 5, algorithm="brute")
    assert W.dtype == np.float32
    _assert_same_graph(W.astype(np.float64), W0.astype(np.float64), rtol=1e-5)


def test_gaussian_weight_with_given_sigma_in_original_units():
    # sigma in the user's units: w = exp(-d^2 / (2 sigma^2)) with d the true distance.
    X = _points(30, 3)
    c = 1e200
    W = knn_graph(c * X, 4, sigma=0.7 * c)
    W0 = knn_graph(X, 4, sigma=0.7)
    _assert_same_graph(W, W0)


def test_nonfinite_points_are_rejected():
    X = _points(10, 3)
    X[3, 1] = np.inf
    with pytest.raises(ValueError, match="X contains NaN or infinity"):
        knn_graph(X, 3)
    with pytest.raises(ValueError, match="X contains NaN or infinity"):
        epsilon_graph(X, 1.0)
    X[3, 1] = np.nan
    with pytest.raises(ValueError, match="X contains NaN or infinity"):
        knn_graph(X, 3)


# ---------------------------------------------------------------------------
# index guards in front of the compiled kernels: a ValueError, never memory corruption
# ---------------------------------------------------------------------------

def test_symmetric_assembly_rejects_out_of_range_and_self_indices():
    idx = np.array([[1, 2], [0, 2], [0, 3]])  # 3 is out of range for n = 3
    w = np.ones(idx.shape)
    with pytest.raises(ValueError, match=r"outside the valid range \[0, 3\)"):
        _search.symmetric_from_lists(idx, w, "union")
    with pytest.raises(ValueError, match="outside the valid range"):
        _search.symmetric_from_lists(np.array([[1], [-1]]), np.ones((2, 1)), "union")
    with pytest.raises(ValueError, match="own neighbour"):
        _search.symmetric_from_lists(np.array([[0], [0]]), np.ones((2, 1)), "union")
    with pytest.raises(ValueError, match="finite"):
        _search.symmetric_from_lists(np.array([[1], [0]]), np.array([[np.nan], [1.0]]), "union")


def _corrupt_csr(n=50, bad=10**6):
    L = sp.random_array((n, n), density=0.1, format="csr", random_state=0)
    L.indices = L.indices.copy()
    L.indices[0] = bad
    return L


def test_spmm_rejects_out_of_range_column_index():
    L = _corrupt_csr()
    cur = np.ones((50, 2))
    out = np.empty((50, 2))
    with pytest.raises(ValueError, match=r"L.indices holds the index 1000000"):
        spmm.spmm(L, cur, out)
    with pytest.raises(ValueError, match="do not fit"):
        spmm.spmm(sp.csr_array(np.eye(50)), np.ones((40, 2)), out)


def test_spmm_checks_a_new_matrix_with_recycled_arrays():
    # The per-matrix cache must not vouch for a corrupted matrix built after a good one.
    good = sp.random_array((50, 50), density=0.1, format="csr", random_state=1)
    cur, out = np.ones((50, 1)), np.empty((50, 1))
    spmm.spmm(good, cur, out)
    np.testing.assert_allclose(out, good @ cur)
    with pytest.raises(ValueError, match="outside the valid range"):
        spmm.spmm(_corrupt_csr(bad=50), cur, out)


def test_gather_rows_and_permutation_reject_bad_indices():
    src = np.ones((10, 3))
    with pytest.raises(ValueError, match="rows holds the index 10"):
        spmm.gather_rows(src, np.array([0, 10]))
    L = sp.csr_array(np.eye(4) + np.eye(4, k=1) + np.eye(4, k=-1))
    with pytest.raises(ValueError, match="permutation"):
        reorder.permute_symmetric(L, np.array([0, 1, 1, 3]))
    with pytest.raises(ValueError, match="outside the valid range"):
        reorder.permute_symmetric(L, np.array([0, 1, 2, 4]))
    with pytest.raises(ValueError, match="outside the valid range"):
        reorder.PreparedOperator(_corrupt_csr(), np.float64)
