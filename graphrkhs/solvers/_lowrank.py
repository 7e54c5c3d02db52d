r"""Low-rank (Nystrom) solvers of the inductive learners: LapRLS, PLapRLS, PRLS at any n.

All of them restrict the function to the Nystrom subspace
:math:`\mathcal H_Z = \mathrm{span}\{k(z_j, \cdot)\}_{j=1}^m` of the RKHS
(:class:`~graphrkhs.NystromFeatures`): with the features
:math:`\phi(x) = \Lambda_r^{-1/2} U_r^T k(Z, x)` (:math:`K_{ZZ} = U\Lambda U^T`),

.. math::

    f = \sum_{j=1}^m \beta_j k(z_j, \cdot) = \phi(\cdot)^T w,\qquad
    w = \Lambda_r^{1/2} U_r^T \beta,\qquad \|f\|_K^2 = \beta^T K_{ZZ}\beta = \|w\|^2,

and :math:`F = \phi(X)` (n x r) holds the values of the features at the n
training points, so that :math:`\mathbf f = F w` there.  Every objective of
the exact solvers is then a quadratic in the r (+ o) unknowns, whose normal
equations are an r x r (or (r + o) x (r + o)) system assembled with sparse
products :math:`M F` (n x r) and one :math:`F^T (MF)` product:
cost :math:`O(n r^2 + \mathrm{nnz}(M)\, r + r^3)`, memory :math:`O(n r)`, never
an n x n array.

When the landmarks are all n points (``n_components >= n``) and K is
nonsingular, :math:`\mathcal H_Z` contains the representer solution of
every one of these problems, so the low-rank solution *is* the exact one
(tested to rounding level).  With m < n landmarks the error is that of
restricting to :math:`\mathcal H_Z`: the tests bound it on small problems
(relative error of the decision values and agreement of the predicted
classes; see ``tests/solvers/test_lowrank.py``).

The estimators choose this path with ``solver="nystrom"`` or, by
``solver="auto"``, above ``NYSTROM_AUTO_MIN_N`` = 10000 training rows.

:func:`select_laprls_lowrank` uses the same surrogate at every n for a
different purpose: to *select* LapRLS's kernel width jointly with
:math:`(\gamma_I/\gamma_A, \gamma_A)` (exact LOO of the surrogate over the whole
grid, no n x n factorization), before one exact fit at the selected point.
"""

from typing import Any, Dict, Optional, Sequence, Tuple, Union

import numpy as np
import scipy.sparse as sp

from .._core.labels import _check_labeled_index
from .._core.linalg import psd_part, psd_solve as _psd_solve, small_dense_threads
from .._core.loo import KernelRidgePath, check_ridges
from .._core.types import ArrayLike, Indices, MatrixLike
from .._core.validation import (_as_2d, check_flag, check_matrix, check_points, check_random_state, check_scalar,
                                memory_guard, numeric_axis)
from ..kernels import NYSTROM_AUTO_MIN_N, NystromFeatures, pairwise_kernel
from ._kernel import _psd_penalty, _snap, _undetermined_directions, _warn_undetermined
from ._selection import (SCORINGS, GridResult, ManifoldRidgePath, _check_selection_labels, _path_scores,
                         geometric_grid, growing_axes, held_selection_warnings, release_selection_warnings,
                         report_grid_edge, select_grid, select_kernel_ridge)

__all__ = ["nystrom_laprls_fit", "nystrom_plaprls_fit", "nystrom_consistency_grams", "select_nystrom_laprls",
           "select_laprls_lowrank"]

#: The estimators' ``solver="auto"`` takes the Nystrom path above this many training rows.
LOWRANK_MIN_N = NYSTROM_AUTO_MIN_N


def _feature_problem(F, labeled, Y, M):
    """Checked (F float64, S, Y2 float64, was_1d, M csr float64)."""
    F = np.asarray(check_matrix(F, "F"), dtype=np.float64)
    if F.ndim != 2:
        raise ValueError(f"F must be a 2-D (n, r) array of features; got shape {F.shape}.")
    n = F.shape[0]
    S = _check_labeled_index(labeled, n)
    Y2, was_1d = _as_2d(Y)
    if Y2.shape[0] != S.size:
        raise ValueError(f"Y must have one row per labeled point ({S.size}); got {Y2.shape[0]}.")
    M = sp.csr_array(check_matrix(M, "M", allow_sparse=True), dtype=np.float64)   # NaN in M: named before work
    if M.shape != (n, n):
        raise ValueError(f"M must have shape ({n}, {n}), one row per row of F; got {M.shape}.")
    return F, n, S, np.asarray(Y2, dtype=np.float64), was_1d, M


def _graph_gram(F, M, given=None):
    r""":math:`F^T M F` (r x r, symmetrized) from one sparse product, or the checked ``given`` one."""
    r = F.shape[1]
    if given is not None:
        G = np.asarray(check_matrix(given, "graph_gram", square=True), dtype=np.float64)
        if G.shape != (r, r):
            raise ValueError(f"graph_gram must be F^T M F of shape ({r}, {r}); got {G.shape}.")
        return G
    with small_dense_threads(F.shape[0]):      # n <= SMALL_DENSE_ORDER: an r x n x r product of small orders
        G = F.T @ np.asarray(M @ F)
    return (G + G.T) / 2


def _warped_lowrank(F, S, M, graph_gram=None):
    r"""The low-rank warped Gram on the labeled rows for every ratio, from one r x r eigendecomposition.

    With :math:`F^T M F / n^2 = V D V^T`, :math:`A = F_S V` (l x r) and
    :math:`d = \operatorname{diag} D` (clipped at 0), the warped Gram of the ratio
    :math:`\rho = \gamma_I/\gamma_A` is

    .. math:: K_\rho = F_S (I + \rho F^T M F / n^2)^{-1} F_S^T = A \operatorname{diag}(1/(1 + \rho d)) A^T

    (:math:`O(l^2 r)` per ratio).  Returns ``(A, d, F^T M F)``.
    """
    G0 = _graph_gram(F, M, graph_gram)
    with small_dense_threads(G0.shape[0]):
        d, V = np.linalg.eigh(G0 / float(F.shape[0]) ** 2)
    return F[S] @ V, np.maximum(d, 0.0), G0


def _warped_lowrank_gram(A, d, rho):
    r""":math:`K_\rho` of :func:`_warped_lowrank` (l x l, symmetrized); of the R of a thin QR ``A = QR``, the
    core :math:`R \operatorname{diag}(1/(1 + \rho d)) R^T` of :math:`K_\rho = Q\,[\cdot]\,Q^T`."""
    with small_dense_threads(A.shape[0]):
        K = (A / (1.0 + float(rho) * d)) @ A.T
    return (K + K.T) / 2


def nystrom_laprls_fit(F: ArrayLike, labeled: Indices, Y: ArrayLike, M: MatrixLike, gamma_A: float,
                       gamma_I: float, *, return_info: bool = False, graph_gram: Optional[ArrayLike] = None
                       ) -> Union[np.ndarray, Tuple[np.ndarray, Dict[str, Any]]]:
    r"""LapRLS restricted to the Nystrom subspace (Belkin, Niyogi & Sindhwani 2006, Eq. 14).

    The LapRLS objective over :math:`f = \sum_j \beta_j k(z_j, \cdot)`,

    .. math::

        \min_{\beta \in \mathbb R^m} \frac1l \|Y - K_{SZ}\beta\|^2 + \gamma_A \beta^T K_{ZZ}\beta
        + \frac{\gamma_I}{n^2} \beta^T K_{nZ}^T M K_{nZ}\beta,

    is, in the feature coordinates :math:`w = \Lambda_r^{1/2}U_r^T\beta`
    (:math:`K_{nZ} U_r\Lambda_r^{-1/2} = F`, see the module notes),

    .. math::

        \min_w \frac1l \|Y - F_S w\|^2 + \gamma_A \|w\|^2 + \frac{\gamma_I}{n^2} w^T F^T M F w
        \;\Longleftrightarrow\;
        \Big(F_S^T F_S + \gamma_A l\, I + \tfrac{\gamma_I l}{n^2} F^T M F\Big) w = F_S^T Y,

    an r x r SPD system (Cholesky).  :math:`f(x) = \phi(x)^T w`; as a kernel
    expansion on the landmarks, :math:`\beta = T w` with
    :math:`T` = ``NystromFeatures.transform_matrix_``.

    Parameters
    ----------
    F : ndarray of shape (n, r)
        Nystrom features of the n training points (``NystromFeatures(X).features_``).
    labeled : int indices (l,) or bool mask (n,)
    Y : ndarray of shape (l,) or (l, k)
    M : sparse (n, n)
        The graph penalty :math:`L^p` (:func:`~graphrkhs.graph_penalty`).
    gamma_A : float > 0
    gamma_I : float >= 0
    return_info : bool, default=False
        Also return ``{"solver": "nystrom", "rank": r}``.
    graph_gram : ndarray of shape (r, r), optional
        :math:`F^T M F` if already computed (e.g. by :func:`select_nystrom_laprls`'s
        ``return_graph_gram``): the :math:`O(n r^2)` product is then not repeated.

    Returns
    -------
    w : ndarray of shape (r,) or (r, k), float64

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import NystromFeatures, knn_graph, graph_penalty, nystrom_laprls_fit
    >>> X = np.linspace(0, 1, 30)[:, None]
    >>> ny = NystromFeatures(X, sigma=0.2, n_components=12, landmarks="uniform", random_state=0)
    >>> w = nystrom_laprls_fit(ny.features_, [0, 29], np.array([1.0, -1.0]),
    ...                        graph_penalty(knn_graph(X, 3)), 1e-4, 1.0)
    >>> f = ny.transform(np.array([[0.05], [0.95]])) @ w
    >>> bool(f[0] > 0 > f[1])
    True
    """
    check_flag(return_info, "return_info")
    gamma_A = check_scalar(gamma_A, "gamma_A", low=0, low_inclusive=False)
    gamma_I = check_scalar(gamma_I, "gamma_I", low=0)
    F, n, S, Y2, was_1d, M = _feature_problem(F, labeled, Y, M)
    l = S.size
    FS = F[S]
    A = FS.T @ FS
    A.flat[::A.shape[0] + 1] += gamma_A * l
    if gamma_I > 0:
        # F^T M F is PSD; its computed negative eigenvalues are rounding (-2.4e-15 for constant features, whose
        # exact value is 0), which a large gamma_I (the selection's 1e23 on identical points) turned into an
        # indefinite system.  Its PSD part, as the selection's surrogate clips them (_warped_lowrank)
        A += (gamma_I * l / float(n) ** 2) * psd_part(_graph_gram(F, M, graph_gram))[0]
    w = _psd_solve((A + A.T) / 2, FS.T @ Y2)
    w = w[:, 0] if was_1d else w
    return (w, {"solver": "nystrom", "rank": F.shape[1]}) if return_info else w


def nystrom_plaprls_fit(F: ArrayLike, labeled: Indices, Y: ArrayLike, M: MatrixLike, gamma_A: float,
                        gamma_I: float, *, P: Optional[ArrayLike] = None, Psi: Optional[ArrayLike] = None
                        ) -> Tuple[np.ndarray, np.ndarray]:
    r"""PLapRLS (Yang, King & Lyu 2009, Eq. 12) restricted to the Nystrom subspace.

    With :math:`\mathbf f = F w + \Psi\beta` on the n points, the objective
    (:func:`~graphrkhs.plaprls_fit`)

    .. math::

        \frac1l \|Y - F_S w - \Psi_S\beta\|^2 + \gamma_A\, w^T P w
        + \frac{\gamma_I}{n^2} (F w + \Psi\beta)^T M (F w + \Psi\beta)

    has the symmetric PSD normal equations (:math:`\lambda_1 = \gamma_A l`,
    :math:`\lambda_2 = \gamma_I l / n^2`)

    .. math::

        \begin{bmatrix} F_S^T F_S + \lambda_1 P + \lambda_2 F^T M F & F_S^T\Psi_S + \lambda_2 F^T M\Psi \\
        \cdot & \Psi_S^T\Psi_S + \lambda_2 \Psi^T M \Psi \end{bmatrix}
        \begin{bmatrix} w\\ \beta\end{bmatrix} =
        \begin{bmatrix} F_S^T Y \\ \Psi_S^T Y\end{bmatrix}.

    The penalty :math:`\|f - L_K f\|_K^2`: with the empirical integral
    operator and the normalized kernel :math:`\hat K \approx F F^T` (pass the
    features of :math:`\hat K = K/\kappa`), :math:`L_K f = \phi^T (F^T F / n) w`,
    so :math:`f - L_K f = \phi^T (I - C) w`, :math:`C = F^T F / n`, and
    :math:`P = (I - C)^2` (``P=None``; for m = n it is the exact
    :math:`\alpha^T K (I - K/n)^2 \alpha` of :func:`~graphrkhs.plaprls_fit`).
    For the heat operator pass :math:`P = T^T (K_t - 2K_{2t} + K_{3t})_{ZZ} T`.
    Solved by Cholesky (:math:`\Psi\beta` may duplicate a feature direction:
    the shift of the PSD solve handles it).  A target in the span of
    :math:`\Psi` gives :math:`w = 0` (checked).  With ``P=None``, a direction
    :math:`F^T d` with :math:`F F^T d = n d`, :math:`d` in the span of
    :math:`\Psi`, is invisible to the objective (see :func:`~graphrkhs.plaprls_fit`):
    it is removed from w (beta refitted) with a :class:`~graphrkhs.GraphRKHSWarning`.

    Parameters
    ----------
    F : ndarray (n, r)
        Features of the (normalized) kernel at the n points.
    labeled, Y, M, gamma_A, gamma_I :
        As in :func:`nystrom_laprls_fit` (``gamma_A >= 0``).
    P : ndarray (r, r), optional
        The penalty in feature coordinates; None: the empirical :math:`(I - F^TF/n)^2`.
        An indefinite P (the heat penalty with m below the number of features) is
        replaced by its PSD part, with a warning (as in :func:`~graphrkhs.plaprls_fit`).
    Psi : ndarray (n, o), optional
        Null-space basis at the n points; None: constants.

    Returns
    -------
    w : ndarray (r,) or (r, k)
    beta : ndarray (o,) or (o, k)

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import NystromFeatures, knn_graph, graph_penalty, nystrom_plaprls_fit
    >>> X = np.linspace(0, 1, 30)[:, None]
    >>> F = NystromFeatures(X, sigma=0.2, n_components=30).features_
    >>> w, b = nystrom_plaprls_fit(F, [0, 29], np.array([2.0, 2.0]), graph_penalty(knn_graph(X, 3)), 1e-3, 1.0)
    >>> bool(np.abs(w).max() < 1e-10), round(float(b[0]), 8)
    (True, 2.0)
    """
    gamma_A = check_scalar(gamma_A, "gamma_A", low=0)
    gamma_I = check_scalar(gamma_I, "gamma_I", low=0)
    F, n, S, Y2, was_1d, M = _feature_problem(F, labeled, Y, M)
    l, r = S.size, F.shape[1]
    lam1, lam2 = gamma_A * l, gamma_I * l / float(n) ** 2
    empirical = P is None
    if P is None:
        C = F.T @ F / n
        IC = np.eye(r) - (C + C.T) / 2
        P = IC @ IC
    else:
        P = np.asarray(check_matrix(P, "P", square=True), dtype=np.float64)
        if P.shape != (r, r):
            raise ValueError(f"P must have shape ({r}, {r}), one row per feature; got {P.shape}.")
        P = _psd_penalty(P, "the PLapRLS penalty P (feature coordinates)")
    Psi = np.ones((n, 1)) if Psi is None else np.asarray(check_matrix(Psi, "Psi", min_size=0), dtype=np.float64)
    if Psi.ndim != 2 or Psi.shape[0] != n:
        raise ValueError(f"Psi must have shape ({n}, o); got {Psi.shape}.")
    o = Psi.shape[1]
    FS, PS = F[S], Psi[S]
    MF, MPsi = np.asarray(M @ F), np.asarray(M @ Psi)
    A = np.empty((r + o, r + o))
    A[:r, :r] = FS.T @ FS + lam1 * P
    A[:r, r:] = FS.T @ PS
    A[r:, :r] = A[:r, r:].T
    A[r:, r:] = PS.T @ PS
    if lam2 > 0:
        # the graph term [F Psi]^T M [F Psi] is PSD; its rounding-level negative eigenvalues (constant
        # features: exactly 0, computed -2e-15) times a huge gamma_I made the system indefinite (LinAlgError
        # at gamma_I = 1e23): its PSD part, as nystrom_laprls_fit
        B = np.hstack([F, Psi])
        GB = B.T @ np.hstack([MF, MPsi])
        A += lam2 * psd_part((GB + GB.T) / 2)[0]
    rhs = np.vstack([FS.T @ Y2, PS.T @ Y2])
    # the graph term of the basis, lam2 (Psi b)^T M (Psi b), vanishes when M Psi = 0 (constants under a
    # combinatorial Laplacian) or lam2 = 0; only then is a target in the span of Psi fitted by beta alone
    m_scale = float(abs(M).sum(axis=1).max(initial=0.0))         # M: sparse (_feature_problem)
    basis_graph_free = lam2 == 0 or np.linalg.norm(MPsi) <= 1e-10 * m_scale * np.linalg.norm(Psi)
    if o and basis_graph_free:
        # a target in the span of Psi is reproduced by beta alone: its projected residual is rounding
        Q = np.linalg.qr(PS)[0]
        if not _snap(Y2 - Q @ (Q.T @ Y2), Y2).any():
            beta = np.linalg.lstsq(PS, Y2, rcond=None)[0]
            w = np.zeros((r, Y2.shape[1]))
            return (w[:, 0], beta[:, 0]) if was_1d else (w, beta)
    z = _psd_solve((A + A.T) / 2, rhs)
    w, beta = z[:r], z[r:]
    if o and empirical:
        # w along F^T d / n with F F^T d = n d, d in the span of Psi: no change of the fit on the points (beta
        # absorbs F w there) nor of the penalty, different predictions at new points (plaprls_fit's
        # _plaprls_determined): removed, and beta refitted to the w kept
        D = _undetermined_directions(lambda V: F @ (F.T @ V), Psi, n)
        if D is not None:
            _warn_undetermined("nystrom_plaprls_fit")
            Wd = np.linalg.qr(F.T @ D)[0]
            w = w - Wd @ (Wd.T @ w)
            Fw = F @ w
            beta = np.linalg.lstsq(A[r:, r:], PS.T @ (Y2 - Fw[S]) - lam2 * (MPsi.T @ Fw), rcond=None)[0]
    return (w[:, 0], beta[:, 0]) if was_1d else (w, beta)


def nystrom_consistency_grams(XS: ArrayLike, X: ArrayLike, F: ArrayLike, *, kernel: Any = "gaussian",
                              sigma: float = 1.0, degree: int = 2, coef0: float = 1.0
                              ) -> Tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    r"""PRLS's empirical :math:`K, K', K''` (:func:`~graphrkhs.consistency_grams`) with a Nystrom :math:`K_{nn}`.

    The exact empirical grams need :math:`K_{nn}` twice: in the normalization
    :math:`\kappa = 1^T K_{nn} 1 / n^2` and in
    :math:`K'' = \hat K_{Sn} \hat K_{nn} \hat K_{nS} / n^2` (n^2 kernel
    evaluations).  Here :math:`K_{nn} \approx F F^T`:

    .. math::

        \kappa = \|F^T 1\|^2 / n^2,\quad K = K_{SS}/\kappa,\quad
        K' = K_{Sn}K_{nS} / (n \kappa^2),\quad
        K'' = (K_{Sn} F)(F^T K_{nS}) / (n^2 \kappa^3),

    with :math:`K_{nS}` exact (n l kernel evaluations).  Exact when
    :math:`FF^T = K_{nn}` (all points as landmarks).

    Parameters
    ----------
    XS : array (l, d)
        The labeled points.
    X : array (n, d)
        All points (the empirical measure).
    F : array (n, r)
        Nystrom features of X for the same kernel.
    kernel, sigma, degree, coef0 :
        As in :func:`~graphrkhs.pairwise_kernel`.

    Returns
    -------
    K, Kp, Kpp : ndarrays (l, l); kappa : float

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import NystromFeatures, consistency_grams, nystrom_consistency_grams
    >>> X = np.random.default_rng(0).uniform(size=(30, 1))
    >>> F = NystromFeatures(X, sigma=0.05, n_components=30).features_
    >>> exact = consistency_grams(X[:5], X, sigma=0.05)
    >>> low = nystrom_consistency_grams(X[:5], X, F, sigma=0.05)
    >>> all(np.allclose(a, b, rtol=1e-6, atol=1e-9) for a, b in zip(exact, low))
    True
    """
    XS = check_points(XS, "XS")
    X = check_points(X, "X")
    F = np.asarray(check_matrix(F, "F"), dtype=np.float64)
    n = X.shape[0]
    if F.ndim != 2 or F.shape[0] != n:
        raise ValueError(f"F must have shape ({n}, r), one row per row of X; got {F.shape}.")
    kw = dict(kernel=kernel, sigma=sigma, degree=degree, coef0=coef0)
    s = F.sum(axis=0)
    kappa = float(s @ s) / (n * n)
    if not np.isfinite(kappa) or kappa <= 0:
        raise ValueError(f"the empirical integral operator normalizes the kernel by its mean value, which is "
                         f"{kappa:g} here; use a kernel with positive mean (e.g. 'gaussian').")
    KnS = np.asarray(pairwise_kernel(X, XS, **kw), dtype=np.float64)
    K = np.asarray(pairwise_kernel(XS, None, **kw), dtype=np.float64) / kappa
    Kp = KnS.T @ KnS / (n * kappa ** 2)
    FK = F.T @ KnS
    Kpp = FK.T @ FK / (n * n * kappa ** 3)
    return K, (Kp + Kp.T) / 2, (Kpp + Kpp.T) / 2, kappa


def select_nystrom_laprls(F: ArrayLike, labeled: Indices, Y: ArrayLike, M: MatrixLike, gamma_As: ArrayLike,
                          ratios: ArrayLike, *, fit_intercept: bool = False, max_extensions: int = 0,
                          return_graph_gram: bool = False, graph_gram: Optional[ArrayLike] = None,
                          centred: bool = False, loo_rows: Any = None, loo_groups: Optional[ArrayLike] = None
                          ) -> Union[GridResult, Tuple[GridResult, np.ndarray]]:
    r"""Exact leave-one-out choice of :math:`(\gamma_A, \gamma_I)` for :func:`nystrom_laprls_fit`.

    For a ratio :math:`\rho = \gamma_I/\gamma_A`, with
    :math:`B_\rho = I + \frac{\rho}{n^2} F^T M F` (r x r, SPD), the fitted
    values at the labeled points are :math:`H Y` with the hat matrix

    .. math::

        H = F_S (F_S^T F_S + \gamma_A l B_\rho)^{-1} F_S^T
          = K_\rho (K_\rho + \gamma_A l I)^{-1},\qquad K_\rho = F_S B_\rho^{-1} F_S^T,

    a kernel-ridge hat matrix in the l x l kernel :math:`K_\rho` (the
    low-rank warped kernel on S).  Leaving labeled point i out of the loss
    (it stays in the graph) is a rank-one change of the system, so the
    classical LOO identity :math:`(y_i - \hat y_i)/(1 - H_{ii})` is exact, and
    one eigendecomposition of :math:`K_\rho` serves the whole :math:`\gamma_A`
    path (:func:`~graphrkhs.select_kernel_ridge`, its width axis being
    :math:`\rho`).  Every ratio's :math:`K_\rho` comes from one r x r
    eigendecomposition :math:`F^T M F / n^2 = V D V^T`:
    :math:`K_\rho = A (I + \rho D)^{-1} A^T`, :math:`A = F_S V` (no factorization per ratio).

    Parameters
    ----------
    F, labeled, Y, M :
        As in :func:`nystrom_laprls_fit`.
    gamma_As : sequence of float > 0
    ratios : sequence of float > 0
        :math:`\gamma_I/\gamma_A` values.
    fit_intercept : bool, default=False
        Score with a free constant (as :func:`~graphrkhs.select_kernel_ridge`).
    max_extensions : int, default=0
        Grid extensions at the edges (both axes).
    graph_gram : ndarray (r, r), optional
        :math:`F^T M F` if already computed.
    return_graph_gram : bool, default=False
        Also return :math:`F^T M F` (r x r), for the final fit
        (``nystrom_laprls_fit(..., graph_gram=...)``) without recomputing it.
    centred : bool, default=False
        ``Y`` is the targets less their labeled mean: the LOO of the centred procedure, the mean re-taken
        without the held-out label (:func:`~graphrkhs.solvers._selection.centred_loo_residuals`).
    loo_rows : None, "classes" or boolean array of shape (l,), default=None
        The rows scored (:func:`~graphrkhs.select_ridge_alpha`; a classifier's: ``"classes"``).
    loo_groups : array of int of shape (l,), optional
        Rows left out together (identical labeled points; :func:`~graphrkhs.select_ridge_alpha`).

    Returns
    -------
    GridResult
        Axes ``sigma`` (the ratio :math:`\rho`) and ``alpha`` (:math:`\gamma_A`);
        :math:`\gamma_I = \rho\gamma_A`.
    graph_gram : ndarray (r, r)
        With ``return_graph_gram=True``.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import NystromFeatures, knn_graph, graph_penalty, select_nystrom_laprls
    >>> X = np.linspace(0, 1, 40)[:, None]
    >>> F = NystromFeatures(X, sigma=0.2, n_components=20, landmarks="uniform", random_state=0).features_
    >>> res = select_nystrom_laprls(F, [0, 5, 30, 39], np.array([1.0, 1.0, -1.0, -1.0]),
    ...                             graph_penalty(knn_graph(X, 3)), [1e-4, 1e-2], [1.0, 1e3])
    >>> sorted(res.best_params)
    ['alpha', 'sigma']
    """
    check_flag(return_graph_gram, "return_graph_gram")
    # checked under their own names here (select_kernel_ridge's axes are "sigmas" and "alphas")
    gamma_As, ratios = check_ridges(gamma_As, "gamma_As"), check_ridges(ratios, "ratios")
    F, n, S, Y2, was_1d, M = _feature_problem(F, labeled, Y, M)
    _check_selection_labels(S.size)
    A, d, G0 = _warped_lowrank(F, S, M, graph_gram)     # one r x r eigendecomposition for every ratio

    def make_kernel(rho):
        return _warped_lowrank_gram(A, d, rho)

    res = select_kernel_ridge(make_kernel, Y2[:, 0] if was_1d else Y2, ratios, gamma_As, ridge_scale="l",
                              fit_intercept=fit_intercept, extend=max_extensions > 0,
                              max_extensions=max_extensions, centred=centred, loo_rows=loo_rows,
                              loo_groups=loo_groups,
                              names={"sigma": "ratio gamma_I/gamma_A", "alpha": "gamma_A"})
    return (res, G0) if return_graph_gram else res


#: Landmarks of the low-rank surrogate of :func:`select_laprls_lowrank` (uniform, the same rows for every width).
LOWRANK_SELECTION_COMPONENTS = 256
#: At most this many exact LUs are tried at the surrogate's best points (a numerically singular ratio is
#: replaced by the best point below it).
_LOWRANK_MAX_TRIES = 3


def select_laprls_lowrank(X: ArrayLike, labeled: Indices, Y: ArrayLike, M: MatrixLike, sigmas: ArrayLike,
                          gamma_As: Optional[ArrayLike] = None, ratios: Optional[ArrayLike] = None, *,
                          kernel: Any = "gaussian", degree: int = 3, coef0: float = 1.0,
                          n_components: int = LOWRANK_SELECTION_COMPONENTS, landmarks: str = "uniform",
                          random_state: Any = 0, scoring: str = "mse", extend: Union[bool, Sequence[str]] = True,
                          max_extensions: int = 2, return_coef: bool = False, return_basis: bool = False,
                          centred: bool = False, loo_rows: Any = None, loo_groups: Optional[ArrayLike] = None
                          ) -> Union[GridResult, Tuple[GridResult, np.ndarray, np.ndarray]]:
    r"""Kernel width and :math:`(\gamma_A, \gamma_I)` of LapRLS jointly, by the exact LOO of a low-rank surrogate.

    LapRLS at width :math:`\sigma` and ratio :math:`\rho = \gamma_I/\gamma_A` is kernel
    ridge on the labeled points with the warped Gram
    :math:`G_{SS} = [K (I + \rho' M K)^{-1}]_{SS}`, :math:`\rho' = \rho / n^2`
    (:class:`~graphrkhs.ManifoldRidgePath`; Sindhwani, Niyogi & Belkin 2005), whose
    exact path costs one n x n LU per (width, ratio).  Here the whole grid is
    scored on the surrogate :math:`K_\sigma \approx F F^T` (:class:`~graphrkhs.NystromFeatures`,
    ``n_components`` uniform landmarks, the same rows for every width), for which
    the push-through identity gives

    .. math:: G_{SS}(\rho) \approx F_S (I + \rho' F^T M F)^{-1} F_S^T
              = A \operatorname{diag}\big(1/(1 + \rho d)\big) A^T,
              \qquad F^T M F / n^2 = V \operatorname{diag}(d) V^T,\ A = F_S V :

    per width one r x r eigendecomposition (and for l > r one thin QR :math:`A = QR`) serves every ratio, per
    ratio one eigendecomposition of order min(l, r) (for l > r of :math:`R \operatorname{diag}(1/(1 + \rho d))
    R^T`) the whole
    :math:`\gamma_A` path (:meth:`~graphrkhs.KernelRidgePath.from_subspace`), and the LOO residuals are
    those of the surrogate model (:func:`nystrom_laprls_fit`, exactly: leaving a
    label out keeps its point in the graph), as in :func:`select_nystrom_laprls`.
    With all n points as landmarks (``n_components >= n``) the surrogate is the exact
    LapRLS path.  Cost :math:`O(n r^2 + \mathrm{nnz}(M) r + r^3)` per width, no n x n array.

    Then one exact step at the selected :math:`(\sigma, \rho)`: the n x n kernel and
    one LU of :math:`I + \rho' M K` (:class:`~graphrkhs.ManifoldRidgePath`), whose
    exact LOO re-selects :math:`\gamma_A` on the same grid, and the coefficients of the
    fit from the same LU.  A ratio whose exact system is numerically singular (large
    :math:`\rho'` makes :math:`I + \rho' M K` ill-conditioned, which the well-conditioned
    surrogate does not see) is no candidate: that ratio and the larger ones are
    dropped at that width and the wider ones (measured on circles, moons and digits:
    the largest usable ratio does not grow with the width), and the best remaining
    point of the surrogate is tried, at most 3 LUs; then ratio 0 (RLS, no LU).  The exact
    step holds three n x n float64 arrays (the kernel, :math:`MK` and the matrix factored): a
    ``MemoryError`` says so before any work when they would not fit (then
    :func:`select_nystrom_laprls` and :func:`nystrom_laprls_fit` need no n x n array).

    On noisy two circles, two moons with noise dimensions and digits (10 labels per
    class) 256 landmarks selected the same (width, ratio) as the exact LOO over the
    same grid, at a fraction of the n x n LUs that the exact grid needs.

    Parameters
    ----------
    X : ndarray of shape (n, d)
        All points (labeled and unlabeled).
    labeled : int indices (l,) or bool mask (n,)
    Y : ndarray of shape (l,) or (l, k)
        k columns are scored together, in their own units (:mod:`graphrkhs.solvers._selection`,
        "Several target columns").
    M : sparse (n, n)
        Graph penalty :math:`L^p` (:func:`~graphrkhs.graph_penalty`).
    sigmas : sequence of float > 0
        Kernel widths, in any order (sorted, repeats scored once; likewise ``gamma_As`` and ``ratios``),
        extended at the edges with ``extend``.
    gamma_As : sequence of float > 0, optional
        Default ``geomspace(1e-7, 1e1, 17)``, extended down to the rounding floor
        :math:`10^{-10} \max k(x, x)`.
    ratios : sequence of float >= 0, optional
        :math:`\gamma_I/\gamma_A`.  Default 0 (RLS) and :math:`n^2/\bar d \cdot 10^k`,
        k = -6..3 (above, the exact system :math:`I + \rho' M K` was numerically singular
        at most widths on circles, moons and digits), with :math:`\bar d = \operatorname{tr} M / n` (the graph's scale; the
        surrogate makes each ratio cost :math:`O(l^2 r)`, so the axis covers the whole
        range from RLS to the graph-dominated fit).
    kernel, degree, coef0 :
        As in :func:`~graphrkhs.pairwise_kernel`.
    n_components : int, default=256
        Landmarks of the surrogate.
    landmarks : {"uniform", "kmeans"}, default="uniform"
    random_state : int, Generator or None, default=0
        Of the landmarks (an int: the same landmark rows for every width).
    scoring : {"mse", "accuracy"}, default="mse"
    extend : bool or sequence of {"sigma", "gamma_A"}, default=True
        Extend ``sigmas`` and ``gamma_As`` at the edges (at most ``max_extensions`` times); a sequence:
        those axes grow, and the other's choice at an edge of its (one's own) grid is reported.
    max_extensions : int, default=2
    return_coef : bool, default=False
        Also return ``(alpha, b)`` (``b = 0``) of the exact fit at the selected point, f = K alpha.
    return_basis : bool, default=False
        Also return the basis :math:`Z = (I + \rho' M K)^{-1} E_S` (n, l) of the exact LU at the
        selected point (:meth:`~graphrkhs.ManifoldRidgePath.basis`).  It gives the warped kernel's
        right factors of the labeled points without another solve:
        :math:`(I + \rho' MK)^{-1}\rho' M K E_S = E_S - Z`
        (:meth:`~graphrkhs.WarpedKernel.right_factor`).
    centred : bool, default=False
        ``Y`` is the targets less their labeled mean: the LOO of the centred procedure, the mean re-taken
        without the held-out label (:func:`~graphrkhs.solvers._selection.centred_loo_residuals`).
    loo_rows : None, "classes" or boolean array of shape (l,), default=None
        The rows scored (:func:`~graphrkhs.select_ridge_alpha`; a classifier's: ``"classes"``).
    loo_groups : array of int of shape (l,), optional
        Rows left out together (identical labeled points; :func:`~graphrkhs.select_ridge_alpha`).

    Returns
    -------
    GridResult
        The surrogate's scores over the axes ``sigma``, ``ratio``, ``gamma_A``;
        ``best_params`` is the final choice (``sigma``, ``ratio``, ``gamma_A`` from the
        exact LOO, ``gamma_I``), and ``exact_scores`` the exact LOO scores over ``exact_grid``, the
        ``gamma_A`` values of the exact step at that (sigma, ratio): the grid's, grown at an edge (as the
        surrogate's axes, down to the rounding floor) when ``gamma_A`` may be extended.
    alpha, b : ndarrays of shape (n, k) and (k,), only with ``return_coef``
    Z : ndarray of shape (n, l), only with ``return_basis`` (after ``alpha, b`` when both are asked)

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import graph_penalty, knn_graph, select_laprls_lowrank
    >>> t = np.linspace(0, 2 * np.pi, 60, endpoint=False)
    >>> X = np.vstack([np.c_[np.cos(t), np.sin(t)], 3 * np.c_[np.cos(t), np.sin(t)]])
    >>> S = [0, 20, 40, 60, 80, 100]
    >>> y = np.array([1.0, 1.0, 1.0, -1.0, -1.0, -1.0])
    >>> res = select_laprls_lowrank(X, S, y, graph_penalty(knn_graph(X, 4)), [0.5, 1.0, 2.0])
    >>> sorted(res.best_params)
    ['gamma_A', 'gamma_I', 'ratio', 'sigma']
    """
    check_flag(return_coef, "return_coef")
    check_flag(return_basis, "return_basis")
    X = check_points(X, "X")
    n = X.shape[0]
    S = _check_labeled_index(labeled, n)
    _check_selection_labels(S.size)
    Y2, was_1d = _as_2d(Y)
    Y2 = np.asarray(Y2, dtype=np.float64)
    if Y2.shape[0] != S.size:
        raise ValueError(f"Y must have one row per labeled point ({S.size}); got {Y2.shape[0]}.")
    if not np.isfinite(Y2).all():
        raise ValueError("Y must be finite (no NaN or inf).")
    M = sp.csr_array(check_matrix(M, "M", allow_sparse=True), dtype=np.float64)   # NaN in M: named before work
    if M.shape != (n, n):
        raise ValueError(f"M must have shape ({n}, {n}), one row per row of X; got {M.shape}.")
    # distinct values (np.unique, as the other selections): sorted repeats reached select_grid, which refused them
    sigmas = np.unique(check_ridges(sigmas, "sigmas"))
    # the exact step (ManifoldRidgePath): K, M K and the matrix factored, three n x n float64 arrays, plus
    # the basis Z (n, l) -- estimated before the surrogate selection, which is the long part at large n
    memory_guard(8 * n * (3 * n + S.size), f"the exact step of select_laprls_lowrank (three {n} x {n} float64 "
                 f"arrays: the kernel, M K and the LU of I + rho' M K)",
                 "use select_nystrom_laprls and nystrom_laprls_fit (no n x n array), or fewer points.")
    gA = geometric_grid(1e-7, 1e1, 17) if gamma_As is None else np.unique(check_ridges(gamma_As, "gamma_As"))
    l = S.size
    if ratios is None:
        dbar = float(M.diagonal().sum()) / n
        # no edges (M = 0): every ratio is RLS
        rho = np.r_[0.0, float(n) ** 2 / dbar * 10.0 ** np.arange(-6, 4)] if dbar > 0 else np.zeros(1)
    else:
        rho = numeric_axis(ratios)
        if rho.ndim != 1 or rho.size == 0 or not (np.isfinite(rho).all() and (rho >= 0).all()):
            raise ValueError(f"ratios must be a non-empty 1-D sequence of finite numbers >= 0; got {ratios!r}.")
        rho = np.unique(rho)        # after the check: np.unique flattens a 2-D grid
    n_components = check_scalar(n_components, "n_components", kind="int", low=1)
    if scoring not in SCORINGS:
        raise ValueError(f"scoring must be one of {SCORINGS}; got {scoring!r}.")
    kw = dict(kernel=kernel, degree=degree, coef0=coef0)
    # an int seed: the same landmark rows for every width (a Generator would draw new ones per width)
    # check_random_state: numpy's default_rng takes a legacy RandomState only after the declared minimum 2.0
    seed = random_state if isinstance(random_state, (int, np.integer)) else int(
        check_random_state(random_state).integers(2**31 - 1))
    surrogate: Dict[float, Tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    first: list = []        # the landmarks, chosen once: every width is a factor on the same rows

    def parts(s):
        if s not in surrogate:
            if not first:
                first.append(NystromFeatures(X, **kw, sigma=s, n_components=min(n_components, n), tol=0,
                                             landmarks=landmarks, dtype=np.float64, random_state=seed))
                ny = first[0]
            else:
                ny = first[0].with_sigma(X, s, keep_distances=True)
            A, d = _warped_lowrank(ny.features_, S, M)[:2]
            if A.shape[0] <= A.shape[1]:
                # l <= r: the l x l Gram itself (a QR would add its cost and save nothing: 0.44 -> 0.56 s for a
                # default LapRLS fit of the digits at 100 labels)
                surrogate[s] = (A, None, d)
            else:
                # every ratio's Gram A diag(1/(1 + rho d)) A^T = Q [R diag(1/(1 + rho d)) R^T] Q^T (thin QR A =
                # QR, Q (l, r)): its path from an r x r eigendecomposition, not one of order l per ratio (78 of
                # order 1730 were 40 of the 50 s of a default LapRLS fit of the digits at 1730 labels)
                with small_dense_threads(A.shape[0]):
                    Q, R = np.linalg.qr(A)
                surrogate[s] = (Q, R, d)
        return surrogate[s]

    paths: Dict[Tuple[float, float], Any] = {}

    def evaluate(sigma, ratio, gamma_A):
        score = np.empty((sigma.size, ratio.size, gamma_A.size))
        tie = np.empty_like(score)
        for i, s in enumerate(sigma):
            Q, R, d = parts(float(s))
            for j, r in enumerate(ratio):
                key = (float(s), float(r))
                if key not in paths:
                    paths[key] = KernelRidgePath(_warped_lowrank_gram(Q, d, r)) if R is None else \
                        KernelRidgePath.from_subspace(Q, _warped_lowrank_gram(R, d, r))
                score[i, j], tie[i, j] = _path_scores(paths[key], Y2, gamma_A * l, "loo", scoring, centred,
                                                      loo_rows, loo_groups)
        return score, tie

    # the exact steps' kernels from float64 points: a float32 Gram's rounding (1e-7 of its scale) is far
    # above the gamma_A floor (1e-10), and its Cholesky failed at the selected weights on float32 data
    X64 = np.asarray(X, dtype=np.float64)
    KSS = np.asarray(pairwise_kernel(X64[S], None, **kw, sigma=float(sigmas[sigmas.size // 2])), dtype=np.float64)
    floor = 1e-10 * max(float(np.abs(np.diag(KSS)).max()), 1e-300)
    grow, report = growing_axes(extend, ("sigma", "gamma_A"))
    # the surrogate's edge warnings are held back and said of the values the exact step ends up using
    # (it may re-select gamma_A, or move off a singular ratio to another width)
    with held_selection_warnings() as held:
        res = select_grid(evaluate, {"sigma": sigmas, "ratio": rho, "gamma_A": gA},
                          extend=grow, max_extensions=max_extensions,
                          criterion="loo", bounds={"gamma_A": (floor, np.inf)}, report=report)
    surrogate_best = dict(res.best_params)
    # the exact step: one LU at the surrogate's best (sigma, ratio); a singular ratio drops it and the larger
    # ratios at that width and the wider ones.  The (sigma, ratio) are ranked by the grid's own order (score,
    # then tie-break, then the tie rule: GridResult.rank): ranked by the score alone, targets near 1e300 (MSE
    # beyond float64, every score the largest float) or 1e-300 (every MSE 0) tied everywhere and the exact
    # step took the first width, 0.296 against 19 at y ~ 1 (predictions 76 % off, the warning naming 19)
    axes = res.grid
    defined = np.isfinite(res.scores).any(axis=2)                                  # (sigma, ratio)
    best = np.where(defined, res.rank.min(axis=2), np.iinfo(np.int64).max)         # lower is better
    usable = defined.copy()
    chosen = None
    for _ in range(_LOWRANK_MAX_TRIES):
        if not usable.any():
            break
        cand = np.where(usable, best, np.iinfo(np.int64).max)
        i, j = np.unravel_index(np.argmin(cand), cand.shape)
        s, r = float(axes["sigma"][i]), float(axes["ratio"][j])
        K = np.asarray(pairwise_kernel(X64, None, **kw, sigma=s), dtype=np.float64)
        mp = ManifoldRidgePath(K, S, M)
        # the one rule of the selections: a numerically singular system or a G_SS made indefinite by
        # rounding is no candidate (KernelRidgePath clips the eigenvalues it keeps, so they cannot show it)
        path = mp.candidate_path(r, False)
        if path is None:
            usable[i:, j:] = False
            continue
        chosen = (s, r, mp, path)
        break
    if chosen is None:          # no usable ratio > 0 among the tries: RLS (ratio 0, no LU) at the best width
        i = int(np.argmin(best[:, 0]))
        s, r = float(axes["sigma"][i]), 0.0
        mp = ManifoldRidgePath(np.asarray(pairwise_kernel(X64, None, **kw, sigma=s), dtype=np.float64), S, M)
        path = mp.path(0.0, False)
        chosen = (s, r, mp, path)
    s, r, mp, path = chosen
    # the exact LOO over gamma_A at that (sigma, ratio), through the one grid engine: the path prices any
    # gamma_A at O(l^2), so an "auto" gamma_A grows at an edge here as on the surrogate (the surrogate's best
    # 1e-6 became the exact step's 1e-7, the grid's first value, never extended: a SelectionWarning on every
    # default LapRLS fit of the digits demo), down to the rounding floor; one's own grid is reported at an edge
    def evaluate_exact(gamma_A):
        return _path_scores(path, Y2, gamma_A * l, "loo", scoring, centred, loo_rows, loo_groups)

    exact_res = select_grid(evaluate_exact, {"gamma_A": axes["gamma_A"]}, criterion="loo",
                            extend=("gamma_A",) if "gamma_A" in grow else (), max_extensions=max_extensions,
                            bounds={"gamma_A": (floor, np.inf)},
                            report=("gamma_A",) if "gamma_A" in report else ())
    ga = exact_res.best_params["gamma_A"]
    res.best_params = {"sigma": s, "ratio": r, "gamma_A": ga, "gamma_I": r * ga}
    res.exact_scores = exact_res.scores
    res.exact_grid = exact_res.grid["gamma_A"]
    # gamma_A's edge is the exact step's to report (above); the width: when the exact step moved it (a singular
    # ratio), its surrogate warning is dropped and the width used is reported if it is at an edge; the other
    # warnings as they were
    moved = {"sigma": s} if s != surrogate_best["sigma"] and ("sigma" in grow or "sigma" in report) else {}
    release_selection_warnings(held, drop=(*moved, "gamma_A"))
    for k, v in moved.items():
        report_grid_edge(k, v, axes[k], res.n_extensions if k in grow else 0)
    out = (res,)
    if return_coef:
        alpha, b = mp.coef(Y2, ga, r)
        out += ((alpha[:, 0] if was_1d else alpha), b)
    if return_basis:
        out += (mp.basis(r),)
    return out[0] if len(out) == 1 else out
