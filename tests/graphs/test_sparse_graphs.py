"""Graphs from sparse points (scipy.sparse X): the dense computation on X.toarray() is the oracle."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs import GraphSpec, epsilon_graph, knn_graph
from graphrkhs._core import validation
from graphrkhs.graphs import _search


def _sparse_points(n=150, d=60, density=0.1, seed=0, dtype=np.float64):
    """Sparse random points with a stored entry in every row (so that cosine is defined)."""
    X = sp.random(n, d, density=density, format="csr", random_state=seed, dtype=dtype)
    rng = np.random.default_rng(seed)
    one = sp.csr_array((rng.uniform(0.5, 1.0, n).astype(dtype), (np.arange(n), rng.integers(0, d, n))),
                       shape=(n, d))
    return sp.csr_array(X + one)


def _assert_same_graph(A, B, tol):
    """Same edge set exactly, weights within tol."""
    assert A.shape == B.shape
    assert np.array_equal((A != 0).toarray(), (B != 0).toarray())
    assert np.abs((A - B).toarray()).max() <= tol


@pytest.mark.parametrize("metric", ["euclidean", "cosine"])
@pytest.mark.parametrize("weight", ["binary", "gaussian", "self-tuning"])
@pytest.mark.parametrize("mode", ["union", "mutual", "average"])
def test_knn_graph_of_sparse_points_equals_dense(metric, weight, mode):
    X = _sparse_points()
    dense = knn_graph(X.toarray(), 6, weight=weight, metric=metric, mode=mode)
    sparse = knn_graph(X, 6, weight=weight, metric=metric, mode=mode)
    assert sparse.dtype == np.float64
    _assert_same_graph(dense, sparse, 1e-12)


@pytest.mark.parametrize("metric", ["euclidean", "cosine"])
def test_knn_graph_sparse_relative_width_and_sigma(metric):
    X = _sparse_points(seed=3)
    for kw in ({"weight": "self-tuning", "relative_width": 0.5}, {"weight": "gaussian", "sigma": 0.3}):
        _assert_same_graph(knn_graph(X.toarray(), 5, metric=metric, **kw), knn_graph(X, 5, metric=metric, **kw),
                           1e-12)


def _radius(X, metric, q=0.05):
    """The q-quantile of the pairwise distances (of the unit rows for cosine), by NumPy on dense rows."""
    D = X.toarray()
    if metric == "cosine":
        D = D / np.linalg.norm(D, axis=1, keepdims=True)
    d = np.sqrt(((D[:, None, :] - D[None, :, :]) ** 2).sum(axis=2))
    return float(np.quantile(d[np.triu_indices(D.shape[0], 1)], q))


@pytest.mark.parametrize("metric", ["euclidean", "cosine"])
@pytest.mark.parametrize("weight", ["binary", "gaussian", "self-tuning"])
def test_epsilon_graph_of_sparse_points_equals_dense(metric, weight):
    X = _sparse_points(seed=1)
    radius = _radius(X, metric)
    dense = epsilon_graph(X.toarray(), radius, weight=weight, metric=metric)
    sparse = epsilon_graph(X, radius, weight=weight, metric=metric)
    assert dense.nnz > 2 * X.shape[0]          # a graph with edges, not a vacuous comparison
    _assert_same_graph(dense, sparse, 1e-12)
    kw = {"relative_width": 0.5} if weight == "self-tuning" else {"sigma": 0.4}
    _assert_same_graph(epsilon_graph(X.toarray(), radius, weight=weight, metric=metric, **kw),
                       epsilon_graph(X, radius, weight=weight, metric=metric, **kw), 1e-12)


def test_sparse_float32_keeps_float32():
    X = _sparse_points(dtype=np.float32)
    for metric in ("euclidean", "cosine"):
        dense = knn_graph(X.toarray(), 5, metric=metric)
        sparse = knn_graph(X, 5, metric=metric)
        assert sparse.dtype == np.float32
        _assert_same_graph(dense, sparse, 1e-6)
        radius = _radius(X, metric)
        _assert_same_graph(epsilon_graph(X.toarray(), radius, metric=metric),
                           epsilon_graph(X, radius, metric=metric), 1e-6)
        assert epsilon_graph(X, radius, metric=metric).dtype == np.float32


@pytest.mark.parametrize("fmt", ["csc", "coo", "lil", "csr_matrix"])
def test_every_sparse_format_gives_the_csr_graph(fmt):
    X = _sparse_points(seed=2)
    other = sp.csr_matrix(X) if fmt == "csr_matrix" else X.asformat(fmt)
    _assert_same_graph(knn_graph(X, 5), knn_graph(other, 5), 0.0)
    _assert_same_graph(GraphSpec(n_neighbors=5, metric="cosine").build(other),
                       knn_graph(X.toarray(), 5, metric="cosine"), 1e-12)


def test_duplicate_coo_entries_are_summed_and_the_input_is_untouched():
    X = _sparse_points(n=60, d=30, seed=4).tocoo()
    # split every entry in two halves: the same matrix with duplicate (i, j) entries
    half = X.data / 2
    Xdup = sp.coo_array((np.r_[half, X.data - half], (np.r_[X.row, X.row], np.r_[X.col, X.col])), shape=X.shape)
    before = (Xdup.data.copy(), Xdup.row.copy(), Xdup.col.copy())
    _assert_same_graph(knn_graph(Xdup, 4, metric="cosine"), knn_graph(X.toarray(), 4, metric="cosine"), 1e-12)
    assert all(np.array_equal(a, b) for a, b in zip(before, (Xdup.data, Xdup.row, Xdup.col)))


def test_certificate_fallback_rows_are_exact():
    # extra=0 leaves no margin: every row's certificate fails and is searched again over all points
    X = _sparse_points(n=120, d=50, seed=5)
    Xs, _ = _search._sparse_rescaled(X)
    dist, idx = _search.sparse_brute_search(Xs, 7, extra=0)
    D = X.toarray()
    d2 = ((D[:, None, :] - D[None, :, :]) ** 2).sum(axis=2)
    np.fill_diagonal(d2, np.inf)
    order = np.argsort(d2, axis=1)[:, :7]
    assert np.array_equal(idx, order)
    np.testing.assert_allclose(dist * 2.0 ** _search.power_of_two_exponent(X.data),
                               np.sqrt(np.take_along_axis(d2, order, axis=1)), rtol=1e-13)


def test_more_duplicates_than_neighbours_gives_the_dense_distances():
    X = _sparse_points(n=100, d=40, seed=6)
    X = sp.csr_array(sp.vstack([X, sp.csr_array(np.repeat(X[[3]].toarray(), 20, axis=0))]))
    Xs, _ = _search._sparse_rescaled(X)
    dist, idx = _search.sparse_brute_search(Xs, 5)
    ref, _ = _search.knn_search(np.ldexp(X.toarray(), -_search.power_of_two_exponent(X.data)), 5, "brute", None)
    np.testing.assert_allclose(dist, ref, rtol=0, atol=1e-14)
    assert not (idx == np.arange(X.shape[0])[:, None]).any()


@pytest.mark.parametrize("explicit_zero", [False, True])
def test_cosine_zero_row_is_refused_as_for_dense_points(explicit_zero):
    X = sp.lil_array(_sparse_points(n=40, d=20, seed=7))
    X[[5, 9], :] = 0
    X = sp.csr_array(X)
    if explicit_zero:   # a row of stored zeros has no direction either
        X = sp.csr_array(sp.vstack([X, sp.csr_array((np.zeros(2), ([0, 0], [1, 3])), shape=(1, 20))]))
    with pytest.raises(ValueError) as dense:
        knn_graph(X.toarray(), 3, metric="cosine")
    with pytest.raises(ValueError) as sparse:
        knn_graph(X, 3, metric="cosine")
    assert str(sparse.value) == str(dense.value)
    assert "rows [5, 9" in str(sparse.value)
    with pytest.raises(ValueError, match=r"rows \[5, 9"):
        epsilon_graph(X, 0.5, metric="cosine")
    # the Euclidean graph takes a zero row (the origin; one, so that no distances tie)
    X = sp.lil_array(_sparse_points(n=40, d=20, seed=7))
    X[5, :] = 0
    _assert_same_graph(knn_graph(X.toarray(), 3), knn_graph(X, 3), 1e-12)


def test_sparse_search_options():
    X = _sparse_points(n=80, d=30, seed=8)
    with pytest.raises(ValueError, match="algorithm='kd_tree' needs dense points; X is sparse"):
        knn_graph(X, 4, algorithm="kd_tree")
    with pytest.raises(ValueError, match="algorithm='kd_tree' needs dense points; X is sparse"):
        epsilon_graph(X, 1.0, algorithm="kd_tree")
    for algorithm in ("pynndescent", "hnswlib"):
        with pytest.warns(RuntimeWarning, match="takes dense points only; X is sparse"):
            W, info = knn_graph(X, 4, algorithm=algorithm, return_info=True)
        assert info["fallback"] and info["exact"] and info["algorithm"] == "brute"
        _assert_same_graph(W, knn_graph(X.toarray(), 4), 1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, info = knn_graph(X, 4, return_info=True)
    assert info["algorithm"] == "brute" and not info["fallback"] and info["sparse"]
    for backend in ("mpi", "dask"):
        with pytest.raises(TypeError, match=f"backend='{backend}' takes dense points; X is sparse"):
            knn_graph(X, 4, backend=backend)


def test_sparse_input_errors():
    X = _sparse_points(n=30, d=10, seed=9)
    bad = X.copy()
    bad.data[3] = np.nan
    with pytest.raises(ValueError, match="X contains NaN or infinity"):
        knn_graph(bad, 3)
    with pytest.raises(ValueError, match="X contains NaN or infinity"):
        epsilon_graph(bad, 1.0)
    with pytest.raises(ValueError, match="n_neighbors must be < n_samples = 30; got 30: pass n_neighbors=29 or fewer"):
        knn_graph(X, 30)
    with pytest.raises(TypeError, match="X must be real"):
        knn_graph(X.astype(np.complex128), 3)
    with pytest.raises(ValueError, match="at least 2 sample"):
        knn_graph(X[:1], 1)


def test_sparse_memory_guards_fail_before_the_search(monkeypatch):
    X = _sparse_points(n=300, d=40, seed=10)
    monkeypatch.setattr(validation, "_physical_memory", lambda: 2**20)      # 1 MiB "machine"
    with pytest.raises(MemoryError, match="the neighbour lists would need"):
        knn_graph(X, 10)
    with pytest.raises(MemoryError, match="pairs within the radius"):
        epsilon_graph(X, 100.0)


def test_dense_only_functions_name_the_fix():
    from graphrkhs.kernels import gaussian_kernel

    X = _sparse_points(n=20, d=5, seed=11)
    with pytest.raises(TypeError, match=r"A must be a dense 2-D array of points; got a scipy.sparse matrix.*"
                                        r"knn_graph, epsilon_graph.*pass A.toarray\(\)"):
        gaussian_kernel(X, sigma=1.0)


def test_sparse_points_are_never_densified(monkeypatch):
    X = _sparse_points(n=90, d=70, seed=12)
    radius = {m: _radius(X, m) for m in ("euclidean", "cosine")}
    expected = {m: (knn_graph(X.toarray(), 5, metric=m), epsilon_graph(X.toarray(), radius[m], metric=m))
                for m in radius}
    original = {cls: cls.toarray for cls in (sp.csr_array, sp.csr_matrix)}

    def guarded(cls):
        def toarray(self, *args, **kwargs):
            # a block of rows against all points is (rows, n); X itself (or its rows) is (., d)
            assert self.shape[1] != X.shape[1], "a sparse X was densified"
            return original[cls](self, *args, **kwargs)
        return toarray

    for cls in original:
        monkeypatch.setattr(cls, "toarray", guarded(cls))
    for m, (knn, eps) in expected.items():
        _assert_same_graph(knn, knn_graph(X, 5, metric=m), 1e-12)
        assert eps.nnz > X.shape[0]
        _assert_same_graph(eps, epsilon_graph(X, radius[m], metric=m), 1e-12)
    with pytest.raises(AssertionError, match="densified"):     # the guard does see a densification
        X.toarray()
