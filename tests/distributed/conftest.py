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
