"""The manifold learners on a graph without edges.

An epsilon graph with a radius below every distance (or a given all-zero adjacency) has the Laplacian 0, so the
intrinsic term gamma_I f^T L^p f vanishes whatever gamma_I: LapRLS, PLapRLS and the warped kernel silently became
their supervised counterparts (the fit equals the one with gamma_I=0), without a word, while the transductive
learners warn about such graphs.  They now give one GraphWarning per fit; none when gamma_I is 0 or the graph has
edges.
"""
import warnings

import numpy as np
import pytest

from graphrkhs._core.validation import GraphWarning
from graphrkhs.estimators import LapRLSRegressor, PLapRLSClassifier, WarpedKernelRegressor


def _data():
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(0, 1, (10, 2)), rng.normal(4, 1, (10, 2))]
    y = np.full(20, np.nan)
    y[[0, 1, 10, 11]] = X[[0, 1, 10, 11], 0]
    return X, y


def _edge_warnings(record):
    return [w for w in record if issubclass(w.category, GraphWarning) and "no edges" in str(w.message)]


def test_laprls_on_an_edgeless_epsilon_graph_warns_and_is_the_supervised_fit():
    X, y = _data()
    kw = dict(graph="epsilon", radius=1e-6, sigma=1.0, gamma_A=0.1)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        est = LapRLSRegressor(gamma_I=1.0, **kw).fit(X, y)
    assert len(_edge_warnings(record)) == 1
    assert "radius=1e-06" in str(_edge_warnings(record)[0].message)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        sup = LapRLSRegressor(gamma_I=0.0, **kw).fit(X, y)
    assert not _edge_warnings(record)
    # L = 0: the system (J K + gamma_A l I + gamma_I l / n^2 L K) alpha = y is the one at gamma_I = 0
    np.testing.assert_allclose(est.predict(X), sup.predict(X), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("make", [
    lambda W: PLapRLSClassifier(graph=W, sigma=1.0, gamma_A=0.1, gamma_I=1.0),
    lambda W: WarpedKernelRegressor(graph=W, sigma=1.0, gamma_A=0.1, gamma_I=1.0),
])
def test_a_given_zero_adjacency_warns(make):
    X, y = _data()
    classifier = isinstance(make("knn"), PLapRLSClassifier)
    target = np.where(np.isnan(y), -1, (X[:, 0] > 2).astype(int)) if classifier else y
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        make(np.zeros((20, 20))).fit(X, target)
    assert len(_edge_warnings(record)) == 1
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        make("knn").fit(X, target)
    assert not _edge_warnings(record)


@pytest.mark.parametrize("gamma_I", [[0.0], (0, 0.0), np.zeros(2), [np.float32(0)]])
@pytest.mark.parametrize("cls", [LapRLSRegressor, WarpedKernelRegressor])
def test_a_grid_of_zero_gamma_I_does_not_warn(cls, gamma_I):
    # every candidate asks for no intrinsic term: as gamma_I=0, no warning (a grid [0.0] warned before)
    X, y = _data()
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        cls(graph=np.zeros((20, 20)), sigma=1.0, gamma_A=0.1, gamma_I=gamma_I).fit(X, y)
    assert not _edge_warnings(record)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        cls(graph=np.zeros((20, 20)), sigma=1.0, gamma_A=0.1, gamma_I=[0.0, 1.0]).fit(X, y)
    assert len(_edge_warnings(record)) == 1
