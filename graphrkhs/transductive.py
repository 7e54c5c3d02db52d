"""Alias of the transductive estimators (now in :mod:`graphrkhs.estimators`)."""

from .estimators._transductive import *  # noqa: F401,F403
from .estimators._transductive import __all__  # noqa: F401
