"""tikhonov_path_errors with labels attached by edges of 1e-10 (against degrees ~1; not cut as weak links).

Their Kron-reduction eigenvalues (~1e-10 of T's largest) were set to 0 with T's null space, which detached
those labels from the others: the LOO scores were off by ~1e-10 alpha relative (6e-9 at alpha 100, 5.9e-3 at
1e8, 17% at 1e10 on this 22-node graph).  Only the null space (one eigenvalue per labeled component) is 0 now.
Oracle: dense brute-force refits of (J + alpha L) F = J y without each label.
"""

import warnings

import numpy as np
import scipy.sparse as sp

import graphrkhs as gr
from graphrkhs.solvers._selection import tikhonov_path_errors


def _graph(n=22, w=1e-10):
    W = np.zeros((n, n))
    W[:n - 2, :n - 2] = gr.knn_graph(np.random.default_rng(0).normal(size=(n - 2, 2)), 4).toarray()
    W[n - 2, [0, 1]] = W[[0, 1], n - 2] = w
    W[n - 1, [2, 3]] = W[[2, 3], n - 1] = w
    S = np.r_[np.arange(0, n - 2, 4), n - 2, n - 1]
    y = np.random.default_rng(1).normal(size=S.size)
    y[-2:] = [5.0, -3.0]
    return W, S, y


def _dense_loo_mse(W, S, y, alpha):
    L = np.diag(W.sum(axis=1)) - W
    r = []
    for i in range(S.size):
        keep = np.delete(np.arange(S.size), i)
        J = np.zeros(len(W))
        J[S[keep]] = 1.0
        b = np.zeros(len(W))
        b[S[keep]] = y[keep]
        r.append(y[i] - np.linalg.solve(np.diag(J) + alpha * L, b)[S[i]])
    return -float(np.mean(np.square(r)))


def test_loo_of_weakly_attached_labels_at_large_alpha_agrees_with_dense_refits():
    W, S, y = _graph()
    alphas = np.array([1e2, 1e4, 1e6, 1e8, 1e10])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scores, _ = tikhonov_path_errors(sp.csr_array(W), S, y, alphas)
    oracle = np.array([_dense_loo_mse(W, S, y, a) for a in alphas])
    np.testing.assert_allclose(scores, oracle, rtol=1e-6)


def test_gcv_and_harmonic_limit_still_finite():
    W, S, y = _graph()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scores, _ = tikhonov_path_errors(sp.csr_array(W), S, y, [1e-3, 1.0, 1e3], criterion="gcv")
    assert np.isfinite(scores).all()


def test_selected_fit_of_weakly_attached_labels_agrees_with_dense_solve():
    # the same zeroed eigenvalues made select_tikhonov_solution's returned fit wrong (no warning):
    # 9.6e-4 off at alpha 1e6, 0.79 at 1e9, against the dense solve of (J + alpha L) F = J y
    from graphrkhs.solvers import select_tikhonov_solution

    W, S, y = _graph()
    L = np.diag(W.sum(axis=1)) - W
    J = np.zeros(len(W))
    J[S] = 1.0
    b = np.zeros(len(W))
    b[S] = y
    for alpha in (1e2, 1e6):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            F, _ = select_tikhonov_solution(sp.csr_array(W), S, y, [alpha], extend=False)
        np.testing.assert_allclose(F[:, 0], np.linalg.solve(np.diag(J) + alpha * L, b), rtol=0, atol=1e-9)
