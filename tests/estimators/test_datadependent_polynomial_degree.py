"""The warped and Fredholm learners take the point-cloud kernel's ``degree`` and ``coef0`` as every other
inductive learner does (RLS, LapRLS, PRLS, PLapRLS, G-RLS): same names, same defaults (3, 1.0), same checks.

Before, their "polynomial" kernel was fixed at :math:`(x^T z + 1)^2` while LapRLS's default is degree 3: the
warped RLS, which is LapRLS at the same parameters, was not LapRLS with ``kernel="polynomial"``, and no other
degree or offset could be asked for (``degree=`` was a TypeError).  Oracles: LapRLS (the warped RLS is LapRLS),
pairwise_kernel (gamma_I = 0 leaves the base kernel unwarped) and the Fredholm kernel's defining sum
:math:`K_F = \\frac1{n^2} K(A, X)\\, K_H(X, X)\\, K(X, B)` on dense pairwise_kernel blocks.
"""
import inspect

import numpy as np
import pytest

import graphrkhs as g
from graphrkhs import pairwise_kernel
from graphrkhs._core.validation import InvalidParameterError

POLY = [{}, {"degree": 2, "coef0": 0.5}, {"degree": 4, "coef0": 2.0}, {"degree": 1, "coef0": 0.0}]


def _problem():
    rng = np.random.default_rng(0)
    X = 0.6 * rng.normal(size=(50, 2))
    y = np.full(50, np.nan)
    lab = np.arange(0, 50, 4)
    y[lab] = np.sin(2 * X[lab, 0]) + X[lab, 1]
    return X, y, 0.6 * rng.normal(size=(15, 2))


@pytest.mark.parametrize("poly", POLY)
def test_warped_polynomial_is_laprls_polynomial(poly):
    X, y, X_new = _problem()
    kw = dict(kernel="polynomial", gamma_A=1e-2, gamma_I=0.1, n_neighbors=6, **poly)
    warped = g.WarpedKernelRegressor(**kw).fit(X, y).predict(X_new)
    laprls = g.LapRLSRegressor(**kw).fit(X, y).predict(X_new)
    np.testing.assert_allclose(warped, laprls, rtol=0, atol=1e-8 * np.abs(laprls).max())


@pytest.mark.parametrize("poly", POLY)
def test_warped_base_kernel_is_pairwise_kernel(poly):
    X, y, X_new = _problem()
    est = g.WarpedKernelRegressor(kernel="polynomial", gamma_A=1e-2, gamma_I=0.0, n_neighbors=6, **poly).fit(X, y)
    degree, coef0 = poly.get("degree", 3), poly.get("coef0", 1.0)
    expected = pairwise_kernel(X_new, X[:7], "polynomial", degree=degree, coef0=coef0)
    np.testing.assert_allclose(est.kernel_(X_new, X[:7]), expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("poly", POLY)
@pytest.mark.parametrize("outer, inner", [("polynomial", "linear"), ("gaussian", "polynomial"),
                                          ("polynomial", "polynomial")])
def test_fredholm_polynomial_kernel_is_the_defining_sum(outer, inner, poly):
    X, y, X_new = _problem()
    est = g.FredholmRegressor(outer=outer, inner=inner, sigma=0.8, alpha=1e-2, **poly).fit(X, y)
    kw = dict(sigma=0.8, degree=poly.get("degree", 3), coef0=poly.get("coef0", 1.0))
    n = X.shape[0]
    expected = pairwise_kernel(X_new, X, outer, **kw) @ pairwise_kernel(X, X, inner, **kw) \
        @ pairwise_kernel(X, X[:7], outer, **kw) / n**2
    np.testing.assert_allclose(est.kernel_(X_new, X[:7]), expected, rtol=1e-10, atol=1e-12 * np.abs(expected).max())


INDUCTIVE = [g.RLSRegressor, g.LapRLSRegressor, g.PRLSRegressor, g.PLapRLSRegressor, g.GRLSRegressor,
             g.WarpedKernelRegressor, g.WarpedKernelClassifier, g.FredholmRegressor, g.FredholmClassifier]


@pytest.mark.parametrize("cls", INDUCTIVE)
def test_one_polynomial_specification_with_one_set_of_defaults(cls):
    params = inspect.signature(cls).parameters
    assert (params["degree"].default, params["coef0"].default) == (3, 1.0)


@pytest.mark.parametrize("cls", [g.WarpedKernelRegressor, g.FredholmRegressor])
@pytest.mark.parametrize("bad, message", [({"degree": 0}, "degree must be an int in \\[1, inf\\); got 0"),
                                          ({"degree": 2.5}, "degree must be an int in \\[1, inf\\); got 2.5"),
                                          ({"degree": True}, "degree must be an int in \\[1, inf\\); got True"),
                                          ({"coef0": np.nan}, "coef0 must be a float in \\(-inf, inf\\); got nan")])
def test_bad_degree_or_coef0_is_refused_as_by_laprls(cls, bad, message):
    X, y, _ = _problem()
    for est in (cls(**bad), g.LapRLSRegressor(**bad)):
        with pytest.raises(InvalidParameterError, match=message):
            est.fit(X, y)
