"""The iterative graph solves hold their first solve's warnings per thread, not with a process-wide filter.

``_solve_spd`` held them in ``warnings.catch_warnings(record=True)``, which swaps the process's filters and
``showwarning``: two threads of ``tikhonov_solution(..., preconditioner="jacobi")`` (each solve entering and
leaving it in turn) left a recording ``showwarning`` and an "always" filter installed for good, and every later
warning of the process went to a list nobody reads (4 runs of 4).  Now a thread-local hold in graphrkhs' ``warn``.
"""
import threading
import warnings

import numpy as np

from graphrkhs import tikhonov_solution
from graphrkhs._core.validation import AccuracyWarning, warn


def _graph(n=300, seed=1):
    rng = np.random.default_rng(seed)
    A = np.triu(rng.random((n, n)) < 0.02, 1) * 1.0
    A[np.arange(n - 1), np.arange(1, n)] = 1.0
    return A + A.T


def test_iterative_solves_in_two_threads_leave_the_warnings_machinery_alone():
    W = _graph()
    show, filters = warnings._showwarnmsg_impl, list(warnings.filters)
    F = {}

    def work(k):
        for _ in range(8):
            F[k] = tikhonov_solution(W, [0, 1], np.array([0.0, 1.0]), alpha=0.1, preconditioner="jacobi")

    threads = [threading.Thread(target=work, args=(k,)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert warnings._showwarnmsg_impl is show
    assert warnings.filters == filters
    # the threaded solves are the solve of this thread (same system, same path)
    np.testing.assert_array_equal(F[0], F[1])
    np.testing.assert_array_equal(F[0], tikhonov_solution(W, [0, 1], np.array([0.0, 1.0]), alpha=0.1,
                                                          preconditioner="jacobi"))


def test_held_warnings_hold_this_threads_warnings_only_and_nest():
    from graphrkhs._core.validation import held_warnings     # new with the fix

    seen = {}

    def other():
        with warnings.catch_warnings(record=True) as said:   # only this thread warns meanwhile
            warnings.simplefilter("always")
            warn("from the other thread", AccuracyWarning)
        seen["other"] = said

    with held_warnings() as outer:
        with held_warnings() as inner:
            warn("held", AccuracyWarning)
            t = threading.Thread(target=other)
            t.start()
            t.join()
        warn(inner[0])                     # re-emitted: to the outer hold
    assert [(type(w), str(w)) for w in outer] == [(AccuracyWarning, "held")]
    assert [str(w.message) for w in seen["other"]] == ["from the other thread"]
