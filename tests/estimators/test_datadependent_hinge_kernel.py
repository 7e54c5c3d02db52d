"""The hinge loss of the data-dependent learners: libsvm on the kernel exactly as predictions use it."""

import numpy as np
from sklearn.svm import SVC

from graphrkhs import WarpedKernelClassifier, gaussian_kernel


def _blobs():
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(0, 1, (30, 2)), rng.normal(3, 1, (30, 2))]
    return X, np.repeat([0, 1], 30)


def test_warped_hinge_one_label_per_class_at_the_fallback_ratio():
    """One label per class: the fallback gamma_A = 1e-6, gamma_I = 1e6 (ratio 1e12).  The warped Gram of
    the two labeled points is nearly constant (0.18663..., differences ~2e-7) and asymmetric by 3e-8.
    libsvm's gradient sums columns of the matrix it is given (decision_function rows) and caches it in
    float32: both labeled points got decision values of one sign (-0.0067, -0.0059) and every point the
    same class (accuracy 0.5).  Both labeled points are support vectors at the bound C, so the exact
    intercept is the midpoint of the KKT interval: f(x_0) = -f(x_1)."""
    X, truth = _blobs()
    y = np.full(60, -1)
    y[0], y[30] = 0, 1
    clf = WarpedKernelClassifier(loss="hinge").fit(X, y)
    assert (clf.gamma_A_, clf.gamma_I_) == (1e-6, 1e6)          # the documented one-label fallback
    d = clf.decision_function(X[[0, 30]])
    assert d[0] < 0 < d[1]
    np.testing.assert_allclose(d[0], -d[1], rtol=1e-4)     # was -0.0067 against 0.0059
    assert clf.score(X, truth) >= 0.95


def test_hinge_kernel_plus_a_constant_is_the_svm_of_the_kernel():
    """k = 1 + 1e-6 g (g Gaussian; gamma_I = 0: the warped kernel is k): with the SVM's free intercept the
    constant changes nothing, so the decision function is that of the SVM on 1e-6 g, i.e. on g with C
    scaled by 1e-6.  libsvm's float32 kernel cache rounded 1 + 1e-6 g to ~6e-8: the values were off by
    1.5e-5 (1 % of the decision values)."""
    X, _ = _blobs()
    S = [0, 1, 2, 3, 30, 31, 32, 33]
    y = np.full(60, -1)
    y[S] = np.repeat([0, 1], 4)

    def k(A, B):
        return 1.0 + 1e-6 * gaussian_kernel(A, B, sigma=1.0)

    clf = WarpedKernelClassifier(kernel=k, gamma_A=1e-4, gamma_I=0.0, loss="hinge", n_neighbors=5).fit(X, y)
    C = 1.0 / (2 * 1e-4 * len(S))
    ref = SVC(kernel="precomputed", C=C * 1e-6).fit(gaussian_kernel(X[S], X[S], sigma=1.0), y[S])
    Z = X[::3]
    want = ref.decision_function(gaussian_kernel(Z, X[S], sigma=1.0))
    np.testing.assert_allclose(clf.decision_function(Z), want, rtol=0, atol=1e-6 * np.abs(want).max())
