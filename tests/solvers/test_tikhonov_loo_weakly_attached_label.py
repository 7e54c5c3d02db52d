"""tikhonov_path_errors on a labeled node hanging on edges of 1e-19 (not cut: they are half its degree).

Its T_ii (Kron reduction) is ~1e-19 of T's scale, below the rounding of T's eigendecomposition: the node was
left out of the LOO average as if it were alone in its component (-1.30 scored where brute-force refits of
tikhonov_solution give -589.9).  Its LOO residual is now computed from T's rows (exact refits)."""

import warnings

import numpy as np
import scipy.sparse as sp

import graphrkhs as gr
from graphrkhs.solvers._selection import _KronReduction, tikhonov_path_errors


def _graph():
    n = 12
    W = np.zeros((n, n))
    W[:n - 1, :n - 1] = gr.knn_graph(np.random.default_rng(0).normal(size=(n - 1, 2)), 4).toarray()
    W[n - 1, [0, 1]] = W[[0, 1], n - 1] = 1e-19
    S = np.array([0, 3, 5, 7, 9, n - 1])
    y = np.array([1.0, -0.5, 2.0, 0.3, -1.0, 60.0])
    return sp.csr_array(W), S, y


def _brute(W, S, y, alpha):
    r = []
    for i in range(S.size):
        keep = np.delete(np.arange(S.size), i)
        F = (gr.tikhonov_solution(W, S[keep], y[keep], alpha=alpha) if alpha > 0
             else gr.harmonic_solution(W, S[keep], y[keep]))
        r.append(y[i] - np.asarray(F).ravel()[S[i]])
    return -float(np.mean(np.square(r)))


def test_loo_of_a_label_on_tiny_edges_agrees_with_refits():
    W, S, y = _graph()
    alphas = np.array([0.01, 0.1, 1.0, 10.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scores, _ = tikhonov_path_errors(W, S, y, alphas)
        brute = np.array([_brute(W, S, y, a) for a in alphas])
    assert np.allclose(scores, brute, rtol=1e-8)


def test_harmonic_loo_of_a_label_on_tiny_edges_agrees_with_refits():
    W, S, y = _graph()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        score = _KronReduction(W, S, "combinatorial").scores(np.array([0.0]), y[:, None], "loo", "mse")[0]
        brute = _brute(W, S, y, 0.0)
    assert np.allclose(score, brute, rtol=1e-8)
