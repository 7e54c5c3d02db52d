r"""Solvers of the inductive kernel learners: RLS, LapRLS, PRLS, PLapRLS, G-RLS.

Notation (DESIGN.md, "The math"): n points :math:`x_1..x_n` (labeled and
unlabeled), S the l labeled ones, :math:`J = \mathrm{diag}(1_S)`, Y the (n, k)
target block (zero on unlabeled rows; one column per one-vs-rest class),
K the kernel Gram matrix, L a graph Laplacian (or its power), :math:`\Psi`
an (n, o) basis of functions left unpenalized (constants by default).

Every solver is a plain function on arrays (or on a :class:`KernelOperator`
when n is too large for dense matrices) and returns coefficients of the
expansion :math:`f(x) = \sum_i \alpha_i k(x_i, x) + \sum_j \beta_j \psi_j(x)`.

Direct or iterative
-------------------
The n x n systems are solved densely up to ``DIRECT_MAX_N`` = 20000 points
for LapRLS (two n x n arrays, K and the system: 6.4 GB in float64 at
n = 20000; the LU costs :math:`2n^3/3` flops, minutes at n = 20000 on two
cores, while CG needed hundreds of iterations on Fashion-MNIST) and up to
``DIRECT_MAX_N_HEAT`` = 8000 points for PLapRLS (whose dense form needs
:math:`K^2`, an :math:`n^3` product, or the heat penalty as a third array),
and by conjugate gradients above.  The symmetric positive (semi)definite
form of LapRLS is

.. math:: (K J K + \gamma_A l K + \tfrac{\gamma_I l}{n^2} K L K)\,\alpha = K J y,

i.e. :math:`K B \alpha = K J y` with the *well-posed* non-symmetric factor
:math:`B = N K + \gamma_A l I`, :math:`N = J + \tfrac{\gamma_I l}{n^2} L`.  Its
eigenvalues are those of :math:`K^{1/2} N K^{1/2} + \gamma_A l I` (real,
>= :math:`\gamma_A l`), so B has a unique solution, while :math:`K B` inherits
K's numerical singularity (Gaussian kernels).  Hence

* direct: LU of B (not Cholesky of :math:`KB`, whose condition number is the
  product of K's and B's);
* iterative: CG on :math:`KB\alpha = KJy` *preconditioned by* :math:`K^{-1}`.
  Because the right-hand side is K times :math:`Jy`, this preconditioned CG can
  be run carrying the pair :math:`(\rho, K\rho)` of the non-symmetric residual
  :math:`\rho = Jy - B\alpha` and never applies :math:`K^{-1}`: it is CG on B
  in the K-inner product (:func:`kernel_cg`), one kernel product per
  iteration, stopped on :math:`\|\rho\| \le` ``tol`` :math:`\|Jy\|`.  Its
  convergence is governed by the spectrum of :math:`K^{1/2} N K^{1/2} + \gamma_A l I`,
  which is clustered at :math:`\gamma_A l` when K's spectrum decays.

Kernel products on n points are done with a dense cached Gram matrix when it
fits in ``DENSE_CACHE_BYTES`` (4 GiB: n = 20000 in float64 is 3.2 GB) and in
row blocks of bounded size otherwise (:class:`KernelOperator`).
"""

import warnings
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from .._core.amg import _check_symmetric_psd_pattern
from .._core.cg import conjugate_gradient
from .._core.loo import PSD_RTOL, check_symmetric_kernel
from .._core.validation import (ConvergenceWarning, check_flag, check_matrix, check_option, check_points, check_scalar,
                                column_scales, memory_guard, numeric_axis, warn)
from .._core.config import DENSE_CACHE_BYTES
from .._core.labels import _check_labeled_index, from_target_units, in_target_units
from .._core.types import ArrayLike, GraphLike, Indices, MatrixLike
from .._core.validation import _as_2d
from .._core.linalg import apply_matrix as _apply, check_solution, dense_matrix as _dense, n_rows as _n_of
from .._core.linalg import guarded_sparse_product, psd_part, psd_solve as _psd_solve, small_dense_threads, symmetry_gap
from .._core.linalg import symmetry_rtol, power_growth_guard, check_power_entries
from .._core.linalg import _relative as _relative_norms
from ..graphs import LAPLACIANS, as_adjacency, laplacian as graph_laplacian
from ..kernels import BLOCK_BYTES, KernelOperator, heat_semigroup, kernel_cg, pairwise_kernel
from ._graph import _check_iterations

__all__ = [
    "graph_penalty",
    "consistency_grams",
    "consistency_grams_widths",
    "rls_fit",
    "laprls_fit",
    "prls_fit",
    "plaprls_fit",
    "grls_fit",
    "grls_fit_constructed",
    "DIRECT_MAX_N",
    "DIRECT_MAX_N_HEAT",
]

DIRECT_MAX_N = 20000
# PLapRLS factors densely up to this size (three n x n arrays, 1.5 GB at n = 8000, and an n^3
# product for K^2 or K N K).  Above it: kernel-preconditioned CG for the empirical operator, and
# plain CG for the heat penalty, whose condition number is K's times B's and which stalls long
# before double precision (see plaprls_fit).
DIRECT_MAX_N_HEAT = 8000
SOLVERS = ("auto", "direct", "cg")
INTEGRAL_OPERATORS = ("heat", "empirical")


# ---------------------------------------------------------------------------
# Kernel operators
# ---------------------------------------------------------------------------


# ---------------------------------------------------------------------------
# Linear algebra helpers
# ---------------------------------------------------------------------------


def graph_penalty(W: GraphLike, laplacian: str = "combinatorial", laplacian_power: int = 1) -> sp.csr_array:
    r"""The symmetric graph penalty matrix :math:`M` with :math:`f^T M f` the smoothness term.

    ``laplacian_power`` p gives :math:`L^p` for the combinatorial and normalized
    Laplacians (Belkin, Niyogi & Sindhwani 2006 use :math:`L^p`, p = 1 by
    default).  The random-walk Laplacian :math:`D^{-1}L` is not symmetric;
    its power made self-adjoint in the degree inner product,
    :math:`D (D^{-1} L)^p`, is used (equal to :math:`D - W` for p = 1), the
    same convention as :class:`~graphrkhs.WarpedKernel`.

    Parameters
    ----------
    W : graph
        Adjacency (anything :func:`~graphrkhs.as_adjacency` takes).
    laplacian : {"combinatorial", "normalized", "randomwalk"}, default="combinatorial"
        Laplacian kind.
    laplacian_power : int >= 1, default=1
        The power p.

    Returns
    -------
    M : scipy.sparse.csr_array, symmetric positive semidefinite.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import graph_penalty
    >>> W = np.array([[0, 1, 0], [1, 0, 1], [0, 1, 0]], dtype=float)
    >>> graph_penalty(W, laplacian_power=2).toarray()
    array([[ 2., -3.,  1.],
           [-3.,  6., -3.],
           [ 1., -3.,  2.]])
    """
    check_option(laplacian, "laplacian", LAPLACIANS)
    power = check_scalar(laplacian_power, "laplacian_power", kind="int", low=1)
    W = as_adjacency(W)
    if laplacian == "randomwalk":
        Lc = graph_laplacian(W, "combinatorial")
        if power > 1:
            # D (D^-1 L)^p = D^(1/2) N^p D^(1/2): entries at least d_min lambda_max(N)^p / n
            d = np.asarray(Lc.diagonal(), dtype=np.float64)
            power_growth_guard(graph_laplacian(W, "normalized"), power, laplacian,
                               scale=float(d[d > 0].min()) if (d > 0).any() else 0.0)
        step = graph_laplacian(W, "randomwalk")
        M = Lc
        for k in range(2, power + 1):
            M = _penalty_power_step(M, step, k, power, laplacian)
        M = sp.csr_array(M)
        return sp.csr_array((M + M.T) * 0.5)  # exact symmetry against rounding
    L = graph_laplacian(W, laplacian)
    if power > 1:
        power_growth_guard(L, power, laplacian)
    M = L
    for k in range(2, power + 1):
        M = _penalty_power_step(M, L, k, power, laplacian)
    return sp.csr_array(M)


def _penalty_power_step(M, L, k, power, kind):
    """``M @ L``, the k-th power of the penalty, after a memory estimate (powers of a sparse L fill in: a k-hop
    pattern, dense n x n on a kNN graph after a few steps; the product was formed unchecked), refused once its
    entries pass 2**1000 (they grow like lambda_max**k: at n = 500, p = 300 the penalty came back all NaN)."""
    M = guarded_sparse_product(M, L, f"the graph penalty L^{k}", "use a smaller laplacian_power.")
    check_power_entries(M, power, kind, k)
    return M


# ---------------------------------------------------------------------------
# PRLS / PLapRLS Gram matrices K, K', K''
# ---------------------------------------------------------------------------

def consistency_grams(XS: ArrayLike, X: Optional[ArrayLike] = None, *, integral_operator: str = "empirical",
                      kernel: Union[str, Callable] = "gaussian", sigma: float = 1.0, m: Optional[int] = None,
                      degree: int = 2, coef0: float = 1.0) -> Tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    r"""The Gram matrices :math:`K, K', K''` of PRLS on the points XS (Yang, King & Lyu 2009).

    :math:`K'_{ij} = \langle K_{x_i}, L_K K_{x_j}\rangle_K` and
    :math:`K''_{ij} = \langle L_K K_{x_i}, L_K K_{x_j}\rangle_K`, so that
    :math:`\|f - L_K f\|_K^2 = \alpha^T (K - 2K' + K'')\alpha` for
    :math:`f = \sum_i \alpha_i K_{x_i}` (their Eq. 9).

    ``integral_operator="heat"`` (their Eq. 16): the Gaussian of width sigma
    is the heat kernel :math:`K_t`, :math:`t = \sigma^2/2`, with a uniform
    density; the semigroup property gives :math:`K' = K_{2t}`,
    :math:`K'' = K_{3t}`.  All three are returned scaled by
    :math:`(4\pi t)^{m/2}` (:func:`~graphrkhs.heat_semigroup`): K is then the
    plain Gaussian and :math:`\gamma\,\|\cdot\|^2` is measured in its RKHS norm,
    which equals the paper's :math:`\gamma_{paper} = \gamma (4\pi t)^{-m/2}`
    (a factor that under/overflows in high dimension).  In high dimension
    :math:`K', K''` are :math:`2^{-m/2}, 3^{-m/2}` times smaller than K: the
    penalty tends to :math:`\|f\|_K^2` and PRLS to RLS with a free constant
    (on sparse one-vs-all tasks it then predicts the majority class, as
    measured on UCI Letter, 16-D); choose ``m`` as the intrinsic dimension.

    ``integral_operator="empirical"``: :math:`L_K` by the empirical measure of
    the n points X (labeled and unlabeled), :math:`(L_K f)(x) = \frac1n \sum_k
    \hat K(x, x_k) f(x_k)`, with the kernel normalized by a scalar,
    :math:`\hat K = K / \kappa`, :math:`\kappa = \frac{1}{n^2}\sum_{k,k'} K(x_k, x_{k'})`,
    so that its mean row mean is 1 (the paper assumes :math:`\int K(x, \cdot)\,dP = 1`).
    Then :math:`K = \hat K_{SS}`, :math:`K' = \hat K_{Sn}\hat K_{nS}/n`,
    :math:`K'' = \hat K_{Sn}\hat K_{nn}\hat K_{nS}/n^2`.  Any kernel works.

    Parameters
    ----------
    XS : array of shape (l, d)
        Points of the expansion (the labeled points for PRLS, all for PLapRLS).
    X : array of shape (n, d), optional
        The points of the empirical measure (default XS); unused by "heat".
    integral_operator : {"empirical", "heat"}, default="empirical"
        The default of the PRLS / PLapRLS estimators too: "heat" degenerates
        in high dimension (its :math:`K', K''` vanish as :math:`2^{-m/2}, 3^{-m/2}`,
        see above), "empirical" works with any kernel and dimension.
    kernel : str or callable, default="gaussian"
        "heat" needs "gaussian" or "heat" (both mean the Gaussian of width sigma here).
    sigma, m, degree, coef0 :
        Kernel parameters (m: heat dimension, default d).

    Returns
    -------
    K, Kp, Kpp : ndarrays of shape (l, l)
    kappa : float
        The normalization (1.0 for "heat"); predictions use :math:`k / \kappa`.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import consistency_grams
    >>> X = np.random.default_rng(0).uniform(size=(30, 1))
    >>> K, Kp, Kpp, kappa = consistency_grams(X, integral_operator="empirical", sigma=0.3)
    >>> P = K - 2 * Kp + Kpp
    >>> bool(np.linalg.eigvalsh(P).min() > -1e-10)                 # a Gram matrix
    True
    """
    check_option(integral_operator, "integral_operator", INTEGRAL_OPERATORS)
    XS = check_points(XS, "XS")
    if integral_operator == "heat":
        if kernel not in ("gaussian", "heat"):
            raise ValueError(
                f"integral_operator='heat' needs kernel='gaussian' (the heat kernel of Eq. 16); got {kernel!r}. "
                "Use integral_operator='empirical' for other kernels."
            )
        K, Kp, Kpp = heat_semigroup(XS, sigma=sigma, m=m)
        return K, Kp, Kpp, 1.0
    X = XS if X is None else check_points(X, "X")
    kw = dict(kernel=kernel, sigma=sigma, degree=degree, coef0=coef0)
    op = KernelOperator(X, **kw, cache_bytes=min(DENSE_CACHE_BYTES, 512 * 2**20))
    kappa = float(op.matmat(np.ones(X.shape[0], dtype=X.dtype)).mean()) / X.shape[0]
    if not np.isfinite(kappa) or kappa <= 0:
        raise ValueError(
            f"integral_operator='empirical' normalizes the kernel by its mean value, which is {kappa:g} here; "
            "use a kernel with positive mean (e.g. 'gaussian')."
        )
    n = X.shape[0]
    KnS = pairwise_kernel(X, XS, **kw) / kappa
    K = pairwise_kernel(XS, None, **kw) / kappa
    Kp = KnS.T @ KnS / n
    Kpp = KnS.T @ (op.matmat(KnS) / kappa) / (n * n)
    return K, (Kp + Kp.T) / 2, (Kpp + Kpp.T) / 2, kappa


#: Largest power p = (sigma_0 / sigma)^2 that :func:`consistency_grams_widths` takes of the base kernel: the
#: power multiplies the relative rounding of an entry by p (2^16 eps ~ 1.5e-11); narrower widths afresh.
_WIDTH_POWER_MAX = 2.0 ** 16


def _entrywise_power(M, p):
    """M ** p entrywise; the square and the fourth power of the width steps 2^(-1/2), 2^-1 without pow()."""
    if abs(p - 1.0) < 1e-12:
        return M
    if abs(p - 2.0) < 1e-12:
        return M * M
    if abs(p - 4.0) < 1e-12:
        M2 = M * M
        return np.multiply(M2, M2, out=M2)
    return np.power(M, p)


def consistency_grams_widths(XS: ArrayLike, X: ArrayLike, sigmas: ArrayLike) -> List[Tuple[np.ndarray, np.ndarray,
                                                                                            np.ndarray, float]]:
    r""":func:`consistency_grams` (empirical operator, Gaussian kernel) for several widths, one distance pass.

    The Gaussian of width :math:`\sigma'` is a power of the one of width
    :math:`\sigma_0` (the widest width):
    :math:`K_{\sigma'} = K_{\sigma_0}^{\,p}`, :math:`p = (\sigma_0/\sigma')^2 \ge 1`
    entrywise, so the :math:`n \times n` and :math:`l \times n` kernel matrices
    are computed once and every other width costs an entrywise power (a square
    and a fourth power for PRLS's width refinement :math:`\sigma\,2^{\pm 1/2}`)
    plus its products.  The base is the widest width because a power
    :math:`p \ge 1` of an entry that underflowed to 0 is 0 at the narrower width
    too (with the middle width as the base, the entries beyond
    :math:`\approx 38.6\,\sigma_0` stayed 0 at the wider widths, where they are
    :math:`e^{-372 p}`: 0.9985 for widths 0.2 and 100, whose K came out 99.7 %
    off).  A power p multiplies the rounding of an entry by p, so widths more than
    ``2**8`` times narrower than the widest (:math:`p > 2^{16}`) are computed
    afresh (an entry :math:`e^{-x}` with x below the rounding of 1 is 1 to any
    power).  Falls back to one :func:`consistency_grams` per width when the
    :math:`n \times n` matrix exceeds ``DENSE_CACHE_BYTES``.

    Parameters
    ----------
    XS : array of shape (l, d)
        Points of the expansion.
    X : array of shape (n, d)
        The points of the empirical measure.
    sigmas : sequence of float > 0

    Returns
    -------
    list of (K, Kp, Kpp, kappa)
        One tuple per width, as :func:`consistency_grams` returns it.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import consistency_grams, consistency_grams_widths
    >>> X = np.random.default_rng(0).uniform(size=(40, 2))
    >>> out = consistency_grams_widths(X[:8], X, [0.2, 0.3])
    >>> ref = consistency_grams(X[:8], X, sigma=0.2)
    >>> all(np.allclose(a, b, rtol=1e-12, atol=0) for a, b in zip(out[0], ref))
    True
    """
    XS, X = check_points(XS, "XS"), check_points(X, "X")
    if XS.shape[1] != X.shape[1]:
        raise ValueError(f"XS and X must have the same number of features; got {XS.shape[1]} and {X.shape[1]}.")
    sig = numeric_axis(sigmas).ravel()      # [nan] for booleans, strings, ragged lists: refused below
    if not sig.size or not (np.isfinite(sig) & (sig > 0)).all():
        raise ValueError(f"sigmas must be a non-empty sequence of positive widths; got {sigmas!r}.")
    n = X.shape[0]
    if n * n * 8 > DENSE_CACHE_BYTES:
        return [consistency_grams(XS, X, sigma=float(sg)) for sg in sig]
    def kernels(width):
        return tuple(np.asarray(pairwise_kernel(A, B, sigma=width), dtype=np.float64)
                     for A, B in ((X, None), (X, XS), (XS, None)))

    # the widest width as the base: p >= 1 below, so that an entry that underflowed in the base is 0 at
    # every other width too (the middle width's underflowed entries read 0 at wider widths, e.g. 0.9985)
    s0 = float(sig.max())
    base = kernels(s0)
    out = []
    for sg in sig:                          # the few widths of a grid
        p = (s0 / float(sg)) ** 2
        # p times the rounding of each entry: far narrower widths afresh
        Knn, KnS, KSS = (_entrywise_power(M, p) for M in base) if p <= _WIDTH_POWER_MAX else kernels(float(sg))
        kappa = float(Knn.sum()) / (n * n)
        if not np.isfinite(kappa) or kappa <= 0:
            raise ValueError(f"the kernel of width {sg:g} has mean value {kappa:g}; the empirical operator "
                             "normalizes by it (choose a wider sigma).")
        KnS = KnS / kappa
        Kp = KnS.T @ KnS / n
        Kpp = KnS.T @ (Knn @ KnS / kappa) / (n * n)
        out.append((KSS / kappa, (Kp + Kp.T) / 2, (Kpp + Kpp.T) / 2, kappa))
    return out


# ---------------------------------------------------------------------------
# RLS
# ---------------------------------------------------------------------------


def rls_fit(K: np.ndarray, Y: ArrayLike, alpha: float, *, overwrite_K: bool = False) -> np.ndarray:
    r"""Regularized least squares (kernel ridge) with the :math:`1/l` loss scaling.

    .. math::

        \min_{f \in H_K} \frac1l \sum_{i=1}^l (y_i - f(x_i))^2 + \alpha \|f\|_K^2
        \quad\Rightarrow\quad f = \sum_i c_i K_{x_i},\ (K + \alpha l I)\,c = y

    (Belkin, Niyogi & Sindhwani 2006, Eq. 9; scikit-learn's ``KernelRidge``
    with ``alpha`` :math:`= \alpha l`).  Cholesky of the SPD matrix; for
    ``alpha = 0`` (interpolation), or when the ridge is below the rounding
    level of K, a diagonal shift at rounding level is added.  With
    ``alpha = 0``, a column of Y that this solution does not interpolate to
    :math:`\sqrt{\epsilon}` relative (y outside the range of a singular K,
    such as a linear kernel's :math:`XX^T` of rank below l) gets the
    minimum-norm least-squares solution :math:`c = K^+ y` instead (by an
    eigendecomposition, eigenvalues below :math:`l\,\epsilon\,\lambda_{max}`
    taken as 0, as ``numpy.linalg.lstsq``): its fitted values :math:`Kc`
    are the projection of y onto the range of K, the limit of the ridge's
    as :math:`\alpha \to 0^+` (the ridge coefficients themselves diverge
    along the null space of K, as :math:`1/\alpha`).  The one RLS
    solve of the package: :func:`~graphrkhs.rls_coefficients` (data-dependent
    kernels) calls it, and the leave-one-out engine
    (:func:`~graphrkhs.rls_loo_error`) scores its ``alpha``.

    Parameters
    ----------
    K : ndarray of shape (l, l)
        Symmetric positive semidefinite Gram matrix of the labeled points
        (its lower triangle is read); float32 stays float32.
    Y : ndarray of shape (l,) or (l, k)
    alpha : float >= 0
    overwrite_K : bool, default=False
        Add the ridge to K's diagonal and factor it in place (no n x n copy;
        K is destroyed).  The estimators use it for the Gram matrix they own.

    Returns
    -------
    C : ndarray like Y, in K's dtype

    Raises
    ------
    numpy.linalg.LinAlgError
        When :math:`K + \alpha l I` is not positive definite beyond rounding
        (an indefinite K).

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import rls_fit
    >>> K = np.array([[1.0, 0.5], [0.5, 1.0]])
    >>> c = rls_fit(K, np.array([1.0, -1.0]), alpha=0.25)
    >>> np.allclose((K + 0.5 * np.eye(2)) @ c, [1.0, -1.0])
    True
    """
    alpha = check_scalar(alpha, "alpha", low=0)
    K = check_matrix(K, "K", square=True, min_size=0)
    Y2, was_1d = _as_2d(Y)
    if K.shape != (Y2.shape[0], Y2.shape[0]):
        raise ValueError(f"K must have shape ({Y2.shape[0]}, {Y2.shape[0]}) to match Y, one row per labeled "
                         f"point; got K of shape {K.shape} and Y with {Y2.shape[0]} rows.")
    # targets near 1e308: solved in units of 2^e (the triangular solves' sums overflowed), scaled back exactly.
    # A float32 K solves in float32 (Y cast to it): always in units of 2^e, since targets outside float32's range
    # (1e39 .. 1e150 and 1e-50 .. 1e-150 in float64) were cast to inf or 0, and came back as inf / NaN / 0
    e32 = K.dtype == np.float32
    Y2, e = _float32_column_units(Y2) if e32 else in_target_units(Y2)
    l = K.shape[0]
    A = K if overwrite_K else K.copy()
    A.flat[::l + 1] += alpha * l
    top = float(np.abs(np.diagonal(A)).max()) if l else 0.0       # before the factorization overwrites A
    if alpha > 0:
        try:
            # A is symmetric and C-ordered: its transpose is the same matrix in Fortran order,
            # which LAPACK factors in place (no n x n copy).
            C = sla.cho_solve(sla.cho_factor(A.T, lower=True, overwrite_a=True, check_finite=False),
                              Y2.astype(K.dtype), check_finite=False)
        except np.linalg.LinAlgError:
            # Cholesky failed: alpha * l is below the rounding level of K (or K is indefinite).
            if overwrite_K:
                level = l * np.finfo(K.dtype).eps * top
                if alpha * l > level:
                    # the ridge is above K's rounding: K itself has an eigenvalue below -alpha * l, and "increase
                    # alpha above <a level alpha already exceeds>" was no advice
                    raise np.linalg.LinAlgError(
                        f"K + alpha * l * I is not positive definite although alpha * l = {alpha * l:.3g} is above "
                        f"the rounding level of K (about {level:.3g}): K is indefinite, with an eigenvalue below "
                        f"-{alpha * l:.3g}. Check that the kernel is positive semidefinite on these points (a "
                        "warped or data-dependent kernel can lose it at extreme parameters), or raise alpha past "
                        "that eigenvalue."
                    ) from None
                raise np.linalg.LinAlgError(
                    f"K + alpha * l * I is not numerically positive definite (alpha={alpha:g}, alpha * l = "
                    f"{alpha * l:.3g}, rounding level of K about {level:.3g}); increase alpha above "
                    f"{level / l:.3g}, rescale X (a linear or polynomial kernel grows with |x|^2), or check that the "
                    "kernel is positive semidefinite."
                ) from None
            A = K.copy()
            A.flat[::l + 1] += alpha * l
            C = _psd_solve(A, Y2.astype(K.dtype))
    else:
        Yk = Y2.astype(K.dtype)
        C = _psd_solve(A, Yk)       # A is K (its diagonal + 0): K is intact, psd_solve factors a copy
        # Interpolation: the shifted Cholesky solves (K + s I) c = y, s at K's rounding level, whose residual
        # is s c.  A y outside the range of a singular K (a linear kernel's X X^T of rank < l) cannot be
        # interpolated, and its coefficients came back ~ y / s (5.7e13 for rank 3 on 20 points).  Such
        # columns get the minimum-norm least-squares solution, whose fitted values are the alpha -> 0 limit of
        # the ridge's.
        # a residual that is not finite is no interpolation either: K = 0 (the shift subnormal, C = y / shift
        # inf) and K @ C overflowing (K ~ 1e300) gave NaN, which compared False and kept C
        with np.errstate(over="ignore", invalid="ignore"):
            bad = ~(_relative_norms(K @ C - Yk, Yk) <= np.sqrt(np.finfo(K.dtype).eps))
        if bad.any():
            C[:, bad] = _min_norm_psd_solve(K, Yk[:, bad])
    # coefficients float64 cannot hold (|Y| ~ 1e308 with K + alpha l I small) came back as inf / NaN: a ValueError
    C = _float32_from_units(C, e) if e32 else from_target_units(C, e, "Y")
    return C[:, 0] if was_1d else C


def _float32_column_units(Y2):
    """``(Y2 / 2^e, e)`` with one power of two per column (``e`` of shape (m,)): the largest magnitude of each
    column in [1/2, 1), whatever its units.  Exact, and the solvers are linear in each column; one exponent for
    all columns underflowed a column 1e50 times smaller than another in float32 (coefficients 0, silently)."""
    top = np.abs(Y2).max(axis=0) if Y2.shape[0] else np.zeros(Y2.shape[1])
    e = np.where(np.isfinite(top) & (top > 0), np.frexp(top)[1], 0).clip(max=1023).astype(np.int64)
    return np.ldexp(Y2, -e), e


def _float32_from_units(C, e, kernel="K"):
    """float32 coefficients ``C`` (computed on targets divided by 2^e, ``e`` a scalar or one exponent per column)
    times 2^e, or a ValueError naming Y and K when float32 cannot hold a column of them: its largest beyond
    float32's largest value, or below its smallest normal value (all of it subnormal or 0 in float32)."""
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        out = np.ldexp(C.astype(np.float64), e)
    info = np.finfo(np.float32)
    big, tiny = float(info.max), float(info.tiny)
    if not np.isfinite(C).all():
        return out.astype(np.float32)
    tops = np.abs(out).reshape(-1, out.shape[-1] if out.ndim else 1).max(axis=0, initial=0.0)
    bad = (tops > big) | ((tops > 0.0) & (tops < tiny))
    if bad.any():
        top = float(tops[bad][0])
        raise ValueError(f"Y is outside the range of {kernel}'s dtype, float32: its coefficients reach {top:.3g} "
                         f"(float32 holds {tiny:.3g} .. {big:.3g}), and they come back in {kernel}'s dtype. Pass "
                         f"{kernel} as float64 ({kernel}.astype(np.float64)), or scale Y into float32's range and "
                         "read the coefficients in those units.")
    return out.astype(np.float32)


def _min_norm_psd_solve(K, Y):
    r"""The minimum-norm least-squares solution :math:`K^+ Y` of a symmetric PSD K (its lower triangle read).

    From the eigendecomposition, eigenvalues up to :math:`l\,\epsilon\,\lambda_{max}` (rounding of an
    exact 0, and negative rounding) taken as 0: ``numpy.linalg.lstsq``'s default cut-off.
    """
    l = K.shape[0]
    memory_guard(3 * K.itemsize * l * l, f"the eigendecomposition of a {l} x {l} Gram matrix",
                 "use alpha > 0 (a Cholesky solve) or fewer points.")
    w, V = sla.eigh(K, lower=True, check_finite=False)
    keep = w > l * np.finfo(K.dtype).eps * max(float(w[-1]), 0.0)
    Vk = V[:, keep]
    return Vk @ ((Vk.T @ Y) / w[keep][:, None])


# ---------------------------------------------------------------------------
# LapRLS
# ---------------------------------------------------------------------------

def _manifold_problem(K, labeled, Y, M):
    """Checked inputs of the LapRLS-type systems on n points (K an array or an operator).

    Returns ``(K, n, S, Y2, was_1d, M, dtype, jmask, JY)``: K checked (a real,
    finite, square array, or the operator as given), the labeled indices S,
    the (l, k) targets, the sparse penalty, the computation dtype (K's), the
    0/1 diagonal of J and the zero-padded targets :math:`J y`.
    """
    if not isinstance(K, KernelOperator):
        K = check_matrix(K, "K", square=True)
        _check_kernel_matrix(K)
    n = _n_of(K)
    S = _check_labeled_index(labeled, n)
    Y2, was_1d = _as_2d(Y)
    if Y2.shape[0] != S.size:
        every = (", one per point: pass Y[labeled], the targets of the labeled points in the order of labeled"
                 if Y2.shape[0] == n else "")
        raise ValueError(f"Y must have one row per labeled point ({S.size}); got {Y2.shape[0]}{every}.")
    M = sp.csr_array(check_matrix(M, "M", allow_sparse=True))      # a NaN in M: named here, not after the solve
    if M.shape != (n, n):
        raise ValueError(f"M must have shape ({n}, {n}); got {M.shape}.")
    # f^T M f is a smoothness penalty: M symmetric PSD.  O(nnz) necessary conditions (symmetry, no negative
    # diagonal entry, no off-diagonal entry in a row of zero diagonal), no eigensolve: a random-walk
    # Laplacian, -L or an adjacency W were solved without a word (an indefinite M has no minimizer)
    _check_symmetric_psd_pattern(
        M, symmetry_rtol(M.dtype), name="M", needs="as the graph penalty f^T M f must be",
        symmetric_hint="Pass a symmetric penalty such as graph_penalty(W) (L^p of the combinatorial or normalized "
                       "Laplacian; the random-walk Laplacian is not symmetric).",
        zero_hint="an adjacency matrix W? pass graph_penalty(W)")
    dtype = K.dtype if isinstance(K, KernelOperator) else np.asarray(K).dtype
    jmask = np.zeros(n, dtype=dtype)
    jmask[S] = 1
    # J y in float64 whatever K's dtype (the solves run in float64): cast to a float32 K's dtype, targets of 1e45
    # became inf (LapRLS: 'the direct solve produced NaN') and of 1e-50 zero (alpha = 0, silently)
    return K, n, S, Y2, was_1d, M, dtype, jmask, _jy(S, Y2, n, np.float64)


def _check_kernel_matrix(K):
    """A dense Gram matrix K must be symmetric (to ``PSD_RTOL`` of its largest entry) with a non-negative
    diagonal; checked in row blocks (no n x n temporary), O(n^2) against the solve's O(n^3) or CG."""
    n = K.shape[0]
    if n == 0:
        return
    d = np.diagonal(K)
    if d.min() < 0:
        i = int(np.argmin(d))
        raise ValueError(f"K has a negative diagonal entry (K[{i}, {i}] = {float(d[i]):.3g}): a kernel matrix is "
                         "positive semidefinite (K[i, i] = k(x_i, x_i) >= 0); pass the Gram matrix of a kernel.")
    gap, scale = symmetry_gap(K, "K")     # in row blocks, no n x n temporary
    if gap > PSD_RTOL * scale:
        raise ValueError(f"K must be symmetric: max |K - K^T| = {gap:.3g} (max |K| = {scale:.3g}, rounding "
                         f"allows {PSD_RTOL:g} of it); pass the Gram matrix k(x_i, x_j) of all n points.")


def _resolve_solver(solver, n, limit=None):
    check_option(solver, "solver", SOLVERS)
    if solver == "auto":
        return "direct" if n <= (DIRECT_MAX_N if limit is None else limit) else "cg"
    return solver


def _jy(S, Y2, n, dtype):
    JY = np.zeros((n, Y2.shape[1]), dtype=dtype)
    JY[S] = Y2
    return JY


def laprls_fit(K: Union[np.ndarray, KernelOperator], labeled: Indices, Y: ArrayLike, M: MatrixLike, gamma_A: float,
               gamma_I: float, *, solver: str = "auto", tol: float = 1e-6, max_iter: Optional[int] = None,
               return_info: bool = False) -> Union[np.ndarray, Tuple[np.ndarray, Dict[str, Any]]]:
    r"""Laplacian RLS (Belkin, Niyogi & Sindhwani, JMLR 2006, Eq. 14 / their Section 4.2).

    .. math::

        \min_{f \in H_K} \frac1l \sum_{i \in S} (y_i - f(x_i))^2 + \gamma_A \|f\|_K^2
        + \frac{\gamma_I}{n^2} \mathbf f^T M \mathbf f,

    M the graph penalty (:math:`L^p`).  With :math:`f = \sum_{i=1}^n \alpha_i K_{x_i}`
    the gradient in :math:`\alpha` is :math:`\frac2l K[(JK + \gamma_A l I +
    \tfrac{\gamma_I l}{n^2} M K)\alpha - Jy]`, which vanishes iff

    .. math:: B\alpha = Jy,\quad B = N K + \gamma_A l I,\quad N = J + \tfrac{\gamma_I l}{n^2} M

    (the paper's system), equivalently the symmetric PSD form
    :math:`K B \alpha = K J y`.  See the module notes for why "direct" factors B
    (LU) and "cg" runs CG on :math:`KB` preconditioned by :math:`K^{-1}`
    (:func:`kernel_cg`), one kernel product per iteration.

    Parameters
    ----------
    K : ndarray (n, n) or KernelOperator
    labeled : int indices (l,) or bool mask (n,)
    Y : ndarray of shape (l,) or (l, k)
        Targets of the labeled points, in the order of ``labeled``.
    M : sparse (n, n)
        Symmetric PSD graph penalty (:func:`graph_penalty`).  Checked in
        O(nnz), without an eigensolve: symmetric to 1e-10 of its largest entry
        (1e-5 in float32), no negative diagonal entry, no off-diagonal entry in
        a row of zero diagonal (necessary for PSD); else ``ValueError``.  A
        dense ``K`` must be symmetric (to 1e-6 of its largest entry) with a
        non-negative diagonal.
    gamma_A : float > 0
    gamma_I : float >= 0
    solver : {"auto", "direct", "cg"}, default="auto"
        "auto": direct up to ``DIRECT_MAX_N`` points.
    tol : float in (0, 1), default=1e-6
        CG tolerance on :math:`\|Jy - B\alpha\| / \|Jy\|` (1e-6 moves
        classification decisions by far less than their margins); the direct
        solve's residual is checked against it too.  A relative tolerance
        :math:`\ge 1` is refused (CG's zero start meets it).
    max_iter : int >= 1, optional
        CG iteration cap (default n); checked on every path.
    return_info : bool, default=False
        Also return the solver diagnostics.

    Returns
    -------
    alpha : ndarray of shape (n,) or (n, k), float64
        float64 also for a float32 ``K``: the system is solved in float64
        (K stays as given; float32 products accumulate in float64), because
        the coefficients cancel (:math:`|\alpha| \gg |f|`, e.g. 1e2 against 1)
        and a float32 solve or float32 coefficients put errors of 1e-4 - 1e-2
        into :math:`f = K\alpha`, where float32 storage of K accounts for ~1e-6.
        The direct solve's residual :math:`\|Jy - B\alpha\| / \|Jy\|` is checked
        against ``tol`` (:class:`~graphrkhs.ConvergenceWarning` above it).
    info : dict, only with ``return_info=True``
        ``solver``, and for CG ``n_iter``, ``converged``, ``residual``.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import laprls_fit, pairwise_kernel
    >>> X = np.linspace(0, 1, 6)[:, None]
    >>> M = np.diag(np.ones(5), 1); M = np.diag(M.sum(0) + M.sum(1)) - M - M.T   # path Laplacian
    >>> a = laprls_fit(pairwise_kernel(X, sigma=0.3), [0, 5], np.array([1.0, -1.0]), M, 1e-3, 1.0)
    >>> f = pairwise_kernel(X, sigma=0.3) @ a
    >>> bool(f[0] > 0 > f[5])
    True
    """
    check_flag(return_info, "return_info")
    gamma_A = check_scalar(gamma_A, "gamma_A", low=0, low_inclusive=False)
    gamma_I = check_scalar(gamma_I, "gamma_I", low=0)
    tol, max_iter = _check_iterations(tol, max_iter)     # on every path, the direct one included
    K, n, S, Y2, was_1d, M, dtype, jmask, JY = _manifold_problem(K, labeled, Y, M)
    l = S.size
    # The system is solved in float64 whatever K's dtype (K itself stays as given): float32
    # arithmetic in the solve (LU of B, or float32 kernel products in CG) amplified rounding by
    # cond(B) ~ 1e5 - 1e7 into differences of 1e-3 - 1e-2 from float64, where rounding K and M
    # to float32 accounts for ~1e-6 (issue 13, finding 11).  alpha comes back in K's dtype.
    Mc = sp.csr_array(M * (gamma_I * l / float(n) ** 2), dtype=np.float64)
    jmask = jmask.astype(np.float64)
    JY = JY.astype(np.float64)
    solver = _resolve_solver(solver, n)
    if solver == "direct":
        memory_guard(n * n * (8 + np.dtype(dtype).itemsize), f"the dense LapRLS system on {n} points",
                     "use solver='cg' (kernel products in row blocks).")
        Kd = _dense(K)
        B = np.asarray(Mc @ Kd, dtype=np.float64)    # the only n x n allocation besides K
        B[S] += Kd[S]                                # J K: the labeled rows of K
        B.flat[::n + 1] += gamma_A * l
        # LAPACK wants Fortran order: factor B^T (a view, no copy) and solve with trans=1.
        lu = sla.lu_factor(B.T, overwrite_a=True, check_finite=False)
        alpha = sla.lu_solve(lu, JY, trans=1, check_finite=False)
        # Residual of B alpha = J y from products with K (B itself was overwritten by its LU).
        KA = np.asarray(_apply(Kd, alpha), dtype=np.float64)
        B_alpha = jmask[:, None] * KA + Mc @ KA + (gamma_A * l) * alpha
        def floor(bad):
            # the rounding floor of B_alpha as computed above, J (K alpha) + Mc (K alpha) + gamma_A l alpha:
            # eps || (J + |Mc|) |K| |alpha| + gamma_A l |alpha| || / ||J y|| (>= rounding_floor's eps |B| |alpha|;
            # B itself was overwritten by its LU).  Without it a residual at float64's floor read as
            # "ill-conditioned, increase gamma_A" (gamma_I = 1e6, 50 points: 9.4e-8, floor 5.8e-7)
            aa = np.abs(alpha[:, bad])
            KAa = np.asarray(_apply(np.abs(Kd), aa), dtype=np.float64)
            bound = jmask[:, None] * KAa + abs(Mc) @ KAa + (gamma_A * l) * aa
            return np.finfo(np.float64).eps * _relative_norms(bound, JY[:, bad])

        check_solution(None, B_alpha, JY, tol, "the LapRLS system (J K + gamma_A l I + gamma_I l/n^2 M K)",
                       "increase gamma_A (the ridge) or rescale the kernel.", product=False,
                       floor=floor)
        info = {"solver": "direct"}
    else:
        def apply_T(P, KP):
            return jmask[:, None] * KP + Mc @ KP + (gamma_A * l) * P

        alpha, info = kernel_cg(apply_T, lambda V: _apply(K, V), JY, tol=tol, max_iter=max_iter,
                                identity_shift=gamma_A * l)
        info["solver"] = "cg"
    alpha = alpha[:, 0] if was_1d else alpha
    return (alpha, info) if return_info else alpha


def _plaprls_range_solve(Kd, Npsi, lam1, r0):
    r"""PLapRLS's empirical system where :math:`T = N_\Psi K + \lambda_1 (I - K/n)^2` is singular, solved in the
    range of K.

    The objective depends on :math:`\alpha` through :math:`f = K\alpha` only; with :math:`K = U_r S_r U_r^T`
    (eigenvalues above :math:`n\epsilon` times the largest) and :math:`K\alpha = U_r c`, its normal equations
    :math:`K T \alpha = K r_0` become
    :math:`(U_r^T N_\Psi U_r + \lambda_1 (I - S_r/n)^2 S_r^{-1}) c = U_r^T r_0`, a consistent symmetric PSD
    system solved by least squares (minimum norm in c), and :math:`\alpha = U_r S_r^{-1} c`.  Its conditioning is
    that of :math:`N_\Psi` on the range of K, not :math:`\mathrm{cond}(K)^2` as for :math:`K N_\Psi K`.
    """
    n = Kd.shape[0]
    s, U = np.linalg.eigh(Kd)
    keep = s > n * np.finfo(np.float64).eps * max(float(s[-1]), 0.0)
    Ur, sr = U[:, keep], s[keep]
    H = Ur.T @ Npsi(Ur)
    if lam1:
        H[np.diag_indices_from(H)] += lam1 * (1.0 - sr / n) ** 2 / sr
    c = np.linalg.lstsq((H + H.T) / 2, Ur.T @ r0, rcond=None)[0]
    return Ur @ (c / sr.reshape((-1,) + (1,) * (c.ndim - 1)))


def _plaprls_heat_range_solve(Kd, Pd, rows, Yr, Mc, Psi, lam1):
    r"""PLapRLS's alpha with an explicit penalty P (the heat semigroup), as a stacked least-squares problem in the
    range of K: the loss rows kept apart from the penalties.

    With :math:`K = V\Lambda V^T` (eigenvalues above :math:`n\epsilon` times the largest, as in
    :func:`_plaprls_range_solve`), :math:`K\alpha = Vw`, :math:`\alpha = V\Lambda^{-1}w`, and
    :math:`\mathbf f = Vw + \Psi\beta`, l times the objective of :func:`plaprls_fit` is

    .. math::

        \|V_S w + \Psi_S\beta - y\|^2 + z^T Q z,\qquad
        Q = \lambda_2 [V, \Psi]^T M [V, \Psi] + \lambda_1 \mathrm{diag}(\Lambda^{-1}V^T P V\Lambda^{-1}, 0),
        \quad z = [w; \beta],

    solved as the least-squares problem :math:`\min_z \|[V_S, \Psi_S; R_Q] z - [y; 0]\|` (:math:`R_Q^T R_Q = Q`,
    pivoted Cholesky of the diagonally scaled Q) by Householder QR, the loss rows first.  At small gammas the loss
    (rank l) and the penalties (of size :math:`\lambda_1, \lambda_2`) differ in scale by :math:`1/\lambda`: the
    formed normal equations :math:`[V, \Psi]^T J [V, \Psi] + Q` (the system :math:`(V^T N_\Psi V + \lambda_1
    \Lambda^{-1} V^T P V \Lambda^{-1}) c = V^T r_0` solved here before, by Cholesky after diagonal scaling) have a
    condition number of order :math:`1/\lambda`, while the minimizer (close to the interpolant of least penalty) does
    not: PLapRLSRegressor(integral_operator="heat", sigma=1), 12 labels of 30 points, predictions at new points,
    against a 60-digit solution of the same matrices (which itself moves by 6e-14 with the row order, and by 9e-13
    under perturbations of K or P at their rounding): 7.6e-5 / 7.8e-7 / 9.8e-11 off at gamma_A = gamma_I = 1e-12 /
    1e-10 / 1e-6, moving with the order of the rows by 3.5e-5 / 3.9e-7 / 5.4e-11; stacked: 1.9e-11 / 3.2e-12 /
    1.7e-12 off, moving by 2.7e-11 / 3.6e-12 / 3.3e-12.  Cost: about the same (n = 1000, 100 labels, one BLAS
    thread: 0.56 - 0.95 s against 0.82 - 0.96 s, on a shared machine).  (The formed :math:`K N_\Psi K + \lambda_1 P`, before
    that, had :math:`\mathrm{cond}(K)^2`: 1e-3 at 1e-12.)  Where P does not see :math:`K^{-1}\Psi c` for a
    :math:`\Psi c` in K's range (P = 0), the objective is flat along :math:`[-V^T\Psi c; c]` and rows
    :math:`h^T w = 0` pick its minimizer of least RKHS norm (:func:`_heat_free_directions`).  Returns alpha (n, k); ``rows`` are the labeled points
    (J's nonzero diagonal), ``Yr`` their targets, ``Mc`` :math:`\lambda_2 M` (sparse).
    """
    n = Kd.shape[0]
    o, k = Psi.shape[1], Yr.shape[1]
    l = rows.size
    # Beyond K and P, in n^2 doubles (tracemalloc, n = 1500, full-rank K): 3 in the eigendecomposition (the
    # symmetrized copy, overwritten by the eigenvectors, and evd's workspace of 2), then W, F and Q with blocks of
    # an eighth, then W, Q's factor and the stacked (l + rank) x n matrix, and W, that matrix and R in its QR:
    # 3.27 + l/n (4.27 at l = n, 3.37 at l = n/10; 9.0 / 6.0 with the C-ordered stacked matrix before)
    memory_guard((3.5 + l / max(n, 1)) * n * n * 8,
                 f"the eigendecomposition of the {n} x {n} heat PLapRLS system",
                 "use fewer points or integral_operator='empirical' with solver='cg'.")
    Ks = Kd + Kd.T
    Ks *= 0.5
    s, V = sla.eigh(Ks.T, check_finite=False, driver="evd", overwrite_a=True)   # Fortran order: in place
    del Ks
    keep = s > n * np.finfo(np.float64).eps * max(float(s[-1]), 0.0)
    V, s = (V, s) if keep.all() else (V[:, keep], s[keep])
    r = s.size
    W = V / s                                               # alpha = W w
    # the tie-break rows h^T w = 0 for the directions the objective does not see (see _heat_free_directions)
    H = _heat_free_directions(V, s, Pd, Psi)
    # Q = F^T (lam2 M) F + lam1 diag(W^T P W, 0), F = [V, Psi] (f = F z on the n points); the graph part in column
    # blocks (bounded temporaries)
    F = np.hstack([V, Psi])
    del V
    Q = np.zeros((r + o, r + o))
    step = _block(n, r + o)
    for c in range(0, r + o, step):
        if c < r:
            Q[:r, c:min(c + step, r)] = lam1 * (W.T @ (Pd @ W[:, c:c + step]))
        Q[:, c:c + step] += F.T @ np.asarray(Mc @ F[:, c:c + step], dtype=np.float64)
    del F
    Q += Q.T
    Q *= 0.5
    # Q's square root at its own scale: the pivoted Cholesky (LAPACK pstrf, stopping at Q's numerical rank) of
    # D^{-1} Q D^{-1}, D its diagonal's square root (the lam1 / s^2 of the small eigenvalues and the O(lam2) of the
    # graph differ by many orders); in place (Q is symmetric: its transpose is the Fortran-ordered same matrix)
    d = np.sqrt(np.maximum(np.diagonal(Q), 0.0))
    d[d == 0] = 1.0
    Q /= d[:, None]
    Q /= d[None, :]
    C, piv, rank, info = sla.lapack.dpstrf(Q.T, lower=0, tol=-1.0, overwrite_a=1)
    del Q
    if info < 0 or not np.isfinite(C).all():
        raise np.linalg.LinAlgError("plaprls_fit: the penalty of the heat system is not finite; check K, P and M.")
    p = 0 if H is None else H.shape[1]
    # the stacked matrix [loss; R_Q D; pins], filled in Fortran order so that the QR (LAPACK, column-major) works in
    # place (overwrite_a; a C-ordered matrix was copied there); R_Q's columns in blocks (bounded temporaries)
    A = np.zeros((l + rank + p, r + o), order="F")
    step = _block(r, l)
    for c in range(0, l, step):         # the loss rows [V_S, Psi_S], V_S from W = V / s (V is not kept: n^2 less)
        A[c:min(c + step, l), :r] = W[rows[c:c + step]] * s
    A[:l, r:] = Psi[rows]
    step = _block(rank, r + o)
    for c in range(0, r + o, step):
        cols = piv[c:c + step] - 1
        A[l:l + rank, cols] = np.triu(C[:rank, c:c + step], k=-c) * d[cols]
    del C
    if p:
        A[l + rank:, :r] = H.T
    b = np.zeros((A.shape[0], k))
    b[:l] = Yr
    m = A.shape[0]
    if m >= r + o:
        QtB, R = sla.qr_multiply(A, b.T, mode="right", overwrite_a=True)
        del A
        dg = np.abs(np.diagonal(R))
        if dg.size and dg.min() > m * np.finfo(np.float64).eps * dg.max():
            z = sla.solve_triangular(R, QtB.T, check_finite=False)
        else:
            z = None
        if z is None or not np.isfinite(z).all():
            # still rank-deficient (e.g. labels missing from a component of the graph, and P singular there): the
            # minimum-norm z of ||A z - b|| = ||R z - Q^T b|| (+ a constant), A = QR
            z = sla.lstsq(R, QtB.T, check_finite=False)[0]
        del QtB, R
    else:
        z = sla.lstsq(A, b, check_finite=False)[0]
    return W @ z[:r]


def _block(rows, cols):
    """Columns per block for temporaries of ``rows`` x block doubles: at most BLOCK_BYTES and an eighth of the whole
    (so that they stay small against the n x n arrays that are alive, also below BLOCK_BYTES)."""
    return max(1, min(int(BLOCK_BYTES // (max(rows, 1) * 8)), -(-cols // 8)))


def _heat_free_directions(V, s, Pd, Psi):
    r"""The directions that the heat PLapRLS objective of :func:`_plaprls_heat_range_solve` leaves free, as the
    columns h of the tie-break rows :math:`h^T w = 0` (unit norm, (r, p)), or None.

    Where a function :math:`\Psi c` of the null space lies in the range of K (:math:`\Psi c = V g`, g = :math:`V^T
    \Psi c`, to :math:`\sqrt{n\epsilon}`; always so for a full-rank K), :math:`z + t[-g; c]` changes neither
    :math:`\mathbf f = Vw + \Psi\beta` (the loss and the graph term) nor anything but the penalty
    :math:`\lambda_1\alpha^T P\alpha` along :math:`a = K^{-1}\Psi c = V\Lambda^{-1}g`.  Where P does not see
    a (:math:`a^T P a \le n\epsilon\, a^T K a`: a P that is zero, or zero along the constants), every t is a
    minimizer; the stacked matrix is (numerically) rank-deficient there, and its QR or the minimum-norm z of its
    least squares gave a t with :math:`\alpha = V\Lambda^{-1}w` of 2.6e12 and f on the points 2.4e-3 off the
    unique minimizer (P = 0, 30 points, 12 labels, sigma 1, gamma 1e-2).  The t taken is the one of least RKHS
    norm :math:`\alpha^T K\alpha = w^T\Lambda^{-1}w` (the limit of :math:`P + \epsilon K`):
    :math:`h = \Lambda^{-1}g` orthogonal to w.  On the generalized eigenvectors of
    :math:`(A^T P A, A^T K A)` for several such c.
    """
    n, o = V.shape[0], Psi.shape[1]
    eps = np.finfo(np.float64).eps
    if o == 0:
        return None
    Qp = np.linalg.qr(Psi / column_scales(Psi))[0]
    G = V.T @ Qp
    _, sv, Ct = np.linalg.svd(Qp - V @ G, full_matrices=False)
    inside = sv <= np.sqrt(n * eps)
    if not inside.any():
        return None
    G = G @ Ct[inside].T                                    # g of the functions Psi c in the range of K
    Ah = (V / s) @ G                                        # their alpha = K^{-1} Psi c
    Ka, Pa = G.T @ (G / s[:, None]), Ah.T @ (Pd @ Ah)
    mu, E = sla.eigh((Pa + Pa.T) / 2, (Ka + Ka.T) / 2)
    free = mu <= n * eps
    if not free.any():
        return None
    H = (G @ E[:, free]) / s[:, None]
    return H / np.linalg.norm(H, axis=0)


#: Relative size below which :math:`\|(K/n - I)\Psi c\|` counts as 0 in :func:`_plaprls_determined`.
UNDETERMINED_RTOL = 1e-8


def _plaprls_determined(K, Psi, alpha):
    r"""PLapRLS's (empirical operator) alpha with no component along the directions the objective cannot see.

    A coefficient vector :math:`d = \Psi c` of the null space's span with :math:`K d = n d` (K normalized
    as in :func:`consistency_grams`; for constants: every row of K sums to n, as on points of a regular
    lattice on a circle or copies of points in equal numbers) changes neither the fit on the n points
    (:math:`K d` is in the span of :math:`\Psi`, which :math:`\beta` absorbs), nor the penalty
    (:math:`P d = K (I - K/n)^2 d = 0`): every :math:`\alpha + t d` is a minimizer, with different values at
    new points, and the solvers returned different ones without a word (40 points on a circle, the
    prediction at its centre -0.18 by "direct", 0.007 by "cg").  Such directions are removed (the
    minimum-norm alpha along them; beta is then recomputed) with a warning.
    """
    D = _undetermined_directions(lambda V: _apply(K, V), Psi, alpha.shape[0])
    if D is None:
        return alpha
    _warn_undetermined("plaprls_fit")
    return alpha - D @ (D.T @ alpha)


def _undetermined_directions(apply_K, Psi, n):
    r"""Orthonormal columns spanning the :math:`d = \Psi c` with :math:`K d = n d` (to ``UNDETERMINED_RTOL``), or
    None (see :func:`_plaprls_determined`); ``apply_K(V)`` is the normalized kernel's product."""
    Q, _ = np.linalg.qr(np.asarray(Psi, dtype=np.float64) / column_scales(Psi))
    B = np.asarray(apply_K(Q), dtype=np.float64) / float(n) - Q
    _, sv, Vt = np.linalg.svd(B, full_matrices=False)
    small = sv <= UNDETERMINED_RTOL
    return Q @ Vt[small].T if small.any() else None


def _warn_undetermined(owner):
    warn(f"{owner}: the fit away from the given points is not determined: the kernel (normalized by its "
         "mean) maps some function of the null space to n times itself (for constants: every row of K sums to "
         "n, e.g. points on a regular lattice, or copies of points in equal numbers), so alpha + t d and beta "
         "minus its constant give the same objective for every t, with different predictions at new points. "
         "The minimum-norm alpha along d is used; for a determined fit pass a null space without constants "
         "(null_space='none') or integral_operator='heat'.")


def _plaprls_symmetric(Kd, Npsi, lam1, r0):
    r"""PLapRLS's empirical system :math:`T\alpha = r_0`, :math:`T = N_\Psi K + \lambda_1 (I - K/n)^2`, in its
    symmetric positive definite form, or None when that form cannot be factored (then the caller factors T).

    With :math:`K = R^T R` (Cholesky) and :math:`K (I - K/n)^2 = R^T (I - R R^T/n)^2 R`, the symmetric form
    :math:`K T \alpha = K r_0` of the normal equations is :math:`R^T A R \alpha = R^T R r_0` with

    .. math:: A = R N_\Psi R^T + \lambda_1 (I - R R^T / n)^2 ,

    so :math:`\alpha = R^{-1} A^{-1} R r_0`: two triangular solves around a Cholesky of A.  A is SPD for
    :math:`\lambda_1 > 0` and separates what T mixes: :math:`N_\Psi K` (of size :math:`\lambda_2 \|M\|
    \|K\|`, 1e5 at the fallback gammas on 90 points) acts through R on both sides, and the near-null
    directions of K keep their :math:`\lambda_1` (3e-6) on the diagonal.  At the fallback gammas (1e-6, 1e6,
    three blobs, one label a class) cond(T) was 1e13 - 1e14 and A's 1e8 - 1e9: under a permutation of the
    points the predictions at new points moved by 5e-3 - 1.6e-1 (relative) with the LU of T and by 1e-6
    with A, and against a 40-digit solution of the same equations the LU was 3.1e-3 off, A 1.3e-5.  A
    Gaussian K is numerically singular (eigenvalues down to -3e-15): the Cholesky is of :math:`K + \delta I`,
    :math:`\delta` from :math:`n \varepsilon \max_i K_{ii}`, raised tenfold while it fails, up to
    :math:`100 n \varepsilon \max_i K_{ii}` (a change of K at the level of the rounding of its products);
    a K indefinite beyond that is factored as T (a row-normalized then symmetrized Gaussian kernel on 45
    points had an eigenvalue of -2.3e-9: a shift of that size moved the fit by 1e-7 and broke the exact
    LOO identity of the hat matrix, which holds for the K the fitted values are computed with).
    Cost: 2.3 times the LU of T (n = 2000: 0.84 against 0.37 s, medians of 3; the products
    R N_\Psi R^T and R R^T and its square).
    """
    n = Kd.shape[0]
    top = float(np.abs(np.diagonal(Kd)).max()) if n else 0.0
    if not top > 0:
        return None
    delta, R = n * np.finfo(np.float64).eps * top, None
    for _ in range(3):
        shifted = Kd.copy()
        shifted.flat[::n + 1] += delta
        try:
            R = sla.cholesky(shifted, lower=False, overwrite_a=True, check_finite=False)
            break
        except np.linalg.LinAlgError:
            delta *= 10.0
    if R is None:
        return None
    del shifted
    A = np.empty((n, n))
    step = max(1, int(BLOCK_BYTES // (n * 8)))
    for c in range(0, n, step):                          # R N_Psi R^T, in column blocks
        A[:, c:c + step] = R @ Npsi(np.ascontiguousarray(R[c:c + step].T))
    E = R @ R.T
    E *= -1.0 / n
    E.flat[::n + 1] += 1.0
    EE = E @ E                                           # (I - R R^T / n)^2
    del E
    EE *= lam1
    A += EE                                              # peak: K, R, A, E and E^2 (5 n^2 floats)
    del EE
    A = (A + A.T) / 2.0
    try:
        cA = sla.cho_factor(A, overwrite_a=True, check_finite=False)
    except np.linalg.LinAlgError:
        return None
    c = sla.cho_solve(cA, R @ r0, check_finite=False)
    return sla.solve_triangular(R, c, lower=False, check_finite=False)


# ---------------------------------------------------------------------------
# PRLS
# ---------------------------------------------------------------------------

def _orth_basis(Psi, name="Psi"):
    """Orthonormal basis of the column space of Psi, with a rank check.

    The columns are first scaled by powers of two to unit size (exact, the span is unchanged), so
    that the rank test does not depend on the units of each basis function (poly2 features of
    points in micrometres: 1 next to x^2 ~ 1e12 was "rank-deficient").
    """
    Psi = np.asarray(Psi, dtype=np.float64)
    Q, R = np.linalg.qr(Psi / column_scales(Psi))
    d = np.abs(np.diag(R))
    # more columns than rows: rank <= rows < columns, though the reduced R (rows x columns) may have a
    # nonzero diagonal (11 basis functions on 10 labeled points passed, and the solvers returned one of
    # infinitely many coefficient vectors)
    if Psi.shape[1] > Psi.shape[0] or (d.size and (d.min() <= 1e-10 * max(d.max(), 1e-300))):
        raise ValueError(
            f"{name}: the null-space basis is rank-deficient on the labeled points (its columns are linearly "
            f"dependent there: {Psi.shape[1]} basis functions on {Psi.shape[0]} points); use fewer basis functions "
            "or more labeled points."
        )
    return Q


def _snap(R, Y):
    """Zero the columns of a projected residual R that are at rounding level relative to Y.

    A target in the span of the null-space basis (a constant) leaves a residual of
    ~1e-16 after projection; the ill-conditioned kernel system would amplify it into
    visible kernel coefficients.  Such a target is in the null space to working
    precision, and its penalized part is exactly zero.
    """
    eps = np.finfo(R.dtype).eps
    # the norms in units of each column's largest target: squared, targets near 1e300 overflowed both norms
    # to inf and near 1e-300 underflowed them to 0, and either way every column was "small" (PRLS then fitted
    # the mean alone: predictions 76 % off the rescaled fit at y ~ 1)
    Yabs = np.abs(Y).max(axis=0) if Y.size else np.ones(Y.shape[1:])
    unit = np.where(np.isfinite(Yabs) & (Yabs > 0), Yabs, 1.0)
    small = np.linalg.norm(R / unit, axis=0) <= 100 * eps * np.sqrt(R.shape[0]) * np.linalg.norm(Y / unit, axis=0)
    if small.any():
        R = R.copy()
        R[:, small] = 0
    return R


#: A penalty whose smallest eigenvalue is below -_INDEFINITE_PENALTY_RTOL times its largest is indefinite
#: beyond rounding (rounding leaves about n eps relative, 1e-13 at n = 1000).
_INDEFINITE_PENALTY_RTOL = 1e-8


def _psd_penalty(P, what, rounding=0.0):
    r"""The penalty matrix P, or its PSD part (:func:`~graphrkhs._core.linalg.psd_part`) when it is indefinite.

    ``rounding``: the absolute rounding level of P's eigenvalues when P is formed by cancellation from larger
    terms (:func:`_consistency_penalty`); a negative part within it is clipped without a warning.

    :math:`\alpha^T P \alpha` stands for :math:`\|f - L_K f\|_K^2 \ge 0`; an
    indefinite P makes the objective unbounded below (no minimizer: Cholesky
    of the normal equations fails, or CG returns a saddle point).  The heat
    penalty :math:`K_t - 2K_{2t} + K_{3t}` (:func:`consistency_grams`) is such a P
    when its dimension m is below the number of features d: the Gaussian of the
    d-dimensional distance is the heat kernel of :math:`\mathbb R^m` only for
    points on an m-dimensional flat, and its m-normalized penalty has the Fourier
    symbol :math:`z - 2\cdot 2^{(d-m)/2} z^2 + 3^{(d-m)/2} z^3`,
    :math:`z = e^{-t|\omega|^2}`, negative for smooth functions (z near 1);
    for :math:`m \ge d` it is :math:`\ge 0`.  The PSD part is the nearest valid
    penalty (Frobenius norm); a negative part beyond rounding is reported with a
    warning that names the fixes.
    """
    Pp, extremes = psd_part(P)
    if extremes is not None:
        lo, hi = extremes
        if lo < -max(_INDEFINITE_PENALTY_RTOL * max(hi, abs(lo)), rounding):
            warn(f"{what} is indefinite (eigenvalues from {lo:.3g} to {hi:.3g}): the objective would be unbounded "
                 "below, so its positive semidefinite part (negative eigenvalues set to 0, the nearest PSD "
                 "matrix) is used. The heat penalty K_t - 2K_2t + K_3t is indefinite when its dimension m is "
                 "below the number of features (the Gaussian is the heat kernel of R^m only on an "
                 "m-dimensional flat); pass m >= the number of features, or integral_operator='empirical', "
                 "for a penalty that needs no correction.")
    return Pp


def _consistency_penalty(K, Kp, Kpp):
    r""":math:`P = K - 2K' + K''` made PSD at its rounding level: :math:`P + \delta I`.

    P is a Gram matrix (of :math:`(I - L_K) K_{x_i}`), but it is formed by
    cancellation from terms of size :math:`\max_i(K_{ii}, K'_{ii}, K''_{ii})`,
    so its computed eigenvalues can be negative by :math:`l\,\epsilon` times
    that size (all of them when the points are isolated and P vanishes);
    :math:`\gamma l P` then makes the system indefinite at large gamma.  The
    shift :math:`\delta = l\,\epsilon \max_i(K_{ii}, K'_{ii}, K''_{ii})` is
    that rounding level: a ridge on functions of RKHS norm at rounding level.
    A P indefinite beyond rounding (the heat grams with m below the number of
    features) is replaced by its PSD part first, with a warning (:func:`_psd_penalty`).
    """
    K, Kp, Kpp = (np.asarray(A) for A in (K, Kp, Kpp))
    P = K - 2 * Kp + Kpp
    P = (P + P.T) / 2
    l = P.shape[0]
    if l:
        size = max(float(np.abs(np.diag(A)).max()) for A in (K, Kp, Kpp))
        delta = l * float(np.finfo(P.dtype).eps) * size
        P[np.diag_indices(l)] += delta
        # P's eigenvalues are rounding up to about l eps size (the terms' scale, not P's own: copies of two
        # points make P vanish, eigenvalues -2.7e-15 to 1.2e-14 against terms of size 2, which warned "P is
        # indefinite"); a negative part beyond 64 times that is reported
        Pp = _psd_penalty(P, "the PRLS penalty P = K - 2K' + K''", rounding=64 * delta)
        if Pp is not P:                         # clipped: restore the rounding-level ridge
            P = Pp.astype(P.dtype, copy=False)
            P[np.diag_indices(l)] += delta
    return P


#: The fix named when a PRLS Gram matrix is not symmetric.
_PRLS_GRAMS = "pass the Gram matrices K, K', K'' of the labeled points (consistency_grams)."


def prls_fit(K: ArrayLike, Kp: ArrayLike, Kpp: ArrayLike, Y: ArrayLike, gamma: float,
             Psi: Optional[ArrayLike] = None) -> Tuple[np.ndarray, np.ndarray]:
    r"""Partially-penalized RLS (Yang, King & Lyu, NIPS 2009, Eqs. 7-11).

    .. math::

        \min_{\alpha, \beta} \frac1l \|y - K\alpha - \Psi\beta\|^2 + \gamma\,\alpha^T (K - 2K' + K'')\alpha,

    :math:`f = \sum_i \alpha_i K_{x_i} + \sum_j \beta_j \mu_j` with :math:`\mu_j` a
    basis of the null space of :math:`I - L_K` (:math:`\Psi_{ij} = \mu_j(x_i)`).
    Setting the gradient to zero gives their Eq. (11),

    .. math::

        \begin{bmatrix} \gamma l P + K^2 & K\Psi \\ \Psi^T K & \Psi^T\Psi \end{bmatrix}
        \begin{bmatrix}\alpha\\ \beta\end{bmatrix} = \begin{bmatrix} K y \\ \Psi^T y \end{bmatrix},
        \qquad P = K - 2K' + K''

    (symmetric PSD: it is the Hessian).  We eliminate :math:`\beta` with the
    projector :math:`Q = I - \Psi(\Psi^T\Psi)^{-1}\Psi^T`:
    :math:`\beta = (\Psi^T\Psi)^{-1}\Psi^T(y - K\alpha)` and
    :math:`(\gamma l P + K Q K)\,\alpha = K Q y`.  That system's condition
    number is K's squared, so it is not formed: the same minimizer is solved as a
    stacked least-squares problem in the coordinates of K's eigenvectors
    (:func:`_prls_stacked`, Householder QR, backward stable at K's own condition
    number).  For a target in the span of :math:`\Psi` (a constant), :math:`Qy = 0` so
    :math:`\alpha = 0` and the target is reproduced whatever :math:`\gamma`.

    Parameters
    ----------
    K, Kp, Kpp : ndarrays of shape (l, l)
        From :func:`consistency_grams`.
    Y : ndarray of shape (l,) or (l, k)
    gamma : float >= 0
        0: the limit :math:`\gamma \to 0^+`, the least-squares fit (an interpolant where K is
        nonsingular) of least :math:`\alpha^T P \alpha`.
    Psi : ndarray of shape (l, o), optional
        Null-space basis at the labeled points; None means constants, an
        (l, 0) array means none.

    Returns
    -------
    alpha : ndarray shaped like Y, of K's dtype (Y is taken in K's dtype)
    beta : ndarray of shape (o,) or (o, k)

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import consistency_grams, prls_fit
    >>> X = np.linspace(0, 1, 8)[:, None]
    >>> K, Kp, Kpp, _ = consistency_grams(X, integral_operator="heat", sigma=0.2)
    >>> a, b = prls_fit(K, Kp, Kpp, np.full(8, 3.0), gamma=10.0)      # constant target
    >>> bool(np.abs(a).max() < 1e-12), round(float(b[0]), 10)
    (True, 3.0)
    """
    gamma = check_scalar(gamma, "gamma", low=0)
    K, Kp, Kpp = (check_matrix(A, name, square=True) for name, A in (("K", K), ("Kp", Kp), ("Kpp", Kpp)))
    Y2, was_1d = _as_2d(Y)
    l = Y2.shape[0]
    for name, A in (("K", K), ("Kp", Kp), ("Kpp", Kpp)):
        if np.shape(A) != (l, l):
            raise ValueError(f"{name} must have shape ({l}, {l}); got {np.shape(A)}.")
        # the fit reads (K + K^T) / 2 and a symmetrized P: np.triu of a Gram was fitted without a word
        check_symmetric_kernel(A, name, _PRLS_GRAMS)
    Psi = (np.ones((l, 1), dtype=K.dtype) if Psi is None
           else check_matrix(Psi, "Psi", min_size=0).astype(K.dtype, copy=False))
    if Psi.ndim != 2 or Psi.shape[0] != l:
        raise ValueError(f"Psi must have shape ({l}, o); got {Psi.shape}.")
    P = _consistency_penalty(K, Kp, Kpp)
    if gamma == 0:
        # the gamma -> 0+ limit: the least-squares fits K alpha + Psi beta ~ y are a family (l equations, l + o
        # unknowns), of which the limit is the one of least alpha^T P alpha.  The system below is singular there
        # (K Q K has rank l - o) and its Cholesky solved it at the rounding of K Q K, cond(K)^2: the fit moved
        # with the order of the rows (PRLSRegressor, 12 labels, sigma 1: by 7.8 on targets +-1).
        alpha, beta = _prls_limit(K, P, Y2.astype(K.dtype), Psi)
        return (alpha[:, 0], beta[:, 0]) if was_1d else (alpha, beta)
    Y2 = Y2.astype(K.dtype)
    Qb = _orth_basis(Psi, "null_space").astype(K.dtype) if Psi.shape[1] else Psi
    # solved in float64 whatever K's dtype (sqrt(gamma l) is a float64 scalar); alpha in K's dtype, as documented
    # and as at gamma = 0 (float32 in gave float64 out here)
    alpha = _prls_stacked(K, P, Y2, Qb, gamma * l).astype(K.dtype, copy=False)
    # beta optimal for the alpha returned, with K's own product (K alpha differs from V w by the rounding of the
    # eigendecomposition times |alpha|: 2e-7 of the loss's derivative in beta at a nearly constant K, sigma 1e5)
    beta = (np.linalg.lstsq(Psi, Y2 - K @ alpha, rcond=None)[0] if Psi.shape[1]
            else np.zeros((0, Y2.shape[1]), dtype=K.dtype))
    return (alpha[:, 0], beta[:, 0]) if was_1d else (alpha, beta)


def _prls_stacked(K, P, Y2, Qb, weight):
    r"""The kernel coefficients alpha of ``prls_fit`` at :math:`\gamma > 0` (``weight`` = :math:`\gamma l`; ``Qb`` an
    orthonormal basis (l, o) of the null-space basis' span), as a least-squares problem at the condition of K, not
    of :math:`K^2`.

    With :math:`K = V\Lambda V^T` (eigenvalues at K's rounding, :math:`\lambda \le l\,\epsilon\,\lambda_{max}`,
    left out as in :func:`_prls_limit`: their kernel functions vanish on the labeled points), the unknowns are the
    fitted kernel part :math:`K\alpha = V w` in the orthonormal coordinates w, and with :math:`P = CC^T`,
    :math:`\alpha^T P \alpha = \|C^T V \Lambda^{-1} w\|^2`.  Eliminating :math:`\beta` by the projector
    :math:`Q = I - \Psi\Psi^+` the objective times l is the stacked least-squares problem

    .. math::

        \min_w \left\| \begin{bmatrix} Q V \\ \sqrt{\gamma l}\, C^T V \Lambda^{-1} \end{bmatrix} w
        - \begin{bmatrix} Q y \\ 0 \end{bmatrix} \right\|^2,

    solved by Householder QR (backward stable, column scaling does not change its accuracy);
    :math:`\alpha = V\Lambda^{-1} w` (``prls_fit`` then takes :math:`\beta = \Psi^+(y - K\alpha)`).  The normal
    equations of Eq. (11), :math:`(\gamma l P + KQK)\alpha = KQy` by Cholesky, squared K's condition number: at
    gamma 1e-12 .. 1e-8 (and at the 1e-9 that ``gamma="auto"`` chose) the fit moved with the order of the rows by
    0.06 .. 6e-6 (PRLSRegressor, 12 labels of 30 points, sigma 1, targets +-1; 7.0 at 1e-14), by 4e-12 now.  Cost:
    one eigendecomposition of K, one Cholesky of P and the QR of a 2l x l matrix (800 labeled points, one BLAS
    thread: 0.16 s, against 0.046 s for the Cholesky of the normal equations).
    """
    l, o = Qb.shape
    # measured peak beyond K and P: 9.0 l^2 float64 (RSS, l = 2500), 10.0 (tracemalloc, l = 1500); the stacked
    # matrix is float64 whatever K's dtype
    memory_guard(10.0 * 8 * l * l, f"the eigendecomposition of a {l} x {l} Gram matrix",
                 "use fewer labeled points (or solver='nystrom').")
    eps = float(np.finfo(K.dtype).eps)
    lam, V = sla.eigh((K + K.T) / 2, check_finite=False, driver="evd")
    keep = lam > l * eps * max(float(lam[-1]), 0.0)
    V, lam = V[:, keep], lam[keep]
    try:        # P is PD by its rounding ridge (_consistency_penalty)
        Ct = sla.cholesky(P, lower=False, check_finite=False)
    except np.linalg.LinAlgError:     # not to rounding: its PSD square root
        wp, Vp = sla.eigh(P, check_finite=False)
        Ct = np.sqrt(np.maximum(wp, 0))[:, None] * Vp.T
    G = (np.sqrt(weight) * (Ct @ V)) / lam
    if o:
        QY = _snap(Y2 - Qb @ (Qb.T @ Y2), Y2)
        # a column of V in the span of Psi on the labeled points (all of them copies of one point with Psi =
        # constants) is 0 to rounding after projection: its rounding would be fitted by the penalty's scale
        # (alpha ~ 1e14 for the targets (1, 0) at one point; see _snap)
        QV = _snap(V - Qb @ (Qb.T @ V), V)
    else:
        QY, QV = Y2, V
    A = np.vstack([QV, G])
    if A.shape[1] and Y2.shape[1]:
        # Householder QR applied to the right-hand side (Q^T b as (b^T Q)^T: Q is never formed, 2/3 of the time)
        QtB, R = sla.qr_multiply(A, np.vstack([QY, np.zeros((G.shape[0], Y2.shape[1]), K.dtype)]).T, mode="right")
        w = sla.solve_triangular(R, QtB.T, check_finite=False)
    else:
        w = np.zeros((A.shape[1], Y2.shape[1]), K.dtype)
    if not np.isfinite(w).all():
        raise np.linalg.LinAlgError("prls_fit: the least-squares solve produced NaN or infinity (the kernel or "
                                    "the penalty is not finite or not positive semidefinite); check K, Kp, Kpp.")
    # the residual's check: for a backward-stable least-squares solve the normal equations' residual A^T (b - A w)
    # is at the rounding eps |A| (|A| |w| + |b - A w|) (each column of the targets)
    # (in units of each column's largest target: squared norms of targets near 1e300 overflowed)
    top = np.abs(QY).max(axis=0, initial=0.0)
    unit = np.where(top > 0, top, 1.0)
    res = np.vstack([QY, np.zeros((G.shape[0], Y2.shape[1]), K.dtype)]) / unit - A @ (w / unit)
    norm_A = np.linalg.norm(A) if A.size else 0.0        # Frobenius: a bound on the 2-norm without an SVD
    bound = norm_A * (norm_A * np.linalg.norm(w / unit, axis=0) + np.linalg.norm(res, axis=0))
    if (np.linalg.norm(A.T @ res, axis=0) > 1e3 * eps * A.shape[0] * bound + np.finfo(K.dtype).tiny).any():
        warn("prls_fit: the least-squares solve left a residual above its rounding (the kernel or the penalty "
             "is not finite or ill-conditioned beyond working precision); check K, Kp, Kpp.", ConvergenceWarning)
    return V @ (w / lam[:, None])


def _prls_limit(K, P, Y2, Psi):
    r"""``prls_fit`` at :math:`\gamma = 0`: the least-squares fit of least :math:`\alpha^T P \alpha`.

    :math:`\alpha = K^+ (y - \Psi\beta)` (K's eigenvalues at its rounding taken as 0: copies of a point make K
    singular; its null space carries the zero function), :math:`\beta` minimizing :math:`\alpha^T P \alpha`
    (an o x o problem) where K reaches every target; a column that K and :math:`\Psi` only fit in least squares
    (a linear kernel of rank below l) first has :math:`\beta` fit the part of y outside K's range, the
    rest of :math:`\beta` (the null space of that fit) again by :math:`\alpha^T P \alpha`.
    """
    l, o = Psi.shape
    # (K + K^T) / 2, scipy's eigh (its copy and the eigenvectors) and the kept columns: 4.12 l^2 beyond the inputs
    # measured (RSS, l = 3000)
    memory_guard(4.5 * K.itemsize * l * l, f"the eigendecomposition of a {l} x {l} Gram matrix",
                 "use gamma > 0 or fewer labeled points.")
    w, V = sla.eigh((K + K.T) / 2, check_finite=False)
    keep = w > l * np.finfo(K.dtype).eps * max(float(w[-1]), 0.0)
    Vk, wk, Vn = V[:, keep], w[keep], V[:, ~keep]

    def solve(Yb, beta0, W):
        a0 = Vk @ ((Vk.T @ (Yb - Psi @ beta0)) / wk[:, None])
        if not W.shape[1]:
            return a0, beta0
        A1 = Vk @ ((Vk.T @ (Psi @ W)) / wk[:, None])
        PA1 = P @ A1
        t = np.linalg.lstsq((A1.T @ PA1 + PA1.T @ A1) / 2, PA1.T @ a0, rcond=None)[0]
        return a0 - A1 @ t, beta0 + W @ t

    alpha, beta = solve(Y2, np.zeros((o, Y2.shape[1]), dtype=K.dtype), np.eye(o, dtype=K.dtype))
    root_eps = np.sqrt(np.finfo(K.dtype).eps)
    with np.errstate(over="ignore", invalid="ignore"):
        res = _relative_norms(K @ alpha + Psi @ beta - Y2, Y2)
    bad = np.flatnonzero(~(res <= root_eps))
    if bad.size and o and Vn.shape[1]:
        NPsi = Vn.T @ Psi
        U, sv, Vt = np.linalg.svd(NPsi)
        rank = int(np.sum(sv > max(NPsi.shape) * np.finfo(K.dtype).eps * (sv[0] if sv.size else 0.0)))
        beta0 = np.linalg.lstsq(NPsi, Vn.T @ Y2[:, bad], rcond=None)[0]
        a2, b2 = solve(Y2[:, bad], beta0, Vt[rank:].T)
        with np.errstate(over="ignore", invalid="ignore"):
            res2 = _relative_norms(K @ a2 + Psi @ b2 - Y2[:, bad], Y2[:, bad])
        # only where beta lowers the residual beyond rounding (a kernel of low rank); the residual of copies
        # with different targets is the same for every beta, and a fit of beta to the components of y along
        # K's eigenvalues at rounding (taken as 0) would be a fit to rounding
        better = res[bad] - res2 > root_eps
        alpha[:, bad[better]], beta[:, bad[better]] = a2[:, better], b2[:, better]
    return alpha, beta


# ---------------------------------------------------------------------------
# PLapRLS
# ---------------------------------------------------------------------------


def plaprls_fit(K: Union[np.ndarray, KernelOperator], labeled: Indices, Y: ArrayLike, M: MatrixLike, gamma_A: float,
                gamma_I: float, *, P: Optional[Union[np.ndarray, KernelOperator]] = None, Psi: Optional[ArrayLike] = None,
                solver: str = "auto", tol: float = 1e-6, max_iter: Optional[int] = None, return_info: bool = False
                ) -> Union[Tuple[np.ndarray, np.ndarray], Tuple[np.ndarray, np.ndarray, Dict[str, Any]]]:
    r"""Partially-penalized Laplacian RLS (Yang, King & Lyu, NIPS 2009, Eqs. 12-14).

    Objective (their Eq. 12, in matrix form over the n points, :math:`\mathbf f = K\alpha + \Psi\beta`):

    .. math::

        \frac1l (y - \mathbf f)^T J (y - \mathbf f) + \gamma_A \alpha^T P \alpha
        + \frac{\gamma_I}{n^2} \mathbf f^T M \mathbf f,\qquad P = K - 2K' + K''.

    Its gradient vanishes iff, with :math:`\lambda_1 = \gamma_A l`,
    :math:`\lambda_2 = \gamma_I l / n^2`, :math:`N = J + \lambda_2 M`:

    .. math::

        (K N K + \lambda_1 P)\alpha + K N \Psi \beta &= K J y, \\
        \Psi^T N K \alpha + \Psi^T N \Psi \beta &= \Psi^T J y.

    The printed Eq. (14) has :math:`-\lambda_2 \Psi^T L K` (sign misprint) and
    :math:`\Psi^T\Psi - \lambda_2\Psi^T L\Psi` where :math:`\Psi^T J \Psi + \lambda_2 \Psi^T L \Psi`
    belongs (for constants :math:`L\Psi = 0`, so only :math:`\Psi^T J\Psi` is
    left; :math:`\Psi^T\Psi` would count unlabeled points as labeled).
    We eliminate :math:`\beta`: with :math:`S_\Psi = \Psi^T N \Psi` and
    :math:`N_\Psi = N - N\Psi S_\Psi^{-1}\Psi^T N` (symmetric PSD),

    .. math::

        (K N_\Psi K + \lambda_1 P)\,\alpha = K r_0,\quad r_0 = Jy - N\Psi S_\Psi^{-1}\Psi^T J y,\quad
        \beta = S_\Psi^{-1}\Psi^T (J y - N K \alpha).

    With the empirical integral operator (``P=None``, K already normalized,
    see :func:`consistency_grams`), :math:`P = K (I - K/n)^2`, so the
    system is :math:`K T \alpha = K r_0` with
    :math:`T = N_\Psi K + \lambda_1 (I - K/n)^2`: "direct" solves its
    symmetric positive definite form :math:`(R N_\Psi R^T + \lambda_1 (I -
    R R^T/n)^2) R\alpha = R r_0`, :math:`K = R^T R` (Cholesky; condition number
    1e8 - 1e9 where T's is 1e13 - 1e14 at the fallback gammas 1e-6, 1e6 of the
    estimators, and 1e-6 where the LU of T moved predictions at new points by
    up to 1.6e-1 under a permutation of the points; the LU of T remains the
    fallback when that form cannot be factored), "cg" runs :func:`kernel_cg`
    (two kernel products per iteration).  With an explicit P (the heat semigroup), "direct" solves the
    minimization as a least-squares problem in K's eigenvector coordinates with the loss rows kept apart
    from the penalties (:func:`_plaprls_heat_range_solve`; the formed normal equations had a condition
    number of order :math:`1/\gamma` at small gammas), and "cg" runs
    :func:`~graphrkhs.conjugate_gradient` on the symmetric PSD system (three products per iteration).
    For a constant target :math:`r_0 = 0`, hence :math:`\alpha = 0`.

    Not determined away from the points: with the empirical operator, a :math:`d = \Psi c` with
    :math:`K d = n d` (for constants: every row of the normalized K sums to n, as on a regular lattice
    on a circle or on copies of points in equal numbers) changes neither the fit on the points nor the
    penalty, so every :math:`\alpha + t d` is a minimizer.  Such directions are removed from
    :math:`\alpha` (the minimum-norm minimizer along them, the same for every solver) with a
    :class:`~graphrkhs.GraphRKHSWarning`.

    Limitation (heat): the explicit P admits no factor :math:`P = K R` with R
    computable, so the kernel-preconditioned CG does not apply, and plain CG
    on :math:`K N_\Psi K + \lambda_1 P` (condition number about K's squared)
    stalls at relative residuals around 1e-4 on Gaussian kernels (it then
    warns).  "auto" therefore factors the heat system densely up to
    ``DIRECT_MAX_N_HEAT`` = 8000 points; above that use the empirical operator.

    Parameters
    ----------
    K : ndarray (n, n) or KernelOperator
    labeled, Y, M, gamma_A, gamma_I, solver, tol, max_iter :
        As in :func:`laprls_fit` (``gamma_A`` may be 0 here only if P is
        positive definite; it must be >= 0).  With ``gamma_A = 0`` and the
        empirical operator, "direct" solves the normal equations
        :math:`K N_\Psi K \alpha = K r_0` by least squares (minimum norm) where
        :math:`T = N_\Psi K` is singular to rounding (with an explicit P, where
        the shifted Cholesky of :math:`K N_\Psi K` fails).
    P : ndarray (n, n), KernelOperator or None
        The penalty matrix; None means the empirical :math:`K(I-K/n)^2`.
        It stands for :math:`\|f - L_K f\|_K^2` and must be PSD for the objective
        to have a minimizer: "direct" uses the PSD part :math:`V\max(\Lambda, 0)V^T`
        (the nearest PSD matrix) of a P indefinite beyond rounding, with a
        warning.  The heat penalty :math:`K_t - 2K_{2t} + K_{3t}` is such a P when
        its dimension m is below the number of features d (its Fourier symbol
        :math:`z - 2\cdot 2^{(d-m)/2} z^2 + 3^{(d-m)/2} z^3`, :math:`z = e^{-t|\omega|^2}`,
        is negative near z = 1; for :math:`m \ge d` it is not).  "cg" applies P as
        given (it never forms it): an indefinite P there raises ``LinAlgError`` on
        negative curvature (naming P and the remedies), stalls, or converges to a
        saddle point.
    Psi : ndarray of shape (n, o), optional
        Null-space basis on the n points; None means constants.
    return_info : bool, default=False
        Also return the solver diagnostics (as in :func:`laprls_fit`).

    Returns
    -------
    alpha : ndarray (n,) or (n, k)
    beta : ndarray (o,) or (o, k)
    info : dict, only with ``return_info=True``

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import plaprls_fit, pairwise_kernel
    >>> X = np.linspace(0, 1, 6)[:, None]
    >>> M = np.diag(np.ones(5), 1); M = np.diag(M.sum(0) + M.sum(1)) - M - M.T
    >>> K = pairwise_kernel(X, sigma=0.3); K /= K.mean()
    >>> a, b = plaprls_fit(K, [0, 5], np.array([2.0, 2.0]), M, 1e-2, 1.0)
    >>> bool(np.abs(a).max() < 1e-12), round(float(b[0]), 10)
    (True, 2.0)
    """
    check_flag(return_info, "return_info")
    gamma_A = check_scalar(gamma_A, "gamma_A", low=0)
    gamma_I = check_scalar(gamma_I, "gamma_I", low=0)
    tol, max_iter = _check_iterations(tol, max_iter)     # on every path, the direct one included
    K, n, S, Y2, was_1d, M, dtype, jmask, JY = _manifold_problem(K, labeled, Y, M)
    l = S.size
    lam1, lam2 = gamma_A * l, gamma_I * l / float(n) ** 2
    # As in laprls_fit, the system is solved in float64 whatever K's dtype (K itself stays as
    # given): float32 arithmetic in the solve amplified rounding by the system's condition number
    # into errors of 3e-2 - 6e-2 against float64 (issue 13, finding 11).  alpha and beta come
    # back in K's dtype.
    Mc = sp.csr_array(M * lam2, dtype=np.float64)
    jmask = jmask.astype(np.float64)
    JY = JY.astype(np.float64)
    Psi = (np.ones((n, 1)) if Psi is None
           else check_matrix(Psi, "Psi", min_size=0, dtype=np.float64))
    if Psi.ndim != 2 or Psi.shape[0] != n:
        raise ValueError(f"Psi must have shape ({n}, o); got {Psi.shape}.")
    o = Psi.shape[1]

    def N(V):
        return jmask[:, None] * V + Mc @ V

    if o:
        NPsi = N(Psi)
        SPsi = Psi.T @ NPsi
        SPsi = (SPsi + SPsi.T) / 2
        ev = np.linalg.eigvalsh(SPsi.astype(np.float64))
        if ev[0] <= 1e-10 * max(ev[-1], 1e-300):
            raise ValueError(
                "null_space: the null-space basis is not identifiable from the labeled points and the graph "
                "(Psi^T N Psi is singular); use fewer basis functions or more labeled points."
            )
        cS = sla.cho_factor(SPsi, check_finite=False)

        def Npsi(V):
            return N(V) - NPsi @ sla.cho_solve(cS, NPsi.T @ V, check_finite=False)

        r0 = _snap(JY - NPsi @ sla.cho_solve(cS, Psi.T @ JY, check_finite=False), JY)
    else:
        Npsi, r0 = N, JY
    solver = _resolve_solver(solver, n, DIRECT_MAX_N_HEAT)
    info = {"solver": solver}
    if solver == "direct":
        # an explicit P adds its dense copy and, when it is indefinite, its eigenvectors (see _psd_penalty); the
        # heat solve then 3.27 + l/n n^2 (_plaprls_heat_range_solve, measured)
        memory_guard((5 if P is None else 5.5 + l / max(n, 1)) * n * n * 8, f"the dense PLapRLS system on {n} points",
                     "use solver='cg' with integral_operator='empirical'.")
    if P is None:  # empirical: P = K (I - K/n)^2
        alpha = None
        if solver == "direct" and lam1 > 0:
            alpha = _plaprls_symmetric(np.asarray(_dense(K), dtype=np.float64), Npsi, lam1, r0)
        if solver == "direct" and alpha is None:
            Kd = np.asarray(_dense(K), dtype=np.float64)

            def system():
                T = Kd @ Kd                                # lam1 (I - K/n)^2 = lam1 (I - 2K/n + K^2/n^2)
                T *= lam1 / (n * n)
                T -= (2 * lam1 / n) * Kd
                T.flat[::n + 1] += lam1
                step = max(1, int(BLOCK_BYTES // (n * 8)))
                for c in range(0, n, step):                # + N_Psi K, in column blocks (bounded temporaries)
                    T[:, c:c + step] += Npsi(Kd[:, c:c + step])
                return T

            if lam1 > 0:
                T = system()
                with warnings.catch_warnings():      # an exactly singular T: handled below, not a LinAlgWarning
                    warnings.simplefilter("ignore", sla.LinAlgWarning)
                    lu = sla.lu_factor(T.T, overwrite_a=True, check_finite=False)
                alpha = sla.lu_solve(lu, r0, trans=1, check_finite=False)
            if lam1 == 0 or not np.isfinite(alpha).all():
                # gamma_A = 0: T = N_Psi K is singular (N_Psi annihilates Psi) and T alpha = r0 has no solution in
                # general; its LU returned NaN with gamma_I = 0 or coefficients ~ 1e16 whose fit was 170 off with
                # copies of a point.  gamma_A > 0 with a non-finite LU solution: T exactly singular, where K's rows
                # sum to the same value (two points, one labeled: K 1 = n 1 after the normalization, so (I - K/n)
                # and N_Psi K both annihilate the constants; then 'V contains NaN or infinity' from the kernel
                # product of beta).  Solved in the range of K (least squares on K N_Psi K alpha = K r0 squared
                # cond(K): 1.1 off the minimizer at cond(K) = 5e7 where the LU was 7e-10 off)
                alpha = _plaprls_range_solve(Kd, Npsi, lam1, r0)
        elif solver != "direct":
            def apply_T(Pb, KP):
                return Npsi(KP) + lam1 * (Pb - 2.0 * KP / n + _apply(K, KP) / (n * n))

            # on K's null space T is lam1 I: that part of the residual, which CG (in the range of K) cannot
            # reduce, is solved exactly (as laprls_fit's).  Without it a low-rank K (the linear kernel: rank d)
            # stopped after d + 1 iterations reporting "not converged" (relative residual 0.41)
            alpha, cg_info = kernel_cg(apply_T, lambda V: _apply(K, V), r0, tol=tol, max_iter=max_iter,
                                       identity_shift=lam1 if lam1 > 0 else None)
            info.update(cg_info)
    else:
        if _n_of(P) != n:
            raise ValueError(f"P must be ({n}, {n}); got {np.shape(P) if not isinstance(P, KernelOperator) else P.shape}.")
        rhs = np.asarray(_apply(K, r0), dtype=np.float64)
        if solver == "direct":
            Kd = np.asarray(_dense(K), dtype=np.float64)
            Pd = _psd_penalty(np.asarray(_dense(P), dtype=np.float64), "the PLapRLS penalty P")
            if lam1 > 0:
                # stacked least squares in K's eigenvector coordinates (see _plaprls_heat_range_solve)
                rows = np.flatnonzero(jmask)
                alpha = _plaprls_heat_range_solve(Kd, Pd, rows, JY[rows], Mc, Psi, lam1)
                del Pd
            else:
                # gamma_A = 0: P drops out, K N_Psi K alpha = K r0 is the empirical system at lam1 = 0, solved in the
                # range of K as there (the formed K N_Psi K, by Cholesky or least squares where singular, had
                # cond(K)^2: 40 points, 12 labels, moved with the row order by 1.1e-2 at gamma_I = 1e-10)
                del Pd
                alpha = _plaprls_range_solve(Kd, Npsi, 0.0, r0)
        else:
            def apply_A(V):
                V = np.asarray(V).reshape(n, -1)
                return (np.asarray(_apply(K, Npsi(np.asarray(_apply(K, V), dtype=np.float64))), dtype=np.float64)
                        + lam1 * np.asarray(_apply(P, V), dtype=np.float64))

            try:
                res = conjugate_gradient(apply_A, rhs, tol=tol, max_iter=max_iter if max_iter is not None else n)
            except np.linalg.LinAlgError as exc:
                # conjugate_gradient's own message is about graph Laplacians and consistent right-hand sides,
                # neither of which is in this system: what failed is the penalty P (the heat penalty with m < d)
                raise np.linalg.LinAlgError(
                    "plaprls_fit: CG met a direction of non-positive curvature (p^T A p <= 0) in the system "
                    "K N_Psi K + gamma_A l P: the penalty P is not positive semidefinite (the heat penalty "
                    "K_t - 2K_2t + K_3t is indefinite when its dimension m is below the number of features), or "
                    "the system is singular to rounding.  Pass a positive semidefinite P (for the heat penalty, "
                    "m >= the number of features), P=None (the empirical integral operator), or solver='direct' "
                    "(which uses the positive semidefinite part of P)."
                ) from exc
            alpha = res.x
            info.update({"n_iter": res.n_iter, "converged": res.converged, "residual": res.residual_norms})
    if o and P is None:
        alpha = _plaprls_determined(K, Psi, np.asarray(alpha, dtype=np.float64).reshape(n, -1))
    if o:
        beta = sla.cho_solve(cS, Psi.T @ (JY - N(np.asarray(_apply(K, alpha), dtype=np.float64))),
                             check_finite=False)
    else:
        beta = np.zeros((0, Y2.shape[1]))
    if dtype == np.float32:          # coefficients float32 cannot hold: a ValueError, not inf / 0
        alpha, beta = _float32_from_units(np.asarray(alpha), 0), _float32_from_units(beta, 0)
    alpha, beta = np.asarray(alpha).astype(dtype, copy=False), beta.astype(dtype, copy=False)
    if was_1d:
        alpha, beta = alpha[:, 0], beta[:, 0]
    return (alpha, beta, info) if return_info else (alpha, beta)


# ---------------------------------------------------------------------------
# G-RLS
# ---------------------------------------------------------------------------

def _compact_wy(Psi):
    r"""``(V, T, R)`` of the Householder QR of the (m, q) matrix ``Psi`` (LAPACK geqrf, via scipy) in compact WY
    form: :math:`Q = H_1 \cdots H_q = I - V T V^T` (V unit lower trapezoidal, T upper triangular, by LAPACK's
    larft recurrence) and :math:`Q^T \Psi = [R; 0]`."""
    m, q = Psi.shape
    if q == 0:
        return np.zeros((m, 0), dtype=Psi.dtype), np.zeros((0, 0), dtype=Psi.dtype), np.zeros((0, 0), dtype=Psi.dtype)
    (h, tau), R = sla.qr(Psi, mode="raw")
    V = np.tril(h, -1)
    V[np.arange(q), np.arange(q)] = 1.0
    G = V.T @ V
    T = np.zeros((q, q), dtype=Psi.dtype)
    for i in range(q):                          # larft: T_{:i, i} = -tau_i T_{:i, :i} V_{:, :i}^T v_i
        T[:i, i] = -tau[i] * (T[:i, :i] @ G[:i, i])
        T[i, i] = tau[i]
    return np.ascontiguousarray(V), T, np.triu(R[:q])


def grls_fit(Phi: ArrayLike, Psi: ArrayLike, Y: ArrayLike, gamma: float) -> Tuple[np.ndarray, np.ndarray]:
    r"""G-RLS (Li, Lee & Leung, NIPS 2006): the true minimizer of their objective (2).

    .. math::

        \min_{f \in H_K} \frac1m \sum_{i=1}^m (y_i - f(x_i))^2 + \gamma \|f - P f\|_K^2,

    P the orthogonal projection onto :math:`H_0 = \mathrm{span}(\psi_1..\psi_q)`.
    Their Eqs. (4)-(9) give :math:`f = \sum_p \beta_p\psi_p + \sum_i c_i K_{x_i}`
    with :math:`c_i = (y_i - f(x_i))/(m\gamma)` and :math:`\sum_i c_i \psi_p(x_i) = 0`.
    In the constructed kernel (Eqs. 10-11), when :math:`\Psi^T c = 0`,
    :math:`\sum_i c_i K_{x_i} = \sum_i c_i \phi_{x_i} + (\text{an element of } H_0)`
    and :math:`\|f - Pf\|_K^2 = c^T H c = c^T \Phi c` (expand Eq. 11: every
    term with a :math:`\varphi_p` is killed by :math:`\Psi^T c = 0`), so the
    minimizer solves the semiparametric saddle-point system with the
    *original* kernel :math:`\phi`:

    .. math::

        \begin{bmatrix}\Phi + m\gamma I & \Psi\\ \Psi^T & 0\end{bmatrix}
        \begin{bmatrix} c\\ \beta\end{bmatrix} = \begin{bmatrix} y\\ 0\end{bmatrix},
        \qquad f(x) = \phi(x, X)\,c + \psi(x)\,\beta .

    Solved by the null-space-free Schur complement: Cholesky of
    :math:`A = \Phi + m\gamma I`, then
    :math:`\Psi^T A^{-1}\Psi\,\beta = \Psi^T A^{-1} y`, :math:`c = A^{-1}(y - \Psi\beta)`.
    When :math:`m\gamma \le \sqrt{\mathrm{eps}}\max_i \Phi_{ii}` (``gamma=0``:
    interpolation), the system is solved on the constraint's null space:
    :math:`c = Q_2 z` with :math:`Q_2` an orthonormal basis of
    :math:`\mathrm{range}(\Psi)^\perp` (Householder QR of :math:`\Psi`),
    :math:`(Q_2^T \Phi Q_2 + m\gamma I) z = Q_2^T y` on the eigenvectors of
    eigenvalues above the rounding level, and :math:`\beta` from
    :math:`\Psi\beta = y - \Phi c` by the triangular factor.  The left-out
    directions carry no function value, so this is the :math:`\gamma \to 0^+`
    limit: a point given twice with two targets is fitted by their mean, and a
    singular :math:`\Phi` that the features reach (a linear kernel on more
    points than dimensions) keeps its exact fit.
    If y is generated by the features alone (:math:`y = \Psi b`), then
    :math:`\beta = b`, :math:`c = 0` (the reproduction property).  The paper's
    own route through the constructed kernel is :func:`grls_fit_constructed`.

    Parameters
    ----------
    Phi : ndarray of shape (m, m)
        Base kernel Gram matrix (strictly positive definite kernel).
    Psi : ndarray of shape (m, q)
        Features at the training points (unisolvent: full column rank).
    Y : ndarray of shape (m,) or (m, k)
    gamma : float >= 0

    Returns
    -------
    c : ndarray like Y
        Kernel coefficients (penalized).
    beta : ndarray of shape (q,) or (q, k)
        Feature coefficients (unpenalized); :math:`f(x) = \phi(x, X) c + \psi(x) \beta`.

    Examples
    --------
    A linear target is reproduced by the linear features alone:

    >>> import numpy as np
    >>> from graphrkhs import grls_fit, pairwise_kernel
    >>> x = np.linspace(-1, 1, 9)[:, None]
    >>> Psi = np.hstack([np.ones((9, 1)), x])
    >>> c, beta = grls_fit(pairwise_kernel(x, sigma=0.5), Psi, 2.0 - 3.0 * x[:, 0], gamma=0.1)
    >>> bool(np.abs(c).max() < 1e-10), np.round(beta, 10).tolist()
    (True, [2.0, -3.0])
    """
    gamma = check_scalar(gamma, "gamma", low=0)
    Phi = check_matrix(Phi, "Phi", square=True)
    Y2, was_1d = _as_2d(Y)
    m = Y2.shape[0]
    if Phi.shape != (m, m):
        raise ValueError(f"Phi must have shape ({m}, {m}); got {Phi.shape}.")
    # the Cholesky / eigen solves read one triangle of Phi: np.triu(Phi) was fitted as its diagonal, silently
    check_symmetric_kernel(Phi, "Phi", "pass the kernel matrix Phi of the m labeled points with itself.")
    Psi = check_matrix(Psi, "Psi", min_size=0).astype(Phi.dtype, copy=False)
    if Psi.ndim != 2 or Psi.shape[0] != m:
        raise ValueError(f"Psi must have shape ({m}, q); got {Psi.shape}.")
    _orth_basis(Psi, "features")
    # Y in units of a power of two (exact; c and beta are linear in Y): cast to a float32 Phi, targets of 1e45
    # became inf (NaN coefficients) and of 1e-50 zero -- one power a column there; float64, as rls_fit
    f32 = Phi.dtype == np.float32
    Y2, e = _float32_column_units(Y2) if f32 else in_target_units(Y2)
    rhs = np.hstack([Y2.astype(Phi.dtype), Psi])
    eps = np.finfo(Phi.dtype).eps
    top = float(np.abs(np.diagonal(Phi)).max()) if m else 0.0
    if m * gamma > np.sqrt(eps) * top:
        Z = _psd_solve(Phi + (m * gamma) * np.eye(m, dtype=Phi.dtype), rhs)
        AinvY, AinvPsi = Z[:, :Y2.shape[1]], Z[:, Y2.shape[1]:]
        S = Psi.T @ AinvPsi
        beta = np.linalg.solve((S + S.T) / 2, Psi.T @ AinvY)
        c = AinvY - AinvPsi @ beta
    else:
        # m gamma within sqrt(eps) of Phi's scale (gamma = 0: interpolation).  Phi may be singular
        # (a point given twice, a linear kernel on more points than dimensions), and a Cholesky solve of
        # Phi + m gamma I then returns A^{-1} y with a part of size 1/(m gamma) along the null space, whose
        # rounding leaks into beta: a point with two targets moved a distinct point's fit by 0.17 at
        # gamma = 0 and by 0.06 at 1e-15.  Solved on the constraint's null space instead: c = Q z with
        # Q an orthonormal basis of the complement of range(Psi) (so Psi^T c = 0), (Q^T Phi Q + m gamma I) z
        # = Q^T y, and Psi beta = y - Phi c - m gamma c in least squares (Psi^T c = 0: the last term drops).
        # The eigenvectors of Q^T Phi Q at its rounding level (directions with Phi c = 0, which carry no
        # function value and do not enter beta) are left out: exact in the limit gamma -> 0+.  (The
        # pseudo-inverse of A on Phi's own range dropped the features' part in Phi's null space: the linear
        # kernel on 8 points in R^2 with a constant feature fitted y = 2 x_0 + x_1 with intercept 8.7 and
        # errors up to 13.1 at gamma = 1e-8, where 1e-6 fitted it to 6e-6.  Q is a basis, not the projector
        # I - U U^T: that one's eigenvector of range(Psi), at the rounding level, mixed with Phi's smallest.)
        # B and, inside eigh, LAPACK's copy of it, the eigenvectors and syevd's 1 + 6m + 2m^2 workspace: 5.16 m^2
        # beyond Phi measured (RSS, m = 3000; 3 m^2 was estimated before, which tracemalloc's 2.0 does not refute:
        # it does not see LAPACK's memory)
        memory_guard(5.5 * Phi.itemsize * m * m, f"the eigendecomposition of a {m} x {m} Gram matrix",
                     "use a larger gamma or fewer labeled points.")
        q = Psi.shape[1]
        # Q = H_1 ... H_q = I - V T V^T from LAPACK's Householder QR of Psi (Q^T Psi = [R; 0]; T by LAPACK's
        # larft recurrence): Q^T Phi Q is Phi less a symmetric rank-2q update, one syr2k in place (no m x m Q)
        V, T, R = _compact_wy(Psi)
        B = np.asfortranarray((Phi + Phi.T) / 2)
        W = B @ V
        S = T.T @ (V.T @ W) @ T
        Z = W @ T - V @ (S / 2)                 # Q^T B Q = B - V Z^T - Z V^T  (S symmetric)
        syr2k, = sla.get_blas_funcs(("syr2k",), (B,))
        B = syr2k(-1.0, V, Z, beta=1.0, c=B, lower=1, overwrite_c=1)     # the lower triangle
        B = np.asfortranarray(B[q:, q:])        # Q2^T Phi Q2 (the m x m one is freed before eigh)
        with small_dense_threads(m):
            lam, E = np.linalg.eigh(B, UPLO="L")
        del B
        keep = lam > m * eps * top
        Ek = E[:, keep]
        Y2 = Y2.astype(Phi.dtype, copy=False)
        QtY = Y2 - V @ (T.T @ (V.T @ Y2))
        z = np.zeros((m, Y2.shape[1]), dtype=Phi.dtype)
        z[q:] = Ek @ ((Ek.T @ QtY[q:]) / (lam[keep] + m * gamma)[:, None])
        c = z - V @ (T @ (V.T @ z))             # c = Q z
        res = Y2 - Phi @ c
        res = res - V @ (T.T @ (V.T @ res))     # Q^T (y - Phi c) = [R beta; 0]
        beta = sla.solve_triangular(R, res[:q])
    if f32:
        c, beta = _float32_from_units(c, e, "Phi"), _float32_from_units(beta, e, "Phi")
    else:
        c, beta = from_target_units(c, e, "Y"), from_target_units(beta, e, "Y")
    return (c[:, 0], beta[:, 0]) if was_1d else (c, beta)


def grls_fit_constructed(kernel: Any, X: ArrayLike, Y: ArrayLike, gamma: float, *,
                         as_printed: bool = False) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""G-RLS through the constructed kernel (Li, Lee & Leung 2006, Eqs. 19-27).

    With the anchors :math:`a_1..a_q` of ``kernel`` (a :class:`~graphrkhs.GRLSKernel`
    built on X) and the other points R,
    :math:`f = \sum_p \tilde\alpha_p \varphi_p + \sum_{i \in R} \tilde c_i H_{x_i}` (Eq. 19),
    the values at the training points (anchors first) are
    :math:`\tilde K z`, :math:`\tilde K = \begin{bmatrix} I & 0\\ E^T & H\end{bmatrix}`,
    :math:`E = [\varphi_p(x_i)]_{p, i\in R}`, :math:`H = [H(x_i, x_j)]_{i,j\in R}`, and
    :math:`\|f - Pf\|^2 = z^T \tilde H z`, :math:`\tilde H = \mathrm{diag}(0, H)`
    (Eqs. 20-22).  The minimizer of (2) solves

    .. math:: (\tilde K^T \tilde K + m\gamma \tilde H)\, z = \tilde K^T y

    — the paper's Eq. (23) prints :math:`\tilde K^2` and :math:`\tilde K y`, but
    :math:`\tilde K` is not symmetric; :math:`\tilde K^T` is the derivative of
    :math:`\tilde K z`.  For :math:`\gamma > 0` the matrix is SPD (H is PD on
    distinct points), solved by Cholesky; at :math:`\gamma = 0` the minimum-norm
    least-squares solution of :math:`\tilde K z = y`, the :math:`\gamma \to 0`
    limit (copies of a point make :math:`\tilde K` singular; the directions the
    solution leaves free carry the zero function).  ``as_printed=True`` follows the printed
    Eqs. (26)-(27) instead: :math:`\tilde\alpha = y_1`,
    :math:`(H + m\gamma I)\tilde c = y_2 - E^T\tilde\alpha`, which interpolates the
    q anchors and depends on which points are anchors (kept only to
    reproduce the paper).

    Parameters
    ----------
    kernel : GRLSKernel
        Built on the same X.
    X : ndarray of shape (m, d)
    Y : ndarray of shape (m,) or (m, k)
    gamma : float >= 0
        0 with ``as_printed``: the limit :math:`\gamma \to 0`,
        :math:`\tilde c = H^+ (y_2 - E^T\tilde\alpha)` (minimum norm; H is
        singular for copies of a point).
    as_printed : bool, default=False

    Returns
    -------
    alpha_tilde : ndarray (q,) or (q, k)
        Coefficients of the Lagrange features :math:`\varphi_p`.
    c_tilde : ndarray (m - q,) or (m - q, k)
        Coefficients of :math:`H_{x_i}` for the non-anchor points.
    rest : ndarray of int (m - q,)
        Row indices of the non-anchor points in X.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import GRLSKernel, grls_fit_constructed
    >>> x = np.linspace(-1, 1, 9)[:, None]
    >>> Kc = GRLSKernel(x, features="linear", sigma=0.5)
    >>> a, c, rest = grls_fit_constructed(Kc, x, 2.0 - 3.0 * x[:, 0], gamma=0.1)
    >>> bool(np.abs(c).max() < 1e-8)                     # reproduction: c = 0
    True
    """
    gamma = check_scalar(gamma, "gamma", low=0)
    X = check_points(X, "X")
    Y2, was_1d = _as_2d(Y)
    m = X.shape[0]
    if Y2.shape[0] != m:
        raise ValueError(f"Y must have {m} rows; got {Y2.shape[0]}.")
    a = kernel.anchors
    # the anchors are row indices of the points the kernel was built on: of other points they picked other rows (a
    # silently wrong fit, 0.26 off the minimizer at a training point) or rows X does not have (an IndexError)
    # (compared in float32 when either is float32: the same points in float32 are the same points)
    anchor_points = np.asarray(kernel.anchor_points)
    common = np.float32 if np.float32 in (X.dtype, anchor_points.dtype) else np.float64
    if a.size and (int(a.max()) >= m or X.shape[1] != anchor_points.shape[1]
                   or not np.array_equal(X[a].astype(common), anchor_points.astype(common))):
        raise ValueError(f"kernel was built on other points than X ({m} rows here; its anchors are rows "
                         f"{a.tolist()} of the points it was built on): build GRLSKernel(X, ...) on the points "
                         "passed as X.")
    rest = np.setdiff1d(np.arange(m), a)
    q = a.size
    if rest.size == 0:
        # exactly q points, all anchors: the features interpolate them (the Lagrange basis at its own nodes is the
        # identity), no H part; the kernel's Lagrange / H evaluations refused an empty X ("A must have at least 1
        # sample(s)"), while method="saddle" gave this interpolant
        alpha = Y2[a].astype(np.float64)
        c = np.zeros((0, Y2.shape[1]))
        return (alpha[:, 0], c[:, 0], rest) if was_1d else (alpha, c, rest)
    E = kernel.lagrange(X[rest]).T.astype(np.float64)        # (q, m - q)
    H = kernel.H(X[rest]).astype(np.float64)
    H = (H + H.T) / 2
    Ya, Yr = Y2[a].astype(np.float64), Y2[rest].astype(np.float64)
    if as_printed:
        alpha = Ya
        if gamma == 0:
            # the gamma -> 0 limit, H^+ (y_2 - E^T alpha): H is singular for copies of a point, and Cholesky's
            # rounding-level shift turned a conflicting copy's target into coefficients ~1/eps whose rounding
            # reached the predictions (0.019 off the limit on 8 points with two conflicting copies).  As rls_fit's
            # interpolation: Cholesky first, the minimum-norm eigen-solve only for the columns it does not solve
            # (the eigen-solve for every column cost 14x the time and lost accuracy on 1500 distinct points)
            rhs = Yr - E.T @ alpha
            c = _psd_solve(H, rhs)
            with np.errstate(over="ignore", invalid="ignore"):
                bad = ~(_relative_norms(H @ c - rhs, rhs) <= np.sqrt(np.finfo(H.dtype).eps))
            if bad.any():
                c[:, bad] = _min_norm_psd_solve(H, rhs[:, bad])
        else:
            c = _psd_solve(H + m * gamma * np.eye(rest.size), Yr - E.T @ alpha)
    else:
        Kt = np.block([[np.eye(q), np.zeros((q, rest.size))], [E.T, H]])
        if gamma == 0:
            # the least-squares fit itself, of minimum norm: Kt is singular for copies of a point (equal rows of
            # H), and the Cholesky factor of Kt^T Kt then had pivots at its rounding, giving the copies
            # coefficients of opposite signs ~1e16 whose rounding reached the predictions (features="linear",
            # 18 labeled rows with 3 copies: 2.18 off the minimizer, 29.1 with a conflicting copy).  Kt's null
            # space (alpha = 0, c in the null space of H) carries the zero function, so the minimum norm
            # solution is the gamma -> 0+ limit
            z = sla.lstsq(Kt, np.vstack([Ya, Yr]), lapack_driver="gelsy", check_finite=False)[0]
        else:
            Ht = np.zeros((m, m))
            Ht[q:, q:] = H
            A = Kt.T @ Kt + m * gamma * Ht
            z = _psd_solve((A + A.T) / 2, Kt.T @ np.vstack([Ya, Yr]))
        alpha, c = z[:q], z[q:]
    if was_1d:
        return alpha[:, 0], c[:, 0], rest
    return alpha, c, rest
