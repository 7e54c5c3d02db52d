"""Alias of the inductive semi-supervised estimators (now in :mod:`graphrkhs.estimators`)."""

from .estimators import INDUCTIVE as __all__  # noqa: F401
from .estimators._datadependent import *  # noqa: F401,F403
from .estimators._inductive import *  # noqa: F401,F403

__all__ = list(__all__)
