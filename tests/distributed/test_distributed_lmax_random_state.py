"""distributed_lmax checks random_state as graphrkhs.lmax does (a ValueError / TypeError naming it).

-1, 1.5 and "a" failed inside numpy's seeding ("expected non-negative integer", "SeedSequence expects int or
sequence of ints for entropy not 1.5") without naming the argument, and True seeded the start vector as 1, where
graphrkhs.lmax refuses all four.  Runs serially and under mpiexec (every rank raises alike).
"""
import numpy as np
import pytest
import scipy.sparse as sp

import graphrkhs as gr
from graphrkhs.distributed import DistributedCSR, distributed_lmax


def _operator():
    n = 12
    W = sp.diags([np.ones(n - 1), np.ones(n - 1)], [-1, 1])      # a path
    return gr.laplacian(W), DistributedCSR.from_global(gr.laplacian(W))


@pytest.mark.parametrize("bad, exc", [(-1, ValueError), (1.5, TypeError), ("a", TypeError), (True, TypeError)])
def test_bad_random_state_named(bad, exc):
    L, D = _operator()
    with pytest.raises(exc, match="random_state"):
        gr.lmax(L, random_state=bad)
    with pytest.raises(exc, match="random_state"):
        distributed_lmax(D, random_state=bad)


def test_valid_random_states_still_bound_the_spectrum():
    L, D = _operator()
    top = np.linalg.eigvalsh(L.toarray()).max()
    for rs in (0, 7, None, np.random.default_rng(3), np.random.RandomState(1)):
        bound = distributed_lmax(D, random_state=rs)
        assert top <= bound <= 1.01 * top + 1e-12
