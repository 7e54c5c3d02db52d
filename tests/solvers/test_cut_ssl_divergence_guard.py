"""CutSSL never returns the iterates of a diverging ADMM."""

import re

import numpy as np
import pytest
from sklearn.datasets import make_blobs

import graphrkhs.solvers._mbo as mbo
from graphrkhs import cut_ssl
from graphrkhs.graphs import knn_graph


def test_cut_ssl_raises_when_its_admm_diverges(monkeypatch):
    # s = 0.8 > rho / 2 is refused up front; with that check lifted, the ADMM diverges (growth 1.27 per
    # iteration on these blobs) and, before the guard, returned scores of 2.5e42 with a ConvergenceWarning
    # advising more iterations.  The guard stops it once the primal residual passes 1e6
    X, t = make_blobs(300, centers=3, cluster_std=1.0, random_state=0)
    rng = np.random.default_rng(0)
    S = np.concatenate([rng.choice(np.flatnonzero(t == c), 5, replace=False) for c in range(3)])
    W = knn_graph(X, 10)
    monkeypatch.setattr(mbo, "_check_homotopy", lambda s, max_iter, rho: ((0.0, 0.8), (100, 400)))
    with pytest.raises(FloatingPointError,
                       match=r"cut_ssl: the ADMM diverged at s = 0\.8, rho = 1: primal residual (\d\.\d\de\+0[6-7]) "
                             + re.escape("after ") + r"\d+" + re.escape(" iteration(s) of the stage (the rows of X "
                             "and Z are class indicators, so it stays of order 1 while the iteration is sound). "
                             "Lower s or raise rho (s <= rho / 2 keeps every multiplier factor at most 1).")):
        cut_ssl(W, S, np.eye(3)[t[S]], s=(0.0, 0.8), rho=1.0)
