"""Solvers: the numerics behind every learner, as plain functions on arrays,
sparse matrices and operators.

Public API
----------
harmonic_solution, tikhonov_solution, poisson_learning, graph_kernel_ridge, graph_kernel_ridge_loo,
graph_kernel_columns
    Transductive graph problems (:mod:`graphrkhs.solvers._graph`).
graph_tv, incidence_matrix, TVResult
    Graph total variation (:mod:`graphrkhs.solvers._tv`).
rls_fit, laprls_fit, prls_fit, plaprls_fit, grls_fit, grls_fit_constructed, graph_penalty, consistency_grams
    The inductive methods' systems (:mod:`graphrkhs.solvers._kernel`).
rls_coefficients, rls_loo_error, fredholm_rls, warped_rls, KernelExpansion
    Data-dependent kernel learners (:mod:`graphrkhs.solvers._datadependent`).
size_constrained_assignment, class_sizes, poisson_mbo, volume_mbo, cut_ssl
    Class sizes: the size-constrained assignment (auction), the MBO schemes and CutSSL
    (:mod:`graphrkhs.solvers._mbo`).
nystrom_laprls_fit, nystrom_plaprls_fit, nystrom_consistency_grams, select_nystrom_laprls, select_laprls_lowrank
    Low-rank (Nystrom) paths of the inductive learners (:mod:`graphrkhs.solvers._lowrank`).
propose_labels
    Active learning: the next nodes to label (:mod:`graphrkhs.solvers._active`).
select_ridge_alpha, select_tikhonov_alpha, select_laprls_gammas, select_grid, GridResult,
ridge_path_errors, tikhonov_path_errors, laprls_grid_errors, hat_matrix_errors, kfold_splits, kfold_scores,
prls_loo_errors, select_prls_gamma, ManifoldRidgePath, select_manifold_gammas, graph_cut_choice
    Model selection: exact LOO / GCV along shared factorizations, k-fold CV,
    self-extending grids (:mod:`graphrkhs.solvers._selection`).

Return convention
-----------------
Every solver function returns its solution arrays: node values for the graph
solvers (``F = harmonic_solution(...)``, ``F = graph_tv(...)``); coefficients,
followed by the unpenalized coefficients where the method has them
(``c = rls_fit(...)``, ``alpha = laprls_fit(...)``, ``alpha, beta =
prls_fit(...)`` / ``plaprls_fit(...)``, ``c, beta = grls_fit(...)``).
Diagnostics come only with ``return_info=True``, appended last
(``alpha, info = laprls_fit(..., return_info=True)``; ``F, result =
graph_tv(..., return_info=True)`` with the :class:`TVResult` for warm starts).
Extra solution arrays asked for by a flag precede the diagnostics
(``F, beta = graph_kernel_ridge(..., return_coef=True)``).  The exceptions
return objects that are themselves the solution: ``fredholm_rls`` /
``warped_rls`` a callable :class:`KernelExpansion`, and
``grls_fit_constructed`` the paper's ``(alpha_tilde, c_tilde, rest)``.

Also re-exported here, from the layers below: ``conjugate_gradient``,
``amg_preconditioner``, ``CGResult`` and the leave-one-out engine
``KernelRidgePath``, ``loo_residuals``, ``gcv_scores``, ``loo_predictions``
(shared linear algebra, :mod:`graphrkhs._core.loo`), ``KernelOperator`` and ``kernel_cg`` (kernels),
``unlabeled_components`` (graphs).
"""

from .._core.cg import CGResult, amg_preconditioner, conjugate_gradient
from .._core.config import DENSE_CACHE_BYTES
from .._core.loo import KernelRidgePath, gcv_scores, loo_predictions, loo_residuals
from ..graphs import unlabeled_components
from ..kernels import KernelOperator, kernel_cg
from ._active import *  # noqa: F401,F403
from ._active import __all__ as _active_all
from ._datadependent import *  # noqa: F401,F403
from ._datadependent import __all__ as _datadep_all
from ._graph import *  # noqa: F401,F403
from ._graph import __all__ as _graph_all
from ._kernel import *  # noqa: F401,F403
from ._kernel import __all__ as _kernel_all
from ._kernel import INTEGRAL_OPERATORS, SOLVERS  # noqa: F401
from ._lowrank import *  # noqa: F401,F403
from ._lowrank import __all__ as _lowrank_all
from ._lowrank import LOWRANK_MIN_N  # noqa: F401
from ._selection import *  # noqa: F401,F403
from ._selection import __all__ as _selection_all
from ._selection import (MIN_LOO_LABELS, STOCHASTIC_MIN_LABELS, TIKHONOV_ALPHAS, class_loo_rows,  # noqa: F401
                         centred_loo_residuals, held_selection_warnings, release_selection_warnings,
                         report_grid_edge)
from ._tv import *  # noqa: F401,F403
from ._tv import __all__ as _tv_all
from ._tv import KERNEL_TV_MAX_ITER, TV_TOL  # noqa: F401
from ._mbo import *  # noqa: F401,F403
from ._mbo import __all__ as _mbo_all

__all__ = (
    ["conjugate_gradient", "amg_preconditioner", "CGResult", "loo_predictions", "loo_residuals", "gcv_scores",
     "KernelRidgePath", "KernelOperator",
     "kernel_cg", "unlabeled_components", "DENSE_CACHE_BYTES"]
    + list(_graph_all) + list(_tv_all) + list(_kernel_all) + list(_datadep_all) + list(_active_all)
    + list(_selection_all) + list(_mbo_all) + list(_lowrank_all)
)
