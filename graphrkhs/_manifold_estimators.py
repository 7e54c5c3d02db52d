"""(Filled in by a later issue; re-exported by graphrkhs.semisupervised.)"""

__all__ = []
