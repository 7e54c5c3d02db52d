"""pairwise_kernel: a far row of A (or an outlier of B) must not change the kernel rows of the others.

The centred frame took the midpoint of the bounding box of both sets: one row at 1e20 moved it to 5e19,
where every other row lost its digits (x - c rounded to -c), and beyond ~1e150 the frame's power of two
made the other rows' squared distances underflow.  The kernel rows of ordinary points, and an
estimator's predictions for them, then depended on another row of the batch."""

import warnings

import numpy as np
import pytest

from graphrkhs import FredholmKernel, RLSClassifier, pairwise_kernel


def _gauss(A, B, sigma=1.0):
    A = np.asarray(A, np.float64)
    B = np.asarray(B, np.float64)
    return np.exp(-((A[:, None, :] - B[None, :, :]) ** 2).sum(-1) / (2 * sigma * sigma))


@pytest.mark.parametrize("big", [1e20, 1e100, 1e200, 1e307])
def test_other_rows_are_exact_with_a_far_row_in_the_batch(big):
    X = np.random.default_rng(0).normal(size=(6, 2))
    A = np.array([[0.3, 0.1], [big, 0.0], [-0.5, 1.0]])
    K = pairwise_kernel(A, X, "gaussian", sigma=1.0)
    np.testing.assert_allclose(K[[0, 2]], _gauss(A[[0, 2]], X), rtol=1e-12, atol=1e-15)
    assert K[1].max() == 0.0


def test_float32_rows_with_a_far_row():
    X = np.random.default_rng(0).normal(size=(6, 2)).astype(np.float32)
    A = np.array([[0.3, 0.1], [1e20, 0.0], [-0.5, 1.0]], dtype=np.float32)
    K = pairwise_kernel(A, X, "gaussian", sigma=1.0)
    np.testing.assert_allclose(K[[0, 2]], _gauss(A[[0, 2]], X), rtol=0, atol=1e-6)


def test_an_outlier_among_the_points_leaves_the_others_gram_matrix_exact():
    X = np.random.default_rng(1).normal(size=(6, 2))
    Xo = np.vstack([X, [[1e20, 0.0]]])
    np.testing.assert_allclose(pairwise_kernel(Xo)[:6, :6], _gauss(X, X), rtol=1e-12, atol=1e-15)


def test_fredholm_kernel_row_does_not_depend_on_the_batch():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(15, 2)), rng.normal(size=(15, 2)) + [5, 0]])
    K = FredholmKernel(X, sigma=1.0)
    a = np.array([[0.3, 0.0]])
    oracle = _gauss(a, X) @ _gauss(X, X) @ _gauss(X, X[:3]) / len(X) ** 2
    # before: 0.0621 / 0.0499 / 0.0644 instead of 0.0451 / 0.0372 / 0.0462 with a row at 1e20 in the batch
    np.testing.assert_allclose(K(np.vstack([a, [[1e20, 0.0]]]), X[:3])[0], oracle[0], rtol=1e-10)


def test_rls_predict_of_a_row_does_not_depend_on_the_other_rows():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(15, 2)), rng.normal(size=(15, 2)) + [5, 0]])
    y = np.full(30, -1)
    y[[0, 1, 2]], y[[15, 16]] = 0, 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = RLSClassifier().fit(X, y)
    Xq = np.array([[0.0, 0.0], [5.0, 0.0], [2.4, 0.0]])
    alone = clf.predict_proba(Xq)
    # before: with a row at 1e20 in the batch the point [5, 0] (class 1) was predicted class 0
    np.testing.assert_allclose(clf.predict_proba(np.vstack([Xq, [[1e20, 0.0]]]))[:3], alone, rtol=1e-9, atol=1e-12)
    assert clf.predict(Xq)[1] == 1


@pytest.mark.parametrize("normalized", [False, True])
def test_fredholm_knn_outer_weights_do_not_depend_on_the_batch(normalized):
    # the kNN-truncated outer kernel measured distances in units of a power of two of the whole batch: a row at
    # 1e200 made the others' squared distances underflow (their kernel row 59 % off)
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(15, 2)), rng.normal(size=(15, 2)) + [5, 0]])
    K = FredholmKernel(X, sigma=1.0, n_neighbors=5, normalized=normalized)
    a = np.array([[0.3, 0.0], [4.0, 0.5]])
    alone = K(a, X[:3])
    for big in (1e160, 1e200):
        batch = K(np.vstack([a[:1], [[big, 0.0]], a[1:]]), X[:3])
        np.testing.assert_allclose(batch[[0, 2]], alone, rtol=1e-12, atol=0)


def test_a_far_column_leaves_the_other_columns_exact():
    # the new points on the right (as WarpedKernel evaluates k(X, new)): a column at 1e200 underflowed the others
    X = np.random.default_rng(2).normal(size=(6, 2))
    Bq = np.array([[0.3, 0.1], [1e200, 0.0], [-0.5, 1.0]])
    K = pairwise_kernel(X, Bq, "gaussian", sigma=1.0)
    np.testing.assert_allclose(K[:, [0, 2]], _gauss(X, Bq[[0, 2]]), rtol=1e-12, atol=1e-15)
    assert K[:, 1].max() == 0.0


def test_every_inductive_classifier_predicts_a_row_independently_of_a_far_row():
    import graphrkhs.estimators as E
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(15, 2)), rng.normal(size=(15, 2)) + [5, 0]])
    y = np.full(30, -1)
    y[[0, 1, 2]], y[[15, 16]] = 0, 1
    Xq = np.array([[0.0, 0.0], [5.0, 0.0], [2.4, 0.0]])
    for name in ("RLSClassifier", "LapRLSClassifier", "PRLSClassifier", "PLapRLSClassifier", "GRLSClassifier",
                 "FredholmClassifier", "WarpedKernelClassifier"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            clf = getattr(E, name)().fit(X, y)
            alone = clf.predict_proba(Xq)
            for big in (1e20, 1e200):
                batch = clf.predict_proba(np.vstack([Xq, [[big, 0.0]]]))[:3]
                np.testing.assert_allclose(batch, alone, rtol=1e-8, atol=1e-10, err_msg=f"{name}, row at {big:g}")
