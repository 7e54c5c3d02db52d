"""CutSSL's ADMM inside the bounds its math gives: the concavity s, the inner solves' tolerance."""

import re
import warnings

import numpy as np
import pytest

from graphrkhs import CutSSLClassifier, cut_ssl
from graphrkhs.graphs import knn_graph


def _blobs():
    """300 points in three blobs, five labels per class (the reviewers' reproduction)."""
    from sklearn.datasets import make_blobs
    X, t = make_blobs(300, centers=3, cluster_std=1.0, random_state=0)
    rng = np.random.default_rng(0)
    S = np.concatenate([rng.choice(np.flatnonzero(t == c), 5, replace=False) for c in range(3)])
    return X, t, S


@pytest.mark.parametrize("s, rho", [((0.0, 0.8), 1.0), ((0.0, 0.9), 1.0), (0.3, 0.5)])
def test_cut_ssl_refuses_s_above_half_rho(s, rho):
    # s < rho was accepted: at s = 0.8, rho = 1 on these blobs the multipliers grew by 1.27 per iteration
    # (a coordinate held at Z = 0 along curvature q = -0.56 of L - sD: factor |q| / (rho + q)) and
    # the scores reached 2.5e42, classes [45 197 43] instead of [95 95 95]; refused before any work
    X, t, S = _blobs()
    W = knn_graph(X, 10)
    top = np.max(s)
    msg = (f"every s must be at most rho / 2 = {rho / 2:g}: beyond it the ADMM's multipliers can grow "
           f"geometrically (by up to s / (rho - s) per iteration) and the iterates diverge; got s = {top:g} "
           f"with rho = {rho:g}. Lower s to at most {rho / 2:g} or raise rho to at least 2 s = {2 * top:g}.")
    with pytest.raises(ValueError, match=re.escape(msg)):
        cut_ssl(W, S, np.eye(3)[t[S]], s=s, rho=rho)
    y = np.full(300, -1)
    y[S] = t[S]
    with pytest.raises(ValueError, match=re.escape(msg)):
        CutSSLClassifier(s=s, rho=rho).fit(X, y)


@pytest.mark.parametrize("s, rho", [((0.0, 0.5), 1.0), ((0.0, 0.8), 1.6)])
def test_cut_ssl_at_half_rho_stays_bounded(s, rho):
    # at the bound every multiplier factor q / (rho + q) is at most 1 in modulus (q >= -s = -rho / 2):
    # the iterates stay on the scale of the class indicators (the rows of X sum to 1)
    X, t, S = _blobs()
    W = knn_graph(X, 10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # not settled in 400 iterations near the bound
        F, info = cut_ssl(W, S, np.eye(3)[t[S]], s=s, rho=rho, exact_sizes=False, return_info=True)
    assert np.all(np.isfinite(F)) and np.abs(F).max() < 10
    assert info["primal_residual"] < 1
