"""graph_kernel_tv: R = phi(L)^{-1} never cancels constants, so label-free components keep the minimizer (0)."""

import warnings

import numpy as np
import pytest
from scipy.optimize import minimize

from graphrkhs import GraphWarning, filters, graph_kernel_tv, laplacian


def _two_components():
    W = np.zeros((7, 7))
    for i, j in [(0, 1), (1, 2), (2, 3), (4, 5), (5, 6)]:
        W[i, j] = W[j, i] = 1.0
    return W


def _dense_R(W, phi):
    w, V = np.linalg.eigh(laplacian(W, "normalized").toarray())
    return V @ np.diag(1.0 / phi(w)) @ V.T


def _oracle(R, S, y, lam, alpha):
    # min sum lam (y - f_S)^2 + alpha sum t  s.t.  |R f| <= t   (SLSQP on the smooth form)
    n = R.shape[0]
    cons = [{"type": "ineq", "fun": lambda z: z[n:] - R @ z[:n]}, {"type": "ineq", "fun": lambda z: z[n:] + R @ z[:n]}]
    opt = minimize(lambda z: (lam * (y - z[:n][S]) ** 2).sum() + alpha * z[n:].sum(), np.full(2 * n, 0.3),
                   constraints=cons, method="SLSQP", options=dict(maxiter=5000, ftol=1e-15))
    return opt.fun


@pytest.mark.parametrize("phi, fidelity", [(filters.default_kernel(), "degree"), (filters.Heat(2.0), "uniform")])
def test_label_free_component_keeps_the_minimizer(phi, fidelity):
    W = _two_components()
    R = _dense_R(W, phi)
    S, y, alpha = np.array([0, 3]), np.array([1.0, 2.0]), 0.3
    lam = np.abs(R).sum(axis=0)[S] if fidelity == "degree" else np.ones(2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        F, res = graph_kernel_tv(W, S, y, phi, alpha=alpha, fidelity=fidelity, filter_tol=1e-12,
                                 return_info=True)
    got = (lam * (y - F[S]) ** 2).sum() + alpha * np.abs(R @ F).sum()
    # before: nodes 4-6 got the mean 1.5, objective 1.061 (default kernel) against the reported 0.1244
    assert res.converged
    assert got == pytest.approx(float(np.ravel(res.objective)[0]), rel=1e-6)
    assert got <= _oracle(R, S, y, lam, alpha) * (1 + 1e-3)
    np.testing.assert_allclose(F[4:], 0.0, atol=1e-12)
    assert any(issubclass(w.category, GraphWarning) and "R does not cancel constants" in str(w.message)
               for w in caught)


def test_tv_estimators_keep_the_prior_on_label_free_components():
    # the estimators' rule (every learner): label-free nodes score the mean of the labeled targets, one warning
    from graphrkhs import GraphTVClassifier, GraphTVRegressor
    W = _two_components()
    y = np.array([0, -1, -1, 1, -1, -1, -1])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        clf = GraphTVClassifier(alpha=0.3, graph="precomputed").fit(W, y)
        reg = GraphTVRegressor(alpha=0.3, R="kernel", graph="precomputed").fit(W, np.where(y >= 0, y + 1.0, np.nan))
    np.testing.assert_allclose(clf.scores_[4:], 0.5)
    np.testing.assert_allclose(clf.label_distributions_[4:], 0.5)
    np.testing.assert_allclose(reg.transduction_[4:], 1.5)
    free = [str(w.message) for w in caught if "without any labeled node" in str(w.message)]
    assert len(free) == 2 and all("mean of the labeled targets" in m for m in free)


def test_label_free_check_with_an_inverse_beyond_float64():
    # Heat(370): 1/phi(lmax) = e^(370 lmax) overflows; the label-free check must not fail (the minimizer is kept)
    W = _two_components()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GraphWarning)
        F = graph_kernel_tv(W, [0, 3], np.array([1.0, 2.0]), filters.Heat(370.0), alpha=0.3, fidelity="uniform")
    assert np.isfinite(F).all()
    np.testing.assert_array_equal(F[4:], 0.0)


def test_kernel_without_inverse_polynomial_needs_no_series_of_its_inverse():
    # RandomWalk has no inverse polynomial: the check of the mean once ran a Chebyshev series of 1/phi (0.38 s
    # against 0.02 s here, and an AccuracyWarning at max_order).  The minimizer is 0 on the free component, and
    # any other value raises the objective by alpha ||R_CC d||_1 > 0 (R invertible): the rule needs no R G.
    from graphrkhs import AccuracyWarning

    W = _two_components()
    phi = filters.RandomWalk(2.0101, 4)
    S, y, alpha = np.array([0, 3]), np.array([1.0, 2.0]), 0.3
    with warnings.catch_warnings():
        warnings.simplefilter("error", AccuracyWarning)
        warnings.simplefilter("ignore", GraphWarning)
        f, info = graph_kernel_tv(W, S, y, alpha=alpha, kernel=phi, fidelity="uniform", return_info=True)
    assert np.all(f[4:] == 0.0)
    R = _dense_R(W, phi)
    objective = ((y - f[S]) ** 2).sum() + alpha * np.abs(R @ f).sum()
    np.testing.assert_allclose(objective, info.objective, rtol=1e-6)
