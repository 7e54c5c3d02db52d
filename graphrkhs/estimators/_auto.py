r"""``"auto"`` parameters of the estimators: one rule, on the solver layer's selection engine.

A tunable parameter (``alpha``, ``gamma_A``, ``gamma_I``, ``sigma``) takes

* ``"auto"`` (the default): the engine's default grid, chosen by exact
  leave-one-out on the labeled points (:mod:`graphrkhs.solvers._selection`),
  extended geometrically (at most twice) when the choice sits at its edge (not an "auto" ``gamma_A``
  paired with one's own ``gamma_I`` grid: reported only, see :class:`~graphrkhs.LapRLSClassifier`);
* a sequence of values: one's own grid, scored the same way, not extended
  (a :class:`~graphrkhs.SelectionWarning` says when the choice is at its edge);
* a number: that value, no selection.

Leave-one-out selects only when it can rank (:func:`loo_selects`, the one gate
of every learner): with fewer than 3 labeled points, or when every class is
labeled once, or when a regressor that fits constants freely has a target constant up to rounding (every value
fits it exactly: the scores differ by rounding only), the fallback values are used instead -- for the point-cloud
kernels the centre of the width grid and a small ridge, for the graph-penalized
learners (Laplace learning, graph kernel ridge, LapRLS, PLapRLS, the warped
kernel) their smoothest, graph-dominated fit (Laplace learning with fewer than
3 labels: the harmonic solution, as before).  With one's own grid the value used
is the member of that grid nearest the fallback in log scale, with a
:class:`~graphrkhs.SelectionWarning` (:func:`unselected`): a fitted value is
never outside the grid the user gave.

The values used are the fitted attributes ``alpha_``, ``sigma_``, ... and the
scores of the grid are ``cv_results_`` (scikit-learn's layout: ``params``,
``param_<name>``, ``mean_test_score`` (minus the LOO mean squared error,
higher is better), ``rank_test_score``).  Inside scikit-learn's
``GridSearchCV`` pass numbers (the outer search then does the selection).
"""

import numpy as np
from sklearn.base import is_classifier

from .._core.validation import Interval, Options, SelectionWarning, holds_bool, warn
from .._core.loo import constant_up_to_rounding, duplicate_groups
from ..solvers import MIN_LOO_LABELS, class_loo_rows

__all__ = []

AUTO = "auto"
#: The constraint of a tunable positive parameter.
TUNABLE_POSITIVE = [Interval("real", 0, None, closed="neither"), Options(AUTO), "array-like"]
TUNABLE_NONNEG = [Interval("real", 0, None), Options(AUTO), "array-like"]
#: Fewer labeled points than this (for a classifier: in classes with two or more labels): leave-one-out
#: cannot rank anything, the fallback values are used (:func:`loo_selects`).  The solver layer's one rule
#: (its selections raise a ValueError below it): :data:`graphrkhs.solvers._selection.MIN_LOO_LABELS`.
MIN_LABELS = MIN_LOO_LABELS
#: Widths tried for ``sigma="auto"``, relative to the median pairwise distance.
WIDTH_FACTORS = np.geomspace(0.25, 2.0, 7)


def grid_of(value, default, name, *, allow_zero=False):
    """``(grid, extend)`` of a tunable parameter, or ``(None, False)`` for a fixed number."""
    if isinstance(value, str):
        return np.asarray(default, dtype=np.float64), True
    kind = "non-negative" if allow_zero else "positive"
    if holds_bool(value):                   # numpy's 1.0 / 0.0 for True / False
        raise ValueError(f"{name}: a grid must be a non-empty 1-D sequence of {kind} finite numbers, not booleans; "
                         f"got {value!r}.")
    try:
        a = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):         # strings, complex numbers, ragged lists in the grid
        raise ValueError(f"{name}: a grid must be a non-empty 1-D sequence of {kind} finite numbers; got "
                         f"{value!r}.") from None
    if a.ndim == 0:
        return None, False
    if a.ndim != 1 or a.size == 0 or not np.isfinite(a).all() or (a < 0).any() or (not allow_zero and (a == 0).any()):
        raise ValueError(f"{name}: a grid must be a non-empty 1-D sequence of {kind} finite numbers; got {value!r}.")
    return np.unique(a), False


def loo_selects(Y, classifier, *, fits_constants=False, groups=None):
    r"""Whether leave-one-out on the labeled rows can rank parameter values: the one gate of every "auto".

    Not with fewer than ``MIN_LABELS`` labeled rows.  Not for a regression target that is constant on the
    labeled rows when the learner fits constants freely (``fits_constants``: an unpenalized constant, or the
    targets centred on their mean, or a penalty blind to constants): every parameter value then fits the
    target exactly, every LOO residual is 0 but for rounding, and the "choice" was rounding noise (PRLS
    extended its grid to gamma = 1e14 with a SelectionWarning; Fredholm to alpha = 1e3, sigma 64 x the
    median distance).  For a classifier only the rows of classes with two
    or more labels count: leaving out a class's only label leaves the class without one, so that row's
    LOO residual falls as the fit flattens (a larger ridge, a wider kernel, a stronger penalty) whatever
    the data, and with every class labeled once the criterion "selects" an edge of any grid.  At one
    label per class that edge was chance level for Fredholm and PRLS (digits: 10 % and 14 %); the
    learners then use their fallback values (documented with each parameter).  With some classes labeled
    twice or more, the selection scores those classes' rows only (:func:`loo_rows_of`).  "Labeled twice" means
    two distinct points: with ``groups`` (the identical labeled points left out together,
    :func:`labeled_groups`) a class whose labels are all copies of one point counts as labeled
    once (:func:`~graphrkhs.solvers.class_loo_rows`, the rule the selections apply with their ``loo_groups``).

    Parameters
    ----------
    Y : ndarray (l, m)
        The coded targets of the labeled rows: a classifier's one-hot (or centred) columns, one signed
        column for two classes; a regressor's values.
    classifier : bool
    fits_constants : bool, default=False
        Whether the learner reproduces a constant target exactly whatever its parameters.
    groups : array of int of shape (l,), optional
        Group labels of the labeled rows (identical points: :func:`~graphrkhs._core.loo.duplicate_groups`).
    """
    Y = np.asarray(Y)
    l = Y.shape[0]
    if not classifier or l < MIN_LABELS:
        return l >= MIN_LABELS and not (fits_constants and not classifier and constant_target(Y))
    return int(class_loo_rows(Y, groups).sum()) >= MIN_LABELS


def loo_rows_of(estimator):
    """``loo_rows`` of the engine's selections for ``estimator``: ``"classes"`` for a classifier (a class's only
    label stays in every fit but its held-out residual is not scored, :func:`~graphrkhs.solvers.class_loo_rows`:
    it favoured the flattest fit whatever the data), None (every row) for a regressor."""
    from sklearn.base import is_classifier

    return "classes" if is_classifier(estimator) else None


#: The parameters an estimator may select by leave-one-out ("auto" or a grid).
SELECTED_PARAMETERS = ("sigma", "alpha", "gamma", "gamma_A", "gamma_I")


def labeled_groups(estimator, XS):
    """Group labels (l,) of the identical labeled points ``XS`` (:func:`~graphrkhs._core.loo.duplicate_groups`)
    when ``estimator`` selects something, else None (nothing selected, every point distinct, or XS not a 2-D
    array).  Computed once per fit (a sort of the l rows: 1.1 s for 6000 Fashion-MNIST-sized rows): for the gate
    (:func:`loo_selects`: a classifier's class of copies of one point is a class labeled once) and for the
    selections' ``loo_groups`` (:func:`warn_duplicated_labeled_points`).  Silent."""
    XS = np.asarray(XS)
    if XS.ndim != 2 or XS.shape[0] < 2 or not any(is_tuned(getattr(estimator, name, None))
                                                  for name in SELECTED_PARAMETERS):
        return None
    return duplicate_groups(XS)


def warn_duplicated_labeled_points(estimator, groups, Y=None):
    """The groups of identical labeled points (``groups``, from :func:`labeled_groups`) for leave-group-out, with a
    :class:`~graphrkhs.SelectionWarning` where copies carry different targets.

    Left out alone, a point leaves its copy among the labels: its held-out residual is near 0 and every
    criterion favoured the fits that interpolate (RLS on every row twice chose sigma 0.103 and alpha 4.7e-11
    against 1.17 and 1e-3 once, and predicted new points 0.9 off; LapRLS, Fredholm and PRLS alike).  Every
    selection of the estimators takes these groups (``loo_groups``: the engine's leave-group-out; PRLS's by
    refits, :func:`~graphrkhs.solvers.prls_loo_errors`; the hinge loss's k-fold keeps a group in one fold)
    and leaves the copies out together (:func:`~graphrkhs._core.loo.duplicate_groups`); the returned labels
    are those groups.  A warning says only when copies carry different targets (the fit averages them).
    Nothing is changed in the data (the fit is the user's).
    """
    if groups is None:
        return None
    tuned = [name for name in SELECTED_PARAMETERS if is_tuned(getattr(estimator, name, None))]
    l = groups.size
    n_rep = l - int(groups.max()) - 1
    if Y is not None:
        Y2 = np.asarray(Y, dtype=np.float64).reshape(l, -1)
        first = np.zeros(groups.max() + 1, dtype=np.intp)
        first[groups[::-1]] = np.arange(l)[::-1]            # a representative row of each group
        conflicting = int(np.any(Y2 != Y2[first[groups]], axis=1).sum())
        # a classifier's copies of other labels were warned about by every classifier's one check
        # (graphrkhs._core.labels.warn_conflicting_copies, from ClassifierOutputMixin._fit)
        if conflicting and not is_classifier(estimator):
            warn(f"{type(estimator).__name__}: {n_rep} of the {l} labeled points repeat other labeled points "
                 f"exactly, and {conflicting} of the copies carry other targets than the first; the fit "
                 "averages them (no parameter value fits either copy), and the selection of "
                 f"{', '.join(tuned)} leaves all copies of a point out together.", SelectionWarning)
    return groups


def constant_target(Y):
    """Whether every column of the labeled targets ``Y`` is constant up to rounding
    (:func:`graphrkhs._core.loo.constant_up_to_rounding`, the rule of the solvers' selections: a
    spread of at most 64 eps times the largest value; ``3 + 3e-15 z`` was selected on rounding before)."""
    return constant_up_to_rounding(Y)


#: Why a value was not selected: the leave-one-out gate (:func:`loo_selects`) said no.
NO_LOO = ("the labels cannot choose it (leave-one-out needs 3 labeled points; a classifier's, 3 in classes "
          "labeled twice or more; a regressor's, a target that is not constant: every value fits a constant "
          "one exactly)")


def nearest_in_log(grid, value):
    """The member of ``grid`` (values >= 0) nearest ``value`` in log scale (ties: the smaller).

    0 is nearest only to 0; to a ``value`` of 0 every positive member is infinitely far, and the smallest is used.
    """
    grid = np.asarray(grid, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        d = np.abs(np.log(grid) - np.log(float(value)))
    d = np.where(np.isnan(d), 0.0, d)          # 0 against a fallback of 0: log 0 - log 0
    return float(grid[int(np.argmin(d))])


def unselected(value, fallback, name, *, allow_zero=False, why=NO_LOO):
    """The value of a tunable parameter that is not selected (``why``): its number; for "auto" the fallback;
    for one's own grid the member nearest the fallback in log scale, with a SelectionWarning naming it.

    The fallback values lie outside most grids (``gamma_I = 1e6``): a fit must not use a value the user's
    grid excluded.
    """
    if isinstance(value, str):
        return float(fallback)
    grid, _ = grid_of(value, [1.0], name, allow_zero=allow_zero)
    if grid is None:
        return float(value)
    pick = nearest_in_log(grid, fallback)
    warn(f"{name}: {why}; {name}={pick:g} of the given grid is used (its value nearest the fallback "
         f"{float(fallback):g}).", SelectionWarning)
    return pick


def growing(**axes):
    """``extend`` of :func:`~graphrkhs.select_kernel_ridge` from ``axis=extend`` flags: the axes on their default
    ("auto") grid grow, the others (one's own grid) do not but their edge is reported.  A single flag for
    both dropped the extension of an "auto" axis whenever the other axis was one's own grid or a number."""
    return tuple(k for k, e in axes.items() if e)


def is_tuned(value):
    """Whether the value asks for a selection: ``"auto"`` or a sequence (a grid, checked by :func:`grid_of`)."""
    if isinstance(value, str):
        return True
    try:
        return np.ndim(value) == 1
    except ValueError:                      # a ragged sequence: a malformed grid, which grid_of names
        return True

#: The constraint of ``fit_intercept``.
FIT_INTERCEPT = ["boolean", Options(AUTO)]


def free_constant(estimator):
    """Whether the estimator's constant is unpenalized: ``fit_intercept``, "auto" meaning "for regressors,
    and for classifiers whose point-cloud kernel holds no constant function".

    The second case is the linear kernel :math:`x^T z`, and for RLS (whose constant is a true unpenalized
    basis function, ``_SADDLE_CONSTANT``) the homogeneous polynomial kernel :math:`(x^T z)^p` (``coef0 ==
    0``): every function of their RKHS vanishes at the origin, so without a free constant a classifier's
    decision boundary passes through the origin, and two classes off the origin were labeled 90 % right where
    the intercept gives 97 % (two blobs at (10, 10) and (12, 10), 5 labels each).  The graph learners make
    the linear kernel's constant free by centring y and the points (:func:`points_offset`); for the
    polynomial kernel centring y alone only biased them towards the labeled majority, so it is not done.  The
    Gaussian and heat kernels and the polynomial kernel with ``coef0 > 0`` hold the constants (penalized),
    and classifiers on them keep none free, as before.
    """
    from sklearn.base import RegressorMixin

    fi = getattr(estimator, "fit_intercept", False)     # learners without the parameter: no free constant
    if not isinstance(fi, str):
        return bool(fi)
    if isinstance(estimator, RegressorMixin):
        return True
    kernel = getattr(estimator, "kernel", None)
    if isinstance(kernel, str) and kernel == "polynomial":
        # only where the constant is a true unpenalized basis function (RLS's saddle system): the graph learners'
        # "free constant" is the centring of y, which for this kernel only biases towards the labeled majority
        # (LapRLS, two blobs, 3 + 7 labels: 0.881 against 0.889 without it, 12 seeds)
        return getattr(estimator, "coef0", 1.0) == 0 and getattr(estimator, "_SADDLE_CONSTANT", False)
    return isinstance(kernel, str) and kernel == "linear"


def points_offset(estimator, X, labeled):
    r"""The offset subtracted from every point (training and new) by the graph-penalized learners whose free
    constant is the centring of y (LapRLS, the warped learner): the labeled points' mean, for the linear kernel
    with :func:`free_constant`; else None.

    Centring y alone left :math:`f(x) = w^T x + \bar y_S`, whose boundary passes through the origin: two
    blobs at (10, 10) and (12, 10) with 5 balanced labels each were labeled 94 % right in place and 98 % at
    the origin, and a regression moved by 33 % when X and the new points were shifted together.  With
    :math:`\tilde x = x - \bar x_S` the fit is :math:`f(x) = w^T (x - \bar x_S) + \bar y_S`; minimizing over
    a free constant b in :math:`\frac1l \sum_S (y_i - w^T x_i - b)^2 + \gamma_A \|w\|^2 + \frac{\gamma_I}{n^2}
    (Xw + b1)^T L^p (Xw + b1)` gives :math:`b = \bar y_S - w^T \bar x_S` when :math:`L 1 = 0` (the
    combinatorial Laplacian, the default), so this is exactly LapRLS with an unpenalized constant there, and a
    fit that moves with the points under the normalized Laplacian.
    """
    kernel = getattr(estimator, "_fit_params", {}).get("kernel", getattr(estimator, "kernel", None))
    if not (isinstance(kernel, str) and kernel == "linear" and free_constant(estimator)):
        return None
    return np.asarray(X[labeled], dtype=np.float64).mean(axis=0)


def target_scales(Y):
    r"""Per-column scales of a multi-output regressor's labeled targets ``Y`` (l, m), or None for one column.

    The regressors choose one set of hyperparameters for all target columns, by a criterion (exact LOO,
    GCV, k-fold) that sums the squared errors of the columns.  On the raw targets a column's weight in
    that sum was its squared scale: multiplying an unrelated column by 100 moved the selection for the
    others (graph kernel ridge alpha_ 10 -> 1e6, Laplace learning 0.32 -> 1e6, RLS sigma_ 0.82 -> 26 with
    alpha_ 1e-3 -> 1e-7; the other column's predictions 0.8, 1.0 and 0.95 of its range off).  The
    regressors therefore select (and fit) on ``Y / scales`` and multiply the fitted functions back by
    ``scales``; every squared-loss learner here is linear in ``y`` at fixed hyperparameters, so the fit of
    each column is its own, and the selection weights the error of column j by :math:`1 / s_j^2`:

    * :math:`s_j` the standard deviation of column j over the labeled rows (ddof 0);
    * a column constant up to rounding (:func:`~graphrkhs._core.loo.constant_up_to_rounding`: its
      standard deviation is 0 or rounding noise, which as a scale would blow the noise up to unit size)
      takes its absolute value (a learner with a free constant fits it exactly at every value, so it weighs
      nothing; one without weighs its relative error), and an all-zero column 1 (its fit is 0 at every value).

    Every rule is homogeneous: multiplying column j by any c != 0 multiplies :math:`s_j` by :math:`|c|`,
    so the selection, and the other columns' fits, do not change.  One column (``m == 1``) returns None:
    a single-output fit is unchanged (no rescaling, not even by rounding).
    """
    Y = np.asarray(Y, dtype=np.float64)
    if Y.ndim != 2 or Y.shape[1] < 2 or not Y.shape[0] or not np.isfinite(Y).all():
        return None
    scales = np.ones(Y.shape[1])
    for j in range(Y.shape[1]):
        top = float(np.abs(Y[:, j]).max())
        if top > 0:
            # the spread of y / top, times top: the squares of targets near 1e+-300 over/underflowed
            scales[j] = top if constant_up_to_rounding(Y[:, j:j + 1]) else top * float((Y[:, j] / top).std())
    return scales
