"""Kernel matrices as operators and conjugate gradients on kernel systems."""

from __future__ import annotations

from typing import Callable, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._core.cg import check_on_failure, report_failure
from .._core.config import DENSE_CACHE_BYTES, _REPLACE_EVERY, _STALL_WINDOWS
from .._core.linalg import apply_matrix
from .._core.validation import check_finite_array, check_matrix, dense_array, check_option, check_points, check_scalar, memory_guard
from ._pointcloud import BLOCK_BYTES, KERNELS, check_kernel_parameters, heat_semigroup, pairwise_kernel


__all__ = [
    "KernelOperator",
    "kernel_cg",
]


class KernelOperator:
    r"""An n x n kernel-type matrix on a point set, applied to blocks of vectors.

    The matrix :math:`M_{ij} = \mathrm{scale}\cdot b(x_i, x_j)` where ``block(A)``
    returns the rows :math:`b(a, x_j)` for a block of points A.  If the
    whole matrix fits in ``cache_bytes`` it is computed once and kept;
    otherwise every product recomputes it in row blocks of at most
    ``BLOCK_BYTES`` (128 MB), so memory stays bounded whatever n.

    Parameters
    ----------
    X : array of shape (n, d)
    kernel, sigma, degree, coef0 :
        As in :func:`~graphrkhs.pairwise_kernel`; ``kernel="heat_penalty"``
        gives :math:`K_t - 2K_{2t} + K_{3t}` (scaled, see
        :func:`~graphrkhs.heat_semigroup`) with the heat dimension ``m``.
    scale : float, default=1.0
    cache_bytes : int, default=DENSE_CACHE_BYTES

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import KernelOperator, pairwise_kernel
    >>> X = np.random.default_rng(0).normal(size=(50, 3))
    >>> op = KernelOperator(X, sigma=1.5, cache_bytes=0)           # blockwise
    >>> V = np.ones((50, 2))
    >>> np.allclose(op @ V, pairwise_kernel(X, sigma=1.5) @ V)
    True
    """

    def __init__(self, X: ArrayLike, *,
                 kernel: Literal["gaussian", "heat", "linear", "polynomial", "heat_penalty"]
                 | Callable[[NDArray, NDArray], ArrayLike] = "gaussian",
                 sigma: float = 1.0, degree: int = 2, coef0: float = 1.0, m: int | None = None, scale: float = 1.0,
                 cache_bytes: int = DENSE_CACHE_BYTES) -> None:
        self.X = check_points(X, "X")
        self.n = self.X.shape[0]
        self.shape = (self.n, self.n)
        self.dtype = self.X.dtype
        self.scale = check_scalar(scale, "scale")
        cache_bytes = check_scalar(cache_bytes, "cache_bytes", kind="int", low=0)
        self._kw = dict(kernel=kernel, sigma=sigma, degree=degree, coef0=coef0, m=m)
        # the kernel parameters, checked for every kernel as pairwise_kernel checks them (a callable is first
        # called at the first product; heat_semigroup, below, checks only sigma and m)
        check_kernel_parameters(sigma, degree, coef0, m)
        if not callable(kernel):
            check_option(kernel, "kernel", KERNELS + ("heat_penalty",))
            # the kernel's own checks (name, sigma, degree, coef0, m) on one pair of points, before any product:
            # a blockwise operator met sigma=0 or an unknown name only at its first product
            if kernel == "heat_penalty":
                heat_semigroup(self.X[:1], None, sigma=sigma, m=m)
            else:
                pairwise_kernel(self.X[:1], None, kernel, sigma=sigma, degree=degree, coef0=coef0, m=m)
        self._dense = None
        if self.n * self.n * self.dtype.itemsize <= cache_bytes:
            self._dense = self.block(self.X)

    def block(self, A: ArrayLike) -> NDArray[np.floating]:
        """Rows of the matrix for the points A, shape (len(A), n)."""
        kw = self._kw
        if kw["kernel"] == "heat_penalty":
            K1, K2, K3 = heat_semigroup(A, self.X, sigma=kw["sigma"], m=kw["m"])
            out = K1
            out -= 2.0 * K2
            out += K3
        else:
            out = pairwise_kernel(A, self.X, kw["kernel"], sigma=kw["sigma"], degree=kw["degree"],
                                  coef0=kw["coef0"], m=kw["m"])
        if self.scale != 1.0:
            out *= self.scale
        return out

    def rescale(self, factor: float) -> KernelOperator:
        """Multiply the matrix by ``factor`` in place (the cached array and the block scale)."""
        factor = check_scalar(factor, "factor")
        if self._dense is not None:
            self._dense *= factor
        # the scale too when the matrix is cached: block(A) (rows of the matrix for new points) and ``scale``
        # kept the old factor, so that block(X) differed from toarray() by it (2x after rescale(0.5))
        self.scale *= factor
        return self

    @property
    def is_dense(self) -> bool:
        return self._dense is not None

    def dense_view(self) -> NDArray[np.floating]:
        """The dense matrix without a copy of the cache: the cache itself, read-only (built as by
        :meth:`toarray` when nothing is cached).  For the library's direct solvers, which read K once: a copy of a
        cache of up to ``DENSE_CACHE_BYTES`` per fit (n^2 floats) is what :meth:`toarray`'s copy would cost them."""
        if self._dense is None:
            return self.toarray()
        view = self._dense.view()
        view.flags.writeable = False
        return view

    def toarray(self) -> NDArray[np.floating]:
        """The dense matrix (computed if not cached; needs n^2 floats).  A new array: changing it leaves the operator alone."""
        if self._dense is not None:
            # the cache itself was returned: a caller's in-place change altered every later product
            return self._dense.copy()
        memory_guard(self.n * self.n * self.dtype.itemsize, f"a dense {self.n} x {self.n} kernel matrix",
                     "use the iterative solver (solver='cg').")
        return self.block(self.X)

    def matmat(self, V: ArrayLike) -> NDArray[np.floating]:
        """``M @ V``; a float32 operator times a float64 block accumulates in float64 (rows upcast in blocks).

        ``V`` must be real and finite (a ``ValueError`` for NaN or infinity, a ``TypeError`` for other dtypes)."""
        # a sparse block: np.asarray made it a 0-d object array, refused as "got shape ()"
        V = dense_array(V)
        if V.ndim not in (1, 2) or V.shape[0] != self.n:
            # a (n, a, b) block was silently reshaped to (n, a b); a wrong row count gave numpy's matmul error
            raise ValueError(f"V must have shape ({self.n},) or ({self.n}, k), one row per point; got shape {V.shape}.")
        if V.dtype == object or not (np.issubdtype(V.dtype, np.number) or V.dtype == bool) or \
                np.issubdtype(V.dtype, np.complexfloating):
            raise TypeError(f"V must be a real numeric array; got dtype {V.dtype}.")
        # O(n k) against the product's O(n^2 k): NaN or infinity came back as a NaN block, silently
        check_finite_array(V, "V", "the product M @ V needs finite entries")
        if self._dense is not None:
            return apply_matrix(self._dense, V)
        V2 = V.reshape(self.n, -1)
        out = np.empty((self.n, V2.shape[1]), dtype=np.result_type(self.dtype, V2.dtype))
        rows = max(1, int(BLOCK_BYTES // (self.n * 8)))
        for s in range(0, self.n, rows):
            out[s:s + rows] = apply_matrix(self.block(self.X[s:s + rows]), V2)
        return out.reshape(V.shape) if V.ndim == 1 else out

    def __matmul__(self, V: ArrayLike) -> NDArray[np.floating]:
        return self.matmat(V)


#: kernel_cg stops a column when rho^T G rho falls below this fraction of its start (eps^2: the residual's part in
#: the range of G is at the rounding level of the start's; the rest lies in G's null space)
_RANGE_SPENT = np.finfo(np.float64).eps ** 2


def kernel_cg(apply_T, apply_G, C, *, tol=1e-6, max_iter=None, on_failure="warn", identity_shift=None):
    r"""Conjugate gradients for :math:`T X = C` with T self-adjoint in the G-inner product.

    Requires :math:`G T` symmetric positive semidefinite and G positive
    semidefinite.  Every 50 iterations the residual is recomputed from X
    (residual replacement); a column whose true residual has stopped
    decreasing (the attainable accuracy of float32 operators, about 1e-4 on
    ill-conditioned kernels) stops there and is reported as not converged.  This is preconditioned CG on the symmetric system
    :math:`(GT) X = G C` with preconditioner :math:`G^{-1}`, written so that
    :math:`G^{-1}` is never applied: the recurrences carry the residual
    :math:`\rho = C - TX` of the original system *and* :math:`G\rho`.  Used
    with :math:`G = K` for LapRLS (:math:`T = NK + \gamma_A l I`) and PLapRLS
    with the empirical integral operator.  Each column of C is solved in units of
    a power of two of its largest entry (exact; squared norms neither underflow
    nor overflow), and a column whose :math:`\rho^T G \rho` falls to the rounding
    level of its start stops: its residual then lies in G's null space (see
    ``identity_shift``).

    Parameters
    ----------
    apply_T : callable (P, GP) -> T P
        Gets the search block P and :math:`GP` (already known), so T can
        reuse the product.
    apply_G : callable V -> G V
        Called once per iteration (plus twice at the start and the end).
    C : ndarray of shape (n, k)
    tol : float in (0, 1), default=1e-6
        Stop a column when :math:`\|\rho\| \le` ``tol`` :math:`\|c\|`.
    max_iter : int >= 1, optional
        Default n.
    on_failure : {"warn", "raise", "ignore"}
        As in :func:`~graphrkhs.conjugate_gradient`.
    identity_shift : float > 0, optional
        c when :math:`T = N G + c I` (LapRLS: :math:`c = \gamma_A l`).  The iteration
        works in the range of G and cannot reduce the part of the residual in G's null
        space; for such T that part is solved exactly at the end, :math:`X \leftarrow X
        + \rho / c` (:math:`T \rho / c = \rho` when :math:`G \rho = 0`), where it lowers
        the residual.  A low-rank G (the linear kernel: rank d) left the residual there
        and CG reported "not converged" after d iterations although G X was exact.

    Returns
    -------
    X : ndarray (n, k)
        A column that did not converge is its last iterate: the iterates
        minimize the error in the :math:`GT` energy norm (for LapRLS the
        quadratic objective) over a growing Krylov space, so that error falls
        at every step although the residual :math:`\|c - T x\|` can rise above
        the zero start's; no earlier iterate is closer to the solution.
    info : dict with ``n_iter``, ``converged`` (bool array), ``residual`` (final
        relative residuals, recomputed explicitly).

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import kernel_cg
    >>> K = np.array([[2.0, 1.0], [1.0, 2.0]]); N = np.diag([1.0, 0.0])
    >>> T = N @ K + 0.1 * np.eye(2)                    # K T is symmetric
    >>> X, info = kernel_cg(lambda P, GP: N @ GP + 0.1 * P, lambda V: K @ V, np.array([[1.0], [0.0]]))
    >>> np.allclose(T @ X, [[1.0], [0.0]], atol=1e-6), bool(info["converged"].all())
    (True, True)
    """
    identity_shift = check_scalar(identity_shift, "identity_shift", low=0, low_inclusive=False, allow_none=True)
    C = check_matrix(C, "C", min_size=0)
    # each column in units of a power of two of its largest entry (exact: T is linear, and a power-of-two scale
    # commutes with rounding), as conjugate_gradient's: the squared norms of the recurrences underflowed at
    # |C| ~ 1e-200 (X = 0 returned as converged, residual 0) and overflowed at 1e200 (X = 0, NaN residual)
    exps = np.zeros(C.shape[1], dtype=np.int64)
    if C.size:
        top = np.abs(C).max(axis=0)
        exps = np.frexp(np.where(np.isfinite(top) & (top > 0), top, 1.0))[1].astype(np.int64)
    X, info = _kernel_cg(apply_T, apply_G, np.ldexp(C, -exps).astype(C.dtype, copy=False), tol=tol,
                         max_iter=max_iter, on_failure=on_failure, identity_shift=identity_shift, rounds=2)
    return np.ldexp(X, exps).astype(X.dtype, copy=False), info


def _kernel_cg(apply_T, apply_G, C, *, tol, max_iter, on_failure, identity_shift, rounds):
    """:func:`kernel_cg` with ``rounds`` more refinement rounds allowed after the ``identity_shift`` correction."""
    check_on_failure(on_failure)
    # NaN in C would run max_iter iterations and come back as NaN with a ConvergenceWarning
    C = check_matrix(C, "C", min_size=0)
    n, k = C.shape
    # conjugate_gradient's rule: tol in (0, 1) (1 or more is met by the zero start: x = 0 came back
    # "converged"), max_iter an int >= 1 (0 returned x = 0 with only a warning)
    tol = check_scalar(tol, "tol", low=0, low_inclusive=False, high=1, high_inclusive=False)
    max_iter = n if max_iter is None else check_scalar(max_iter, "max_iter", kind="int", low=1)
    out_dtype = C.dtype
    if C.dtype != np.float64:
        # The recurrences run in float64 whatever the operator's precision: in float32 the tracked
        # pair (rho, G rho) drifts apart and CG loses conjugacy on the (numerically singular) kernel.
        # The operators get float64 blocks too: a float32 kernel then accumulates its products in
        # float64 (graphrkhs._core.linalg.apply_matrix), else their rounding, eps32 |K| |V|, is the
        # floor the residual stalls at (about 1e-4 on Gaussian kernels, finding 11 of issue 13).
        _T, _G = apply_T, apply_G
        apply_T = lambda P, GP: np.asarray(_T(P, GP), dtype=np.float64)  # noqa: E731
        apply_G = lambda V: np.asarray(_G(V), dtype=np.float64)  # noqa: E731
        C = C.astype(np.float64)
    X = np.zeros_like(C)
    rho = C.copy()
    r = apply_G(rho)
    if np.shares_memory(r, rho):
        # an apply_G that returns its argument (G = I): r and rho updated in place as one array took every
        # step twice (a plain CG problem left the zero start's energy error 1.6 times higher after 12 steps)
        r = r.copy()
    P = rho.copy()
    GP = r.copy()
    rz = np.einsum("ij,ij->j", r, rho)
    rz0 = np.abs(rz)
    cnorm = np.linalg.norm(C, axis=0)
    active = np.linalg.norm(rho, axis=0) > tol * cnorm
    best = np.full(k, np.inf)
    flat = np.zeros(k, dtype=np.int64)      # replacement windows since the true residual last fell by 10 %
    stalled_cols = np.zeros(k, dtype=bool)
    it = 0
    while active.any() and it < max_iter:
        cols = np.flatnonzero(active)
        full = cols.size == k
        Pa = P if full else P[:, cols]
        TP = apply_T(Pa, GP if full else GP[:, cols])
        GTP = apply_G(TP)
        pap = np.einsum("ij,ij->j", Pa, GTP)
        bad = pap <= 0
        if bad.any():
            # an exactly singular direction: the column cannot improve further
            active[cols[bad]] = False
            keep = ~bad
            cols, Pa, TP, GTP, pap = cols[keep], Pa[:, keep], TP[:, keep], GTP[:, keep], pap[keep]
            if not cols.size:
                break
        a = rz[cols] / pap
        X[:, cols] += Pa * a
        rho[:, cols] -= TP * a
        r[:, cols] -= GTP * a
        it += 1
        done = np.linalg.norm(rho[:, cols], axis=0) <= tol * cnorm[cols]
        active[cols[done]] = False
        cols = cols[~done]
        if not cols.size:
            break
        if it % _REPLACE_EVERY == 0:
            # residual replacement: recompute the true pair (rho, G rho) so that rounding in the
            # recurrences cannot make CG report a residual it does not have; stop a column whose
            # true residual no longer decreases (the attainable accuracy of the operator's dtype).
            Xc = X[:, cols]
            rho[:, cols] = C[:, cols] - apply_T(Xc, apply_G(Xc))
            r[:, cols] = apply_G(rho[:, cols])
            tn = np.linalg.norm(rho[:, cols], axis=0) / np.where(cnorm[cols] > 0, cnorm[cols], 1.0)
            # CG's residual on an ill-conditioned kernel can plateau for a few windows and then drop: a
            # column is stalled only after _STALL_WINDOWS windows in a row without a 10 % decrease
            fell = tn <= 0.9 * best[cols]
            flat[cols] = np.where(fell, 0, flat[cols] + 1)
            best[cols] = np.minimum(best[cols], tn)
            stalled = flat[cols] >= _STALL_WINDOWS
            stalled_cols[cols[stalled & (tn > tol)]] = True
            done = (tn <= tol) | stalled
            active[cols[done]] = False
            cols = cols[~done]
            if not cols.size:
                break
        rz_new = np.einsum("ij,ij->j", r[:, cols], rho[:, cols])
        # rho^T G rho at the rounding level of its start: the residual has left the range of G (a low-rank
        # kernel, once its d directions are spent), where the iteration cannot go; beta = 0 / 0 made the column
        # NaN (rank-1 G, 6 iterations).  The column stops; identity_shift solves that part below
        spent = rz_new <= _RANGE_SPENT * rz0[cols]
        if spent.any():
            active[cols[spent]] = False
            cols, rz_new = cols[~spent], rz_new[~spent]
            if not cols.size:
                break
        beta = rz_new / rz[cols]
        rz[cols] = rz_new
        P[:, cols] = rho[:, cols] + P[:, cols] * beta
        GP[:, cols] = r[:, cols] + GP[:, cols] * beta
    GX = apply_G(X)
    cn = np.where(cnorm > 0, cnorm, 1.0)
    R = C - apply_T(X, GX)
    true_res = np.linalg.norm(R, axis=0) / cn
    if identity_shift is not None and identity_shift > 0 and np.any(true_res > tol):
        # the residual's part in null(G), which the iteration cannot see, solved exactly (identity_shift)
        bad = np.flatnonzero(true_res > tol)
        Xc = X[:, bad] + R[:, bad] / identity_shift
        res_c = np.linalg.norm(C[:, bad] - apply_T(Xc, apply_G(Xc)), axis=0) / cn[bad]
        better = res_c < true_res[bad]
        X[:, bad[better]] = Xc[:, better]
        true_res[bad[better]] = res_c[better]
        bad = np.flatnonzero(true_res > tol)
        if bad.size and rounds > 0:
            # what is left is the range part the correction moved (-N G rho / c, rounding-level in G): one more
            # round on the residual, to the tolerance that brings the whole to tol (at most ``rounds`` rounds)
            R = C[:, bad] - apply_T(X[:, bad], apply_G(X[:, bad]))
            rn = np.linalg.norm(R, axis=0)
            inner = float(np.clip(np.min(tol * cn[bad] / np.where(rn > 0, rn, 1.0)), 1e-15, 0.5))
            dX, _ = _kernel_cg(apply_T, apply_G, R, tol=inner, max_iter=max_iter, on_failure="ignore",
                               identity_shift=identity_shift, rounds=rounds - 1)
            Xn = X[:, bad] + dX
            res_n = np.linalg.norm(C[:, bad] - apply_T(Xn, apply_G(Xn)), axis=0) / cn[bad]
            better = res_n < true_res[bad]
            X[:, bad[better]] = Xn[:, better]
            true_res[bad[better]] = res_n[better]
    converged = true_res <= tol * 1.01 + 100 * np.finfo(out_dtype).eps
    X = X.astype(out_dtype, copy=False)
    stalled_cols &= ~converged
    info = {"n_iter": it, "converged": converged, "residual": true_res, "stalled": stalled_cols}
    if not converged.all():
        why = (f"{int(stalled_cols.sum())} stopped because their true residual did not fall by 10 % in "
               f"{_STALL_WINDOWS * _REPLACE_EVERY} iterations (the attainable accuracy of the operator: loosen tol "
               "or increase the ridge weight)" if stalled_cols.any() else
               "raise max_iter, loosen tol or increase the ridge weight")
        report_failure(f"kernel CG did not reach tol={tol:g} in {it} iterations for {int((~converged).sum())} "
                       f"of {k} column(s) (worst relative residual {true_res.max():.2e}); {why}.", on_failure)
    return X, info

