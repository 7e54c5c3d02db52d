"""An explicit backend='dask' without an active distributed.Client is one clear error for every estimator.

GraphKernelRidge*, GraphTV* and PoissonRidgeEnsembleClassifier raised "needs an active distributed.Client",
while LaplacianRegularization* and PoissonLearningClassifier (and harmonic_solution / tikhonov_solution /
poisson_learning) on graphs of up to 5000 nodes took their direct solve and fitted serially without a word.
This module uses no client fixture (a module-scoped client of another module is closed at its end).
"""
import numpy as np
import pytest

import graphrkhs as gr
from graphrkhs.distributed import mpi_world_size

import distributed  # noqa: E402,F401  (the test extra installs dask[distributed]; no skip hides its absence)

pytestmark = pytest.mark.skipif(mpi_world_size() > 1, reason="the Dask tests run in the plain pytest pass "
                                "(tests/distributed, one process)")

_ESTIMATORS = ["LaplacianRegularizationClassifier", "LaplacianRegularizationRegressor", "PoissonLearningClassifier",
               "GraphKernelRidgeClassifier", "GraphKernelRidgeRegressor", "GraphTVClassifier", "GraphTVRegressor",
               "PoissonRidgeEnsembleClassifier"]


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    y = np.full(30, -1)
    y[:3], y[3:6] = 0, 1
    return X, y


@pytest.mark.parametrize("name", _ESTIMATORS)
@pytest.mark.parametrize("alpha", [None, 0.1])
def test_explicit_dask_without_client_is_an_error(name, alpha):
    with pytest.raises(ValueError, match="No global client"):
        distributed.get_client()      # the premise: no client is active in this process
    X, y = _data()
    params = {"n_neighbors": 5, "backend": "dask"}
    if alpha is not None and "alpha" in getattr(gr, name)().get_params():
        params["alpha"] = alpha
    target = y if name.endswith("Classifier") else np.where(y >= 0, y, np.nan).astype(float)
    with pytest.raises(ValueError, match=r"backend='dask' needs an active distributed\.Client"):
        getattr(gr, name)(**params).fit(X, target)


def test_graph_solvers_with_explicit_dask_without_client_are_an_error():
    X, y = _data()
    W = gr.knn_graph(X, n_neighbors=5)
    S = np.arange(6)
    Y = np.eye(2)[y[:6]]
    for solve in (lambda: gr.harmonic_solution(W, S, Y, backend="dask"),
                  lambda: gr.tikhonov_solution(W, S, Y, alpha=0.1, backend="dask"),
                  lambda: gr.poisson_learning(W, S, Y, backend="dask"),
                  # the exact selection (its Kron reduction runs serially: it fitted without a word)
                  lambda: gr.select_tikhonov_solution(W, S, Y, backend="dask")):
        with pytest.raises(ValueError, match=r"backend='dask' needs an active distributed\.Client"):
            solve()
    # the serial spellings and "auto" still solve (the direct path)
    F = gr.harmonic_solution(W, S, Y, backend="auto")
    assert np.allclose(F[S], Y)
