r"""``"auto"`` parameters of the estimators: one rule, on the solver layer's selection engine.

A tunable parameter (``alpha``, ``gamma_A``, ``gamma_I``, ``sigma``) takes

* ``"auto"`` (the default): the engine's default grid, chosen by exact
  leave-one-out on the labeled points (:mod:`graphrkhs.solvers._selection`),
  extended geometrically (at most twice) when the choice sits at its edge;
* a sequence of values: one's own grid, scored the same way, not extended
  (a :class:`~graphrkhs.SelectionWarning` says when the choice is at its edge);
* a number: that value, no selection.

The values used are the fitted attributes ``alpha_``, ``sigma_``, ... and the
scores of the grid are ``cv_results_`` (scikit-learn's layout: ``params``,
``param_<name>``, ``mean_test_score`` (minus the LOO mean squared error,
higher is better), ``rank_test_score``).  Inside scikit-learn's
``GridSearchCV`` pass numbers (the outer search then does the selection).
"""

import numpy as np

from .._core.validation import Interval, Options

__all__ = []

AUTO = "auto"
#: The constraint of a tunable positive parameter.
TUNABLE_POSITIVE = [Interval("real", 0, None, closed="neither"), Options(AUTO), "array-like"]
TUNABLE_NONNEG = [Interval("real", 0, None), Options(AUTO), "array-like"]
#: Fewer labeled points than this: LOO is meaningless, the fallback values are used.
MIN_LABELS = 3
#: Widths tried for ``sigma="auto"``, relative to the median pairwise distance.
WIDTH_FACTORS = np.geomspace(0.25, 2.0, 7)


def grid_of(value, default, name, *, allow_zero=False):
    """``(grid, extend)`` of a tunable parameter, or ``(None, False)`` for a fixed number."""
    if isinstance(value, str):
        return np.asarray(default, dtype=np.float64), True
    a = np.asarray(value, dtype=np.float64)
    if a.ndim == 0:
        return None, False
    if a.ndim != 1 or a.size == 0 or not np.isfinite(a).all() or (a < 0).any() or (not allow_zero and (a == 0).any()):
        raise ValueError(f"{name}: a grid must be a non-empty 1-D sequence of {'non-negative' if allow_zero else 'positive'} "
                         f"finite numbers; got {value!r}.")
    return np.unique(a), False


def is_tuned(value):
    return isinstance(value, str) or np.ndim(value) == 1

#: The constraint of ``fit_intercept``.
FIT_INTERCEPT = ["boolean", Options(AUTO)]


def free_constant(estimator):
    """Whether the estimator's constant is unpenalized: ``fit_intercept``, "auto" meaning "for regressors"."""
    from sklearn.base import RegressorMixin

    fi = getattr(estimator, "fit_intercept", False)     # learners without the parameter: no free constant
    return isinstance(estimator, RegressorMixin) if isinstance(fi, str) else bool(fi)
