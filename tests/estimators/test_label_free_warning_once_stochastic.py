"""One GraphWarning about label-free components per fit above ``STOCHASTIC_MIN_LABELS`` labels (the matrix-free
leave-one-out), without a warnings filter.

Each solve of the selection (one per alpha, kernel and probe block) went through graph_kernel_ridge
(tikhonov_solution, harmonic_solution), which warned about the label-free components although only a residual on
the labeled nodes is used: on a 36-node graph with a 6-node component without labels (threshold lowered to 5
labels) GraphKernelRidgeRegressor warned 12 times in one fit, the classifier 6, LaplacianRegularization 10.  The
solves of the selection now take a private argument that keeps them quiet; the fit at the chosen parameters warns
once, at the user's line.  A ``warnings.catch_warnings`` filter did the same before and was reverted: it changes the
filters of the whole process, and fits running in other threads lost their warnings.
"""
import concurrent.futures
import warnings

import numpy as np
import pytest

import graphrkhs.estimators._transductive as transductive
import graphrkhs.solvers._selection as selection
from graphrkhs import (GraphKernelRidgeClassifier, GraphKernelRidgeRegressor, LaplacianRegularizationClassifier,
                       LaplacianRegularizationRegressor, graph_kernel_ridge, graph_kernel_ridge_stochastic_errors,
                       filters, harmonic_solution, tikhonov_solution, tikhonov_stochastic_errors)
from graphrkhs._core.validation import GraphWarning

LABEL_FREE = "connected components without any labeled node"


def _two_components(n1=30, n2=6, seed=0):
    # a connected random graph on n1 nodes and a path of n2 nodes that carries no label
    rng = np.random.default_rng(seed)
    W = np.zeros((n1 + n2, n1 + n2))
    A = np.triu(rng.random((n1, n1)) < 0.2, 1) * 1.0
    A[np.arange(n1 - 1), np.arange(1, n1)] = 1.0
    W[:n1, :n1] = A + A.T
    B = np.zeros((n2, n2))
    B[np.arange(n2 - 1), np.arange(1, n2)] = 1.0
    W[n1:, n1:] = B + B.T
    return W, rng


def _problem(cls, n2=6):
    W, rng = _two_components(n2=n2)
    n = W.shape[0]
    if cls.__name__.endswith("Regressor"):
        y = np.full(n, np.nan)
        y[:20] = rng.normal(size=20)
    else:
        y = np.full(n, -1)
        y[:20] = np.arange(20) % 2
    return W, y


def _estimator(cls, **params):
    if cls.__name__.startswith("GraphKernelRidge"):
        params["kernel"] = filters.Heat(1.0)        # a short Chebyshev series: fast CG products
    return cls(graph="precomputed", **params)


def _label_free(said):
    return [w for w in said if issubclass(w.category, GraphWarning) and LABEL_FREE in str(w.message)]


@pytest.fixture
def matrix_free(monkeypatch):
    # the matrix-free selection on 20 labels (its threshold is read by the estimators and by
    # select_tikhonov_solution)
    monkeypatch.setattr(transductive, "STOCHASTIC_MIN_LABELS", 5)
    monkeypatch.setattr(selection, "STOCHASTIC_MIN_LABELS", 5)


ESTIMATORS = [GraphKernelRidgeRegressor, GraphKernelRidgeClassifier, LaplacianRegularizationRegressor,
              LaplacianRegularizationClassifier]


@pytest.mark.parametrize("cls", ESTIMATORS, ids=[c.__name__ for c in ESTIMATORS])
def test_label_free_components_warn_once_per_fit(cls, matrix_free):
    W, y = _problem(cls)
    est = _estimator(cls)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        est.fit(W, y)                                                   # the line the warning names
    said = _label_free(said)
    assert [str(w.message)[:9] for w in said] == ["6 node(s)"]
    assert said[0].filename == __file__
    # the label-free path gets the class prior, the mean of the labeled targets
    if cls.__name__.endswith("Regressor"):
        np.testing.assert_allclose(est.transduction_[30:], np.nanmean(y), rtol=1e-12)
    else:
        np.testing.assert_allclose(est.label_distributions_[30:], 0.5, rtol=1e-12)


@pytest.mark.parametrize("scores", [graph_kernel_ridge_stochastic_errors, tikhonov_stochastic_errors])
def test_selection_scores_are_quiet_the_plain_solvers_are_not(scores):
    # the matrix-free scores use residuals on the labeled nodes only (the label-free component changes none of
    # them), as the exact path scores (which never warned); each of their solves warned before
    W, y = _problem(GraphKernelRidgeRegressor)
    S = np.arange(20)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        if scores is tikhonov_stochastic_errors:
            s, _ = scores(W, S, y[S], [0.0, 1e-2, 1.0], n_probes=8)
        else:
            s, _ = scores(W, S, y[S], [1e-2, 1.0], filters.Heat(1.0), n_probes=8)
    assert np.isfinite(s).all()
    assert _label_free(said) == []
    # a user's own call of a plain solver still reports them, once, at the user's line
    for solve in (lambda: graph_kernel_ridge(W, S, y[S], filters.Heat(1.0), alpha=1e-2, method="cg"),
                  lambda: tikhonov_solution(W, S, y[S], alpha=1e-2),
                  lambda: harmonic_solution(W, S, y[S])):
        with warnings.catch_warnings(record=True) as said:
            warnings.simplefilter("always")
            F = solve()
        said = _label_free(said)
        assert [str(w.message)[:9] for w in said] == ["6 node(s)"]
        assert said[0].filename == __file__
        np.testing.assert_allclose(F[30:], y[S].mean(), rtol=1e-12)


@pytest.mark.parametrize("cls", ESTIMATORS, ids=[c.__name__ for c in ESTIMATORS])
def test_fits_in_threads_each_warn_once_and_leave_no_filter(cls, matrix_free):
    # two graphs whose label-free components differ in size (6 and 5 nodes), so that each warning names its fit;
    # fitted in two threads at once, then once more in this thread after the threads are done: a filter left
    # behind by a fit (the reverted catch_warnings fix) would silence that last fit
    problems = [_problem(cls, n2=6), _problem(cls, n2=5)] * 2     # 2 rounds: more chances for a filter to leak

    def fit(problem):            # graph kernel ridge on two alphas: a selection of 2 solves, 3 warnings per fit before
        return _estimator(cls, **({"alphas": [1e-2, 1.0]} if "Kernel" in cls.__name__ else {})).fit(*problem)

    before = list(warnings.filters)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            fitted = list(pool.map(fit, problems))
    heads = sorted(str(w.message)[:9] for w in _label_free(said))
    assert heads == ["5 node(s)"] * 2 + ["6 node(s)"] * 2
    assert warnings.filters == before
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        again = fit(problems[0])
    assert [str(w.message)[:9] for w in _label_free(said)] == ["6 node(s)"]
    # the same fit as without threads
    np.testing.assert_array_equal(fitted[0].transduction_, again.transduction_)
