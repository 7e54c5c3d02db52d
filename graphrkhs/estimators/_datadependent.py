r"""scikit-learn estimators on data-dependent kernels (thin layers over
:mod:`graphrkhs.solvers` and :mod:`graphrkhs.kernels`).

* :class:`FredholmClassifier`, :class:`FredholmRegressor` -- Fredholm learning
  (Que, Belkin & Wang, NIPS 2014), square loss (RLS) or hinge loss (SVM);
* :class:`WarpedKernelClassifier`, :class:`WarpedKernelRegressor` -- RLS or SVM
  with the warped kernel of Sindhwani, Niyogi & Belkin (ICML 2005); RLS on it
  is LapRLS.

``fit(X, y)`` takes every point, labeled or not (``unlabeled``, default -1, or NaN
for classification, NaN for regression, as in :mod:`sklearn.semi_supervised`); the kernel is built on
all of them and the learner is fitted on the labeled ones; ``predict`` works on
any points.  Multi-class RLS is one-vs-rest on :math:`\pm 1` targets; the hinge
loss is :class:`sklearn.svm.SVC` on the precomputed kernel with
:math:`C = 1 / (2 \alpha l)`, i.e. the objective
:math:`\frac1l \sum_s \max(0, 1 - y_s f(x_s)) + \alpha \|f\|^2`, one-vs-rest
as well for more than two classes (one SVM per class; ``decision_function``
gives the k functions :math:`f_c` and ``predict`` their argmax, so renaming or
reordering the classes permutes the columns and never changes a prediction).
"""

from typing import Callable, Optional, Union

import numpy as np
from sklearn.base import is_classifier
from sklearn.svm import SVC

from .._core.validation import Interval, Options, check_random_state
from ..graphs import GraphSpec, knn_graph
from ..kernels import INNER_APPROXIMATIONS, FredholmKernel, WarpedKernel
from ..solvers import grls_fit as _saddle_fit
from ..solvers import (GridResult, KernelRidgePath, graph_cut_choice, graph_penalty, kfold_scores, loo_scores, rls_coefficients,
                       rls_loo_error,
                       select_kernel_ridge)
from ..solvers import held_selection_warnings, release_selection_warnings, report_grid_edge
from ..kernels import default_sigma, pairwise_kernel
from ._auto import (FIT_INTERCEPT, TUNABLE_NONNEG, TUNABLE_POSITIVE, WIDTH_FACTORS, free_constant,
                    labeled_groups, grid_of, growing, is_tuned, loo_rows_of, loo_selects, points_offset, unselected,
                    warn_duplicated_labeled_points)
from ._base import POINT_CLOUD_GRAPH_CONSTRAINTS, POSITIVE, graph_spec, precomputed_adjacency, warn_edgeless_graph
from ._base import ClassifierOutputMixin, PointsLearner, RegressorOutputMixin, canonical_order, fit_copy
from ._inductive import _AnyGraph

__all__ = ["FredholmClassifier", "FredholmRegressor", "WarpedKernelClassifier", "WarpedKernelRegressor"]

# Relative ridge grid of the alpha=None rule: alpha l = rel * mean(diag K_SS).
RELATIVE_RIDGES = np.logspace(-8, 0, 17)
_KERNELS = [Options("gaussian", "heat", "linear", "polynomial"), "callable"]
#: Points (at most) and neighbours of the kNN graph on which the graph cut of a candidate classifier is
#: measured (:func:`~graphrkhs.solvers.graph_cut_choice`).
CUT_MAX_POINTS, CUT_NEIGHBORS = 2000, 10
#: Up to this many points the width selection keeps the kernel of every width (above: the grams only; a kernel
#: holds an (n, m) inner factor, 0.45 GiB at n = 60000, and is rebuilt when needed).
KEEP_KERNELS_MAX_N = 10000
Kernel = Union[str, Callable]


def _kernel_scale(G):
    """mean(diag K_SS), the scale the ridge is relative to (1 for a degenerate kernel)."""
    scale = float(np.trace(G)) / G.shape[0]
    return scale if scale > 0 else 1.0


#: The fallback relative ridge (1e-3) in RELATIVE_RIDGES.
FALLBACK_RIDGE_INDEX = 10


def _select_ridge(G, Y, selects=True):
    r"""Leave-one-out choice of the ridge on the labeled points only.

    The grid is relative to the kernel's scale (Fredholm kernels carry a
    :math:`1/n^2` and vary over orders of magnitude with the widths):
    :math:`\alpha l \in \{10^{-8}, 10^{-7.5}, \dots, 1\} \times \mathrm{mean}(\mathrm{diag}\, K_{SS})`,
    scored by the closed-form LOO squared error (:func:`graphrkhs.rls_loo_error`).  Without an
    informative LOO (``selects`` False, :func:`~graphrkhs.estimators._auto.loo_selects`; or fewer than 3
    points) the fallback :math:`10^{-3}` relative.
    """
    l = G.shape[0]
    alphas = RELATIVE_RIDGES * _kernel_scale(G) / l
    if l < 3 or not selects:
        return float(alphas[FALLBACK_RIDGE_INDEX])  # 1e-3 relative: the LOO cannot rank the ridges
    return float(alphas[np.argmin(rls_loo_error(G, Y, alphas))])



#: libsvm's stopping tolerance (the KKT violation) of the hinge loss's SVMs: at scikit-learn's default 1e-3 the
#: decision values depended on the order of the training rows by 3-5e-4 (relative; 1-4 of 14400 grid predictions
#: flipped), the solver's own tolerance; the SVMs are fitted on the labeled points only (l x l Gram), so the
#: tighter stop costs little.
_SVC_TOL = 1e-7

class _DataDependent(PointsLearner):
    """Family base: a data-dependent kernel built on all rows of ``fit``, RLS (or SVM) on the
    labeled rows.  Members define ``_make_kernel(X)`` and ``_ridge(G, Y)``."""

    _parameter_constraints = {"loss": [Options("squared", "hinge")], "random_state": ["random_state"]}
    #: Regressors: the fitted attributes linear in the targets, scaled back after a multi-output fit on
    #: standardized target columns (:meth:`~graphrkhs.estimators._base.RegressorOutputMixin._scale_back_targets`;
    #: the right factor of the fitted values by :meth:`_rescale_target_factors`).
    _TARGET_LINEAR = ("coef_", "intercept_", "y_mean_")

    def _rescale_target_factors(self, scales):
        """Scale back ``_values`` (:meth:`_values_factor`) with the targets: a ``"matrix"`` factor has the
        target columns on its last axis, a ``"features"`` one on its first."""
        if getattr(self, "_values", None) is not None:
            kind, V = self._values
            self._values = (kind, (V * scales if kind == "matrix" else scales[:, None] * V).astype(V.dtype, copy=False))

    def _fit(self, X, labeled, Y):
        if self.loss == "hinge" and not isinstance(self.fit_intercept, str) and not self.fit_intercept:
            # libsvm's SVC always fits its free intercept b: fit_intercept=False was silently ignored (the
            # decision values equal to those of fit_intercept=True, with b = -0.137 on two blobs)
            raise ValueError("fit_intercept=False is not available with loss='hinge': the SVM (scikit-learn's "
                             "SVC) always fits its free intercept; pass fit_intercept=True or 'auto', or "
                             "loss='squared'.")
        for name in ("sigma", "alpha"):             # a malformed grid raises here, naming its parameter
            if getattr(self, name, None) is not None:
                grid_of(getattr(self, name), [1.0], name)
        idx = np.flatnonzero(labeled)
        self.cv_results_ = None
        # a free constant makes the fit shift-equivariant: fit y less its labeled mean and add the mean to
        # the constant, so that a large offset of y stays out of the solves (at y ~ 1e9 it cost the
        # Fredholm regressor 0.63 on targets of range 5)
        shift = Y.mean(axis=0) if self.loss == "squared" and self._saddle_constant() else None
        # one gate for every "auto" of the fit: without an informative LOO the fallback values are used.  On
        # the targets before any centring: "constant up to rounding" is relative to their size (centred,
        # 3 + 3e-15 z was noise around 0, not a constant, and was selected on rounding)
        groups = labeled_groups(self, X[idx])            # identical labeled points, once
        self._loo_selects = loo_selects(self._uncentred(Y), is_classifier(self), fits_constants=free_constant(self),
                                        groups=groups)
        # identical labeled points are left out together: leave-group-out (squared loss), one fold (hinge)
        self._loo_groups = None
        if self._loo_selects:
            self._loo_groups = warn_duplicated_labeled_points(self, groups, Y)
        if shift is not None:
            Y = Y - shift
        chosen = self._select(X, idx, Y)
        self._values = None
        if chosen is None:
            self.kernel_ = self._make_kernel(X)
            self.labeled_points_ = self.kernel_.X[idx]
            self._right = self.kernel_.right_factor(self.labeled_points_)
            G = self.kernel_(self.labeled_points_, self.labeled_points_, right=self._right)
            ridge = self.alpha_ = self._ridge(G, Y)
        else:
            self.kernel_, self._right, G, ridge = chosen
            self.labeled_points_ = self.kernel_.X[idx]
            self.alpha_ = ridge
        self.labeled_index_ = idx
        self.svc_ = self.coef_ = None
        self.intercept_ = np.zeros(Y.shape[1])
        self.kernel_shift_ = 0.0
        if self.loss == "hinge":
            # the SVMs see G less its mean: with the constraint sum_s y_s a_s = 0 of the SVM's dual (the free
            # intercept) a constant added to the kernel changes neither the solution nor the decision function,
            # but libsvm caches the kernel in float32, whose rounding of a nearly constant G (the warped kernel
            # at the one-label fallback gamma_I / gamma_A = 1e12: entries 0.1866..., differences ~2e-7) was
            # larger than the differences: both labeled points got the same class
            self.kernel_shift_ = float(np.mean(np.asarray(G, dtype=np.float64)))
            G = np.asarray(G, dtype=np.float64) - self.kernel_shift_
        if self.loss == "hinge" and self._hinge_tuned() and self._loo_selects:
            new = self._select_hinge(np.asarray(G, dtype=np.float64), Y, ridge)
            if hasattr(self, "gamma_A_"):     # warped: the kernel keeps its ratio gamma_I / gamma_A
                self.gamma_I_ *= new / ridge
                self.gamma_A_ = new
            ridge = self.alpha_ = new
        if self.loss == "squared" and self._saddle_constant():
            # [[G + ridge l I, 1], [1^T, 0]]: the constant unpenalized (G-RLS's saddle system)
            self.coef_, b = _saddle_fit(np.asarray(G, dtype=np.float64), np.ones((idx.size, 1)), Y, ridge)
            self.intercept_ = np.asarray(b).reshape(-1)
        elif self.loss == "squared":
            # a G asymmetric above rounding (the warped kernel at a large gamma_I / gamma_A) is fitted as
            # computed: the predictions use its columns (rls_coefficients)
            try:
                self.coef_ = rls_coefficients(G, Y, ridge)
            except np.linalg.LinAlgError:
                if not hasattr(self, "gamma_A_"):
                    raise
                # the warped Gram matrix lost its positive definiteness to the rounding of the warping
                # (I + rho' M K)^{-1} at a large gamma_I / gamma_A; the solver's message named its own alpha
                ga, gi = float(self.gamma_A_), float(self.gamma_I_)
                raise np.linalg.LinAlgError(
                    f"the warped Gram matrix plus gamma_A * l * I is not numerically positive definite at "
                    f"gamma_A={ga:g}, gamma_I={gi:g} (gamma_I / gamma_A = {gi / ga:.3g}: the warping loses the "
                    "kernel's positive definiteness to rounding at such ratios); pass a larger gamma_A (a number, "
                    "or a grid of larger values) or a smaller gamma_I.") from None
        else:
            self.svc_ = self._fit_hinge(np.asarray(G, dtype=np.float64), Y, 1.0 / (2.0 * ridge * G.shape[0]))
        if shift is not None:
            self.intercept_ = self.intercept_ + shift
        if self.svc_ is None:
            self._values = self._values_factor()
        release = getattr(self.kernel_, "release_distances", None)
        if release is not None:
            release()       # the n x n distances shared by the widths of a selection (FredholmKernel.with_sigma)

    def _saddle_constant(self):
        """Whether the free constant is fitted by the saddle system (members may centre the targets instead)."""
        return free_constant(self)

    def _uncentred(self, Y):
        """The targets ``Y`` given to :meth:`_fit` before a member's own centring (for the LOO gate)."""
        return Y

    @property
    def right_(self):
        """The right factor of ``kernel_(., labeled_points_)`` (computed on first use when the fit did not
        need it: the squared loss predicts through ``kernel_.right_factor(labeled_points_, coef=coef_)``)."""
        if getattr(self, "_right", None) is None:
            if not hasattr(self, "kernel_"):
                raise AttributeError("right_ exists after fit.")
            self._right = self.kernel_.right_factor(self.labeled_points_)
        return self._right

    def _kernel_values(self, X, right):
        """``kernel_(X, labeled_points_, right=right)`` (members may approximate it for speed)."""
        return self.kernel_(X, self.labeled_points_, right=right)

    def _values_factor(self):
        """Right factor of the fitted values ``kernel_(., labeled_points_) @ coef_`` (None: predict through
        ``right_``)."""
        return None

    def _fit_hinge(self, G, Y, C):
        r"""One-vs-rest SVMs on the precomputed kernel, oriented independently of the class names.

        Each class c gets :math:`\frac1l \sum_s \max(0, 1 - y_s f_c(x_s)) + \alpha \|f_c\|^2`,
        :math:`y_s = +1` on class c and -1 on the others (``SVC`` with ``C = 1 / (2 alpha l)``).
        Not libsvm's one-vs-one voting: its votes tie on whole regions (three-way cycles; libsvm gives
        the tie to the class that sorts first), and each pair's orientation follows the sorted names,
        which moves the solution by libsvm's tolerance -- relabeling the classes changed predictions.
        Here the binary problem of class c is the same whatever the names (positive = c), so renaming
        or reordering the classes permutes the columns exactly.  Two classes: one SVM whose positive
        class is that of the first labeled row (again not the names), its sign turned so that > 0
        means ``classes_[1]``.

        libsvm is given :math:`G^T`: its gradient (the KKT conditions it enforces) at labeled point s
        sums column s of the matrix it gets, while ``decision_function`` (and :meth:`_raw_values`)
        uses row s of G.  Identical for a symmetric G; the warped Gram at a large
        :math:`\gamma_I/\gamma_A` is asymmetric above rounding, and fitted on G the intercept
        was off by :math:`C\,|G_{st} - G_{ts}|`, more than the decision values.
        """
        codes = Y.argmax(axis=1) if Y.shape[1] > 1 else (Y[:, 0] > 0).astype(int)
        GT = np.ascontiguousarray(G.T)
        if Y.shape[1] == 1:
            first = codes[0]
            self._hinge_sign = 1.0 if first == 1 else -1.0
            return SVC(kernel="precomputed", C=C, tol=_SVC_TOL).fit(GT, (codes == first).astype(int))
        return [SVC(kernel="precomputed", C=C, tol=_SVC_TOL).fit(GT, (codes == c).astype(int))
                for c in range(Y.shape[1])]

    def _select(self, X, idx, Y):
        """Members with a tuned width return ``(kernel, right, G, ridge)``; None: the plain path."""
        return None

    def _hinge_tuned(self):
        """Whether the ridge of the hinge loss is selected (by k-fold CV on the labeled points)."""
        return False

    def _hinge_ridges(self, ridge):
        """The ridges (absolute, the ``alpha_`` scale) tried for the hinge loss around the squared-loss choice."""
        return ridge * np.geomspace(1e-4, 1e4, 9)

    def _select_hinge(self, G, Y, ridge):
        r"""Ridge of the hinge loss by stratified 5-fold CV on the labeled points (:func:`~graphrkhs.kfold_scores`).

        The SVM is not linear in the labels, so there is no closed-form LOO: each
        grid point fits the one-vs-rest SVMs (``C = 1/(2 ridge l_train)``) on the
        training folds of the kernel matrix and scores the held-out accuracy.  The
        grid is centred on the squared-loss choice (the widths are already chosen
        there), :math:`10^{-4} \dots 10^{4}` times it, extended at its edges;
        equal held-out accuracies go to the ridge nearest that choice.  A class labeled once (one point, or
        copies of one point) is in every training fold and in no test fold (:func:`~graphrkhs.kfold_splits`).
        """
        # the folds are drawn on the labeled points in a canonical order (the invariants of their kernel
        # matrix, canonical_order), so that the choice depends neither on the order of the rows given to fit
        # nor on a rotation, reflection or shift of X (their coordinates as keys changed the folds, and the
        # ridge up to 1000x)
        order = canonical_order(G, np.arange(G.shape[0]), Y)
        G, Y = G[np.ix_(order, order)], Y[order]
        groups = getattr(self, "_loo_groups", None)      # identical labeled points: one fold
        codes = Y.argmax(axis=1) if Y.shape[1] > 1 else (Y[:, 0] > 0).astype(int)
        # a class labeled once (one point, or copies of one point) stays in every training fold and is not
        # scored (kfold_splits), the rule of every classifier's selection; the gate (_loo_selects) has checked
        # that some class is labeled twice.  Before, any such class kept the squared-loss ridge unselected.

        def fit_predict(train, test, ridge):
            Gt = np.ascontiguousarray(G[np.ix_(train, train)].T)     # libsvm's columns = G's rows (_fit_hinge)
            C = 1.0 / (2.0 * ridge * train.size)
            Yt = Y[train]
            if Yt.shape[1] == 1:
                if np.unique(codes[train]).size < 2:
                    return np.full(test.size, codes[train][0])
                svc = SVC(kernel="precomputed", C=C, tol=_SVC_TOL).fit(Gt, codes[train])
                return svc.predict(G[np.ix_(test, train)])
            dec = np.full((test.size, Y.shape[1]), -np.inf)
            for c in np.unique(codes[train]):      # classes (one-vs-rest)
                pos = (codes[train] == c).astype(int)
                if pos.min() == pos.max():
                    continue
                svc = SVC(kernel="precomputed", C=C, tol=_SVC_TOL).fit(Gt, pos)
                dec[:, c] = svc.decision_function(G[np.ix_(test, train)])
            return dec.argmax(axis=1)

        # ties (a flat held-out accuracy, common with few labels) go to the ridge nearest the squared-loss
        # choice, not to the grid's edge: otherwise the tie rule and the edge extensions drift to a degenerate
        # ridge along a flat curve, and the choice depends on how the rows (hence the folds) are ordered
        res = kfold_scores(fit_predict, codes, {"ridge": self._hinge_ridges(ridge)}, n_splits=5,
                           random_state=0, extend=("ridge",), groups=None if groups is None else groups[order],
                           tie_break=lambda **p: -abs(np.log(p["ridge"] / ridge)))
        self.cv_results_ = res.cv_results_
        return res.best_params["ridge"]

    def _raw(self, X):
        # in X's floating dtype (float32 data, float32 predictions), as every other point learner's
        # function values (DESIGN: results keep the input dtype); the solves themselves run in float64
        out = np.asarray(self._raw_values(X))
        return out.astype(X.dtype, copy=False) if X.dtype.kind == "f" else out

    def _raw_values(self, X):
        if self.svc_ is None and getattr(self, "_values", None) is not None:
            return self._kernel_values(X, self._values) + self.intercept_
        G = self.kernel_(X, self.labeled_points_, right=self.right_)
        if self.svc_ is None:
            return G @ self.coef_ + self.intercept_
        G = np.asarray(G, dtype=np.float64) - self.kernel_shift_      # as the SVMs were fitted (_fit)
        if isinstance(self.svc_, list):
            return np.column_stack([svc.decision_function(G) for svc in self.svc_])
        return self._hinge_sign * self.svc_.decision_function(G)[:, None]


# ---------------------------------------------------------------------------
# Fredholm
# ---------------------------------------------------------------------------

class _Fredholm(_DataDependent):
    """Parameters and kernel shared by the Fredholm classifier and regressor."""
    #: the regressor warns when y has no NaN and targets at -1 (RegressorOutputMixin._encode_targets)
    _UNLABELED_ROWS_HELP = True

    _parameter_constraints = {
        "outer": _KERNELS,
        "inner": _KERNELS,
        "sigma": [POSITIVE, None, Options("auto"), "array-like"],
        "sigma_inner": [POSITIVE, None],
        # the point-cloud kernel's polynomial parameters, as every inductive learner's (RLS, LapRLS, PRLS, ...)
        "degree": [Interval("int", 1, None)],
        "coef0": [Interval("real")],
        "normalized": ["boolean"],
        "alpha": [POSITIVE, None, Options("auto"), "array-like"],
        "fit_intercept": FIT_INTERCEPT,
        "n_neighbors": [Interval("int", 1, None), None],
        "inner_approximation": [Options(*INNER_APPROXIMATIONS)],
        "n_components": [Interval("int", 1, None)],
    }

    def __init__(self, *, outer: Kernel = "gaussian", inner: Kernel = "gaussian",
                 sigma: Union[float, str, None] = "auto", sigma_inner: Optional[float] = None,
                 degree: int = 3, coef0: float = 1.0, normalized: bool = False, loss: str = "squared", alpha: Union[float, str, None] = "auto",
                 fit_intercept: Union[bool, str] = "auto", n_neighbors: Optional[int] = None,
                 inner_approximation: str = "auto", n_components: int = 1000, random_state: Optional[Union[int, np.random.Generator]] = None,
                 verbose: Optional[bool] = None):
        self._store_init_params(locals())

    def _fit(self, X, labeled, Y):
        # float32 points, exact or Nystrom inner kernel: the kernels of the selection and of the fit from
        # float64 points, as LapRLS's exact step (solvers/_lowrank.py).  The
        # float32 kernels' rounding (and the ridge floor it needs, 10 l eps32) made the LOO choose another
        # (sigma, alpha): at X = N(0, 1) of shape (40, 2), predictions 2.1 apart on targets of range 5.3.
        # Predictions keep X's dtype (predict casts them).  A Nystrom inner kernel the same: its float32
        # factor chose other parameters too (X = N(0, 1) of shape (40, 2), 20 components: sigma 0.67 vs 1.34,
        # ridge 7e-7 vs 4e-10, predictions up to 0.4 of the targets' range apart); its (n, m) factor in
        # float64 costs twice the memory of float32's.
        if X.dtype != np.float64:
            X = np.asarray(X, dtype=np.float64)
        # one seed for every kernel of this fit (each width of the selection, the fit's own): a Generator, a
        # RandomState or None reached each FredholmKernel, which drew other Nystrom landmarks (or random
        # features) for every width, so that the widths were compared on different approximations and the
        # kernel rebuilt at the chosen width (above KEEP_KERNELS_MAX_N points) was not the one scored
        rs = self.random_state
        self._kernel_seed = rs if isinstance(rs, (int, np.integer)) and not isinstance(rs, bool) else \
            int(check_random_state(rs).integers(2**32 - 1))
        return super()._fit(X, labeled, Y)

    def _ridge(self, G, Y):
        if self.alpha is None or is_tuned(self.alpha):
            if is_tuned(self.alpha) and not isinstance(self.alpha, str):
                if not self._loo_selects:       # one's own grid: its value nearest the relative fallback
                    rel = unselected(self.alpha, RELATIVE_RIDGES[FALLBACK_RIDGE_INDEX], "alpha")
                    return rel * _kernel_scale(G) / G.shape[0]
                ridge = self._select_relative(lambda s: G, Y, [self.sigma_], np.asarray(self.alpha, float))[1]
                self._release_selection()
                return ridge
            if not self._loo_selects:
                return _select_ridge(G, Y, selects=False)
            # the table's one width is the width used (it showed a stand-in sigma of 1.0)
            ridge = self._select_relative(lambda s: G, Y, [self.sigma_], None)[1]
            self._release_selection()
            return ridge
        return float(self.alpha) * _kernel_scale(G) / G.shape[0]

    def _hinge_tuned(self):
        return self.alpha is None or isinstance(self.alpha, str)

    def _select_relative(self, make_G, Y, sigmas, rel_alphas, extend=True):
        r"""Exact-LOO choice of (width, relative ridge) with :func:`~graphrkhs.select_kernel_ridge`.

        Each kernel is divided by its scale :math:`\mathrm{mean}(\mathrm{diag}\,K_{SS})`, so that the ridge
        path is in the relative units of ``alpha``; returns ``(sigma, absolute ridge)``.  The kernels are
        float64 whatever the points' dtype (``_fit``); a relative ridge below their rounding level,
        :math:`10\, l\, \epsilon_{64}`, is no candidate (the final Cholesky of the gram plus such a ridge
        could fail: its eigenvalue errors are :math:`\sim l \epsilon |K|`).
        """
        scales = {}

        def make(s):
            out = make_G(s)
            if isinstance(out, tuple):      # (KernelRidgePath of the scaled gram, its scale): the eigh is shared
                path, scales[float(s)] = out
                return path
            G = np.asarray(out, dtype=np.float64)
            scales[float(s)] = _kernel_scale(G)
            return G / scales[float(s)]

        grid, ext = (RELATIVE_RIDGES, True) if rel_alphas is None else (np.unique(rel_alphas), False)
        # the edge reports are about the LOO choice: held until the value used is known (the ridge floor below,
        # a classifier's graph-cut choice), then released by _release_selection
        with held_selection_warnings() as held:
            res = select_kernel_ridge(make, Y, sigmas, grid, fit_intercept=free_constant(self),
                                      extend=growing(sigma=extend, alpha=ext), max_extensions=2,
                                      loo_rows=loo_rows_of(self), loo_groups=getattr(self, "_loo_groups", None))
        # an exactly flat criterion reports no edge (select_grid's rule): nothing points beyond it
        flat = bool(np.isfinite(res.scores).all() and np.ptp(res.scores) == 0)
        self._held_selection = (held, dict(res.best_params), res.grid, res.n_extensions, Y.shape[0], flat)
        floor = 10.0 * Y.shape[0] * np.finfo(np.float64).eps
        usable = res.grid["alpha"] >= floor
        if res.best_params["alpha"] < floor and usable.any():
            # the best usable point of the same table (scoring "mse": the score is its own tie break)
            scores = np.where(usable[None, :], res.scores, -np.inf)
            res = GridResult(res.grid, scores, std=res.std, tie_break=scores, criterion=res.criterion,
                             n_extensions=res.n_extensions)
        self.cv_results_ = res.cv_results_
        s, a = res.best_params["sigma"], res.best_params["alpha"]
        self._selection_choice = {"sigma": float(s), "alpha": float(a)}
        l = Y.shape[0]
        return s, a * scales[float(s)] / l

    def _release_selection(self):
        """The edge reports of :meth:`_select_relative` about the value used (``_selection_choice``).

        They were :func:`~graphrkhs.solvers.select_grid`'s, about the LOO choice; where the value used differs
        (the best usable ridge above the floor, a classifier's graph-cut choice) they named a value that was not
        used (FredholmClassifier on a sigma grid of 4 widths: "the selected sigma=2.33 is at the edge" with
        ``sigma_`` the second width, and no warning with ``sigma_`` at an edge).  Those axes' reports are
        dropped and the value used is reported when it is at an edge of its grid: not for an exactly flat LOO
        criterion (select_grid's rule), nor a ridge at the low end of a grid reaching 1e-10 l (the selection's floor is 1e-10 times the scaled kernel's largest
        eigenvalue, at most its trace l: below it the grid cannot go).
        """
        held, loo, grid, n_ext, l, flat = self.__dict__.pop("_held_selection")
        used = self._selection_choice
        changed = [k for k in ("sigma", "alpha") if used[k] != loo[k]]
        release_selection_warnings(held, drop=changed)
        for k in changed if not flat else ():
            axis = grid[k]
            if k == "alpha" and used[k] == axis[0] and axis[0] <= 1e-10 * l:
                continue
            report_grid_edge(k, used[k], axis, n_ext)

    def _width_matters(self):
        """Whether ``sigma`` enters the kernel: the width of a Gaussian / heat outer kernel, or of such an inner
        kernel when ``sigma_inner`` is None (it then takes ``sigma``).  Linear, polynomial and callable kernels
        have none: FredLin1 (outer="linear") with its own ``sigma_inner`` was "selected" over 7-15 widths of
        identical kernels, the choice fell on an edge of the grid and warned (SelectionWarning: "the selected
        sigma=169 is at the edge of its grid"), each width costing a Gram matrix."""
        def has_width(kernel):
            return isinstance(kernel, str) and kernel in ("gaussian", "heat")
        return has_width(self.outer) or (self.sigma_inner is None and has_width(self.inner))

    def _select(self, X, idx, Y):
        if self.sigma is None or not is_tuned(self.sigma) or not self._loo_selects or not self._width_matters():
            return None
        sigmas, extend = grid_of(self.sigma, default_sigma(X) * WIDTH_FACTORS, "sigma")
        # per width: the l x l gram and one eigendecomposition of it (KernelRidgePath: the LOO of the
        # selection, the guess below and the graph-cut step share it).  The kernels themselves (an (n, m)
        # inner factor each at large n) are kept only while n is small -- at large n the last one and the
        # one of the lowest closed-form LOO error so far (a guess of the selection's choice), and the others
        # are rebuilt when needed.  Their right factors K_H P_S^T (n^2 l flops each with an exact inner
        # kernel) are computed only where needed: at the chosen width, and at a graph-cut candidate width
        # when its predictions need more than l columns.
        cache, paths, kernels, last, guess = {}, {}, {}, {}, {}
        keep_all = X.shape[0] <= KEEP_KERNELS_MAX_N
        family = []        # the kernels of all widths share one n x n distance matrix (FredholmKernel.with_sigma)
        Y2 = np.asarray(Y, dtype=np.float64).reshape(idx.size, -1)

        def make_G(s):
            if not family:
                kern = self._make_kernel(X, sigma=float(s))
                # every width, the first included, from one family (a factored inner kernel shares nothing
                # and is not built twice)
                kern = kern.with_sigma(float(s), self.sigma_inner) if kern.inner_approximation_ == "exact" else kern
            else:
                kern = family[0].with_sigma(float(s), self.sigma_inner)
            family.append(kern)
            # G = P_S K_H P_S^T, by halves of K_H when the distances are shared (no right factor: None)
            G, right = kern.gram_of_rows(idx)
            cache[float(s)] = G
            G64 = np.asarray(G, dtype=np.float64)
            scale = _kernel_scale(G64)
            path = KernelRidgePath(G64 / scale)
            paths[float(s)] = (path, scale)
            if keep_all:
                kernels[float(s)] = (kern, right)
                return path, scale
            # a large-n kernel holds an (n, m) inner factor, 0.45 GiB at n = 60000: one per width ran the
            # 60000-point fit out of memory, and a rebuild costs a whole Nystrom factor
            R = path.loo_residuals(Y2, RELATIVE_RIDGES, groups=getattr(self, "_loo_groups", None))
            score = -float(np.max(loo_scores(R, Y2, loo_rows=loo_rows_of(self),
                                             loo_groups=getattr(self, "_loo_groups", None))[0]))
            if not guess or score < guess["score"]:
                guess.clear()
                guess.update(score=score, s=float(s), kr=(kern, right))
            last.clear()
            last[float(s)] = (kern, right)
            return path, scale

        if self.alpha is None or is_tuned(self.alpha):
            rel = None if (self.alpha is None or isinstance(self.alpha, str)) else np.asarray(self.alpha, float)
            s, ridge = self._select_relative(make_G, Y, sigmas, rel, extend)
        else:
            s, ridge = self._select_relative(make_G, Y, sigmas, [float(self.alpha)], extend)

        def kernel_at(sg, need_right=True):
            """(kernel, right factor) of width sg: kept, the last built, the guess, or rebuilt; the right
            factor None (not computed yet) only with ``need_right=False``."""
            key = float(sg)
            for store in (kernels, last):
                if key in store:
                    kern, right = store[key]
                    if right is None and need_right:
                        right = kern.right_factor(kern.X[idx])
                        store[key] = (kern, right)
                    return kern, right
            if guess.get("s") == key:
                return guess["kr"]
            kern = family[0].with_sigma(key, self.sigma_inner) if family else self._make_kernel(X, sigma=key)
            return kern, kern.right_factor(kern.X[idx])

        if isinstance(self, ClassifierOutputMixin) and not free_constant(self) and len(cache) > 1:
            s, ridge = self._refine_by_graph_cut(idx, Y, cache, paths, kernel_at)
        self._release_selection()
        self.sigma_ = s
        G = cache[float(s)]
        if float(s) in kernels:
            last.clear()
            last[float(s)] = kernel_at(s, need_right=False)
        elif float(s) not in last and guess.get("s") == float(s):
            last.clear()
            last[float(s)] = guess["kr"]
        guess.clear()
        kernels.clear()
        if float(s) not in last:      # rebuilt; its gram again (a random_state=None Nystrom factor may differ)
            last[float(s)] = kernel_at(s)
            kern, right = last[float(s)]
            G = kern(kern.X[idx], kern.X[idx], right=right)
        kern, right = last[float(s)]  # right None: the fit computes K_H (P_S^T C) only, right_ on demand
        return kern, right, G, ridge

    def _refine_by_graph_cut(self, idx, Y, cache, paths, kernel_at):
        r"""Classifiers: the (width, ridge) of :func:`~graphrkhs.solvers.graph_cut_choice` over the grid the
        LOO evaluated (the candidates within one standard error of the best LOO accuracy, and among them the
        smallest normalized cut of the predicted classes on a kNN graph).

        The grid is that of ``cv_results_`` (with its edge extensions); per width, the
        eigendecomposition of the scaled kernel that the LOO selection computed
        (``paths``, :class:`~graphrkhs.KernelRidgePath`) gives the exact LOO residuals of
        every ridge and the coefficients :math:`C` of the candidates; their predictions at
        the cut points (all points, or ``CUT_MAX_POINTS`` of them drawn with
        ``random_state``) are :math:`K_F(X_c, S)\, C = P_c K_H (P_S^T C)`
        (:meth:`~graphrkhs.FredholmKernel.apply_inner`: :math:`n^2 q` flops for the q
        columns of the candidates, no right factor :math:`K_H P_S^T` unless q >= l).
        Returns ``(sigma, absolute ridge)``.
        """
        table = self.cv_results_
        sigmas = np.unique(np.asarray(table["param_sigma"], dtype=np.float64))
        rel = np.unique(np.asarray(table["param_alpha"], dtype=np.float64))
        sigmas = np.array([sg for sg in sigmas if float(sg) in cache])
        kern0 = kernel_at(sigmas[0], need_right=False)[0]
        n, l = kern0.n, idx.size
        if n > CUT_MAX_POINTS:
            # None: the seed 0 (the default choice is the same in every fit); a Generator, a RandomState or a
            # numpy integer was replaced by 0 here (isinstance(int) only), every stream drawing seed 0's points;
            # the fit's one seed otherwise (_fit: an int as given, a Generator or RandomState drawn from once)
            seed = 0 if self.random_state is None else self.__dict__.get("_kernel_seed", self.random_state)
            rng = check_random_state(seed)
            pts = np.sort(rng.choice(n, CUT_MAX_POINTS, replace=False))
            Xc = kern0.X[pts]
        else:
            Xc = kern0.X
        W = knn_graph(Xc, n_neighbors=min(CUT_NEIGHBORS, Xc.shape[0] - 1), weight="binary", algorithm="brute")
        W = W.tocoo() if hasattr(W, "tocoo") else W
        edges = (np.asarray(W.row), np.asarray(W.col))
        Y2 = np.asarray(Y, dtype=np.float64).reshape(l, -1)
        acc = np.empty((sigmas.size, rel.size))
        mse = np.empty_like(acc)
        eig = []
        for i, sg in enumerate(sigmas):
            path, scale = paths[float(sg)]
            groups = getattr(self, "_loo_groups", None)
            a, m = loo_scores(path.loo_residuals(Y2, rel, groups=groups), Y2, "accuracy", loo_rows=loo_rows_of(self),
                              loo_groups=groups)
            # a ridge below the rounding level of the (float64, _fit) kernel is no candidate, as in
            # _select_relative: the final Cholesky of G + ridge I could fail on G's rounding (~ l eps |G|)
            acc[i], mse[i] = np.where(rel >= 10.0 * l * np.finfo(np.float64).eps, a, -np.inf), -m
            eig.append((float(sg), scale, path.eigenvalues, path.eigenvectors))

        def predict(i, js):
            sg, scale, w, V = eig[i]
            kern, right = kernel_at(sg, need_right=False)   # kept at small n; at large n built for this width
            m = Y2.shape[1]
            VtY = V.T @ Y2
            C = np.hstack([V @ (VtY / (w + rel[j])[:, None]) for j in js]) / scale   # (l, m |js|)
            XS = kern.X[idx]
            if right is None and C.shape[1] < l:
                # P_c K_H (P_S^T C): two passes over K_H with m |js| < l columns instead of K_H P_S^T
                F = np.asarray(kern(Xc, XS, right=kern.right_factor_of_rows(idx, coef=C)), dtype=np.float64)
            else:
                if right is None:
                    kern, right = kernel_at(sg)
                kind, R = right
                if C.shape[1] < l:      # K_F(Xc, S) C = P_c (R C): the n_cut x n product on m |js| < l columns
                    F = np.asarray(kern(Xc, XS, right=(kind, R @ C if kind == "matrix" else C.T @ R)),
                                   dtype=np.float64)
                else:
                    F = np.asarray(kern(Xc, XS, right=right), dtype=np.float64) @ C
            out = np.empty((js.size, Xc.shape[0]), dtype=np.int64)
            for t in range(js.size):
                Ft = F[:, t * m:(t + 1) * m]
                out[t] = (Ft[:, 0] > 0) if m == 1 else np.argmax(Ft, axis=1)
            return out

        i, j, rank, ncut = graph_cut_choice(acc, mse, l, predict, edges, n_classes=max(2, Y2.shape[1]),
                                            return_ranking=True)
        # the table ranked by the criterion that made the choice (its rank 1 was the LOO MSE's best, another
        # width than sigma_: 0.50 against 1.00 on noisy circles), with the columns behind it
        ts = np.asarray(table["param_sigma"], dtype=np.float64)
        ti = np.minimum(np.searchsorted(sigmas, ts), sigmas.size - 1)
        tj = np.searchsorted(rel, np.asarray(table["param_alpha"], dtype=np.float64))
        if np.array_equal(sigmas[ti], ts):      # every width of the table scored here (always: all are cached)
            self.cv_results_ = {**table, "rank_test_score": rank[ti, tj], "mean_test_accuracy": acc[ti, tj],
                                "normalized_cut": ncut[ti, tj]}
        s = float(sigmas[i])
        self._selection_choice = {"sigma": s, "alpha": float(rel[j])}
        return s, float(rel[j]) * eig[i][1] / l

    def _kernel_values(self, X, right):
        """Predictions: above ``FREDHOLM_EXACT_MAX_N`` training points (a Nystrom inner kernel) the outer
        kernel of the new points in the same landmarks (``FredholmKernel.__call__(outer_approximation="auto")``)."""
        return self.kernel_(X, self.labeled_points_, right=right, outer_approximation="auto")

    def _values_factor(self):
        r"""``kernel_.right_factor(labeled_points_, coef=coef_)``: predictions
        :math:`P_A K_H (P_S^T C)` cost :math:`|A|\, n\, m` for m outputs instead of
        :math:`|A|\, n\, l` (and, when the width selection did not build :math:`K_H P_S^T`,
        :math:`n^2 m` instead of :math:`n^2 l` flops in ``fit``)."""
        C = np.asarray(self.coef_)
        if self._right is None:
            return self.kernel_.right_factor_of_rows(self.labeled_index_, coef=C)
        kind, R = self._right
        return ("matrix", R @ C.astype(R.dtype, copy=False)) if kind == "matrix" else \
            ("features", C.T.astype(R.dtype, copy=False) @ R)

    def _make_kernel(self, X, sigma=None):
        if sigma is None:
            sigma = None if (self.sigma is None or is_tuned(self.sigma)) else float(self.sigma)
            if is_tuned(self.sigma) and not isinstance(self.sigma, str) and self._width_matters():
                # one's own grid, not selected (the labels cannot choose): its value nearest the default
                sigma = unselected(self.sigma, default_sigma(X), "sigma")
            self.sigma_ = default_sigma(X) if sigma is None else float(sigma)
        return FredholmKernel(X, outer=fit_copy(self.outer), inner=fit_copy(self.inner), sigma=sigma,
                              sigma_inner=self.sigma_inner, degree=self.degree, coef0=self.coef0,
                              normalized=self.normalized, n_neighbors=self.n_neighbors,
                              inner_approximation=self.inner_approximation, n_components=self.n_components,
                              random_state=self.__dict__.get("_kernel_seed", self.random_state), verbose=self.verbose)


_FREDHOLM_PARAMS_DOC = r"""
    Parameters
    ----------
    outer, inner : {"gaussian", "heat", "linear", "polynomial"} or callable, default="gaussian"
        Outer kernel k and inner kernel :math:`k_H` (FredGauss by default, the paper's
        strongest instance on its benchmarks; FredLin1 = linear/gaussian, FredLin2 =
        gaussian/linear).  "polynomial" is :math:`(x^T z + c_0)^p` (``degree``, ``coef0``).
    sigma : float > 0, "auto", sequence of float or None, default="auto"
        Gaussian width of the outer (and, by default, inner) kernel.  "auto":
        chosen with ``alpha`` by exact leave-one-out RLS on the labeled points
        over the median pairwise distance times :math:`2^{-2}, \dots, 2`
        (one Fredholm kernel per width, :func:`~graphrkhs.select_kernel_ridge`; the
        kernels share one n x n distance matrix, :meth:`FredholmKernel.with_sigma`).
        Classifiers then keep, among the (width, ridge) points within one standard
        error of the best LOO accuracy, the one whose predicted classes have the
        smallest normalized cut of a 10-NN graph of the data, a class predicted
        nowhere ruling a candidate out (:func:`~graphrkhs.solvers.graph_cut_choice`:
        with few labels the LOO minimum alone is decided by one or two labels);
        a sequence: one's own grid; None: the median pairwise distance.  The
        width used is ``sigma_``, the scores ``cv_results_`` (for such a classifier
        ranked by that choice: ``rank_test_score`` 1 is the point used, then the other
        candidates by normalized cut, then the rest by LOO squared error;
        ``mean_test_score`` stays minus the LOO squared error, beside
        ``mean_test_accuracy`` and ``normalized_cut``, +inf where not computed).
        When no kernel takes ``sigma`` (a linear, polynomial or callable outer
        kernel, and an inner one with its own ``sigma_inner`` or without a
        width) it is not selected: only ``alpha`` is, and ``sigma_`` is the
        median pairwise distance, unused.
    sigma_inner : float > 0, optional
        Inner width; None: ``sigma``.
    fit_intercept : bool or "auto", default="auto"
        Unpenalized constant (regressors, "auto"): a shift of y shifts the fit.  With
        ``loss="hinge"`` the SVM always has its free intercept (True and "auto" alike;
        False raises a ValueError).
    degree, coef0 : int >= 1, float, default=3, 1.0
        The polynomial kernel :math:`(x^T z + c_0)^p` of ``outer`` and ``inner`` (either or
        both "polynomial"), with the defaults of every inductive learner
        (:class:`~graphrkhs.LapRLSClassifier`: degree 3 as in Belkin et al.'s USPS runs).
        (Formerly fixed at degree 2, offset 1.)
    normalized : bool, default=False
        The paper's "(N)" kernels (outer rows divided by their sums).
    alpha : float > 0, "auto", sequence of float or None, default="auto"
        ("auto" and None: chosen by leave-one-out, see below; a sequence: one's
        own grid of relative values.)  Ridge weight *relative to the kernel's scale*: the objective is
        :math:`\frac1l\sum_s \mathrm{loss} + \alpha_{abs} \|f\|_H^2` (the paper's
        :math:`\lambda` is :math:`\alpha_{abs}`) with
        :math:`\alpha_{abs}\, l = \alpha \cdot \mathrm{mean}(\mathrm{diag}\, K_{SS})`.
        Fredholm kernels carry a :math:`1/n^2` and change scale by orders of
        magnitude with the widths, so an absolute number would mean nothing
        across data sets; relative to the kernel's diagonal, ``alpha=0.01`` is a
        mild ridge whatever the widths.  None chooses the relative ridge by
        closed-form leave-one-out RLS error on the labeled points over
        :math:`\{10^{-8}, 10^{-7.5}, \dots, 1\}`.  With ``loss="hinge"`` (classifiers) the
        widths are those of that choice and the SVM's ridge is then chosen by stratified 5-fold
        cross-validation of its held-out accuracy on the labeled points, over :math:`10^{-4} \dots
        10^{4}` times the squared-loss ridge (extended at the edges; equal accuracies go to the ridge
        nearest it; the table is ``cv_results_``), on fixed folds (see ``random_state``).  When the
        labels cannot select (fewer than 3, or every class labeled once, :ref:`ug_one_label`): 1e-3
        relative, at the median pairwise distance.  The absolute value used (what
        :func:`~graphrkhs.fredholm_rls` takes as ``alpha``) is ``alpha_``.
    n_neighbors : int, optional
        kNN truncation of the outer kernel (sparse; needed for large n).
    inner_approximation : {"auto", "exact", "nystrom", "random_features"}, default="auto"
        How the inner kernel is applied (:class:`~graphrkhs.FredholmKernel`; "auto": exact up
        to 10000 points, Nystrom above).  With the Nystrom inner kernel of the outer Gaussian
        ("auto" above 10000 points), ``predict`` evaluates the outer kernel of the new points in
        the same landmarks (``FredholmKernel.__call__(outer_approximation="auto")``: distances
        to the m landmarks instead of the n training points, 10000 Fashion-MNIST test points
        against 60000 in about a second instead of ten; predictions agree with the exact ones
        on about 99 % of the points at m = 1000).  The exact values:
        ``kernel_(X, labeled_points_, right=right_) @ coef_ + intercept_``.
    n_components : int, default=1000
        Size of the inner-kernel approximation.
    random_state : int, Generator or None
        Seeds the Nystrom landmarks of the inner kernel (``inner_approximation="nystrom"``, which
        "auto" takes above 10000 points), its random Fourier features
        (``inner_approximation="random_features"``) -- with None two fits differ there -- the
        approximate kNN backends, and the classifiers' sample of ``CUT_MAX_POINTS`` (2000) points
        on which the graph-cut refinement of ``sigma`` / ``alpha`` = "auto" is measured (more
        points than that; None: the seed 0 there, so that the default choice is the same in
        every fit).  Not the folds of the hinge loss's ridge selection (``loss="hinge"``,
        ``alpha`` "auto" or None): those are drawn with the fixed seed 0 whatever ``random_state``,
        so that the choice is the same in every fit.
    verbose : bool or None, default=None
        Progress bars (tqdm) of the long steps of ``fit`` and ``predict`` (graph, solves):
        True / False switch them on / off for everything inside; None follows the
        caller (an enclosing ``verbose=``, the command line) or the ``graphrkhs`` logger.
    loss : {"squared", "hinge"}, default="squared"
        RLS (their Eq. 3) or SVM (their Eq. 7, scikit-learn's SVC on the precomputed
        kernel, one-vs-rest for more than two classes); regressors take "squared" only.
    unlabeled : hashable or None, default=-1
        Classifiers only: the marker of unlabeled rows (see :mod:`graphrkhs.estimators._base`).
"""


class FredholmClassifier(ClassifierOutputMixin, _Fredholm):
    __doc__ = r"""Fredholm kernel classifier (Que, Belkin & Wang, NIPS 2014), RLS or SVM.

    Fits :math:`c(x) = \sum_s k_F(x, x_s) c_s` on the labeled points with the Fredholm
    kernel :math:`k_F` of :class:`graphrkhs.FredholmKernel` built on all points of
    ``fit``; the unlabeled points shape :math:`k_F` (the "noise assumption").
    """ + _FREDHOLM_PARAMS_DOC + r"""
    Attributes
    ----------
    classes_, kernel_ (the FredholmKernel), alpha_, coef_ (RLS) or svc_ (hinge: one SVC for two
    classes, else the list of one-vs-rest SVCs, one per class, fitted on the transposed kernel matrix
    of the labeled points less ``kernel_shift_``, its mean), labeled_points_

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


class FredholmRegressor(RegressorOutputMixin, _Fredholm):
    __doc__ = r"""Fredholm kernel regression (Que, Belkin & Wang, NIPS 2014, Eq. 3, square loss).

    ``predict`` returns the floating dtype of its X (float32 points: float32
    predictions, as the other point regressors; the solves run in float64, and
    with an exact inner kernel the kernels too are built from float64 points,
    so that float32 points select the parameters of float64 points).
    """ + _FREDHOLM_PARAMS_DOC + r"""
    Attributes
    ----------
    kernel_, alpha_, coef_, labeled_points_

    Notes
    -----
    On the labeled points the Fredholm kernel is :math:`K_{S,n} K_H K_{n,S} / n^2`: with
    Gaussian outer and inner kernels of one width (``sigma_inner=None``) its spectrum is
    roughly the *cube* of the Gaussian kernel's, so it is far smoother, and in float64 it is
    numerically of low rank at large widths.  Where the data carry no "noise assumption"
    structure this costs accuracy, at every (width, ridge): on ``make_friedman1`` (400
    points, 10 features, 60 labels) and the noiseless target
    :math:`(x_2 - 1/2)^2 + x_3 / 10` (columns 2 and 3 of ten), test :math:`R^2` (one
    label draw) is at most 0.04 over widths 0.64 .. 41 and relative ridges 1e-12 .. 1e-2, where
    :class:`RLSRegressor` on the same grid reaches 0.76 (at width 10.2 the Gaussian gram
    of the 60 labeled points keeps 55 eigenvalues above 1e-8 of its largest, the
    Fredholm gram 1).  A wider inner kernel (``sigma_inner=10``) gave 0.59 / 0.55 on two
    label draws.  The fit is equivariant to the scale of y to rounding (predictions of
    :math:`c y` are :math:`c` times those of y), so a small-scale target is not the cause.

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

    _parameter_constraints = {"loss": [Options("squared")]}


# ---------------------------------------------------------------------------
# Warped kernel
# ---------------------------------------------------------------------------

class _Warped(_DataDependent):
    """Parameters and kernel shared by the warped-kernel classifier and regressor."""
    #: the regressor warns when y has no NaN and targets at -1 (RegressorOutputMixin._encode_targets)
    _UNLABELED_ROWS_HELP = True

    _parameter_constraints = {
        "kernel": _KERNELS,
        "sigma": [POSITIVE, None, Options("auto"), "array-like"],
        # the point-cloud kernel's polynomial parameters, as LapRLS's (the warped RLS is LapRLS)
        "degree": [Interval("int", 1, None)],
        "coef0": [Interval("real")],
        "gamma_A": TUNABLE_POSITIVE,
        "gamma_I": TUNABLE_NONNEG,
        # any adjacency as_adjacency takes, as LapRLS's and PLapRLS's graph= (only sparse matrices passed the table
        # before, though _graph reads every form: a dense array, a list, a networkx graph raised InvalidParameterError)
        "graph": [Options("knn", "epsilon"), GraphSpec, _AnyGraph()],
        **POINT_CLOUD_GRAPH_CONSTRAINTS,
        "solver": [Options("auto", "direct", "cg", "nystrom")],
        "n_components": [Interval("int", 1, None)],
        "landmarks": [Options("kmeans", "uniform")],
        "fit_intercept": FIT_INTERCEPT,
    }

    def __init__(self, *, kernel: Kernel = "gaussian", sigma: Union[float, str, None] = "auto", degree: int = 3,
                 coef0: float = 1.0, gamma_A: Union[float, str] = "auto", gamma_I: Union[float, str] = "auto",
                 fit_intercept: Union[bool, str] = "auto",
                 graph: Union[str, GraphSpec] = "knn", n_neighbors: int = 10,
                 radius: Optional[float] = None, weight: str = "gaussian", graph_sigma: Optional[float] = None,
                 laplacian: str = "combinatorial", laplacian_power: int = 1, loss: str = "squared",
                 solver: str = "auto", n_components: int = 1000, landmarks: str = "kmeans",
                 random_state: Optional[Union[int, np.random.Generator]] = None, verbose: Optional[bool] = None):
        self._store_init_params(locals())

    def _ridge(self, G, Y):
        return float(self.gamma_A_)   # the ridge of RLS on the warped kernel is gamma_A: then it is LapRLS

    def _fit(self, X, labeled, Y):
        # the free constant as LapRLS's (LapRLSRegressor): the labeled mean taken out before the selection
        # and the fit, added back to the predictions, so that the warped RLS stays LapRLS with its constant;
        # with the linear kernel every point less the labeled points' mean too (points_offset), the graph
        # built from the points as given (a cosine graph is not translation-invariant)
        self.y_mean_ = Y.mean(axis=0) if free_constant(self) else np.zeros(Y.shape[1], dtype=np.float64)
        self.x_offset_ = points_offset(self, X, labeled)
        if self.x_offset_ is not None:
            self._fit_graph = self._graph(X)
            X = (X - self.x_offset_).astype(X.dtype, copy=False)
        try:
            super()._fit(X, labeled, Y - self.y_mean_)
        finally:
            self.__dict__.pop("_fit_graph", None)
        self.intercept_ = self.intercept_ + self.y_mean_

    def _raw(self, X):
        if getattr(self, "x_offset_", None) is not None:
            X = (X - self.x_offset_).astype(X.dtype, copy=False)
        return super()._raw(X)

    def _saddle_constant(self):
        return False                  # the constant is the centring above

    def _uncentred(self, Y):
        return Y + self.y_mean_

    def _hinge_tuned(self):
        return is_tuned(self.gamma_A)

    def _graph(self, X):
        """The adjacency of the warped kernel's graph: the given adjacency (any form as_adjacency reads), or built by the spec."""
        if self.__dict__.get("_fit_graph") is not None:      # built before the points were shifted (_fit)
            return self._fit_graph
        if not isinstance(self.graph, (str, GraphSpec)):     # a precomputed adjacency
            # its shape checked here, before the selection: with gamma_A / gamma_I "auto" the first to see it was
            # the LOO solver, whose message named its own M ("M must have shape (40, 40), one row per row of X")
            n = X.shape[0]
            # the transductive learners' rule for a given graph (numeric object-dtype weights accepted; a list of
            # lists has no .shape): the one helper
            W = precomputed_adjacency(self.graph, "graph")
            if W.shape != (n, n):
                raise ValueError(f"graph: a precomputed adjacency must be ({n}, {n}) over the rows of X; got "
                                 f"{W.shape}.")
        else:
            W = self._spec(X).build(X, random_state=self.random_state,     # its warnings name graph_sigma, as set
                                    sigma_name="sigma" if isinstance(self.graph, GraphSpec) else "graph_sigma")
        warn_edgeless_graph(W, self)
        return W

    def _spec(self, X):
        # any mode and algorithm: the graph is built here (_graph) and WarpedKernel takes it prebuilt (_make_kernel's
        # graph=W), as LapRLS's.  (mode='mutual' and algorithm='brute' were refused, by a rule from when WarpedKernel
        # built its own kNN graph with knn_graph's defaults.)
        return graph_spec(self, self.graph_sigma).validate(X.shape[0])

    def _select(self, X, idx, Y):
        r"""``sigma``, ``gamma_A``, ``gamma_I`` = "auto" (or grids): RLS on the warped kernel is LapRLS.

        All three "auto" (Gaussian kernel, up to 6000 points): jointly, by LapRLS's exact LOO on a
        low-rank surrogate of each width's kernel and one exact LU at the selected point
        (:func:`~graphrkhs.estimators._inductive.manifold_width_selection`, the same selection as
        :class:`~graphrkhs.LapRLSClassifier`).  Otherwise the width: the best leave-one-out RLS on
        the labeled points (median pairwise distance times :math:`2^{-2}, \dots, 2`; a regressor's
        targets less their labeled mean, re-taken without the held-out label); then :math:`(\gamma_A, \gamma_I)` by exact
        LOO along the ratio path of :func:`~graphrkhs.select_manifold_gammas` (one n x n
        LU per ratio) on the same graph penalty as :class:`~graphrkhs.WarpedKernel`.
        Numbers are used as given.  Always returns ``(kernel, right, G, ridge)``.
        """
        from ._inductive import AUTO_MAX_N, joint_width, manifold_cv_results, manifold_selection, manifold_width_selection

        width = not callable(self.kernel) and self.kernel in ("gaussian", "heat")
        kw = dict(kernel=self._base_kernel(), degree=self.degree, coef0=self.coef0)     # the base kernel k
        # the kernels (of the selection and of the warped kernel) from float64 points whatever X's dtype, as
        # Fredholm's and LapRLS's direct solve: the warped kernel's solve (I + rho' M K)^{-1} amplified a float32
        # Gram matrix's rounding, and the fit was 1e-2 off the float64 fit on the same points (defaults, 600
        # points in R^4, 30 labels; 1e-3 at gamma_A = 1e-8; the classifier's decision values 0.67 off on 60
        # points in R^2).  The graph stays built from X in its dtype (the
        # kNN search in float32 for float32 points, as LapRLS's graph); predictions keep X's dtype (_raw).
        X64 = np.asarray(X, dtype=np.float64)
        if self.sigma is None or is_tuned(self.sigma):
            self.sigma_ = default_sigma(X) if width else 1.0
        else:
            self.sigma_ = float(self.sigma)
        joint = joint_width(self) and self._loo_selects and X.shape[0] <= AUTO_MAX_N
        if joint:       # the width with the gammas, by LapRLS's own LOO (the warped RLS is LapRLS)
            W = self._graph(X)
            M = graph_penalty(W, self.laplacian, self.laplacian_power)
            self.sigma_, self.gamma_A_, self.gamma_I_, res, _, Z = manifold_width_selection(
                self, X, idx, Y, M, grid_of(self.sigma, self.sigma_ * WIDTH_FACTORS, "sigma"),
                kw, return_basis=True)
            self.cv_results_ = manifold_cv_results(res, self)
            kern = self._make_kernel(X64, W)
            XS = kern.X[idx]
            if kern.solver_ == "direct" and self.gamma_A_ > 0:
                # the selection's exact LU is of the warped kernel's own system I + rho' M K: it gave
                # Z = (I + rho' M K)^{-1} E_S, and the labeled points' right factors are
                # (I + rho' M K)^{-1} rho' M K E_S = E_S - Z, so the kernel is not factored again (its Gram
                # matrix and LU stay unbuilt)
                V = -np.asarray(Z, dtype=np.float64)
                V[idx, np.arange(idx.size)] += 1.0
                right = (pairwise_kernel(kern.X, XS, sigma=self.sigma_, **kw),
                         V)
            else:
                right = kern.right_factor(XS)
            return kern, right, kern(XS, XS, right=right), self.gamma_A_
        if width and is_tuned(self.sigma) and self._loo_selects:
            sigmas, extend = grid_of(self.sigma, self.sigma_ * WIDTH_FACTORS, "sigma")
            XS = X64[idx]
            # Y is the targets less their labeled mean when the constant is free (_fit): the LOO of that
            # procedure re-takes the mean without the held-out label (centred_loo_residuals)
            res = select_kernel_ridge(
                lambda s: pairwise_kernel(XS, None, sigma=s, **kw), Y, sigmas,
                ridge_scale="l", extend=growing(sigma=extend, alpha=True), max_extensions=2,
                centred=free_constant(self), loo_rows=loo_rows_of(self), loo_groups=getattr(self, "_loo_groups", None))
            self.sigma_ = res.best_params["sigma"]
        elif width and is_tuned(self.sigma):     # one's own grid, not selected: its value nearest the default
            self.sigma_ = unselected(self.sigma, self.sigma_, "sigma")
        # one graph for the selection's penalty and the warped kernel (built once)
        W = self._graph(X)
        if is_tuned(self.gamma_A) or is_tuned(self.gamma_I):
            M = graph_penalty(W, self.laplacian, self.laplacian_power)
        else:
            M = np.zeros((0, 0))
        if M.shape[0]:
            self.gamma_A_, self.gamma_I_, res, _ = manifold_selection(
                self, lambda: pairwise_kernel(X64, None, sigma=self.sigma_, **kw),
                idx, Y, M, consistency=False, fit_intercept=False, fallback=(1e-2, 1.0),
                centred=free_constant(self))
            self.cv_results_ = manifold_cv_results(res, self)
        else:
            self.gamma_A_, self.gamma_I_ = float(self.gamma_A), float(self.gamma_I)
        kern = self._make_kernel(X64, W)
        XS = kern.X[idx]
        right = kern.right_factor(XS)
        return kern, right, kern(XS, XS, right=right), self.gamma_A_

    def _base_kernel(self):
        r"""The point-cloud kernel's name for the kernel functions: "heat" is the Gaussian of width sigma, as in
        LapRLS (the warped RLS is LapRLS).  With the heat kernel's normalization :math:`(4\pi t)^{-m/2}`, a
        factor that depends on sigma and that the gammas are not measured against, the warped learner was not
        LapRLS at the same parameters (0.40 apart on a range of 0.90) and its "auto" fit moved with the units
        of X (by 1.7 of a target range of 3 with X times 64)."""
        return "gaussian" if isinstance(self.kernel, str) and self.kernel == "heat" else self.kernel

    def _make_kernel(self, X, W=None):
        W = self._graph(X) if W is None else W
        return WarpedKernel(X, kernel=fit_copy(self._base_kernel()), sigma=self.sigma_, degree=self.degree,
                            coef0=self.coef0, gamma_A=self.gamma_A_, gamma_I=self.gamma_I_,
                            graph=W, laplacian=self.laplacian, laplacian_power=self.laplacian_power,
                            solver=self.solver, n_components=self.n_components, landmarks=self.landmarks,
                            random_state=self.random_state, verbose=self.verbose)


_WARPED_PARAMS_DOC = r"""
    Parameters
    ----------
    kernel : {"gaussian", "heat", "linear", "polynomial"} or callable, default="gaussian"
        Base kernel k ("polynomial": :math:`(x^T z + c_0)^p`, ``degree`` and ``coef0``; "heat":
        the Gaussian of width sigma, as in :class:`~graphrkhs.LapRLSRegressor`).
    sigma : float > 0, "auto", sequence or None, default="auto"
        Base Gaussian width; None: the median pairwise distance; "auto" (or a sequence,
        one's own grid; default: median distance times :math:`2^{-2}, \dots, 2`, extended
        at the edges): with ``gamma_A`` and ``gamma_I`` "auto" too (up to 6000 points),
        chosen jointly with them by LapRLS's exact LOO on a low-rank surrogate of each
        width's kernel and one exact LU at the selected point
        (:func:`~graphrkhs.select_laprls_lowrank`, as :class:`~graphrkhs.LapRLSClassifier`);
        otherwise the width of the best leave-one-out RLS on the labeled points.
        Used: ``sigma_``.
    degree, coef0 : int >= 1, float, default=3, 1.0
        The polynomial kernel :math:`(x^T z + c_0)^p`, with LapRLS's defaults (degree 3 as
        in Belkin et al.'s USPS runs), so that the warped RLS is
        :class:`~graphrkhs.LapRLSClassifier` at the same parameters (formerly fixed at
        degree 2, offset 1).
    gamma_A : float > 0, "auto" or sequence, default="auto"
        Ambient weight; also the ridge of RLS on the warped kernel, so that the fit is
        LapRLS with these ``gamma_A``, ``gamma_I`` (Belkin et al.'s scaling
        :math:`\gamma_I / n^2`).  "auto" (with ``gamma_I``): exact leave-one-out along
        the ratio path of :func:`~graphrkhs.select_manifold_gammas` (up to 6000 points;
        above, 1e-2 and 1 with a warning; 1e-6 and 1e6 when the labels cannot select --
        fewer than 3, or every class labeled once, :ref:`ug_one_label`); with
        ``loss="hinge"`` the ridge is then chosen
        by stratified 5-fold CV of the SVM at that kernel (fixed folds, see ``random_state``).
        Used: ``gamma_A_``, ``gamma_I_`` (and ``alpha_``), scores ``cv_results_``.
    gamma_I : float >= 0, "auto" or sequence, default="auto"
        Intrinsic (graph) weight; ``gamma_I / gamma_A = 100`` deforms strongly.
    graph : {"knn", "epsilon"}, GraphSpec or adjacency, default="knn"
        Graph of :class:`graphrkhs.WarpedKernel` (an (n, n) adjacency over the rows of ``fit``
        -- sparse/dense array, pygsp or networkx graph -- is used as is) (a ``GraphSpec`` replaces ``n_neighbors``,
        ``radius``, ``weight`` and ``graph_sigma``).
    n_neighbors : int, default=10
    radius : float, optional (epsilon graph)
    weight : {"gaussian", "binary", "self-tuning"}, default="gaussian"
    graph_sigma : float, optional
        Gaussian edge-weight width of the graph (:func:`~graphrkhs.knn_graph`'s ``sigma``;
        None: the mean neighbour distance); ``sigma`` is the base kernel's width.
    laplacian : {"combinatorial", "normalized", "randomwalk"}, default="combinatorial"
    laplacian_power : int >= 1, default=1
    fit_intercept : bool or "auto", default="auto"
        A constant handled as :class:`~graphrkhs.LapRLSRegressor`'s: the mean of the labeled
        targets is taken out before the selection and the fit and added back to the
        predictions ("auto": for regressors, and for classifiers on the linear kernel, whose
        functions vanish at the origin; a constant target is then reproduced exactly).  This
        centring is not the minimizer over a free constant :math:`b` in :math:`f + b` (which
        :class:`~graphrkhs.RLSRegressor` fits by its saddle system); the two differ in general
        (about 1 % of the fit on small Gaussian-kernel problems).  On the linear kernel the points are
        centred on the labeled mean as well (``x_offset_``): the constant is then exactly free
        under the combinatorial Laplacian, as LapRLS's.  With ``loss="hinge"`` the SVM always has
        its free intercept (True and "auto" alike; False raises a ValueError).
    solver : {"auto", "direct", "cg", "nystrom"}, default="auto"
        See :class:`graphrkhs.WarpedKernel` ("auto": direct up to 4000 points, CG up to 10000,
        the Nystrom low-rank kernel above).
    n_components : int, default=1000
        Cap on the Nystrom landmarks (:class:`graphrkhs.NystromFeatures`).
    landmarks : {"kmeans", "uniform"}, default="kmeans"
        Nystrom landmarks.
    random_state : int, Generator or None
        Seeds the Nystrom landmarks (``solver="nystrom"``, which "auto" takes above 10000
        points; with None two fits differ there), the approximate kNN backends, and the
        landmarks of the joint ``sigma`` / ``gamma_A`` / ``gamma_I`` = "auto" selection's
        low-rank surrogate (more than 256 points; None: the seed 0 there, so that the default
        selection is the same in every fit).  Not the folds of the hinge loss's ridge selection
        (``loss="hinge"``, ``gamma_A`` "auto" or a grid): those are drawn with the fixed seed 0 whatever
        ``random_state``, so that the choice is the same in every fit.
    verbose : bool or None, default=None
        Progress bars (tqdm) of the long steps of ``fit`` and ``predict`` (graph, solves):
        True / False switch them on / off for everything inside; None follows the
        caller (an enclosing ``verbose=``, the command line) or the ``graphrkhs`` logger.
    loss : {"squared", "hinge"}, default="squared"
        RLS (= LapRLS) or SVM (= LapSVM, one-vs-rest for more than two classes, as in
        Belkin, Niyogi & Sindhwani 2006) on the warped kernel; regressors take "squared" only.
    unlabeled : hashable or None, default=-1
        Classifiers only: the marker of unlabeled rows (see :mod:`graphrkhs.estimators._base`).
"""


class WarpedKernelClassifier(ClassifierOutputMixin, _Warped):
    __doc__ = r"""RLS or SVM with the warped (point-cloud-norm) kernel (Sindhwani, Niyogi & Belkin 2005).

    A supervised kernel machine on the labeled points, semi-supervised through the
    kernel :math:`\tilde k` of :class:`graphrkhs.WarpedKernel`; with the square loss it is
    LapRLS, with the hinge loss it is LapSVM.
    """ + _WARPED_PARAMS_DOC + r"""
    Attributes
    ----------
    classes_, kernel_ (the WarpedKernel), coef_ (RLS) or svc_ (hinge: one SVC for two classes, else
    the list of one-vs-rest SVCs, one per class, fitted on the transposed kernel matrix of the
    labeled points less ``kernel_shift_``, its mean), labeled_points_ (the labeled points, less
    ``x_offset_`` when that is not None), x_offset_ (the labeled points' mean, subtracted from every
    point, training and new, on the linear kernel with a free constant; else None)

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


class WarpedKernelRegressor(RegressorOutputMixin, _Warped):
    __doc__ = r"""RLS regression with the warped kernel (= LapRLS regression).

    ``predict`` returns the floating dtype of its X (float32 points: float32
    predictions, as the other point regressors; the warped kernel is built
    from the points in float64 and the solves run in float64, so that float32
    points give the float64 fit of the same values; the graph is built from
    the points in their own dtype).
    """ + _WARPED_PARAMS_DOC + r"""
    Attributes
    ----------
    kernel_, coef_, labeled_points_ (the labeled points, less ``x_offset_`` when that is not None),
    x_offset_ (the labeled points' mean, subtracted from every point, training and new, on the linear
    kernel with a free constant; else None)

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

    _parameter_constraints = {"loss": [Options("squared")]}

