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
