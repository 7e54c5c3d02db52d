r"""Spectral: responses :math:`\varphi(\lambda)` and the evaluation of :math:`\varphi(L) X`.

Public API
----------
filters
    The spectral response families (:mod:`graphrkhs.spectral.filters`, also
    :mod:`graphrkhs.filters`).
lmax
    A guaranteed upper bound on the largest eigenvalue (the Chebyshev interval).
chebyshev_coefficients, chebyshev_order, chebyshev_filter
    Chebyshev approximation with error control.
lanczos_filter, exact_filter
    Lanczos evaluation and the dense eigendecomposition oracle.
"""

from . import filters
from ._chebyshev import *  # noqa: F401,F403
from ._chebyshev import __all__ as _chebyshev_all
from ._lanczos import *  # noqa: F401,F403
from ._lanczos import __all__ as _lanczos_all
from ._lmax import *  # noqa: F401,F403
from ._lmax import __all__ as _lmax_all

__all__ = list(_chebyshev_all) + list(_lanczos_all) + list(_lmax_all)
