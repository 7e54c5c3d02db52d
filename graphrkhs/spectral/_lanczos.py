"""Lanczos evaluation of phi(L) X and the dense eigendecomposition oracle."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
import scipy.sparse.linalg as spla
from numpy.typing import ArrayLike, NDArray
from threadpoolctl import threadpool_limits

from .._core.backend import serial_only
from .._core.linalg import operator_matmat, reuses_operator_symmetry
from .._core.reorder import PreparedOperator
from .._core.types import Backend, MatrixOrOperator, Reorder, ResponseBank, SparseMatrix
from .._core.validation import AccuracyWarning, ConvergenceWarning, check_flag, check_scalar, memory_guard, warn
from .filters import _as_filter_bank
from ._lmax import _entry_eps, _refuse_negative_spectrum, check_psd_spectrum
from ._chebyshev import (EXACT_MAX_NODES, _LANCZOS_BATCH_BYTES, _check_L, _check_X, _check_common, _column_exponents,
                         _compute_dtype, _symmetric)


__all__ = [
    "lanczos_filter",
    "exact_filter",
]


# Floor of the response scales in the relative stopping tests: the smallest normal float64 (a response's peak may
# be anywhere in float64's range, e.g. Matern(160, 2.0) with phi(0) = 3e-305; a floor of 1e-300 loosened tol 3e4 times)
_TINY = float(np.finfo(np.float64).tiny)


def _clip_rounding(lam, scale, dtype):
    r"""Eigenvalues in :math:`[-\delta, 0)` set to 0, :math:`\delta = \max(10^{-8}, 64\epsilon)` ``scale``.

    The spectrum of a Laplacian is :math:`\ge 0`; computed eigenvalues and Ritz values of its zero
    eigenvalues come out as :math:`\pm 10^{-16}` (float64) or :math:`\pm 10^{-8}` (float32 entries), and a
    response defined on :math:`[0, \lambda_{max}]` -- :math:`\sqrt\lambda`, fractional powers -- is NaN
    below 0.  Same rounding level as the negative-spectrum check of the filters
    (:func:`graphrkhs.spectral._lmax.check_psd_spectrum`); values below it are left to the response.
    """
    delta = _rounding_level(scale, dtype)
    return np.where((lam < 0) & (lam >= -delta), 0.0, lam)


def _rounding_level(scale, dtype):
    """The rounding level of computed eigenvalues of a matrix of entries in ``dtype`` and spectral scale ``scale``."""
    return max(1e-8, 64 * _entry_eps(dtype)) * max(float(scale), 0.0)


def _laplacian_null_space(L, entry_dtype, weights=None):
    r"""Sparse (n, c) orthonormal basis of the null space of a graph Laplacian, or None if it is not established.

    A Laplacian's null space is known exactly, one vector per connected component :math:`C` of its
    off-diagonal pattern: :math:`1_C` for the combinatorial :math:`D - W`, :math:`D^{1/2} 1_C` for the
    normalized one (``weights`` = the degrees :math:`d`, which L alone does not give; isolated nodes, zero rows
    of either kind, get :math:`e_i`).  The candidate (``weights`` or ones) is accepted only if L has no positive
    off-diagonal entry and :math:`|L v|_i \le 2\,\mathrm{nnz}_i\,\epsilon\,(|L|\,|v|)_i` in every row, the
    rounding of a row sum of the entries (``entry_dtype``'s :math:`\epsilon`): zero row sums to rounding for the
    combinatorial kind.  A LinearOperator, a shifted Laplacian :math:`L + \delta I` (row sums :math:`\delta`
    above rounding) or a normalized Laplacian without its degrees get None.
    """
    if isinstance(L, spla.LinearOperator) or not sp.issparse(L) or L.shape[0] == 0:
        return None
    n = L.shape[0]
    L = sp.csr_array(L)
    if L.dtype.kind != "f" or not np.isfinite(L.data).all():
        return None
    rows = np.repeat(np.arange(n), np.diff(L.indptr))
    off = (rows != L.indices) & (L.data != 0)
    if (L.data[off] > 0).any():
        return None
    if weights is None:
        v = np.ones(n)
    else:
        v = np.sqrt(np.maximum(np.asarray(weights, dtype=np.float64).reshape(-1), 0.0))
        if v.shape != (n,) or not np.isfinite(v).all():
            return None
        v[v == 0] = 1.0    # isolated nodes (zero rows of both kinds): e_i
    data = L.data.astype(np.float64)
    resid = np.abs(np.bincount(rows, weights=data * v[L.indices], minlength=n))
    bound = 2 * _entry_eps(entry_dtype) * np.maximum(np.diff(L.indptr), 1) * \
        np.bincount(rows, weights=np.abs(data) * v[L.indices], minlength=n)
    if not (resid <= bound).all():
        return None
    pattern = sp.csr_array((np.ones(int(off.sum())), (rows[off], L.indices[off])), shape=(n, n))
    n_comp, labels = csgraph.connected_components(pattern, directed=False)
    norms = np.sqrt(np.bincount(labels, weights=v * v, minlength=n_comp))
    return sp.csr_array((v / norms[labels], (np.arange(n), labels)), shape=(n, n_comp))


def _response_values(filters, lam, where):
    """``phi(lam)`` of every response as a float64 (F, len(lam)) array; a ``ValueError`` if one is not finite.

    The Chebyshev filter refuses such a response on [0, lmax] (its coefficients would be NaN); here the
    eigenvalues (or Ritz values) are where it is evaluated, and a NaN there would be every entry of the result.
    """
    with np.errstate(all="ignore"):
        values = np.array([np.asarray(phi(lam), dtype=np.float64) for phi in filters]).reshape(len(filters), -1)
    bad = ~np.isfinite(values)
    if bad.any():
        f, j = np.argwhere(bad)[0]
        raise ValueError(
            f"the response {filters[f]!r} is not finite on {where} of L (phi({float(lam[j]):.6g}) = "
            f"{values[f, j]}); a response must be finite on the whole spectrum [0, lmax]."
        )
    return values


def _radau_gap(alpha, beta, theta, S, filters, anorm, dtype, tol=None):
    r"""Distance between the Gauss (Lanczos) estimate and the Gauss-Radau one with a node at 0.

    With :math:`T_k = S \Theta S^T` and the next coupling :math:`\beta_k` (``beta[k-1]``), the
    Gauss-Radau extension (Golub & Meurant, "Matrices, moments and quadrature", 2010, Sec. 6.2)
    appends :math:`\tilde\alpha_{k+1} = \beta_k^2 \sum_i S_{ki}^2 / \theta_i` so that
    :math:`\tilde T_{k+1}` has the eigenvalue 0.  Returns ``(gap, scale)``, arrays of one entry per
    response f: :math:`\text{gap}_f = \|\varphi_f(\tilde T_{k+1}) e_1 - [\varphi_f(T_k) e_1; 0]\|`
    (the change of the estimate of :math:`\varphi_f(L)x/\|x\|` if the spectrum still had weight at 0,
    in the orthonormal Krylov basis) and :math:`\max|\varphi_f(\tilde\Theta)|`.  No gap when a Ritz
    value is already at 0 (rounding level :math:`10^{-8}\|L\|`, and the response cannot tell it from 0 to
    ``tol``, weighted by its part of x; without ``tol``, the rounding level alone), below it (L not PSD: 0 is
    no bound then), or :math:`\beta_k = 0`.
    """
    k = alpha.size
    b = float(beta[k - 1])
    floor = max(1e-8, 64 * _entry_eps(dtype)) * anorm
    none = np.zeros(len(filters)), np.zeros(len(filters))
    if b == 0.0 or theta.min() <= 0.0:
        return none
    if theta.min() <= floor:
        # "at 0 to rounding" only if the response cannot tell it from 0 (``tol``): a normalized Laplacian's
        # Ritz value 5e-9 on its way to 0 skipped the check and Heat(1e12) stopped 0.066 off
        i = int(np.argmin(theta))
        at = _response_values(filters, np.array([theta[i], 0.0]), "the Ritz values")
        if tol is None or np.all(abs(S[0, i]) * np.abs(at[:, 0] - at[:, 1]) <=
                                 tol * np.maximum(np.abs(at).max(axis=1), _TINY)):
            return none
    # b * (b / theta), not b * b / theta: b * b leaves the float range for a spectrum near 1e300 / 1e-300
    a_next = b * float(np.sum(S[k - 1] ** 2 * (b / theta)))
    theta_r, S_r = sla.eigh_tridiagonal(np.append(alpha, a_next), np.append(beta[: k - 1], b))
    theta_r = _clip_rounding(theta_r, anorm, dtype)
    phi_g = _response_values(filters, theta, "the Ritz values")
    phi_r = _response_values(filters, theta_r, "the Gauss-Radau nodes")
    z_g = (phi_g * S[0]) @ S.T                      # (F, k)
    z_r = (phi_r * S_r[0]) @ S_r.T                  # (F, k + 1)
    z_r[:, :k] -= z_g
    # _row_norms: the squares of a response's values below ~1e-154 underflow (Matern(100, 2.0), phi <= 1.3e-170)
    return _row_norms(z_r), np.abs(phi_r).max(axis=1)


def _zero_ritz_uncertainty(filters, theta, S, b, anorm, dtype):
    r"""Relative uncertainty of a Lanczos estimate from its Ritz values at 0 to rounding (no null space deflated).

    A Ritz value :math:`\theta_i` at the rounding level of 0 (a Laplacian's null space, or an eigenvalue near
    it) stands for an eigenvalue of L only known to lie within :math:`r_i + \delta` of it (and :math:`\ge 0`,
    L is PSD): :math:`r_i = \beta_k |S_{ki}|` its residual, :math:`\delta = 4\epsilon\|T\|` the rounding of
    the products (a path's zero eigenvalue came out as :math:`+10^{-16}`).  Returns
    :math:`\max_f \sum_i |S_{0i}| \max_\lambda |\varphi_f(\lambda) - \varphi_f(\theta_i)|` over that
    interval (its ends, :math:`\theta_i` and 4 points between), relative to :math:`\max|\varphi_f|` on the
    Ritz values and the intervals.
    """
    low = theta <= _rounding_level(anorm, dtype)
    if not low.any():
        return 0.0
    th = theta[low]
    radius = np.full(th.shape, float(np.finfo(dtype).eps) * anorm)
    grid = np.clip(th[:, None] + radius[:, None] * np.linspace(-1.0, 1.0, 7)[None, :], 0.0, None)   # (r, 7)
    F = len(filters)
    at = _response_values(filters, theta, "the Ritz values")                                     # (F, k)
    around = _response_values(filters, grid.ravel(), "the Ritz values").reshape(F, *grid.shape)
    dev = (np.abs(around - at[:, low, None]).max(axis=2) * np.abs(S[0, low])).sum(axis=1)       # (F,)
    peak = np.maximum(np.abs(at).max(axis=1), np.abs(around).reshape(F, -1).max(axis=1))
    return float((dev / np.maximum(peak, _TINY)).max())


def _row_norms(w):
    """Euclidean norms of the rows of ``w`` without overflow or underflow of the squares.

    The plain sum of squares is inf for entries near 1e154 (a Laplacian of weights 1e300) and 0 near
    1e-162, which the recurrence took for a breakdown at its first step; only rows whose fast norm lies
    outside the safe range are recomputed, in units of their largest entry.
    """
    with np.errstate(over="ignore", under="ignore"):   # such rows are recomputed below
        b = np.linalg.norm(w, axis=1).astype(np.float64)
    info = np.finfo(w.dtype)
    lo, hi = np.sqrt(float(info.tiny)) / float(info.eps), np.sqrt(float(info.max)) * float(info.eps)
    redo = ~((b > lo) & (b < hi))
    if redo.any():
        sub = w[redo].astype(np.float64)
        peak = np.abs(sub).max(axis=1)
        e = np.where(peak > 0, np.frexp(peak)[1], 0)
        b[redo] = np.ldexp(np.linalg.norm(np.ldexp(sub, -e[:, None]), axis=1), e)
    return b


def _lanczos_block(op, filters, X, tol, max_iter, check_every, null=None):
    """Lanczos on every column of X (internal order). Returns (F, n, m) results, iterations, converged mask.

    The bases are stored column-major, ``V[j, i]`` the i-th vector of column j,
    so that reorthogonalization is one batched BLAS product per pass.  ``null``: a sparse (n, c) orthonormal
    basis of L's null space (internal order, :func:`_laplacian_null_space`) or None; its part of X gets
    ``phi(0)`` exactly, the rest is filtered by Lanczos kept orthogonal to it.
    """
    n, m = X.shape
    dtype = op.dtype
    F = len(filters)
    # ||x|| as max|x_i| * ||x / max|x_i|||: the plain sum of squares underflows to 0 (a column of 1e-300, or
    # 1e-30 in float32, was taken for zero) or overflows to inf (1e300: all NaN); the start vector is
    # x / max|x_i| / ||x / max|x_i||| so that no intermediate leaves the float range either
    peak = np.abs(X).max(axis=0).astype(np.float64) if n else np.zeros(m)
    live = peak > 0
    Y = np.zeros((F, n, m), dtype=dtype)
    if not live.any():
        return Y, np.zeros(m, int), np.ones(m, bool), np.zeros(m)
    # (the estimates below are in units of max|x_i|, multiplied back at the end: ||x|| itself overflows
    # for a column of 1e308 whose phi(L) x is finite)
    X0 = (X.astype(np.float64) / np.where(live, peak, 1.0))
    Q = None
    if null is not None and null.shape[1]:
        # phi(L) x = phi(0) P0 x + phi(L) (I - P0) x: a Ritz value of the null space carries the rounding
        # eps ||L|| (+1e-16 on a path), which a sharp low-pass response magnifies (Heat(1e16): 0.2 off);
        # deflated, the Ritz values stay at the nonzero eigenvalues
        phi0 = _response_values(filters, np.zeros(1), "0, an eigenvalue of L (its null space)")[:, 0]
        Q = sp.csr_array(null, dtype=np.float64)
        P0X = Q @ (Q.T @ X0)
        X0 = X0 - P0X
        X0 -= Q @ (Q.T @ X0)       # twice is enough (Gram-Schmidt)
        for f in range(F):
            Y[f] = (phi0[f] * P0X).astype(dtype)
        Qd = sp.csr_array(Q, dtype=dtype)
    unit_norms = np.linalg.norm(X0, axis=0)
    norms = unit_norms
    run = live & (unit_norms > 0)
    if not run.any():
        Y *= peak.astype(dtype)
        return Y, np.zeros(m, int), np.ones(m, bool), np.zeros(m)
    eps = float(np.finfo(dtype).eps)
    cap = min(max_iter + 1, 16)
    V = np.empty((m, cap, n), dtype=dtype)
    V[:, 0, :] = (X0 / np.where(run, unit_norms, 1.0)).T.astype(dtype)
    if Q is not None:   # the rounding of the cast to dtype
        V[:, 0, :] -= (Qd @ (Qd.T @ V[:, 0, :].T)).T
    alpha = np.zeros((max_iter, m))
    beta = np.zeros((max_iter, m))
    dim = np.zeros(m, dtype=int)        # Krylov dimension where a column stopped (0 = running)
    done = ~run
    converged = ~run
    last = [None] * m                   # previous coefficient estimates per column
    uncertain = np.zeros(m)             # relative uncertainty from Ritz values at 0 to rounding (not deflated)
    coef = np.zeros((F, m, max_iter))
    cur = np.empty((n, m), dtype=dtype)
    prod = np.empty((n, m), dtype=dtype)
    anorm = 0.0
    k = 0
    while k < max_iter:
        cur[...] = V[:, k, :].T
        op.matmat(cur, prod)
        w = np.ascontiguousarray(prod.T)                                  # (m, n)
        a_k = np.einsum("ij,ij->i", V[:, k, :], w).astype(np.float64)
        w -= V[:, k, :] * a_k[:, None].astype(dtype)
        if k > 0:
            w -= V[:, k - 1, :] * beta[k - 1][:, None].astype(dtype)
        for _ in range(2):  # full reorthogonalization: classical Gram-Schmidt, twice
            h = np.matmul(V[:, : k + 1, :], w[:, :, None])[:, :, 0]      # (m, k+1)
            w -= np.matmul(h[:, None, :], V[:, : k + 1, :])[:, 0, :]
            a_k += h[:, k]
            if Q is not None:   # and against the null space (L's rounding puts eps ||L|| back into it)
                w -= (Qd @ (Qd.T @ w.T)).T
        alpha[k] = a_k
        b_k = _row_norms(w)
        anorm = max(anorm, float(np.abs(a_k).max() + b_k.max()))
        k += 1
        breakdown = (b_k <= 10 * eps * max(anorm, 1e-300) * np.sqrt(k)) & ~done
        b_k[done | breakdown] = 0.0
        beta[k - 1] = b_k
        check = breakdown | (~done & ((k % check_every == 0) | (k == max_iter)))
        for j in np.flatnonzero(check):  # the few columns of a batch
            d = alpha[:k, j]
            if k > 1:
                theta, S = sla.eigh_tridiagonal(d, beta[: k - 1, j])
            else:
                theta, S = d.copy(), np.ones((1, 1))
            # Ritz values are Rayleigh quotients: of a PSD L they can be below 0 by rounding only (-1e-16),
            # where a response defined on [0, lmax] (sqrt, fractional powers) is NaN: that is 0
            theta = _clip_rounding(theta, anorm, dtype)
            phis = _response_values(filters, theta, "the Ritz values")          # (F, k)
            if theta.min() <= _rounding_level(anorm, dtype):
                # a Ritz value at 0 to rounding (+1e-16): phi must be finite at 0 itself, as on [0, lmax] for
                # chebyshev_filter (1/lambda on a path of 11 nodes gave entries near 1e14)
                _response_values(filters, np.zeros(1), "the Ritz values (one is 0 to rounding)")
            y = norms[j] * (phis * S[0]) @ S.T                                   # (F, k)
            # each response relative to its own peak, as chebyshev_filter's degree: in a bank with Heat(0.5), a
            # response 1e-6 times smaller was 0.046 off (relative) at tol=1e-8, measured against the larger one
            peaks = np.maximum(np.abs(phis).max(axis=1), _TINY)                  # (F,)
            prev = last[j]
            if breakdown[j]:
                ok = True   # invariant subspace: the estimate is exact
            elif prev is not None:
                diff = y.copy()
                diff[:, : prev.shape[1]] -= prev
                # the norm without squares that underflow: a response of values below ~1e-154 (Matern(100, 2.0),
                # phi(0) = 1.3e-170) had a difference of norm 0 and stopped 1.8e-5 off, reported converged
                ok = bool(np.all(_row_norms(diff) <= tol * norms[j] * peaks))
                if ok:
                    # two equal estimates also come from a Krylov space that has not reached the low end of
                    # the spectrum, where a low-pass response lives (Heat(200) on weights 1e-8..1e8: phi = 0
                    # on every Ritz value, both estimates 0, "converged", error 100%): check it with the
                    # Gauss-Radau rule that adds a node at 0, the bottom of a Laplacian's spectrum
                    gap, scale_r = _radau_gap(d, beta[:k, j], theta, S, filters, anorm, dtype, tol)
                    ok = bool(np.all(gap <= tol * np.maximum(peaks, scale_r)))
            else:
                ok = False
            last[j] = y
            coef[:, j, :k] = y
            if Q is None:
                uncertain[j] = _zero_ritz_uncertainty(filters, theta, S, float(beta[k - 1, j]), anorm, dtype)
            if ok:
                done[j] = True
                converged[j] = True
                dim[j] = k
        if done.all() or k >= max_iter:
            break
        if k == V.shape[1]:  # grow the bases (amortized doubling)
            new_cap = min(2 * V.shape[1], max_iter + 1)
            memory_guard(new_cap * n * m * V.itemsize, f"Lanczos bases of {new_cap} vectors for {m} column(s)",
                         "lower max_iter or tol, or filter fewer columns at a time.")
            V2 = np.empty((m, new_cap, n), dtype=dtype)
            V2[:, :k, :] = V[:, :k, :]
            V = V2
        scale_w = np.where(b_k > 0, b_k, 1.0)
        V[:, k, :] = w / scale_w[:, None].astype(dtype)
        V[b_k == 0, k, :] = 0
    dim[dim == 0] = k
    for f in range(F):  # the responses of a bank
        Y[f] += np.matmul(coef[f, :, None, :k].astype(dtype), V[:, :k, :])[:, 0, :].T
    Y *= peak.astype(dtype)     # back from units of max|x_i|
    return Y, dim, converged, uncertain


def _lanczos_apply(op, filters, Xi, tol, max_iter, check_every, null=None):
    """Lanczos on the prepared operator, columns in memory-bounded batches; warns on non-convergence.

    ``null``: the null-space basis of :func:`_lanczos_block` (internal order) or None.
    """
    n, m = Xi.shape
    dtype = op.dtype
    F = len(filters)
    per_column = min(max_iter + 1, 64) * n * np.dtype(dtype).itemsize
    batch = max(1, min(m, _LANCZOS_BATCH_BYTES // max(1, per_column)))
    Y = np.empty((F, n, m), dtype=dtype)
    n_iter = np.zeros(m, dtype=int)
    conv = np.zeros(m, dtype=bool)
    unc = np.zeros(m)
    for s in range(0, m, batch):  # batches of columns bound the memory of the bases
        sl = slice(s, min(m, s + batch))
        # The reorthogonalization is thin, memory-bound BLAS (k x n times n): one BLAS
        # thread is as fast, and immune to the 10-30x slowdown of spinning OpenBLAS
        # threads on a machine shared with other processes.
        with threadpool_limits(limits=1, user_api="blas"):
            Y[:, :, sl], n_iter[sl], conv[sl], unc[sl] = _lanczos_block(op, filters, Xi[:, sl], tol, max_iter,
                                                                         check_every, null)
    if not conv.all():
        warn(f"lanczos_filter did not reach tol={tol:g} within max_iter={max_iter} for {int((~conv).sum())} of "
             f"{m} column(s); the last estimates are returned. Raise max_iter or loosen tol.", ConvergenceWarning)
    # a Ritz value at 0 to rounding that was not deflated (a normalized Laplacian without its degrees, a
    # LinearOperator): the response's change over that rounding, beyond what the dtype can give anyway
    level = max(tol, 64 * float(np.finfo(dtype).eps))
    if (unc > level).any():
        warn(f"lanczos_filter: a Ritz value of L is 0 only to rounding (eps ||L||) and the "
             f"response changes by up to {float(unc.max()):.2e} of its peak over that (above tol={tol:g}) in "
             f"{int((unc > level).sum())} of "
             f"{m} column(s): the result may be that far off. L's null space was not deflated (L is no "
             "combinatorial Laplacian, or a LinearOperator); a GraphKernel built from the graph deflates a "
             "normalized Laplacian's.", AccuracyWarning)
    return Y, n_iter, conv


@reuses_operator_symmetry
def lanczos_filter(L: MatrixOrOperator, phi: ResponseBank, X: ArrayLike, *, tol: float = 1e-8,
                   max_iter: int | None = None, check_every: int = 5, reorder: Reorder = "auto",
                   backend: Backend = "auto", return_info: bool = False,
                   ) -> NDArray[np.floating] | tuple[NDArray[np.floating], dict[str, Any]]:
    r"""Apply :math:`\varphi(L)` to signals by the Lanczos method.

    For each column x, k steps of Lanczos on the sparse L (never densified)
    give an orthonormal Krylov basis :math:`V_k` and the tridiagonal
    :math:`T_k = V_k^T L V_k`; then

    .. math::

        \varphi(L)\,x \approx \|x\|\, V_k\, \varphi(T_k)\, e_1
        = \|x\|\, V_k S\, \varphi(\Theta)\, S^T e_1,

    exact when :math:`\varphi` is a polynomial of degree < k and, unlike a
    fixed Chebyshev interval, adapted to the spectrum actually excited by x
    (Gallopoulos & Saad 1992; Higham, "Functions of matrices", Ch. 13).  The
    basis is kept orthogonal by full reorthogonalization (classical
    Gram-Schmidt twice), so the Ritz values never duplicate.  No ``lmax`` is
    needed.  Costs O(k n) memory per column (columns run in batches) and
    O(k^2 n) work for the reorthogonalization: Chebyshev is cheaper for smooth
    responses, Lanczos more accurate for hard ones.

    The null space of a combinatorial Laplacian (zero row sums to the rounding
    of its entries; :func:`graphrkhs.spectral.laplacian_null_space`: the
    indicators of the connected components) is deflated exactly,

    .. math::

        \varphi(L)\,x = \varphi(0)\, P_0 x + \varphi(L)\,(I - P_0)\, x,

    the second part by Lanczos kept orthogonal to it.  A Ritz value of the
    null space is 0 only to the rounding :math:`\epsilon\|L\|`, which a sharp
    low-pass response magnifies: without the deflation ``Heat(1e12)`` on a
    path of 5 nodes was :math:`2\cdot 10^{-5}` off (relative), ``Heat(1e16)``
    0.16, and ``Heat(1e8)`` in float32 0.14, each column reported converged;
    deflated, :math:`\le 10^{-16}` (float64) and :math:`3\cdot 10^{-8}`
    (float32).  The Ritz values then stay at the nonzero eigenvalues, which
    carry the same absolute rounding: a response that changes by more than
    ``tol`` over :math:`\epsilon\|L\|` at :math:`\lambda_2` (e.g. ``Heat(t)``
    with :math:`t \lambda_2 \gtrsim 1` and :math:`t\epsilon\|L\| \gtrsim` tol)
    is as ill-conditioned as the problem itself.  A normalized Laplacian's
    null space (:math:`D^{1/2} 1` per component) needs the degrees, which L
    alone does not give: it is not deflated here (a
    :class:`~graphrkhs.GraphKernel` built from the graph deflates it), nor is
    a LinearOperator's.  There, a Ritz value at 0 to the rounding level
    :math:`10^{-8}\|L\|` counts as 0 (no Gauss-Radau check) only when the
    response cannot tell it from 0 to ``tol`` (a Ritz value of :math:`5\cdot
    10^{-9}` on its way to 0 stopped ``Heat(1e12)`` 0.066 off on a kNN graph
    of 200 nodes), and an :class:`~graphrkhs.AccuracyWarning` reports the
    response's change over :math:`\pm\epsilon\|T\|` at such Ritz values
    (weighted by their part of x) when it exceeds ``tol`` and
    :math:`64\epsilon` of the dtype: the rounding that can cost (normalized
    path of 5 nodes, ``Heat(1e12)``: :math:`1.5\cdot 10^{-4}` reported,
    :math:`9.5\cdot 10^{-5}` off).  It is an estimate of the order of the
    error, not a bound: on the kNN graph above it reports
    :math:`1.9\cdot 10^{-5}`, and the result was :math:`5\cdot 10^{-16}` of
    :math:`\|x\|` off with numpy 2.4 / scipy 1.17 but :math:`2.9\cdot
    10^{-5}` with numpy 2.0 / scipy 1.13 (other rounding in the products).  Smooth responses (``Heat(1)``,
    ``Heat(10)``, ``RegularizedLaplacian(10)``) do not warn, in float32
    either.

    Parameters
    ----------
    L : sparse matrix, ndarray or LinearOperator of shape (n, n)
        Symmetric (else a ``ValueError``; a LinearOperator is tested by one
        product with 8 fixed vectors, :math:`x^T L y = y^T L x`).
    phi : filter, callable or list of them
        Evaluated on Ritz values (anywhere in the spectrum's hull), and at 0
        when L's null space is deflated.
    X : array-like of shape (n,) or (n, m)
    tol : float > 0, default=1e-8
        Stop a column when two estimates ``check_every`` steps apart differ by
        less than ``tol`` :math:`\|x\| \max|\varphi(\theta)|` (for a bank, every
        response against its own peak; an a-posteriori
        estimate of the error of the earlier one) and the Gauss-Radau estimate
        with a node added at 0, the bottom of a Laplacian's spectrum, differs
        from the current one by less than ``tol`` :math:`\|x\| \max|\varphi|`
        too (Golub & Meurant 2010): so a Krylov space that has not yet reached
        the small eigenvalues, where a low-pass response lives, is not taken
        for converged because :math:`\varphi` vanishes on all its Ritz values.
    max_iter : int, optional
        Krylov dimension cap, default ``min(n, 500)``; a
        :class:`~graphrkhs.ConvergenceWarning` reports columns that did not
        converge (their last estimate is returned).
    check_every : int, default=5
        Steps between convergence checks (each check is a small tridiagonal
        eigenproblem per column).
    reorder, backend
        As in :func:`chebyshev_filter`.
    return_info : bool, default=False
        Also return ``{"n_iter": (m,) Krylov dimensions, "converged": (m,) bool}``.

    Returns
    -------
    ndarray of shape X.shape (or (n_filters,) + X.shape for a bank)[, dict]

    Warns
    -----
    ConvergenceWarning
        Columns that did not reach ``tol`` within ``max_iter``.
    AccuracyWarning
        L's null space not deflated and the response sensitive to the
        rounding of a Ritz value at 0 (see above).

    Examples
    --------
    A resolvent with a large weight, which a Chebyshev series of moderate
    degree approximates poorly, on a cycle of 30 nodes:

    >>> import numpy as np
    >>> from graphrkhs import exact_filter, filters, lanczos_filter, laplacian
    >>> L = laplacian(np.roll(np.eye(30), 1, axis=1) + np.roll(np.eye(30), -1, axis=1))
    >>> phi = filters.RegularizedLaplacian(20.0)
    >>> signals = np.random.default_rng(0).normal(size=(30, 2))
    >>> np.allclose(lanczos_filter(L, phi, signals, tol=1e-10), exact_filter(L, phi, signals), atol=1e-8)
    True
    """
    check_flag(return_info, "return_info")
    filters, is_bank = _as_filter_bank(phi)
    L = _check_L(L)
    n = L.shape[0]
    X2, was_1d = _check_X(X, n)
    tol = check_scalar(tol, "tol", low=0, low_inclusive=False)
    max_iter = check_scalar(max_iter, "max_iter", kind="int", low=1, allow_none=True)
    max_iter = min(n, 500) if max_iter is None else min(max_iter, n)
    check_every = check_scalar(check_every, "check_every", kind="int", low=1)
    _check_common(None, tol, 0, None, reorder, backend)
    serial_only(backend, "lanczos_filter")
    if not _symmetric(L):       # a LinearOperator too (symmetry_gap's dot test): 0.15 off silently before
        raise ValueError("lanczos_filter needs a symmetric L; for the random-walk Laplacian filter with the "
                         "normalized one and rescale by D^(-1/2) ... D^(1/2).")
    # a spectrum reaching below 0 is refused as chebyshev_filter refuses it (free for diagonally dominant L;
    # else a short Lanczos run): -L was filtered silently, exp(L) x for Heat(1).  At float32's rounding
    # level whatever L's dtype: a float32 Laplacian handed over in float64 has eigenvalues like -2e-8
    check_psd_spectrum(L, 0.0, dtype=np.float32)
    dtype = _compute_dtype(L, X2)
    op = PreparedOperator(L, dtype, reorder, backend)
    # a combinatorial Laplacian's null space (zero row sums to rounding) is deflated exactly; found on the
    # prepared (reordered) matrix, so in internal order, at the rounding of L's own entries
    null = _laplacian_null_space(op.L, L.dtype) if op.is_matrix else None
    Y, n_iter, conv = _lanczos_apply(op, filters, op.to_internal(X2), tol, max_iter, check_every, null)
    Y = op.to_user(Y)
    if was_1d:
        Y = Y[:, :, 0]
    Y = Y if is_bank else Y[0]
    if return_info:
        return Y, {"n_iter": n_iter, "converged": conv}
    return Y


def _exact_eigh(L, max_nodes=EXACT_MAX_NODES, after_bytes=0.0, what=""):
    """Dense eigendecomposition of a symmetric L (float64), size-guarded (private helper).

    Memory-guarded too: about 6 n x n float64 arrays at the peak of ``eigh`` (measured 5.3 at n = 2000), or U and
    ``after_bytes`` (the caller's arrays once the factorization is done, described by ``what``) if more.
    """
    L = _check_L(L)
    n = L.shape[0]
    max_nodes = check_scalar(max_nodes, "max_nodes", kind="int", low=1)
    if n > max_nodes:
        raise ValueError(
            f"exact_filter factorizes a dense {n} x {n} matrix, above max_nodes={max_nodes}; use "
            "chebyshev_filter or lanczos_filter for large graphs (or raise max_nodes knowingly: "
            f"{8 * n * n / 2**20:.0f} MB and O(n^3) time)."
        )
    memory_guard(8.0 * n * n + max(40.0 * n * n, float(after_bytes)),
                 f"the dense eigendecomposition of a {n} x {n} L (about six {n} x {n} float64 arrays){what}",
                 "use chebyshev_filter or lanczos_filter, or filter fewer signals at a time.")
    if isinstance(L, spla.LinearOperator):
        dense = operator_matmat(L, np.eye(n), "L")
    else:
        dense = L.toarray()
    given = dense.dtype
    dense = np.asarray(dense, dtype=np.float64)
    if not _symmetric(dense, given):
        raise ValueError("exact_filter needs a symmetric L (combinatorial or normalized Laplacian).")
    lam, U = np.linalg.eigh(0.5 * (dense + dense.T))
    scale = np.abs(lam).max(initial=0.0)
    # the zero eigenvalues of a Laplacian come out as -1e-16 (float32 entries: -3e-8): they are 0
    lam = _clip_rounding(lam, scale, given)
    # ... and as +1e-16 too, which a sharp low-pass response magnified (Heat(1e16): 0.29 off on random graphs
    # of 4-40 nodes, 0.6 normalized): a Laplacian's null space has the dimension c of its components, so its
    # c smallest eigenvalues are 0 exactly when they are 0 to the rounding of eigh
    c = _laplacian_null_dimension(sp.csr_array(dense) if isinstance(L, spla.LinearOperator) else L, given)
    if c and lam[c - 1] <= 64 * _entry_eps(given) * scale:
        lam[:c] = 0.0
    return lam, U


def _laplacian_null_dimension(L, dtype):
    r"""The number of connected components of a Laplacian (its null dimension), or 0 if not a Laplacian.

    A Laplacian here: off-diagonal entries :math:`\le 0` and either zero row sums to the rounding of the
    entries (combinatorial) or a diagonal of ones, and zeros on the zero rows of isolated nodes (normalized),
    whose null space :math:`D^{1/2} 1_C` per component has the same dimension.
    """
    L = sp.csr_array(L)
    n = L.shape[0]
    if n == 0:
        return 0
    rows = np.repeat(np.arange(n), np.diff(L.indptr))
    data = L.data.astype(np.float64)
    off = (rows != L.indices) & (data != 0)
    if (data[off] > 0).any():
        return 0
    eps = _entry_eps(dtype)
    sums = np.bincount(rows, weights=data, minlength=n)
    absrow = np.bincount(rows, weights=np.abs(data), minlength=n)
    combinatorial = bool((np.abs(sums) <= 2 * np.maximum(np.diff(L.indptr), 1) * eps * absrow).all())
    diag = np.bincount(rows[~off], weights=data[~off], minlength=n)
    edges = np.bincount(rows[off], minlength=n) > 0
    normalized = bool(np.all(np.where(edges, np.abs(diag - 1.0) <= 4 * eps, diag == 0.0)))
    if not (combinatorial or normalized):
        return 0
    pattern = sp.csr_array((np.ones(int(off.sum())), (rows[off], L.indices[off])), shape=(n, n))
    return int(csgraph.connected_components(pattern, directed=False)[0])


def exact_filter(L: SparseMatrix | ArrayLike, phi: ResponseBank, X: ArrayLike, *,
                 max_nodes: int = EXACT_MAX_NODES) -> NDArray[np.floating]:
    r"""Apply :math:`\varphi(L) = U \varphi(\Lambda) U^T` by a dense eigendecomposition (the oracle).

    A Laplacian's null space has the dimension c of its connected components:
    its c smallest computed eigenvalues, :math:`\pm 10^{-16}` by rounding, are
    taken as 0 (:func:`graphrkhs.spectral.exact_eigh`); before, the positive
    ones met sharp low-pass responses (``Heat(1e16)``: up to 0.29 off on
    random combinatorial Laplacians of 4-40 nodes, 0.6 on normalized ones).

    Parameters
    ----------
    L : sparse matrix, ndarray or LinearOperator of shape (n, n)
        Symmetric.
    phi : filter, callable or list of them
    X : array-like of shape (n,) or (n, m)
    max_nodes : int, default=5000
        Size guard (a ``ValueError`` above it): dense ``eigh`` costs
        :math:`O(n^3)` time and :math:`8n^2` bytes.

    Returns
    -------
    ndarray of shape X.shape (or (n_filters,) + X.shape for a bank)
        Computed in float64; float32 when L and X are both float32.  A
        column within :math:`2^{64}` of float64's smallest normal or largest
        number is filtered scaled by a power of two (exact), and the result
        scaled back: :math:`\varphi(L)` is linear, and a subnormal signal
        keeps the accuracy of the grid its result is stored on.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import exact_filter, filters
    >>> L = np.array([[1.0, -1.0], [-1.0, 1.0]])          # eigenvalues 0 and 2
    >>> exact_filter(L, filters.RegularizedLaplacian(1.0), np.array([1.0, -1.0])).round(6).tolist()
    [0.333333, -0.333333]
    """
    filters, is_bank = _as_filter_bank(phi)
    L = _check_L(L)
    X2, was_1d = _check_X(X, L.shape[0])
    dtype = _compute_dtype(L, X2)
    # after the factorization: U^T X, and per filter its product and the stacked copy
    n, m = X2.shape
    lam, U = _exact_eigh(L, max_nodes, 8.0 * (2 * len(filters) + 2) * n * m,
                         f" and the {len(filters)} filtered block(s) of {n} x {m}")
    if lam.size:     # the filters' spectrum is [0, lmax]: refused below it, as by chebyshev_filter
        # at float32's rounding level whatever L's dtype (a float32 Laplacian given in float64: -2e-8)
        _refuse_negative_spectrum(float(lam.min()), float(np.abs(lam).max()), "L", np.float32)
    X64 = X2.astype(np.float64)
    # columns within 2^64 of float64's ends scaled to a peak near 1 (exact: powers of two) and the result back
    # (phi(L) is linear), as chebyshev_filter does: a signal of 1e-318 (subnormal) came back 2.6e-5 off, one
    # of 2^-1040 3.6e-13, as U^T x and its products rounded in subnormals
    exps = _column_exponents(X64, np.dtype(np.float64))
    if exps is not None:
        X64 = np.ldexp(X64, -exps)
    coeffs = U.T @ X64
    values = _response_values(filters, lam, "the eigenvalues")
    if lam.size and lam.min() <= _rounding_level(np.abs(lam).max(), L.dtype):
        # a zero eigenvalue comes out as +-1e-16: phi must be finite at 0 itself, as chebyshev_filter and
        # lanczos_filter require (1/lambda gave entries near 1e12 when the rounding fell on the positive side)
        _response_values(filters, np.zeros(1), "the eigenvalues (one is 0 to rounding)")
    Y = np.stack([U @ (v[:, None] * coeffs) for v in values])
    if exps is not None:
        with np.errstate(over="ignore", under="ignore"):   # a result beyond the range is inf / subnormal, as due
            Y = np.ldexp(Y, exps)
    Y = Y.astype(dtype, copy=False)
    if was_1d:
        Y = Y[:, :, 0]
    return Y if is_bank else Y[0]

