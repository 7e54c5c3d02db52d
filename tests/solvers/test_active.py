"""Tests of active learning (propose_labels, propose_labels_for): hand-computed uncertainty,
labeled nodes never proposed, model change against a dense re-solve oracle, bad input."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import NotFittedError

from graphrkhs import (
    GraphKernelRidgeClassifier,
    GraphWarning,
    LaplacianRegularizationClassifier,
    LaplacianRegularizationRegressor,
    PoissonLearningClassifier,
    harmonic_solution,
    knn_graph,
    propose_labels,
    propose_labels_for,
    tikhonov_solution,
)
from graphrkhs.solvers._active import _mc_values, _posterior_covariance


def _problem(n=40, m=3, seed=0):
    rng = np.random.default_rng(seed)
    X = np.r_[rng.normal(size=(n // 2, 2)), rng.normal(size=(n - n // 2, 2)) + [3.0, 0.0]]
    W = knn_graph(X, 5)
    S = np.sort(rng.choice(n, 6, replace=False))
    Y = np.eye(m)[np.arange(S.size) % m]
    return W, S, Y


# --- uncertainty ---------------------------------------------------------------------------

P_HAND = np.array([
    [0.70, 0.20, 0.10],   # margin 0.50, entropy 0.8018
    [0.40, 0.35, 0.25],   # margin 0.05, entropy 1.0805
    [0.34, 0.33, 0.33],   # margin 0.01, entropy 1.0986 (max)
    [0.50, 0.50, 0.00],   # margin 0.00, entropy 0.6931
    [0.10, 0.80, 0.10],   # margin 0.70, entropy 0.6390
])


def test_margin_hand_computed():
    nodes, values = propose_labels(P_HAND, 5, return_values=True)
    np.testing.assert_array_equal(nodes, [3, 2, 1, 0, 4])
    np.testing.assert_allclose(values, -np.array([0.0, 0.01, 0.05, 0.50, 0.70]), atol=1e-12)


def test_entropy_hand_computed():
    nodes, values = propose_labels(P_HAND, 3, criterion="entropy", return_values=True)
    np.testing.assert_array_equal(nodes, [2, 1, 0])
    h = [-(0.34 * np.log(0.34) + 2 * 0.33 * np.log(0.33)),
         -(0.4 * np.log(0.4) + 0.35 * np.log(0.35) + 0.25 * np.log(0.25)),
         -(0.7 * np.log(0.7) + 0.2 * np.log(0.2) + 0.1 * np.log(0.1))]
    np.testing.assert_allclose(values, h, rtol=1e-12)


def test_uncertainty_accepts_fitted_classifier():
    W, S, Y = _problem()
    y = np.full(W.shape[0], -1)
    y[S] = Y.argmax(axis=1)
    clf = PoissonLearningClassifier(graph="precomputed").fit(W, y)
    np.testing.assert_array_equal(propose_labels(clf, 4, labeled=S),
                                  propose_labels(clf.label_distributions_, 4, labeled=S))


@pytest.mark.parametrize("criterion", ["uncertainty", "entropy", "model_change"])
def test_never_proposes_labeled_nodes(criterion):
    W, S, Y = _problem()
    n = W.shape[0]
    F = harmonic_solution(W, S, Y)
    # all unlabeled nodes but one are asked for: the labeled ones would be the best by far
    P = F.copy()
    P[S] = 1.0 / 3
    nodes = propose_labels(P if criterion != "model_change" else F, n - S.size, criterion=criterion,
                           labeled=S, graph=W)
    assert np.intersect1d(nodes, S).size == 0
    np.testing.assert_array_equal(np.sort(nodes), np.setdiff1d(np.arange(n), S))
    mask = np.zeros(n, dtype=bool)
    mask[S] = True
    np.testing.assert_array_equal(propose_labels(P, 3, criterion="entropy" if criterion == "entropy"
                                                 else "uncertainty", labeled=mask),
                                  propose_labels(P, 3, criterion="entropy" if criterion == "entropy"
                                                 else "uncertainty", labeled=S))


def test_ties_lowest_index_or_seeded():
    P = np.full((6, 2), 0.5)
    np.testing.assert_array_equal(propose_labels(P, 3, labeled=[0]), [1, 2, 3])
    a = propose_labels(P, 5, labeled=[0], random_state=3)
    np.testing.assert_array_equal(a, propose_labels(P, 5, labeled=[0], random_state=3))
    np.testing.assert_array_equal(np.sort(a), [1, 2, 3, 4, 5])
    draws = {tuple(propose_labels(P, 5, labeled=[0], random_state=s)) for s in range(10)}
    assert len(draws) > 1


@pytest.mark.parametrize("alpha", [0.0, 10.0])
def test_model_change_of_a_certain_model_is_a_tie_not_rounding_noise(alpha):
    """Two paths, one labeled node each: the model is one-hot on every node, so labeling any node changes
    nothing (the oracle: model change 0 everywhere) and the documented tie rule decides -- lowest index, or
    the seeded order, as for the uncertainty criteria.  Before, scores off one-hot by rounding (1e-16, as
    a solve leaves them) gave model changes of ~1e-15 that were ranked as information: the proposals
    followed the rounding, and random_state changed nothing."""
    W = sp.block_diag([np.diag(np.ones(9), 1) + np.diag(np.ones(9), -1)] * 2, format="csr")
    S = np.array([0, 10])
    F = np.repeat(np.eye(2), 10, axis=0) + np.random.default_rng(0).normal(scale=2e-16, size=(20, 2))
    oracle = _oracle_change(W, S, np.eye(2), np.repeat(np.eye(2), 10, axis=0), alpha, "combinatorial")
    assert np.abs(oracle[np.isfinite(oracle)]).max() < 1e-12
    nodes, values = propose_labels(F, 3, criterion="model_change", labeled=S, graph=W, alpha=alpha,
                                   return_values=True)
    np.testing.assert_array_equal(nodes, [1, 2, 3])
    np.testing.assert_array_equal(values, 0.0)
    for seed in range(3):
        np.testing.assert_array_equal(
            propose_labels(F, 3, criterion="model_change", labeled=S, graph=W, alpha=alpha, random_state=seed),
            propose_labels(F, 3, labeled=S, random_state=seed))


def test_propose_labels_for_a_certain_model_follows_the_tie_rule():
    """The user-level symptom of the test above: two well-separated blobs, two labels each; the fitted
    Laplace-learning scores are one-hot to 1e-15, and model change proposed nodes 29, 11, 34 for every seed."""
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(size=(20, 2)), rng.normal(size=(20, 2)) + 8]
    y = np.full(40, -1)
    y[[0, 1, 20, 21]] = [0, 0, 1, 1]
    clf = LaplacianRegularizationClassifier(n_neighbors=5).fit(X, y)
    np.testing.assert_array_equal(propose_labels_for(clf, X, y, 3, criterion="model_change"), [2, 3, 4])
    for seed in range(3):
        np.testing.assert_array_equal(
            propose_labels_for(clf, X, y, 3, criterion="model_change", random_state=seed),
            propose_labels_for(clf, X, y, 3, random_state=seed))


# --- model change: dense oracle -------------------------------------------------------------

def _oracle_change(W, S, Y, F, alpha, laplacian):
    """||F(S + k, pseudo-label of k) - F||_F for every node k, by re-solving the model."""
    n = W.shape[0]
    out = np.full(n, -np.inf)
    for k in np.setdiff1d(np.arange(n), S):
        yk = np.eye(Y.shape[1])[F[k].argmax()]
        S2, Y2 = np.r_[S, k], np.r_[Y, yk[None]]
        if alpha == 0:
            F2 = harmonic_solution(W, S2, Y2, laplacian=laplacian, tol=1e-12)
        else:
            F2 = tikhonov_solution(W, S2, Y2, alpha=alpha, laplacian=laplacian, tol=1e-12)
        out[k] = np.linalg.norm(F2 - F)
    return out


@pytest.mark.parametrize("alpha,laplacian", [(0.0, "combinatorial"), (0.0, "normalized"),
                                             (0.5, "combinatorial"), (0.05, "normalized")])
def test_model_change_equals_resolve_oracle(alpha, laplacian):
    W, S, Y = _problem()
    if alpha == 0:
        F = harmonic_solution(W, S, Y, laplacian=laplacian, tol=1e-12)
    else:
        F = tikhonov_solution(W, S, Y, alpha=alpha, laplacian=laplacian, tol=1e-12)
    expected = _oracle_change(W, S, Y, F, alpha, laplacian)
    n_free = W.shape[0] - S.size
    nodes, values = propose_labels(F, n_free, criterion="model_change", labeled=S, graph=W, alpha=alpha,
                                   laplacian=laplacian, return_values=True)
    # the first pick is the oracle's best, with its value
    assert nodes[0] == int(np.argmax(expected))
    np.testing.assert_allclose(values[0], expected.max(), rtol=1e-8)


@pytest.mark.parametrize("alpha", [0.0, 0.2])
def test_model_change_every_node_equals_oracle(alpha):
    """The criterion of every candidate node (not only the best) equals the re-solve oracle."""
    W, S, Y = _problem(seed=2)
    F = (harmonic_solution(W, S, Y, tol=1e-12) if alpha == 0
         else tikhonov_solution(W, S, Y, alpha=alpha, tol=1e-12))
    expected = _oracle_change(W, S, Y, F, alpha, "combinatorial")
    C, free = _posterior_covariance(W, S, alpha, "combinatorial")
    values, _ = _mc_values(C, F[free].copy(), alpha)
    got = np.full(W.shape[0], -np.inf)
    got[free] = values
    U = np.setdiff1d(np.arange(W.shape[0]), S)
    np.testing.assert_allclose(got[U], expected[U], rtol=1e-8)


def _problem_with_a_label_free_ring():
    """The labeled problem of ``_problem(n=30)`` plus a separate 5-node ring without labels (dense W)."""
    W, S, Y = _problem(n=30)
    n = W.shape[0]
    ring = np.roll(np.eye(5), 1, axis=1)
    W2 = np.zeros((n + 5, n + 5))
    W2[:n, :n] = W.toarray()
    W2[n:, n:] = ring + ring.T
    return W2, S, Y, n


def test_model_change_label_free_component():
    """A component without labels: labeling one of its nodes makes the component constant, so the
    change is sqrt(|component|) * ||pseudo-label - prior|| -- the limit the singular shift reaches."""
    W2, S, Y, n = _problem_with_a_label_free_ring()
    with pytest.warns(GraphWarning, match="without any labeled node"):
        F = harmonic_solution(W2, S, Y, tol=1e-12)
    expected = np.full(n + 5, -np.inf)
    for k in np.setdiff1d(np.arange(n + 5), S):
        S2, Y2 = np.r_[S, k], np.r_[Y, np.eye(3)[F[k].argmax()][None]]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", GraphWarning)
            D = harmonic_solution(W2, S2, Y2, tol=1e-12) - F
        # a label in the first part also moves the prior that the label-free ring is given (the mean of
        # the labels): a convention of the solvers, not a change of the model, and not counted
        expected[k] = np.linalg.norm(D if k >= n else D[:n])
    C, free = _posterior_covariance(sp.csr_array(W2), S, 0.0, "combinatorial")
    values, _ = _mc_values(C, F[free].copy(), 0.0)
    got = np.full(n + 5, -np.inf)
    got[free] = values
    U = np.setdiff1d(np.arange(n + 5), S)
    np.testing.assert_allclose(got[U], expected[U], rtol=1e-6)
    prior = Y.mean(axis=0)
    np.testing.assert_allclose(expected[n:], np.sqrt(5) * np.linalg.norm(np.eye(3)[0] - prior), rtol=1e-10)


@pytest.mark.parametrize("exponent", [-30, -600])
def test_model_change_label_free_component_at_any_weight_scale(exponent):
    """The harmonic model (alpha=0) does not change when W is scaled, so neither does its model change.
    The shift that keeps L_UU invertible on the label-free ring was 1e-10 * max(largest degree, 1):
    absolute below degree 1, it dominated L at W * 2^-30 (values 15% off) and at W * 2^-600 (the picks
    changed; the squared norms of C ~ 2^600 overflowed to inf)."""
    W2, S, Y, n = _problem_with_a_label_free_ring()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GraphWarning)
        F = harmonic_solution(W2, S, Y, tol=1e-12)
    ref, ref_vals = propose_labels(F, 4, criterion="model_change", labeled=S, graph=W2, return_values=True)
    nodes, vals = propose_labels(F, 4, criterion="model_change", labeled=S, graph=W2 * 2.0 ** exponent,
                                 return_values=True)
    np.testing.assert_array_equal(nodes, ref)
    np.testing.assert_allclose(vals, ref_vals, rtol=1e-6)
    # a ring node is among the picks, at sqrt(5) ||pseudo-label - prior|| (test_model_change_label_free_component)
    ring = nodes >= n
    assert ring.sum() == 1
    np.testing.assert_allclose(vals[ring], np.sqrt(5) * np.linalg.norm(np.eye(3)[0] - Y.mean(axis=0)), rtol=1e-6)


def test_model_change_greedy_batch_is_sequential_lookahead():
    """The second pick of a batch is the best model change after re-solving with the first pick
    labeled by its pseudo-label (the look-ahead the batch is defined by)."""
    W, S, Y = _problem(seed=1)
    F = harmonic_solution(W, S, Y, tol=1e-12)
    nodes, values = propose_labels(F, 2, criterion="model_change", labeled=S, graph=W, return_values=True)
    k = nodes[0]
    S2 = np.r_[S, k]
    Y2 = np.r_[Y, np.eye(3)[F[k].argmax()][None]]
    F2 = harmonic_solution(W, S2, Y2, tol=1e-12)
    expected = _oracle_change(W, S2, Y2, F2, 0.0, "combinatorial")
    assert nodes[1] == int(np.argmax(expected))
    np.testing.assert_allclose(values[1], expected.max(), rtol=1e-8)


def test_model_change_path_closed_form():
    """Path 0..6, ends labeled 0 and 1: C = L_UU^{-1} (Dirichlet path), C_ij = min(i,j)(6-max(i,j))/6,
    F_k = (1 - k/6, k/6); MC(k) = ||C_k|| * sqrt(2) |F_k,0 - pseudo| / C_kk."""
    W = np.diag(np.ones(6), 1)
    W = W + W.T
    F = np.c_[np.linspace(1, 0, 7), np.linspace(0, 1, 7)]
    nodes, values = propose_labels(F, 5, criterion="model_change", labeled=[0, 6], graph=W, return_values=True)
    i = np.arange(1, 6)
    C = np.minimum.outer(i, i) * (6 - np.maximum.outer(i, i)) / 6.0
    r = np.sqrt(2) * np.minimum(F[i, 0], F[i, 1])          # ||pseudo-label - F_k||
    mc = np.linalg.norm(C, axis=0) * r / np.diag(C)
    assert nodes[0] == 3
    np.testing.assert_allclose(values[0], mc.max(), rtol=1e-10)
    np.testing.assert_array_equal(np.sort(nodes), i)


def test_propose_labels_for_matches_plain_function():
    W, S, Y = _problem()
    y = np.full(W.shape[0], -1)
    y[S] = Y.argmax(axis=1)
    clf = LaplacianRegularizationClassifier(alpha=0.1, graph="precomputed").fit(W, y)
    for criterion in ("uncertainty", "model_change"):
        np.testing.assert_array_equal(
            propose_labels_for(clf, W, y, 3, criterion=criterion),
            propose_labels(clf.scores_, 3, criterion=criterion, labeled=S, graph=W, alpha=0.1))
    gk = GraphKernelRidgeClassifier(graph="precomputed").fit(W, y)
    nodes = propose_labels_for(gk, W, y, 4, criterion="model_change")
    np.testing.assert_array_equal(nodes, propose_labels(gk.label_distributions_, 4, criterion="model_change",
                                                        labeled=S, graph=W))


def test_propose_labels_for_rebuilds_graph_of_points():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    y = np.full(30, -1)
    # one label per class: too few to select alpha, and the fallback is the top of the grid (with labels
    # 0, 1, 0 -- classes labeled unequally often -- it is now alpha=0, the harmonic solution)
    y[[0, 1, 2]] = [0, 1, 2]
    clf = LaplacianRegularizationClassifier(n_neighbors=5).fit(X, y)
    # the model change is that of the fitted model: its own alpha_
    assert clf.alpha_ == 1e3
    np.testing.assert_array_equal(propose_labels_for(clf, X, y, 2, criterion="model_change"),
                                  propose_labels(clf.scores_, 2, criterion="model_change", labeled=[0, 1, 2],
                                                 graph=knn_graph(X, 5), alpha=1e3))


def test_propose_labels_for_the_recommended_classifier_uses_its_resolved_graph():
    # graph="auto" depends on X (here 8 x 8 non-negative images: the tangent-distance self-tuning graph); the model change
    # is computed on that graph, the same as for the classifier given the resolved GraphSpec explicitly
    from sklearn.datasets import load_digits

    from graphrkhs import PoissonRidgeEnsembleClassifier

    X, yt = load_digits(return_X_y=True)
    X, yt = X[:300], yt[:300]
    y = np.full(300, -1)
    for c in range(10):
        y[np.flatnonzero(yt == c)[:2]] = c
    auto = PoissonRidgeEnsembleClassifier().fit(X, y)
    assert auto.graph_spec_.metric == "tangent" and auto.graph_spec_.image_shape == (8, 8)
    # since session 36 graph="auto" solves its scores on the graph of the images and their one-pixel translates
    # (at most SHIFT_COPIES_MAX_IMAGES images), so its labels need not be those of the resolved spec given
    # explicitly; the model change of both is computed on the n-node graph of that spec, with each one's labels
    explicit = PoissonRidgeEnsembleClassifier(graph=auto.graph_spec_).fit(X, y)
    labeled = np.flatnonzero(y >= 0)
    graph = auto.graph_spec_.build(X.astype(np.float64))
    for est in (auto, explicit):
        np.testing.assert_array_equal(
            propose_labels_for(est, X, y, 3, criterion="model_change"),
            propose_labels(est.label_distributions_, 3, criterion="model_change", labeled=labeled, graph=graph))


# --- bad input ------------------------------------------------------------------------------

BAD = [
    (dict(n_points=5, labeled=[0]), ValueError, "n_points=5 exceeds the 4 unlabeled"),
    (dict(n_points=0), ValueError, "n_points must be >= 1"),
    (dict(n_points=1.5), TypeError, "n_points must be an int"),
    (dict(criterion="margin"), ValueError, "criterion must be one of 'uncertainty', 'entropy', 'model_change'"),
    (dict(criterion="model_change", labeled=[0]), ValueError, "needs the graph of the model"),
    (dict(criterion="model_change", graph=np.ones((5, 5)) - np.eye(5)), ValueError, "needs the labeled nodes"),
    (dict(criterion="model_change", labeled=[0], graph=np.ones((4, 4)) - np.eye(4)), ValueError,
     "graph has 4 nodes but scores has 5 rows"),
    (dict(alpha=-1.0), ValueError, "alpha must be >= 0"),
    (dict(laplacian="randomwalk"), ValueError, "laplacian must be one of"),
    (dict(labeled=[7]), ValueError, r"labeled indices must lie in \[0, 5\)"),
    (dict(random_state="a"), TypeError, "random_state must be None"),
]


@pytest.mark.parametrize("kwargs,exc,match", BAD, ids=[b[2][:30] for b in BAD])
def test_bad_input(kwargs, exc, match):
    P = np.full((5, 2), 0.5)
    kwargs = dict(kwargs)
    n_points = kwargs.pop("n_points", 1)
    with pytest.raises(exc, match=match):
        propose_labels(P, n_points, **kwargs)


@pytest.mark.parametrize("scores,exc,match", [
    (np.ones(5), ValueError, r"shape \(n, n_classes\)"),
    (np.ones((5, 1)), ValueError, "and two classes"),
    (np.zeros((0, 2)), ValueError, r"at least one node and two classes .*; got shape \(0, 2\)"),
    (np.array([[0.5, np.nan]]), ValueError, "NaN or infinity"),
    (np.array([["a", "b"]]), TypeError, "must be numeric"),
    # complex scores were cast to their real part (numpy's ComplexWarning at most) and ranked
    (np.array([[0.9, 0.1], [0.5 + 1j, 0.5]]), TypeError, "scores must be real; got complex dtype complex128"),
    (LaplacianRegularizationClassifier(), NotFittedError, "is not fitted"),
    (object(), TypeError, "fitted transductive classifier"),
])
def test_bad_scores(scores, exc, match):
    with pytest.raises(exc, match=match):
        propose_labels(scores)


def test_regressor_is_refused():
    W = np.diag(np.ones(4), 1)
    W = W + W.T
    reg = LaplacianRegularizationRegressor(graph="precomputed").fit(W, [0.0, np.nan, np.nan, np.nan, 1.0])
    with pytest.raises(TypeError, match="not a regressor"):
        propose_labels(reg)
    with pytest.raises(TypeError, match="must be a transductive classifier"):
        propose_labels_for(reg, W, [0.0, np.nan, np.nan, np.nan, 1.0])


def test_propose_labels_for_bad_input():
    X = np.linspace(0, 1, 10)[:, None]
    y = np.full(10, -1)
    y[[0, 9]] = [0, 1]
    with pytest.raises(NotFittedError, match="not fitted yet"):
        propose_labels_for(LaplacianRegularizationClassifier(), X, y)
    with pytest.raises(TypeError, match="must be a transductive classifier"):
        propose_labels_for(object(), X, y)
    clf = LaplacianRegularizationClassifier(n_neighbors=3).fit(X, y)
    with pytest.raises(ValueError, match="n_points=9 exceeds the 8 unlabeled"):
        propose_labels_for(clf, X, y, 9)
    with pytest.raises(ValueError, match="fitted on 10"):
        propose_labels_for(clf, X[:8], y, criterion="model_change")


def test_model_change_label_free_nodes_tie_as_their_exact_values_do():
    """Every node of a label-free component has the same model change, sqrt(|component|) ||pseudo-label -
    F_k|| when F is constant there (module docs), so they tie: the lowest index wins, or a random one with
    random_state.  The singular shift's approximation of that limit differed by up to 1.6e-7 (relative) on a
    50-node path and 6.7e-5 on a 1000-node path, more than the 1e-10 tie tolerance: the pick was always
    the path's centre (node 28 of 3..52), whatever random_state."""
    m = 50
    n = m + 3
    W = np.zeros((n, n))
    W[0, 1] = W[1, 0] = W[1, 2] = W[2, 1] = 1.0      # a labeled path 0 - 1 - 2 ...
    for i in range(3, n - 1):                        # ... and a label-free path 3 - 4 - ... - 52
        W[i, i + 1] = W[i + 1, i] = 1.0
    S = np.array([0, 2])
    F = np.full((n, 2), 0.5)
    F[0], F[2] = [1.0, 0.0], [0.0, 1.0]
    exact = np.sqrt(m) * np.linalg.norm(np.array([1.0, 0.0]) - 0.5)   # pseudo-label: class 0 on a tie
    nodes, values = propose_labels(F, 1, criterion="model_change", labeled=S, graph=W, return_values=True)
    assert nodes.tolist() == [3] and values[0] == pytest.approx(exact, rel=1e-14)
    picks = {int(propose_labels(F, 1, criterion="model_change", labeled=S, graph=W, random_state=seed)[0])
             for seed in range(8)}
    assert len(picks) > 1 and all(3 <= p < n for p in picks)
    # the same limit with alpha > 0 (the shift enters C = (L + J / alpha)^-1 in the same way)
    nodes, values = propose_labels(F, 1, criterion="model_change", labeled=S, graph=W, alpha=0.5,
                                   return_values=True)
    assert nodes.tolist() == [3] and values[0] == pytest.approx(exact, rel=1e-14)


def test_every_node_labeled_says_so():
    # before: "n_points=1 exceeds the 0 unlabeled node(s) left to propose; ask for at most 0." -- an impossible fix
    P = np.full((4, 2), 0.5)
    with pytest.raises(ValueError, match=r"every node is labeled \(4 of 4\): no node is left to propose"):
        propose_labels(P, labeled=np.arange(4))
    X = np.linspace(0, 1, 6)[:, None]
    y = np.array([0, 0, 0, 1, 1, 1])
    clf = LaplacianRegularizationClassifier(n_neighbors=2).fit(X, y)
    with pytest.raises(ValueError, match=r"every node is labeled \(6 of 6\)"):
        propose_labels_for(clf, X, y, criterion="model_change")


def test_a_fitted_classifier_with_another_labeled_set_is_refused():
    # propose_labels(clf, labeled=...) with rows other than the fit's labeled ones proposed from scores fitted
    # with other labels, and could propose a node labeled in the fit (here node 11, the fit's label of class 1,
    # was allowed); propose_labels_for checked this, propose_labels did not
    X = np.linspace(0, 1, 12)[:, None]
    y = np.full(12, -1)
    y[[0, 11]] = [0, 1]
    clf = LaplacianRegularizationClassifier(n_neighbors=3).fit(X, y)
    with pytest.raises(ValueError, match=r"labeled is not the labeled set .* fitted on: 1 row\(s\) labeled here are "
                                         r"unlabeled in the fit \(row 5\); 1 row\(s\) labeled in the fit are "
                                         r"unlabeled here \(row 11\)"):
        propose_labels(clf, 2, labeled=[0, 5])
    # the fit's own set, as indices or mask, is accepted
    np.testing.assert_array_equal(propose_labels(clf, 2, labeled=[0, 11]), propose_labels(clf, 2, labeled=y >= 0))
