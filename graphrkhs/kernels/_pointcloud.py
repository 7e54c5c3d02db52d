r"""Point-cloud kernels k(x, z) on R^d, evaluated blockwise.

Conventions (shared by every learner):

* ``"gaussian"``: :math:`k(x, z) = \exp(-\|x - z\|^2 / (2\sigma^2))`;
* ``"heat"``: the Gaussian written as a heat kernel with :math:`t = \sigma^2 / 2`,
  :math:`K_t(x, z) = (4\pi t)^{-m/2} \exp(-\|x - z\|^2 / (4t))`, ``m`` the
  (intrinsic) dimension; see :func:`heat_kernel`;
* ``"linear"``: :math:`k(x, z) = x^T z`;
* ``"polynomial"``: :math:`k(x, z) = (x^T z + c_0)^p`;
* a callable ``k(A, B) -> ndarray (len(A), len(B))``.

Also here: the heat semigroup family :math:`K_t, K_{2t}, K_{3t}` in a scaled
form (:func:`heat_kernel`, :func:`heat_semigroup`, used by PRLS/PLapRLS), the
feature maps and unisolvent anchor points of G-RLS (:func:`feature_map`,
:func:`unisolvent_points`) and the G-RLS kernel construction
(:class:`GRLSKernel`).
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._core.types import KernelName
from .._core.validation import (check_matrix, dense_array, check_option, check_points, check_scalar, column_scales, memory_guard,
                                power_of_two_exponent)

__all__ = ["pairwise_kernel", "gaussian_kernel", "linear_kernel", "polynomial_kernel", "KERNELS",
           "heat_kernel", "heat_semigroup", "heat_log_normalization", "feature_map", "unisolvent_points",
           "GRLSKernel", "FEATURES"]

KERNELS = ("gaussian", "heat", "linear", "polynomial")

# Bytes of one output block when a kernel matrix is evaluated blockwise.
BLOCK_BYTES = 128 * 2**20


def _sq_dists(A, B):
    r"""Squared Euclidean distances, accurate also for (near-)coincident points.

    The expansion :math:`|a|^2 + |b|^2 - 2 a^T b` (one GEMM) has an absolute
    error of at most about :math:`(d + 2)\,\epsilon\,(|a|^2 + |b|^2)`; every
    entry below f times the largest such bound,
    :math:`f = \min(2^{20}, 1/(64 (d + 2) \epsilon))` (coincident or nearly
    coincident points, the diagonal of K(A, A)), is
    recomputed from the differences, :math:`\sum_k (a_k - b_k)^2`, so that
    coincident points get exactly 0 and near-duplicates their true distance,
    and every entry has a relative error below 1/f (:math:`2^{-20}` in
    float64; f is smaller in float32 so that only close pairs are recomputed).
    Call it on points in a common centred, rescaled frame (:func:`_frame`),
    where the norms are those of the data's spread, not of its offset.
    """
    sa = np.einsum("ij,ij->i", A, A)
    sb = sa if B is A else np.einsum("ij,ij->i", B, B)
    D = sa[:, None] + sb[None, :] - 2.0 * (A @ B.T)
    unit = (A.shape[1] + 2) * float(np.finfo(D.dtype).eps)
    # one scalar threshold (a pass without a temporary): a superset of the entries below their own bound
    top = float(sa.max(initial=0.0)) + float(sb.max(initial=0.0))
    rows, cols = np.nonzero(D <= D.dtype.type(min(2.0**20, 1.0 / (64.0 * unit)) * unit * top))
    step = max(1, (1 << 22) // max(1, A.shape[1]))  # pairs per chunk of the (pairs, d) difference block
    for s in range(0, rows.size, step):
        r, c = rows[s:s + step], cols[s:s + step]
        diff = A[r] - B[c]
        D[r, c] = np.einsum("ij,ij->i", diff, diff)
    np.maximum(D, 0, out=D)
    return D


def _set_stats(X):
    """``(lo, hi, centre)``: the columns' minima and maxima of X and its bulk centre (:func:`_bulk_centre`), which
    :func:`_far_rows` and :func:`_frame` read -- computed once per set by :func:`pairwise_kernel`."""
    if X.shape[0] == 0:
        inf = np.full(X.shape[1], np.inf)
        return inf, -inf, np.zeros(X.shape[1], dtype=X.dtype)
    return X.min(axis=0), X.max(axis=0), _bulk_centre(X)


def _frame(A, B, stats_A=None, stats_B=None):
    r"""Move A and B into one centred, power-of-two-scaled frame.

    Returns ``(A', B', scale)`` with :math:`a' = (a - c) / s`, c the
    per-coordinate lower median of B (:func:`_bulk_centre`) and s
    a power of two with :math:`\max |a'|, |b'| \in [1/2, 2)`, so that
    :math:`\|a - b\| = s \|a' - b'\|`.  Distances are then shift-invariant
    up to the rounding of the input itself (issue 13: ``X + 1e8`` lost all
    digits of :math:`\|a - b\|^2` to cancellation in the expansion) and their
    squares can neither overflow nor underflow.  ``B is A`` is kept.

    The centre is a point of B's bulk, not the midpoint of the bounding box of
    both sets: one far row (a new point at 1e20 among ordinary ones) moved that
    midpoint to 5e19, where every other row lost its digits (``x - c`` rounded to
    ``-c``), so the kernel rows of the *other* points -- and an estimator's
    predictions for them -- depended on the far row (RLSClassifier.predict of
    [5, 0], deep in class 1, gave class 0 when a row at 1e20 was in the batch).
    The bounding-box midpoint stays the fallback where ``x - c`` overflows
    (points near both ends of the float range).
    """
    lo_A, hi_A, centre_A = _set_stats(A) if stats_A is None else stats_A
    lo_B, hi_B, centre_B = (lo_A, hi_A, centre_A) if B is A else _set_stats(B) if stats_B is None else stats_B
    centre = (centre_B if B.shape[0] else centre_A).astype(A.dtype)
    lo, hi = np.minimum(lo_A, lo_B), np.maximum(hi_A, hi_B)
    with np.errstate(over="ignore"):        # the overflow is the test (it was a RuntimeWarning to the user)
        reach = float(np.maximum(hi - centre, centre - lo).max(initial=0.0))
    if not reach < float(np.finfo(A.dtype).max):
        centre = (lo * 0.5 + hi * 0.5).astype(A.dtype)  # halves first: lo + hi can overflow
    Ac = A - centre
    Bc = Ac if B is A else B - centre
    e = power_of_two_exponent(Ac, Bc)
    if e:
        Ac = np.ldexp(Ac, -e)
        Bc = Ac if B is A else np.ldexp(Bc, -e)
    return Ac, Bc, 2.0 ** e


def _far_rows(A, B, stats_A=None, stats_B=None):
    r"""Rows of A farther from the centre of B (:func:`_frame`'s) than :math:`2^{e/4}` times B's extent (e the
    dtype's largest binary exponent): in a frame scaled to them, the squared distances among B's extent could
    underflow.  All False when B has no extent (one point, or all equal)."""
    none = np.zeros(A.shape[0], dtype=bool)
    if A.shape[0] == 0 or B.shape[0] == 0:
        return none
    lo_A, hi_A, _ = _set_stats(A) if stats_A is None else stats_A
    lo_B, hi_B, centre = _set_stats(B) if stats_B is None else stats_B
    centre = centre.astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        # max |b - c| and a bound of max |a - c| from the columns' ranges (no (n, d) temporary): the usual case,
        # no far row, costs the columns' minima and maxima of each set
        extent = float(np.maximum(hi_B - centre, centre - lo_B).max())
        bound = float(np.maximum(hi_A - centre, centre - lo_A).max())
    if not extent > 0:
        return none
    limit = extent * 2.0 ** (np.finfo(A.dtype).maxexp // 4)
    if bound <= limit:
        return none
    with np.errstate(over="ignore", invalid="ignore"):
        reach = np.abs(A - centre).max(axis=1).astype(np.float64)   # (limit may pass float32's range)
    return ~(reach <= limit)


def _bulk_centre(B):
    """A point of B's bulk: the per-coordinate lower median of at most 255 evenly spaced rows of B.

    A few far rows do not move it (unlike the bounding box's midpoint); the subsample keeps its cost
    negligible next to the kernel (a partition of all of B along its rows took a fifth of the time of a
    10000 x 1000 Gaussian kernel in 784 dimensions).
    """
    sample = B[:: max(1, -(-B.shape[0] // 255))]
    k = (sample.shape[0] - 1) // 2
    return np.partition(sample, k, axis=0)[k]


def _scaled_exponent(D, scale, sigma):
    r"""``D`` (squared distances in units of ``scale``) times :math:`-\tfrac12 (s/\sigma)^2`, in place.

    Multiplies by :math:`r = s/\sigma` twice instead of forming :math:`\sigma^2`
    (which overflows for sigma ~ 1e200 and underflows to 0 for 1e-170), with r
    capped at the dtype's largest value so that a zero distance stays 0 (never
    :math:`0 \cdot \infty`).  So any finite sigma > 0 gives the floating-point
    limit of the kernel: all ones when sigma dwarfs the distances, the
    identity pattern (1 on coincident points, 0 elsewhere) when the distances
    dwarf sigma.
    """
    info = np.finfo(D.dtype)
    with np.errstate(over="ignore", under="ignore"):
        r = min(scale / sigma, float(info.max))
        factor = -0.5 * r * r
        if np.isfinite(factor) and abs(factor) >= float(info.tiny) and np.isfinite(D.dtype.type(factor)):
            D *= D.dtype.type(factor)  # the usual case: one pass
        else:
            D *= D.dtype.type(r)
            D *= D.dtype.type(r)
            D *= D.dtype.type(-0.5)
    return D


def gaussian_kernel(A: ArrayLike, B: ArrayLike | None = None, sigma: float = 1.0) -> NDArray[np.floating]:
    r"""Gaussian kernel :math:`\exp(-\|a - b\|^2 / (2\sigma^2))` between the rows of A and B.

    Distances are computed in a centred frame (shift-invariant: ``A + 1e8``
    gives the kernel of ``A`` up to the rounding of the shifted input) and
    rescaled by a power of two (no overflow for huge ``|x|``); coincident
    points get exactly 1.  Any finite ``sigma`` > 0 is accepted: far above the
    distances the kernel is all ones, far below it is 1 on coincident points
    and 0 elsewhere (e.g. ``sigma=1e200`` / ``1e-170``), the floating-point
    limits of the formula.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import gaussian_kernel
    >>> float(gaussian_kernel(np.zeros((1, 2)), np.ones((1, 2)), sigma=1.0)[0, 0]) == float(np.exp(-1.0))
    True
    """
    sigma = check_scalar(sigma, "sigma", low=0, low_inclusive=False)
    return pairwise_kernel(A, B, kernel="gaussian", sigma=sigma)


def linear_kernel(A: ArrayLike, B: ArrayLike | None = None) -> NDArray[np.floating]:
    """Linear kernel :math:`a^T b`."""
    return pairwise_kernel(A, B, kernel="linear")


def polynomial_kernel(A: ArrayLike, B: ArrayLike | None = None, degree: int = 2,
                      coef0: float = 1.0) -> NDArray[np.floating]:
    """Polynomial kernel :math:`(a^T b + c_0)^p`."""
    return pairwise_kernel(A, B, kernel="polynomial", degree=degree, coef0=coef0)


def _overflow_error(A, B, kernel, degree, dtype, coef0=0.0):
    r"""The error for a linear / polynomial kernel whose values exceed the dtype's range.

    Unlike the Gaussian kernel these kernels are not scale-invariant: the
    values themselves are out of range, so the only fix is to rescale the
    points.  The size quoted is the Cauchy-Schwarz bound
    :math:`\max\|a\| \max\|b\|`, computed in a frame rescaled by a power of
    two so that the norms cannot overflow themselves.  A polynomial kernel's
    ``coef0`` above that bound is what overflows: the error then names it.
    """
    e = power_of_two_exponent(A, B)
    na = float(np.linalg.norm(np.ldexp(A, -e).astype(np.float64), axis=1).max())
    nb = float(np.linalg.norm(np.ldexp(B, -e).astype(np.float64), axis=1).max())
    log10_ab = (np.log(max(na, 1e-300)) + np.log(max(nb, 1e-300)) + 2 * e * np.log(2.0)) / np.log(10)
    power = f" (to the power {degree})" if kernel == "polynomial" else ""
    c0 = abs(float(coef0)) if kernel == "polynomial" else 0.0
    if c0 > 0 and np.log10(c0) > log10_ab:
        # the offset, not the points, leaves the range: (x^T z + 1e300)^2 of unit points quoted |a^T b| ~ 1e0
        # and asked to rescale the points, which changes nothing
        return ValueError(
            f"the polynomial kernel overflows {np.dtype(dtype).name}: |a^T b + coef0| reaches about "
            f"1e{np.log10(c0):.0f}{power} (coef0 = {coef0:g}; |a^T b| only up to about 1e{log10_ab:.0f}), above the "
            f"largest number 1e{np.log10(np.finfo(dtype).max):.0f}; pass a smaller coef0 (or a lower degree)."
        )
    return ValueError(
        f"the {kernel} kernel of these points overflows {np.dtype(dtype).name}: |a^T b| reaches up to about "
        f"1e{log10_ab:.0f}{power}, above the largest number 1e{np.log10(np.finfo(dtype).max):.0f}; rescale the "
        "points (e.g. standardize X) or use the Gaussian kernel, which is scale-invariant with its default width."
    )


def check_kernel_parameters(sigma, degree, coef0, m=None):
    """``(sigma, degree, coef0, m)`` checked for every kernel, also those that do not use them (the estimators'
    constraints, scikit-learn's rule for gamma, degree and coef0: an invalid value is a user error even where the
    kernel ignores it): sigma a finite number > 0, degree an int >= 1, coef0 finite, m None or an int >= 1."""
    return (check_scalar(sigma, "sigma", low=0, low_inclusive=False), check_scalar(degree, "degree", kind="int", low=1),
            check_scalar(coef0, "coef0"), check_scalar(m, "m", kind="int", low=1, allow_none=True))


def pairwise_kernel(A: ArrayLike, B: ArrayLike | None = None,
                    kernel: KernelName = "gaussian", *,
                    sigma: float = 1.0, degree: int = 2, coef0: float = 1.0, m: int | None = None,
                    block_bytes: int = BLOCK_BYTES) -> NDArray[np.floating]:
    r"""Kernel matrix :math:`K_{ij} = k(a_i, b_j)`, computed in row blocks.

    Parameters
    ----------
    A : array of shape (n_a, d)
    B : array of shape (n_b, d), optional
        None means ``A``.
    kernel : {"gaussian", "heat", "linear", "polynomial"} or callable
        See the module documentation.  A callable gets two point blocks.
    sigma : float > 0
        Gaussian width; the heat kernel uses :math:`t = \sigma^2/2`.  Ignored by
        the linear, polynomial and callable kernels, but an invalid value (not a
        finite number > 0) is refused for them too, as the estimators' ``sigma``
        (and scikit-learn's ``gamma``) is.
    degree, coef0
        Polynomial kernel parameters (an int >= 1 and a finite number, checked
        for every kernel as ``sigma`` is).
    m : int >= 1, optional
        Dimension in the heat normalization :math:`(4\pi t)^{-m/2}`; default d.
    block_bytes : int >= 1
        Memory of one block of rows of the temporary distance matrix.

    Returns
    -------
    K : ndarray of shape (n_a, n_b), in the common float dtype of A and B (float32 only when both
        are float32, the package's rule for mixed inputs); a callable's matrix is converted to it
        (and must be real: complex values are a ``TypeError``).

    Raises
    ------
    MemoryError
        Before anything is allocated, when K would need more than 3/4 of the
        machine's memory (the message gives the size).
    """
    A = check_points(A, "A")
    B = A if B is None else check_points(B, "B")
    if A.shape[1] != B.shape[1]:
        raise ValueError(f"A and B must have the same number of features; got {A.shape[1]} and {B.shape[1]}.")
    dtype = np.result_type(A.dtype, B.dtype)
    A = A.astype(dtype, copy=False)
    B = B.astype(dtype, copy=False)
    # the one dense (len(A), len(B)) kernel matrix of the package: its size checked before it exists
    memory_guard(A.shape[0] * B.shape[0] * np.dtype(dtype).itemsize,
                 f"the {A.shape[0]} x {B.shape[0]} kernel matrix",
                 "use fewer (labeled) points, or a low-rank solver (solver='nystrom').")
    block_bytes = check_scalar(block_bytes, "block_bytes", kind="int", low=1)
    sigma, degree, coef0, m = check_kernel_parameters(sigma, degree, coef0, m)
    if callable(kernel):
        K = kernel(A, B)
        # a sparse matrix (a truncated, kNN-sparse kernel): np.asarray made it a 0-d object array, refused as
        # "the kernel callable returned shape ()"; the Gram matrix is dense here
        K = dense_array(K)
        if K.shape != (A.shape[0], B.shape[0]):
            raise ValueError(f"the kernel callable returned shape {K.shape}; expected {(A.shape[0], B.shape[0])}.")
        if K.dtype == object or not (np.issubdtype(K.dtype, np.number) or K.dtype == bool):
            raise TypeError(f"the kernel callable returned values of dtype {K.dtype}; it must return real numbers.")
        if np.issubdtype(K.dtype, np.complexfloating):
            # a complex Gram matrix sent the solvers into complex arithmetic (or lost its imaginary part)
            raise TypeError(f"the kernel callable returned complex values (dtype {K.dtype}); a kernel is real: "
                            "return its real part if that is the kernel meant.")
        if not np.isfinite(K).all():
            raise ValueError("the kernel callable returned NaN or infinity on finite points; fix the callable "
                             "(or rescale the points).")
        # the points' float dtype, as for the named kernels (int64 / float16 matrices reached the solvers)
        return K.astype(dtype, copy=False)
    check_option(kernel, "kernel", KERNELS)
    out = np.empty((A.shape[0], B.shape[0]), dtype=dtype)
    rows = max(1, int(block_bytes // (max(1, B.shape[0]) * np.dtype(dtype).itemsize)))
    if kernel == "heat":
        dim = A.shape[1] if m is None else m
        # log of the normalization (4 pi t)^(-m/2), t = sigma^2 / 2, exponentiated together with
        # the Gaussian so that it cannot under/overflow on its own in high dimension.
        log_norm = heat_log_normalization(sigma, dim)
        _check_heat_normalization(log_norm, sigma, dim, dtype)
    if kernel in ("gaussian", "heat") and B is not A:
        # rows of A (or of B) far beyond the other set's extent set the frame's power of two: in it the squared
        # distances of the other rows underflowed (a new point at 1e200 among ordinary ones: their kernel rows,
        # and the predictions, were those of another point); each group in its own frame
        kw = dict(sigma=sigma, degree=degree, coef0=coef0, m=m, block_bytes=block_bytes)
        stats_A, stats_B = _set_stats(A), _set_stats(B)      # once for the two tests and the frame
        far = _far_rows(A, B, stats_A, stats_B) if A.shape[0] > 1 else np.zeros(A.shape[0], dtype=bool)
        if far.any() and not far.all():
            out[~far] = pairwise_kernel(A[~far], B, kernel, **kw)
            out[far] = pairwise_kernel(A[far], B, kernel, **kw)
            return out
        far = _far_rows(B, A, stats_B, stats_A) if B.shape[0] > 1 else np.zeros(B.shape[0], dtype=bool)
        if far.any() and not far.all():
            out[:, ~far] = pairwise_kernel(A, B[~far], kernel, **kw)
            out[:, far] = pairwise_kernel(A, B[far], kernel, **kw)
            return out
        A, B, scale = _frame(A, B, stats_A, stats_B)
    elif kernel in ("gaussian", "heat"):
        # Distances in a centred, rescaled frame: shift-invariant and overflow-free.
        A, B, scale = _frame(A, B)
    for s in range(0, A.shape[0], rows):
        blk = A[s:s + rows]
        if kernel in ("linear", "polynomial"):
            with np.errstate(over="ignore", invalid="ignore"):   # checked right below
                out[s:s + rows] = blk @ B.T if kernel == "linear" else (blk @ B.T + coef0) ** degree
            if not np.isfinite(out[s:s + rows]).all():
                raise _overflow_error(A, B, kernel, degree, dtype, coef0)
        else:
            # exp(-|a - b|^2 / (2 sigma^2)) for both (the heat kernel's 4t is 2 sigma^2)
            D = _scaled_exponent(_sq_dists(blk, B), scale, sigma)
            if kernel == "heat":
                D += log_norm
            np.exp(D, out=out[s:s + rows])
    return out


# ---------------------------------------------------------------------------
# Heat semigroup K_t, K_2t, K_3t (Yang, King & Lyu, NIPS 2009, Section 4.1)
# ---------------------------------------------------------------------------

def heat_log_normalization(sigma: float, m: int) -> float:
    r"""Natural log of the heat normalization :math:`c = (4\pi t)^{-m/2}`, :math:`t = \sigma^2/2`.

    Returned as a logarithm because :math:`c` itself under- or overflows in
    high dimension (:math:`m = 784`, :math:`\sigma = 5`: :math:`c \approx 10^{-860}`).

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import heat_log_normalization
    >>> bool(np.isclose(heat_log_normalization(1.0, 2), -np.log(2 * np.pi)))
    True
    """
    sigma = check_scalar(sigma, "sigma", low=0, low_inclusive=False)
    m = check_scalar(m, "m", kind="int", low=1)
    # log sigma rather than log sigma^2: sigma^2 over/underflows outside about [1e-154, 1e154]
    return -0.5 * m * (np.log(2.0 * np.pi) + 2.0 * np.log(sigma))


def _check_heat_normalization(log_norm, sigma, m, dtype=np.float64):
    r"""The true heat kernel's peak :math:`(4\pi t)^{-m/2}` must be a number of ``dtype`` (the kernel's
    dtype: float32 points give a float32 kernel): a clear error, not inf."""
    dtype = np.dtype(dtype)
    limit = np.log(float(np.finfo(dtype).max))
    if log_norm > limit:
        smallest = np.exp(-limit / m) / np.sqrt(2.0 * np.pi)
        raise ValueError(
            f"sigma = {sigma:g} is too small for the normalized heat kernel in dimension m = {m}: its peak "
            f"(4 pi t)^(-m/2) = exp({log_norm:.4g}) overflows {dtype.name}. Use sigma >= {smallest:.3g}"
            f"{', float64 points' if dtype != np.float64 else ''}, the Gaussian kernel, or heat_kernel / "
            "heat_semigroup with scaled=True (the default)."
        )


def _check_heat_underflow(log_peak, sigma, m, s=1.0, dtype=np.float64):
    r"""The unscaled heat kernel's peak :math:`(4\pi s t)^{-m/2}`, its largest entry (at a = b), must not underflow
    ``dtype``'s normal range: below it every entry is 0 or a subnormal without its digits, and the all-zero Gram
    matrix came back silently (m = 1000, sigma = 1) while the overflowing peak was refused.  Entries far below a
    representable peak may still underflow to 0, as the Gaussian kernel's do: negligible next to the diagonal."""
    dtype = np.dtype(dtype)
    tiny = float(np.finfo(dtype).tiny)
    if log_peak < np.log(tiny):
        largest = np.exp(-np.log(tiny) / m) / np.sqrt(2.0 * np.pi * s)
        member = "" if s == 1 else f" at s = {s:g}"
        raise ValueError(
            f"sigma = {sigma:g} is too large for the unnormalized heat kernel in dimension m = {m}{member}: its peak "
            f"(4 pi s t)^(-m/2) = exp({log_peak:.4g}) underflows {dtype.name} (below its smallest normal number "
            f"{tiny:.3g}), so every entry would be 0. Use sigma <= {largest:.3g}"
            f"{', float64 points' if dtype != np.float64 else ''}, or scaled=True (the default)."
        )


def heat_kernel(A: ArrayLike, B: ArrayLike | None = None, *, sigma: float = 1.0, m: int | None = None,
                s: float = 1.0, scaled: bool = True, block_bytes: int = BLOCK_BYTES) -> NDArray[np.floating]:
    r"""Heat kernel :math:`K_{st}` of :math:`\mathbb R^m` at time :math:`st`, :math:`t = \sigma^2/2`.

    .. math::

        K_{st}(a, b) = (4\pi s t)^{-m/2} \exp\!\left(-\frac{\|a - b\|^2}{4 s t}\right).

    With ``scaled=True`` (the default) the kernel is divided by the
    normalization of :math:`K_t`, :math:`c = (4\pi t)^{-m/2}`:

    .. math::

        \frac{K_{st}(a, b)}{c} = s^{-m/2} \exp\!\left(-\frac{\|a - b\|^2}{2 s \sigma^2}\right),

    so that ``s = 1`` is exactly the Gaussian kernel of width ``sigma`` and the
    members ``s = 2, 3`` keep their true ratios to it.  Each entry is one
    ``exp`` of the sum of the log-normalization and the exponent, so no
    factor can overflow on its own; a value may underflow to 0 only where it
    is below the smallest float relative to :math:`K_t` (e.g.
    :math:`2^{-m/2}` for m > 2000 in float64), i.e. where it is negligible.
    ``scaled=False`` returns the true :math:`K_{st}` (same single-``exp``
    evaluation; the value itself can then be out of range in high dimension,
    which is why the solvers never use it): a peak :math:`(4\pi s t)^{-m/2}`
    that would overflow, or underflow below the smallest normal number (every
    entry 0, e.g. m = 1000 with sigma = 1), raises a ``ValueError`` naming
    ``sigma``'s usable range.

    Parameters
    ----------
    A : array of shape (n_a, d)
    B : array of shape (n_b, d), optional
        None means ``A``.
    sigma : float > 0, default=1.0
        Gaussian width; the heat time is :math:`t = \sigma^2 / 2` (the
        project-wide convention).
    m : int >= 1, optional
        Dimension in the normalization.  The paper's heat kernel is that of
        the data manifold, so m is its intrinsic dimension; None uses the
        ambient dimension d (the only choice that needs no estimate).
    s : float > 0, default=1.0
        Time multiple (1, 2 and 3 give :math:`K_t, K_{2t}, K_{3t}`).
    scaled : bool, default=True
        Divide by :math:`(4\pi t)^{-m/2}` (see above).
    block_bytes : int >= 1
        Memory of one block of the temporary distance matrix.

    Returns
    -------
    K : ndarray of shape (n_a, n_b), in the input float dtype.

    References
    ----------
    Yang, King & Lyu, "Learning with consistency between inductive functions
    and kernels", NIPS 2009, Theorem 4 (5) and Eq. (16).

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import heat_kernel
    >>> X = np.array([[0.0], [1.0]])
    >>> np.allclose(heat_kernel(X, sigma=1.0), np.exp(-np.array([[0, 1], [1, 0]]) / 2))
    True
    >>> round(float(heat_kernel(X, sigma=1.0, s=2)[0, 0]), 6) == round(2 ** -0.5, 6)
    True
    """
    s = check_scalar(s, "s", low=0, low_inclusive=False)      # named as heat_kernel's own argument
    return heat_semigroup(A, B, sigma=sigma, m=m, times=(s,), scaled=scaled, block_bytes=block_bytes)[0]


def heat_semigroup(A: ArrayLike, B: ArrayLike | None = None, *, sigma: float = 1.0, m: int | None = None,
                   times: tuple[float, ...] = (1, 2, 3), scaled: bool = True,
                   block_bytes: int = BLOCK_BYTES) -> tuple[NDArray[np.floating], ...]:
    r"""The heat kernels :math:`K_{st}` for several time multiples s from one distance computation.

    The default ``times=(1, 2, 3)`` gives the triple :math:`(K_t, K_{2t}, K_{3t})`
    that PRLS uses as :math:`(K, K', K'')` (Yang, King & Lyu 2009, Eq. 16: with a
    uniform density, :math:`K'_{ij} = \langle K_{x_i}, L_K K_{x_j}\rangle_K
    = \int K_t(x_i, y) K_t(y, x_j)\,dy = K_{2t}(x_i, x_j)` by the semigroup
    property, and likewise :math:`K'' = K_{3t}`).  See :func:`heat_kernel` for
    the scaled form and the parameters.

    Returns
    -------
    tuple of ndarrays of shape (n_a, n_b)

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import heat_semigroup
    >>> K1, K2, K3 = heat_semigroup(np.zeros((1, 64)), sigma=1.0)   # m = d = 64
    >>> np.allclose([K1[0, 0], K2[0, 0], K3[0, 0]], [1.0, 2.0 ** -32, 3.0 ** -32], rtol=1e-12, atol=0)
    True
    """
    A = check_points(A, "A")
    B = A if B is None else check_points(B, "B")
    if A.shape[1] != B.shape[1]:
        raise ValueError(f"A and B must have the same number of features; got {A.shape[1]} and {B.shape[1]}.")
    sigma = check_scalar(sigma, "sigma", low=0, low_inclusive=False)
    dim = A.shape[1] if m is None else check_scalar(m, "m", kind="int", low=1)
    times = [check_scalar(s, f"times[{i}]", low=0, low_inclusive=False)
             for i, s in enumerate(np.atleast_1d(times).tolist())]
    if not times:
        raise ValueError("times must hold at least one time multiple s > 0 (e.g. times=(1,)); got an empty "
                         "sequence.")
    if not isinstance(scaled, (bool, np.bool_)):
        raise TypeError(f"scaled must be a bool; got {scaled!r}.")
    # as pairwise_kernel checks it ('abc' and NaN failed in the block arithmetic, -5 and 2.5 passed silently)
    block_bytes = check_scalar(block_bytes, "block_bytes", kind="int", low=1)
    dtype = np.result_type(A.dtype, B.dtype)
    A = A.astype(dtype, copy=False)
    B = B.astype(dtype, copy=False)
    # log of the factor in front of exp(-|a-b|^2 / (2 s sigma^2)) for each member
    log_c = 0.0 if scaled else heat_log_normalization(sigma, dim)
    if not scaled:
        _check_heat_normalization(log_c - 0.5 * dim * np.log(min(times)), sigma * np.sqrt(min(times)), dim,
                                  dtype)
    log_front = [log_c - 0.5 * dim * np.log(s) for s in times]
    if not scaled:
        for s, lf in zip(times, log_front):     # the largest s has the smallest peak
            _check_heat_underflow(lf, sigma, dim, s, dtype)
    # len(times) dense matrices, checked before they exist (as pairwise_kernel checks its one)
    memory_guard(len(times) * A.shape[0] * B.shape[0] * np.dtype(dtype).itemsize,
                 f"{len(times)} heat kernel matrices of {A.shape[0]} x {B.shape[0]}",
                 "use fewer points, or a low-rank solver (solver='nystrom').")
    outs = [np.empty((A.shape[0], B.shape[0]), dtype=dtype) for _ in times]
    A64 = A.astype(np.float64, copy=False)
    B64 = A64 if B is A else B.astype(np.float64, copy=False)
    # centred, rescaled frame: shift-invariant, overflow-free distances (see _frame)
    A64, B64, scale = _frame(A64, B64)
    rows = max(1, int(block_bytes // (max(1, B.shape[0]) * 8)))
    for start in range(0, A.shape[0], rows):
        # distances in float64 even for float32 points: the penalty K - 2K' + K'' is a difference of
        # nearly equal terms, and |a|^2 + |b|^2 - 2 a.b loses ~|a|^2 eps32 to cancellation.
        D = _scaled_exponent(_sq_dists(A64[start:start + rows], B64), scale, sigma)
        for out, s, lf in zip(outs, times, log_front):
            out[start:start + rows] = np.exp(D / s + lf)
    return tuple(outs)


# ---------------------------------------------------------------------------
# G-RLS: predefined features, unisolvent anchors, kernel construction
# (Li, Lee & Leung, NIPS 2006, Section 3)
# ---------------------------------------------------------------------------

FEATURES = ("constant", "linear", "poly2")


def feature_map(X: ArrayLike, features: Literal["constant", "linear", "poly2"] = "constant") -> NDArray[np.floating]:
    r"""Evaluate predefined features :math:`\psi_1, \dots, \psi_q` on the rows of X.

    Parameters
    ----------
    X : array of shape (n, d)
    features : {"constant", "linear", "poly2"} or callable
        ``"constant"``: :math:`\psi = 1` (q = 1); ``"linear"``: :math:`1, x_1, \dots, x_d`
        (q = d + 1); ``"poly2"``: all monomials of degree <= 2,
        :math:`1, x_i, x_i x_j\ (i \le j)` (q = 1 + d + d(d+1)/2; the paper's
        1-D example uses :math:`1, x, x^2`).  A callable maps an (n, d) array to
        an (n, q) array, the same q for every input.

    Returns
    -------
    Psi : ndarray of shape (n, q)

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import feature_map
    >>> feature_map(np.array([[2.0, 3.0]]), "poly2")
    array([[1., 2., 3., 4., 6., 9.]])
    """
    X = check_points(X, "X")
    n, d = X.shape
    if callable(features):
        Psi = np.asarray(features(X))
        if Psi.ndim == 1:
            Psi = Psi[:, None]
        if Psi.ndim != 2 or Psi.shape[0] != n or Psi.shape[1] < 1:
            raise ValueError(f"the features callable must return an array of shape ({n}, q); got shape {Psi.shape}.")
        if not np.issubdtype(Psi.dtype, np.number) or not np.isfinite(Psi).all():
            raise ValueError("the features callable returned non-numeric, NaN or infinite values.")
        return Psi.astype(X.dtype, copy=False)
    check_option(features, "features", FEATURES)
    q = 1 if features == "constant" else 1 + d if features == "linear" else 1 + d + d * (d + 1) // 2
    # poly2 grows with d^2 (q = 308505 for 784 pixels): checked before it exists (the gathered factors X[:, i],
    # X[:, j] and their products, then the products and the stacked result: three times its size at the peak,
    # measured 2.94 at n = 2000, d = 100)
    # (constant / linear: the result and one column of ones, 1.04 times the result measured)
    memory_guard((3 if features == "poly2" else 1.1) * n * q * X.dtype.itemsize,
                 f"the {features} features of {n} points ({n} x {q})",
                 "use fewer points or 'linear' features (or reduce the dimension first).")
    ones = np.ones((n, 1), dtype=X.dtype)
    if features == "constant":
        return ones
    if features == "linear":
        return np.hstack([ones, X])
    i, j = np.triu_indices(d)
    with np.errstate(over="ignore", under="ignore"):
        products = X[:, i] * X[:, j]
    # the monomials themselves leave the dtype (no rescaling keeps a feature's value): say so, rather than
    # return inf features or zeros that the unisolvency test reports as dependent features
    if not np.isfinite(products).all():
        raise ValueError(f"the poly2 features x_i x_j of X overflow {X.dtype.name} (|x| up to "
                         f"{float(np.abs(X).max()):.3g}); rescale X (e.g. standardize it) or use 'linear' features.")
    # a feature column whose every nonzero product underflowed (a tiny entry here and there only loses
    # values below the smallest float, negligible next to the column's others)
    lost = ((products == 0) & (X[:, i] != 0) & (X[:, j] != 0)).any(axis=0) & ~products.any(axis=0)
    if lost.any():
        raise ValueError(f"the poly2 features x_i x_j of X underflow {X.dtype.name} to 0 for nonzero x (|x| as small "
                         f"as {float(np.abs(X[X != 0]).min()):.3g}); rescale X (e.g. standardize it)"
                         f"{' or use float64 points' if X.dtype != np.float64 else ''}.")
    return np.hstack([ones, X, products])


def unisolvent_points(Psi: ArrayLike, *, rtol: float = 1e-10) -> NDArray[np.integer]:
    r"""Indices of q points on which the q features are unisolvent, by pivoted QR.

    A set :math:`x_{a_1}, \dots, x_{a_q}` is unisolvent for
    :math:`\psi_1, \dots, \psi_q` when the q x q matrix
    :math:`[\psi_p(x_{a_r})]` is invertible (the condition behind the
    construction's Eq. 12).  Column-pivoted QR of :math:`\Psi^T` picks the
    points greedily so that this matrix is as well conditioned as a greedy
    choice can make it (LAPACK ``geqp3``); "the first q points" can be
    singular (e.g. repeated x) or nearly so.

    Parameters
    ----------
    Psi : array of shape (n, q)
        Features at the n candidate points.
    rtol : float in [0, 1), default=1e-10
        The features are declared not unisolvent (ValueError) when the last
        pivot :math:`|R_{qq}|` is below ``rtol`` :math:`|R_{11}|` — numerically
        rank-deficient at the level where solves lose about 10 digits.  (The
        pivots decrease, so ``rtol >= 1`` would refuse every ``Psi``: it is a
        ValueError.)

    Returns
    -------
    idx : ndarray of int, shape (q,)

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import unisolvent_points
    >>> x = np.array([0.0, 0.0, 1.0, 2.0])
    >>> sorted(unisolvent_points(np.column_stack([np.ones(4), x])).tolist()) != [0, 1]
    True
    """
    import scipy.linalg as sla

    # before the pivoted QR: NaN would reach LAPACK, complex lose its imaginary part
    Psi = check_matrix(Psi, "Psi", min_size=0, dtype=np.float64)
    # NaN (or a negative rtol) made the rank test below pass for any Psi, dependent features included
    # pivoted QR orders |R_11| >= |R_22| >= ...: with rtol >= 1 the test below refused every Psi, reported as
    # "numerical rank 0" with no word of rtol
    rtol = check_scalar(rtol, "rtol", low=0, high=1, high_inclusive=False)
    n, q = Psi.shape
    if q == 0:
        raise ValueError(f"Psi has shape {Psi.shape}: it needs at least one feature column (q >= 1).")
    if q > n:
        raise ValueError(
            f"features: {q} features cannot be unisolvent on {n} points; use at least q = {q} "
            "(labeled) points or fewer features."
        )
    # at unit column scale: unisolvency does not depend on the units of the features, but the rank test
    # below compares pivots across features (1, x, x^2 of points in micrometres differ by 1e12)
    R, piv = sla.qr(Psi.T / _feature_scales(Psi)[:, None], mode="r", pivoting=True)
    diag = np.abs(np.diag(R))
    if diag.size < q or diag[0] == 0 or diag[q - 1] <= rtol * diag[0]:
        rank = int(np.sum(diag > rtol * (diag[0] if diag.size and diag[0] > 0 else 1.0)))
        raise ValueError(
            f"features are not unisolvent on the given points: numerical rank {rank} < q = {q} "
            "(linearly dependent features, or too few distinct points). Remove dependent features "
            "or add points."
        )
    return np.sort(piv[:q])


def _feature_scales(Psi):
    """max |Psi[:, j]| per feature column, 1 for an all-zero column (a power of two: exact rescaling)."""
    return column_scales(Psi)


class GRLSKernel:
    r"""The G-RLS kernel construction (Li, Lee & Leung, NIPS 2006, Eqs. 10-13).

    Given features :math:`\psi_1..\psi_q`, a strictly positive definite
    :math:`\phi` and q unisolvent anchors :math:`x_{a_1}..x_{a_q}` (chosen
    by :func:`unisolvent_points` on ``X``), the Lagrange features
    :math:`\varphi = \psi\, \Psi_a^{-1}` satisfy :math:`\varphi_p(x_{a_r}) = \delta_{pr}`
    (Eqs. 12-13), and

    .. math::

        H(x, x') &= \phi(x, x') - \sum_p \varphi_p(x)\phi(x_{a_p}, x')
                   - \sum_q \varphi_q(x')\phi(x, x_{a_q})
                   + \sum_{p,q} \varphi_p(x)\varphi_q(x')\phi(x_{a_p}, x_{a_q}), \\
        K(x, x') &= H(x, x') + \sum_p \varphi_p(x)\varphi_p(x').

    K is positive definite, :math:`K_{x_{a_p}} = \varphi_p` (Eq. 14), :math:`H_{x_{a_p}} = 0`
    (Eq. 15) and the :math:`\varphi_p` are an orthonormal basis of
    :math:`H_0 = \mathrm{span}(\psi)` in :math:`H_K` (Eq. 18).

    Parameters
    ----------
    X : array of shape (n, d)
        Points the anchors are chosen from (the training points).
    features : {"constant", "linear", "poly2"} or callable, default="constant"
        See :func:`feature_map`.
    kernel, sigma, degree, coef0 :
        The base kernel :math:`\phi`, as in :func:`pairwise_kernel` (it must be
        strictly positive definite: "gaussian" or "heat").

    Attributes
    ----------
    anchors : ndarray of int, shape (q,)
        Row indices of the anchors in ``X``.
    anchor_points : ndarray of shape (q, d)

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import GRLSKernel
    >>> X = np.linspace(-5, 5, 11)[:, None]
    >>> K = GRLSKernel(X, features="poly2", sigma=1.0)
    >>> np.allclose(K(K.anchor_points), np.eye(3))        # orthonormal phi_p = K_{x_a}
    True
    """

    def __init__(self, X: ArrayLike, *, features: Literal["constant", "linear", "poly2"] = "constant",
                 kernel: KernelName = "gaussian",
                 sigma: float = 1.0, degree: int = 2, coef0: float = 1.0) -> None:
        import scipy.linalg as sla

        X = check_points(X, "X")
        if not callable(kernel):
            check_option(kernel, "kernel", KERNELS)
            if kernel not in ("gaussian", "heat"):
                # a linear / polynomial phi has a singular Gram on more than d (or C(d + degree, d)) points, so the
                # constructed K is only semi-definite, against Eqs. 10-18's strictly positive definite phi
                raise ValueError(f"GRLSKernel needs a strictly positive definite base kernel ('gaussian' or 'heat'); "
                                 f"got kernel={kernel!r}, whose Gram matrix is singular. Use kernel='gaussian' or "
                                 f"kernel='heat'.")
        self.features = features
        self.kernel = kernel
        self._kw = dict(kernel=kernel, sigma=sigma, degree=degree, coef0=coef0)
        Psi = feature_map(X, features)
        self.anchors = unisolvent_points(Psi)
        self.anchor_points = X[self.anchors]
        # phi = psi Psi_a^{-1} = (psi / s) (Psi_a / s)^{-1} with s the features' column scales (powers of two):
        # the LU of features in their own units lost the small ones (1 next to x^2 = 1e12)
        self._feature_scale = _feature_scales(np.asarray(Psi, dtype=np.float64))
        self._lu = sla.lu_factor(np.asarray(Psi[self.anchors], dtype=np.float64) / self._feature_scale)
        self._phi_aa = pairwise_kernel(self.anchor_points, None, **self._kw)

    def lagrange(self, A: ArrayLike) -> NDArray[np.floating]:
        r"""Lagrange features :math:`\varphi(A) = \psi(A)\,\Psi_a^{-1}`, shape (len(A), q)."""
        import scipy.linalg as sla

        A = check_points(A, "A")
        Psi_A = feature_map(A, self.features)
        q = self.anchors.size
        if Psi_A.shape[1] != q:
            # a features callable whose q depends on its input reached scipy's "Shapes of lu ... incompatible"
            raise ValueError(f"the features give {Psi_A.shape[1]} features on A but q = {q} on the training "
                             "points X; a features callable must return the same number of columns for every input.")
        # phi(A) Psi_a = psi(A)  <=>  Psi_a^T phi(A)^T = psi(A)^T
        return sla.lu_solve(self._lu, Psi_A.T.astype(np.float64) / self._feature_scale[:, None],
                            trans=1).T.astype(A.dtype, copy=False)

    def H(self, A: ArrayLike, B: ArrayLike | None = None) -> NDArray[np.floating]:
        """The kernel H of Eq. (11) between the rows of A and B (B=None: A)."""
        A = check_points(A, "A")
        B = A if B is None else check_points(B, "B")
        Pa, Pb = self.lagrange(A), self.lagrange(B)
        out = pairwise_kernel(A, B, **self._kw)
        out -= Pa @ pairwise_kernel(self.anchor_points, B, **self._kw)
        out -= pairwise_kernel(A, self.anchor_points, **self._kw) @ Pb.T
        out += Pa @ (self._phi_aa.astype(Pa.dtype) @ Pb.T)
        return out

    def __call__(self, A: ArrayLike, B: ArrayLike | None = None) -> NDArray[np.floating]:
        """The constructed kernel K of Eq. (10) between the rows of A and B (B=None: A)."""
        A = check_points(A, "A")
        B = A if B is None else check_points(B, "B")
        return self.H(A, B) + self.lagrange(A) @ self.lagrange(B).T
