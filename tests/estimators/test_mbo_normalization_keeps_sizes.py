"""The MBO classifiers under a class normalization keep their solver's class sizes (the documented contract of
``class_normalization``: class offsets, the prices of a size-constrained assignment, keep them).

The prices reproduce that assignment only up to ties, and the solvers leave rows with equal scores (told apart
by one unit in the last place) that the scaling of the normalization made exactly equal: their argmax put them
all in the first class.  On the graph below, volume MBO with ``"mean_shift"`` labeled the 13 unlabeled nodes
3 / 9 / 1 (classes a, b, x) where the priors (0.1, 0.8, 0.1) give 1 / 11 / 1, and Poisson MBO with ``"mass"``
5 / 2 / 6 where (0.3, 0.2, 0.5) give 4 / 3 / 6.
"""

import warnings

import numpy as np
import pytest

from graphrkhs import PoissonMBOClassifier, VolumeMBOClassifier
from graphrkhs.solvers import class_sizes


def _graph(w):
    """A path 0..7 with a 4-clique hung at node 3 and another at node 7 (edges of weight w)."""
    n = 16
    W = np.zeros((n, n))
    for i in range(7):
        W[i, i + 1] = W[i + 1, i] = 1.0
    W[8:12, 8:12] = 1.0
    W[12:, 12:] = 1.0
    np.fill_diagonal(W, 0.0)
    W[3, 8] = W[8, 3] = w
    W[7, 12] = W[12, 7] = w
    return W


@pytest.mark.parametrize("cls, norm, w, priors", [
    (VolumeMBOClassifier, "mean_shift", 1.0, {"x": 0.1, "a": 0.1, "b": 0.8}),
    (PoissonMBOClassifier, "mass", 0.01, {"x": 0.5, "a": 0.3, "b": 0.2}),
])
def test_class_normalization_keeps_the_class_sizes(cls, norm, w, priors):
    W = _graph(w)
    y = np.array(["?"] * 16, dtype=object)
    y[0], y[7], y[4] = "x", "b", "a"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = cls(graph="precomputed", class_priors=priors, class_normalization=norm, unlabeled="?").fit(W, y)
    unlabeled = y == "?"
    expected = class_sizes(np.array([priors[c] for c in est.classes_]), int(unlabeled.sum()))
    got = np.array([np.sum(est.transduction_[unlabeled] == c) for c in est.classes_])
    np.testing.assert_array_equal(got, expected)
    # one decision: label_distributions_' argmax is transduction_, and the labeled nodes keep their labels
    np.testing.assert_array_equal(est.classes_[est.label_distributions_.argmax(axis=1)], est.transduction_)
    np.testing.assert_array_equal(est.transduction_[~unlabeled], y[~unlabeled])
