"""Cell-wise kNN construction (graphrkhs.distributed._knn) against the exact knn_graph.

The oracle is graphrkhs.knn_graph with an exact search (kd-tree in 3-D, certified brute force
above 16 dimensions): with the complete halo pass the cell-wise lists are the exact lists, so the
graph must have the same edges and weights.  Under ``mpiexec -n 2`` the MPI tests run on two ranks
(each rank its cells); in a plain run on one.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs import knn_graph
from graphrkhs.distributed._knn import KNNCells, distributed_knn_graph, edge_recall, fit_cells


def _same_graph(W, W0, rtol=1e-12):
    W, W0 = sp.csr_array(W), sp.csr_array(W0)
    assert W.shape == W0.shape
    # identical edge sets, weights equal to rounding
    P, P0 = (W != 0).astype(np.int8), (W0 != 0).astype(np.int8)
    assert (P != P0).nnz == 0
    assert abs(W - W0).max() <= rtol * max(abs(W0).max(), 1e-300)


@pytest.fixture(scope="module")
def cloud3():
    return np.random.default_rng(0).normal(size=(800, 3))


@pytest.mark.parametrize("partitioner", ["kmeans", "rcb"])
@pytest.mark.parametrize("n_cells", [1, 4, 7])
def test_exact_halo_gives_knn_graph(cloud3, partitioner, n_cells):
    W0 = knn_graph(cloud3, 8)
    W, cells, info = distributed_knn_graph(cloud3, 8, n_cells=n_cells, partitioner=partitioner,
                                           random_state=3, return_info=True, recall_sample=200)
    _same_graph(W, W0)
    assert edge_recall(W, W0) == 1.0
    assert info["recall"] == 1.0 and info["exact"]
    # the cells cover every point exactly once
    assert cells.shape == (cloud3.shape[0],) and cells.dtype == np.int64
    assert cells.min() >= 0 and cells.max() < n_cells
    assert np.bincount(cells, minlength=n_cells).sum() == cloud3.shape[0]
    assert info["cell_sizes"].tolist() == np.bincount(cells, minlength=n_cells).tolist()
    if n_cells > 1:
        assert info["visits_per_point"] > 0   # some points do cross a boundary


@pytest.mark.parametrize("weight,mode", [("self-tuning", "mutual"), ("binary", "average"),
                                         ("gaussian", "union")])
def test_weights_and_modes_follow_knn_graph(cloud3, weight, mode):
    W0 = knn_graph(cloud3, 6, weight=weight, mode=mode, sigma=0.3 if weight == "gaussian" else None)
    W, _ = distributed_knn_graph(cloud3, 6, n_cells=5, partitioner="rcb", weight=weight, mode=mode,
                                 sigma=0.3 if weight == "gaussian" else None, random_state=0)
    _same_graph(W, W0)


def test_relative_width_follows_knn_graph(cloud3):
    # self-tuning weights with relative width 1/2: the same graph cell by cell and in one piece
    W0 = knn_graph(cloud3, 6, weight="self-tuning", relative_width=0.5)
    W, _ = distributed_knn_graph(cloud3, 6, n_cells=5, partitioner="rcb", weight="self-tuning",
                                 relative_width=0.5, random_state=0)
    _same_graph(W, W0)


@pytest.mark.parametrize("partitioner", ["kmeans", "rcb"])
def test_high_dimension_and_scale(partitioner):
    # 20 dimensions: the brute-force halo queries; the data scaled far from 1 (power-of-two search units)
    X = np.random.default_rng(1).normal(size=(400, 20)) @ np.diag(np.linspace(0.2, 3, 20))
    X[:200] += 6.0   # two clusters: k-means cells separate them
    for c in (1e150,):
        W0 = knn_graph(c * X, 7)
        W, _ = distributed_knn_graph(c * X, 7, n_cells=4, partitioner=partitioner, random_state=2)
        _same_graph(W, W0, rtol=1e-10)


def test_empty_cells_rcb():
    # A 3-point sample cannot populate 8 boxes: the cells the bisection could not split are empty.
    X = np.random.default_rng(2).uniform(size=(400, 2))
    W, cells, info = distributed_knn_graph(X, 5, n_cells=8, partitioner="rcb", sample_size=3,
                                           random_state=0, return_info=True)
    sizes = np.bincount(cells, minlength=8)
    assert (sizes == 0).any() and sizes.sum() == 400 and info["n_cells"] == 8
    _same_graph(W, knn_graph(X, 5))


def test_duplicate_centres_kmeans(monkeypatch):
    # k-means on a sample with fewer distinct points than cells repeats centres: a repeated centre
    # gets no points (empty cell) and has no bisector with its twin (bound 0, always visited).
    import graphrkhs.distributed._knn as mod

    X = np.random.default_rng(3).normal(size=(300, 2))
    centres = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 0.0], [-1.0, 1.0]])
    monkeypatch.setattr(mod, "_kmeans_cells", lambda S, n_cells, seed: centres)
    W, cells = distributed_knn_graph(X, 6, n_cells=4, partitioner="kmeans", random_state=0)
    sizes = np.bincount(cells, minlength=4)
    assert sizes[2] == 0 and sizes.sum() == 300
    _same_graph(W, knn_graph(X, 6))
    kc, _ = fit_cells(X, 4, "kmeans", random_state=0)
    assert np.all(kc.bounds(X[:5], 1)[:, 2] == 0)


def test_cells_smaller_than_k():
    # 7 cells of ~9 points for k = 12: own-cell lists are incomplete, the halo pass fills them
    X = np.random.default_rng(4).normal(size=(60, 3))
    W, cells = distributed_knn_graph(X, 12, n_cells=7, partitioner="kmeans", random_state=0)
    assert np.bincount(cells).max() <= 12
    _same_graph(W, knn_graph(X, 12))


def test_no_halo_is_the_union_of_cell_graphs(cloud3):
    # halo=0: each point keeps its own cell's k nearest; with binary weights the graph is the union
    # of the cells' own kNN graphs (knn_graph on each cell), mapped to the global numbering.
    W, cells = distributed_knn_graph(cloud3, 5, n_cells=4, partitioner="rcb", halo=0, weight="binary",
                                     random_state=0)
    n = cloud3.shape[0]
    expected = sp.lil_array((n, n))
    for c in range(4):
        mem = np.flatnonzero(cells == c)
        Wc = knn_graph(cloud3[mem], 5, weight="binary").tocoo()
        expected[mem[Wc.row], mem[Wc.col]] = 1.0
    _same_graph(W, expected.tocsr())
    W0 = knn_graph(cloud3, 5, weight="binary")
    r = edge_recall(W, W0)
    common = (W.multiply(W0) != 0).sum()
    assert r == common / W0.nnz and r < 1.0
    # a partial halo (the nearest candidate cell only) lies in between
    W1, _ = distributed_knn_graph(cloud3, 5, n_cells=4, partitioner="rcb", halo=1, weight="binary",
                                  random_state=0)
    assert r <= edge_recall(W1, W0) <= 1.0


def test_edge_recall_small():
    W0 = sp.csr_array(np.array([[0, 1, 1], [1, 0, 0], [1, 0, 0.0]]))
    W = sp.csr_array(np.array([[0, 2, 0], [2, 0, 1], [0, 1, 0.0]]))
    assert edge_recall(W, W0) == 0.5
    assert W0[0, 1] == 1 and W[0, 1] == 2   # inputs untouched
    assert edge_recall(W, sp.csr_array((3, 3))) == 1.0


def test_rcb_cells_and_bounds():
    X = np.random.default_rng(5).uniform(size=(1000, 2))
    cells, labels = fit_cells(X, 4, "rcb", random_state=0)
    assert isinstance(cells, KNNCells) and np.bincount(labels).tolist() == [250] * 4
    # every point lies in its box, and the box bound is the exact distance to the other boxes
    assert np.all((X >= cells.lower[labels]) & (X <= cells.upper[labels]))
    q = X[labels == 0][:50]
    b = cells.bounds(q, 0)
    gap = np.maximum(np.maximum(cells.lower[None] - q[:, None], 0), q[:, None] - cells.upper[None])
    np.testing.assert_allclose(b, np.sqrt((np.maximum(gap, 0) ** 2).sum(-1)) * np.r_[0, 1, 1, 1], rtol=1e-11)


def test_kmeans_bound_is_a_lower_bound():
    X = np.random.default_rng(6).normal(size=(2000, 5))
    cells, labels = fit_cells(X, 6, "kmeans", random_state=0)
    for a in range(6):  # the bound never exceeds the distance to any point of the other cell
        q = X[labels == a][:40]
        b = cells.bounds(q, a)
        for c in range(6):
            if c == a:
                continue
            d = np.sqrt(((q[:, None] - X[labels == c][None]) ** 2).sum(-1)).min(axis=1)
            assert np.all(b[:, c] <= d)


def test_mpi_executor_matches_serial(cloud3):
    from mpi4py import MPI   # the test extra installs mpi4py (no skip hides its absence)
    comm = MPI.COMM_WORLD
    W, cells = distributed_knn_graph(cloud3, 8, n_cells=max(3, comm.Get_size()), executor="mpi",
                                     partitioner="kmeans", random_state=0)
    _same_graph(W, knn_graph(cloud3, 8))
    Ws, cells_s = distributed_knn_graph(cloud3, 8, n_cells=max(3, comm.Get_size()), partitioner="kmeans",
                                        random_state=0)
    assert np.array_equal(cells, cells_s)


@pytest.mark.parametrize("kwargs,error,match", [
    ({"n_neighbors": 800}, ValueError, "n_neighbors"),
    ({"partitioner": "metis"}, ValueError, "partitioner"),
    ({"halo": "all"}, ValueError, "halo"),
    ({"halo": -1}, ValueError, "halo"),
    ({"n_cells": 0}, ValueError, "n_cells"),
    ({"executor": 3}, TypeError, "executor"),
    ({"executor": "spark"}, ValueError, "executor"),
    ({"return_info": "yes"}, TypeError, "return_info"),
])
def test_bad_input(cloud3, kwargs, error, match):
    args = {"n_neighbors": 5, **kwargs}
    with pytest.raises(error, match=match):
        distributed_knn_graph(cloud3, **args)


def test_knn_graph_backend_mpi_is_the_exact_graph(cloud3):
    # the public entry point: knn_graph(backend="mpi") builds cell by cell (every rank its cells) and
    # returns the exact search's graph on every rank, with the cells as a node partition
    W, info = knn_graph(cloud3, 8, backend="mpi", return_info=True)
    _same_graph(W, knn_graph(cloud3, 8, algorithm="kd_tree"))
    cells = np.asarray(info["cells"])
    assert cells.shape == (cloud3.shape[0],) and info["exact"] and info["requested"] == "auto"
    # the keys of every in-process path too (only the cell-wise search's own before)
    from graphrkhs.graphs._search import INFO_KEYS
    assert set(INFO_KEYS) <= set(info) and info["algorithm"] == "cells (mpi)"
    assert info["recall"] == 1.0 and info["fallback"] is False and info["recall_sample"] == 0
    assert np.bincount(cells).sum() == cloud3.shape[0]
    _same_graph(knn_graph(cloud3, 8, backend="mpi"), W, rtol=0)


def test_knn_graph_backend_bad_input(cloud3):
    with pytest.raises(ValueError, match="algorithm='pynndescent'"):
        knn_graph(cloud3, 8, backend="mpi", algorithm="pynndescent")
    with pytest.raises(ValueError, match="backend"):
        knn_graph(cloud3, 8, backend="spark")


def test_mpi_a_failure_in_one_ranks_cells_or_in_the_fit_raises_on_every_rank(cloud3, monkeypatch):
    # each rank searches its cells, then the lists are all-gathered; the cells are fitted on rank 0 and
    # broadcast: a failure on one rank only left the others waiting in the collective forever
    from mpi4py import MPI
    import graphrkhs.distributed._knn as knn_module

    rank, size = MPI.COMM_WORLD.Get_rank(), MPI.COMM_WORLD.Get_size()
    phase1 = knn_module.cell_phase1

    def failing_on_the_last_rank(*args, **kwargs):
        if rank == size - 1:
            raise MemoryError("no memory for this cell")
        return phase1(*args, **kwargs)

    monkeypatch.setattr(knn_module, "cell_phase1", failing_on_the_last_rank)
    with pytest.raises(MemoryError, match="no memory for this cell"):
        distributed_knn_graph(cloud3, 5, n_cells=2 * size, executor="mpi", random_state=0)
    monkeypatch.setattr(knn_module, "cell_phase1", phase1)

    def failing_fit(*args, **kwargs):
        raise RuntimeError("k-means failed")

    monkeypatch.setattr(knn_module, "fit_cells", failing_fit)
    with pytest.raises(RuntimeError, match="k-means failed"):
        distributed_knn_graph(cloud3, 5, executor="mpi", random_state=0)


@pytest.mark.parametrize("executor", ["serial", "mpi"])
def test_tiny_sigma_warns_as_knn_graph_once_at_the_callers_line(executor):
    # knn_graph's GraphWarning for a sigma that underflows every edge of a node pointed at the user's line;
    # distributed_knn_graph's (the same text, through graph_from_neighbors) pointed at
    # graphrkhs/distributed/_knn.py, a line of library code.  On MPI every rank warns once.
    import warnings

    from graphrkhs import GraphWarning

    X = np.random.default_rng(1).normal(size=(60, 2))
    with warnings.catch_warnings(record=True) as serial:
        warnings.simplefilter("always")
        knn_graph(X, 5, sigma=1e-3)
    with warnings.catch_warnings(record=True) as dist:
        warnings.simplefilter("always")
        W, _ = distributed_knn_graph(X, 5, sigma=1e-3, n_cells=3, executor=executor, random_state=0)
    assert [(w.category, str(w.message)) for w in dist] == [(GraphWarning, str(serial[0].message))]
    assert "of 60 nodes lost every edge" in str(dist[0].message) and "sigma = 0.001" in str(dist[0].message)
    assert dist[0].filename == __file__


@pytest.mark.parametrize("executor", ["serial", "mpi"])
def test_memory_of_the_whole_lists_is_checked_before_the_search(monkeypatch, executor):
    # 2000 points, k = 10, 20 cells: each cell's search fits in a 3 MiB "machine", the whole lists and graph
    # (about 4.6 MB by knn_graph's estimate) do not; the search ran to the end unchecked
    import graphrkhs.distributed._knn as knn_module
    from graphrkhs._core import validation

    X = np.random.default_rng(5).normal(size=(2000, 3))
    monkeypatch.setattr(validation, "_physical_memory", lambda: 3 * 2**20)
    monkeypatch.setattr(knn_module, "fit_cells", lambda *a, **kw: pytest.fail("the search started"))
    with pytest.raises(MemoryError, match="the neighbour lists of 2000 points .10 neighbours each. and their graph"):
        distributed_knn_graph(X, 10, n_cells=20, executor=executor, random_state=0)
    with pytest.raises(MemoryError, match="the neighbour lists"):
        knn_graph(X, 10)    # the serial estimate refuses the same request


def test_duplicated_points_give_no_foreign_warning():
    # 3 distinct points, 10 copies each, in 5 k-means cells: scikit-learn's ConvergenceWarning ("Number of
    # distinct clusters (3) found smaller than n_clusters (5)") reached the caller, pointing at sklearn/base.py
    import warnings

    X = np.repeat(np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]]), 10, axis=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        W, cells = distributed_knn_graph(X, 4, n_cells=5, partitioner="kmeans", weight="binary", random_state=0)
    # each point's 4 neighbours: the 4 lowest-indexed other copies of it (distance 0; copies go by index)
    A = np.zeros((30, 30))
    for i in range(30):
        copies = [j for j in range(10 * (i // 10), 10 * (i // 10) + 10) if j != i]
        A[i, copies[:4]] = 1.0
    np.testing.assert_array_equal(W.toarray(), np.maximum(A, A.T))


@pytest.mark.parametrize("args, kwargs, error, match", [
    # partitioner="foo" fitted RCB boxes without a word
    ((4,), {"partitioner": "foo"}, ValueError, "partitioner must be one of 'kmeans', 'rcb'; got 'foo'"),
    # n_cells <= 0 failed in scikit-learn's KMeans ("n_clusters") or in numpy ("negative dimensions")
    ((0,), {}, ValueError, "n_cells must be >= 1; got 0"),
    ((-2,), {"partitioner": "rcb"}, ValueError, "n_cells must be >= 1; got -2"),
    ((2.5,), {"partitioner": "rcb"}, TypeError, "n_cells must be an int; got 2.5"),
    ((3,), {"sample_size": 0}, ValueError, "sample_size must be >= 1; got 0"),
])
def test_fit_cells_checks_its_arguments(args, kwargs, error, match):
    X = np.random.default_rng(0).normal(size=(50, 2))
    with pytest.raises(error, match=match):
        fit_cells(X, *args, **kwargs)


@pytest.mark.parametrize("X, error, match", [
    ([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0]], None, None),                          # a list: AttributeError 'shape'
    (np.arange(6.0), ValueError, "X must be 2-D"),                                # 1-D: "not enough values to unpack"
    (np.full((5, 2), np.nan), ValueError, "X contains NaN or infinity"),          # NaN: scikit-learn's KMeans message,
    (np.array([[0.0, np.inf], [1.0, 2.0], [3.0, 4.0]]), ValueError, "X contains NaN or infinity"),  # RCB: no error
])
def test_fit_cells_checks_the_points(X, error, match):
    if error is None:
        cells, labels = fit_cells(X, 2, "rcb", random_state=0)
        assert labels.tolist() == fit_cells(np.asarray(X), 2, "rcb", random_state=0)[1].tolist()
        return
    for partitioner in ("kmeans", "rcb"):
        with pytest.raises(error, match=match):
            fit_cells(X, 2, partitioner, random_state=0)
