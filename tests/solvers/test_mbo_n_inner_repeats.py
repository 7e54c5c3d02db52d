"""MBO heat steps that would only repeat earlier ones are skipped, with the same result bit for bit.

``n_inner`` had no bound and every step ran: ``n_inner=10**9`` on 12 nodes ran for hours (killed after
60 s in both solvers), although the iterates stopped changing after about 60 steps, and volume_mbo's
warning that the diffused indicators had become constant came only after all the steps.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import graphrkhs as g
import graphrkhs.solvers._mbo as mbo
from graphrkhs.solvers import poisson_mbo, volume_mbo

HUGE = 10**9


def _interleaved_cliques(m=6, across=0.3):
    """Two dense classes of m nodes, interleaved (node i in class i % 2): weights 1 within, ``across`` between."""
    y = np.tile([0, 1], m)
    W = np.where(y[:, None] == y[None], 1.0, across)
    np.fill_diagonal(W, 0.0)
    return W, y


def _cycle4_steps():
    """I - tau L of the cycle 0-1-2-3-0 (unit weights, tau = 1/2): A / 2, each node the mean of its two neighbours."""
    A = np.roll(np.eye(4), 1, axis=1)
    return sp.csr_array((A + A.T) / 2.0)


def test_heat_steps_of_a_bipartite_cycle_jump_to_the_step_of_the_same_parity():
    # on the 4-cycle, A / 2 maps the indicators of {0, 2} and {1, 3} onto each other: exact in float64 (means
    # of 0 and 1), so the iterates alternate with period 2 from the start, and after n steps they are the
    # start for even n and the columns swapped for odd n -- also for n = 10**9, whose steps are skipped
    P = _cycle4_steps()
    U0 = np.eye(2)[[0, 1, 0, 1]]
    for n in (HUGE, HUGE + 1, 6, 7):
        U, repeat = mbo._heat_steps(P, U0, n)
        np.testing.assert_array_equal(U, U0 if n % 2 == 0 else U0[:, ::-1])
        assert repeat == (2, 2)       # U_4 = U_2: found at step 4 against the kept iterate of step 2
    # with a forcing f (quarters, zero column sums) from 1/2 everywhere: P maps constants to themselves, so
    # step 1 gives 1/2 + f, step 2 1/2 + f + P f, and P (f + P f) = 0 (worked by hand: node i's neighbours
    # i +- 1 cancel), so step 3 gives 1/2 + f again -- a cycle of 2 steps, exact in float64
    f = np.array([[0.25, -0.25], [0.0, 0.0], [0.25, -0.25], [-0.5, 0.5]])
    odd = 0.5 + f
    even = np.array([[0.5, 0.5], [0.75, 0.25], [0.5, 0.5], [0.25, 0.75]])     # 1/2 + f + P f
    for n in (HUGE, HUGE + 1, 2, 3):
        U, repeat = mbo._heat_steps(P, np.full((4, 2), 0.5), n, f)
        np.testing.assert_array_equal(U, even if n % 2 == 0 else odd)
        assert repeat is None if n < 4 else repeat[1] == 2     # found by step 4 (checkpoint 2, compared at 4)


def test_heat_steps_run_every_step_when_the_iterates_never_repeat():
    # a forcing with a nonzero mean adds it to every node at each step: U grows linearly and never repeats,
    # so all steps run: after n steps from 0 with f = 1 everywhere on the 4-cycle, n at every node (exact)
    P = _cycle4_steps()
    U, repeat = mbo._heat_steps(P, np.zeros((4, 2)), 37, np.ones((4, 2)))
    np.testing.assert_array_equal(U, np.full((4, 2), 37.0))
    assert repeat is None


def test_volume_mbo_with_a_huge_n_inner_stops_at_the_repeat_and_warns_once():
    # 12 dense nodes: the slowest mode of I - tau L decays by 0.7 a step, so the diffused indicators are
    # constant to rounding after about 100 steps and the iterates repeat (a fixed point in float64) by step 64;
    # with n_inner=10**9 every round ran all the steps before (hours), and then warned
    W, y = _interleaved_cliques()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        F, info = volume_mbo(W, [0, 1], np.eye(2), n_inner=HUGE, return_info=True)
    assert len(caught) == 1 and caught[0].category is g.GraphRKHSWarning
    message = str(caught[0].message)
    assert message.startswith(r"volume_mbo: the heat steps repeated from step ")
    c = int(message.split("repeated from step ")[1].split(" ")[0])
    assert f"on (a fixed point in floating point; n_inner={c} gives the same result), so the rest of the " \
           f"n_inner={HUGE} steps were skipped; after them the diffused class indicators are constant to " in message
    assert "lower n_inner (to about " in message
    # the same result as n_inner=c and as a moderate n_inner past the repeat, which run every step
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        F_c = volume_mbo(W, [0, 1], np.eye(2), n_inner=c)
        F_500 = volume_mbo(W, [0, 1], np.eye(2), n_inner=500)
    np.testing.assert_array_equal(F, F_c)
    np.testing.assert_array_equal(F, F_500)
    np.testing.assert_array_equal(F.argmax(axis=1), y)        # the start's labels kept (ties), the two cliques
    assert info["converged"]


def test_poisson_mbo_with_a_huge_n_inner_stops_at_the_steady_state_and_warns():
    W, y = _interleaved_cliques()
    with pytest.warns(g.GraphRKHSWarning, match=r"poisson_mbo: the forced heat steps reached their steady state in "
                      r"floating point by step (\d+) \(a fixed point: later steps repeat it\), so the rest of the "
                      r"n_inner=1000000000 steps were skipped, with the same result \(as n_inner=\1\)\..*"
                      r"lower n_inner \(below \1;") as record:
        F = poisson_mbo(W, [0, 1], np.eye(2), n_inner=HUGE)
    assert sum(w.category is g.GraphRKHSWarning for w in record) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        F_500 = poisson_mbo(W, [0, 1], np.eye(2), n_inner=500)
    np.testing.assert_array_equal(F, F_500)
    np.testing.assert_array_equal(F.argmax(axis=1), y)


@pytest.mark.parametrize("cls", [g.VolumeMBOClassifier, g.PoissonMBOClassifier])
def test_mbo_classifiers_with_a_huge_n_inner_finish(cls):
    W, y = _interleaved_cliques()
    yy = np.full(12, -1)
    yy[:2] = y[:2]
    with pytest.warns(g.GraphRKHSWarning, match="n_inner=1000000000"):
        est = cls(graph="precomputed", n_inner=HUGE).fit(W, yy)
    np.testing.assert_array_equal(est.transduction_, y)


def _plain_steps(P, U, n_steps, force=None):
    """The steps as before the early stop: every one of them."""
    for _ in range(n_steps):
        U = P @ U if force is None else P @ U + force
    return U, None


@pytest.mark.parametrize("solver", [poisson_mbo, volume_mbo])
@pytest.mark.parametrize("n_inner", [1, 40, 100])
def test_mbo_results_are_those_of_every_step_bit_for_bit(solver, n_inner, monkeypatch):
    # three Gaussian blobs, 10-NN graph: the iterates never repeat within these n_inner, and the result is
    # bit for bit that of the plain loop of steps (the code before the early stop)
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(0, 1, (60, 2)), rng.normal(3, 1, (60, 2)), rng.normal((0, 4), 1, (40, 2))]
    y = np.repeat([0, 1, 2], [60, 60, 40])
    W = g.knn_graph(X, 10)
    S = np.r_[0, 1, 60, 61, 120, 121]
    F = solver(W, S, np.eye(3)[y[S]], n_inner=n_inner, max_iter=10)
    monkeypatch.setattr(mbo, "_heat_steps", _plain_steps)
    F_plain = solver(W, S, np.eye(3)[y[S]], n_inner=n_inner, max_iter=10)
    np.testing.assert_array_equal(F, F_plain)


@pytest.mark.parametrize("solver", [poisson_mbo, volume_mbo])
@pytest.mark.parametrize("n_inner", [1000, 1001])
def test_mbo_results_past_a_cycle_are_those_of_every_step_bit_for_bit(solver, n_inner, monkeypatch):
    # the cycle of 8 nodes (regular, bipartite: I - tau L has the eigenvalue -1) and the path of 10: the
    # iterates repeat (a cycle of 2 steps, a fixed point) within 1000 steps, and the result of the skipped
    # steps is that of every step, for either parity of n_inner
    C = np.roll(np.eye(8), 1, axis=1)
    path = np.diag(np.ones(9), 1)
    for W, S in ((C + C.T, [0, 3]), (path + path.T, [0, 9])):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            F = solver(W, S, np.eye(2), class_priors=[0.5, 0.5], n_inner=n_inner)
            with monkeypatch.context() as m:
                m.setattr(mbo, "_heat_steps", _plain_steps)
                F_plain = solver(W, S, np.eye(2), class_priors=[0.5, 0.5], n_inner=n_inner)
        np.testing.assert_array_equal(F, F_plain)
