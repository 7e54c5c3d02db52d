"""Metamorphic identities and serial agreement of the estimators that take ``backend="mpi"``.

The identities of ``tests/estimators/test_metamorphic.py`` (whose problem and helpers are reused), asked of
the MPI backend, under plain pytest (one rank) and under ``mpiexec -n 2`` (two partitions): the same fit on
1 and 2 ranks is the serial fit, so the answers with 1 and 2 ranks agree.

* agreement: ``backend="mpi"`` gives the serial (``"numpy"``) labels, and scores to 1e-8 relative: the
  systems are solved by AMG-preconditioned block CG to ``tol=1e-10`` (condition numbers of these 68-node
  graphs ~1e2: measured 1.6e-11 at most), the kernel columns by the serial Chebyshev recurrence on a
  distributed product (rounding, 4e-12); every rank holds the same bytes;
* node numbering, class names (strings, priors by name) and the units of W (``alpha / c`` on ``c W``, where
  ``alpha`` is in the units of W) as in the serial identities;
* bad input: the same ``ValueError`` on every rank, before any collective operation (a rank that raised
  while another waited in a collective would leave the run hanging: mpiexec's timeout is the check);
* the products come back as arrays the caller may write to, as serially.

The same agreement, node numbering and class names for ``backend="dask"`` on a two-worker LocalCluster,
in the one-process pass only (as ``test_dask.py``).

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


@pytest.fixture
def used(monkeypatch):
    """The distributed backends' methods called since the test began ("mpi.solve_spd", "dask.prepare", ...)."""
    calls = []
    for name in ("mpi", "dask"):
        impl = get_backend(name)
        for method in ("solve_spd", "prepare"):
            monkeypatch.setattr(impl, method, lambda *a, _f=getattr(impl, method), _m=f"{name}.{method}", **k:
                                calls.append(_m) or _f(*a, **k))
    return calls


def _assert_close(a, b, rtol=RTOL):
    for key in a:
        if a[key].dtype.kind in "iuOU":
            np.testing.assert_array_equal(b[key], a[key], err_msg=key)
        else:
            scale = np.abs(a[key]).max()
            np.testing.assert_allclose(b[key], a[key], rtol=rtol, atol=rtol * scale, err_msg=key)


def _same_on_every_rank(comm, outputs):
    blobs = comm.allgather(b"".join(np.ascontiguousarray(v).tobytes() for _, v in sorted(outputs.items())))
    assert all(blob == blobs[0] for blob in blobs)


@pytest.mark.parametrize("E", DIST, ids=mm._ids)
def test_mpi_fit_is_the_serial_fit_and_the_same_on_every_rank(E, comm, used):
    # the graph with a component no label reaches (its nodes get the class prior)
    W, t = _graph(E, n_free=8)
    out = mm._outputs(_fit(E, W, t, "mpi"))
    assert any(call.startswith("mpi.") for call in used)
    _assert_close(mm._outputs(_fit(E, W, t, "numpy")), out)
    _same_on_every_rank(comm, out)


@pytest.mark.parametrize("E", DIST, ids=mm._ids)
def test_mpi_permuting_the_nodes_permutes_every_output(E, used):
    W, t = _graph(E)
    a = mm._outputs(_fit(E, W, t, "mpi"))
    perm = np.random.default_rng(5).permutation(W.shape[0])
    b = mm._outputs(_fit(E, sp.csr_array(W.toarray()[perm][:, perm]), t[perm], "mpi"))
    assert any(call.startswith("mpi.") for call in used)
    # the partition of the permuted graph differs; the kernel methods' Chebyshev sums round differently in
    # another node order (7e-11 serially too): the serial identity's 1e-6
    _assert_close({k: v[perm] for k, v in a.items()}, b, rtol=mm.RTOL)


@pytest.mark.parametrize("E", CLASSIFIERS, ids=mm._ids)
def test_mpi_renaming_the_classes_renames_the_decisions(E, used):
    # codes 0, 1, 2 renamed "c", "a", "b", the priors given by name: b's column j is a's column [1, 2, 0][j]
    W, t = _graph(E)
    names = np.array(["c", "a", "b"], dtype=object)
    priors = [0.5, 0.3, 0.2]
    a = _fit(E, W, t, "mpi", class_priors=priors)
    b = _fit(E, W, np.where(t == -1, -1, names[np.maximum(t, 0)]).astype(object), "mpi",
             class_priors=dict(zip(names, priors)))
    assert any(call.startswith("mpi.") for call in used)
    np.testing.assert_array_equal(b.classes_, ["a", "b", "c"])
    out_a, out_b = mm._outputs(a), mm._outputs(b)
    out_a["transduction_"] = names[out_a["transduction_"]]
    for key in ("scores_", "label_distributions_"):
        out_a[key] = out_a[key][:, [1, 2, 0]]
    _assert_close(out_a, out_b)


@pytest.mark.parametrize("exponent", [-600, 13])
@pytest.mark.parametrize("E", DIST, ids=mm._ids)
def test_mpi_the_units_of_the_edge_weights_change_no_decision(E, exponent, used):
    # c W with alpha / c (alpha in the units of W) is the same problem: the same labels, the regressors the
    # same fit; 2^-600 puts the squares of CG's residuals below the smallest float
    W, t = _graph(E, n_free=8)
    c = 2.0 ** exponent
    kw = {"alpha": 0.5 / c} if E.__name__.startswith("LaplacianRegularization") else {}
    a, b = _fit(E, W, t, "mpi"), _fit(E, W * c, t, "mpi", **kw)
    assert any(call.startswith("mpi.") for call in used)
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
def test_mpi_bad_input_raises_the_same_error_on_every_rank(E, case, comm, used):
    X, t, kw, match = _bad_inputs(E)[case]
    kw.setdefault("graph", "precomputed")
    with pytest.raises(ValueError, match=match) as err:
        mm._est(E, backend="mpi", **_kw(E, **kw)).fit(X, t)
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


def test_mpi_products_are_writeable_arrays_as_serially(comm):
    # the serial entry points return arrays the caller owns; a read-only result broke a caller's in-place
    # update (the Dask backend's: graph_kernel_tv's orphan fill)
    assert {k: v.flags.writeable for k, v in _products("mpi").items()} == dict.fromkeys(_products("numpy"), True)

# ---------------------------------------------------------------------------
# Dask: the same identities on a LocalCluster (conftest's client), in the one-process pass only
# ---------------------------------------------------------------------------

one_process = pytest.mark.skipif(mpi_world_size() > 1, reason="the Dask tests run in the plain pytest pass "
                                                               "(one process), not on every MPI rank")


@one_process
@pytest.mark.parametrize("E", DIST, ids=mm._ids)
def test_dask_fit_is_the_serial_fit_in_any_node_order(E, client, used):
    # on the graph with a component no label reaches: graph_kernel_tv wrote the class prior into the kernel
    # product f = Phi s, which the Dask operator returned read-only ("assignment destination is read-only")
    W, t = _graph(E, n_free=8)
    out = mm._outputs(_fit(E, W, t, "dask"))
    assert any(call.startswith("dask.") for call in used)
    _assert_close(mm._outputs(_fit(E, W, t, "numpy")), out)
    perm = np.random.default_rng(5).permutation(W.shape[0])
    b = mm._outputs(_fit(E, sp.csr_array(W.toarray()[perm][:, perm]), t[perm], "dask"))
    _assert_close({k: v[perm] for k, v in out.items()}, b, rtol=mm.RTOL)


@one_process
@pytest.mark.parametrize("E", CLASSIFIERS, ids=mm._ids)
def test_dask_renaming_the_classes_renames_the_decisions(E, client):
    W, t = _graph(E)
    names = np.array(["c", "a", "b"], dtype=object)
    priors = [0.5, 0.3, 0.2]
    a = _fit(E, W, t, "numpy", class_priors=priors)
    b = _fit(E, W, np.where(t == -1, -1, names[np.maximum(t, 0)]).astype(object), "dask",
             class_priors=dict(zip(names, priors)))
    np.testing.assert_array_equal(b.classes_, ["a", "b", "c"])
    out_a, out_b = mm._outputs(a), mm._outputs(b)
    out_a["transduction_"] = names[out_a["transduction_"]]
    for key in ("scores_", "label_distributions_"):
        out_a[key] = out_a[key][:, [1, 2, 0]]
    _assert_close(out_a, out_b)


@one_process
def test_dask_products_are_writeable_arrays_as_serially(client):
    serial, dask = _products("numpy"), _products("dask")
    _assert_close(serial, dask, rtol=1e-12)
    assert {k: v.flags.writeable for k, v in dask.items()} == dict.fromkeys(serial, True)
