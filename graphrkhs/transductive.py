"""Alias of the transductive estimators (now in :mod:`graphrkhs.estimators`)."""

from .estimators._mbo import *  # noqa: F401,F403
from .estimators._mbo import __all__ as _mbo_all
from .estimators._transductive import *  # noqa: F401,F403
from .estimators._transductive import __all__ as _transductive_all

__all__ = list(_transductive_all) + list(_mbo_all)
