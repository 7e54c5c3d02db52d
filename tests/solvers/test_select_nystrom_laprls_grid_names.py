"""select_nystrom_laprls: a bad ``ratios`` or ``gamma_As`` grid is refused under its own name.

They were passed on to select_kernel_ridge, whose axes are ``sigmas`` and ``alphas``: ratios=[0, 1] raised
"sigmas must be a non-empty 1-D sequence of positive finite numbers", naming an argument the caller never gave.
"""

import numpy as np
import pytest

from graphrkhs import NystromFeatures, graph_penalty, knn_graph
from graphrkhs.solvers import select_nystrom_laprls


def _problem():
    X = np.random.default_rng(0).normal(size=(12, 2))
    F = NystromFeatures(X, n_components=6, tol=0.0, landmarks="uniform", random_state=0).features_
    return F, np.arange(5), np.arange(5.0), graph_penalty(knn_graph(X, 3))


@pytest.mark.parametrize("ratios", [[0.0, 1.0], [-1.0], [np.nan], [], [[1.0]]])
def test_bad_ratios_named(ratios):
    F, S, y, M = _problem()
    with pytest.raises(ValueError, match=r"^ratios must be"):
        select_nystrom_laprls(F, S, y, M, [1e-2], ratios)


@pytest.mark.parametrize("gamma_As", [[0.0], [np.inf], []])
def test_bad_gamma_As_named(gamma_As):
    F, S, y, M = _problem()
    with pytest.raises(ValueError, match=r"^gamma_As must be"):
        select_nystrom_laprls(F, S, y, M, gamma_As, [1.0])


def test_valid_grids_unchanged():
    F, S, y, M = _problem()
    res = select_nystrom_laprls(F, S, y, M, [1e-3, 1e-1], [1.0, 1e3])
    assert sorted(res.best_params) == ["alpha", "sigma"]
