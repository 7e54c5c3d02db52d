"""Issue 13, finding 16: the multi-class hinge loss predicts the argmax of its decision function and
does not depend on the class names or their order.

Before: one-vs-one ``SVC``.  Its pairwise votes tie on whole regions (three-way cycles: 21% of new
points of three blobs), libsvm's ``predict`` gives a tie to the class that sorts first, and each
pair's orientation follows the sorted names, which moves the decision values by libsvm's tolerance
(~2e-4 here) and flipped predictions when the classes were renamed.  Now: one SVM per class, one
vs rest, each oriented by its class (not by the names); ``decision_function`` = the k functions,
``predict`` = their argmax.  The oracle fits the same binary SVCs on the estimator's kernel matrix.
"""

import itertools

import numpy as np
import pytest
from sklearn.datasets import make_blobs
from sklearn.svm import SVC

from graphrkhs import FredholmClassifier, WarpedKernelClassifier

CENTERS = [[-4.0, 0.0], [4.0, 0.0], [0.0, 6.0]]


@pytest.fixture(scope="module")
def blobs():
    X, y = make_blobs(150, centers=CENTERS, cluster_std=1.5, random_state=0)
    rng = np.random.default_rng(0)
    keep = np.sort(np.concatenate([rng.choice(np.flatnonzero(y == c), 5, replace=False) for c in range(3)]))
    y_partial = np.full(150, -1)
    y_partial[keep] = y[keep]
    g = np.linspace(-40.0, 40.0, 25)
    grid = np.array(np.meshgrid(g, g + 2.0)).reshape(2, -1).T   # near and far from the data
    return X, y, y_partial, keep, np.vstack([X, grid])


# The warped kernel at fixed values (its defaults before they became "auto"): with them this data has
# one-vs-one tie regions (asserted below), the case the argmax of one-vs-rest scores must survive.
ESTIMATORS = [lambda **kw: FredholmClassifier(loss="hinge", **kw),
              lambda **kw: WarpedKernelClassifier(loss="hinge", **{"sigma": None, "gamma_A": 1e-2, "gamma_I": 1.0,
                                                                  **kw})]
IDS = ["fredholm", "warped"]


def _kernels(est, Xn):
    G_SS = np.asarray(est.kernel_(est.labeled_points_, est.labeled_points_, right=est.right_), dtype=np.float64)
    G_nS = np.asarray(est.kernel_(Xn, est.labeled_points_, right=est.right_), dtype=np.float64)
    return G_SS, G_nS


@pytest.mark.parametrize("make", ESTIMATORS, ids=IDS)
def test_predict_is_the_argmax_of_one_vs_rest_svms(blobs, make):
    X, y, y_partial, keep, Xn = blobs
    est = make().fit(X, y_partial)
    D = est.decision_function(Xn)
    pred = est.predict(Xn)
    np.testing.assert_array_equal(pred, est.classes_[D.argmax(axis=1)])
    np.testing.assert_array_equal(pred, est.classes_[est.predict_proba(Xn).argmax(axis=1)])
    # oracle: class c against the rest, C = 1 / (2 alpha_ l), on the same kernel matrices
    G_SS, G_nS = _kernels(est, Xn)
    C = 1.0 / (2.0 * est.alpha_ * keep.size) if hasattr(est, "alpha_") else est.svc_[0].C
    # the SVMs are fitted on the kernel less its mean over the labeled pairs (a constant the free intercept
    # absorbs exactly; against libsvm's float32 kernel cache), given transposed (libsvm's gradient sums
    # columns, its decision_function rows): the same libsvm problem here, so equal to rounding
    shift = G_SS.mean()
    for c in range(3):
        # (libsvm's stopping tolerance as the estimators' SVMs: 1e-7, not scikit-learn's 1e-3)
        svc = SVC(kernel="precomputed", C=C, tol=1e-7).fit((G_SS - shift).T, (y[keep] == c).astype(int))
        # equal to libsvm's stopping tolerance (1e-7: a few 1e-8 apart, the two fits' iterations differ in rounding)
        np.testing.assert_allclose(D[:, c], svc.decision_function(G_nS - shift), rtol=1e-6, atol=1e-9)
    # the same data under one-vs-one voting: the tie regions that made the old predictions fragile
    ovo = SVC(kernel="precomputed", C=C, decision_function_shape="ovo").fit(G_SS, y[keep]).decision_function(G_nS)
    votes = np.zeros((Xn.shape[0], 3))
    for col, (i, j) in enumerate(itertools.combinations(range(3), 2)):
        votes[:, i] += ovo[:, col] > 0
        votes[:, j] += ovo[:, col] <= 0
    tied = (votes == votes.max(axis=1, keepdims=True)).sum(axis=1) > 1
    if make is ESTIMATORS[1]:
        assert tied.mean() > 0.02


def test_two_classes_orientation_does_not_follow_the_names(blobs):
    X, y, y_partial, keep, Xn = blobs
    two = np.where(y_partial == 2, -1, y_partial)
    for make in ESTIMATORS:
        a = make().fit(X, two)
        b = make().fit(X, np.where(two >= 0, 1 - two, -1))
        np.testing.assert_allclose(b.decision_function(Xn), -a.decision_function(Xn), rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(1 - b.predict(Xn), a.predict(Xn))


@pytest.mark.parametrize("make", ESTIMATORS, ids=IDS)
def test_predictions_do_not_depend_on_class_names_or_order(blobs, make):
    X, y, y_partial, keep, Xn = blobs
    base = make().fit(X, y_partial)
    ref = base.predict(Xn)
    D_ref = base.decision_function(Xn)
    for perm in itertools.permutations(range(3)):
        names = np.array(["alpha", "beta", "gamma"], dtype=object)[list(perm)]
        yq = np.where(y_partial >= 0, names[np.maximum(y_partial, 0)], None).astype(object)
        est = make(unlabeled=None).fit(X, yq)
        pred = est.predict(Xn)
        back = {name: c for c, name in enumerate(names)}
        np.testing.assert_array_equal(np.array([back[p] for p in pred]), ref)
        # the decision columns are the same functions, reordered with the classes
        order = [list(est.classes_).index(names[c]) for c in range(3)]
        np.testing.assert_allclose(est.decision_function(Xn)[:, order], D_ref, rtol=1e-12, atol=1e-12)
    # reversed integer labels
    rev = make().fit(X, np.where(y_partial >= 0, 2 - y_partial, -1))
    np.testing.assert_array_equal(2 - rev.predict(Xn), ref)
