"""(Filled in by a later issue; re-exported by graphrkhs.solvers.)"""

__all__ = []
