"""GraphKernelRidge*(alpha="auto"): the leave-one-out must be that of refits without each label.

A labeled node alone among the labels of its connected component has, once its label is left out, a
label-free component: the refit gives it the mean target (the orphan rule, ``_orphans``) whatever alpha.
The closed form scored instead the constant b fitted to the other component's labels (regressor, free
constant), which moves with alpha: the choice was alpha 0.32 where the refits' LOO error is lowest at 1e-3.
Oracle: the refits in dense numpy (exact phi(L) by eigh, the saddle-point system of the free constant).
"""
import warnings

import numpy as np
import scipy.sparse as sp

import graphrkhs as g
from graphrkhs import filters


def _problem(seed=0):
    rng = np.random.default_rng(seed)
    n = 26
    X = rng.normal(size=(n, 2))
    W = np.zeros((n, n))
    W[:22, :22] = g.knn_graph(X[:22], 4).toarray()
    W[22, 23] = W[23, 22] = W[23, 24] = W[24, 23] = 1.0      # a second component, nodes 22..25,
    W[24, 25] = W[25, 24] = 0.5                              # with one labeled node (23)
    lab = np.array([0, 3, 5, 8, 11, 14, 17, 20, 23])
    yv = X[lab, 0] * 2 + 0.3 * rng.normal(size=lab.size)
    yv[-1] = 30.0
    return W, lab, yv


def _refit_residuals(W, lab, yv, phi, alpha):
    """y_i minus the refit without label i at node i (free constant; a label-free component gets the mean)."""
    lam, V = np.linalg.eigh(g.laplacian(W, "normalized").toarray())
    Phi = (V * phi(lam)) @ V.T
    _, comp = sp.csgraph.connected_components(sp.csr_array(W), directed=False)
    R = np.empty(lab.size)
    for i in range(lab.size):
        keep = np.delete(np.arange(lab.size), i)
        S, y = lab[keep], yv[keep]
        if not np.isin(comp[lab[i]], comp[S]):
            R[i] = yv[i] - y.mean()
            continue
        k = S.size
        A = np.block([[Phi[np.ix_(S, S)] + alpha * np.eye(k), np.ones((k, 1))], [np.ones((1, k)), np.zeros((1, 1))]])
        z = np.linalg.solve(A, np.r_[y, 0.0])
        R[i] = yv[i] - (Phi[lab[i], S] @ z[:k] + z[k])
    return R


def test_regressor_alpha_is_the_refits_loo_choice():
    W, lab, yv = _problem(0)
    y = np.full(W.shape[0], np.nan)
    y[lab] = yv
    phi = filters.Matern(2, 3.0)
    alphas = list(np.geomspace(1e-3, 10, 9))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = g.GraphKernelRidgeRegressor(phi, alpha="auto", alphas=alphas, graph="precomputed").fit(
            sp.csr_array(W), y)
    R = np.array([_refit_residuals(W, lab, yv, phi, a) for a in alphas])
    assert np.ptp(R[:, -1]) == 0.0          # the alone label's refit residual: the same at every alpha
    refit_mse = np.mean(R ** 2, axis=1)
    assert est.alpha_ == alphas[int(np.argmin(refit_mse))]
    # the scores: the refits' LOO over the other labels (the alone one says nothing about alpha)
    np.testing.assert_allclose(est.loo_scores_.ravel(), -np.mean(R[:, :-1] ** 2, axis=1), rtol=1e-6)
