"""Evaluation of phi(L) X: Chebyshev, Lanczos and exact (dense) filters.

(Filled in by the spectral-filters issue.)
"""

__all__ = []
