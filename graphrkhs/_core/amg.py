r"""Smoothed-aggregation multigrid applied to blocks of right-hand sides on all cores.

PyAMG builds excellent hierarchies, but its cycle relaxes one vector at a
time with a sequential Gauss-Seidel sweep, so preconditioning the m one-hot
columns of a labeling problem costs m single-core V-cycles.  Here the
hierarchy is set up from PyAMG's building blocks (strength of connection,
standard aggregation, tentative prolongator) and the cycle is our own:

* every level works in Jacobi-scaled variables,
  :math:`\tilde A = D^{-1/2} A D^{-1/2}` (unit diagonal), so the smoother is a
  polynomial in :math:`\tilde A` -- the Chebyshev polynomial of degree k that
  is smallest on :math:`[\lambda_{max}/r, \lambda_{max}]`
  (Adams, Brezina, Hu & Tuminaro 2003, "Parallel multigrid smoothing:
  polynomial versus Gauss-Seidel");
* each product with :math:`\tilde A`, :math:`\tilde P` and
  :math:`\tilde P^T` is one row-parallel pass over the whole (n, m) block
  (the compiled kernels of :mod:`graphrkhs._core.spmm`);
* the same smoother before and after the coarse correction makes the cycle a
  symmetric positive (semi)definite operator, as conjugate gradients need.

The prolongator is PyAMG's default smoothed aggregation,
:math:`P = (I - \tfrac{\omega}{\rho} D^{-1} A) T` with
:math:`\omega = 4/3`; the spectral radius :math:`\rho` of :math:`D^{-1} A`
(that of :math:`\tilde A`) is estimated once per level and serves both the
prolongator and the smoother.
"""

import threading

import numpy as np
import pyamg
import scipy.linalg
from numpy.polynomial import Chebyshev, Polynomial
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from .progress import progress_bar
from .linalg import lanczos_tridiagonal, symmetry_gap, symmetry_rtol
from .spmm import fused_step, seal_csr, spmm
from .validation import check_scalar, memory_guard

__all__ = []


def _spectral_bound(A_scaled, steps=20, random_state=0):
    r"""Upper estimate of :math:`\lambda_{max}` of a symmetric matrix by a short Lanczos run.

    The largest Ritz value of ``steps`` Lanczos steps plus the norm of its
    residual (an eigenvalue lies within it of the Ritz value; for the
    largest Ritz value that is, in practice, the largest eigenvalue) and a
    5% margin, capped by the Gershgorin bound.  The smoother only needs the
    bound to within tens of percent; being *below* :math:`\lambda_{max}` by
    more than the factor :math:`1 + 1/r` is what must not happen (the
    smoother then amplifies the top modes and the V-cycle is indefinite),
    hence the residual, the margin and 20 steps: 12 left the Ritz value 12%
    below on a 66-node 1-D kNN Laplacian (bound 4.4% low, M indefinite); of
    400 random kNN Laplacians (25-700 nodes) 12 steps put the bound below
    once more, 20 steps never.
    """
    n = A_scaled.shape[0]
    gersh = float(abs(A_scaled).sum(axis=1).max())
    if n <= 2 * steps:
        return min(float(np.linalg.eigvalsh(A_scaled.toarray()).max()) * 1.01, gersh)
    w2 = np.empty((n, 1))

    def matvec(q):
        spmm(A_scaled, q[:, None], w2)
        return w2[:, 0]

    alpha, beta = lanczos_tridiagonal(matvec, n, steps, np.random.default_rng(random_state))
    k = alpha.size
    theta, vecs = scipy.linalg.eigh_tridiagonal(alpha[:k], beta[: k - 1])
    residual = abs(beta[k - 1] * vecs[-1, -1])
    return float(min((theta[-1] + residual) * 1.05, gersh))


#: Largest Chebyshev smoother degree: the smoother is applied in the power basis (Horner), whose
#: coefficients grow like 10**(0.8 k) (sum |c_j| = 3.3e12 at k = 20, 3.3e17 at k = 28 for ratio 30), so
#: rounding swamps it beyond about k = 20.  Measured (CG to 1e-8, max_coarse=50, L + 1e-3 I): a 3-D kNN
#: graph (k=10, n = 500 and 3000) and a 60 x 60 grid converge up to degree 26 at ratio 30 but not at 28
#: (k = 300: NaN; k = 1e9: a MemoryError); up to 22 at ratio 1000 and 20 at ratios 1e4 and 1e6 (failing
#: at 22-24).  20 converges at every ratio tried (1.5 to 1e6); above about 10 the iteration counts
#: barely fall (ratio 30: 6, 5, 4 iterations at 10, 15, 20).
MAX_SMOOTHER_DEGREE = 20


def check_smoother_degree(degree):
    """``degree`` as an int in [1, MAX_SMOOTHER_DEGREE], or an error naming it."""
    degree = check_scalar(degree, "degree", kind="int", low=1)
    if degree > MAX_SMOOTHER_DEGREE:
        raise ValueError(f"degree must be <= {MAX_SMOOTHER_DEGREE}; got {degree}: the Chebyshev smoother is "
                         f"applied in the power basis, whose rounding swamps it above degree {MAX_SMOOTHER_DEGREE} "
                         "(CG stops converging near 24-28, NaN by 300). Use degree <= "
                         f"{MAX_SMOOTHER_DEGREE}; 3 (the default) to 10 is usually best.")
    return int(degree)


def chebyshev_smoother_coefficients(degree, ratio):
    r"""Power-basis coefficients :math:`c_0..c_{k-1}` of the smoothing polynomial p.

    On the spectrum normalized to :math:`\lambda_{max} = 1`, the error after
    smoothing is :math:`e(\lambda) = 1 - \lambda p(\lambda) =
    T_k\big((\theta - \lambda)/\delta\big) / T_k(\theta/\delta)` with
    :math:`[\theta - \delta, \theta + \delta] = [1/r, 1]`: the degree-k
    polynomial with :math:`e(0) = 1` that is smallest on that interval.
    """

    lo, hi = 1.0 / ratio, 1.0
    theta, delta = (hi + lo) / 2, (hi - lo) / 2
    t_k = Chebyshev.basis(degree).convert(kind=Polynomial)
    e = t_k(Polynomial([theta / delta, -1.0 / delta])) / t_k(theta / delta)
    one_minus_e = Polynomial([1.0]) - e
    return one_minus_e.coef[1:].copy()   # (1 - e)(0) = 0, so dividing by lambda drops c_0


class _Level:
    def __init__(self, A, scale, bound, coef=None, P=None, R=None):
        # the level's own matrices, applied at every cycle: their index arrays are checked once (sealed)
        A, P, R = (None if M is None else seal_csr(M, name) for M, name in ((A, "A"), (P, "P"), (R, "R")))
        self.A = A          # Jacobi-scaled operator, unit diagonal
        self.scale = scale  # D^{-1/2} of the unscaled operator
        self.bound = bound  # upper estimate of lambda_max(A)
        self.coef = coef    # smoother p(lambda) = sum_j coef[j] lambda^j
        self.P = P          # scaled prolongator to this level from the next
        self.R = R          # its transpose, stored row-major


def _scale(A, left, right):
    """``diag(left) @ A @ diag(right)`` for a CSR matrix (either side may be None), sorted indices."""
    A = sp.csr_array(A, dtype=np.float64, copy=True)
    A.sum_duplicates()
    A.sort_indices()
    if left is not None:
        A.data *= np.repeat(left, np.diff(A.indptr))
    if right is not None:
        A.data *= right[A.indices]
    return A


def _check_symmetric_psd_pattern(A, rtol, name="A", needs="as the AMG preconditioner needs",
                                  symmetric_hint=None, zero_hint="an adjacency matrix W? pass graphrkhs.laplacian(W)"):
    r"""Refuse a matrix that cannot be symmetric positive semidefinite, by O(nnz) necessary conditions.

    Symmetry (to ``rtol`` times :math:`\max |A_{ij}|`), a nonnegative diagonal, and no
    nonzero off-diagonal entry in a row whose diagonal is 0 (for a PSD matrix
    :math:`A_{ij}^2 \le A_{ii} A_{jj}`).  A non-symmetric A (a random-walk Laplacian,
    a directed kNN graph) gave a non-symmetric "preconditioner", an adjacency matrix
    W (zero diagonal) an indefinite one: both unusable by conjugate gradients.
    ``name``, ``needs`` and the hints word the errors for the caller's argument
    (the LapRLS penalty ``M`` uses it too).
    """
    A = sp.csr_array(A)
    if symmetric_hint is None:
        symmetric_hint = ("The AMG preconditioner is for symmetric positive (semi)definite systems, such as a "
                          "combinatorial or normalized Laplacian plus a diagonal (the random-walk Laplacian is not "
                          "symmetric; symmetrize a directed graph first).")
    gap, scale = symmetry_gap(A, name)
    if gap > rtol * scale:
        raise ValueError(f"{name} must be symmetric: max |{name} - {name}^T| = {gap:.3g} (max |{name}| = "
                         f"{scale:.3g}). {symmetric_hint}")
    d = A.diagonal()
    if d.size and d.min() < 0:
        i = int(np.argmin(d))
        raise ValueError(f"{name} has a negative diagonal entry ({name}[{i}, {i}] = {d[i]:.3g}), so it is not "
                         f"positive semidefinite, {needs}.")
    rows = np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))
    off_rows = rows[(A.indices != rows) & (A.data != 0)]          # rows with a nonzero off-diagonal entry
    bad = off_rows[d[off_rows] == 0]
    if bad.size:
        i = int(bad[0])
        raise ValueError(
            f"{name} has a zero diagonal entry with nonzero off-diagonal entries in row {i}, so it is not positive "
            f"semidefinite, {needs} ({zero_hint}).")


def _drop_null_directions(A_coarse, P_half, bound):
    r"""Zero the rows and columns of coarse unknowns whose diagonal is rounding of an exact 0.

    A coarse basis vector :math:`p_i` inside the null space of the scaled
    operator (an aggregate that is a whole connected component of a
    Laplacian: :math:`p_i` constant on it) has :math:`p_i^T \tilde A p_i = 0`,
    computed as rounding of size :math:`\epsilon \|\tilde A\| \|p_i\|^2`.
    Jacobi scaling by that rounding (:math:`10^{-17}`) blew the prolongator
    up by :math:`10^8` and M by :math:`10^{15}` (default options, the
    Laplacian of a 1-nearest-neighbour graph of 8000 points); as an exact
    zero the unknown is left alone, like an isolated node.
    """
    col_sq = np.asarray(P_half.multiply(P_half).sum(axis=0)).ravel()
    # measured: null directions at |d| <= 430 eps bound |p|^2 (negative as often), a shift of 1e-6
    # at >= 1e9 of them: 1e4 keeps a 20-fold margin over the rounding
    noise = 1e4 * np.finfo(np.float64).eps * bound * col_sq
    null = A_coarse.diagonal() <= noise
    if not null.any():
        return A_coarse
    keep = sp.diags_array((~null).astype(np.float64))
    A_coarse = sp.csr_array(keep @ A_coarse @ keep)
    A_coarse.eliminate_zeros()
    return A_coarse


def _diagonal_scaling(A):
    d = A.diagonal()
    return 1.0 / np.sqrt(np.where(d > 0, d, 1.0))


class SmoothedAggregationPreconditioner(spla.LinearOperator):
    r"""Smoothed-aggregation AMG V-cycle with Chebyshev smoothing, for blocks of vectors.

    A symmetric positive definite approximation of :math:`A^{-1}` for an SPD
    (or positive semidefinite, e.g. a graph Laplacian) sparse matrix, to
    precondition :func:`~graphrkhs.conjugate_gradient`.  Build it once and
    reuse it across right-hand sides and solves (also concurrent ones: each
    thread cycles in its own work buffers).

    Parameters
    ----------
    A : sparse matrix of shape (n, n)
        Symmetric with a nonnegative diagonal.
    degree : int in [1, 20], default=3
        Degree of the Chebyshev smoother (products with the level's matrix
        per smoothing step, the residual included).  At most
        ``MAX_SMOOTHER_DEGREE`` = 20: the power-basis smoother loses all its
        digits beyond (CG no longer converged at 28 on kNN and grid graphs).
    ratio : float > 1, default=30
        The smoother targets :math:`[\lambda_{max}/r, \lambda_{max}]` of the
        scaled operator; the coarse levels take care of the rest.
    strength : float in [0, 1), default=0
        Threshold of PyAMG's symmetric strength of connection (0 keeps every
        edge, right for graph Laplacians).
    omega : float, default=4/3
        Damping of the Jacobi prolongation smoother, over :math:`\rho`.
    max_coarse : int, default=500
        Size at which coarsening stops; the coarsest level is solved by a
        dense (pseudo-)inverse.
    max_levels : int, default=12

    Attributes
    ----------
    levels : list
        Per level: ``A`` (scaled), ``scale``, ``bound``, ``P``, ``R``.
    operator_complexity : float
        Stored entries of all levels over those of ``A``.
    """

    def __init__(self, A, *, degree=3, ratio=30.0, strength=0.0, omega=4.0 / 3.0, max_coarse=500,
                 max_levels=12):
        degree = check_smoother_degree(degree)   # before the copy and the set-up
        given = np.dtype(A.dtype)
        # a copy: summing duplicates in place would rewrite the index arrays the caller's matrix shares
        A = sp.csr_array(A, dtype=np.float64, copy=True)
        A.sum_duplicates()
        # symmetric to the rounding of the precision A was given in (a float32 normalized
        # Laplacian is symmetric to ~1e-7 only)
        _check_symmetric_psd_pattern(A, symmetry_rtol(given))
        n = A.shape[0]
        super().__init__(dtype=np.float64, shape=(n, n))
        self.degree = degree
        self.ratio = float(ratio)
        coef = chebyshev_smoother_coefficients(self.degree, self.ratio)
        self.levels = []
        B = np.ones((n, 1))
        nnz0 = A.nnz
        total = 0
        A_scaled = None
        # closed on any exception too (a KeyboardInterrupt in a long set-up): an open tqdm bar
        # stays on screen and pushes every later bar one line down
        with progress_bar(desc="AMG set-up", unit="level") as bar:
            while True:
                bar.set_postfix_str(f"level {len(self.levels)}: n = {A.shape[0]}", refresh=False)
                s = _diagonal_scaling(A)
                if A_scaled is None:
                    A_scaled = seal_csr(_scale(A, s, s), "A")   # its bound's Lanczos steps run on it too
                total += A_scaled.nnz
                # a zero level (a Laplacian whose aggregates are whole components: 2000 disjoint edges)
                # has nothing to coarsen and no spectrum to smooth (its bound 0 was divided by)
                last = (A.shape[0] <= max_coarse or len(self.levels) + 1 >= max_levels
                        or not np.any(A_scaled.data))
                if not last:
                    if strength == 0:
                        # theta = 0 keeps every stored entry: the pattern of A is the strength graph
                        C = sp.csr_matrix((np.ones_like(A.data), A.indices, A.indptr), shape=A.shape)
                    else:
                        C = pyamg.strength.symmetric_strength_of_connection(sp.csr_matrix(A), theta=strength)
                    agg = pyamg.aggregation.standard_aggregation(C)[0]
                    n_coarse = agg.shape[1]
                    last = n_coarse == 0 or n_coarse >= 0.9 * A.shape[0]
                if last:
                    self.levels.append(_Level(A_scaled, s, None))
                    bar.update(1)
                    break
                bound = _spectral_bound(A_scaled)
                T, B = pyamg.aggregation.fit_candidates(sp.csr_matrix(agg), B)
                # P = (I - omega/rho D^-1 A) T in scaled form, with A~ = D^-1/2 A D^-1/2:
                #   P_half = D^{1/2} P = (I - omega/rho A~) D^{1/2} T,   A_c = P^T A P = P_half^T A~ P_half
                T_half = _scale(sp.csr_array(T), 1.0 / s, None)
                P_half = sp.csr_array(T_half - (omega / bound) * (A_scaled @ T_half))
                R_half = sp.csr_array(P_half.T)
                A_coarse = sp.csr_array(R_half @ (A_scaled @ P_half))
                A_coarse = sp.csr_array((A_coarse + A_coarse.T) * 0.5)   # exact symmetry for CG
                A_coarse = _drop_null_directions(A_coarse, P_half, bound)
                A_coarse.sort_indices()
                s_coarse = _diagonal_scaling(A_coarse)
                P_scaled = _scale(P_half, None, s_coarse)      # D^{1/2} P D_c^{-1/2}
                R_scaled = _scale(R_half, s_coarse, None)
                # e(lambda) = 1 - lambda p(lambda) was built for lambda_max = 1: p_b(lambda) = p(lambda / b) / b
                level_coef = coef / bound ** np.arange(1, coef.size + 1)
                self.levels.append(_Level(A_scaled, s, bound, level_coef, P_scaled, R_scaled))
                A = A_coarse
                A_scaled = seal_csr(_scale(A, s_coarse, s_coarse), "A")
                bar.update(1)
        self.operator_complexity = total / max(nnz0, 1)
        # work buffers per thread: one preconditioner is meant to be shared by many solves, and
        # two threads cycling in the same buffers overwrite each other's levels (a wrong M X)
        self._local = threading.local()
        if not np.any(self.levels[-1].A.data):
            self._coarse_inverse = None      # the pseudo-inverse of a zero matrix is zero
            return
        n_last = self.levels[-1].A.shape[0]
        # the dense eigendecomposition holds about four n x n float64 arrays (the matrix, its
        # eigenvectors, LAPACK's 2 n^2 workspace; then the pseudo-inverse and a temporary)
        memory_guard(32.0 * n_last ** 2, f"the dense coarsest AMG level ({n_last} unknowns)",
                     f"raise max_levels (now {max_levels}) or lower max_coarse (now {max_coarse}).")
        coarse = self.levels[-1].A.toarray()
        w, V = np.linalg.eigh(coarse)
        keep = w > max(w.max(), 0) * 10 * len(w) * np.finfo(np.float64).eps
        # pseudo-inverse: a Laplacian's coarsest level keeps its constant null space
        self._coarse_inverse = (V[:, keep] / w[keep]) @ V[:, keep].T

    def __getstate__(self):
        state = self.__dict__.copy()
        del state["_local"]       # buffers are scratch space (and a thread-local cannot be pickled)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._local = threading.local()

    def __repr__(self):
        sizes = ", ".join(str(level.A.shape[0]) for level in self.levels)
        return (f"SmoothedAggregationPreconditioner(levels=[{sizes}], degree={self.degree}, "
                f"operator_complexity={self.operator_complexity:.3f})")

    # -- the cycle -----------------------------------------------------------------

    def _work(self, m):
        """This thread's work buffers for blocks of width m (one width kept: they are as large as the block)."""
        width, bufs = getattr(self._local, "buffers", (None, None))
        if width != m:
            self._local.buffers = (None, None)     # the old width's buffers are freed before the new ones
            rows = sum(lev.A.shape[0] for lev in self.levels)
            memory_guard(5.0 * 8 * rows * m, f"the AMG V-cycle's work buffers for {m} column(s)",
                         "precondition fewer columns at a time (CG solves columns independently).")
            bufs = [{name: np.empty((lev.A.shape[0], m)) for name in ("r", "t", "u", "g", "y")}
                    for lev in self.levels]
            self._local.buffers = (m, bufs)
        return bufs

    @staticmethod
    def _smooth(level, v, out, tmp):
        """p(A~) v by Horner's rule, in ``out`` or ``tmp`` (returned)."""
        c = level.coef
        k = len(c)
        if k == 1:
            np.multiply(v, c[0], out=out)
            return out
        # t = c_{k-1} A~ v + c_{k-2} v, then t <- A~ t + c_j v
        fused_step(level.A, c[k - 1], 0.0, 1.0, 0.0, c[k - 2], v, out, X=v)
        for j in range(k - 3, -1, -1):
            fused_step(level.A, 1.0, 0.0, 1.0, 0.0, c[j], out, tmp, X=v)
            out, tmp = tmp, out
        return out

    def _cycle(self, i, bufs):
        """y <- V(g) on level i, in that level's buffers."""
        level, work = self.levels[i], bufs[i]
        g, y, r = work["g"], work["y"], work["r"]
        if i == len(self.levels) - 1:
            if self._coarse_inverse is None:
                y[...] = 0.0
            else:
                np.matmul(self._coarse_inverse, g, out=y)
            return
        res = self._smooth(level, g, y, work["t"])                         # y = p(A~) g
        if res is not y:
            y[...] = res
        fused_step(level.A, -1.0, 0.0, 1.0, 0.0, 1.0, y, r, X=g)           # r = g - A~ y
        spmm(level.R, r, bufs[i + 1]["g"])                                  # g_c = P~^T r
        self._cycle(i + 1, bufs)
        spmm(level.P, bufs[i + 1]["y"], y, beta=1.0)                        # y += P~ y_c
        fused_step(level.A, -1.0, 0.0, 1.0, 0.0, 1.0, y, r, X=g)           # r = g - A~ y
        y += self._smooth(level, r, work["t"], work["u"])                   # y += p(A~) r

    def _matmat(self, X):
        X = np.asarray(X, dtype=np.float64)
        was_1d = X.ndim == 1
        X2 = X.reshape(X.shape[0], -1)
        m = X2.shape[1]
        bufs = self._work(m)
        top = self.levels[0]
        np.multiply(X2, top.scale[:, None], out=bufs[0]["g"])
        self._cycle(0, bufs)
        out = bufs[0]["y"] * top.scale[:, None]
        return out[:, 0] if was_1d else out

    def _matvec(self, x):
        return self._matmat(np.asarray(x).reshape(-1, 1))[:, 0]

    def _adjoint(self):
        return self
