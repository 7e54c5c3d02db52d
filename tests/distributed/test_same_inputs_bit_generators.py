"""A bare NumPy BitGenerator (np.random.PCG64(7)) is compared across ranks by its state, not its repr.

Its repr is "<numpy.random._pcg64.PCG64 object at 0x7F...>", its address: ``knn_graph(X, 5, backend="mpi",
random_state=np.random.PCG64(7))`` on every rank raised "the inputs differ between MPI ranks ... seed your
random draws" (the addresses differ), hiding the real refusal (knn_graph takes None, an int or a Generator),
and two different generators at one address would have passed as equal.  The fingerprint tests run in one
process; the MPI test under plain pytest (one rank) and ``mpiexec -n 2``.
"""

import numpy as np
import pytest

import graphrkhs as gr
from graphrkhs.distributed._comm import input_fingerprint


@pytest.mark.parametrize("kind", [np.random.PCG64, np.random.MT19937, np.random.Philox, np.random.SFC64])
def test_bit_generators_of_one_seed_have_one_fingerprint_and_a_draw_changes_it(kind):
    a, b = kind(0), kind(0)
    assert input_fingerprint(a) == input_fingerprint(b)
    assert input_fingerprint(a) != input_fingerprint(kind(1))
    a.random_raw()
    assert input_fingerprint(a) != input_fingerprint(b)
    assert "0x" not in str(input_fingerprint(b))


def test_knn_graph_on_mpi_with_a_bit_generator_gives_its_own_refusal_on_every_rank(comm):
    X = np.random.default_rng(0).random((80, 3))
    with pytest.raises(TypeError, match="random_state must be None, an int or a numpy.random.Generator") as info:
        gr.knn_graph(X, 5, backend="mpi", random_state=np.random.PCG64(7))
    assert comm.allgather(str(info.value)) == [str(info.value)] * comm.size
