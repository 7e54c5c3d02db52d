"""class_priors and class_normalization on every classifier (ClassifierOutputMixin), and the MBO estimators.

Oracles: the class-mass normalization of Zhu, Ghahramani & Lafferty (2003) and the mean shift written
out directly on the method's scores; the class sizes of the size-constrained assignment; identities
(priors equal to the labeled fractions reweight nothing).
"""

import warnings

import numpy as np
import scipy.sparse as sp
import pytest
from sklearn.base import is_classifier
from sklearn.datasets import make_blobs

import graphrkhs as g
import graphrkhs.estimators
from graphrkhs import LaplacianRegularizationClassifier, RLSClassifier
from graphrkhs._core.validation import InvalidParameterError
from graphrkhs.solvers import class_sizes

CLASSIFIERS = [getattr(g, n) for n in g.__all__ if n.endswith("Classifier")]


def _blobs(n=90, seed=0, per_class=3):
    X, y = make_blobs(n, centers=[[0, 0], [3, 0], [0, 3]], cluster_std=1.0, random_state=seed)
    rng = np.random.default_rng(seed)
    keep = np.concatenate([rng.choice(np.flatnonzero(y == c), per_class, replace=False) for c in range(3)])
    yy = np.full(n, -1)
    yy[keep] = y[keep]
    return X, y, yy


def _small(E, **kw):
    params = E().get_params()
    if "n_neighbors" in params:
        kw.setdefault("n_neighbors", 6)
    return E(**kw)


def test_every_classifier_accepts_class_priors_and_class_normalization():
    assert len(CLASSIFIERS) == 15
    for E in CLASSIFIERS:
        params = E().get_params()
        assert params["class_priors"] is None and params["class_normalization"] is None, E.__name__
        assert "class_priors :" in E.__doc__ and "class_normalization :" in E.__doc__, E.__name__


@pytest.mark.parametrize("E", CLASSIFIERS)
@pytest.mark.parametrize("bad, match", [
    ([0.5, 0.5], "class_priors must have one entry per class"),
    ([0.6, 0.6, -0.2], "finite and non-negative"),
    ([0.2, 0.2, 0.2], "sum to 1"),
    ([0.5, np.nan, 0.5], "finite and non-negative"),
])
def test_bad_class_priors_raise_naming_class_priors(E, bad, match):
    X, _, yy = _blobs()
    with pytest.raises(ValueError, match="class_priors.*" + match.split()[-1] if "class_priors" not in match
                       else match):
        _small(E, class_priors=bad).fit(X, yy)


@pytest.mark.parametrize("E", CLASSIFIERS)
def test_unknown_class_normalization_is_rejected_naming_it(E):
    X, _, yy = _blobs()
    with pytest.raises(InvalidParameterError, match="class_normalization"):
        _small(E, class_normalization="bogus").fit(X, yy)


@pytest.mark.parametrize("E", CLASSIFIERS)
def test_priors_fix_the_class_sizes_of_the_unlabeled_rows_and_all_outputs_follow(E):
    X, _, yy = _blobs()
    b = np.array([0.5, 0.3, 0.2])
    est = _small(E, class_priors=b).fit(X, yy)
    unl = yy == -1
    pred = est.predict(X)
    P = est.predict_proba(X)
    np.testing.assert_array_equal(P.argmax(axis=1), pred)
    np.testing.assert_array_equal(np.asarray(est.decision_function(X)).argmax(axis=1), pred)
    if hasattr(est, "transduction_"):
        # the fitted nodes: transduction_ and label_distributions_ follow the normalized scores_
        fitted = est.transduction_
        np.testing.assert_array_equal(est.label_distributions_.argmax(axis=1), fitted)
        # ... on the unlabeled rows; the labeled rows keep their labels (scores_ is the method's own)
        np.testing.assert_array_equal(est.classes_[est._class_scores(est.scores_).argmax(axis=1)][unl], fitted[unl])
        np.testing.assert_array_equal(fitted[~unl], yy[~unl])
    else:
        fitted = pred
    # one convention for every classifier, the MBO / CutSSL ones included: b are the class proportions of
    # the unlabeled rows (the MBO solvers sized all n' reached nodes, as the papers do: n' b minus the
    # labeled counts, (42, 24, 15) here against class_sizes(b, 81) = (41, 24, 16))
    counts = np.bincount(fitted[unl], minlength=3)
    sizes = class_sizes(b, int(unl.sum()))
    # exact: the assignment's prices separate its labeling (only exact score ties could move a node)
    np.testing.assert_array_equal(counts, sizes)


def _harmonic_fit(**kw):
    X, y, yy = _blobs()
    W = g.knn_graph(X, 6)
    return W, yy, g.LaplacianRegularizationClassifier(graph="precomputed", **kw).fit(W, yy)


def test_class_mass_normalization_equals_zhu_ghahramani_lafferty():
    W, yy, plain = _harmonic_fit()
    H = plain.scores_                                   # harmonic label distribution (non-negative)
    assert H.min() >= -1e-12
    unl = yy == -1
    q = np.bincount(yy[~unl], minlength=3) / (~unl).sum()
    low = min(H[unl].min(), 0.0)
    expected = q * (H - low) / (H[unl] - low).sum(axis=0) * unl.sum()   # Zhu et al. 2003, Sec. 4
    est = g.LaplacianRegularizationClassifier(graph="precomputed", class_normalization="mass").fit(W, yy)
    np.testing.assert_array_equal(est.transduction_, expected.argmax(axis=1))
    np.testing.assert_allclose(est.label_distributions_, expected / expected.sum(axis=1, keepdims=True),
                               rtol=1e-10)
    # given priors q replace the labeled proportions
    b = np.array([0.2, 0.3, 0.5])
    est_b = g.LaplacianRegularizationClassifier(graph="precomputed", class_normalization="mass",
                                                class_priors=b).fit(W, yy)
    np.testing.assert_allclose(est_b.class_scale_, b / (H[unl] - low).mean(axis=0))


def test_mean_shift_centres_each_class_and_reweights_by_priors_over_labeled_fractions():
    X, y, yy = _blobs()
    W = g.knn_graph(X, 6)
    plain = g.PoissonLearningClassifier(graph="precomputed").fit(W, yy)
    F = plain.scores_
    unl = yy == -1
    expected = F - F[unl].mean(axis=0)
    est = g.PoissonLearningClassifier(graph="precomputed", class_normalization="mean_shift").fit(W, yy)
    np.testing.assert_array_equal(est.transduction_, expected.argmax(axis=1))
    np.testing.assert_allclose(est.class_scale_, 1.0)
    np.testing.assert_allclose(est.class_offset_, -F[unl].mean(axis=0))


def test_priors_equal_to_the_labeled_fractions_reweight_nothing():
    X, y, yy = _blobs()
    W = g.knn_graph(X, 6)
    ybar = np.bincount(yy[yy >= 0], minlength=3) / (yy >= 0).sum()
    plain = g.PoissonLearningClassifier(graph="precomputed").fit(W, yy)
    given = g.PoissonLearningClassifier(graph="precomputed", class_priors=ybar).fit(W, yy)
    np.testing.assert_allclose(given.scores_, plain.scores_, rtol=1e-12)     # b / ybar = 1
    for norm in ("mass", "mean_shift"):
        a = g.PoissonLearningClassifier(graph="precomputed", class_normalization=norm).fit(W, yy)
        b = g.PoissonLearningClassifier(graph="precomputed", class_normalization=norm, class_priors=ybar).fit(W, yy)
        np.testing.assert_allclose(b.class_scale_, a.class_scale_, rtol=1e-12)


def test_poisson_with_given_priors_changes_the_answer_where_proportions_differ():
    # the regression of issue 15: balanced priors on an unbalanced prediction returned the default answer
    X, y = make_blobs(300, centers=[[0, 0], [2.2, 0]], cluster_std=1.0, random_state=1)
    yy = np.full(300, -1)
    yy[[np.flatnonzero(y == 0)[0], np.flatnonzero(y == 1)[0]]] = [0, 1]
    W = g.knn_graph(X, 10)
    plain = g.PoissonLearningClassifier(graph="precomputed").fit(W, yy)
    unl = yy == -1
    c0 = np.bincount(plain.transduction_[unl], minlength=2)
    assert abs(c0[0] - c0[1]) > 4               # the default answer is unbalanced here
    est = g.PoissonLearningClassifier(graph="precomputed", class_priors=[0.5, 0.5]).fit(W, yy)
    c1 = np.bincount(est.transduction_[unl], minlength=2)
    assert abs(c1[0] - c1[1]) <= 2 and not np.array_equal(est.transduction_, plain.transduction_)


def test_normalization_is_learned_at_fit_and_applied_to_new_points():
    X, y, yy = _blobs()
    est = g.RLSClassifier(class_priors=[0.5, 0.3, 0.2]).fit(X, yy)
    raw = g.RLSClassifier().fit(X, yy)
    Xn = X[:7] + 0.01
    S = raw.decision_function(Xn) * est.class_scale_ + est.class_offset_
    np.testing.assert_allclose(est.decision_function(Xn), S, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(est.predict(Xn), S.argmax(axis=1))


def test_marker_collision_rules_still_hold_with_priors():
    X, y = make_blobs(40, centers=2, random_state=0)
    y_pm = np.where(y == 1, 1, -1)
    with pytest.raises(ValueError, match=r"marker collides.*unlabeled=None"):
        g.LaplacianRegularizationClassifier(n_neighbors=5, class_priors=[0.5, 0.5]).fit(X, y_pm)
    y_pm = y_pm.astype(float)
    y_pm[::3] = np.nan
    est = g.LaplacianRegularizationClassifier(n_neighbors=5, class_priors=[0.5, 0.5], unlabeled=None).fit(X, y_pm)
    np.testing.assert_array_equal(est.classes_, [-1.0, 1.0])


@pytest.mark.parametrize("E, solver", [(g.PoissonMBOClassifier, g.poisson_mbo), (g.VolumeMBOClassifier, g.volume_mbo)])
def test_mbo_estimators_are_their_solvers(E, solver):
    X, y, yy = _blobs()
    W = g.knn_graph(X, 6)
    b = [0.4, 0.3, 0.3]
    est = E(graph="precomputed", class_priors=b).fit(W, yy)
    S = np.flatnonzero(yy >= 0)
    F = solver(W, S, np.eye(3)[yy[S]], class_priors=b)
    np.testing.assert_allclose(est.scores_, F)
    np.testing.assert_array_equal(est.transduction_, F.argmax(axis=1))
    assert (est.transduction_ == y).mean() > 0.85


@pytest.mark.parametrize("E", [g.PoissonMBOClassifier, g.VolumeMBOClassifier])
def test_mbo_sizes_default_to_the_labeled_proportions_and_the_true_priors_fix_imbalanced_data(E):
    # 80 / 30 / 10 points, 3 labels each: class_priors=None is the labeled proportions (1/3 each), which
    # forces wrong sizes; the true proportions give the clusters (Poisson learning needs no sizes here)
    X, y = make_blobs(240, n_features=6, centers=3, cluster_std=3.0, random_state=1)
    idx = np.r_[np.flatnonzero(y == 0)[:80], np.flatnonzero(y == 1)[:30], np.flatnonzero(y == 2)[:10]]
    X, y = X[idx], y[idx]
    rng = np.random.default_rng(0)
    yy = np.full(y.size, -1)
    for c in range(3):
        keep = rng.choice(np.flatnonzero(y == c), 3, replace=False)
        yy[keep] = c
    default = E().fit(X, yy)
    np.testing.assert_array_equal(default.transduction_, E(class_priors=[1 / 3] * 3).fit(X, yy).transduction_)
    assert np.bincount(default.transduction_, minlength=3).tolist() == [40, 40, 40]
    # the true proportions of the unlabeled points, 77 / 27 / 7 of 111
    assert (E(class_priors=[77 / 111, 27 / 111, 7 / 111]).fit(X, yy).transduction_ == y).mean() >= 0.98
    assert (g.PoissonLearningClassifier().fit(X, yy).transduction_ == y).mean() >= 0.98


@pytest.mark.parametrize("E", [g.PoissonMBOClassifier, g.VolumeMBOClassifier])
@pytest.mark.parametrize("priors, sizes", [(None, [8, 4]), ([0.25, 0.75], [4, 8])])
def test_mbo_estimators_size_only_the_nodes_a_label_reaches(E, priors, sizes):
    # a dense graph of two components: a path of 12 nodes with labels 0, 0, 1 (nodes 0, 1, 11) and a path
    # of 7 nodes no label reaches.  The 9 unlabeled reached nodes get the sizes class_sizes(b, 9) (b =
    # priors, or the labeled proportions 2/3, 1/3): (6, 3) / (2, 7), with the labels (8, 4) / (4, 8);
    # sizing all 16 unlabeled nodes would give 16 b = (10.7, 5.3) / (4, 12), which no labeling of the 9
    # reached ones has.  The other 7 rows are b.
    def path(m):
        A = np.diag(np.ones(m - 1), 1)
        return A + A.T

    W = np.zeros((19, 19))
    W[:12, :12] = path(12)
    W[12:, 12:] = path(7)
    yy = np.full(19, -1)
    yy[[0, 1, 11]] = [0, 0, 1]
    with pytest.warns(g.GraphWarning, match="without any labeled node"):
        est = E(graph="precomputed", class_priors=priors).fit(W, yy)
    assert np.bincount(est.transduction_[:12], minlength=2).tolist() == sizes
    np.testing.assert_array_equal(est.transduction_[[0, 1, 11]], [0, 0, 1])
    b = np.array([2 / 3, 1 / 3]) if priors is None else np.array(priors)
    np.testing.assert_allclose(est.label_distributions_[12:], np.tile(b, (7, 1)), rtol=1e-12)


@pytest.mark.parametrize("E", [g.PoissonMBOClassifier, g.VolumeMBOClassifier, g.CutSSLClassifier])
@pytest.mark.parametrize("norm", ["mass", "mean_shift"])
@pytest.mark.parametrize("priors", [None, [0.5, 0.3, 0.2]])
def test_mbo_class_normalization_keeps_the_class_sizes(E, norm, priors):
    # the MBO labels of the u unlabeled rows have the sizes u b_c (b = class_priors or the labeled
    # proportions); the per-class scaling of "mass" / "mean_shift" moved them: VolumeMBOClassifier with
    # b = (0.5, 0.3, 0.2) and "mass" gave [60, 27, 3] for [45, 27, 18] (all 90 rows, as then sized), and
    # with b = None [21, 36, 33] for [30, 30, 30]
    X, _, yy = _blobs()
    plain = E(n_neighbors=6, class_priors=priors).fit(X, yy)
    est = E(n_neighbors=6, class_priors=priors, class_normalization=norm).fit(X, yy)
    b = np.full(3, 1 / 3) if priors is None else np.array(priors)
    labeled = yy >= 0
    u = int((~labeled).sum())
    np.testing.assert_array_equal(np.bincount(plain.transduction_[~labeled], minlength=3), class_sizes(b, u))
    np.testing.assert_array_equal(np.bincount(est.transduction_[~labeled], minlength=3), class_sizes(b, u))
    np.testing.assert_array_equal(est.transduction_[labeled], plain.transduction_[labeled])
    # every output follows the one decision
    np.testing.assert_array_equal(est.predict(X), est.transduction_)
    np.testing.assert_array_equal(est.label_distributions_.argmax(axis=1), est.transduction_)
    np.testing.assert_allclose(est.label_distributions_.sum(axis=1), 1.0)


@pytest.mark.parametrize("E", [g.VolumeMBOClassifier, g.CutSSLClassifier])
@pytest.mark.parametrize("norm", ["mass", "mean_shift"])
def test_mbo_class_normalization_keeps_the_labeled_nodes(E, norm):
    # path 0-1-2-3 labeled 0, 0, -, 1: the solvers keep the labels (answer 0 0 0 1); the class scaling
    # relabeled them (CutSSL, "mean_shift": 1 1 0 1, "mass": 0 0 0 0), and so did the class offsets when
    # they were fitted on the unlabeled rows alone (class 1 has none: volume MBO, "mass": 0 0 0 0)
    W = np.diag(np.ones(3), 1)
    W = W + W.T
    est = E(graph="precomputed", class_normalization=norm).fit(W, np.array([0, 0, -1, 1]))
    np.testing.assert_array_equal(est.transduction_, [0, 0, 0, 1])
    np.testing.assert_array_equal(est.label_distributions_.argmax(axis=1), [0, 0, 0, 1])


def test_poisson_mean_shift_with_priors_reweights_once():
    X, y, yy = _blobs()
    W = g.knn_graph(X, 6)
    b = np.array([0.5, 0.3, 0.2])
    plain = g.PoissonLearningClassifier(graph="precomputed").fit(W, yy)
    est = g.PoissonLearningClassifier(graph="precomputed", class_normalization="mean_shift", class_priors=b).fit(W, yy)
    unl = yy == -1
    ybar = np.bincount(yy[~unl], minlength=3) / (~unl).sum()
    np.testing.assert_allclose(est.scores_, plain.scores_)          # the solver did not reweight
    np.testing.assert_allclose(est.class_scale_, b / ybar)          # the normalization did, once


def _ensemble_problem(counts=(3, 3, 3), seed=0):
    X, y = make_blobs(150, centers=[[0, 0], [2.5, 0], [0, 2.5]], cluster_std=1.0, random_state=seed)
    rng = np.random.default_rng(seed)
    keep = np.concatenate([rng.choice(np.flatnonzero(y == c), m, replace=False) for c, m in enumerate(counts)])
    yy = np.full(y.size, -1)
    yy[keep] = y[keep]
    return g.knn_graph(X, 8), y, yy


# (the third was [0, 0.5, 0.5]: a zero prior of a labeled class is now refused, test_zero_class_prior.py)
@pytest.mark.parametrize("b", [[0.5, 0.3, 0.2], [0.2, 0.2, 0.6], [0.02, 0.49, 0.49]])
def test_ensemble_priors_give_the_unlabeled_class_sizes_and_maximize_the_total_score(b):
    W, y, yy = _ensemble_problem()
    plain = g.PoissonRidgeEnsembleClassifier(graph="precomputed").fit(W, yy)
    est = g.PoissonRidgeEnsembleClassifier(graph="precomputed", class_priors=b).fit(W, yy)
    unl = yy == -1
    np.testing.assert_allclose(est.scores_, plain.scores_)           # the priors act on the decision only
    sizes = class_sizes(b, int(unl.sum()))
    np.testing.assert_array_equal(np.bincount(est.transduction_[unl], minlength=3), sizes)
    # the decision is the optimal labeling of the unlabeled nodes with these sizes (dense oracle:
    # the assignment problem with class c replicated sizes[c] times)
    from scipy.optimize import linear_sum_assignment
    F = est.scores_[unl]
    cols = np.repeat(np.arange(3), sizes)
    r, c = linear_sum_assignment(-F[:, cols])
    codes = np.searchsorted(est.classes_, est.transduction_[unl])
    np.testing.assert_allclose(F[np.arange(F.shape[0]), codes].sum(), F[r, cols[c]].sum(), rtol=1e-12)


def test_ensemble_priors_equal_to_its_own_proportions_change_no_label():
    # unbalanced labels (6 / 3 / 1): the default answer is unbalanced; priors equal to its class
    # proportions on the unlabeled nodes leave every label where the argmax put it (the argmax is
    # the unconstrained optimum, so it is optimal for its own sizes)
    W, y, yy = _ensemble_problem(counts=(6, 3, 1), seed=2)
    unl = yy == -1
    plain = g.PoissonRidgeEnsembleClassifier(graph="precomputed").fit(W, yy)
    counts = np.bincount(plain.transduction_[unl], minlength=3)
    assert len(set(counts)) > 1
    est = g.PoissonRidgeEnsembleClassifier(graph="precomputed", class_priors=counts / counts.sum()).fit(W, yy)
    np.testing.assert_array_equal(est.transduction_, plain.transduction_)


def test_ensemble_priors_equal_to_the_unbalanced_labeled_fractions_give_those_sizes():
    W, y, yy = _ensemble_problem(counts=(6, 3, 1), seed=2)
    unl = yy == -1
    ybar = np.bincount(yy[~unl], minlength=3) / (~unl).sum()
    est = g.PoissonRidgeEnsembleClassifier(graph="precomputed", class_priors=ybar).fit(W, yy)
    np.testing.assert_array_equal(np.bincount(est.transduction_[unl], minlength=3),
                                  class_sizes(ybar, int(unl.sum())))
    np.testing.assert_allclose(est.class_prior_, ybar)


@pytest.mark.parametrize("bad, exc, match", [
    ([0.5, 0.5], ValueError, "class_priors must have one entry per class"),
    ([[0.2, 0.3, 0.5]], ValueError, "class_priors must have one entry per class"),
    ([0.6, 0.6, -0.2], ValueError, "class_priors must be finite and non-negative"),
    ([0.5, np.nan, 0.5], ValueError, "class_priors must be finite and non-negative"),
    ([0.5, np.inf, 0.5], ValueError, "class_priors must be finite and non-negative"),
    ([0.3, 0.3, 0.3], ValueError, "class_priors must sum to 1"),
    ([30, 30, 40], ValueError, "class_priors must sum to 1"),
    (["a", "b", "c"], TypeError, "class_priors must be an array of 3 class proportions"),
])
def test_ensemble_bad_priors_raise_before_the_solve(bad, exc, match, monkeypatch):
    import graphrkhs.estimators._transductive as tr
    W, y, yy = _ensemble_problem()

    def no_solve(*a, **k):
        raise AssertionError("solved before checking class_priors")
    monkeypatch.setattr(tr, "poisson_learning", no_solve)
    with pytest.raises(exc, match=match):
        g.PoissonRidgeEnsembleClassifier(graph="precomputed", class_priors=bad).fit(W, yy)


TRANSDUCTIVE_PRIOR_SIZED = [g.LaplacianRegularizationClassifier, g.PoissonLearningClassifier,
                            g.GraphKernelRidgeClassifier, g.PoissonRidgeEnsembleClassifier, g.GraphTVClassifier]


@pytest.mark.parametrize("E", TRANSDUCTIVE_PRIOR_SIZED)
@pytest.mark.parametrize("free_component", [False, True])
def test_priors_never_relabel_the_labeled_nodes_when_no_unlabeled_node_is_reached(E, free_component):
    # every node of the labeled component is labeled (15 / 15); optionally a second component holds the
    # only unlabeled nodes, which no label reaches (they get the prior).  The size constraint acts on the
    # unlabeled nodes a label reaches -- none here -- so priors of (0.2, 0.8) must leave the fit's labels
    # alone (they relabeled 9 labeled nodes to force the sizes 6 / 24 onto them)
    X, y = make_blobs(30, centers=[[0, 0], [4, 0]], cluster_std=0.5, random_state=0)
    W = g.knn_graph(X, 5)
    yy = y.copy()
    if free_component:
        W = sp.block_diag([W, g.knn_graph(np.random.default_rng(0).normal(size=(5, 2)), 3)]).tocsr()
        yy = np.r_[y, -np.ones(5, dtype=int)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", g.GraphWarning)
        plain = E(graph="precomputed").fit(W, yy)
        est = E(graph="precomputed", class_priors=[0.2, 0.8]).fit(W, yy)
    # no size prices: the decision is the method's own scores (Poisson's include its b / ybar reweighting)
    np.testing.assert_array_equal(est.class_offset_, np.zeros(2))
    np.testing.assert_array_equal(est.transduction_[:30], est.classes_[est.scores_[:30].argmax(axis=1)])
    np.testing.assert_array_equal(plain.transduction_[:30], y)
    np.testing.assert_array_equal(est.transduction_[:30], y)
    if free_component:
        np.testing.assert_allclose(est.label_distributions_[30:], np.tile([0.2, 0.8], (5, 1)), rtol=1e-12)
        np.testing.assert_array_equal(est.transduction_[30:], np.ones(5, dtype=int))   # the prior's mode


# --- one decision rule: predict is the argmax of predict_proba ---------------------------------------

def _path_with_tie():
    # path 0-1-2-3-4 (labels 0 ... 1) and a second class-1 label hanging at node 4: by symmetry of the
    # path the middle node's harmonic scores equal the unlabeled rows' column means, so under mean_shift
    # they are (0, 0) up to rounding -- no information, the prior (1/3, 2/3) -- where predict took argmax
    W = np.zeros((6, 6))
    for i in range(4):
        W[i, i + 1] = W[i + 1, i] = 1.0
    W[4, 5] = W[5, 4] = 1.0
    return W, np.array([0, -1, -1, -1, 1, 1])


@pytest.mark.parametrize("alpha", [0.0, 1.0])
def test_mean_shift_tie_predict_follows_the_distribution(alpha):
    W, y = _path_with_tie()
    m = LaplacianRegularizationClassifier(graph="precomputed", alpha=alpha, class_normalization="mean_shift").fit(W, y)
    S = m.scores_ * m.class_scale_ + m.class_offset_      # s' = a s + t
    assert S[2].max() <= 1e-15 and np.abs(S[2]).max() <= 1e-15       # the tie (at rounding level)
    P = m.predict_proba(W)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    # the rows that carry no positive score are the prior (1/3, 2/3) in predict_proba ... and in predict
    empty = ~(np.clip(m._scores(W) * m.class_scale_ + m.class_offset_, 0, None).sum(axis=1) > 0)
    assert empty.any()
    np.testing.assert_allclose(P[empty], [[1 / 3, 2 / 3]] * int(empty.sum()))
    assert (m.predict(W)[empty] == 1).all()
    np.testing.assert_array_equal(m.predict(W), m.classes_[P.argmax(axis=1)])
    np.testing.assert_array_equal(m.transduction_, m.classes_[m.label_distributions_.argmax(axis=1)])
    # the decision values agree (two classes: positive means classes_[1])
    np.testing.assert_array_equal(m.decision_function(W) > 0, m.predict(W) == m.classes_[1])


def test_softmax_rounding_ties_keep_the_argmax_of_the_scores():
    m = RLSClassifier(unlabeled=-1).fit(np.arange(6.0)[:, None], np.array([0, 0, -1, -1, 1, 1]))
    a = 0.3
    S = np.array([[a, np.nextafter(a, 1.0)], [np.nextafter(a, 1.0), a], [1e-20, 2e-20], [0.0, 0.0]])
    P = m._proba_of_scores(S)
    np.testing.assert_array_equal(P.argmax(axis=1), S.argmax(axis=1))
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=1e-15)
    np.testing.assert_allclose(P, np.full((4, 2), 0.5), rtol=1e-15)


_FUZZ_CLASSIFIERS = [name for name in dir(graphrkhs.estimators) if name.endswith("Classifier")]


@pytest.mark.parametrize("name", _FUZZ_CLASSIFIERS)
def test_argmax_of_predict_proba_is_predict_on_graphs_with_ties(name):
    # points on a small lattice (many equal distances) and an exact copy of the lattice far away
    # (every node has a twin with the same neighbourhood): exact and rounding-level ties of the scores
    cls = getattr(graphrkhs.estimators, name)
    for seed in range(2):
        rng = np.random.default_rng(seed)
        X = np.unique(rng.integers(0, 5, size=(18, 2)).astype(float), axis=0)
        X = np.vstack([X, X + 10.0])
        n = X.shape[0]
        y = np.full(n, -1)
        lab = rng.choice(n, 8, replace=False)
        y[lab] = np.r_[[0, 1, 2], rng.choice([0, 0, 0, 1, 2], size=5)]
        for norm in (None, "mass", "mean_shift"):
            m = cls(class_normalization=norm)
            if "n_neighbors" in m.get_params():
                m.set_params(n_neighbors=4)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                m.fit(X, y)
                for Z in (X, X + 0.01):
                    np.testing.assert_array_equal(m.classes_[m.predict_proba(Z).argmax(axis=1)], m.predict(Z),
                                                  err_msg=f"{name}, class_normalization={norm}, seed {seed}")
            if hasattr(m, "transduction_"):
                np.testing.assert_array_equal(m.classes_[m.label_distributions_.argmax(axis=1)], m.transduction_)


TRANSDUCTIVE = [E for E in CLASSIFIERS if hasattr(E, "_store")]     # the 8 with transduction_


@pytest.mark.parametrize("E", TRANSDUCTIVE)
@pytest.mark.parametrize("b", [[0.9, 0.05, 0.05], [0.05, 0.05, 0.9]])
def test_priors_far_from_the_labeled_proportions_never_relabel_the_labeled_nodes(E, b):
    # 3 labels a class, priors (0.9, 0.05, 0.05): Poisson learning moved 3 of the 9 labeled nodes, kernel
    # ridge and graph TV 5, the ensemble 3, Poisson MBO 2 (its projection ran over the labeled nodes too)
    assert len(TRANSDUCTIVE) == 8
    X, _, yy = _blobs()
    labeled = yy >= 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = _small(E, class_priors=b).fit(X, yy)
    np.testing.assert_array_equal(est.transduction_[labeled], yy[labeled])
    np.testing.assert_array_equal(est.predict(X[labeled]), yy[labeled])
    np.testing.assert_array_equal(est.label_distributions_[labeled].argmax(axis=1), yy[labeled])


@pytest.mark.parametrize("bad", ["0.5,0.5", ["0.5", "0.5"], np.array(["0.5", "0.5"]), [b"0.5", b"0.5"],
                                 [True, False]])
def test_class_priors_of_strings_or_booleans_raise_a_type_error_naming_class_priors(bad):
    # ["0.5", "0.5"] (and bytes, and booleans) were parsed as the proportions (0.5, 0.5) by
    # check_class_priors and by poisson_learning
    from graphrkhs._core.validation import check_class_priors
    with pytest.raises(TypeError, match="class_priors must be an array of 2 class proportions"):
        check_class_priors(bad, 2)
    W = np.diag(np.ones(5), 1)
    W = W + W.T
    with pytest.raises(TypeError, match="class_priors must be"):
        g.poisson_learning(W, [0, 5], np.eye(2), class_priors=bad)
    with pytest.raises(TypeError, match="class_priors must be"):
        g.PoissonLearningClassifier(graph="precomputed", class_priors=bad).fit(W, np.array([0, -1, -1, -1, -1, 1]))


POINT_LEARNERS = [E for E in CLASSIFIERS if E._fitted_decision_evaluates and not E._sizes_in_solver]


@pytest.mark.parametrize("E", POINT_LEARNERS)
def test_priors_that_move_labeled_training_points_of_a_learner_on_points_warn(E):
    # priors far from the class proportions: the class offsets that give the 81 unlabeled rows the sizes
    # (79, 1, 1) shift every point's scores, and predict -- a function of the point -- then labels some
    # labeled training points against their labels (RLS: 5 of 9), silently before.  A transductive learner
    # keeps them in transduction_; a learner on points says so, with the count predict shows.
    X, _, yy = _blobs()
    labeled = yy >= 0
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        est = _small(E, class_priors=[0.98, 0.01, 0.01]).fit(X, yy)
    said = [str(w.message) for w in record if "labeled training point" in str(w.message)]
    pred = est.predict(X)
    np.testing.assert_array_equal(np.bincount(pred[~labeled], minlength=3), class_sizes([0.98, 0.01, 0.01], 81))
    # the rows the method's own scores put in their class, moved by the offsets alone
    own = est._normalized_scores(est._raw(X)) - est.class_offset_
    mine = labeled & (own.argmax(axis=1) == yy)
    off = mine & (pred != yy)
    moved = int(off.sum())
    # warned when some class lost more than half of its (own-scored) labeled points
    if (2 * np.bincount(yy[off], minlength=3) > np.bincount(yy[mine], minlength=3)).any():
        assert len(said) == 1 and said[0].startswith(f"class_priors moves {moved} of the {int(mine.sum())} labeled"), said
        assert issubclass(next(w for w in record if "labeled training point" in str(w.message)).category,
                          g.GraphRKHSWarning)
    else:
        assert said == []
    if E is RLSClassifier:
        assert moved == 5


def test_a_labeled_point_at_a_class_boundary_moved_by_true_priors_is_not_warned_about():
    # priors at the class proportions of the unlabeled rows: one labeled point of class 1 (of 3), near the
    # boundary of the overlapping blobs, crosses it -- the size constraint's ordinary effect: silent
    X, y, yy = _blobs()
    b = np.bincount(y[yy < 0], minlength=3) / (yy < 0).sum()
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        est = RLSClassifier(class_priors=b).fit(X, yy)
    assert not [w for w in record if "labeled training point" in str(w.message)]
    lab = yy >= 0
    np.testing.assert_array_equal(np.bincount(yy[lab][est.predict(X)[lab] != yy[lab]], minlength=3), [0, 1, 0])
