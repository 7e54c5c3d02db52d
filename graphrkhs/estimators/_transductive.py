r"""Transductive learners on graphs (scikit-learn API).

Each estimator is a thin layer over a plain function of
:mod:`graphrkhs.solvers`:

=====================================================  ==============================================
:class:`LaplacianRegularizationClassifier` / ``Regr``  :func:`~graphrkhs.tikhonov_solution`,
                                                       :func:`~graphrkhs.harmonic_solution` (alpha=0)
:class:`PoissonLearningClassifier`                     :func:`~graphrkhs.poisson_learning`
:class:`GraphKernelRidgeClassifier` / ``Regressor``    :func:`~graphrkhs.graph_kernel_ridge`
                                                       (+ :func:`~graphrkhs.graph_kernel_ridge_loo`)
:class:`GraphTVClassifier` / ``Regressor``             :func:`~graphrkhs.graph_tv`
=====================================================  ==============================================

Common behaviour
----------------
``fit(X, y)``: ``X`` are points (a kNN or epsilon graph is built with the
estimator's graph parameters) or, with ``graph="precomputed"``, the graph
itself (any form :func:`~graphrkhs.as_adjacency` accepts).  ``y`` has one
entry per node: -1 marks an unlabeled node for classifiers (scikit-learn's
convention; class labels may be strings), NaN for regressors.  Fitted
attributes: ``transduction_`` (the label/value of every node),
``label_distributions_`` (the per-class scores of every node, not
probabilities: Poisson scores are signed), ``classes_``.

``predict(X_new)``, the out-of-sample rule: a new point gets the average of
the scores of its ``n_neighbors`` nearest fitted points, weighted by
:math:`\exp(-d^2 / (2 h^2))`, h the distance to the farthest of them (a
Nadaraya-Watson step on the graph's neighbourhoods).  With
``graph="precomputed"``, ``X_new`` is the (n_new, n_fit) matrix of edge
weights from the new nodes to the fitted ones, and the scores are averaged
with those weights.

Graph defaults: ``weight="self-tuning"`` with ``sigma=None`` builds
:math:`w_{ij} = \exp(-d_{ij}^2 / (s^2 \sigma_i \sigma_j))` with
:math:`s = 1/2` (``sigma`` is the relative width s for this weight): the
sharpness of GraphLearning's default kNN weights
:math:`\exp(-4 d^2 / d_k^2)` (Calder et al.), which on the digits lifts
Laplace learning by about half a point over :math:`s = 1`.
"""


import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.neighbors import NearestNeighbors
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data

from .._core.labels import one_hot, split_classification_labels, split_regression_targets
from ..solvers import (
    graph_kernel_ridge,
    graph_kernel_ridge_loo,
    graph_tv,
    harmonic_solution,
    poisson_learning,
    tikhonov_solution,
)
from ..solvers._graph import _kernel_columns
from .._core.labels import label_free_mask
from .._core.validation import GraphWarning, check_option, check_points, check_scalar, warn
from ..spectral.filters import default_kernel
from ..graphs import WEIGHTS, as_adjacency, epsilon_graph, knn_graph, laplacian

__all__ = [
    "LaplacianRegularizationClassifier",
    "LaplacianRegularizationRegressor",
    "PoissonLearningClassifier",
    "GraphKernelRidgeClassifier",
    "GraphKernelRidgeRegressor",
    "GraphTVClassifier",
    "GraphTVRegressor",
]

GRAPHS = ("knn", "epsilon", "precomputed")
DEFAULT_ALPHAS = (1e-4, 1e-3, 1e-2, 1e-1, 1.0)
SELF_TUNING_SHARPNESS = 0.5


class _GraphLearner(BaseEstimator):
    """Graph construction, validation and the out-of-sample rule."""

    _graph_params = ("graph", "n_neighbors", "radius", "weight", "sigma")

    def _check_graph_params(self):
        check_option(self.graph, "graph", GRAPHS)
        check_scalar(self.n_neighbors, "n_neighbors", kind="int", low=1)
        check_option(self.weight, "weight", WEIGHTS)
        check_scalar(self.sigma, "sigma", low=0, low_inclusive=False, allow_none=True)
        if self.graph == "epsilon":
            if self.radius is None:
                raise ValueError("graph='epsilon' needs radius (a positive float); got None.")
            check_scalar(self.radius, "radius", low=0, low_inclusive=False)

    def _build_graph(self, X):
        """Validate X and return the adjacency (CSR); remember what predict needs."""
        self._check_graph_params()
        if self.graph == "precomputed":
            W = as_adjacency(X)
            self._X_fit = None
            self.n_features_in_ = W.shape[0]
            return W
        X = validate_data(self, X, dtype=[np.float64, np.float32], ensure_min_samples=2)
        X = check_points(X, "X")
        n = X.shape[0]
        self._X_fit = X
        sigma = self.sigma if self.weight == "gaussian" else None
        if self.graph == "knn":
            if self.n_neighbors >= n:
                raise ValueError(f"n_neighbors must be < n_samples = {n}; got {self.n_neighbors}.")
            W = knn_graph(X, self.n_neighbors, weight=self.weight, sigma=sigma)
        else:
            W = epsilon_graph(X, self.radius, weight=self.weight, sigma=sigma)
        if self.weight == "self-tuning":
            s = SELF_TUNING_SHARPNESS if self.sigma is None else self.sigma
            if s != 1.0:   # exp(-d^2 / (s_i s_j))^(1/s^2) = exp(-d^2 / (s^2 s_i s_j)), exactly
                W = sp.csr_array(W.power(1.0 / s**2))
                W.eliminate_zeros()
        return W

    def _fit_neighbors(self):
        self._nn = None
        if self._X_fit is not None:
            self._nn = NearestNeighbors(n_neighbors=min(self.n_neighbors, self._X_fit.shape[0])).fit(self._X_fit)

    def _check_labeled_nodes(self, W, S):
        deg = np.diff(W.indptr)
        lonely = S[deg[S] == 0]
        if lonely.size:
            warn(f"{lonely.size} labeled node(s) are isolated (no edges, e.g. node {int(lonely[0])}): their "
                 "labels inform no other node.", GraphWarning)

    def _oos_scores(self, X, scores):
        n_fit = scores.shape[0]
        if self._X_fit is None:
            if sp.issparse(X):
                Wn = sp.csr_array(X, dtype=np.float64)
            else:
                Wn = np.asarray(X, dtype=np.float64)
                if Wn.ndim != 2:
                    raise ValueError(f"with graph='precomputed', X must be the (n_new, {n_fit}) matrix of edge "
                                     f"weights to the fitted nodes; got shape {Wn.shape}.")
            if Wn.shape[1] != n_fit:
                raise ValueError(f"with graph='precomputed', X must have one column per fitted node ({n_fit}); "
                                 f"got shape {Wn.shape}.")
            data = Wn.data if sp.issparse(Wn) else Wn
            if not np.isfinite(data).all() or (data < 0).any():
                raise ValueError("X must hold finite non-negative edge weights.")
            rows = np.asarray(Wn.sum(axis=1)).ravel()
            num = np.asarray(Wn @ scores)
        else:
            X = validate_data(self, X, dtype=[np.float64, np.float32], reset=False)
            k = min(self.n_neighbors, n_fit)
            dist, idx = self._nn.kneighbors(X, n_neighbors=k)
            h = dist[:, -1:]
            h = np.where(h > 0, h, 1.0)
            w = np.exp(-(dist / h) ** 2 / 2)
            rows = w.sum(axis=1)
            num = np.einsum("ik,ik...->i...", w, scores[idx])
        prior = scores.mean(axis=0)
        out = np.empty((num.shape[0],) + scores.shape[1:])
        ok = rows > 0
        out[ok] = num[ok] / rows[ok].reshape((-1,) + (1,) * (scores.ndim - 1))
        if (~ok).any():
            warn(f"{int((~ok).sum())} new node(s) have no edge to the fitted graph; they get the mean score.",
                 GraphWarning)
            out[~ok] = prior
        return out


class _TransductiveClassifier(ClassifierMixin, _GraphLearner):
    def fit(self, X, y):
        """Fit on the graph of ``X`` with labels ``y`` (-1 = unlabeled).

        Parameters
        ----------
        X : array of shape (n, d), or a graph when ``graph="precomputed"``
        y : array of shape (n,)
            Class labels of any hashable type; -1 (or NaN, None, "") for unlabeled.

        Returns
        -------
        self
        """
        self._check_params()
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None.")
        W = self._build_graph(X)
        n = W.shape[0]
        y = np.asarray(y)
        if y.ndim == 2 and y.shape[1] == 1:
            y = column_or_1d(y, warn=True)     # DataConversionWarning, as scikit-learn classifiers do
        labeled, classes, codes = split_classification_labels(y, n)
        if np.asarray(y).dtype.kind == "f":
            check_classification_targets(np.asarray(y)[labeled])
        if classes.size < 2:
            raise ValueError(f"y has only one class ({classes[0]!r}) among its labeled samples; a classifier "
                             "needs labels of at least 2 classes.")
        S = np.flatnonzero(labeled)
        self._check_labeled_nodes(W, S)
        Y = one_hot(codes[S], classes.size)
        self._fit_neighbors()
        F = np.asarray(self._solve(W, S, Y), dtype=np.float64)
        self.classes_ = classes
        self.label_distributions_ = F
        self.transduction_ = classes[F.argmax(axis=1)]
        return self

    def predict(self, X):
        """Labels of new points by the out-of-sample rule (see the module docs).

        Parameters
        ----------
        X : array of shape (n_new, d), or (n_new, n_fit) edge weights when
            ``graph="precomputed"``

        Returns
        -------
        y : ndarray of shape (n_new,)
        """
        check_is_fitted(self, "transduction_")
        scores = self._oos_scores(X, self.label_distributions_)
        return self.classes_[scores.argmax(axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.graph == "precomputed"
        return tags


class _TransductiveRegressor(RegressorMixin, _GraphLearner):
    def fit(self, X, y):
        """Fit on the graph of ``X`` with targets ``y`` (NaN = unlabeled).

        Parameters
        ----------
        X : array of shape (n, d), or a graph when ``graph="precomputed"``
        y : array of shape (n,) or (n, m)

        Returns
        -------
        self
        """
        self._check_params()
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None.")
        W = self._build_graph(X)
        n = W.shape[0]
        labeled, yv = split_regression_targets(y, n)
        S = np.flatnonzero(labeled)
        self._check_labeled_nodes(W, S)
        self._fit_neighbors()
        F = np.asarray(self._solve(W, S, yv[S]), dtype=np.float64)
        self.transduction_ = F
        return self

    def predict(self, X):
        """Values at new points by the out-of-sample rule (see the module docs).

        Returns
        -------
        y : ndarray of shape (n_new,) or (n_new, m)
        """
        check_is_fitted(self, "transduction_")
        return self._oos_scores(X, self.transduction_)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.graph == "precomputed"
        tags.target_tags.multi_output = True
        return tags


_GRAPH_DOC = """
    graph : {"knn", "epsilon", "precomputed"}, default="knn"
        How ``X`` becomes a graph: kNN or epsilon graph of points, or ``X`` is the graph.
    n_neighbors : int, default=10
        k of the kNN graph (and of the out-of-sample rule); 10 as in Calder et al. 2020.
    radius : float, optional
        Radius of the epsilon graph (needed for ``graph="epsilon"``).
    weight : {"self-tuning", "gaussian", "binary"}, default="self-tuning"
        Edge weights, see :func:`~graphrkhs.knn_graph`; self-tuning adapts to the local density.
    sigma : float > 0, optional
        Gaussian width for ``weight="gaussian"`` (None: the mean kNN distance); for
        ``"self-tuning"`` the relative width s of :math:`\\exp(-d^2 / (s^2 \\sigma_i \\sigma_j))`
        (None: 1/2, GraphLearning's sharpness).
"""


def _check_alpha(alpha, allow_zero=False, allow_auto=False):
    if allow_auto and isinstance(alpha, str):
        return check_option(alpha, "alpha", ("auto",))
    return check_scalar(alpha, "alpha", low=0, low_inclusive=allow_zero)


# ---------------------------------------------------------------------------
# Laplacian regularization
# ---------------------------------------------------------------------------

class _LaplacianMixin:
    def _check_params(self):
        _check_alpha(self.alpha, allow_zero=True)
        check_option(self.laplacian, "laplacian", ("combinatorial", "normalized"))
        check_scalar(self.tol, "tol", low=0, low_inclusive=False)

    def _solve(self, W, S, Y):
        if self.alpha == 0:
            return harmonic_solution(W, S, Y, laplacian=self.laplacian, tol=self.tol,
                                     preconditioner=self.preconditioner)
        return tikhonov_solution(W, S, Y, alpha=self.alpha, laplacian=self.laplacian, tol=self.tol,
                                 preconditioner=self.preconditioner)


class LaplacianRegularizationClassifier(_LaplacianMixin, _TransductiveClassifier):
    __doc__ = r"""Laplace learning / Tikhonov regularization on a graph (classification).

    One-vs-all scores :math:`F` solve :math:`(J + \mu L) F = J Y` (Y one-hot,
    :math:`\mu` = ``alpha``), or, for ``alpha=0``, the harmonic extension
    :math:`L_{UU} F_U = -L_{US} Y_S` (Zhu, Ghahramani & Lafferty 2003);
    class = argmax.  All classes in one AMG-preconditioned block CG.

    Parameters
    ----------
    alpha : float >= 0, default=0.0
        :math:`\mu`; 0 is the parameter-free harmonic solution (labels
        fixed), the standard Laplace learning.
    laplacian : {"combinatorial", "normalized"}, default="combinatorial"
        Laplacian kind (the combinatorial one keeps the maximum principle).
    tol : float, default=1e-8
        CG relative residual.
    preconditioner : {"auto", "amg", "jacobi", None}, default="auto"
        See :func:`~graphrkhs.harmonic_solution` ("auto": direct up to 5000
        nodes, AMG above).
    """ + _GRAPH_DOC + r"""
    Attributes
    ----------
    classes_, transduction_, label_distributions_
        See :mod:`graphrkhs.transductive`.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import LaplacianRegularizationClassifier
    >>> X = np.r_[np.zeros((5, 1)), np.ones((5, 1))] + np.arange(10)[:, None] * 1e-3
    >>> y = np.full(10, -1); y[0], y[9] = 0, 1
    >>> LaplacianRegularizationClassifier(n_neighbors=3).fit(X, y).transduction_
    array([0, 0, 0, 0, 0, 1, 1, 1, 1, 1])
    """

    def __init__(self, alpha=0.0, *, laplacian="combinatorial", tol=1e-8, preconditioner="auto", graph="knn",
                 n_neighbors=10, radius=None, weight="self-tuning", sigma=None):
        self.alpha = alpha
        self.laplacian = laplacian
        self.tol = tol
        self.preconditioner = preconditioner
        self.graph = graph
        self.n_neighbors = n_neighbors
        self.radius = radius
        self.weight = weight
        self.sigma = sigma


class LaplacianRegularizationRegressor(_LaplacianMixin, _TransductiveRegressor):
    __doc__ = r"""Laplace learning / Tikhonov regularization on a graph (regression).

    :math:`(J + \mu L) f = J y`, or the harmonic extension for ``alpha=0``.
    Parameters as in :class:`LaplacianRegularizationClassifier`.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import LaplacianRegularizationRegressor
    >>> W = np.diag(np.ones(4), 1); W = W + W.T                 # path on 5 nodes
    >>> y = np.array([0.0, np.nan, np.nan, np.nan, 1.0])
    >>> LaplacianRegularizationRegressor(graph="precomputed").fit(W, y).transduction_.round(6)
    array([0.  , 0.25, 0.5 , 0.75, 1.  ])
    """

    def __init__(self, alpha=0.0, *, laplacian="combinatorial", tol=1e-8, preconditioner="auto", graph="knn",
                 n_neighbors=10, radius=None, weight="self-tuning", sigma=None):
        self.alpha = alpha
        self.laplacian = laplacian
        self.tol = tol
        self.preconditioner = preconditioner
        self.graph = graph
        self.n_neighbors = n_neighbors
        self.radius = radius
        self.weight = weight
        self.sigma = sigma


# ---------------------------------------------------------------------------
# Poisson learning
# ---------------------------------------------------------------------------

class PoissonLearningClassifier(_TransductiveClassifier):
    __doc__ = r"""Poisson learning (Calder, Cook, Thorpe & Slepcev, ICML 2020).

    Scores solve :math:`L F = \sum_{j \in S} (y_j - \bar y) \delta_j` with
    degree-weighted zero mean (:func:`~graphrkhs.poisson_learning`);
    class = argmax of :math:`F \operatorname{diag}(b / \bar y)`.  The method of
    choice at one or a few labels per class, where Laplace learning
    degenerates.

    Parameters
    ----------
    class_priors : array of shape (n_classes,), optional
        Class proportions b (in the order of ``classes_``); None uses the
        labeled proportions (no reweighting).
    tol : float, default=1e-6
        CG relative residual (decisions are stable long before: on
        Fashion-MNIST 1e-3 changed under 0.01% of them).
    preconditioner : {"auto", "amg", "jacobi", None}, default="auto"
        See :func:`~graphrkhs.poisson_learning`.
    """ + _GRAPH_DOC + r"""
    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import PoissonLearningClassifier
    >>> X = np.r_[np.zeros((5, 1)), np.ones((5, 1))] + np.arange(10)[:, None] * 1e-3
    >>> y = np.full(10, -1); y[0], y[9] = 0, 1
    >>> PoissonLearningClassifier(n_neighbors=3).fit(X, y).transduction_
    array([0, 0, 0, 0, 0, 1, 1, 1, 1, 1])
    """

    def __init__(self, *, class_priors=None, tol=1e-6, preconditioner="auto", graph="knn", n_neighbors=10,
                 radius=None, weight="self-tuning", sigma=None):
        self.class_priors = class_priors
        self.tol = tol
        self.preconditioner = preconditioner
        self.graph = graph
        self.n_neighbors = n_neighbors
        self.radius = radius
        self.weight = weight
        self.sigma = sigma

    def _check_params(self):
        check_scalar(self.tol, "tol", low=0, low_inclusive=False)

    def _solve(self, W, S, Y):
        return poisson_learning(W, S, Y, class_priors=self.class_priors, tol=self.tol,
                                preconditioner=self.preconditioner)


# ---------------------------------------------------------------------------
# Graph kernel ridge
# ---------------------------------------------------------------------------

class _RidgeMixin:
    def _check_params(self):
        _check_alpha(self.alpha, allow_auto=True)
        check_option(self.method, "method", ("auto", "direct", "cg", "sparse"))
        check_option(self.laplacian, "laplacian", ("combinatorial", "normalized"))
        alphas = np.asarray(self.alphas, dtype=np.float64)
        if alphas.ndim != 1 or alphas.size == 0 or not np.isfinite(alphas).all() or (alphas <= 0).any():
            raise ValueError(f"alphas must be a non-empty 1-D sequence of positive numbers; got {self.alphas!r}.")
        kernels = self._kernels()
        for k in kernels:
            if not callable(k):
                raise TypeError(f"kernel must be a filter from graphrkhs.filters (or a list of them for "
                                f"alpha='auto'); got {k!r}.")
        if len(kernels) > 1 and self.alpha != "auto":
            raise ValueError("a list of kernels is a grid for leave-one-out selection: it needs alpha='auto'.")

    def _kernels(self):
        k = self.kernel if self.kernel is not None else default_kernel()
        return list(k) if isinstance(k, (list, tuple)) else [k]

    def _loo_score(self, residuals, Y):
        """Higher is better; subclasses override for classification."""
        return -np.mean(residuals ** 2, axis=(1, 2))

    def _solve(self, W, S, Y):
        kernels = self._kernels()
        if self.alpha != "auto":
            self.alpha_, self.kernel_ = float(self.alpha), kernels[0]
            return graph_kernel_ridge(W, S, Y, kernels[0], alpha=self.alpha, method=self.method,
                                      laplacian=self.laplacian)
        L = laplacian(W, self.laplacian, dtype=np.float64)
        alphas = np.asarray(self.alphas, dtype=np.float64)
        best = None
        scores = np.empty((len(kernels), alphas.size))
        for ki, phi in enumerate(kernels):
            C = _kernel_columns(L, phi, S)
            R = graph_kernel_ridge_loo(C[S], Y, alphas)
            scores[ki] = self._loo_score(R, Y)
            ai = int(np.argmax(scores[ki]))
            if best is None or scores[ki, ai] > best[0]:
                best = (scores[ki, ai], ki, ai, C)
        _, ki, ai, C = best
        self.loo_scores_ = scores
        self.alpha_, self.kernel_ = float(alphas[ai]), kernels[ki]
        K_SS = C[S]
        beta = np.linalg.solve(K_SS + self.alpha_ * np.eye(S.size), Y.reshape(S.size, -1))
        F = C @ beta
        orphan = label_free_mask(W, S)
        if orphan.any():
            warn(f"{int(orphan.sum())} node(s) lie in connected components without any labeled node; "
                 "they get the mean of the labeled targets (the class prior).", GraphWarning)
            F[orphan] = Y.reshape(S.size, -1).mean(axis=0)
        return F if Y.ndim == 2 else F[:, 0]


class GraphKernelRidgeClassifier(_RidgeMixin, _TransductiveClassifier):
    __doc__ = r"""Kernel ridge in the graph RKHS :math:`\mathcal H_\varphi` (Pena 2017), one-vs-all.

    :math:`F = \Phi_{:,S} (\Phi_{SS} + \mu I)^{-1} Y_S` with
    :math:`\Phi = \varphi(L)` (:func:`~graphrkhs.graph_kernel_ridge`).  With
    ``alpha="auto"``, :math:`\mu` (and the kernel, given a list) is chosen by
    exact leave-one-out over the labeled nodes
    (:func:`~graphrkhs.graph_kernel_ridge_loo`): LOO accuracy, ties broken by
    LOO squared error.  Never looks at unlabeled labels.

    Parameters
    ----------
    kernel : filter or list of filters, optional
        The response :math:`\varphi` (default ``Matern(2, 10.0)``,
        :math:`(0.04 + \lambda)^{-2}`, see :func:`default_kernel`).
    alpha : float > 0 or "auto", default="auto"
        :math:`\mu`.
    alphas : sequence of float, default=(1e-4, 1e-3, 1e-2, 1e-1, 1)
        The grid for ``alpha="auto"``.
    method : {"auto", "direct", "cg", "sparse"}, default="auto"
        Solver path for a fixed ``alpha`` (see :func:`~graphrkhs.graph_kernel_ridge`).
    laplacian : {"normalized", "combinatorial"}, default="normalized"
    """ + _GRAPH_DOC + r"""
    Attributes
    ----------
    alpha_ : float
        The ridge weight used.
    kernel_ : filter
        The response used.
    loo_scores_ : ndarray of shape (n_kernels, n_alphas)
        Leave-one-out scores of the grid (``alpha="auto"`` only; higher is better).
    classes_, transduction_, label_distributions_
        See :mod:`graphrkhs.transductive`.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import GraphKernelRidgeClassifier
    >>> X = np.r_[np.zeros((5, 1)), np.ones((5, 1))] + np.arange(10)[:, None] * 1e-3
    >>> y = np.full(10, -1); y[[0, 1]], y[[8, 9]] = 0, 1
    >>> GraphKernelRidgeClassifier(n_neighbors=3).fit(X, y).transduction_
    array([0, 0, 0, 0, 0, 1, 1, 1, 1, 1])
    """

    def __init__(self, kernel=None, *, alpha="auto", alphas=DEFAULT_ALPHAS, method="auto",
                 laplacian="normalized", graph="knn", n_neighbors=10, radius=None, weight="self-tuning",
                 sigma=None):
        self.kernel = kernel
        self.alpha = alpha
        self.alphas = alphas
        self.method = method
        self.laplacian = laplacian
        self.graph = graph
        self.n_neighbors = n_neighbors
        self.radius = radius
        self.weight = weight
        self.sigma = sigma

    def _loo_score(self, residuals, Y):
        pred = (Y[None] - residuals).argmax(axis=2)
        acc = (pred == Y.argmax(axis=1)[None]).mean(axis=1)
        mse = np.mean(residuals ** 2, axis=(1, 2))
        return acc - 1e-6 * mse / (1 + mse)    # accuracy first, squared error breaks ties


class GraphKernelRidgeRegressor(_RidgeMixin, _TransductiveRegressor):
    __doc__ = r"""Kernel ridge in the graph RKHS :math:`\mathcal H_\varphi` (Pena 2017), regression.

    :math:`f = \Phi_{:,S} (\Phi_{SS} + \mu I)^{-1} y_S`; ``alpha="auto"``
    minimizes the exact leave-one-out squared error.  Parameters as in
    :class:`GraphKernelRidgeClassifier`.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import GraphKernelRidgeRegressor, filters
    >>> W = np.diag(np.ones(4), 1); W = W + W.T                 # path on 5 nodes
    >>> y = np.array([0.0, np.nan, np.nan, np.nan, 1.0])
    >>> est = GraphKernelRidgeRegressor(filters.RegularizedLaplacian(1.0), alpha=1e-3, graph="precomputed")
    >>> f = est.fit(W, y).transduction_
    >>> bool(np.all(np.diff(f) > 0))                           # increasing from label 0 to label 1
    True
    """

    def __init__(self, kernel=None, *, alpha="auto", alphas=DEFAULT_ALPHAS, method="auto",
                 laplacian="normalized", graph="knn", n_neighbors=10, radius=None, weight="self-tuning",
                 sigma=None):
        self.kernel = kernel
        self.alpha = alpha
        self.alphas = alphas
        self.method = method
        self.laplacian = laplacian
        self.graph = graph
        self.n_neighbors = n_neighbors
        self.radius = radius
        self.weight = weight
        self.sigma = sigma


# ---------------------------------------------------------------------------
# Graph total variation
# ---------------------------------------------------------------------------

class _TVMixin:
    def _check_params(self):
        _check_alpha(self.alpha)
        check_scalar(self.tol, "tol", low=0, low_inclusive=False)
        check_scalar(self.max_iter, "max_iter", kind="int", low=1)

    def _solve(self, W, S, Y):
        _, res = graph_tv(W, S, Y, alpha=self.alpha, tol=self.tol, max_iter=self.max_iter, return_info=True)
        self.n_iter_, self.gap_ = res.n_iter, res.gap
        return res.f


class GraphTVClassifier(_TVMixin, _TransductiveClassifier):
    __doc__ = r"""Graph total-variation classifier (one-vs-all scores, Pena 2017 "generalized TV").

    Each class column solves
    :math:`\min_f \sum_{j \in S} (y_j - f_j)^2 + \mu \sum_e w_e |f_i - f_j|`
    (:func:`~graphrkhs.graph_tv`, diagonally preconditioned Chambolle-Pock
    stopped at a relative duality gap); class = argmax.  TV keeps sharp
    class boundaries that quadratic penalties smear.

    Parameters
    ----------
    alpha : float > 0, default=1.0
        :math:`\mu`.
    tol : float, default=1e-2
        Relative duality gap.  Class decisions need far less than the 1e-6
        of :func:`~graphrkhs.graph_tv`: on the digits (10 labels per class)
        the decisions at 1e-2 and 1e-3 were identical, at half the time.
    max_iter : int, default=20000
    """ + _GRAPH_DOC + r"""
    Attributes
    ----------
    n_iter_ : int
        Primal-dual iterations run.
    gap_ : ndarray of shape (n_classes,)
        Final relative duality gaps.
    classes_, transduction_, label_distributions_
        See :mod:`graphrkhs.transductive`.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import GraphTVClassifier
    >>> X = np.r_[np.zeros((5, 1)), np.ones((5, 1))] + np.arange(10)[:, None] * 1e-3
    >>> y = np.full(10, -1); y[0], y[9] = 0, 1
    >>> GraphTVClassifier(alpha=0.1, n_neighbors=3).fit(X, y).transduction_
    array([0, 0, 0, 0, 0, 1, 1, 1, 1, 1])
    """

    def __init__(self, alpha=1.0, *, tol=1e-2, max_iter=20000, graph="knn", n_neighbors=10, radius=None,
                 weight="self-tuning", sigma=None):
        self.alpha = alpha
        self.tol = tol
        self.max_iter = max_iter
        self.graph = graph
        self.n_neighbors = n_neighbors
        self.radius = radius
        self.weight = weight
        self.sigma = sigma


class GraphTVRegressor(_TVMixin, _TransductiveRegressor):
    __doc__ = r"""Graph total-variation regression (Pena 2017 "generalized TV").

    :math:`\min_f \sum_{j \in S} (y_j - f_j)^2 + \mu \sum_e w_e |f_i - f_j|`
    (:func:`~graphrkhs.graph_tv`).  Recovers piecewise-constant signals.

    Parameters
    ----------
    alpha : float > 0, default=1.0
    tol : float, default=1e-6
        Relative duality gap.
    max_iter : int, default=20000
    """ + _GRAPH_DOC + r"""
    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import GraphTVRegressor
    >>> W = np.diag(np.ones(5), 1); W = W + W.T                 # path on 6 nodes
    >>> y = np.array([0.0, 0.0, np.nan, np.nan, 1.0, 1.0])
    >>> f = GraphTVRegressor(alpha=0.1, graph="precomputed").fit(W, y).transduction_
    >>> f[[0, 1, 4, 5]].round(3)
    array([0.025, 0.025, 0.975, 0.975])
    """

    def __init__(self, alpha=1.0, *, tol=1e-6, max_iter=20000, graph="knn", n_neighbors=10, radius=None,
                 weight="self-tuning", sigma=None):
        self.alpha = alpha
        self.tol = tol
        self.max_iter = max_iter
        self.graph = graph
        self.n_neighbors = n_neighbors
        self.radius = radius
        self.weight = weight
        self.sigma = sigma
