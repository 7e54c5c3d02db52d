"""graph_tv with an R that does not cancel constants: label-free components keep the minimizer, not the mean."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import minimize

from graphrkhs import GraphWarning, graph_tv, laplacian


def _two_components():
    W = np.zeros((7, 7))
    for i, j in [(0, 1), (1, 2), (2, 3), (4, 5), (5, 6)]:
        W[i, j] = W[j, i] = 1.0
    return W


def _objective(R, S, y, lam, alpha, f):
    return (lam * (y - f[S]) ** 2).sum() + alpha * np.abs(R @ f).sum()


def test_label_free_component_with_shifted_laplacian():
    W = _two_components()
    R = laplacian(W).toarray() + 0.5 * np.eye(7)
    S, y, alpha = np.array([0, 3]), np.array([1.0, 2.0]), 0.3
    lam = np.abs(R).sum(axis=0)[S]
    with pytest.warns(GraphWarning, match="R does not cancel constants"):
        F, res = graph_tv(W, S, y, R=sp.csr_array(R), alpha=alpha, return_info=True)
    # oracle: the problem as a smooth constrained one, min sum lam (y - f_S)^2 + alpha sum t, |R f| <= t
    n = 7
    cons = [{"type": "ineq", "fun": lambda z: z[n:] - R @ z[:n]}, {"type": "ineq", "fun": lambda z: z[n:] + R @ z[:n]}]
    opt = minimize(lambda z: (lam * (y - z[:n][S]) ** 2).sum() + alpha * z[n:].sum(), np.full(2 * n, 0.3),
                   constraints=cons, method="SLSQP", options=dict(maxiter=5000, ftol=1e-15))
    assert res.converged
    got = _objective(R, S, y, lam, alpha, F)
    # before: the label-free nodes 4-6 were set to the mean 1.5, objective 1.4125 against the optimum 0.7375
    assert got <= opt.fun * (1 + 1e-3)
    assert got == pytest.approx(float(np.ravel(res.objective)[0]), rel=1e-6)
    np.testing.assert_allclose(F[4:], 0.0, atol=1e-4)


def test_label_free_component_with_difference_R_still_gets_the_mean():
    W = _two_components()
    L = laplacian(W)
    with pytest.warns(GraphWarning, match="mean of the labeled targets"):
        F = graph_tv(W, [0, 3], np.array([1.0, 2.0]), R=sp.csr_array(L @ L), alpha=0.3)
    np.testing.assert_allclose(F[4:], 1.5)
