r"""Inductive semi-supervised kernel learners on point clouds (scikit-learn estimators).

Each learner fits :math:`f = \sum_i \alpha_i k(x_i, \cdot) + \sum_j \beta_j \psi_j`
by minimizing :math:`\frac1l \sum_{i \in S} (y_i - f(x_i))^2` plus

* ``RLS*``: :math:`\alpha \|f\|_K^2` (:func:`~graphrkhs.rls_fit`);
* ``LapRLS*``: :math:`\gamma_A \|f\|_K^2 + \frac{\gamma_I}{n^2} \mathbf f^T L^p \mathbf f`
  (:func:`~graphrkhs.laprls_fit`);
* ``PRLS*``: :math:`\gamma \|f - L_K f\|_K^2`, constants free (:func:`~graphrkhs.prls_fit`);
* ``PLapRLS*``: :math:`\gamma_A \|f - L_K f\|_K^2 + \frac{\gamma_I}{n^2} \mathbf f^T L^p \mathbf f`
  (:func:`~graphrkhs.plaprls_fit`);
* ``GRLS*``: :math:`\gamma \|f - Pf\|_K^2`, P the projection onto predefined
  features (:func:`~graphrkhs.grls_fit`).

``fit(X, y)`` takes all rows; ``y = -1`` (classification) or ``NaN``
(regression) marks unlabeled rows.  RLS, PRLS (heat) and G-RLS are
supervised and use the labeled rows only (PRLS with the empirical
:math:`L_K` and the Laplacian learners also use the unlabeled rows).
Classifiers are one-vs-rest on :math:`\pm 1` targets (Belkin et al.'s
RLSC convention), with any hashable labels.  ``predict`` and
``decision_function`` work on any new points.

Defaults (the same for every learner, so that comparisons are fair):
``kernel="gaussian"`` with ``sigma=None`` = :func:`~graphrkhs.default_sigma`
of all the rows (the median pairwise distance; no labels are used);
the graph is the 10-nearest-neighbour graph with Gaussian weights and the
combinatorial Laplacian (Belkin et al. 2006's choice, p = 1).
"""

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin

from ..kernels._datadependent import default_sigma
from .._core.labels import split_classification_labels, split_regression_targets
from ..kernels._pointcloud import BLOCK_BYTES, GRLSKernel, feature_map, pairwise_kernel
from ..solvers._kernel import (
    INTEGRAL_OPERATORS,
    SOLVERS,
    KernelOperator,
    consistency_grams,
    graph_penalty,
    grls_fit,
    grls_fit_constructed,
    laprls_fit,
    plaprls_fit,
    prls_fit,
    rls_fit,
)
from .._core.validation import check_estimator_points, check_option, check_scalar

__all__ = [
    "RLSClassifier",
    "RLSRegressor",
    "LapRLSClassifier",
    "LapRLSRegressor",
    "PRLSClassifier",
    "PRLSRegressor",
    "PLapRLSClassifier",
    "PLapRLSRegressor",
    "GRLSClassifier",
    "GRLSRegressor",
]

_KERNEL_NAMES = ("gaussian", "heat", "linear", "polynomial")
_GRAPHS = ("knn", "epsilon")
_GRLS_METHODS = ("saddle", "constructed", "as_printed")


# ---------------------------------------------------------------------------
# Shared machinery
# ---------------------------------------------------------------------------

def _check_X(X):
    return check_estimator_points(X)


class _Base(BaseEstimator):
    _uses_unlabeled = False

    # ---- validation -----------------------------------------------------
    def _check_kernel_params(self):
        if not callable(self.kernel):
            check_option(self.kernel, "kernel", _KERNEL_NAMES)
        check_scalar(self.sigma, "sigma", low=0, low_inclusive=False, allow_none=True)
        check_scalar(self.degree, "degree", kind="int", low=1)
        check_scalar(self.coef0, "coef0")

    def _kernel_kw(self):
        kernel = "gaussian" if self.kernel == "heat" else self.kernel
        return dict(kernel=kernel, sigma=self.sigma_, degree=self.degree, coef0=self.coef0)

    def _k(self, A, B):
        return pairwise_kernel(A, B, **self._kernel_kw())

    def _prepare(self, X, y):
        self._check_params()
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None "
                             "(give -1 / NaN for the unlabeled rows).")
        X = _check_X(X)
        n = X.shape[0]
        if n < 2:
            raise ValueError(f"X has n_samples=1 (1 sample); {type(self).__name__} needs at least 2 rows.")
        if self._is_classifier:
            y = np.asarray(y)
            if y.ndim == 2 and y.shape[1] == 1:
                import warnings

                from sklearn.exceptions import DataConversionWarning

                warnings.warn("A column-vector y was passed when a 1d array was expected; it is raveled.",
                              DataConversionWarning, stacklevel=3)
            labeled, classes, codes = split_classification_labels(y, n)
            from sklearn.utils.multiclass import type_of_target

            kind = type_of_target(np.asarray(y, dtype=object)[labeled] if np.asarray(y).dtype == object
                                  else np.asarray(y)[labeled])
            if kind in ("continuous", "continuous-multioutput", "multilabel-indicator", "multiclass-multioutput"):
                raise ValueError(f"Unknown label type: {kind!r}. y must hold class labels (use the Regressor "
                                 "twin for real-valued targets).")
            self.classes_ = classes
            k = classes.size
            if k <= 2:
                Y = np.where(codes[labeled] == (k - 1), 1.0, -1.0)[:, None] if k == 2 else np.ones((labeled.sum(), 1))
            else:
                Y = -np.ones((labeled.sum(), k))
                Y[np.arange(Y.shape[0]), codes[labeled]] = 1.0
        else:
            labeled, yv = split_regression_targets(y, n)
            self._y_1d = yv.ndim == 1
            Y = yv[labeled].reshape(int(labeled.sum()), -1)
        self.n_features_in_ = X.shape[1]
        self.sigma_ = default_sigma(X) if self.sigma is None else float(self.sigma)
        return X, labeled, Y.astype(X.dtype)

    def _check_X_new(self, X):
        if not hasattr(self, "n_features_in_"):
            from sklearn.exceptions import NotFittedError

            raise NotFittedError(f"This {type(self).__name__} instance is not fitted yet; call fit(X, y) first.")
        X = _check_X(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} features, but {type(self).__name__} is expecting {self.n_features_in_} "
                "features as input."
            )
        return X

    # ---- output ---------------------------------------------------------
    def _raw(self, X):
        raise NotImplementedError

    def _raw_blocked(self, X, n_train):
        """Evaluate ``_raw_block`` on row blocks so (len(X), n_train) temporaries stay bounded."""
        rows = max(1, int(BLOCK_BYTES // (max(1, n_train) * 8)))
        return np.vstack([self._raw_block(X[s:s + rows]) for s in range(0, X.shape[0], rows)]) \
            if X.shape[0] else self._raw_block(X)


class _ClassifierOut(ClassifierMixin):
    _is_classifier = True

    def decision_function(self, X):
        """One-vs-rest scores, shape (n,) for two classes (score of ``classes_[1]``), else (n, n_classes)."""
        F = self._raw(self._check_X_new(X))
        return F[:, 0] if F.shape[1] == 1 else F

    def predict(self, X):
        """Predicted class labels (the class with the largest one-vs-rest score)."""
        F = self._raw(self._check_X_new(X))
        if self.classes_.size == 1:
            return np.repeat(self.classes_, F.shape[0])
        if F.shape[1] == 1:
            return self.classes_[(F[:, 0] > 0).astype(int)]
        return self.classes_[np.argmax(F, axis=1)]


class _RegressorOut(RegressorMixin):
    _is_classifier = False

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True       # y of shape (n, k) is fitted column by column
        return tags

    def predict(self, X):
        """Predicted targets, shape (n,) or (n, k) like the fitted y."""
        F = self._raw(self._check_X_new(X))
        return F[:, 0] if self._y_1d else F


def _graph_params_check(est):
    g = est.graph
    if isinstance(g, str):
        check_option(g, "graph", _GRAPHS)
        if g == "epsilon":
            check_scalar(est.radius, "radius", low=0, low_inclusive=False)
    check_scalar(est.n_neighbors, "n_neighbors", kind="int", low=1)
    check_option(est.weight, "weight", ("gaussian", "binary", "self-tuning"))
    check_scalar(est.graph_sigma, "graph_sigma", low=0, low_inclusive=False, allow_none=True)
    from ..graphs import LAPLACIANS

    check_option(est.laplacian, "laplacian", LAPLACIANS)
    check_scalar(est.laplacian_power, "laplacian_power", kind="int", low=1)
    check_option(est.solver, "solver", SOLVERS)
    check_scalar(est.tol, "tol", low=0, low_inclusive=False)
    check_scalar(est.max_iter, "max_iter", kind="int", low=1, allow_none=True)


def _build_penalty(est, X):
    from ..graphs import as_adjacency, epsilon_graph, knn_graph

    g = est.graph
    n = X.shape[0]
    if isinstance(g, str):
        if g == "knn":
            if est.n_neighbors >= n:
                raise ValueError(f"n_neighbors must be < the number of rows ({n}); got {est.n_neighbors}.")
            W = knn_graph(X, est.n_neighbors, weight=est.weight, sigma=est.graph_sigma,
                          random_state=est.random_state, verbose=est.verbose)
        else:
            W = epsilon_graph(X, est.radius, weight=est.weight, sigma=est.graph_sigma, verbose=est.verbose)
    else:
        W = as_adjacency(g)
        if W.shape != (n, n):
            raise ValueError(f"graph: a precomputed graph must be ({n}, {n}) over the training rows; got {W.shape}.")
    return graph_penalty(W, est.laplacian, est.laplacian_power)


def _null_space(est, X):
    ns = est.null_space
    if ns is None or (isinstance(ns, str) and ns == "none"):
        return np.zeros((X.shape[0], 0), dtype=X.dtype)
    if isinstance(ns, str):
        check_option(ns, "null_space", ("constant", "none"))
        return np.ones((X.shape[0], 1), dtype=X.dtype)
    if callable(ns):
        Psi = np.asarray(ns(X))
        Psi = Psi[:, None] if Psi.ndim == 1 else Psi
        if Psi.ndim != 2 or Psi.shape[0] != X.shape[0] or not np.isfinite(Psi).all():
            raise ValueError(f"null_space callable must return a finite ({X.shape[0]}, o) array; got shape {Psi.shape}.")
        return Psi.astype(X.dtype)
    raise TypeError(f"null_space must be 'constant', 'none', None or a callable X -> (n, o); got {ns!r}.")


def _check_prls_params(est):
    check_option(est.integral_operator, "integral_operator", INTEGRAL_OPERATORS)
    check_scalar(est.m, "m", kind="int", low=1, allow_none=True)
    if est.integral_operator == "heat" and (callable(est.kernel) or est.kernel not in ("gaussian", "heat")):
        raise ValueError(
            f"integral_operator='heat' needs kernel='gaussian' (the heat kernel of Eq. 16); got kernel={est.kernel!r}."
        )
    if not (est.null_space is None or callable(est.null_space)):
        check_option(est.null_space, "null_space", ("constant", "none"))


# ---------------------------------------------------------------------------
# RLS
# ---------------------------------------------------------------------------

class _RLS(_Base):
    def __init__(self, *, kernel="gaussian", sigma=None, degree=3, coef0=1.0, alpha=1e-3):
        self.kernel = kernel
        self.sigma = sigma
        self.degree = degree
        self.coef0 = coef0
        self.alpha = alpha

    def _check_params(self):
        self._check_kernel_params()
        check_scalar(self.alpha, "alpha", low=0)

    def fit(self, X, y):
        """Fit on the labeled rows of X (unlabeled rows are ignored: RLS is supervised)."""
        X, labeled, Y = self._prepare(X, y)
        self.X_fit_ = X[labeled]
        self.coef_ = rls_fit(self._k(self.X_fit_, None), Y, self.alpha, overwrite_K=True)
        return self

    def _raw_block(self, X):
        return self._k(X, self.X_fit_) @ self.coef_

    def _raw(self, X):
        return self._raw_blocked(X, self.X_fit_.shape[0])


_RLS_DOC = r"""Regularized least squares {what} (supervised baseline; Belkin, Niyogi & Sindhwani 2006, Eq. 9).

    .. math:: \min_{{f\in H_K}} \frac1l \sum_{{i \in S}} (y_i - f(x_i))^2 + \alpha \|f\|_K^2,
       \qquad (K_{{SS}} + \alpha l I) c = y_S

    equal to scikit-learn's ``KernelRidge(alpha=alpha * l)`` with the same kernel.

    Parameters
    ----------
    kernel : {{"gaussian", "heat", "linear", "polynomial"}} or callable, default="gaussian"
        ("heat" is the same Gaussian here: t = sigma^2 / 2.)
    sigma : float > 0, optional
        Gaussian width; None: median pairwise distance of the fitted rows.
    degree, coef0 : polynomial kernel :math:`(x^T z + c_0)^p` (degree 3 as in Belkin et al.'s USPS runs).
    alpha : float >= 0, default=1e-3
        Ridge weight with the :math:`1/l` loss scaling (1e-3 is a mild ridge
        for kernels with values in [0, 1]).

    Attributes
    ----------
    {attr}X_fit_ : ndarray of shape (l, d)
        The labeled training points.
    coef_ : ndarray of shape (l, k)
        Kernel coefficients (k = 1 for two classes or one target).
    sigma_ : float
        The kernel width used.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import {name}
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> est = {name}(sigma=1.0).fit(X, {y})
    >>> {check}
    {out}
    """


class RLSClassifier(_ClassifierOut, _RLS):
    __doc__ = _RLS_DOC.format(what="classifier", attr="classes_ : ndarray\n        The class labels.\n    ", name="RLSClassifier",
                              y='["a", -1, -1, "b"]', check="est.predict([[0.2], [2.9]]).tolist()",
                              out="['a', 'b']")


class RLSRegressor(_RegressorOut, _RLS):
    __doc__ = _RLS_DOC.format(what="regressor", attr="", name="RLSRegressor",
                              y="[0.0, np.nan, np.nan, 3.0]", check="bool(est.predict([[3.0]])[0] > 2.5)",
                              out="True")


# ---------------------------------------------------------------------------
# LapRLS
# ---------------------------------------------------------------------------

class _LapRLS(_Base):
    _uses_unlabeled = True

    def __init__(self, *, kernel="gaussian", sigma=None, degree=3, coef0=1.0, gamma_A=1e-6, gamma_I=1e2,
                 graph="knn", n_neighbors=10, radius=None, weight="gaussian", graph_sigma=None,
                 laplacian="combinatorial", laplacian_power=1, solver="auto", tol=1e-6, max_iter=None,
                 verbose=False, random_state=None):
        self.kernel = kernel
        self.sigma = sigma
        self.degree = degree
        self.coef0 = coef0
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
        self.tol = tol
        self.max_iter = max_iter
        self.verbose = verbose
        self.random_state = random_state

    def _check_params(self):
        self._check_kernel_params()
        check_scalar(self.gamma_A, "gamma_A", low=0, low_inclusive=False)
        check_scalar(self.gamma_I, "gamma_I", low=0)
        _graph_params_check(self)

    def fit(self, X, y):
        """Fit on all rows of X (labeled and unlabeled)."""
        X, labeled, Y = self._prepare(X, y)
        M = _build_penalty(self, X)
        K = KernelOperator(X, **self._kernel_kw())
        self.coef_, self.solver_info_ = laprls_fit(K, labeled, Y, M, self.gamma_A, self.gamma_I,
                                                   solver=self.solver, tol=self.tol, max_iter=self.max_iter, return_info=True)
        self.n_iter_ = max(1, int(self.solver_info_.get("n_iter", 1)))   # 1 for a direct factorization
        self.X_fit_ = X
        return self

    def _raw_block(self, X):
        return self._k(X, self.X_fit_) @ self.coef_

    def _raw(self, X):
        return self._raw_blocked(X, self.X_fit_.shape[0])


_GRAPH_PARAMS_DOC = r"""graph : {{"knn", "epsilon"}} or adjacency, default="knn"
        Graph on the training rows; an adjacency (sparse/dense array, pygsp or
        networkx graph) of shape (n, n) over the rows of X is used as is.
    n_neighbors : int, default=10
        k of the kNN graph (the usual 10, as in :func:`~graphrkhs.knn_graph`).
    radius : float, optional
        Radius of the epsilon graph (required with ``graph="epsilon"``).
    weight : {{"gaussian", "binary", "self-tuning"}}, default="gaussian"
    graph_sigma : float, optional
        Edge-weight width (None: the graph builders' data-driven default).
    laplacian : {{"combinatorial", "normalized", "randomwalk"}}, default="combinatorial"
    laplacian_power : int, default=1
        p in :math:`f^T L^p f` (Belkin et al.: p = 1 unless stated).
    solver : {{"auto", "direct", "cg"}}, default="auto"
        Dense LU up to {direct_max} points, conjugate gradients above
        (see :mod:`graphrkhs.solvers`; kernel products in bounded row blocks when
        the n x n Gram matrix does not fit in 4 GiB).
    tol : float, default=1e-6
        CG tolerance.
    max_iter : int, optional
        CG iteration cap (default n).
    verbose : bool, default=False
        Progress of the graph construction on stderr.
    random_state : int, Generator or None
        Only for approximate kNN backends."""

_LAPRLS_DOC = r"""Laplacian RLS {what} (Belkin, Niyogi & Sindhwani, JMLR 2006).

    .. math:: \min_{{f\in H_K}} \frac1l \sum_{{i\in S}} (y_i - f(x_i))^2 + \gamma_A \|f\|_K^2
       + \frac{{\gamma_I}}{{n^2}} \mathbf f^T L^p \mathbf f,
       \qquad (J K + \gamma_A l I + \tfrac{{\gamma_I l}}{{n^2}} L^p K)\,\alpha = J y.

    Parameters
    ----------
    kernel, sigma, degree, coef0 : as in :class:`RLS{kind}`.
    gamma_A : float > 0, default=1e-6
        Ambient (RKHS) weight.  Small, so that the graph term does the work
        (Belkin et al. use :math:`\gamma_A l` of order 1e-6 .. 1e-2).
    gamma_I : float >= 0, default=100
        Intrinsic weight, scaled :math:`\gamma_I / n^2` as in the paper, which
        makes useful values large: with n = 1797 and k = 10 neighbours the
        default gives :math:`\gamma_I l / n^2 \approx 3 \cdot 10^{{-3}}` per labeled point.
        0 gives RLS on the labeled points.
    {graph}

    Attributes
    ----------
    {attr}X_fit_ : ndarray of shape (n, d)
        All training points.
    coef_ : ndarray of shape (n, k)
        Kernel coefficients.
    solver_info_ : dict
        Solver used ("direct" or "cg") and, for CG, iterations, convergence flags, residuals.
    n_iter_ : int
        CG iterations (1 for a direct factorization).
    sigma_ : float
        The kernel width used.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import {name}
    >>> X = np.linspace(0, 1, 20)[:, None]
    >>> y = {y}
    >>> est = {name}(sigma=0.2, n_neighbors=3).fit(X, y)
    >>> {check}
    {out}
    """


class LapRLSClassifier(_ClassifierOut, _LapRLS):
    __doc__ = _LAPRLS_DOC.format(
        what="classifier", kind="Classifier", graph=_GRAPH_PARAMS_DOC.format(direct_max=20000),
        attr="classes_ : ndarray\n        The class labels.\n    ", name="LapRLSClassifier",
        y="np.array([0] + [-1] * 18 + [1])", check="est.predict([[0.1], [0.9]]).tolist()", out="[0, 1]")


class LapRLSRegressor(_RegressorOut, _LapRLS):
    __doc__ = _LAPRLS_DOC.format(
        what="regressor", kind="Regressor", graph=_GRAPH_PARAMS_DOC.format(direct_max=20000), attr="",
        name="LapRLSRegressor", y="np.r_[0.0, [np.nan] * 18, 1.0]",
        check="bool(est.predict([[0.0]])[0] < est.predict([[1.0]])[0])", out="True")


# ---------------------------------------------------------------------------
# PRLS
# ---------------------------------------------------------------------------

class _PRLS(_Base):
    def __init__(self, *, kernel="gaussian", sigma=None, degree=3, coef0=1.0, gamma=1e-3,
                 integral_operator="empirical", m=None, null_space="constant"):
        self.kernel = kernel
        self.sigma = sigma
        self.degree = degree
        self.coef0 = coef0
        self.gamma = gamma
        self.integral_operator = integral_operator
        self.m = m
        self.null_space = null_space

    def _check_params(self):
        self._check_kernel_params()
        check_scalar(self.gamma, "gamma", low=0)
        _check_prls_params(self)

    def fit(self, X, y):
        """Fit; the empirical integral operator uses all rows of X, "heat" only the labeled ones."""
        X, labeled, Y = self._prepare(X, y)
        XS = X[labeled]
        kw = self._kernel_kw()
        K, Kp, Kpp, self.kappa_ = consistency_grams(XS, X, integral_operator=self.integral_operator,
                                                    m=self.m, **kw)
        self.coef_, self.intercept_ = prls_fit(K, Kp, Kpp, Y, self.gamma, _null_space(self, XS))
        self.X_fit_ = XS
        return self

    def _raw_block(self, X):
        return (self._k(X, self.X_fit_) / self.kappa_) @ self.coef_ + _null_space(self, X) @ self.intercept_

    def _raw(self, X):
        return self._raw_blocked(X, self.X_fit_.shape[0])


_PRLS_DOC = r"""Partially-penalized RLS {what} (Yang, King & Lyu, NIPS 2009, Eqs. 7-11).

    .. math:: \min \frac1l \sum_{{i\in S}} (y_i - f(x_i))^2 + \gamma \|f - L_K f\|_K^2,
       \quad f = \sum_{{i\in S}} \alpha_i K_{{x_i}} + \sum_j \beta_j \mu_j,

    only the part of f that the kernel cannot reproduce by its own smoothing
    :math:`L_K` is penalized; the null space of :math:`I - L_K` (constants by
    default) is free.  See :func:`~graphrkhs.prls_fit` for the system and
    :func:`~graphrkhs.consistency_grams` for :math:`K', K''`.

    Parameters
    ----------
    kernel, sigma, degree, coef0 : as in :class:`RLS{kind}`.
    gamma : float >= 0, default=1e-3
        Weight of :math:`\|f - L_K f\|_K^2` (in the RKHS norm of the Gaussian of
        width sigma, see :func:`~graphrkhs.consistency_grams`).
    integral_operator : {{"empirical", "heat"}}, default="empirical"
        How :math:`L_K` is computed.  "heat": the paper's Eq. (16), Gaussian =
        heat kernel with a uniform density, :math:`K' = K_{{2t}}, K'' = K_{{3t}}`
        (in high dimension :math:`K', K''` shrink like :math:`2^{{-m/2}}` and PRLS
        becomes RLS with a free constant — set ``m`` to the intrinsic
        dimension).  "empirical" (default): :math:`L_K` by the empirical
        measure of all rows (labeled and unlabeled), with the kernel normalized
        by its mean; it needs no density or dimension assumption.
    m : int, optional
        Intrinsic dimension for "heat" (default: the number of features).
    null_space : "constant", "none"/None or callable, default="constant"
        Basis :math:`\mu_j` of the unpenalized functions; a callable maps X
        (n, d) to (n, o).

    Attributes
    ----------
    {attr}X_fit_ : ndarray of shape (l, d)
        The labeled points.
    coef_ : ndarray of shape (l, k)
        Kernel coefficients alpha.
    intercept_ : ndarray of shape (o, k)
        Coefficients beta of the null-space basis.
    kappa_ : float
        Kernel normalization (1 for "heat").
    sigma_ : float
        The kernel width used.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import {name}
    >>> X = np.linspace(0, 1, 20)[:, None]
    >>> est = {name}(sigma=0.2, gamma=1e3).fit(X, {y})
    >>> {check}
    {out}
    """


class PRLSClassifier(_ClassifierOut, _PRLS):
    __doc__ = _PRLS_DOC.format(what="classifier", kind="Classifier", attr="classes_ : ndarray\n        The class labels.\n    ",
                               name="PRLSClassifier", y='np.where(X[:, 0] < 0.5, "lo", "hi")',
                               check="est.predict([[0.1], [0.9]]).tolist()", out="['lo', 'hi']")


class PRLSRegressor(_RegressorOut, _PRLS):
    __doc__ = _PRLS_DOC.format(what="regressor", kind="Regressor", attr="", name="PRLSRegressor",
                               y="np.full(20, 7.0)", check="np.allclose(est.predict([[0.3], [5.0]]), 7.0)",
                               out="True")


# ---------------------------------------------------------------------------
# PLapRLS
# ---------------------------------------------------------------------------

class _PLapRLS(_LapRLS):
    def __init__(self, *, kernel="gaussian", sigma=None, degree=3, coef0=1.0, gamma_A=1e-6, gamma_I=1e2,
                 integral_operator="empirical", m=None, null_space="constant", graph="knn", n_neighbors=10,
                 radius=None, weight="gaussian", graph_sigma=None, laplacian="combinatorial", laplacian_power=1,
                 solver="auto", tol=1e-6, max_iter=None, verbose=False, random_state=None):
        super().__init__(kernel=kernel, sigma=sigma, degree=degree, coef0=coef0, gamma_A=gamma_A,
                         gamma_I=gamma_I, graph=graph, n_neighbors=n_neighbors, radius=radius, weight=weight,
                         graph_sigma=graph_sigma, laplacian=laplacian, laplacian_power=laplacian_power,
                         solver=solver, tol=tol, max_iter=max_iter, verbose=verbose, random_state=random_state)
        self.integral_operator = integral_operator
        self.m = m
        self.null_space = null_space

    def _check_params(self):
        self._check_kernel_params()
        check_scalar(self.gamma_A, "gamma_A", low=0, low_inclusive=False)
        check_scalar(self.gamma_I, "gamma_I", low=0)
        _graph_params_check(self)
        _check_prls_params(self)

    def fit(self, X, y):
        """Fit on all rows of X (labeled and unlabeled)."""
        X, labeled, Y = self._prepare(X, y)
        M = _build_penalty(self, X)
        kw = self._kernel_kw()
        if self.integral_operator == "empirical":
            K = KernelOperator(X, **kw)
            self.kappa_ = float(K.matmat(np.ones(X.shape[0], dtype=X.dtype)).mean()) / X.shape[0]
            if not np.isfinite(self.kappa_) or self.kappa_ <= 0:
                raise ValueError(f"integral_operator='empirical' needs a kernel with positive mean; got {self.kappa_:g}.")
            K.rescale(1.0 / self.kappa_)
            P = None
        else:
            self.kappa_ = 1.0
            K = KernelOperator(X, **kw)
            P = KernelOperator(X, kernel="heat_penalty", sigma=self.sigma_, m=self.m,
                               cache_bytes=0 if not K.is_dense else 4 * 2**30 - K.n * K.n * X.dtype.itemsize)
        self.coef_, self.intercept_, self.solver_info_ = plaprls_fit(
            K, labeled, Y, M, self.gamma_A, self.gamma_I, P=P, Psi=_null_space(self, X), solver=self.solver,
            tol=self.tol, max_iter=self.max_iter, return_info=True)
        self.n_iter_ = max(1, int(self.solver_info_.get("n_iter", 1)))
        self.X_fit_ = X
        return self

    def _raw_block(self, X):
        return (self._k(X, self.X_fit_) / self.kappa_) @ self.coef_ + _null_space(self, X) @ self.intercept_


_PLAPRLS_DOC = r"""Partially-penalized Laplacian RLS {what} (Yang, King & Lyu, NIPS 2009, Eqs. 12-14).

    .. math:: \min \frac1l \sum_{{i\in S}} (y_i - f(x_i))^2 + \gamma_A \|f - L_K f\|_K^2
       + \frac{{\gamma_I}}{{n^2}} \mathbf f^T L^p \mathbf f,
       \quad f = \sum_{{i=1}}^n \alpha_i K_{{x_i}} + \sum_j \beta_j \mu_j .

    The normal equations are derived in :func:`~graphrkhs.plaprls_fit` (the
    printed Eq. 14 has sign misprints and :math:`\Psi^T\Psi` for :math:`\Psi^T J\Psi`).

    Parameters
    ----------
    kernel, sigma, degree, coef0 : as in :class:`RLS{kind}`.
    gamma_A : float > 0, default=1e-6
        Weight of :math:`\|f - L_K f\|_K^2`.
    gamma_I : float >= 0, default=100
        As in :class:`LapRLS{kind}`.
    integral_operator, m, null_space : as in :class:`PRLS{kind}`
        Both are factored densely up to 8000 points; above, "heat"'s plain CG
        stalls (see :func:`~graphrkhs.plaprls_fit`) — use "empirical" (the
        default), which runs the kernel-preconditioned CG at any n.
    {graph}

    Attributes
    ----------
    {attr}X_fit_ : ndarray of shape (n, d)
        All training points.
    coef_ : ndarray of shape (n, k)
        Kernel coefficients alpha.
    intercept_ : ndarray of shape (o, k)
        Coefficients beta of the null-space basis.
    kappa_ : float
        Kernel normalization (1 for "heat").
    solver_info_ : dict
        Solver used and CG diagnostics.
    n_iter_ : int
        CG iterations (1 for a direct factorization).
    sigma_ : float
        The kernel width used.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import {name}
    >>> X = np.linspace(0, 1, 20)[:, None]
    >>> y = {y}
    >>> est = {name}(sigma=0.2, n_neighbors=3).fit(X, y)
    >>> {check}
    {out}
    """


class PLapRLSClassifier(_ClassifierOut, _PLapRLS):
    __doc__ = _PLAPRLS_DOC.format(
        what="classifier", kind="Classifier", graph=_GRAPH_PARAMS_DOC.format(direct_max=8000),
        attr="classes_ : ndarray\n        The class labels.\n    ", name="PLapRLSClassifier",
        y="np.array([0] + [-1] * 18 + [1])", check="est.predict([[0.1], [0.9]]).tolist()", out="[0, 1]")


class PLapRLSRegressor(_RegressorOut, _PLapRLS):
    __doc__ = _PLAPRLS_DOC.format(
        what="regressor", kind="Regressor", graph=_GRAPH_PARAMS_DOC.format(direct_max=8000), attr="",
        name="PLapRLSRegressor", y="np.r_[5.0, [np.nan] * 18, 5.0]",
        check="np.allclose(est.predict([[0.5], [3.0]]), 5.0)", out="True")


# ---------------------------------------------------------------------------
# G-RLS
# ---------------------------------------------------------------------------

class _GRLS(_Base):
    def __init__(self, *, kernel="gaussian", sigma=None, degree=3, coef0=1.0, gamma=1e-3, features="constant",
                 method="saddle"):
        self.kernel = kernel
        self.sigma = sigma
        self.degree = degree
        self.coef0 = coef0
        self.gamma = gamma
        self.features = features
        self.method = method

    def _check_params(self):
        self._check_kernel_params()
        check_scalar(self.gamma, "gamma", low=0)
        if not callable(self.features):
            check_option(self.features, "features", ("constant", "linear", "poly2"))
        check_option(self.method, "method", _GRLS_METHODS)
        if self.method != "saddle" and (callable(self.kernel) or self.kernel not in ("gaussian", "heat")):
            raise ValueError(f"method={self.method!r} needs a strictly positive definite kernel ('gaussian'); "
                             f"got kernel={self.kernel!r}.")

    def fit(self, X, y):
        """Fit on the labeled rows (G-RLS is supervised)."""
        X, labeled, Y = self._prepare(X, y)
        XS = X[labeled]
        from ..kernels._pointcloud import unisolvent_points

        Psi = feature_map(XS, self.features)
        self.anchors_ = unisolvent_points(Psi)     # raises when the features are not unisolvent
        self.X_fit_ = XS
        if self.method == "saddle":
            self.coef_, self.intercept_ = grls_fit(self._k(XS, None), Psi, Y, self.gamma)
        else:
            kw = self._kernel_kw()
            self.kernel_ = GRLSKernel(XS, features=self.features, kernel=kw["kernel"], sigma=kw["sigma"])
            self.anchors_ = self.kernel_.anchors
            self.intercept_, self.coef_, self.rest_ = grls_fit_constructed(
                self.kernel_, XS, Y, self.gamma, as_printed=self.method == "as_printed")
        return self

    def _raw_block(self, X):
        if self.method == "saddle":
            return self._k(X, self.X_fit_) @ self.coef_ + feature_map(X, self.features) @ self.intercept_
        out = self.kernel_.lagrange(X) @ self.intercept_
        if self.rest_.size:
            out = out + self.kernel_.H(X, self.X_fit_[self.rest_]) @ self.coef_
        return out

    def _raw(self, X):
        return self._raw_blocked(X, self.X_fit_.shape[0])


_GRLS_DOC = r"""Generalized RLS with predefined features {what} (Li, Lee & Leung, NIPS 2006).

    .. math:: \min_{{f\in H_K}} \frac1m \sum_{{i\in S}} (y_i - f(x_i))^2 + \gamma \|f - P f\|_K^2,

    P the projection onto the span of the features, which are left
    unregularized.  The default ``method="saddle"`` solves the true minimizer,
    :math:`f = \phi(\cdot, X) c + \psi(\cdot)\beta` with
    :math:`[[\Phi + m\gamma I, \Psi], [\Psi^T, 0]] [c; \beta] = [y; 0]`
    (:func:`~graphrkhs.grls_fit`; derivation there).

    Parameters
    ----------
    kernel, sigma, degree, coef0 : base kernel :math:`\phi` as in :class:`RLS{kind}`.
    gamma : float >= 0, default=1e-3
    features : {{"constant", "linear", "poly2"}} or callable, default="constant"
        Predefined features (:func:`~graphrkhs.feature_map`); they must be
        unisolvent on the labeled points (ValueError otherwise).  "constant"
        is the only choice that is safe in any dimension (poly2 has
        :math:`O(d^2)` features).
    method : {{"saddle", "constructed", "as_printed"}}, default="saddle"
        "constructed": the paper's route through the kernel of Eqs. 10-13 with
        the corrected normal equations (same minimizer); "as_printed": the
        printed Eqs. 26-27, which interpolate the anchor points (for
        reproducing the paper only).

    Attributes
    ----------
    {attr}X_fit_ : ndarray of shape (m, d)
        The labeled points.
    coef_ : ndarray
        Kernel coefficients c (for "constructed" and "as_printed": those of the :math:`H_{{x_i}}`).
    intercept_ : ndarray
        Feature coefficients beta (for the construction: alpha-tilde).
    anchors_ : ndarray of int
        The q unisolvent points (pivoted QR), as row indices of ``X_fit_``.
    sigma_ : float
        The kernel width used.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import {name}
    >>> X = np.linspace(-5, 5, 21)[:, None]
    >>> est = {name}(sigma=1.0, gamma=10.0, features="linear").fit(X, {y})
    >>> {check}
    {out}
    """


class GRLSClassifier(_ClassifierOut, _GRLS):
    __doc__ = _GRLS_DOC.format(what="classifier", kind="Classifier", attr="classes_ : ndarray\n        The class labels.\n    ",
                               name="GRLSClassifier", y="(X[:, 0] > 0).astype(int)",
                               check="est.predict([[-4.0], [4.0]]).tolist()", out="[0, 1]")


class GRLSRegressor(_RegressorOut, _GRLS):
    __doc__ = _GRLS_DOC.format(what="regressor", kind="Regressor", attr="", name="GRLSRegressor",
                               y="1.0 + 2.0 * X[:, 0]", check="np.allclose(est.predict([[10.0]]), 21.0)",
                               out="True")
