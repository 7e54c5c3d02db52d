"""prls_loo_errors at a small gamma is computed at the condition number of K, not of K^2.

The downdate formula factored A = D^T D + gamma l diag(P, 0), D = [K, Psi], by Cholesky of the formed matrix, and
its refits solved Eq. (11)'s normal equations: both squared K's condition number, and the LOO scores moved with
the order of the rows (12 labels of 30 points, sigma 1: the LOO MSE by 6e-3 at gamma 1e-12, the residuals by 0.04),
so that gamma="auto" could choose another gamma for another row order.  A is now factored through the QR of the
stacked matrix [D; sqrt(gamma l) [C^T, 0]] (P = C C^T), the downdate is evaluated in the QR's orthonormal
coordinates (not from z = [alpha; beta]), and the refits are prls_fit's stacked least squares."""

import mpmath
import numpy as np
import pytest

from graphrkhs import consistency_grams
from graphrkhs.solvers import prls_loo_errors
from graphrkhs.solvers._kernel import _consistency_penalty


def _grams():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 2))
    y = np.sin(2 * X[:12, 0])
    K, Kp, Kpp, _ = consistency_grams(X[:12], X, sigma=1.0)
    return K, Kp, Kpp, y


@pytest.mark.parametrize("gamma", [1e-12, 1e-10, 1e-8])
def test_prls_loo_scores_do_not_depend_on_the_row_order(gamma):
    K, Kp, Kpp, y = _grams()
    s = prls_loo_errors(K, Kp, Kpp, y, [gamma])[0][0]
    for seed in range(3):
        p = np.random.default_rng(seed).permutation(y.size)
        sp = prls_loo_errors(K[np.ix_(p, p)], Kp[np.ix_(p, p)], Kpp[np.ix_(p, p)], y[p], [gamma])[0][0]
        assert abs(sp - s) <= 1e-4 * abs(s)


def _mp_refit_residual(K, P, y, weight, i):
    """y_i minus the prediction at x_i of the fit without row i (Eq. (11) with Psi = constants and the full fit's
    weight gamma l), in 50 significant digits."""
    mpmath.mp.dps = 50
    keep = [k for k in range(y.size) if k != i]
    m = len(keep)
    A, b = mpmath.matrix(m + 1, m + 1), mpmath.matrix(m + 1, 1)
    for r, kr in enumerate(keep):
        for c, kc in enumerate(keep):
            A[r, c] = mpmath.mpf(weight) * P[kr, kc] + mpmath.fsum(mpmath.mpf(K[kr, t]) * K[t, kc] for t in keep)
        A[r, m] = A[m, r] = mpmath.fsum(mpmath.mpf(K[kr, t]) for t in keep)
        b[r] = mpmath.fsum(mpmath.mpf(K[kr, t]) * y[t] for t in keep)
    A[m, m], b[m] = m, mpmath.fsum(mpmath.mpf(y[t]) for t in keep)
    z = mpmath.lu_solve(A, b)
    return float(y[i] - (mpmath.fsum(mpmath.mpf(K[i, kc]) * z[c] for c, kc in enumerate(keep)) + z[m]))


@pytest.mark.parametrize("gamma, rtol", [(1e-12, 5e-5), (1e-10, 1e-7), (1e-8, 1e-8)])
def test_prls_loo_scores_are_the_exact_refits(gamma, rtol):
    # a well-conditioned case (cond(K) = 2.4e6): the LOO MSE of exact refits of the same grams in high precision.
    # The downdate evaluated in the coordinates alpha was 3.8e-4 / 1.7e-4 / 4e-7 off (relative), from the
    # rounding of the full fit's residuals y - D z (|alpha| ~ 7e3); in the QR's orthonormal coordinates 1e-5 /
    # 1.1e-8 / 1.3e-9.  At gamma = 1e-12 that is the problem's own conditioning: perturbing K by its rounding
    # (eps sqrt(K_ii K_jj)) moves the LOO residuals by 1.7e-5 of the largest
    rng = np.random.default_rng(1)
    X = np.sort(rng.uniform(0, 3, 10))[:, None]
    y = np.sin(2 * X[:, 0]) + 0.1 * rng.normal(size=10)
    K, Kp, Kpp, _ = consistency_grams(X, X, sigma=0.5)
    P = _consistency_penalty(K, Kp, Kpp)
    r = np.array([_mp_refit_residual(K, P, y, gamma * y.size, i) for i in range(y.size)])
    score = prls_loo_errors(K, Kp, Kpp, y, [gamma])[0][0]
    assert abs(score + np.mean(r ** 2)) <= rtol * np.mean(r ** 2)
