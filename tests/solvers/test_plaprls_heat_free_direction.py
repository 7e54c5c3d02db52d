"""plaprls_fit with an explicit P that does not see K^{-1} 1 (P = 0, or zero along the constants).

Where K has full rank the constants lie in its range: alpha + t K^{-1} 1 with beta - t gives the same f on the points,
and only the penalty alpha^T P alpha tells the t apart.  With P = 0 every t is a minimizer; the stacked least-squares
solve of 1971a9e was rank-deficient there and took a t with |alpha| 2.6e12, f on the points 2.4e-3 off the unique
minimizer and predictions at new points of 1e9 (30 points, 12 labels, sigma 1, gamma 1e-2; at 1e-6: 1495 against
11.9).  The t taken now is the one of least RKHS norm alpha^T K alpha: the limit of P = eps K (the exact minimizer for
P = 1e-30 K, which the solve saw as P = 0)."""

import warnings

import mpmath
import numpy as np
import pytest

from graphrkhs import heat_semigroup, pairwise_kernel
from graphrkhs.solvers import plaprls_fit



def _problem():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 2))
    T = rng.normal(size=(5, 2))
    S = np.arange(12)
    y = np.sin(2 * X[S, 0])
    W = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1))
    np.fill_diagonal(W, 0)
    return X, T, S, y, np.diag(W.sum(1)) - W          # combinatorial Laplacian: M 1 = 0


def _mp_least_norm_predictions(K, M, S, y, lam2, kT):
    """50 digits: f = (J + lam2 M)^{-1} J y on the points, then the beta and alpha = K^{-1}(f - beta 1) of least
    alpha^T K alpha = (f - beta 1)^T K^{-1} (f - beta 1): beta = 1^T K^{-1} f / 1^T K^{-1} 1."""
    mpmath.mp.dps = 50
    try:
        n = K.shape[0]
        N = mpmath.matrix(M.tolist()) * mpmath.mpf(lam2)
        Jy = mpmath.matrix(n, 1)
        for k, s in enumerate(S):
            N[int(s), int(s)] += 1
            Jy[int(s)] = mpmath.mpf(y[k])
        f = mpmath.lu_solve(N, Jy)
        Km = mpmath.matrix(K.tolist())
        Kf, K1 = mpmath.lu_solve(Km, f), mpmath.lu_solve(Km, mpmath.matrix([1] * n))
        beta = mpmath.fsum(Kf) / mpmath.fsum(K1)
        alpha = Kf - K1 * beta
        return (np.array([float(v) for v in f]),
                np.array([float(mpmath.fsum(mpmath.mpf(kT[t, i]) * alpha[i] for i in range(n)) + beta)
                          for t in range(kT.shape[0])]))
    finally:
        mpmath.mp.dps = 15


@pytest.mark.parametrize("scale", [0.0, 1e-30])
@pytest.mark.parametrize("gamma", [1e-6, 1e-2])
def test_plaprls_with_a_zero_penalty_is_the_minimizer_of_least_rkhs_norm(gamma, scale):
    X, T, S, y, M = _problem()
    K = np.asarray(heat_semigroup(X, sigma=1.0)[0])
    kT = pairwise_kernel(T, X, sigma=1.0)
    n, l = X.shape[0], S.size
    lam2 = gamma * l / n ** 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a, b = plaprls_fit(K, S, y, M, gamma, gamma, P=scale * K, solver="direct")
    f, exact = _mp_least_norm_predictions(K, M, S, y, lam2, kT)
    # f on the points: the unique minimizer of ||J(y - f)||^2 + lam2 f^T M f
    assert np.abs(K @ a + b[0] - f).max() <= 1e-8
    # at new points: the alpha of least alpha^T K alpha (|alpha| 1.6e5 there; 2.8e-9 off at 11.9)
    assert np.abs(kT @ a + b[0] - exact).max() <= 1e-8 * np.abs(exact).max()
