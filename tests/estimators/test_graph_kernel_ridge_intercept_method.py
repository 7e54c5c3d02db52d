"""GraphKernelRidgeRegressor with a fixed alpha and the free constant solves on the ``method`` asked for."""
import numpy as np
import pytest

from graphrkhs import GraphKernelRidgeRegressor, GraphWarning, filters, laplacian


def _graph():
    rng = np.random.default_rng(3)
    W = rng.random((12, 12))
    W = np.triu(W, 1)
    W[W < 0.5] = 0.0
    W = W + W.T
    return W


def _oracle(W, S, y, phi, mu, kind):
    """f = Phi[:, S] beta + b with [[Phi_SS + mu I, 1], [1^T, 0]] [beta; b] = [y; 0], Phi by dense eigh."""
    lam, U = np.linalg.eigh(laplacian(W, kind).toarray())
    P = (U * phi(lam)) @ U.T
    l = S.size
    A = np.block([[P[np.ix_(S, S)] + mu * np.eye(l), np.ones((l, 1))], [np.ones((1, l)), np.zeros((1, 1))]])
    sol = np.linalg.solve(A, np.r_[y, 0.0])
    return P[:, S] @ sol[:-1] + sol[-1]


@pytest.mark.parametrize("method", ["cg", "sparse", "direct", "auto"])
@pytest.mark.parametrize("kind", ["normalized", "combinatorial"])
def test_free_constant_on_each_method(method, kind):
    W = _graph()
    S = np.array([0, 3, 5, 8, 11])
    y = np.full(12, np.nan)
    y[S] = [4.0, 5.5, 3.2, 6.1, 5.0]
    phi = filters.RegularizedLaplacian(3.0)
    est = GraphKernelRidgeRegressor(phi, alpha=1e-2, fit_intercept=True, method=method, laplacian=kind,
                                    graph="precomputed").fit(W, y)
    f = _oracle(W, S, y[S], phi, 1e-2, kind)
    np.testing.assert_allclose(est.transduction_, f, rtol=1e-6, atol=1e-6 * np.abs(f).max())


def test_sparse_refused_without_polynomial_inverse_as_without_intercept():
    W = _graph()
    y = np.full(12, np.nan)
    y[[0, 3, 5]] = [1.0, 2.0, 0.5]
    for fit_intercept in (False, True):
        # fit_intercept=True ignored method and fitted with the dense kernel columns
        with pytest.raises(ValueError, match="method='sparse' needs a response"):
            GraphKernelRidgeRegressor(filters.Heat(1.0), alpha=1e-2, fit_intercept=fit_intercept, method="sparse",
                                      graph="precomputed").fit(W, y)


@pytest.mark.parametrize("method", ["cg", "sparse"])
def test_label_free_component_gets_the_prior_once(method):
    W = np.zeros((6, 6))
    for i, j in [(0, 1), (1, 2), (3, 4), (4, 5)]:
        W[i, j] = W[j, i] = 1.0
    y = np.full(6, np.nan)
    y[[0, 2]] = [1.0, 3.0]
    phi = filters.RegularizedLaplacian(2.0)
    with pytest.warns(GraphWarning, match="without any labeled node") as record:
        est = GraphKernelRidgeRegressor(phi, alpha=1e-2, method=method, graph="precomputed").fit(W, y)
    assert sum(issubclass(r.category, GraphWarning) for r in record) == 1
    ref = GraphKernelRidgeRegressor(phi, alpha=1e-2, method="direct", graph="precomputed").fit(W, y)
    np.testing.assert_allclose(est.transduction_, ref.transduction_, rtol=1e-7)
    np.testing.assert_array_equal(est.transduction_[3:], 2.0)


@pytest.mark.parametrize("method", ["cg", "sparse"])
def test_the_method_asked_for_is_the_one_solved_on(monkeypatch, method):
    # the refusal above shows "sparse" reaches graph_kernel_ridge; this shows both methods do, with the targets and
    # the column of ones (the dense-columns path never calls it, so a fallback to it would pass the oracle test)
    import graphrkhs.estimators._transductive as transductive

    calls = []
    solve = transductive.graph_kernel_ridge

    def spy(W, S, Y, phi, **kw):
        calls.append((kw.get("method"), np.shape(Y)))
        return solve(W, S, Y, phi, **kw)

    monkeypatch.setattr(transductive, "graph_kernel_ridge", spy)
    W = _graph()
    y = np.full(12, np.nan)
    y[[0, 3, 5, 8, 11]] = [4.0, 5.5, 3.2, 6.1, 5.0]
    GraphKernelRidgeRegressor(filters.RegularizedLaplacian(3.0), alpha=1e-2, fit_intercept=True, method=method,
                              graph="precomputed").fit(W, y)
    assert calls == [(method, (5, 2))]
