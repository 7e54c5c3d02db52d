r"""scikit-learn estimators on data-dependent kernels (thin layers over
:mod:`graphrkhs._solvers_datadep` and :mod:`graphrkhs._datadependent`).

* :class:`FredholmClassifier`, :class:`FredholmRegressor` -- Fredholm learning
  (Que, Belkin & Wang, NIPS 2014), square loss (RLS) or hinge loss (SVM);
* :class:`WarpedKernelClassifier`, :class:`WarpedKernelRegressor` -- RLS or SVM
  with the warped kernel of Sindhwani, Niyogi & Belkin (ICML 2005); RLS on it
  is LapRLS.

``fit(X, y)`` takes every point, labeled or not (``-1`` / NaN for classification,
NaN for regression, as in :mod:`sklearn.semi_supervised`); the kernel is built on
all of them and the learner is fitted on the labeled ones; ``predict`` works on
any points.  Multi-class RLS is one-vs-rest on :math:`\pm 1` targets; the hinge
loss is :class:`sklearn.svm.SVC` on the precomputed kernel with
:math:`C = 1 / (2 \alpha l)`, i.e. the objective
:math:`\frac1l \sum_s \max(0, 1 - y_s f(x_s)) + \alpha \|f\|^2`.
"""

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.exceptions import DataConversionWarning
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted

from ..kernels._datadependent import INNER_APPROXIMATIONS, FredholmKernel, WarpedKernel
from .._core.labels import one_hot, split_classification_labels, split_regression_targets
from ..solvers._datadependent import rls_coefficients, rls_loo_error
from .._core.validation import check_estimator_points, check_option, check_scalar

__all__ = ["FredholmClassifier", "FredholmRegressor", "WarpedKernelClassifier", "WarpedKernelRegressor"]


# Relative ridge grid of the alpha=None rule: alpha l = rel * mean(diag K_SS).
RELATIVE_RIDGES = np.logspace(-8, 0, 17)


def _select_ridge(G, Y):
    r"""Leave-one-out choice of the ridge on the labeled points only.

    The grid is relative to the kernel's scale (Fredholm kernels carry a
    :math:`1/n^2` and vary over orders of magnitude with the widths):
    :math:`\alpha l \in \{10^{-8}, 10^{-7.5}, \dots, 1\} \times \mathrm{mean}(\mathrm{diag}\, K_{SS})`,
    scored by the closed-form LOO squared error (:func:`graphrkhs.rls_loo_error`).
    """
    l = G.shape[0]
    scale = float(np.trace(G)) / l
    if not scale > 0:
        scale = 1.0
    alphas = RELATIVE_RIDGES * scale / l
    if l < 3:
        return float(alphas[10])  # 1e-3 relative: LOO on one or two points is meaningless
    return float(alphas[np.argmin(rls_loo_error(G, Y, alphas))])


def _check_X(X, min_samples=1):
    return check_estimator_points(
        X, min_samples=min_samples,
        reason=": a data-dependent kernel is built on at least two points" if min_samples > 1 else "")


def _ravel_column(y):
    arr = np.asarray(y)
    return arr.ravel() if arr.ndim == 2 and arr.shape[1] == 1 else y


class _DataDependentMixin:
    """Shared fit/predict plumbing; subclasses define ``_make_kernel`` and ``_ridge``."""

    _loss_options = ("squared", "hinge")

    def _validate_common(self, X, y):
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None "
                             "(give -1 / NaN for the unlabeled rows).")
        X = _check_X(X, min_samples=2)
        if getattr(y, "ndim", None) == 2 and y.shape[1] == 1:
            warnings.warn("A column-vector y was passed when a 1d array was expected; it is raveled.",
                          DataConversionWarning, stacklevel=3)
        loss = getattr(self, "loss", "squared")
        check_option(loss, "loss", self._loss_options)
        return X, loss

    def _prepare(self, X, labeled):
        self.kernel_ = self._make_kernel(X)
        idx = np.flatnonzero(labeled)
        self.labeled_points_ = self.kernel_.X[idx]
        self.labeled_index_ = idx
        self.right_ = self.kernel_.right_factor(self.labeled_points_)
        self.n_features_in_ = X.shape[1]
        return self.kernel_(self.labeled_points_, self.labeled_points_, right=self.right_)

    def _gram(self, X):
        check_is_fitted(self, "kernel_")
        X = _check_X(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, but {type(self).__name__} is expecting "
                             f"{self.n_features_in_} features as input.")
        return self.kernel_(X, self.labeled_points_, right=self.right_)


class _ClassifierBase(_DataDependentMixin, ClassifierMixin, BaseEstimator):
    def fit(self, X, y):
        """Fit on all rows of X; ``y`` has -1 (or NaN) for unlabeled rows. Returns self."""
        X, loss = self._validate_common(X, y)
        y = _ravel_column(y)
        labeled, classes, codes = split_classification_labels(y, X.shape[0])
        if classes.dtype.kind == "f" and type_of_target(classes) == "continuous":
            raise ValueError("Unknown label type: continuous. y holds real values that are not class labels; "
                             "use a regressor (FredholmRegressor / WarpedKernelRegressor) for real targets.")
        ridge = self._ridge()
        self._check_params()
        if loss == "hinge" and classes.size < 2:
            raise ValueError(f"loss='hinge' needs labeled samples of at least two classes; got only {classes!r}.")
        self.classes_ = classes
        G = self._prepare(X, labeled)
        l = G.shape[0]
        Y = 2.0 * one_hot(codes[labeled], classes.size) - 1.0
        ridge = self.alpha_ = _select_ridge(G, Y) if ridge is None else ridge
        if loss == "squared":
            self.coef_ = rls_coefficients(G, Y, ridge)
            self.svc_ = None
        else:
            from sklearn.svm import SVC

            self.svc_ = SVC(kernel="precomputed", C=1.0 / (2.0 * ridge * l))
            self.svc_.fit(np.asarray(G, dtype=np.float64), codes[labeled])
            self.coef_ = None
        return self

    def decision_function(self, X):
        """Scores: (n,) for two classes (positive means ``classes_[1]``), (n, n_classes) otherwise."""
        G = self._gram(X)
        if self.svc_ is not None:
            return self.svc_.decision_function(np.asarray(G, dtype=np.float64))
        S = G @ self.coef_
        return S[:, 1] if S.shape[1] == 2 else S

    def predict(self, X):
        """Class of each row of X (any points, not only the fitted ones)."""
        G = self._gram(X)
        if self.svc_ is not None:
            return self.classes_[self.svc_.predict(np.asarray(G, dtype=np.float64))]
        return self.classes_[np.argmax(G @ self.coef_, axis=1)]


class _RegressorBase(_DataDependentMixin, RegressorMixin, BaseEstimator):
    _loss_options = ("squared",)

    def fit(self, X, y):
        """Fit on all rows of X; ``y`` has NaN for unlabeled rows. Returns self."""
        X, _ = self._validate_common(X, y)
        y = _ravel_column(y)
        labeled, Y = split_regression_targets(y, X.shape[0])
        ridge = self._ridge()
        self._check_params()
        G = self._prepare(X, labeled)
        ridge = self.alpha_ = _select_ridge(G, Y[labeled]) if ridge is None else ridge
        self.coef_ = rls_coefficients(G, Y[labeled], ridge)
        return self

    def predict(self, X):
        """Predicted targets at any points."""
        return self._gram(X) @ self.coef_


# ---------------------------------------------------------------------------

class _FredholmParams:
    def _ridge(self):
        return check_scalar(self.alpha, "alpha", low=0, low_inclusive=False, allow_none=True)

    def _check_params(self):
        check_option(self.inner_approximation, "inner_approximation", INNER_APPROXIMATIONS)

    def _make_kernel(self, X):
        return FredholmKernel(X, outer=self.outer, inner=self.inner, sigma=self.sigma, sigma_inner=self.sigma_inner,
                              normalized=self.normalized, n_neighbors=self.n_neighbors,
                              inner_approximation=self.inner_approximation, n_components=self.n_components,
                              random_state=self.random_state, verbose=self.verbose)


_FREDHOLM_PARAMS_DOC = r"""
    Parameters
    ----------
    outer, inner : {"gaussian", "heat", "linear", "polynomial"} or callable, default="gaussian"
        Outer kernel k and inner kernel :math:`k_H` (FredGauss by default, the paper's
        strongest instance on its benchmarks; FredLin1 = linear/gaussian, FredLin2 =
        gaussian/linear).
    sigma, sigma_inner : float > 0, optional
        Gaussian widths; None: the median pairwise distance (:func:`default_sigma`)
        and ``sigma``.
    normalized : bool, default=False
        The paper's "(N)" kernels (outer rows divided by their sums).
    alpha : float > 0 or None, default=None
        Ridge weight :math:`\alpha` of :math:`\frac1l\sum_s \mathrm{loss} + \alpha \|f\|_H^2`
        (the paper's :math:`\lambda`).  None chooses it by closed-form leave-one-out
        RLS error on the labeled points, over a grid relative to the kernel's scale
        (Fredholm kernels carry a :math:`1/n^2` and change scale by orders of magnitude
        with the widths, so no fixed number is a sensible default); the hinge loss
        uses the same choice.  The value used is ``alpha_``.
    n_neighbors : int, optional
        kNN truncation of the outer kernel (sparse; needed for large n).
    inner_approximation : {"auto", "exact", "nystrom", "random_features"}, default="auto"
    n_components : int, default=1000
        Size of the inner-kernel approximation.
    random_state : int, Generator or None
    verbose : bool, default=False
        Progress of the long steps on stderr.
"""


class FredholmClassifier(_FredholmParams, _ClassifierBase):
    __doc__ = r"""Fredholm kernel classifier (Que, Belkin & Wang, NIPS 2014), RLS or SVM.

    Fits :math:`c(x) = \sum_s k_F(x, x_s) c_s` on the labeled points with the Fredholm
    kernel :math:`k_F` of :class:`graphrkhs.FredholmKernel` built on all points of
    ``fit``; the unlabeled points shape :math:`k_F` (the "noise assumption").
    """ + _FREDHOLM_PARAMS_DOC + r"""    loss : {"squared", "hinge"}, default="squared"
        RLS (their Eq. 3) or SVM (their Eq. 7, scikit-learn's SVC on the precomputed kernel).

    Attributes
    ----------
    classes_, kernel_ (the FredholmKernel), alpha_, coef_ (RLS) or svc_ (hinge), labeled_points_

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import FredholmClassifier
    >>> from graphrkhs.datasets import make_noisy_subspace
    >>> X, y = make_noisy_subspace(300, n_features=10, random_state=0)
    >>> y_partial = np.full_like(y, -1); y_partial[:40] = y[:40]
    >>> clf = FredholmClassifier(sigma=2.0, normalized=True).fit(X, y_partial)
    >>> bool(clf.score(X[40:], y[40:]) > 0.75)
    True
    """

    def __init__(self, *, outer="gaussian", inner="gaussian", sigma=None, sigma_inner=None, normalized=False,
                 loss="squared", alpha=None, n_neighbors=None, inner_approximation="auto", n_components=1000,
                 random_state=None, verbose=False):
        self.outer = outer
        self.inner = inner
        self.sigma = sigma
        self.sigma_inner = sigma_inner
        self.normalized = normalized
        self.loss = loss
        self.alpha = alpha
        self.n_neighbors = n_neighbors
        self.inner_approximation = inner_approximation
        self.n_components = n_components
        self.random_state = random_state
        self.verbose = verbose


class FredholmRegressor(_FredholmParams, _RegressorBase):
    __doc__ = r"""Fredholm kernel regression (Que, Belkin & Wang, NIPS 2014, Eq. 3, square loss).
    """ + _FREDHOLM_PARAMS_DOC + r"""
    Attributes
    ----------
    kernel_, alpha_, coef_, labeled_points_

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import FredholmRegressor
    >>> X = np.random.default_rng(0).normal(size=(200, 3))
    >>> y = np.full(200, np.nan); y[:30] = X[:30, 0]
    >>> reg = FredholmRegressor(outer="linear", inner="gaussian", sigma_inner=3.0, alpha=1e-6).fit(X, y)
    >>> bool(np.corrcoef(reg.predict(X[30:]), X[30:, 0])[0, 1] > 0.9)
    True
    """

    def __init__(self, *, outer="gaussian", inner="gaussian", sigma=None, sigma_inner=None, normalized=False,
                 alpha=None, n_neighbors=None, inner_approximation="auto", n_components=1000, random_state=None,
                 verbose=False):
        self.outer = outer
        self.inner = inner
        self.sigma = sigma
        self.sigma_inner = sigma_inner
        self.normalized = normalized
        self.alpha = alpha
        self.n_neighbors = n_neighbors
        self.inner_approximation = inner_approximation
        self.n_components = n_components
        self.random_state = random_state
        self.verbose = verbose


# ---------------------------------------------------------------------------

class _WarpedParams:
    def _ridge(self):
        return check_scalar(self.gamma_A, "gamma_A", low=0, low_inclusive=False)

    def _check_params(self):
        check_scalar(self.gamma_I, "gamma_I", low=0)

    def _make_kernel(self, X):
        return WarpedKernel(X, kernel=self.kernel, sigma=self.sigma, gamma_A=self.gamma_A, gamma_I=self.gamma_I,
                            graph=self.graph, n_neighbors=self.n_neighbors, radius=self.radius, weight=self.weight,
                            graph_sigma=self.graph_sigma, laplacian=self.laplacian,
                            laplacian_power=self.laplacian_power, solver=self.solver,
                            random_state=self.random_state, verbose=self.verbose)


_WARPED_PARAMS_DOC = r"""
    Parameters
    ----------
    kernel : {"gaussian", "heat", "linear", "polynomial"} or callable, default="gaussian"
        Base kernel k.
    sigma : float > 0, optional
        Base Gaussian width; None: the median pairwise distance.
    gamma_A : float > 0, default=1e-2
        Ambient weight; also the ridge of RLS on the warped kernel, so that the fit is
        LapRLS with these ``gamma_A``, ``gamma_I`` (Belkin et al.'s scaling
        :math:`\gamma_I / n^2`).
    gamma_I : float >= 0, default=1.0
        Intrinsic (graph) weight; ``gamma_I / gamma_A = 100`` deforms strongly.
    graph : {"knn", "epsilon"}, default="knn"
    n_neighbors : int, default=10
    radius : float, optional (epsilon graph)
    weight : {"gaussian", "binary", "self-tuning"}, default="gaussian"
    graph_sigma : float, optional
        Edge-weight width; None: the graph builders' default.
    laplacian : {"combinatorial", "normalized", "randomwalk"}, default="combinatorial"
    laplacian_power : int >= 1, default=1
    solver : {"auto", "direct", "cg"}, default="auto"
        See :class:`graphrkhs.WarpedKernel`.
    random_state : int, Generator or None
    verbose : bool, default=False
        Progress of the long steps on stderr.
"""


class WarpedKernelClassifier(_WarpedParams, _ClassifierBase):
    __doc__ = r"""RLS or SVM with the warped (point-cloud-norm) kernel (Sindhwani, Niyogi & Belkin 2005).

    A supervised kernel machine on the labeled points, semi-supervised through the
    kernel :math:`\tilde k` of :class:`graphrkhs.WarpedKernel`; with the square loss it is
    LapRLS, with the hinge loss it is LapSVM.
    """ + _WARPED_PARAMS_DOC + r"""    loss : {"squared", "hinge"}, default="squared"

    Attributes
    ----------
    classes_, kernel_ (the WarpedKernel), coef_ (RLS) or svc_ (hinge), labeled_points_

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import WarpedKernelClassifier
    >>> t = np.linspace(0, 2 * np.pi, 100, endpoint=False)
    >>> X = np.vstack([np.c_[np.cos(t), np.sin(t)], 3 * np.c_[np.cos(t), np.sin(t)]])
    >>> y = np.full(200, -1); y[0], y[100] = 0, 1
    >>> clf = WarpedKernelClassifier(sigma=1.0, gamma_A=1e-5, gamma_I=10.0, n_neighbors=4).fit(X, y)
    >>> float(clf.score(X, np.repeat([0, 1], 100)))
    1.0
    """

    def __init__(self, *, kernel="gaussian", sigma=None, gamma_A=1e-2, gamma_I=1.0, graph="knn", n_neighbors=10,
                 radius=None, weight="gaussian", graph_sigma=None, laplacian="combinatorial", laplacian_power=1,
                 loss="squared", solver="auto", random_state=None, verbose=False):
        self.kernel = kernel
        self.sigma = sigma
        self.gamma_A = gamma_A
        self.gamma_I = gamma_I
        self.graph = graph
        self.n_neighbors = n_neighbors
        self.radius = radius
        self.weight = weight
        self.graph_sigma = graph_sigma
        self.laplacian = laplacian
        self.laplacian_power = laplacian_power
        self.loss = loss
        self.solver = solver
        self.random_state = random_state
        self.verbose = verbose


class WarpedKernelRegressor(_WarpedParams, _RegressorBase):
    __doc__ = r"""RLS regression with the warped kernel (= LapRLS regression).
    """ + _WARPED_PARAMS_DOC + r"""
    Attributes
    ----------
    kernel_, coef_, labeled_points_

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import WarpedKernelRegressor
    >>> X = np.linspace(0, 1, 50)[:, None]
    >>> y = np.full(50, np.nan); y[::10] = np.sin(3 * X[::10, 0])
    >>> reg = WarpedKernelRegressor(sigma=0.3, gamma_A=1e-4, gamma_I=1e-2, n_neighbors=4).fit(X, y)
    >>> bool(np.abs(reg.predict(X) - np.sin(3 * X[:, 0])).max() < 0.2)
    True
    """

    def __init__(self, *, kernel="gaussian", sigma=None, gamma_A=1e-2, gamma_I=1.0, graph="knn", n_neighbors=10,
                 radius=None, weight="gaussian", graph_sigma=None, laplacian="combinatorial", laplacian_power=1,
                 solver="auto", random_state=None, verbose=False):
        self.kernel = kernel
        self.sigma = sigma
        self.gamma_A = gamma_A
        self.gamma_I = gamma_I
        self.graph = graph
        self.n_neighbors = n_neighbors
        self.radius = radius
        self.weight = weight
        self.graph_sigma = graph_sigma
        self.laplacian = laplacian
        self.laplacian_power = laplacian_power
        self.solver = solver
        self.random_state = random_state
        self.verbose = verbose
