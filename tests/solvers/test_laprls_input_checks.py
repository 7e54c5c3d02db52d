"""laprls_fit / plaprls_fit refuse a penalty M or a kernel K that cannot be symmetric PSD (cheap checks)."""

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs import graph_penalty, knn_graph, laplacian, laprls_fit, pairwise_kernel, plaprls_fit

FITS = [lambda K, S, Y, M: laprls_fit(K, S, Y, M, 1e-2, 1.0),
        lambda K, S, Y, M: plaprls_fit(K, S, Y, M, 1e-2, 1.0)]


def _problem():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    W = knn_graph(X, 5)
    K = pairwise_kernel(X, sigma=1.0)
    S = np.array([0, 5, 10, 15])
    Y = np.array([1.0, -1.0, 1.0, -1.0])
    return W, K, S, Y


@pytest.mark.parametrize("fit", FITS, ids=["laprls", "plaprls"])
@pytest.mark.parametrize("make_M, match", [
    # the random-walk Laplacian D^-1 L is not symmetric
    (lambda W: laplacian(W, "randomwalk"), r"M must be symmetric: max \|M - M\^T\|"),
    # -L is negative semidefinite: the objective has no minimizer
    (lambda W: -graph_penalty(W), r"M has a negative diagonal entry"),
    # the adjacency matrix instead of the Laplacian: indefinite
    (lambda W: sp.csr_array(W), r"M has a zero diagonal entry with nonzero off-diagonal entries"),
], ids=["randomwalk", "minus_L", "adjacency"])
def test_bad_penalty_M_raises_naming_M(fit, make_M, match):
    # each was solved without a word before (an indefinite M gives a saddle point, not a minimizer)
    W, K, S, Y = _problem()
    with pytest.raises(ValueError, match=match):
        fit(K, S, Y, make_M(W))


@pytest.mark.parametrize("fit", FITS, ids=["laprls", "plaprls"])
def test_non_symmetric_or_negative_kernel_raises_naming_K(fit):
    W, K, S, Y = _problem()
    M = graph_penalty(W)
    Kn = K.copy()
    Kn[0, 1] += 1e-3
    with pytest.raises(ValueError, match=r"K must be symmetric: max \|K - K\^T\| = 0\.001"):
        fit(Kn, S, Y, M)
    with pytest.raises(ValueError, match=r"K has a negative diagonal entry \(K\[0, 0\] = -1\)"):
        fit(-K, S, Y, M)
    # rounding-level asymmetry (K + K^T)/2 would not remove is accepted, and the valid inputs solve
    Kr = K.copy()
    Kr[0, 1] *= 1 + 1e-12
    out = fit(Kr, S, Y, M)
    assert np.isfinite(out[0] if isinstance(out, tuple) else out).all()
