"""Estimator fits hold or drop their own warnings per thread, not with a process-wide warnings filter.

``PoissonRidgeEnsembleClassifier.fit`` (``warnings.catch_warnings(record=True)`` around each member),
``held_selection_warnings`` (``LapRLSRegressor().fit`` and the other selections), ``propose_labels_for``
(``simplefilter("ignore")``), ``unselected_gammas(..., warn_grid=False)`` and ``GraphTVClassifier`` (an "ignore"
filter around each cross-validation fold's fit, and around ``graph_kernel_tv`` with ``R="kernel"``) swapped the
process's filters and ``showwarning``: two threads entering and leaving them in turn left a recording
``showwarning`` or an "ignore" filter installed for good, and every later warning of the process was lost (the
defect ff87dc9 fixed in ``_solve_spd``).  Now :func:`~graphrkhs._core.validation.held_warnings`.

The threads are interleaved deterministically (thread A inside the hold, B enters, A leaves, B leaves: the order
that left the warnings machinery of A's entry installed), by a patched function that runs inside the hold.
"""
import threading
import warnings

import numpy as np
import pytest

import graphrkhs.estimators._active as active
import graphrkhs.estimators._inductive as inductive
import graphrkhs.estimators._transductive as transductive
import graphrkhs.solvers._lowrank as lowrank
from graphrkhs import (GraphTVClassifier, LapRLSRegressor, PoissonLearningClassifier, PoissonRidgeEnsembleClassifier,
                       propose_labels_for)
from graphrkhs._core.validation import SelectionWarning, warn
from graphrkhs.solvers import held_selection_warnings, release_selection_warnings


def _graph(n=40, seed=0):
    rng = np.random.default_rng(seed)
    A = np.triu(rng.random((n, n)) < 0.1, 1) * 1.0
    A[np.arange(n - 1), np.arange(1, n)] = 1.0
    y = np.full(n, -1)
    y[:10] = np.arange(10) % 2
    return A + A.T, y


def _interleaved(monkeypatch, owner, name, call):
    """Run ``call`` in threads A and B, A inside the hold (at its first call of ``owner.name``) while B enters
    it, and A leaving it before B; then check the process's warnings machinery is as before."""
    real = getattr(owner, name)
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()
    role = threading.local()

    def paused(*args, **kwargs):
        who = getattr(role, "who", None)
        if who is not None and not getattr(role, "paused", False):
            role.paused = True
            if who == "a":
                a_in.set()
                b_in.wait(10)
            else:
                b_in.set()
                a_out.wait(10)
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, paused)
    show, filters = warnings._showwarnmsg_impl, list(warnings.filters)
    errors = []

    def run(who):
        role.who = who
        try:
            if who == "b":
                a_in.wait(10)
            call()
        except Exception as exc:          # reported below
            errors.append(exc)
        finally:
            if who == "a":
                a_out.set()

    threads = [threading.Thread(target=run, args=(who,)) for who in "ab"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert a_in.is_set() and b_in.is_set()     # both threads were inside the hold together
    assert warnings._showwarnmsg_impl is show
    assert warnings.filters == filters
    # and a later warning of this thread is still said
    with pytest.warns(UserWarning, match="later"):
        warnings.warn("a later warning", UserWarning)


def test_poisson_ridge_fits_in_two_threads_leave_the_warnings_machinery_alone(monkeypatch):
    W, y = _graph()
    _interleaved(monkeypatch, transductive, "poisson_learning",
                 lambda: PoissonRidgeEnsembleClassifier(graph="precomputed").fit(W, y))


def test_held_selection_warnings_in_two_threads_leave_the_warnings_machinery_alone(monkeypatch):
    def select():
        return None

    box = type("Box", (), {"select": staticmethod(select)})

    def call():
        with held_selection_warnings() as held:
            box.select()
            warn("the selected sigma=1 is at the edge of its grid", SelectionWarning)
        assert len(held) == 1
        release_selection_warnings(held, drop=("sigma",))      # dropped: nothing said

    _interleaved(monkeypatch, box, "select", call)


def test_laprls_fits_in_two_threads_leave_the_warnings_machinery_alone(monkeypatch):
    # the fit's low-rank selection (select_grid within held_selection_warnings)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(24, 2))
    yr = X[:, 0] + 0.1 * rng.normal(size=24)
    _interleaved(monkeypatch, lowrank, "select_grid", lambda: LapRLSRegressor().fit(X, yr))


def test_propose_labels_for_in_two_threads_leaves_the_warnings_machinery_alone(monkeypatch):
    W, y = _graph()
    est = PoissonLearningClassifier(graph="precomputed").fit(W, y)
    _interleaved(monkeypatch, active, "split_classification_labels", lambda: propose_labels_for(est, W, y, 2))


def test_unselected_gammas_without_grid_warning_in_two_threads_leave_the_warnings_machinery_alone(monkeypatch):
    est = LapRLSRegressor(gamma_A=[1e-3, 1e-2, 1e-1], gamma_I=[1e-2, 1e-1])
    _interleaved(monkeypatch, inductive, "unselected",
                 lambda: inductive.unselected_gammas(est, 1e-2, 1e-1, warn_grid=False))
    # the grid warnings are dropped; the same call with them says them
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        assert inductive.unselected_gammas(est, 1e-2, 1e-1, warn_grid=False) == (1e-2, 1e-1)
    assert said == []
    with pytest.warns(SelectionWarning, match="gamma_A"):
        inductive.unselected_gammas(est, 1e-2, 1e-1)


def test_graph_tv_cross_validation_in_two_threads_leaves_the_warnings_machinery_alone(monkeypatch):
    W, y = _graph()
    _interleaved(monkeypatch, GraphTVClassifier, "_tv", lambda: GraphTVClassifier(graph="precomputed").fit(W, y))


def test_graph_tv_kernel_in_two_threads_leaves_the_warnings_machinery_alone(monkeypatch):
    W, y = _graph()
    _interleaved(monkeypatch, transductive, "graph_kernel_tv",
                 lambda: GraphTVClassifier(alpha=0.3, R="kernel", graph="precomputed").fit(W, y))
