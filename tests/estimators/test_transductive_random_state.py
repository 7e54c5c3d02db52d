"""``random_state`` of the transductive estimators: the seed of their graph's approximate kNN search.

On at least ``ANN_MIN_SAMPLES`` points in more than 16 dimensions ``algorithm="auto"`` searches with
pynndescent, whose lists depend on the seed: before the estimators took a ``random_state`` they built that
graph unseeded, and two fits of the same estimator on the same data (two processes on Fashion-MNIST) built
graphs some edges apart.  Here the threshold is lowered to 200 points (as tests/graphs/test_knn_auto.py does),
so 400 points in 20 dimensions take the approximate path; the oracle is the graph function itself,
``knn_graph(X, random_state=...)``, fitted on with ``graph="precomputed"``.
"""

import numpy as np
import pytest
from sklearn.base import clone, is_classifier

import graphrkhs
from graphrkhs import PoissonLearningClassifier, knn_graph, propose_labels, propose_labels_for
from graphrkhs._core.validation import InvalidParameterError
from graphrkhs.estimators import TRANSDUCTIVE
from graphrkhs.graphs import _search

# pynndescent's first search in a process compiles kernels: with the other pynndescent tests in one worker
pytestmark = pytest.mark.xdist_group("pynndescent")

ESTIMATORS = [getattr(graphrkhs, name) for name in TRANSDUCTIVE]


@pytest.fixture
def approximate_search(monkeypatch):
    """``algorithm="auto"`` takes pynndescent from 200 points on."""
    monkeypatch.setattr(_search, "ANN_MIN_SAMPLES", 200)


def _data(E):
    """400 points of two shifted Gaussian clouds in 20 dimensions (signed: the ensemble's ``graph="auto"`` is the
    Euclidean ``knn_graph(X)``), 5 labels a class; NaN for the regressors' unlabeled rows."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 20))
    X[200:, 0] += 3.0
    y = np.repeat([0, 1], 200)
    keep = np.r_[rng.choice(200, 5, replace=False), 200 + rng.choice(200, 5, replace=False)]
    if is_classifier(E()):
        target = np.full(400, -1)
    else:
        target = np.full(400, np.nan)
    target[keep] = y[keep]
    return X, target


def _fitted(est):
    return est.scores_ if is_classifier(est) else est.transduction_


def test_the_data_take_the_approximate_path_and_its_seed_changes_the_graph(approximate_search):
    # the premise of the tests below: without it they could not fail
    X, _ = _data(PoissonLearningClassifier)
    W0, info = knn_graph(X, random_state=0, return_info=True)
    assert info["algorithm"] == "pynndescent" and not info["exact"] and not info["fallback"]
    W1 = knn_graph(X, random_state=1)
    assert (W0 != W1).nnz > 0
    assert (W0 != knn_graph(X, random_state=0)).nnz == 0


# Laplace learning's low-label-rate warning (5 labels a class in 20 dimensions) is not what is tested here
@pytest.mark.filterwarnings("ignore::graphrkhs.GraphRKHSWarning")
@pytest.mark.parametrize("E", ESTIMATORS, ids=lambda E: E.__name__)
def test_an_int_random_state_gives_the_graph_of_that_seed_in_every_fit(E, approximate_search):
    X, target = _data(E)
    a = E(random_state=0).fit(X, target)
    b = E(random_state=0).fit(X, target)
    np.testing.assert_array_equal(a.transduction_, b.transduction_)
    np.testing.assert_array_equal(_fitted(a), _fitted(b))
    # the seed reaches the graph: the fit is the fit on knn_graph(X, random_state=0), the estimators' defaults
    oracle = E(graph="precomputed").fit(knn_graph(X, random_state=0), target)
    np.testing.assert_array_equal(a.transduction_, oracle.transduction_)
    np.testing.assert_allclose(_fitted(a), _fitted(oracle), rtol=1e-10, atol=1e-12)
    # ... and another seed is another graph, so other scores
    other = E(random_state=1).fit(X, target)
    assert not np.array_equal(_fitted(a), _fitted(other))


def test_a_generator_random_state_seeds_the_graph_as_knn_graph_does(approximate_search):
    X, target = _data(PoissonLearningClassifier)
    a = PoissonLearningClassifier(random_state=np.random.default_rng(7)).fit(X, target)
    oracle = PoissonLearningClassifier(graph="precomputed").fit(
        knn_graph(X, random_state=np.random.default_rng(7)), target)
    np.testing.assert_allclose(a.scores_, oracle.scores_, rtol=1e-10, atol=1e-12)


def test_model_change_proposals_rebuild_the_fits_graph_with_its_random_state(approximate_search):
    X, target = _data(PoissonLearningClassifier)
    clf = PoissonLearningClassifier(random_state=0).fit(X, target)
    nodes, values = propose_labels_for(clf, X, target, 3, criterion="model_change", return_values=True)
    want, want_values = propose_labels(clf.label_distributions_, 3, criterion="model_change",
                                       labeled=np.flatnonzero(target != -1), graph=knn_graph(X, random_state=0),
                                       return_values=True)
    np.testing.assert_array_equal(nodes, want)
    np.testing.assert_allclose(values, want_values, rtol=1e-12)


@pytest.mark.parametrize("E", ESTIMATORS, ids=lambda E: E.__name__)
def test_random_state_is_a_parameter_of_the_contract(E):
    assert E().get_params()["random_state"] is None
    est = E(random_state=3)
    assert clone(est).random_state == 3
    assert est.set_params(random_state=np.random.default_rng(1)).get_params()["random_state"] is est.random_state


@pytest.mark.parametrize("value", ["zero", 1.5, True])
def test_a_bad_random_state_is_refused_before_the_graph_as_the_inductive_learners_refuse_it(value):
    X, target = _data(PoissonLearningClassifier)
    messages = []
    for E in (PoissonLearningClassifier, graphrkhs.LapRLSClassifier):
        with pytest.raises(InvalidParameterError) as info:
            E(random_state=value).fit(X, target)
        messages.append(str(info.value).replace(E.__name__, "E"))
    assert messages[0] == messages[1] == f"random_state must be None, an int or a numpy Generator; got {value!r} (E)."
