"""graph="auto" on few square images: the scores are solved on the graph of the images and their translates.

PoissonRidgeEnsembleClassifier(graph="auto") adds the four one-pixel translates of every image (up, down, left,
right, zeros shifted in) as unlabeled nodes of the graph it solves on when there are at most
SHIFT_COPIES_MAX_IMAGES images.  Oracles: the translates built here with np.roll and a zeroed border; the fit equals
the same classifier on the explicitly augmented graph (graph="precomputed", labels on the first n nodes, its
labels and scores of those nodes); above the threshold it equals the plain graph's fit.
"""

import warnings

import numpy as np
import pytest

from graphrkhs import PoissonRidgeEnsembleClassifier, knn_graph
from graphrkhs.datasets import load_digits, sample_labels
from graphrkhs.estimators import _transductive
from graphrkhs.estimators._transductive import image_translates


def _rolled(images, dy, dx):
    out = np.roll(images, (dy, dx), axis=(1, 2))
    if dy > 0:
        out[:, :dy] = 0
    if dy < 0:
        out[:, dy:] = 0
    if dx > 0:
        out[:, :, :dx] = 0
    if dx < 0:
        out[:, :, dx:] = 0
    return out


def test_translates_are_the_shifted_images_without_zero_rows():
    rng = np.random.default_rng(0)
    images = rng.random((5, 4, 6))
    images[0] = 0.0
    images[0, 0, 2] = 1.0                   # ink on the top row only: its upward translate is all zeros
    T, source = image_translates(images.reshape(5, -1), (4, 6))
    expected, expected_source = [], []
    for dy, dx in ((0, 1), (0, -1), (1, 0), (-1, 0)):
        moved = _rolled(images, dy, dx).reshape(5, -1)
        keep = moved.any(axis=1)
        expected.append(moved[keep])
        expected_source.append(np.flatnonzero(keep))
    np.testing.assert_array_equal(T, np.concatenate(expected))
    np.testing.assert_array_equal(source, np.concatenate(expected_source))
    assert T.shape[0] == 19 and 0 not in source[15:]     # the upward translate of image 0 was dropped


def _digits(n=400, per_class=3):
    X, y = load_digits()
    X, y = np.asarray(X[:n], dtype=np.float64), np.asarray(y[:n])
    _, labeled = sample_labels(y, per_class, random_state=0)
    y_partial = np.full(n, -1)
    y_partial[labeled] = y[labeled]
    return X, y_partial


def _fit(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X, y)


def _rule(X):
    return knn_graph(X, 10, weight="self-tuning", relative_width=0.5, metric="tangent", image_shape=(8, 8))


def test_fit_is_the_fit_on_the_augmented_graph():
    X, y = _digits()
    n = X.shape[0]
    est = _fit(PoissonRidgeEnsembleClassifier(), X, y)
    images = X.reshape(n, 8, 8)
    moved = [_rolled(images, dy, dx).reshape(n, -1) for dy, dx in ((0, 1), (0, -1), (1, 0), (-1, 0))]
    X_aug = np.concatenate([X] + [m[m.any(axis=1)] for m in moved])
    y_aug = np.full(X_aug.shape[0], -1)
    y_aug[:n] = y
    oracle = _fit(PoissonRidgeEnsembleClassifier(graph="precomputed"), _rule(X_aug), y_aug)
    np.testing.assert_array_equal(est.transduction_, oracle.transduction_[:n])
    np.testing.assert_allclose(est.label_distributions_, oracle.label_distributions_[:n], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(est.poisson_scores_, oracle.poisson_scores_[:n], rtol=1e-12, atol=1e-12)
    assert est.alpha_ == oracle.alpha_
    # the fitted graph and the out-of-sample rule keep the n original nodes
    plain = _fit(PoissonRidgeEnsembleClassifier(graph="precomputed"), _rule(X), y)
    assert est.predict(X[:7]).shape == (7,) and est.transduction_.shape == plain.transduction_.shape
    assert not hasattr(est, "_solve_graph") or est._solve_graph is None      # the 5n-node graph is not kept


def test_above_the_threshold_the_plain_graph(monkeypatch):
    X, y = _digits(200, 2)
    monkeypatch.setattr(_transductive, "SHIFT_COPIES_MAX_IMAGES", 199)
    est = _fit(PoissonRidgeEnsembleClassifier(), X, y)
    plain = _fit(PoissonRidgeEnsembleClassifier(graph="precomputed"), _rule(X), y)
    np.testing.assert_array_equal(est.transduction_, plain.transduction_)
    np.testing.assert_allclose(est.label_distributions_, plain.label_distributions_, rtol=1e-12, atol=1e-12)


def test_sparse_images_take_the_same_augmented_solve():
    import scipy.sparse as sp
    X, y = _digits(300, 2)
    dense = _fit(PoissonRidgeEnsembleClassifier(), X, y)
    sparse = _fit(PoissonRidgeEnsembleClassifier(), sp.csr_matrix(X), y)
    np.testing.assert_array_equal(dense.transduction_, sparse.transduction_)
    np.testing.assert_allclose(dense.label_distributions_, sparse.label_distributions_, rtol=1e-12, atol=1e-12)


def test_an_explicit_tangent_spec_is_not_augmented():
    # only graph="auto" adds the translates: the same rule given as a GraphSpec solves on the images' graph
    from graphrkhs import GraphSpec
    X, y = _digits(200, 2)
    spec = GraphSpec(n_neighbors=10, weight="self-tuning", relative_width=0.5, metric="tangent", image_shape=(8, 8))
    est = _fit(PoissonRidgeEnsembleClassifier(graph=spec), X, y)
    plain = _fit(PoissonRidgeEnsembleClassifier(graph="precomputed"), _rule(X), y)
    np.testing.assert_array_equal(est.transduction_, plain.transduction_)
    np.testing.assert_allclose(est.label_distributions_, plain.label_distributions_, rtol=1e-12, atol=1e-12)


def test_nodes_cut_off_in_the_images_graph_but_reached_through_translates():
    # review of the first version: 12 blob images form a label-free component of the images' own graph but are
    # linked to labeled digits through translates; their labels were the prior (label-free in the n-node graph)
    # while their scores pointed to a class, and the warning counted 48 translate nodes the user never gave
    X, y = _digits(300, 2)
    rng = np.random.default_rng(0)
    blobs = np.zeros((12, 8, 8))
    blobs[:, 2:6, 2:6] = 16 * rng.uniform(0.5, 1, (12, 4, 4))
    Xb = np.concatenate([X, blobs.reshape(12, -1)])
    yb = np.concatenate([y, -np.ones(12, dtype=int)])
    n = Xb.shape[0]
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        est = PoissonRidgeEnsembleClassifier().fit(Xb, yb)
    images = Xb.reshape(n, 8, 8)
    moved = [_rolled(images, dy, dx).reshape(n, -1) for dy, dx in ((0, 1), (0, -1), (1, 0), (-1, 0))]
    X_aug = np.concatenate([Xb] + [m[m.any(axis=1)] for m in moved])
    y_aug = np.full(X_aug.shape[0], -1)
    y_aug[:n] = yb
    W_aug = _rule(X_aug)
    oracle = _fit(PoissonRidgeEnsembleClassifier(graph="precomputed"), W_aug, y_aug)
    np.testing.assert_array_equal(est.transduction_, oracle.transduction_[:n])
    np.testing.assert_allclose(est.label_distributions_, oracle.label_distributions_[:n], rtol=1e-12, atol=1e-12)
    from graphrkhs._core.labels import label_free_mask
    cut_off = int(label_free_mask(W_aug, np.flatnonzero(y_aug >= 0))[:n].sum())
    counts = [str(w.message).split(" ")[0] for w in said if "without any labeled node" in str(w.message)]
    assert counts == ([str(cut_off)] if cut_off else [])
