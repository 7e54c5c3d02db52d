r"""The leave-one-out engine: exact LOO and GCV residuals of linear smoothers.

Every learner here whose fitted values on the l labeled points are
:math:`\hat y = H y`, with a hat matrix H that does not depend on y, has
closed-form leave-one-out residuals (Allen 1974; Wahba 1990, Ch. 4; Rifkin &
Lippert 2007, "Notes on regularized least squares")

.. math::

    y_i - \hat y^{(-i)}_i = \frac{y_i - \hat y_i}{1 - H_{ii}},

and generalized cross-validation (Craven & Wahba 1979; Golub, Heath & Wahba 1979)

.. math::

    \mathrm{GCV} = \frac{\frac1l \|(I - H) y\|^2}{\big(\frac1l \operatorname{tr}(I - H)\big)^2}.

Two entry points share the arithmetic:

* a given hat matrix H (:func:`loo_residuals`, :func:`gcv_scores`,
  :func:`loo_predictions`) -- any linear smoother, O(l^2) per target column;
* kernel ridge along a whole regularization path (:class:`KernelRidgePath`):
  with :math:`K = U \operatorname{diag}(s) U^T` (one eigendecomposition,
  :math:`O(l^3)`), the ridge :math:`\beta = (K + \mu I)^{-1} y` has
  :math:`I - H = U \operatorname{diag}(\mu / (s + \mu)) U^T` for *every*
  :math:`\mu`, so each point of the path costs :math:`O(l^2)` per column.

The path form computes :math:`1 - H_{ii} = \sum_j U_{ij}^2 \mu / (s_j + \mu)`
directly (the rows of U have unit norm), never as :math:`1 - H_{ii}`: there is
no cancellation when the ridge is small and :math:`H_{ii}` near 1.  The
learners' own scalings of the ridge (RLS: :math:`\mu = \alpha l`; graph
kernel ridge: :math:`\mu = \alpha`) are applied by their wrappers
(:func:`graphrkhs.rls_loo_error`, :func:`graphrkhs.graph_kernel_ridge_loo`).
"""

from typing import Optional, Sequence, Union

import numpy as np

from .labels import _check_targets
from .linalg import small_dense_threads, symmetry_gap
from .validation import check_flag, check_matrix, check_scalar, column_scales, memory_guard, numeric_axis

__all__ = [
    "KernelRidgePath",
    "loo_residuals",
    "gcv_scores",
    "loo_predictions",
    "check_ridges",
    "duplicate_groups",
]

ArrayLike = Union[np.ndarray, Sequence[float]]


def check_ridges(ridges, name="alphas"):
    """A non-empty 1-D float64 array of positive finite ridge weights, or a ``ValueError`` naming ``name``."""
    r = numeric_axis(ridges)                # [nan] for strings, complex numbers, ragged lists, booleans
    if r.ndim != 1 or r.size == 0 or not (np.isfinite(r).all() and (r > 0).all()):
        raise ValueError(f"{name} must be a non-empty 1-D sequence of positive finite numbers; got {ridges!r}.")
    return r


def _check_Y(Y, l):
    Y2, was_1d, _ = _check_targets(Y, l)
    return Y2, was_1d


def _gcv_in_target_units(g, scales):
    r"""GCV values ``g`` computed on targets divided by the powers of two ``scales`` (per column, from
    :func:`column_scales`), in the targets' units: GCV is homogeneous of degree 2 in y, so this is
    :math:`g \cdot \mathrm{scale}^2`, one exact multiplication by a power of two (a single rounding where
    the value falls among the subnormals, 0 below them).  A value above the float64 range is returned as
    the largest float64 (``np.finfo(np.float64).max``), keeping ``inf`` for an undefined GCV."""
    g = np.asarray(g, dtype=np.float64)
    exponent = 2 * (np.frexp(scales)[1] - 1)                     # scale = 2**(exponent / 2)
    with np.errstate(over="ignore", under="ignore"):
        out = np.ldexp(g, exponent)
    return np.where(np.isinf(out) & np.isfinite(g), np.finfo(np.float64).max, out)


def _rotate(U, T):
    """``U @ T[g]`` for every g of a stack T (g, l, m), as one (l, l) x (l, g m) product."""
    g, l, m = T.shape
    out = U @ T.transpose(1, 0, 2).reshape(l, g * m)
    return out.reshape(U.shape[0], g, m).transpose(1, 0, 2)


#: Relative size (to the largest eigenvalue in magnitude) up to which a negative eigenvalue of the kernel
#: given to :class:`KernelRidgePath` counts as rounding or approximation error and is clipped to 0 (a
#: Chebyshev kernel at ``filter_tol`` 1e-8 stays well inside it); a larger one is an error.
PSD_RTOL = 1e-6
#: With an unpenalized basis 1 - H_ii is a difference of two terms; below this fraction of them it is
#: rounding (the point is interpolated), and its LOO undefined.
_CANCEL_RTOL = 64 * np.finfo(np.float64).eps


#: Asymmetry of a kernel, entry by entry in units of its diagonal,
#: :math:`\max_{ij} |K_{ij} - K_{ji}| / \sqrt{|K_{ii}| |K_{jj}|}`, above which :func:`check_symmetric_kernel`
#: refuses it as another matrix -- an upper triangle (there: the points' largest cosine similarity in the
#: kernel), a kernel between two point sets -- rather than a symmetric kernel with rounding or approximation
#: error, whose symmetric part the leave-one-out engine uses: float32 products of Gram matrices reach 1e-6 and a
#: warped kernel computed by CG at ``tol`` 1e-2 (``gamma_I`` 1e4) 5e-3, where ``PSD_RTOL`` of the largest entry
#: refused them.  In units of the diagonal, not of the largest entry: with one point of norm 40 orthogonal to 49
#: others, ``np.triu`` of a linear kernel was 3.7e-3 of the largest entry and passed.
ASYMMETRY_RTOL = 1e-2


def _kernel_asymmetry(K):
    r""":math:`\max_{ij} |K_{ij} - K_{ji}| / \max(\sqrt{|K_{ii}| |K_{jj}|}, \text{PSD\_RTOL} \max|K|)` of a
    square array, in row blocks of about 256K entries (no temporary of K's size: the fits that check K keep
    their memory at a few Gram matrices); NaN if K holds NaN or infinity."""
    K = np.asarray(K)
    n = K.shape[0]
    if n == 0:
        return 0.0
    step = max(1, 262_144 // n)
    blocks = [slice(i0, min(n, i0 + step)) for i0 in range(0, n, step)]
    top = max(float(np.abs(K[rows]).max()) for rows in blocks)
    if not np.isfinite(top):
        return float("nan")
    if top == 0.0:
        return 0.0
    d = np.sqrt(np.abs(np.diagonal(K)).astype(np.float64))
    floor = PSD_RTOL * top          # a zero diagonal entry (a zero point of a linear kernel): units of max|K|
    worst = 0.0
    for rows in blocks:
        gap = np.abs(K[rows].astype(np.float64) - K[:, rows].T)
        worst = max(worst, float((gap / np.maximum(np.outer(d[rows], d), floor)).max()))
    return worst


def check_symmetric_kernel(K, name="K", fix="pass the kernel matrix of the labeled points with itself."):
    """Refuse a kernel K whose asymmetry, entry by entry in units of its diagonal, exceeds ``ASYMMETRY_RTOL``
    (a ``ValueError`` naming ``name``).

    :class:`KernelRidgePath` reads :math:`(K + K^T)/2`: an asymmetry beyond any kernel's rounding or
    approximation error means another matrix was passed (an upper triangle, a kernel between two point sets),
    whose leave-one-out would be scored silently as that of the symmetrized one.  A smaller asymmetry (a
    float32 or iteratively computed kernel) is the kernel's own error: its symmetric part is used.  The check of
    the entry points that take a user's K (:func:`graphrkhs.graph_kernel_ridge_loo`, :func:`graphrkhs.rls_loo_error`,
    :func:`graphrkhs.ridge_path_errors`, :func:`graphrkhs.select_ridge_alpha`, the PRLS / G-RLS fits and the
    selections)."""
    if np.ndim(K) != 2 or np.shape(K)[0] != np.shape(K)[1]:
        symmetry_gap(K, name)                    # its ValueError names a matrix that is not square
    ratio = _kernel_asymmetry(K)
    if ratio > ASYMMETRY_RTOL:
        raise ValueError(f"{name} must be symmetric: max |{name}_ij - {name}_ji| / sqrt(|{name}_ii {name}_jj|) = "
                         f"{ratio:.3g} (a kernel's rounding or approximation error stays below "
                         f"{ASYMMETRY_RTOL:g}); {fix}")


def constant_up_to_rounding(Y: ArrayLike) -> bool:
    r"""Whether every column of the targets ``Y`` (l, m) is constant up to rounding: its spread
    :math:`\max_i y_i - \min_i y_i` at most ``64 eps`` times its largest :math:`|y_i|` (the rounding
    threshold of :class:`~graphrkhs.KernelRidgePath`), exactly constant included.

    A learner that fits constants freely fits such a target at every parameter value up to rounding, and its
    LOO/GCV scores differ by rounding only: ``y = 1e8 + 1e-7 z`` (~25 ulps) extended the Tikhonov grid to
    alpha = 1e6 with a SelectionWarning.  The one rule of the selections (:func:`~graphrkhs.select_tikhonov_alpha`) and of the
    estimators' gate (``estimators._auto.loo_selects``).
    """
    Y2 = np.asarray(Y, dtype=np.float64)
    Y2 = Y2.reshape(Y2.shape[0], -1) if Y2.ndim else Y2.reshape(1, 1)
    if not Y2.shape[0] or not np.isfinite(Y2).all():
        return bool(Y2.shape[0]) and bool((Y2 == Y2[:1]).all())
    spread = Y2.max(axis=0) - Y2.min(axis=0)
    return bool(np.all(spread <= _CANCEL_RTOL * np.abs(Y2).max(axis=0)))


class KernelRidgePath:
    r"""Exact leave-one-out and GCV of kernel ridge for a whole path of ridge weights.

    For :math:`\beta_\mu = (K + \mu I)^{-1} y` the hat matrix is
    :math:`H_\mu = K (K + \mu I)^{-1}`.  One eigendecomposition
    :math:`K = U \operatorname{diag}(s) U^T` (negative eigenvalues of rounding
    size, at most ``PSD_RTOL`` = 1e-6 of the largest, clipped to 0; a more
    negative one raises ``ValueError``) gives, for every :math:`\mu > 0`,

    .. math::

        (I - H_\mu) y = U \operatorname{diag}\Big(\frac{\mu}{s + \mu}\Big) U^T y,
        \qquad 1 - (H_\mu)_{ii} = \sum_j U_{ij}^2 \frac{\mu}{s_j + \mu},

    so the LOO residuals :math:`((I - H_\mu) y)_i / (1 - (H_\mu)_{ii})` and
    the GCV score cost :math:`O(l^2)` per ridge and column after the
    :math:`O(l^3)` factorization (Rifkin & Lippert 2007).  The LOO residual
    equals :math:`\beta_i / [(K + \mu I)^{-1}]_{ii}`.  It is ``inf`` (undefined) only for a point
    the smoother interpolates: :math:`1 - H_{ii}` of a row in the span of unpenalized directions, or
    one that falls by half when every eigenvalue is raised by its rounding error
    :math:`l \epsilon \max s` (a ridge below the kernel's rounding level acting on eigenvalues that
    are rounding).  Both tests are relative to the kernel's own scale: the LOO of ``(c K, c mu)`` is
    that of ``(K, mu)`` for any c > 0.

    Parameters
    ----------
    K : array-like of shape (l, l)
        Symmetric positive semidefinite kernel on the labeled points
        (symmetrized as :math:`(K + K^T)/2`).
    unpenalized : array-like of shape (l, q), optional
        Values on the labeled points of q unpenalized basis functions
        :math:`\psi` (a column of ones: a free constant, so that shifting y
        shifts the fit).  The smoother is then
        :math:`\hat y = K\beta + \Psi b` with
        :math:`[[K + \mu I, \Psi], [\Psi^T, 0]] [\beta; b] = [y; 0]`
        (the semiparametric system of G-RLS, Li, Lee & Leung 2006), and its
        LOO is still exact and :math:`O(l^2)` per ridge.

    Attributes
    ----------
    eigenvalues : ndarray of shape (l,)
        (k,) from :meth:`from_subspace`: the other l - k are 0.
    eigenvectors : ndarray of shape (l, l)
        (l, k) from :meth:`from_subspace`.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import KernelRidgePath
    >>> path = KernelRidgePath(np.array([[2.0, 1.0], [1.0, 2.0]]))
    >>> path.loo_residuals(np.array([1.0, 0.0]), [1.0])[0, :, 0].round(6)   # node 1 predicted 1/3 without it
    array([ 1.      , -0.333333])
    """

    def __init__(self, K: ArrayLike, unpenalized: Optional[ArrayLike] = None):
        K = check_matrix(K, "K", square=True, dtype=np.float64)
        l = float(K.shape[0])
        # K + K^T, its half, the eigenvectors and eigh's workspace: 2 x 8 l^2 bytes seen by tracemalloc at
        # l = 1000 beside the caller's K, plus LAPACK's work arrays, which it does not see
        memory_guard(8.0 * 4.0 * l * l, f"the eigendecomposition of the {K.shape[0]} x {K.shape[0]} kernel of a "
                     "ridge path (about four dense arrays of its size)", "use fewer labeled points.")
        with small_dense_threads(K.shape[0]):
            s, U = np.linalg.eigh((K + K.T) / 2)
        top = max(float(np.abs(s).max(initial=0.0)), 1e-300)
        if s.size and s.min() < -PSD_RTOL * top:
            # clipping a genuinely negative eigenvalue would score the LOO of another kernel
            raise ValueError(f"K is not positive semidefinite: its smallest eigenvalue is {s.min():.3g}, "
                             f"{-s.min() / top:.1e} of the largest in magnitude (rounding allows {PSD_RTOL:g}); "
                             "kernel ridge's leave-one-out needs a PSD kernel (check the kernel's parameters, "
                             "or a Chebyshev kernel's order / filter_tol).")
        self._setup(np.maximum(s, 0.0), U, unpenalized)

    @classmethod
    def from_eigh(cls, eigenvalues: ArrayLike, eigenvectors: ArrayLike,
                  unpenalized: Optional[ArrayLike] = None, *, rounding: Optional[float] = None) -> "KernelRidgePath":
        r"""The path of a kernel given by its eigendecomposition :math:`K = U \operatorname{diag}(s) U^T`.

        An eigenvalue ``+inf`` marks an unpenalized direction (:math:`\mu/(s+\mu) = 0`:
        the smoother reproduces it exactly), e.g. the null space of a Laplacian
        when K is its pseudo-inverse (Laplacian regularization on the labeled nodes).

        Parameters
        ----------
        eigenvalues : array of shape (l,), >= 0 or +inf
        eigenvectors : array of shape (l, l), orthonormal columns
        unpenalized : array of shape (l, q), optional
            As in the constructor.
        rounding : float >= 0, optional
            The eigenvalues' rounding error, below which a point's leave-one-out
            is undefined (its :math:`1 - H_{ii}` would come from such eigenvalues).
            Default :math:`l\,\mathrm{eps}\max s`, the error of an eigendecomposition
            of K itself; give it when the eigenvalues come from another matrix's
            (:math:`s = 1/t` of a penalty's eigenvalues t is relatively accurate,
            and its largest s would set the level for all).
        """
        s = np.asarray(eigenvalues, dtype=np.float64).ravel()
        U = check_matrix(eigenvectors, "eigenvectors", square=True, dtype=np.float64)
        if U.shape[0] != s.size or np.isnan(s).any() or (s < 0).any():
            raise ValueError(f"eigenvalues must be {U.shape[0]} non-negative numbers (or +inf); got {s.size}.")
        if rounding is not None:
            rounding = check_scalar(rounding, "rounding", low=0)
        self = cls.__new__(cls)
        self._setup(s, U, unpenalized, rounding)
        return self

    @classmethod
    def from_subspace(cls, basis: ArrayLike, core: ArrayLike,
                      unpenalized: Optional[ArrayLike] = None) -> "KernelRidgePath":
        r"""The path of a kernel of rank at most k given in a k-dimensional subspace: :math:`K = Q C Q^T`.

        Q (l, k), k <= l, has orthonormal columns (a thin QR factor, :math:`B = QR` for :math:`K = B W B^T`
        and :math:`C = R W R^T`), C (k, k) is symmetric PSD.  One k x k eigendecomposition
        :math:`C = V \operatorname{diag}(s) V^T` gives the eigenvectors :math:`U = QV` (l, k) of the k
        eigenvalues s; the other l - k eigenvalues of K are 0, with eigenvectors spanning the complement
        of Q's columns, never formed: they enter the path through the projection :math:`(I - UU^T) y` and
        the diagonal :math:`1 - \|U_{i\cdot}\|^2` of the projector.  The LOO and GCV are those of
        ``KernelRidgePath(K)`` (same clipping of rounding-size negative eigenvalues, same PSD check) at
        :math:`O(k^3 + l k^2)` for the factorization and :math:`O(l k)` per ridge and column, against
        :math:`O(l^3)` and :math:`O(l^2)`.  ``eigenvectors`` is then (l, k).

        Parameters
        ----------
        basis : array of shape (l, k), orthonormal columns
        core : array of shape (k, k), symmetric PSD (symmetrized as :math:`(C + C^T)/2`)
        unpenalized : None
            Not supported here (the constructor takes it): a ``ValueError``.
        """
        Q = check_matrix(basis, "basis", dtype=np.float64)
        if Q.ndim != 2 or Q.shape[1] > Q.shape[0]:
            raise ValueError(f"basis must be an (l, k) array with k <= l; got shape {np.shape(basis)}.")
        C = check_matrix(core, "core", square=True, dtype=np.float64)
        if C.shape[0] != Q.shape[1]:
            raise ValueError(f"core must be ({Q.shape[1]}, {Q.shape[1]}), one row per column of basis; got {C.shape}.")
        if unpenalized is not None:
            raise ValueError("unpenalized: KernelRidgePath.from_subspace does not take an unpenalized basis; "
                             "pass the l x l kernel Q C Q^T to KernelRidgePath(K, unpenalized).")
        with small_dense_threads(Q.shape[0]):
            if not np.allclose(Q.T @ Q, np.eye(Q.shape[1]), rtol=0, atol=1e-8):
                raise ValueError("basis must have orthonormal columns (Q^T Q = I), e.g. the Q of a thin QR.")
            s, V = np.linalg.eigh((C + C.T) / 2)
            U = Q @ V
        top = max(float(np.abs(s).max(initial=0.0)), 1e-300)
        if s.size and s.min() < -PSD_RTOL * top:
            raise ValueError(f"core is not positive semidefinite: its smallest eigenvalue is {s.min():.3g}, "
                             f"{-s.min() / top:.1e} of the largest in magnitude (rounding allows {PSD_RTOL:g}); "
                             "kernel ridge's leave-one-out needs a PSD kernel.")
        self = cls.__new__(cls)
        self._setup(np.maximum(s, 0.0), U, None)
        return self

    def _setup(self, s, U, unpenalized, rounding=None):
        self.eigenvalues = s
        self.eigenvectors = U
        self._U2 = U * U
        # a basis of k < l columns (from_subspace): the other l - k eigenvalues are 0, their eigenvectors enter
        # through the diagonal of the projector on the complement, 1 - |U_i|^2 (None: a full basis)
        self._null = np.maximum(1.0 - self._U2.sum(axis=1), 0.0) if U.shape[1] < U.shape[0] else None
        finite = s[np.isfinite(s)]
        #: the rounding error of the eigenvalues, l eps max s: the kernel's own scale
        self._rounding = U.shape[0] * np.finfo(np.float64).eps * float(finite.max(initial=0.0)) \
            if rounding is None else rounding
        # rows in the span of the unpenalized (+inf) eigenvectors up to rounding: interpolated points, whose
        # 1 - H_ii is a sum of rounding-size squares (the relative test is on eigenvectors: scale-free)
        self._interpolated = (self._U2[:, np.isfinite(s)].sum(axis=1) <= _CANCEL_RTOL) if np.isinf(s).any() \
            else np.zeros(U.shape[0], dtype=bool)
        if unpenalized is None:
            self.unpenalized = None
            return
        Psi = np.asarray(unpenalized, dtype=np.float64)
        Psi = Psi[:, None] if Psi.ndim == 1 else Psi
        if Psi.ndim != 2 or Psi.shape[0] != s.size or not np.isfinite(Psi).all():
            raise ValueError(f"unpenalized must be a finite array of shape ({s.size}, q), one row per labeled "
                             f"point; got shape {np.shape(unpenalized)}.")
        # columns scaled by powers of two to unit size (exact; the hat matrix depends on span(Psi) only):
        # the rank test and the eliminations below must not depend on the units of each basis function
        # (poly2 features of points in micrometres: 1 next to x^2 ~ 1e12 was "rank deficient")
        Psi = Psi / column_scales(Psi)
        sv = np.linalg.svd(Psi, compute_uv=False)
        if Psi.shape[1] >= s.size or sv.min() <= 1e-10 * max(sv.max(), 1e-300):
            raise ValueError("unpenalized: the basis must have full column rank and fewer columns than labeled "
                             "points (a rank-deficient basis has no unique coefficients).")
        self.unpenalized = Psi
        self._UtPsi = U.T @ Psi

    @property
    def n(self) -> int:
        return self.eigenvectors.shape[0]

    def _terms(self, Y, ridges):
        Y2, _ = _check_Y(Y, self.n)
        ridges = check_ridges(ridges, "ridges")
        with small_dense_threads(self.n):
            return Y2, ridges, self._project(Y2)

    def _project(self, Y2):
        """``(U^T Y, (I - U U^T) Y)`` (the second None for a full basis, whose complement is empty)."""
        UtY = self.eigenvectors.T @ Y2
        return UtY, (None if self._null is None else Y2 - self.eigenvectors @ UtY)

    def _parts(self, proj, mu, loo_units=False):
        # the products below are of order l: one BLAS thread (see small_dense_threads: on a shared machine
        # two spinning threads made a 20 x 200 x 200 product 120x slower, 42 ms against 0.35 ms at load 10,
        # and these products were two thirds of a LapRLS selection on 200 points)
        with small_dense_threads(self.n):
            return self._parts_on_this_thread(proj, mu, loo_units)

    def _parts_on_this_thread(self, proj, mu, loo_units=False):
        r"""``(I - H) Y``, the diagonal of ``I - H`` and its trace, for a batch of ridges.

        Without an unpenalized part :math:`I - H = U \operatorname{diag}(\mu d) U^T`,
        :math:`d = 1/(s + \mu)`.  With an unpenalized basis :math:`\Psi`
        (the system :math:`[[K + \mu I, \Psi], [\Psi^T, 0]]`), eliminating its
        coefficients gives, with :math:`P = (K + \mu I)^{-1}`,
        :math:`I - H = \mu\,(P - P\Psi (\Psi^T P \Psi)^{-1} \Psi^T P)`.
        All ridges at once (one batched expression per term, no loop over the
        path): shapes (g, l, m), (g, l) and (g,) for g ridges.  ``proj`` is :meth:`_project` of Y.

        A basis of k < l columns (:meth:`from_subspace`, no unpenalized part) adds the l - k eigenvalues 0,
        for which :math:`\mu d = 1`: :math:`(I - UU^T) Y` to the residuals, the projector's diagonal
        :math:`1 - \|U_{i\cdot}\|^2` (times :math:`1/\mu`) to that of :math:`(K + \mu I)^{-1}`, and l - k to
        the trace.

        ``loo_units``: only the ratios ``resid / diag`` are wanted (leave-one-out), and for a full basis without
        an unpenalized part both are returned times :math:`(\min_j s_j + \mu) / \mu` (trace None): the
        eigenvalues of I - H become :math:`(s_{min} + \mu) / (s_j + \mu) \in (0, 1]` instead of
        :math:`\mu / (s_j + \mu)`, which underflowed for a ridge below 1e-308 of the kernel (K ~ 1e300 with
        mu = 1e-300: every residual 0 / 0, reported undefined, for a well-conditioned K).
        """
        UtY, perp = proj
        U, s = self.eigenvectors, self.eigenvalues
        mu = np.asarray(mu, dtype=np.float64).reshape(-1)
        factor = mu
        if loo_units and self.unpenalized is None and self._null is None and s.size and np.isfinite(s).all():
            factor = float(s.min()) + mu
        with np.errstate(divide="ignore"):
            d = 1.0 / (s[None, :] + mu[:, None])                   # (g, l); +inf eigenvalue -> 0
            # the same with every eigenvalue raised by its rounding error (l eps max s): a point whose
            # 1 - H_ii falls by half or more under it gets its 1 - H_ii from eigenvalues that are rounding
            # (a ridge below the kernel's rounding level): its LOO is undefined, as for an interpolated point
            d_pert = 1.0 / (s[None, :] + self._rounding + mu[:, None])
        dU2 = d @ self._U2.T
        dU2_pert = d_pert @ self._U2.T
        if self._null is not None:                                  # the l - k eigenvalues 0
            dU2 = dU2 + self._null[None, :] / mu[:, None]
            dU2_pert = dU2_pert + self._null[None, :] / (self._rounding + mu[:, None])
        robust = (dU2_pert >= 0.5 * dU2) & ~self._interpolated
        if self.unpenalized is None:
            r = factor[:, None] * d                                 # eigenvalues of I - H (times factor / mu)
            resid = _rotate(U, r[:, :, None] * UtY[None])
            if perp is not None:
                resid = resid + perp[None]
            trace = None if factor is not mu else r.sum(axis=1) + (self.n - s.size)
            return (resid, np.where(robust, factor[:, None] * dU2, 0.0), trace)
        dPsi = d[:, :, None] * self._UtPsi[None]                    # (g, l, q)
        G = self._UtPsi.T[None] @ dPsi                              # Psi^T P Psi, (g, q, q)
        PPsi = _rotate(U, dPsi)                                     # P Psi, (g, l, q)
        # (Psi^T P Psi)^{-1} [Psi^T P Y, (P Psi)^T] in one batched solve
        rhs = np.concatenate([np.swapaxes(dPsi, 1, 2) @ UtY[None], np.swapaxes(PPsi, 1, 2)], axis=2)
        sol = np.linalg.solve(G, rhs)
        m = UtY.shape[1]
        B, Gi_PPsiT = sol[:, :, :m], sol[:, :, m:]
        resid = mu[:, None, None] * (_rotate(U, d[:, :, None] * UtY[None]) - PPsi @ B)
        corr = np.einsum("giq,gqi->gi", PPsi, Gi_PPsiT)
        diag = mu[:, None] * (dU2 - corr)
        trace = mu * (d.sum(axis=1) - corr.sum(axis=1))
        # the difference cancels: below ~eps of the terms subtracted it is rounding, an interpolated point
        diag = np.where((diag > _CANCEL_RTOL * mu[:, None] * dU2) & robust, diag, 0.0)
        return resid, diag, trace

    def loo_residuals(self, Y: ArrayLike, ridges: ArrayLike, groups: Optional[ArrayLike] = None) -> np.ndarray:
        r"""LOO residuals :math:`y_i - \hat y^{(-i)}_i` for each ridge :math:`\mu` (leave-group-out with ``groups``).

        With ``groups``, the rows of a group are left out together and each gets its residual from the
        fit without the whole group: :math:`r_G = [(I - H)_{GG}]^{-1} ((I - H) y)_G`, the closed form of
        leave-group-out for a linear smoother whose fit without G is its fit with :math:`y_G` replaced by
        its own predictions (penalized least squares; Hastie, Tibshirani & Friedman 2009, Ex. 7.3, for
        the group form of the identity).  For a group of one it is :math:`((I - H) y)_i / (I - H)_{ii}`.
        A group whose block :math:`(I - H)_{GG}` is singular to rounding (interpolated) is ``inf``.

        Parameters
        ----------
        Y : array of shape (l,) or (l, m)
        ridges : sequence of float > 0
            The weights :math:`\mu` of :math:`(K + \mu I)`, as they enter the system.
        groups : array of int of shape (l,), optional
            Group labels of the rows (equal labels: left out together), e.g. identical labeled points
            (:func:`duplicate_groups`).  Default: every row its own group.

        Returns
        -------
        ndarray of shape (len(ridges), l, m)
            (m = 1 for a 1-D Y); the LOO predictions are ``Y - residuals``.
        """
        # each column in units of a power of two near its largest magnitude (the residuals are linear in y,
        # the scaling exact): at y ~ 1e-300 with a ridge 1e-300 the residuals mu (K + mu I)^-1 y underflowed and
        # came back 0, a perfect leave-one-out fit for any ridge
        Y2, _ = _check_Y(Y, self.n)
        scales = column_scales(Y2)
        Y2, ridges, proj = self._terms(Y2 / scales, ridges)
        blocks = _group_rows(groups, self.n)
        resid, diag, _ = self._parts(proj, ridges, loo_units=not blocks)
        if blocks:
            out = self._group_residuals(resid, diag, ridges, blocks)
        else:
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                # diag = 0 only for a point the smoother interpolates exactly (or, with an unpenalized basis, to
                # rounding): its LOO is undefined (inf).  No absolute cut-off: 1 - H_ii is computed without
                # cancellation, to full relative accuracy at any size (a cut-off 1e-14 made the LOO at a ridge
                # 1e-15 times the kernel's scale undefined, whatever the scale)
                out = np.where(diag[:, :, None] > 0, resid / np.where(diag > 0, diag, 1.0)[:, :, None], np.inf)
            out = np.where(np.isnan(out), np.inf, out)
        with np.errstate(over="ignore", under="ignore"):
            return out * scales

    def _group_residuals(self, resid, diag, mu, blocks):
        r"""Leave-group-out residuals: the single-row ones, then :math:`[(I - H)_{GG}]^{-1} ((I - H) y)_G` for every
        group G of two rows or more (``blocks``), with :math:`(I - H)_{GG} = \mu (P_{GG} - (P\Psi)_G
        (\Psi^T P \Psi)^{-1} (P\Psi)_G^T)`, :math:`P = (K + \mu I)^{-1}` (the second term with an unpenalized
        basis only): :math:`O(k^2 l)` per group of k rows and ridge."""
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            out = np.where(diag[:, :, None] > 0, resid / np.where(diag > 0, diag, 1.0)[:, :, None], np.inf)
        out = np.where(np.isnan(out), np.inf, out)
        s = self.eigenvalues
        with np.errstate(divide="ignore"):
            d = 1.0 / (s[None, :] + mu[:, None])                   # (g, l); +inf eigenvalue -> 0
        with small_dense_threads(self.n):
            for G in blocks:                                     # stacks of groups of one size: few
                UG = self.eigenvectors[G]                        # (b, k, l)
                A = np.einsum("bij,gj,bkj->gbik", UG, d, UG)     # P_GG, (g, b, k, k)
                if self._null is not None:                       # + (I - U U^T)_GG / mu: the eigenvalues 0
                    A = A + (np.eye(G.shape[1]) - UG @ np.swapaxes(UG, 1, 2))[None] / mu[:, None, None, None]
                if self.unpenalized is not None:
                    dPsi = d[:, :, None] * self._UtPsi[None]
                    Gm = self._UtPsi.T[None] @ dPsi              # (g, q, q)
                    PPsiG = np.einsum("bij,gjq->gbiq", UG, dPsi)
                    A = A - PPsiG @ np.linalg.solve(Gm[:, None], np.swapaxes(PPsiG, 2, 3))
                A = mu[:, None, None, None] * (A + np.swapaxes(A, 2, 3)) / 2
                w = np.linalg.eigvalsh(A)                        # (g, b, k)
                # a block singular to rounding (relative to 1, the scale of I - H): the group is interpolated
                bad = ~(np.isfinite(w).all(axis=2) & (w.min(axis=2) > _GROUP_RTOL * np.maximum(w.max(axis=2), 1.0)))
                A[bad] = np.eye(G.shape[1])
                RG = np.linalg.solve(A, resid[:, G])             # (g, b, k, m)
                RG[bad] = np.inf
                out[:, G] = RG
        return out

    def gcv(self, Y: ArrayLike, ridges: ArrayLike, *, centred: bool = False,
            groups: Optional[ArrayLike] = None) -> np.ndarray:
        r"""GCV scores :math:`\frac1l\|(I - H)y\|^2 / (\frac1l \operatorname{tr}(I - H))^2`, per ridge and column.

        ``centred``: ``Y`` is the targets less their mean, and the procedure scored is the centred one,
        :math:`\hat y = \bar y 1 + H (y - \bar y 1)`, a linear smoother with the hat matrix
        :math:`H_c = H + (I - H) 1 1^T / l`: :math:`(I - H_c) y = (I - H) y_c` and
        :math:`\operatorname{tr}(I - H_c) = \operatorname{tr}(I - H) - 1^T (I - H) 1 / l` (with a free
        constant :math:`(I - H) 1 = 0` and both agree).

        Computed on each column divided by a power of two near its largest absolute value, then
        rescaled (GCV is homogeneous of degree 2 in y): exact up to rounding for targets anywhere in the
        float64 range (squared in their units, targets near 1e200 overflowed to ``inf`` and near 1e-160
        lost digits among the subnormals).  A value beyond the largest float64 (about 1.8e308; targets
        near 1e200 give about 1e400) is returned as ``np.finfo(np.float64).max``, one below the smallest
        subnormal as 0; ``inf`` means undefined (:math:`\operatorname{tr}(I - H) = 0`).

        ``groups``: group labels (l,) of identical labeled points (:func:`duplicate_groups`).  The score is
        then :math:`\frac1l\|(I - H)y\|^2 / (1 - \operatorname{tr}(H)/g)^2`: the degrees of freedom count
        against the g distinct points.  When the copies of each point share their target this is the GCV of
        the weighted problem on the distinct points (weights: their multiplicities, scaled to mean 1; Wahba
        1990, Ch. 4.3).  When copies carry different targets it is not: the residual also holds the spread
        of the targets within each group, :math:`\sum_i (y_i - \bar y_{g(i)})^2`, a term that does not
        depend on the ridge and that the weighted problem on the group means does not have (the minimizer
        moves, as it would by adding a constant to that problem's numerator).  The plain normalization :math:`1 - \operatorname{tr}
        (H)/l` let a fit interpolating l / 2 points twice pay nothing (RLS on 12 labeled points twice: GCV
        ~ 1e-19 at sigma 0.125, alpha 5e-11, against sigma 1 and alpha 3e-5 once).  Every row twice with the same
        target, it is the GCV of the rows once (at the same ridge per row).  Undefined (``inf``) where
        :math:`\operatorname{tr}(H) \ge g`.

        Returns
        -------
        ndarray of shape (len(ridges), m)
        """
        Y2, _ = _check_Y(Y, self.n)
        l = self.n
        if groups is not None and np.shape(groups) != (l,):
            raise ValueError(f"groups must have one label per labeled row, shape ({l},); got {np.shape(groups)}.")
        scales = column_scales(Y2)
        Y2, ridges, proj = self._terms(Y2 / scales, ridges)
        if centred:
            m = Y2.shape[1]
            with small_dense_threads(l):
                proj = self._project(np.column_stack([Y2, np.ones(l)]))
            resid, _, trace = self._parts(proj, ridges)
            trace = trace - resid[:, :, m].sum(axis=1) / l
            resid = resid[:, :, :m]
        else:
            resid, _, trace = self._parts(proj, ridges)
        g = l if groups is None else np.unique(np.asarray(groups)).size
        if groups is not None:
            # eigenvalues of rounding size (<= l eps max s) are 0 of the exact kernel: the directions e_i - e_j of
            # copies.  Each contributes 1 - s / (s + mu) to tr(I - H) where the exact kernel has 1, and l - g of
            # those ones cancel below: at small ridges the rest, tr(I - H) - (l - g) ~ mu, was their rounding
            # (4e-7 relative at mu = 2.4e-5 on 12 points twice, worse as mu falls)
            ev = self.eigenvalues
            tiny = ev[(ev > 0) & (ev <= self._rounding)]
            trace = trace + (tiny[None, :] / (tiny[None, :] + ridges[:, None])).sum(axis=1)
        free = trace - (l - g)                        # g - tr(H): the distinct points' residual degrees of freedom
        with np.errstate(divide="ignore", invalid="ignore"):
            out = (resid ** 2).sum(axis=1) / l / (free[:, None] / g) ** 2
        return np.where(free[:, None] > 1e-14 * g, _gcv_in_target_units(out, scales), np.inf)

    def hat_diagonal(self, ridge: float) -> np.ndarray:
        r"""The leverages :math:`(H_\mu)_{ii}`, shape (l,)."""
        mu = float(check_ridges(ridge, "ridge")[0])
        return 1.0 - self._parts(self._project(np.zeros((self.n, 0))), mu)[1][0]


#: A group's block (I - H)_GG with an eigenvalue below this (I - H has eigenvalues in [0, 1]) is singular to
#: rounding: the smoother interpolates the group, its leave-group-out residual is undefined (inf).
_GROUP_RTOL = 1e3 * np.finfo(np.float64).eps


def _group_rows(groups, l):
    """The groups of two rows or more from group labels (l,) (None: no groups), as stacks of row indices, one
    (b, k) array per group size k (b groups of that size)."""
    if groups is None:
        return []
    g = np.asarray(groups)
    if g.shape != (l,) or g.dtype.kind not in "iub":
        raise ValueError(f"groups must be an integer array of shape ({l},), one group label per labeled row; got "
                         f"{'shape ' + str(g.shape) if g.shape != (l,) else 'dtype ' + str(g.dtype)}.")
    _, inverse, counts = np.unique(g, return_inverse=True, return_counts=True)
    inverse = inverse.reshape(-1)
    order = np.argsort(inverse, kind="stable")               # rows grouped, groups in label order
    starts = np.r_[0, np.cumsum(counts)[:-1]]
    return [np.stack([order[starts[c]:starts[c] + k] for c in np.flatnonzero(counts == k)])
            for k in np.unique(counts[counts > 1])]


def duplicate_groups(X: ArrayLike) -> Optional[np.ndarray]:
    """Group labels (l,) of the identical rows of ``X`` (l, ...) (equal rows, equal labels), or None when
    every row is distinct: the groups of leave-group-out (:meth:`KernelRidgePath.loo_residuals`) for learners
    whose fit depends on the labeled points themselves (a labeled point's copy left among the labels makes its
    leave-one-out residual near zero, and the selection favours fits that interpolate)."""
    X = np.asarray(X)
    if X.ndim < 1 or X.shape[0] < 2:
        return None
    flat = X.reshape(X.shape[0], -1)
    _, inverse, counts = np.unique(flat, axis=0, return_inverse=True, return_counts=True)
    return inverse.reshape(-1).astype(np.intp) if (counts > 1).any() else None


def loo_residuals(H: ArrayLike, Y: ArrayLike) -> np.ndarray:
    r"""Exact LOO residuals :math:`(y_i - \hat y_i) / (1 - H_{ii})` of a linear smoother from its hat matrix.

    Parameters
    ----------
    H : ndarray of shape (l, l)
        Hat matrix on the labeled points (``fit`` applied to the identity),
        independent of the labels.
    Y : ndarray of shape (l,) or (l, m)

    Returns
    -------
    ndarray like Y

    Raises
    ------
    ValueError
        When some :math:`H_{ii} \ge 1` (an interpolated label: LOO is undefined).
    """
    H = check_matrix(H, "H", square=True, dtype=np.float64)
    Y2, was_1d = _check_Y(Y, H.shape[0])
    h = np.diag(H)[:, None]
    if np.any(h >= 1 - 1e-12):
        raise ValueError("the hat matrix has a diagonal entry >= 1 (an interpolated label); LOO is undefined.")
    R = (Y2 - H @ Y2) / (1 - h)
    return R[:, 0] if was_1d else R


def gcv_scores(H: ArrayLike, Y: ArrayLike) -> np.ndarray:
    r"""GCV :math:`\frac1l\|(I - H)y\|^2 / (\frac1l\operatorname{tr}(I - H))^2` of a linear smoother, per column.

    Computed on each column divided by a power of two near its largest absolute value, then rescaled
    (GCV is homogeneous of degree 2 in y): exact up to rounding for targets anywhere in the float64
    range.  A value beyond the largest float64 (targets near 1e200 give about 1e400) is returned as
    ``np.finfo(np.float64).max``, one below the smallest subnormal as 0.

    Returns
    -------
    ndarray of shape (m,) (a float for a 1-D Y)
    """
    H = check_matrix(H, "H", square=True, dtype=np.float64)
    Y2, was_1d = _check_Y(Y, H.shape[0])
    l = H.shape[0]
    trace = l - np.trace(H)
    if trace <= 1e-12 * l:
        raise ValueError("tr(I - H) is 0 (the smoother interpolates every label); GCV is undefined.")
    scales = column_scales(Y2)
    Ys = Y2 / scales                     # squared in the targets' units, 1e200 overflowed to inf
    g = _gcv_in_target_units(((Ys - H @ Ys) ** 2).sum(axis=0) / l / (trace / l) ** 2, scales)
    return float(g[0]) if was_1d else g


def loo_predictions(H: ArrayLike, Y: ArrayLike) -> np.ndarray:
    r"""Leave-one-out predictions of a linear smoother from its hat matrix.

    For every learner here the fitted values on the labeled points are
    :math:`\hat y = H y` with H independent of y (the regularizers do not
    involve the labels), and leaving out label i gives
    :math:`\hat y_i^{(-i)} = (\hat y_i - H_{ii} y_i) / (1 - H_{ii})` (the
    classical identity; the weights :math:`\gamma` are kept, i.e. the
    :math:`1/l` loss scaling is not changed to :math:`1/(l-1)`).
    ``Y - loo_residuals(H, Y)``.

    Parameters
    ----------
    H : ndarray of shape (l, l)
        Hat matrix on the labeled points (``fit`` applied to the identity).
    Y : ndarray of shape (l,) or (l, k)

    Returns
    -------
    ndarray like Y

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import loo_predictions
    >>> H = np.full((3, 3), 1 / 3)                     # the mean
    >>> loo_predictions(H, np.array([0.0, 3.0, 6.0])).round(6)
    array([4.5, 3. , 1.5])
    """
    Y = np.asarray(Y)
    return Y - loo_residuals(H, Y)


# ---------------------------------------------------------------------------
# Stochastic estimation of a diagonal (matrix-free LOO)
# ---------------------------------------------------------------------------

def rademacher_probes(n: int, n_probes: int, random_state=None) -> np.ndarray:
    """``n_probes`` independent Rademacher vectors (entries +-1 with probability 1/2), shape (n, n_probes)."""
    from .validation import check_random_state

    n = check_scalar(n, "n", kind="int", low=1)
    n_probes = check_scalar(n_probes, "n_probes", kind="int", low=1)
    rng = check_random_state(random_state)
    return rng.integers(0, 2, size=(n, n_probes)).astype(np.float64) * 2.0 - 1.0


def diagonal_from_probes(Z: np.ndarray, AZ: np.ndarray):
    r"""Stochastic estimate of :math:`\operatorname{diag}(A)` from probes Z and their images AZ.

    The estimator of Bekas, Kokiopoulou & Saad (2007),

    .. math:: \hat d = \Big(\sum_k z_k \odot A z_k\Big) \oslash \Big(\sum_k z_k \odot z_k\Big),

    is unbiased for Rademacher probes (:math:`z \odot z = 1`), with variance

    .. math:: \operatorname{Var}(\hat d_i) = \frac1p \sum_{j \ne i} A_{ij}^2

    for p probes: the relative standard deviation of entry i is
    :math:`\|A_{i,\ne i}\| / (|A_{ii}| \sqrt p)`, i.e. it falls like
    :math:`1/\sqrt p` and is small when A is nearly diagonal (the residual
    operator :math:`I - H` of a smoother whose leverages are small).
    The returned standard error is the sample standard deviation of the p
    terms :math:`z_{ki} (A z_k)_i` over :math:`\sqrt p` (an estimate of the
    above).

    Parameters
    ----------
    Z : ndarray of shape (n, p)
    AZ : ndarray of shape (n, p)
        :math:`A Z`, computed by the caller in blocks (e.g. together with
        other right-hand sides of the same solve).

    Returns
    -------
    diag, stderr : ndarrays of shape (n,)
    """
    Z = np.asarray(Z, dtype=np.float64)
    AZ = np.asarray(AZ, dtype=np.float64)
    if Z.ndim != 2 or AZ.shape != Z.shape or Z.shape[1] < 1:
        raise ValueError(f"Z and AZ must be 2-D arrays of the same shape (n, p >= 1); got {Z.shape} and {AZ.shape}.")
    terms = Z * AZ
    zz = (Z * Z).sum(axis=1)
    if (zz <= 0).any():
        raise ValueError("every row of Z must have a non-zero entry (a zero row estimates nothing).")
    diag = terms.sum(axis=1) / zz
    p = Z.shape[1]
    stderr = (terms / (zz / p)[:, None]).std(axis=1, ddof=1) / np.sqrt(p) if p > 1 else np.full(diag.shape, np.inf)
    return diag, stderr


def estimate_diagonal(apply, n: int, *, n_probes: int = 64, block: int = 32, random_state=None,
                      return_stderr: bool = False):
    r"""Matrix-free estimate of the diagonal of a linear operator by Rademacher probes.

    :func:`diagonal_from_probes` on ``n_probes`` probes, applied ``block``
    at a time (``apply`` takes an (n, k) block: one block CG / Chebyshev
    solve for k right-hand sides).  Relative error of entry i:
    :math:`\|A_{i,\ne i}\| / (|A_{ii}| \sqrt{p})` (Bekas, Kokiopoulou & Saad 2007).

    Parameters
    ----------
    apply : callable
        ``apply(Z) -> A @ Z`` for Z of shape (n, k).
    n : int
    n_probes : int, default=64
    block : int, default=32
    random_state : int, Generator or None
    return_stderr : bool, default=False

    Returns
    -------
    diag : ndarray of shape (n,)
    stderr : ndarray of shape (n,), only with ``return_stderr``

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs._core.loo import estimate_diagonal
    >>> A = np.diag(np.arange(1.0, 6.0))
    >>> estimate_diagonal(lambda Z: A @ Z, 5, n_probes=4, random_state=0)   # diagonal A: exact
    array([1., 2., 3., 4., 5.])
    """
    check_flag(return_stderr, "return_stderr")
    if not callable(apply):
        raise TypeError("apply must be a callable Z -> A @ Z.")
    from .validation import check_scalar

    block = check_scalar(block, "block", kind="int", low=1)
    Z = rademacher_probes(n, n_probes, random_state)
    AZ = np.empty_like(Z)
    for j in range(0, Z.shape[1], block):      # blocks of probes, each one block solve
        out = np.asarray(apply(Z[:, j:j + block]), dtype=np.float64)
        if out.shape != Z[:, j:j + block].shape:
            raise ValueError(f"apply(Z) must return an array of Z's shape {Z[:, j:j + block].shape}; got {out.shape}.")
        AZ[:, j:j + block] = out
    diag, stderr = diagonal_from_probes(Z, AZ)
    return (diag, stderr) if return_stderr else diag


__all__ += ["rademacher_probes", "diagonal_from_probes", "estimate_diagonal"]


#: Bytes of the (ridges x l x m) arrays one batch of :func:`in_ridge_batches` may hold: a grid of 10^6 ridges on
#: 74 labels allocated 4.5 GB at once (numpy's MemoryError after 17 s); in batches the memory does not grow with
#: the grid
RIDGE_BATCH_BYTES = 64 * 2**20


def in_ridge_batches(score, ridges, l, m):
    """``score(ridges) -> (scores, tie)`` evaluated on batches of the 1-D ``ridges`` whose (ridges x l x (m + 1))
    arrays hold about ``RIDGE_BATCH_BYTES`` (the residuals and the path's intermediates, a few arrays of that
    size), and the results concatenated: the same scores, in memory that does not grow with the grid."""
    ridges = np.asarray(ridges, dtype=np.float64).reshape(-1)
    batch = max(1, int(RIDGE_BATCH_BYTES // (8 * 8 * max(l, 1) * (m + 1))))
    if ridges.size <= batch:
        return score(ridges)
    parts = [score(ridges[i:i + batch]) for i in range(0, ridges.size, batch)]
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
