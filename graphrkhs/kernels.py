"""Kernels: graph kernels phi(L) as operators, point-cloud kernels k(x, z) and
data-dependent kernels (Fredholm, warped, G-RLS construction).

The implementations live in private modules and are re-exported here:
``_graph_kernel`` (GraphKernel), ``_pointcloud`` (gaussian/heat, linear,
polynomial kernels) and ``_datadependent`` (FredholmKernel, WarpedKernel).
"""

from ._graph_kernel import *  # noqa: F401,F403
from ._graph_kernel import __all__ as _graph_all
from ._pointcloud import *  # noqa: F401,F403
from ._pointcloud import __all__ as _pointcloud_all
from ._datadependent import *  # noqa: F401,F403
from ._datadependent import __all__ as _datadependent_all

__all__ = list(_graph_all) + list(_pointcloud_all) + list(_datadependent_all)
