"""PLapRLS's kernel CG (empirical operator) on a low-rank kernel reaches the solution of its system.

The system is T alpha = r0 with T = N_Psi K + gamma_A l (I - K/n)^2: on K's null space T is gamma_A l times the
identity, the part of the residual there CG (working in the range of K) cannot reduce.  laprls_fit solves it
exactly (kernel_cg's ``identity_shift``); plaprls_fit did not pass it, so on the linear kernel (rank d) CG stopped
after d + 1 iterations with a ConvergenceWarning and ``converged`` False (relative residual 0.41 - 0.78) although
its alpha was a solution of the normal equations.  The estimator warned on every such fit
(``PLapRLSRegressor(kernel="linear", solver="cg")``, and ``solver="auto"`` above 8000 points).
"""
import warnings

import numpy as np
import pytest

from graphrkhs import ConvergenceWarning, KernelOperator, PLapRLSRegressor, knn_graph, laplacian, plaprls_fit


def _problem(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(50, 2)) + np.array([3.0, -1.0])
    labeled = np.zeros(50, dtype=bool)
    labeled[::4] = True
    y = np.sin(X[labeled, 0]) + 0.5 * X[labeled, 1]
    M = laplacian(knn_graph(X, 6))
    return X, labeled, y, M


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("Psi", [None, "none"])
def test_plaprls_cg_on_a_low_rank_kernel_converges_to_the_direct_solution(seed, Psi):
    X, labeled, y, M = _problem(seed)
    K = np.asarray(KernelOperator(X, kernel="linear").matmat(np.eye(50)))     # rank 2 on 50 points
    K /= K.mean()
    psi = None if Psi is None else np.zeros((50, 0))
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        alpha, beta, info = plaprls_fit(K, labeled, y, M, 1e-3, 1e-2, Psi=psi, solver="cg", tol=1e-8,
                                        return_info=True)
    assert info["converged"].all() and info["residual"].max() <= 1e-8
    a_d, b_d = plaprls_fit(K, labeled, y, M, 1e-3, 1e-2, Psi=psi, solver="direct")
    # T is nonsingular (gamma_A > 0): one alpha solves T alpha = r0
    np.testing.assert_allclose(alpha, a_d, rtol=0, atol=1e-6 * np.abs(a_d).max())
    np.testing.assert_allclose(K @ alpha, K @ a_d, rtol=0, atol=1e-7 * np.abs(K @ a_d).max())
    np.testing.assert_allclose(beta, b_d, rtol=0, atol=1e-7 * max(np.abs(b_d).max(initial=0.0), 1.0))


def test_plaprls_estimator_linear_kernel_cg_does_not_warn():
    X, labeled, y, _ = _problem(2)
    t = np.full(50, np.nan)
    t[labeled] = y
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        cg = PLapRLSRegressor(kernel="linear", gamma_A=1e-3, gamma_I=1e-2, solver="cg", tol=1e-8).fit(X, t)
    assert cg.solver_info_["converged"].all()
    direct = PLapRLSRegressor(kernel="linear", gamma_A=1e-3, gamma_I=1e-2, solver="direct").fit(X, t)
    Xt = np.random.default_rng(9).normal(size=(7, 2)) + np.array([3.0, -1.0])
    p = direct.predict(Xt)
    np.testing.assert_allclose(cg.predict(Xt), p, rtol=0, atol=1e-7 * np.abs(p).max())
