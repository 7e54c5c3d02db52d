"""The kNN underflow warning names the width argument the user set.

LapRLS, PLapRLS and the warped kernel call their graph's Gaussian width ``graph_sigma`` (their ``sigma`` is the
kernel width); the warning from the graphs layer said "pass a larger sigma", the other argument.  The name is
passed down (GraphSpec.build(sigma_name=...)); a GraphSpec given as ``graph`` keeps its own ``sigma``.
"""
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_moons

from graphrkhs import (GraphSpec, GraphWarning, LapRLSClassifier, LapRLSRegressor, PLapRLSClassifier, WarpedKernel,
                       WarpedKernelClassifier, knn_graph)


def _moons():
    X, y = make_moons(60, noise=0.1, random_state=0)
    yl = np.full(60, -1)
    yl[:6] = y[:6]
    return X, yl


GRAPH_SIGMA = (r"54 of 60 nodes lost every edge: their Gaussian weights exp\(-d\^2 / \(2 graph_sigma\^2\)\) underflowed "
               r"to 0 with graph_sigma = 0\.001 .*pass a larger graph_sigma \(the median neighbour distance is 0\.387\), "
               r"or graph_sigma=None")


@pytest.mark.parametrize("make", [LapRLSClassifier, PLapRLSClassifier, WarpedKernelClassifier])
def test_point_cloud_learners_name_graph_sigma(make):
    X, yl = _moons()
    with pytest.warns(GraphWarning, match=GRAPH_SIGMA) as rec:
        make(graph_sigma=1e-3, sigma=0.5, gamma_A=1e-2, gamma_I=1.0).fit(X, yl)
    said = [str(w.message) for w in rec if "lost every edge" in str(w.message)]
    assert not any("larger sigma" in m or "sigma=None" in m.replace("graph_sigma=None", "") for m in said)


def test_regressor_names_graph_sigma():
    X, yl = _moons()
    y = np.where(yl >= 0, yl.astype(float), np.nan)
    with pytest.warns(GraphWarning, match=GRAPH_SIGMA):
        LapRLSRegressor(graph_sigma=1e-3, sigma=0.5, gamma_A=1e-2, gamma_I=1.0).fit(X, y)


def test_warped_kernel_names_graph_sigma():
    X, _ = _moons()
    with pytest.warns(GraphWarning, match=GRAPH_SIGMA):
        WarpedKernel(X, sigma=0.5, graph_sigma=1e-3)


def test_a_given_graph_spec_and_knn_graph_keep_sigma():
    X, yl = _moons()
    plain = r"with sigma = 0\.001 .*pass a larger sigma \(the median neighbour distance is 0\.387\), or sigma=None"
    with pytest.warns(GraphWarning, match=plain):
        LapRLSClassifier(graph=GraphSpec(sigma=1e-3), sigma=0.5, gamma_A=1e-2, gamma_I=1.0).fit(X, yl)
    with pytest.warns(GraphWarning, match=plain):
        knn_graph(X, 10, sigma=1e-3)
    # the name is set for the build only
    with pytest.warns(GraphWarning, match=GRAPH_SIGMA):
        GraphSpec(sigma=1e-3).build(X, sigma_name="graph_sigma")
    with pytest.warns(GraphWarning, match=plain):
        knn_graph(X, 10, sigma=1e-3)
