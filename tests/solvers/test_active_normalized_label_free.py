"""Model change in a component without labels under the normalized Laplacian, against re-solving.

One label on a component of the normalized Laplacian makes the component :math:`\\sqrt{d}/\\sqrt{d_k}` times
the label (its null vector is :math:`D^{1/2} 1`), not constant: ``propose_labels`` gave every node of such a
component the constant-component value :math:`\\sqrt{|c|}\\,\\|\\hat y_k - F_k\\|` (0.980 on the path below,
where re-solving changes the scores by 0.974, 0.849 and 1.970 at nodes 0, 1, 2) and proposed node 0 (the
lowest index of the tie) instead of node 2.
"""

import numpy as np
import pytest

from graphrkhs import propose_labels


def _normalized_laplacian(W):
    d = W.sum(axis=1)
    s = np.where(d > 0, 1.0 / np.sqrt(np.where(d > 0, d, 1.0)), 0.0)
    return np.diag((d > 0).astype(float)) - s[:, None] * W * s[None, :]


def _resolve(W, S, Y, alpha, F_prev):
    """The Laplace-learning solution on each component holding a label (dense); others keep F_prev."""
    n, m = F_prev.shape
    L = _normalized_laplacian(W)
    F = F_prev.copy()
    comps = [np.array([0, 1, 2]), np.array([3, 4, 5])]
    for nodes in comps:
        idx = [i for i, s in enumerate(S) if s in nodes]
        if not idx:
            continue
        Ss, Ys = np.asarray(S)[idx], Y[idx]
        if alpha == 0:
            U = np.setdiff1d(nodes, Ss)
            F[Ss] = Ys
            F[U] = np.linalg.solve(L[np.ix_(U, U)], -L[np.ix_(U, Ss)] @ Ys)
        else:
            J = np.zeros((n, n))
            J[Ss, Ss] = 1.0
            B = np.zeros((n, m))
            B[Ss] = Ys
            F[nodes] = np.linalg.solve((J + alpha * L)[np.ix_(nodes, nodes)], B[nodes])
    return F


@pytest.mark.parametrize("alpha", [0.0, 0.5])
def test_label_free_component_normalized_matches_resolve(alpha):
    W = np.zeros((6, 6))
    for i, j, w in [(0, 1, 3.0), (1, 2, 1.0), (3, 4, 1.0), (4, 5, 2.0)]:
        W[i, j] = W[j, i] = w
    S = [3, 5]
    Y = np.array([[1.0, 0.0], [0.0, 1.0]])
    prior = np.array([0.4, 0.6])
    F = _resolve(W, S, Y, alpha, np.tile(prior, (6, 1)))      # the label-free component keeps the prior
    np.testing.assert_allclose(F[:3], np.tile(prior, (3, 1)))

    def change(F_now, S_now, Y_now, k):
        yk = np.eye(2)[F_now[k].argmax()]
        F_new = _resolve(W, S_now + [k], np.vstack([Y_now, yk]), alpha, F_now)
        return np.linalg.norm(F_new - F_now), F_new, yk

    nodes, values = propose_labels(F, 3, criterion="model_change", labeled=S, graph=W, alpha=alpha,
                                   laplacian="normalized", return_values=True)
    # greedy oracle: at each step the node whose re-solve changes the scores most, and that change
    S_now, Y_now, F_now = list(S), Y.copy(), F
    for step in range(3):
        free = [k for k in range(6) if k not in S_now]
        oracle = {k: change(F_now, S_now, Y_now, k)[0] for k in free}
        best = max(oracle, key=oracle.get)
        assert nodes[step] == best, (step, nodes, oracle)
        np.testing.assert_allclose(values[step], oracle[best], rtol=1e-5)
        _, F_now, yk = change(F_now, S_now, Y_now, best)
        S_now.append(best)
        Y_now = np.vstack([Y_now, yk])
    # the first pick: node 2 of the label-free path (degree 1), change 1.970 (not 0.980 at every node of the path)
    assert nodes[0] == 2
    np.testing.assert_allclose(values[0], 1.97016, atol=1e-5)


def test_label_free_changes_closed_form_matches_per_node_sum():
    """The O(|c| m) form of the label-free change against its definition, one node at a time, including
    residuals far below the scores (no cancellation) and the exact tie of constant rows with v = 1."""
    from graphrkhs.solvers._active import _label_free_changes

    rng = np.random.default_rng(7)
    for trial in range(60):
        n, m = int(rng.integers(3, 25)), int(rng.integers(1, 4))
        F = rng.normal(size=(n, m)) if trial % 2 else np.tile(rng.normal(size=m), (n, 1))
        R = rng.normal(size=(n, m)) * 10.0 ** float(rng.integers(-9, 2))
        v = np.ones(n) if trial % 3 == 0 else rng.uniform(0.2, 3.0, n)
        comp = rng.integers(-1, 3, n)
        got = _label_free_changes(F, R, v, comp)
        for k in np.flatnonzero(comp >= 0):
            M = np.flatnonzero(comp == comp[k])
            T = np.outer(v[M] / v[k], F[k]) - F[M] + np.outer(v[M] / v[k], R[k])
            np.testing.assert_allclose(got[k], np.sqrt((T * T).sum()), rtol=1e-9)
        assert np.all(got[comp < 0] == 0)
    F = np.tile([0.4, 0.6], (5, 1))
    R = np.tile([1e-12, -1e-12], (5, 1))
    got = _label_free_changes(F, R, np.ones(5), np.zeros(5, dtype=int))
    assert np.all(got == got[0]) and got[0] == np.sqrt(5 * 2e-24)
