r"""Learners on data-dependent kernels, as plain functions.

Regularized least squares (RLS) on a kernel :math:`\kappa` over the l labeled
points minimizes :math:`\frac1l \sum_{s=1}^l (y_s - f(x_s))^2 + \alpha \|f\|_\kappa^2`;
its solution is :math:`f = \sum_s c_s \kappa(\cdot, x_s)` with

.. math:: c = (K_{SS} + \alpha\, l\, I)^{-1} y.

With the Fredholm kernel this is Fredholm learning with the square loss (Que,
Belkin & Wang 2014, Eq. 3); with the warped kernel it is LapRLS (Sindhwani,
Niyogi & Belkin 2005).  The hinge loss is scikit-learn's ``SVC`` on the
precomputed kernel with :math:`C = 1 / (2 \alpha l)` (the same objective with the
hinge in place of the square).
"""

from typing import Any, Callable

import numpy as np

from ..kernels import FredholmKernel, WarpedKernel
from .._core.labels import _check_labeled_index, _check_targets as _check_labeled_targets
from .._core.linalg import symmetry_gap
from .._core.loo import KernelRidgePath, check_ridges, check_symmetric_kernel
from .._core.validation import check_matrix, check_points, check_scalar
from .._core.types import ArrayLike, Indices
from ._kernel import rls_fit

__all__ = ["rls_coefficients", "rls_loo_error", "fredholm_rls", "warped_rls", "KernelExpansion"]


def _check_targets(Y, l):
    """Float64 targets of the l labeled points, in Y's own shape (checked by the one label module)."""
    Y2, was_1d, _ = _check_labeled_targets(Y, l)
    return Y2[:, 0] if was_1d else Y2


#: A Gram matrix whose asymmetry exceeds this many ulps of its largest entry is solved as computed (see
#: :func:`rls_coefficients`).
ROUNDING_ASYMMETRY = 1e3


def rls_coefficients(K: ArrayLike, Y: ArrayLike, alpha: float) -> np.ndarray:
    r"""Coefficients :math:`c = (K + \alpha l I)^{-1} Y` of kernel RLS on l labeled points.

    Parameters
    ----------
    K : array (l, l)
        Symmetric positive semidefinite kernel matrix of the labeled points.
    Y : array (l,) or (l, m)
        Targets (one column per class for one-vs-rest classification).
    alpha : float > 0
        Ridge weight of the objective :math:`\frac1l\sum (y - f)^2 + \alpha \|f\|^2`.

    Returns
    -------
    ndarray like Y (float64).

    Notes
    -----
    :func:`~graphrkhs.rls_fit` in float64 on the symmetrized K, with
    ``alpha > 0`` required (a data-dependent kernel is only positive
    semidefinite); a ``LinAlgError`` when :math:`K + \alpha l I` is not
    positive definite (an indefinite inner kernel).  A K asymmetric above
    rounding (more than ``ROUNDING_ASYMMETRY`` = 1000 ulps of its largest
    entry: a data-dependent Gram whose columns carry their own solve errors,
    e.g. :class:`~graphrkhs.WarpedKernel` at a large :math:`\gamma_I/\gamma_A`)
    is then solved as computed (LU): the fitted function is evaluated with
    those columns, and the coefficients of the symmetrized copy, of order
    :math:`1/(\alpha l)`, turned its asymmetry into an offset of every value.
    A float32 K is positive semidefinite only to its own rounding: when the
    factorization fails at an alpha below :math:`\mathrm{eps}_{32}\max|K|`,
    alpha is raised to that value (the ridge :math:`\alpha l` to the rounding
    level :math:`l\,\mathrm{eps}_{32}\max|K|`).

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import rls_coefficients
    >>> np.round(rls_coefficients(np.eye(2), np.array([1.0, -1.0]), alpha=0.5), 6)
    array([ 0.5, -0.5])
    """
    alpha = check_scalar(alpha, "alpha", low=0, low_inclusive=False)
    K = check_matrix(K, "K", square=True)
    Y = _check_targets(Y, K.shape[0])
    # float64 and exactly symmetric (a data-dependent Gram matrix is symmetric to rounding only);
    # the copy is ours, so the one RLS solve may factor it in place.
    # rounding is that of K's own dtype (a float32 Gram is symmetric to float32 rounding only)
    eps = np.finfo(K.dtype if K.dtype.kind == "f" else np.float64).eps
    K = K.astype(np.float64)
    gap, scale = symmetry_gap(K, "K")
    asymmetric = gap > ROUNDING_ASYMMETRY * eps * scale
    try:
        C = rls_fit((K + K.T) / 2, Y, alpha, overwrite_K=True)      # also the positive-definiteness check
    except np.linalg.LinAlgError:
        floor = float(eps * np.abs(K).max())
        if not (eps > np.finfo(np.float64).eps and alpha < floor):
            raise
        # a Gram computed in float32 is positive semidefinite to its own rounding only, about
        # l eps_32 max|K|: a ridge below that is no ridge (the warped kernel on float32 points at the
        # selected gamma_A = 1e-10 failed here), so it is raised to that level
        alpha = floor
        C = rls_fit((K + K.T) / 2, Y, alpha)
    if asymmetric:
        K.flat[::K.shape[0] + 1] += alpha * K.shape[0]
        C = np.linalg.solve(K, np.asarray(Y, dtype=np.float64))
    return C


def rls_loo_error(K: ArrayLike, Y: ArrayLike, alphas: ArrayLike) -> np.ndarray:
    r"""Leave-one-out mean squared error of kernel RLS for each ridge weight, in closed form.

    With the hat matrix :math:`H = K (K + \alpha l I)^{-1}`, the residual at labeled point
    i of the fit without i is :math:`(y_i - \hat y_i) / (1 - H_{ii})` (the classical
    identity for linear smoothers); one eigendecomposition of K serves every alpha.
    A thin wrapper of the leave-one-out engine
    (:class:`~graphrkhs.KernelRidgePath` with the ridges :math:`\alpha l`).
    This is the tuning rule of the benchmarks and examples: it uses the labeled
    points only.  (``l`` stays the full labeled count in every held-out fit.)

    Parameters
    ----------
    K : array (l, l)
        Symmetric PSD kernel of the labeled points (symmetric to ``PSD_RTOL`` = 1e-6 of its largest
        entry, else ``ValueError``: the engine reads :math:`(K + K^T)/2`).
    Y : array (l,) or (l, m)
        m columns: the mean over all l m entries, in the targets' own units
        (:mod:`graphrkhs.solvers._selection`, "Several target columns").
    alphas : sequence of float > 0

    Returns
    -------
    ndarray of shape (len(alphas),)
        Mean over points and columns of the squared LOO residuals.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import rls_loo_error
    >>> K = np.ones((3, 3)); y = np.array([1.0, 1.0, 1.0])
    >>> bool(rls_loo_error(K, y, [1e-6])[0] < 1e-10)
    True
    """
    K = check_matrix(K, "K", square=True)
    # the engine reads (K + K^T) / 2: np.triu(K) was scored silently as another kernel
    check_symmetric_kernel(K, "K")
    Y = _check_targets(Y, K.shape[0])
    alphas = check_ridges(alphas, "alphas")
    # The ridge of (K + alpha l I): the engine works with the weight as it enters the system.
    residuals = KernelRidgePath(K).loo_residuals(Y, alphas * K.shape[0])
    return np.mean(residuals ** 2, axis=(1, 2))


class KernelExpansion:
    r"""A fitted :math:`f(x) = \sum_s c_s \kappa(x, x_s)` on a data-dependent kernel.

    Attributes
    ----------
    kernel : FredholmKernel or WarpedKernel
    labeled_points : ndarray (l, d)
    right : the kernel's cached right factor for the labeled points
    coef : ndarray (l,) or (l, m)
    """

    def __init__(self, kernel, labeled_points, right, coef):
        self.kernel = kernel
        self.labeled_points = labeled_points
        self.right = right
        self.coef = coef

    def gram(self, A: ArrayLike) -> np.ndarray:
        """:math:`\\kappa(A, X_S)` of shape (len(A), l), reusing the cached solve."""
        return self.kernel(A, self.labeled_points, right=self.right)

    def __call__(self, A: ArrayLike) -> np.ndarray:
        """:math:`f(A)`, shape (len(A),) or (len(A), m)."""
        return self.gram(A) @ self.coef


def _fit_expansion(make_kernel: Callable, X, labeled, Y, ridge):
    """RLS on a data-dependent kernel built on all points X: the one body of fredholm_rls and warped_rls."""
    X = check_points(X, "X", min_samples=2)
    labeled = _check_labeled_index(labeled, X.shape[0])
    Y = _check_targets(Y, labeled.size)
    kernel = make_kernel(X)
    XS = kernel.X[labeled]
    right = kernel.right_factor(XS)
    coef = rls_coefficients(kernel(XS, XS, right=right), Y, ridge)
    return KernelExpansion(kernel, XS, right, coef)


def fredholm_rls(X: ArrayLike, labeled: Indices, Y: ArrayLike, *, alpha: float = 1e-2,
                 **kernel_options: Any) -> "KernelExpansion":
    r"""Fredholm learning with the square loss (Que, Belkin & Wang 2014, Eq. 3).

    Builds :class:`FredholmKernel` on all points X and solves
    :math:`c = (K_F[S, S] + \alpha l I)^{-1} Y`; the classifier is
    :math:`c(x) = \sum_s k_F(x, x_s) c_s`.

    Parameters
    ----------
    X : array (n, d)
        All points, labeled and unlabeled.
    labeled : array of int (l,) or bool mask (n,)
        The labeled rows.
    Y : array (l,) or (l, m)
        Their targets.
    alpha : float > 0, default=1e-2
        Ridge weight (the paper's :math:`\lambda`, with the loss averaged over the
        labeled points as in their Eq. 3; their closed form (4)-(5) prints
        :math:`\lambda I` for what is :math:`\lambda l I` under that averaging).
    **kernel_options
        Passed to :class:`FredholmKernel` (outer, inner, sigma, sigma_inner,
        normalized, n_neighbors, inner_approximation, ...).

    Returns
    -------
    KernelExpansion

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import fredholm_rls
    >>> X = np.random.default_rng(0).normal(size=(80, 2))
    >>> f = fredholm_rls(X, [0, 1], np.array([1.0, -1.0]), alpha=1e-3, sigma=1.0)
    >>> f(X).shape
    (80,)
    """
    alpha = check_scalar(alpha, "alpha", low=0, low_inclusive=False)
    return _fit_expansion(lambda X: FredholmKernel(X, **kernel_options), X, labeled, Y, alpha)


def warped_rls(X: ArrayLike, labeled: Indices, Y: ArrayLike, *, gamma_A: float = 1e-2, gamma_I: float = 1.0,
               **kernel_options: Any) -> "KernelExpansion":
    r"""RLS with the warped kernel = LapRLS (Sindhwani, Niyogi & Belkin 2005).

    :math:`c = (\tilde K_{SS} + \gamma_A l I)^{-1} Y` with :math:`\tilde k` of
    :class:`WarpedKernel` (:math:`M = \gamma_I / (\gamma_A n^2) L^p`); the function
    :math:`\sum_s c_s \tilde k(\cdot, x_s)` equals the LapRLS solution
    :math:`\sum_{i=1}^n a_i k(\cdot, x_i)`,
    :math:`a = (J K + \gamma_A l I + \frac{\gamma_I l}{n^2} L^p K)^{-1} J y`, everywhere.

    Parameters
    ----------
    X, labeled, Y
        As in :func:`fredholm_rls`.
    gamma_A, gamma_I : float
        LapRLS weights (defaults as in :class:`WarpedKernel`).
    **kernel_options
        Passed to :class:`WarpedKernel`.

    Returns
    -------
    KernelExpansion
        The fitted function (callable on new points, with its ``coef``).

    Examples
    --------
    Two labeled points of opposite signs, sixty points in all; the fitted
    function keeps their signs:

    >>> import numpy as np
    >>> from graphrkhs import warped_rls
    >>> points = np.random.default_rng(0).normal(size=(60, 2))
    >>> f = warped_rls(points, [0, 1], np.array([1.0, -1.0]), gamma_A=1e-3, sigma=1.0, n_neighbors=5)
    >>> values = f(points[:2])
    >>> bool(values[0] > 0 > values[1])
    True
    """
    gamma_A = check_scalar(gamma_A, "gamma_A", low=0, low_inclusive=False)
    return _fit_expansion(lambda X: WarpedKernel(X, gamma_A=gamma_A, gamma_I=gamma_I, **kernel_options),
                          X, labeled, Y, gamma_A)
