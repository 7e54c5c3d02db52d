"""CutSSL's block solves at a cg_tol below what float64 can attain."""

import numpy as np
import pytest
from sklearn.datasets import make_blobs

from graphrkhs import CutSSLClassifier, cut_ssl
from graphrkhs.graphs import knn_graph

FLOOR = 10 * np.finfo(np.float64).eps


def _problem():
    X, t = make_blobs(60, centers=3, cluster_std=1.5, random_state=0)
    rng = np.random.default_rng(0)
    S = np.concatenate([rng.choice(np.flatnonzero(t == c), 3, replace=False) for c in range(3)])
    return X, t, S


def test_cg_tol_floor_is_ten_float64_epsilons():
    from graphrkhs.solvers._mbo import CG_TOL_FLOOR
    assert CG_TOL_FLOOR == FLOOR


@pytest.mark.parametrize("cg_tol", [1e-200, 1e-300, 5e-324])
def test_cut_ssl_solves_a_tiny_cg_tol_to_the_floor(cg_tol):
    # cg_tol <= 1e-200 (inside the documented (0, 1)) raised "A is not positive definite" on the SPD
    # H = L + (rho - s) D: CG's squared residual norms underflowed to 0.  A cg_tol below the floor now
    # gives exactly the iterates of cg_tol = 10 eps, the smallest relative residual CG certifies
    X, t, S = _problem()
    W = knn_graph(X, 10)
    Y = np.eye(3)[t[S]]
    F = cut_ssl(W, S, Y, cg_tol=cg_tol)
    np.testing.assert_array_equal(F, cut_ssl(W, S, Y, cg_tol=FLOOR))
    y = np.full(60, -1)
    y[S] = t[S]
    clf = CutSSLClassifier(cg_tol=cg_tol).fit(X, y)
    np.testing.assert_array_equal(clf.transduction_, CutSSLClassifier(cg_tol=FLOOR).fit(X, y).transduction_)
