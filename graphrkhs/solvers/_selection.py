r"""Model selection: exact leave-one-out / GCV along regularization paths, k-fold
cross-validation, and grids that extend themselves at their edges.

Every learner of the package whose fitted values on the l labeled points are
:math:`\hat y = H y` with a hat matrix H independent of y (a *linear
smoother*) has closed-form leave-one-out residuals (Allen 1974; Wahba 1990,
Ch. 4; Rifkin & Lippert 2007)

.. math:: y_i - \hat y^{(-i)}_i = \frac{((I - H) y)_i}{(I - H)_{ii}},

and GCV (Craven & Wahba 1979)
:math:`\frac1l\|(I-H)y\|^2 / (\frac1l \operatorname{tr}(I-H))^2`.
The functions here compute :math:`I - H` for a whole regularization path from
one factorization:

========================  ==================================================================
:func:`ridge_path_errors` kernel ridge / RLS / graph kernel ridge / Fredholm / warped /
                          G-RLS: one eigendecomposition of :math:`K_{SS}` for every ridge,
                          optionally with an unpenalized basis (a free constant).
:func:`tikhonov_path_errors`
                          Laplacian (Tikhonov) regularization :math:`(J + \mu L)F = JY`:
                          eliminating the unlabeled nodes (one sparse LU of
                          :math:`L_{UU}`) leaves :math:`H = (I + \mu L/L_{UU})^{-1}` with the
                          Schur complement :math:`L/L_{UU}` (Kron reduction), whose
                          eigendecomposition serves every :math:`\mu`.
:func:`laprls_grid_errors`
                          LapRLS on a :math:`(\gamma_A, \gamma_I)` grid from two
                          eigendecompositions (see its notes).
:class:`ManifoldRidgePath`
                          LapRLS, PLapRLS (empirical :math:`L_K`) and warped-kernel RLS as kernel
                          ridge with :math:`K(T^2 + \rho' MK)^{-1}`: one n x n LU per ratio
                          :math:`\gamma_I/\gamma_A`, the fit from the same LU
                          (:func:`select_manifold_gammas`).
:func:`prls_loo_errors`   PRLS, exact LOO (its expansion loses :math:`K(x_i,\cdot)`: a row
                          downdate plus the constraint :math:`\alpha_i = 0`), one Cholesky per
                          gamma (:func:`select_prls_gamma`).
:func:`hat_matrix_errors` any other linear smoother, from its hat matrix (``fit`` applied
                          to the identity: one factorization with l right-hand sides).
:func:`kfold_scores`      learners that are not linear in the labels (TV, Poisson, hinge
                          loss): stratified, seeded k-fold CV on the labeled points.
:func:`stochastic_loo_errors`
                          matrix-free LOO/GCV of any linear smoother from block solves
                          (diag(I - H) estimated by random probes).
========================  ==================================================================

:func:`select_grid` runs an evaluation over a tensor grid, returns a
:class:`GridResult` (with a scikit-learn style ``cv_results_`` table) and
extends a geometric axis whose best value sits at its edge, a bounded number
of times, then warns with :class:`~graphrkhs.SelectionWarning`.
``select_ridge_alpha``, ``select_kernel_ridge`` (width and ridge),
``select_tikhonov_alpha`` and ``select_laprls_gammas`` (LapRLS and warped
kernels, through the warped kernel's ridge path: one n x n LU per ratio
:math:`\gamma_I/\gamma_A`) are ready-made selections on top of it.

Exactness.  The closed form equals the refit without label i (the point kept,
unlabeled, in the graph or point cloud) whenever the learner's function space
and penalty do not depend on which points are labeled: kernel ridge / RLS and
graph kernel ridge (representer theorem), Tikhonov, LapRLS, PLapRLS and the
warped kernel (expansions over all n points), Fredholm (a kernel built from
all points, labels unused), G-RLS (saddle-point form).  The weights are those
of the full fit (the solvers' :math:`1/l` loss scaling is not changed to
:math:`1/(l-1)`).  PRLS expands f over the *labeled* kernel functions only,
so its refit loses :math:`K(x_i, \cdot)` and the hat-matrix LOO is only an
approximation there; :func:`prls_loo_errors` adds the constraint
:math:`\alpha_i = 0` to the downdate (exact, one factorization per gamma).

Several target columns.  ``Y`` of shape (l, m) is scored as one problem: the criterion is the mean
squared residual over all l m entries (GCV and k-fold alike), in the targets' own units, so a column
weighs by its squared scale and one parameter value is chosen for all columns (multiplying one column
by 100 may move the choice for the others).  To weigh the columns equally, divide each by its scale
first and multiply the fit back (every linear smoother's fit scales with its column): the multi-output
regressors of :mod:`graphrkhs.estimators` do so (each column by its labeled standard deviation, see
``graphrkhs.estimators._auto.target_scales``), which makes their selection invariant to rescaling any
single column.

Large label sets.  Above ``STOCHASTIC_MIN_LABELS`` (2000) labeled points an
l x l eigendecomposition is too costly; :func:`stochastic_loo_errors` then
keeps the numerator :math:`(I - H)y` exact and estimates the diagonal of
:math:`I - H` from Rademacher probes (Bekas, Kokiopoulou & Saad 2007), all
in one block solve per grid point (:func:`tikhonov_stochastic_errors`,
:func:`graph_kernel_ridge_stochastic_errors`; error documented there).
:func:`select_tikhonov_solution` and the graph kernel ridge estimators
switch to it by themselves.

Scores follow scikit-learn: higher is better (``-MSE`` of the LOO residuals,
``-GCV``, or the LOO/held-out accuracy).  Ties are broken towards the
*larger* regularization (the smoother function).

Fewest labels.  Every ``select_*`` function here (LOO or GCV) raises a ``ValueError`` with fewer than
``MIN_LOO_LABELS`` = 3 labeled points: with one the criterion is flat in exact arithmetic, with two leaving
one out leaves a single label, and the choice was rounding.  The estimators' ``"auto"`` parameters use the
same number (:func:`graphrkhs.estimators._auto.loo_selects`) and fall back to documented values instead.

Classifiers.  Leaving out a class's only label asks the fit to predict a class it has no label of: that
residual falls as the fit flattens whatever the data.  Every LOO selection here takes ``loo_rows``, the rows
whose residual is scored (all rows stay in every fit): ``"classes"`` (:func:`class_loo_rows`, the rows of
classes labeled twice or more; what the estimators pass for a classifier) or a boolean mask; fewer than
``MIN_LOO_LABELS`` scored rows raise the same ``ValueError``.  Stratified k-fold (:func:`kfold_splits`) keeps
such a label in every training set and in no test set.  With ``loo_groups`` a class whose labels are all copies
of one point counts as labeled once (:func:`class_loo_rows`).  GCV scores every row and ignores ``loo_rows``:
it leaves nothing out (its residuals are those of the full fit, every label in it), so a class's only label
biases it no more than any other row.  Restricting its mean and trace to the scored rows, measured with RLS on
moons (10 + 1 labels) and digits (15 labels, 4 - 6 classes labeled once), kept it off the small-ridge edge
in none of the 4 of 6 draws where it went there: GCV runs there on few labels with or without those rows.
Identical labeled points do bias GCV (the copies halve the cost of the degrees of freedom): with
``loo_groups`` it counts them against the distinct points (:meth:`~graphrkhs.KernelRidgePath.gcv`).
"""

import numbers
import re
from contextlib import contextmanager
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
from scipy.sparse import csgraph

from .._core.labels import _check_labeled_index, _check_targets
from .._core.backend import check_backend, require_backend
from .._core.linalg import check_square, small_dense_threads
from .._core.loo import (KernelRidgePath, _group_rows, check_ridges, check_symmetric_kernel, constant_up_to_rounding,
                         in_ridge_batches)
from .._core.validation import SelectionWarning, check_flag, check_option, check_random_state, check_scalar, warn
from .._core.validation import held_warnings, memory_guard, numeric_axis
from ..graphs import as_adjacency, laplacian as graph_laplacian
from ._common import spd_splu
from ._kernel import _PRLS_GRAMS, _consistency_penalty, _prls_stacked

__all__ = [
    "GridResult",
    "geometric_grid",
    "loo_scores",
    "ridge_path_errors",
    "tikhonov_path_errors",
    "laprls_grid_errors",
    "hat_matrix_errors",
    "select_linear_smoother",
    "select_grid",
    "select_ridge_alpha",
    "select_tikhonov_alpha",
    "select_laprls_gammas",
    "select_kernel_ridge",
    "prls_loo_errors",
    "select_prls_gamma",
    "ManifoldRidgePath",
    "select_manifold_gammas",
    "kfold_splits",
    "kfold_scores",
    "SelectionWarning",
]

CRITERIA = ("loo", "gcv")
SCORINGS = ("mse", "accuracy")

#: Fewest labeled points a selection (``select_*``, LOO or GCV) ranks on: with one, every criterion is flat in
#: exact arithmetic (the one label's LOO prediction, or the GCV of one point, is the same at every value); with
#: two, leaving one out leaves a single label (Tikhonov: its constant, flat again).  The scores then differ by
#: rounding only, and the "choice" was rounding (``select_ridge_alpha`` on one label: alpha = 0.01).  The
#: estimators' gate (:func:`graphrkhs.estimators._auto.loo_selects`) uses the same number and falls back to
#: documented values; a solver-level selection raises a ``ValueError`` instead.
MIN_LOO_LABELS = 3


def _check_selection_labels(l, criterion="loo"):
    """The one rule of the solver-level selections: fewer than ``MIN_LOO_LABELS`` labeled points raise."""
    if l < MIN_LOO_LABELS:
        what = "leave-one-out" if criterion == "loo" else "GCV"
        raise ValueError(f"{what} selection needs at least {MIN_LOO_LABELS} labeled points; got {l} (with fewer "
                         f"the criterion ranks rounding only). Pass fixed parameter values instead.")


def class_loo_rows(Y: Any, groups: Optional[Any] = None) -> np.ndarray:
    r"""The labeled rows a classifier's leave-one-out scores: those of classes labeled twice or more, shape (l,).

    Leaving out a class's only label asks the fit to predict a class it has no label of: that row's LOO
    residual falls as the fit flattens (a larger ridge, a wider kernel, a stronger penalty) whatever the
    data, and biases every selection towards flat fits (RLS with 15 - 30 random labels on the digits and
    on 3000 Fashion-MNIST points: scoring only these rows moved 60 of its 120 choices, the ridge by 3.16 in
    the median on Fashion-MNIST, where it labels 1.3 - 1.7 points more at 15 - 20 labels;
    ``benchmarks/loo_singleton_classes.py``).  Such rows stay in every fit and are left out of the criterion only
    (``loo_rows`` of the selections).  The one rule of the selections and of the estimators' gate
    (:func:`graphrkhs.estimators._auto.loo_selects`: fewer than ``MIN_LOO_LABELS`` such rows, no selection).

    With ``groups`` (leave-group-out, identical labeled points: :func:`~graphrkhs._core.loo.duplicate_groups`)
    "labeled twice" means two distinct groups: a class whose labels are all copies of one point is left
    without a label when its group is left out, exactly as a class labeled once (scored, its copies moved
    RLS's choice to the rough edge of the grid: alpha 5.5e-11, sigma 0.29 against 3.2e-5, 0.82 without the
    copy, and 71 % against 83 % accuracy on 200 moons points).

    Parameters
    ----------
    Y : array of shape (l, k) or (l,) / (l, 1)
        Class-coded targets: one-hot (or centred one-hot) columns, the class of a row their argmax; one
        signed column (+-1, or centred) for two classes, the class its sign.
    groups : array of int of shape (l,), optional
        Group labels of the rows (rows left out together); default: every row its own group.

    Returns
    -------
    ndarray of bool, shape (l,)
    """
    Y2 = np.asarray(Y, dtype=np.float64)
    l = Y2.shape[0] if Y2.ndim else 0
    Y2 = Y2.reshape(l, -1)
    if not l:
        return np.zeros(0, dtype=bool)
    codes = Y2.argmax(axis=1) if Y2.shape[1] > 1 else (Y2[:, 0] > 0).astype(np.intp)
    if groups is None:
        return np.bincount(codes)[codes] >= 2
    g = np.asarray(groups)
    if g.shape != (l,) or g.dtype.kind not in "iub":
        raise ValueError(f"groups must be an integer array of shape ({l},), one group label per labeled row; got "
                         f"{'shape ' + str(g.shape) if g.shape != (l,) else 'dtype ' + str(g.dtype)}.")
    # distinct groups per class: the distinct (class, group) pairs counted by class
    pairs = np.unique(np.column_stack([codes, np.unique(g, return_inverse=True)[1].reshape(-1)]), axis=0)
    return np.bincount(pairs[:, 0], minlength=int(codes.max()) + 1)[codes] >= 2


def _scored_rows(loo_rows, Y2, groups=None):
    """The boolean mask (l,) of the rows whose LOO residual is scored, or None for all of them.

    ``loo_rows``: None (every row), ``"classes"`` (:func:`class_loo_rows` of the targets ``Y2`` and the
    leave-group-out ``groups``) or a boolean mask of the l labeled rows."""
    if loo_rows is None:
        return None
    l = Y2.shape[0]
    if isinstance(loo_rows, str):
        check_option(loo_rows, "loo_rows", ("classes",))
        return class_loo_rows(Y2, groups)
    keep = np.asarray(loo_rows)
    if keep.dtype != bool or keep.shape != (l,):
        raise ValueError(f"loo_rows must be None, 'classes' or a boolean mask of the {l} labeled rows; got "
                         f"{'shape ' + str(keep.shape) if keep.dtype == bool else 'dtype ' + str(keep.dtype)}.")
    return keep


def _check_scored_rows(loo_rows, Y, criterion="loo", groups=None):
    """The selections' rule for ``loo_rows``: LOO ranks on at least ``MIN_LOO_LABELS`` scored rows (the gate of
    :func:`graphrkhs.estimators._auto.loo_selects`), else the ``ValueError`` of too few labels."""
    if loo_rows is None or criterion != "loo" or np.ndim(Y) < 1:
        return
    keep = _scored_rows(loo_rows, _as_targets(Y, np.shape(Y)[0]), groups)
    n = int(keep.sum())
    if n < MIN_LOO_LABELS:
        raise ValueError(f"leave-one-out selection needs at least {MIN_LOO_LABELS} scored labeled rows; loo_rows "
                         f"scores {n} of {keep.size} (a classifier's: the rows of classes labeled twice or more; "
                         "with fewer the criterion ranks nothing). Pass fixed parameter values instead.")


def _n_rows(Y):
    """The number of target rows (0 for a scalar: the callers' own checks then name the argument)."""
    return int(np.shape(Y)[0]) if np.ndim(Y) >= 1 else MIN_LOO_LABELS


def geometric_grid(low: float, high: float, num: int) -> np.ndarray:
    """``num`` values from ``low`` to ``high``, equally spaced on a log scale (``np.geomspace``)."""
    low = check_scalar(low, "low", low=0, low_inclusive=False)
    high = check_scalar(high, "high", low=low)
    num = check_scalar(num, "num", kind="int", low=1)
    # np.geomspace holds about 4 float64 arrays of num entries (linspace, its power, the result): num = 10**12
    # failed in numpy with a bare "Unable to allocate 7.28 TiB"
    memory_guard(32.0 * num, f"geometric_grid(num={num}) (about 4 float64 arrays of num values)",
                 "use a smaller num (a selection grid needs a few points per decade).")
    return np.geomspace(low, high, num)


def _probe_memory_guard(n_probes, n_rows, Y):
    """Refuse ``n_probes`` whose probe block and solves would not fit (10**9 probes on 50 labels failed in numpy with
    a bare "Unable to allocate 373 GiB"): about 6 float64 blocks of n_rows x (m + n_probes) -- the probes (drawn as
    int64, then float64), the stacked right-hand sides, their images and the CG's work blocks over n_rows nodes."""
    n_probes = check_scalar(n_probes, "n_probes", kind="int", low=1)
    m = int(np.shape(Y)[1]) if np.ndim(Y) == 2 else 1
    cols = float(m) + float(n_probes)
    memory_guard(48.0 * float(n_rows) * cols,
                 f"n_probes={n_probes}: the stochastic leave-one-out's {n_rows} x {cols:.4g} blocks of right-hand "
                 f"sides ({m} target columns + n_probes probes; about 6 float64 blocks of that size)",
                 "use fewer n_probes (64 by default; the estimate's standard error falls only like "
                 "1/sqrt(n_probes)).")
    return n_probes


# ---------------------------------------------------------------------------
# The result of a selection
# ---------------------------------------------------------------------------

def _grid_shaped(a, shape, name, names):
    """``a`` as a float64 array of the grid's ``shape``; its own shape must be that one (length-1 axes aside).

    A reshape alone would silently reorder a table given with its axes transposed (e.g. an
    ``evaluate`` returning (len(alpha), len(sigma)) for the grid (sigma, alpha)).
    """
    a = np.asarray(a, dtype=np.float64)
    if tuple(d for d in a.shape if d != 1) != tuple(d for d in shape if d != 1):
        raise ValueError(f"{name} must have the grid's shape {shape} (axes in the grid's order {names}); got "
                         f"shape {a.shape}. An evaluate callable of select_grid returns one entry per grid point, "
                         "axes in the order of the grid.")
    return a.reshape(shape)


def _numeric(values):
    """Whether a grid axis holds numbers (real, not bool): ordered by value; other axes by position."""
    kind = np.asarray(values).dtype.kind
    return kind in "iuf"


class GridResult:
    r"""Scores of a tensor grid of parameters and the selected point.

    Parameters
    ----------
    grid : dict of str -> 1-D array
        The values of each parameter (the axes, in order).
    scores : ndarray of shape (len(grid[name_0]), len(grid[name_1]), ...)
        Mean score of each grid point, higher is better.
    std : ndarray like ``scores``, optional
        Spread over folds (k-fold CV only).
    tie_break : ndarray like ``scores``, optional
        Secondary score (higher is better) among points with the best score
        (the LOO MSE behind an accuracy score); remaining ties go to the
        largest value of the first axis (the strongest regularization), then
        of the second, and so on.

    Attributes
    ----------
    grid : dict of str -> ndarray
    scores, std : ndarray
    best_index : tuple of int
    best_params : dict of str -> float
    best_score : float
    rank : ndarray of int like ``scores`` (1 = best)
    at_edge : dict of str -> bool
        The selected value is the smallest or largest of that axis (and the axis has
        more than one value).
    n_extensions : int
        How many times :func:`select_grid` extended the grid.
    cv_results_ : dict
        scikit-learn style flat table: ``params`` (list of dicts),
        ``param_<name>``, ``mean_test_score``, ``std_test_score``, ``rank_test_score``.
    """

    def __init__(self, grid: Mapping[str, Sequence[float]], scores, *, std=None, tie_break=None,
                 criterion: str = "", n_extensions: int = 0):
        self.grid = {k: np.asarray(v) for k, v in grid.items()}
        shape = tuple(v.size for v in self.grid.values())
        self.scores = _grid_shaped(scores, shape, "scores", list(self.grid))
        self.std = None if std is None else _grid_shaped(std, shape, "std", list(self.grid))
        if tie_break is not None:
            tie_break = _grid_shaped(tie_break, shape, "tie_break", list(self.grid))
        self.criterion = criterion
        self.n_extensions = n_extensions
        finite = np.where(np.isfinite(self.scores), self.scores, -np.inf)
        tb = (np.zeros(shape) if tie_break is None
              else np.where(np.isfinite(tie_break), np.asarray(tie_break, dtype=np.float64).reshape(shape), -np.inf))
        # lexsort: the last key is primary -> score, then tie_break, then the larger value of the first axis, of
        # the second, ... (each axis's larger value is its stronger regularization / smoother fit).  By value, not
        # by position: an axis given in decreasing order gave a tie to its smallest value
        # (an axis of names -- kernels, solvers -- keeps its given order: its "larger value" means nothing)
        axes = [-(np.asarray(v, dtype=np.float64) if _numeric(v) else i).ravel()
                for v, i in zip(np.meshgrid(*self.grid.values(), indexing="ij"), np.indices(shape))][::-1]
        order = np.lexsort((*axes, -tb.ravel(), -finite.ravel()))
        self.best_index = np.unravel_index(order[0], shape)
        rank = np.empty(order.size, dtype=np.int64)
        rank[order] = np.arange(1, order.size + 1)
        self.rank = rank.reshape(shape)
        self.best_params = {k: v[i].item() for (k, v), i in zip(self.grid.items(), self.best_index)}
        self.best_score = float(self.scores[self.best_index])
        # by value (the smallest or largest of the axis), in any order of the axis
        self.at_edge = {k: bool(v.size > 1 and (v[i] in (np.min(v), np.max(v)) if _numeric(v)
                                                else i in (0, v.size - 1)))
                        for (k, v), i in zip(self.grid.items(), self.best_index)}

    @property
    def cv_results_(self) -> Dict[str, Any]:
        mesh = np.meshgrid(*self.grid.values(), indexing="ij")
        names = list(self.grid)
        flat = [m.ravel() for m in mesh]
        out = {"params": [{n: f[i].item() for n, f in zip(names, flat)} for i in range(self.scores.size)]}
        for n, f in zip(names, flat):
            out[f"param_{n}"] = f
        out["mean_test_score"] = self.scores.ravel().copy()
        out["std_test_score"] = (np.zeros(self.scores.size) if self.std is None else self.std.ravel().copy())
        out["rank_test_score"] = self.rank.ravel().copy()
        return out

    def renamed(self, **names: str) -> "GridResult":
        """The same result with axes renamed (``renamed(alpha="gamma")``), for a learner whose parameter the
        engine's axis stands for: ``grid``, ``best_params``, ``at_edge`` and ``cv_results_`` use the new names."""
        unknown = set(names) - set(self.grid)
        if unknown:
            raise ValueError(f"renamed: {sorted(unknown)} are not axes of the grid ({list(self.grid)}).")
        out = object.__new__(GridResult)
        out.__dict__.update(self.__dict__)
        out.grid = {names.get(k, k): v for k, v in self.grid.items()}
        out.best_params = {names.get(k, k): v for k, v in self.best_params.items()}
        out.at_edge = {names.get(k, k): v for k, v in self.at_edge.items()}
        return out

    def __repr__(self):
        params = ", ".join(f"{k}={v:.3g}" for k, v in self.best_params.items())
        return f"GridResult({params}, best_score={self.best_score:.4g}, criterion={self.criterion!r})"


# ---------------------------------------------------------------------------
# Scores from LOO residuals
# ---------------------------------------------------------------------------

#: A leave-one-out decision (a one-column prediction, or the gap between the two largest columns) at most this
#: many times eps times the targets' largest size is rounding: a tie (:func:`loo_scores`).
LOO_DECISION_ROUNDING = 16


def loo_scores(residuals: np.ndarray, Y: np.ndarray, scoring: str = "mse", *,
               loo_rows: Any = None, loo_groups: Optional[Any] = None) -> Tuple[np.ndarray, np.ndarray]:
    r"""Scores (higher is better) of leave-one-out residuals along a path.

    Parameters
    ----------
    residuals : ndarray of shape (..., l, m)
        :math:`y_i - \hat y^{(-i)}_i` for each grid point.
    Y : ndarray of shape (l, m) (or (l,) when m = 1)
    scoring : {"mse", "accuracy"}
        "mse": minus the mean squared residual.  "accuracy": the fraction of
        points whose LOO prediction has the sign of :math:`y_i` (one column,
        :math:`\pm 1` coding) or the argmax of :math:`Y_i` (one-hot columns); a prediction
        (or the gap between its two largest columns) at most
        ``LOO_DECISION_ROUNDING`` :math:`\epsilon \max|y|` (16 ulps of the largest target: the
        rounding of :math:`y - r`) is a tie and counts as wrong,
        as a prediction of exactly 0 does (its sign would be rounding, decided by the order of the rows).
        A grid point with an undefined (infinite) residual -- a label the
        smoother interpolates -- scores ``-inf`` either way.
    loo_rows : None, "classes" or boolean array of shape (l,), keyword-only
        The rows whose residual is scored (the mean is over them; every row stays in the fit the residuals
        come from).  None: all.  ``"classes"``: :func:`class_loo_rows` of ``Y`` (a classifier's: a class's
        only label is not scored).  No scored row is a ``ValueError``.
    loo_groups : array of int of shape (l,), optional, keyword-only
        The groups the residuals were left out by (leave-group-out); with ``loo_rows="classes"`` a class
        whose rows all fall in one group counts as labeled once (:func:`class_loo_rows`).

    Returns
    -------
    score, tie : ndarrays of shape residuals.shape[:-2]
        The tie-break: for "accuracy" minus the LOO MSE; for "mse" minus its logarithm (the same order,
        computed from residuals scaled by the targets' size, so that it still ranks where the MSE itself
        over- or underflows float64: targets beyond about 1e154 or below 1e-154).  An MSE beyond float64
        scores minus the largest float (``-inf`` is kept for undefined residuals).
    """
    check_option(scoring, "scoring", SCORINGS)
    R = np.asarray(residuals, dtype=np.float64)
    if R.ndim < 2:
        raise ValueError(f"residuals must have shape (..., l, m); got shape {R.shape}.")
    Y = _as_targets(Y, R.shape[-2])
    if Y.shape[1] != R.shape[-1]:
        raise ValueError(f"Y must have the residuals' {R.shape[-1]} column(s) (shape ({R.shape[-2]}, "
                         f"{R.shape[-1]})); got shape {Y.shape}.")
    keep = _scored_rows(loo_rows, Y, loo_groups)
    if keep is not None:
        if not keep.any():
            raise ValueError(f"loo_rows scores none of the {keep.size} labeled rows; leave-one-out has nothing to "
                             "average (a classifier's rows are those of classes labeled twice or more).")
        R, Y = R[..., keep, :], Y[keep]
    # scaled by the targets' size before squaring: targets near 1e150 must not overflow the sum
    scale = _target_scale(Y)
    with np.errstate(invalid="ignore", over="ignore", under="ignore", divide="ignore"):
        # the root mean square scaled back, then squared: only an MSE beyond float64 overflows (scale ** 2 in
        # Python floats raised OverflowError for targets above ~1e154, whatever the residuals)
        scaled = np.mean((R / scale) ** 2, axis=(-2, -1))
        mse = (np.sqrt(scaled) * scale) ** 2
        # the tie-break of "mse": log MSE from the scaled mean, representable whatever the targets' size
        log_mse = np.log(np.maximum(scaled, np.finfo(np.float64).smallest_subnormal)) + 2.0 * np.log(scale)
    defined = np.isfinite(scaled)
    # an MSE beyond float64 (targets near 1e200) is the largest float, not inf ("undefined"): such points tie
    # and log MSE ranks them (before, every point scored -inf and the grid's tie rule picked its last value;
    # targets near 1e-200 underflowed every MSE to 0, with the same result)
    mse = np.where(defined, np.where(np.isfinite(mse), mse, np.finfo(np.float64).max), np.inf)
    if scoring == "mse":
        return -mse, np.where(defined, -log_mse, -np.inf)
    with np.errstate(invalid="ignore"):
        P = Y - R
    # a LOO decision within the rounding of the residuals (LOO_DECISION_ROUNDING eps times the targets' size) is
    # a tie, no decision, counted wrong as a prediction of exactly 0 is (sign 0): its sign was rounding noise that
    # the order of the rows decided (FredholmClassifier(normalized=True), 4 labels on moons: every LOO prediction of
    # the smallest width +-1.1e-16, "accuracy" 0.75 chose it in one row order, 0.25 in another)
    # (no factor l: with it, correct decisions of 1e-13 at l = 100 -- a heavily regularized fit -- counted wrong)
    tol = LOO_DECISION_ROUNDING * np.finfo(np.float64).eps * scale
    with np.errstate(invalid="ignore"):
        if Y.shape[1] == 1:
            right = (np.sign(P[..., 0]) == np.sign(Y[:, 0])) & (np.abs(P[..., 0]) > tol)
        else:
            top2 = np.sort(P, axis=-1)[..., -2:]
            right = (np.argmax(P, axis=-1) == np.argmax(Y, axis=-1)) & (top2[..., 1] - top2[..., 0] > tol)
    acc = np.mean(right, axis=-1)
    # an undefined (infinite) residual has no LOO prediction: its -inf "prediction" would count as the
    # negative class / the first class; the grid point is undefined, as its MSE is
    return np.where(np.isfinite(R).all(axis=(-2, -1)), acc, -np.inf), -mse


def _target_scale(Y):
    """The largest absolute target (1 for targets that are all 0 or not finite): the unit in which squared errors
    are summed, so that neither targets near 1e200 overflow nor targets near 1e-200 underflow them."""
    a = np.abs(np.asarray(Y, dtype=np.float64))
    return float(a.max()) if a.size and np.isfinite(a).all() and a.max() > 0 else 1.0


def _gcv_pair(g, scale):
    r"""``(score, tie)`` of GCV values ``g`` computed from targets divided by ``scale``: GCV is homogeneous of
    degree 2 in y, the GCV of y is :math:`g\,\mathrm{scale}^2`.  As :func:`loo_scores` for the MSE: a value
    beyond float64 scores minus the largest float (``inf``, undefined, stays ``-inf``), and the tie-break is
    minus log GCV, which ranks where the value itself over- or underflows."""
    g = np.asarray(g, dtype=np.float64)
    defined = np.isfinite(g)
    with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="ignore"):
        val = (np.sqrt(g) * scale) ** 2
        log_g = np.log(np.maximum(g, np.finfo(np.float64).smallest_subnormal)) + 2.0 * np.log(scale)
    val = np.where(defined, np.where(np.isfinite(val), val, np.finfo(np.float64).max), np.inf)
    return -val, np.where(defined, -log_g, -np.inf)


def _constant_scores(alpha, scoring):
    """``(scores, tie)`` of a target constant up to rounding fitted exactly at every grid point: flat (LOO MSE 0,
    accuracy 1), so that :func:`select_grid` returns the tie rule's point (the largest regularization) without
    extending the grid or reporting its edge."""
    shape = np.shape(alpha)
    return np.full(shape, 1.0 if scoring == "accuracy" else 0.0), np.zeros(shape)


def _float_axis(values):
    """``values`` as a 1-D float64 array, or ``[nan]`` when they are no numbers (strings, complex, ragged lists,
    booleans):
    the callers' own check then raises its ``ValueError`` naming the argument (numpy's "could not convert
    string to float" named nothing)."""
    return numeric_axis(values)


def _as_targets(Y, l):
    Y2, _, _ = _check_targets(Y, l)
    return np.asarray(Y2, dtype=np.float64)


def _loo_from_A(A, Y2):
    """LOO residuals (l, m) from an explicit I - H (inf where (I - H)_ii = 0: an interpolated point)."""
    d = np.diag(A)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(d[:, None] > 1e-14, (A @ Y2) / np.maximum(d, 1e-300)[:, None], np.inf)


def _gcv_from_A(A, Y2):
    l = A.shape[0]
    tr = np.trace(A)
    if tr <= 1e-14 * l:
        return np.inf
    return float(((A @ Y2) ** 2).sum() / Y2.shape[1] / l / (tr / l) ** 2)


def _project_unpenalized(A, Psi):
    r""":math:`A - A\Psi(\Psi^T A \Psi)^{-1}\Psi^T A`: the I - H of the same smoother with :math:`\Psi` unpenalized.

    For a quadratic penalty that does not involve the coefficients of
    :math:`\Psi` (e.g. a constant and a Laplacian penalty, :math:`L1 = 0`),
    minimizing out those coefficients leaves the weighted least-squares
    problem :math:`\min_b (y - \Psi b)^T A (y - \Psi b)`.
    """
    APsi = A @ Psi
    return A - APsi @ np.linalg.solve(Psi.T @ APsi, APsi.T)


def _criterion_errors(A_or_parts, Y2, criterion, scoring, loo_rows=None):
    """(score, tie) of one grid point from an explicit I - H (``loo_rows``: of :func:`loo_scores`; not GCV's)."""
    if criterion == "gcv":
        scale = _target_scale(Y2)
        score, tie = _gcv_pair(_gcv_from_A(A_or_parts, Y2 / scale), scale)
        return float(score), float(tie)
    s, t = loo_scores(_loo_from_A(A_or_parts, Y2)[None], Y2, scoring, loo_rows=loo_rows)
    return s[0], t[0]


# ---------------------------------------------------------------------------
# Paths
# ---------------------------------------------------------------------------

def ridge_path_errors(K: Any, Y: Any, ridges: Any, *, unpenalized: Optional[Any] = None, criterion: str = "loo",
                      scoring: str = "mse", loo_rows: Any = None,
                      loo_groups: Optional[Any] = None) -> Tuple[np.ndarray, np.ndarray]:
    r"""Exact LOO (or GCV) scores of kernel ridge :math:`\beta = (K + \mu I)^{-1} y` for every ridge :math:`\mu`.

    One eigendecomposition of K (:class:`~graphrkhs.KernelRidgePath`), then
    :math:`O(l^2)` per ridge and column.  The learners' scalings: RLS /
    Fredholm / warped (:func:`~graphrkhs.rls_fit`) use :math:`\mu = \alpha l`,
    graph kernel ridge :math:`\mu = \alpha`, G-RLS :math:`\mu = \gamma l`
    (with its features as ``unpenalized``).

    Parameters
    ----------
    K : ndarray of shape (l, l)
        Symmetric PSD kernel on the labeled points (symmetric to ``PSD_RTOL`` = 1e-6 of its largest entry, else
        ``ValueError``: the engine reads :math:`(K + K^T)/2`).
    Y : ndarray of shape (l,) or (l, m)
        m columns are scored together, in their own units (module notes, "Several target columns").
    ridges : sequence of float > 0
    unpenalized : ndarray of shape (l, q), optional
        Unpenalized basis (``np.ones(l)``: a free constant, so that a shift of
        y shifts the fit), see :class:`~graphrkhs.KernelRidgePath`.
    criterion : {"loo", "gcv"}
    scoring : {"mse", "accuracy"}
        See :func:`loo_scores` (GCV is always a squared error).
    loo_rows : None, "classes" or boolean array of shape (l,), default=None
        The labeled rows whose LOO residual is scored (:func:`loo_scores`); every row stays in the fits.
        ``"classes"`` for class-coded targets: a class's only label is not scored (:func:`class_loo_rows`).
        Fewer than ``MIN_LOO_LABELS`` scored rows raise ``ValueError``.  GCV scores every row.
    loo_groups : array of int of shape (l,), optional
        Leave-group-out: rows with equal labels are left out together (identical labeled points,
        :func:`~graphrkhs._core.loo.duplicate_groups`; left out alone, a point's copy keeps its residual near
        0 and the choice runs to the fits that interpolate).  Closed form
        :math:`r_G = [(I - H)_{GG}]^{-1} ((I - H) y)_G` (:meth:`~graphrkhs.KernelRidgePath.loo_residuals`).
        With ``loo_rows="classes"`` a class whose rows all fall in one group is not scored
        (:func:`class_loo_rows`).  GCV counts its degrees of freedom against the groups (the distinct
        points, :meth:`~graphrkhs.KernelRidgePath.gcv`).

    Returns
    -------
    scores, tie_break : ndarrays of shape (len(ridges),), higher is better
    """
    check_option(criterion, "criterion", CRITERIA)
    check_option(scoring, "scoring", SCORINGS)
    K = check_square(K, "K", np.float64)
    check_symmetric_kernel(K, "K")      # the engine reads (K + K^T) / 2: np.triu(K) was scored silently
    Y2 = _as_targets(Y, K.shape[0])
    ridges = check_ridges(ridges, "ridges")
    path = KernelRidgePath(K, unpenalized=unpenalized)
    return _path_scores(path, Y2, ridges, criterion, scoring, loo_rows=loo_rows, loo_groups=loo_groups)


def centred_loo_residuals(path, Y2, ridges, groups=None):
    r"""Exact LOO residuals of kernel ridge on targets centred on their mean, the mean re-taken without the point.

    The procedure: :math:`\bar y_{-i}` the mean of the other labels, kernel ridge on
    :math:`y - \bar y_{-i}` without point i, prediction plus :math:`\bar y_{-i}`.  With a fixed offset
    the LOO residual is :math:`[(I - H)(y - \bar y_{-i} 1)]_i / (I - H)_{ii}`, and
    :math:`\bar y - \bar y_{-i} = (y_i - \bar y)/(l - 1)`, so for centred targets
    :math:`y_c = y - \bar y` (what ``Y2`` must be)

    .. math:: r_i = \frac{[(I - H) y_c]_i}{(I - H)_{ii}} + \frac{y_{c,i}}{l - 1} \frac{[(I - H) 1]_i}{(I - H)_{ii}},

    two LOO solves of the path (the columns of ``Y2`` and a column of ones).  The plain
    :meth:`~graphrkhs.KernelRidgePath.loo_residuals` of :math:`y_c` leaves the held-out label in the mean
    (0.413 against 0.454 by refits on a 10-label LapRLS).  With a free constant in the path
    (:math:`(I - H) 1 = 0`) both agree.  With ``groups`` (leave-group-out,
    :meth:`~graphrkhs.KernelRidgePath.loo_residuals`) the mean is re-taken without the whole group G of k rows: :math:`y_{c,i}/(l - 1)` becomes
    :math:`\sum_{j \in G} y_{c,j} / (l - k)`.
    """
    l, m = Y2.shape
    R = path.loo_residuals(np.column_stack([Y2, np.ones(l)]), ridges, groups=groups)
    if groups is None:
        shift = Y2 / max(l - 1, 1)
    else:
        _, inv, counts = np.unique(np.asarray(groups), return_inverse=True, return_counts=True)
        inv = inv.reshape(-1)
        sums = np.zeros((counts.size, m))
        np.add.at(sums, inv, Y2)
        shift = sums[inv] / np.maximum(l - counts[inv], 1)[:, None]
    with np.errstate(invalid="ignore"):
        out = R[..., :m] + shift[None] * R[..., m:]
    return np.where(np.isfinite(R[..., m:]), out, np.inf)


def _path_scores(path, Y2, ridges, criterion, scoring, centred=False, loo_rows=None, loo_groups=None):
    # in batches of ridges (in_ridge_batches): memory that does not grow with the grid
    return in_ridge_batches(lambda r: _path_scores_batch(path, Y2, r, criterion, scoring, centred, loo_rows,
                                                         loo_groups), ridges, *Y2.shape)


def _path_scores_batch(path, Y2, ridges, criterion, scoring, centred=False, loo_rows=None, loo_groups=None):
    if criterion == "gcv":
        # in units of the targets' size (targets near 1e200 overflowed every GCV to inf: "undefined" on the whole
        # grid; near 1e-200 underflowed it to 0: a tie everywhere, the largest ridge chosen)
        scale = _target_scale(Y2)
        return _gcv_pair(path.gcv(Y2 / scale, ridges, centred=centred, groups=loo_groups).mean(axis=1), scale)
    R = (centred_loo_residuals(path, Y2, ridges, loo_groups) if centred
         else path.loo_residuals(Y2, ridges, groups=loo_groups))
    return loo_scores(R, Y2, scoring, loo_rows=loo_rows, loo_groups=loo_groups)


def tikhonov_path_errors(W: Any, labeled: Any, Y: Any, alphas: Any, *, laplacian: str = "combinatorial",
                         criterion: str = "loo", scoring: str = "mse",
                         loo_rows: Any = None) -> Tuple[np.ndarray, np.ndarray]:
    r"""Exact LOO (or GCV) scores of :func:`~graphrkhs.tikhonov_solution` for every ``alpha``.

    One sparse LU of :math:`L_{UU}` (l right-hand sides) and one
    :math:`l \times l` eigendecomposition serve the whole path (see
    ``_KronReduction``: :math:`H = (I + \mu\, L/L_{UU})^{-1}`; Belkin, Matveeva &
    Niyogi 2004).  Leaving label i out keeps node i in the graph, unlabeled:
    exactly the refit of ``tikhonov_solution`` without it.  A labeled node
    alone among the labels of its connected component has no LOO residual
    (no other label informs it, :math:`(I - H)_{ii} = 0` at every ``alpha``)
    and is left out of the average.

    Parameters
    ----------
    W : graph
    labeled : int indices (l,)
    Y : ndarray of shape (l,) or (l, m)
        m columns are scored together, in their own units (module notes, "Several target columns").
    alphas : sequence of float > 0
    laplacian : {"combinatorial", "normalized"}
    criterion, scoring, loo_rows
        As in :func:`ridge_path_errors`.

    Returns
    -------
    scores, tie_break : ndarrays of shape (len(alphas),)
    """
    check_option(criterion, "criterion", CRITERIA)
    check_option(scoring, "scoring", SCORINGS)
    alphas = check_ridges(alphas, "alphas")
    red = _KronReduction(W, labeled, laplacian)
    return red.scores(alphas, _as_targets(Y, red.S.size), criterion, scoring, loo_rows)


#: The fix named when the n x n kernel of the LapRLS selections is not symmetric (laprls_fit's words).
_ALL_POINTS_GRAM = "pass the Gram matrix k(x_i, x_j) of all n points."


class _LapRLSGrid:
    r"""Shared factorizations of the LapRLS hat matrix over a (gamma_A, gamma_I) grid.

    With :math:`K = RR^T` (:math:`R = V\operatorname{diag}(\sqrt s)`, eigenvalues
    below rounding dropped), :math:`N = J + cM`, :math:`\lambda = \gamma_A l`,
    :math:`c = \gamma_I l / n^2`, the fitted values are
    :math:`K(NK + \lambda I)^{-1}Jy = R(R^TNR + \lambda I)^{-1}R^TJy`
    (push-through).  With :math:`R^TMR = W\operatorname{diag}(b)W^T` and
    :math:`Z = R_S W` (l x r), :math:`D = \operatorname{diag}(cb + \lambda)`:
    :math:`H = Z(D + Z^TZ)^{-1}Z^T` and, by Woodbury,
    :math:`I - H = (I + ZD^{-1}Z^T)^{-1}` -- SPD, no cancellation, O(l^2 r) per
    grid point after two eigendecompositions (of K and of :math:`R^TMR`).
    """

    def __init__(self, K, labeled, M):
        K = check_square(K, "K", np.float64)
        # laprls_fit's symmetry check: the eigendecomposition below reads (K + K^T) / 2, np.triu(K) was scored silently
        check_symmetric_kernel(K, "K", _ALL_POINTS_GRAM)
        n = K.shape[0]
        self.S = _check_labeled_index(labeled, n)
        M = sp.csr_array(M, dtype=np.float64)
        if M.shape != (n, n):
            raise ValueError(f"M must have shape ({n}, {n}) like K; got {M.shape}.")
        # (K + K^T) / 2, its eigenvectors and eigh's workspace, R and M R: 2.9 - 4.4 x 8 n^2 bytes measured
        memory_guard(8.0 * 5.0 * float(n) * n, f"the LapRLS grid on {n} points (about five dense {n} x {n} arrays)",
                     "use fewer points, or the low-rank path (select_laprls_lowrank / solver='nystrom').")
        with small_dense_threads(n):
            s, V = np.linalg.eigh((K + K.T) / 2)
        keep = s > 1e-12 * max(float(s.max()), 1e-300)
        R = V[:, keep] * np.sqrt(s[keep])
        Bm = R.T @ (M @ R)
        with small_dense_threads(Bm.shape[0]):
            b, Wb = np.linalg.eigh((Bm + Bm.T) / 2)
        self.b = np.maximum(b, 0.0)
        self.Z = R[self.S] @ Wb
        self.n = n
        self.M = M

    def residual_operator(self, gamma_A, gamma_I):
        l = self.S.size
        lam, c = gamma_A * l, gamma_I * l / float(self.n) ** 2
        C = (self.Z / (c * self.b + lam)) @ self.Z.T
        C.flat[::l + 1] += 1.0
        return sla.cho_solve(sla.cho_factor(C, lower=True, check_finite=False), np.eye(l), check_finite=False)


def laprls_grid_errors(K: Any, labeled: Any, Y: Any, M: Any, gamma_As: Any, gamma_Is: Any, *,
                       fit_intercept: bool = False, criterion: str = "loo",
                       scoring: str = "mse", loo_rows: Any = None) -> Tuple[np.ndarray, np.ndarray]:
    r"""Exact LOO (or GCV) scores of :func:`~graphrkhs.laprls_fit` on a :math:`(\gamma_A, \gamma_I)` grid.

    Two eigendecompositions (:math:`K`, and :math:`R^T M R` with
    :math:`K = RR^T`) serve the whole grid: :math:`I - H =
    (I + Z D^{-1} Z^T)^{-1}`, an :math:`l \times l` Cholesky per grid point
    (Woodbury on the LapRLS system of Belkin, Niyogi & Sindhwani 2006, Eq. 14).

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Kernel on all points (symmetric to 1e-6 of its largest entry, else ``ValueError``, as in
        :func:`~graphrkhs.laprls_fit`).
    labeled : int indices (l,)
    Y : ndarray of shape (l,) or (l, m)
        m columns are scored together, in their own units (module notes, "Several target columns").
    M : sparse (n, n)
        Graph penalty (:func:`~graphrkhs.graph_penalty`).
    gamma_As : sequence of float > 0
    gamma_Is : sequence of float >= 0
    fit_intercept : bool, default=False
        A free constant added to f (needs :math:`M 1 = 0`, the combinatorial
        Laplacian, so the penalty does not see it):
        :math:`I - H \leftarrow A - A1(1^TA1)^{-1}1^TA`.
    criterion, scoring, loo_rows
        As in :func:`ridge_path_errors`.

    Returns
    -------
    scores, tie_break : ndarrays of shape (len(gamma_As), len(gamma_Is))
    """
    check_option(criterion, "criterion", CRITERIA)
    check_option(scoring, "scoring", SCORINGS)
    gA = check_ridges(gamma_As, "gamma_As")
    gI = _float_axis(gamma_Is)
    if gI.ndim != 1 or gI.size == 0 or not (np.isfinite(gI).all() and (gI >= 0).all()):
        raise ValueError(f"gamma_Is must be a non-empty 1-D sequence of finite numbers >= 0; got {gamma_Is!r}.")
    grid = _LapRLSGrid(K, labeled, M)
    return _laprls_scores(grid, _as_targets(Y, grid.S.size), gA, gI, fit_intercept, criterion, scoring, loo_rows)


def _laprls_scores(grid, Y2, gA, gI, fit_intercept, criterion, scoring, loo_rows=None):
    if fit_intercept and np.abs(grid.M @ np.ones(grid.n)).max() > 1e-8 * max(abs(grid.M).max(), 1e-300):
        raise ValueError("fit_intercept=True needs a penalty with M @ 1 = 0 (laplacian='combinatorial').")
    ones = np.ones((Y2.shape[0], 1))
    score = np.empty((gA.size, gI.size))
    tie = np.empty_like(score)
    for a, ga in enumerate(gA):          # grid points, not data
        for i, gi in enumerate(gI):
            A = grid.residual_operator(ga, gi)
            if fit_intercept:
                A = _project_unpenalized(A, ones)
            score[a, i], tie[a, i] = _criterion_errors(A, Y2, criterion, scoring, loo_rows)
    return score, tie


def hat_matrix_errors(hat: Callable[..., np.ndarray], Y: Any, params: Sequence[Mapping[str, Any]], *,
                      criterion: str = "loo", scoring: str = "mse",
                      loo_rows: Any = None) -> Tuple[np.ndarray, np.ndarray]:
    r"""Exact LOO (or GCV) scores of any linear smoother, from its hat matrix, for a list of parameter settings.

    For the learners with no shared path (PRLS, PLapRLS, G-RLS with the
    constructed kernel, ...): ``hat(**p)`` returns the fitted values on the
    labeled points of the fit to the identity targets, i.e. the
    :math:`l \times l` hat matrix (one factorization, l right-hand sides:
    the solvers take a block of targets).

    Parameters
    ----------
    hat : callable
        ``hat(**params) -> ndarray (l, l)``, finite (NaN or infinity is a ``ValueError`` naming the params).
    Y : ndarray of shape (l,) or (l, m)
        m columns are scored together, in their own units (module notes, "Several target columns").
    params : sequence of dicts
    criterion, scoring, loo_rows
        As in :func:`ridge_path_errors`.

    Returns
    -------
    scores, tie_break : ndarrays of shape (len(params),)
    """
    check_option(criterion, "criterion", CRITERIA)
    check_option(scoring, "scoring", SCORINGS)
    if not callable(hat):
        raise TypeError(f"hat must be a callable returning the (l, l) hat matrix; got {type(hat).__name__}.")
    Y2 = _as_targets(Y, np.shape(Y)[0] if np.ndim(Y) else 0)
    score = np.empty(len(params))
    tie = np.empty(len(params))
    for j, p in enumerate(params):       # grid points
        H = np.asarray(hat(**p), dtype=np.float64)
        if H.shape != (Y2.shape[0],) * 2:
            raise ValueError(f"hat() must return an ({Y2.shape[0]}, {Y2.shape[0]}) matrix; got {H.shape}.")
        if not np.isfinite(H).all():
            # the caller's solve failed there: scored -inf ("undefined"), that value left the selection silently
            raise ValueError(f"hat(**params) returned NaN or infinity at {dict(p)}; the hat matrix of a linear "
                             "smoother is finite: check the solve behind hat at these parameters.")
        score[j], tie[j] = _criterion_errors(np.eye(H.shape[0]) - H, Y2, criterion, scoring, loo_rows)
    return score, tie


# ---------------------------------------------------------------------------
# Grids that extend at their edges
# ---------------------------------------------------------------------------

def _extend_axis(values, side, n_new):
    """n_new more values beyond one end of a geometric (or 1-point) axis, with the same ratio."""
    v = np.asarray(values, dtype=np.float64)
    ratio = v[-1] / v[-2] if v.size > 1 and v[-2] > 0 else 10.0
    if side == "low":
        ratio = v[1] / v[0] if v.size > 1 else 10.0
    if side == "low":
        return np.concatenate([v[0] / ratio ** np.arange(n_new, 0, -1), v])
    return np.concatenate([v, v[-1] * ratio ** np.arange(1, n_new + 1)])


def _flat(scores, tie):
    """Whether every grid point has the same finite score and the same tie-break (nothing ranks them)."""
    scores = np.asarray(scores, dtype=np.float64)
    if scores.size < 2 or not np.isfinite(scores).all() or np.ptp(scores) != 0:
        return False
    return tie is None or bool(np.all(np.asarray(tie, dtype=np.float64) == np.ravel(tie)[0]))


def _distinct_new(added, axis, rtol=1e-9):
    """The values of ``added`` not within ``rtol`` (relative) of a value of ``axis`` or of one another, sorted.

    A new value clipped to a bound can differ from a geometric one only by rounding (a bound
    9.9999999999999e-05 beside 1e-4): the axis held both, one grid point twice with different scores.
    """
    out: List[float] = []
    for v in np.sort(added):
        if not (np.abs(axis - v) <= rtol * v).any() and not (out and v - out[-1] <= rtol * v):
            out.append(float(v))
    return np.asarray(out)


def select_grid(evaluate: Callable[..., Any], grid: Mapping[str, Any], *, extend: Sequence[str] = (),
                max_extensions: int = 2, n_new: int = 3, criterion: str = "",
                bounds: Optional[Mapping[str, Tuple[float, float]]] = None,
                report: Sequence[str] = (), names: Optional[Mapping[str, str]] = None,
                warn_undefined: bool = True) -> GridResult:
    r"""Evaluate a tensor grid, extend geometric axes whose best value is at an edge, return a :class:`GridResult`.

    Parameters
    ----------
    evaluate : callable
        ``evaluate(**axes) -> (scores, tie_break)`` with arrays of shape
        ``(len(axes[name_0]), len(axes[name_1]), ...)`` (higher is better), or
        ``scores`` alone.
    grid : dict of str -> 1-D sequence of float
        The axes, in the order ``evaluate`` expects them.  Each must be
        increasing (geometric where it may be extended).
    extend : sequence of str
        The axes that may grow (geometric: regularization weights, widths; a
        leading 0 is allowed and that end never grows).  When the best value is the first (last) of such an axis,
        ``n_new`` values are added beyond it with the axis' own ratio and the
        whole grid is evaluated again, at most ``max_extensions`` times.  Not when
        every grid point has the same score and tie-break (an exactly flat criterion:
        the tie rule put the choice at the edge, nothing points beyond it); new values
        within 1e-9 (relative) of the axis' own are not added.
    max_extensions : int >= 0, default=2
    n_new : int >= 1, default=3
    criterion : str
        Recorded in the result.
    bounds : dict of str -> (low, high), optional
        Never extend an axis beyond these values (e.g. a ridge below the
        rounding level of the kernel).  ``low <= high``, neither NaN (else ``ValueError``);
        infinite values are allowed.
    report : sequence of str, default=()
        Axes that are not extended (one's own grid) but whose best value at an
        edge is reported, while the axes of ``extend`` grow.
    names : dict of str -> str, optional
        The parameter an axis stands for, in the warnings (G-RLS's ``gamma`` on the engine's ``alpha``
        axis): a warning must name what the caller can change.
    warn_undefined : bool, default=True
        Warn when every grid point's score is undefined.  False for a caller that checks
        ``np.isfinite(result.scores).any()`` and reports the event itself (with the fallback it uses):
        the same event was reported twice.

    Returns
    -------
    GridResult

    Warns
    -----
    SelectionWarning
        The best value is still at the edge of an extendable axis after
        ``max_extensions`` extensions, or at the edge of an axis of ``report``
        (not when that edge is one of ``bounds``: the grid cannot go further, nor for an
        exactly flat criterion; the message is ``report_grid_edge``'s);
        or every grid point has an undefined score (unless ``warn_undefined`` is False).
    """
    if not callable(evaluate):
        raise TypeError("evaluate must be a callable.")
    axes = {}
    for k, v in grid.items():
        a = _float_axis(v)
        if a.ndim != 1 or a.size == 0 or not np.isfinite(a).all() or np.any(np.diff(a) <= 0):
            raise ValueError(f"the grid of {k!r} must be a non-empty increasing 1-D sequence of finite numbers; "
                             f"got {v!r}.")
        axes[k] = a
    for k in report:
        if k not in axes or k in extend:
            raise ValueError(f"report names {k!r}, which is not an axis of the grid ({list(axes)}) outside "
                             f"extend ({list(extend)}).")
    for k in extend:
        if k not in axes:
            raise ValueError(f"extend names {k!r}, which is not an axis of the grid ({list(axes)}).")
        if (axes[k] < 0).any():
            raise ValueError(f"the grid of {k!r} must be non-negative to be extended geometrically.")
    max_extensions = check_scalar(max_extensions, "max_extensions", kind="int", low=0)
    n_new = check_scalar(n_new, "n_new", kind="int", low=1)
    bounds = dict(bounds or {})
    for k, b in bounds.items():
        try:
            lo, hi = (float(v) for v in b)
        except (TypeError, ValueError):
            raise ValueError(f"bounds[{k!r}] must be a pair (low, high) of numbers; got {b!r}.") from None
        # inverted or NaN bounds ran without error: every extension was clipped into an empty interval
        if np.isnan(lo) or np.isnan(hi) or lo > hi:
            raise ValueError(f"bounds[{k!r}] must be (low, high) with low <= high and neither NaN; got {b!r}. "
                             f"Pass the smaller value first.")
        bounds[k] = (lo, hi)
    n_ext = n_bounded = 0
    exhausted = set()
    while True:
        out = evaluate(**axes)
        scores, tie = out if isinstance(out, tuple) else (out, None)
        result = GridResult(axes, scores, tie_break=tie, criterion=criterion, n_extensions=n_ext)
        if not np.isfinite(result.scores).any():
            if not warn_undefined:
                return result
            warn(f"the selection criterion is undefined (inf/NaN) on the whole grid; every point ties and the tie "
                 f"rule's one is returned: {result.best_params}.", SelectionWarning)
            return result
        if _flat(result.scores, tie):
            # every point scores the same (zero targets; a constant target with a free constant): the tie rule's
            # point sits at an edge without the criterion pointing beyond it -- no extension, no edge warning
            # (before: two extensions along the flat criterion, then "the criterion may improve beyond it")
            return result
        grow = []
        for k in extend:
            i, a = result.best_index[list(axes).index(k)], axes[k]
            if a.size < 2 or i not in (0, a.size - 1):
                continue
            side = "low" if i == 0 else "high"
            lo, hi = bounds.get(k, (0.0, np.inf))
            # an axis headed by 0 (e.g. gamma_I = 0, no manifold term) has no lower side to grow
            if (side == "low" and (a[0] <= lo or a[0] == 0)) or (side == "high" and a[-1] >= hi):
                continue
            with np.errstate(over="ignore", under="ignore"):
                ext = _extend_axis(a, side, n_new)
            added = np.clip(ext[:n_new] if side == "low" else ext[-n_new:], lo, hi)
            # crossing a bound: the bound itself becomes the new end of the axis; values the float range cannot
            # hold (a ratio 1e299 from a stand-in 1e-300 for 0: 0 and inf, with numpy's overflow warning) are no
            # extension
            added = _distinct_new(added[np.isfinite(added) & (added > 0)], a)
            if added.size:
                grow.append((k, side, added))
            else:       # the end of what the axis can hold: like a bound, no warning either
                exhausted.add((k, side))
        # growth towards a finite bound (a ridge down to its rounding floor) is cheap and ends by
        # itself; it is not counted against max_extensions (at most 10 such steps)
        towards_bound = all((side == "low" and bounds.get(k, (0.0, np.inf))[0] > 0)
                            or (side == "high" and np.isfinite(bounds.get(k, (0.0, np.inf))[1]))
                            for k, side, _ in grow) and max_extensions > 0
        if not grow or (n_ext >= max_extensions and not (towards_bound and n_bounded < 10)):
            break
        if towards_bound and n_ext >= max_extensions:
            n_bounded += 1
            n_ext -= 1
        for k, side, added in grow:
            # only the new values are clipped: a value of the caller's grid beyond a bound stays what it was
            axes[k] = np.unique(np.concatenate([axes[k], added]))
        n_ext += 1
    for k in (*extend, *report):
        i = result.best_index[list(axes).index(k)]
        lo, hi = bounds.get(k, (0.0, np.inf))
        # at a bound (e.g. the rounding floor of a ridge) the grid cannot go further: interpolating
        # the labels is then the honest answer of the criterion, not a grid too narrow
        at_bound = (i == 0 and axes[k][0] <= lo * (1 + 1e-9)) or (i == axes[k].size - 1 and axes[k][-1] >= hi)
        at_bound = at_bound or (k, "low" if i == 0 else "high") in exhausted
        if not at_bound:
            report_grid_edge(dict(names or {}).get(k, k), result.best_params[k], axes[k],
                             n_ext if k in extend else 0)
    return result


def report_grid_edge(name: str, value: float, grid: Any, n_extensions: int = 0) -> bool:
    """Warn (:class:`~graphrkhs.SelectionWarning`) when the selected ``value`` is the first or last of ``grid``.

    :func:`select_grid`'s report of a choice at the edge of an axis, for a caller that selects on a grid of its
    own (an estimator's table of rows): no warning for a one-value grid, nor for 0 at the head of the grid (the
    end of an axis such as ``gamma_I``, no graph term).  Returns whether it warned.
    """
    axis = np.asarray(grid, dtype=np.float64).ravel()
    if axis.size < 2 or value not in (axis[0], axis[-1]) or (value == axis[0] and axis[0] == 0):
        return False
    warn(f"the selected {name}={value:.3g} is at the edge of its grid [{axis[0]:.3g}, {axis[-1]:.3g}] after "
         f"{n_extensions} extension(s); the criterion may improve beyond it. Pass a wider grid or a fixed value.",
         SelectionWarning)
    return True


#: The head of :func:`report_grid_edge`'s warning, naming the axis.
_EDGE_WARNING = re.compile(r"the selected (\w+)=")


@contextmanager
def held_selection_warnings():
    """Hold the graphrkhs warnings of a selection (every one, repeats included) instead of showing them, for a
    caller that decides afterwards which still hold (:func:`release_selection_warnings`): a later step may
    change a value the selection's edge report named.

    This thread's only (:func:`~graphrkhs._core.validation.held_warnings`), not
    ``warnings.catch_warnings(record=True)``: that swaps the process-wide filters and ``showwarning``, and two
    threads of ``LapRLSRegressor().fit`` entering and leaving it in turn left a recording ``showwarning``
    installed for good (every later warning of the process went to a list nobody read)."""
    with held_warnings() as held:
        yield held


def release_selection_warnings(held, drop=()):
    """Re-emit the ``held`` warnings (at their original call sites), except :func:`report_grid_edge`'s reports
    about the axes named in ``drop``."""
    for w in held:
        edge = _EDGE_WARNING.match(str(w)) if isinstance(w, SelectionWarning) else None
        if edge is None or edge.group(1) not in drop:
            warn(w)                     # at the user's call site again (or to an enclosing hold)

def _rounding_floor(K, scale):
    """The smallest ridge worth trying: below ~1e-10 of the kernel's scale the system is singular to rounding."""
    return 1e-10 * max(float(np.abs(np.diag(K)).max()), 1e-300) / scale


def select_ridge_alpha(K: Any, Y: Any, alphas: Optional[Any] = None, *, ridge_scale: Any = 1.0,
                       fit_intercept: bool = False, criterion: str = "loo", scoring: str = "mse",
                       extend: bool = True, max_extensions: int = 2, loo_rows: Any = None,
                       loo_groups: Optional[Any] = None) -> GridResult:
    r"""Choose the ridge weight of kernel ridge by exact LOO or GCV along its path.

    The ridge entering the system is :math:`\mu = \alpha \cdot` ``ridge_scale``:
    ``ridge_scale="l"`` (or the number of labels) for RLS, Fredholm and
    warped (:func:`~graphrkhs.rls_fit`, :math:`(K + \alpha l I)c = y`), 1
    for graph kernel ridge (:math:`(\Phi_{SS} + \alpha I)\beta = y`).

    Parameters
    ----------
    K : ndarray of shape (l, l)
        Symmetric PSD kernel on the labeled points (symmetric to ``PSD_RTOL`` = 1e-6 of its largest entry, else
        ``ValueError``: the engine reads :math:`(K + K^T)/2`).
    Y : ndarray of shape (l,) or (l, m)
        m columns are scored together, in their own units (module notes, "Several target columns").
    alphas : sequence of float > 0, optional
        Default ``geomspace(1e-6, 1e1, 15)``; extended at its edges (down to
        the rounding level of K) when ``extend``.
    ridge_scale : float > 0 or "l", default=1.0
    fit_intercept : bool, default=False
        Add an unpenalized constant (``unpenalized=ones``): regressors then
        follow a shift of y exactly, whatever alpha.
    criterion : {"loo", "gcv"}
    scoring : {"mse", "accuracy"}
    extend : bool, default=True
    max_extensions : int, default=2
    loo_rows : None, "classes" or boolean array of shape (l,), default=None
        The labeled rows whose LOO residual is scored (:func:`loo_scores`); every row stays in the fits.
        ``"classes"`` for class-coded targets: a class's only label is not scored (:func:`class_loo_rows`).
        Fewer than ``MIN_LOO_LABELS`` scored rows raise ``ValueError``.  GCV scores every row.
    loo_groups : array of int of shape (l,), optional
        Leave-group-out: rows with equal labels are left out together (identical labeled points,
        :func:`~graphrkhs._core.loo.duplicate_groups`; left out alone, a point's copy keeps its residual near
        0 and the choice runs to the fits that interpolate).  Closed form
        :math:`r_G = [(I - H)_{GG}]^{-1} ((I - H) y)_G` (:meth:`~graphrkhs.KernelRidgePath.loo_residuals`).
        With ``loo_rows="classes"`` a class whose rows all fall in one group is not scored
        (:func:`class_loo_rows`).  GCV counts its degrees of freedom against the groups (the distinct
        points, :meth:`~graphrkhs.KernelRidgePath.gcv`).

    Returns
    -------
    GridResult
        ``best_params["alpha"]``, scores along the path, ``cv_results_``.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs.solvers import select_ridge_alpha
    >>> x = np.linspace(0, 1, 30)
    >>> K = np.exp(-(x[:, None] - x[None]) ** 2 / 0.02)
    >>> y = np.sin(6 * x) + 0.1 * np.random.default_rng(0).normal(size=30)
    >>> res = select_ridge_alpha(K, y)
    >>> 1e-6 < res.best_params["alpha"] < 10
    True
    """
    K = check_square(K, "K", np.float64)
    check_symmetric_kernel(K, "K")      # the engine reads (K + K^T) / 2: np.triu(K) was scored silently
    l = K.shape[0]
    scale = float(l) if isinstance(ridge_scale, str) and ridge_scale == "l" else \
        check_scalar(ridge_scale, "ridge_scale", low=0, low_inclusive=False)
    Y2 = _as_targets(Y, l)
    check_option(criterion, "criterion", CRITERIA)
    check_option(scoring, "scoring", SCORINGS)
    _check_selection_labels(l, criterion)
    _check_scored_rows(loo_rows, Y2, criterion, loo_groups)
    alphas = geometric_grid(1e-6, 1e1, 15) if alphas is None else check_ridges(alphas, "alphas")
    path = KernelRidgePath(K, unpenalized=np.ones(l) if fit_intercept else None)

    def evaluate(alpha):
        return _path_scores(path, Y2, alpha * scale, criterion, scoring, loo_rows=loo_rows, loo_groups=loo_groups)

    return select_grid(evaluate, {"alpha": np.unique(alphas)}, extend=("alpha",) if extend else (),
                       max_extensions=max_extensions, criterion=criterion,
                       bounds={"alpha": (_rounding_floor(K, scale), np.inf)})



def growing_axes(extend, axes):
    """``extend`` of a joint selection as (the axes that grow at their edges, the axes only reported there).

    True: every axis of ``axes`` grows; False: none (and none is reported); a sequence: those axes grow,
    the others (one's own grids) get an edge report instead.
    """
    if isinstance(extend, (bool, np.bool_)):
        return (tuple(axes) if extend else ()), ()
    grow = tuple(extend)
    if not set(grow) <= set(axes):
        raise ValueError(f"extend: True, False or a sequence of {', '.join(repr(a) for a in axes)}; "
                         f"got {extend!r}.")
    return grow, tuple(k for k in axes if k not in grow)


def select_kernel_ridge(make_kernel: Callable[[float], Any], Y: Any, sigmas: Any, alphas: Optional[Any] = None, *,
                        ridge_scale: Any = 1.0, fit_intercept: bool = False, criterion: str = "loo",
                        scoring: str = "mse", extend: Union[bool, Sequence[str]] = True, max_extensions: int = 2,
                        unpenalized: Optional[Any] = None, centred: bool = False,
                        names: Optional[Mapping[str, str]] = None, loo_rows: Any = None,
                        loo_groups: Optional[Any] = None) -> GridResult:
    r"""Choose a kernel width (or filter scale) and the ridge weight jointly by exact LOO/GCV.

    For every width one kernel on the labeled points and one
    eigendecomposition (cached: an extension of the grid recomputes nothing);
    the whole ``alpha`` path then costs :math:`O(l^2)` per value
    (:func:`ridge_path_errors`).  For RLS (:math:`K_\sigma`), Fredholm and
    warped kernels (``make_kernel`` builds :math:`K_F` / :math:`\tilde K` on
    S), and graph kernel ridge over a filter scale (:math:`\Phi_{SS}`).

    Parameters
    ----------
    make_kernel : callable
        ``make_kernel(sigma) -> ndarray (l, l)``, symmetric PSD (symmetric to ``PSD_RTOL`` = 1e-6 of its largest
        entry, else ``ValueError``), or a :class:`~graphrkhs.KernelRidgePath`
        of that matrix (its eigendecomposition is used as is: a caller that needs it
        for more than this selection computes it once).
    Y : ndarray of shape (l,) or (l, m)
        m columns are scored together, in their own units (module notes, "Several target columns").
    sigmas : increasing sequence of float > 0
        Extended at its edges like ``alpha`` when ``extend``.
    alphas, ridge_scale, fit_intercept, criterion, scoring, max_extensions
        As in :func:`select_ridge_alpha`.
    extend : bool or sequence of {"sigma", "alpha"}, default=True
        True: both axes may grow; False: neither (and nothing is reported); a sequence: those axes grow,
        and the other's choice at an edge of its (one's own) grid is reported (``select_grid``'s ``report``).
    unpenalized : ndarray of shape (l, q), optional
        Unpenalized basis on the labeled points (G-RLS's features), instead of
        the constant of ``fit_intercept``.
    names : dict of str -> str, optional
        The caller's parameter names of the axes in the warnings (:func:`select_grid`).
    centred : bool, default=False
        ``Y`` is the targets less their labeled mean and the fit has no free constant: the LOO scored is
        that of the centred procedure, the mean re-taken without the held-out label
        (:func:`centred_loo_residuals`); with ``criterion="gcv"`` the GCV of that procedure's smoother
        (:meth:`~graphrkhs.KernelRidgePath.gcv`).
    loo_rows : None, "classes" or boolean array of shape (l,), default=None
        The labeled rows whose LOO residual is scored (:func:`loo_scores`); every row stays in the fits.
        ``"classes"`` for class-coded targets: a class's only label is not scored (:func:`class_loo_rows`).
        Fewer than ``MIN_LOO_LABELS`` scored rows raise ``ValueError``.  GCV scores every row.
    loo_groups : array of int of shape (l,), optional
        Leave-group-out: rows with equal labels are left out together (identical labeled points,
        :func:`~graphrkhs._core.loo.duplicate_groups`; left out alone, a point's copy keeps its residual near
        0 and the choice runs to the fits that interpolate).  Closed form
        :math:`r_G = [(I - H)_{GG}]^{-1} ((I - H) y)_G` (:meth:`~graphrkhs.KernelRidgePath.loo_residuals`).
        With ``loo_rows="classes"`` a class whose rows all fall in one group is not scored
        (:func:`class_loo_rows`).  GCV counts its degrees of freedom against the groups (the distinct
        points, :meth:`~graphrkhs.KernelRidgePath.gcv`).

    Returns
    -------
    GridResult
        axes ``sigma``, ``alpha``.
    """
    if not callable(make_kernel):
        raise TypeError("make_kernel must be a callable sigma -> (l, l) kernel matrix.")
    check_option(criterion, "criterion", CRITERIA)
    check_option(scoring, "scoring", SCORINGS)
    _check_selection_labels(_n_rows(Y), criterion)
    _check_scored_rows(loo_rows, Y, criterion, loo_groups)
    sigmas = np.unique(check_ridges(sigmas, "sigmas"))
    alphas = geometric_grid(1e-6, 1e1, 15) if alphas is None else np.unique(check_ridges(alphas, "alphas"))
    paths: Dict[float, Tuple[KernelRidgePath, np.ndarray, float]] = {}

    def path_of(sigma):
        key = float(sigma)
        if key not in paths:
            K = make_kernel(key)
            given = isinstance(K, KernelRidgePath)       # the caller's eigendecomposition, reused
            K = K if given else check_square(K, "make_kernel(sigma)", np.float64)
            if not given:       # the engine reads (K + K^T) / 2: np.triu(K) was scored silently
                check_symmetric_kernel(K, "make_kernel(sigma)", "make_kernel must return the kernel matrix of the "
                                       "labeled points with themselves.")
            l = K.n if given else K.shape[0]
            scale = float(l) if isinstance(ridge_scale, str) and ridge_scale == "l" else \
                check_scalar(ridge_scale, "ridge_scale", low=0, low_inclusive=False)
            free = unpenalized if unpenalized is not None else (np.ones(l) if fit_intercept else None)
            path = KernelRidgePath.from_eigh(K.eigenvalues, K.eigenvectors, unpenalized=free) if given else \
                KernelRidgePath(K, unpenalized=free)
            paths[key] = (path, _as_targets(Y, l), scale)
        return paths[key]

    done: Dict[Tuple[float, float], Tuple[float, float]] = {}

    def evaluate(sigma, alpha):
        score = np.empty((sigma.size, alpha.size))
        tie = np.empty_like(score)
        for j, sg in enumerate(sigma):      # widths of the grid
            # an extension of the grid scores only its new points (each score depends on its point alone)
            new = np.array([a for a in alpha if (float(sg), float(a)) not in done])
            if new.size:
                path, Y2, scale = path_of(sg)
                sc, tb = _path_scores(path, Y2, new * scale, criterion, scoring, centred, loo_rows, loo_groups)
                done.update({(float(sg), float(a)): (x, t) for a, x, t in zip(new, sc, tb)})
            score[j] = [done[(float(sg), float(a))][0] for a in alpha]
            tie[j] = [done[(float(sg), float(a))][1] for a in alpha]
        return score, tie

    # the ridge floor: ~1e-10 of the kernel's scale (of the middle width), below which K + mu I is singular
    path, _, scale = path_of(sigmas[sigmas.size // 2])
    s_max = float(np.max(path.eigenvalues[np.isfinite(path.eigenvalues)], initial=1.0))
    grow, report = growing_axes(extend, ("sigma", "alpha"))
    return select_grid(evaluate, {"sigma": sigmas, "alpha": alphas}, extend=grow,
                       max_extensions=max_extensions, criterion=criterion,
                       bounds={"alpha": (1e-10 * s_max / scale, np.inf)}, report=report, names=names)


def select_tikhonov_alpha(W: Any, labeled: Any, Y: Any, alphas: Optional[Any] = None, *,
                          laplacian: str = "combinatorial", criterion: str = "loo", scoring: str = "mse",
                          extend: bool = True, max_extensions: int = 2, loo_rows: Any = None) -> GridResult:
    r"""Choose ``alpha`` of :func:`~graphrkhs.tikhonov_solution` by exact LOO/GCV (:func:`tikhonov_path_errors`).

    The Laplacian's null space (constants) is unpenalized, so a shift of y
    shifts the fit.  Default grid ``geomspace(1e-4, 1e3, 15)`` (relative to
    unit edge weights), extended at its edges.  With ``laplacian="combinatorial"`` a target constant up
    to rounding (:func:`~graphrkhs._core.loo.constant_up_to_rounding`) is fitted at every alpha: its scores
    are flat (LOO MSE 0, accuracy 1) and the largest alpha is returned, unextended, without a warning.
    ``loo_rows`` as in :func:`select_ridge_alpha`.

    Returns
    -------
    GridResult
    """
    check_option(criterion, "criterion", CRITERIA)
    check_option(scoring, "scoring", SCORINGS)
    alphas = geometric_grid(1e-4, 1e3, 15) if alphas is None else check_ridges(alphas, "alphas")
    check_option(laplacian, "laplacian", ("combinatorial", "normalized"))     # the arguments first
    _check_selection_labels(_check_labeled_index(labeled, as_adjacency(W).shape[0]).size, criterion)
    red = _KronReduction(W, labeled, laplacian)     # its scores leave out labels alone in their component
    Y2 = _as_targets(Y, red.S.size)
    _check_scored_rows(loo_rows, Y2, criterion)
    # the combinatorial Laplacian does not penalize constants: a target constant up to rounding is fitted
    # at every alpha, the scores would rank rounding (and extend the grid to 1e6 with a warning)
    constant = laplacian == "combinatorial" and constant_up_to_rounding(Y2)

    def evaluate(alpha):
        if constant:
            return _constant_scores(alpha, scoring)
        return red.scores(alpha, Y2, criterion, scoring, loo_rows)

    return select_grid(evaluate, {"alpha": np.unique(alphas)}, extend=("alpha",) if extend else (),
                       max_extensions=max_extensions, criterion=criterion)


def select_linear_smoother(hat: Callable[..., np.ndarray], Y: Any, grid: Mapping[str, Any], *,
                           criterion: str = "loo", scoring: str = "mse", extend: Sequence[str] = (),
                           max_extensions: int = 2, loo_rows: Any = None) -> GridResult:
    r"""Select the parameters of any linear smoother by exact LOO/GCV from its hat matrix, over a tensor grid.

    One hat matrix per grid point (:func:`hat_matrix_errors`): for PRLS
    (``hat = lambda gamma: K @ a + Psi @ b`` with ``a, b = prls_fit(K, K1, K2,
    np.eye(l), gamma)``), PLapRLS, G-RLS with the constructed kernel, or a
    learner of one's own.

    Parameters
    ----------
    hat : callable
        ``hat(**params) -> (l, l)`` hat matrix.
    Y : ndarray of shape (l,) or (l, m)
        m columns are scored together, in their own units (module notes, "Several target columns").
    grid : dict of str -> increasing 1-D sequence
    criterion, scoring, loo_rows
        As in :func:`ridge_path_errors`.
    extend, max_extensions
        As in :func:`select_grid`.

    Returns
    -------
    GridResult
    """
    check_option(criterion, "criterion", CRITERIA)
    _check_selection_labels(_n_rows(Y), criterion)
    _check_scored_rows(loo_rows, Y, criterion)

    def evaluate(**axes):
        names = list(axes)
        mesh = np.meshgrid(*axes.values(), indexing="ij")
        params = [{k: m.ravel()[j].item() for k, m in zip(names, mesh)} for j in range(mesh[0].size)]
        score, tie = hat_matrix_errors(hat, Y, params, criterion=criterion, scoring=scoring, loo_rows=loo_rows)
        return score.reshape(mesh[0].shape), tie.reshape(mesh[0].shape)

    return select_grid(evaluate, grid, extend=extend, max_extensions=max_extensions, criterion=criterion)


def _ratio_grid(ratios):
    """The sorted distinct values of a ``ratios`` grid (finite, >= 0), or a ``ValueError`` naming it."""
    rho = numeric_axis(ratios)
    if rho.ndim != 1 or rho.size == 0 or not (np.isfinite(rho).all() and (rho >= 0).all()):
        raise ValueError(f"ratios must be a non-empty 1-D sequence of finite numbers >= 0; got {ratios!r}.")
    return np.unique(rho)


#: The reciprocal condition number of :math:`I + M_w K` below which :func:`select_laprls_gammas` refuses a ratio:
#: the solve's relative error bound eps / rcond above 1e-4.  Measured: a 60-point problem, ratio 1e11 at 1.6e-13
#: and 1e13 at 9.7e-17 (GCV chose 1e13, its scores rounding), 1e9 at 1.3e-10; digits (1797 points, 10 labels per
#: class, 10-NN) 1e9 at 5.5e-9 and 1e11 at 3.9e-11 (chosen, with direct-solve accuracies 0.983 / 0.976), 1e13 at
#: 3.9e-13.
LAPRLS_MIN_RCOND = 1e4 * np.finfo(np.float64).eps


def select_laprls_gammas(K: Any, labeled: Any, Y: Any, M: Any, gamma_As: Optional[Any] = None,
                         ratios: Optional[Any] = None, *, fit_intercept: bool = False, criterion: str = "loo",
                         scoring: str = "mse", extend: bool = True, max_extensions: int = 2,
                         loo_rows: Any = None) -> GridResult:
    r"""Choose :math:`(\gamma_A, \gamma_I)` of :func:`~graphrkhs.laprls_fit` by exact LOO/GCV.

    LapRLS with weights :math:`(\gamma_A, \gamma_I)` is RLS with the ridge
    :math:`\gamma_A l` in the warped kernel :math:`\tilde k` whose point-cloud
    penalty is :math:`M_w = (\gamma_I/\gamma_A) M / n^2` (Sindhwani, Niyogi &
    Belkin 2005; :func:`~graphrkhs.warped_rls`).  The kernel depends on the
    ratio :math:`\rho = \gamma_I/\gamma_A` only, so the grid is
    :math:`\rho \times \gamma_A`: one LU of :math:`I + M_w K` (n x n, l
    right-hand sides) per ratio gives :math:`\tilde K_{SS}`, and its
    eigendecomposition serves the whole :math:`\gamma_A` path
    (:func:`select_kernel_ridge`).  Leaving a label out keeps its point in the
    cloud (unlabeled) -- exactly the LapRLS refit without it.  For the full
    tensor grid on :math:`(\gamma_A, \gamma_I)` use :func:`laprls_grid_errors`.

    Parameters
    ----------
    K : ndarray of shape (n, n)
    labeled : int indices (l,)
    Y : ndarray of shape (l,) or (l, m)
        m columns are scored together, in their own units (module notes, "Several target columns").
    M : sparse (n, n)
        Graph penalty (:func:`~graphrkhs.graph_penalty`).
    gamma_As : sequence of float > 0, optional
        Default ``geomspace(1e-6, 1e1, 15)``.
    ratios : sequence of float >= 0, optional
        :math:`\gamma_I / \gamma_A`; default
        ``[0, 1e-1, 1e1, 1e3, 1e5, 1e7]`` (0: plain RLS).
    fit_intercept, criterion, scoring, extend, max_extensions, loo_rows
        As in :func:`select_ridge_alpha` (the free constant needs
        :math:`M 1 = 0`).

    Returns
    -------
    GridResult
        axes ``ratio`` and ``gamma_A``; ``best_params`` also holds
        ``gamma_I = ratio * gamma_A``.  A ratio whose solve is dominated by rounding (at large
        ratios: :math:`I + M_w K` numerically singular, reciprocal condition number below
        ``LAPRLS_MIN_RCOND`` = 1e4 eps, or a warped kernel left indefinite) scores ``-inf``: no
        candidate (:meth:`ManifoldRidgePath.candidate_path`, the rule of :func:`select_manifold_gammas`,
        whose floor :math:`\sqrt{\epsilon}` would drop ratios that help: on digits, 10 labels per class,
        1e9 (reciprocal condition number 5.5e-9), chosen by LOO on one label draw, gave 0.983 transductive
        accuracy, the best ratio below the floor (1e7) 0.966).

    Raises
    ------
    ValueError
        ``K`` on the labeled points is not positive semidefinite.
    numpy.linalg.LinAlgError
        Every ratio of the grid is refused so (numerically singular or indefinite).
    """
    check_option(criterion, "criterion", CRITERIA)
    check_option(scoring, "scoring", SCORINGS)
    # the warped kernel of each ratio through ManifoldRidgePath (T = I): one rule with
    # select_manifold_gammas for the ratios that are no candidates (candidate_path)
    mp = ManifoldRidgePath(K, labeled, M, min_rcond=LAPRLS_MIN_RCOND)
    S = mp.S
    if fit_intercept and mp.warps_constant():
        raise ValueError("fit_intercept=True needs a penalty with M @ 1 = 0 (laplacian='combinatorial').")
    gA = geometric_grid(1e-6, 1e1, 15) if gamma_As is None else np.unique(check_ridges(gamma_As, "gamma_As"))
    rho = np.array([0.0, 1e-1, 1e1, 1e3, 1e5, 1e7]) if ratios is None else _ratio_grid(ratios)
    _check_selection_labels(S.size, criterion)       # after the arguments' own checks, before any LU
    Y2 = _as_targets(Y, S.size)
    _check_scored_rows(loo_rows, Y2, criterion)
    mp.path(0.0, fit_intercept)     # K_SS itself not PSD: the caller's kernel, an error before any LU

    def evaluate(ratio, gamma_A):
        score = np.empty((ratio.size, gamma_A.size))
        tie = np.empty_like(score)
        for j, r in enumerate(ratio):          # grid of warpings
            # at a large ratio the solve (I + M_w K)^{-1} is dominated by rounding: a system whose reciprocal
            # condition number is below LAPRLS_MIN_RCOND, or a warped kernel it left indefinite (an eigenvalue
            # -0.7 of the largest at 1e15 on 60 points).  Such a ratio is no candidate (GCV chose ratio 1e13 at
            # a reciprocal condition number 9.7e-17, its scores rounding; LOO's extension raised)
            path = mp.candidate_path(r, fit_intercept)
            if path is None:
                score[j], tie[j] = -np.inf, -np.inf
                continue
            score[j], tie[j] = _path_scores(path, Y2, gamma_A * S.size, criterion, scoring, loo_rows=loo_rows)
        return score, tie

    KSS = mp.K[np.ix_(S, S)]
    floor = 1e-10 * max(float(np.abs(np.diag(KSS)).max()), 1e-300)   # gamma_A l below rounding of K_SS
    res = select_grid(evaluate, {"ratio": rho, "gamma_A": gA}, extend=("ratio", "gamma_A") if extend else (),
                      max_extensions=max_extensions, criterion=criterion,
                      bounds={"gamma_A": (floor, np.inf)}, warn_undefined=False)
    if not np.isfinite(res.scores).any():
        if mp.refused:      # an error, not also select_grid's "undefined" warning (the flag was read too early)
            r, why = next(iter(mp.refused.items()))
            raise np.linalg.LinAlgError(f"the warped kernel is numerically singular or indefinite at every ratio "
                                        f"of the grid (at {r:g}: {why}); pass smaller ratios.")
        warn(f"the selection criterion is undefined (inf/NaN) on the whole grid; every point ties and the tie "
             f"rule's one is returned: {res.best_params}.", SelectionWarning)
    res.best_params["gamma_I"] = res.best_params["ratio"] * res.best_params["gamma_A"]
    return res


# ---------------------------------------------------------------------------
# Inductive learners: PRLS (exact LOO by a downdate), LapRLS / PLapRLS / warped (ratio paths)
# ---------------------------------------------------------------------------

def _prls_parts(K, Kp, Kpp, Y, gammas, Psi):
    """Validated float64 inputs of the PRLS LOO: K, P = K - 2K' + K'', Y2, gammas, Psi."""
    K = check_square(K, "K", np.float64)
    l = K.shape[0]
    Kp, Kpp = check_square(Kp, "Kp", np.float64), check_square(Kpp, "Kpp", np.float64)
    if Kp.shape != (l, l) or Kpp.shape != (l, l):
        raise ValueError(f"Kp and Kpp must have shape ({l}, {l}) like K; got {Kp.shape} and {Kpp.shape}.")
    for name, A in (("K", K), ("Kp", Kp), ("Kpp", Kpp)):
        # prls_fit's check: K and P are read symmetrized, np.triu of a Gram was scored without a word
        check_symmetric_kernel(A, name, _PRLS_GRAMS)
    _check_selection_labels(l)
    Y2 = _as_targets(Y, l)
    gammas = check_ridges(gammas, "gammas")
    Psi = np.ones((l, 1)) if Psi is None else np.asarray(Psi, dtype=np.float64).reshape(l, -1)
    return (K + K.T) / 2, _consistency_penalty(K, Kp, Kpp), Y2, gammas, Psi


def _prls_loo_refit(K, P, Y2, gamma, Psi, i):
    """The LOO residual (m,) of point i by a refit at one gamma (the fallback where the downdate breaks down),
    or with ``i`` an index array (k,) the leave-group-out residuals (k, m) of those rows, left out together.

    The refit is :func:`~graphrkhs.prls_fit`'s problem on the other points, solved like it (a stacked least-squares
    problem on K's eigenvectors of nonzero eigenvalue), so duplicate labeled points (a singular K) are handled.
    """
    l = K.shape[0]
    rows = np.atleast_1d(i)
    keep = np.setdiff1d(np.arange(l), rows)
    if not keep.size:
        # the group is every labeled row (all copies of one point): nothing is left to fit, the LOO prediction is
        # undefined (inf, as KernelRidgePath's interpolated groups); the eigendecomposition of a 0 x 0 Gram
        # matrix raised an IndexError
        out = np.full((rows.size, Y2.shape[1]), np.inf)
        return out if np.ndim(i) else out[0]
    Ki, Pi, Yi, Pk = K[np.ix_(keep, keep)], P[np.ix_(keep, keep)], Y2[keep], Psi[keep]
    if Pk.shape[1]:
        Q, _ = np.linalg.qr(Pk)
        # prediction at x_i: K_i. a + Psi_i b, b = Psi^+ (y - K a)
        w = Psi[rows] @ np.linalg.pinv(Pk)
        row, offset = K[np.ix_(rows, keep)] - w @ Ki, w @ Yi
        # Psi rank-deficient on the other rows (copies of a point and a basis of (1, x)): b is free along the null
        # space of Pk, and a left-out row with a part there has any prediction Psi_i b -- its LOO is undefined
        # (inf, as KernelRidgePath's interpolated rows); the minimum-norm b gave a finite residual the selection
        # compared (prls_fit refuses that refit).  Columns in units of their size, as prls_fit's rank test.
        undetermined = _outside_row_space(Psi[rows], Pk)
    else:
        row, offset = K[np.ix_(rows, keep)], 0.0
        undetermined = np.zeros(rows.size, dtype=bool)
    # prls_fit's solve (the stacked least squares at K's condition number; the Cholesky of Eq. (11)'s normal
    # equations squared it, and the refits moved with the order of the rows as prls_fit did)
    a = _prls_stacked(Ki, Pi, Yi, Q if Pk.shape[1] else Pk, gamma * l)
    out = Y2[rows] - (row @ a + offset)
    out[undetermined] = np.inf
    return out if np.ndim(i) else out[0]


def _prls_loo_fast(K, P, Y2, gammas, Psi):
    r"""PRLS LOO residuals (len(gammas), l, m) from one QR factorization of the stacked system per gamma.

    See :func:`prls_loo_errors` for the formula; a residual whose denominator
    vanishes (or of a gamma whose factorization is not finite) is NaN here.
    """
    l, o = K.shape[0], Psi.shape[1]
    p = l + o
    D = np.hstack([K, Psi])                                  # the design: f(x_S) = D z, z = [alpha; beta]
    # P = C C^T (P is PD by its rounding ridge, _consistency_penalty); not to rounding: its PSD square root
    try:
        Ct = sla.cholesky(P, lower=False, check_finite=False)
    except np.linalg.LinAlgError:
        wp, Vp = sla.eigh(P, check_finite=False)
        Ct = np.sqrt(np.maximum(wp, 0))[:, None] * Vp.T
    E_l = np.eye(p)[:, :l]                                   # e_1 .. e_l
    R = np.full((gammas.size, l, Y2.shape[1]), np.nan)
    for j, gamma in enumerate(gammas):                       # the few points of the path
        # A = D^T D + gamma l diag(P, 0) = M^T M with M = [D; sqrt(gamma l) [C^T, 0]]: M = U T by Householder QR,
        # A = T^T T.  Forming A (and its Cholesky) squared K's condition number: the scores moved with the order
        # of the rows (12 labels, sigma 1: by 6e-3 of the LOO MSE at gamma 1e-12, the residuals by 0.04)
        M = np.vstack([D, np.hstack([np.sqrt(gamma * l) * Ct, np.zeros((l, o))])])
        U, T = np.linalg.qr(M)
        if not (np.isfinite(T).all() and np.abs(np.diag(T)).min(initial=np.inf) > 0):
            continue                                         # left NaN: refits
        Ul = U[:l]                                           # the loss rows of U: H_ii = ||U_i.||^2
        c = Ul.T @ Y2                                        # U^T [y; 0]
        # everything below in U's orthonormal coordinates: the constraint z_i = 0 removes from the column space of
        # M the unit vector u = U nu, nu = T^{-T} e_i / ||T^{-T} e_i||; only nu's direction enters, and the full
        # fit enters as c, not as z = T^{-1} c.  In alpha coordinates (10 points, cond(K) 2.4e6, gamma 1e-10:
        # |alpha| ~ 7e3, B_ii = ||T^{-T} e_i||^2 up to 6e12, 1 - H_ii down to 2e-9) the full fit's residual
        # e_i ~ (1 - H_ii) r_i ~ 1e-9 came from y - D z, whose rounding eps |D| |z| ~ 1e-12 put 1e-4 into the LOO
        # residuals; y - U c has the rounding of y
        Nu = sla.solve_triangular(T, E_l, trans="T", check_finite=False)   # T^{-T} e_i
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            Nu /= np.linalg.norm(Nu, axis=0)
            a = np.einsum("ki,ik->i", Nu, Ul)                # u_i = U_i. nu (W_ii / sqrt(B_ii))
            t = Nu.T @ c                                     # u^T [y; 0] (alpha_i / sqrt(B_ii))
            E = Y2 - Ul @ c                                  # residuals of the full fit, (I - U U^T) [y; 0]
            # e'_i / (1 - h'_ii) for the column space without u: no 0/0 where the full fit interpolates
            den = (1.0 - np.einsum("ij,ij->i", Ul, Ul)) + a ** 2
            Rj = (E + a[:, None] * t) / den[:, None]
            bad = ~np.isfinite(den) | (den <= 1e-13 * (1.0 + a ** 2))
        Rj[bad] = np.nan
        R[j] = Rj
    return R


def prls_loo_errors(K: Any, Kp: Any, Kpp: Any, Y: Any, gammas: Any, *, Psi: Optional[Any] = None,
                    scoring: str = "mse", loo_rows: Any = None,
                    loo_groups: Optional[Any] = None) -> Tuple[np.ndarray, np.ndarray]:
    r"""Exact leave-one-out scores of :func:`~graphrkhs.prls_fit` for every ``gamma``, one solve per gamma.

    PRLS expands f over the kernel functions of the *labeled* points only
    (Yang, King & Lyu 2009, Eq. 8), so leaving label i out removes both the
    squared error of point i and :math:`K(x_i, \cdot)` from the expansion; the
    Gram matrices :math:`K, K', K''` of the remaining points are the
    sub-matrices (the empirical :math:`L_K` uses all n points, and x_i stays
    among them, unlabeled).  The plain hat-matrix identity
    :math:`r_i = e_i / (1 - h_{ii})` covers only the first change; the exact
    residual follows from one rank-one downdate and one constraint.

    Write :math:`z = [\alpha; \beta]`, :math:`D = [K, \Psi]` (so
    :math:`f(x_S) = Dz`), :math:`G = \mathrm{diag}(P, 0)`,
    :math:`P = K - 2K' + K''` and :math:`A = D^T D + \gamma l\,G` (the matrix of
    Eq. 11), :math:`B = A^{-1}`, :math:`W = B D^T`, :math:`H = D W`,
    :math:`e = y - Dz`.  The fit without i minimizes the same objective with
    row :math:`d_i = D_{i\cdot}^T` removed from the loss and :math:`z_i = 0`.
    Its residual at :math:`x_i` is zero, so it is also the minimizer with
    :math:`z_i = 0` on *all* rows when :math:`y_i` is replaced by its own
    prediction :math:`p_i`; that constrained problem is linear in y with hat
    matrix :math:`\tilde H = H - W_{i\cdot}^T W_{i\cdot} / B_{ii}` (removing
    coordinate i from :math:`A^{-1}` by its Schur complement), and solving
    :math:`p_i = (\tilde H \tilde y)_i` for :math:`p_i` gives

    .. math::

        y_i - \hat f^{(-i)}(x_i) = \frac{B_{ii} e_i + W_{ii} \alpha_i}
        {B_{ii} (1 - H_{ii}) + W_{ii}^2}

    (equivalently: a Sherman–Morrison downdate of row i, then a Lagrange
    multiplier for :math:`z_i = 0`).  Unlike :math:`e_i / (1 - H_{ii})` it has
    no 0/0 where the full fit interpolates (small gamma).

    Per gamma one Householder QR :math:`M = UT` of the stacked matrix
    :math:`M = [D;\ \sqrt{\gamma l}\,[C^T, 0]]` (:math:`P = CC^T`), so that
    :math:`A = M^T M = T^T T` is never formed (forming it squared K's condition
    number, and the scores moved with the order of the rows), and triangular
    solves with :math:`l` right-hand sides: :math:`H_{ii} = \|U_{i\cdot}\|^2`,
    :math:`B_{ii} = \|T^{-T}e_i\|^2`, :math:`W_{ii} = (T^{-T}e_i)^T U_{i\cdot}^T`
    are those of one PD matrix even when A is ill-conditioned (a Gaussian Gram
    matrix of low-dimensional data), so the denominator stays non-negative;
    :math:`O(l^3)` (the refits cost :math:`O(l^4)`).  Where the formula
    breaks down -- a singular system or a vanishing denominator, e.g.
    duplicate labeled points -- those residuals come from refits solved like
    :func:`~graphrkhs.prls_fit`.  The formula is evaluated in U's orthonormal
    coordinates, with :math:`\nu = T^{-T}e_i / \|T^{-T}e_i\|`, :math:`a = U_{i\cdot}\nu`,
    :math:`t = \nu^T U^T [y; 0]` and the full fit's residuals :math:`e = y - U_{S\cdot} U^T [y; 0]`:
    :math:`r_i = (e_i + a t) / (1 - H_{ii} + a^2)` (the same quotient divided by :math:`B_{ii}`;
    :math:`z = T^{-1}U^T[y; 0]`, of size 7e3 on 10 points with cond(K) = 2.4e6 at gamma = 1e-10, never enters:
    :math:`y - Dz` carried its rounding into :math:`e_i`, which is of size :math:`1 - H_{ii}`, 2e-9 there).
    Against exact refits of the same grams (50 digits) the residuals agree to 3e-4 / 7e-6 / 8e-9 / 9e-10 /
    4e-12 (relative to the largest) at gamma = 1e-14 / 1e-12 / 1e-10 / 1e-8 / 1e-4 on those 10 points (in alpha
    coordinates: 0.4 / 3e-4 / 1e-4 / 3e-7 / 6e-11).  What is left at small gamma is the problem's own
    conditioning, not the algorithm's: perturbing K by :math:`\epsilon\sqrt{K_{ii}K_{jj}}` (its rounding)
    moves the LOO residuals (computed so) by 4.5e-4 / 1.7e-5 / 3.6e-8 / 1.8e-9 at gamma = 1e-14 / 1e-12 / 1e-10 / 1e-8.
    As for every closed form of
    this module, the weight of the full fit is kept (:math:`\gamma l`, not
    :math:`\gamma (l - 1)`).

    Parameters
    ----------
    K, Kp, Kpp : ndarrays of shape (l, l)
        From :func:`~graphrkhs.consistency_grams`.
    Y : ndarray of shape (l,) or (l, m)
        m columns are scored together, in their own units (module notes, "Several target columns").
    gammas : sequence of float > 0
    Psi : ndarray of shape (l, o), optional
        Null-space basis on the labeled points; None: constants; (l, 0): none.
    scoring : {"mse", "accuracy"}
        See :func:`loo_scores`.
    loo_rows : None, "classes" or boolean array of shape (l,), default=None
        See :func:`loo_scores` (the residuals of rows not scored are not computed).
    loo_groups : array of int of shape (l,), optional
        Leave-group-out: rows with equal labels are left out together, removed from the loss and from the
        expansion (identical labeled points, :func:`~graphrkhs._core.loo.duplicate_groups`; left out alone, a
        point's copy keeps its residual near 0 and the choice runs to the fits that interpolate).  The rows of
        a group of two or more get their residuals from a refit without the whole group, solved like
        :func:`~graphrkhs.prls_fit` (:math:`O(l^3)` per group and gamma; the copies make the full system
        singular, where the downdate above is rounding); with ``loo_rows="classes"`` a class whose rows all
        fall in one group is not scored (:func:`class_loo_rows`).

    Returns
    -------
    scores, tie_break : ndarrays of shape (len(gammas),), higher is better
    """
    check_option(scoring, "scoring", SCORINGS)
    K, P, Y2, gammas, Psi = _prls_parts(K, Kp, Kpp, Y, gammas, Psi)
    keep = _scored_rows(loo_rows, Y2, loo_groups)
    blocks = [G for stack in _group_rows(loo_groups, K.shape[0]) for G in stack]
    grouped = np.zeros(K.shape[0], dtype=bool)
    for G in blocks:
        grouped[G] = True
    R = _prls_loo_fast(K, P, Y2, gammas, Psi)
    # a row of leverage 1 in Psi (the others leave the basis rank-deficient: copies of a point and a basis of
    # (1, x)) has no LOO prediction, Psi_i beta being free: undefined (inf, see _prls_loo_refit), whatever the
    # downdate's rounding gives
    undetermined = _basis_leverage_one(Psi) & ~grouped
    R[:, grouped] = 0.0                       # computed below, by group
    if keep is not None:
        R[:, ~keep] = 0.0                     # not scored: no refit for them
    for g, i in zip(*np.nonzero(~np.isfinite(R).all(axis=2))):    # singular systems / downdates: refits
        R[g, i] = _prls_loo_refit(K, P, Y2, gammas[g], Psi, i)
    for G in blocks:                          # groups of two rows or more: refits without the whole group
        if keep is None or keep[G].any():
            for g, gamma in enumerate(gammas):
                R[g, G] = _prls_loo_refit(K, P, Y2, gamma, Psi, G)
    R[:, undetermined] = np.inf
    return loo_scores(R, Y2, scoring, loo_rows=keep)


def _basis_leverage_one(Psi):
    """Rows i of ``Psi`` (l, o) outside the row space of the others (leverage 1): without row i the basis loses
    rank, and a fit on the others leaves its value at row i free.  Columns in units of their size."""
    if not Psi.shape[1]:
        return np.zeros(Psi.shape[0], dtype=bool)
    Pn = Psi / np.maximum(np.abs(Psi).max(axis=0), 1e-300)
    U, sv, _ = np.linalg.svd(Pn, full_matrices=False)
    U = U[:, sv > 1e-10 * max(float(sv.max(initial=0.0)), 1e-300)]
    # The leverage only nominates rows: 1 - h of a full-rank but ill-conditioned basis (a row of Psi at 3e4 among
    # values in [0, 1]) was 2e-9, flagged by a threshold on h although the refit without it is well defined (and
    # scored by brute force).  A candidate is flagged by the refits' own test (_outside_row_space).
    candidates = np.flatnonzero(np.einsum("ij,ij->i", U, U) > 1.0 - 1e-4)
    out = np.zeros(Psi.shape[0], dtype=bool)
    for i in candidates:
        out[i] = _outside_row_space(Psi[i:i + 1], np.delete(Psi, i, axis=0))[0]
    return out


def _outside_row_space(R, P):
    """Rows of R with a part outside the row space of P at the refits' tolerances (columns in units of their
    size over P's rows, as prls_fit scales the basis it is given; pseudo-inverse rcond 1e-10, residual above 1e-8
    of the row): a fit on P leaves their value free.  (Scaled by the column sizes of P and R together, an outlier
    row of 1e9 made the others' column vanish to 1e-9: -inf for refits prls_fit solves.)"""
    top = np.abs(P).max(axis=0, initial=0.0)
    # a column that is 0 on P's rows (nonzero only on R's) takes R's size: R / 1e-300 overflowed to inf
    scale = np.where(top > 0, top, np.maximum(np.abs(R).max(axis=0, initial=0.0), 1e-300))
    Pn, Rn = P / scale, R / scale
    return np.linalg.norm(Rn - (Rn @ np.linalg.pinv(Pn, rcond=1e-10)) @ Pn, axis=1) > \
        1e-8 * np.maximum(np.linalg.norm(Rn, axis=1), 1e-300)


def select_prls_gamma(K: Any, Kp: Any, Kpp: Any, Y: Any, gammas: Optional[Any] = None, *,
                      Psi: Optional[Any] = None, scoring: str = "mse",
                      extend: Union[bool, Sequence[str]] = True,
                      max_extensions: int = 2, make_grams: Optional[Callable[[float], Any]] = None,
                      sigmas: Optional[Any] = None, loo_rows: Any = None,
                      loo_groups: Optional[Any] = None) -> GridResult:
    r"""Choose ``gamma`` of :func:`~graphrkhs.prls_fit` by exact leave-one-out (:func:`prls_loo_errors`).

    Default grid ``geomspace(1e-6, 1e2, 9)`` (the penalty is measured in the
    normalized kernel's RKHS norm), extended at its edges.  With ``make_grams``
    (``sigma -> (K, Kp, Kpp)``) and ``sigmas`` the width is selected jointly (a
    ``sigma`` axis first; K, Kp, Kpp are then unused and may be None).  ``extend``: True grows every axis
    at its edges (the widths with their own ratio, ``make_grams`` called for the new ones), False none,
    a sequence of ``"sigma"`` / ``"gamma"`` those axes, and the other's choice at an edge of its grid is
    reported (:func:`select_grid`'s ``report``).  ``loo_rows`` as in
    :func:`select_ridge_alpha`, ``loo_groups`` (leave-group-out) as in :func:`prls_loo_errors`.

    Returns
    -------
    GridResult
        axis ``gamma`` (``sigma``, ``gamma`` with ``sigmas``).
    """
    gammas = geometric_grid(1e-6, 1e2, 9) if gammas is None else check_ridges(gammas, "gammas")
    _check_selection_labels(_n_rows(Y))
    _check_scored_rows(loo_rows, Y, "loo", loo_groups)
    done: Dict[Tuple[float, float], Tuple[float, float]] = {}
    grams: Dict[float, Any] = {}

    def scores(sigma, gamma):            # an extension of the grid refits only the new values
        new = np.array([g for g in gamma if (sigma, float(g)) not in done])
        if new.size:
            if sigma not in grams:
                grams[sigma] = (K, Kp, Kpp) if make_grams is None else make_grams(sigma)
            sc, tb = prls_loo_errors(*grams[sigma], Y, new, Psi=Psi, scoring=scoring, loo_rows=loo_rows,
                                     loo_groups=loo_groups)
            done.update({(sigma, float(g)): (a, b) for g, a, b in zip(new, sc, tb)})
        return (np.array([done[(sigma, float(g))][0] for g in gamma]),
                np.array([done[(sigma, float(g))][1] for g in gamma]))

    # below ~1e-9 (in the normalized kernel's units) the penalty is at the rounding level of K^2
    bounds = {"gamma": (1e-9, np.inf)}
    if make_grams is None:
        ext, rep = growing_axes(extend, ("gamma",))
        return select_grid(lambda gamma: scores(0.0, gamma), {"gamma": np.unique(gammas)}, extend=ext,
                           max_extensions=max_extensions, criterion="loo", bounds=bounds, report=rep)
    ext, rep = growing_axes(extend, ("sigma", "gamma"))

    def evaluate(sigma, gamma):
        out = [scores(float(sg), gamma) for sg in sigma]
        return np.array([o[0] for o in out]), np.array([o[1] for o in out])

    return select_grid(evaluate, {"sigma": np.unique(check_ridges(sigmas, "sigmas")), "gamma": np.unique(gammas)},
                       extend=ext, max_extensions=max_extensions, criterion="loo", bounds=bounds, report=rep)


def graph_cut_choice(acc: Any, mse: Any, l: int, predict: Callable[..., np.ndarray], edges: Tuple[Any, Any],
                     *, n_classes: Optional[int] = None, return_ranking: bool = False) -> Tuple[Any, ...]:
    r"""Among the grid points whose LOO accuracy is within one standard error of the best,
    the one whose predicted classes have the smallest normalized cut of a graph (ties: the lower LOO MSE,
    then the larger row value and column value of the grid: the stronger regularization, as ``GridResult``).

    With a handful of labels the LOO curve of a classifier over (width, ridge) or
    :math:`(\gamma_I/\gamma_A, \gamma_A)` is flat up to its noise: many grid points
    predict the held-out labels equally well, and the minimum of the LOO error among
    them is decided by one or two points (on noisy two circles with 20 labels it
    picked, in some draws, a Fredholm width whose boundary cut both rings).  The
    unlabeled points break the tie: under the cluster assumption behind the
    semi-supervised learners (the Fredholm "noise assumption", Que, Belkin & Wang
    2014; the manifold assumption, Belkin, Niyogi & Sindhwani 2006) the decision
    boundary crosses low-density regions, so among the candidates the classifier
    whose predicted classes :math:`C_1, \dots, C_k` have the smallest normalized cut
    (Shi & Malik, IEEE TPAMI 2000) of a kNN graph of the data is kept:

    .. math::

        \mathrm{Ncut} = \sum_{c=1}^{k} \frac{\mathrm{cut}(C_c, \bar C_c)}{\mathrm{vol}(C_c)},
        \qquad \mathrm{cut}(C, \bar C) = |\{(i, j) \in E : [\hat y_i \in C] \ne [\hat y_j \in C]\}|,
        \quad \mathrm{vol}(C) = \sum_{(i, j) \in E} [\hat y_i \in C] + [\hat y_j \in C],

    :math:`+\infty` when a class is predicted at no endpoint of an edge (such a labeling
    contradicts the labels; when every candidate is one, the next grid points by LOO
    accuracy become candidates, within one standard error of the best of them, until one
    predicts every class).  Dividing by
    the volume is what makes it a tie-break between labelings and not a vote for the
    degenerate ones: the plain fraction of cut edges is smallest for one class
    everywhere (0 cut edges) or for a class reduced to a labeled point and its
    edges, and with unbalanced labels (3 : 1 on two moons) those candidates tie the
    best LOO accuracy -- the held-out single label of the small class is missed by
    every candidate -- so the plain cut chose a constant classifier (50 % accuracy
    on 5 of 6 draws); a class of one point has Ncut term 1, the constant labeling
    :math:`+\infty`.  The candidates have LOO accuracy :math:`\ge a^* - \sqrt{a^*(1 - a^*)/l}` (one
    binomial standard error below the best :math:`a^*`; all points reaching
    :math:`a^*` when it is 1).

    Parameters
    ----------
    acc, mse : ndarrays of shape (n_rows, n_cols)
        LOO accuracy (-inf: not a candidate) and LOO mean squared error of each grid point.
    l : int
        Number of labels.
    predict : callable ``(i, js) -> ndarray (len(js), n_points)`` of int
        Predicted classes at the graph's points for row i and the columns js.
    edges : (rows, cols) int arrays
        The graph's edges (each undirected edge once or in both directions: Ncut is the same).
    n_classes : int >= 1, optional
        Number of classes k; the predicted labels are in ``range(k)``.  Default: one more
        than the largest label any candidate predicts (a class no candidate predicts is then
        not known to be missing).
    return_ranking : bool, default=False
        Also return the rank of every grid point in the order of this choice and the normalized cuts.

    Returns
    -------
    i, j : int
        The chosen grid point.
    rank : ndarray of int, shape of ``acc``
        With ``return_ranking``: 1 for the choice, then the other candidates by normalized cut (ties: the
        lower LOO MSE), then the remaining points by LOO MSE.
    ncut : ndarray of float, shape of ``acc``
        With ``return_ranking``: the normalized cut of each candidate (+inf where not computed).
    """
    check_flag(return_ranking, "return_ranking")
    acc = np.asarray(acc, dtype=np.float64)
    mse = np.asarray(mse, dtype=np.float64)
    if acc.ndim != 2 or acc.size == 0 or mse.shape != acc.shape:
        raise ValueError(f"acc and mse must be non-empty 2-D arrays of one shape (grid rows x columns); got "
                         f"{acc.shape} and {mse.shape}.")
    if np.isnan(acc).any() or np.isposinf(acc).any():
        raise ValueError("acc holds NaN or +inf; LOO accuracies are in [0, 1] (-inf marks a non-candidate).")
    if not np.isfinite(acc).any():
        raise ValueError("acc has no finite entry: no grid point is a candidate.")
    if isinstance(l, (bool, np.bool_)) or not isinstance(l, (int, np.integer)) or l < 1:
        raise ValueError(f"l must be the number of labels, an int >= 1; got {l!r}.")
    if not callable(predict):
        raise TypeError(f"predict must be callable as predict(i, js); got {type(predict).__name__}.")
    try:
        r, c = (np.asarray(e) for e in edges)
    except (TypeError, ValueError):
        raise ValueError("edges must be a pair (rows, cols) of int arrays of one length.") from None
    if r.shape != c.shape or r.ndim != 1 or (r.size and not (np.issubdtype(r.dtype, np.integer)
                                                            and np.issubdtype(c.dtype, np.integer))):
        raise ValueError(f"edges must be a pair (rows, cols) of 1-D int arrays of one length; got shapes "
                         f"{r.shape} and {c.shape}.")
    if n_classes is not None and (isinstance(n_classes, (bool, np.bool_))
                                  or not isinstance(n_classes, (int, np.integer)) or n_classes < 1):
        raise ValueError(f"n_classes must be the number of classes, an int >= 1; got {n_classes!r}.")
    mse = np.where(np.isfinite(mse), mse, np.inf)
    ncut = np.full(acc.shape, np.inf)
    ok = np.zeros(acc.shape, dtype=bool)
    left = np.isfinite(acc)
    while left.any():
        # the candidates of the best accuracy not yet ruled out; when all of them predict some class nowhere
        # (Ncut +inf: they contradict the labels), the next ones by accuracy
        best = float(np.max(acc[left]))
        new = left & (acc >= best - np.sqrt(max(best * (1.0 - best), 0.0) / l) - 1e-12)
        predicted = {int(i): np.asarray(predict(i, np.flatnonzero(new[i]))) for i in np.flatnonzero(new.any(axis=1))}
        k = n_classes if n_classes is not None else 1 + max(int(p.max()) if p.size else 0 for p in predicted.values())
        for i, labels in predicted.items():
            for t, j in enumerate(np.flatnonzero(new[i])):
                ncut[i, j] = _normalized_cut(labels[t], r, c, k)
        ok |= new
        left &= ~new
        if np.isfinite(ncut[new]).any():
            break
    # a candidate first, even at Ncut +inf; remaining ties to the larger row value, then column value (the module's
    # rule: the stronger regularization / smoother fit), as GridResult -- the first grid point before (a flat
    # criterion chose FredholmClassifier's smallest width and ridge)
    last = -np.arange(acc.size)
    order = np.lexsort((last, mse.ravel(), ncut.ravel(), ~ok.ravel()))
    i, j = np.unravel_index(order[0], acc.shape)
    if not return_ranking:
        return int(i), int(j)
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(1, order.size + 1)
    return int(i), int(j), rank.reshape(acc.shape), ncut


def _normalized_cut(labels, r, c, k):
    """Ncut of the labeling ``labels`` (ints in range(k)) on the edges (r, c); +inf for a class with no volume."""
    if not r.size:
        return 0.0
    lr, lc = labels[r], labels[c]
    if lr.min() < 0 or max(lr.max(), lc.max()) >= k or lc.min() < 0:
        raise ValueError(f"predict returned labels outside range(n_classes) = range({k}).")
    vol = np.bincount(lr, minlength=k) + np.bincount(lc, minlength=k)
    if (vol == 0).any():
        return np.inf
    across = lr != lc
    cut = np.bincount(lr[across], minlength=k) + np.bincount(lc[across], minlength=k)
    return float(np.sum(cut / vol))


class ManifoldRidgePath:
    r"""LapRLS / PLapRLS / warped-kernel RLS as kernel ridge along a path of ratios :math:`\gamma_I/\gamma_A`.

    With :math:`\rho' = \gamma_I / (\gamma_A n^2)` and the RKHS part of the penalty
    :math:`\alpha^T K T^2 \alpha` (``consistency=False``: :math:`T = I`, LapRLS; ``True``:
    :math:`T = I - K/n`, the empirical :math:`\|f - L_K f\|_K^2` of PLapRLS, Yang, King &
    Lyu 2009, with K normalized as in :func:`~graphrkhs.consistency_grams`), the values
    :math:`g = K\alpha` are penalized by :math:`\gamma_A\, g^T (T^2 K^{-1} + \rho' M) g`.
    The learner is therefore kernel ridge on the labeled points, ridge
    :math:`\gamma_A l`, with the kernel

    .. math:: G = (T^2 K^{-1} + \rho' M)^{-1} = K (T^2 + \rho' M K)^{-1},

    (for T = I the warped kernel of Sindhwani, Niyogi & Belkin 2005), plus the free
    constant when :math:`M 1 = 0`.  Per ratio: one LU of the n x n matrix
    :math:`T^2 + \rho' M K` with l right-hand sides gives :math:`Z = (T^2 + \rho' MK)^{-1} E_S`
    and :math:`G_{SS} = K_{S:} Z`; its eigendecomposition serves the whole
    :math:`\gamma_A` path (exact LOO, :class:`~graphrkhs.KernelRidgePath`), and the
    expansion coefficients of the fit are :math:`\alpha = Z c` for the kernel-ridge
    coefficients c on :math:`G_{SS}`: the final fit costs no further factorization.
    ``ratio = 0`` with T = I needs no LU (G = K).  Leaving a label out keeps its
    point in the cloud, so the closed-form LOO is exactly the refit.

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Kernel on all points (symmetric to 1e-6 of its largest entry, else ``ValueError``).
    labeled : int indices (l,)
    M : sparse (n, n), symmetric PSD
    consistency : bool, default=False
    min_rcond : float, default=sqrt(eps)
        The reciprocal condition number below which a ratio's system is refused (:meth:`basis`): its
        solve's relative error bound ``eps / rcond`` exceeds ``eps / min_rcond``.  The estimators keep
        :math:`\sqrt{\epsilon}` (see :func:`select_manifold_gammas`); :func:`select_laprls_gammas`
        uses ``LAPRLS_MIN_RCOND``.
    """

    def __init__(self, K: Any, labeled: Any, M: Any, *, consistency: bool = False,
                 min_rcond: float = float(np.sqrt(np.finfo(np.float64).eps))):
        self.K = check_square(K, "K", np.float64)
        # laprls_fit's symmetry check: np.triu(K) was scored silently
        check_symmetric_kernel(self.K, "K", _ALL_POINTS_GRAM)
        n = self.n = self.K.shape[0]
        self.S = _check_labeled_index(labeled, n)
        M = sp.csr_array(M, dtype=np.float64)
        if M.shape != (n, n):
            raise ValueError(f"M must have shape ({n}, {n}) like K; got {M.shape}.")
        self.M = M
        self.consistency = bool(consistency)
        self.min_rcond = check_scalar(min_rcond, "min_rcond", low=0, high=1)
        self._T2 = None
        self._MK = None
        self._Z: Dict[float, np.ndarray] = {}
        # ratios whose system was refused (numerically singular): the message, so that a grid evaluated
        # again (after an extension of gamma_A) does not factor the same n x n matrix again
        self._refused: Dict[float, str] = {}
        self._paths: Dict[Tuple[float, bool], KernelRidgePath] = {}
        self._G: Dict[float, np.ndarray] = {}

    def warps_constant(self) -> bool:
        """Whether the constant is penalized by M (then it cannot be left free)."""
        # relative 1e-6: a float32 graph's row sums are at its rounding level, not at float64's
        return bool(np.abs(self.M @ np.ones(self.n)).max() > 1e-6 * max(abs(self.M).max(), 1e-300))

    def basis(self, ratio: float) -> np.ndarray:
        r""":math:`Z = (T^2 + \rho' M K)^{-1} E_S`, shape (n, l) (cached per ratio).

        Raises ``LinAlgError`` when the system is numerically singular (reciprocal condition
        number below ``min_rcond``); the refusal is cached too (no second LU).
        """
        key = float(ratio)
        if key in self._refused:
            raise np.linalg.LinAlgError(self._refused[key])
        if key not in self._Z:
            n, S = self.n, self.S
            if key == 0 and not self.consistency:
                Z = np.zeros((n, S.size))       # the identity basis: n x l, no system (and no n x n guard)
                Z[S, np.arange(S.size)] = 1.0
            else:
                # M K and the matrix factored (n x n each; PLapRLS also (I - K/n)^2), E_S and Z (n x l), and the
                # Z of the ratios already cached: 3.5 - 4.5 x 8 n^2 bytes measured for the first ratio at l = n/2,
                # 10.5 x 8 n^2 for select_laprls_gammas' grid, with no estimate first
                memory_guard(8.0 * ((3.0 + self.consistency) * float(n) * n + (len(self._Z) + 2.0) * float(n) * S.size),
                             f"the LapRLS/PLapRLS path on {n} points (n x n systems, one n x {S.size} basis per ratio; "
                             f"{len(self._Z)} ratio(s) cached)",
                             "use fewer points or ratios, or the low-rank path (select_laprls_lowrank / "
                             "solver='nystrom').")
                if self.consistency:
                    if self._T2 is None:        # (I - K/n)^2 = I - 2K/n + K^2/n^2, shared by all ratios
                        T2 = self.K @ self.K
                        T2 *= 1.0 / (n * n)
                        T2 -= (2.0 / n) * self.K
                        T2.flat[::n + 1] += 1.0
                        self._T2 = T2
                if key and self._MK is None:    # M K once for all ratios (sparse times dense)
                    self._MK = np.asarray(self.M @ self.K)
                if key:
                    A = (key / float(n) ** 2) * self._MK
                    if self.consistency:
                        A += self._T2
                    else:
                        A.flat[::n + 1] += 1.0
                else:
                    A = self._T2.copy()
                E = np.zeros((n, S.size))
                E[S, np.arange(S.size)] = 1.0
                anorm = float(np.abs(A).sum(axis=1).max())     # the 1-norm of A.T (the matrix factored)
                # A is C-ordered: its transpose is Fortran-ordered, factored in place (no n x n copy)
                lu = sla.lu_factor(A.T, overwrite_a=True, check_finite=False)
                rcond = float(sla.lapack.get_lapack_funcs("gecon", (lu[0],))(lu[0], anorm, norm="1")[0])
                if not rcond > self.min_rcond:
                    # e.g. T^2 = (I - K/n)^2 singular when the kernel is nearly constant (a huge width), or
                    # rho' so large that M K swamps the rest: the error bound eps / rcond of the solve exceeds
                    # eps / min_rcond, and the fits (and their LOO scores) would depend on rounding
                    self._refused[key] = (f"T^2 + rho' M K is numerically singular at the ratio {key:g} "
                                          f"(reciprocal condition number {rcond:.1e}).")
                    raise np.linalg.LinAlgError(self._refused[key])
                Z = sla.lu_solve(lu, E, trans=1, check_finite=False)
            self._Z[key] = Z
        return self._Z[key]

    def gram(self, ratio: float) -> np.ndarray:
        """:math:`G_{SS}` of the ratio, shape (l, l)."""
        key = float(ratio)
        if key not in self._G:
            G = self.K[self.S] @ self.basis(key)
            self._G[key] = (G + G.T) / 2
        return self._G[key]

    def path(self, ratio: float, fit_intercept: bool) -> KernelRidgePath:
        key = (float(ratio), bool(fit_intercept))
        if key not in self._paths:
            self._paths[key] = KernelRidgePath(self.gram(ratio),
                                               unpenalized=np.ones(self.S.size) if fit_intercept else None)
        return self._paths[key]

    def candidate_path(self, ratio: float, fit_intercept: bool) -> Optional[KernelRidgePath]:
        r""":meth:`path`, or None when the ratio is no candidate of a selection, its fits being rounding: its
        system is numerically singular (:meth:`basis`: reciprocal condition number below
        ``min_rcond``), or its effective kernel :math:`G_{SS}` lost positive semidefiniteness to
        rounding (an eigenvalue below ``-PSD_RTOL`` times the largest in magnitude, which
        :class:`~graphrkhs.KernelRidgePath` refuses).  The reason is kept in :attr:`refused`.

        The one rule of :func:`select_manifold_gammas` and :func:`select_laprls_gammas`.  At ratio 0 of
        LapRLS (:math:`G = K`) an indefinite kernel is the caller's: ``ValueError`` as from KernelRidgePath.
        """
        key = float(ratio)
        if key in self._refused:
            return None
        try:
            return self.path(key, fit_intercept)
        except np.linalg.LinAlgError:
            return None
        except ValueError as exc:
            if key == 0 and not self.consistency:
                raise
            self._refused[key] = f"the effective kernel G_SS at the ratio {key:g} is indefinite ({exc})"
            return None

    @property
    def refused(self) -> Dict[float, str]:
        """The ratios refused so far (:meth:`basis`, :meth:`candidate_path`) and why."""
        return dict(self._refused)

    def coef(self, Y: Any, gamma_A: float, ratio: float, *, fit_intercept: bool = False
             ) -> Tuple[np.ndarray, np.ndarray]:
        r"""Expansion coefficients ``(alpha (n, m), b (m,))`` of the fit at ``(gamma_A, ratio)``: f = K alpha + b."""
        from ._kernel import grls_fit, rls_fit      # same layer: the one RLS / saddle solve

        G = self.gram(ratio)
        Y2 = _as_targets(Y, self.S.size)
        gamma_A = max(float(gamma_A), 1e-300)
        if fit_intercept:
            c, b = grls_fit(G, np.ones((self.S.size, 1)), Y2, gamma_A)
            b = np.asarray(b).reshape(-1)
        else:
            c, b = rls_fit(G, Y2, gamma_A), np.zeros(Y2.shape[1])
        return self.basis(ratio) @ c, b


#: A ratio whose effective kernel G_SS has an eigenvalue below -this x its largest |eigenvalue| is
#: numerically indefinite (rounding of an ill-conditioned solve) and is not scored.
_INDEFINITE_RTOL = 1e-8


def select_manifold_gammas(K: Any, labeled: Any, Y: Any, M: Any, gamma_As: Optional[Any] = None,
                           ratios: Optional[Any] = None, *, consistency: bool = False, fit_intercept: bool = False,
                           criterion: str = "loo", scoring: str = "mse", extend: bool = True,
                           max_extensions: int = 1, return_coef: bool = False, centred: bool = False,
                           loo_rows: Any = None, loo_groups: Optional[Any] = None
                           ) -> Union[GridResult, Tuple[GridResult, np.ndarray, np.ndarray]]:
    r"""Choose :math:`(\gamma_A, \gamma_I)` of LapRLS (``consistency=False``) or PLapRLS (``True``) by exact LOO.

    Through :class:`ManifoldRidgePath`: one n x n LU per ratio
    :math:`\rho = \gamma_I/\gamma_A`, the whole :math:`\gamma_A` path from one
    l x l eigendecomposition, and, with ``return_coef``, the coefficients of the
    selected fit from the same LU (the automatic fit then costs about one
    single fit per non-zero ratio of the grid).

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Kernel on all points (PLapRLS: normalized by its mean, as the estimator does).
    labeled : int indices (l,)
    Y : ndarray of shape (l,) or (l, m)
        m columns are scored together, in their own units (module notes, "Several target columns").
    M : sparse (n, n)
        Graph penalty (:func:`~graphrkhs.graph_penalty`).
    gamma_As : sequence of float > 0, optional
        Default ``geomspace(1e-7, 1e1, 17)``.
    ratios : sequence of float >= 0, optional
        Default: values relative to the scale at which the graph term
        starts to act, :math:`\rho_0 = n^2 / (\bar d\, \bar k)` with
        :math:`\bar d = \operatorname{tr} M / n` and :math:`\bar k` the mean row
        sum of K: LapRLS :math:`\rho \in \{0, 10^{2}, 10^{5}\} \rho_0` (0 is plain RLS,
        free), PLapRLS :math:`\{10^{2}, 10^{5}\} \rho_0`.  The default axis is not extended: at
        :math:`10^8 \rho_0` the graph term dominates (the fit is the graph-smooth one, with
        :math:`\gamma_A` at its floor), and each further ratio would cost an LU.  PLapRLS
        leaves :math:`10^8 \rho_0` out because its system is numerically singular there (the
        penalty is positive semidefinite at every ratio; this is conditioning): for w in the
        null space of M (the constants for the combinatorial Laplacian),
        :math:`w^T(T^2 + \rho' M K) = w^T T^2` does not grow with :math:`\rho` while the matrix
        does, so its condition number grows like :math:`\rho`.
        At :math:`10^8 \rho_0` the reciprocal condition number was below the
        :math:`\sqrt{\epsilon}` at which :class:`ManifoldRidgePath` refuses a system (4e-12 ..
        1e-9 where recorded) in all 140 fits measured (digits, two moons, noisy circles;
        n 300 - 1797, k 5 - 20, widths 0.25 - 4 times the default, and 10 label draws at the
        defaults): an LU spent on a ratio never scored; without it the selections were
        identical (``benchmarks/REPORT.md``).
        LapRLS's :math:`10^8 \rho_0` is refused too, by the same mechanism in another
        matrix: with T = I, :math:`A = I + \rho' M K` has the eigenvalues
        :math:`1 + \rho' \lambda_i(MK) \ge 1` (nonsingular in exact arithmetic), but
        :math:`\mathbf 1^T A = \mathbf 1^T` only bounds :math:`\|A^{-1}\| \ge 1` while
        :math:`\|A\| \ge 1 + \rho' \lambda_{\max}(MK)` grows like :math:`\rho`; the
        reciprocal condition number fell 1e3 - 5e4 times from :math:`10^5 \rho_0` to
        :math:`10^8 \rho_0`, where it was 5e-12 .. 2e-9 in all 90 fits of the same scan, and
        the row was -inf in all 240 fits with a given ``sigma`` (0.5 - 2 times the default)
        and 10 label draws.  LapRLS leaves it out too: without it those 240 selections were
        identical, 171 of them at :math:`10^5 \rho_0`, now the end of the (bounded) grid.
        Up to three LUs keep the automatic fit near 3 single fits.
    consistency, fit_intercept, criterion, scoring, extend
        As in :func:`select_laprls_gammas`; ``fit_intercept`` needs :math:`M 1 = 0`.
    max_extensions : int, default=1
        Extensions of a given ratio axis (one LU per new value) and of ``gamma_As``.
    return_coef : bool, default=False
        Also return ``(alpha, b)`` of the fit at the selected point (:meth:`ManifoldRidgePath.coef`).
    centred : bool, default=False
        ``Y`` is the targets less their labeled mean (a regressor's centring without a free constant):
        the LOO scored is that of the centred procedure, the mean re-taken without the held-out label
        (:func:`centred_loo_residuals`); with ``criterion="gcv"`` the GCV of that procedure's smoother
        (:meth:`~graphrkhs.KernelRidgePath.gcv`).
    loo_rows : None, "classes" or boolean array of shape (l,), default=None
        The labeled rows whose LOO residual is scored (:func:`loo_scores`); every row stays in the fits.
        ``"classes"`` for class-coded targets: a class's only label is not scored (:func:`class_loo_rows`).
        Fewer than ``MIN_LOO_LABELS`` scored rows raise ``ValueError``.  GCV scores every row.
    loo_groups : array of int of shape (l,), optional
        Leave-group-out: rows with equal labels are left out together (identical labeled points,
        :func:`~graphrkhs._core.loo.duplicate_groups`; left out alone, a point's copy keeps its residual near
        0 and the choice runs to the fits that interpolate).  Closed form
        :math:`r_G = [(I - H)_{GG}]^{-1} ((I - H) y)_G` (:meth:`~graphrkhs.KernelRidgePath.loo_residuals`).
        With ``loo_rows="classes"`` a class whose rows all fall in one group is not scored
        (:func:`class_loo_rows`).  GCV counts its degrees of freedom against the groups (the distinct
        points, :meth:`~graphrkhs.KernelRidgePath.gcv`).

    Returns
    -------
    GridResult
        axes ``ratio`` and ``gamma_A``; ``best_params`` also holds ``gamma_I``.
    alpha, b : ndarrays, only with ``return_coef``

    Raises
    ------
    numpy.linalg.LinAlgError
        When no ratio of the grid gives a usable system (every one numerically singular, e.g.
        :math:`(I - K/n)^2` for a nearly constant kernel): there is no choice to return.  The message
        names the refused system.
    """
    check_flag(return_coef, "return_coef")
    check_option(criterion, "criterion", CRITERIA)
    check_option(scoring, "scoring", SCORINGS)
    mp = ManifoldRidgePath(K, labeled, M, consistency=consistency)
    if fit_intercept and mp.warps_constant():
        raise ValueError("fit_intercept=True needs a penalty with M @ 1 = 0 (laplacian='combinatorial').")
    n = mp.n
    gA = geometric_grid(1e-7, 1e1, 17) if gamma_As is None else np.unique(check_ridges(gamma_As, "gamma_As"))
    bounds = {}
    if ratios is None:
        dbar = max(float(mp.M.diagonal().sum()) / n, 1e-300)
        kbar = max(float(np.abs(mp.K).sum()) / n, 1e-300)
        # no 1e8: numerically singular for LapRLS and PLapRLS alike (see the docstring)
        rho = np.array([1e2, 1e5]) * float(n) ** 2 / (dbar * kbar)
        if not consistency:         # ratio 0 (RLS) costs no LU for LapRLS
            rho = np.r_[0.0, rho]
        bounds["ratio"] = (rho[0], rho[-1])
    else:
        rho = _ratio_grid(ratios)
    _check_selection_labels(mp.S.size, criterion)    # after the arguments' own checks, before any LU
    Y2 = _as_targets(Y, mp.S.size)
    _check_scored_rows(loo_rows, Y2, criterion, loo_groups)
    l = mp.S.size

    def evaluate(ratio, gamma_A):
        score = np.empty((ratio.size, gamma_A.size))
        tie = np.empty_like(score)
        for j, r in enumerate(ratio):          # grid of ratios (one LU each)
            # a singular system, or (at extreme ratios) an effective kernel G_SS whose positive definiteness
            # the solve (T^2 + rho' M K)^-1 lost to rounding: that ratio's fits are no candidates
            path = mp.candidate_path(r, fit_intercept)
            if path is None:
                score[j], tie[j] = -np.inf, 0.0
                continue
            score[j], tie[j] = _path_scores(path, Y2, gamma_A * l, criterion, scoring, centred, loo_rows, loo_groups)
        return score, tie

    KSS = mp.K[np.ix_(mp.S, mp.S)]
    floor = 1e-10 * max(float(np.abs(np.diag(KSS)).max()), 1e-300)
    bounds["gamma_A"] = (floor, np.inf)
    res = select_grid(evaluate, {"ratio": rho, "gamma_A": gA}, extend=("ratio", "gamma_A") if extend else (),
                      max_extensions=max_extensions, criterion=criterion, bounds=bounds, warn_undefined=False)
    if not np.isfinite(res.scores).any():
        # every ratio refused: no choice to return (the fit at the tie rule's point raised this from coef after
        # select_grid had warned, and the estimators' fallback warned again: one event reported twice)
        reason = next(iter(mp.refused.values()), "every grid point's score is undefined (inf/NaN).")
        raise np.linalg.LinAlgError(reason)
    res.best_params["gamma_I"] = res.best_params["ratio"] * res.best_params["gamma_A"]
    if not return_coef:
        return res
    alpha, b = mp.coef(Y2, res.best_params["gamma_A"], res.best_params["ratio"], fit_intercept=fit_intercept)
    return res, alpha, b


# ---------------------------------------------------------------------------
# k-fold cross-validation (learners not linear in the labels)
# ---------------------------------------------------------------------------

def kfold_splits(y: Any, n_splits: int = 5, *, stratify: Optional[bool] = None,
                 random_state: Any = None, groups: Optional[Any] = None) -> List[Tuple[np.ndarray, np.ndarray]]:
    r"""Shuffled (stratified) k-fold splits of the labeled points, deterministic for a given ``random_state``.

    scikit-learn's :class:`~sklearn.model_selection.StratifiedKFold` /
    :class:`~sklearn.model_selection.KFold`.  ``n_splits`` is an upper bound, lowered without a
    warning when the points cannot fill that many folds: stratified folds need at least
    2 points per class, and with fewer than ``n_splits`` in the smallest class
    the number of folds is that count; unstratified, with fewer than ``n_splits``
    points it is their number (leave-one-out).  ``len`` of the result is the number used.
    Stratified, a class labeled once is in every training set and in no test set (held out, its class
    would have no label: its error favours the flattest fit whatever the data); the folds and their
    number are those of the other classes, and only when every class is labeled once is it a ``ValueError``.
    With ``groups``, "labeled once" means one group (a class whose labels are all copies of one point).

    Parameters
    ----------
    y : array of shape (l,)
        Labels (classes) or real targets of the labeled points.
    n_splits : int >= 2, default=5
        The most folds (see above: lowered to the smallest class's count, stratified, or to ``l``).
    stratify : bool, optional
        Default: True for integer / string / bool labels, False for floats.
    random_state : int, Generator or None
    groups : array of int of shape (l,), optional
        Rows that stay in one fold (identical labeled points, :func:`~graphrkhs._core.loo.duplicate_groups`:
        a copy left in training would predict its twin).  scikit-learn's
        :class:`~sklearn.model_selection.StratifiedGroupKFold` / :class:`~sklearn.model_selection.GroupKFold`;
        the number of folds is then at most the number of groups (of a class, stratified).

    Returns
    -------
    list of (train, test) index arrays into ``y``
    """
    from sklearn.model_selection import GroupKFold, KFold, StratifiedGroupKFold, StratifiedKFold

    y = np.asarray(y)
    if y.ndim != 1 or y.size < 2:
        raise ValueError(f"y must be a 1-D array of at least 2 labels; got shape {y.shape}.")
    n_splits = check_scalar(n_splits, "n_splits", kind="int", low=2)
    if stratify is None:
        stratify = y.dtype.kind not in "fc"
    seed = int(check_random_state(random_state).integers(2 ** 31 - 1))
    if groups is not None:
        groups = np.asarray(groups)
        if groups.shape != y.shape:
            raise ValueError(f"groups must have one label per row of y, shape {y.shape}; got {groups.shape}.")
        groups = np.unique(groups, return_inverse=True)[1].reshape(-1)
    if stratify:
        _, inverse, counts = np.unique(y, return_inverse=True, return_counts=True)
        inverse = inverse.reshape(-1)
        if groups is not None:
            # labeled "once": one distinct group (all its labels copies of one point, which stay in one fold)
            pairs = np.unique(np.column_stack([inverse, groups]), axis=0)
            counts = np.bincount(pairs[:, 0], minlength=counts.size)
        # a class's only label stays in every training set and is never held out: a fold without it would
        # ask for a class it has no label of (scored, it favours the flattest fit whatever the data)
        single = counts[inverse] == 1
        multi = counts[counts >= 2]
        if multi.size == 0:
            raise ValueError("stratified k-fold needs at least 2 labeled points per class; every class has "
                             "1. Pass stratify=False or label more points.")
        k = min(n_splits, int(multi.min()))
        rest, alone = np.flatnonzero(~single), np.flatnonzero(single)
        if groups is None:
            splits = StratifiedKFold(k, shuffle=True, random_state=seed).split(np.zeros(rest.size), y[rest])
        else:
            # at most as many folds as a class (labeled twice or more: two groups or more) has groups
            splits = StratifiedGroupKFold(k, shuffle=True, random_state=seed).split(
                np.zeros(rest.size), y[rest], groups[rest])
        return [(np.sort(np.concatenate([rest[tr], alone])), rest[te]) for tr, te in splits]
    if groups is not None:
        k = min(n_splits, int(groups.max()) + 1)
        if k < 2:
            raise ValueError("k-fold with groups needs at least 2 groups; every row is in one.")
        # GroupKFold does not shuffle: the groups are relabeled at random (seeded) first
        perm = np.random.default_rng(seed).permutation(int(groups.max()) + 1)
        return [(tr, te) for tr, te in GroupKFold(k).split(np.zeros(y.size), y, perm[groups])]
    k = min(n_splits, y.size)
    return [(tr, te) for tr, te in KFold(k, shuffle=True, random_state=seed).split(np.zeros(y.size))]


def kfold_scores(fit_predict: Callable[..., Any], y: Any, grid: Mapping[str, Any], *, n_splits: int = 5,
                 stratify: Optional[bool] = None, scoring: str = "accuracy", random_state: Any = 0,
                 extend: Sequence[str] = (), max_extensions: int = 2,
                 tie_break: Optional[Callable[..., float]] = None, groups: Optional[Any] = None) -> GridResult:
    r"""k-fold cross-validation on the labeled points over a tensor grid.

    For learners whose prediction is not linear in the labels (graph TV,
    Poisson learning, hinge loss), where no closed-form LOO exists.  The
    same folds (:func:`kfold_splits`) serve every grid point.

    Parameters
    ----------
    fit_predict : callable
        ``fit_predict(train, test, **params) -> predictions`` for the labeled
        points ``test`` (positions into ``y``) after fitting on ``train``
        (the caller closes over its graph / points and keeps the held-out
        points in the graph, unlabeled).  Predictions: labels (compared with
        ``y``) or real values, shape ``(len(test),)`` (a column
        ``(len(test), 1)`` is accepted; any other shape is a ``ValueError``), finite (NaN or
        infinity is a ``ValueError`` naming the params).
    y : array of shape (l,)
    grid : dict of str -> 1-D sequence
    n_splits, stratify, random_state, groups
        See :func:`kfold_splits` (``n_splits`` is lowered there, stratified and unstratified alike, when the
        points cannot fill that many folds).
    scoring : {"accuracy", "mse"}, default="accuracy"
    extend, max_extensions
        See :func:`select_grid`.
    tie_break : callable, optional
        ``tie_break(**params) -> float``: among grid points of equal mean
        score the larger value wins (before :class:`GridResult`'s own rule, the
        larger first-axis value).  With few labels the held-out accuracy is
        flat over wide ranges; e.g. minus the log-distance to a prior choice
        keeps the selection at that choice instead of the grid's edge (and
        stops extensions along a flat curve).

    Returns
    -------
    GridResult
        mean and ``std`` over folds of the score (higher is better).
    """
    check_option(scoring, "scoring", SCORINGS)
    if tie_break is not None and not callable(tie_break):
        raise TypeError("tie_break must be a callable tie_break(**params) -> float.")
    if not callable(fit_predict):
        raise TypeError("fit_predict must be a callable fit_predict(train, test, **params) -> predictions.")
    y = np.asarray(y)
    folds = kfold_splits(y, n_splits, stratify=stratify, random_state=random_state, groups=groups)
    stds = {}

    def evaluate(**axes):
        names = list(axes)
        mesh = np.meshgrid(*axes.values(), indexing="ij")
        shape = mesh[0].shape
        mean, std, tie = np.empty(shape), np.empty(shape), np.zeros(shape)
        for idx in np.ndindex(shape):        # grid points x folds
            params = {n: m[idx].item() for n, m in zip(names, mesh)}
            if tie_break is not None:
                tie[idx] = float(tie_break(**params))
            per = []
            for tr, te in folds:
                pred = np.asarray(fit_predict(tr, te, **params))
                if pred.shape == (te.size, 1):      # a column of predictions: compared entry by entry
                    pred = pred[:, 0]
                if pred.shape != (te.size,):
                    # compared with y[te] of shape (k,), a (k, 1) or (k, m) array would broadcast to pairs
                    raise ValueError(f"fit_predict must return one prediction per test point, an array of shape "
                                     f"({te.size},); got shape {pred.shape}.")
                if pred.dtype.kind in "fc" and not np.isfinite(pred).all():
                    # a failed fit: NaN counted as a wrong label ("accuracy") or made the mean NaN, scored -inf
                    # ("mse"), and that grid point left the selection without a word
                    raise ValueError(f"fit_predict returned NaN or infinity at {params}; predictions must be "
                                     "finite: check the fit behind fit_predict at these parameters.")
                per.append(np.mean(pred == y[te]) if scoring == "accuracy"
                           else -np.mean((pred.astype(np.float64) - y[te]) ** 2))
            mean[idx], std[idx] = np.mean(per), np.std(per)
        stds["last"] = std
        return (mean, tie) if tie_break is not None else mean

    result = select_grid(evaluate, grid, extend=extend, max_extensions=max_extensions, criterion="kfold")
    result.std = stds["last"]
    return result


# ---------------------------------------------------------------------------
# Tikhonov: one factorization for the whole path *and* the final fit
# ---------------------------------------------------------------------------

#: Columns per SuperLU triangular solve.  SuperLU's multi-right-hand-side solve slows down far more than
#: linearly with the block width: on the digits graph (1697 unknowns) 100 right-hand sides took 0.07 s in
#: one call and 0.005 s in blocks of 8 (scipy 1.17).
_LU_BLOCK = 8
#: Columns of the Schur complement computed at a time (bounds the dense |U| x block work array).
_SCHUR_BLOCK = 256


class _KronReduction:
    r"""The Kron reduction :math:`T = L/L_{UU}` of a graph on its labeled nodes, and the fit it gives.

    Row U of the Tikhonov system :math:`(J + \mu L) F = J Y` reads
    :math:`L_{UU} F_U + L_{US} F_S = 0` whatever :math:`\mu`, hence
    :math:`F_S = (I + \mu T)^{-1} Y` and :math:`F_U = -L_{UU}^{-1} L_{US} F_S`
    (for :math:`\mu = 0`, :math:`F_S = Y`: the harmonic solution).  One
    factorization of :math:`L_{UU}` serves the Schur complement (l
    right-hand sides), every :math:`\mu`, and the extension of the selected
    fit to the unlabeled nodes (m right-hand sides), so the automatic fit
    costs about one fixed-``alpha`` solve plus an :math:`l \times l`
    eigendecomposition.

    ``L_UU`` is scaled symmetrically to unit diagonal and factorized by
    SuperLU in symmetric mode (minimum-degree ordering of :math:`A + A^T`, no
    pivoting: the matrix is SPD on components holding a label), which halves
    the fill of the default column ordering on kNN graphs; above
    ``DIRECT_MAX_NODES`` unknowns (the solvers' rule) the right-hand sides
    are solved by AMG-preconditioned block CG instead.  Weak links are cut and
    label-free components get the mean target, exactly as in
    :func:`~graphrkhs.tikhonov_solution`.
    """

    def __init__(self, W, labeled, laplacian, *, tol=1e-8, max_iter=None, preconditioner="auto"):
        from .._core.labels import cut_weak_links, label_free_mask
        from ._graph import DIRECT_MAX_NODES

        check_option(laplacian, "laplacian", ("combinatorial", "normalized"))
        W = as_adjacency(W, dtype=np.float64)
        n = W.shape[0]
        S = _check_labeled_index(labeled, n)
        if np.unique(S).size != S.size:
            raise ValueError("labeled must not repeat a node.")
        l, n_u = float(S.size), float(n - S.size)
        # dense l x l: the Schur complement, its symmetric part, eigh's eigenvectors and workspace, T of the
        # scores (about 4.2 such arrays measured at l = 500 - 1500, tracemalloc), and the |U| x block columns of
        # the Schur solves.  Unguarded, 60000 labels asked numpy for 26.8 GiB arrays with no word of the way out
        memory_guard(8.0 * (4.5 * l * l + 1.5 * n_u * min(l, _SCHUR_BLOCK)),
                     f"the exact leave-one-out of Laplacian regularization on {S.size} labeled nodes (the Kron "
                     f"reduction: about five dense {S.size} x {S.size} float64 arrays)",
                     "use select_tikhonov_solution(method='stochastic') (matrix-free, memory linear in the "
                     "nodes), or fewer labeled nodes.")
        W = cut_weak_links(W)
        L = sp.csr_array(graph_laplacian(W, laplacian), dtype=np.float64)
        self.n, self.S = n, S
        self.orphan = label_free_mask(W, S)
        is_u = ~self.orphan
        is_u[S] = False
        self.U = np.flatnonzero(is_u)
        self.tol, self.max_iter = tol, max_iter
        LS = L[S]
        Lsc = LS[:, S].toarray()
        if self.U.size:
            self.L_US = sp.csr_array(L[self.U][:, S])
            L_UU = sp.csc_array(L[self.U][:, self.U])
            d = L_UU.diagonal()
            self._scale = 1.0 / np.sqrt(np.where(d > 0, d, 1.0))
            self._A = sp.csc_array(L_UU.multiply(self._scale[:, None]).multiply(self._scale[None, :]))
            self._lu = None
            if self.U.size <= DIRECT_MAX_NODES and preconditioner == "auto":
                try:
                    self._lu = spd_splu(self._A)
                except RuntimeError as exc:          # SuperLU: "Factor is exactly singular"
                    raise np.linalg.LinAlgError(
                        f"the sparse factorization of L_UU failed ({exc}): the Laplacian system is singular to "
                        "working precision; check the graph for nearly disconnected parts.") from None
            self._preconditioner = "amg" if preconditioner == "auto" else preconditioner
            # the iterative path solves L_UU itself: _solve_spd checks its row-normalized residual and corrects in
            # the units of F.  On the unit-diagonal A its tests were in the scaled units, so on a node of degree
            # 1.4e-32 (6000 blob points) an error of 1e-11 in D^(1/2) F was 1.5e5 in F: the harmonic scores left
            # [0, 1] by five orders of magnitude with no warning (LaplacianRegularizationClassifier, alpha="auto")
            self._L_UU = sp.csr_array(L_UU) if self._lu is None else None
            # a normalized L_UU's diagonal is 1 whatever the degrees: _solve_spd's correction test needs them (on a
            # graph of outliers its AMG solve was 0.14 off without a warning, where harmonic_solution is 6e-8)
            self._degrees_U = None
            if self._lu is None and laplacian == "normalized":
                with np.errstate(over="ignore"):
                    self._degrees_U = np.asarray(W.sum(axis=1), dtype=np.float64).ravel()[self.U]
            LSU = sp.csr_array(LS[:, self.U])
            for j in range(0, S.size, _SCHUR_BLOCK):     # blocks of columns: memory |U| x _SCHUR_BLOCK
                Lsc[:, j:j + _SCHUR_BLOCK] -= LSU @ self.solve_uu(self.L_US[:, j:j + _SCHUR_BLOCK].toarray())
        T = (Lsc + Lsc.T) / 2
        del Lsc
        # the labels alone (among labels) in their component, whose T_ii is 0 exactly
        _, comp = csgraph.connected_components(W, directed=False)
        self._alone = np.bincount(comp[S], minlength=comp.max() + 1)[comp[S]] == 1
        with small_dense_threads(T.shape[0]):
            t, V = np.linalg.eigh(T)
        top = max(float(np.abs(t).max()), 1e-300)
        tiny = 1e-10 * top
        # the null space: constants per component holding labels (one eigenvalue each, the smallest ones), set to
        # 0 exactly. Only those: a label on weak edges (1e-10 against degrees ~1) has a genuine eigenvalue below
        # tiny, and zeroing it too detached the label from the others (its refits' residuals off by ~1e-10 alpha
        # relative: 6e-9 at alpha 100, 17% at 1e10 against refits in 50-digit arithmetic). An eigenvalue kept is
        # exact to eps ||T|| absolutely, so 1 / (1 + alpha t) keeps a relative accuracy eps ||T|| / t at every alpha;
        # those below 1e3 eps ||T|| are rounding (a label on edges of 1e-19: its T_ii), 0 as before
        null = np.zeros(t.size, dtype=bool)
        null[:np.unique(comp[S]).size] = True                    # eigh sorts the eigenvalues increasingly
        self.t = np.where((null & (t <= tiny)) | (t <= 1e3 * np.finfo(float).eps * top), 0.0, t)
        # the labels whose T_ii is at the rounding of T's eigendecomposition (below 1e-6 of its largest
        # eigenvalue): their LOO is refitted from T's own column (_refit_residuals), kept for them only
        self._Tii = np.diag(T).copy()
        scaled_diag = np.einsum("ik,k,ik->i", V, self.t / max(float(self.t.max(initial=0.0)), 1e-300), V)
        self._ill = ~self._alone & (self._Tii > 0) & (scaled_diag <= 1e-6)
        self._T_ill = T[:, self._ill].copy()
        del T
        with np.errstate(divide="ignore", over="ignore"):
            s = np.where(self.t > 0, 1.0 / np.where(self.t > 0, self.t, 1.0), np.inf)
            # the rounding level of s = 1 / t from the eigenvalues above tiny (l eps max s there, as before the
            # weak labels' eigenvalues were kept): those below, kept since, are accurate relative to themselves
            # (eps ||T|| / t), and their s up to 1 / (1e3 eps ||T||) set a level above ordinary s, which flagged
            # the leave-one-out of 120-180 ordinary rows of a 2000-label kNN graph undefined (-inf) at small alpha
            ordinary = s[np.isfinite(s) & (self.t > tiny)]
            rounding = s.size * np.finfo(float).eps * float(ordinary.max(initial=0.0))
            self.path = KernelRidgePath.from_eigh(s, V, rounding=rounding)

    def solve_uu(self, B):
        r""":math:`L_{UU}^{-1} B` (dense B), by the LU in blocks of columns or by block CG."""
        from ._graph import _solve_spd

        B = np.asarray(B, dtype=np.float64).reshape(self.U.size, -1)
        if self._lu is None:
            return _solve_spd(self._L_UU, B, self._preconditioner, self.tol, self.max_iter, degrees=self._degrees_U)
        sB = self._scale[:, None] * B
        X = np.empty_like(sB)
        for j in range(0, sB.shape[1], _LU_BLOCK):     # blocks of columns (see _LU_BLOCK)
            X[:, j:j + _LU_BLOCK] = self._lu.solve(np.asfortranarray(sB[:, j:j + _LU_BLOCK]))
        return self._scale[:, None] * X

    def fitted(self, alpha, Y2):
        r""":math:`F_S = (I + \mu T)^{-1} Y` on the labeled nodes (Y itself for :math:`\mu = 0`)."""
        if alpha == 0:
            return Y2.copy()
        V = self.path.eigenvectors
        return V @ ((1.0 / (1.0 + alpha * self.t))[:, None] * (V.T @ Y2))

    def solution(self, alpha, Y2):
        """The Tikhonov (harmonic for alpha=0) solution on all n nodes, shape (n, m)."""
        F = np.empty((self.n, Y2.shape[1]))
        F[self.S] = self.fitted(alpha, Y2)
        if self.U.size:
            F[self.U] = -self.solve_uu(self.L_US @ F[self.S])
        if self.orphan.any():
            from .._core.validation import GraphWarning

            warn(f"{int(self.orphan.sum())} node(s) lie in connected components without any labeled node; "
                 "they get the mean of the labeled targets (the class prior).", GraphWarning)
            F[self.orphan] = Y2.mean(axis=0)
        return F

    def scores(self, alphas, Y2, criterion, scoring, loo_rows=None):
        r"""Path scores; :math:`\mu = 0` is the limit :math:`\mu \to 0`, the harmonic solution's own LOO.

        As :math:`\mu \to 0`, :math:`(I - H)/\mu \to T`, and both the LOO
        residual :math:`((I-H)y)_i / (I-H)_{ii}` and GCV are invariant to the
        scale of :math:`I - H`: at 0 they are :math:`(Ty)_i / T_{ii}` and
        :math:`\frac1l\|Ty\|^2 / (\frac1l \operatorname{tr} T)^2` -- exactly
        the refit of the harmonic solution without label i (the Kron
        reduction eliminates node i like any other unlabeled node).
        """
        alphas = np.asarray(alphas, dtype=np.float64)
        score, tie = np.empty(alphas.size), np.empty(alphas.size)
        pos = alphas > 0
        V = self.path.eigenvectors
        # T in units of its largest eigenvalue: the harmonic LOO and GCV do not depend on the scale of T, and
        # the rounding thresholds of _loo_from_A / _gcv_from_A are absolute (with T in the weights' units, a
        # graph whose weights are ~1e-15 scored alpha = 0 as undefined)
        T = (V * (self.t / max(float(self.t.max(initial=0.0)), 1e-300))) @ V.T
        # a labeled node alone (among labels) in its component has T_ii = 0: no other label informs it and
        # its LOO is undefined at every alpha; it is left out of the LOO average instead of making it inf
        # (structurally: a label hanging on edges of 1e-19 has T_ii ~ 1e-19 relative, below the rounding of T's
        # eigendecomposition, and was left out as if alone; its refits' residual is genuine)
        ok = ~self._alone & (self._Tii > 0)
        # a T_ii below 1e-6 of T's scale: the closed form (T y)_i / T_ii from the eigendecomposition loses
        # eps / T_ii of relative accuracy (-1.3 scored for refits' -590); those rows are refitted from T
        ill = self._ill.copy()
        rows = _scored_rows(loo_rows, Y2)            # the caller's rows (a classifier's): the others not scored
        if rows is not None and criterion != "gcv":
            ok = ok & rows
            ill = ill & rows
        if criterion == "gcv" or (ok.all() and not ill.any()):
            if pos.any():
                score[pos], tie[pos] = _path_scores(self.path, Y2, alphas[pos], criterion, scoring)
            if (~pos).any():
                score[~pos], tie[~pos] = _criterion_errors(T, Y2, criterion, scoring)
            return score, tie
        if not ok.any():                 # every label alone in its component: LOO is undefined everywhere
            return np.full(alphas.size, -np.inf), np.zeros(alphas.size)
        if pos.any():
            R = self.path.loo_residuals(Y2, alphas[pos])
            for i in np.flatnonzero(ill):
                R[:, i] = self._refit_residuals(i, Y2, alphas[pos])
            score[pos], tie[pos] = loo_scores(R[:, ok], Y2[ok], scoring)
        if (~pos).any():
            R0 = _loo_from_A(T, Y2)
            for i in np.flatnonzero(ill):
                R0[i] = self._refit_residuals(i, Y2, np.zeros(1))[0]
            s0, t0 = loo_scores(R0[ok][None], Y2[ok], scoring)
            score[~pos], tie[~pos] = s0[0], t0[0]
        return score, tie

    def _refit_residuals(self, i, Y2, alphas):
        r"""LOO residuals (len(alphas), m) of label i, exact refits on T in O(l m) per alpha.

        Without label i, row i of :math:`(J_{-i} + \mu T) F = J_{-i} y` gives
        :math:`F_i = -T_{io} F_o / T_{ii}` and the others solve :math:`(A_{oo} - \mu T_{oi} T_{io} / T_{ii}) F_o =
        y_o`, :math:`A = I + \mu T`; by Sherman-Morrison,
        :math:`F_i = -T_{io} A_{oo}^{-1} y_o / (T_{ii} - \mu T_{io} A_{oo}^{-1} T_{oi})`.  Both forms of
        :math:`A_{oo}^{-1}` (:math:`(A^{-1})_{oo} - (A^{-1})_{oi} (A^{-1})_{io} / (A^{-1})_{ii}`, with
        :math:`(A^{-1})_{ii}` near 1) come from T's eigendecomposition without the cancellation of
        :math:`1 - (A^{-1})_{ii} \approx \mu T_{ii}` that the closed form suffers for a tiny :math:`T_{ii}`, and
        the ratios use row i of T itself.  (Dense refits, one (l - 1)-system per alpha, cost 10 s for four such
        labels among 1200 over the default grid.)"""
        V, t = self.path.eigenvectors, self.t
        u0 = self._T_ill[:, np.searchsorted(np.flatnonzero(self._ill), i)].copy()   # T_oi, 0 at i
        t_ii = u0[i]
        u0[i] = 0.0
        ce, cu = V[i], V.T @ u0             # e_i and T_oi in the eigenbasis
        cy = V.T @ Y2 - np.outer(ce, Y2[i])  # y with 0 at i
        out = np.empty((len(alphas), Y2.shape[1]))
        for k, a in enumerate(alphas):
            d = 1.0 / (1.0 + a * t)
            de, du = d * ce, d * cu
            p_ii, p_iu = ce @ de, cu @ de
            q_uy = du @ cy - p_iu * (de @ cy) / p_ii       # T_io A_oo^-1 y_o
            q_uu = du @ cu - p_iu * p_iu / p_ii            # T_io A_oo^-1 T_oi
            out[k] = Y2[i] + q_uy / (t_ii - a * q_uu)
        return out


#: Default grid of :func:`select_tikhonov_solution`: the harmonic limit 0 and ``geomspace(1e-4, 1e3, 15)``.
TIKHONOV_ALPHAS = np.concatenate([[0.0], np.geomspace(1e-4, 1e3, 15)])


def select_tikhonov_solution(W: Any, labeled: Any, Y: Any, alphas: Optional[Any] = None, *,
                             laplacian: str = "combinatorial", criterion: str = "loo", scoring: str = "mse",
                             extend: bool = True, max_extensions: int = 2, tol: float = 1e-8,
                             max_iter: Optional[int] = None, preconditioner: Any = "auto",
                             method: str = "auto", n_probes: int = 64,
                             random_state: Any = 0, backend: str = "auto",
                             loo_rows: Any = None) -> Tuple[np.ndarray, GridResult]:
    r"""Select ``alpha`` of :func:`~graphrkhs.tikhonov_solution` by LOO/GCV and return the fit at it.

    ``method="exact"``: the Kron reduction :math:`T = L/L_{UU}` (one sparse
    factorization of :math:`L_{UU}` and one :math:`l \times l`
    eigendecomposition) gives the exact LOO of every ``alpha``
    (:func:`tikhonov_path_errors`) and, from the same factorization, the
    solution at the selected one: the whole call costs one to two
    fixed-``alpha`` fits (digits, 100 labels: 2.2x, ``benchmarks/selection.py``;
    the matrix-free path 36x there).  ``alpha = 0`` (the
    harmonic solution, :func:`~graphrkhs.harmonic_solution`) is a point of
    the default grid, scored by its own exact LOO (the limit
    :math:`\mu \to 0`).  ``method="stochastic"``: the matrix-free LOO of
    :func:`tikhonov_stochastic_errors` (for label sets too large for an
    :math:`l \times l` eigendecomposition); ``"auto"`` takes it above
    ``STOCHASTIC_MIN_LABELS`` labeled nodes.  A target constant up to rounding is a constant
    (as in :func:`select_tikhonov_alpha`): the largest alpha, no extension, no warning.

    Parameters
    ----------
    W : graph
    labeled : int indices (l,)
    Y : ndarray of shape (l,) or (l, m)
        m columns are scored together, in their own units (module notes, "Several target columns").
    alphas : increasing sequence of float >= 0, optional
        Default (None) ``TIKHONOV_ALPHAS`` (0 and ``geomspace(1e-4, 1e3, 15)``;
        ``method="stochastic"``: ``TIKHONOV_ALPHAS_STOCHASTIC``, every other point),
        extended at its upper edge when ``extend``.  A sequence is scored as given,
        even when its values are the default grid's.
    laplacian : {"combinatorial", "normalized"}
    criterion, scoring
        As in :func:`ridge_path_errors`.
    extend, max_extensions
        As in :func:`select_grid`.
    tol, max_iter, preconditioner
        Of the Laplacian solves (as in :func:`~graphrkhs.tikhonov_solution`).
    method : {"auto", "exact", "stochastic"}
    n_probes, random_state
        Of the stochastic diagonal estimate (``method="stochastic"``); one set of probes serves the whole
        grid, its extensions included (a Generator, a RandomState or None is drawn from once, for
        their seed).
    backend : {"auto", "numpy", "numba", "scipy", "mpi", "dask"}, default="auto"
        Where the Laplacian solves of ``method="stochastic"`` run (as in
        :func:`~graphrkhs.tikhonov_solution`); the exact path (one sparse
        factorization) runs on every process.
    loo_rows : None, "classes" or boolean array of shape (l,), default=None
        The labeled rows whose LOO residual is scored (:func:`loo_scores`); every row stays in the fits.
        ``"classes"`` for class-coded targets: a class's only label is not scored (:func:`class_loo_rows`).
        Fewer than ``MIN_LOO_LABELS`` scored rows raise ``ValueError``.  GCV scores every row.

    Returns
    -------
    F : ndarray of shape (n, m)
        The solution at the selected ``alpha`` (2-D).
    result : GridResult
    """
    check_option(criterion, "criterion", CRITERIA)
    check_option(scoring, "scoring", SCORINGS)
    check_option(method, "method", ("auto", "exact", "stochastic"))
    check_backend(backend)
    default = alphas is None
    given, alphas = alphas, TIKHONOV_ALPHAS if default else _float_axis(alphas)
    if alphas.ndim != 1 or alphas.size == 0 or not (np.isfinite(alphas).all() and (alphas >= 0).all()):
        raise ValueError(f"alphas must be a non-empty 1-D sequence of finite numbers >= 0; got {given!r}.")
    alphas = np.unique(alphas)
    n_labels = _check_labeled_index(labeled, as_adjacency(W).shape[0]).size
    _check_selection_labels(n_labels, criterion)
    if np.ndim(Y) >= 1 and np.shape(Y)[0] == n_labels:
        _check_scored_rows(loo_rows, Y, criterion)
    if method == "stochastic" or (method == "auto" and n_labels > STOCHASTIC_MIN_LABELS):
        # the default grid (None) is thinned there (a block solve per point); one's own grid is scored as given
        return _tikhonov_stochastic_select(W, labeled, Y, TIKHONOV_ALPHAS_STOCHASTIC if default else alphas,
                                           laplacian=laplacian, criterion=criterion,
                                           scoring=scoring, extend=extend, max_extensions=max_extensions,
                                           tol=tol, max_iter=max_iter, preconditioner=preconditioner,
                                           n_probes=n_probes, random_state=random_state, backend=backend,
                                           loo_rows=loo_rows)
    require_backend(backend)         # the exact path runs here, serially: backend="dask" without a client is an error
    red = _KronReduction(W, labeled, laplacian, tol=tol, max_iter=max_iter, preconditioner=preconditioner)
    Y2 = _as_targets(Y, red.S.size)
    constant = laplacian == "combinatorial" and constant_up_to_rounding(Y2)     # as in select_tikhonov_alpha
    res = select_grid(lambda alpha: _constant_scores(alpha, scoring) if constant else
                      red.scores(alpha, Y2, criterion, scoring, loo_rows), {"alpha": alphas},
                      extend=("alpha",) if extend else (), max_extensions=max_extensions, criterion=criterion)
    return red.solution(res.best_params["alpha"], Y2), res


__all__ += ["select_tikhonov_solution", "graph_cut_choice"]


# ---------------------------------------------------------------------------
# Matrix-free LOO / GCV: stochastic estimation of diag(I - H)
# ---------------------------------------------------------------------------

#: Above this many labeled nodes, ``method="auto"`` of :func:`select_tikhonov_solution` (and the graph
#: kernel ridge estimators) use the matrix-free LOO: an l x l eigendecomposition costs O(l^3) time and
#: O(l^2) memory (2000: ~1-3 s and 32 MB; 20000 would be hours and 3.2 GB).  The graph solvers' own
#: dense/iterative switch for the labeled block (``DIRECT_MAX_LABELED``) is the same number.
STOCHASTIC_MIN_LABELS = 2000


def stochastic_loo_errors(residual: Callable[..., np.ndarray], Y: Any, params: Sequence[Mapping[str, Any]], *,
                          n_probes: int = 64, random_state: Any = 0, criterion: str = "loo",
                          scoring: str = "mse", unpenalized: Optional[Any] = None,
                          keep: Optional[Any] = None, return_stderr: bool = False,
                          loo_rows: Any = None) -> Tuple[np.ndarray, ...]:
    r"""Matrix-free LOO (or GCV) scores of a linear smoother, with :math:`\operatorname{diag}(I - H)` estimated.

    The LOO residual :math:`((I - H)y)_i / (I - H)_{ii}` needs the whole
    diagonal of :math:`I - H`, which costs l solves if done exactly.  Here the
    numerator is exact and the diagonal is estimated from p Rademacher probes
    (``graphrkhs._core.loo.diagonal_from_probes``, Bekas, Kokiopoulou &
    Saad 2007), all in one block solve per grid point: ``residual`` is applied
    to the block ``[Y, z_1, ..., z_p]`` (m + p right-hand sides of the
    learner's own CG / Chebyshev solver).  The same probes serve every grid
    point (common random numbers: the errors of neighbouring points are
    correlated, so the *shape* of the curve, and the selected point, is more
    accurate than any single value).  GCV needs only the trace,
    :math:`\sum_i \hat d_i`.

    Error.  Entry i of the estimate has relative standard deviation
    :math:`\|(I-H)_{i,\ne i}\| / ((I-H)_{ii}\sqrt p)`; the LOO residual inherits
    it to first order, and the LOO mean squared error, an average over l
    points of errors that are nearly independent, is far more accurate than
    that.  Measured on a kNN graph of 400 points with 80 labels (Tikhonov,
    ``alpha`` from 0 to 10, ``tests/solvers/test_selection.py``): median
    relative standard error of the diagonal 0.02-0.06 at p = 64 and
    0.03-0.11 at p = 16 (the :math:`1/\sqrt p` law; largest at small
    ``alpha``, where :math:`I - H` is least diagonal); largest relative error
    of the LOO MSE over the grid 0.008 at p = 64 and 0.09 at p = 16; the
    selected ``alpha`` equals the exact one when the best point beats the
    others by more than twice that error.

    Parameters
    ----------
    residual : callable
        ``residual(Z, **params) -> (I - H) Z`` for a block Z of shape (l, k),
        e.g. ``Z - fit(Z)[S]`` with the learner's solver.
    Y : ndarray of shape (l,) or (l, m)
        m columns are scored together, in their own units (module notes, "Several target columns").
    params : sequence of dicts
        The grid points.
    n_probes : int, default=64
    random_state : int, Generator or None, default=0
    criterion, scoring
        As in :func:`ridge_path_errors`.
    unpenalized : ndarray of shape (l, q), optional
        An unpenalized basis (a free constant: ``np.ones(l)``): with
        :math:`A = I - H` of the penalized smoother (symmetric),
        :math:`I - H_\Psi = A - A\Psi(\Psi^T A \Psi)^{-1}\Psi^T A`
        (:func:`_project_unpenalized`), applied with the extra columns
        :math:`A\Psi` in the same block.
    keep : bool array of shape (l,), optional
        The labeled points averaged by the LOO criterion (default: all).  A
        point whose row of :math:`I - H` vanishes (e.g. the only labeled node
        of its connected component) has no LOO residual, 0 / 0, and must be
        left out (otherwise every score is -inf); GCV uses all rows.
    return_stderr : bool, default=False
        Also return the estimated standard error of the diagonal relative to
        it, shape (len(params), l).
    loo_rows : None, "classes" or boolean array of shape (l,), default=None
        The caller's rows to score (:func:`loo_scores`), combined with ``keep``.

    Returns
    -------
    scores, tie_break : ndarrays of shape (len(params),)
    rel_stderr : ndarray of shape (len(params), l), only with ``return_stderr``
    """
    check_flag(return_stderr, "return_stderr")
    from .._core.loo import diagonal_from_probes, rademacher_probes

    check_option(criterion, "criterion", CRITERIA)
    check_option(scoring, "scoring", SCORINGS)
    if not callable(residual):
        raise TypeError("residual must be a callable residual(Z, **params) -> (I - H) Z.")
    Y2 = _as_targets(Y, np.shape(Y)[0] if np.ndim(Y) else 0)
    l, m = Y2.shape
    n_probes = _probe_memory_guard(n_probes, l, Y2)
    Psi = None
    if unpenalized is not None:
        Psi = np.asarray(unpenalized, dtype=np.float64).reshape(l, -1)
    if keep is not None:
        keep = np.asarray(keep, dtype=bool).reshape(-1)
        if keep.shape != (l,):
            raise ValueError(f"keep must be a boolean mask of the {l} labeled points; got shape {keep.shape}.")
    rows = _scored_rows(loo_rows, Y2)          # the caller's scored rows (a classifier's), with keep's
    if rows is not None:
        keep = rows if keep is None else keep & rows
    Z = rademacher_probes(l, n_probes, random_state)
    blocks = [Y2, Z] if Psi is None else [Y2, Z, Psi]
    B = np.hstack(blocks)
    p = Z.shape[1]
    score, tie = np.empty(len(params)), np.empty(len(params))
    rel = np.empty((len(params), l))
    for j, prm in enumerate(params):         # grid points: one block solve each
        AB = np.asarray(residual(B, **prm), dtype=np.float64)
        if AB.shape != B.shape:
            raise ValueError(f"residual(Z) must return an array of Z's shape {B.shape}; got {AB.shape}.")
        AY, AZ = AB[:, :m], AB[:, m:m + p]
        if Psi is not None:
            # A - A Psi G^{-1} Psi^T A with G = Psi^T A Psi (A symmetric: Psi^T A Z = (A Psi)^T Z)
            APsi = AB[:, m + p:]
            G = Psi.T @ APsi
            AY = AY - APsi @ np.linalg.solve(G, APsi.T @ Y2)
            AZ = AZ - APsi @ np.linalg.solve(G, APsi.T @ Z)
        d, se = diagonal_from_probes(Z, AZ)
        with np.errstate(divide="ignore", invalid="ignore"):
            rel[j] = se / np.abs(d)
        if criterion == "gcv":
            tr = float(d.sum())
            scale = _target_scale(Y2)           # as _path_scores: no over- or underflow of the squares
            g = float(((AY / scale) ** 2).sum() / m / l / (tr / l) ** 2) if tr > 1e-14 * l else np.inf
            s, t = _gcv_pair(g, scale)
            score[j], tie[j] = float(s), float(t)
            continue
        with np.errstate(divide="ignore", invalid="ignore"):
            R = np.where(d[:, None] > 1e-14, AY / np.maximum(d, 1e-300)[:, None], np.inf)
        if keep is None:
            s, t = loo_scores(R[None], Y2, scoring)
        elif keep.any():
            s, t = loo_scores(R[None][:, keep], Y2[keep], scoring)
        else:                                # no point has a LOO residual: undefined, as in the exact path
            s, t = np.array([-np.inf]), np.array([0.0])
        score[j], tie[j] = s[0], t[0]
    return (score, tie, rel) if return_stderr else (score, tie)


def _tikhonov_residual(W, S, laplacian, tol, max_iter, preconditioner, backend="auto"):
    r"""``residual(Z, alpha)`` of Tikhonov: :math:`Z - F_S` (``alpha > 0``), :math:`T Z / \max_i L_{ii}` at 0 (the
    limit, see :meth:`_KronReduction.scores`), with :math:`TZ = (L F)_S`, F the harmonic extension of Z."""
    from ._graph import harmonic_solution, tikhonov_solution

    L = sp.csr_array(graph_laplacian(as_adjacency(W, dtype=np.float64), laplacian), dtype=np.float64)
    LS = L[S]
    # T in units of the largest diagonal entry of L (T_ii <= L_ii): the LOO and GCV of alpha = 0 do not depend
    # on the scale of T, the rounding thresholds of stochastic_loo_errors are absolute
    unit = 1.0 / max(float(L.diagonal().max(initial=0.0)), 1e-300)

    # the residual lives on the labeled nodes: the solves do not report the label-free components (they came once
    # per alpha and probe block, 10 GraphWarnings in one LaplacianRegularization fit); the fit at the chosen alpha
    # does, once.  An argument, not a warnings filter: that is process-wide and silenced fits in other threads
    def residual(Z, alpha):
        if alpha == 0:
            F = harmonic_solution(W, S, Z, laplacian=laplacian, tol=tol, max_iter=max_iter,
                                  preconditioner=preconditioner, backend=backend, _warn_label_free=False)
            return (LS @ F) * unit
        F = tikhonov_solution(W, S, Z, alpha=alpha, laplacian=laplacian, tol=tol, max_iter=max_iter,
                              preconditioner=preconditioner, backend=backend, _warn_label_free=False)
        return Z - F[S]

    return residual


def _informed_labels(W, S):
    """Mask of the labeled nodes S that share their component (weak links cut, as the solvers do) with another
    labeled node: the others have no leave-one-out residual under Tikhonov / harmonic fits."""
    from scipy.sparse import csgraph

    from .._core.labels import weak_link_split

    _, comp = csgraph.connected_components(sp.csr_array(weak_link_split(W)[0]), directed=False)
    return np.bincount(comp[S], minlength=comp.max() + 1)[comp[S]] > 1


def tikhonov_stochastic_errors(W: Any, labeled: Any, Y: Any, alphas: Any, *, laplacian: str = "combinatorial",
                               criterion: str = "loo", scoring: str = "mse", n_probes: int = 64,
                               random_state: Any = 0, tol: float = 1e-8, max_iter: Optional[int] = None,
                               preconditioner: Any = "auto", backend: str = "auto",
                               loo_rows: Any = None) -> Tuple[np.ndarray, np.ndarray]:
    r"""Matrix-free LOO (or GCV) scores of :func:`~graphrkhs.tikhonov_solution` (:func:`stochastic_loo_errors`).

    One block solve of :math:`(J + \mu L)` with m + p right-hand sides per
    ``alpha`` (AMG-preconditioned block CG above ``DIRECT_MAX_NODES``
    nodes), never an :math:`l \times l` matrix: for label sets above
    ``STOCHASTIC_MIN_LABELS``.  ``alpha = 0`` scores the harmonic solution
    (one harmonic solve).  Cost: ``len(alphas) * (m + p) / m`` fixed-alpha
    fits.  Same parameters as :func:`tikhonov_path_errors`, plus those of the
    probes and of the solves (``backend`` as in :func:`~graphrkhs.tikhonov_solution`).

    Returns
    -------
    scores, tie_break : ndarrays of shape (len(alphas),)
    """
    check_option(laplacian, "laplacian", ("combinatorial", "normalized"))
    check_backend(backend)
    W = as_adjacency(W, dtype=np.float64)
    S = _check_labeled_index(labeled, W.shape[0])
    given, alphas = alphas, _float_axis(alphas)
    if alphas.ndim != 1 or alphas.size == 0 or not (np.isfinite(alphas).all() and (alphas >= 0).all()):
        raise ValueError(f"alphas must be a non-empty 1-D sequence of finite numbers >= 0; got {given!r}.")
    _probe_memory_guard(n_probes, W.shape[0], Y)     # the solves run on every node
    residual = _tikhonov_residual(W, S, laplacian, tol, max_iter, preconditioner, backend)
    return stochastic_loo_errors(residual, Y, [{"alpha": float(a)} for a in alphas], n_probes=n_probes,
                                 random_state=random_state, criterion=criterion, scoring=scoring,
                                 keep=_informed_labels(W, S), loo_rows=loo_rows)


#: The default grid of the matrix-free Tikhonov selection: every other point of ``TIKHONOV_ALPHAS``
#: (each point is a block solve there, not an O(l^2) update).
TIKHONOV_ALPHAS_STOCHASTIC = np.concatenate([[0.0], np.geomspace(1e-4, 1e3, 8)])


def _tikhonov_stochastic_select(W, labeled, Y, alphas, *, laplacian, criterion, scoring, extend, max_extensions,
                                tol, max_iter, preconditioner, n_probes, random_state, backend="auto",
                                loo_rows=None):
    from ._graph import tikhonov_solution

    if isinstance(random_state, (bool, np.bool_)) or not isinstance(random_state, (numbers.Integral, np.integer)):
        # one set of probes for the whole (extended) grid: each evaluation draws them again from this seed
        # (a Generator itself would give the points of an extension other probes than the first grid's; so did
        # a legacy RandomState and None, which only the Generator case caught).  check_random_state refuses a
        # bool or another type here, before any solve
        random_state = int(check_random_state(random_state).integers(2 ** 63 - 1))
    W = as_adjacency(W, dtype=np.float64)
    S = _check_labeled_index(labeled, W.shape[0])
    Y2 = _as_targets(Y, S.size)
    _probe_memory_guard(n_probes, W.shape[0], Y2)    # the solves run on every node
    residual = _tikhonov_residual(W, S, laplacian, tol, max_iter, preconditioner, backend)
    keep = _informed_labels(W, S)
    cache: Dict[float, Tuple[float, float]] = {}

    constant = laplacian == "combinatorial" and constant_up_to_rounding(Y2)     # as in select_tikhonov_alpha

    def evaluate(alpha):
        if constant:
            return _constant_scores(alpha, scoring)
        new = [float(a) for a in alpha if float(a) not in cache]     # an extension re-solves nothing
        if new:
            s, t = stochastic_loo_errors(residual, Y2, [{"alpha": a} for a in new], n_probes=n_probes,
                                         random_state=random_state, criterion=criterion, scoring=scoring,
                                         keep=keep, loo_rows=loo_rows)
            cache.update({a: (si, ti) for a, si, ti in zip(new, s, t)})
        return (np.array([cache[float(a)][0] for a in alpha]), np.array([cache[float(a)][1] for a in alpha]))

    res = select_grid(evaluate, {"alpha": alphas}, extend=("alpha",) if extend else (),
                      max_extensions=max_extensions, criterion=criterion + "-stochastic")
    F = tikhonov_solution(W, S, Y2, alpha=res.best_params["alpha"], laplacian=laplacian, tol=tol,
                          max_iter=max_iter, preconditioner=preconditioner, backend=backend)
    return F, res


__all__ += ["stochastic_loo_errors", "tikhonov_stochastic_errors"]


def _graph_kernel_residual(W, S, kernel, laplacian, tol, max_iter):
    r"""``residual(Z, alpha)`` of graph kernel ridge: :math:`(I - H)Z = \mu(\Phi_{SS} + \mu I)^{-1}Z = \mu\beta`,
    :math:`\beta` by matrix-free CG (each product one Chebyshev pass; :func:`~graphrkhs.graph_kernel_ridge`)."""
    from ..kernels import GraphKernel
    from ..spectral.filters import default_kernel
    from ._graph import graph_kernel_ridge

    if isinstance(W, GraphKernel):
        K = W
    else:
        L = graph_laplacian(as_adjacency(W, dtype=np.float64), laplacian, dtype=np.float64)
        K = GraphKernel(L, kernel if kernel is not None else default_kernel(), input="laplacian")

    # only beta (on S) is used: the solves do not report the label-free components (they came once per alpha and
    # probe block, 12 GraphWarnings in one GraphKernelRidgeRegressor fit); the fit at the chosen alpha does, once.
    # An argument, not a warnings filter: that is process-wide and silenced fits in other threads
    def residual(Z, alpha):
        _, beta = graph_kernel_ridge(K, S, Z, alpha=alpha, method="cg", tol=tol, max_iter=max_iter,
                                     return_coef=True, _warn_label_free=False)
        return alpha * beta.reshape(Z.shape)

    return K, residual


def graph_kernel_ridge_stochastic_errors(W: Any, labeled: Any, Y: Any, alphas: Any, kernel: Optional[Any] = None, *,
                                         laplacian: str = "normalized", unpenalized: Optional[Any] = None,
                                         criterion: str = "loo", scoring: str = "mse", n_probes: int = 64,
                                         random_state: Any = 0, tol: float = 1e-8,
                                         max_iter: Optional[int] = None,
                                         loo_rows: Any = None) -> Tuple[np.ndarray, np.ndarray]:
    r"""Matrix-free LOO (or GCV) scores of :func:`~graphrkhs.graph_kernel_ridge` (:func:`stochastic_loo_errors`).

    :math:`(I - H) Z = \mu (\Phi_{SS} + \mu I)^{-1} Z` by block CG whose
    products are Chebyshev passes of :math:`\Phi = \varphi(L)` (memory
    :math:`O(n (m + p))`, never the :math:`n \times l` block of columns):
    for label sets above ``STOCHASTIC_MIN_LABELS``.  One block solve with
    m + p right-hand sides per ``alpha``.

    Parameters
    ----------
    W : graph or GraphKernel
        A prebuilt :class:`~graphrkhs.GraphKernel` is reused (``kernel`` and
        ``laplacian`` are then ignored).
    labeled, Y, alphas
        As in :func:`ridge_path_errors` (``alphas`` are the ridges :math:`\mu`).
    kernel : filter, optional
        Default :func:`graphrkhs.filters.default_kernel`.
    laplacian : {"normalized", "combinatorial"}
    unpenalized, criterion, scoring, n_probes, random_state, loo_rows
        As in :func:`stochastic_loo_errors` (``np.ones(l)``: a free constant).
    tol, max_iter
        Of the CG solves.

    Returns
    -------
    scores, tie_break : ndarrays of shape (len(alphas),)
    """
    from ..kernels import GraphKernel

    n = W.shape[0] if isinstance(W, GraphKernel) else as_adjacency(W).shape[0]
    S = _check_labeled_index(labeled, n)
    alphas = check_ridges(alphas, "alphas")
    _probe_memory_guard(n_probes, n, Y)              # the solves run on every node
    _, residual = _graph_kernel_residual(W, S, kernel, laplacian, tol, max_iter)
    return stochastic_loo_errors(residual, Y, [{"alpha": float(a)} for a in alphas], n_probes=n_probes,
                                 random_state=random_state, criterion=criterion, scoring=scoring,
                                 unpenalized=unpenalized, loo_rows=loo_rows)


__all__ += ["graph_kernel_ridge_stochastic_errors"]
