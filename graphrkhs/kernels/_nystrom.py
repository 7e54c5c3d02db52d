r"""Nystrom features of a point-cloud kernel: :math:`k(a, b) \approx \phi(a)^T \phi(b)`.

The one low-rank kernel factor of the package (the Fredholm kernel's inner
approximation and the low-rank paths of the inductive learners use it).
With m landmarks :math:`Z = (z_1..z_m)` and the eigendecomposition
:math:`K_{ZZ} = U \Lambda U^T`,

.. math::

    \phi(x) = \Lambda_r^{-1/2} U_r^T\, k(Z, x) \in \mathbb R^r,\qquad
    \phi(a)^T\phi(b) = k(a, Z)\, K_{ZZ}^{+}\, k(Z, b),

r the number of eigenvalues above the rounding level of :math:`K_{ZZ}`
(Williams & Seeger, "Using the Nystrom method to speed up kernel machines",
NIPS 2001).  :math:`\phi(x)^T\phi(x') ` is the kernel of the subspace
:math:`\mathcal H_Z = \mathrm{span}\{k(z_j, \cdot)\}` of the RKHS: a function
:math:`f = \sum_j \beta_j k(z_j, \cdot)` is :math:`f(x) = \phi(x)^T w` with
:math:`w = \Lambda_r^{1/2} U_r^T \beta` and :math:`\|f\|_K = \|w\|`.  With Z =
all n points and a nonsingular Gram matrix the factor is exact,
:math:`F F^T = K`.

Landmarks: ``"kmeans"`` (centres of scikit-learn's ``MiniBatchKMeans``, the
usual choice for clustered data; Zhang, Tsang & Kwok, ICML 2008) or
``"uniform"`` (a uniform sample of the points).  The number of landmarks is
chosen by a tolerance: prefixes of the candidate landmarks of sizes 128, 256,
... up to the cap ``n_components`` are tried, and the first whose relative
trace error on a sample of the points,

.. math:: \epsilon = \frac{\sum_{x} k(x, x) - \|\phi(x)\|^2}{\sum_x k(x, x)},

is at most ``tol`` is kept (the trace error bounds the nuclear-norm error of
the approximation of K: :math:`K - FF^T` is PSD and its trace is
:math:`n\epsilon` times the mean diagonal).
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, DTypeLike, NDArray

from .._core.linalg import small_dense_threads
from .._core.progress import _Progress, progress_bar
from .._core.types import KernelName, RandomStateLike
from .._core.validation import (AccuracyWarning, check_option, check_points, check_random_state, check_scalar,
                                memory_guard, warn)
from ._pointcloud import KERNELS, check_kernel_parameters, pairwise_kernel

__all__ = ["NystromFeatures"]

#: Default cap on the number of landmarks (the largest m tried).
NYSTROM_MAX_COMPONENTS = 1000
#: Default relative trace error at which fewer landmarks than the cap are accepted.
NYSTROM_TOL = 1e-2
#: Above this many training points the inductive learners' ``solver="auto"`` uses the Nystrom path.
NYSTROM_AUTO_MIN_N = 10_000
LANDMARKS = ("kmeans", "uniform")

# Rows of one (block, m) kernel block.
_BLOCK_BYTES = 64 * 2**20
# Points used to estimate the trace error.
_ERROR_SAMPLE = 2000


def _kernel_diagonal(A, kw):
    """k(a, a) for every row of A (closed forms for the named kernels, blocks for a callable)."""
    kernel = kw["kernel"]
    if kernel in ("gaussian", "heat"):
        # the heat kernel is evaluated in its scaled form (pairwise_kernel's "heat" carries the
        # normalization): k(a, a) is the same for every a
        return np.full(A.shape[0], float(pairwise_kernel(A[:1], None, **kw)[0, 0]))
    if kernel == "linear":
        return np.einsum("ij,ij->i", A, A).astype(np.float64)
    if kernel == "polynomial":
        return (np.einsum("ij,ij->i", A, A).astype(np.float64) + kw["coef0"]) ** kw["degree"]
    return np.concatenate([np.diagonal(pairwise_kernel(A[s:s + 256], None, **kw)).astype(np.float64)
                           for s in range(0, A.shape[0], 256)])


def _first_distinct_rows(X, cap, order=None):
    """Indices of the first copies of X's distinct rows, or None when it has more than ``cap`` of them.

    Stops at the (cap + 1)-th distinct row (at once for points without copies).  With ``order`` (a
    permutation of the rows) the rows are visited in that order, and the first ``cap`` distinct ones are
    returned however many more there are."""
    seen = {}
    for i in (range(X.shape[0]) if order is None else order):
        seen.setdefault(X[i].tobytes(), i)
        if len(seen) > cap or (order is not None and len(seen) == cap):
            break
    if order is None and len(seen) > cap:
        return None
    return np.fromiter(seen.values(), dtype=np.intp, count=len(seen))


class NystromFeatures:
    r"""Nystrom feature map :math:`\phi` of a point-cloud kernel, fitted on the points X.

    See the module documentation for the formula and the choice of the rank.

    Parameters
    ----------
    X : array of shape (n, d)
        The points (the landmarks are chosen among / fitted to them).
    kernel : {"gaussian", "heat", "linear", "polynomial"} or callable, default="gaussian"
    sigma, degree, coef0 :
        Kernel parameters as in :func:`~graphrkhs.pairwise_kernel`.
    n_components : int >= 1, default=1000
        The cap m on the number of landmarks.  ``n_components >= n`` uses all n
        points as landmarks (then :math:`FF^T = K` up to the eigenvalues of K at
        rounding level, whose share of the trace is ``error_``).
    tol : float >= 0, default=1e-2
        Accepted relative trace error (see the module documentation); 0 uses
        the cap directly.  When the cap (fewer than n landmarks) leaves an
        error above ``tol``, an :class:`~graphrkhs.AccuracyWarning` says so.
    landmarks : {"kmeans", "uniform"}, default="kmeans"
        k-means centres (``sklearn.cluster.MiniBatchKMeans``, one pass, fitted
        for the cap; prefixes of a random order of the centres are tried) or a
        uniform sample of the points, without copies of one point (a repeated
        landmark adds nothing to the factor: a drawn sample that holds copies is
        replaced by the first distinct points of a random order of the rows).
        With either, points with at most ``n_components`` distinct rows (copies)
        take those rows as the landmarks (k-means' optimum; then fewer
        landmarks than the cap and an exact factor).
    dtype : {float32, float64}, optional
        Of the features (default: X's float dtype).  Kernel blocks are
        evaluated in the wider of X's dtype and this one; the small m x m
        eigenproblem in float64.
    random_state : int, Generator or None
    verbose : bool or None, default=None
        Progress of the landmark and feature computations.

    Attributes
    ----------
    landmarks_ : ndarray of shape (m, d)
    landmark_index_ : ndarray of int (m,) or None
        Rows of X used as landmarks (None for k-means centres; the first copies
        of the distinct rows when they are the landmarks).
    n_components_ : int
        m, the number of landmarks used.
    rank_ : int
        r, the number of features (eigenvalues of :math:`K_{ZZ}` kept).
    transform_matrix_ : ndarray of shape (m, r)
        :math:`T = U_r \Lambda_r^{-1/2}`: :math:`\phi(A) = k(A, Z)\,T`.
    error_ : float
        The estimated relative trace error of the kept m (on a sample of at
        most 2000 points).  With every point a landmark it is that of the
        eigenvalues of :math:`K` below the rounding level, which the factor
        drops: 0 to rounding (1e-13) for float64 points, about 1e-4 for
        float32 ones.
    features_ : ndarray of shape (n, r)
        :math:`F = \phi(X)`, computed once.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import NystromFeatures, pairwise_kernel
    >>> X = np.random.default_rng(0).normal(size=(40, 2))
    >>> ny = NystromFeatures(X, sigma=2.0, n_components=40)       # all points: exact
    >>> F = ny.features_
    >>> bool(np.allclose(F @ F.T, pairwise_kernel(X, sigma=2.0), atol=1e-8))
    True
    """

    def __init__(self, X: ArrayLike, *, kernel: KernelName = "gaussian", sigma: float = 1.0, degree: int = 2,
                 coef0: float = 1.0, n_components: int = NYSTROM_MAX_COMPONENTS, tol: float = NYSTROM_TOL,
                 landmarks: Literal["kmeans", "uniform"] = "kmeans", dtype: DTypeLike | None = None,
                 random_state: RandomStateLike = None, verbose: bool | None = None) -> None:
        self._progress = progress = _Progress(verbose, "NystromFeatures")
        X = check_points(X, "X")
        n = X.shape[0]
        if not callable(kernel):
            check_option(kernel, "kernel", KERNELS)
        # every kernel (pairwise_kernel's rule): an invalid parameter is an error even where it is unused, and
        # before the landmarks are chosen (degree=0 was refused by the first kernel block, after the k-means)
        sigma = check_kernel_parameters(sigma, degree, coef0)[0]
        self.n_components = check_scalar(n_components, "n_components", kind="int", low=1)
        self.tol = check_scalar(tol, "tol", low=0)
        check_option(landmarks, "landmarks", LANDMARKS)
        self.landmarks = landmarks
        try:
            self.dtype = np.dtype(X.dtype if dtype is None else dtype)
        except TypeError:
            raise TypeError(f"dtype must be float32, float64 or None; got {dtype!r}.") from None
        if self.dtype not in (np.float32, np.float64):
            # features_ were cast to it: dtype=int truncated every feature to 0 or +-1
            raise ValueError(f"dtype must be float32, float64 or None (X's float dtype); got {self.dtype}.")
        # kernel blocks in the wider of the two dtypes: float64 features of float32 points keep the
        # eigenvalues of K_ZZ down to float64 rounding (in float32 about 1e-4 of the largest are lost,
        # measured: rank 373 of 1000 landmarks on Fashion-MNIST)
        X = X.astype(np.result_type(X.dtype, self.dtype), copy=False)
        self._kw = dict(kernel=kernel, sigma=sigma, degree=degree, coef0=coef0)
        rng = check_random_state(random_state)
        cap = min(self.n_components, n)
        memory_guard(n * cap * (X.dtype.itemsize + self.dtype.itemsize),
                     f"the Nystrom features of n = {n} points with {cap} landmarks",
                     "lower n_components.")
        # both kinds: a uniform sample of points with copies drew copies of one point, which add nothing to the
        # factor (12 points x 5 copies, n_components=12: 8 distinct landmarks, K off by 0.29, where the 12
        # distinct points give K exactly)
        distinct = _first_distinct_rows(X, cap) if cap < n else None
        if cap == n:
            pool, index = X, np.arange(n)
        elif distinct is not None:
            # at most cap distinct points (copies): k-means' optimum puts a centre on each, but one
            # mini-batch pass from random initial centres (two on copies of one point) averaged points
            # of different clusters (two points x 50 copies, 2 centres: off the points for 5 of 6
            # seeds, by 0.12). The distinct points themselves are the landmarks: exact, fewer than the cap
            index = distinct[rng.permutation(len(distinct))]
            pool, cap = X[index], len(distinct)
        elif landmarks == "uniform":
            index = rng.choice(n, cap, replace=False)     # random order: its prefixes are uniform samples
            if len({X[i].tobytes() for i in index}) < cap:
                # copies among the drawn rows (a repeated landmark is a wasted one): the first cap distinct
                # points of a random order of the rows, each next point drawn among the rows not yet covered
                # (a point with more copies is still the likelier); points without copies keep the draw above
                index = _first_distinct_rows(X, cap, order=rng.permutation(n))
            pool = X[index]
        else:
            from sklearn.cluster import MiniBatchKMeans

            progress(f"k-means landmarks: {cap} centres of n = {n} points")
            seed = int(rng.integers(2**31 - 1))
            # one pass over the data (at least 20 mini-batch steps): landmarks need coverage, not converged
            # centres; random initial centres (k-means++ on 1000 centres costs more than the pass itself)
            batch = min(n, max(1024, 2 * cap))
            km = MiniBatchKMeans(n_clusters=cap, batch_size=batch, n_init=1, max_iter=max(1, -(-20 * batch // n)),
                                 init="random", compute_labels=False, random_state=seed).fit(X)
            pool = km.cluster_centers_.astype(X.dtype, copy=False)[rng.permutation(cap)]
            index = None
        # the rank by the tolerance: prefixes 128, 256, ..., cap of the pool
        sizes = [cap] if (self.tol == 0 or cap == n) else sorted({*(128 * 2**j for j in range(20)
                                                                   if 128 * 2**j < cap), cap})
        sample = X if n <= _ERROR_SAMPLE else X[np.sort(rng.choice(n, _ERROR_SAMPLE, replace=False))]
        diag = _kernel_diagonal(sample, self._kw) if len(sizes) > 1 else None
        for m in sizes:
            T = self._factor(pool[:m])
            if m == cap:
                break
            Phi = pairwise_kernel(sample, pool[:m], **self._kw).astype(np.float64) @ T
            err = float(np.sum(diag - np.einsum("ij,ij->i", Phi, Phi))) / max(float(np.sum(diag)), 1e-300)
            if err <= self.tol:
                break
        # with every point a landmark (cap == n) too: the factor drops the eigenvalues of K_ZZ below
        # its rounding level (m eps of the largest, in the dtype of the kernel blocks), which in
        # float32 leave a trace error of ~1e-4 (measured: Gaussian, 600 points), not 0
        if m == cap or len(sizes) == 1:
            Phi = pairwise_kernel(sample, pool[:m], **self._kw).astype(np.float64) @ T
            d = _kernel_diagonal(sample, self._kw)
            err = float(np.sum(d - np.einsum("ij,ij->i", Phi, Phi))) / max(float(np.sum(d)), 1e-300)
        if self.tol > 0 and m == cap < n and err > self.tol:
            # the documented tolerance is not met: say so (the estimators' solver_info_ records error_ too)
            warn(f"Nystrom features: the cap n_components={cap} landmarks leaves a relative trace "
                 f"error of {err:.3g} of the kernel of n = {n} points, above tol={self.tol:g}; raise "
                 f"n_components (memory grows as n * n_components) or the kernel width, or pass a "
                 f"larger tol to accept it.", AccuracyWarning)
        self.landmarks_ = pool[:m]
        if index is not None:
            index = index[:m]
            if landmarks == "uniform" and cap < n:
                # sorted rows: the same landmark set in the order of X (as the Fredholm kernel had it)
                order = np.argsort(index)
                index, self.landmarks_, T = index[order], self.landmarks_[order], T[order]
        self.landmark_index_ = index
        self.n_components_ = m
        self.transform_matrix_ = T
        self.rank_ = T.shape[1]
        self.error_ = max(err, 0.0)
        progress(f"Nystrom features: {m} landmarks, rank {self.rank_}, trace error {self.error_:.2e}")
        self.features_ = self.transform(X)

    def _factor(self, Z: NDArray[np.floating]) -> NDArray[np.floating]:
        r""":math:`T = U_r \Lambda_r^{-1/2}` of :math:`K_{ZZ}` (eigenvalues above its rounding level)."""
        W = np.asarray(pairwise_kernel(Z, None, **self._kw), dtype=np.float64)
        with small_dense_threads(W.shape[0]):
            evals, evecs = np.linalg.eigh((W + W.T) / 2)
        top = float(evals.max(initial=0.0))
        # rounding level of the kernel blocks (evaluated in X's dtype), times m
        eps = float(np.finfo(np.result_type(Z.dtype, np.float32)).eps)
        keep = evals > top * max(Z.shape[0], 1) * eps if top > 0 else evals > 0
        if not keep.any():
            raise ValueError("the kernel matrix of the landmarks is zero: the kernel (or its width sigma) "
                             "gives no features; check the kernel parameters.")
        return evecs[:, keep] / np.sqrt(evals[keep])

    def transform(self, A: ArrayLike) -> NDArray[np.floating]:
        r""":math:`\phi(A) = k(A, Z)\,T`, shape (len(A), r), in row blocks."""
        A = check_points(A, "A")
        A = A.astype(np.result_type(A.dtype, self.landmarks_.dtype), copy=False)
        if A.shape[1] != self.landmarks_.shape[1]:
            raise ValueError(f"A must have {self.landmarks_.shape[1]} features like X; got {A.shape[1]}.")
        m, r = self.landmarks_.shape[0], self.rank_
        memory_guard(A.shape[0] * r * np.dtype(self.dtype).itemsize,
                     f"the Nystrom features of {A.shape[0]} points ({A.shape[0]} x {r})",
                     "transform fewer points at a time, or lower n_components.")
        out = np.empty((A.shape[0], r), dtype=self.dtype)
        rows = max(1, int(_BLOCK_BYTES // (max(m, r) * 8)))
        T = self.transform_matrix_
        # under the object's own verbose (the bar followed only the enclosing call: verbose=True drew
        # none, verbose=False under an INFO logger drew them all)
        with self._progress.scope(), progress_bar(total=A.shape[0], desc="Nystrom features", unit="pt") as bar:
            for s in range(0, A.shape[0], rows):
                C = pairwise_kernel(A[s:s + rows], self.landmarks_, **self._kw)
                out[s:s + rows] = C @ T.astype(C.dtype, copy=False)
                bar.update(min(rows, A.shape[0] - s))
        return out

    def with_sigma(self, X: ArrayLike, sigma: float, *, keep_distances: bool = False) -> "NystromFeatures":
        r"""The factor of the same landmarks at another width ``sigma``, with its features on X.

        One m x m eigendecomposition and one (n, m) kernel block (no landmark
        choice, no tolerance search): a path of widths on fixed landmarks, as in
        :func:`~graphrkhs.select_laprls_lowrank`.  ``error_`` is the relative trace
        error on all rows of X (the points the features are of).

        Parameters
        ----------
        X : array of shape (n, d)
            The points of ``features_`` (usually those the factor was fitted on).
        sigma : float > 0
        keep_distances : bool, default=False
            Gaussian kernel: keep the (n, m) squared distances of X to the landmarks on
            this object (float64, :math:`8nm` bytes), so that the next ``with_sigma`` on
            the same X costs an elementwise exponential instead of an O(n m d) distance
            computation (the exponent :math:`-|x - z|^2 / 2\sigma^2` is that of
            :func:`~graphrkhs.pairwise_kernel`, in the same centred frame).
        """
        sigma = check_scalar(sigma, "sigma", low=0, low_inclusive=False)
        X = check_points(X, "X")
        if X.shape[1] != self.landmarks_.shape[1]:
            raise ValueError(f"X must have {self.landmarks_.shape[1]} features like the landmarks; got {X.shape[1]}.")
        n, m = X.shape[0], self.landmarks_.shape[0]
        keep = keep_distances and self._kw["kernel"] == "gaussian"
        cached = self.__dict__.get("_path_dists")
        fresh = keep and (cached is None or cached[0] is not X)
        # the features (n, r <= m), and with keep_distances the (n, m) exponentials and (once per X) the kept
        # (n, m) float64 distances
        memory_guard(n * m * (np.dtype(self.dtype).itemsize + (8 if keep else 0) + (8 if fresh else 0)),
                     f"the Nystrom features of n = {n} points at a new width ({n} x {m}"
                     f"{', with the kept distances' if keep else ''})",
                     "lower n_components" + (", or pass keep_distances=False." if keep else "."))
        new = object.__new__(NystromFeatures)
        new.__dict__.update({k: v for k, v in self.__dict__.items() if k not in ("features_", "_path_dists")})
        new._kw = {**self._kw, "sigma": sigma}
        T = new._factor(self.landmarks_)
        new.transform_matrix_, new.rank_ = T, T.shape[1]
        if keep_distances and self._kw["kernel"] == "gaussian":
            from ._pointcloud import _frame, _scaled_exponent, _sq_dists

            cached = self.__dict__.get("_path_dists")
            if cached is None or cached[0] is not X:
                A, B, scale = _frame(X.astype(np.float64, copy=False), self.landmarks_.astype(np.float64, copy=False))
                cached = self._path_dists = (X, _sq_dists(A, B), scale)
            Kb = np.exp(_scaled_exponent(cached[1].copy(), cached[2], sigma))
            new.features_ = F = (Kb @ T).astype(self.dtype, copy=False)
        else:
            new.features_ = F = new.transform(X)
        d = _kernel_diagonal(X.astype(np.result_type(X.dtype, np.float32), copy=False), new._kw)
        Ff = F.astype(np.float64, copy=False)
        new.error_ = max(float(np.sum(d) - np.einsum("ij,ij->", Ff, Ff)) / max(float(np.sum(d)), 1e-300), 0.0)
        return new

    def kernel(self, A: ArrayLike, B: ArrayLike | None = None) -> NDArray[np.floating]:
        r"""The approximate kernel matrix :math:`\phi(A)\phi(B)^T`."""
        n_a = check_points(A, "A").shape[0]
        n_b = n_a if B is None else check_points(B, "B").shape[0]
        # the dense product (the feature blocks are only len x r)
        memory_guard(n_a * n_b * np.dtype(self.dtype).itemsize, f"the Nystrom kernel matrix ({n_a} x {n_b})",
                     "evaluate fewer points at a time, or use the features transform(A) themselves.")
        FA = self.transform(A)
        return FA @ (FA if B is None else self.transform(B)).T

    def __repr__(self):
        return (f"NystromFeatures(n_components_={getattr(self, 'n_components_', None)}, "
                f"rank_={getattr(self, 'rank_', None)}, landmarks={self.landmarks!r})")
