"""Points that no label informs (all class scores exactly 0) get the class prior, as the estimator contract says.

The Gaussian-kernel expansions without an intercept (RLS, LapRLS, Fredholm, warped kernel) are exactly 0 at a
point a few dozen kernel widths from every fitted one: the documented rule (``ClassifierOutputMixin``: "a row with
no information ... gets the class prior") held for the label distributions only.  The softmax classifiers gave
such a point the uniform distribution and ``predict`` took ``classes_[0]`` at the tie: with 2 labels of class 0
against 10 of class 1, a far point was class 0 with probability 1/2 each.
"""

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_blobs

from graphrkhs import FredholmClassifier, LapRLSClassifier, RLSClassifier, WarpedKernelClassifier

FAR = np.array([[1e3, 1e3], [-1e3, 500.0]])


def _unbalanced(k):
    # classes_[0] is the class with the fewest labels
    X, y = make_blobs(150, centers=k, cluster_std=1.0, random_state=1)
    rng = np.random.default_rng(0)
    t = np.full(150, -1)
    for c, count in zip(range(k), (2, 10, 3)):
        t[rng.choice(np.flatnonzero(y == c), count, replace=False)] = c
    return X, t


@pytest.mark.parametrize("E", [RLSClassifier, LapRLSClassifier, FredholmClassifier, WarpedKernelClassifier],
                         ids=lambda E: E.__name__)
@pytest.mark.parametrize("k", [2, 3])
@pytest.mark.parametrize("priors", [None, "given"])
def test_a_point_far_from_every_fitted_one_gets_the_class_prior(E, k, priors):
    X, t = _unbalanced(k)
    b = None if priors is None else ([0.3, 0.7] if k == 2 else [0.2, 0.5, 0.3])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = E(fit_intercept=False, class_priors=b).fit(X, t)
    prior = est.class_prior_ if b is None else np.asarray(b)
    assert np.all(est._raw(FAR) == 0)                        # no information at all
    P = est.predict_proba(FAR)
    np.testing.assert_allclose(P, np.tile(prior, (2, 1)), rtol=1e-12)
    np.testing.assert_array_equal(est.predict(FAR), est.classes_[[np.argmax(prior)] * 2])
    np.testing.assert_array_equal(est.predict(FAR), est.classes_[P.argmax(axis=1)])
    D = est.decision_function(FAR)
    if k == 2:
        # positive means classes_[1]; p(classes_[1]) = 1 / (1 + exp(-2 d)), the softmax of the scores (-d, d)
        np.testing.assert_allclose(1 / (1 + np.exp(-2 * D)), prior[1], rtol=1e-12)
    else:
        np.testing.assert_array_equal(est.classes_[D.argmax(axis=1)], est.predict(FAR))
