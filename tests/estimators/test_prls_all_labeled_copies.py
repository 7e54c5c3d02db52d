"""PRLS's leave-group-out when every labeled row is a copy of one point.

The copies form one group, and leaving the group out leaves nothing to refit: ``_prls_loo_refit`` took the
eigendecomposition of a 0 x 0 Gram matrix and ``PRLSRegressor().fit`` raised ``IndexError: index -1 is out of
bounds`` (RLSRegressor and PLapRLSRegressor fit the same data).  The LOO residual is now undefined (inf) there, as
in :class:`~graphrkhs._core.loo.KernelRidgePath`, the selection warns that its criterion is undefined, and the fit
is the least-squares one: the targets' mean at the point (a constant, which PRLS leaves unpenalized).
"""
import warnings

import numpy as np
import pytest

from graphrkhs.estimators import PRLSRegressor, RLSRegressor
from graphrkhs.solvers._selection import prls_loo_errors
from graphrkhs import consistency_grams


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 2))
    X[:3] = X[0]                                   # the three labeled rows: one point
    y = np.full(12, np.nan)
    y[:3] = [0.0, 1.0, 2.0]
    return X, y


def test_prls_regressor_fits_labeled_copies_of_one_point():
    X, y = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = PRLSRegressor().fit(X, y)
        ref = RLSRegressor().fit(X, y)
    # the loss (1/l) sum (y_i - f(x_0))^2 is least at f(x_0) = mean(y) = 1, reached by the constant 1, which
    # the penalty ||f - L_K f||_K^2 leaves free (Yang-King-Lyu 2009, Psi = constants)
    np.testing.assert_allclose(est.predict(X), 1.0, atol=1e-8)
    np.testing.assert_allclose(ref.predict(X[:1]), 1.0, atol=1e-8)


def test_prls_loo_errors_undefined_when_the_group_is_every_row():
    X, y = _data()
    K, Kp, Kpp, _ = consistency_grams(X[:3], X, sigma=1.0)
    scores, _ = prls_loo_errors(K, Kp, Kpp, y[:3], [1.0], loo_groups=np.zeros(3, dtype=int))
    assert scores.shape == (1,) and scores[0] == -np.inf
