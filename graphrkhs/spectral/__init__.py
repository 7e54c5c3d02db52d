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

Every function here takes a Laplacian L (sparse, dense or a LinearOperator),
not a graph: given a :class:`pygsp.graphs.Graph` or :class:`networkx.Graph`
object it raises a ``TypeError`` asking for ``graphrkhs.laplacian(G, kind)``,
because the kind of Laplacian (and with it the spectrum and ``lmax``) is the
caller's choice.  :class:`graphrkhs.GraphKernel` takes any graph form.

Building blocks (public here, not in ``graphrkhs.__all__``)
-----------------------------------------------------------
as_filter, as_filter_bank, check_filter_options, is_symmetric, resolve_lmax,
chebyshev_plan, chebyshev_apply, lanczos_apply, laplacian_null_space, exact_eigh, DEFAULT_MAX_ORDER, EXACT_MAX_NODES
    A "filter plan": set up once, apply many times
    (:mod:`graphrkhs.spectral._plan`; used by :class:`graphrkhs.GraphKernel`).
"""

from . import filters
from ._chebyshev import *  # noqa: F401,F403
from ._chebyshev import __all__ as _chebyshev_all
from ._lanczos import *  # noqa: F401,F403
from ._lanczos import __all__ as _lanczos_all
from ._lmax import *  # noqa: F401,F403
from ._lmax import __all__ as _lmax_all
from ._plan import *  # noqa: F401,F403
from ._plan import __all__ as BUILDING_BLOCKS  # noqa: F401

__all__ = list(_chebyshev_all) + list(_lanczos_all) + list(_lmax_all)
