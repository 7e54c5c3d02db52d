r"""Data-dependent kernels built on a point cloud and evaluable anywhere.

* :class:`FredholmKernel` (Que, Belkin & Wang, "Learning with Fredholm
  kernels", NIPS 2014): an outer kernel :math:`k` averages an inner kernel
  :math:`k_H` over the n = l + u points,

  .. math:: k_F(x, z) = \frac{1}{n^2} \sum_{i,j=1}^n k(x, x_i)\, k_H(x_i, x_j)\, k(z, x_j).

* :class:`WarpedKernel` (Sindhwani, Niyogi & Belkin, "Beyond the point
  cloud", ICML 2005): the RKHS norm deformed by a point-cloud norm
  :math:`\|f\|^2 + \mathbf f^T M \mathbf f`, whose kernel is

  .. math:: \tilde k(x, z) = k(x, z) - \mathbf k_x^T (I + M K)^{-1} M \mathbf k_z.

Both are objects built once on the points ``X`` and called as ``K(A, B)``.
Every call is ``left(A) @ right(B)``: the expensive right factor (an
(n, len(B)) array) can be computed once with ``K.right_factor(B)`` and passed
as ``K(A, B, right=R)`` to evaluate many ``A`` against the same ``B`` (this
is what the learners do: B = the labeled points, A = the points to predict).
"""

from __future__ import annotations

from typing import Any, Literal
import functools

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

from ..graphs import KD_TREE_MAX_DIM, LazyTieRanks, knn_search, query_distances, query_in_tie_order
from .._core.types import KernelName, LaplacianKind, RandomStateLike
from .._core.cg import conjugate_gradient
from .._core.linalg import check_power_entries, guarded_sparse_product, power_growth_guard
from .._core.progress import _Progress, progress_bar
from ._nystrom import LANDMARKS, NYSTROM_AUTO_MIN_N, NYSTROM_MAX_COMPONENTS, NystromFeatures
from ._pointcloud import (KERNELS, _check_heat_normalization, _far_rows, _frame, _scaled_exponent, _sq_dists,
                          heat_log_normalization, pairwise_kernel)
from .._core.validation import (
    AccuracyWarning,
    check_option,
    check_points,
    check_random_state,
    check_scalar,
    memory_guard,
    power_of_two_exponent,
    warn,
)

__all__ = ["FredholmKernel", "WarpedKernel", "FREDHOLM_PRESETS", "default_sigma"]

# The paper's instances (Que, Belkin & Wang 2014, Section 5): (outer, inner, normalized).
FREDHOLM_PRESETS = {
    "FredLin1": ("linear", "gaussian", False),
    "FredLin2": ("gaussian", "linear", False),
    "FredLin2(N)": ("gaussian", "linear", True),
    "FredGauss": ("gaussian", "gaussian", False),
    "FredGauss(N)": ("gaussian", "gaussian", True),
}

INNER_APPROXIMATIONS = ("auto", "exact", "nystrom", "random_features")

# Up to this many points the inner kernel of a Fredholm kernel is used exactly
# by "auto" (its products are computed in row blocks, never stored: the cost
# is n^2 (d + len(B)) flops, about a second at n = 10^4, d = 100).
FREDHOLM_EXACT_MAX_N = 10_000

# Up to this many points WarpedKernel(solver="auto") factors the dense n x n
# system once (the LU of I + M K, about n^3 / 1.5 flops; when that is ill-conditioned,
# a pivoted Cholesky of L^p, T K T^T and a Cholesky: about 3 n^3 flops; at most
# 6 n^2 floats, 0.8 GB at n = 4000); above, CG.
WARPED_DIRECT_MAX_N = 4_000

# Rows of one block of a dense (block, n) temporary.
_BLOCK_BYTES = 64 * 2**20

# Largest n x n squared-distance matrix (bytes) that kernels of one family made by
# FredholmKernel.with_sigma keep and share (256 MiB: n = 5792 in float64).
FREDHOLM_SHARED_DISTANCES_MAX_BYTES = 256 * 2**20


def _block_rows(n_cols, itemsize):
    return max(1, int(_BLOCK_BYTES // (max(1, n_cols) * itemsize)))


def default_sigma(X: ArrayLike, max_points: int = 1000) -> float:
    r"""Median pairwise distance of the rows of X (an even sample of ``max_points`` rows when there are more).

    The data-driven Gaussian width used when a data-dependent kernel or learner
    gets ``sigma=None``: with it a typical pair of points has kernel value
    :math:`e^{-1/2}`, whatever the scale of the data.

    Sampling: with :math:`n \le` ``max_points`` rows every pair is used and
    the value is exactly the median of the :math:`n(n-1)/2` distances, for
    any row order.  Above, the m = ``max_points`` rows
    :math:`\lfloor i n / m \rfloor`, :math:`i = 0..m-1`, are used: spread
    evenly over the whole array (not only its first rows) and free of random
    numbers, so the default is deterministic.  For rows in random order this
    is a simple random sample, whose median estimates the median over all
    pairs with a relative standard error of order :math:`1/\sqrt m` (about
    1 % at the default for data like two Gaussian clusters); rows stored
    sorted or grouped (e.g. by class) give a stratified sample, at least as
    accurate.  So reordering the rows changes the value by at most this
    sampling error.  When more than half of the pairs coincide (duplicated
    rows) the median is over the pairs of distinct rows, so that the width
    still scales with X; 1.0 when all the rows are equal.  A median distance
    beyond the float64 range (points near :math:`\pm 10^{308}`) is a
    ValueError: rescale X.

    The distances are computed in a centred, power-of-two-scaled frame, so the
    value is shift-invariant (``X + 1e8`` gives the same width up to the
    rounding of the input) and cannot overflow for huge ``|X|``.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import default_sigma
    >>> default_sigma(np.array([[0.0], [1.0], [3.0]]))
    2.0
    """
    X = check_points(X, "X", min_samples=2)
    max_points = check_scalar(max_points, "max_points", kind="int", low=2)
    n = X.shape[0]
    m = min(n, max_points)
    # the m x m distances, the m(m-1)/2 pair indices and distances: about 3 m^2 doubles at the peak
    memory_guard(3 * m * m * 8, f"the {m} x {m} distances of default_sigma's sample",
                 "pass a smaller max_points (the default 1000 estimates the median to about 1%).")
    if n > max_points:
        X = X[(np.arange(max_points) * n) // max_points]
    Z = np.asarray(X, dtype=np.float64)
    Z, _, scale = _frame(Z, Z)
    iu = np.triu_indices(Z.shape[0], 1)
    D = np.sqrt(_sq_dists(Z, Z)[iu])       # coincident rows get exactly 0 (_sq_dists)
    med = float(np.median(D))               # in the frame's units
    if med == 0 and D.any():
        # more than half of the pairs coincide (duplicated rows): the distinct pairs' median, which
        # scales with X (a constant 1.0 did not: at X * 1e-3 the kernel was nearly flat)
        med = float(np.median(D[D > 0]))
    if np.isinf(med * scale):
        # the median distance is beyond float64 (points near +-1e308): the fallback 1.0 made the Gaussian kernel
        # the identity matrix (every pair's value exp(-1e616) = 0), with no warning
        log10 = np.log10(med) + np.log10(scale)
        raise ValueError(f"the median pairwise distance of the points X is about {10 ** (log10 % 1):.1f}e"
                         f"{int(log10 // 1)}, beyond the float64 range, so no kernel width can express it: "
                         "rescale X (e.g. X / 1e10; the default width scales with X, so the Gaussian kernel "
                         "does not change) or pass sigma.")
    med *= scale
    return med if med > 0 else 1.0


def _with_verbosity(method):
    """Run a method under the ``verbose`` its kernel was made with (``self._progress``), so
    that bars and messages of the work it calls follow that choice."""
    @functools.wraps(method)
    def wrapped(self, *args, **kwargs):
        with self._progress.scope():
            return method(self, *args, **kwargs)
    return wrapped


def _check_kernel_name(kernel, name):
    if callable(kernel):
        return kernel
    if not isinstance(kernel, str) or kernel not in KERNELS:
        accepted = ", ".join(repr(k) for k in KERNELS)
        raise ValueError(f"{name} must be one of {accepted} or a callable k(A, B) -> array; got {kernel!r}.")
    return kernel


def _query_knn(X, A, k, X_sq=None):
    """k nearest rows of X for every row of A (a point of X finds itself first).

    Blocked BLAS distances in the data dtype below/above a kd-tree for low
    dimension; returns ``(squared distances, indices)``, each (len(A), k).
    """
    n, d = X.shape
    if d <= KD_TREE_MAX_DIM:
        from scipy.spatial import cKDTree

        dist, idx = cKDTree(np.asarray(X, dtype=np.float64)).query(np.asarray(A, dtype=np.float64), k=k,
                                                                   workers=-1)
        dist = dist.reshape(A.shape[0], k)
        idx = idx.reshape(A.shape[0], k)
        return (dist * dist).astype(X.dtype), idx.astype(np.int64)
    if X_sq is None:
        X_sq = np.einsum("ij,ij->i", X, X)
    out_d = np.empty((A.shape[0], k), dtype=X.dtype)
    out_i = np.empty((A.shape[0], k), dtype=np.int64)
    rows = _block_rows(n, X.dtype.itemsize)
    for s in range(0, A.shape[0], rows):
        blk = A[s:s + rows]
        D2 = X_sq[None, :] - 2.0 * (blk @ X.T)  # |a|^2 added after the selection
        part = np.argpartition(D2, k - 1, axis=1)[:, :k]
        vals = np.take_along_axis(D2, part, axis=1)
        order = np.argsort(vals, axis=1, kind="stable")
        out_i[s:s + rows] = np.take_along_axis(part, order, axis=1)
        vals = np.take_along_axis(vals, order, axis=1) + np.einsum("ij,ij->i", blk, blk)[:, None]
        out_d[s:s + rows] = np.maximum(vals, 0)
    return out_d, out_i


def _same_points(A, X):
    return A is X or (A.shape == X.shape and A.dtype == X.dtype and np.array_equal(A, X))


# ---------------------------------------------------------------------------
# Fredholm kernel
# ---------------------------------------------------------------------------


def _scale_outer_rows(P, normalized, n, failure):
    r"""The outer weights in place: rows divided by their sums (``normalized``) or by n (Que et al.'s 1/n).

    ``failure`` completes the ``ValueError`` raised when a row sum is not
    positive (a normalized row would be undefined).
    """
    if normalized:
        sums = P.sum(axis=1)
        if not (sums > 0).all():
            raise ValueError(f"normalized=True: {failure}")
        P /= sums[:, None]
    else:
        P /= P.dtype.type(n)
    return P


class FredholmKernel:
    r"""Fredholm kernel of Que, Belkin & Wang (NIPS 2014), evaluable between any point sets.

    .. math::

        k_F(x, z) = \frac{1}{n^2} \sum_{i,j=1}^n k(x, x_i)\, k_H(x_i, x_j)\, k(z, x_j)
                  = \mathbf p_x^T K_H \mathbf p_z,

    with the outer weights :math:`\mathbf p_x = (k(x, x_i) / n)_i` (their Eq. 5), or,
    ``normalized=True``, :math:`\mathbf p_x = (k(x, x_i) / \sum_m k(x, x_m))_i`, whose
    entries sum to one (the discretization of their continuous Eq. 9).  As a matrix
    over point sets A, B: :math:`K_F(A, B) = P_A K_H P_B^T`.  The kernel is symmetric
    positive semidefinite whenever :math:`k_H` is (their Proposition 3); the outer
    kernel need not be.

    Parameters
    ----------
    X : array of shape (n, d)
        All n = l + u points (labeled and unlabeled): they define the empirical
        integral operator :math:`\hat K_{p_X}`.
    outer, inner : {"gaussian", "heat", "linear", "polynomial"} or callable, default="gaussian"
        Outer kernel :math:`k` and inner kernel :math:`k_H`; a callable takes two point
        blocks and returns their kernel matrix.  See :data:`FREDHOLM_PRESETS` and
        :meth:`from_preset` for the paper's FredLin1, FredLin2, FredGauss (and (N)).
        Gaussian by default: the paper's best performer (FredGauss) on its benchmarks.
    sigma : float > 0, optional
        Width of the outer Gaussian :math:`\exp(-\|x - z\|^2 / (2\sigma^2))` (the heat
        kernel uses :math:`t = \sigma^2 / 2`).  None: :func:`default_sigma` of X.
    sigma_inner : float > 0, optional
        Width of the inner Gaussian; None means ``sigma``.  The paper's Theorem 4
        writes the inner kernel :math:`\exp(-\|u - v\|^2 / 2t)`: ``sigma_inner`` =
        :math:`\sqrt t`.
    normalized : bool, default=False
        Divide each outer row by its sum (the paper's "(N)" kernels).  Needs a
        positive outer kernel (Gaussian or heat; a callable is checked at run time).
        A point so far from the data that every Gaussian weight underflows gets the
        limit of its normalized row (the weights of its nearest points).
        False by default as in the paper's Eq. 5.
    n_neighbors : int, optional
        Truncate the outer kernel to the ``n_neighbors`` nearest of the n points (a
        point of X counts itself): :math:`P_A` becomes sparse with that many entries
        per row, and nothing of size (len(A), n) is dense.  Gaussian or heat outer
        only (a truncated linear kernel is meaningless).  None (default): exact.
        The normalized variant then normalizes over the kept neighbours.  Among
        equidistant points of X the nearest are those :func:`graphrkhs.knn_graph`'s
        exact search takes first (by coordinates), for the n points and for new
        ones alike, so :math:`P_A` does not depend on the order of the rows of X.
    inner_approximation : {"auto", "exact", "nystrom", "random_features"}, default="auto"
        How :math:`K_H` is applied.  ``"exact"``: in row blocks (never stored; cost
        :math:`n^2 (d + |B|)` flops per right factor).  ``"nystrom"``:
        :math:`K_H \approx C W^{+} C^T` on ``n_components`` landmarks drawn from X.
        ``"random_features"``: random Fourier features of the Gaussian
        (Rahimi & Recht 2007; the paper's Section 5 mentions them for large data).
        ``"auto"``: exact up to ``FREDHOLM_EXACT_MAX_N`` = 10000 points, Nystrom
        above.  A linear inner kernel is always exact (:math:`K_H = X X^T`
        factors through X).
    n_components : int, default=1000
        Landmarks / random features of the approximations (1000 keeps the Nystrom
        relative error of a Gaussian Gram matrix at a few percent on the
        benchmarks; see ``benchmarks/datadependent.py``).
    degree, coef0 : polynomial kernel parameters (both kernels).
    random_state : int, Generator or None
        Landmarks / random features.
    verbose : bool or None, default=None
        Progress of the long steps (neighbour search, inner factor, blocks of the
        inner kernel), at construction and in later calls: ``True`` shows bars and
        stage messages on stderr (INFO records of the ``graphrkhs`` logger when
        logging is configured), ``False`` silences them, None follows the
        enclosing call or the logger (on at INFO).

    Attributes
    ----------
    X : ndarray (n, d), n : int, sigma, sigma_inner : float
    inner_approximation_ : str
        The resolved approximation.

    Notes
    -----
    Misprint handled: the paper's normalized discrete kernel (Eq. 6) keeps the factor
    :math:`1/(l + u)^2` after dividing by the row sums, which makes it :math:`n^2` times
    smaller than the discretization of its own continuous Eq. 9 (the form analyzed in
    Section 4).  Here the normalized outer weights sum to one, so
    :math:`k_F^N` is a weighted average of :math:`k_H` and does not shrink as n grows;
    the printed form is this kernel divided by :math:`n^2` (a rescaling of the ridge).

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import FredholmKernel
    >>> X = np.random.default_rng(0).normal(size=(50, 3))
    >>> K = FredholmKernel(X, sigma=1.0, normalized=True)
    >>> G = K(X[:5])
    >>> G.shape, bool(np.allclose(G, G.T)), bool(np.linalg.eigvalsh(G).min() > -1e-12)
    ((5, 5), True, True)
    """

    def __init__(self, X: ArrayLike, *, outer: KernelName = "gaussian",
                 inner: KernelName = "gaussian",
                 sigma: float | None = None, sigma_inner: float | None = None, normalized: bool = False,
                 n_neighbors: int | None = None,
                 inner_approximation: Literal["auto", "exact", "nystrom", "random_features"] = "auto",
                 n_components: int = 1000, degree: int = 2, coef0: float = 1.0,
                 random_state: RandomStateLike = None, verbose: bool | None = None) -> None:
        self._progress = _Progress(verbose, "FredholmKernel")
        self._init_kwargs = dict(outer=outer, inner=inner, normalized=normalized, n_neighbors=n_neighbors,
                                 inner_approximation=inner_approximation, n_components=n_components,
                                 degree=degree, coef0=coef0, random_state=random_state, verbose=verbose)
        self._distances = None   # the shared [D2, scale] holder of with_sigma (None: nothing kept)
        self.X = check_points(X, "X", min_samples=2)
        n = self.n = self.X.shape[0]
        self.outer = _check_kernel_name(outer, "outer")
        self.inner = _check_kernel_name(inner, "inner")
        if not isinstance(normalized, (bool, np.bool_)):
            raise TypeError(f"normalized must be a bool; got {normalized!r}.")
        self.normalized = bool(normalized)
        if self.normalized and self.outer in ("linear", "polynomial"):
            raise ValueError(
                f"normalized=True divides the outer kernel by its row sums, which needs a positive outer "
                f"kernel ('gaussian', 'heat' or a positive callable); got outer={self.outer!r}."
            )
        self.n_neighbors = check_scalar(n_neighbors, "n_neighbors", kind="int", low=1, allow_none=True)
        if self.n_neighbors is not None:
            if self.outer not in ("gaussian", "heat"):
                raise ValueError(
                    "n_neighbors truncates the outer kernel to the nearest points, which needs a decaying "
                    f"outer kernel: 'gaussian' or 'heat'; got outer={self.outer!r}."
                )
            if self.n_neighbors > n:
                raise ValueError(f"n_neighbors must be <= the number of points n = {n}; got {self.n_neighbors}.")
        uses_sigma = self.outer in ("gaussian", "heat") or self.inner in ("gaussian", "heat")
        self.sigma = check_scalar(sigma, "sigma", low=0, low_inclusive=False, allow_none=True)
        if self.sigma is None:
            self.sigma = default_sigma(self.X) if uses_sigma else 1.0
        self.sigma_inner = check_scalar(sigma_inner, "sigma_inner", low=0, low_inclusive=False, allow_none=True)
        if self.sigma_inner is None:
            self.sigma_inner = self.sigma
        self.degree = check_scalar(degree, "degree", kind="int", low=1)
        self.coef0 = check_scalar(coef0, "coef0")
        check_option(inner_approximation, "inner_approximation", INNER_APPROXIMATIONS)
        self.n_components = check_scalar(n_components, "n_components", kind="int", low=1)
        if inner_approximation == "random_features" and self.inner != "gaussian":
            raise ValueError(
                "inner_approximation='random_features' samples the Fourier transform of the Gaussian: it "
                f"needs inner='gaussian'; got inner={self.inner!r}. Use 'nystrom' for other kernels."
            )
        if self.inner == "linear":
            resolved = "exact"
        elif inner_approximation == "auto":
            resolved = "exact" if n <= FREDHOLM_EXACT_MAX_N else "nystrom"
        else:
            resolved = inner_approximation
        self.inner_approximation_ = resolved
        self._check_underflow()
        self._rng = check_random_state(random_state)
        self._factor = None      # F with K_H ~= F F^T (linear inner, Nystrom, random features)
        self._nystrom = None     # the NystromFeatures of a Nystrom inner factor (its landmarks, for new points)
        self._self_outer = None  # P_X, cached the first time the training points are evaluated
        self._X_sq = None
        self._tie = LazyTieRanks(self.X)   # new points' equidistant neighbours in knn_search's order
        if self.inner == "linear":
            self._factor = self.X
        elif resolved in ("nystrom", "random_features"):
            self._progress(f"{resolved} factor of the inner kernel, {self.n_components} components, n = {n}")
            with self._progress.scope():
                self._factor = self._approximate_factor(resolved)
            self._progress("inner factor done")

    def _check_underflow(self):
        r"""Refuse points whose scale makes every value of :math:`k_F` underflow (linear, polynomial, heat).

        Linear and polynomial kernels are not scale-invariant: with :math:`r = \max_i \|x_i\|`,
        :math:`|k(x, x_i)| \le r^2` (linear) or :math:`(r^2 + |c_0|)^p`, a Gaussian is at most 1 and a
        heat kernel at most :math:`(4\pi t)^{-d/2}`, so
        :math:`|k_F| \le \bar k^2\, \bar k_H` over the points (Cauchy-Schwarz).  When that bound is below
        the dtype's smallest normal number every value of :math:`K_F` is 0 or a subnormal with lost digits
        (``FredholmKernel(X32 * 1e-30, outer="linear")`` returned the zero matrix, silently).  Computed in
        logarithms of a power-of-two-rescaled copy, which cannot under- or overflow itself.
        """
        def log_peak(name, sigma, outer):
            if callable(name):
                return None
            if name == "gaussian" or (name == "heat" and outer and self.normalized):
                return 0.0
            if name == "heat":       # the Gaussian times (4 pi t)^(-d/2)
                return heat_log_normalization(sigma, self.X.shape[1])
            if name == "linear":
                return log_r2
            return self.degree * (np.logaddexp(log_r2, np.log(abs(self.coef0))) if self.coef0 else log_r2)

        e = power_of_two_exponent(self.X)
        r = float(np.linalg.norm(np.ldexp(self.X, -e).astype(np.float64), axis=1).max())
        if r == 0.0:   # all points at the origin: a zero linear kernel is exact, not an underflow
            return
        log_r2 = 2.0 * (np.log(r) + e * np.log(2.0))
        outer, inner = log_peak(self.outer, self.sigma, True), log_peak(self.inner, self.sigma_inner, False)
        if outer is None or inner is None:
            return
        log_bound = 2.0 * outer + inner
        tiny = np.finfo(self.X.dtype).tiny
        if log_bound < np.log(tiny):
            fixes = []
            if "linear" in (self.outer, self.inner) or "polynomial" in (self.outer, self.inner):
                fixes.append("rescale X (e.g. standardize it)")
            if "heat" in (self.outer, self.inner):
                fixes.append(f"use a smaller sigma or the Gaussian kernel (the heat kernel's factor "
                             f"(4 pi t)^(-d/2) underflows in d = {self.X.shape[1]})")
            if self.X.dtype == np.float32:
                fixes.append("use float64 points")
            raise ValueError(
                f"the Fredholm kernel of these points underflows {self.X.dtype.name}: with outer={self.outer!r}, "
                f"inner={self.inner!r} and points of norm up to {r * 2.0 ** e:.3g}, |k_F| is at most about "
                f"1e{log_bound / np.log(10):.0f}, below the smallest normal number {tiny:.3g}, so K_F would be 0 "
                f"or lose its digits. Fix: {'; or '.join(fixes)}."
            )

    @classmethod
    def from_preset(cls, name: Literal["FredLin1", "FredLin2", "FredLin2(N)", "FredGauss", "FredGauss(N)"],
                    X: ArrayLike, **kwargs: Any) -> FredholmKernel:
        """A kernel from the paper's instances: ``"FredLin1"``, ``"FredLin2"``,
        ``"FredLin2(N)"``, ``"FredGauss"``, ``"FredGauss(N)"`` (see :data:`FREDHOLM_PRESETS`).

        Examples
        --------
        >>> import numpy as np
        >>> from graphrkhs import FredholmKernel
        >>> K = FredholmKernel.from_preset("FredLin1", np.eye(3), sigma_inner=1.0)
        >>> K.outer, K.inner, K.normalized
        ('linear', 'gaussian', False)
        """
        if name not in FREDHOLM_PRESETS:
            raise ValueError(f"name must be one of {', '.join(map(repr, FREDHOLM_PRESETS))}; got {name!r}.")
        outer, inner, normalized = FREDHOLM_PRESETS[name]
        return cls(X, outer=outer, inner=inner, normalized=normalized, **kwargs)

    def with_sigma(self, sigma: float, sigma_inner: float | None = None) -> FredholmKernel:
        r"""The same kernel (same X and options) at other widths, sharing work with this one.

        For a selection over widths (:class:`graphrkhs.FredholmClassifier` with
        ``sigma="auto"``): the squared distances :math:`\|x_i - x_j\|^2` of the n
        points are computed once, kept (up to
        ``FREDHOLM_SHARED_DISTANCES_MAX_BYTES``) and shared by every kernel of the
        family, so that each further width costs the exponentials and the products,
        not the :math:`n^2 d` distances.  The exact Gaussian inner kernel and the
        dense Gaussian outer weights of X itself use them; other kinds are computed
        as usual.  :meth:`release_distances` drops the shared matrix.

        Examples
        --------
        >>> import numpy as np
        >>> from graphrkhs import FredholmKernel
        >>> X = np.random.default_rng(0).normal(size=(40, 3))
        >>> K1 = FredholmKernel(X, sigma=1.0)
        >>> K2 = K1.with_sigma(2.0)
        >>> bool(np.allclose(K2(X[:5], X[:3]), FredholmKernel(X, sigma=2.0)(X[:5], X[:3])))
        True
        """
        if self._distances is None:
            self._distances = [None, None]
        other = FredholmKernel(self.X, sigma=sigma, sigma_inner=sigma_inner, **self._init_kwargs)
        other._distances = self._distances
        return other

    def release_distances(self) -> None:
        """Stop keeping the squared distances shared by :meth:`with_sigma` (frees n^2 floats)."""
        if self._distances is not None:
            self._distances.clear()     # the holder is shared: every kernel of the family stops using it
        self._distances = None

    def _shared_sq_dists(self):
        """``(D2, scale)`` of X in the centred frame of :func:`pairwise_kernel`, or None (not shared / too big)."""
        holder = self._distances
        if not holder or self.n * self.n * self.X.dtype.itemsize > FREDHOLM_SHARED_DISTANCES_MAX_BYTES:
            return None
        if holder[0] is None:
            Xf, _, scale = _frame(self.X, self.X)
            D = np.empty((self.n, self.n), dtype=self.X.dtype)
            rows = _block_rows(self.n, self.X.dtype.itemsize)
            for s in range(0, self.n, rows):
                D[s:s + rows] = _sq_dists(Xf[s:s + rows], Xf)
            holder[0], holder[1] = D, scale
        return holder[0], holder[1]

    def _gaussian_rows_of_X(self, start, stop, sigma, stop_col=None):
        """Rows start:stop (columns :stop_col) of the Gaussian kernel of X at ``sigma`` from the shared
        distances, or None."""
        shared = self._shared_sq_dists()
        if shared is None:
            return None
        D, scale = shared
        blk = D[start:stop, :stop_col]
        info = np.finfo(D.dtype)
        r = min(scale / sigma, float(info.max))
        factor = -0.5 * r * r
        if np.isfinite(factor) and abs(factor) >= float(info.tiny) and np.isfinite(D.dtype.type(factor)):
            B = np.multiply(blk, D.dtype.type(factor))     # _scaled_exponent's usual case, without a copy first
        else:
            B = _scaled_exponent(blk.copy(), scale, sigma)
        return np.exp(B, out=B)

    # -- building blocks -------------------------------------------------

    def _kernel(self, which, A, B):
        kernel = self.outer if which == "outer" else self.inner
        sigma = self.sigma if which == "outer" else self.sigma_inner
        return pairwise_kernel(A, B, kernel, sigma=sigma, degree=self.degree, coef0=self.coef0)

    def _approximate_factor(self, method):
        X, n, m = self.X, self.n, self.n_components
        if method == "random_features":
            d = X.shape[1]
            # the (n, m) features (the Nystrom branch's own arrays are guarded by NystromFeatures)
            memory_guard(n * m * X.dtype.itemsize, f"the random features of n = {n} points ({n} x {m})",
                         "lower n_components.")
            # omega ~ N(0, I / sigma^2) as (standard normal) / sigma, applied as x^T omega = (x / 2^e)^T z (2^e / sigma)
            # with 2^e the power of two of max |x| (exact): 1 / sigma overflowed to inf for sigma = 1e-310 (the
            # default width of X * 1e-310) and every feature was NaN
            z = self._rng.normal(size=(d, m)).astype(X.dtype)
            phase = self._rng.uniform(0, 2 * np.pi, size=m).astype(X.dtype)
            e = power_of_two_exponent(X)
            Xs = np.ldexp(X, -e) if e else X
            with np.errstate(over="ignore"):
                ratio = X.dtype.type(min(2.0 ** e / self.sigma_inner, float(np.finfo(X.dtype).max)))
            F = np.empty((n, m), dtype=X.dtype)
            rows = _block_rows(m, X.dtype.itemsize)
            with progress_bar(total=n, desc="random features", unit="pt") as bar:
                for s in range(0, n, rows):
                    with np.errstate(over="ignore"):
                        T = (Xs[s:s + rows] @ z) * ratio
                    # a width below the distances by ~1e308 overflowed T: any finite phase is as (un)informative
                    np.clip(T, -np.finfo(X.dtype).max, np.finfo(X.dtype).max, out=T)
                    F[s:s + rows] = np.cos(T + phase)
                    bar.update(min(rows, n - s))
            F *= np.sqrt(2.0 / m).astype(X.dtype)
            return F
        # THE Nystrom factor of the package (kernels._nystrom), with this kernel's historical choice:
        # a uniform sample of exactly n_components landmarks (tol=0: no rank search)
        self._nystrom = NystromFeatures(X, kernel=self.inner, sigma=self.sigma_inner, degree=self.degree,
                                        coef0=self.coef0, n_components=m, tol=0.0, landmarks="uniform",
                                        random_state=self._rng)
        return self._nystrom.features_

    @_with_verbosity
    def outer_weights(self, A: ArrayLike) -> NDArray[np.floating] | sp.csr_array:
        r"""Outer weights :math:`P_A` (len(A), n): rows :math:`k(a, x_i) / n`, or normalized rows.

        Sparse CSR when ``n_neighbors`` is set, dense otherwise.
        """
        A = check_points(A, "A", dtype=self.X.dtype)
        if A.shape[1] != self.X.shape[1]:
            raise ValueError(f"A must have {self.X.shape[1]} features like X; got {A.shape[1]}.")
        same = _same_points(A, self.X)
        if same and self._self_outer is not None:
            return self._self_outer
        n = self.n
        if self.n_neighbors is None:
            memory_guard(A.shape[0] * n * A.dtype.itemsize, f"the dense outer kernel of {A.shape[0]} points",
                         "set n_neighbors to truncate the outer kernel, or evaluate fewer points at a time.")
            P = self._kernel("outer", A, self.X)
            if self.normalized and self.outer in ("gaussian", "heat"):
                far = ~(P.sum(axis=1) > 0)
                if far.any():
                    # a point so far from every x_i that each k(a, x_i) underflowed to 0: its normalized
                    # row is still defined, exp(e_i - max e) / sum (the normalization cancels the shift;
                    # the heat kernel is the Gaussian of the same width times a constant).  The row's
                    # smallest distance is taken out before the width is applied, as on the kNN path: the
                    # exponents of a point ~1e155 times the data's spread away were all -inf and
                    # -inf - (-inf) made the row NaN (a ValueError about the row sum)
                    Af, Xf, scale = _frame(A[far], self.X)
                    D2 = _sq_dists(Af, Xf)
                    E = _scaled_exponent(D2 - D2.min(axis=1, keepdims=True), scale, self.sigma)
                    P[far] = np.exp(E)
            return _scale_outer_rows(P, self.normalized, n, "the outer kernel has a row with a non-positive sum; "
                                     "use a positive outer kernel or a wider sigma.")
        if not same and A.shape[0] > 1:
            far = _far_rows(A, self.X)
            if far.any() and not far.all():
                # rows far beyond the points' extent set the power of two of the distances' units: in it the
                # other rows' squared distances underflowed (a row at 1e200 in the batch gave the others the
                # weights of coincident points); each group in its own units, rows back in their order
                P = sp.vstack([self.outer_weights(A[~far]), self.outer_weights(A[far])], format="csr")
                return P[np.argsort(np.r_[np.flatnonzero(~far), np.flatnonzero(far)], kind="stable")]
        k = self.n_neighbors
        log_norm = 0.0
        if self.outer == "heat" and not self.normalized:
            # the heat kernel is the Gaussian of the same width times (4 pi t)^(-d/2), added to the exponent
            # as its logarithm; a peak beyond float64 is refused as pairwise_kernel refuses it
            log_norm = heat_log_normalization(self.sigma, A.shape[1])
            _check_heat_normalization(log_norm, self.sigma, A.shape[1], A.dtype)
        # Squared distances d2 in units of unit^2, unit a power of two of max |x| (exact rescaling), so that
        # they neither overflow (|x| ~ 1e200) nor underflow; the width enters through _scaled_exponent as
        # (unit / sigma)^2, never as sigma**2 (which over/underflows outside about [1e-154, 1e154]: a
        # ZeroDivisionError or OverflowError, and -0.5 / sigma^2 = -inf in float32 made the self weight NaN).
        if same:
            if k == 1:
                d2 = np.zeros((n, 1), dtype=A.dtype)
                idx = np.arange(n)[:, None]
                unit = 1.0
            else:
                self._progress(f"outer kernel: {k} nearest of each of the n = {n} points")
                dist, nbr, unit = knn_search(self.X, k - 1, "auto", self._rng, return_scale=True)
                self._progress("neighbour search done")
                idx = np.hstack([np.arange(n)[:, None], nbr])
                d2 = np.hstack([np.zeros((n, 1)), dist * dist]).astype(A.dtype)
        else:
            e = power_of_two_exponent(self.X, A)
            if self._X_sq is None or self._X_sq[0] != e:
                Xs = np.ldexp(self.X, -e) if e else self.X
                self._X_sq = (e, Xs, np.einsum("ij,ij->i", Xs, Xs))
            _, Xs, Xs_sq = self._X_sq
            As = np.ldexp(A, -e) if e else A

            def search(rows, width):
                Q = As if rows is None else As[rows]
                d2c, i = _query_knn(Xs, Q, width, Xs_sq)
                return query_distances(Q, Xs, np.sqrt(d2c), i)   # final distances, from the differences

            # equidistant points of X in the fitted points' own order (knn_search's tie ranks), not the
            # search's (index, or argpartition's): P_A does not depend on the order of the rows of X
            dist, idx = query_in_tie_order(search, A.shape[0], n, k, self._tie)
            d2 = (dist * dist).astype(A.dtype)
            unit = 2.0 ** e
        if self.normalized:
            # the row's smallest distance taken out first (the normalization cancels it): a point far from
            # every x_i keeps the weights of its nearest points instead of an all-zero row; the heat
            # kernel is the Gaussian of the same width times a constant, which the normalization cancels too
            d2 = d2 - d2.min(axis=1, keepdims=True)
        E = _scaled_exponent(d2, unit, self.sigma)
        if log_norm:
            E += E.dtype.type(log_norm)
        w = np.exp(E)
        _scale_outer_rows(w, self.normalized, n, "every kept outer weight of a point underflowed to 0; "
                          "use a wider sigma.")
        P = sp.csr_array((w.ravel(), idx.ravel(), np.arange(0, w.size + 1, k)), shape=(A.shape[0], n))
        P.sum_duplicates()
        if same:
            self._self_outer = P
        return P

    @_with_verbosity
    def right_factor(self, B: ArrayLike, coef: ArrayLike | None = None) -> tuple[str, NDArray[np.floating]]:
        r"""The right factor of :math:`K_F(\cdot, B)`: :math:`K_H P_B^T` (n, len(B)), or the
        features :math:`\Phi_B = P_B F` (len(B), m) when :math:`K_H \approx F F^T` is factored.

        Compute it once and pass it as ``K(A, B, right=R)`` for many ``A``.

        With ``coef`` C (len(B), c): the right factor of :math:`K_F(\cdot, B)\, C`, the values
        of the c functions :math:`f_j = \sum_b k_F(\cdot, b) C_{bj}`: :math:`K_H (P_B^T C)`
        (n, c), at :math:`n^2 c` instead of :math:`n^2 |B|` flops; ``K(A, B, right=R)`` then
        returns :math:`K_F(A, B)\, C` (len(A), c).
        """
        return self._right_from_weights(self.outer_weights(B), coef)

    def _right_from_weights(self, P_B, coef):
        if coef is not None:
            C = np.asarray(coef)
            C = C[:, None] if C.ndim == 1 else C
            if C.ndim != 2 or C.shape[0] != P_B.shape[0] or not np.isfinite(C).all():
                raise ValueError(f"coef must be a finite array of shape (len(B), c) = ({P_B.shape[0]}, c); "
                                 f"got shape {np.shape(coef)}.")
            if self._factor is not None:
                return ("matrix", np.asarray(self._factor @ np.asarray(C.T @ (P_B @ self._factor)).T))
            return ("matrix", self.apply_inner(np.asarray(P_B.T @ C)))
        if self._factor is not None:
            return ("features", np.asarray(P_B @ self._factor))
        return ("matrix", self.apply_inner(P_B.T))

    @_with_verbosity
    def apply_inner(self, V: ArrayLike | sp.sparray) -> NDArray[np.floating]:
        r"""The inner kernel matrix of the n points times V: :math:`K_H V`, shape (n, c).

        :math:`K_H` is applied as :meth:`right_factor` does (``right_factor(B)`` is
        ``("matrix", apply_inner(P_B^T))`` for an exact inner kernel): in row blocks of
        :math:`K_H`, never stored, at :math:`n^2 (d + c)` flops (:math:`n^2 c` from the
        distances shared by :meth:`with_sigma`), or through the factor,
        :math:`F (F^T V)`, when :math:`K_H \approx F F^T`.  With
        :math:`V = P_B^T C` it gives the values :math:`K_F(A, B)\, C = P_A (K_H P_B^T C)`
        of a fitted function at any A for c columns instead of len(B).

        Parameters
        ----------
        V : array or sparse matrix of shape (n, c)

        Examples
        --------
        >>> import numpy as np
        >>> from graphrkhs import FredholmKernel, gaussian_kernel
        >>> X = np.random.default_rng(0).normal(size=(30, 2))
        >>> K = FredholmKernel(X, sigma=1.0)
        >>> V = np.ones((30, 1))
        >>> bool(np.allclose(K.apply_inner(V), gaussian_kernel(X, X, sigma=1.0) @ V))
        True
        """
        if sp.issparse(V):
            V = sp.csr_array(V)
        else:
            V = np.asarray(V)
            if V.ndim == 1:
                V = V[:, None]
            if V.dtype.kind != "f":
                V = V.astype(np.float64)
        if V.ndim != 2 or V.shape[0] != self.n:
            raise ValueError(f"V must have shape (n, c) with n = {self.n} rows (one per point of X); "
                             f"got {V.shape}.")
        if not sp.issparse(V) and not np.isfinite(V).all():
            raise ValueError("V must be finite.")
        memory_guard(self.n * V.shape[1] * np.result_type(self.X.dtype, V.dtype).itemsize,
                     f"K_H V ({self.n} x {V.shape[1]})",
                     "evaluate the kernel against fewer points (columns) at a time.")
        if self._factor is not None:
            F = self._factor
            return np.asarray(F @ np.asarray(F.T @ V))
        X = self.X
        V = V if sp.issparse(V) else np.ascontiguousarray(V, dtype=np.result_type(V.dtype, X.dtype))
        R = np.empty((self.n, V.shape[1]), dtype=np.result_type(X.dtype, V.dtype))
        rows = _block_rows(self.n, X.dtype.itemsize)
        with progress_bar(total=self.n, desc="Fredholm inner kernel K_H P^T", unit="row") as bar:
            for s in range(0, self.n, rows):
                KH = self._gaussian_rows_of_X(s, s + rows, self.sigma_inner) if self.inner == "gaussian" else None
                if KH is None:
                    KH = self._kernel("inner", X[s:s + rows], X)  # (block, n) rows of K_H, never all stored
                R[s:s + rows] = np.asarray(KH @ V) if not sp.issparse(V) else np.asarray((V.T @ KH.T).T)
                bar.update(min(rows, self.n - s))
        return R

    def _check_rows(self, index):
        idx = np.asarray(index)
        if idx.ndim != 1 or idx.size == 0 or not np.issubdtype(idx.dtype, np.integer):
            raise ValueError(f"index must be a non-empty 1-D array of row indices into X; got {np.shape(index)} "
                             f"of dtype {idx.dtype}.")
        if idx.min() < -self.n or idx.max() >= self.n:
            raise ValueError(f"index must hold row indices into X, in [0, {self.n}); got {idx.min()}..{idx.max()}.")
        return idx

    def _outer_weights_of_rows(self, idx):
        """``outer_weights(X[idx])``, read from the shared distances when they are kept (dense Gaussian outer)."""
        if self.outer == "gaussian" and self.n_neighbors is None and self._shared_sq_dists() is not None:
            D, scale = self._shared_sq_dists()
            P = _scaled_exponent(D[idx], scale, self.sigma)
            return _scale_outer_rows(np.exp(P, out=P), self.normalized, self.n, "the outer kernel has a row "
                                     "with a non-positive sum; use a wider sigma.")
        return self.outer_weights(self.X[idx])

    @_with_verbosity
    def right_factor_of_rows(self, index: ArrayLike, coef: ArrayLike | None = None
                             ) -> tuple[str, NDArray[np.floating]]:
        r"""``right_factor(X[index], coef)`` for rows of X itself: the outer weights are read from the
        squared distances shared by :meth:`with_sigma` when they are kept (no distances to
        recompute), else computed as in :meth:`right_factor`.

        Examples
        --------
        >>> import numpy as np
        >>> from graphrkhs import FredholmKernel
        >>> X = np.random.default_rng(0).normal(size=(40, 3))
        >>> K = FredholmKernel(X, sigma=1.0).with_sigma(1.5)
        >>> right = K.right_factor_of_rows(np.arange(4))
        >>> bool(np.allclose(K(X[:6], X[:4], right=right), K(X[:6], X[:4])))
        True
        """
        idx = self._check_rows(index)
        return self._right_from_weights(self._outer_weights_of_rows(idx), coef)

    @_with_verbosity
    def gram_of_rows(self, index: ArrayLike) -> tuple[NDArray[np.floating], tuple[str, NDArray] | None]:
        r"""The kernel matrix :math:`K_F(X_I, X_I) = P_I K_H P_I^T` of rows I of X itself.

        Equal to ``self(X[I], X[I])``; cheaper when the exact Gaussian inner kernel is
        computed from the squared distances shared by :meth:`with_sigma` (a width
        selection builds one gram per width and needs :math:`K_H P_I^T` only at the
        chosen width).  There, with :math:`Q = P_I^T` and :math:`K_H = T + T^T`
        (T: the strict lower triangle of :math:`K_H` plus half its diagonal),

        .. math:: P_I K_H P_I^T = M + M^T, \qquad M = Q^T T Q,

        computed by row blocks of the lower triangle only: half the exponentials and
        half the :math:`n^2 |I|` flops of :math:`K_H P_I^T` (the diagonal blocks are
        taken whole, with weight 1/2).  The result differs from the plain product by
        rounding only, and is exactly symmetric.

        Parameters
        ----------
        index : int array of shape (l,)
            Row indices into X.

        Returns
        -------
        G : ndarray of shape (l, l)
        right : ``right_factor(X[I])`` when it was computed on the way (every other case:
            factored or non-Gaussian inner kernel, no shared distances, float32 points), else None.

        Examples
        --------
        >>> import numpy as np
        >>> from graphrkhs import FredholmKernel
        >>> X = np.random.default_rng(0).normal(size=(40, 3))
        >>> K = FredholmKernel(X, sigma=1.0).with_sigma(1.5)
        >>> G, right = K.gram_of_rows(np.arange(5))
        >>> bool(np.allclose(G, K(X[:5], X[:5]))), right is None
        (True, True)
        """
        idx = self._check_rows(index)
        XI = self.X[idx]
        # float32 points keep the plain product P_I (K_H P_I^T) in float32: the selection's rounding floors
        # (ridges below ~l eps |G| are no candidates) were set on its rounding
        if (self._factor is not None or self.inner != "gaussian" or self.X.dtype != np.float64
                or self._shared_sq_dists() is None):
            right = self.right_factor(XI)
            return self(XI, XI, right=right), right
        PT = self._outer_weights_of_rows(idx).T
        Q = PT.toarray() if sp.issparse(PT) else np.ascontiguousarray(PT)
        Q = np.asarray(Q, dtype=self.X.dtype)
        l, n = idx.size, self.n
        M = np.zeros((l, l), dtype=Q.dtype)
        diag = np.zeros((l, l), dtype=Q.dtype)
        # small diagonal blocks (their full b x b products are the overhead over n^2 l / 2), but large enough
        # for the GEMMs to run at speed
        rows = int(min(_block_rows(n, self.X.dtype.itemsize), max(64, n // 32)))
        for s in range(0, n, rows):
            e = min(n, s + rows)
            KH = self._gaussian_rows_of_X(s, e, self.sigma_inner, stop_col=e)   # rows s:e, columns :e
            if s:
                M += Q[s:e].T @ (KH[:, :s] @ Q[:s])
            diag += Q[s:e].T @ (KH[:, s:e] @ Q[s:e])
        G = M + M.T + (diag + diag.T) / 2
        return G, None

    @_with_verbosity
    def __call__(self, A: ArrayLike, B: ArrayLike | None = None, *,
                 right: tuple[str, NDArray[np.floating]] | None = None,
                 outer_approximation: Literal["exact", "nystrom", "auto"] = "exact") -> NDArray[np.floating]:
        r"""Kernel matrix :math:`K_F(A, B)` of shape (len(A), len(B)).

        Parameters
        ----------
        A : array (m_a, d)
        B : array (m_b, d), optional
            None means A.
        right : optional
            ``right_factor(B)``, to reuse across calls with the same B.
        outer_approximation : {"exact", "nystrom", "auto"}, default="exact"
            How the outer weights :math:`P_A` of the evaluation points are applied.
            ``"exact"``: the dense (or kNN-truncated) rows, :math:`|A|\, n\, d` flops of
            distances (at n = 60000, d = 784 and 10000 points about 10 s on 2 cores).
            ``"nystrom"`` (landmark evaluation): when the inner kernel is the Nystrom factor
            :math:`K_H \approx F F^T`, :math:`F = \phi(X)`, of the *same* Gaussian as the
            outer kernel, the outer kernel of new points is taken in the same landmark
            space, :math:`k(a, X) \approx \phi(a)^T F^T` (:math:`\phi` the Nystrom
            feature map, :class:`~graphrkhs.NystromFeatures`), so

            .. math:: K_F(A, B) \approx \tfrac1n\, \phi(A)\, (F^T R), \qquad R = K_H P_B^T,

            (normalized: divided by :math:`\phi(a)^T F^T \mathbf 1` instead of n; rows
            whose approximate sum is not positive are evaluated exactly): distances to the
            m landmarks only, :math:`|A|\, m\, d` flops.  Its error is that of the Nystrom
            approximation of the outer row :math:`k(a, X)` applied to the columns of R
            (the same landmarks and width as the inner factor: a relative trace error of
            the Gram matrix of a few percent at m = 1000 on Fashion-MNIST); predictions of
            a classifier agree with the exact ones on all but a few percent of the points
            (tests/kernels/test_datadependent.py).  ``"auto"``: ``"nystrom"`` when it
            applies (a Nystrom inner factor, ``inner_approximation="auto"`` above
            ``FREDHOLM_EXACT_MAX_N`` points, Gaussian outer kernel of width
            ``sigma_inner``, no ``n_neighbors``), else exact.
        """
        check_option(outer_approximation, "outer_approximation", ("exact", "nystrom", "auto"))
        if right is None:
            right = self.right_factor(A if B is None else B)
        if outer_approximation != "exact":
            usable = (self._nystrom is not None and self.outer == "gaussian" and self.inner == "gaussian"
                      and self.sigma == self.sigma_inner and self.n_neighbors is None)
            if outer_approximation == "nystrom" and not usable:
                raise ValueError("outer_approximation='nystrom' needs a Nystrom inner factor of the outer kernel: "
                                 "inner_approximation='nystrom' (or 'auto' above FREDHOLM_EXACT_MAX_N points), "
                                 "outer='gaussian' with sigma_inner equal to sigma, and no n_neighbors.")
            if usable:
                return self._landmark_call(A, right)
        kind, R = right
        n_a = check_points(A, "A", dtype=self.X.dtype).shape[0]
        n_c = R.shape[1] if kind == "matrix" else R.shape[0]
        # the (len(A), len(B)) result; the outer weights' and K_H's own blocks are guarded where they are made
        memory_guard(n_a * n_c * max(R.dtype.itemsize, self.X.dtype.itemsize),
                     f"the Fredholm kernel matrix ({n_a} x {n_c})",
                     "evaluate fewer points at a time (right=K.right_factor(B) reuses the right factor).")
        if kind == "features" and R.shape[0] <= R.shape[1]:
            # P_A F Phi_B^T as P_A (F Phi_B^T): (n, |B|) once instead of an (|A|, n) x (n, m) product per
            # block (|B| <= m: the labeled points of a fit; 10000 x 60000 x 1000 flops saved per predict)
            kind, R = "matrix", np.asarray(self._factor @ R.T)

        def block(P):
            with np.errstate(over="ignore", invalid="ignore"):     # an overflow is the error raised below
                out = np.asarray(P @ self._factor) @ R.T if kind == "features" else np.asarray(P @ R)
            return self._finite(out)

        if self.n_neighbors is not None:
            return block(self.outer_weights(A))
        # Dense outer kernel: rows of A in blocks, so no (len(A), n) array is ever stored.
        A = check_points(A, "A", dtype=self.X.dtype)
        rows = _block_rows(self.n, self.X.dtype.itemsize)
        if self.outer == "gaussian" and self._distances and _same_points(A, self.X):
            out = None
            for s in range(0, self.n, rows):
                P = self._gaussian_rows_of_X(s, s + rows, self.sigma)
                if P is None:
                    break
                P = block(_scale_outer_rows(P, self.normalized, self.n, "the outer kernel has a row with a "
                                            "non-positive sum; use a wider sigma."))
                out = np.empty((self.n, P.shape[1]), dtype=P.dtype) if out is None else out
                out[s:s + rows] = P
            else:
                return out
        if A.shape[0] <= rows:
            return block(self.outer_weights(A))
        first = block(self.outer_weights(A[:rows]))
        out = np.empty((A.shape[0], first.shape[1]), dtype=first.dtype)
        out[:rows] = first
        for s in range(rows, A.shape[0], rows):
            out[s:s + rows] = block(self.outer_weights(A[s:s + rows]))
        return out

    def _finite(self, out):
        """``out``, or a ValueError when a product overflowed (the points are finite: an inf is overflow).

        The underflow bound of the constructor is an upper bound and cannot refuse overflow in advance:
        ``FredholmKernel(X32 * 1e30, outer="gaussian", inner="linear")`` returned inf entries with only
        numpy's RuntimeWarning (the linear inner kernel, up to 1e62, exceeds float32's 3.4e38).
        """
        if np.isfinite(out).all():
            return out
        fixes = "rescale X (e.g. standardize it)" + ("; or use float64 points" if out.dtype == np.float32 else "")
        raise ValueError(f"the Fredholm kernel of these points overflows {out.dtype.name} (outer={self.outer!r}, "
                         f"inner={self.inner!r}): its values exceed {np.finfo(out.dtype).max:.3g}. Fix: {fixes}.")

    def _landmark_call(self, A, right):
        """K_F(A, B) with the outer rows of A in the landmark space of the Nystrom inner factor (see __call__)."""
        A = check_points(A, "A", dtype=self.X.dtype)
        if A.shape[1] != self.X.shape[1]:
            raise ValueError(f"A must have {self.X.shape[1]} features like X; got {A.shape[1]}.")
        F = self._factor
        kind, R = right
        V = R if kind == "matrix" else np.asarray(F @ R.T)         # (n, c): K_H P_B^T
        M = np.asarray(F.T @ V)                                     # (r, c)
        Phi = self._nystrom.transform(A)                            # (|A|, r)
        out = np.asarray(Phi @ M.astype(Phi.dtype, copy=False))
        if not self.normalized:
            return self._finite(out / out.dtype.type(self.n))
        den = Phi @ F.sum(axis=0, dtype=np.float64).astype(Phi.dtype)   # ~ sum_i k(a, x_i)
        good = den > 0
        out[good] /= den[good, None]
        if not good.all():      # an approximate row sum that is not positive: that row exactly
            out[~good] = self(A[~good], right=right)
        return self._finite(out)

    @_with_verbosity
    def features(self, A: ArrayLike) -> NDArray[np.floating]:
        r"""Explicit features :math:`\Phi_A = P_A F` with :math:`k_F(a, b) = \Phi_a^T \Phi_b`;
        only when the inner kernel is factored (linear inner, Nystrom, random features)."""
        if self._factor is None:
            raise ValueError("features() needs a factored inner kernel: inner='linear' or "
                             "inner_approximation='nystrom' / 'random_features'.")
        return self._finite(np.asarray(self.outer_weights(A) @ self._factor))

    def __repr__(self):
        return (f"FredholmKernel(n={self.n}, outer={self.outer!r}, inner={self.inner!r}, sigma={self.sigma:.4g}, "
                f"sigma_inner={self.sigma_inner:.4g}, normalized={self.normalized}, "
                f"n_neighbors={self.n_neighbors}, inner_approximation={self.inner_approximation_!r})")


# ---------------------------------------------------------------------------
# Warped kernel
# ---------------------------------------------------------------------------

def _laplacian_root(W, kind, p):
    r"""Sparse R with :math:`R^T R = L^p` (for ``"randomwalk"``: :math:`D (D^{-1} L)^p`).

    Uses the weighted incidence matrix G (one row per edge, :math:`G^T G = D - W`).
    """
    W = sp.csr_array(W, dtype=np.float64)
    n = W.shape[0]
    d = np.asarray(W.sum(axis=1)).ravel()
    upper = sp.triu(W, k=1).tocoo()
    m = upper.nnz
    sw = np.sqrt(upper.data)
    rows = np.concatenate([np.arange(m), np.arange(m)])
    G = sp.csr_array((np.concatenate([sw, -sw]), (rows, np.concatenate([upper.row, upper.col]))), shape=(m, n))
    Lc = sp.csr_array(sp.diags_array(d) - W)
    inv_sqrt = np.where(d > 0, 1.0 / np.sqrt(np.where(d > 0, d, 1.0)), 0.0)
    if kind == "combinatorial":
        S, L = G, Lc  # L = S^T S
        step = L      # L^p = S^T S L^(p-1); root of L^p: S L^q (p = 2q + 1) or L^q (p = 2q)
    elif kind == "normalized":
        Dm = sp.diags_array(inv_sqrt)
        S = sp.csr_array(G @ Dm)
        step = sp.csr_array(Dm @ Lc @ Dm)
    else:  # randomwalk, self-adjoint in the degree inner product: M ~ L (D^-1 L)^(p-1)
        inv = np.where(d > 0, 1.0 / np.where(d > 0, d, 1.0), 0.0)
        S = G
        step = sp.csr_array(sp.diags_array(inv) @ Lc)  # D^-1 L
    q, odd = divmod(p, 2)
    if p > 1:
        # the kernel uses M = R^T R = L^p: refuse up front when its entries surely pass 2**1000 (for the
        # random walk D^(1/2) N^p D^(1/2), entries at least d_min lambda_max(N)^p / n), and after each product
        # once R^T R's largest entry (its largest squared column norm) does (p = 400 at n = 300 gave an inf
        # point-cloud matrix, p = 800 an all-NaN R, with no error)
        if kind == "combinatorial":
            power_growth_guard(Lc, p, kind)
        else:
            N = sp.csr_array(sp.diags_array(inv_sqrt) @ Lc @ sp.diags_array(inv_sqrt))
            power_growth_guard(N, p, kind, scale=1.0 if kind == "normalized" else
                               (float(d[d > 0].min()) if (d > 0).any() else 0.0))
    # the power of L that R^T R is after j products: p odd, R = S L^j, 2j + 1; p even, R = L^(j+1), 2j + 2
    first = 1 if odd else 2
    if kind == "randomwalk":
        # p odd: R = G (D^-1 L)^q; p even: R = D^{-1/2} L (D^-1 L)^(q-1)
        R = S if odd else sp.csr_array(sp.diags_array(inv_sqrt) @ Lc)
        for j in range(q if odd else q - 1):
            R = sp.csr_array(guarded_sparse_product(R, step, f"the root of L^{p}", _POWER_FIX))
            check_power_entries(R, p, kind, first + 2 * (j + 1), root=True)
        return R
    R = S if odd else step
    for j in range(q if odd else q - 1):
        R = sp.csr_array(guarded_sparse_product(R, step, f"the root of L^{p}", _POWER_FIX))
        check_power_entries(R, p, kind, first + 2 * (j + 1), root=True)
    return R


_POWER_FIX = "use a smaller laplacian_power."


class WarpedKernel:
    r"""Warped (deformed) kernel with a point-cloud norm (Sindhwani, Niyogi & Belkin, ICML 2005).

    The RKHS :math:`\mathcal H` of a base kernel :math:`k` with the norm deformed on
    the n points, :math:`\|f\|_{\tilde{\mathcal H}}^2 = \|f\|_{\mathcal H}^2 + \mathbf f^T M \mathbf f`,
    has the kernel

    .. math:: \tilde k(x, z) = k(x, z) - \mathbf k_x^T (I + M K)^{-1} M \mathbf k_z,
       \qquad M = \frac{\gamma_I}{\gamma_A n^2} L^p,

    :math:`\mathbf k_x = (k(x_1, x), \dots, k(x_n, x))^T`, :math:`K` the Gram matrix of
    the n points and :math:`L` a graph Laplacian on them.  With this scaling of M,
    regularized least squares with ridge ``gamma_A`` on :math:`\tilde k` over the
    labeled points *is* LapRLS (Belkin, Niyogi & Sindhwani 2006) with the same
    ``gamma_A``, ``gamma_I`` and :math:`L^p` — the central identity of the paper.

    Parameters
    ----------
    X : array of shape (n, d)
        All points, labeled and unlabeled.
    kernel : {"gaussian", "heat", "linear", "polynomial"} or callable, default="gaussian"
        Base kernel (positive semidefinite).
    sigma : float > 0, optional
        Base Gaussian width; None: :func:`default_sigma` of X.
    degree, coef0 : int, float, default=2, 1.0
        The polynomial kernel :math:`(x^T z + c_0)^p` (``kernel="polynomial"`` only).
    gamma_A, gamma_I : float, default=1e-2, 1.0
        Ambient and intrinsic weights; only their ratio enters the kernel
        (:math:`\gamma_I / \gamma_A = 100` by default: a strong deformation, the
        regime where the kernel follows the data's geometry as in the paper's
        two-circles figure).
    graph : {"knn", "epsilon"} or adjacency, default="knn"
        An adjacency (anything :func:`~graphrkhs.as_adjacency` takes, (n, n) over X) is used as is.
    n_neighbors : int, default=10
        kNN graph degree (the usual 10, as in :func:`graphrkhs.knn_graph`).
    radius : float, optional
        Ball radius of the epsilon graph (required with ``graph="epsilon"``).
    weight : {"gaussian", "binary", "self-tuning"}, default="gaussian"
    graph_sigma : float, optional
        Edge-weight width (None: the graph builders' data-driven default).
    laplacian : {"combinatorial", "normalized", "randomwalk"}, default="combinatorial"
        ``"randomwalk"`` uses :math:`D (D^{-1} L)^p`, the random-walk Laplacian's
        power made self-adjoint in the degree-weighted inner product (so M is
        symmetric; for p = 1 it equals the combinatorial Laplacian).
    laplacian_power : int >= 1, default=1
        p, as in the paper (p = 1 in Belkin et al.'s LapRLS).
    solver : {"auto", "direct", "cg", "nystrom"}, default="auto"
        ``"direct"``: factor the dense system once (with the Gram matrix, at the first
        :meth:`right_factor`: evaluating the kernel with right factors one already has,
        ``right=``, needs neither): the LU of :math:`I + MK` when LAPACK's estimate of its
        condition number gives a relative error :math:`\epsilon\,\kappa \le` ``tol``;
        otherwise (large :math:`\gamma_I/\gamma_A`, where the LU loses all digits) the
        symmetric form :math:`(I + MK)^{-1}M = c\,T^T(I + c\,TKT^T)^{-1}T` with
        :math:`L^p = T^T T` from a pivoted Cholesky factorization (T of shape r x n, r the
        rank of :math:`L^p`), factored by Cholesky (about 4.5 times the LU's flops).  It
        keeps the null space of M exact and its matrix :math:`\succeq I`, and its residual
        is checked in the kernel's units as CG's is (see ``tol``).  ``"cg"``:
        conjugate gradients on the SPD form :math:`(I + c R K R^T) s = R \mathbf k`,
        with :math:`M = c R^T R` and R sparse (a weighted incidence matrix times a power
        of L); its eigenvalues lie in :math:`[1, 1 + c\,\lambda_{max}(L)^p \lambda_{max}(K)]`,
        a small range in the usual scaling :math:`c = \gamma_I/(\gamma_A n^2)`, so it needs
        no preconditioner.  ``"nystrom"``: :math:`K \approx FF^T`, :math:`\mathbf k_x \approx F\phi(x)`
        with the Nystrom features :math:`\phi` of :class:`~graphrkhs.NystromFeatures`; by the
        push-through identity :math:`F^T(I + MFF^T)^{-1}MF = G(I + G)^{-1}`,
        :math:`G = F^T M F = c\,(RF)^T(RF)` (r x r, from sparse products), so

        .. math:: \tilde k(x, z) \approx k(x, z) - \phi(x)^T G (I + G)^{-1} \phi(z),

        one r x r solve and no n x n array (memory :math:`O(nr)`; exact when
        the landmarks are all n points and K is nonsingular).  ``"auto"``: direct up to
        ``WARPED_DIRECT_MAX_N`` = 4000 points, CG up to ``NYSTROM_AUTO_MIN_N`` = 10000,
        Nystrom above.
    n_components : int, default=1000
        Cap on the Nystrom landmarks (``solver="nystrom"``; see :class:`~graphrkhs.NystromFeatures`).
    landmarks : {"kmeans", "uniform"}, default="kmeans"
        Nystrom landmarks.
    tol : float, optional
        Relative residual tolerance of CG; None: 1e-8 for float64 points and 1e-5 for
        float32 ones (the Gram matrix is kept in the points' dtype, which bounds the
        reachable residual).  It is the accuracy of the kernel, not only of the CG
        residual: the residual :math:`r_b` of the solve for column b (of norm ``tol``
        :math:`\|R\mathbf k_b\|` at most) bounds the kernel's error by
        :math:`|\delta\tilde k(a, b)| \le \sqrt{c\,k(a, a)}\,\|r_b\|`, far above ``tol``
        when c is large, so CG stops at ``tol`` divided by
        :math:`a = \max_b \sqrt{c / \max_i k(x_i, x_i)}\,\|R\mathbf k_b\|` when a > 1
        (unchanged in the usual scaling, where a < 1).  When that residual lies below
        what CG can reach in float64 (a very large :math:`\gamma_I/\gamma_A`), an
        :class:`~graphrkhs.AccuracyWarning` gives the bound reached instead.  The direct
        solver checks the same bound on its residual and warns likewise.
    random_state : int, Generator or None
        Passed to approximate kNN backends only.
    verbose : bool or None, default=None
        Progress (graph, Gram matrix, factorization or CG), at construction and in
        later calls: ``True`` shows bars and stage messages on stderr (INFO records
        of the ``graphrkhs`` logger when logging is configured), ``False`` silences
        them, None follows the enclosing call or the logger (on at INFO).

    Attributes
    ----------
    W, L : sparse graph and Laplacian; solver\_ : resolved solver.

    Notes
    -----
    Misprint handled: the notes' printed formula reads
    ":math:`\tilde k(x,z) = k(x,z) = \mathbf k_x^t (I+MK)^{-1} M \mathbf k_z`"; the
    second "=" is a "-" (the derivation two lines above gives the minus sign).

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import WarpedKernel
    >>> X = np.random.default_rng(0).normal(size=(60, 2))
    >>> K = WarpedKernel(X, sigma=1.0, gamma_A=0.1, gamma_I=1.0, n_neighbors=5)
    >>> G = K(X[:6])
    >>> bool(np.allclose(G, G.T)), bool(np.linalg.eigvalsh(G).min() > -1e-10)
    (True, True)
    """

    def __init__(self, X: ArrayLike, *, kernel: KernelName = "gaussian",
                 sigma: float | None = None, gamma_A: float = 1e-2, gamma_I: float = 1.0,
                 graph: Literal["knn", "epsilon"] | Any = "knn", n_neighbors: int = 10, radius: float | None = None,
                 weight: Literal["binary", "gaussian", "self-tuning"] = "gaussian", graph_sigma: float | None = None,
                 laplacian: LaplacianKind = "combinatorial", laplacian_power: int = 1,
                 solver: Literal["auto", "direct", "cg", "nystrom"] = "auto", tol: float | None = None,
                 degree: int = 2, coef0: float = 1.0, n_components: int = NYSTROM_MAX_COMPONENTS,
                 landmarks: Literal["kmeans", "uniform"] = "kmeans", random_state: RandomStateLike = None,
                 verbose: bool | None = None) -> None:
        from ..graphs import LAPLACIANS, WEIGHTS, GraphSpec

        self._progress = progress = _Progress(verbose, "WarpedKernel")
        self.X = check_points(X, "X", min_samples=2)
        n = self.n = self.X.shape[0]
        self.kernel = _check_kernel_name(kernel, "kernel")
        self.sigma = check_scalar(sigma, "sigma", low=0, low_inclusive=False, allow_none=True)
        if self.sigma is None:
            self.sigma = default_sigma(self.X) if self.kernel in ("gaussian", "heat") else 1.0
        self.gamma_A = check_scalar(gamma_A, "gamma_A", low=0, low_inclusive=False)
        self.gamma_I = check_scalar(gamma_I, "gamma_I", low=0)
        with np.errstate(over="ignore"):
            c = self.gamma_I / (self.gamma_A * n * n)
        if not np.isfinite(c):
            # M = c L^p would be inf and the kernel NaN (direct, Nystrom) or CG fail on the operator
            raise ValueError(f"gamma_I / (gamma_A n^2) = {self.gamma_I:g} / ({self.gamma_A:g} * {n}^2) overflows "
                             "float64; use a smaller ratio gamma_I / gamma_A.")
        prebuilt = not isinstance(graph, str)
        if prebuilt:
            # a precomputed adjacency over the n points (built once, shared with other learners)
            from ..graphs import as_adjacency

            W_pre = as_adjacency(graph)
            if W_pre.shape != (n, n):
                raise ValueError(f"graph: a precomputed adjacency must be ({n}, {n}) over the rows of X; "
                                 f"got {W_pre.shape}.")
            graph = "precomputed"
        else:
            check_option(graph, "graph", ("knn", "epsilon"))
        check_option(weight, "weight", WEIGHTS)
        check_option(laplacian, "laplacian", LAPLACIANS)
        self.laplacian = laplacian
        self.p = check_scalar(laplacian_power, "laplacian_power", kind="int", low=1)
        check_option(solver, "solver", ("auto", "direct", "cg", "nystrom"))
        self.n_components = check_scalar(n_components, "n_components", kind="int", low=1)
        check_option(landmarks, "landmarks", LANDMARKS)
        self.tol = check_scalar(tol, "tol", low=0, low_inclusive=False, allow_none=True)
        if self.tol is None:
            self.tol = 1e-5 if self.X.dtype == np.float32 else 1e-8
        self.degree = check_scalar(degree, "degree", kind="int", low=1)
        self.coef0 = check_scalar(coef0, "coef0")
        if graph == "knn":
            n_neighbors = check_scalar(n_neighbors, "n_neighbors", kind="int", low=1)
            if n_neighbors >= n:
                raise ValueError(f"n_neighbors must be < the number of points n = {n}; got {n_neighbors}.")
        elif graph == "epsilon" and radius is None:
            raise ValueError("graph='epsilon' needs radius, the ball radius (a float > 0); got None.")
        if solver == "auto":
            solver = "direct" if n <= WARPED_DIRECT_MAX_N else "cg" if n <= NYSTROM_AUTO_MIN_N else "nystrom"
        self.solver_ = solver
        if self.solver_ == "nystrom":
            pass  # NystromFeatures guards its own (n, m) arrays
        elif self.solver_ == "direct":
            memory_guard(6 * n * n * 8, f"the dense warped-kernel system of n = {n} points",
                         "use solver='cg'.")
        else:
            memory_guard(n * n * self.X.dtype.itemsize, f"the Gram matrix of n = {n} points",
                         "subsample the unlabeled points.")
        progress(f"{graph} graph of n = {n} points")
        with progress.scope():
            if prebuilt:
                self.W = W_pre
            elif graph == "knn":
                # knn_graph / epsilon_graph through GraphSpec, whose warnings then name graph_sigma (the width as set
                # here; sigma is the kernel's)
                self.W = GraphSpec(n_neighbors=n_neighbors, weight=weight, sigma=graph_sigma).build(
                    self.X, random_state=random_state, sigma_name="graph_sigma")
            else:
                self.W = GraphSpec(kind="epsilon", radius=radius, weight=weight, sigma=graph_sigma).build(
                    self.X, sigma_name="graph_sigma")
        self.c = self.gamma_I / (self.gamma_A * n * n)
        self.R = _laplacian_root(self.W, laplacian, self.p)  # M = c R^T R
        self.RT = sp.csr_array(self.R.T)
        from ..graphs import laplacian as _lap
        self.L = _lap(self.W, laplacian)
        self._dtype = self.X.dtype
        if self.solver_ == "nystrom":
            progress(f"Nystrom features (at most {self.n_components} landmarks)")
            with progress.scope():
                self.nystrom_ = NystromFeatures(self.X, kernel=self.kernel, sigma=self.sigma, degree=self.degree,
                                                coef0=self.coef0, n_components=self.n_components,
                                                landmarks=landmarks, dtype=np.float64, random_state=random_state)
            # G = F^T M F through the sparse n x n M = c R^T R (R @ F would be one dense row per edge:
            # 4 GiB on the 60000-point Fashion-MNIST graph)
            F = self.nystrom_.features_
            G = F.T @ np.asarray(sp.csr_array(self.c * guarded_sparse_product(self.RT, self.R, f"the graph penalty L^{self.p}", _POWER_FIX)) @ F)
            B = np.eye(G.shape[0]) + (G + G.T) / 2
            # G (I + G)^{-1} = I - (I + G)^{-1}, symmetric (G and (I + G)^{-1} commute)
            S = np.eye(G.shape[0]) - sla.cho_solve(sla.cho_factor(B, check_finite=False), np.eye(G.shape[0]),
                                                   check_finite=False)
            self._S = (S + S.T) / 2
            self.K = None
            return
        # the Gram matrix and (direct) the Cholesky factor of I + c T K T^T are built at the first right_factor:
        # a caller that has the right factors of its points already (the warped learner's selection, whose
        # factorization of the same system gives them, see right_factor) evaluates the kernel without them
        self.K = self._chol = self._B = self._T = self._lu = self._M = None
        self._dtype = self.X.dtype

    def _factor(self):
        """The Gram matrix (direct and CG) and the factorization (direct: the LU of I + M K when it is
        well-conditioned, else the Cholesky factor of I + c T K T^T), once."""
        if self.K is not None:
            return
        n = self.n
        self._progress(f"Gram matrix ({n} x {n}, {self.X.dtype})")
        self.K = self._k(self.X, self.X)
        self._dtype = self.K.dtype
        if self.solver_ == "direct":
            # the factorizations from a float64 Gram: a float32 one is PSD to its rounding only (~1e-7 |K|), which
            # c T K T^T magnifies by c |T|^2: at gamma_I / gamma_A = 1e12 on 300 float32 points the Cholesky of
            # I + c T K T^T failed with LAPACK's "not positive definite"
            K64 = (self.K if self.K.dtype == np.float64
                   else np.asarray(self._k(self.X.astype(np.float64), self.X.astype(np.float64)), dtype=np.float64))
            # First the LU of the non-symmetric I + M K (about n^3 / 1.5 flops; M sparse, so M K costs nnz(M) n).
            # Its error grows with the condition number: LAPACK's estimate of it (O(n^2)) decides whether the
            # LU is kept (eps cond(I + M K) <= tol) or the well-conditioned symmetric form below is built.
            self._progress("LU factorization of I + M K")
            M = self.point_cloud_matrix()
            A = np.asarray(M @ K64)
            A[np.diag_indices(n)] += 1.0
            anorm = float(np.abs(A).sum(axis=0).max())
            lu, ipiv, info = sla.lapack.dgetrf(A, overwrite_a=True)
            rcond = sla.lapack.dgecon(lu, anorm, norm="1")[0] if info == 0 else 0.0
            if rcond > 0 and np.finfo(np.float64).eps / rcond <= self.tol:
                self._lu, self._M = (lu, ipiv), M
                return
            del A, lu
            # The symmetric form M = c T^T T (T from a pivoted Cholesky of L^p, r x n, r its rank) and the
            # push-through identity (I + M K)^{-1} M = c T^T (I + c T K T^T)^{-1} T: one Cholesky of the SPD
            # r x r matrix B = I + c T K T^T >= I (about 3 n^3 flops).  The LU lost all digits at large
            # gamma_I / gamma_A (5e-2 relative error of the kernel against a 60-digit oracle at
            # gamma_I = 1e12, gamma_A = 1e-2 on 40 points, 1.6 at gamma_I = 1e14; this form: 1e-10).
            self._progress(f"I + M K ill-conditioned (reciprocal condition {rcond:.1e}): pivoted Cholesky of L^p "
                           "and Cholesky of I + c T K T^T")
            Lp = guarded_sparse_product(self.RT, self.R, f"the graph penalty L^{self.p}", _POWER_FIX)
            Lp = np.asarray(sp.csr_array(Lp).toarray(), dtype=np.float64)
            T, piv, rank, info = sla.lapack.dpstrf(Lp, lower=0, tol=-1.0, overwrite_a=True)
            piv = piv - 1
            T = np.triu(T[:rank])
            Tp = np.empty((rank, n))
            Tp[:, piv] = T  # L^p ~ Tp^T Tp in the original node order
            B = Tp @ K64 @ Tp.T
            B *= self.c
            B = (B + B.T) / 2
            B[np.diag_indices(rank)] += 1.0
            self._B = B
            try:
                self._chol = sla.cho_factor(B, lower=False, overwrite_a=False, check_finite=False)
            except np.linalg.LinAlgError:
                # B = I + c T K T^T >= I, but at c ~ 1e18 the rounding of c T K T^T leaves it indefinite: LAPACK's
                # bare "57-th leading minor of the array is not positive definite" named neither the cause nor the
                # fix (an eigendecomposition with the rounding's negative eigenvalues clipped factors it, but the
                # kernel it gives is then O(1) off a 50-digit oracle: nothing of it is left at such ratios)
                raise np.linalg.LinAlgError(
                    f"WarpedKernel: I + c T K T^T (c = gamma_I / (gamma_A n^2) = {self.c:.1e}) is not numerically "
                    f"positive definite: at gamma_I / gamma_A = {self.gamma_I / self.gamma_A:.1e} the warping's "
                    "rounding exceeds the kernel itself; use a smaller gamma_I / gamma_A.") from None
            self._T = Tp

    def _k(self, A, B):
        return pairwise_kernel(A, B, self.kernel, sigma=self.sigma, degree=self.degree, coef0=self.coef0)

    def point_cloud_matrix(self) -> sp.csr_array:
        r"""M as a sparse matrix, :math:`M = \gamma_I/(\gamma_A n^2) R^T R = \gamma_I/(\gamma_A n^2) L^p`."""
        return sp.csr_array(self.c * guarded_sparse_product(self.RT, self.R, f"the graph penalty L^{self.p}", _POWER_FIX))

    @_with_verbosity
    def right_factor(self, B: ArrayLike) -> tuple[NDArray[np.floating], NDArray[np.floating]]:
        r"""``(k_B, V_B)`` with :math:`V_B = (I + MK)^{-1} M \mathbf k_B` of shape (n, len(B))."""
        B = check_points(B, "B")
        if B.shape[1] != self.X.shape[1]:
            raise ValueError(f"B must have {self.X.shape[1]} features like X; got {B.shape[1]}.")
        if self.solver_ == "nystrom":
            # (None, V) with V = S phi(B)^T (r, len(B)): the correction is phi(A) V
            return None, self._S @ self.nystrom_.transform(B).T
        KB = self._k(self.X, B)  # (n, m)
        KB64 = KB.astype(np.float64)
        if self.c == 0 or self.R.nnz == 0:
            # M = c R^T R = 0 (gamma_I = 0, or a graph without edges: R has no rows, and CG refused its empty
            # system with an error about a "B" of shape (0, len(B))): the kernel is k itself
            return KB, np.zeros_like(KB64)
        self._factor()
        if self.solver_ == "direct" and self._lu is not None:
            V = sla.lu_solve(self._lu, np.asarray(self._M @ KB64), check_finite=False)
        elif self.solver_ == "direct":
            U = self._T @ KB64
            S = sla.cho_solve(self._chol, U, check_finite=False)
            # residual check, in the kernel's units (the CG path's bound below): a residual r_b of the
            # solve for column b moves the kernel by at most sqrt(c k(a, a)) ||r_b||
            kmax = float(np.max(np.diagonal(self.K)))
            if not np.isfinite(S).all():
                raise np.linalg.LinAlgError("WarpedKernel: the Cholesky solve of I + c T K T^T produced NaN or "
                                            "infinity; use a smaller gamma_I / gamma_A.")
            if kmax > 0 and S.size:
                r = U - self._B @ S
                bound = float(np.sqrt(self.c / kmax) * np.linalg.norm(r, axis=0).max())
                if bound > self.tol:
                    warn(f"WarpedKernel: the direct solve's residual bounds the kernel's error by {bound:.2e} "
                         f"relative to sqrt(k(a, a) max_i k(x_i, x_i)), above tol={self.tol:g}: "
                         f"gamma_I / (gamma_A n^2) = {self.c:.3g} amplifies the rounding of the solve.  The kernel "
                         "is approximate; use a smaller gamma_I / gamma_A.", AccuracyWarning)
            V = self.c * (self._T.T @ S)
        else:
            K = self.K
            c = self.c
            R, RT = self.R, self.RT

            def op(S):
                return S + c * (R @ np.asarray(K @ (RT @ S).astype(K.dtype), dtype=np.float64))

            rhs = np.asarray(R @ KB64)
            # Error of the kernel from a CG residual r_b (column b): with A = I + c R K R^T and u_a = R k_a,
            # |dk(a, b)| = c |u_a^T A^{-1} r_b| <= sqrt(c u_a^T A^{-1} u_a) sqrt(c r_b^T A^{-1} r_b)
            # <= sqrt(k(a, a)) sqrt(c) ||r_b|| (Cauchy-Schwarz in the A^{-1} inner product; the first factor is
            # the correction k(a, a) - k~(a, a) <= k(a, a); A >= I).  So the relative residual
            # ||r_b|| / ||R k_b|| times amp_b = sqrt(c / kmax) ||R k_b|| bounds the error relative to
            # sqrt(k(a, a) kmax), kmax the largest k(x_i, x_i).  amp_b^2 = k_b^T M k_b / kmax grows with c:
            # CG stops at tol / max(1, amp), so the kernel (not only the residual) is accurate to tol;
            # at a moderate c (amp <= 1) this is tol itself.
            kmax = float(np.max(np.diagonal(K)))
            amp = (np.sqrt(c / kmax) * np.linalg.norm(rhs, axis=0) if kmax > 0
                   else np.zeros(rhs.shape[1]))
            amp_max = float(amp.max()) if amp.size else 0.0
            tol = self.tol / max(1.0, amp_max)
            self._progress(f"CG on {rhs.shape[0]} unknowns, {rhs.shape[1]} right-hand sides")
            res = conjugate_gradient(op, rhs, tol=tol, on_failure="ignore")
            self._progress(f"CG done in {res.n_iter} iterations")
            if not res.converged.all():
                bound = float(np.max(res.residual_norms * np.maximum(amp, 1.0)))
                if bound > self.tol:
                    warn(f"WarpedKernel: CG reached a relative residual of {res.residual_norms.max():.2e} "
                         f"in {res.n_iter} iterations (tol={tol:.2e} needed); it bounds the kernel's error by "
                         f"{bound:.2e} relative to sqrt(k(a, a) max_i k(x_i, x_i)), above tol={self.tol:g}: "
                         f"gamma_I / (gamma_A n^2) = {c:.3g} amplifies the residual {amp_max:.3g} times.  "
                         "The kernel is approximate; use a smaller gamma_I / gamma_A (or float64 points, "
                         "if they are float32).", AccuracyWarning)
            V = c * np.asarray(RT @ res.x)
        return KB, V

    @_with_verbosity
    def __call__(self, A: ArrayLike, B: ArrayLike | None = None, *,
                 right: tuple[NDArray[np.floating], NDArray[np.floating]] | None = None) -> NDArray[np.floating]:
        r"""Kernel matrix :math:`\tilde K(A, B)` (len(A), len(B)); ``right=right_factor(B)`` reuses the solve
        (with B given: ``K(A, B, right=K.right_factor(B))``)."""
        A = check_points(A, "A")
        if A.shape[1] != self.X.shape[1]:
            raise ValueError(f"A must have {self.X.shape[1]} features like X; got {A.shape[1]}.")
        if right is not None and B is None:
            # unlike FredholmKernel's, the warped kernel's right factor does not carry the base term k(A, B):
            # K(A, right=K.right_factor(B)) took B = A, silently wrong when len(A) == len(B) (0.997 off on a
            # Gaussian of peak 1) and numpy's broadcast error otherwise
            raise ValueError("right= is the right factor of some points B, and the warped kernel needs B itself too "
                             "(its base term k(A, B)): call K(A, B, right=K.right_factor(B)).")
        if right is None:
            right = self.right_factor(A if B is None else B)
        KB, V = right
        Bpts = A if B is None else check_points(B, "B")
        dtype = np.result_type(A.dtype, self._dtype) if KB is None else np.result_type(A.dtype, self._dtype, KB.dtype)
        # the (len(A), len(B)) result: each row block below is guarded by pairwise_kernel, the whole was not
        memory_guard(A.shape[0] * V.shape[1] * np.dtype(dtype).itemsize,
                     f"the warped kernel matrix ({A.shape[0]} x {V.shape[1]})",
                     "evaluate fewer points at a time (right=K.right_factor(B) reuses the solve).")
        out = np.empty((A.shape[0], V.shape[1]), dtype=dtype)
        if self.solver_ == "nystrom":
            rows = _block_rows(max(V.shape), 8)
            for s in range(0, A.shape[0], rows):
                blk = A[s:s + rows]
                out[s:s + rows] = self._k(blk, Bpts).astype(np.float64) - self.nystrom_.transform(blk) @ V
            return out
        rows = _block_rows(self.n, 8)  # rows of A per block: k_A is never stored for all of A
        for s in range(0, A.shape[0], rows):
            blk = A[s:s + rows]
            KA = self._k(self.X, blk).astype(np.float64)
            out[s:s + rows] = self._k(blk, Bpts).astype(np.float64) - KA.T @ V
        return out

    def __repr__(self):
        return (f"WarpedKernel(n={self.n}, kernel={self.kernel!r}, sigma={self.sigma:.4g}, gamma_A={self.gamma_A:g}, "
                f"gamma_I={self.gamma_I:g}, laplacian={self.laplacian!r}, laplacian_power={self.p}, "
                f"solver={self.solver_!r})")
