"""``set_params`` after ``fit`` does not change ``predict``: the fitted function is the fit's.

RLS, LapRLS, PRLS, PLapRLS and GRLS read ``kernel``, ``degree``, ``coef0``, ``null_space``, ``features`` and
``method`` live in ``predict``: ``set_params(kernel="linear")`` after a fit moved RLS's predictions by 2050
(targets of range 3) without a refit, and ``null_space=None`` / ``features="linear"`` made predict fail in
numpy's matmul.  Those parameters are now frozen at fit, as ``sigma`` always was (``sigma_``).
"""
import warnings

import numpy as np
import pytest
from sklearn.base import is_classifier

import graphrkhs
from graphrkhs.estimators import INDUCTIVE

#: another valid value of each parameter that predict could read
CHANGES = {"kernel": "linear", "degree": 2, "coef0": 0.5, "null_space": None, "features": "linear",
           "method": "constructed", "sigma": 0.01, "alpha": 0.5, "gamma_A": 0.5, "gamma_I": 0.0, "gamma": 0.5,
           "fit_intercept": False, "n_neighbors": 3, "laplacian": "normalized", "outer": "linear",
           "inner": "linear", "normalized": True, "loss": "hinge", "integral_operator": "heat"}


def _problem():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1]
    labeled = np.arange(0, 40, 3)
    return X, y, labeled, rng.normal(size=(15, 2))


@pytest.mark.parametrize("name", INDUCTIVE)
def test_predict_after_set_params_is_the_fits(name):
    E = getattr(graphrkhs, name)
    X, y, labeled, X_new = _problem()
    params = E().get_params()
    kw = {k: v for k, v in {"sigma": 1.0, "alpha": 1e-2, "gamma_A": 1e-2, "gamma_I": 1.0, "gamma": 1e-2,
                            "n_neighbors": 6}.items() if k in params}
    if is_classifier(E()):
        y_fit = np.full(40, -1)
        y_fit[labeled] = (y[labeled] > np.median(y[labeled])).astype(int)
    else:
        y_fit = np.full(40, np.nan)
        y_fit[labeled] = y[labeled]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = E(**kw).fit(X, y_fit)
        before = est.decision_function(X_new) if is_classifier(est) else est.predict(X_new)
        changed = [p for p in CHANGES if p in params]
        assert changed
        for p in changed:
            est.set_params(**{p: CHANGES[p]})
            after = est.decision_function(X_new) if is_classifier(est) else est.predict(X_new)
            np.testing.assert_array_equal(after, before, err_msg=f"{name}: set_params({p}=...) after fit")
