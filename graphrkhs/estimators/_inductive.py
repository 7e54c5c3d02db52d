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

from typing import Callable, Optional, Union

import numpy as np
from scipy.sparse import issparse
from sklearn.base import is_classifier

from ..graphs import GraphSpec
from ..kernels import BLOCK_BYTES, GRLSKernel, default_sigma, feature_map, pairwise_kernel, unisolvent_points
from ..kernels import NystromFeatures, heat_semigroup
from ..solvers import LOWRANK_MIN_N, nystrom_consistency_grams, nystrom_laprls_fit, nystrom_plaprls_fit
from ..solvers import select_laprls_lowrank, select_nystrom_laprls
from ..solvers import (
    DIRECT_MAX_N,
    DIRECT_MAX_N_HEAT,
    INTEGRAL_OPERATORS,
    SOLVERS,
    KernelOperator,
    consistency_grams,
    consistency_grams_widths,
    graph_penalty,
    grls_fit,
    grls_fit_constructed,
    laprls_fit,
    plaprls_fit,
    prls_fit,
    rls_fit,
    select_kernel_ridge,
    select_manifold_gammas,
    select_prls_gamma,
)
from ..solvers import ManifoldRidgePath, loo_scores, select_grid
from ..solvers import centred_loo_residuals, held_selection_warnings, release_selection_warnings, report_grid_edge
from ..solvers import SelectionWarning, grls_fit as _saddle_fit
from .._core.validation import held_warnings, memory_guard, warn
from ._auto import (FIT_INTERCEPT, TUNABLE_NONNEG, TUNABLE_POSITIVE, WIDTH_FACTORS, free_constant, grid_of, is_tuned,
                    labeled_groups, loo_rows_of, loo_selects, NO_LOO, growing, points_offset, unselected,
                    warn_duplicated_labeled_points)
from .._core.validation import Interval, Options
from ._base import POINT_CLOUD_GRAPH_CONSTRAINTS, POSITIVE, graph_spec, precomputed_adjacency, warn_edgeless_graph
from ._base import ClassifierOutputMixin, PointsLearner, RegressorOutputMixin, fit_copy

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
Kernel = Union[str, Callable]
NullSpace = Union[str, Callable, None]


def _in_float64(kernel, X, X_fit, coef, offset, null_space=None, intercept=None, exact=True):
    r"""The kernel expansion :math:`k(X, X_{fit})\,c + b` (+ :math:`\Psi(X)\,\beta`) evaluated in float64 and
    returned in X's floating dtype (float32 points: float32 values).  ``exact=False`` (coefficients solved
    against a gram in X's dtype, e.g. CG on float32 points): evaluated in X's dtype, whose kernel
    reproduces that fit's values best (the float64 kernel times them differs by the gram's rounding).

    The expansions near interpolation have coefficients far larger than the fitted values (1e3 - 1e4 times
    at the small ridges the selections choose): a float32 kernel times them cancelled to 6e-3 of the
    values (LapRLS) where the float64 evaluation of the same model is exact to float32's rounding.
    """
    dtype = X.dtype
    if not exact:
        out = kernel(X, X_fit) @ coef + offset
        if null_space is not None:
            out = out + null_space(X) @ intercept
        return out.astype(dtype, copy=False)
    X64 = np.asarray(X, dtype=np.float64)
    out = kernel(X64, np.asarray(X_fit, dtype=np.float64)) @ np.asarray(coef, dtype=np.float64) + offset
    if null_space is not None:
        out = out + null_space(X64) @ np.asarray(intercept, dtype=np.float64)
    return out.astype(dtype, copy=False)


class _AnyGraph:
    """An adjacency in any form as_adjacency takes (not a string or a number)."""

    def __call__(self, value):
        return value is not None and not isinstance(value, (str, bytes, int, float, bool)) and (
            issparse(value) or hasattr(value, "__array__") or hasattr(value, "nodes") or hasattr(value, "W")
            or isinstance(value, list))

    def __str__(self):
        return "an adjacency (array, sparse matrix, pygsp or networkx graph)"


class _NullSpaceOrCallable:
    def __call__(self, value):
        return value is None or callable(value) or value in ("constant", "none")

    def __str__(self):
        return "'constant', 'none', None or a callable X -> (n, o)"


# ---------------------------------------------------------------------------
# The family: kernel learners on points
# ---------------------------------------------------------------------------

#: RLS, PRLS and G-RLS centre their width grid on the median distance of 300 evenly spaced rows
#: (44850 pairs): within 1 % of the median over all pairs on digits, Fashion-MNIST (2000 rows) and
#: noisy circles (1000 rows), a fraction of the grid's step 2^(1/2), at a twentieth of the cost of
#: 1000 rows (which would dominate these learners' automatic fit: ~17 ms of ~40 ms on digits).
WIDTH_POINTS_SUPERVISED = 300


class _KernelLearner(PointsLearner):
    """Point-cloud kernel k (name or callable, width sigma, polynomial degree / coef0)."""

    #: Regressors: the fitted attributes linear in the targets, scaled back after a multi-output fit on
    #: standardized target columns (:meth:`~graphrkhs.estimators._base.RegressorOutputMixin._scale_back_targets`).
    _TARGET_LINEAR = ("coef_", "intercept_", "y_mean_")

    #: Rows of X (an even, deterministic sample, see :func:`~graphrkhs.default_sigma`) whose median
    #: pairwise distance is the centre of the ``sigma="auto"`` grid.
    _WIDTH_POINTS = 1000

    _parameter_constraints = {
        "kernel": [Options(*_KERNEL_NAMES), "callable"],
        "sigma": [POSITIVE, None, Options("auto"), "array-like"],
        "degree": [Interval("int", 1, None)],
        "coef0": [Interval("real")],
    }

    #: The constructor parameters that ``predict`` reads, frozen at ``fit`` (``_param``): read live, a
    #: ``set_params(kernel="linear")`` after fit moved RLS's predictions by 2050 without a refit, and
    #: ``null_space=None`` / ``features="linear"`` made predict fail in numpy's matmul.
    _PREDICT_PARAMS = ("kernel", "degree", "coef0", "null_space", "features", "method")

    def _param(self, name):
        """The value of the constructor parameter ``name`` at the last ``fit`` (its current value before any)."""
        frozen = self.__dict__.get("_fit_params")
        return frozen[name] if frozen is not None and name in frozen else getattr(self, name)

    def _kernel_kw(self):
        kernel = self._param("kernel")
        kernel = "gaussian" if isinstance(kernel, str) and kernel == "heat" else kernel
        return dict(kernel=kernel, sigma=self.sigma_, degree=self._param("degree"), coef0=self._param("coef0"))

    def _k(self, A, B):
        return pairwise_kernel(A, B, **self._kernel_kw())

    def _default_width(self, X, **kw):
        """``default_sigma(X)``; for a kernel without a width (linear, polynomial, a callable), which never reads
        it, 1.0 where the median distance is beyond float64 (points near +-1e308): default_sigma's ValueError
        there is about a width nobody uses (the callable kernel on such points fitted before it was raised)."""
        kernel = self._param("kernel")
        try:
            return default_sigma(X, **kw)
        except ValueError:
            if isinstance(kernel, str) and kernel in ("gaussian", "heat"):
                raise
            return 1.0

    def _fit(self, X, labeled, Y):
        self._fit_params = {name: fit_copy(getattr(self, name)) for name in self._PREDICT_PARAMS if hasattr(self, name)}
        if self.sigma is not None:
            grid_of(self.sigma, [1.0], "sigma")      # a bad grid raises here, naming sigma
        if self.sigma is None:
            self.sigma_ = self._default_width(X)
        elif is_tuned(self.sigma):
            # the centre of the width grid; the selection then moves by factors of 2^(1/2)
            self.sigma_ = self._default_width(X, max_points=self._WIDTH_POINTS)
        else:
            self.sigma_ = float(self.sigma)
        self.cv_results_ = None
        # one gate for every "auto" of the fit: without an informative LOO the fallback values are used
        groups = labeled_groups(self, X[labeled])            # identical labeled points, once
        self._loo_selects = loo_selects(Y, is_classifier(self), fits_constants=self._fits_constants(),
                                        groups=groups)
        # identical labeled points are left out together (leave-group-out), where the selection can
        self._loo_groups = None
        if self._loo_selects:
            self._loo_groups = warn_duplicated_labeled_points(self, groups, Y)
        if is_tuned(self.sigma) and self._width_matters() and self._loo_selects:
            # the labeled rows in float64 whatever X's dtype: the width search runs down to ridges far below
            # float32's rounding of the kernel (RLS chose another width on float32 points, 2x the float64
            # one, from LOO scores that rounding had made up)
            self._select_width(np.asarray(X[labeled], dtype=np.float64), Y)
        elif is_tuned(self.sigma) and self._width_matters():
            self.sigma_ = unselected(self.sigma, self.sigma_, "sigma")     # one's own grid: its nearest value
        # the targets in X's dtype, but for the learners that solve in float64 whatever X's dtype: a float32
        # copy of float64 targets made their coefficients lose 1.2e-7 (relative) against the float64 fit
        self._fit_kernel(X, labeled, Y if self._SOLVES_IN_FLOAT64 else Y.astype(X.dtype))

    #: Whether ``_fit_kernel`` solves in float64 whatever X's dtype (then it takes the targets unrounded).
    _SOLVES_IN_FLOAT64 = False

    def _width_matters(self):
        return not callable(self.kernel) and self.kernel in ("gaussian", "heat")

    def _width_grid(self):
        return grid_of(self.sigma, self.sigma_ * WIDTH_FACTORS, "sigma")

    def _select_width(self, XS, Y, alphas=None, extend_alpha=True):
        r"""``sigma="auto"``: the width of the best exact-LOO RLS on the labeled points.

        Joint grid of widths (default: the median pairwise distance times
        :math:`2^{-2}, 2^{-1.5}, \dots, 2`) and ridges, one eigendecomposition
        per width (:func:`~graphrkhs.select_kernel_ridge`); for RLS this is the
        whole selection, for the other learners it fixes ``sigma_`` only.
        """
        sigmas, extend = self._width_grid()
        kw = self._kernel_kw()
        with held_selection_warnings() as held:
            res = select_kernel_ridge(lambda s: pairwise_kernel(XS, None, **{**kw, "sigma": s}), Y, sigmas, alphas,
                                      ridge_scale="l", fit_intercept=self._width_free_constant(),
                                      extend=growing(sigma=extend, alpha=extend_alpha), max_extensions=2,
                                      loo_rows=loo_rows_of(self), loo_groups=self._loo_groups)
        # the ridge of this RLS only serves to rank the widths: it is no parameter of these learners, so an
        # edge report about it ("the selected alpha=1e-09 ... Pass a wider grid or a fixed value") named
        # something the user cannot pass (PRLS, PLapRLS); the width's own report and other warnings stay
        release_selection_warnings(held, drop=("alpha",))
        self.sigma_ = res.best_params["sigma"]
        self._width_result = res
        return res

    def _fits_constants(self):
        """Whether every parameter value fits a constant target exactly (:func:`loo_selects`' gate): a free
        constant (``fit_intercept``), a constant null space or constant features."""
        return self._width_free_constant() or getattr(self, "features", None) == "constant"

    def _width_free_constant(self):
        """Whether the RLS of the width selection has a free constant (the learners with a constant null space)."""
        return free_constant(self) or getattr(self, "null_space", None) == "constant"

    def _centre(self, Y):
        """Regressors fitted without a free constant: centre y (the mean is restored in ``_raw``)."""
        self.y_mean_ = Y.mean(axis=0) if free_constant(self) else np.zeros(Y.shape[1], dtype=Y.dtype)
        return Y - self.y_mean_

    def _raw(self, X):
        """Evaluate ``_raw_block`` on row blocks so (len(X), n_train) temporaries stay bounded."""
        rows = max(1, int(BLOCK_BYTES // (max(1, self.X_fit_.shape[0]) * 8)))
        if not X.shape[0]:
            return self._raw_block(X)
        return np.vstack([self._raw_block(X[s:s + rows]) for s in range(0, X.shape[0], rows)])

    def _null_space(self, X):
        ns = self._param("null_space")
        if ns is None or ns == "none":
            return np.zeros((X.shape[0], 0), dtype=X.dtype)
        if isinstance(ns, str):
            return np.ones((X.shape[0], 1), dtype=X.dtype)
        Psi = np.asarray(ns(X))
        Psi = Psi[:, None] if Psi.ndim == 1 else Psi
        if Psi.ndim != 2 or Psi.shape[0] != X.shape[0] or not np.isfinite(Psi).all():
            raise ValueError(f"null_space callable must return a finite ({X.shape[0]}, o) array; "
                             f"got shape {Psi.shape}.")
        return Psi.astype(X.dtype)

    def _constant_shift(self, Y, M=None):
        """The labeled mean of Y when the constant is a free basis function (``null_space="constant"``, and
        no graph penalty M that sees constants), else None.  Then f(y + b) = f(y) + b exactly: the fit of
        y less its mean, with the mean added to the constant's coefficient, keeps a large offset of y out
        of the ill-conditioned solves (at y ~ 1e9 it cost PLapRLS 0.15 on targets of range 5)."""
        ns = getattr(self, "null_space", None)
        if not (isinstance(ns, str) and ns == "constant"):
            return None
        if M is not None and abs(M @ np.ones(M.shape[0])).max() > 1e-6 * max(abs(M).max(), 1e-300):
            return None
        return Y.mean(axis=0)

    def _add_constant(self, shift):
        """Add the mean taken out by :meth:`_constant_shift` to the constant's coefficient."""
        if shift is not None:
            self.intercept_ = np.array(self.intercept_, copy=True)
            self.intercept_[0] += shift.astype(self.intercept_.dtype)

    def _use_nystrom(self, n):
        """The low-rank path: ``solver="nystrom"``, or ``"auto"`` above ``LOWRANK_MIN_N`` = 10000 rows."""
        solver = getattr(self, "solver", "auto")
        return solver == "nystrom" or (solver == "auto" and n > LOWRANK_MIN_N)

    def _nystrom_features(self, X):
        """The Nystrom features of the training rows (kept as ``nystrom_``)."""
        self.nystrom_ = NystromFeatures(X, **self._kernel_kw(), n_components=self.n_components,
                                        landmarks=self.landmarks, dtype=np.float64,
                                        random_state=getattr(self, "random_state", None))
        return self.nystrom_

    def _check_heat_kernel(self):
        if self.integral_operator == "heat" and (callable(self.kernel) or self.kernel not in ("gaussian", "heat")):
            raise ValueError(f"integral_operator='heat' needs kernel='gaussian' (the heat kernel of Eq. 16); "
                             f"got kernel={self.kernel!r}.")


class _GraphKernelLearner(_KernelLearner):
    """Kernel learners with a graph term (LapRLS, PLapRLS): the graph comes from GraphSpec."""

    _parameter_constraints = {
        "graph": [Options("knn", "epsilon"), GraphSpec, _AnyGraph()],
        **POINT_CLOUD_GRAPH_CONSTRAINTS,
        "gamma_A": [POSITIVE],
        "gamma_I": [Interval("real", 0, None)],
        "solver": [Options(*SOLVERS, "nystrom")],
        "n_components": [Interval("int", 1, None)],
        "landmarks": [Options("kmeans", "uniform")],
        # a relative residual: >= 1 is met by CG's zero start (laprls_fit / plaprls_fit refuse it)
        "tol": [Interval("real", 0, 1, closed="neither")],
        "max_iter": [Interval("int", 1, None), None],
        "random_state": ["random_state"],
    }

    def _penalty(self, X):
        """The graph penalty M = L^p on the training rows."""
        n = X.shape[0]
        if isinstance(self.graph, (str, GraphSpec)):
            spec = graph_spec(self, self.graph_sigma).validate(n)
            # the underflow warning names graph_sigma, the width the user set (sigma is the kernel's), or a given
            # GraphSpec's own sigma
            W = spec.build(X, random_state=self.random_state,
                           sigma_name="sigma" if isinstance(self.graph, GraphSpec) else "graph_sigma")
        else:
            # the transductive learners' rule for a given graph (numeric object-dtype weights accepted)
            W = precomputed_adjacency(self.graph, "graph")
            if W.shape != (n, n):
                raise ValueError(f"graph: a precomputed graph must be ({n}, {n}) over the training rows; "
                                 f"got {W.shape}.")
        warn_edgeless_graph(W, self)
        return graph_penalty(W, self.laplacian, self.laplacian_power)

    def _store_solver_info(self, info):
        self.solver_info_ = info
        self.n_iter_ = max(1, int(info.get("n_iter", 1)))   # 1 for a direct factorization


# ---------------------------------------------------------------------------
# RLS
# ---------------------------------------------------------------------------

def _ridge_grid(value, default, name):
    """``(grid, extend)`` of a ridge that may be 0 (:func:`grid_of`), the zeros left out: 0 (the interpolant) has no
    leave-one-out score.  A grid of zeros only is the number 0: ``(None, False)``, as for a fixed value."""
    grid, extend = grid_of(value, default, name, allow_zero=True)
    if grid is None or not (grid > 0).any():
        return None, False
    return grid[grid > 0], extend


def _fixed_ridge(value):
    """The ridge of a fixed value: the number itself, 0 for a grid of zeros only (:func:`_ridge_grid`)."""
    return float(value) if np.ndim(value) == 0 else 0.0


#: The ridge a width search scores in place of a fixed ridge 0 (the interpolant has no LOO score).
ZERO_RIDGE_STAND_IN = 1e-12


def _ridge_axis(value):
    """The one-value ridge axis of a width search with the ridge fixed: the value, 0 replaced by its stand-in."""
    return np.array([max(_fixed_ridge(value), ZERO_RIDGE_STAND_IN)])


def _report_fixed(res, name, value):
    """``res`` with its one-value axis ``name`` showing the user's fixed ``value`` (a 0 was scored at
    ``ZERO_RIDGE_STAND_IN``, but the table must not show a value the user never gave)."""
    out = res.renamed()
    out.grid = {**res.grid, name: np.array([_fixed_ridge(value)])}
    out.best_params = {**res.best_params, name: _fixed_ridge(value)}
    return out


class _RLS(_KernelLearner):
    #: the constant of ``fit_intercept`` is an unpenalized basis function (the saddle-point system), not the
    #: centring of y: "auto" gives it to classifiers on the homogeneous polynomial kernel too (free_constant)
    _SADDLE_CONSTANT = True
    _WIDTH_POINTS = WIDTH_POINTS_SUPERVISED
    _SOLVES_IN_FLOAT64 = True
    _parameter_constraints = {"alpha": TUNABLE_NONNEG, "fit_intercept": FIT_INTERCEPT}

    def __init__(self, *, kernel: Kernel = "gaussian", sigma: Union[float, str, None] = "auto", degree: int = 3,
                 coef0: float = 1.0, alpha: Union[float, str] = "auto", fit_intercept: Union[bool, str] = "auto",
                 verbose: Optional[bool] = None):
        self._store_init_params(locals())

    def _select_width(self, XS, Y):
        """RLS: the joint (sigma, alpha) selection (the alpha axis fixed to one value when alpha is)."""
        alphas, extend = _ridge_grid(self.alpha, ALPHA_GRID, "alpha")
        fixed = alphas is None
        alphas = _ridge_axis(self.alpha) if fixed else alphas
        sigmas, s_extend = self._width_grid()
        kw = self._kernel_kw()
        res = select_kernel_ridge(lambda s: pairwise_kernel(XS, None, **{**kw, "sigma": s}), Y, sigmas, alphas,
                                  ridge_scale="l", fit_intercept=free_constant(self),
                                  extend=growing(sigma=s_extend, alpha=extend), max_extensions=2,
                                  loo_rows=loo_rows_of(self), loo_groups=self._loo_groups)
        if fixed:
            res = _report_fixed(res, "alpha", self.alpha)
        self.sigma_ = res.best_params["sigma"]
        self._width_result = res

    def _fit_kernel(self, X, labeled, Y):
        """RLS is supervised: the labeled rows only, kept and solved in float64 (l rows: cheap) so that
        float32 points give the float64 fit; predictions come back in the points' dtype."""
        self.X_fit_ = XS = np.asarray(X[labeled], dtype=np.float64)
        Y = np.asarray(Y, dtype=np.float64)
        l = XS.shape[0]
        res = self.__dict__.pop("_width_result", None)
        alphas, extend = _ridge_grid(self.alpha, ALPHA_GRID, "alpha")
        if alphas is None:
            self.alpha_ = _fixed_ridge(self.alpha)
        elif not self._loo_selects:
            self.alpha_ = unselected(self.alpha, FALLBACK_ALPHA, "alpha", allow_zero=True)
        else:
            if res is None:       # sigma fixed: the alpha path alone
                res = select_kernel_ridge(lambda s: self._k(XS, None), Y, [self.sigma_], alphas,
                                          ridge_scale="l", fit_intercept=free_constant(self),
                                          max_extensions=2 if extend else 0, loo_rows=loo_rows_of(self),
                                          loo_groups=self._loo_groups)
            self.alpha_ = res.best_params["alpha"]
        self.cv_results_ = None if res is None else res.cv_results_
        K = self._k(XS, None)
        if free_constant(self):
            # (K + alpha l I) c + 1 b = y, 1^T c = 0: the constant unpenalized (G-RLS's saddle system)
            c, b = _saddle_fit(K, np.ones((l, 1), dtype=K.dtype), Y, max(self.alpha_, 1e-12))
            self.coef_, self.intercept_ = c, np.asarray(b).reshape(-1)
        else:
            self.coef_ = rls_fit(K, Y, self.alpha_, overwrite_K=True)
            self.intercept_ = np.zeros(Y.shape[1])

    def _raw_block(self, X):
        K = self._k(np.asarray(X, dtype=np.float64), self.X_fit_)
        return (K @ self.coef_ + self.intercept_).astype(X.dtype, copy=False)


#: The default ridge grid of ``alpha="auto"`` (RLS scaling, :math:`(K + \alpha l I)`).
ALPHA_GRID = np.geomspace(1e-7, 1e1, 17)
#: Used when the labels cannot select (:func:`~graphrkhs.estimators._auto.loo_selects`: fewer than 3, or
#: every class labeled once); the width is then the centre of its grid, the median pairwise distance.
FALLBACK_ALPHA = 1e-3


_RLS_DOC = r"""Regularized least squares {what} (supervised baseline; Belkin, Niyogi & Sindhwani 2006, Eq. 9).

    .. math:: \min_{{f\in H_K}} \frac1l \sum_{{i \in S}} (y_i - f(x_i))^2 + \alpha \|f\|_K^2,
       \qquad (K_{{SS}} + \alpha l I) c = y_S

    equal to scikit-learn's ``KernelRidge(alpha=alpha * l)`` with the same kernel when there is
    no free constant (``fit_intercept=False``; "auto" gives regressors one, see below).

    Parameters
    ----------
    kernel : {{"gaussian", "heat", "linear", "polynomial"}} or callable, default="gaussian"
        ("heat" is the same Gaussian here: t = sigma^2 / 2.)
    sigma : float > 0, "auto", sequence of float or None, default="auto"
        Gaussian width (the linear, polynomial and callable kernels have none:
        they ignore it, as scikit-learn's kernels ignore ``gamma``).  "auto": chosen jointly with ``alpha`` by exact
        leave-one-out on the labeled rows over the median pairwise distance (of 300
        evenly spaced rows, :func:`~graphrkhs.default_sigma`)
        times :math:`2^{{-2}}, 2^{{-1.5}}, \dots, 2` (:func:`~graphrkhs.select_kernel_ridge`,
        the grid extended at its edges); a sequence: one's own grid (not extended);
        None: the median pairwise distance.
    degree, coef0 : polynomial kernel :math:`(x^T z + c_0)^p` (degree 3 as in Belkin et al.'s USPS runs).
    alpha : float >= 0, "auto" or sequence of float, default="auto"
        Ridge weight with the :math:`1/l` loss scaling.  "auto": exact LOO over
        ``geomspace(1e-7, 10, 17)``, extended at its edges down to the rounding
        level of K; a sequence: one's own grid; a number: that value.  When the
        labels cannot select (fewer than 3, or every class labeled once,
        :ref:`ug_one_label`): 1e-3, at the median pairwise distance.
    fit_intercept : bool or "auto", default="auto"
        An unpenalized constant (the saddle-point system of G-RLS), so that a
        shift of y shifts the fit; "auto": for regressors, and for classifiers
        whose kernel holds no constant function (``kernel="linear"``, or
        "polynomial" with ``coef0=0``), whose decision boundary would otherwise
        pass through the origin.
    verbose : bool or None, default=None
        Progress bars (tqdm) of the long steps of ``fit`` and ``predict`` (graph, solves):
        True / False switch them on / off for everything inside; None follows the
        caller (an enclosing ``verbose=``, the command line) or the ``graphrkhs`` logger.
    unlabeled : hashable or None, default=-1
        Classifiers only: the marker of unlabeled rows, see :mod:`graphrkhs.estimators._base`
        (labels {{-1, +1}} need ``unlabeled=None``).

    Attributes
    ----------
    {attr}X_fit_ : ndarray of shape (l, d)
        The labeled training points.
    coef_ : ndarray of shape (l, k)
        Kernel coefficients (k = 1 for two classes or one target).
    sigma_, alpha_ : float
        The kernel width and ridge used.
    intercept_ : ndarray of shape (k,)
        The free constant (zeros without ``fit_intercept``).
    cv_results_ : dict or None
        Leave-one-out scores of the grid (see :mod:`graphrkhs.estimators._auto`).

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import {name}
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]])
    >>> est = {name}(sigma=1.0).fit(X, {y})
    >>> {check}
    {out}
    """


class RLSClassifier(ClassifierOutputMixin, _RLS):
    __doc__ = _RLS_DOC.format(what="classifier", attr="classes_ : ndarray\n        The class labels.\n    ", name="RLSClassifier",
                              y='["a", -1, -1, "b"]', check="est.predict([[0.2], [2.9]]).tolist()",
                              out="['a', 'b']")


class RLSRegressor(RegressorOutputMixin, _RLS):
    __doc__ = _RLS_DOC.format(what="regressor", attr="", name="RLSRegressor",
                              y="[0.0, np.nan, np.nan, 3.0]", check="bool(est.predict([[3.0]])[0] > 2.5)",
                              out="True")


# ---------------------------------------------------------------------------
# LapRLS
# ---------------------------------------------------------------------------

class _LapRLS(_GraphKernelLearner):
    #: the regressor warns when y has no NaN and targets at -1 (RegressorOutputMixin._encode_targets)
    _UNLABELED_ROWS_HELP = True
    _parameter_constraints = {"gamma_A": TUNABLE_POSITIVE, "gamma_I": TUNABLE_NONNEG, "fit_intercept": FIT_INTERCEPT}

    def __init__(self, *, kernel: Kernel = "gaussian", sigma: Union[float, str, None] = "auto", degree: int = 3,
                 coef0: float = 1.0, gamma_A: Union[float, str] = "auto", gamma_I: Union[float, str] = "auto",
                 fit_intercept: Union[bool, str] = "auto",
                 graph: Union[str, GraphSpec, object] = "knn", n_neighbors: int = 10, radius: Optional[float] = None,
                 weight: str = "gaussian", graph_sigma: Optional[float] = None, laplacian: str = "combinatorial",
                 laplacian_power: int = 1, solver: str = "auto", tol: float = 1e-6, max_iter: Optional[int] = None,
                 verbose: Optional[bool] = None, random_state: Optional[Union[int, np.random.Generator]] = None,
                 n_components: int = 1000, landmarks: str = "kmeans"):
        self._store_init_params(locals())

    def _select_width(self, XS, Y):
        """``sigma="auto"`` with both gammas "auto": chosen jointly with them in ``_fit_kernel``
        (:func:`~graphrkhs.select_laprls_lowrank`, which needs all points and the graph); otherwise the
        width of the best LOO RLS on the labeled points."""
        if joint_width(self):
            self._width_pending = True
            return None
        return super()._select_width(XS, Y)

    def _fit_kernel(self, X, labeled, Y):
        """All rows of X (labeled and unlabeled) enter the graph term."""
        pending = self.__dict__.pop("_width_pending", False)
        M = self._penalty(X)
        # the linear kernel's free constant: every point less the labeled mean (points_offset), after the graph
        # (built from the points as given: a cosine graph is not translation-invariant)
        self.x_offset_ = points_offset(self, X, labeled)
        if self.x_offset_ is not None:
            X = (X - self.x_offset_).astype(X.dtype, copy=False)
        S = np.flatnonzero(labeled)
        if pending and (self._use_nystrom(X.shape[0]) or X.shape[0] > AUTO_MAX_N):
            _KernelLearner._select_width(self, X[labeled], Y)   # no joint selection there: the RLS width
            pending = False
        Y = self._centre(Y)
        if self._use_nystrom(X.shape[0]):
            return self._fit_nystrom(X, labeled, Y, M)
        self.__dict__.pop("_width_result", None)
        if pending:
            self.sigma_, self.gamma_A_, self.gamma_I_, res, coef = manifold_width_selection(
                self, X, S, Y, M, self._width_grid(), self._kernel_kw())
        else:
            # the gram of float64 points, as the joint selection's and the direct solve's below: the LU of the
            # selected point is the fit (coef), and a float32 gram's rounding put it 3e-3 off the float64 fit on
            # the same points (sigma = 5.826, 60 points, 15 labels)
            self.gamma_A_, self.gamma_I_, res, coef = manifold_selection(
                self, lambda: self._k(np.asarray(X, dtype=np.float64), None), S, Y, M, consistency=False,
                fit_intercept=False, fallback=(FALLBACK_GAMMA_A, FALLBACK_GAMMA_I), centred=free_constant(self))
        self.cv_results_ = manifold_cv_results(res, self)
        if coef is not None:      # the selection's LU already holds the fit (ManifoldRidgePath.coef)
            # kept in float64 (as RLS's): near interpolation the coefficients are 1e4 times the fitted values,
            # and their float32 rounding alone moved the predictions by 7e-4 (_raw_block)
            self.coef_ = coef[0]
            self._store_solver_info({"solver": "direct"})
        else:
            # the direct solve on a float64 gram whatever X's dtype, as the selection's (and the warped kernel's
            # direct solve): its LU amplifies a float32 gram's rounding by cond(B), which at a small gamma_A
            # put the fit 5e-3 off the float64 one on the same points (gamma_A = 3e-7, 60 points); CG keeps
            # X's dtype (its kernel products in row blocks, memory and speed)
            # (laprls_fit's solver="auto": direct up to DIRECT_MAX_N points)
            direct = self.solver == "direct" or (self.solver == "auto" and X.shape[0] <= DIRECT_MAX_N)
            K = KernelOperator(np.asarray(X, dtype=np.float64) if direct else X, **self._kernel_kw())
            self._gram_float64 = direct or X.dtype == np.float64
            self.coef_, info = laprls_fit(K, labeled, Y, M, self.gamma_A_, self.gamma_I_, solver=self.solver,
                                          tol=self.tol, max_iter=self.max_iter, return_info=True)
            self._store_solver_info(info)
        self.X_fit_ = X

    def _fit_nystrom(self, X, labeled, Y, M):
        r"""LapRLS in the Nystrom subspace (:func:`~graphrkhs.nystrom_laprls_fit`); "auto" gammas by exact
        LOO of that low-rank smoother (:func:`~graphrkhs.select_nystrom_laprls`).  The expansion is on
        the landmarks: ``X_fit_`` = landmarks, ``coef_`` = :math:`T w`."""
        ny = self._nystrom_features(X)
        F, S = ny.features_, np.flatnonzero(labeled)
        gA, extA = grid_of(self.gamma_A, LAPRLS_GAMMA_A_GRID, "gamma_A")
        gI, extI = grid_of(self.gamma_I, LAPRLS_GAMMA_I_GRID, "gamma_I", allow_zero=True)
        res = G = None      # G: F^T M F, computed once (selection and fit)
        if (gA is None and gI is None) or not self._loo_selects:
            self.gamma_A_, self.gamma_I_ = unselected_gammas(self, FALLBACK_GAMMA_A, UNSELECTED_GAMMA_I)
        else:
            c = free_constant(self)     # y centred on its labeled mean: the LOO re-takes it without the point
            if gA is None:          # ratios of the gamma_I grid to the fixed gamma_A
                ga = float(self.gamma_A)
                res, G = select_nystrom_laprls(F, S, Y, M, [ga], np.maximum(gI, 1e-300) / ga,
                                               max_extensions=2 if extI else 0, return_graph_gram=True, centred=c,
                                               loo_rows=loo_rows_of(self), loo_groups=self._loo_groups)
            elif gI is None or not extI:
                # each gamma_A with its own ratios (of the fixed gamma_I or of the user's gamma_I values); the
                # table is the whole (gamma_A, gamma_I) grid, named as the dense path's (it held the rows of the
                # best gamma_A only, on the engine's axes alpha = gamma_A, sigma = the ratio).  Through select_grid
                # as the dense path (manifold_selection): not extended, a choice at an edge reported (never was)
                gIs = np.array([float(self.gamma_I)]) if gI is None else gI
                rows, gram = {}, {"G": None}

                def evaluate(gamma_A, gamma_I=None):
                    for ga in gamma_A:
                        if float(ga) not in rows:      # each row once
                            r, gram["G"] = select_nystrom_laprls(F, S, Y, M, [ga], np.maximum(gIs, 1e-300) / ga,
                                                                 graph_gram=gram["G"], return_graph_gram=True,
                                                                 centred=c, loo_rows=loo_rows_of(self),
                                                                 loo_groups=self._loo_groups)
                            rows[float(ga)] = r.scores[:, 0]  # ratios gIs / ga: the order of the sorted gIs
                    out = np.array([rows[float(ga)] for ga in gamma_A])
                    return out if gamma_I is not None else out[:, 0]

                grid = {"gamma_A": gA} if gI is None else {"gamma_A": gA, "gamma_I": gIs}
                res = select_grid(evaluate, grid, criterion="loo", report=tuple(grid))
                G = gram["G"]
                res.best_params.setdefault("gamma_I", float(gIs[0]))
            else:
                res, G = select_nystrom_laprls(F, S, Y, M, gA, NYSTROM_RATIO_GRID,
                                               max_extensions=2 if (extA and extI) else 0,
                                               return_graph_gram=True, centred=c, loo_rows=loo_rows_of(self),
                                               loo_groups=self._loo_groups)
            if gA is None or (extI and gI is not None):     # the engine's axes: sigma = the ratio, alpha = gamma_A
                res = res.renamed(sigma="ratio", alpha="gamma_A")
                res.best_params["gamma_I"] = res.best_params["ratio"] * res.best_params["gamma_A"]
            self.gamma_A_ = float(res.best_params["gamma_A"])
            gamma_I = float(res.best_params["gamma_I"])
            self.gamma_I_ = 0.0 if gamma_I <= 2e-300 else gamma_I       # 1e-300 stands for a gamma_I of 0
            if gI is not None and not extI:      # one's own grid: its member (ratio * gamma_A rounds)
                self.gamma_I_ = float(gI[np.argmin(np.abs(gI - self.gamma_I_))])
            # one's own grids given to the engine without extension (a gamma_I grid against a fixed gamma_A, a
            # gamma_A grid against the ratio grid of gamma_I="auto"): a choice at their edge is reported here
            if gA is None and not extI:
                report_grid_edge("gamma_I", self.gamma_I_, gI)
            if gA is not None and not extA and extI:
                report_grid_edge("gamma_A", self.gamma_A_, gA)
        self.__dict__.pop("_width_result", None)
        self.cv_results_ = manifold_cv_results(res, self)
        w, info = nystrom_laprls_fit(F, S, Y, M, self.gamma_A_, self.gamma_I_, return_info=True, graph_gram=G)
        self.coef_ = ny.transform_matrix_ @ w
        self.X_fit_ = ny.landmarks_
        self._store_solver_info({**info, "n_components": ny.n_components_, "nystrom_error": ny.error_})

    def _raw_block(self, X):
        # evaluated in float64, returned in the points' dtype (float32 stays float32), as RLS's: near
        # interpolation (small gamma_A) the coefficients are 1e4 times the fitted values, and a float32 kernel
        # times them cancelled to 6e-3 of the fit (LapRLSRegressor on 60 float32 points, 15 labels; the
        # float64 fit on the same points agreed with the float64 one to 2e-7)
        if getattr(self, "x_offset_", None) is not None:
            X = (X - self.x_offset_).astype(X.dtype, copy=False)
        return _in_float64(self._k, X, self.X_fit_, self.coef_, self.y_mean_,
                           exact=getattr(self, "_gram_float64", True))


#: Default grid of ``gamma_A="auto"``; ``gamma_I="auto"`` is selected through the ratio gamma_I / gamma_A
#: on the scale-relative grid of :func:`~graphrkhs.select_manifold_gammas` (0 and two values: 1e2 and 1e5
#: times its scale).
LAPRLS_GAMMA_A_GRID = np.geomspace(1e-7, 1e1, 17)
FALLBACK_GAMMA_A, FALLBACK_GAMMA_I = 1e-6, 1e2
#: ``gamma_I`` when the labels cannot select (:func:`~graphrkhs.estimators._auto.loo_selects`: every class
#: labeled once, or fewer than 3 labels), with ``gamma_A = FALLBACK_GAMMA_A``: a graph-dominated fit.  At
#: one label per class (10 draws) LapRLS labeled 87.3 % of the digits and 47.8 % of 3000 Fashion-MNIST
#: points with it, against 78.2 / 41.4 % at gamma_I = 100 and 69.0 / 46.6 % where the uninformative LOO
#: went; PLapRLS and the warped kernel the same within 0.1 (the warped kernel breaks down at 1e8).
UNSELECTED_GAMMA_I = 1e6
#: Ratios gamma_I / gamma_A of the Nystrom path's "auto" selection (the exact path's 0 = RLS is left out).
NYSTROM_RATIO_GRID = np.geomspace(1e-1, 1e13, 15)
#: The Nystrom path's ``gamma_I="auto"`` grid when ``gamma_A`` is a number.
LAPRLS_GAMMA_I_GRID = np.r_[0.0, np.geomspace(1e-1, 1e7, 5)]
#: Largest n for the automatic LapRLS / PLapRLS / warped selection (dense n x n kernel and LU).
AUTO_MAX_N = 6000


def joint_width(est):
    """Whether ``sigma`` is chosen jointly with the gammas (:func:`manifold_width_selection`): all three
    tuned, ``gamma_I="auto"`` (the ratio axis is the surrogate's own), a Gaussian kernel."""
    kernel = getattr(est, "kernel", None)
    return (is_tuned(est.sigma) and not callable(kernel) and kernel in ("gaussian", "heat")
            and is_tuned(est.gamma_A) and isinstance(est.gamma_I, str))


def manifold_width_selection(est, X, S, Y, M, width_grid, kernel_kw, *, return_basis=False):
    r"""``sigma``, ``gamma_A``, ``gamma_I`` = "auto" for LapRLS and the warped kernel: jointly, by the exact
    LOO of LapRLS on a low-rank surrogate of each width's kernel, then one exact LU at the selected point
    (:func:`~graphrkhs.select_laprls_lowrank`).

    The width of the best LOO *RLS* on the labeled points is not LapRLS's: on noisy two circles the
    best LapRLS is a wide kernel (about 2.8 x the median distance) with a graph-dominated ratio, which the
    RLS width (0.7 - 1 x) cannot reach (3.6 points lost).

    Returns ``(sigma, gamma_A, gamma_I, result, (alpha, b))``; with ``return_basis`` the basis Z of the
    selected LU is appended (:func:`~graphrkhs.select_laprls_lowrank`).
    """
    sigmas, extend = width_grid
    gA, extA = grid_of(est.gamma_A, LAPRLS_GAMMA_A_GRID, "gamma_A")
    kw = {k: v for k, v in kernel_kw.items() if k != "sigma"}
    # the surrogate's landmarks: a Generator or RandomState gives one seed for every width (select_laprls_lowrank
    # draws it); None the seed 0, so that the default selection is reproducible (documented under random_state).
    # A Generator or RandomState was replaced by 0 here: every stream selected with seed 0's landmarks
    rs = 0 if est.random_state is None else est.random_state
    # one's own grid (sigma or gamma_A): not extended, but a choice at its edge is reported (SelectionWarning);
    # the "auto" axis grows (one flag for both left it at its grid's edge: gamma_A_ 1e-7 with sigma=[0.5, 1]
    # where sigma=1 gives 1e-10, without a warning)
    res, alpha, b, *Z = select_laprls_lowrank(X, S, Y, M, sigmas, gA, **kw, random_state=rs,
                                              extend=growing(sigma=extend, gamma_A=extA),
                                              max_extensions=2, return_coef=True,
                                              return_basis=return_basis, centred=free_constant(est),
                                              loo_rows=loo_rows_of(est), 
                                              loo_groups=getattr(est, "_loo_groups", None))
    p = res.best_params
    return (p["sigma"], p["gamma_A"], p["gamma_I"], res, (np.asarray(alpha).reshape(X.shape[0], -1), b), *Z)


def manifold_cv_results(res, est):
    r"""``res.cv_results_`` in the estimator's parameters (None for no result).

    The engine's axis :math:`\rho = \gamma_I/\gamma_A` (``param_ratio``) becomes ``param_gamma_I`` =
    :math:`\rho\gamma_A`: with one's own ``gamma_I`` grid its member each row stands for (the ratio's
    rounding undone; the Nystrom path's stand-in 1e-300 for 0 shows as 0, it showed 1e-297), else the
    product (a value at most 2e-300 shown as 0).  The ratio column stays beside it only when it is the axis
    searched against a tuned ``gamma_A`` (``gamma_I="auto"``); with a number for ``gamma_A`` the table showed
    a ``ratio`` column the user never gave.
    """
    if res is None:
        return None
    cv = res.cv_results_
    if "param_ratio" not in cv:
        return cv
    ratio = np.asarray(cv["param_ratio"], dtype=np.float64)
    gA = np.asarray(cv["param_gamma_A"], dtype=np.float64)
    gI = ratio * gA
    gI = np.where(gI <= 2e-300, 0.0, gI)
    own = None if isinstance(est.gamma_I, str) else grid_of(est.gamma_I, [0.0], "gamma_I", allow_zero=True)[0]
    if own is not None:
        gI = own[np.argmin(np.abs(gI[:, None] - own[None, :]), axis=1)]
    keep_ratio = isinstance(est.gamma_I, str) and is_tuned(est.gamma_A)
    names = [k[len("param_"):] for k in cv if k.startswith("param_") and k not in ("param_ratio", "param_gamma_A")]
    names += ["gamma_A", "gamma_I"] + (["ratio"] if keep_ratio else [])
    cols = {k: np.asarray(cv[f"param_{k}"]) for k in names if k != "gamma_I"}
    cols["gamma_I"] = gI
    out = {"params": [{k: float(cols[k][i]) for k in names} for i in range(gI.size)]}
    out.update({f"param_{k}": cols[k] for k in names})
    out.update({k: v for k, v in cv.items() if k != "params" and not k.startswith("param_")})
    return out


def unselected_gammas(est, gamma_A, gamma_I, *, why=NO_LOO, warn_grid=True):
    """``(gamma_A, gamma_I)`` not selected (:func:`~graphrkhs.estimators._auto.unselected`): numbers as given,
    "auto" the fallback values, one's own grid its value nearest them (with a SelectionWarning unless
    ``warn_grid`` is False, for a caller that warns itself)."""
    if not warn_grid:
        # held in this thread and dropped (not a process-wide warnings filter, which two threads entering and
        # leaving in turn could leave installed for good); other warnings are still said
        with held_warnings() as said:
            out = unselected_gammas(est, gamma_A, gamma_I, why=why)
        for w in said:
            if not isinstance(w, SelectionWarning):
                warn(w)
        return out
    return (unselected(est.gamma_A, gamma_A, "gamma_A", why=why),
            unselected(est.gamma_I, gamma_I, "gamma_I", allow_zero=True, why=why))


def manifold_selection(est, make_K, S, Y, M, *, consistency, fit_intercept, fallback, centred=False):
    r"""``gamma_A`` / ``gamma_I`` = "auto", own grids or numbers, for LapRLS, PLapRLS and the warped kernel.

    Exact LOO through :func:`~graphrkhs.select_manifold_gammas` (one n x n LU
    per ratio :math:`\gamma_I/\gamma_A`, the :math:`\gamma_A` path from an l x l
    eigendecomposition, the final coefficients from the same LU).  ``make_K()``
    builds the dense n x n kernel (only when something is selected).  ``centred``: Y is the targets less
    their labeled mean (a regressor without a free constant in the system); the scores are then the LOO of
    that procedure, the mean re-taken without the held-out label.

    Returns
    -------
    gamma_A, gamma_I : float
    result : GridResult or None
    coef : (alpha (n, m), b (m,)) of the fit at the selected values, or None (fit it yourself)
    """
    gA, extA = grid_of(est.gamma_A, LAPRLS_GAMMA_A_GRID, "gamma_A")
    gI, extI = grid_of(est.gamma_I, [0.0], "gamma_I", allow_zero=True)
    n, l = M.shape[0], S.size
    if gA is None and gI is None:
        return float(est.gamma_A), float(est.gamma_I), None, None
    # the estimator's gate (Y here may be centred: the gate needs to know the constant is free)
    if not getattr(est, "_loo_selects", loo_selects(Y, is_classifier(est))):
        return (*unselected_gammas(est, FALLBACK_GAMMA_A, UNSELECTED_GAMMA_I), None, None)
    if n > AUTO_MAX_N:
        ga, gi = unselected_gammas(est, *fallback, warn_grid=False)
        warn(f"gamma_A/gamma_I='auto' needs the dense {n} x {n} kernel (limit {AUTO_MAX_N} points); the "
             f"fallback values gamma_A={ga:g}, gamma_I={gi:g} are used (of one's own grid: its value nearest "
             f"{fallback[0]:g}, {fallback[1]:g}). Pass numbers.", SelectionWarning)
        return ga, gi, None, None
    groups = getattr(est, "_loo_groups", None)       # identical labeled points: left out together
    K = make_K()
    if gI is None:                 # gamma_I fixed: each gamma_A is its own ratio
        mp = ManifoldRidgePath(K, S, M, consistency=consistency)
        gi = float(est.gamma_I)
        Y2 = np.asarray(Y, dtype=np.float64).reshape(l, -1)

        def evaluate(gamma_A):
            score, tie = np.full(gamma_A.size, -np.inf), np.full(gamma_A.size, -np.inf)
            for j, ga in enumerate(gamma_A):      # each its own ratio: one LU each
                path = mp.candidate_path(gi / ga, fit_intercept)    # None: a numerically singular ratio
                if path is not None:
                    R = (centred_loo_residuals(path, Y2, [ga * l], groups) if centred
                         else path.loo_residuals(Y2, [ga * l], groups=groups))
                    (score[j],), (tie[j],) = loo_scores(R, Y2, loo_rows=loo_rows_of(est), loo_groups=groups)
            return score, tie

        res = select_grid(evaluate, {"gamma_A": gA}, extend=("gamma_A",), max_extensions=2 if extA else 0,
                          criterion="loo", warn_undefined=False)      # the fallback's warning below says it
        if not np.isfinite(res.scores).any():
            # one's own grid: its value nearest the fallback (the fallback itself lay outside the grid)
            ga = unselected_gammas(est, *fallback, warn_grid=False)[0]
            warn(f"gamma_A: no value of the grid gives a usable system with gamma_I={gi:g}; the fallback "
                 f"gamma_A={ga:g} is used (of one's own grid: its value nearest {fallback[0]:g}). Pass numbers "
                 "or a smaller sigma.", SelectionWarning)
            return ga, gi, None, None
        ga = res.best_params["gamma_A"]
        res.best_params["gamma_I"] = gi
        return ga, gi, res, mp.coef(Y2, ga, gi / ga, fit_intercept=fit_intercept)
    if not extI:
        # one's own gamma_I grid (with a gamma_A grid, or gamma_A fixed): each gamma_A with the ratios of that grid
        # to it (the pooled ratios crossed with every gamma_A gave gamma_I values outside the grid); the table is
        # the whole (gamma_A, gamma_I) grid (it held the rows of the best gamma_A only), its best is the choice.
        # Through select_grid: the grids are not extended (not even an "auto" gamma_A: the Nystrom path's choice
        # on the same grid must stay that of the dense path, whose extreme ratios gI / gamma_A are refused as
        # numerically singular), but a choice at their edge is reported (no SelectionWarning was ever given here)
        gA = np.array([float(est.gamma_A)]) if gA is None else gA
        rows = {}

        def evaluate(gamma_A, gamma_I):
            for ga in gamma_A:
                if float(ga) in rows:                # each row once
                    continue
                try:
                    r, alpha, b = select_manifold_gammas(K, S, Y, M, [float(ga)], gI / float(ga),
                                                         consistency=consistency, fit_intercept=fit_intercept,
                                                         extend=False, max_extensions=0, return_coef=True,
                                                         centred=centred, loo_rows=loo_rows_of(est),
                                                         loo_groups=groups)
                    # ratios gI / ga: the order of the (sorted, distinct) gI
                    rows[float(ga)] = (r.scores[:, 0], (alpha, b))
                except np.linalg.LinAlgError:      # every ratio of this gamma_A singular: the others may do
                    rows[float(ga)] = (np.full(gI.size, -np.inf), None)
            return np.array([rows[float(ga)][0] for ga in gamma_A])

        res = select_grid(evaluate, {"gamma_A": gA, "gamma_I": gI}, criterion="loo", report=("gamma_A", "gamma_I"),
                          warn_undefined=False)
        if not np.isfinite(res.scores).any():
            ga, gi = unselected_gammas(est, *fallback, warn_grid=False)     # inside one's own grids
            warn("gamma_A/gamma_I: no gamma_A of the grid gives a usable system with the given gamma_I values; "
                 f"the fallback values gamma_A={ga:g}, gamma_I={gi:g} are used (of one's own grid: its value "
                 f"nearest {fallback[0]:g}, {fallback[1]:g}). Pass numbers or a smaller sigma.", SelectionWarning)
            return ga, gi, None, None
        # that row's own choice is the same gamma_I (ties: the larger ratio, i.e. the larger gamma_I)
        return (float(res.best_params["gamma_A"]), float(res.best_params["gamma_I"]), res,
                rows[float(res.best_params["gamma_A"])][1])
    if gA is None:                 # gamma_A fixed, gamma_I "auto": the default (scale-relative) ratio axis
        gamma_As, ratios, ext = [float(est.gamma_A)], None, True
    elif extA and extI:
        gamma_As, ratios, ext = None, None, True
    else:                          # one's own gamma_A grid, gamma_I "auto" (the default ratio axis)
        gamma_As, ratios, ext = gA, None, False
    max_extensions = 1
    if gA is not None and not extA and extI:
        # one's own gamma_A grid, gamma_I "auto": not extended, but a gamma_A at its edge is reported
        # (the default ratio axis is bounded: its edges are no warning)
        ext, max_extensions = True, 0
    try:
        res, alpha, b = select_manifold_gammas(K, S, Y, M, gamma_As, ratios, consistency=consistency,
                                               fit_intercept=fit_intercept, extend=ext,
                                               max_extensions=max_extensions, return_coef=True, centred=centred,
                                               loo_rows=loo_rows_of(est), loo_groups=groups)
    except np.linalg.LinAlgError as exc:       # every ratio numerically singular (e.g. a near-constant kernel)
        ga, gi = unselected_gammas(est, *fallback, warn_grid=False)
        warn(f"gamma_A/gamma_I='auto': {exc} No ratio of the grid gives a usable system; the fallback values "
             f"gamma_A={ga:g}, gamma_I={gi:g} are used. Pass numbers or a smaller sigma.", SelectionWarning)
        return ga, gi, None, None
    return res.best_params["gamma_A"], res.best_params["gamma_I"], res, (alpha, b)


_GRAPH_PARAMS_DOC = r"""graph : {{"knn", "epsilon"}}, GraphSpec or adjacency, default="knn"
        Graph on the training rows, built by :class:`~graphrkhs.GraphSpec` from the
        parameters below (the defaults of :func:`~graphrkhs.knn_graph`); a
        ``GraphSpec`` replaces ``n_neighbors``, ``radius``, ``weight`` and
        ``graph_sigma``; an adjacency (sparse/dense array, pygsp or networkx
        graph) of shape (n, n) over the rows of X is used as is.
    n_neighbors : int, default=10
        k of the kNN graph (the usual 10, as in :func:`~graphrkhs.knn_graph`).
    radius : float, optional
        Radius of the epsilon graph (required with ``graph="epsilon"``).
    weight : {{"gaussian", "binary", "self-tuning"}}, default="gaussian"
        Edge weights (:func:`~graphrkhs.knn_graph`).
    graph_sigma : float, optional
        Gaussian edge-weight width of the graph, :func:`~graphrkhs.knn_graph`'s ``sigma``
        (None: the mean neighbour distance).  Named ``graph_sigma`` because ``sigma``
        is the width of the point-cloud kernel here.
    laplacian : {{"combinatorial", "normalized", "randomwalk"}}, default="combinatorial"
    laplacian_power : int, default=1
        p in :math:`f^T L^p f` (Belkin et al.: p = 1 unless stated).
    solver : {{"auto", "direct", "cg", "nystrom"}}, default="auto"
        "direct": dense LU; "cg": conjugate gradients (kernel products in bounded
        row blocks when the n x n Gram matrix does not fit in 4 GiB); "nystrom":
        the function restricted to the span of the kernel at Nystrom landmarks,
        an r x r system with the graph term as sparse products
        (:mod:`graphrkhs.solvers._lowrank`; exact when the landmarks are all the
        points, up to the directions of :math:`K_{{ZZ}}` below its rounding,
        which the factor drops -- PLapRLS's heat penalty is not negligible
        there: 1e-3 off the direct fit on 200 two-moons points; no n x n array;
        "auto" parameters by exact LOO of the low-rank smoother for LapRLS).  "auto": the exact solver up to 10000 points
        (direct up to {direct_max}), "nystrom" above.
    n_components : int, default=1000
        Cap on the Nystrom landmarks; fewer are used when the estimated relative
        trace error of :math:`K \approx FF^T` is below 1e-2
        (:class:`~graphrkhs.NystromFeatures`).  The fitted factor is ``nystrom_``.
    landmarks : {{"kmeans", "uniform"}}, default="kmeans"
        Nystrom landmarks: mini-batch k-means centres or a uniform sample.
    tol : float, default=1e-6
        CG tolerance.
    max_iter : int, optional
        CG iteration cap (default n).
    verbose : bool or None, default=None
        Progress bars (tqdm) of the long steps of ``fit`` and ``predict`` (graph, solves):
        True / False switch them on / off for everything inside; None follows the
        caller (an enclosing ``verbose=``, the command line) or the ``graphrkhs`` logger.
    random_state : int, Generator or None
        Seeds the Nystrom landmarks (k-means or the uniform sample; ``solver="nystrom"``, which
        "auto" takes above 10000 points: its fit then depends on the seed, and with None differs
        between fits), the approximate kNN backends, and, in LapRLS, the landmarks of the joint
        ``sigma`` / ``gamma_A`` / ``gamma_I`` = "auto" selection's low-rank surrogate (more than 256
        points; None: the seed 0 there, so that the default selection is the same in every fit;
        PLapRLS has no such selection).
    unlabeled : hashable or None, default=-1
        Classifiers only: the marker of unlabeled rows, see :mod:`graphrkhs.estimators._base`
        (labels {{-1, +1}} need ``unlabeled=None``)."""


# The end of the LapRLS and PLapRLS docstrings (a format template, like them).
_GRAPH_LEARNER_DOC_TAIL = r"""    solver_info_ : dict
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

_LAPRLS_DOC = r"""Laplacian RLS {what} (Belkin, Niyogi & Sindhwani, JMLR 2006).

    .. math:: \min_{{f\in H_K}} \frac1l \sum_{{i\in S}} (y_i - f(x_i))^2 + \gamma_A \|f\|_K^2
       + \frac{{\gamma_I}}{{n^2}} \mathbf f^T L^p \mathbf f,
       \qquad (J K + \gamma_A l I + \tfrac{{\gamma_I l}}{{n^2}} L^p K)\,\alpha = J y.

    Parameters
    ----------
    kernel, sigma, degree, coef0 : as in :class:`RLS{kind}`.
    gamma_A : float > 0, "auto" or sequence, default="auto"
        Ambient (RKHS) weight (Belkin et al. use :math:`\gamma_A l` of order
        1e-6 .. 1e-2).  "auto" (with ``gamma_I``): exact leave-one-out on the
        labeled points through the warped kernel's ridge path
        (:func:`~graphrkhs.select_manifold_gammas`: one n x n LU per ratio
        :math:`\gamma_I/\gamma_A` on a scale-relative grid of 0 and two ratios, the fit
        from the same LU; up to 6000 points, above
        that 1e-6 and 100 with a warning; when the labels cannot select -- fewer
        than 3, or every class labeled once, :ref:`ug_one_label` -- 1e-6 and 1e6, a
        graph-dominated fit); the values used are ``gamma_A_``,
        ``gamma_I_``, the scores ``cv_results_``.  With ``sigma``, ``gamma_A`` and
        ``gamma_I`` all "auto" (Gaussian kernel, up to 6000 points) the width is chosen
        jointly with them by LapRLS's own exact LOO on a low-rank surrogate of each
        width's kernel (256 Nystrom landmarks), then one exact LU at the selected
        point (:func:`~graphrkhs.select_laprls_lowrank`; ``cv_results_`` then holds the
        surrogate's scores over sigma, ratio and gamma_A); otherwise ``sigma="auto"``
        takes the width of the best leave-one-out RLS on the labeled points.
        Regressors centre y and restore its mean (``fit_intercept``; "auto" also does it
        for classifiers on the linear kernel); on the linear kernel the points are centred
        on the labeled mean as well, which makes the constant exactly free under the
        combinatorial Laplacian (``x_offset_``).
    gamma_I : float >= 0, "auto" or sequence, default="auto"
        Intrinsic weight, scaled :math:`\gamma_I / n^2` as in the paper, which
        makes useful values large: with n = 1797 and k = 10 neighbours the
        default gives :math:`\gamma_I l / n^2 \approx 3 \cdot 10^{{-3}}` per labeled point.
        0 gives RLS on the labeled points, with the constant of ``fit_intercept`` below: without it
        :class:`RLS{kind}` with ``alpha=gamma_A`` and ``fit_intercept=False``, with it that RLS fitted to
        the centred y plus the mean (:class:`RLS{kind}`'s own ``fit_intercept``, an unpenalized constant,
        is another fit) -- except on the linear kernel, whose centred points make the centring the
        unpenalized constant: there it is :class:`RLS{kind}` with ``alpha=gamma_A`` and its own
        ``fit_intercept``.  With one's own grids of both, ``cv_results_`` is
        their ``(gamma_A, gamma_I)`` table; a pair whose system is numerically singular scores -inf.
        With one's own ``gamma_I`` grid, ``gamma_A="auto"`` is scored on its default grid without
        extending it (unlike "auto" elsewhere); a choice at its edge is reported (SelectionWarning).
        Below that grid each given ``gamma_I`` makes larger ratios :math:`\gamma_I/\gamma_A`, where the
        system becomes numerically singular (refused), and the low-rank (Nystrom) path must choose on the
        same grid as the dense one.  Pass a ``gamma_A`` grid to go further.
    fit_intercept : bool or "auto", default="auto"
        A free constant by centring: y less its labeled mean is fitted and the mean added back to
        every prediction (on the linear kernel the points are centred on their labeled mean as well,
        ``x_offset_``).  "auto": for regressors, and for classifiers on the linear kernel.  Not the
        unpenalized constant of :class:`RLS{kind}`'s ``fit_intercept`` (see ``gamma_I``), except on the
        linear kernel, where the centred points make it that constant.
    {graph}

    Attributes
    ----------
    {attr}X_fit_ : ndarray of shape (n, d)
        All training points (less ``x_offset_`` when it is not None; the Nystrom path: its landmarks).
    x_offset_ : ndarray of shape (d,) or None
        The labeled points' mean, subtracted from every point (training and new) on the linear
        kernel with a free constant; None otherwise.
    coef_ : ndarray of shape (n, k)
        Kernel coefficients.
""" + _GRAPH_LEARNER_DOC_TAIL


class LapRLSClassifier(ClassifierOutputMixin, _LapRLS):
    __doc__ = _LAPRLS_DOC.format(
        what="classifier", kind="Classifier", graph=_GRAPH_PARAMS_DOC.format(direct_max=20000),
        attr="classes_ : ndarray\n        The class labels.\n    ", name="LapRLSClassifier",
        y="np.array([0] + [-1] * 18 + [1])", check="est.predict([[0.1], [0.9]]).tolist()", out="[0, 1]")


class LapRLSRegressor(RegressorOutputMixin, _LapRLS):
    __doc__ = _LAPRLS_DOC.format(
        what="regressor", kind="Regressor", graph=_GRAPH_PARAMS_DOC.format(direct_max=20000), attr="",
        name="LapRLSRegressor", y="np.r_[0.0, [np.nan] * 18, 1.0]",
        check="bool(est.predict([[0.0]])[0] < est.predict([[1.0]])[0])", out="True")


# ---------------------------------------------------------------------------
# PRLS
# ---------------------------------------------------------------------------

_PRLS_CONSTRAINTS = {
    "integral_operator": [Options(*INTEGRAL_OPERATORS)],
    "m": [Interval("int", 1, None), None],
    "null_space": [_NullSpaceOrCallable()],
}


class _PRLS(_KernelLearner):
    #: the regressor warns when y has no NaN and targets at -1 (RegressorOutputMixin._encode_targets)
    _UNLABELED_ROWS_HELP = True
    _WIDTH_POINTS = WIDTH_POINTS_SUPERVISED
    _SOLVES_IN_FLOAT64 = True       # the grams and the solve in float64 (_fit_kernel)
    _parameter_constraints = {"gamma": TUNABLE_NONNEG, **_PRLS_CONSTRAINTS,
                              "solver": [Options("auto", "exact", "nystrom")],
                              "n_components": [Interval("int", 1, None)],
                              "landmarks": [Options("kmeans", "uniform")], "random_state": ["random_state"]}

    def __init__(self, *, kernel: Kernel = "gaussian", sigma: Union[float, str, None] = "auto", degree: int = 3,
                 coef0: float = 1.0, gamma: Union[float, str] = "auto", integral_operator: str = "empirical",
                 m: Optional[int] = None, null_space: NullSpace = "constant", verbose: Optional[bool] = None,
                 solver: str = "auto", n_components: int = 1000, landmarks: str = "kmeans",
                 random_state: Optional[Union[int, np.random.Generator]] = None):
        self._store_init_params(locals())

    def _check_params(self):
        self._check_heat_kernel()

    def _select_width(self, XS, Y):
        """The RLS width, its SelectionWarnings held back: when PRLS's own LOO refines the width
        (:meth:`_fit_kernel`) the warning about the RLS choice named a width the fit did not use (sigma=19 at
        the edge of the RLS grid while ``sigma_`` was 13.4)."""
        with held_selection_warnings() as held:
            res = super()._select_width(XS, Y)
        self._held_width_warnings = held
        return res

    def _release_width_warnings(self, held, refined):
        """Re-emit the RLS width selection's warnings; after a refinement (``refined``: the widths tried, the
        RLS grid's and the refinement's, and the RLS grid's extensions) those naming ``sigma`` are replaced by
        the edge report of the width used on the widths tried."""
        release_selection_warnings(held, drop=("sigma",) if refined is not None else ())
        if refined is not None:
            report_grid_edge("sigma", self.sigma_, np.unique(refined[0]), refined[1])

    def _fit_kernel(self, X, labeled, Y):
        """The empirical integral operator uses all rows of X, "heat" only the labeled ones."""
        held = self.__dict__.pop("_held_width_warnings", [])
        width_result = getattr(self, "_width_result", None)
        refined = None
        try:
            tried = self._fit_prls(X, labeled, Y)
            if tried is not None and width_result is not None:
                refined = (np.r_[width_result.grid["sigma"], tried[0]], width_result.n_extensions + tried[1])
        finally:
            self._release_width_warnings(held, refined)

    def _fit_prls(self, X, labeled, Y):
        """The fit; returns ``(widths, n_extensions)`` of the refinement by PRLS's own LOO (None without one)."""
        X_fit = X[labeled]
        refined = None
        shift = self._constant_shift(Y)
        if shift is not None:
            Y = Y - shift
        # the grams in float64 whatever X's dtype: the selection goes down to small gamma, where
        # float32 grams make the final system indefinite at rounding level
        X = np.asarray(X, dtype=np.float64)
        XS = X[labeled]
        nystrom = self.integral_operator == "empirical" and self._use_nystrom(X.shape[0])
        if nystrom:
            # K_nn only through its Nystrom factor (the n^2 part of the empirical grams); the width
            # stays the RLS choice (a refinement would rebuild the factor per width)
            F = self._nystrom_features(X).features_
            K, Kp, Kpp, self.kappa_ = nystrom_consistency_grams(XS, X, F, **self._kernel_kw())
        else:
            grams = None
            if self._refines_width(nystrom) and self.integral_operator == "empirical":
                # the three widths of the refinement from one pass over the distances (K_{s'} = K_s^{(s/s')^2})
                sigmas = self.sigma_ * np.array([2 ** -0.5, 1.0, 2 ** 0.5])
                grams = dict(zip(sigmas.tolist(), consistency_grams_widths(XS, X, sigmas)))
                K, Kp, Kpp, self.kappa_ = grams[float(sigmas[1])]
            else:
                K, Kp, Kpp, self.kappa_ = consistency_grams(XS, X, integral_operator=self.integral_operator,
                                                            m=self.m, **self._kernel_kw())
        Psi = self._null_space(XS)
        self.__dict__.pop("_width_result", None)
        grid, extend = grid_of(self.gamma, PRLS_GAMMA_GRID, "gamma", allow_zero=True)
        res = None
        if grid is None:
            self.gamma_ = float(self.gamma)
        elif not self._loo_selects:
            self.gamma_ = unselected(self.gamma, FALLBACK_GAMMA, "gamma", allow_zero=True)
        elif not (grid > 0).any():
            self.gamma_ = 0.0
        else:   # exact LOO (PRLS's expansion loses K(x_i, .) with label i: a downdate, not the hat matrix)
            make, sigmas = None, None
            if self._refines_width(nystrom):
                # the RLS width refined by PRLS's own LOO: that width and its neighbours by sqrt(2)
                kw = self._kernel_kw()
                sigmas = self.sigma_ * np.array([2 ** -0.5, 1.0, 2 ** 0.5])
                if grams is None:
                    grams = {float(self.sigma_): (K, Kp, Kpp, self.kappa_)}

                def make(s):
                    if float(s) not in grams:
                        grams[float(s)] = consistency_grams(XS, X, integral_operator=self.integral_operator,
                                                            m=self.m, **{**kw, "sigma": s})
                    return grams[float(s)][:3]
            # one's own gamma grid is not extended, but a choice at its edge is reported (SelectionWarning); the
            # refined width grows while PRLS's LOO still improves at an end of its three widths (it stopped
            # there, and the choice at the RLS grid's end was reported "after 0 extension(s)": 2 of 24 default
            # fits on circles / moons / iris / wine / cancer / digits); its edge is reported once, below, on
            # every width tried (the selection's own report about it is dropped)
            with held_selection_warnings() as held_prls:
                res = select_prls_gamma(K, Kp, Kpp, Y, grid[grid > 0], Psi=Psi,
                                        extend=growing(sigma=make is not None, gamma=extend), max_extensions=2,
                                        make_grams=make, sigmas=sigmas, loo_rows=loo_rows_of(self),
                                        loo_groups=self._loo_groups)
            release_selection_warnings(held_prls, drop=("sigma",))
            self.gamma_ = res.best_params["gamma"]
            refined = None if sigmas is None else (res.grid["sigma"], res.n_extensions)
            if sigmas is not None and res.best_params["sigma"] != self.sigma_:
                self.sigma_ = res.best_params["sigma"]
                K, Kp, Kpp, self.kappa_ = grams[float(self.sigma_)]      # computed by the selection
        self.cv_results_ = None if res is None else res.cv_results_
        coef, intercept = prls_fit(K, Kp, Kpp, Y, self.gamma_, Psi)
        # the float64 solution (as RLS's): rounding it to float32 points' dtype cost up to 1e-4 of the
        # predictions near interpolation, where the coefficients are 1e3 - 1e4 times the fitted values
        self.coef_, self.intercept_ = coef, intercept
        self._add_constant(shift)
        self.X_fit_ = X_fit
        return refined

    def _refines_width(self, nystrom):
        """``sigma="auto"`` on the exact path: the RLS width is refined by PRLS's own LOO."""
        return (not nystrom and is_tuned(self.sigma) and self._width_matters() and isinstance(self.sigma, str)
                and self._loo_selects)

    def _raw_block(self, X):
        # in float64, returned in the points' dtype (the cancellation of large coefficients, see _LapRLS)
        return _in_float64(self._k, X, self.X_fit_, self.coef_ / self.kappa_, 0.0, self._null_space,
                           self.intercept_)


#: Default grid of PRLS / G-RLS ``gamma="auto"`` (the penalty in the normalized kernel's RKHS norm).
PRLS_GAMMA_GRID = np.geomspace(1e-6, 1e2, 5)
GRLS_GAMMA_GRID = np.geomspace(1e-7, 1e1, 17)
#: Used when the labels cannot select (:func:`~graphrkhs.estimators._auto.loo_selects`), the width at the
#: centre of its grid.  At one label per class the uninformative LOO had gone to gamma = 1e10 (PRLS: 14 %
#: of the digits, chance) where this value labels 58.6 %, level with RLS.
FALLBACK_GAMMA = 1e-3
#: Why G-RLS's ``gamma`` is not selected with enough labels for the gate: LOO refits interpolate by the features.
GRLS_FEW_LABELS = "leave-one-out needs more labeled points than features + 1"


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
    gamma : float >= 0, "auto" or sequence, default="auto"
        Weight of :math:`\|f - L_K f\|_K^2` (in the RKHS norm of the Gaussian of
        width sigma, see :func:`~graphrkhs.consistency_grams`).  "auto": exact
        leave-one-out on the labeled points (one solve per gamma,
        :func:`~graphrkhs.prls_loo_errors`) over ``geomspace(1e-6, 1e2, 5)``,
        extended at its edges (:func:`~graphrkhs.select_prls_gamma`); a sequence: one's
        own grid; a number: that value.  The value used is ``gamma_``, the scores
        ``cv_results_``; ``sigma="auto"`` takes the width of the best
        leave-one-out RLS (free constant) on the labeled points and refines it with
        PRLS's own exact LOO over that width times :math:`2^{{-1/2}}, 1, 2^{{1/2}}`, grown by the same
        factor while the best is at an end (at most 2 x 3 more widths).
        When the labels cannot select (fewer than 3, or every class labeled once,
        :ref:`ug_one_label`): 1e-3 at the median pairwise distance.
    integral_operator : {{"empirical", "heat"}}, default="empirical"
        How :math:`L_K` is computed.  "heat": the paper's Eq. (16), Gaussian =
        heat kernel with a uniform density, :math:`K' = K_{{2t}}, K'' = K_{{3t}}`
        (in high dimension :math:`K', K''` shrink like :math:`2^{{-m/2}}` and PRLS
        becomes RLS with a free constant — set ``m`` to the intrinsic
        dimension).  "empirical" (default): :math:`L_K` by the empirical
        measure of all rows (labeled and unlabeled), with the kernel normalized
        by its mean; it needs no density or dimension assumption.
    m : int, optional
        Intrinsic dimension for "heat" (default: the number of features).  Below the
        number of features d, :math:`K - 2K' + K''` is indefinite unless the points lie
        on an m-dimensional flat (the Gaussian is the heat kernel of :math:`\mathbb R^m`
        only there); its positive semidefinite part is then used, with a warning
        (see :func:`~graphrkhs.plaprls_fit`).
    null_space : "constant", "none"/None or callable, default="constant"
        Basis :math:`\mu_j` of the unpenalized functions; a callable maps X
        (n, d) to (n, o).
    solver : {{"auto", "exact", "nystrom"}}, default="auto"
        How the empirical grams get :math:`K_{{nn}}` (n^2 kernel values): exactly, or
        through Nystrom features (:func:`~graphrkhs.nystrom_consistency_grams`, exact
        when the landmarks are all the points).  "auto": exact up to 10000 rows.
        "heat" never needs it.
    n_components, landmarks, random_state :
        The Nystrom factor (:class:`~graphrkhs.NystromFeatures`; cap 1000 landmarks, k-means).
    verbose : bool or None, default=None
        Progress bars (tqdm) of the long steps of ``fit`` and ``predict`` (graph, solves):
        True / False switch them on / off for everything inside; None follows the
        caller (an enclosing ``verbose=``, the command line) or the ``graphrkhs`` logger.
    unlabeled : hashable or None, default=-1
        Classifiers only: the marker of unlabeled rows, see :mod:`graphrkhs.estimators._base`
        (labels {{-1, +1}} need ``unlabeled=None``).

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
    gamma_ : float
        The weight used.
    cv_results_ : dict or None
        Leave-one-out scores of the grid (None when ``gamma`` is a number).

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import {name}
    >>> X = np.linspace(0, 1, 20)[:, None]
    >>> est = {name}(sigma=0.2, gamma=1e3).fit(X, {y})
    >>> {check}
    {out}
    """


class PRLSClassifier(ClassifierOutputMixin, _PRLS):
    __doc__ = _PRLS_DOC.format(what="classifier", kind="Classifier", attr="classes_ : ndarray\n        The class labels.\n    ",
                               name="PRLSClassifier", y='np.where(X[:, 0] < 0.5, "lo", "hi")',
                               check="est.predict([[0.1], [0.9]]).tolist()", out="['lo', 'hi']")


class PRLSRegressor(RegressorOutputMixin, _PRLS):
    __doc__ = _PRLS_DOC.format(what="regressor", kind="Regressor", attr="", name="PRLSRegressor",
                               y="np.full(20, 7.0)", check="np.allclose(est.predict([[0.3], [5.0]]), 7.0)",
                               out="True")


# ---------------------------------------------------------------------------
# PLapRLS
# ---------------------------------------------------------------------------

class _PLapRLS(_GraphKernelLearner):
    #: the regressor warns when y has no NaN and targets at -1 (RegressorOutputMixin._encode_targets)
    _UNLABELED_ROWS_HELP = True
    _parameter_constraints = {**_PRLS_CONSTRAINTS, "gamma_A": TUNABLE_POSITIVE, "gamma_I": TUNABLE_NONNEG}

    def __init__(self, *, kernel: Kernel = "gaussian", sigma: Union[float, str, None] = "auto", degree: int = 3,
                 coef0: float = 1.0, gamma_A: Union[float, str] = "auto", gamma_I: Union[float, str] = "auto",
                 integral_operator: str = "empirical", m: Optional[int] = None, null_space: NullSpace = "constant",
                 graph: Union[str, GraphSpec, object] = "knn", n_neighbors: int = 10, radius: Optional[float] = None,
                 weight: str = "gaussian", graph_sigma: Optional[float] = None, laplacian: str = "combinatorial",
                 laplacian_power: int = 1, solver: str = "auto", tol: float = 1e-6, max_iter: Optional[int] = None,
                 verbose: Optional[bool] = None, random_state: Optional[Union[int, np.random.Generator]] = None,
                 n_components: int = 1000, landmarks: str = "kmeans"):
        self._store_init_params(locals())

    def _check_params(self):
        self._check_heat_kernel()

    def _fit_kernel(self, X, labeled, Y):
        """All rows of X (labeled and unlabeled)."""
        M = self._penalty(X)
        shift = self._constant_shift(Y, M)
        if shift is not None:
            Y = Y - shift
        self._fit_centred(X, labeled, Y, M)
        self._add_constant(shift)

    def _fit_centred(self, X, labeled, Y, M):
        if self._use_nystrom(X.shape[0]):
            return self._fit_nystrom(X, labeled, Y, M)
        kw = self._kernel_kw()
        self.__dict__.pop("_width_result", None)
        if self._auto_gammas(X, labeled, Y, M):
            return
        # the direct solve on grams of float64 points whatever X's dtype, as LapRLS's (_LapRLS._fit_kernel): the
        # dense solve is in float64 anyway, but from a float32 gram's rounded entries, amplified by the
        # system's conditioning (gamma_A = 1e-8, 600 points: the fit 1e-4 off the float64 one on the same
        # points, 3e-4 for the classifier); CG keeps X's dtype (its kernel products in row blocks)
        direct = self.solver == "direct" or (self.solver == "auto" and X.shape[0] <= DIRECT_MAX_N_HEAT)
        if direct:
            # plaprls_fit's own estimate (kept equal to it), before the O(n^2 d) kernel pass of kappa below
            # (n = 30000: its refusal came after 21 s; at 10^5 points after minutes)
            n = X.shape[0]
            memory_guard(5 * n * n * 8, f"the dense PLapRLS system on {n} points",
                         "use solver='cg' with integral_operator='empirical'.")
        Xk = np.asarray(X, dtype=np.float64) if direct else X
        K = KernelOperator(Xk, **kw)
        if self.integral_operator == "empirical":
            self.kappa_ = float(K.matmat(np.ones(X.shape[0], dtype=Xk.dtype)).mean()) / X.shape[0]
            if not np.isfinite(self.kappa_) or self.kappa_ <= 0:
                raise ValueError(f"integral_operator='empirical' needs a kernel with positive mean; "
                                 f"got {self.kappa_:g}.")
            K.rescale(1.0 / self.kappa_)
            P = None
        else:
            self.kappa_ = 1.0
            P = KernelOperator(Xk, kernel="heat_penalty", sigma=self.sigma_, m=self.m,
                               cache_bytes=0 if not K.is_dense else 4 * 2**30 - K.n * K.n * Xk.dtype.itemsize)
            if self.m is not None and self.m < X.shape[1] and not direct:
                warn(f"integral_operator='heat' with m={self.m} below the number of features ({X.shape[1]}): the "
                     "penalty K_t - 2K_2t + K_3t can be indefinite, and CG uses it as it is (the direct solve "
                     "would use its positive semidefinite part). Pass m >= the number of features, "
                     "integral_operator='empirical', or solver='direct'.")
        try:
            self.coef_, self.intercept_, info = plaprls_fit(
                K, labeled, Y, M, self.gamma_A_, self.gamma_I_, P=P, Psi=self._null_space(X), solver=self.solver,
                tol=self.tol, max_iter=self.max_iter, return_info=True)
        except np.linalg.LinAlgError as exc:
            if P is None or direct:
                raise
            # CG on the heat penalty met negative curvature: say it with this estimator's arguments (plaprls_fit
            # names its P)
            below = self.m is not None and self.m < X.shape[1]
            raise np.linalg.LinAlgError(
                f"{type(self).__name__}: CG (solver={self.solver!r}) met a direction of non-positive curvature in the "
                f"system of integral_operator='heat'"
                + (f": with m={self.m} below the number of features ({X.shape[1]}) its penalty K_t - 2K_2t + K_3t "
                   f"is indefinite. Pass m >= {X.shape[1]} (or m=None, the number of features), "
                   if below else
                   f" (m={self.m}): the system is singular to rounding. Increase gamma_A, pass ")
                + "integral_operator='empirical', or solver='direct' (which uses the positive semidefinite part of "
                "the penalty)."
            ) from exc
        self._gram_float64 = Xk.dtype == np.float64      # CG: solved against the gram of X's dtype
        self._store_solver_info(info)
        self.X_fit_ = X

    def _auto_gammas(self, X, labeled, Y, M):
        r"""``gamma_A`` / ``gamma_I`` = "auto" or grids: exact LOO on :class:`~graphrkhs.ManifoldRidgePath`.

        PLapRLS with the empirical :math:`L_K` is kernel ridge with the kernel
        :math:`K(T^2 + \rho' M K)^{-1}`, :math:`T = I - K/n` (see
        :func:`~graphrkhs.select_manifold_gammas`); the constant of the null space is
        free when the graph penalty does not see it (combinatorial Laplacian).  Other
        settings (``integral_operator="heat"``, another null space or Laplacian) use
        the fallback values 1e-6, 100 with a warning.  Returns True when the fit is done.
        """
        # one's own grid: its values nearest the fallback ones (the warning below names them); when the labels
        # cannot select (one label per class) the graph-dominated UNSELECTED_GAMMA_I, as on every other path (the
        # heat operator kept 100 there: 0.800 against 0.850 on two moons)
        self.gamma_A_, self.gamma_I_ = unselected_gammas(
            self, FALLBACK_GAMMA_A, FALLBACK_GAMMA_I if self._loo_selects else UNSELECTED_GAMMA_I, warn_grid=False)
        self.cv_results_ = None
        if not (is_tuned(self.gamma_A) or is_tuned(self.gamma_I)):
            return False
        ns = self.null_space
        constant = isinstance(ns, str) and ns == "constant"
        if (self.integral_operator != "empirical" or callable(ns)
                or (constant and np.abs(M @ np.ones(M.shape[0])).max() > 1e-6 * max(abs(M).max(), 1e-300))):
            warn("gamma_A/gamma_I='auto' for PLapRLS needs integral_operator='empirical', null_space "
                 "'constant' or 'none', and with a constant the combinatorial Laplacian; the fallback values "
                 f"gamma_A={self.gamma_A_:g}, gamma_I={self.gamma_I_:g} are used. Pass numbers.", SelectionWarning)
            return False
        kappa = {}

        def make_K():
            # in float64 whatever X's dtype: the selection runs near interpolation (small gamma_A),
            # where a float32 kernel's rounding would change the choice
            K = np.asarray(self._k(X.astype(np.float64), None), dtype=np.float64)
            kappa["k"] = float(K.mean())
            if not np.isfinite(kappa["k"]) or kappa["k"] <= 0:
                raise ValueError(f"integral_operator='empirical' needs a kernel with positive mean; "
                                 f"got {kappa['k']:g}.")
            K /= kappa["k"]
            return K

        self.gamma_A_, self.gamma_I_, res, coef = manifold_selection(
            self, make_K, np.flatnonzero(labeled), Y, M, consistency=True, fit_intercept=constant,
            fallback=(FALLBACK_GAMMA_A, FALLBACK_GAMMA_I))
        if coef is None:
            return False
        self.cv_results_ = manifold_cv_results(res, self)
        self.kappa_ = kappa["k"]
        # the float64 solution (as RLS's; its float32 rounding cost 1e-4 of the predictions, see _LapRLS)
        self.coef_ = coef[0]
        self.intercept_ = coef[1][None, :] if constant else np.zeros((0, Y.shape[1]))
        self._store_solver_info({"solver": "direct"})
        self.X_fit_ = X
        return True

    def _fit_nystrom(self, X, labeled, Y, M):
        r"""PLapRLS in the Nystrom subspace (:func:`~graphrkhs.nystrom_plaprls_fit`): features of
        :math:`\hat K = K/\kappa` with :math:`\kappa = \|F^T 1\|^2/n^2` (empirical), or the heat penalty
        on the landmarks, :math:`T^T (K_t - 2K_{2t} + K_{3t})_{ZZ} T`."""
        # labels that cannot select (one label per class): the graph-dominated UNSELECTED_GAMMA_I of every other
        # path (100 was used here: 0.805 against the direct path's 0.850 on two moons, all points as landmarks)
        fallback_I = FALLBACK_GAMMA_I if self._loo_selects else UNSELECTED_GAMMA_I
        if self._loo_selects and (isinstance(self.gamma_A, str) or isinstance(self.gamma_I, str)):
            # (PLapRLS's solvers are 'auto', 'direct', 'cg', 'nystrom': 'exact' was advised here, and refused)
            warn(f"gamma_A/gamma_I='auto' for PLapRLS are not selected on the Nystrom path (solver='nystrom', or "
                 f"'auto' above {LOWRANK_MIN_N} points): the fallback values gamma_A={FALLBACK_GAMMA_A:g}, "
                 f"gamma_I={fallback_I:g} replace 'auto' (pass numbers, or solver='direct' or 'cg' on at most "
                 f"{AUTO_MAX_N} points).", SelectionWarning)
        # one's own grid: its value nearest the fallback, with a SelectionWarning (the grid was replaced)
        self.gamma_A_, self.gamma_I_ = unselected_gammas(
            self, FALLBACK_GAMMA_A, fallback_I,
            why=NO_LOO if not self._loo_selects else "PLapRLS's Nystrom path does not select it")
        self.cv_results_ = None
        ny = self._nystrom_features(X)
        F, T, n = ny.features_, ny.transform_matrix_, X.shape[0]
        if self.integral_operator == "empirical":
            s = F.sum(axis=0)
            self.kappa_ = float(s @ s) / (n * n)
            if not np.isfinite(self.kappa_) or self.kappa_ <= 0:
                raise ValueError(f"integral_operator='empirical' needs a kernel with positive mean; "
                                 f"got {self.kappa_:g}.")
            F, P = F / np.sqrt(self.kappa_), None
        else:
            self.kappa_ = 1.0
            K1, K2, K3 = heat_semigroup(ny.landmarks_, sigma=self.sigma_, m=self.m)
            P = T.T @ (np.asarray(K1, dtype=np.float64) - 2 * K2 + K3) @ T
        w, self.intercept_ = nystrom_plaprls_fit(F, labeled, Y, M, self.gamma_A_, self.gamma_I_, P=P,
                                                 Psi=self._null_space(X))
        # f = F_hat w = k(., Z) T w / sqrt(kappa) = (k(., Z) / kappa) coef_
        self.coef_ = T @ w * np.sqrt(self.kappa_)
        self.X_fit_ = ny.landmarks_
        self._store_solver_info({"solver": "nystrom", "rank": ny.rank_, "n_components": ny.n_components_,
                                 "nystrom_error": ny.error_})

    def _raw_block(self, X):
        # in float64, returned in the points' dtype (the cancellation of large coefficients, see _LapRLS)
        return _in_float64(self._k, X, self.X_fit_, self.coef_ / self.kappa_, 0.0, self._null_space,
                           self.intercept_, exact=getattr(self, "_gram_float64", True))


_PLAPRLS_DOC = r"""Partially-penalized Laplacian RLS {what} (Yang, King & Lyu, NIPS 2009, Eqs. 12-14).

    .. math:: \min \frac1l \sum_{{i\in S}} (y_i - f(x_i))^2 + \gamma_A \|f - L_K f\|_K^2
       + \frac{{\gamma_I}}{{n^2}} \mathbf f^T L^p \mathbf f,
       \quad f = \sum_{{i=1}}^n \alpha_i K_{{x_i}} + \sum_j \beta_j \mu_j .

    The normal equations are derived in :func:`~graphrkhs.plaprls_fit` (the
    printed Eq. 14 has sign misprints and :math:`\Psi^T\Psi` for :math:`\Psi^T J\Psi`).

    Parameters
    ----------
    kernel, sigma, degree, coef0 : as in :class:`RLS{kind}`.
    gamma_A : float > 0, "auto" or sequence, default="auto"
        Weight of :math:`\|f - L_K f\|_K^2`.  "auto" (with ``gamma_I``): exact
        leave-one-out on the labeled points along the ratio path of
        :func:`~graphrkhs.select_manifold_gammas` (one n x n LU per ratio
        :math:`\gamma_I/\gamma_A`, the fit itself from the same LU; up to 6000 points,
        empirical operator; otherwise 1e-6 and 100 with a warning; 1e-6 and 1e6 when
        the labels cannot select, :ref:`ug_one_label`).  Used values
        ``gamma_A_``, ``gamma_I_``, scores ``cv_results_``; ``sigma="auto"``: the width of
        the best leave-one-out RLS (free constant) on the labeled points.
    gamma_I : float >= 0, "auto" or sequence, default="auto"
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
""" + _GRAPH_LEARNER_DOC_TAIL


class PLapRLSClassifier(ClassifierOutputMixin, _PLapRLS):
    __doc__ = _PLAPRLS_DOC.format(
        what="classifier", kind="Classifier", graph=_GRAPH_PARAMS_DOC.format(direct_max=8000),
        attr="classes_ : ndarray\n        The class labels.\n    ", name="PLapRLSClassifier",
        y="np.array([0] + [-1] * 18 + [1])", check="est.predict([[0.1], [0.9]]).tolist()", out="[0, 1]")


class PLapRLSRegressor(RegressorOutputMixin, _PLapRLS):
    __doc__ = _PLAPRLS_DOC.format(
        what="regressor", kind="Regressor", graph=_GRAPH_PARAMS_DOC.format(direct_max=8000), attr="",
        name="PLapRLSRegressor", y="np.r_[5.0, [np.nan] * 18, 5.0]",
        check="np.allclose(est.predict([[0.5], [3.0]]), 5.0)", out="True")


# ---------------------------------------------------------------------------
# G-RLS
# ---------------------------------------------------------------------------

class _FeaturesOrCallable:
    def __call__(self, value):
        return callable(value) or value in ("constant", "linear", "poly2")

    def __str__(self):
        return "one of 'constant', 'linear', 'poly2' or a callable"


class _GRLS(_KernelLearner):
    #: the regressor warns when y has no NaN and targets at -1 (RegressorOutputMixin._encode_targets)
    _UNLABELED_ROWS_HELP = True
    _WIDTH_POINTS = WIDTH_POINTS_SUPERVISED
    _SOLVES_IN_FLOAT64 = True
    _parameter_constraints = {
        "gamma": TUNABLE_NONNEG,
        "features": [_FeaturesOrCallable()],
        "method": [Options("saddle", "constructed", "as_printed")],
    }

    def __init__(self, *, kernel: Kernel = "gaussian", sigma: Union[float, str, None] = "auto", degree: int = 3,
                 coef0: float = 1.0, gamma: Union[float, str] = "auto", features: Union[str, Callable] = "constant",
                 method: str = "saddle", verbose: Optional[bool] = None):
        self._store_init_params(locals())

    def _gamma_selection(self, XS, Y, sigmas, s_extend):
        r"""Exact LOO of the saddle-point system over (sigma, gamma): kernel ridge with the features unpenalized.

        One eigendecomposition per width (:func:`~graphrkhs.select_kernel_ridge` with
        ``unpenalized`` = the features, ridge :math:`m\gamma`).
        """
        Psi = feature_map(XS, self.features)
        unisolvent_points(Psi)            # the features must be unisolvent (ValueError otherwise)
        gammas, extend = _ridge_grid(self.gamma, GRLS_GAMMA_GRID, "gamma")
        fixed = gammas is None
        gammas = _ridge_axis(self.gamma) if fixed else gammas
        kw = self._kernel_kw()
        res = select_kernel_ridge(lambda s: pairwise_kernel(XS, None, **{**kw, "sigma": s}), Y, sigmas, gammas,
                                  ridge_scale="l", unpenalized=Psi, names={"alpha": "gamma"},
                                  extend=growing(sigma=s_extend, alpha=extend), max_extensions=2,
                                  loo_rows=loo_rows_of(self), loo_groups=self._loo_groups)
        if fixed:
            res = _report_fixed(res, "alpha", self.gamma)
        return res.renamed(alpha="gamma")       # the table names the estimator's parameter

    def _select_width(self, XS, Y):
        """G-RLS: the joint (sigma, gamma) selection."""
        if XS.shape[0] <= feature_map(XS[:1], self.features).shape[1] + 1:
            # l - 1 labels left for q features: the LOO refit interpolates them by the features whatever sigma
            # and gamma, so it cannot rank widths (the fallback values are used, as for gamma in _fit_kernel)
            self.sigma_ = unselected(self.sigma, self.sigma_, "sigma", why=GRLS_FEW_LABELS)
            return
        sigmas, s_extend = self._width_grid()
        res = self._gamma_selection(XS, Y, sigmas, s_extend)
        self.sigma_ = res.best_params["sigma"]
        self._width_result = res

    def _check_params(self):
        if self.method != "saddle" and (callable(self.kernel) or self.kernel not in ("gaussian", "heat")):
            raise ValueError(f"method={self.method!r} needs a strictly positive definite kernel ('gaussian'); "
                             f"got kernel={self.kernel!r}.")

    def _fit_kernel(self, X, labeled, Y):
        """The labeled rows only (G-RLS is supervised), in float64 as RLS's."""
        XS = np.asarray(X[labeled], dtype=np.float64)
        Y = np.asarray(Y, dtype=np.float64)
        Psi = feature_map(XS, self.features)
        self.anchors_ = unisolvent_points(Psi)     # raises when the features are not unisolvent
        self.X_fit_ = XS
        res = self.__dict__.pop("_width_result", None)
        if not is_tuned(self.gamma) or _ridge_grid(self.gamma, GRLS_GAMMA_GRID, "gamma")[0] is None:
            self.gamma_ = _fixed_ridge(self.gamma)
        elif XS.shape[0] <= Psi.shape[1] + 1 or not self._loo_selects:      # LOO needs more labels than features
            self.gamma_ = unselected(self.gamma, FALLBACK_GAMMA, "gamma", allow_zero=True,
                                     why=NO_LOO if not self._loo_selects else GRLS_FEW_LABELS)
        else:
            if res is None:
                res = self._gamma_selection(XS, Y, [self.sigma_], False)
            self.gamma_ = res.best_params["gamma"]
        self.cv_results_ = None if res is None else res.cv_results_
        if self.method == "saddle":
            self.coef_, self.intercept_ = grls_fit(self._k(XS, None), Psi, Y, self.gamma_)
        else:
            kw = self._kernel_kw()
            # the labeled rows in the lexicographic order of their coordinates: the anchors are chosen by pivoted
            # QR, whose ties (every row with constant features) went to the first row, so the printed form's fit
            # (it depends on the anchors) moved with the order of the training rows (0.02 of the predictions,
            # 5 of 200 classes flipped)
            order = np.lexsort(XS.T[::-1])
            XS, Y = XS[order], Y[order]
            self.X_fit_ = XS
            self.kernel_ = GRLSKernel(XS, features=self.features, kernel=kw["kernel"], sigma=kw["sigma"])
            self.anchors_ = self.kernel_.anchors
            self.intercept_, self.coef_, self.rest_ = grls_fit_constructed(
                self.kernel_, XS, Y, self.gamma_, as_printed=self.method == "as_printed")

    def _raw_block(self, X):
        dtype, X = X.dtype, np.asarray(X, dtype=np.float64)     # the points' dtype back (float32 stays)
        if self._param("method") == "saddle":
            out = self._k(X, self.X_fit_) @ self.coef_ + feature_map(X, self._param("features")) @ self.intercept_
        else:
            out = self.kernel_.lagrange(X) @ self.intercept_
            if self.rest_.size:
                out = out + self.kernel_.H(X, self.X_fit_[self.rest_]) @ self.coef_
        return out.astype(dtype, copy=False)


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
    gamma : float >= 0, "auto" or sequence, default="auto"
        "auto": exact leave-one-out of the saddle-point minimizer on the labeled
        points over ``geomspace(1e-7, 1e1, 17)`` (ridge :math:`m\gamma`, features
        unpenalized, one eigendecomposition per width, extended at its edges), jointly
        with ``sigma="auto"`` (the median pairwise distance of 300 evenly spaced rows times
        :math:`2^{{-2}}, \dots, 2`); ``method="as_printed"`` is scored as the saddle
        point.  The values used are ``gamma_``, ``sigma_``, the scores ``cv_results_``.
        When the labels cannot select (too few, or every class labeled once,
        :ref:`ug_one_label`): 1e-3 at the median pairwise distance.
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
    verbose : bool or None, default=None
        Progress bars (tqdm) of the long steps of ``fit`` and ``predict`` (graph, solves):
        True / False switch them on / off for everything inside; None follows the
        caller (an enclosing ``verbose=``, the command line) or the ``graphrkhs`` logger.
    unlabeled : hashable or None, default=-1
        Classifiers only: the marker of unlabeled rows, see :mod:`graphrkhs.estimators._base`
        (labels {{-1, +1}} need ``unlabeled=None``).

    Attributes
    ----------
    {attr}X_fit_ : ndarray of shape (m, d)
        The labeled points (for "constructed" and "as_printed": sorted lexicographically by
        their coordinates, so that the anchors do not depend on the order of the rows).
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


class GRLSClassifier(ClassifierOutputMixin, _GRLS):
    __doc__ = _GRLS_DOC.format(what="classifier", kind="Classifier", attr="classes_ : ndarray\n        The class labels.\n    ",
                               name="GRLSClassifier", y="(X[:, 0] > 0).astype(int)",
                               check="est.predict([[-4.0], [4.0]]).tolist()", out="[0, 1]")


class GRLSRegressor(RegressorOutputMixin, _GRLS):
    __doc__ = _GRLS_DOC.format(what="regressor", kind="Regressor", attr="", name="GRLSRegressor",
                               y="0.5 + 2.0 * X[:, 0]", check="np.allclose(est.predict([[10.0]]), 20.5)",
                               out="True")
