"""A fit that raises leaves an unfitted estimator (``fit``'s documented contract).

The input validation records ``n_features_in_`` (and PoissonRidgeEnsembleClassifier its ``graph_spec_``) before
the targets are checked: a fit on a y with one class raised its ValueError and left them, so scikit-learn's
``check_is_fitted`` passed, and ``predict`` raised ``AttributeError: 'RLSClassifier' object has no attribute
'X_fit_'`` instead of ``NotFittedError`` -- also after a successful fit followed by a failed refit (the old fit was
dropped, the new one's first attributes kept).
"""
import warnings

import numpy as np
import pytest
from sklearn.base import is_classifier
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

import graphrkhs
from graphrkhs.estimators import INDUCTIVE, TRANSDUCTIVE

ALL = [getattr(graphrkhs, name) for name in TRANSDUCTIVE + INDUCTIVE]


def _data(E):
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(size=(12, 2)), rng.normal(size=(12, 2)) + 4.0]
    if is_classifier(E()):
        good, bad = np.full(24, -1), np.full(24, -1)
        good[[0, 1, 12, 13]] = [0, 0, 1, 1]
        bad[[0, 1]] = 0                           # one class: a ValueError after the input validation
    else:
        good, bad = np.full(24, np.nan), np.full(24, np.nan)
        good[[0, 1, 12, 13]] = [0.0, 0.1, 1.0, 1.1]   # bad: no labeled row
    return X, good, bad


def _assert_unfitted(est, X):
    assert not [k for k in vars(est) if k.endswith("_") and not k.startswith("__")]
    with pytest.raises(NotFittedError):
        check_is_fitted(est)
    with pytest.raises(NotFittedError):
        est.predict(X)


@pytest.mark.parametrize("E", ALL, ids=lambda E: E.__name__)
def test_a_fit_that_raises_leaves_no_fitted_attribute(E):
    X, _, bad = _data(E)
    est = E(n_neighbors=4) if "n_neighbors" in E().get_params() else E()
    with pytest.raises(ValueError):
        est.fit(X, bad)
    _assert_unfitted(est, X)


@pytest.mark.parametrize("make", [lambda: graphrkhs.RLSClassifier(sigma=1.0, alpha=1e-2),
                                  lambda: graphrkhs.RLSRegressor(sigma=1.0, alpha=1e-2),
                                  lambda: graphrkhs.LaplacianRegularizationClassifier(n_neighbors=4, alpha=0.1)])
def test_a_refit_that_raises_leaves_no_fitted_attribute(make):
    est = make()
    X, good, bad = _data(type(est))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, good)
    with pytest.raises(ValueError):
        est.fit(X, bad)
    _assert_unfitted(est, X)
