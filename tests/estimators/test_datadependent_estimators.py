"""scikit-learn estimators on the Fredholm and warped kernels."""

import warnings

import numpy as np
import pytest
from scipy.spatial.distance import cdist
from sklearn.exceptions import NotFittedError
from sklearn.svm import SVC

from graphrkhs import (
    FredholmClassifier,
    FredholmRegressor,
    WarpedKernelClassifier,
    WarpedKernelRegressor,
    fredholm_rls,
)
from graphrkhs.datasets import make_noisy_subspace, sample_labels


def gauss(A, B, s):
    return np.exp(-cdist(A, B, "sqeuclidean") / (2 * s * s))


@pytest.fixture(scope="module")
def noisy():
    X, y = make_noisy_subspace(400, n_features=20, random_state=0)
    y_partial, keep = sample_labels(y, 10, random_state=1)
    return X, y, y_partial, keep


def _fredholm_oracle(X, keep, s):
    """The normalized FredGauss kernel K_F(X, X_keep) by dense products (Que et al. Eq. 2)."""
    P = gauss(X, X, s)
    P /= P.sum(1, keepdims=True)
    return P @ gauss(X, X, s) @ P[keep].T


def test_fredholm_rls_classifier_is_the_plain_function(noisy):
    # alpha is relative to the kernel's scale: alpha_ l = alpha mean(diag K_SS); the plain function
    # takes the absolute alpha_.
    X, y, y_partial, keep = noisy
    clf = FredholmClassifier(sigma=2.0, alpha=1e-2, normalized=True).fit(X, y_partial)
    KF = _fredholm_oracle(X, keep, 2.0)
    np.testing.assert_allclose(clf.alpha_ * keep.size, 1e-2 * np.mean(np.diag(KF[keep])), rtol=1e-8)
    Y = np.where(y[keep][:, None] == np.arange(2), 1.0, -1.0)
    f = fredholm_rls(X, keep, Y, alpha=clf.alpha_, sigma=2.0, normalized=True)
    np.testing.assert_allclose(clf.decision_function(X), f(X)[:, 1], rtol=1e-8, atol=1e-12)
    np.testing.assert_array_equal(clf.predict(X), np.argmax(f(X), axis=1))


def test_fredholm_hinge_is_svc_on_the_oracle_kernel(noisy):
    # Hinge loss = SVC on the precomputed Fredholm kernel, C = 1 / (2 alpha_ l); oracle kernel by einsum.
    X, y, y_partial, keep = noisy
    alpha, s = 1e-1, 2.0
    clf = FredholmClassifier(sigma=s, alpha=alpha, normalized=True, loss="hinge").fit(X, y_partial)
    KF = _fredholm_oracle(X, keep, s)
    alpha_abs = alpha * np.mean(np.diag(KF[keep])) / keep.size
    # the SVM is fitted on the kernel less its mean over the labeled pairs (a constant its free intercept
    # absorbs exactly; against libsvm's float32 kernel cache): libsvm on a shifted kernel stops elsewhere
    # within its tolerance, so the oracle takes the same shift
    shift = KF[keep].mean()
    svc = SVC(kernel="precomputed", C=1.0 / (2 * alpha_abs * keep.size)).fit(KF[keep] - shift, y[keep])
    np.testing.assert_allclose(clf.decision_function(X), svc.decision_function(KF - shift), rtol=1e-6, atol=1e-8)
    np.testing.assert_array_equal(clf.predict(X), svc.predict(KF - shift))


def test_fredholm_beats_gaussian_under_the_noise_assumption():
    # Fixed-seed accuracy floor on the paper's setting (signal in 2 of 60 dimensions).
    X, y = make_noisy_subspace(600, n_features=60, random_state=3)
    y_partial, keep = sample_labels(y, 10, random_state=4)
    hidden = np.setdiff1d(np.arange(600), keep)
    fred = FredholmClassifier(normalized=True).fit(X, y_partial)  # default widths, LOO ridge
    # Gaussian RLS on the labeled points only, same width and ridge rule: the plain kernel.
    from graphrkhs.estimators._datadependent import _select_ridge
    from graphrkhs import default_sigma

    s = default_sigma(X)
    G = gauss(X[keep], X[keep], s)
    Y = np.where(y[keep][:, None] == np.arange(2), 1.0, -1.0)
    a = _select_ridge(G, Y)
    c = np.linalg.solve(G + a * keep.size * np.eye(keep.size), Y)
    acc_gauss = np.mean(np.argmax(gauss(X[hidden], X[keep], s) @ c, 1) == y[hidden])
    acc_fred = fred.score(X[hidden], y[hidden])
    assert acc_fred > 0.75
    assert acc_fred > acc_gauss + 0.03


def test_warped_two_circles_two_labels():
    # Sindhwani et al. Figure 1: two labeled points; the warped kernel follows the circles.
    t = np.linspace(0, 2 * np.pi, 100, endpoint=False)
    X = np.vstack([np.c_[np.cos(t), np.sin(t)], 3 * np.c_[np.cos(t), np.sin(t)]])
    truth = np.repeat([0, 1], 100)
    y = np.full(200, -1)
    y[0], y[100] = 0, 1
    warped = WarpedKernelClassifier(sigma=1.0, gamma_A=1e-5, gamma_I=10.0, n_neighbors=4).fit(X, y)
    plain = WarpedKernelClassifier(sigma=1.0, gamma_A=1e-5, gamma_I=0.0, n_neighbors=4).fit(X, y)
    assert warped.score(X, truth) == 1.0
    assert plain.score(X, truth) < 0.8
    hinge = WarpedKernelClassifier(sigma=1.0, gamma_A=1e-5, gamma_I=10.0, n_neighbors=4, loss="hinge").fit(X, y)
    assert hinge.score(X, truth) == 1.0
    # out of sample: points on the circles between the training points
    s = t + np.pi / 100
    Xnew = np.vstack([np.c_[np.cos(s), np.sin(s)], 3 * np.c_[np.cos(s), np.sin(s)]])
    assert warped.score(Xnew, truth) == 1.0


def test_warped_regressor_is_laprls():
    rng = np.random.default_rng(5)
    X = rng.uniform(-1, 1, size=(80, 2))
    target = np.sin(2 * X[:, 0])
    y = np.full(80, np.nan)
    S = np.arange(0, 80, 8)
    y[S] = target[S]
    gA, gI, s = 1e-3, 1.0, 0.5
    from graphrkhs import knn_graph, laplacian

    n, l = 80, S.size
    K = gauss(X, X, s)
    L = laplacian(knn_graph(X, 6)).toarray()
    J = np.diag(np.isin(np.arange(n), S).astype(float))
    Z = rng.uniform(-1, 1, size=(10, 2))
    # the dense LapRLS system (Belkin et al. 2006), on the targets less their labeled mean (the free constant,
    # fit_intercept="auto" for regressors) and without it (fit_intercept=False)
    for fit_intercept, mean in (("auto", y[S].mean()), (False, 0.0)):
        reg = WarpedKernelRegressor(sigma=s, gamma_A=gA, gamma_I=gI, n_neighbors=6,
                                    fit_intercept=fit_intercept).fit(X, y)
        a = np.linalg.solve(J @ K + gA * l * np.eye(n) + gI * l / n**2 * L @ K, np.nan_to_num(y - mean))
        np.testing.assert_allclose(reg.predict(Z), gauss(Z, X, s) @ a + mean, rtol=1e-7, atol=1e-9)


def test_fredholm_regressor_linear_outer_recovers_principal_direction():
    # Principal component regression (Que et al. Section 5.1.1): y = a x^T u_1 with u_1 the top direction.
    rng = np.random.default_rng(6)
    X = rng.normal(size=(400, 10)) * np.sqrt(np.r_[10.0, np.ones(9)])
    y_full = 2.0 * X[:, 0]
    y = np.full(400, np.nan)
    y[:15] = y_full[:15]
    reg = FredholmRegressor(outer="linear", inner="gaussian", sigma_inner=3.0).fit(X, y)
    assert reg.score(X[15:], y_full[15:]) > 0.95


def test_string_labels_and_multiclass():
    rng = np.random.default_rng(7)
    centers = np.array([[0, 0], [5, 0], [0, 5]])
    X = np.vstack([c + rng.normal(size=(40, 2)) for c in centers])
    truth = np.repeat(np.array(["a", "b", "c"], dtype=object), 40)
    y = np.full(120, "-1", dtype=object)
    y[[0, 40, 80, 1, 41, 81]] = truth[[0, 40, 80, 1, 41, 81]]
    for est in (FredholmClassifier(sigma=1.5), FredholmClassifier(sigma=1.5, loss="hinge"),
                WarpedKernelClassifier(sigma=1.5, n_neighbors=5)):
        est.fit(X, y)
        assert list(est.classes_) == ["a", "b", "c"]
        assert est.score(X, truth) > 0.95
        assert est.decision_function(X).shape == (120, 3)


def test_sparse_and_nystrom_options_in_the_estimator(noisy):
    X, y, y_partial, keep = noisy
    exact = FredholmClassifier(sigma=2.0, alpha=1e-2, normalized=True).fit(X, y_partial)
    sparse = FredholmClassifier(sigma=2.0, alpha=1e-2, normalized=True, n_neighbors=X.shape[0]).fit(X, y_partial)
    np.testing.assert_allclose(sparse.decision_function(X), exact.decision_function(X), rtol=1e-7, atol=1e-10)
    ny = FredholmClassifier(sigma=2.0, alpha=1e-2, normalized=True, n_neighbors=30, inner_approximation="nystrom",
                            n_components=200, random_state=0).fit(X, y_partial)
    assert ny.score(X, y) > 0.7


def test_not_fitted_and_feature_mismatch(noisy):
    X, y, y_partial, keep = noisy
    with pytest.raises(NotFittedError):
        FredholmClassifier().predict(X)
    clf = FredholmClassifier(sigma=2.0).fit(X, y_partial)
    with pytest.raises(ValueError, match="features"):
        clf.predict(X[:, :5])


BAD_FIT = [
    (FredholmClassifier(loss="log"), ValueError, "loss"),
    (FredholmClassifier(alpha=0.0), ValueError, "alpha"),
    (FredholmClassifier(alpha="big"), TypeError, "alpha"),
    (FredholmClassifier(outer="cosine"), ValueError, "outer"),
    (FredholmClassifier(sigma_inner=-1.0), ValueError, "sigma_inner"),
    (FredholmClassifier(inner_approximation="svd"), ValueError, "inner_approximation"),
    (FredholmRegressor(n_neighbors=0), ValueError, "n_neighbors"),
    (WarpedKernelClassifier(laplacian_power=0), ValueError, "laplacian_power"),
    (WarpedKernelClassifier(gamma_A=-1.0), ValueError, "gamma_A"),
    (WarpedKernelClassifier(gamma_I=-1.0), ValueError, "gamma_I"),
    (WarpedKernelClassifier(loss="hinge2"), ValueError, "loss"),
    (WarpedKernelRegressor(laplacian="signless"), ValueError, "laplacian"),
]


@pytest.mark.parametrize("est, exc, word", BAD_FIT)
def test_bad_parameters_fail_in_fit(noisy, est, exc, word):
    X, y, y_partial, keep = noisy
    target = np.where(y_partial >= 0, y_partial, np.nan) if "Regressor" in type(est).__name__ else y_partial
    with pytest.raises(exc, match=word):
        est.fit(X, target)


@pytest.mark.parametrize("y, word", [
    (np.full(400, -1), "no labeled"),
    (np.zeros(399), "entries"),
    (np.zeros((400, 2)), "1-D"),
])
def test_bad_labels(noisy, y, word):
    X = noisy[0]
    with pytest.raises(ValueError, match=word):
        FredholmClassifier().fit(X, y)


def test_one_labeled_class_is_an_error_for_both_losses(noisy):
    # (Was: the squared loss fitted one class silently.)  A classifier needs two labeled classes; the
    # message names the marker, the likely cause when the labels are {-1, +1}.
    X = noisy[0]
    y = np.full(400, -1)
    y[:5] = 1
    for loss in ("hinge", "squared"):
        with pytest.raises(ValueError, match=r"only one class \(1\).*unlabeled=None"):
            FredholmClassifier(loss=loss).fit(X, y)


def test_all_points_labeled_is_supervised(noisy):
    # Nothing here requires unlabeled points: with none, the kernel is built on the labeled ones.
    X, y, _, _ = noisy
    clf = FredholmClassifier(sigma=2.0, normalized=True).fit(X[:60], y[:60])
    assert clf.kernel_.n == 60
    assert clf.score(X[:60], y[:60]) > 0.8


@pytest.mark.parametrize("est", [FredholmClassifier(sigma=2.0), FredholmRegressor(sigma=2.0),
                                 WarpedKernelClassifier(n_neighbors=5), WarpedKernelRegressor(n_neighbors=5)])
def test_clone_and_get_params(est):
    from sklearn.base import clone

    c = clone(est)
    assert c.get_params() == est.get_params()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_float32_and_float64(noisy, dtype):
    X, y, y_partial, keep = noisy
    clf = FredholmClassifier(sigma=2.0, alpha=1e-4, normalized=True).fit(X.astype(dtype), y_partial)
    ref = FredholmClassifier(sigma=2.0, alpha=1e-4, normalized=True).fit(X, y_partial)
    d, r = clf.decision_function(X.astype(dtype)), ref.decision_function(X)
    np.testing.assert_allclose(d, r, atol=(1e-3 if dtype == np.float32 else 1e-10) * np.abs(r).max())


def test_continuous_target_is_not_a_class_label(noisy):
    X = noisy[0]
    y = np.full(400, -1.0)
    y[:10] = np.linspace(0.1, 0.9, 10)
    with pytest.raises(ValueError, match="Unknown label type"):
        FredholmClassifier().fit(X, y)


# scikit-learn's common checks for every estimator: tests/estimators/test_common.py.


def test_regressor_default_alpha_fits_the_sklearn_regression_data():
    from sklearn.utils.estimator_checks import _regression_dataset

    X, y = _regression_dataset()
    assert FredholmRegressor().fit(X, y).score(X, y) > 0.5


def test_relative_alpha_fits_the_sklearn_regression_data_at_the_checks_value():
    # scikit-learn's check_regressors_train sets alpha=0.01: relative to the kernel's scale
    # (alpha_ l = alpha mean(diag K_SS)) that is a mild ridge; the absolute 0.01 flattened the fit
    # (the Fredholm kernel carries a 1/n^2), which is why alpha is relative in the estimators.
    from sklearn.utils.estimator_checks import _regression_dataset

    X, y = _regression_dataset()
    reg = FredholmRegressor(alpha=0.01).fit(X, y)
    assert reg.score(X, y) > 0.5
    G = reg.kernel_(reg.labeled_points_, reg.labeled_points_, right=reg.right_)
    np.testing.assert_allclose(reg.alpha_ * len(y), 0.01 * np.mean(np.diag(G)), rtol=1e-12)


def test_warped_auto_reuses_the_selection_lu_and_equals_the_fit_at_the_selected_values():
    """sigma/gamma 'auto': the width chosen jointly by LapRLS's LOO (select_laprls_lowrank); the right
    factors of the labeled points come from the selection's basis (E_S - Z), the kernel is never factored,
    and the fit equals a fresh WarpedKernelClassifier and LapRLSClassifier at the selected values."""
    from graphrkhs import LapRLSClassifier, WarpedKernelClassifier
    from graphrkhs.datasets import make_noisy_circles, sample_labels

    X, y = make_noisy_circles(200, random_state=5)
    yp, _ = sample_labels(y, 6, random_state=5)
    auto = WarpedKernelClassifier().fit(X, yp)
    assert auto.gamma_I_ > 0 and auto.kernel_.K is None            # graph term on, no Gram / LU built
    fixed = WarpedKernelClassifier(sigma=auto.sigma_, gamma_A=auto.gamma_A_, gamma_I=auto.gamma_I_).fit(X, yp)
    assert fixed.kernel_.K is not None
    F = auto.decision_function(X)
    np.testing.assert_allclose(F, fixed.decision_function(X), rtol=1e-6, atol=1e-8 * np.abs(F).max())
    lap = LapRLSClassifier().fit(X, yp)
    assert (lap.sigma_, lap.gamma_A_, lap.gamma_I_) == (auto.sigma_, auto.gamma_A_, auto.gamma_I_)
    np.testing.assert_allclose(lap.decision_function(X), F, rtol=1e-6, atol=1e-8 * np.abs(F).max())


def test_fredholm_hinge_ridge_does_not_depend_on_the_row_order():
    # 3 labels per class: the held-out accuracy of the hinge ridge is flat, and its ties go to the squared-loss
    # choice; before, the tie rule and the grid extensions ran to a degenerate ridge (2e5 on one order, 2e-5 on
    # another) depending on the folds, i.e. on the order of the rows
    from sklearn.datasets import make_blobs

    X, yt = make_blobs(n_samples=150, centers=3, cluster_std=2.5, random_state=3)
    y = np.full(150, -1)
    for c in range(3):
        y[np.flatnonzero(yt == c)[:3]] = c
    fits = []
    for seed in range(3):
        perm = np.random.default_rng(seed).permutation(150)
        est = FredholmClassifier(loss="hinge").fit(X[perm], y[perm])
        fits.append((est.alpha_, est.predict(X)))
    for alpha, pred in fits[1:]:
        assert alpha == pytest.approx(fits[0][0], rel=1e-9)
        np.testing.assert_array_equal(pred, fits[0][1])


@pytest.mark.parametrize("target", ["constant", "shifted"])
def test_warped_regressor_has_laprls_free_constant(target):
    # RLS on the warped kernel is LapRLS: with LapRLS's free constant (the labeled mean) a constant target is
    # reproduced exactly and a shifted one fitted as LapRLSRegressor fits it (before: pulled towards 0)
    from sklearn.datasets import make_moons

    from graphrkhs import LapRLSRegressor

    X, _ = make_moons(600, noise=0.1, random_state=0)
    lab = np.random.default_rng(0).choice(600, 20, replace=False)
    t = np.full(600, 5.0) if target == "constant" else 10.0 + np.sin(3 * X[:, 0])
    y = np.full(600, np.nan)
    y[lab] = t[lab]
    kw = dict(sigma=0.3, gamma_A=1e-4, gamma_I=100.0)
    warped = WarpedKernelRegressor(**kw).fit(X, y).predict(X)
    laprls = LapRLSRegressor(**kw).fit(X, y).predict(X)
    np.testing.assert_allclose(warped, laprls, rtol=1e-8, atol=1e-8)
    if target == "constant":
        np.testing.assert_allclose(warped, 5.0, rtol=1e-10)


def test_fredholm_regressor_float32_points_fit_on_float64_kernels():
    # Exact LOO on 8 labels of two moons picks a near-interpolating relative ridge (~1e-9 in float64);
    # on a float32 gram (eigenvalue errors ~ l eps32 |K|) that ridge made the final Cholesky fail, and a
    # ridge floor of 10 l eps32 then chose other parameters than float64 points.  Every inner kernel
    # (exact and Nystrom) now runs on float64 points; the fit solves the saddle system
    # [[K + ridge l I, 1], [1^T, 0]] [c; b] = [y; 0] of that gram, predictions keep float32.
    from sklearn.datasets import make_moons

    X, yt = make_moons(80, noise=0.1, random_state=0)
    rng = np.random.default_rng(0)
    lab = np.zeros(80, bool)
    for c in range(2):
        lab[rng.choice(np.flatnonzero(yt == c), 4, replace=False)] = True
    y = np.where(lab, X[:, 1], np.nan)
    X32 = X.astype(np.float32)
    reg = FredholmRegressor(inner_approximation="nystrom", random_state=0).fit(X32, y)
    assert reg.kernel_.X.dtype == np.float64
    # the same fit as on the same points in float64: the float32 input changes nothing but its rounding
    ref = FredholmRegressor(inner_approximation="nystrom", random_state=0).fit(X32.astype(np.float64), y)
    assert (reg.sigma_, reg.alpha_) == (ref.sigma_, ref.alpha_)
    np.testing.assert_allclose(reg.coef_, ref.coef_, rtol=1e-12, atol=0)
    assert abs(reg.coef_.sum()) <= 1e-8 * np.abs(reg.coef_).sum()        # the saddle system's 1^T c = 0
    pred = reg.predict(X32)
    assert pred.dtype == np.float32 and np.isfinite(pred).all()
    np.testing.assert_allclose(pred, ref.predict(X32.astype(np.float64)).astype(np.float32), rtol=1e-6, atol=1e-6)


def test_fredholm_hinge_folds_do_not_depend_on_the_row_order():
    # The hinge ridge is chosen by stratified 5-fold CV on the labeled points; the folds followed the
    # order of the rows, so with 4 labels per class (a held-out accuracy that is not flat, unlike the
    # 3-label test above, where the tie rule already helped) permuting the training rows moved the
    # ridge by 10x and 13 of 90 labels.
    from sklearn.datasets import make_blobs

    X, yt = make_blobs(90, centers=3, cluster_std=2.0, random_state=1)
    rng = np.random.default_rng(0)
    lab = np.zeros(90, bool)
    for c in range(3):
        lab[rng.choice(np.flatnonzero(yt == c), 4, replace=False)] = True
    y = np.where(lab, yt, -1)
    perm = np.random.default_rng(1).permutation(90)
    a = FredholmClassifier(loss="hinge").fit(X, y)
    b = FredholmClassifier(loss="hinge").fit(X[perm], y[perm])
    assert b.alpha_ == pytest.approx(a.alpha_, rel=1e-12)
    np.testing.assert_array_equal(b.predict(X[perm]), a.predict(X)[perm])


def test_warped_one_label_per_class_is_laprls_at_the_fallback_values():
    """RLS on the warped kernel is LapRLS, also at the graph-dominated fallback gamma_I / gamma_A = 1e12
    (one label per class): the warped Gram matrix of the labeled points is then asymmetric well above
    rounding (each column carries its right factor's solve error), and its symmetrized copy, fitted
    with coefficients of order 1 / ridge, shifted every prediction by ~0.06 against values of ~5e-4
    (every point one class)."""
    from graphrkhs import LapRLSClassifier, WarpedKernelClassifier
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(0, 1, (30, 2)), rng.normal(3, 1, (30, 2))]
    y = np.full(60, -1)
    y[[0, 30]] = [0, 1]
    kw = dict(sigma=2.8, gamma_A=1e-6, gamma_I=1e6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # LapRLS's residual check at this conditioning
        ref = LapRLSClassifier(**kw).fit(X, y).decision_function(X)
    warped = WarpedKernelClassifier(**kw).fit(X, y).decision_function(X)
    assert np.abs(warped - ref).max() < 0.05 * np.abs(ref).max()
    truth = np.r_[np.zeros(30), np.ones(30)]
    assert np.mean((warped > 0) == truth) > 0.9


@pytest.mark.parametrize("name", ["FredholmClassifier", "WarpedKernelClassifier"])
def test_sigma_as_a_0d_array_and_a_malformed_grid(name):
    """As the inductive learners: a 0-d array is a number (Fredholm raised 'sigma must be a real number'),
    and a 2-D grid is a ValueError naming sigma (both raised float()'s TypeError, naming nothing)."""
    import graphrkhs
    X = np.random.default_rng(0).normal(size=(30, 2))
    y = np.full(30, -1)
    y[:4] = [0, 0, 1, 1]
    cls = getattr(graphrkhs, name)
    assert cls(sigma=np.array(2.0)).fit(X, y).sigma_ == 2.0
    with pytest.raises(ValueError, match="sigma"):
        cls(sigma=[[1.0, 2.0]]).fit(X, y)
    if name == "FredholmClassifier":
        with pytest.raises(ValueError, match="alpha"):
            cls(alpha=[[0.1, 0.2]]).fit(X, y)


def test_fredholm_classifier_with_unbalanced_labels_predicts_both_classes():
    # 3 : 1 labels on two moons: the single label of class 1 is missed by every grid point's LOO, so
    # all candidates tie on LOO accuracy 3/4, the constant classifier included; the tie-break of
    # graph_cut_choice (normalized cut: +inf for a class predicted nowhere) must not pick it (the plain
    # fraction of cut edges did: 0 cut edges, 50 % accuracy)
    from sklearn.datasets import make_moons

    X, y = make_moons(200, noise=0.1, random_state=0)
    rng = np.random.default_rng(0)
    y_partial = np.full(len(y), -1)
    y_partial[rng.choice(np.flatnonzero(y == 0), 3, replace=False)] = 0
    y_partial[rng.choice(np.flatnonzero(y == 1), 1, replace=False)] = 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pred = FredholmClassifier().fit(X, y_partial).predict(X)
    assert set(pred) == {0, 1}
    assert (pred == y).mean() > 0.75


@pytest.mark.parametrize("name", ["FredholmRegressor", "WarpedKernelRegressor", "RLSRegressor", "LapRLSRegressor",
                                  "PRLSRegressor", "PLapRLSRegressor", "GRLSRegressor"])
def test_point_regressors_keep_float32_input_float32(name):
    # DESIGN: results keep the input dtype; Fredholm and the warped kernel returned float64 for float32
    # points while the other point regressors returned float32
    import graphrkhs
    rng = np.random.default_rng(0)
    X = rng.random((40, 2))
    y = np.sin(3 * X[:, 0])
    y[12:] = np.nan
    E = getattr(graphrkhs, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f32 = E().fit(X.astype(np.float32), y.astype(np.float32))
        f64 = E().fit(X, y)
        p32, p64 = f32.predict(X.astype(np.float32)), f64.predict(X)
        # the float32 fit's function at the same points given in float64 (its own selected parameters:
        # a float32 fit may select another ridge, above float32's rounding level)
        wide = f32.predict(X.astype(np.float32).astype(np.float64))
    assert p32.dtype == np.float32 and p64.dtype == np.float64 and wide.dtype == np.float64
    np.testing.assert_allclose(p32, wide, rtol=1e-4, atol=1e-4 * np.abs(wide).max())


@pytest.mark.parametrize("name", ["FredholmClassifier", "WarpedKernelClassifier", "RLSClassifier", "LapRLSClassifier",
                                  "PRLSClassifier", "PLapRLSClassifier", "GRLSClassifier"])
def test_point_classifiers_keep_float32_input_float32(name):
    # the point regressors returned float32 for float32 points, the classifiers' predict_proba and
    # decision_function float64 (the transductive classifiers keep float32 too); the argmax of every row
    # of predict_proba stays predict's class
    import graphrkhs
    rng = np.random.default_rng(0)
    X = rng.random((45, 2))
    y = np.where(X[:, 0] + X[:, 1] > 1, 1, 0) + (X[:, 0] > 0.8)
    y[15:] = -1
    E = getattr(graphrkhs, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f32 = E().fit(X.astype(np.float32), y)
        X32 = X.astype(np.float32)
        P, D, pred = f32.predict_proba(X32), f32.decision_function(X32), f32.predict(X32)
        P64 = f32.predict_proba(X32.astype(np.float64))
    assert P.dtype == np.float32 and D.dtype == np.float32 and P64.dtype == np.float64
    np.testing.assert_array_equal(f32.classes_[P.argmax(axis=1)], pred)
    np.testing.assert_allclose(P, P64, rtol=0, atol=1e-5)


@pytest.mark.parametrize("name", ["LapRLSRegressor", "WarpedKernelRegressor"])
def test_float32_points_fit_at_the_selected_weights(name):
    # on float32 points the exact step's Gram (and the warped kernel's) was computed in float32: PSD to
    # 1e-7 of its scale only, while the selection goes down to gamma_A = 1e-10 -- Cholesky failed
    # ("not positive semidefinite" / "not numerically positive definite") where float64 points fit
    import graphrkhs as gr

    X = np.random.default_rng(0).normal(size=(40, 2))
    y = X[:, 0] + X[:, 1]
    y[::2] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f32 = getattr(gr, name)().fit(X.astype(np.float32), y.astype(np.float32)).predict(X.astype(np.float32))
        f64 = getattr(gr, name)().fit(X, y).predict(X)
    assert f32.dtype == np.float32 and np.isfinite(f32).all()
    assert np.abs(f32 - f64).max() <= 0.05 * np.ptp(f64)


def test_fredholm_regressor_float32_points_select_as_float64_points():
    # X = N(0, 1) of shape (40, 2), half the labels: the selection on float32 kernels (and a ridge floor
    # at float32's rounding) chose sigma 0.67 instead of 1.34 and predictions 2.08 apart on targets of
    # range 5.3 (LapRLS: 1.6e-5).  The exact-inner-kernel fit now runs on float64 points.
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 2))
    t = np.sin(2 * X[:, 0]) + X[:, 1] ** 2
    y = t.copy()
    y[rng.permutation(40)[:20]] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r64 = FredholmRegressor().fit(X, y)
        r32 = FredholmRegressor().fit(X.astype(np.float32), y)
    assert r32.sigma_ == pytest.approx(r64.sigma_, rel=1e-6) and r32.alpha_ == pytest.approx(r64.alpha_, rel=1e-3)
    p32, p64 = r32.predict(X.astype(np.float32)), r64.predict(X)
    assert p32.dtype == np.float32
    # the remaining difference: X's float32 rounding (relative 6e-8) through a near-interpolating fit
    assert np.abs(p32 - p64).max() <= 1e-3 * np.ptp(t)


@pytest.mark.parametrize("seed", [1, 2, 6])
def test_fredholm_nystrom_inner_float32_points_select_as_float64_points(seed):
    # the Nystrom inner kernel kept float32 points: sigma 0.67 vs 1.34 (seed 1), ridges 7e-7 vs 4e-10,
    # predictions 0.21 - 0.41 of the targets' range apart (the exact inner kernel's fix, d901e5c)
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(40, 2))
    t = np.sin(2 * X[:, 0]) + X[:, 1] ** 2
    y = t.copy()
    y[rng.permutation(40)[:20]] = np.nan
    kw = dict(inner_approximation="nystrom", n_components=20, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r64 = FredholmRegressor(**kw).fit(X, y)
        r32 = FredholmRegressor(**kw).fit(X.astype(np.float32), y)
    assert r64.kernel_.inner_approximation_ == "nystrom"
    assert r32.sigma_ == pytest.approx(r64.sigma_, rel=1e-6) and r32.alpha_ == pytest.approx(r64.alpha_, rel=1e-3)
    p32, p64 = r32.predict(X.astype(np.float32)), r64.predict(X)
    assert p32.dtype == np.float32
    assert np.abs(p32 - p64).max() <= 1e-4 * np.ptp(t)
