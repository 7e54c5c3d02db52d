"""A kernel object with parameters of its own (a scikit-learn kernel given as ``kernel=`` / ``outer=``) is the
fit's: ``set_params(kernel__length_scale=...)`` after ``fit`` changes that object in place, and the fitted model
held it by reference, so the predictions changed without a refit (RLSClassifier's decision values by 0.93,
FredholmClassifier's by 1.60, PLapRLSClassifier's by 1.69).  The frozen parameters of predict
(tests/estimators/test_set_params_after_fit.py) now hold a copy."""
import warnings

import numpy as np
import pytest
from sklearn.gaussian_process.kernels import RBF
from sklearn.metrics.pairwise import rbf_kernel

import graphrkhs

GAMMAS = dict(gamma_A=1e-3, gamma_I=1.0, n_neighbors=5)
CASES = [(graphrkhs.RLSClassifier, "kernel", {}), (graphrkhs.PRLSClassifier, "kernel", {}),
         (graphrkhs.GRLSClassifier, "kernel", {}), (graphrkhs.LapRLSRegressor, "kernel", GAMMAS),
         (graphrkhs.PLapRLSClassifier, "kernel", GAMMAS), (graphrkhs.FredholmClassifier, "outer", {}),
         (graphrkhs.WarpedKernelRegressor, "kernel", GAMMAS)]


@pytest.mark.parametrize("E, name, kw", CASES, ids=[c[0].__name__ for c in CASES])
def test_nested_set_params_after_fit_keeps_the_fit(E, name, kw):
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(size=(15, 2)), rng.normal(size=(15, 2)) + 3.0]
    regressor = "Regressor" in E.__name__
    y = np.full(30, np.nan if regressor else -1)
    y[[0, 1, 2, 15, 16]] = [0, 0, 0, 1, 1]
    X_new = X + 0.3
    kernel = RBF(1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = E(**{name: kernel}, **kw).fit(X, y)
        out = est.predict if regressor else est.decision_function
        before = out(X_new)
        # the same fit with an equal callable that nothing can change: the oracle of "the fit's kernel"
        fixed = E(**{name: lambda A, B: rbf_kernel(A, B, gamma=0.5)}, **kw).fit(X, y)
        np.testing.assert_allclose(before, (fixed.predict if regressor else fixed.decision_function)(X_new),
                                   rtol=1e-6, atol=1e-9)
        est.set_params(**{f"{name}__length_scale": 5.0})
        assert kernel.length_scale == 5.0                 # the parameter object itself changed
        np.testing.assert_array_equal(out(X_new), before)
        est.fit(X, y)                                     # a refit takes the new length scale
        assert np.abs(out(X_new) - before).max() > 1e-3
