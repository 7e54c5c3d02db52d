"""Spectral responses phi(lambda) defining graph kernels Phi = phi(L).

(Filled in by the spectral-filters issue.)
"""

__all__ = []
