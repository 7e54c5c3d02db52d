"""One GraphWarning about label-free components per fit of the graph kernel ridge estimators above
``STOCHASTIC_MIN_LABELS`` labels (the matrix-free leave-one-out).

Each CG solve of the selection (one per alpha and kernel) went through graph_kernel_ridge, which warned about the
label-free components although only its coefficients on the labeled nodes were used: the regressor warned 12
times in one fit, the classifier 6 (here with the threshold lowered to 5 labels on a 36-node graph).
"""
import warnings

import numpy as np
import pytest

import graphrkhs.estimators._transductive as transductive
from graphrkhs import GraphKernelRidgeClassifier, GraphKernelRidgeRegressor
from graphrkhs._core.validation import GraphWarning

ORPHAN = "connected components without any labeled node"


def _two_components(n1=30, n2=6, seed=0):
    # a connected random graph on n1 nodes and a path of n2 nodes that carries no label
    rng = np.random.default_rng(seed)
    W = np.zeros((n1 + n2, n1 + n2))
    A = np.triu(rng.random((n1, n1)) < 0.2, 1) * 1.0
    A[np.arange(n1 - 1), np.arange(1, n1)] = 1.0
    W[:n1, :n1] = A + A.T
    B = np.zeros((n2, n2))
    B[np.arange(n2 - 1), np.arange(1, n2)] = 1.0
    W[n1:, n1:] = B + B.T
    return W, rng


@pytest.mark.parametrize("kind", ["regressor", "classifier"])
def test_label_free_components_warn_once_per_fit(kind, monkeypatch):
    monkeypatch.setattr(transductive, "STOCHASTIC_MIN_LABELS", 5)      # the matrix-free path on 20 labels
    W, rng = _two_components()
    n = W.shape[0]
    if kind == "regressor":
        est, y = GraphKernelRidgeRegressor(graph="precomputed"), np.full(n, np.nan)
        y[:20] = rng.normal(size=20)
    else:
        est, y = GraphKernelRidgeClassifier(graph="precomputed"), np.full(n, -1)
        y[:20] = np.arange(20) % 2
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        est.fit(W, y)
    orphan = [w for w in said if issubclass(w.category, GraphWarning) and ORPHAN in str(w.message)]
    assert len(orphan) == 1
    assert str(orphan[0].message).startswith("6 node(s)")
    # the label-free path gets the class prior, the mean of the labeled targets
    F = est.transduction_ if kind == "regressor" else None
    if F is not None:
        np.testing.assert_allclose(F[30:], y[:20].mean(), rtol=1e-12)
