"""Transductive classifiers: the given labels in ``transduction_`` and the dtype of the fitted scores."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_blobs

import graphrkhs as g
from graphrkhs import GraphRKHSWarning, LaplacianRegularizationClassifier, knn_graph

TRANSDUCTIVE = [getattr(g, n) for n in g.__all__ if n.endswith("Classifier") and hasattr(getattr(g, n), "_store")]


def _blobs_six_labels():
    X, y = make_blobs(60, centers=3, random_state=0)
    yy = np.full(60, -1)
    yy[:6] = y[:6]
    return X, y, yy


def _dense_tikhonov(W, S, Y, alpha):
    """(J + alpha L) F = J Y by numpy.linalg on the dense matrix (the oracle)."""
    W = np.asarray(sp.csr_array(W).toarray(), dtype=np.float64)
    L = np.diag(W.sum(axis=1)) - W
    J = np.zeros_like(L)
    J[S, S] = 1.0
    B = np.zeros((W.shape[0], Y.shape[1]))
    B[S] = Y
    return np.linalg.solve(J + alpha * L, B)


def test_laplacian_regularization_keeps_the_given_labels_and_warns_when_one_class_takes_every_node():
    # only the first 6 of 60 blob points labeled (1 0 0 0 0 2): at alpha = 10^0.5 (what alpha="auto" chose)
    # the Tikhonov scores of every node lie near the labeled proportions (4/6, 1/6, 1/6), and every node,
    # the labeled nodes of classes 1 and 2 included, became class 0 -- silently
    X, _, yy = _blobs_six_labels()
    assert yy[:6].tolist() == [1, 0, 0, 0, 0, 2]
    W = knn_graph(X, 6)
    alpha = 10 ** 0.5
    F = _dense_tikhonov(W, np.arange(6), np.eye(3)[yy[:6]], alpha)
    assert (F.argmax(axis=1) == 0).all()          # the scenario: the method's own argmax is class 0 everywhere
    with pytest.warns(GraphRKHSWarning, match=r"alpha=3\.16.* class 0.*classes 1, 2 .*labeled proportions"):
        est = LaplacianRegularizationClassifier(alpha, graph="precomputed").fit(W, yy)
    np.testing.assert_allclose(est.scores_, F, atol=1e-10)           # scores_ stays the method's own
    np.testing.assert_array_equal(est.transduction_[:6], yy[:6])      # ... the given labels are kept
    np.testing.assert_array_equal(est.label_distributions_[:6].argmax(axis=1), yy[:6])
    np.testing.assert_allclose(est.label_distributions_.sum(axis=1), 1.0, atol=1e-12)
    assert (est.transduction_[6:] == 0).all()
    # the points path (the same graph): predict of a labeled point is its label
    with pytest.warns(GraphRKHSWarning, match="labeled proportions"):
        pts = LaplacianRegularizationClassifier(alpha, n_neighbors=6).fit(X, yy)
    np.testing.assert_array_equal(pts.predict(X[:6]), yy[:6])
    np.testing.assert_array_equal(pts.predict_proba(X[:6]).argmax(axis=1), yy[:6])


def test_laplacian_regularization_auto_keeps_the_given_labels_and_never_collapses_silently():
    X, _, yy = _blobs_six_labels()
    W = knn_graph(X, 6)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = LaplacianRegularizationClassifier(graph="precomputed").fit(W, yy)
    np.testing.assert_array_equal(est.transduction_[:6], yy[:6])
    own = est.scores_.argmax(axis=1)
    if np.unique(own).size < 3:        # a labeled class lost every node in the fit: said so
        assert any("labeled proportions" in str(w.message) for w in caught), [str(w.message) for w in caught]


def test_laplacian_regularization_does_not_warn_when_every_class_keeps_its_nodes():
    X, _, yy = _blobs_six_labels()
    W = knn_graph(X, 6)
    for alpha in (0.0, 1e-2):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            est = LaplacianRegularizationClassifier(alpha, graph="precomputed").fit(W, yy)
        np.testing.assert_array_equal(est.transduction_[:6], yy[:6])


@pytest.mark.parametrize("E", TRANSDUCTIVE, ids=lambda E: E.__name__)
def test_transductive_classifiers_keep_the_floating_dtype_of_the_input(E):
    # float32 points (or a float32 graph) gave float64 scores_ and label_distributions_, while the
    # transductive regressors return float32 (DESIGN: results keep the input dtype)
    assert len(TRANSDUCTIVE) == 8
    X, y = make_blobs(45, centers=[[0, 0], [4, 0], [0, 4]], cluster_std=0.8, random_state=1)
    yy = np.full(45, -1)
    for c in range(3):
        yy[np.flatnonzero(y == c)[:3]] = c
    params = dict(n_neighbors=6) if "n_neighbors" in E().get_params() else {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m64 = E(**params).fit(X, yy)
        m32 = E(**params).fit(X.astype(np.float32), yy)
        W32 = knn_graph(X.astype(np.float32), 6)
        mp = E(**params).set_params(graph="precomputed").fit(W32, yy)
    for m, dt in ((m64, np.float64), (m32, np.float32)):
        Xm = X.astype(dt)
        assert m.scores_.dtype == dt and m.label_distributions_.dtype == dt, E.__name__
        P = m.predict_proba(Xm)
        assert P.dtype == dt and m.decision_function(Xm).dtype == dt
        # one decision rule in the output dtype too: argmax of the probabilities is the prediction
        np.testing.assert_array_equal(m.classes_[P.argmax(axis=1)], m.predict(Xm))
        np.testing.assert_array_equal(m.classes_[m.label_distributions_.argmax(axis=1)], m.transduction_)
        np.testing.assert_array_equal(P, m.label_distributions_)
    assert mp.scores_.dtype == np.float32 and mp.label_distributions_.dtype == np.float32
    assert mp.predict_proba(W32[:3]).dtype == np.float32
    # the same fit to float32 rounding (the graph of float32 points; the solves run in float64)
    scale = float(np.abs(m64.scores_).max())
    np.testing.assert_allclose(m32.scores_, m64.scores_, atol=1e-3 * scale)


def test_laplacian_regularization_auto_fallback_is_harmonic_when_the_classes_are_labeled_unequally():
    # labels 0, 1, 1 (too few for leave-one-out): alpha="auto" fell back to the largest alpha of the grid
    # (1e3, "near the Poisson limit"), where every score tends to the labeled proportions (1/3, 2/3):
    # class 1 took all 60 nodes but the labeled node of class 0.  The Poisson limit is unbiased only when
    # the classes are labeled equally often; otherwise the fallback is the harmonic solution (alpha=0)
    X, y, _ = _blobs_six_labels()
    W = knn_graph(X, 6)
    lab = np.r_[np.flatnonzero(y == 0)[:1], np.flatnonzero(y == 1)[:2]]
    yy = np.full(60, -1)
    yy[lab] = y[lab]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        est = LaplacianRegularizationClassifier(graph="precomputed").fit(W, yy)
    harmonic = LaplacianRegularizationClassifier(0.0, graph="precomputed").fit(W, yy)
    assert est.alpha_ == 0.0 and est.cv_results_ is None
    np.testing.assert_array_equal(est.scores_, harmonic.scores_)
    assert np.unique(est.transduction_).size == 2
    # one label per class (equal counts): still the largest alpha of the grid, unbiased there
    one = np.r_[np.flatnonzero(y == 0)[:1], np.flatnonzero(y == 1)[:1], np.flatnonzero(y == 2)[:1]]
    yy = np.full(60, -1)
    yy[one] = y[one]
    est = LaplacianRegularizationClassifier(graph="precomputed").fit(W, yy)
    assert est.alpha_ == 1e3
