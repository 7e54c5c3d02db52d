"""Alias of :mod:`graphrkhs.spectral.filters` (the spectral response families)."""

from .spectral.filters import *  # noqa: F401,F403
from .spectral.filters import __all__  # noqa: F401
