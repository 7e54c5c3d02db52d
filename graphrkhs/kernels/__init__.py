"""Kernels: graph kernels phi(L) as operators, point-cloud kernels k(x, z),
data-dependent kernels (Fredholm, warped, the G-RLS construction) and kernel
matrices as operators.

Public API
----------
GraphKernel
    :math:`\\Phi = \\varphi(L)` as a LinearOperator (:mod:`graphrkhs.kernels._graph`).
pairwise_kernel, gaussian_kernel, heat_kernel, linear_kernel, polynomial_kernel, ...
    Point-cloud kernels and the G-RLS construction (:mod:`graphrkhs.kernels._pointcloud`).
FredholmKernel, WarpedKernel, default_sigma
    Data-dependent kernels (:mod:`graphrkhs.kernels._datadependent`).
NystromFeatures
    The Nystrom low-rank factor of a point-cloud kernel (:mod:`graphrkhs.kernels._nystrom`).
KernelOperator, kernel_cg
    Kernel matrices applied blockwise and CG on kernel systems (:mod:`graphrkhs.kernels._operator`).
"""

from ._datadependent import *  # noqa: F401,F403
from ._datadependent import __all__ as _datadependent_all
from ._datadependent import INNER_APPROXIMATIONS  # noqa: F401
from ._graph import *  # noqa: F401,F403
from ._graph import __all__ as _graph_all
from ._nystrom import *  # noqa: F401,F403
from ._nystrom import __all__ as _nystrom_all
from ._nystrom import LANDMARKS, NYSTROM_AUTO_MIN_N, NYSTROM_MAX_COMPONENTS, NYSTROM_TOL  # noqa: F401
from ._operator import *  # noqa: F401,F403
from ._operator import __all__ as _operator_all
from ._pointcloud import *  # noqa: F401,F403
from ._pointcloud import __all__ as _pointcloud_all
from ._pointcloud import BLOCK_BYTES  # noqa: F401

__all__ = list(_graph_all) + list(_pointcloud_all) + list(_datadependent_all) + list(_operator_all) + list(_nystrom_all)
