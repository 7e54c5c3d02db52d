"""graph_kernel_ridge's Returns section says what F is on label-free components.

It gave F only as the representer form Phi[:, S] beta (with beta returned by return_coef), which is 0
on a component without labels; every method returns the mean of Y there instead (with a
GraphWarning), so F and Phi[:, S] beta disagreed there without a word in the docstring.  Oracle:
the dense eigendecomposition of the normalized Laplacian.
"""

import inspect
import re
import warnings

import numpy as np
import pytest

from graphrkhs import GraphWarning, filters, graph_kernel_ridge, laplacian


def _graph():
    W = np.zeros((9, 9))
    for i, w in enumerate([1.0, 0.5, 2.0, 0.7]):
        W[i, i + 1] = W[i + 1, i] = w
    W[5, 6] = W[6, 5] = 1.0          # component {5, 6}; 7, 8 isolated
    return W


@pytest.mark.parametrize("method", ["direct", "cg", "sparse"])
def test_label_free_nodes_get_the_mean_elsewhere_the_representer_form(method):
    W, S, Y = _graph(), np.array([0, 4, 7]), np.array([1.0, -1.0, 2.5])
    phi = filters.RegularizedLaplacian(2.0)
    lam, U = np.linalg.eigh(laplacian(W, "normalized").toarray())
    Phi = U @ np.diag(phi(lam)) @ U.T
    beta = np.linalg.solve(Phi[np.ix_(S, S)] + 0.1 * np.eye(3), Y)
    with pytest.warns(GraphWarning, match="without any labeled node"):
        F = graph_kernel_ridge(W, S, Y, phi, alpha=0.1, method=method)
    free = np.array([5, 6, 8])
    reached = np.setdiff1d(np.arange(9), free)
    np.testing.assert_allclose(F[reached], (Phi[:, S] @ beta)[reached], atol=1e-7)
    np.testing.assert_allclose(F[free], Y.mean(), rtol=1e-12)


def test_returns_section_states_the_label_free_fallback():
    doc = inspect.cleandoc(graph_kernel_ridge.__doc__)
    returns = re.search(r"\nReturns\n-+\n(.*?)\n\S[^\n]*\n-+\n", doc, re.S).group(1)
    assert "without any" in returns and "mean of ``Y``" in returns and "GraphWarning" in returns
