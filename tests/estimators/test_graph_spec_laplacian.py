"""A GraphSpec given as ``graph=`` carries a Laplacian kind and power; the estimators take theirs from their own
``laplacian`` / ``laplacian_power`` parameters.  A spec asking for another Laplacian than the estimator's was
silently ignored (LapRLSClassifier(graph=GraphSpec(laplacian="normalized")) fitted the combinatorial Laplacian,
bit for bit the fit with laplacian="combinatorial"); it is now refused with a ValueError naming both."""

import warnings

import numpy as np
import pytest

import graphrkhs
from graphrkhs import GraphSpec


def _data():
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(size=(15, 2)), rng.normal(size=(15, 2)) + 2.5]
    y = np.full(30, -1)
    y[[0, 1, 15, 16]] = [0, 0, 1, 1]
    return X, y


@pytest.mark.parametrize("E, kw", [
    (graphrkhs.LapRLSClassifier, dict(gamma_A=1e-3, gamma_I=1.0, sigma=1.0)),
    (graphrkhs.LaplacianRegularizationClassifier, dict(alpha=0.1)),
    (graphrkhs.PoissonLearningClassifier, {}),
    (graphrkhs.WarpedKernelClassifier, dict(gamma_A=1e-3, gamma_I=1.0, sigma=1.0)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_a_spec_laplacian_the_estimator_does_not_use_is_refused(E, kw):
    X, y = _data()
    with pytest.raises(ValueError, match=r"graph=GraphSpec\(laplacian='normalized'\).*laplacian"):
        E(graph=GraphSpec(n_neighbors=5, laplacian="normalized"), **kw).fit(X, y)


@pytest.mark.parametrize("E", [graphrkhs.LapRLSRegressor, graphrkhs.PLapRLSClassifier])
def test_a_spec_laplacian_power_the_estimator_does_not_use_is_refused(E):
    X, y = _data()
    y = y.astype(float) if "Regressor" in E.__name__ else y
    if "Regressor" in E.__name__:
        y[y == -1] = np.nan
    with pytest.raises(ValueError, match=r"graph=GraphSpec\(laplacian_power=2\).*laplacian_power"):
        E(graph=GraphSpec(n_neighbors=5, laplacian_power=2), gamma_A=1e-3, gamma_I=1.0).fit(X, y)


def test_a_spec_that_agrees_with_the_estimator_fits_as_the_estimator_parameters():
    # the same Laplacian asked both ways, and the spec's default kind under an estimator's other default: accepted
    X, y = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = graphrkhs.LapRLSClassifier(graph=GraphSpec(n_neighbors=5, laplacian="normalized", laplacian_power=2),
                                       laplacian="normalized", laplacian_power=2, gamma_A=1e-3, gamma_I=1.0,
                                       sigma=1.0).fit(X, y)
        b = graphrkhs.LapRLSClassifier(n_neighbors=5, laplacian="normalized", laplacian_power=2, gamma_A=1e-3,
                                       gamma_I=1.0, sigma=1.0).fit(X, y)
        np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
        c = graphrkhs.GraphKernelRidgeClassifier(graph=GraphSpec(n_neighbors=5), alpha=0.1).fit(X, y)
        d = graphrkhs.GraphKernelRidgeClassifier(n_neighbors=5, alpha=0.1).fit(X, y)
        np.testing.assert_array_equal(c.label_distributions_, d.label_distributions_)
