"""Inductive semi-supervised estimators on point clouds (fit on labeled and
unlabeled rows, predict anywhere).

Re-exported from ``_manifold_estimators`` (RLS, LapRLS, PRLS, PLapRLS, GRLS)
and ``_datadependent_estimators`` (Fredholm, warped-kernel learners).
"""

from ._manifold_estimators import *  # noqa: F401,F403
from ._manifold_estimators import __all__ as _manifold_all
from ._datadependent_estimators import *  # noqa: F401,F403
from ._datadependent_estimators import __all__ as _datadep_all

__all__ = list(_manifold_all) + list(_datadep_all)
