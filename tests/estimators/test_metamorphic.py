"""Metamorphic identities of every estimator: the same problem asked another way gives the same answer.

* node numbering: permuting the nodes of a precomputed graph (and the labels) permutes ``transduction_``,
  ``scores_`` and ``label_distributions_``;
* class names: renaming the classes (other names in another sorted order, ``class_priors`` by name)
  permutes the class columns and renames the decisions;
* regression targets: ``y -> s y + t`` gives ``s f + t`` (every regressor is affine-equivariant in y, its
  automatic selections included);
* units of the edge weights: ``W -> c W`` changes no decision of the transductive classifiers and no
  regressor's fit (the normalized-Laplacian methods and Poisson learning, whose scores scale as 1 / c),
  also on a graph with a component no label reaches; Poisson MBO's ``mu`` is in the units of W
  (``mu c`` on ``c W`` is the same fit);
* an isolated unlabeled node appended to the graph changes no other node's output.

The exact float64 identities hold to rounding (1e-6 relative: selections over a grid and iterative solves
to 1e-8 and below); c is a power of two, so c W is exact.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import is_classifier

import graphrkhs
from graphrkhs import knn_graph
from graphrkhs.estimators import INDUCTIVE, TRANSDUCTIVE

ALL = [getattr(graphrkhs, name) for name in TRANSDUCTIVE + INDUCTIVE]
TRANS = [getattr(graphrkhs, name) for name in TRANSDUCTIVE]
CLASSIFIERS = [E for E in ALL if is_classifier(E())]
REGRESSORS = [E for E in ALL if not is_classifier(E())]
_ids = lambda E: E.__name__  # noqa: E731
RTOL = 1e-6


def _est(E, **kw):
    params = E().get_params()
    if E in TRANS and "n_neighbors" in params:
        kw.setdefault("n_neighbors", 6)
    if E.__name__.startswith("GraphTV"):
        kw.setdefault("tol", 1e-8)            # the answers compared to 1e-6: the TV solve well below it
    if "random_state" in params:
        kw.setdefault("random_state", 0)
    return E(**kw)


def _problem(n_free=0):
    """Three blobs of 20 points with 3 labels each (a few dozen nodes keep each fit fast), optionally a far
    blob of n_free unlabeled points (a component of the kNN graph that no label reaches)."""
    rng = np.random.default_rng(0)
    centres = np.array([[0.0, 0.0], [4.0, 0.0], [0.0, 4.0]])
    X = np.repeat(centres, 20, axis=0) + rng.normal(scale=1.2, size=(60, 2))
    y = np.repeat([0, 1, 2], 20)
    labeled = np.r_[0, 1, 2, 20, 21, 22, 40, 41, 42]
    if n_free:
        X = np.r_[X, rng.normal(size=(n_free, 2)) + 60.0]
        y = np.r_[y, np.zeros(n_free, int)]
    return X, y, labeled


def _targets(E, y, labeled):
    if is_classifier(E()):
        t = np.full(y.shape, -1)
        t[labeled] = y[labeled]
        return t
    t = np.full(y.shape, np.nan)
    t[labeled] = y[labeled] * 1.5 - 0.5 + 0.1 * np.arange(labeled.size)    # not constant on a class
    return t


def _outputs(est):
    return {k: np.asarray(getattr(est, k)) for k in ("transduction_", "scores_", "label_distributions_")
            if hasattr(est, k)}


def _assert_same(a, b, rows=slice(None)):
    for key in a:
        if a[key].dtype.kind in "iuOU":
            np.testing.assert_array_equal(b[key][rows], a[key][rows], err_msg=key)
        else:
            scale = np.abs(a[key][rows]).max()
            np.testing.assert_allclose(b[key][rows], a[key][rows], rtol=RTOL, atol=RTOL * scale, err_msg=key)


def _fitted_on_graph(E, n_free=0):
    """The kNN graph of ``_problem(n_free)``, the targets, and E fitted on that precomputed graph."""
    X, y, labeled = _problem(n_free)
    W = knn_graph(X, 6)
    t = _targets(E, y, labeled)
    return W, t, _est(E, graph="precomputed").fit(W, t)


@pytest.mark.filterwarnings("ignore::graphrkhs.GraphRKHSWarning")
@pytest.mark.parametrize("E", TRANS, ids=_ids)
def test_permuting_the_nodes_of_the_graph_permutes_every_output(E):
    W, t, a = _fitted_on_graph(E)
    perm = np.random.default_rng(5).permutation(W.shape[0])
    b = _est(E, graph="precomputed").fit(sp.csr_array(W.toarray()[perm][:, perm]), t[perm])
    _assert_same({k: v[perm] for k, v in _outputs(a).items()}, _outputs(b))


@pytest.mark.filterwarnings("ignore::graphrkhs.GraphRKHSWarning")
@pytest.mark.parametrize("E", CLASSIFIERS, ids=_ids)
def test_renaming_the_classes_permutes_the_class_columns(E):
    # codes 0, 1, 2 renamed "c", "a", "b": sorted, the columns of the renamed fit are the classes 1, 2, 0,
    # and the class priors, given by name, follow the names
    X, y, labeled = _problem()
    names = np.array(["c", "a", "b"], dtype=object)
    priors = [0.5, 0.3, 0.2]
    t = _targets(E, y, labeled)
    t_named = np.where(t == -1, -1, names[np.maximum(t, 0)]).astype(object)
    X_new = np.random.default_rng(3).uniform(-2, 6, size=(15, 2))
    a = _est(E, class_priors=priors).fit(X, t)
    b = _est(E, class_priors=dict(zip(names, priors))).fit(X, t_named)
    np.testing.assert_array_equal(b.classes_, ["a", "b", "c"])
    column = np.array([1, 2, 0])                      # b's column j is a's column column[j]
    out_a, out_b = _outputs(a), _outputs(b)
    if "transduction_" in out_a:
        out_a["transduction_"] = names[out_a["transduction_"]]
    for key in ("scores_", "label_distributions_"):
        if key in out_a:
            out_a[key] = out_a[key][:, column]
    out_a["predict"], out_b["predict"] = names[a.predict(X_new)], b.predict(X_new)
    out_a["proba"], out_b["proba"] = a.predict_proba(X_new)[:, column], b.predict_proba(X_new)
    _assert_same(out_a, out_b)


@pytest.mark.filterwarnings("ignore::graphrkhs.GraphRKHSWarning")
@pytest.mark.parametrize("E", REGRESSORS, ids=_ids)
def test_an_affine_map_of_the_targets_maps_the_fit(E):
    # f(s y + t) = s f(y) + t, for a negative s too (the automatic selections are affine-invariant)
    X, y, labeled = _problem()
    target = _targets(E, y, labeled)
    X_new = np.random.default_rng(3).uniform(-2, 6, size=(15, 2))
    a = _est(E).fit(X, target)
    b = _est(E).fit(X, -3.0 * target + 7.0)
    expected, got = -3.0 * a.predict(X_new) + 7.0, b.predict(X_new)
    np.testing.assert_allclose(got, expected, rtol=RTOL, atol=RTOL * np.abs(expected).max())
    if hasattr(a, "transduction_"):
        np.testing.assert_allclose(b.transduction_, -3.0 * a.transduction_ + 7.0, rtol=RTOL,
                                   atol=RTOL * 7.0)


@pytest.mark.filterwarnings("ignore::graphrkhs.GraphRKHSWarning")
@pytest.mark.parametrize("exponent", [-10, 13])
@pytest.mark.parametrize("E", TRANS, ids=_ids)
def test_the_units_of_the_edge_weights_change_no_decision(E, exponent):
    # on a graph with a component no label reaches, whose nodes get the class prior (no units) while
    # Poisson's potentials are in 1 / units of W: the ensemble mixed the two in its standardization
    W, t, a = _fitted_on_graph(E, n_free=8)
    c = 2.0 ** exponent
    kw = {"mu": c} if E is graphrkhs.PoissonMBOClassifier else {}    # mu in the units of W: c W with mu c
    b = _est(E, graph="precomputed", **kw).fit(W * c, t)
    out_a, out_b = _outputs(a), _outputs(b)
    if E is graphrkhs.PoissonLearningClassifier:
        # its scores on the reached nodes are the potentials (1 / c), its probabilities their softmax; the
        # label-free nodes' scores are the class prior
        scores = out_a["scores_"].copy()
        scores[:60] /= c
        out_a = {"transduction_": out_a["transduction_"], "scores_": scores}
        out_b.pop("label_distributions_")
    _assert_same(out_a, out_b)


@pytest.mark.filterwarnings("ignore::graphrkhs.GraphRKHSWarning")
@pytest.mark.parametrize("E", TRANS, ids=_ids)
def test_an_isolated_unlabeled_node_changes_no_other_output(E):
    W, t, a = _fitted_on_graph(E)
    b = _est(E, graph="precomputed").fit(sp.block_diag([W, sp.csr_array((1, 1))], format="csr"),
                                         np.r_[t, t[3]])          # t[3]: the marker (unlabeled)
    _assert_same(_outputs(a), _outputs(b), rows=slice(0, W.shape[0]))


_RIGID = [(E, {}) for E in ALL] + [(E, {"loss": "hinge"}) for E in (graphrkhs.FredholmClassifier,
                                                                     graphrkhs.WarpedKernelClassifier)]
#: draws of the overlapping blobs whose hinge selection moved with the coordinates' order (and fits fast)
_HINGE_SEED = {"FredholmClassifier": 3, "WarpedKernelClassifier": 5}


@pytest.mark.filterwarnings("ignore::graphrkhs.GraphRKHSWarning")
@pytest.mark.parametrize("E, kw", _RIGID, ids=lambda v: v.__name__ if isinstance(v, type) else str(v))
def test_a_rigid_motion_of_the_points_changes_no_prediction(E, kw):
    # every kernel and graph here is a function of the distances between points: rotating, reflecting and
    # shifting all points (fitted and new) changes nothing.  The hinge loss's ridge is chosen by k-fold CV,
    # whose folds were drawn on the labeled points sorted by their coordinates: a rotation changed the
    # folds, and the ridge by up to 1000x (three overlapping blobs: up to 14 of these 40 new points changed class)
    X, y, labeled = _problem()
    if kw:
        # overlapping blobs with five labels a class: the hinge's 5-fold CV runs and its scores differ
        rng = np.random.default_rng(_HINGE_SEED[E.__name__])
        X = np.repeat([[0.0, 0.0], [3.0, 0.0], [0.0, 3.0]], 20, axis=0) + rng.normal(scale=1.2, size=(60, 2))
        labeled = np.r_[0:5, 20:25, 40:45]
    t = _targets(E, y, labeled)
    X_new = np.random.default_rng(3).uniform(-2, 6, size=(40, 2))
    theta = 0.7
    Q = np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]])
    a = _est(E, **kw).fit(X, t)
    for move in (lambda P: P @ Q.T + np.array([5.0, -3.0]), lambda P: -P):
        b = _est(E, **kw).fit(move(X), t)
        if is_classifier(a):
            np.testing.assert_array_equal(b.predict(move(X_new)), a.predict(X_new))
            np.testing.assert_allclose(b.predict_proba(move(X_new)), a.predict_proba(X_new), rtol=1e-5, atol=1e-6)
        else:
            expected = a.predict(X_new)
            np.testing.assert_allclose(b.predict(move(X_new)), expected, rtol=1e-5,
                                       atol=1e-5 * np.abs(expected).max())


def _grid_problem():
    """Points on the integer grid 0..7 x 0..7 (every neighbourhood full of exact ties), classes by the
    diagonal stripes, two labels a class; new points at the centres of the cells and on the nodes."""
    g = np.arange(8.0)
    X = np.array([(a, b) for a in g for b in g])
    y = ((X[:, 0] + 2 * X[:, 1]) // 5 % 3).astype(int)
    labeled = np.r_[[np.flatnonzero(y == c)[[0, -1]] for c in range(3)]].ravel()
    h = np.arange(7.0) + 0.5
    X_new = np.r_[np.array([(a, b) for a in h for b in h]), X[::7] + 0.0]
    return X, y, labeled, X_new


@pytest.mark.filterwarnings("ignore::graphrkhs.GraphRKHSWarning")
@pytest.mark.parametrize("E", TRANS, ids=_ids)
def test_permuting_the_fitted_points_changes_no_prediction(E):
    # a new point at a cell centre has 4 fitted points at distance 0.71 and 8 at 1.58: its 6 nearest take
    # 2 of the 8, chosen by index (the row order of the fitted points) while the graph's search chose by the
    # points' coordinates (tie_ranks); the 2 differed after a permutation of the rows, and so did the
    # prediction (GraphKernelRidgeClassifier: 11 of the 57 new points' probabilities moved)
    X, y, labeled, X_new = _grid_problem()
    t = _targets(E, y, labeled)
    perm = np.random.default_rng(7).permutation(X.shape[0])
    a = _est(E).fit(X, t)
    b = _est(E).fit(X[perm], t[perm])
    _assert_same({k: v[perm] for k, v in _outputs(a).items()}, _outputs(b))    # the graph's ties: by coordinates
    if is_classifier(a):
        np.testing.assert_allclose(b.predict_proba(X_new), a.predict_proba(X_new), rtol=RTOL, atol=RTOL)
        np.testing.assert_array_equal(b.predict(X_new), a.predict(X_new))
    else:
        expected = a.predict(X_new)
        np.testing.assert_allclose(b.predict(X_new), expected, rtol=RTOL, atol=RTOL * np.abs(expected).max())
