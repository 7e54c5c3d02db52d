"""The Dask workers are asked of the scheduler, with a wait when none is connected yet.

``Client.scheduler_info()`` may answer from a cache whose worker list is empty: a fit on a two-worker
LocalCluster under load failed with "the Dask client has no workers".
"""
from graphrkhs.distributed._workers import dask_workers


class _Client:
    """A client whose scheduler knows no worker until ``wait_for_workers`` (or never)."""

    def __init__(self, arrives):
        self.arrives, self.waited = arrives, []
        self.connected = {}

    def nthreads(self):
        return dict(self.connected)

    def wait_for_workers(self, n_workers, timeout=None):
        self.waited.append((n_workers, timeout))
        if not self.arrives:
            raise TimeoutError("no worker")
        self.connected = {"tcp://127.0.0.1:2": 1, "tcp://127.0.0.1:1": 1}


def test_workers_sorted_after_waiting_for_the_first():
    client = _Client(arrives=True)
    assert dask_workers(client, wait=5.0) == ["tcp://127.0.0.1:1", "tcp://127.0.0.1:2"]
    assert client.waited == [(1, 5.0)]


def test_no_worker_after_the_wait_is_an_empty_list():
    client = _Client(arrives=False)
    assert dask_workers(client, wait=0.1) == []


def test_connected_workers_need_no_wait():
    client = _Client(arrives=True)
    client.connected = {"b": 1, "a": 2}
    assert dask_workers(client) == ["a", "b"] and client.waited == []


def test_a_real_client_lists_its_workers(client):
    assert len(dask_workers(client)) == 2           # the module's LocalCluster of two workers (conftest)


# ---------------------------------------------------------------------------
# One client lookup for the operators and the kNN graph (the kNN graph had its own, whose missing-dask error
# was a bare ImportError and whose lookup differed from the operators')
# ---------------------------------------------------------------------------

import sys

import numpy as np
import pytest

from graphrkhs.distributed import get_dask_client
from graphrkhs.distributed._knn import distributed_knn_graph


def _no_active_client(monkeypatch):
    import distributed

    def get_client():
        raise ValueError("No global client found and no address provided")

    monkeypatch.setattr(distributed, "get_client", get_client)


def test_knn_graph_without_a_client_names_executor(monkeypatch):
    _no_active_client(monkeypatch)
    X = np.random.default_rng(0).normal(size=(30, 3))
    with pytest.raises(ValueError, match=r"executor='dask' needs an active distributed.Client"):
        distributed_knn_graph(X, 5, executor="dask")


def test_operators_without_a_client_name_backend(monkeypatch):
    _no_active_client(monkeypatch)
    with pytest.raises(ValueError, match=r"backend='dask' needs an active distributed.Client"):
        get_dask_client()


def test_knn_graph_without_dask_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)      # import distributed -> ImportError
    X = np.random.default_rng(0).normal(size=(30, 3))
    with pytest.raises(ImportError, match=r"executor='dask' needs dask.distributed: pip install 'graphrkhs\[dask\]'"):
        distributed_knn_graph(X, 5, executor="dask")


def test_a_passed_client_that_is_not_one_is_refused():
    with pytest.raises(TypeError, match="client must be a distributed.Client; got str"):
        get_dask_client("tcp://127.0.0.1:8786")
