"""Command line: ``graphrkhs demo`` and ``graphrkhs label`` (entry point :func:`main`)."""

from ._demo import demo
from ._main import build_parser, main

__all__ = ["main", "build_parser", "demo"]
