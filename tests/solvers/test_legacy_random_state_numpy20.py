"""A legacy numpy.random.RandomState is a valid random_state under the declared minimum numpy 2.0.

numpy's ``default_rng`` accepts a RandomState only in releases after 2.0; code that passed a user's random_state
straight to it failed there with "SeedSequence expects int or sequence of ints for entropy not RandomState"
(select_laprls_lowrank's landmark seed; distributed_lmax, found by the minimum-versions CI run and guarded by
tests/distributed/test_distributed_lmax_random_state.py).  The library's
check_random_state draws a seed from a RandomState instead.  This test makes default_rng refuse a RandomState, as
numpy 2.0 does, so that it holds under any numpy.
"""
import numpy as np
import pytest

import graphrkhs as g


@pytest.fixture
def numpy20_default_rng(monkeypatch):
    original = np.random.default_rng

    def default_rng(seed=None):
        if isinstance(seed, np.random.RandomState):
            raise TypeError("SeedSequence expects int or sequence of ints for entropy not RandomState(MT19937)")
        return original(seed)

    monkeypatch.setattr(np.random, "default_rng", default_rng)


def test_select_laprls_lowrank_takes_a_random_state(numpy20_default_rng):
    rng = np.random.RandomState(0)
    X = rng.normal(size=(60, 2))
    S = np.arange(0, 60, 3)
    y = np.sin(X[S, 0])
    M = g.laplacian(g.knn_graph(X, 5))
    res = g.select_laprls_lowrank(X, S, y, M, [0.5, 1.0], n_components=20, random_state=np.random.RandomState(1))
    assert np.isfinite(res.best_score)

