"""The MPI backend against the serial path and dense oracles.

Runs under plain pytest (one rank: one partition, no ghost rows) and under
``mpiexec -n 2 python -m pytest -n 0 -p no:randomly tests/distributed`` (two
partitions).  Results are gathered on every rank, so every assertion sees
the same values everywhere.
"""

import os
import re

import numpy as np
import pytest
import scipy.sparse as sp

import graphrkhs as gr
from graphrkhs import filters
from graphrkhs._core.backend import get_backend, resolve_backend
from graphrkhs.distributed import DistributedCSR, distributed_cg, distributed_chebyshev_filter, distributed_lmax
from graphrkhs.spectral import chebyshev_apply


def _knn_graph(n=1500, seed=0, isolated=0):
    X = np.random.default_rng(seed).random((n, 3))
    W = gr.knn_graph(X, 8)
    if isolated:
        keep = np.ones(n)
        keep[:isolated] = 0
        W = sp.csr_array(sp.diags_array(keep) @ W @ sp.diags_array(keep))
        W.eliminate_zeros()
    return W


def _rel(a, b):
    return float(np.abs(a - b).max() / max(np.abs(b).max(), 1e-300))


def _parts(kind, n, size):
    if kind == "metis":
        return None
    if kind == "all_on_last":       # every rank but the last owns no row
        return np.full(n, size - 1)
    return np.arange(n) % size      # round robin: every row's neighbours are ghosts


@pytest.mark.parametrize("kind", ["metis", "all_on_last", "round_robin"])
def test_product_equals_scipy_with_isolated_nodes_and_empty_parts(comm, kind):
    W = _knn_graph(isolated=25)
    L = gr.laplacian(W)
    X = np.random.default_rng(1).standard_normal((L.shape[0], 5))
    D = DistributedCSR.from_global(L, comm, part=_parts(kind, L.shape[0], comm.size))
    Y = D.gather(D.matmat(D.to_internal(X)))
    assert _rel(Y, L @ X) <= 1e-12
    # isolated nodes: their rows of L are zero
    assert np.all(Y[:25] == 0)


def test_halo_exchange_delivers_the_ghost_rows(comm):
    W = _knn_graph(n=600, isolated=7)
    D = DistributedCSR.from_global(W, comm, part=np.arange(600) % comm.size)
    ids = np.arange(600, dtype=np.float64)[:, None] * np.array([[1.0, -2.0]])
    ghost = D.halo.exchange(np.ascontiguousarray(D.to_internal(ids)))
    expected = D.plan.ghosts[comm.rank][:, None] * np.array([[1.0, -2.0]])
    ok = ghost.shape == expected.shape and np.array_equal(ghost, expected)
    assert comm.allgather(bool(ok)) == [True] * comm.size


def test_one_partition_has_no_halo(comm):
    L = gr.laplacian(_knn_graph(n=400))
    D = DistributedCSR.from_global(L, comm, part=np.zeros(400, dtype=np.int64))
    counts = comm.allgather(D.shape[0])
    assert counts[0] == 400 and sum(counts) == 400
    assert comm.allgather(D.halo.n_ghost) == [0] * comm.size
    X = np.random.default_rng(2).standard_normal((400, 3))
    assert _rel(D.gather(D.matmat(D.to_internal(X))), L @ X) <= 1e-12


@pytest.mark.parametrize("response", [filters.Heat(2.0), [filters.Heat(1.0), filters.Heat(4.0)]])
def test_chebyshev_filter_mpi_equals_serial(response):
    L = gr.laplacian(_knn_graph(isolated=5), "normalized")
    X = np.random.default_rng(3).standard_normal((L.shape[0], 4))
    serial = gr.chebyshev_filter(L, response, X, order=40, lmax=2.0, backend="numpy")
    dist = gr.chebyshev_filter(L, response, X, order=40, lmax=2.0, backend="mpi")
    assert dist.shape == serial.shape
    assert _rel(dist, serial) <= 1e-12
    # lmax computed: the same bound as serial (every rank computes it), hence the same polynomial
    assert _rel(gr.chebyshev_filter(L, response, X[:, 0], backend="mpi"),
                gr.chebyshev_filter(L, response, X[:, 0], backend="numpy")) <= 1e-12


def test_chebyshev_filter_mpi_against_the_dense_oracle():
    L = gr.laplacian(_knn_graph(n=300), "normalized")
    X = np.random.default_rng(4).standard_normal((300, 2))
    Y = gr.chebyshev_filter(L, filters.Heat(3.0), X, tol=1e-10, backend="mpi")
    assert _rel(Y, gr.exact_filter(L, filters.Heat(3.0), X)) <= 1e-9


def test_graph_kernel_mpi_products_and_columns():
    W = _knn_graph(isolated=3)
    K = gr.GraphKernel(W, filters.Heat(2.0), backend="mpi")
    S = gr.GraphKernel(W, filters.Heat(2.0), backend="numpy")
    X = np.random.default_rng(5).standard_normal((W.shape[0], 3))
    assert K.lmax == S.lmax and K.order == S.order
    assert _rel(K @ X, S @ X) <= 1e-12
    assert _rel(K.columns([0, 10, 700]), S.columns([0, 10, 700])) <= 1e-12


def test_distributed_cg_block_jacobi_amg_reaches_tol(comm):
    W = _knn_graph(n=3000, seed=1)
    A = sp.csr_array(gr.laplacian(W) + 1e-2 * sp.eye_array(3000))
    B = np.random.default_rng(6).standard_normal((3000, 3))
    D = DistributedCSR.from_global(A, comm)
    res = distributed_cg(D, D.to_internal(B), tol=1e-9, preconditioner="amg")
    X = D.gather(res.x)
    resid = np.linalg.norm(B - A @ X, axis=0) / np.linalg.norm(B, axis=0)
    assert res.converged.all() and resid.max() <= 1.02e-9
    assert np.allclose(X, sp.linalg.spsolve(sp.csc_matrix(A), B), rtol=0, atol=1e-6 * np.abs(X).max())


def test_harmonic_and_ridge_mpi_agree_with_serial():
    # preconditioner="amg": the CG path also below DIRECT_MAX_NODES, where "auto" factorizes
    W = _knn_graph(n=2500, seed=2)
    rng = np.random.default_rng(7)
    S = rng.choice(2500, 30, replace=False)
    Y = np.eye(3)[rng.integers(0, 3, 30)]
    F0 = gr.harmonic_solution(W, S, Y, tol=1e-12, backend="numpy")
    for pre in ("amg", "jacobi"):
        F = gr.harmonic_solution(W, S, Y, tol=1e-10, preconditioner=pre, backend="mpi")
        assert np.array_equal(F[S], Y)
        assert _rel(F, F0) <= 1e-6 and np.array_equal(F.argmax(1), F0.argmax(1))
    phi = filters.RegularizedLaplacian(5.0)
    F = gr.graph_kernel_ridge(W, S, Y, phi, method="sparse", tol=1e-10, preconditioner="amg", backend="mpi")
    F0 = gr.graph_kernel_ridge(W, S, Y, phi, method="sparse", tol=1e-12, backend="numpy")
    assert _rel(F, F0) <= 1e-6
    F = gr.graph_kernel_ridge(W, S, Y, filters.Heat(3.0), method="cg", tol=1e-10, backend="mpi")
    F0 = gr.graph_kernel_ridge(W, S, Y, filters.Heat(3.0), method="cg", tol=1e-10, backend="numpy")
    assert _rel(F, F0) <= 1e-8


def test_estimator_backend_gives_the_serial_labels():
    X = np.random.default_rng(8).random((2000, 2))
    y = np.full(2000, -1)
    y[:20] = (X[:20, 0] > 0.5).astype(int)
    # a fixed alpha (here the harmonic solution, alpha=0): the solve runs distributed; "auto" selects alpha
    # on one sparse factorization, serially on every process, and then solves by that factorization
    est = gr.LaplacianRegularizationClassifier(0.0, preconditioner="amg", backend="mpi").fit(X, y)
    ref = gr.LaplacianRegularizationClassifier(0.0, backend="numpy").fit(X, y)
    assert np.array_equal(est.transduction_, ref.transduction_)
    assert est.get_params()["backend"] == "mpi"
    # graph kernel ridge with alpha chosen by leave-one-out: Phi[:, S] by the distributed Chebyshev pass
    est = gr.GraphKernelRidgeClassifier(backend="mpi").fit(X, y)
    ref = gr.GraphKernelRidgeClassifier(backend="numpy").fit(X, y)
    assert np.isclose(est.alpha_, ref.alpha_, rtol=1e-9, atol=0) and np.array_equal(est.transduction_, ref.transduction_)
    assert np.allclose(est.scores_, ref.scores_, rtol=0, atol=1e-10 * np.abs(ref.scores_).max())


def test_poisson_learning_mpi_agrees_with_serial():
    # preconditioner "amg" / "jacobi": CG on the ranks (under "auto" 2500 nodes are factorized on every rank),
    # from zero on the singular consistent system, against the grounded direct solve of the serial path
    W = _knn_graph(n=2500, seed=2)
    rng = np.random.default_rng(7)
    S = rng.choice(2500, 30, replace=False)
    Y = np.eye(3)[np.arange(30) % 3]
    F0 = gr.poisson_learning(W, S, Y, tol=1e-12, backend="numpy")
    d = np.asarray(W.sum(axis=1)).ravel()
    for pre in ("amg", "jacobi"):
        F = gr.poisson_learning(W, S, Y, tol=1e-10, preconditioner=pre, backend="mpi")
        assert _rel(F, F0) <= 1e-6 and np.array_equal(F.argmax(1), F0.argmax(1))
        assert np.abs(d @ F).max() <= 1e-10 * np.abs(F).max() * d.sum()     # degree-weighted zero mean kept


def test_poisson_and_tv_estimators_backend_give_the_serial_fit(monkeypatch):
    X = np.random.default_rng(8).random((2000, 2))
    y = np.full(2000, -1)
    y[:20] = (X[:20, 0] > 0.5).astype(int)
    impl, calls = get_backend("mpi"), []
    for method in ("solve_spd", "prepare"):       # to see that the fits use the backend
        monkeypatch.setattr(impl, method, lambda *a, _f=getattr(impl, method), _m=method, **k:
                            calls.append(_m) or _f(*a, **k))
    # Poisson learning: the solve by block CG on the ranks (tol 1e-10), scores to 1e-6 relative, same labels
    est = gr.PoissonLearningClassifier(tol=1e-10, preconditioner="amg", backend="mpi").fit(X, y)
    assert calls == ["solve_spd"]
    ref = gr.PoissonLearningClassifier(tol=1e-10, backend="numpy").fit(X, y)
    assert est.get_params()["backend"] == "mpi"
    assert _rel(est.scores_, ref.scores_) <= 1e-6 and np.array_equal(est.transduction_, ref.transduction_)
    # TV with R="kernel" and alpha by 2-fold CV: Phi[:, S] and f = Phi s by distributed Chebyshev passes
    # (equal to the serial recurrence to rounding), so the lasso, alpha_ and the labels coincide
    est = gr.GraphTVClassifier(backend="mpi").fit(X, y)
    assert calls == ["solve_spd", "prepare"]
    ref = gr.GraphTVClassifier(backend="numpy").fit(X, y)
    assert est.alpha_ == ref.alpha_ and np.array_equal(est.transduction_, ref.transduction_)
    assert _rel(est.scores_, ref.scores_) <= 1e-8
    # the Poisson + kernel ridge ensemble: both parts on the backend (the Poisson solve, the kernel columns)
    calls.clear()
    est = gr.PoissonRidgeEnsembleClassifier(tol=1e-10, preconditioner="amg", backend="mpi").fit(X, y)
    assert sorted(calls) == ["prepare", "solve_spd"]
    ref = gr.PoissonRidgeEnsembleClassifier(tol=1e-10, backend="numpy").fit(X, y)
    assert _rel(est.scores_, ref.scores_) <= 1e-6 and np.array_equal(est.transduction_, ref.transduction_)


def test_distributed_lmax_bounds_the_spectrum(comm):
    L = gr.laplacian(_knn_graph(n=300, isolated=4), "normalized")
    D = DistributedCSR.from_global(L, comm)
    top = float(np.linalg.eigvalsh(L.toarray()).max())
    bound = distributed_lmax(D)
    assert top <= bound <= 1.02 * top
    assert distributed_lmax(DistributedCSR.from_global(sp.csr_array((50, 50)), comm)) == 0.0


def test_distributed_entry_points_refuse_a_whole_scipy_matrix():
    # a scipy Laplacian passed where each rank's DistributedCSR belongs failed late with
    # "'csr_array' object has no attribute 'allreduce'" (CG, the filter) or "... 'gershgorin'" (lmax)
    L = gr.laplacian(_knn_graph(n=60))
    x = np.ones(60)
    for call in (lambda: distributed_cg(L, x), lambda: distributed_lmax(L),
                 lambda: distributed_chebyshev_filter(L, filters.Heat(1.0), x),
                 lambda: gr.distributed.block_jacobi_amg(L)):
        with pytest.raises(TypeError, match=r"D must be a DistributedCSR.*got csr_array.*from_global"):
            call()


@pytest.mark.parametrize("preconditioner", ["amg", "jacobi", "none"])
def test_solve_spd_refuses_an_asymmetry_between_ranks(preconditioner):
    """The solvers' path (backend="mpi"): every rank holds the whole A, checked against A^T before the
    partition.  The per-rank AMG checked only its own diagonal block (an asymmetry between two ranks' rows
    went through), "jacobi" and "none" nothing (all three failed before on one rank and on two)."""
    X = np.random.default_rng(0).random((60, 3))
    A = (gr.laplacian(gr.knn_graph(X, 6)) + sp.eye_array(60)).toarray()
    A[5, 40] += 0.5
    with pytest.raises(ValueError, match=r"A must be symmetric for conjugate gradients: max \|A - A\^T\| = 0\.5 "
                                         r".*gmres.*spsolve"):
        get_backend("mpi").solve_spd(sp.csr_array(A), np.ones(60), 1e-8, None, preconditioner)


def test_solve_spd_checks_symmetry_once_at_the_precision_of_the_given_matrix(monkeypatch):
    """solve_spd checked A against A^T (check_cg_symmetric, at A's precision) and then ran distributed_cg's dot
    test on the float64 copy it distributes, at the float64 tolerance: a float32 matrix within float32
    rounding of symmetric (relative 1e-6, which the serial solver and check_cg_symmetric take) was refused
    as "D must be symmetric ... an asymmetry of 1e-10 max |D|", on one rank and on two.  One check now,
    the exact one on the whole A that every rank holds, before the partition."""
    from graphrkhs.distributed import _mpi

    A = _laplacian_plus_identity_60()
    A = (A * (1 + 1e-6 * np.random.default_rng(4).uniform(-1, 1, size=A.shape))).astype(np.float32)
    assert np.abs(A - A.T).max() > 0
    b = np.ones(60)
    assert gr.conjugate_gradient(A, b, tol=1e-5).converged.all()         # the serial solver takes it
    calls = []
    for name in ("check_cg_symmetric", "check_distributed_symmetric"):
        monkeypatch.setattr(_mpi, name, lambda *a, _f=getattr(_mpi, name), _n=name, **k: (calls.append(_n),
                                                                                           _f(*a, **k))[1])
    x = get_backend("mpi").solve_spd(sp.csr_array(A), b, 1e-8, None, "jacobi")
    assert calls == ["check_cg_symmetric"]
    A64 = A.astype(np.float64)
    np.testing.assert_allclose(x, np.linalg.solve(A64, b), rtol=0, atol=1e-6 * np.abs(np.linalg.solve(A64, b)).max())


def test_backend_switch_validation():
    L = gr.laplacian(_knn_graph(n=200))
    x = np.ones(200)
    with pytest.raises(ValueError, match="backend must be one of"):
        gr.chebyshev_filter(L, filters.Heat(1.0), x, backend="cuda")
    with pytest.raises(ValueError, match="no 'mpi' backend"):
        gr.lanczos_filter(L, filters.Heat(1.0), x, backend="mpi")
    with pytest.raises(ValueError, match="no 'mpi' backend"):
        gr.GraphKernel(L, filters.Heat(1.0), method="exact", backend="mpi")
    with pytest.raises(ValueError, match="backend must be one of"):
        gr.harmonic_solution(L, [0], [1.0], backend="spark")
    assert get_backend("mpi").name == "mpi"
    assert resolve_backend("numpy") == "numpy"


def test_auto_resolves_to_mpi_exactly_under_mpiexec(comm):
    assert (resolve_backend("auto") == "mpi") == (comm.size > 1)


def test_conjugate_gradient_allreduce_identity_is_the_serial_iteration():
    A = sp.csr_array(gr.laplacian(_knn_graph(n=300)) + 0.1 * sp.eye_array(300))
    B = np.random.default_rng(9).standard_normal((300, 2))
    plain = gr.conjugate_gradient(A, B, tol=1e-10)
    hooked = gr.conjugate_gradient(A, B, tol=1e-10, allreduce=lambda a: a)
    assert plain.n_iter == hooked.n_iter and np.allclose(plain.x, hooked.x, rtol=0, atol=1e-14)


@pytest.mark.parametrize("kind", ["metis", "all_on_last", "round_robin"])
def test_from_local_rows_equals_from_global(comm, kind):
    # each rank passes only its rows (global column numbers): the plan is built collectively
    W = _knn_graph(n=900, isolated=6)
    L = gr.laplacian(W)
    part = _parts(kind, 900, comm.size)
    G = DistributedCSR.from_global(L, comm, part=part)
    mine = np.random.default_rng(comm.rank).permutation(G.owned)     # any local order
    D = DistributedCSR.from_local(L[mine], mine, 900, comm)
    X = np.random.default_rng(10).standard_normal((900, 3))
    assert comm.allgather(D.halo.n_ghost) == comm.allgather(G.halo.n_ghost)
    assert _rel(D.gather(D.matmat(D.to_internal(X))), L @ X) <= 1e-12
    lmax = float(abs(L).sum(axis=1).max())       # Gershgorin: above the spectrum
    coefs = gr.chebyshev_coefficients([filters.Heat(1.0)], 20, lmax)
    Y = chebyshev_apply(D, coefs, lmax, D.to_internal(X))[0]
    Z = chebyshev_apply(G, coefs, lmax, G.to_internal(X))[0]
    assert _rel(D.gather(Y), G.gather(Z)) <= 1e-12


def test_from_local_refuses_inconsistent_ownership(comm):
    L = gr.laplacian(_knn_graph(n=100))
    with pytest.raises(ValueError, match="98 node.s. are owned by no process" if comm.size == 2 else "owned by no"):
        DistributedCSR.from_local(L[[comm.rank]], np.array([comm.rank]), 100, comm)
    if comm.size > 1:
        with pytest.raises(ValueError, match="owns a node that another process owns too"):
            DistributedCSR.from_local(L[[0]], np.array([0]), 100, comm)


def test_run_mpi_launches_the_script_on_n_processes(comm, tmp_path, monkeypatch):
    if comm.size > 1:
        pytest.skip("the launcher test runs in the one-process session (one mpiexec per test session)")
    from graphrkhs.distributed import run_mpi
    script = tmp_path / "ranks.py"
    script.write_text("from graphrkhs.distributed import world\n"
                      "import numpy as np\n"
                      "c = world()\n"
                      "total = c.allreduce(np.array([c.rank + 1.0]))[0]\n"
                      "print(f'rank {c.rank} of {c.size} total {total:g}')\n")
    # the child imports the graphrkhs this session imports
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([os.path.dirname(os.path.dirname(gr.__file__)),
                                                      os.environ.get("PYTHONPATH", "")]))
    out = run_mpi(script, 2, timeout=120)
    # mpiexec forwards the ranks' output in chunks that may interleave (one rank's line can land before
    # the other's newline): find the records rather than split lines
    lines = sorted(re.findall(r"rank \d+ of \d+ total [\d.]+", out.stdout))
    assert lines == ["rank 0 of 2 total 3", "rank 1 of 2 total 3"]
    with pytest.raises(FileNotFoundError, match="does not exist"):
        run_mpi(tmp_path / "missing.py", 2)
    with pytest.raises(ValueError, match="n_procs"):
        run_mpi(script, 0)


def test_distributed_chebyshev_filter_on_local_rows(comm):
    # the no-global-copy path: rows per rank, lmax by distributed Lanczos, then the serial recurrence
    L = gr.laplacian(_knn_graph(n=800, isolated=5), "normalized")
    G = DistributedCSR.from_global(L, comm)
    D = DistributedCSR.from_local(L[G.owned], G.owned, 800, comm)
    X = np.random.default_rng(11).standard_normal((800, 2))
    lmax = distributed_lmax(D)
    Y = D.gather(distributed_chebyshev_filter(D, filters.Heat(2.0), D.to_internal(X), order=30))
    serial = gr.chebyshev_filter(L, filters.Heat(2.0), X, order=30, lmax=lmax, backend="numpy")
    assert _rel(Y, serial) <= 1e-12
    bank = distributed_chebyshev_filter(D, [filters.Heat(1.0), filters.Heat(2.0)], D.to_internal(X[:, 0]), tol=1e-10)
    assert bank.shape == (2, D.shape[0])
    Yb = np.stack([D.gather(y) for y in bank])
    assert _rel(Yb, gr.exact_filter(L, [filters.Heat(1.0), filters.Heat(2.0)], X[:, 0])) <= 1e-8
    with pytest.raises(ValueError, match="rank's"):
        distributed_chebyshev_filter(D, filters.Heat(2.0), np.ones(801))


@pytest.mark.parametrize("kind", ["combinatorial", "normalized", "randomwalk"])
def test_laplacian_backend_mpi_equals_serial_exactly(kind):
    W = _knn_graph(n=900, isolated=11)
    L = gr.laplacian(W, kind, backend="mpi")
    L_serial = gr.laplacian(W, kind, backend="numpy")
    assert L.shape == L_serial.shape and L.has_sorted_indices
    # every entry by the same floating-point operations as the serial build: equal bit for bit
    assert np.array_equal(L.indptr, L_serial.indptr) and np.array_equal(L.indices, L_serial.indices)
    assert np.array_equal(L.data, L_serial.data)
    assert L.indices.dtype == L_serial.indices.dtype == np.int32 and L.indptr.dtype == np.int32


def test_laplacian_by_rows_on_a_tiny_graph_and_row_blocks(comm):
    from graphrkhs.distributed import mpi_laplacian, row_blocks

    W = sp.csr_array(np.array([[0.0, 2.0], [2.0, 0.0]]))
    L = mpi_laplacian(W, "normalized", comm)
    np.testing.assert_allclose(L.toarray(), [[1.0, -1.0], [-1.0, 1.0]], rtol=0, atol=1e-15)
    W1 = sp.csr_array((1, 1))                         # one isolated node: fewer rows than ranks under mpiexec
    assert mpi_laplacian(W1, "randomwalk", comm).nnz == 0
    b = row_blocks(W.indptr, 5)                      # 5 parts of 2 rows: three empty blocks
    assert b[0] == 0 and b[-1] == 2 and np.all(np.diff(b) >= 0) and b.size == 6
    b = row_blocks(np.zeros(4, dtype=np.int64), 2)   # no stored entries: split by rows
    np.testing.assert_array_equal(b, [0, 2, 3])
    with pytest.raises(ValueError, match="n_parts"):
        row_blocks(W.indptr, 0)


def test_solve_with_fewer_unknowns_than_ranks(comm):
    # a path on 4 nodes with 3 labels: one unknown, so under mpiexec -n 2 a rank owns no row of the system
    # (it crashed on a (0, m) reshape and left the other rank in its first reduction)
    W = np.diag(np.ones(3), 1)
    W = W + W.T
    F = gr.harmonic_solution(W, [0, 1, 3], np.array([0.0, 1.0, 3.0]), preconditioner="amg", backend="mpi")
    np.testing.assert_allclose(F, [0.0, 1.0, 2.0, 3.0], atol=1e-8)


def test_filter_on_local_rows_with_a_rank_that_owns_nothing(comm):
    L = gr.laplacian(_knn_graph(n=200, seed=3))
    mine = np.arange(200) if comm.rank == comm.size - 1 else np.arange(0)
    D = DistributedCSR.from_local(L[mine], mine, 200, comm)
    X = np.random.default_rng(11).standard_normal(200)
    Y = D.gather(distributed_chebyshev_filter(D, filters.Heat(1.0), X[D.owned]))
    assert _rel(Y, gr.chebyshev_filter(L, filters.Heat(1.0), X)) <= 1e-9


def test_distributed_lmax_on_a_mirror_symmetric_split(comm):
    # a ladder (two copies of a path joined by rungs), one copy per rank: a start vector drawn from the same
    # seed on every rank is mirror-symmetric and blind to the antisymmetric top eigenvector (4.03 for 6.0)
    m = 100
    P = np.diag(np.ones(m - 1), 1)
    P = P + P.T
    W = sp.csr_array(np.block([[P, np.eye(m)], [np.eye(m), P]]))
    L = gr.laplacian(W)
    top = float(np.linalg.eigvalsh(L.toarray()).max())
    half = np.arange(m) + m * (comm.rank % 2) if comm.size == 2 else np.arange(2 * m)
    D = DistributedCSR.from_local(L[half], half, 2 * m, comm) if comm.size <= 2 else DistributedCSR.from_global(L, comm)
    assert top <= distributed_lmax(D) <= 1.02 * top


def test_distributed_inputs_are_checked_on_every_rank(comm):
    L = gr.laplacian(_knn_graph(n=60, seed=4))
    D = DistributedCSR.from_global(L, comm)
    X = np.ones(D.shape[0])
    if comm.rank == 0 and X.size:
        X[0] = np.nan                                  # on one rank only: every rank raises, none waits
    with pytest.raises(ValueError, match="NaN or infinity"):
        distributed_chebyshev_filter(D, filters.Heat(1.0), X)
    with pytest.raises(ValueError, match="shape"):
        distributed_chebyshev_filter(D, filters.Heat(1.0), np.ones((D.shape[0], 2, 2)))
    with pytest.raises(ValueError, match="preconditioner must be one of"):
        distributed_cg(D, np.ones(D.shape[0]), preconditioner="ilu")
    with pytest.raises(ValueError, match="lists a node twice"):
        DistributedCSR.from_local(L[[0, 0]], np.array([0, 0]), 60, comm)


def test_a_prebuilt_preconditioner_keeps_backend_auto_serial(comm):
    # a serial script passing its own preconditioner runs unchanged under mpiexec
    from graphrkhs._core.cg import amg_preconditioner

    W = _knn_graph(n=400, seed=5)
    S = np.arange(0, 400, 40)
    y = np.sin(np.arange(S.size))
    L = gr.laplacian(W)
    U = np.setdiff1d(np.arange(400), S)
    M = amg_preconditioner(sp.csr_array(L[U][:, U]))
    F = gr.harmonic_solution(W, S, y, preconditioner=M, tol=1e-10)
    F0 = gr.harmonic_solution(W, S, y, tol=1e-12, backend="numpy")
    assert _rel(F, F0) <= 1e-7
    if comm.size > 1:
        with pytest.raises(ValueError, match="builds its own block-Jacobi"):
            gr.harmonic_solution(W, S, y, preconditioner=M, backend="mpi")


def test_a_partition_failure_on_rank_0_raises_on_every_rank(comm, monkeypatch):
    # the partition is computed on rank 0 and broadcast: a failure there (a bad method, METIS) left the
    # other ranks waiting in the broadcast forever
    import graphrkhs.distributed._csr as csr_module

    L = gr.laplacian(_knn_graph(n=80, seed=6))
    with pytest.raises(ValueError, match="method must be one of"):
        DistributedCSR.from_global(L, comm, method="bogus")

    def failing(*args, **kwargs):
        raise RuntimeError("METIS failed")

    monkeypatch.setattr(csr_module, "partition_graph", failing)
    with pytest.raises(RuntimeError, match="METIS failed"):
        DistributedCSR.from_global(L, comm)


def test_from_global_refuses_a_partition_that_differs_between_ranks(comm):
    # a part (or L pattern) that differed between ranks built halo lists that did not match: the
    # exchange waited forever or delivered the wrong rows; a part of the wrong shape on one rank raised
    # there alone and left the others waiting
    L = gr.laplacian(_knn_graph(n=90, seed=8))
    shift = comm.rank if comm.size > 1 else 0
    part = (np.arange(90) + shift) % comm.size
    if comm.size > 1:
        with pytest.raises(ValueError, match=r"partition plan of process\(es\) \[1"):
            DistributedCSR.from_global(L, comm, part=part)
        bad = part[:89] if comm.rank == comm.size - 1 else part
        with pytest.raises(ValueError, match="part must have shape"):
            DistributedCSR.from_global(L, comm, part=bad)
    D = DistributedCSR.from_global(L, comm, part=np.arange(90) % comm.size)
    X = np.random.default_rng(2).standard_normal((90, 3))
    assert _rel(D.gather(D.matmat(D.to_internal(X))), L @ X) <= 1e-12


def test_plan_checksum_names_the_ranks_that_differ():
    # the comparison itself, with a stand-in communicator of 3 processes (runs in the serial session)
    from graphrkhs.distributed._csr import _check_same_plan, _plan_checksum
    from graphrkhs.distributed._partition import PartitionPlan

    L = gr.laplacian(_knn_graph(n=60, seed=9))
    part = np.arange(60) % 3
    same, shifted = PartitionPlan(L, part, 3), PartitionPlan(L, (part + 1) % 3, 3)
    # a node's edges missing on one process: no longer a ghost or a boundary row there
    keep = np.ones(60)
    keep[0] = 0
    fewer = PartitionPlan(sp.csr_array(sp.diags_array(keep) @ L @ sp.diags_array(keep)), part, 3)

    class Gathering:
        size, rank = 3, 0

        def __init__(self, *others):
            self.others = others

        def allgather(self, crc):
            return [crc] + [_plan_checksum(p) for p in self.others]

    _check_same_plan(Gathering(PartitionPlan(L, part.copy(), 3), same), same)
    with pytest.raises(ValueError, match=r"process\(es\) \[2\] differs from that of process 0"):
        _check_same_plan(Gathering(same, shifted), same)
    with pytest.raises(ValueError, match=r"process\(es\) \[1, 2\]"):
        _check_same_plan(Gathering(fewer, shifted), same)


def test_bad_local_blocks_on_one_rank_raise_on_every_rank(comm):
    # from_local's rows and distributed_cg's right-hand side were checked on each rank alone: the rank with
    # the bad block raised, the others waited in the next collective forever
    L = gr.laplacian(_knn_graph(n=80, seed=7))
    A = sp.csr_array(L + sp.eye_array(80))
    G = DistributedCSR.from_global(A, comm)
    last = comm.rank == comm.size - 1
    rows = A[G.owned][:, :79] if last else A[G.owned]
    with pytest.raises(ValueError, match="rows must have shape"):
        DistributedCSR.from_local(rows, G.owned, 80, comm)
    B = np.ones(G.shape[0] + (1 if last else 0))
    with pytest.raises(ValueError, match="B_local must be numeric of shape"):
        distributed_cg(G, B)
    B = np.ones(G.shape[0])
    if last and B.size:
        B[-1] = np.inf
    with pytest.raises(ValueError, match="B_local contains NaN or infinity"):
        distributed_cg(G, B)


def test_distributed_filter_checks_its_options_like_chebyshev_filter(comm):
    # lmax=-1, order=-3, tol=0 and a bound far below the spectrum were used as given (silently wrong
    # results: lmax=-1 returned the signal unfiltered), where chebyshev_filter raises
    L = gr.laplacian(_knn_graph(n=120, seed=8))
    D = DistributedCSR.from_global(L, comm)
    x = D.to_internal(np.random.default_rng(12).standard_normal(120))
    with pytest.raises(ValueError, match="lmax must be > 0"):
        distributed_chebyshev_filter(D, filters.Heat(1.0), x, lmax=-1.0)
    with pytest.raises(ValueError, match="order must be >= 0"):
        distributed_chebyshev_filter(D, filters.Heat(1.0), x, order=-3)
    with pytest.raises(ValueError, match="tol must be > 0"):
        distributed_chebyshev_filter(D, filters.Heat(1.0), x, tol=0.0)
    with pytest.raises(ValueError, match="lmax=0.01 is below the spectrum"):
        distributed_chebyshev_filter(D, filters.Heat(1.0), x, lmax=0.01)
    # a bound at or above the spectrum passes, and gives the serial result with that bound
    top = float(np.linalg.eigvalsh(L.toarray()).max())
    Y = D.gather(distributed_chebyshev_filter(D, filters.Heat(1.0), x, lmax=1.001 * top, order=30))
    Z = gr.chebyshev_filter(L, filters.Heat(1.0), D.gather(x), lmax=1.001 * top, order=30, backend="numpy")
    assert _rel(Y, Z) <= 1e-12


def test_distributed_filter_memory_is_checked_before_allocation_on_every_rank(comm, monkeypatch):
    # the recurrence blocks and the halo of a rank are estimated first; a rank short of memory makes every
    # rank raise (here rank 0 believes it has 1 MiB)
    import graphrkhs._core.validation as validation

    L = gr.laplacian(_knn_graph(n=200, seed=9))
    D = DistributedCSR.from_global(L, comm)
    X = D.to_internal(np.ones((200, 2000)))
    if comm.rank == 0:
        monkeypatch.setattr(validation, "_physical_memory", lambda: 2**20)
    with pytest.raises(MemoryError, match="Chebyshev filter blocks and halo"):
        distributed_chebyshev_filter(D, filters.Heat(1.0), X, order=5)


def test_signals_without_columns_keep_their_rows(comm):
    # an (n, 0) block: allgather_rows divided by the row width (0) and lost the rows under mpiexec
    L = gr.laplacian(_knn_graph(n=90, seed=10))
    X = np.zeros((90, 0))
    assert gr.chebyshev_filter(L, filters.Heat(1.0), X, backend="mpi").shape == (90, 0)
    D = DistributedCSR.from_global(L, comm)
    assert D.gather(D.to_internal(X)).shape == (90, 0)
    assert comm.allgather_rows(np.zeros((D.shape[0], 0, 3))).shape == (90, 0, 3)


def test_a_preconditioner_refused_on_one_rank_raises_on_every_rank(comm):
    # block-Jacobi AMG is built on each rank's diagonal block: here only the last rank's block (an adjacency
    # matrix, zero diagonal) is refused; that rank raised, the others waited in CG's first reduction forever
    L = gr.laplacian(_knn_graph(n=40, seed=11))
    P = np.diag(np.ones(39), 1)
    A = sp.csr_array(sp.block_diag([L + sp.eye_array(40), P + P.T]))
    part = np.r_[np.zeros(40, dtype=np.int64), np.full(40, comm.size - 1)]
    D = DistributedCSR.from_global(A, comm, part=part)
    with pytest.raises(ValueError, match="diagonal"):
        distributed_cg(D, np.ones(D.shape[0]), preconditioner="amg")


def test_under_a_launcher_without_mpi4py_auto_is_serial_and_mpi_says_what_to_install(comm, monkeypatch):
    # an MPI launcher's environment, mpi4py absent: "auto" must stay serial, an explicit "mpi" must say what
    # is missing (it raised "import of mpi4py halted" / "No module named 'mpi4py'" from deep inside)
    if comm.size > 1:
        pytest.skip("simulates a launcher environment in the one-process session")
    import sys

    import graphrkhs.distributed._comm as comm_module

    monkeypatch.setenv("PMI_SIZE", "2")
    monkeypatch.setitem(sys.modules, "mpi4py", None)
    monkeypatch.setitem(sys.modules, "mpi4py.MPI", None)
    monkeypatch.setattr(comm_module, "_WORLD", None)
    L = gr.laplacian(_knn_graph(n=60, seed=12))
    x = np.random.default_rng(13).standard_normal(60)
    assert resolve_backend("auto") == "auto"
    assert _rel(gr.chebyshev_filter(L, filters.Heat(1.0), x),
                gr.chebyshev_filter(L, filters.Heat(1.0), x, backend="numpy")) == 0.0
    with pytest.raises(ImportError, match=r"mpi4py is not installed: pip install 'graphrkhs\[mpi\]'"):
        gr.chebyshev_filter(L, filters.Heat(1.0), x, backend="mpi")


def test_many_operators_on_one_graph_do_not_exhaust_mpi_communicators(comm):
    # every DistributedCSR created a neighbourhood communicator and never freed it: MPICH has 2048, and the
    # 2047th chebyshev_filter(backend="mpi") call of a script failed in MPI_Dist_graph_create_adjacent
    L = gr.laplacian(_knn_graph(n=60, seed=14))
    D = DistributedCSR.from_global(L, comm)
    rp = D.plan.rank_plan(comm.rank)
    args = (rp["sources"], rp["recv_counts"], rp["destinations"], rp["send_counts"], rp["send_index"])
    for _ in range(2100):
        halo = comm.halo(*args)
    X = np.random.default_rng(15).standard_normal((60, 2))
    ghost = halo.exchange(np.ascontiguousarray(D.to_internal(X)))
    assert np.array_equal(ghost, X[D.plan.ghosts[comm.rank]])


def test_a_process_started_by_a_rank_is_no_rank(comm, monkeypatch):
    # a subprocess or joblib worker of a rank inherits the launcher's variables (PMI_SIZE=2): backend="auto"
    # resolved to "mpi" there and MPI_Init aborted the child ("PMI_Init returned -1"). The rank marks itself.
    import sys

    from graphrkhs.distributed import mpi_world_size

    marker = "GRAPHRKHS_MPI_RANK_PID"
    if comm.size > 1:
        assert os.environ.get(marker) == str(os.getpid())             # this rank marked itself
    monkeypatch.setenv("PMI_SIZE", "2")
    monkeypatch.setitem(sys.modules, "mpi4py.MPI", None)         # a fresh child: MPI not initialized there
    monkeypatch.setenv(marker, str(os.getpid() + 1))             # the parent rank's pid
    assert mpi_world_size() == 1 and resolve_backend("auto") == "auto"
    monkeypatch.setenv(marker, str(os.getpid()))                 # the rank itself
    assert mpi_world_size() == 2


def test_distributed_lmax_checks_steps_and_margin_like_lmax(comm):
    # margin=-0.5 returned 3.63 for a Laplacian with largest eigenvalue 7.25 (a "bound" below the spectrum),
    # margin=nan returned nan, steps=0 / -3 / 2.5 ran silently as 1 / 1 / 2 steps
    L = gr.laplacian(_knn_graph(n=60, seed=0))
    D = DistributedCSR.from_global(L, comm)
    for bad, error, match in (({"margin": -0.5}, ValueError, "margin must be >= 0"),
                              ({"margin": np.nan}, ValueError, "margin must be finite"),
                              ({"steps": 0}, ValueError, "steps must be >= 1"),
                              ({"steps": 2.5}, TypeError, "steps must be an int")):
        with pytest.raises(error, match=match):
            distributed_lmax(D, **bad)
    top = float(np.linalg.eigvalsh(L.toarray()).max())
    assert top <= distributed_lmax(D, margin=0.001, steps=60) <= 1.01 * top


def test_distributed_operators_refuse_non_finite_values_and_integer_dtypes(comm):
    # a NaN in L gave an operator whose products and CG solutions were NaN without a word; dtype=np.int32
    # built an integer operator
    L = gr.laplacian(_knn_graph(n=40, seed=5)).tolil()
    L[3, 3] = np.nan
    with pytest.raises(ValueError, match="L contains NaN or infinity"):
        DistributedCSR.from_global(sp.csr_array(L), comm)
    good = gr.laplacian(_knn_graph(n=40, seed=5))
    with pytest.raises(ValueError, match="dtype must be None, float32 or float64"):
        DistributedCSR.from_global(good, comm, dtype=np.int32)
    owned = np.arange(comm.rank, 40, comm.size)
    rows = sp.csr_array(good[owned]).copy()
    if comm.rank == comm.size - 1:                     # on one process only: every process raises
        rows.data[0] = np.inf
    with pytest.raises(ValueError, match="rows contains NaN or infinity"):
        DistributedCSR.from_local(rows, owned, 40, comm)
    D = DistributedCSR.from_global(good, comm, dtype=np.float32)
    assert D.dtype == np.float32


def test_fractional_counts_of_parts_and_processes_are_refused(tmp_path):
    # row_blocks(indptr, 2.5) split into 2 blocks and run_mpi(script, 2.5) launched 2 processes without a word
    from graphrkhs.distributed import row_blocks, run_mpi

    with pytest.raises(TypeError, match="n_parts must be an int; got 2.5"):
        row_blocks(np.array([0, 1, 2, 3]), 2.5)
    with pytest.raises(TypeError, match="n_procs must be an int; got 2.5"):
        run_mpi(tmp_path / "never_run.py", 2.5)
    np.testing.assert_array_equal(row_blocks(np.array([0, 1, 2, 3]), np.int64(3)), [0, 1, 2, 3])


def test_matmat_takes_a_vector_and_names_a_wrong_shape(comm):
    # a 1-D vector failed inside the compiled step ("blocks of shape cur (n,) ... do not fit"), where the Dask
    # operator accepts one; a block of another row count reached the same message, naming no argument
    L = gr.laplacian(_knn_graph(isolated=3))
    D = DistributedCSR.from_global(L, comm, part=_parts("round_robin", L.shape[0], comm.size))
    x = np.random.default_rng(5).standard_normal(L.shape[0])
    y = D.matmat(D.to_internal(x[:, None])[:, 0])
    assert y.ndim == 1 and y.shape == (D.shape[0],)
    assert _rel(D.gather(y[:, None])[:, 0], L @ x) <= 1e-12
    out = np.empty(D.shape[0])
    assert D.matmat(D.to_internal(x[:, None])[:, 0], out) is not None
    np.testing.assert_array_equal(out, y)
    with pytest.raises(ValueError, match=r"cur must hold this process's rows.*got \(%d, 2\)" % (D.shape[0] + 1)):
        D.matmat(np.ones((D.shape[0] + 1, 2)))
    with pytest.raises(ValueError, match="cur must hold this process's rows"):
        D.matmat(np.ones((D.shape[0], 2, 2)))


@pytest.mark.parametrize("indptr", [[0, 3, 1, 4], [1, 2, 3], [[0, 1], [1, 2]], [0.0, 1.0, 2.0], []])
def test_row_blocks_refuses_what_is_not_a_row_pointer(indptr):
    # a decreasing indptr gave bounds [0, 1, 3] for rows whose entries run backwards: blocks that do not
    # balance anything, without a word
    from graphrkhs.distributed import row_blocks

    with pytest.raises(ValueError, match="indptr must be a CSR row pointer"):
        row_blocks(np.array(indptr), 2)


def test_neighbourhood_cache_frees_the_communicators_no_exchange_uses(comm, monkeypatch):
    # one neighbourhood communicator per distinct topology was kept for good (operators on many graphs or
    # partitions exhaust MPI's few thousand communicator ids); from the cache limit on, those no exchange on
    # any process uses are freed, the ones in use are kept and still exchange the right rows.  (On one
    # process there is no halo, hence no communicator.)
    from graphrkhs.distributed import _comm as comm_module

    monkeypatch.setattr(comm_module, "_NEIGHBOURHOODS", {})
    monkeypatch.setattr(comm_module, "_MAX_NEIGHBOURHOODS", 2, raising=False)
    other = 1 - comm.rank if comm.size == 2 else comm.rank
    # the 4 topologies of 2 processes: no edge, 0 -> 1, 1 -> 0, both ways (one row sent per edge)
    edges = [(False, False), (True, False), (False, True), (True, True)] if comm.size == 2 else [(False, False)]

    def halo(e):
        send = e[0] if comm.rank == 0 else e[1]
        recv = e[1] if comm.rank == 0 else e[0]
        return comm.halo([other] if recv else [], [1] if recv else [], [other] if send else [],
                         [1] if send else [], [0] if send else [])

    kept = halo(edges[-1])
    X = np.array([[10.0 + comm.rank, 20.0 + comm.rank]])
    for e in edges * 3:   # 12 exchanges on 4 topologies, each dropped after use
        h = halo(e)
        assert len(comm_module._NEIGHBOURHOODS) <= (2 if comm.size > 1 else 0) + 1
        got = h.exchange(X)
        assert got.shape == (int(h.recv_counts.sum()), 2)
        if got.size:
            np.testing.assert_array_equal(got, [[10.0 + other, 20.0 + other]])
        del h
    np.testing.assert_array_equal(kept.exchange(X), [[10.0 + other, 20.0 + other]] if comm.size == 2 else X[:0])


def test_distributed_cg_checks_its_options_before_building_the_preconditioner(comm, monkeypatch):
    # tol=0 and max_iter=0 were refused by conjugate_gradient only after every rank had built its block AMG
    import graphrkhs.distributed._mpi as mpi_mod

    def built(*args, **kwargs):
        raise AssertionError("the preconditioner was built before the options were checked")

    monkeypatch.setattr(mpi_mod, "block_jacobi_amg", built)
    D = DistributedCSR.from_global(gr.laplacian(_knn_graph(n=60, seed=4)) + sp.eye_array(60), comm)
    B = np.ones(D.shape[0])
    with pytest.raises(ValueError, match="tol must be > 0"):
        distributed_cg(D, B, tol=0.0)
    with pytest.raises(ValueError, match="max_iter must be >= 1"):
        distributed_cg(D, B, max_iter=0)
    with pytest.raises(ValueError, match="on_failure"):
        distributed_cg(D, B, on_failure="loud")


def test_from_local_refuses_fractional_node_numbers_on_every_rank(comm):
    # owned went through np.asarray(owned, dtype=int64): owned=[0.7, 1.2, ...] became nodes 0, 1, ... silently
    L = gr.laplacian(_knn_graph(n=40, seed=2))
    mine = np.arange(comm.rank, 40, comm.size)
    with pytest.raises(TypeError, match="owned must be a 1-D array of integer node numbers"):
        DistributedCSR.from_local(L[mine], mine + 0.25, 40, comm)
    # on one rank only: every rank raises (none waits in the next collective)
    owned = mine.astype(np.float64) if comm.rank == 0 else mine
    with pytest.raises(TypeError, match="owned must be a 1-D array of integer node numbers"):
        DistributedCSR.from_local(L[mine], owned, 40, comm)
    # a rank that owns nothing may pass a plain empty list (float64 to numpy)
    first = comm.rank == 0
    D = DistributedCSR.from_local(L if first else L[np.zeros(0, dtype=np.int64)], np.arange(40) if first else [],
                                  40, comm)
    assert D.shape[0] == (40 if first else 0)


def test_a_subprocess_of_a_hydra_rank_is_no_rank(comm):
    # Under MPICH's mpiexec a child started by a rank that had not imported graphrkhs (so no rank mark) inherited
    # PMI_SIZE=2 and counted itself a rank (mpi_world_size() == 2: backend="auto" would call MPI_Init there).
    # A Hydra rank holds its launcher socket at PMI_FD; subprocess closes inherited descriptors.
    import socket
    import subprocess
    import sys
    from graphrkhs.distributed._comm import RANK_PID_VARIABLE

    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PMI_", "OMPI_", "MV2_", "PMIX_", "HYDRA", "MPI_")) and k != RANK_PID_VARIABLE}
    mine, _theirs = socket.socketpair()
    with mine, _theirs:
        env.update(PMI_SIZE="2", PMI_RANK="0", PMI_FD=str(mine.fileno()))
        # _comm alone (numpy only; the whole package takes seconds to import under load)
        from graphrkhs.distributed import _comm
        code = ("import importlib.util as u; s = u.spec_from_file_location('c', %r); d = u.module_from_spec(s); "
                "s.loader.exec_module(d); print(d.mpi_world_size())" % _comm.__file__)
        sizes = [subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True,
                                pass_fds=fds).stdout.strip() for fds in [(), (mine.fileno(),)]]
    assert sizes == ["1", "2"]        # the socket closed in the child: no rank; passed on: a rank


def test_launcher_size_reads_pmi_size_only_with_its_socket(monkeypatch):
    from graphrkhs.distributed._comm import _launcher_size
    for var in ("OMPI_COMM_WORLD_SIZE", "MV2_COMM_WORLD_SIZE"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("PMI_SIZE", "3")
    r, w = os.pipe()                                   # open, but no socket
    os.close(w)
    monkeypatch.setenv("PMI_FD", str(r))
    assert _launcher_size() == 1
    os.close(r)                                        # closed
    assert _launcher_size() == 1
    monkeypatch.delenv("PMI_FD")                       # a launcher without PMI_FD (PMI_PORT, Open MPI): trusted
    assert _launcher_size() == 3


@pytest.mark.parametrize("args", ["--n 1000", b"--n", "-v"])
def test_run_mpi_refuses_a_string_as_the_argument_list(tmp_path, args):
    # map(str, "--n 1000") launched the script with the arguments '-', '-', 'n', ' ', '1', ... without a word
    from graphrkhs.distributed import run_mpi

    with pytest.raises(TypeError, match=r"args must be a sequence of arguments \(a list such as \['--n', '1000'\]\)"):
        run_mpi(tmp_path / "never_run.py", 2, args)


def _laplacian_plus_identity_60():
    X = np.random.default_rng(0).random((60, 3))
    return (gr.laplacian(gr.knn_graph(X, 6)) + sp.eye_array(60)).toarray()


def _split_rows(comm, A, dtype=np.float64):
    """Rows 0..29 on rank 0 and 30..59 on the last rank, each rank passing only its own rows to from_local."""
    part = np.where(np.arange(60) < 30, 0, comm.size - 1)
    mine = np.flatnonzero(part == comm.rank)
    return DistributedCSR.from_local(sp.csr_array(A[mine]), mine, 60, comm, dtype=dtype)


@pytest.mark.parametrize("preconditioner", ["amg", "jacobi", "none"])
def test_distributed_cg_refuses_an_asymmetry_between_ranks_of_a_from_local_matrix(comm, preconditioner):
    """No rank holds the whole matrix: the per-rank AMG set-up checked its own diagonal block only, "jacobi"
    and "none" nothing, and A[5, 40] += 0.5 (row 5 on rank 0, row 40 on the last) ran to convergence on two
    ranks.  The communicated dot test x^T (A y) against y^T (A x) refuses it before the preconditioner."""
    A = _laplacian_plus_identity_60()
    A[5, 40] += 0.5
    D = _split_rows(comm, A)
    own = np.arange(30)
    assert np.abs(A[np.ix_(own, own)] - A[np.ix_(own, own)].T).max() == 0      # each rank's block symmetric
    assert np.abs(A[np.ix_(own + 30, own + 30)] - A[np.ix_(own + 30, own + 30)].T).max() == 0
    with pytest.raises(ValueError, match=r"D must be symmetric for conjugate gradients: x\^T D y = .* y\^T D x "
                                         r"= .*symmetric formulation.*gmres.*spsolve"):
        distributed_cg(D, np.ones(D.shape[0]), preconditioner=preconditioner)


@pytest.mark.parametrize("dtype, rel", [(np.float64, 1e-13), (np.float64, 1e-11), (np.float32, 1e-6)])
def test_distributed_cg_accepts_what_the_serial_check_accepts(comm, dtype, rel):
    # every entry perturbed by a relative rel and A[5, 40] (between the ranks) by rel max|A|: rounding level
    # (1e-13) and below what check_cg_symmetric accepts (1e-10, 1e-5 in float32) -- the dot test's tolerance
    # covers both, so that the distributed solver refuses no matrix the serial one takes
    A = _laplacian_plus_identity_60()
    A = (A * (1 + rel * np.random.default_rng(4).uniform(-1, 1, size=A.shape))).astype(dtype)
    A[5, 40] += rel * np.abs(A).max()
    gr.conjugate_gradient(A, np.ones(60), tol=1e-5)                  # the serial check takes it
    D = _split_rows(comm, A, dtype)
    res = distributed_cg(D, np.ones(D.shape[0]), tol=1e-5, preconditioner="jacobi")
    assert res.converged.all()
