"""Tangent distance graphs (metric="tangent") and the square-image test of graph="auto".

Oracles: the one-sided tangent distance as an explicit least-squares residual
min_a |u_i + T_i a - u_j| (numpy lstsq on the seven tangent vectors built here from their
definitions), exhaustive ranking of the candidates, and images that are exact translates of each
other on a smooth pattern.
"""

import numpy as np
import pytest
import scipy.ndimage as ndi

from graphrkhs import GraphSpec, PoissonRidgeEnsembleClassifier, epsilon_graph, knn_graph
from graphrkhs.graphs._tangent import (
    TANGENT_SMOOTHING,
    check_image_shape,
    square_image_shape,
    tangent_bases,
    tangent_rerank,
)


def _blobs(n, side, seed=0):
    """Non-negative images: one or two Gaussian bumps at random places (smooth, no zero row)."""
    rng = np.random.default_rng(seed)
    yy, xx = np.mgrid[0:side, 0:side]
    out = np.empty((n, side, side))
    for i in range(n):
        cy, cx = rng.uniform(side * 0.25, side * 0.75, 2)
        s = rng.uniform(side * 0.08, side * 0.2)
        img = np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * s * s))
        if i % 2:
            cy2, cx2 = rng.uniform(side * 0.2, side * 0.8, 2)
            img += 0.6 * np.exp(-((yy - cy2) ** 2 + (xx - cx2) ** 2) / (2 * (0.7 * s) ** 2))
        out[i] = img + 0.01
    return out.reshape(n, side * side)


def _unit(X):
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def _tangents_by_definition(u, shape, smoothing=TANGENT_SMOOTHING):
    """Simard et al.'s seven tangent vectors of one image, column by column, from their formulas."""
    h, w = shape
    img = ndi.gaussian_filter(u.reshape(h, w), smoothing, mode="nearest")
    gy, gx = np.gradient(img)
    yy, xx = np.mgrid[0:h, 0:w].astype(float)
    yy -= (h - 1) / 2
    xx -= (w - 1) / 2
    cols = [gx, gy, yy * gx - xx * gy, xx * gx + yy * gy, xx * gx - yy * gy, yy * gx + xx * gy, gx ** 2 + gy ** 2]
    return np.stack([c.ravel() for c in cols], axis=1)


def _tangent_distance_lstsq(u, v, shape):
    T = _tangents_by_definition(u, shape)
    a = np.linalg.lstsq(T, v - u, rcond=None)[0]
    return np.linalg.norm(u + T @ a - v)


@pytest.mark.parametrize("shape", [(8, 8), (6, 10)])
def test_tangent_distance_equals_least_squares_residual(shape):
    U = _unit(_blobs(12, shape[0] * 0 + max(shape), seed=1)[:, :shape[0] * shape[1]])
    cand = np.array([[j for j in range(12) if j != i][:7] for i in range(12)])
    dist, idx = tangent_rerank(U, U, cand, 7, shape)
    for i in range(12):
        for d, j in zip(dist[i], idx[i]):
            assert d == pytest.approx(_tangent_distance_lstsq(U[i], U[j], shape), rel=1e-7, abs=1e-9)


def test_rerank_keeps_the_nearest_candidates_in_order():
    U = _unit(_blobs(40, 10, seed=2))
    rng = np.random.default_rng(0)
    cand = np.array([rng.choice(np.delete(np.arange(40), i), 12, replace=False) for i in range(40)])
    dist, idx = tangent_rerank(U, U, cand, 5, (10, 10))
    full = np.array([[_tangent_distance_lstsq(U[i], U[j], (10, 10)) for j in cand[i]] for i in range(40)])
    expected = np.sort(full, axis=1)[:, :5]
    np.testing.assert_allclose(dist, expected, rtol=1e-7, atol=1e-9)
    assert (np.diff(dist, axis=1) >= 0).all()
    assert all(set(idx[i]) <= set(cand[i]) for i in range(40))


def test_bases_are_orthonormal_and_span_the_tangents():
    U = _unit(_blobs(6, 9, seed=3))
    Q, _ = tangent_bases(U, (9, 9))
    for i in range(6):
        G = Q[i] @ Q[i].T
        kept = np.diag(G) > 0.5
        np.testing.assert_allclose(G[np.ix_(kept, kept)], np.eye(kept.sum()), atol=1e-10)
        T = _tangents_by_definition(U[i], (9, 9))
        # every tangent vector lies in the span of the basis rows
        residual = T - Q[i].T @ (Q[i] @ T)
        assert np.abs(residual).max() < 1e-8 * np.abs(T).max()


def test_flat_image_is_compared_by_its_chord_distance():
    U = _unit(np.vstack([np.ones(64), _blobs(3, 8, seed=4)]))
    dist, idx = tangent_rerank(U[:1], U, np.array([[1, 2, 3]]), 3, (8, 8))
    np.testing.assert_allclose(dist[0], np.sort(np.linalg.norm(U[1:] - U[0], axis=1)), rtol=1e-12)


def test_tangent_distance_is_below_chord_and_discounts_a_small_shift():
    # a smooth bump and the same bump moved by a fraction of a pixel: the tangent plane of
    # translations explains most of the difference, an unrelated bump's difference it does not
    side = 16
    yy, xx = np.mgrid[0:side, 0:side]
    bump = lambda cy, cx: np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * 2.5 ** 2)).ravel() + 0.01
    U = _unit(np.vstack([bump(8, 8), bump(8, 8.3), bump(4, 11)]))
    dist, idx = tangent_rerank(U, U, np.array([[1, 2], [0, 2], [0, 1]]), 2, (side, side))
    chord = np.linalg.norm(U[0] - U[1])
    assert idx[0, 0] == 1
    assert dist[0, 0] < 0.1 * chord
    assert np.all(dist[0] <= np.sort(np.linalg.norm(U[[1, 2]] - U[0], axis=1)) + 1e-12)


def test_knn_graph_tangent_equals_its_definition():
    X = _blobs(60, 8, seed=5)
    W = knn_graph(X, 4, weight="binary", metric="tangent", image_shape=(8, 8), algorithm="brute")
    U = _unit(X)
    # oracle: cosine top-12 candidates, the 4 nearest of them by least-squares tangent distance
    chord = np.linalg.norm(U[:, None] - U[None], axis=2)
    np.fill_diagonal(chord, np.inf)
    A = np.zeros((60, 60))
    for i in range(60):
        cand = np.lexsort((np.arange(60), chord[i]))[:12]
        td = np.array([_tangent_distance_lstsq(U[i], U[j], (8, 8)) for j in cand])
        A[i, cand[np.lexsort((cand, td))[:4]]] = 1
    A = np.maximum(A, A.T)
    np.testing.assert_array_equal(W.toarray(), A)


def test_knn_graph_tangent_info_and_invariance_to_row_scaling():
    X = _blobs(50, 8, seed=6)
    W, info = knn_graph(X, 5, metric="tangent", image_shape=(8, 8), return_info=True)
    assert info["tangent_candidates"] == 15
    scaled = X * np.random.default_rng(0).uniform(0.5, 3, (50, 1))
    W2 = knn_graph(scaled, 5, metric="tangent", image_shape=(8, 8))
    np.testing.assert_allclose(W2.toarray(), W.toarray(), rtol=1e-10, atol=1e-12)
    assert (W != W.T).nnz == 0 and W.diagonal().max() == 0


def test_tangent_options_are_checked_before_the_search():
    X = _blobs(20, 8)
    with pytest.raises(ValueError, match=r"metric='tangent' needs image_shape"):
        knn_graph(X, 3, metric="tangent")
    with pytest.raises(ValueError, match=r"image_shape=\(8, 9\) has 72 pixels but X has 64 columns"):
        knn_graph(X, 3, metric="tangent", image_shape=(8, 9))
    with pytest.raises(ValueError, match=r"image_shape=\(8, 8\) is used by metric='tangent' only"):
        knn_graph(X, 3, metric="cosine", image_shape=(8, 8))
    with pytest.raises(ValueError, match="pair \\(height, width\\) of ints >= 2"):
        knn_graph(X, 3, metric="tangent", image_shape=(64,))
    with pytest.raises(ValueError, match="pair \\(height, width\\) of ints >= 2"):
        knn_graph(X, 3, metric="tangent", image_shape=("8", "8"))
    with pytest.raises(TypeError, match="metric='tangent' takes dense images; X is sparse"):
        import scipy.sparse as sp
        knn_graph(sp.csr_array(X), 3, metric="tangent", image_shape=(8, 8))
    with pytest.raises(ValueError, match="metric='tangent' runs in this process"):
        knn_graph(X, 3, metric="tangent", image_shape=(8, 8), backend="dask")
    # before: "metric must be one of 'euclidean', 'cosine'; got 'tangent'." (no why, no fix)
    with pytest.raises(ValueError, match=r"metric='tangent' re-ranks the candidates of a kNN search and has no "
                                         r"epsilon graph: use knn_graph\(X, n_neighbors, metric='tangent', "
                                         r"image_shape=\.\.\.\), or metric='cosine'"):
        epsilon_graph(X, 0.5, metric="tangent")
    with pytest.raises(ValueError, match="rows of X with a direction"):
        knn_graph(np.vstack([X, np.zeros(64)]), 3, metric="tangent", image_shape=(8, 8))
    # a stack of images: before, "Reshape a single feature with X.reshape(-1, 1)." -- 1280 samples of 1 feature
    images = X.reshape(20, 8, 8)
    fix = (r"X must be 2-D of shape \(n_samples, n_features\); got 3-D with shape \(20, 8, 8\)\. One row per "
           r"sample: X\.reshape\(20, -1\) \(images of shape \(8, 8\): with metric='tangent', image_shape=\(8, 8\)\)\.$")
    with pytest.raises(ValueError, match=fix):
        knn_graph(images, 3, metric="tangent", image_shape=(8, 8))
    with pytest.raises(ValueError, match=fix):
        GraphSpec(metric="tangent", image_shape=(8, 8)).build(images)
    with pytest.raises(ValueError, match=r"got 1-D with shape \(64,\)\. Reshape a single feature with "
                                         r"X\.reshape\(-1, 1\), or a single sample with X\.reshape\(1, -1\)\.$"):
        knn_graph(X[0], 3)


def test_graph_spec_carries_the_image_shape():
    X = _blobs(30, 8, seed=7)
    spec = GraphSpec(n_neighbors=4, metric="tangent", image_shape=(8, 8))
    W = spec.build(X)
    np.testing.assert_array_equal(W.toarray(), knn_graph(X, 4, metric="tangent", image_shape=(8, 8)).toarray())
    listed = GraphSpec(n_neighbors=4, metric="tangent", image_shape=[8, 8])
    assert listed.image_shape == (8, 8) and hash(listed) == hash(spec)
    with pytest.raises(ValueError, match="needs image_shape"):
        GraphSpec(metric="tangent").validate()
    with pytest.raises(ValueError, match="used by metric='tangent' only"):
        GraphSpec(image_shape=(8, 8)).validate()
    with pytest.raises(ValueError, match=r"metric='tangent' re-ranks the candidates of a kNN search and has no "
                                         r"epsilon graph: use kind='knn', or metric='cosine'"):
        GraphSpec(kind="epsilon", radius=1.0, metric="tangent", image_shape=(8, 8)).validate()


def test_check_image_shape():
    assert check_image_shape((4, 6), 24) == (4, 6)
    assert check_image_shape([np.int64(3), 5.0], 15) == (3, 5)
    for bad in [(True, 8), (1, 64), (2, 2, 2), 64, None, (2.5, 4), np.array(8), np.array([[8, 8]])]:
        with pytest.raises(ValueError, match="image_shape"):
            check_image_shape(bad, 64)
        # a 0-d array was "iteration over a 0-d array" (check) and "'int' object is not iterable" (GraphSpec)
        with pytest.raises(ValueError, match="image_shape"):
            GraphSpec(metric="tangent", image_shape=bad).validate()


def _sequences(kind, n=600, p=64, seed=0):
    rng = np.random.default_rng(seed)
    x = np.arange(p)
    if kind == "random_walk":
        S = np.cumsum(rng.standard_normal((n, p)), axis=1)
    elif kind == "sines":
        S = np.sin(rng.uniform(0.5, 3, (n, 1)) * x / 10 + rng.uniform(0, 6, (n, 1)))
    elif kind == "ar1":
        S = np.zeros((n, p))
        e = rng.standard_normal((n, p))
        for j in range(p):
            S[:, j] = (0.9 * S[:, j - 1] if j else 0) + e[:, j]
    elif kind == "histogram":
        S = np.stack([np.histogram(rng.normal(rng.uniform(-1, 1), rng.uniform(0.3, 1), 200), bins=p,
                                   range=(-3, 3))[0] for _ in range(n)]).astype(float)
    elif kind == "independent":
        S = np.abs(rng.standard_normal((n, p)))
    return S - S.min() + 0.01


@pytest.mark.parametrize("kind", ["random_walk", "sines", "ar1", "histogram", "independent"])
def test_square_image_test_refuses_sequences_and_tables(kind):
    assert square_image_shape(_sequences(kind)) is None


def test_square_image_test_recognizes_images_not_their_shuffled_pixels():
    X = _blobs(400, 12, seed=8)
    assert square_image_shape(X) == (12, 12)
    perm = np.random.default_rng(0).permutation(144)
    assert square_image_shape(X[:, perm]) is None
    assert square_image_shape(X[:, :143]) is None            # not a square number of pixels
    assert square_image_shape(_blobs(400, 7)) is None         # below the smallest side
    import scipy.sparse as sp
    assert square_image_shape(sp.csr_array(X)) is None        # sparse rows are not taken for images


def test_auto_graph_uses_the_tangent_distance_on_square_images():
    X = _blobs(200, 8, seed=9)
    y = np.full(200, -1)
    y[:10] = np.arange(10) % 2
    est = PoissonRidgeEnsembleClassifier().fit(X, y)
    assert est.graph_spec_.metric == "tangent" and est.graph_spec_.image_shape == (8, 8)
    W = est.graph_spec_.build(X)
    np.testing.assert_array_equal(
        W.toarray(), knn_graph(X, 10, weight="self-tuning", relative_width=0.5, metric="tangent",
                               image_shape=(8, 8)).toarray())
    # the fitted points are their own nodes out of sample, and a new image meets its tangent neighbours
    np.testing.assert_array_equal(est.predict(X), est.transduction_)
    table = _sequences("random_walk", n=200)
    assert PoissonRidgeEnsembleClassifier().fit(table, y).graph_spec_.metric == "cosine"


def test_out_of_sample_neighbours_use_the_tangent_distance():
    X = _blobs(120, 8, seed=10)
    y = np.full(100, -1)
    y[:8] = np.arange(8) % 2
    est = PoissonRidgeEnsembleClassifier(graph=GraphSpec(n_neighbors=5, metric="tangent", image_shape=(8, 8),
                                                         weight="self-tuning", relative_width=0.5))
    est.fit(X[:100], y)
    new = X[100:]
    F = est._fitted_scores()
    scores = est._oos_scores(new, F)       # the out-of-sample rule on the fitted class scores
    # oracle: the 5 nearest fitted images by least-squares tangent distance among 15 cosine candidates
    U, V = _unit(X[:100]), _unit(new)
    for a in range(new.shape[0]):
        chord = np.linalg.norm(U - V[a], axis=1)
        cand = np.lexsort((np.arange(100), chord))[:15]
        td = np.array([_tangent_distance_lstsq(V[a], U[j], (8, 8)) for j in cand])
        order = np.lexsort((cand, td))[:5]
        d, j = td[order], cand[order]
        w = np.exp(-(d / d[-1]) ** 2 / 2)
        np.testing.assert_allclose(scores[a], w @ F[j] / w.sum(), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("shape", [(8.0, 8.0), np.array([8.0, 8.0])])
def test_out_of_sample_rule_takes_the_image_shape_the_fit_took(shape):
    # GraphSpec and knn_graph take whole floats for image_shape; predict reshaped the images by the
    # spec's raw floats ("'float' object cannot be interpreted as an integer")
    X = _blobs(60, 8, seed=11)
    y = np.full(60, -1)
    y[:6] = np.arange(6) % 2
    est = PoissonRidgeEnsembleClassifier(graph=GraphSpec(n_neighbors=4, metric="tangent", image_shape=shape)).fit(X, y)
    ref = PoissonRidgeEnsembleClassifier(graph=GraphSpec(n_neighbors=4, metric="tangent", image_shape=(8, 8))).fit(X, y)
    np.testing.assert_array_equal(est.predict(X), est.transduction_)
    new = _blobs(5, 8, seed=12)
    np.testing.assert_array_equal(est.predict_proba(new), ref.predict_proba(new))


def test_out_of_sample_rule_refuses_sparse_images_as_the_fit_does():
    # the fit's knn_graph refuses sparse images; predict raised numpy's "setting an array element with a
    # sequence" from inside the re-ranking
    import scipy.sparse as sp
    X = _blobs(40, 8, seed=13)
    y = np.full(40, -1)
    y[:4] = np.arange(4) % 2
    est = PoissonRidgeEnsembleClassifier(graph=GraphSpec(n_neighbors=4, metric="tangent", image_shape=(8, 8))).fit(X, y)
    with pytest.raises(TypeError, match="metric='tangent' takes dense images; X is sparse"):
        est.predict(sp.csr_array(X[:3]))


@pytest.mark.parametrize("scale", [1e160, 1e300, 1e-170, 1e-300])
def test_square_image_test_does_not_depend_on_the_scale(scale):
    # correlations are scale-free; the squared column norms overflowed (1e160) or underflowed (1e-170), so
    # scaled images were not recognized and graph="auto" built the cosine graph instead of the tangent one
    X = _blobs(400, 12, seed=8)
    assert square_image_shape(X * scale) == (12, 12)
    assert square_image_shape(_sequences("random_walk") * scale) is None


def _flat_and_one_pixel_images(seed=0):
    """A flat 8 x 8 image and 15 images of one lit pixel (distinct places): the flat image is at the same
    tangent distance (its chord distance, no tangent plane) from every one-pixel image."""
    rng = np.random.default_rng(seed)
    X = np.zeros((16, 64))
    X[0] = 1.0
    X[np.arange(1, 16), rng.choice(64, 15, replace=False)] = 1.0
    return X


@pytest.mark.parametrize("k", [1, 3])
def test_tangent_ties_go_to_the_lexicographically_first_candidates(k):
    # exact ties at the flat image: its neighbours are the one-pixel images that come first in lexicographic
    # order of their (unit) rows, those lit farthest along the reading order, whatever their row numbers
    X = _flat_and_one_pixel_images()
    lit = X[1:].argmax(axis=1)
    expected = 1 + np.argsort(-lit)[:k]
    rng = np.random.default_rng(1)
    for trial in range(3):
        p = np.r_[0, 1 + rng.permutation(15)] if trial else np.arange(16)
        W = knn_graph(X[p], k, metric="tangent", image_shape=(8, 8), weight="binary", mode="union").toarray()
        inv = np.argsort(p)
        assert set(expected) <= set(p[np.flatnonzero(W[0])]), trial   # p maps rows of X[p] to rows of X
        W_back = W[inv][:, inv]
        if trial:
            np.testing.assert_array_equal(W_back, W0)
        else:
            W0 = W_back


@pytest.mark.parametrize("mode", ["union", "mutual"])
def test_tangent_graph_of_permuted_digits_is_the_permuted_graph(mode):
    from sklearn.datasets import load_digits

    X = load_digits().data[:300]
    p = np.random.default_rng(3).permutation(len(X))
    W = knn_graph(X, 5, metric="tangent", image_shape=(8, 8), mode=mode)
    Wp = knn_graph(X[p], 5, metric="tangent", image_shape=(8, 8), mode=mode)
    expected = W[p][:, p].toarray()
    np.testing.assert_array_equal(Wp.toarray() != 0, expected != 0)
    np.testing.assert_allclose(Wp.toarray(), expected, rtol=1e-14, atol=0)
