"""The hinge loss's k-fold selection with a class labeled once: the class's label stays in every training set
(stratified folds of the other classes, :func:`~graphrkhs.kfold_splits`), as in every other selection of a
classifier; before, any class labeled once made the hinge loss keep the squared-loss ridge unselected."""
import warnings

import numpy as np
from sklearn.multiclass import OneVsRestClassifier
from sklearn.svm import SVC

from graphrkhs import FredholmClassifier
from graphrkhs.solvers import kfold_splits


def _data():
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(0, 1, (10, 2)), rng.normal(3, 1, (10, 2)), rng.normal((0, 4), 1, (10, 2))]
    y = np.full(30, -1)
    y[0] = 0                                              # class 0 labeled once
    y[10:16], y[20:26] = 1, 2
    return X, y


def test_hinge_ridge_is_chosen_by_kfold_with_the_lone_label_always_in_training():
    X, y = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = FredholmClassifier(loss="hinge", sigma=1.0).fit(X, y)
    res = est.cv_results_
    assert "param_ridge" in res                          # the hinge loss's own table (was the squared loss's)
    # brute force: one-vs-rest SVMs refitted on each training fold, in the selection's canonical row order
    P = est.labeled_points_
    order = np.lexsort(P.T[::-1])
    G = est.kernel_(P, P, right=est.right_)[np.ix_(order, order)]
    codes = y[est.labeled_index_][order]
    folds = kfold_splits(codes, 5, random_state=0)
    lone = np.flatnonzero(codes == 0)
    assert all(np.isin(lone, tr).all() and not np.isin(lone, te).any() for tr, te in folds)
    for ridge, score in zip(res["param_ridge"], res["mean_test_score"]):
        acc = []
        for tr, te in folds:
            svm = OneVsRestClassifier(SVC(kernel="precomputed", C=1.0 / (2.0 * ridge * tr.size)))
            acc.append(np.mean(svm.fit(G[np.ix_(tr, tr)], codes[tr]).predict(G[np.ix_(te, tr)]) == codes[te]))
        np.testing.assert_allclose(score, np.mean(acc), atol=1e-12)
    assert est.alpha_ in res["param_ridge"]


def test_stratified_folds_keep_a_class_of_copies_in_training():
    # class 0: two copies of one point (one group) -- a class labeled once for held-out scoring
    y = np.array([0, 0, 1, 1, 1, 1, 2, 2, 2, 2])
    groups = np.array([0, 0, 1, 2, 3, 4, 5, 6, 7, 8])
    folds = kfold_splits(y, 5, random_state=0, groups=groups)
    assert len(folds) == 4
    for tr, te in folds:
        assert {0, 1} <= set(tr) and not {0, 1} & set(te)
    np.testing.assert_array_equal(np.sort(np.concatenate([te for _, te in folds])), np.arange(2, 10))
