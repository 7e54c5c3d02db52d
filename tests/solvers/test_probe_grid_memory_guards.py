"""geometric_grid's num and the stochastic LOO's n_probes get a memory estimate naming them
(numpy's bare "Unable to allocate 7.28 TiB" / "373 GiB" before)."""

import numpy as np
import pytest

import graphrkhs as g


def _problem():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((200, 3))
    W = g.knn_graph(X, 10)
    lab = np.arange(0, 200, 10)
    Y = np.eye(2)[(X[lab, 0] > 0).astype(int)]
    return W, lab, Y


def test_geometric_grid_huge_num():
    with pytest.raises(MemoryError, match=r"^geometric_grid\(num=1000000000000\) \(about 4 float64 arrays of num "
                                          r"values\) would need 29802\.3 GiB, more than .* available; use a smaller num"):
        g.geometric_grid(1e-3, 1e3, 10**12)


def test_geometric_grid_small_unchanged():
    np.testing.assert_array_equal(g.geometric_grid(1e-3, 1e3, 7), np.geomspace(1e-3, 1e3, 7))


_PROBES = r"^n_probes=1000000000: the stochastic leave-one-out's .* would need [\d.]+ GiB, more than .*use fewer n_probes"


def test_tikhonov_stochastic_errors_huge_n_probes():
    W, lab, Y = _problem()
    with pytest.raises(MemoryError, match=_PROBES):
        g.tikhonov_stochastic_errors(W, lab, Y, [0.1, 1.0], n_probes=10**9)


def test_select_tikhonov_solution_huge_n_probes():
    W, lab, Y = _problem()
    with pytest.raises(MemoryError, match=_PROBES):
        g.select_tikhonov_solution(W, lab, Y, method="stochastic", n_probes=10**9)


def test_graph_kernel_ridge_stochastic_errors_huge_n_probes():
    W, lab, Y = _problem()
    with pytest.raises(MemoryError, match=_PROBES):
        g.graph_kernel_ridge_stochastic_errors(W, lab, Y, [0.1, 1.0], n_probes=10**9)


def test_stochastic_loo_errors_huge_n_probes():
    Y = np.random.default_rng(0).standard_normal((50, 1))
    with pytest.raises(MemoryError, match=_PROBES):
        g.stochastic_loo_errors(lambda Z, alpha: Z / (1 + alpha), Y, [{"alpha": 1.0}], n_probes=10**9)


def test_n_probes_still_validated_as_int():
    W, lab, Y = _problem()
    with pytest.raises(ValueError, match=r"^n_probes must be >= 1; got 0\.$"):
        g.tikhonov_stochastic_errors(W, lab, Y, [0.1, 1.0], n_probes=0)
