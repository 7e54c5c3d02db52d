"""WarpedKernelClassifier / Regressor take a GraphSpec of any mode and algorithm: the estimator builds the graph and
WarpedKernel takes it prebuilt, so the warped RLS is LapRLS on that graph (DESIGN).  mode='mutual' and
algorithm='brute' raised a ValueError from when WarpedKernel built its own graph."""
import numpy as np
import pytest

from graphrkhs import GraphSpec, LapRLSRegressor, WarpedKernelClassifier, WarpedKernelRegressor


def _data():
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal(0, 1, (12, 2)), rng.normal(3, 1, (12, 2))])
    y = np.full(24, np.nan)
    rows = [0, 1, 2, 12, 13, 14]
    y[rows] = np.sin(X[rows, 0])
    return X, y


@pytest.mark.parametrize("spec", [GraphSpec(kind="knn", n_neighbors=4, mode="mutual"),
                                  GraphSpec(kind="knn", n_neighbors=4, mode="average", algorithm="brute")])
def test_warped_spec_any_mode_is_laprls(spec):
    X, y = _data()
    params = dict(sigma=1.0, gamma_A=1e-3, gamma_I=1e-1, fit_intercept=False)
    warped = WarpedKernelRegressor(graph=spec, **params).fit(X, y).predict(X)
    # oracles: LapRLS on the same GraphSpec, and the warped kernel on the adjacency the spec builds
    laprls = LapRLSRegressor(graph=spec, **params).fit(X, y).predict(X)
    given = WarpedKernelRegressor(graph=spec.build(X), **params).fit(X, y).predict(X)
    np.testing.assert_allclose(warped, laprls, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(warped, given, rtol=1e-12, atol=1e-14)
    labels = np.where(np.isnan(y), -1, (y > 0).astype(int))
    WarpedKernelClassifier(graph=spec, **params).fit(X, labels).predict(X)     # fits (it raised before)
