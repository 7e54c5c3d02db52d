"""CutSSL's early stop asks the dual residual too: a large rho keeps X - Z small while Z still moves."""

import re
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_blobs

from graphrkhs import ConvergenceWarning, CutSSLClassifier, cut_ssl
from graphrkhs.graphs import knn_graph


def _blobs():
    X, t = make_blobs(300, centers=3, cluster_std=1.0, random_state=0)
    rng = np.random.default_rng(0)
    S = np.concatenate([rng.choice(np.flatnonzero(t == c), 5, replace=False) for c in range(3)])
    return X, t, S


def test_cut_ssl_large_rho_is_not_settled_while_z_moves():
    # rho = 1e4 "settled" after 50 iterations with no warning: X stayed non-negative, so X - Z = 0
    # exactly, while each step moved Z by O(1 / rho) (dual residual rho ||dZ||_D = 0.066) -- 56 %
    # accuracy against 91 % at rho = 1.  Now unsettled, with advice that names rho
    X, t, S = _blobs()
    W = knn_graph(X, 10)
    with pytest.warns(ConvergenceWarning, match=re.escape(
            "rho = 10000 shortens every step of the iterates (the iterations needed grow about in proportion "
            "to rho): lower rho towards 1 (keeping rho >= 2 s = 0.2), or raise max_iter.")):
        F, info = cut_ssl(W, S, np.eye(3)[t[S]], rho=1e4, return_info=True)
    assert not info["converged"]
    assert info["primal_residual"] <= 1e-3 < info["dual_residual"]
    y = np.full(300, -1)
    y[S] = t[S]
    with pytest.warns(ConvergenceWarning, match="lower rho towards 1"):
        CutSSLClassifier(rho=1e4).fit(X, y)


def test_cut_ssl_default_rho_settles_with_both_residuals_below_tol():
    X, t, S = _blobs()
    W = knn_graph(X, 10)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        F, info = cut_ssl(W, S, np.eye(3)[t[S]], return_info=True)
    assert info["converged"] and info["n_iter"][-1] < 400
    assert info["primal_residual"] <= 1e-3 and info["dual_residual"] <= 1e-3
    U = np.setdiff1d(np.arange(300), S)
    assert np.bincount(F[U].argmax(axis=1)).tolist() == [95, 95, 95]
