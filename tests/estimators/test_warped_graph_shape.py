"""WarpedKernelClassifier / Regressor with a precomputed sparse ``graph`` of the wrong size: with the default
gamma_A / gamma_I = "auto" the error came from the LOO solver and named its internal matrix ("M must have shape
(40, 40), one row per row of X; got (39, 39)"), not the argument; now the estimator names ``graph``, as it did with
fixed gammas (WarpedKernel's own check) and as LapRLS does."""

import numpy as np
import pytest

from graphrkhs import WarpedKernelClassifier, WarpedKernelRegressor, knn_graph


@pytest.mark.parametrize("E", [WarpedKernelClassifier, WarpedKernelRegressor])
@pytest.mark.parametrize("extra", [-1, 3])
def test_a_wrong_sized_graph_is_named(E, extra):
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(size=(12, 2)), rng.normal(size=(12, 2)) + 3.0]
    y = np.full(24, np.nan)
    y[[0, 1, 12, 13]] = [0, 0, 1, 1]
    if E is WarpedKernelClassifier:
        y = np.where(np.isnan(y), -1, y).astype(int)
    m = 24 + extra
    W = knn_graph(np.r_[X, X[:3] + 0.1][:m], 4)
    with pytest.raises(ValueError, match=rf"graph: a precomputed adjacency must be \(24, 24\).*got \({m}, {m}\)"):
        E(graph=W).fit(X, y)
