"""WarpedKernel estimators take a given graph in every form as_adjacency takes (as LapRLS / PLapRLS do, and as
DESIGN's conventions promise): a dense array, a list of lists and a networkx graph raised InvalidParameterError,
only a scipy.sparse matrix passed the parameter table."""
import networkx as nx
import numpy as np
import pytest

from graphrkhs import WarpedKernelClassifier, WarpedKernelRegressor, knn_graph


def _data():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 1, (12, 2)), rng.normal(4, 1, (12, 2))])
    y = np.full(24, -1)
    y[[0, 1, 12, 13]] = [0, 0, 1, 1]
    return X, y, knn_graph(X, 4, weight="binary")


@pytest.mark.parametrize("form", ["dense", "list", "networkx"])
def test_warped_takes_any_adjacency(form):
    X, y, W = _data()
    if form == "dense":
        G = W.toarray()
    elif form == "list":
        G = W.toarray().tolist()
    else:
        G = nx.from_scipy_sparse_array(W)
    params = dict(sigma=1.0, gamma_A=1e-3, gamma_I=1e-1)
    for est, target in ((WarpedKernelClassifier, y), (WarpedKernelRegressor, np.where(y == -1, np.nan, y + 0.5))):
        reference = est(graph=W, **params).fit(X, target)        # the sparse adjacency: the oracle
        given = est(graph=G, **params).fit(X, target)
        np.testing.assert_allclose(given.predict(X), reference.predict(X), rtol=1e-10, atol=1e-12)
