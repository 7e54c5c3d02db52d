"""Float32 points: the inductive kernel expansions are evaluated in float64 and returned in float32, and the
fits solve on kernels of float64 points (the float32 points are exact in float64).

Near interpolation (the small ridges the selections choose) the coefficients of LapRLS, PRLS and PLapRLS
are 1e3 - 1e4 times the fitted values; their float32 rounding and a float32 kernel times them cancelled to
6e-3 (LapRLS), 2e-3 (PRLS) and 8e-4 (PLapRLS) of the values, while the float64 fit on the same (float32)
points is the same model.  The float32 predictions are now that model's values rounded to float32.

The fits themselves: the warped kernel was built from the float32 points (WarpedKernelRegressor 4e-3 off the
float64 fit on the same points with its defaults, the classifier's decision values 0.67 off), PLapRLS at fixed
gammas solved on a float32 Gram matrix (5e-4 at gamma_A = 1e-8, 2e-2 with the heat penalty), and LapRLS's
selection of the gammas at a fixed width ran on a float32 Gram matrix (3e-3 at sigma = 5.826).
"""

import numpy as np
import pytest

from graphrkhs import (LapRLSClassifier, LapRLSRegressor, PLapRLSClassifier, PLapRLSRegressor, PRLSRegressor,
                       WarpedKernelClassifier, WarpedKernelRegressor, knn_graph)


def _data():
    rng = np.random.default_rng(2)
    X = rng.uniform(-2, 2, size=(60, 2))
    f = np.sin(X[:, 0]) + 0.3 * X[:, 1]
    y = np.full(60, np.nan)
    lab = rng.choice(60, 15, replace=False)
    y[lab] = f[lab] + 0.05 * rng.normal(size=15)
    # float32 points, and targets exact in float32: both fits solve the same problem
    return X.astype(np.float32), y.astype(np.float32).astype(np.float64)


# the default ("auto") paths and LapRLS's direct solve at fixed gammas, all on float64 grams (CG keeps X's
# dtype for memory: not tested here)
CASES = [
    (LapRLSRegressor, dict()),
    (LapRLSRegressor, dict(sigma=5.826, gamma_A=3.162e-7, gamma_I=0.1733)),
    (PRLSRegressor, dict(sigma=4.12, gamma=1e-6)),
    (PRLSRegressor, dict()),
    (PLapRLSRegressor, dict()),
]


@pytest.mark.parametrize("cls, kw", CASES, ids=["LapRLS", "LapRLS-fixed", "PRLS-fixed", "PRLS", "PLapRLS"])
def test_float32_points_predict_the_float64_model(cls, kw):
    X32, y = _data()
    X64 = X32.astype(np.float64)
    m32 = cls(**kw).fit(X32, y)
    m64 = cls(**kw).fit(X64, y)
    p32, p64 = m32.predict(X32), m64.predict(X64)
    assert p32.dtype == np.float32 and p64.dtype == np.float64
    # the float64 model's values rounded to float32 (up to the rounding of the fit itself): before, a
    # float32 evaluation of coefficients near 1e4 was off by up to 6e-3 (values of order 1)
    np.testing.assert_allclose(p32, p64, rtol=0, atol=2e-6 * np.abs(p64).max())
    # the float32 model evaluated at float64 points is the same function
    np.testing.assert_allclose(m32.predict(X64), p64, rtol=0, atol=2e-6 * np.abs(p64).max())


def test_float32_points_classifier_decision_in_float32():
    X32, y = _data()
    yc = np.where(np.isnan(y), -1, (y > 0.3).astype(int))
    kw = dict(sigma=5.826, gamma_A=3.162e-7, gamma_I=0.1733)
    for params in ({}, kw):             # "auto" and the direct solve at fixed gammas
        d32 = LapRLSClassifier(**params).fit(X32, yc).decision_function(X32)
        d64 = LapRLSClassifier(**params).fit(X32.astype(np.float64), yc).decision_function(X32.astype(np.float64))
        assert d32.dtype == np.float32
        np.testing.assert_allclose(d32, d64, rtol=0, atol=2e-6 * np.abs(d64).max())


# the graph learners' direct fits, classifiers by their decision values
GRAPH_CASES = {
    "Warped": (WarpedKernelRegressor, dict()),
    "Warped-classifier": (WarpedKernelClassifier, dict()),
    "Warped-fixed": (WarpedKernelRegressor, dict(sigma=0.5, gamma_A=1e-8, gamma_I=1.0)),
    "PLapRLS-fixed": (PLapRLSRegressor, dict(sigma=1.0, gamma_A=1e-6, gamma_I=1e-2)),
    "PLapRLS-fixed-small": (PLapRLSRegressor, dict(sigma=1.0, gamma_A=1e-8, gamma_I=1e-2)),
    "PLapRLS-classifier-fixed": (PLapRLSClassifier, dict(sigma=1.0, gamma_A=1e-8, gamma_I=1e-2)),
    "PLapRLS-heat": (PLapRLSRegressor, dict(kernel="heat", sigma=1.0, gamma_A=1e-6, gamma_I=1e-2,
                                            integral_operator="heat")),
    "LapRLS-width-fixed": (LapRLSRegressor, dict(sigma=5.826)),
    "LapRLS-classifier-width-fixed": (LapRLSClassifier, dict(sigma=1.0)),
}


def _values(est, X):
    return est.decision_function(X) if hasattr(est, "decision_function") else est.predict(X)


@pytest.mark.parametrize("graph", ["same adjacency", "built from X"])
@pytest.mark.parametrize("name", list(GRAPH_CASES))
def test_float32_points_fit_the_float64_model(name, graph):
    cls, kw = GRAPH_CASES[name]
    X32, y = _data()
    X64 = X32.astype(np.float64)
    if cls in (LapRLSClassifier, PLapRLSClassifier, WarpedKernelClassifier):
        y = np.where(np.isnan(y), -1, (y > 0.3).astype(int))
    if graph == "same adjacency":
        # one float64 adjacency for both fits: they then do the same float64 arithmetic on the same values
        # (float32 points and targets are exact in float64), and differ only by the float32 rounding of the
        # returned values, 2^-24 = 6e-8 of each (measured <= 7e-8); 5e-7 leaves room for BLAS sums ordered
        # otherwise.  Before: 3e-6 (LapRLS classifier) to 0.67 (warped classifier)
        kw, tol = {**kw, "graph": knn_graph(X64, 10)}, 5e-7
    else:
        # the graph of float32 points has float32 weights (knn_graph keeps the points' dtype), rounded at
        # 6e-8: a perturbation of the problem itself, which the fits at gamma_A = 1e-6..1e-8 amplify (measured
        # 2.4e-6 with the heat penalty, 3e-7 otherwise).  Before: 5e-5 to 0.67
        tol = 1e-5
    f32 = _values(cls(**kw).fit(X32, y), X32)
    f64 = _values(cls(**kw).fit(X64, y), X64)
    assert f32.dtype == np.float32 and f64.dtype == np.float64
    np.testing.assert_allclose(f32, f64, rtol=0, atol=tol * np.abs(f64).max())
