"""(Filled in by a later issue; re-exported by graphrkhs.kernels.)"""

__all__ = []
