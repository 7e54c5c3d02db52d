"""A zero class prior for a class with labels: one rule for every classifier and solver taking class_priors.

Before, the MBO classifiers and solvers raised a ValueError while the other classifiers and
poisson_learning accepted it (PoissonLearningClassifier(class_priors=[1, 0]) on two labeled classes kept
class 1 on its labeled node only).  Now every one raises the same ValueError, naming class_priors, the
class and the fix.
"""

import numpy as np
import pytest

import graphrkhs as g
from graphrkhs.solvers import cut_ssl, poisson_learning, poisson_mbo, volume_mbo

CLASSIFIERS = [getattr(g, n) for n in g.__all__ if n.endswith("Classifier")]


def _data():
    X = np.r_[np.zeros((5, 1)), np.ones((5, 1))] + np.arange(10)[:, None] * 1e-3
    y = np.full(10, -1)
    y[[0, 1]], y[[8, 9]] = 0, 1
    return X, y


def _small(E, **kw):
    if "n_neighbors" in E().get_params():
        kw.setdefault("n_neighbors", 3)
    return E(**kw)


@pytest.mark.parametrize("E", CLASSIFIERS, ids=lambda E: E.__name__)
def test_every_classifier_refuses_a_zero_prior_of_a_labeled_class(E):
    X, y = _data()
    with pytest.raises(ValueError, match=r"class_priors gives class 1 proportion 0, but 2 label\(s\) belong "
                                         r"to it; give it a positive proportion or remove those labels"):
        _small(E, class_priors=[1.0, 0.0]).fit(X, y)


@pytest.mark.parametrize("E", [g.PoissonLearningClassifier, g.PoissonMBOClassifier, g.RLSClassifier])
def test_zero_prior_names_the_class_by_its_label(E):
    X, y = _data()
    labels = np.array(["cat", "dog", "?"])[np.where(y < 0, 2, y)]
    with pytest.raises(ValueError, match="class_priors gives class 'cat' proportion 0, but 2 label\\(s\\)"):
        _small(E, class_priors={"cat": 0.0, "dog": 1.0}, unlabeled="?").fit(X, labels)


@pytest.mark.parametrize("solver", [poisson_learning, poisson_mbo, volume_mbo, cut_ssl])
def test_every_solver_refuses_a_zero_prior_of_a_labeled_column(solver):
    W = np.diag(np.ones(5), 1)
    W = W + W.T                                  # path on 6 nodes
    with pytest.raises(ValueError, match=r"class_priors gives class 1 \(column 1 of Y\) proportion 0, but 1 label\(s\)"):
        solver(W, [0, 5], np.eye(2), class_priors=[1.0, 0.0])


def test_poisson_learning_still_takes_a_zero_prior_of_a_column_without_labels():
    # the rule is about labeled classes: a column no labeled node has may be weighted 0 (Poisson learning's
    # priors need not sum to 1): its scores are 0, the two labeled columns keep their labels
    W = np.diag(np.ones(5), 1)
    W = W + W.T
    F = poisson_learning(W, [0, 5], np.eye(3)[:2], class_priors=[0.5, 0.5, 0.0])
    np.testing.assert_array_equal(F[:, 2], 0.0)
    np.testing.assert_array_equal(F.argmax(axis=1), [0, 0, 0, 1, 1, 1])
