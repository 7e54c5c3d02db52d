"""Metamorphic identities and serial agreement of the estimators that take ``backend="mpi"`` / ``"dask"``.

The identities of ``tests/estimators/test_metamorphic.py`` (whose problem and helpers are reused), asked of
the MPI backend under plain pytest (one rank) and under ``mpiexec -n 2`` (two partitions) -- the fit on 1
and on 2 ranks is the serial fit, so the answers with 1 and 2 ranks agree -- and of the Dask backend on a
two-worker LocalCluster (conftest's ``client``; in the one-process pass only, as ``test_dask.py``):

* agreement: the backend gives the serial (``"numpy"``) labels, and scores to 1e-8 relative: the systems
  are solved by AMG-preconditioned block CG to ``tol=1e-10`` (condition numbers of these 68-node graphs
  ~1e2: measured 1.6e-11 at most), the kernel columns by the serial Chebyshev recurrence on a distributed
  product (rounding, 4e-12); every MPI rank holds the same bytes;
* node numbering, class names (strings or other integers, the priors by name) and the units of W
  (``alpha / c`` on ``c W``, where ``alpha`` is in the units of W) as in the serial identities;
* bad input: the same ``ValueError`` on every rank, before the backend is called, so before any collective
  operation (a rank that raised while another waited in a collective would leave the run hanging:
  mpiexec's timeout is the check);
* the products come back as arrays the caller may write to, as serially.

Each fit is checked to use the backend (its ``solve_spd`` / ``prepare`` called), so that no test compares the
serial path with itself.
"""

import importlib.util
import pathlib
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import is_classifier

import graphrkhs as gr
from graphrkhs._core.backend import get_backend
from graphrkhs.distributed import mpi_world_size

_spec = importlib.util.spec_from_file_location(
    "_metamorphic", pathlib.Path(__file__).parents[1] / "estimators" / "test_metamorphic.py")
mm = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mm)

#: the estimators with a ``backend`` parameter
DIST = [E for E in mm.ALL if "backend" in E().get_params()]
CLASSIFIERS = [E for E in DIST if is_classifier(E())]
RTOL = 1e-8

pytestmark = pytest.mark.filterwarnings("ignore::graphrkhs.GraphRKHSWarning")


def _kw(E, **kw):
    """CG on the ranks (``preconditioner="amg"``: "auto" factorizes these small systems on every rank) to
    tol 1e-10, and a fixed alpha for Laplacian regularization (its "auto" selection is serial: LOO)."""
    params = E().get_params()
    if "preconditioner" in params:
        kw.setdefault("preconditioner", "amg")
        kw.setdefault("tol", 1e-10)
    if E.__name__.startswith("LaplacianRegularization"):
        kw.setdefault("alpha", 0.5)
    return kw


def _fit(E, W, t, backend, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", gr.GraphRKHSWarning)
        return mm._est(E, graph="precomputed", backend=backend, **_kw(E, **kw)).fit(W, t)


def _graph(E, n_free=0):
    """The kNN graph of the serial identities' problem and E's targets (``mm._fitted_on_graph`` unfitted)."""
    X, y, labeled = mm._problem(n_free)
    return gr.knn_graph(X, 6), mm._targets(E, y, labeled)


@pytest.fixture(params=["mpi", "dask"])
def backend(request):
    """The distributed backend under test; Dask in the one-process pass only, on conftest's client."""
    if request.param == "dask":
        if mpi_world_size() > 1:
            pytest.skip("the Dask tests run in the plain pytest pass (one process), not on every MPI rank")
        request.getfixturevalue("client")
    return request.param


@pytest.fixture
def used(monkeypatch, backend):
    """The names of the backend's methods (``solve_spd``, ``prepare``) called since the test began."""
    impl, calls = get_backend(backend), []
    for method in ("solve_spd", "prepare"):
        monkeypatch.setattr(impl, method, lambda *a, _f=getattr(impl, method), _m=method, **k:
                            calls.append(_m) or _f(*a, **k))
    return calls


def _assert_close(a, b, rtol=RTOL):
    for key in a:
        if a[key].dtype.kind in "iuOU":
            np.testing.assert_array_equal(b[key], a[key], err_msg=key)
        else:
            scale = np.abs(a[key]).max()
            np.testing.assert_allclose(b[key], a[key], rtol=rtol, atol=rtol * scale, err_msg=key)


@pytest.mark.parametrize("E", DIST, ids=mm._ids)
def test_the_fit_is_the_serial_fit_and_the_same_on_every_rank(E, backend, comm, used):
    # on the graph with a component no label reaches (its nodes get the class prior): graph_kernel_tv wrote
    # it into the kernel product f = Phi s, which the Dask operator returned read-only ("assignment
    # destination is read-only")
    W, t = _graph(E, n_free=8)
    out = mm._outputs(_fit(E, W, t, backend))
    assert used
    _assert_close(mm._outputs(_fit(E, W, t, "numpy")), out)
    blobs = comm.allgather(b"".join(np.ascontiguousarray(v).tobytes() for _, v in sorted(out.items())))
    assert blobs == [blobs[0]] * comm.size


@pytest.mark.parametrize("E", DIST, ids=mm._ids)
def test_permuting_the_nodes_permutes_every_output(E, backend, used):
    W, t = _graph(E)
    a = mm._outputs(_fit(E, W, t, backend))
    perm = np.random.default_rng(5).permutation(W.shape[0])
    b = mm._outputs(_fit(E, sp.csr_array(W.toarray()[perm][:, perm]), t[perm], backend))
    assert used
    # the partition of the permuted graph differs; the kernel methods' Chebyshev sums round differently in
    # another node order (7e-11 serially too): the serial identity's 1e-6
    _assert_close({k: v[perm] for k, v in a.items()}, b, rtol=mm.RTOL)


@pytest.mark.parametrize("names", [["c", "a", "b"], [12, -3, 7]], ids=["strings", "integers"])
@pytest.mark.parametrize("E", CLASSIFIERS, ids=mm._ids)
def test_renaming_the_classes_renames_the_decisions(E, names, backend, used):
    # codes 0, 1, 2 renamed, the priors given by name: sorted, b's column j is the serial fit's column
    # order[j], whatever the names' type
    W, t = _graph(E)
    names = np.array(names, dtype=object)
    order = np.argsort(names.astype(str if isinstance(names[0], str) else int))
    priors = [0.5, 0.3, 0.2]
    a = _fit(E, W, t, "numpy", class_priors=priors)
    b = _fit(E, W, np.where(t == -1, -1, names[np.maximum(t, 0)]).astype(object), backend,
             class_priors=dict(zip(names, priors)))
    assert used
    np.testing.assert_array_equal(b.classes_, names[order])
    out_a, out_b = mm._outputs(a), mm._outputs(b)
    out_a["transduction_"] = names[out_a["transduction_"]]
    for key in ("scores_", "label_distributions_"):
        out_a[key] = out_a[key][:, order]
    _assert_close(out_a, out_b)


@pytest.mark.parametrize("E", DIST, ids=mm._ids)
def test_the_units_of_the_edge_weights_change_no_decision(E, backend, used):
    # c W with alpha / c (alpha in the units of W) is the same problem: the same labels, the regressors the
    # same fit; c = 2^-600 puts the squares of CG's residuals below the smallest float (and 2^600 passed as
    # well: one value keeps the Dask pass short)
    W, t = _graph(E, n_free=8)
    c = 2.0 ** -600
    kw = {"alpha": 0.5 / c} if E.__name__.startswith("LaplacianRegularization") else {}
    a, b = _fit(E, W, t, backend), _fit(E, W * c, t, backend, **kw)
    assert used
    if is_classifier(a):
        np.testing.assert_array_equal(b.transduction_, a.transduction_)
    else:
        np.testing.assert_allclose(b.transduction_, a.transduction_, rtol=RTOL,
                                   atol=RTOL * np.abs(a.transduction_).max())


def _bad_inputs(E):
    X, y, labeled = mm._problem()
    W = gr.knn_graph(X, 6)
    t = mm._targets(E, y, labeled)
    X_nan = X.copy()
    X_nan[5, 0] = np.nan
    W_nan = W.copy()
    W_nan.data[3] = np.nan
    cases = {
        "nan_X": (X_nan, t, {"graph": "knn"}, "X contains NaN"),
        "nan_W": (W_nan, t, {}, "NaN or infinite weights"),
        "no_labels": (W, np.full(t.shape, -1 if is_classifier(E()) else np.nan), {}, "no labeled samples"),
    }
    if is_classifier(E()):
        # -1 is the unlabeled marker: labels in {-1, +1} leave one class, and the message says so
        cases["labels_pm1"] = (W, np.where(t >= 1, 1, -1), {}, "only one class .* marker")
        # class 2 unlabeled: no class of its own, so three priors are one too many
        cases["empty_class"] = (W, np.where(t == 2, -1, t), {"class_priors": [0.5, 0.3, 0.2]},
                                "class_priors must have one entry per class")
    return cases


_BAD = [(E, case) for E in DIST for case in _bad_inputs(E)]


@pytest.mark.parametrize("E, case", _BAD, ids=lambda v: v.__name__ if isinstance(v, type) else v)
def test_bad_input_raises_the_same_error_on_every_rank(E, case, backend, comm, used):
    X, t, kw, match = _bad_inputs(E)[case]
    kw.setdefault("graph", "precomputed")
    with pytest.raises(ValueError, match=match) as err:
        mm._est(E, backend=backend, **_kw(E, **kw)).fit(X, t)
    assert not used                  # refused before the backend (so before any collective operation)
    messages = comm.allgather(str(err.value))
    assert messages == [messages[0]] * comm.size


def _products(backend):
    """Phi X, Phi x, Phi[:, idx] and the filter of X by the entry points on ``backend``."""
    L = gr.laplacian(_graph(gr.GraphKernelRidgeRegressor)[0], "normalized")
    X = np.random.default_rng(1).normal(size=(L.shape[0], 2))
    K = gr.GraphKernel(L, gr.filters.Heat(2.0), input="laplacian", backend=backend)
    return {"chebyshev_filter": gr.chebyshev_filter(L, gr.filters.Heat(2.0), X, backend=backend),
            "matmat": K.matmat(X), "matvec": K.matvec(X[:, 0]), "columns": K.columns([0, 5])}


def test_products_are_writeable_arrays_as_serially(backend):
    # the serial entry points return arrays the caller owns: the Dask backend's chebyshev_filter, matmat and
    # matvec were read-only (views of the Chebyshev bank taken while its value was on the workers)
    serial, out = _products("numpy"), _products(backend)
    _assert_close(serial, out, rtol=1e-12)
    assert {k: v.flags.writeable for k, v in out.items()} == dict.fromkeys(serial, True)


@pytest.mark.parametrize("preconditioner", [None, "amg"])
def test_cg_meets_the_forward_error_of_the_serial_solve(backend, preconditioner):
    # CG's residual test bounds the error only to cond(A) times tol: the serial solve iterates on until its
    # Lanczos estimate of the forward error meets tol and refines on the row-normalized residual
    # (tests/solvers/test_cg_forward_error.py, whose outlier graph this is, of 300 Gaussian points and 6 outliers
    # at radius 6.5-7.8: cond(L_UU) = 2.6e12); plain CG with backend="mpi" stopped at the residual, and with
    # backend="dask" the harmonic solution was 0.18 off, without a warning (Dask's CG has no forward-error
    # estimate: the refinement, which every backend shares, is what brings it to tol).  On the graph of 600
    # points at radius 5.5 used first, Dask's CG without the refinement now meets 1e-6 by itself, so that it
    # no longer showed that defect, and its Dask solves took longer (242 s against 186 s side by side, loaded).
    # 150 points and 3 outliers at radius 6.5-7.8: CG alone 0.28 off, 84 + 105 CG iterations with the refinement
    # where the 300 points and 6 outliers used before took 106 + 419 (a Dask iteration is a round of task hops)
    spec = importlib.util.spec_from_file_location(
        "_cg_forward_error", pathlib.Path(__file__).parents[1] / "solvers" / "test_cg_forward_error.py")
    fe = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fe)
    W, S, Y = fe._outlier_graph(150, 3, 6.5, 5, 0)
    F_ref = fe._dense_harmonic(W, S, Y)
    with warnings.catch_warnings():
        warnings.simplefilter("error", gr.AccuracyWarning)
        F = gr.harmonic_solution(W, S, Y, preconditioner=preconditioner, tol=1e-8, backend=backend)
    assert np.abs(F - F_ref).max() <= 1e-6 * np.abs(F_ref).max()


def _forward_error_module():
    spec = importlib.util.spec_from_file_location(
        "_cg_forward_error", pathlib.Path(__file__).parents[1] / "solvers" / "test_cg_forward_error.py")
    fe = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fe)
    return fe


def test_jacobi_cg_gets_the_serial_correction_test(backend, monkeypatch):
    # outliers (radius 7-8.4) linked more to each other than to the cloud: a nearly disconnected part whose
    # common value no residual sees.  Jacobi-preconditioned distributed CG met tol 1e-8 and the row-normalized
    # refinement with the harmonic solution 6.2e-2 off (400 points and 20 outliers, Dask and 2 MPI ranks),
    # silently; serial Jacobi is 8e-10 off through its correction test (tests/solvers/test_cg_forward_error.py),
    # which the distributed solves now share (its rough solves serial: on the driver, or on rank 0 and broadcast).
    # The graph of 2000 nodes at radius 5.5 that showed it first (2.6e-7 off) took 470 Dask CG iterations against
    # 274 on those 400 points; the 200 points with 10 outliers here show it too (0.28 off without the correction
    # test, Dask and MPI) with a sixth of the Jacobi CG iterations (52 against 293 for the solve and its
    # refinement, counted serially): a Dask iteration is a round of task hops, whatever the graph's size
    fe = _forward_error_module()
    W, S, Y = fe._outlier_graph(200, 10, 7.0, 5, 0)
    F_ref = fe._refined_harmonic(W, S, Y)
    impl = get_backend(backend)
    calls = []
    monkeypatch.setattr(impl, "solve_spd", lambda *a, _f=impl.solve_spd: calls.append(1) or _f(*a))
    with warnings.catch_warnings():
        warnings.simplefilter("error", gr.AccuracyWarning)
        F = gr.harmonic_solution(W, S, Y, preconditioner="jacobi", tol=1e-8, backend=backend)
    assert calls                                   # the backend's CG, not the serial path
    assert np.abs(F - F_ref).max() <= 10 * 1e-8 * np.abs(F_ref).max()


def test_distributed_solves_warn_where_the_serial_solve_does(backend):
    # 20 linked outliers (radius 9-10.8) next to 400 points: float64's limit there (degrees down to 7.6e-15; a
    # direct solve is 1.2e-5 off); the Jacobi distributed solve is 2.5e-5 (1 MPI rank) to 6.6e-5 (Dask, 2 ranks)
    # off and now says so, as the serial one does (8.5e-5); without the correction test it said nothing.  The
    # graph of 1520 nodes at radius 5.5 that showed it first took 656 Dask CG iterations against 354 on those 400
    # points.  10 outliers at radius 8-9.6 next to 300 points (seed 0) show it too (serially 8.8e-6 off, and a
    # warning) with an eighth of the Jacobi CG iterations (48 against 390 for the solve and its refinement,
    # counted serially): a Dask iteration is a round of task hops, whatever the graph's size
    fe = _forward_error_module()
    W, S, Y = fe._outlier_graph(300, 10, 8.0, 5, 0)
    F_ref = fe._refined_harmonic(W, S, Y)
    with pytest.warns(gr.AccuracyWarning, match="a correction of its solution is still"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", gr.ConvergenceWarning)
            F = gr.harmonic_solution(W, S, Y, preconditioner="jacobi", tol=1e-8, backend=backend)
    assert np.abs(F - F_ref).max() > 10 * 1e-8 * np.abs(F_ref).max()      # not a false alarm
