"""The Dask backend on a LocalCluster bound to 127.0.0.1, against the serial path and SciPy oracles.

Products must match ``L @ X`` to 1e-12 relative, Chebyshev filters the serial recurrence to
rounding, CG solves the direct solution to the solver tolerance -- on METIS parts, with isolated
nodes, an empty part and a single part.  dask[distributed] is the optional 'dask' extra (in the
test extra); these tests run in the plain pytest pass, not once per rank under mpiexec.
"""

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import graphrkhs as gr
from graphrkhs import filters
from graphrkhs._core.backend import get_backend, resolve_backend
from graphrkhs.distributed import mpi_world_size

import distributed  # noqa: E402,F401  (the test extra installs dask[distributed]; no skip hides its absence)

from graphrkhs.distributed._dask import DaskOperator, dask_conjugate_gradient  # noqa: E402
from graphrkhs.distributed._knn import distributed_knn_graph  # noqa: E402

pytestmark = pytest.mark.skipif(mpi_world_size() > 1, reason="the Dask tests run in the plain pytest pass "
                                                              "(one process), not on every MPI rank")


def _graph(n=600, seed=0, isolated=0):
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


@pytest.mark.parametrize("layout", ["metis", "one", "empty", "round_robin"])
def test_products(client, layout):
    W = _graph(isolated=7)
    L = gr.laplacian(W)
    n = L.shape[0]
    part = {"metis": None, "one": np.zeros(n, dtype=np.int64),
            "empty": np.where(np.arange(n) < n // 3, 0, 2),            # part 1 owns no row
            "round_robin": np.arange(n) % 3}[layout]
    op = DaskOperator(L, client, part=part, n_parts=None if part is None else 3)
    assert sum(o.size for o in op.owned) == n
    X = np.random.default_rng(1).normal(size=(n, 5))
    assert _rel(op.matmat(X), L @ X) <= 1e-12
    # the fused step alpha (a L X + b X) + beta Y + gamma Z, the serial kernel's contract
    Y = np.random.default_rng(2).normal(size=(n, 5))
    Z = np.random.default_rng(3).normal(size=(n, 5))
    Xi = op.to_internal(X)
    out = op.to_internal(Y, copy=True)
    op.step(0.7, -1.0, 2.0, -1.0, 0.3, Xi, out, op.to_internal(Z))
    with pytest.raises(ValueError):   # its value lives on the workers until gathered
        out[0, 0] = 1.0
    expected = 2.0 * (0.7 * (L @ X) - X) - Y + 0.3 * Z
    assert _rel(op.to_user(out), expected) <= 1e-12
    if layout == "round_robin":
        assert op.halo_rows().sum() > 0   # every part needs ghost rows


@pytest.mark.parametrize("bank", [False, True])
def test_chebyshev_filter_equals_serial(client, bank):
    L = gr.laplacian(_graph(isolated=3), kind="normalized")
    X = np.random.default_rng(4).normal(size=(L.shape[0], 3))
    phi = [filters.Heat(2.0), filters.Heat(0.5)] if bank else filters.Heat(2.0)
    serial = gr.chebyshev_filter(L, phi, X, order=12, lmax=2.0, backend="numpy")
    dask = gr.chebyshev_filter(L, phi, X, order=12, lmax=2.0, backend="dask")
    assert dask.shape == serial.shape
    assert _rel(dask, serial) <= 1e-12
    # and the filter itself against the dense oracle (the recurrence truncation only)
    exact = gr.exact_filter(L, phi, X)
    assert _rel(dask, exact) <= 1e-5


def test_auto_backend_picks_the_active_client(client):
    assert resolve_backend("auto") == "dask"
    L = gr.laplacian(_graph())
    x = np.random.default_rng(5).normal(size=L.shape[0])
    y_auto = gr.chebyshev_filter(L, filters.Heat(1.0), x, order=10, lmax=float(gr.lmax(L)))
    y_serial = gr.chebyshev_filter(L, filters.Heat(1.0), x, order=10, lmax=float(gr.lmax(L)), backend="numpy")
    assert y_auto.shape == x.shape and _rel(y_auto, y_serial) <= 1e-12


@pytest.mark.parametrize("preconditioner", ["none", "amg"])
def test_cg_equals_direct_solve(client, preconditioner):
    W = _graph(n=300, isolated=4)
    A = sp.csr_array(gr.laplacian(W) + 2.0 * sp.eye_array(W.shape[0]))
    B = np.random.default_rng(6).normal(size=(A.shape[0], 3))
    B[:, 2] = 0.0   # a zero right-hand side converges at once to 0
    res = dask_conjugate_gradient(A, B, client=client, tol=1e-10, preconditioner=preconditioner)
    exact = spla.spsolve(A.tocsc(), B)
    assert res.converged.all() and res.n_iter > 0
    assert np.all(np.linalg.norm(B - A @ res.x, axis=0) <= 1.01e-10 * np.maximum(np.linalg.norm(B, axis=0), 1e-300))
    assert np.all(res.x[:, 2] == 0.0)
    cond_bound = 1e-10 * np.linalg.cond(A.toarray())
    assert _rel(res.x, exact) <= cond_bound
    if preconditioner == "none":   # the serial iteration, the same iterates to rounding
        serial = gr.conjugate_gradient(A, B, tol=1e-10)
        assert res.n_iter == serial.n_iter
        assert _rel(res.x, serial.x) <= 1e-8


def test_harmonic_solution_backend_dask(client):
    W = _graph(n=300)
    labeled = np.arange(0, 300, 10)
    y = (np.random.default_rng(7).random(labeled.size) > 0.5).astype(float)
    serial = gr.harmonic_solution(W, labeled, y, tol=1e-10, backend="numpy")
    dask = gr.harmonic_solution(W, labeled, y, tol=1e-10, backend="dask", preconditioner="jacobi")
    assert _rel(dask, serial) <= 1e-7


def test_poisson_learning_backend_dask(client):
    # preconditioner="amg": block CG on the workers (under "auto" 300 nodes are factorized on the client);
    # CG from zero on the singular consistent system, against the grounded direct solve of the serial path
    W = _graph(n=300)
    labeled = np.arange(0, 300, 25)
    Y = np.eye(3)[np.arange(labeled.size) % 3]
    serial = gr.poisson_learning(W, labeled, Y, tol=1e-10, backend="numpy")
    dask = gr.poisson_learning(W, labeled, Y, tol=1e-10, preconditioner="amg", backend="dask")
    assert _rel(dask, serial) <= 1e-7
    d = np.asarray(W.sum(axis=1)).ravel()
    assert np.abs(d @ dask).max() <= 1e-10 * np.abs(dask).max() * d.sum()   # degree-weighted zero mean kept


def _spy(monkeypatch, name, method):
    """Count the calls of a method of a registered distributed backend (to see that a fit used it)."""
    impl, calls = get_backend(name), []
    orig = getattr(impl, method)
    monkeypatch.setattr(impl, method, lambda *a, **k: calls.append(method) or orig(*a, **k))
    return calls


def _two_blobs(n=300, seed=11):
    X = np.random.default_rng(seed).random((n, 2))
    y = np.full(n, -1)
    y[:12] = (X[:12, 0] > 0.5).astype(int)
    return X, y


def test_poisson_learning_classifier_backend_dask_equals_numpy(client, monkeypatch):
    # the solve on the workers agrees with the serial (direct) one to the CG tolerance 1e-10: the scores to
    # 1e-7 relative (the condition of L on the range), and the class decisions coincide
    X, y = _two_blobs()
    calls = _spy(monkeypatch, "dask", "solve_spd")
    est = gr.PoissonLearningClassifier(tol=1e-10, preconditioner="amg", n_neighbors=8, backend="dask").fit(X, y)
    # the solve on the workers, and at most one refinement round there (_refined: its AMG-CG met tol 1e-10 with a
    # row-normalized residual above 10 tol)
    assert calls in (["solve_spd"], ["solve_spd", "solve_spd"]), calls
    ref = gr.PoissonLearningClassifier(tol=1e-10, n_neighbors=8, backend="numpy").fit(X, y)
    assert est.get_params()["backend"] == "dask"
    assert _rel(est.scores_, ref.scores_) <= 1e-7 and np.array_equal(est.transduction_, ref.transduction_)


def test_graph_tv_classifier_backend_dask_equals_numpy(client, monkeypatch):
    # R="kernel": the kernel columns Phi[:, S] and f = Phi s by Chebyshev passes on the workers, equal to the
    # serial recurrence to rounding; the lasso (working sets) and alpha by 2-fold CV then coincide exactly.
    # Matern(2, 1): a low Chebyshev order (8 steps, each a round trip to the workers) keeps the test short
    X, y = _two_blobs()
    phi = filters.Matern(2, 1.0)
    calls = _spy(monkeypatch, "dask", "prepare")
    est = gr.GraphTVClassifier(kernel=phi, n_neighbors=8, backend="dask").fit(X, y)
    assert calls == ["prepare"]             # one distributed operator, for the columns and for f
    ref = gr.GraphTVClassifier(kernel=phi, n_neighbors=8, backend="numpy").fit(X, y)
    assert est.get_params()["backend"] == "dask"
    assert est.alpha_ == ref.alpha_ and np.array_equal(est.transduction_, ref.transduction_)
    assert _rel(est.scores_, ref.scores_) <= 1e-8


def test_cg_not_spd_raises(client):
    A = sp.csr_array(np.diag([1.0, -1.0, 2.0, 3.0]))
    with pytest.raises(np.linalg.LinAlgError, match="positive definite"):
        dask_conjugate_gradient(A, np.ones(4), client=client, preconditioner="none")


@pytest.mark.parametrize("preconditioner", ["amg", "jacobi", "none"])
@pytest.mark.parametrize("as_operator", [False, True])
def test_cg_refuses_an_asymmetry_between_parts(client, preconditioner, as_operator):
    """A symmetric within each part's diagonal block, not across parts (A[5, 40] += 0.5, rows 5 and 40 in
    different parts): the per-part AMG symmetry check saw only the diagonal blocks, and no preconditioner
    refused it (CG ran to a residual of 7e-9).  A is checked against A^T globally now, before any task."""
    X = np.random.default_rng(0).random((60, 3))
    A = (gr.laplacian(gr.knn_graph(X, 6)) + sp.eye_array(60)).toarray()
    part = (np.arange(60) >= 30).astype(np.int64)
    A[5, 40] += 0.5
    A = sp.csr_array(A)
    for r in range(2):       # each part's own block is symmetric
        own = np.flatnonzero(part == r)
        assert abs(A[own][:, own] - A[own][:, own].T).max() == 0
    op = DaskOperator(A, client, part=part) if as_operator else A
    with pytest.raises(ValueError, match=r"A must be symmetric for conjugate gradients: max \|A - A\^T\| = 0\.5 "
                                         r".*gmres.*spsolve"):
        dask_conjugate_gradient(op, np.ones(60), client=client, part=None if as_operator else part,
                                preconditioner=preconditioner)


@pytest.mark.parametrize("form", [np.array, sp.csr_array])
def test_cg_refuses_a_non_square_matrix_by_name(client, form):
    """The global symmetry check ran before the operator's own checks and raised numpy's "operands could
    not be broadcast together" (scipy's "inconsistent shapes") on a 6 x 7 A."""
    with pytest.raises(ValueError, match=r"A must be a square matrix; got shape \(6, 7\)"):
        dask_conjugate_gradient(form(np.ones((6, 7))), np.ones(6), client=client, preconditioner="jacobi")


def test_knn_one_task_per_cell(client):
    X = np.random.default_rng(8).normal(size=(800, 3))
    W, cells = distributed_knn_graph(X, 6, n_cells=5, partitioner="kmeans", executor=client, random_state=0)
    W0 = gr.knn_graph(X, 6)
    assert (abs(W - W0) > 1e-12 * W0.max()).nnz == 0 and np.bincount(cells, minlength=5).sum() == 800
    # the cells are a partition for the operator: products on them are exact too
    L = gr.laplacian(W)
    op = DaskOperator(L, client, part=cells)
    x = np.random.default_rng(9).normal(size=(800, 2))
    assert _rel(op.matmat(x), L @ x) <= 1e-12


def test_knn_ties_follow_the_serial_content_rule(client):
    # node 8 is at distance exactly 1 from (-1, 0) and (1, 0): serially (-1, 0) wins (lexicographically first),
    # node 0, or node 4 once the clusters' rows are swapped (cell-wise the later-visited cell once won); a grid
    # with 4 neighbours at distance 1: the same edges and weights as knn_graph, one task per cell
    X = np.array([[-1, 0], [-1.1, 0], [-1.2, 0], [-1.3, 0], [1, 0], [1.1, 0], [1.2, 0], [1.3, 0], [0, 0]])
    W, _ = distributed_knn_graph(X, 1, n_cells=3, weight="binary", executor=client, random_state=0)
    assert W.toarray()[8].tolist() == [1.0] + [0.0] * 8
    W, _ = distributed_knn_graph(X[[4, 5, 6, 7, 0, 1, 2, 3, 8]], 1, n_cells=3, weight="binary", executor=client,
                                 random_state=0)
    assert W.toarray()[8].tolist() == [0.0] * 4 + [1.0] + [0.0] * 4
    # shuffled rows of distinct small-integer points: the graph with its nodes shuffled
    rng = np.random.default_rng(4)
    P = np.unique(rng.integers(0, 4, size=(150, 4)), axis=0).astype(float)
    P = P[rng.permutation(len(P))]
    p = rng.permutation(len(P))
    A, _ = distributed_knn_graph(P, 5, n_cells=4, weight="binary", executor=client, random_state=0)
    B, _ = distributed_knn_graph(P[p], 5, n_cells=4, weight="binary", executor=client, random_state=0)
    np.testing.assert_array_equal(B.toarray(), A.toarray()[p][:, p])
    np.testing.assert_array_equal(A.toarray(), gr.knn_graph(P, 5, weight="binary").toarray())
    G = np.array([[i, j] for i in range(7) for j in range(6)], dtype=float)
    W, _ = distributed_knn_graph(G, 3, n_cells=4, partitioner="rcb", executor=client, random_state=0)
    W0 = gr.knn_graph(G, 3)
    assert (W != 0).nnz == (W0 != 0).nnz and abs(W - W0).max() <= 1e-15 and ((W != 0) != (W0 != 0)).nnz == 0


def test_operator_refuses_non_finite_values_integer_dtypes_and_fractional_parts(client):
    # a NaN in L gave NaN products without a word, dtype=np.int32 an integer operator, and part=1.7 was
    # truncated to part 1
    L = gr.laplacian(_graph(n=60)).tolil()
    L[2, 2] = np.inf
    with pytest.raises(ValueError, match="L contains NaN or infinity"):
        DaskOperator(sp.csr_array(L), client)
    good = gr.laplacian(_graph(n=60))
    with pytest.raises(ValueError, match="dtype must be None, float32 or float64"):
        DaskOperator(good, client, dtype=np.int32)
    part = (np.arange(60) % 2).astype(float)
    part[5] = 1.7
    with pytest.raises(ValueError, match="part must hold integer part numbers; got 1.7"):
        DaskOperator(good, client, part=part)


def test_bad_input(client):
    with pytest.raises(TypeError, match="client"):
        DaskOperator(sp.eye_array(3), client="tcp://127.0.0.1:1")
    with pytest.raises(ValueError, match="preconditioner"):
        dask_conjugate_gradient(sp.eye_array(3), np.ones(3), client=client, preconditioner="ilu")
    with pytest.raises(ValueError, match="square"):
        DaskOperator(sp.csr_array((3, 4)), client)


def test_graph_kernel_products(client):
    W = _graph(n=400, isolated=2)
    S = np.random.default_rng(10).normal(size=(400, 3))
    K = gr.GraphKernel(W, filters.Heat(1.0), backend="dask")
    K0 = gr.GraphKernel(W, filters.Heat(1.0), backend="numpy")
    assert _rel(K.matmat(S), K0.matmat(S)) <= 1e-12
    assert _rel(K.columns(np.arange(4)), K0.columns(np.arange(4))) <= 1e-12


def test_knn_graph_backend_dask_is_the_exact_graph(client):
    X = np.random.default_rng(8).normal(size=(600, 3))
    W = gr.knn_graph(X, 6, backend="dask")
    W0 = gr.knn_graph(X, 6)
    assert (W != 0).nnz == (W0 != 0).nnz and (abs(W - W0) > 1e-12 * W0.max()).nnz == 0


def test_knn_graph_backend_dask_info_has_the_in_process_keys(client):
    # the cell-wise info had only its own keys ("cells", "n_cells", ...): info["fallback"] or
    # info["recall_sample"], there on every in-process path, raised a KeyError
    from graphrkhs.graphs._search import INFO_KEYS, RECALL_TARGET

    X = np.random.default_rng(8).normal(size=(300, 3))
    _, info = gr.knn_graph(X, 6, backend="dask", return_info=True)
    _, serial = gr.knn_graph(X, 6, algorithm="kd_tree", return_info=True)
    assert set(INFO_KEYS) <= set(info) and set(serial) == set(INFO_KEYS)
    assert set(info) - set(INFO_KEYS) == {"cells", "n_cells", "partitioner", "executor", "cell_sizes",
                                          "halo_visits", "visits_per_point"}
    assert info["algorithm"] == "cells (dask)" and info["requested"] == "auto"
    assert info["exact"] is True and info["recall"] == 1.0 and info["recall_sample"] == 0
    assert info["fallback"] is False and info["sparse"] is False and info["recall_target"] == RECALL_TARGET
    assert np.isnan(info["approximate_recall"]) and np.isnan(info["pilot_recall"]) and info["pilot_sample"] == 0
    assert info["seconds"] > 0 and np.bincount(info["cells"]).sum() == X.shape[0]


@pytest.mark.parametrize("kind", ["combinatorial", "normalized", "randomwalk"])
def test_laplacian_backend_dask_equals_serial_exactly(client, kind):
    W = _graph(isolated=9)
    L = gr.laplacian(W, kind, backend="dask")
    L_serial = gr.laplacian(W, kind)
    assert np.array_equal(L.indptr, L_serial.indptr) and np.array_equal(L.indices, L_serial.indices)
    assert np.array_equal(L.data, L_serial.data)
    assert L.indices.dtype == L_serial.indices.dtype == np.int32 and L.indptr.dtype == np.int32


def test_cg_checks_its_input_like_conjugate_gradient(client):
    # a NaN right-hand side ran (a ConvergenceWarning and a NaN solution) where the serial solver raises;
    # tol <= 0 and check_every = 0 were accepted
    A = sp.csr_array(gr.laplacian(_graph(n=60)) + sp.eye_array(60))
    with pytest.raises(ValueError, match="B contains NaN or infinity"):
        gr.conjugate_gradient(A, np.full(60, np.nan))
    with pytest.raises(ValueError, match="B contains NaN or infinity"):
        dask_conjugate_gradient(A, np.full(60, np.nan), client=client)
    with pytest.raises(ValueError, match="tol must be > 0"):
        dask_conjugate_gradient(A, np.ones(60), client=client, tol=0.0)
    with pytest.raises(ValueError, match="check_every must be >= 1"):
        dask_conjugate_gradient(A, np.ones(60), client=client, check_every=0)
    # as conjugate_gradient: tol >= 1 is met by the zero start, max_iter=0 returned it (x = 0)
    for f in (gr.conjugate_gradient, lambda *a, **k: dask_conjugate_gradient(*a, client=client, **k)):
        with pytest.raises(ValueError, match="tol must be < 1"):
            f(A, np.ones(60), tol=1.0)
        with pytest.raises(ValueError, match="max_iter must be >= 1"):
            f(A, np.ones(60), max_iter=0)
    with pytest.raises(ValueError, match="on_failure"):
        dask_conjugate_gradient(A, np.ones(60), client=client, on_failure="loud")


def test_operator_product_with_a_vector(client):
    # a vector's part was indexed as a block by the halo tasks (IndexError on the workers)
    L = gr.laplacian(_graph(n=200, seed=11))
    x = np.random.default_rng(12).normal(size=200)
    op = DaskOperator(L, client, part=np.arange(200) % 3)
    y = op.matmat(x)
    assert y.shape == (200,) and _rel(y, L @ x) <= 1e-12


def test_graph_kernel_ridge_stochastic_selection_runs_on_the_backend(client, monkeypatch):
    # alpha="auto" above STOCHASTIC_MIN_LABELS labels: the matrix-free LOO and the CG fit apply Phi through
    # the estimator's backend, with the serial answer to rounding.  Its GraphKernel was built with the
    # default backend "auto", i.e. on Dask whenever a client is active, even for backend="numpy"
    import graphrkhs.estimators._transductive as tr
    import graphrkhs.solvers._selection as sel

    monkeypatch.setattr(tr, "STOCHASTIC_MIN_LABELS", 10)
    monkeypatch.setattr(sel, "STOCHASTIC_MIN_LABELS", 10)
    X = np.random.default_rng(12).random((100, 2))
    y = np.full(100, np.nan)
    y[::8] = np.sin(4 * X[::8, 0])
    W = gr.knn_graph(X, 6)
    phi = filters.Matern(2, 1.0)
    calls = _spy(monkeypatch, "dask", "prepare")
    ref = gr.GraphKernelRidgeRegressor(phi, alphas=(1.0,), graph="precomputed", backend="numpy").fit(W, y)
    assert calls == []                      # serial, as asked, although a client is active
    est = gr.GraphKernelRidgeRegressor(phi, alphas=(1.0,), graph="precomputed", backend="dask").fit(W, y)
    assert calls == ["prepare"]
    assert est.alpha_ == ref.alpha_
    assert _rel(est.transduction_, ref.transduction_) <= 1e-6


def test_tikhonov_stochastic_selection_runs_on_the_backend(client, monkeypatch):
    # the matrix-free LOO of Tikhonov (alpha="auto" above STOCHASTIC_MIN_LABELS labels) solves (J + alpha L) F
    # = J Z on the caller's backend; it used the default "auto" (Dask, a client being active) even for
    # backend="numpy".  preconditioner="jacobi": block CG (under "auto" 60 nodes are factorized directly)
    import graphrkhs.estimators._transductive as tr

    X = np.random.default_rng(13).random((60, 2))
    W, S = gr.knn_graph(X, 6), np.arange(0, 60, 4)
    y = np.sin(4 * X[S, 0])
    calls = _spy(monkeypatch, "dask", "solve_spd")
    kw = dict(preconditioner="jacobi", tol=1e-10, n_probes=8)
    ref = gr.tikhonov_stochastic_errors(W, S, y, [1.0], backend="numpy", **kw)
    assert calls == []
    out = gr.tikhonov_stochastic_errors(W, S, y, [1.0], backend="dask", **kw)
    assert calls == ["solve_spd"]
    np.testing.assert_allclose(out, ref, rtol=1e-6)
    # the estimator hands its backend to the selection
    seen = []
    orig = tr.select_tikhonov_solution
    monkeypatch.setattr(tr, "select_tikhonov_solution", lambda *a, **k: seen.append(k["backend"]) or orig(*a, **k))
    yy = np.full(60, np.nan)
    yy[S] = y
    gr.LaplacianRegularizationRegressor(graph="precomputed", backend="numpy").fit(W, yy)
    assert seen == ["numpy"]


def test_cg_checks_the_rows_of_B_before_building_the_operator(monkeypatch):
    # B's row count was compared with A's only after DaskOperator had partitioned A and scattered it
    import graphrkhs.distributed._dask as dask_mod

    class Built(dask_mod.DaskOperator):
        def __init__(self, *args, **kwargs):
            raise AssertionError("the operator was built before B was checked")

    monkeypatch.setattr(dask_mod, "DaskOperator", Built)
    A = sp.csr_array(gr.laplacian(_graph(n=60)) + sp.eye_array(60))
    with pytest.raises(ValueError, match=r"B must have 60 rows; got shape \(59,\)"):
        dask_conjugate_gradient(A, np.ones(59))


def test_cg_with_no_columns_returns_the_empty_solution_as_conjugate_gradient(client):
    # B of shape (n, 0) (allowed: min_size=0) crashed a worker with IndexError in the preconditioner where the
    # serial solver returns the empty block
    A = sp.csr_array(gr.laplacian(_graph(n=60)) + sp.eye_array(60))
    serial = gr.conjugate_gradient(A, np.zeros((60, 0)))
    for pre in ("amg", "jacobi", "none"):
        res = dask_conjugate_gradient(A, np.zeros((60, 0)), client=client, preconditioner=pre)
        assert res.x.shape == serial.x.shape == (60, 0) and res.converged.shape == serial.converged.shape == (0,)
        assert res.n_iter == serial.n_iter == 0 and res.residual_norms.shape == (0,)


@pytest.mark.parametrize("n_parts, exc, match", [
    (2.7, TypeError, "n_parts must be an int; got 2.7"),      # was truncated to 2 parts without a word
    (0, ValueError, "n_parts must be >= 1; got 0"),           # was "part must hold part numbers in [0, 0)"
    (-1, ValueError, "n_parts must be >= 1; got -1"),
])
def test_operator_checks_n_parts(client, n_parts, exc, match):
    L = gr.laplacian(_graph(n=60))
    with pytest.raises(exc, match=match):
        DaskOperator(L, client, n_parts=n_parts)
    with pytest.raises(exc, match=match):
        DaskOperator(L, client, part=np.arange(60) % 2, n_parts=n_parts)


def test_operator_product_checks_the_block_shape(client):
    # a block with the wrong number of rows, or 3-D, failed with IndexError on the workers (or in the driver)
    L = gr.laplacian(_graph(n=60))
    op = DaskOperator(L, client, part=np.arange(60) % 2)
    with pytest.raises(ValueError, match=r"cur must have shape \(60,\) or \(60, m\); got \(5,\)"):
        op.matmat(np.ones(5))
    with pytest.raises(ValueError, match=r"cur must have shape \(60,\) or \(60, m\); got \(60, 2, 2\)"):
        op.matmat(np.ones((60, 2, 2)))
    with pytest.raises(ValueError, match=r"cur must have shape \(60,\) or \(60, m\); got \(61, 2\)"):
        op.matmat(np.ones((61, 2)))
    x = np.random.default_rng(13).normal(size=(60, 2))
    assert _rel(op.matmat(x), L @ x) <= 1e-12
