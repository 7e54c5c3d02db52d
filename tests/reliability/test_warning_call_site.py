"""Every graphrkhs warning names the user's line, whatever path inside graphrkhs reached it.

The warnings used hand-counted ``stacklevel`` numbers, right for one call path and wrong for others: the CG
forward-error AccuracyWarning named the user's line from ``harmonic_solution`` but a line of
``solvers/_graph.py`` from ``tikhonov_solution`` (one frame deeper) and a line of ``estimators/_transductive.py``
from ``LaplacianRegularizationRegressor(alpha=0).fit``.  Each case below calls the library from this file and
asserts the warning's filename is this file.
"""

import os
import re
import threading
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import graphrkhs as g
from graphrkhs import AccuracyWarning, ConvergenceWarning, GraphRKHSWarning, GraphWarning, SelectionWarning
from graphrkhs._core import validation
from graphrkhs.solvers import poisson_mbo


def _outlier_graph(n=800, radius=6.5):
    # n Gaussian points and 20 outliers at radius 1-1.2 x ``radius``, linked to each other more than to the cloud.
    # 800 at 6.5: plain CG meets its residual test but not its forward-error estimate
    # (tests/solvers/test_cg_forward_error.py); every cg_forward case warns with an estimate of 1e-2 - 1.5e-1
    # against tol 1e-8.  800 at 9.0: also the row-normalized residual of the refinement stays above 10 tol (its
    # own AccuracyWarning, which 800 at 6.5 does not raise; two outliers form components of their own, whose
    # GraphWarnings the same case checks), in 0.9 s of CPU where 1500 at 5.5, used before, took 7.5 s
    rng = np.random.default_rng(1)
    X = rng.normal(size=(n, 3))
    D = rng.normal(size=(20, 3))
    D /= np.linalg.norm(D, axis=1)[:, None]
    X = np.r_[X, radius * D * rng.uniform(1.0, 1.2, (20, 1))]
    W = g.knn_graph(X, 8)
    S = rng.choice(n, 5, replace=False)
    return W, S, rng.normal(size=(5, 2))


_CACHE = {}


def _outliers():
    if "outliers" not in _CACHE:
        _CACHE["outliers"] = _outlier_graph()
    return _CACHE["outliers"]


def _regression_targets(W, S, Y):
    y = np.full(W.shape[0], np.nan)
    y[S] = Y[:, 0]
    return y


def _sine():
    X = np.linspace(0, 3, 40)[:, None]
    y = np.full(40, np.nan)
    y[::3] = np.sin(X[::3, 0])
    return X, y


def _two_blocks():
    W = np.zeros((8, 8))
    W[:4, :4] = W[4:, 4:] = 1.0
    W[3, 4] = W[4, 3] = 0.1
    np.fill_diagonal(W, 0.0)
    return W


def _blobs(m=21):
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(0.0, 0.1, (m, 2)), rng.normal(0.0, 0.1, (m, 2)) + [5.0, 0.0]]
    y = np.full(2 * m, -1)
    y[0] = 0                       # 1 label of class 0 against 20 of class 1
    y[m:2 * m - 1] = 1
    return X, y


def _points(n=30):
    return np.random.default_rng(3).normal(size=(n, 2))


# Each case calls the library on a line of this file and names the warning it expects there.
def cg_forward_harmonic():
    W, S, Y = _outliers()
    g.harmonic_solution(W, S, Y, preconditioner=None, tol=1e-8)
    return AccuracyWarning, "estimated relative forward error"


def cg_forward_tikhonov():
    W, S, Y = _outliers()
    g.tikhonov_solution(W, S, Y, alpha=1e-6, preconditioner=None, tol=1e-8)
    return AccuracyWarning, "estimated relative forward error"


def cg_forward_tikhonov_alpha0():
    W, S, Y = _outliers()
    g.tikhonov_solution(W, S, Y, alpha=0.0, preconditioner=None, tol=1e-8)
    return AccuracyWarning, "estimated relative forward error"


def cg_forward_estimator():
    W, S, Y = _outliers()
    g.LaplacianRegularizationRegressor(alpha=1e-6, preconditioner=None, graph="precomputed").fit(
        W, _regression_targets(W, S, Y))
    return AccuracyWarning, "estimated relative forward error"


def cg_forward_estimator_alpha0():
    W, S, Y = _outliers()
    g.LaplacianRegularizationRegressor(alpha=0.0, preconditioner=None, graph="precomputed").fit(
        W, _regression_targets(W, S, Y))
    return AccuracyWarning, "estimated relative forward error"


def cg_row_normalized_residual():
    W, S, Y = _outlier_graph(800, 9.0)
    g.tikhonov_solution(W, S, Y, alpha=0.0, preconditioner=None, tol=1e-8)
    return AccuracyWarning, "row-normalized residual"


def selection_edge_rls():
    X, y = _sine()
    g.RLSRegressor(sigma=[0.5, 1.0]).fit(X, y)
    return SelectionWarning, r"sigma=1 is at the edge of its grid \[0.5, 1\]"


def selection_edge_laprls():
    X, y = _sine()
    g.LapRLSRegressor(sigma=[0.5, 1.0], gamma_A=1e-6, gamma_I=1e-3, n_neighbors=5).fit(X, y)
    return SelectionWarning, "sigma=1 is at the edge"


def selection_edge_grls():
    X, y = _sine()
    g.GRLSRegressor(sigma=1.0, gamma=[0.1, 1.0]).fit(X, y)
    return SelectionWarning, r"the selected gamma=0.1 is at the edge of its grid \[0.1, 1\]"


def convergence_kernel_cg():
    X, y = _sine()
    S = np.flatnonzero(~np.isnan(y))
    W = g.knn_graph(X, 5)
    g.laprls_fit(g.pairwise_kernel(X, sigma=1.0), S, y[S], g.graph_penalty(W), 1e-6, 5.0, solver="cg",
                 tol=1e-12, max_iter=2)
    return ConvergenceWarning, "did not reach"


def convergence_plain_cg():
    A = sp.diags_array(np.linspace(1.0, 100.0, 50)).tocsr()
    g.conjugate_gradient(A, np.ones(50), tol=1e-12, max_iter=2)
    return ConvergenceWarning, "did not reach"


def convergence_amg_breakdown():
    W = np.zeros((6, 6))
    for i, j, w in [(0, 1, 1e-16), (0, 3, 1e-16), (0, 5, 1e-16), (1, 4, 1.0), (3, 4, 1e-8)]:
        W[i, j] = W[j, i] = w
    g.poisson_learning(W, [5, 3, 4], np.eye(2)[[0, 1, 0]], preconditioner="amg")
    return ConvergenceWarning, "AMG preconditioner broke down"


def label_proportions_solver():
    poisson_mbo(_two_blocks(), [0, 4, 5, 6], np.eye(2)[[0, 1, 1, 1]])
    return GraphRKHSWarning, "class_priors is None"


def label_proportions_estimator():
    X, y = _blobs()
    g.PoissonMBOClassifier(n_neighbors=5).fit(X, y)
    return GraphRKHSWarning, "class_priors is None"


def graph_tiny_sigma():
    g.knn_graph(_points(), 4, sigma=1e-6)
    return GraphWarning, "nodes lost every edge"


def graph_tiny_sigma_epsilon():
    g.epsilon_graph(_points(), 1.5, sigma=1e-6)
    return GraphWarning, "nodes lost every edge"


def graph_tiny_sigma_estimator():
    X = _points()
    y = np.full(30, np.nan)
    y[:5] = 1.0
    g.LaplacianRegularizationRegressor(alpha=1.0, sigma=1e-6, n_neighbors=4).fit(X, y)
    return GraphWarning, "nodes lost every edge"


def graph_self_loops():
    g.as_adjacency(_two_blocks() + np.eye(8))
    return GraphWarning, "self-loops"


def graph_self_loops_symmetrize():
    g.symmetrize(_two_blocks() + np.eye(8))
    return GraphWarning, "self-loops"


def graph_unlabeled_component():
    W = _two_blocks()
    W[3, 4] = W[4, 3] = 0.0
    g.harmonic_solution(W, [0, 1], np.eye(2))
    return GraphWarning, "without any labeled node"


def knn_sparse_algorithm_fallback():
    g.knn_graph(sp.csr_array(_points()), 4, algorithm="pynndescent")
    return RuntimeWarning, "takes dense points only"


def column_vector_labels():
    X, y = _blobs()
    g.RLSClassifier(sigma=1.0, alpha=1e-3).fit(X, y[:, None])
    return Warning, "column-vector y"


def moved_lmax_attribute():
    import graphrkhs.graphs
    graphrkhs.graphs.lmax
    return FutureWarning, "moved to graphrkhs.spectral.lmax"


def moved_lmax_from_import():
    from graphrkhs.graphs import lmax  # noqa: F401
    return FutureWarning, "moved to graphrkhs.spectral.lmax"


CASES = [cg_forward_harmonic, cg_forward_tikhonov, cg_forward_tikhonov_alpha0, cg_forward_estimator,
         cg_forward_estimator_alpha0, cg_row_normalized_residual, selection_edge_rls, selection_edge_laprls, selection_edge_grls,
         convergence_kernel_cg, convergence_plain_cg, convergence_amg_breakdown, label_proportions_solver,
         label_proportions_estimator, graph_tiny_sigma, graph_tiny_sigma_epsilon, graph_tiny_sigma_estimator,
         graph_self_loops, graph_self_loops_symmetrize, graph_unlabeled_component, knn_sparse_algorithm_fallback,
         column_vector_labels, moved_lmax_attribute, moved_lmax_from_import]


def _run(case):
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        category, match = case()
    found = [w for w in record if issubclass(w.category, category) and re.search(match, str(w.message))]
    return record, found


@pytest.mark.parametrize("case", CASES, ids=[c.__name__ for c in CASES])
def test_warning_names_the_callers_line(case):
    record, found = _run(case)
    assert found, f"{case.__name__}: expected warning not raised; got {[str(w.message)[:80] for w in record]}"
    assert [w.filename for w in found] == [__file__] * len(found), [(w.filename, w.lineno) for w in found]
    # and not just the file: the line inside the case function, below its def
    first = case.__code__.co_firstlineno
    assert all(first < w.lineno <= first + 12 for w in found), [w.lineno for w in found]
    # not only the one the case is about: no warning emitted on the way points into the package (checked on the
    # same run: a separate test re-ran every case, 36 s of the suite)
    package = os.path.dirname(os.path.abspath(g.__file__)) + os.sep
    inside = [(w.category.__name__, w.filename, w.lineno) for w in record
              if os.path.abspath(w.filename).startswith(package)]
    assert not inside, inside


def test_warning_from_a_thread_names_the_callers_line():
    # a graphrkhs call in a worker thread: the thread's frames start in threading.py, then this file
    record = []

    def work():
        record.extend(_run(graph_self_loops)[1])

    t = threading.Thread(target=work)
    t.start()
    t.join()
    assert [w.filename for w in record] == [__file__]


def test_stack_entirely_inside_the_package_still_warns(monkeypatch):
    # a stack with no frame outside the package (a thread graphrkhs started, a frozen application): the walk
    # runs off the top of the stack (frame None) and the warning names the line that called warn instead of failing
    monkeypatch.setattr(validation, "_PACKAGE_DIR", "/")
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        validation.warn("a message", GraphWarning)
    assert len(record) == 1 and record[0].category is GraphWarning and str(record[0].message) == "a message"
    assert record[0].filename == __file__


def test_warning_to_code_without_source_is_shown_not_raised():
    # `python -c`, piped stdin and the interactive prompt run as __main__ with __loader__ BuiltinImporter and
    # filename "<string>"/"<stdin>": passing those globals as warn_explicit's module_globals made linecache ask
    # the loader for the source, which raised ImportError("'__main__' is not a built-in module") -- the fit
    # failed instead of warning.  warnings.warn does not pass them; the warning must just be shown.
    import importlib.machinery
    namespace = {"__name__": "__main__", "__loader__": importlib.machinery.BuiltinImporter,
                 "warn": validation.warn, "GraphWarning": GraphWarning}
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        exec(compile("warn('a message', GraphWarning)", "<string>", "exec"), namespace)
    assert [(w.category, str(w.message), w.filename, w.lineno) for w in record] == [
        (GraphWarning, "a message", "<string>", 1)]


def test_warning_under_python_dash_c_reaches_stderr():
    # the same through a real `python -c`, with the default filters (the warning is printed)
    import subprocess
    import sys
    code = ("import numpy as np, graphrkhs as g; W = np.eye(3) + np.ones((3, 3)); "
            "g.laplacian(W); print('done')")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(g.__file__))))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "done"
    assert "<string>:1: GraphWarning" in out.stderr, out.stderr[-2000:]
