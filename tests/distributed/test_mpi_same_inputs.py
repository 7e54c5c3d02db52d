"""Inputs that differ between MPI ranks: one clear ValueError on every rank, not a deadlock or a mixed answer.

A script that draws its labels (or signal, or options) without a seed on each rank called the ``"mpi"``
backend with different arguments on different ranks: the graph solves deadlocked (a tol differing: the
ranks stopped CG at different iterations; the refinement rounds disagreed) or returned a mixture of the
ranks' answers (labels Y differing), the Chebyshev filters hung (different degrees) or mixed the ranks'
signals, and a labeled set differing failed with "part must have shape" or "the partition plan differs".

The tests that give the ranks different arguments run under ``mpiexec -n 2 python -m pytest -n 0 -p
no:randomly tests/distributed`` and are skipped in the one-process session; each raises at the
comparison, before any other collective, so no rank is left waiting.  The comparison and its message are
also tested in the one-process session, with a stand-in communicator of three processes.
"""

import re
import zlib

import numpy as np
import pytest
import scipy.sparse as sp

import graphrkhs as gr
from graphrkhs import filters

ADVICE = ("every rank must call with the same arguments (the same graph, signals, labels and options): seed your "
          "random draws (np.random.default_rng(0)) or draw them on rank 0 and broadcast them (comm.bcast); for "
          "independent work on each rank pass backend='numpy'.")
SOLVE = ("a graph solve of backend='mpi' (harmonic_solution, tikhonov_solution, poisson_learning, graph_kernel_ridge, "
         "the estimators)")
SIGNAL = ("a signal block of backend='mpi' (the X of chebyshev_filter or of a GraphKernel product, the labeled set "
          "of kernel columns)")
A_NAME = "A (the system matrix, from W, labeled and the options)"
B_NAME = "B (the right-hand side, from Y and labeled)"


def _graph(n=600, seed=0):
    return gr.knn_graph(np.random.default_rng(seed).random((n, 2)), 8)


def _two_ranks(comm):
    if comm.size == 1:
        pytest.skip("the ranks differ only under mpiexec -n 2 (tests/distributed, -n 0 -p no:randomly)")


def _raises_everywhere(comm, pattern, call):
    """``call()`` raises a ValueError matching ``pattern`` (a full match) here, and the same message on every rank."""
    with pytest.raises(ValueError) as info:
        call()
    message = str(info.value)
    assert re.fullmatch(pattern, message), message
    assert comm.allgather(message) == [message] * comm.size
    return message


def _crc(a):
    return f"{zlib.crc32(np.ascontiguousarray(a).tobytes()):08x}"


# -- the comparison itself (any session) ------------------------------------------------------------------


class _Gathering:
    """A stand-in communicator of 1 + len(others) processes: this one is rank 0."""

    rank = 0

    def __init__(self, *others):
        self.others = others
        self.size = 1 + len(others)

    def allgather(self, mine):
        from graphrkhs.distributed._comm import input_fingerprint

        return [mine] + [{k: input_fingerprint(v) for k, v in items.items()} for items in self.others]


def test_the_message_names_the_argument_what_each_rank_holds_and_the_fix():
    from graphrkhs.distributed._comm import check_same_inputs

    X = np.arange(12.0).reshape(6, 2)
    Z = X.copy()
    Z[3, 1] = -1.0
    here = {"X": X, "tol": 1e-8}
    check_same_inputs(_Gathering(dict(here), {"X": X.copy(), "tol": 1e-8}), "a test", here)       # the same
    check_same_inputs(_Gathering({"X": X, "tol": np.float64(1e-8)}), "a test", here)    # a number is a number
    check_same_inputs(_Gathering({"X": np.asfortranarray(X)}), "a test", {"X": X})       # an array its values
    with pytest.raises(ValueError) as info:
        check_same_inputs(_Gathering({"X": Z, "tol": 1e-8}, {"X": X.copy(), "tol": 1e-8}), "a test", here)
    assert str(info.value) == (f"the inputs differ between MPI ranks (a test): ranks 0, 2 have X of shape (6, 2), "
                               f"float64, CRC-32 {_crc(X)}; rank 1 has X of shape (6, 2), float64, CRC-32 "
                               f"{_crc(Z)}; " + ADVICE)
    # options by value; the first argument that differs is named
    with pytest.raises(ValueError) as info:
        check_same_inputs(_Gathering({"X": X, "tol": 1e-4}), "a test", here)
    assert str(info.value) == "the inputs differ between MPI ranks (a test): rank 0 has tol=1e-08; rank 1 has " \
                              "tol=0.0001; " + ADVICE
    # a dtype alone, and an argument only one rank passed
    with pytest.raises(ValueError, match=r"rank 0 has X of shape \(6, 2\), float64, .*rank 1 has X of shape "
                                         r"\(6, 2\), float32"):
        check_same_inputs(_Gathering({"X": X.astype(np.float32), "tol": 1e-8}), "a test", here)
    with pytest.raises(ValueError, match=r"rank 0 has no extra; rank 1 has extra=3; "):
        check_same_inputs(_Gathering({"X": X, "tol": 1e-8, "extra": 3}), "a test", here)


def test_a_sparse_matrix_is_compared_as_a_matrix_not_as_its_storage():
    from graphrkhs.distributed._comm import check_same_inputs

    W = sp.csr_array(_graph(50))
    shuffled = sp.coo_array(W)
    order = np.random.default_rng(1).permutation(shuffled.nnz)
    shuffled = sp.csr_array(sp.coo_array((shuffled.data[order], (shuffled.row[order], shuffled.col[order])),
                                         shape=W.shape))
    shuffled.has_sorted_indices = False
    check_same_inputs(_Gathering({"W": shuffled}, {"W": sp.csc_array(W)}), "a test", {"W": W})
    V = W.copy()
    V.data[0] *= 1 + 1e-15
    with pytest.raises(ValueError, match=r"rank 0 has W of shape \(50, 50\), float64, \d+ stored entries, CRC-32 "
                                         r"[0-9a-f]{8}; rank 1 has W of shape \(50, 50\), float64"):
        check_same_inputs(_Gathering({"W": V}), "a test", {"W": W})


# -- the entry points under mpiexec -n 2 ----------------------------------------------------------------------


def test_harmonic_solution_with_labels_drawn_on_each_rank_raises_on_every_rank(comm):
    # Y drawn without a seed on each rank: before, each rank got a different F (and an AccuracyWarning of a
    # row-normalized residual 0.7 / 0.99: the mixed system); preconditioner "amg": the CG path on the ranks
    _two_ranks(comm)
    W = _graph()
    S = np.arange(0, 600, 20)
    Y = np.eye(3)[np.random.default_rng(comm.rank).integers(0, 3, S.size)]
    same = r"of shape \(570, 3\), float64, CRC-32 [0-9a-f]{8}"
    _raises_everywhere(comm, re.escape(f"the inputs differ between MPI ranks ({SOLVE}): rank 0 has {B_NAME} ")
                       + same + re.escape(f"; rank 1 has {B_NAME} ") + same + re.escape("; " + ADVICE),
                       lambda: gr.harmonic_solution(W, S, Y, preconditioner="amg", backend="mpi"))
    # the same draw on every rank: the solve runs, equal to the serial one
    Y = np.eye(3)[np.random.default_rng(0).integers(0, 3, S.size)]
    F = gr.harmonic_solution(W, S, Y, preconditioner="amg", tol=1e-10, backend="mpi")
    F0 = gr.harmonic_solution(W, S, Y, tol=1e-12, backend="numpy")
    assert np.abs(F - F0).max() <= 1e-6 * np.abs(F0).max()


def test_a_labeled_set_or_a_tol_differing_between_ranks_raises_instead_of_hanging(comm):
    # a labeled set of a different size: before, "part must have shape (571,); got (570,)";
    # a tol differing: before, the ranks stopped CG at different iterations and waited for each other forever
    _two_ranks(comm)
    W = _graph()
    S = np.arange(0, 600, 20)[: 30 - comm.rank]
    y = np.sin(np.arange(S.size))
    system = r"of shape \(\d+, \d+\), float64, \d+ stored entries, CRC-32 [0-9a-f]{8}"
    message = _raises_everywhere(
        comm, re.escape(f"the inputs differ between MPI ranks ({SOLVE}): rank 0 has {A_NAME} ") + system
        + re.escape(f"; rank 1 has {A_NAME} ") + system + re.escape("; " + ADVICE),
        lambda: gr.harmonic_solution(W, S, y, preconditioner="jacobi", backend="mpi"))
    assert re.findall(r"of shape \((\d+),", message) == ["570", "571"]
    S, y = S[:29], y[:29]
    _raises_everywhere(comm, re.escape(f"the inputs differ between MPI ranks ({SOLVE}): rank 0 has tol=1e-10; "
                                       f"rank 1 has tol=0.0001; " + ADVICE),
                       lambda: gr.harmonic_solution(W, S, y, preconditioner="amg", tol=[1e-10, 1e-4][comm.rank],
                                                    backend="mpi"))


def test_poisson_learning_with_weights_differing_between_ranks_raises_on_every_rank(comm):
    # before: "A is not positive definite along the search direction" (the ranks' rows of two systems)
    _two_ranks(comm)
    W = _graph()
    S = np.arange(0, 600, 20)
    Y = np.eye(3)[np.arange(S.size) % 3]
    system = r"of shape \(600, 600\), float64, \d+ stored entries, CRC-32 [0-9a-f]{8}"
    _raises_everywhere(comm, re.escape(f"the inputs differ between MPI ranks ({SOLVE}): rank 0 has {A_NAME} ")
                       + system + re.escape(f"; rank 1 has {A_NAME} ") + system + re.escape("; " + ADVICE),
                       lambda: gr.poisson_learning(W * (1 + comm.rank), S, Y, preconditioner="amg", backend="mpi"))


def test_an_estimator_fitted_on_labels_drawn_on_each_rank_raises_on_every_rank(comm):
    # a labeled set drawn on each rank: before, "the partition plan of process(es) [1] differs", which named no
    # argument of the fit; labels drawn on each rank for the same labeled rows: before, each rank its own fit
    # (GraphKernelRidgeClassifier: only the kernel columns are distributed, the ridge solves ran per rank)
    _two_ranks(comm)
    X = np.random.default_rng(8).random((600, 2))
    y = np.full(600, -1)
    lab = np.random.default_rng(comm.rank).choice(600, 20, replace=False)
    y[lab] = (X[lab, 0] > 0.5).astype(int)
    rows = r"of shape \(600,\), bool, CRC-32 [0-9a-f]{8}"
    est = gr.LaplacianRegularizationClassifier(0.0, preconditioner="amg", backend="mpi")
    _raises_everywhere(comm, re.escape("the inputs differ between MPI ranks (LaplacianRegularizationClassifier.fit): "
                                       "rank 0 has y (its labeled rows) ") + rows
                       + re.escape("; rank 1 has y (its labeled rows) ") + rows + re.escape("; " + ADVICE),
                       lambda: est.fit(X, y))
    y = np.full(600, -1)
    y[:30] = np.random.default_rng(comm.rank).integers(0, 2, 30)
    targets = r"of shape \(30, 2\), float64, CRC-32 [0-9a-f]{8}"
    est = gr.GraphKernelRidgeClassifier(backend="mpi")
    _raises_everywhere(comm, re.escape("the inputs differ between MPI ranks (GraphKernelRidgeClassifier.fit): "
                                       "rank 0 has y (its encoded targets) ") + targets
                       + re.escape("; rank 1 has y (its encoded targets) ") + targets + re.escape("; " + ADVICE),
                       lambda: est.fit(X, y))
    # the same labels, an option differing
    y = np.full(600, -1)
    y[:30] = np.arange(30) % 2
    _raises_everywhere(comm, re.escape("the inputs differ between MPI ranks (GraphKernelRidgeClassifier.fit): "
                                       "rank 0 has n_neighbors=10; rank 1 has n_neighbors=11; " + ADVICE),
                       lambda: gr.GraphKernelRidgeClassifier(n_neighbors=10 + comm.rank, backend="mpi").fit(X, y))
    # the same labels and options on every rank, progress on rank 0 only: the serial fit
    est = gr.GraphKernelRidgeClassifier(backend="mpi", verbose=comm.rank == 0).fit(X, y)
    assert np.array_equal(est.transduction_, gr.GraphKernelRidgeClassifier(backend="numpy").fit(X, y).transduction_)


def test_chebyshev_filter_with_a_signal_or_a_tol_differing_between_ranks_raises_on_every_rank(comm):
    # a signal differing: before, the gathered result mixed the ranks' rows (the same, wrong, on every rank);
    # a tol differing: recurrences of degrees 28 and 12, the ranks waited for each other's halo forever
    _two_ranks(comm)
    L = gr.laplacian(_graph())
    X = np.random.default_rng(comm.rank).random((600, 2))
    X0, X1 = comm.allgather(X)
    _raises_everywhere(comm, re.escape(f"the inputs differ between MPI ranks ({SIGNAL}): rank 0 has X of shape "
                                       f"(600, 2), float64, CRC-32 {_crc(X0)}; rank 1 has X of shape (600, 2), "
                                       f"float64, CRC-32 {_crc(X1)}; " + ADVICE),
                       lambda: gr.chebyshev_filter(L, filters.Heat(2.0), X, backend="mpi"))
    coefs = r"coefficients \(from phi, order, tol and lmax\) of shape \(1, (\d+)\), float64, CRC-32 [0-9a-f]{8}"
    message = _raises_everywhere(
        comm, re.escape("the inputs differ between MPI ranks (a Chebyshev filter of backend='mpi'): rank 0 has ")
        + coefs + "; rank 1 has " + coefs + re.escape("; " + ADVICE),
        lambda: gr.chebyshev_filter(L, filters.Heat(2.0), X0, tol=[1e-12, 1e-3][comm.rank], backend="mpi"))
    low, high = map(int, re.findall(r"of shape \(1, (\d+)\)", message))
    assert low > high
    # the same signal and options: the distributed filter equals the serial one
    Y = gr.chebyshev_filter(L, filters.Heat(2.0), X0, tol=1e-10, backend="mpi")
    assert np.abs(Y - gr.chebyshev_filter(L, filters.Heat(2.0), X0, tol=1e-10, backend="numpy")).max() <= 1e-12


def test_graph_kernel_ridge_with_a_labeled_set_differing_between_ranks_raises_on_every_rank(comm):
    # method "cg": products with the kernel columns on the ranks; before, one rank stopped on "A is not
    # positive definite" and the other waited forever
    _two_ranks(comm)
    W = _graph()
    S = np.arange(0, 600, 20) + comm.rank
    Y = np.eye(3)[np.arange(S.size) % 3]
    block = r"of shape \(600, \d+\), float64, CRC-32 [0-9a-f]{8}"
    _raises_everywhere(comm, re.escape(f"the inputs differ between MPI ranks ({SIGNAL}): rank 0 has X ") + block
                       + "; rank 1 has X " + block + re.escape("; " + ADVICE),
                       lambda: gr.graph_kernel_ridge(W, S, Y, filters.Heat(3.0), method="cg", backend="mpi"))


def test_laplacian_and_knn_graph_with_inputs_differing_between_ranks_raise_on_every_rank(comm):
    _two_ranks(comm)
    W = _graph() * (1 + comm.rank)
    graph = r"of shape \(600, 600\), float64, \d+ stored entries, CRC-32 [0-9a-f]{8}"
    _raises_everywhere(comm, re.escape("the inputs differ between MPI ranks (laplacian(W, backend='mpi')): rank 0 "
                                       "has W ") + graph + "; rank 1 has W " + graph + re.escape("; " + ADVICE),
                       lambda: gr.laplacian(W, backend="mpi"))
    _raises_everywhere(comm, re.escape("the inputs differ between MPI ranks (knn_graph(X, backend='mpi')): rank 0 "
                                       "has n_neighbors=5; rank 1 has n_neighbors=6; " + ADVICE),
                       lambda: gr.knn_graph(np.random.default_rng(0).random((300, 2)), 5 + comm.rank, backend="mpi"))
    # verbose may differ (progress on rank 0 only): the graph is built, the serial one
    P = np.random.default_rng(0).random((300, 2))
    G = gr.knn_graph(P, 5, backend="mpi", verbose=comm.rank == 0)
    assert abs(G - gr.knn_graph(P, 5, backend="numpy")).max() == 0


def test_direct_solves_of_systems_differing_between_ranks_raise_on_every_rank(comm):
    # preconditioner "auto" factorizes up to DIRECT_MAX_NODES unknowns on every rank by itself: before, labels
    # drawn on each rank gave each rank its own F (harmonic_solution, poisson_learning), silently
    _two_ranks(comm)
    W = _graph()
    S = np.arange(0, 600, 20)
    Y = np.eye(3)[np.random.default_rng(comm.rank).integers(0, 3, S.size)]
    for solve, rows in ((gr.harmonic_solution, 570), (gr.poisson_learning, 600)):
        block = rf"of shape \({rows}, 3\), float64, CRC-32 [0-9a-f]{{8}}"
        _raises_everywhere(comm, re.escape(f"the inputs differ between MPI ranks ({SOLVE}): rank 0 has {B_NAME} ")
                           + block + re.escape(f"; rank 1 has {B_NAME} ") + block + re.escape("; " + ADVICE),
                           lambda: solve(W, S, Y, backend="mpi"))
    # the same labels: the direct solve, as serially
    Y = np.eye(3)[np.arange(S.size) % 3]
    assert np.array_equal(gr.harmonic_solution(W, S, Y, backend="mpi"), gr.harmonic_solution(W, S, Y, backend="numpy"))


def test_ranks_that_take_the_direct_and_the_iterative_path_meet_in_the_comparison(comm, monkeypatch):
    # one labeled node more on rank 0: 570 unknowns there (factorized, at DIRECT_MAX_NODES = 570), 571 on rank 1
    # (block CG on the ranks); before, rank 0 returned and rank 1 waited in CG's first reduction forever
    from graphrkhs.solvers import _graph as solvers_graph

    _two_ranks(comm)
    monkeypatch.setattr(solvers_graph, "DIRECT_MAX_NODES", 570)
    W = _graph()
    S = np.arange(0, 600, 20)[: 30 - comm.rank]
    system = r"of shape \(\d+, \d+\), float64, \d+ stored entries, CRC-32 [0-9a-f]{8}"
    message = _raises_everywhere(
        comm, re.escape(f"the inputs differ between MPI ranks ({SOLVE}): rank 0 has {A_NAME} ") + system
        + re.escape(f"; rank 1 has {A_NAME} ") + system + re.escape("; " + ADVICE),
        lambda: gr.harmonic_solution(W, S, np.sin(np.arange(S.size)), backend="mpi"))
    assert re.findall(r"of shape \((\d+),", message) == ["570", "571"]
    # the same system, factorized on rank 0 ("auto") and iterated on rank 1: the preconditioner is named
    monkeypatch.undo()
    S = np.arange(0, 600, 20)
    _raises_everywhere(comm, re.escape(f"the inputs differ between MPI ranks ({SOLVE}): rank 0 has "
                                       "preconditioner='direct'; rank 1 has preconditioner='amg'; " + ADVICE),
                       lambda: gr.harmonic_solution(W, S, np.sin(np.arange(S.size)),
                                                    preconditioner=["auto", "amg"][comm.rank], backend="mpi"))


def test_from_global_with_values_differing_between_ranks_raises_on_every_rank(comm):
    # the same pattern, other values: the partition plans agree, so before each rank multiplied by its own rows
    # (a matrix no rank holds) without a word
    from graphrkhs.distributed import DistributedCSR
    from graphrkhs.distributed._comm import world

    _two_ranks(comm)
    L = gr.laplacian(_graph())
    graph = r"of shape \(600, 600\), float64, \d+ stored entries, CRC-32 [0-9a-f]{8}"
    _raises_everywhere(comm, re.escape("the inputs differ between MPI ranks (DistributedCSR.from_global): rank 0 has L ")
                       + graph + "; rank 1 has L " + graph + re.escape("; " + ADVICE),
                       lambda: DistributedCSR.from_global(L * (1 + comm.rank), world()))
    # the same L: the product is the serial one
    D = DistributedCSR.from_global(L, world())
    V = np.random.default_rng(0).random((600, 2))
    assert np.allclose(D.gather(D.matmat(D.to_internal(V))), L @ V, rtol=1e-13, atol=1e-13)


def test_distributed_knn_graph_with_points_or_options_differing_between_ranks_raises_on_every_rank(comm):
    # before, each rank searched its cells in its own X with rank 0's partition: a graph mixed from the ranks' points
    from graphrkhs.distributed._knn import distributed_knn_graph

    _two_ranks(comm)
    what = "distributed_knn_graph(X, executor='mpi')"
    P = np.random.default_rng(comm.rank).random((300, 2))
    points = r"of shape \(300, 2\), float64, CRC-32 [0-9a-f]{8}"
    _raises_everywhere(comm, re.escape(f"the inputs differ between MPI ranks ({what}): rank 0 has X ") + points
                       + "; rank 1 has X " + points + re.escape("; " + ADVICE),
                       lambda: distributed_knn_graph(P, 5, executor="mpi", random_state=0))
    P = np.random.default_rng(0).random((300, 2))
    _raises_everywhere(comm, re.escape(f"the inputs differ between MPI ranks ({what}): rank 0 has mode='union'; "
                                       "rank 1 has mode='mutual'; " + ADVICE),
                       lambda: distributed_knn_graph(P, 5, mode=["union", "mutual"][comm.rank], executor="mpi"))
    # random_state may differ (the partition is fitted on rank 0 and broadcast): the exact graph
    W, _ = distributed_knn_graph(P, 5, executor="mpi", random_state=comm.rank)
    assert abs(W - gr.knn_graph(P, 5)).max() == 0
