"""The one gate of every "auto": leave-one-out selects only when it can rank (``loo_selects``).

With every class labeled once, leaving a label out leaves its class without one, so each LOO residual
falls as the fit flattens and the criterion ran to an edge of the grid: Fredholm labeled 20 % of five
blobs (chance) and PRLS 20-60 %.  Every learner then uses its documented fallback numbers.
"""

import numpy as np
import pytest
from sklearn.datasets import make_blobs

import graphrkhs as g
from graphrkhs.estimators._auto import loo_selects


def onehot(codes, k):
    return np.eye(k)[np.asarray(codes)]


@pytest.mark.parametrize("Y, classifier, expected", [
    # regressors: three labeled values are enough
    (np.array([[0.5], [1.0]]), False, False),
    (np.array([[0.5], [1.0], [2.0]]), False, True),
    # classifiers: only rows of classes with two or more labels count, and 3 of them are needed
    (onehot([0, 1, 2], 3), True, False),                  # every class once
    (onehot([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 10), True, False),
    (onehot([0, 0, 1, 2], 3), True, False),               # 2 informative rows
    (onehot([0, 0, 1, 1, 2], 3), True, True),             # 4 informative rows
    (onehot([0, 0, 0, 1], 2), True, True),                # 3 informative rows
    (onehot([0, 1], 2), True, False),
    # two classes as one signed column
    (np.array([[1.0], [-1.0], [1.0]]), True, False),
    (np.array([[1.0], [-1.0], [1.0], [-1.0]]), True, True),
    # centred one-hot columns keep the class of each row
    (onehot([0, 0, 1, 1, 2], 3) - onehot([0, 0, 1, 1, 2], 3).mean(axis=0), True, True),
    (onehot([0, 1, 2], 3) - 1 / 3, True, False),
])
def test_loo_selects(Y, classifier, expected):
    assert loo_selects(Y, classifier) is expected


@pytest.fixture(scope="module")
def blobs_one_label():
    X, y = make_blobs(300, n_features=20, centers=5, cluster_std=4.0, random_state=0)
    rng = np.random.default_rng(0)
    S = np.array([rng.choice(np.flatnonzero(y == c)) for c in range(5)])
    yl = np.full(y.size, -1)
    yl[S] = y[S]
    return X, y, yl


def _median_distance(X):
    d = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    return float(np.median(d[np.triu_indices(X.shape[0], 1)]))


# the documented fallback numbers (module docs of graphrkhs.estimators._auto, each parameter's docs)
FALLBACKS = [
    (g.RLSClassifier, dict(alpha=1e-3)),
    (g.PRLSClassifier, dict(gamma=1e-3)),
    (g.GRLSClassifier, dict(gamma=1e-3)),
    (g.FredholmClassifier, dict(alpha=1e-3)),
    (g.LapRLSClassifier, dict(gamma_A=1e-6, gamma_I=1e6)),
    (g.PLapRLSClassifier, dict(gamma_A=1e-6, gamma_I=1e6)),
    (g.WarpedKernelClassifier, dict(gamma_A=1e-6, gamma_I=1e6)),
]


@pytest.mark.parametrize("E, numbers", FALLBACKS, ids=lambda v: getattr(v, "__name__", ""))
def test_one_label_per_class_fits_the_fallback_numbers(blobs_one_label, E, numbers):
    # "auto" with every class labeled once is the same fit as the fallback numbers at the median width
    X, y, yl = blobs_one_label
    auto = E().fit(X, yl)
    fixed = E(sigma=_median_distance(X), **numbers).fit(X, yl)
    assert auto.sigma_ == pytest.approx(fixed.sigma_, rel=1e-12)
    np.testing.assert_allclose(auto.decision_function(X), fixed.decision_function(X), rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("E, alpha", [(g.LaplacianRegularizationClassifier, 1e3),
                                      (g.GraphKernelRidgeClassifier, 1.0)])
def test_one_label_per_class_graph_learners_take_the_top_of_their_grid(blobs_one_label, E, alpha):
    X, y, yl = blobs_one_label
    auto = E().fit(X, yl)
    assert auto.alpha_ == alpha and auto.cv_results_ is None
    # the fixed-alpha fit solves iteratively (relative residual 1e-8)
    np.testing.assert_allclose(auto.scores_, E(alpha=alpha).fit(X, yl).scores_, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("E", [E for E, _ in FALLBACKS] + [g.LaplacianRegularizationClassifier,
                                                         g.GraphKernelRidgeClassifier],
                         ids=lambda E: E.__name__)
def test_one_label_per_class_labels_separated_blobs(E):
    # before the gate: Fredholm 0.20 on every draw (chance), PRLS 0.21-0.61
    X, y = make_blobs(300, n_features=20, centers=5, cluster_std=4.0, random_state=0)
    for seed in range(2):
        rng = np.random.default_rng(seed)
        S = np.array([rng.choice(np.flatnonzero(y == c)) for c in range(5)])
        yl = np.full(y.size, -1)
        yl[S] = y[S]
        assert np.mean(E().fit(X, yl).predict(X) == y) >= 0.9
