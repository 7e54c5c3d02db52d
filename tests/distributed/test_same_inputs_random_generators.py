"""A NumPy ``Generator`` (or ``RandomState``) seeded alike on every rank is the same input on every rank.

``check_same_inputs`` compared options by their ``repr``; a Generator's is "Generator(PCG64) at 0x7F...",
its address, which differs between processes, so ``knn_graph(X, k, backend="mpi",
random_state=np.random.default_rng(0))`` raised "the inputs differ between MPI ranks ... seed your random
draws" on every rank -- for a seeded Generator, the documented kind of ``random_state``.  Its state is
compared now: equal for equal seeds, different once drawn from.  The MPI test runs under plain pytest (one
rank) and ``mpiexec -n 2``; the fingerprint tests are the comparison itself, in one process.
"""

import numpy as np

import graphrkhs as gr
from graphrkhs.distributed._comm import input_fingerprint


def test_generators_of_one_seed_have_one_fingerprint_and_a_draw_changes_it():
    a, b = np.random.default_rng(0), np.random.default_rng(0)
    assert input_fingerprint(a) == input_fingerprint(b)
    assert input_fingerprint(a) != input_fingerprint(np.random.default_rng(1))
    a.random()
    assert input_fingerprint(a) != input_fingerprint(b)
    r, s = np.random.RandomState(3), np.random.RandomState(3)
    assert input_fingerprint(r) == input_fingerprint(s)
    r.random_sample()
    assert input_fingerprint(r) != input_fingerprint(s)


def test_knn_graph_on_mpi_takes_a_seeded_generator(comm):
    X = np.random.default_rng(0).random((80, 3))
    W = gr.knn_graph(X, 5, backend="mpi", random_state=np.random.default_rng(7))
    W_serial = gr.knn_graph(X, 5, backend="numpy")
    assert (W != W_serial).nnz == 0
    assert comm.allgather(int(W.nnz)) == [W_serial.nnz] * comm.size
