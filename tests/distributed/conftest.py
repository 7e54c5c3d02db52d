"""Run these tests under plain pytest (one process) and under ``mpiexec -n P python -m pytest tests/distributed``.

Under mpiexec every rank runs the same session; the tests call collective
operations, so all ranks must run the same tests in the same order: the
items are sorted by node id (whatever order plugins such as pytest-randomly
chose), and every assertion is on values that are identical on all ranks
(gathered results), so that a failure fails on every rank instead of
leaving the others waiting.
"""

import pytest

from graphrkhs.distributed import world


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    if world().size > 1:
        items.sort(key=lambda item: item.nodeid)


@pytest.fixture
def comm():
    return world()


@pytest.fixture(scope="module")
def client():
    """A Dask client on a LocalCluster of two one-thread workers bound to 127.0.0.1 (one per test module)."""
    import distributed  # the test extra installs dask[distributed]; imported here, not on every MPI rank

    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, protocol="tcp",
                                       host="127.0.0.1", dashboard_address="127.0.0.1:0")
    cl = distributed.Client(cluster)
    yield cl
    cl.close()
    cluster.close()
