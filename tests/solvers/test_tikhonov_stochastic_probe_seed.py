"""select_tikhonov_solution(method="stochastic") scores its whole grid, extensions included, with one set of
probes, whatever random_state is (documented).

Only a Generator was turned into one seed: a legacy RandomState and None reached every evaluation of the grid
(the first grid and each extension), and check_random_state drew new probes each time, so that the points
of an extension were compared with the first grid's under other probes.  Oracle: the probes themselves
(rademacher_probes spied), which must be the same array at every evaluation.
"""
import numpy as np
import pytest
import scipy.sparse as sp

import graphrkhs._core.loo as loo
import graphrkhs.solvers._selection as sel
from graphrkhs import knn_graph


@pytest.mark.parametrize("random_state", [np.random.RandomState(0), None, np.random.default_rng(0), 5])
def test_one_set_of_probes_for_the_grid_and_its_extensions(random_state, monkeypatch):
    X = np.random.default_rng(0).normal(size=(80, 2))
    W = knn_graph(X, 6)
    S = np.arange(0, 80, 4)
    Y = X[S, 0] + 0.1 * np.random.default_rng(1).normal(size=S.size)
    seen = []
    real = loo.rademacher_probes

    def spy(n, n_probes, rs=None):
        Z = real(n, n_probes, rs)
        seen.append(Z.copy())
        return Z

    monkeypatch.setattr(loo, "rademacher_probes", spy)     # imported at each call
    # a grid at a far edge, so that it is extended (each extension is another evaluation)
    F, res = sel.select_tikhonov_solution(W, S, Y, [1e-6, 2e-6], method="stochastic", n_probes=8,
                                          random_state=random_state, extend=True, max_extensions=2)
    assert len(seen) >= 2, "the grid was not extended: the test would not compare two evaluations"
    assert all(np.array_equal(Z, seen[0]) for Z in seen[1:])


def test_bool_random_state_is_refused_before_any_solve():
    W = sp.csr_array(np.ones((5, 5)) - np.eye(5))
    with pytest.raises(TypeError, match="random_state must be None, an int or a numpy.random.Generator"):
        sel.select_tikhonov_solution(W, [0, 1, 2], [0.0, 1.0, 0.5], method="stochastic", random_state=True)
