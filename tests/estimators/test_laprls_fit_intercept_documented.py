"""LapRLS's ``fit_intercept`` is documented, and the docstring's "gamma_I = 0 gives RLS" holds as stated.

The parameter was missing from the Parameters section of LapRLSClassifier / LapRLSRegressor
(mentioned only inside ``gamma_A``), and ``gamma_I``'s "0 gives RLS on the labeled points" read
as RLSRegressor's fit; but LapRLS's constant is the centring of y while RLS's ``fit_intercept``
is an unpenalized constant: at gamma_I = 0 with the default fit_intercept the two regressors'
predictions differ by 0.016 on targets near 3 (and the classifiers by 0.05 with
fit_intercept=True).  The oracle: dense kernel ridge on the labeled points.
"""

import inspect
import re

import numpy as np
import pytest

from graphrkhs import LapRLSClassifier, LapRLSRegressor


def _documented_parameters(cls):
    doc = inspect.cleandoc(cls.__doc__)
    section = re.search(r"\nParameters\n-+\n(.*?)\n\S[^\n]*\n-+\n", doc, re.S).group(1)
    names = set()
    for line in section.splitlines():
        entry = re.match(r"^([A-Za-z_][\w, ]*?)\s*:", line)
        if entry:
            names.update(n.strip() for n in entry.group(1).split(","))
    return names


def _gauss(A, B):
    return np.exp(-((A[:, None, :] - B[None, :, :]) ** 2).sum(-1) / 2.0)


@pytest.mark.parametrize("cls", [LapRLSClassifier, LapRLSRegressor])
def test_fit_intercept_is_a_documented_parameter(cls):
    params = _documented_parameters(cls)
    assert "fit_intercept" in params
    assert set(cls().get_params()) <= params


def _data():
    """40 points, every 4th labeled with targets near 3, and 5 test points."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    S = np.arange(0, 40, 4)
    y = np.full(40, np.nan)
    y[S] = np.sin(X[S, 0]) + 3.0
    return X, S, y, rng.normal(size=(5, 2))


def test_gamma_I_zero_is_ridge_on_the_centred_targets():
    X, S, y, Xt = _data()
    KSS, KtS, ridge = _gauss(X[S], X[S]), _gauss(Xt, X[S]), 0.01 * S.size
    m = y[S].mean()
    centred = KtS @ np.linalg.solve(KSS + ridge * np.eye(S.size), y[S] - m) + m
    plain = KtS @ np.linalg.solve(KSS + ridge * np.eye(S.size), y[S])
    for fi, oracle in [("auto", centred), (True, centred), (False, plain)]:
        est = LapRLSRegressor(sigma=1.0, gamma_A=0.01, gamma_I=0.0, fit_intercept=fi).fit(X, y)
        np.testing.assert_allclose(est.predict(Xt), oracle, rtol=1e-9, atol=1e-9)


def test_gamma_I_zero_on_the_linear_kernel_is_ridge_with_an_unpenalized_constant():
    # the linear kernel's points are centred on their labeled mean too (x_offset_): the centring is then the
    # unpenalized constant of ridge regression, the docstring's exception (0.20 off the centred-y recipe here)
    X, S, y, Xt = _data()
    # oracle: min ||y - X w - b||^2 + gamma_A l ||w||^2 with b free, by the normal equations of [X, 1]
    A = np.hstack([X[S], np.ones((S.size, 1))])
    D = np.diag([0.01 * S.size] * 2 + [0.0])
    wb = np.linalg.solve(A.T @ A + D, A.T @ y[S])
    oracle = Xt @ wb[:2] + wb[2]
    est = LapRLSRegressor(kernel="linear", gamma_A=0.01, gamma_I=0.0).fit(X, y)
    np.testing.assert_allclose(est.predict(Xt), oracle, rtol=1e-9, atol=1e-9)
