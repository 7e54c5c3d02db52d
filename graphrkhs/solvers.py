"""Solvers: the numerics behind every learner, as plain functions on arrays,
sparse matrices and operators.

Re-exported from private modules: ``_iterative`` (CG with convergence
checks, AMG preconditioners), ``_solvers_graph`` (transductive graph
problems), ``_solvers_kernel`` (RLS / LapRLS / PRLS / PLapRLS / G-RLS
systems) and ``_solvers_datadep`` (Fredholm and warped-kernel learners).
"""

from ._iterative import *  # noqa: F401,F403
from ._iterative import __all__ as _iterative_all
from ._solvers_graph import *  # noqa: F401,F403
from ._solvers_graph import __all__ as _graph_all
from ._solvers_kernel import *  # noqa: F401,F403
from ._solvers_kernel import __all__ as _kernel_all
from ._solvers_datadep import *  # noqa: F401,F403
from ._solvers_datadep import __all__ as _datadep_all

__all__ = list(_iterative_all) + list(_graph_all) + list(_kernel_all) + list(_datadep_all)
