"""The centred procedure (targets less their labeled mean, no free constant) under both criteria.

``centred=True`` was documented "LOO only" but silently ignored under ``criterion="gcv"``: the scores were
those of the uncentred smoother.  The GCV of the centred procedure is that of its own linear smoother
:math:`H_c`, checked here against :math:`H_c` built column by column from the procedure itself.
"""

import numpy as np
import pytest

import graphrkhs as g


def _problem(l=9, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(l, 2))
    y = 3.0 + np.sin(2 * X[:, 0]) + 0.1 * rng.normal(size=l)
    K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 2.0)
    return K, y


def _centred_procedure(K, y, mu):
    """Fitted values of kernel ridge on y less its mean, plus the mean."""
    ybar = y.mean()
    return ybar + K @ np.linalg.solve(K + mu * np.eye(y.size), y - ybar)


def _gcv_oracle(K, y, mu):
    l = y.size
    Hc = np.column_stack([_centred_procedure(K, e, mu) for e in np.eye(l)])
    assert np.allclose(Hc @ y, _centred_procedure(K, y, mu))      # the procedure is this linear smoother
    r = y - Hc @ y
    return (r @ r / l) / (np.trace(np.eye(l) - Hc) / l) ** 2


def test_select_kernel_ridge_gcv_of_the_centred_procedure():
    K, y = _problem()
    alphas = np.array([1e-3, 1e-2, 1e-1, 1.0])
    res = g.select_kernel_ridge(lambda s: K, y - y.mean(), [1.0], alphas, criterion="gcv", centred=True)
    expected = [-_gcv_oracle(K, y, a) for a in alphas]
    np.testing.assert_allclose(res.scores[0], expected, rtol=1e-9)
    plain = g.select_kernel_ridge(lambda s: K, y - y.mean(), [1.0], alphas, criterion="gcv")
    assert np.abs(plain.scores[0] - expected).max() > 1e-3 * np.abs(expected).max()   # not the uncentred GCV


def test_kernel_ridge_path_centred_gcv_with_a_free_constant_is_the_plain_one():
    # (I - H) 1 = 0 with a free constant: the centred smoother is H itself
    K, y = _problem(seed=1)
    path = g.KernelRidgePath(K, unpenalized=np.ones(y.size))
    yc = y - y.mean()
    np.testing.assert_allclose(path.gcv(yc, [1e-2, 1.0], centred=True), path.gcv(yc, [1e-2, 1.0]), rtol=1e-10)


def test_select_manifold_gammas_gcv_of_the_centred_procedure():
    # LapRLS at ratio 0 is kernel ridge on K_SS (ridge gamma_A l): the same oracle
    rng = np.random.default_rng(2)
    n, S = 14, np.arange(0, 14, 2)
    X = rng.normal(size=(n, 2))
    K = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 2.0)
    W = g.knn_graph(X, n_neighbors=4)
    M = g.graph_penalty(W, "combinatorial", 1)
    y = 2.0 + X[S, 0]
    gA = np.array([1e-3, 1e-1])
    res = g.select_manifold_gammas(K, S, y - y.mean(), M, gA, [0.0], criterion="gcv", centred=True, extend=False)
    KSS = K[np.ix_(S, S)]
    np.testing.assert_allclose(res.scores[0], [-_gcv_oracle(KSS, y, a * S.size) for a in gA], rtol=1e-8)
