r"""Evaluation of :math:`\varphi(L) X`: Chebyshev, Lanczos and exact (dense) filters.

Three ways to apply a spectral response :math:`\varphi` (see
:mod:`graphrkhs.filters`) to graph signals without -- except for the oracle --
forming :math:`\varphi(L)`:

* :func:`chebyshev_filter` -- a truncated Chebyshev series on
  :math:`[0, \lambda_{max}]`, one sparse product per degree, all signals of a
  block and all responses of a filter bank in one recurrence (Hammond,
  Vandergheynst & Gribonval 2011, "Wavelets on graphs via spectral graph
  theory"; Shuman, Vandergheynst & Frossard 2011).  The workhorse.
* :func:`lanczos_filter` -- :math:`\|x\| V_k \varphi(T_k) e_1` from a Krylov
  basis with full reorthogonalization (Gallopoulos & Saad 1992): adapts to the
  spectrum, the accurate choice for responses polynomials approximate badly.
* :func:`exact_filter` -- dense eigendecomposition, for small graphs and tests.

Chebyshev convention (shared with PyGSP): with :math:`y = 2\lambda/\lambda_{max} - 1`,

.. math::

    \varphi(\lambda) \approx \frac{c_0}{2} + \sum_{k=1}^{K} c_k T_k(y),
    \qquad c_k = \frac{2}{\pi}\int_0^\pi \varphi\Big(\frac{\lambda_{max}}{2}(\cos\theta + 1)\Big)\cos k\theta\, d\theta .

``lmax`` (the bound that defines the interval) is :func:`graphrkhs.lmax`,
which is guaranteed to lie above the spectrum: a bound below it would make the
polynomial blow up on the eigenvalues left outside.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from numpy.typing import ArrayLike, NDArray
from scipy import fft

from .._core.progress import _NoBar, progress_ticks
from .._core.backend import check_backend, prepare_operator
from .._core.linalg import operator_symmetry_rtol, reuses_operator_symmetry, symmetry_gap, symmetry_rtol
from .._core.types import Backend, MatrixOrOperator, Reorder, ResponseBank
from .._core.validation import (
    AccuracyWarning,
    check_scalar,
    check_signals,
    float_dtype,
    memory_guard,
    warn,
)
from .filters import _as_filter_bank
from ._lmax import _as_square_operator, check_given_lmax, check_psd_spectrum
from ._lmax import lmax as _lmax_bound

__all__ = [
    "chebyshev_coefficients",
    "chebyshev_order",
    "chebyshev_filter",
]

# Largest graph exact_filter factorizes by default: dense eigh of 5000 nodes
# takes ~20 s and 200 MB on two cores; beyond that use chebyshev/lanczos_filter.
EXACT_MAX_NODES = 5000
# Default cap on the automatically chosen Chebyshev degree.  Smooth responses
# need 10-100; a resolvent 1/(1 + alpha lambda) with alpha lmax ~ 10^4 needs
# ~1000, beyond which Lanczos (or a linear solver) is the better tool.
DEFAULT_MAX_ORDER = 1000
#: Hard upper limit on any Chebyshev degree (``order`` and ``max_order``).  A degree
#: above it means a response that polynomials cannot follow on [0, lmax] (or a typo):
#: 10^5 sparse products per signal, coefficients from 4 10^5 quadrature nodes; Lanczos
#: (``lanczos_filter``) or a linear solver is then the right tool.
MAX_ORDER_LIMIT = 100_000
# Grid on which the truncation error is measured (Chebyshev extrema; dense
# enough to resolve the error curve of series up to the default cap).
_ERROR_GRID = 4096
# Memory given to one batch of Lanczos bases (columns are processed in batches).
_LANCZOS_BATCH_BYTES = 2**30
DAMPINGS = (None, "jackson")
# A one-shot chebyshev_filter call reorders (reorder="auto") only when it runs at
# least this many column-products: RCM plus the permutation cost about 10-20
# sparse products, and reordering saves about 40% of a single-column product
# and 80% of a 16-column one (10^6-node 3-D kNN graph).
_REORDER_MIN_WORK = 64


# ---------------------------------------------------------------------------
# Coefficients
# ---------------------------------------------------------------------------

def _default_points(order):
    # 4(K+1) Chebyshev-Gauss nodes: the quadrature then aliases only
    # coefficients of degree > 7K, so the K+1 computed ones equal the series
    # coefficients to rounding for any response smooth enough to truncate.
    return max(4 * (order + 1), 64)


def _jackson(order):
    r"""Jackson damping factors :math:`g_k`, k = 0..K (Weisse, Wellein, Alvermann & Fehske 2006, Eq. 71)."""
    N = order + 1
    k = np.arange(N)
    q = np.pi / (N + 1)
    return ((N - k + 1) * np.cos(q * k) + np.sin(q * k) / np.tan(q)) / (N + 1)


def _coefficients(filters, order, lmax, n_points, damping):
    N = n_points
    theta = np.pi * (np.arange(N) + 0.5) / N
    lam = 0.5 * lmax * (np.cos(theta) + 1.0)
    F = np.empty((len(filters), N))
    for f, phi in enumerate(filters):  # a few responses of a bank
        with np.errstate(all="ignore"):
            F[f] = np.asarray(phi(lam), dtype=np.float64)
        if not np.isfinite(F[f]).all():
            raise ValueError(
                f"the response {phi!r} is not finite on [0, lmax] = [0, {lmax:g}]; a response must be finite "
                "on the whole spectrum interval."
            )
    # each response's samples in units of a power of two of their largest (exact): the DCT sums N samples, which
    # overflowed for a response of peak 1e306 on 260 nodes (RandomWalk(1e102, 3): NaN coefficients, the degree
    # search ended at max_order without a warning, and the filter returned NaN)
    e = np.frexp(np.abs(F).max(axis=1))[1][:, None]
    with np.errstate(over="ignore"):    # refused just below
        c = np.ldexp(fft.dct(np.ldexp(F, -e), type=2, axis=1)[:, : order + 1] / N, e)
    if not np.isfinite(c).all():
        f = int(np.flatnonzero(~np.isfinite(c).all(axis=1))[0])
        raise ValueError(
            f"the Chebyshev coefficients of the response {filters[f]!r} overflow float64 (its values on [0, lmax] "
            f"reach {np.abs(F[f]).max():.3g}); scale the response down (phi(L) is linear in phi).")
    if damping == "jackson":
        c *= _jackson(order)
    return c


def chebyshev_coefficients(phi: ResponseBank, order: int, lmax: float, *, n_points: int | None = None,
                           damping: Literal["jackson"] | None = None) -> NDArray[np.float64]:
    r"""Chebyshev coefficients of a response on :math:`[0, \lambda_{max}]`, by Chebyshev-Gauss quadrature.

    .. math::

        c_k = \frac{2}{N} \sum_{j=0}^{N-1} \varphi(\lambda_j) \cos\frac{\pi k (j + 1/2)}{N},
        \qquad \lambda_j = \frac{\lambda_{max}}{2}\Big(\cos\frac{\pi(j + 1/2)}{N} + 1\Big),

    a type-II DCT of the samples (:func:`scipy.fft.dct`), so that
    :math:`\varphi(\lambda) \approx c_0/2 + \sum_{k=1}^{K} c_k T_k(2\lambda/\lambda_{max} - 1)`
    (the convention of PyGSP's ``compute_cheby_coeff``; note the halved
    :math:`c_0`).  For the heat response :math:`e^{-t\lambda}` the exact series
    coefficients are :math:`c_k = 2(-1)^k e^{-t\lambda_{max}/2} I_k(t\lambda_{max}/2)`.

    Parameters
    ----------
    phi : filter, callable, or list of them
        A response (:mod:`graphrkhs.filters`) or a filter bank.
    order : int >= 0
        Degree K (K + 1 coefficients; K sparse products to apply).
    lmax : float > 0
        Upper end of the interval, an upper bound on the spectrum.
    n_points : int, optional
        Quadrature nodes N >= K + 1.  Default :math:`\max(4(K+1), 64)`: the
        quadrature aliases only degrees above 7K into the result, so the
        coefficients are the series' own to rounding for smooth responses
        (N = K + 1, PyGSP's choice, gives the interpolant instead).
    damping : {None, "jackson"}
        ``"jackson"`` multiplies :math:`c_k` by the Jackson kernel (Weisse et
        al. 2006, Rev. Mod. Phys. 78, Eq. 71), which removes Gibbs
        oscillations of non-smooth responses at the price of a slower,
        :math:`O(1/K)` approximation of smooth ones.

    Returns
    -------
    ndarray of shape (K + 1,), or (n_filters, K + 1) for a bank

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.special import ive
    >>> from graphrkhs import chebyshev_coefficients, filters
    >>> c = chebyshev_coefficients(filters.Heat(0.5), 10, 4.0)
    >>> k = np.arange(11)
    >>> bool(np.allclose(c, 2 * (-1.0) ** k * ive(k, 1.0), rtol=0, atol=1e-14))
    True
    """
    filters, is_bank = _as_filter_bank(phi)
    order = _check_order_limit(check_scalar(order, "order", kind="int", low=0), "order")
    lmax = check_scalar(lmax, "lmax", low=0, low_inclusive=False)
    if n_points is None:
        n_points = _default_points(order)
    n_points = check_scalar(n_points, "n_points", kind="int", low=order + 1)
    if damping not in DAMPINGS:
        raise ValueError(f"damping must be None or 'jackson'; got {damping!r}.")
    # the samples, their DCT and its copy: three arrays of n_points numbers per response
    memory_guard(3 * 8 * len(filters) * n_points, f"the Chebyshev quadrature on n_points={n_points} nodes",
                 "pass a smaller n_points (the default 4 (order + 1) is exact to rounding for smooth responses).")
    c = _coefficients(filters, order, lmax, n_points, damping)
    return c if is_bank else c[0]


def _grid_errors(c, filters, lmax, x, values, scale):
    """Relative max error on the grid x (in [-1, 1]) of every truncation degree 0..K (undamped)."""
    K = c.shape[1] - 1
    T = np.cos(np.outer(np.arccos(x), np.arange(K + 1)))  # (G, K+1)
    err = np.zeros(K + 1)
    for f in range(len(filters)):  # a few responses of a bank
        terms = T * c[f]
        terms[:, 0] *= 0.5
        partial = np.cumsum(terms, axis=1)
        partial -= values[f][:, None]
        err = np.maximum(err, np.abs(partial).max(axis=0) / scale[f])
    return err


def _series_error(c, x, values, scale):
    """Relative max error on the grid x (in [-1, 1]) of the series with coefficients c (damped or not)."""
    T = np.cos(np.outer(np.arccos(x), np.arange(c.shape[1])))
    c = c.copy()
    c[:, 0] *= 0.5
    approx = c @ T.T
    return float((np.abs(approx - values).max(axis=1) / scale).max())


def _damped_error(filters, order, lmax, n_points, x, values, scale):
    return _series_error(_coefficients(filters, order, lmax, n_points, "jackson"), x, values, scale)


def _error_grid(filters, lmax):
    """The grid x (Chebyshev extrema in [-1, 1]) of the error estimates, the responses' values there and their
    scales (max |phi|)."""
    x = np.cos(np.linspace(0.0, np.pi, _ERROR_GRID))
    lam = 0.5 * lmax * (x + 1.0)
    values = np.empty((len(filters), x.size))
    for f, phi in enumerate(filters):
        with np.errstate(all="ignore"):
            values[f] = phi(lam)
        if not np.isfinite(values[f]).all():
            raise ValueError(f"the response {phi!r} is not finite on [0, lmax] = [0, {lmax:g}].")
    scale = np.abs(values).max(axis=1)
    scale[scale == 0] = 1.0
    return x, values, scale


def _order_error(filters, order, lmax, damping=None):
    """``(error, c)``: the relative max error on [0, lmax] of the series of degree ``order`` (the estimate of
    :func:`_auto_order`, on the same grid and coefficients) and those coefficients, which the filter then
    applies (the response is sampled once on the quadrature nodes)."""
    x, values, scale = _error_grid(filters, lmax)
    c = _coefficients(filters, order, lmax, _default_points(order), damping)
    if damping == "jackson":
        return _series_error(c, x, values, scale), c
    return float(_grid_errors(c, filters, lmax, x, values, scale)[order]), c


def _auto_order(filters, lmax, tol, max_order, damping=None):
    """Lowest degree whose relative max error on [0, lmax] is below tol: (order, error, n_points, coefficients).

    The coefficients are those of the returned degree on ``n_points`` quadrature nodes, the ones whose error
    was measured (the undamped search truncates the series of a higher degree: with the same nodes the
    truncation is exactly the lower-degree series, so nothing is computed twice)."""
    x, values, scale = _error_grid(filters, lmax)
    if damping == "jackson":
        # Damped series are not nested: search degrees by doubling, then bisection.
        def err(K):
            return _damped_error(filters, K, lmax, _default_points(K), x, values, scale)

        def result(K):
            c = _coefficients(filters, K, lmax, _default_points(K), "jackson")
            return K, _series_error(c, x, values, scale), _default_points(K), c
        # degree 0 first: the doubling below starts at 1, which gave a constant response degree 1 and
        # max_order=0 a degree-1 series when that one met tol
        if err(0) <= tol or max_order == 0:
            return result(0)
        hi = 1
        while hi < max_order and err(hi) > tol:
            hi = min(2 * hi, max_order)
        if err(hi) > tol:
            return result(max_order)
        lo = hi // 2
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if err(mid) <= tol:
                hi = mid
            else:
                lo = mid
        return result(hi)
    M = min(max_order, 64)
    while True:
        n_points = _default_points(M)
        c = _coefficients(filters, M, lmax, n_points, None)
        errors = _grid_errors(c, filters, lmax, x, values, scale)
        # The grid samples the error curve; keep a factor 2 of margin for peaks between samples.
        ok = np.flatnonzero(errors <= 0.5 * tol)
        if ok.size:
            K = int(ok[0])
            return K, float(errors[K]), n_points, c[:, :K + 1]
        if M >= max_order:
            return max_order, float(errors[-1]), n_points, c
        M = min(4 * M, max_order)


def chebyshev_order(phi: ResponseBank, lmax: float, tol: float = 1e-8, *, max_order: int = DEFAULT_MAX_ORDER,
                    damping: Literal["jackson"] | None = None) -> int:
    r"""Lowest Chebyshev degree whose relative max error on :math:`[0, \lambda_{max}]` is below ``tol``.

    The error of degree K is measured on a grid of 4096 Chebyshev extrema as
    :math:`\max |\varphi - p_K| / \max |\varphi|` with a safety factor 2 for
    peaks between grid points; for a bank, the largest over its responses.

    Parameters
    ----------
    phi : filter, callable or list of them
    lmax : float > 0
    tol : float > 0, default=1e-8
        Relative accuracy (1e-8: far below statistical noise, and still
        reachable in float64 arithmetic after a few hundred steps).
    max_order : int >= 0, default=1000
        Cap; an :class:`~graphrkhs.AccuracyWarning` says when it is reached
        without meeting ``tol``.
    damping : {None, "jackson"}

    Returns
    -------
    int

    Examples
    --------
    >>> from graphrkhs import chebyshev_order, filters
    >>> chebyshev_order(filters.RandomWalk(3.0, 4), 2.0)   # a polynomial of degree 4
    4
    >>> 10 < chebyshev_order(filters.Heat(1.0), 10.0, 1e-8) < 40
    True
    """
    filters, _ = _as_filter_bank(phi)
    lmax = check_scalar(lmax, "lmax", low=0, low_inclusive=False)
    tol = check_scalar(tol, "tol", low=0, low_inclusive=False)
    max_order = _check_order_limit(check_scalar(max_order, "max_order", kind="int", low=0), "max_order")
    if damping not in DAMPINGS:
        raise ValueError(f"damping must be None or 'jackson'; got {damping!r}.")
    _guard_filter_memory(len(filters), None, max_order)
    order, error, _, _ = _auto_order(filters, lmax, tol, max_order, damping)
    if error > tol:
        _warn_order(filters, order, error, tol, damping)
    return order


def _warn_order(filters, order, error, tol, damping):
    if damping == "jackson":
        # already damped: its error decays only like 1/order (it trades accuracy for no Gibbs overshoot)
        other = ("or damping=None for a smooth response (Jackson damping bounds the overshoot but "
                 "converges only like 1/order).")
    else:
        other = "or damping='jackson' for a non-smooth response."
    warn(
        f"the Chebyshev approximation of {', '.join(map(repr, filters))} reaches a relative error of "
        f"{error:.2e} at the maximum order {order}, above tol={tol:g}; raise max_order, use "
        f"lanczos_filter / method='lanczos' (adapts to the spectrum), {other}",
        AccuracyWarning,
    )


# ---------------------------------------------------------------------------
# Chebyshev filtering
# ---------------------------------------------------------------------------

def _check_X(X, n, name="X"):
    if np.iscomplexobj(X):
        raise TypeError(f"{name} must be real; got complex dtype {np.asarray(X).dtype}.")
    return check_signals(X, n, name)


def _check_L(L, name="L"):
    L = _as_square_operator(L, name)
    if not isinstance(L, spla.LinearOperator):
        if np.issubdtype(L.dtype, np.complexfloating):
            raise TypeError(f"{name} must be real; got dtype {L.dtype}.")
        if not sp.issparse(L):
            L = sp.csr_array(L)
    return L


def _check_order_limit(value, name):
    if value is not None and value > MAX_ORDER_LIMIT:
        raise ValueError(
            f"{name}={value} is above the limit of {MAX_ORDER_LIMIT} on Chebyshev degrees: that many sparse "
            f"products per signal, and {4 * (value + 1) * 8 / 2**20:.0f} MiB per response for the coefficients "
            "alone. A response that needs such a degree is not smooth on [0, lmax]; use lanczos_filter "
            "(method='lanczos'), a linear solver for resolvents 1/(1 + a lambda), or damping='jackson'."
        )
    return value


def _filter_bytes(n_filters, order, max_order, n=0, m=0, itemsize=8, nnz=0):
    """Peak bytes of a Chebyshev filter call, known before any allocation.

    Coefficients: samples and DCT of ``4 (K + 1)`` quadrature nodes per response
    (three arrays); degree search: three (4096, K + 1) arrays of the truncation
    errors for K up to ``max_order`` (a given order: up to it; the search of its accuracy
    warning is guarded where it runs); recurrence, in (n, m) blocks: the
    checked copy of the signal, the signal in internal order and its power-of-two scaled
    copy, two work blocks, SciPy's product L b and one temporary of the step's sums (7;
    Clenshaw's result is a work block), and for a bank of F responses its F results and
    their copy in the user's node order (2 F + 7; ``F + 2`` had been counted, half the
    peak tracemalloc measured); plus the prepared copy of L's ``nnz`` entries.
    """
    K = max_order if order is None else order
    coef = 3 * 8 * n_filters * _default_points(K)
    # a given order's error is measured on the same grid (2.8 MiB at order=20 had been counted as 0); the search up
    # to max_order of its accuracy warning runs only above tol, and is guarded there (_warn_given_order)
    search = 3 * 8 * _ERROR_GRID * (K + 1)
    blocks = 7 if n_filters == 1 else 2 * n_filters + 7
    recurrence = blocks * n * m * itemsize + (nnz * (itemsize + 8) + 8 * (n + 1) if n else 0)
    return coef + search + recurrence


def _guard_filter_memory(n_filters, order, max_order, n=None, m=None, itemsize=8, nnz=0):
    K = max_order if order is None else order
    degree = f"degree {'up to ' if order is None else ''}{K} with {n_filters} response(s)"
    if n is None:
        # the coefficients alone (chebyshev_order / chebyshev_plan): no signal is known yet, and the message
        # said "on 0 signal(s) of 0 nodes"
        memory_guard(_filter_bytes(n_filters, order, max_order),
                     f"the Chebyshev coefficients of {degree}" + (" (the degree search)" if order is None else ""),
                     "lower order / max_order, or pass fewer responses at a time.")
        return
    memory_guard(_filter_bytes(n_filters, order, max_order, n, m, itemsize, nnz),
                 f"a Chebyshev filter of {degree} on {m} signal(s) of {n} nodes",
                 "lower order / max_order, filter fewer signals at a time, or use lanczos_filter.")


def _check_common(order, tol, max_order, damping, reorder, backend):
    order = _check_order_limit(check_scalar(order, "order", kind="int", low=0, allow_none=True), "order")
    tol = check_scalar(tol, "tol", low=0, low_inclusive=False)
    max_order = _check_order_limit(check_scalar(max_order, "max_order", kind="int", low=0), "max_order")
    if damping not in DAMPINGS:
        raise ValueError(f"damping must be None or 'jackson'; got {damping!r}.")
    if reorder not in ("auto", True, False):
        raise ValueError(f"reorder must be 'auto', True or False; got {reorder!r}.")
    check_backend(backend)
    return order, tol, max_order


def _symmetric(L, dtype=None):
    """Symmetry to the rounding of L's dtype (a float32 normalized Laplacian is symmetric to ~1e-7 only); a
    LinearOperator by the dot test of :func:`~graphrkhs._core.linalg.symmetry_gap`."""
    dtype = np.dtype(L.dtype if dtype is None else dtype)
    rtol = operator_symmetry_rtol(dtype) if isinstance(L, spla.LinearOperator) else symmetry_rtol(dtype)
    gap, scale = symmetry_gap(L, "L")       # a NaN gap (NaN entries) is not symmetric
    return gap <= rtol * scale


def _resolve_lmax(L, lmax, given=None):
    """``given``: the dtype L's entries were given in when L is a cast of them (its rounding level)."""
    if lmax is None:
        given = L.dtype if given is None else given
        if not isinstance(L, spla.LinearOperator) and np.dtype(L.dtype) == np.float32 and _symmetric(L):
            # graphrkhs.lmax checks symmetry at float64 precision: give it the exactly symmetric part.
            L64 = sp.csr_array(L, dtype=np.float64)
            L = sp.csr_array((L64 + L64.T) * 0.5)
        bound = float(_lmax_bound(L))   # 0.0 for the zero matrix: phi(L) = phi(0) I, exact at degree 0
        check_psd_spectrum(L, bound, dtype=given)   # free for combinatorial Laplacians (Gershgorin)
        return bound
    lmax = check_scalar(lmax, "lmax", low=0, low_inclusive=False)
    return check_given_lmax(L, lmax)


def _compute_dtype(L, X):
    return float_dtype(np.result_type(L.dtype, X.dtype))


def _column_peaks(X):
    """max_i |x_ij| per column j, without a temporary of X's size.

    On every filter call (the gate of :func:`_column_exponents`), so it is kept cheap: numpy reduces
    a C-ordered (n, m) block along axis 0 about 10x slower than flat, so the rows are grouped into
    rows of about 4096 entries first (a view) and reduced twice; 3 ms for 200000 x 16 against 12 ms."""
    n, m = X.shape
    if not X.flags.c_contiguous or m == 0 or n == 0:
        return np.maximum(X.max(axis=0, initial=-np.inf), -X.min(axis=0, initial=np.inf))
    r = max(1, 4096 // m)
    q = (n // r) * r
    wide = X[:q].reshape(-1, r * m)
    hi = wide.max(axis=0, initial=-np.inf).reshape(r, m).max(axis=0)
    lo = wide.min(axis=0, initial=np.inf).reshape(r, m).min(axis=0)
    if q < n:
        hi, lo = np.maximum(hi, X[q:].max(axis=0)), np.minimum(lo, X[q:].min(axis=0))
    return np.maximum(hi, -lo)


def _column_exponents(X, dtype, lmax=None):
    r"""Powers of two e_j to scale the columns of ``X`` by before the recurrence (``np.ldexp(X, -e)``), or None.

    The recurrence's blocks exceed :math:`\max |x|` (Clenshaw's :math:`b_k` by up to
    :math:`\sum_k (k+1) |c_k|`), so a signal within :math:`2^{64}` of the largest float overflows
    inside it although :math:`\varphi(L) x` is finite; one within :math:`2^{64}` of the smallest
    normal one loses bits in subnormals.  The products :math:`L b_k` reach :math:`\lambda_{max} \max|x|`:
    with ``lmax`` given, a column whose peak times ``lmax`` is that close to either end is scaled too
    (a Laplacian of weights 1e200 and a signal of 1e150 gave NaN: the products overflowed, with weights
    1e-200 and a signal of 1e-150 they underflowed and the result was 3.5 times off).  Only then are the
    columns scaled, to a peak of about :math:`\lambda_{max}^{-1/2}` (products about
    :math:`\lambda_{max}^{1/2}`, both far from the ends), by ``np.ldexp(X, -e)`` (exact) and the result by
    ``np.ldexp(Y, e)``: :math:`\varphi(L)` is linear.
    """
    if X.size == 0:
        return None
    info = np.finfo(dtype)
    hi, lo = float(info.max) * 2.0 ** -64, float(info.tiny) * 2.0 ** 64
    peak = _column_peaks(X).astype(np.float64)
    edge = (peak > hi) | ((peak > 0) & (peak < lo))
    half = 0
    if lmax is not None and float(lmax) > 0:
        with np.errstate(over="ignore", under="ignore"):
            reach = peak * float(lmax)          # inf or 0 beyond float64's range: an edge too
        edge |= (reach > hi) | ((peak > 0) & (reach < lo))
        half = int(np.frexp(float(lmax))[1]) // 2
    if not edge.any():
        return None
    return np.where(edge, np.frexp(peak)[1] + half, 0).astype(np.int64)


def _clenshaw_dense(op, c, a, b, X, bar=_NoBar()):
    r"""Clenshaw's recurrence for one response on a dense block, in two work blocks.

    :math:`b_k = c_k X + 2\tilde L b_{k+1} - b_{k+2}` with
    :math:`\tilde L = aL + bI`, :math:`b_{K+1} = b_{K+2} = 0`, and
    :math:`y = \tfrac{c_0}{2} X + \tilde L b_1 - b_2`.  While
    :math:`b_{k+1}` or :math:`b_{k+2}` is still a multiple :math:`s X` of the
    input (:math:`b_K = c_K X`), it is never stored: :math:`\tilde L (sX)`
    is a step on X with the matrix scaled by s, and :math:`-sX` folds into
    the step's :math:`\gamma X` term.  So the first steps need no zero fill
    and no scaled copy of X -- two block passes saved.
    """
    K = c.size - 1
    dtype = op.dtype
    if K == 0:
        return np.multiply(X, dtype.type(c[0] / 2), dtype=dtype)
    # each of b_{k+1}, b_{k+2}: (buffer, 0.0) or (None, s) meaning s X
    b1, b2 = (None, float(c[K])), (None, 0.0)
    for k in range(K - 1, -1, -1):
        alpha, ck = (2.0, c[k]) if k else (1.0, c[0] / 2)
        buf1, s1 = b1
        buf2, s2 = b2
        cur, scale = (X, s1) if buf1 is None else (buf1, 1.0)
        if buf2 is None:   # the first two steps only: two work blocks in all
            out = np.empty(X.shape, dtype=dtype)
            beta, gamma = 0.0, ck - s2
        else:
            out = buf2
            beta, gamma = -1.0, ck
        op.step(a * scale, b * scale, alpha, beta, gamma, cur, out, X)
        b1, b2 = (out, 0.0), b1
        bar.tick()
    return b1[0]


def _chebyshev_apply(op, coefs, lmax, X=None, indicator=None):
    r"""Apply :math:`\sum'_k c_{f,k} T_k(\tilde L)` to a block, in the prepared operator's order.

    ``coefs`` has shape (F, K+1); ``X`` is an (n, m) block in internal order,
    or ``indicator = (rows, m)`` stands for the block :math:`E` with
    :math:`E_{rows[j], j} = 1` (never formed for a single response).  Returns
    (F, n, m) in internal order.  One response runs Clenshaw's recurrence
    (:math:`b_k = c_k X + 2\tilde L b_{k+1} - b_{k+2}`: four block passes per
    step), a bank the forward recurrence with fused accumulation.
    """
    dtype = op.dtype
    F, K1 = coefs.shape
    K = K1 - 1
    n = op.shape[0]
    # lmax = 0 only for L = 0 (graphrkhs.lmax of a graph without edges): 2L/lmax - I is then -I.
    a, b = (2.0 / lmax if lmax > 0 else 0.0), -1.0
    if indicator is not None and F > 1:
        rows, m = indicator
        X = np.zeros((n, m), dtype=dtype)
        X[rows, np.arange(m)] = 1
        indicator = None
    m = indicator[1] if indicator is not None else X.shape[1]
    coefs = coefs.astype(dtype)
    same = getattr(op, "check_same_inputs", None)
    if same is not None:
        # a distributed operator (graphrkhs.distributed.DistributedCSR): every rank must run this recurrence,
        # of the same degree (a tol, order or lmax differing between ranks left one rank waiting for the others)
        same("a Chebyshev filter of backend='mpi'", {"coefficients (from phi, order, tol and lmax)": coefs,
                                                      "lmax": float(lmax)})
    # One tick per sparse product on the block (K in all); the bar redraws every K/100 of them,
    # so the recurrence pays one integer addition per step for it (nothing when progress is off).
    desc = f"Chebyshev degree {K}, {m} signal(s)" + (f", {F} responses" if F > 1 else "")
    with (progress_ticks(total=K, desc=desc, unit="step") if K else _NoBar()) as bar:
        return _chebyshev_recurrence(op, coefs, a, b, X, indicator, bar)


def _chebyshev_recurrence(op, coefs, a, b, X, indicator, bar):
    """The body of :func:`_chebyshev_apply` (same arguments, scaled: ``a``, ``b``), ticking ``bar``."""
    dtype = op.dtype
    F, K1 = coefs.shape
    K = K1 - 1
    n = op.shape[0]
    if indicator is not None:
        rows, m = indicator
        cols = np.arange(m)
    else:
        m = X.shape[1]

    def add_cX(out, ck):
        # the indicator block's c_k E term, by a scatter (a dense X enters through gamma)
        out[rows, cols] += ck

    if F == 1 and indicator is None:
        return _clenshaw_dense(op, coefs[0], a, b, X, bar)[None]
    if F == 1:
        c = coefs[0]
        if K == 0:
            Y = np.zeros((n, m), dtype=dtype)
            Y[rows, cols] = c[0] / 2
            return Y[None]
        b1 = np.zeros((n, m), dtype=dtype)  # b_K = c_K E
        b1[rows, cols] = c[K]
        b2 = np.empty((n, m), dtype=dtype)  # b_{K+1} = 0 (beta=0 below never reads it)
        first = True
        for k in range(K - 1, 0, -1):
            op.step(a, b, 2.0, 0.0 if first else -1.0, 0.0, b1, b2, X)
            add_cX(b2, c[k])
            b1, b2 = b2, b1
            first = False
            bar.tick()
        # y = c_0/2 E + L~ b_1 - b_2
        op.step(a, b, 1.0, 0.0 if first else -1.0, 0.0, b1, b2, X)
        add_cX(b2, c[0] / 2)
        bar.tick()
        return b2[None]
    # Filter bank: forward recurrence, R_f += c_{f,k} T_k fused into each step.
    R = np.empty((F, n, m), dtype=dtype)
    for f in range(F):
        np.multiply(X, coefs[f, 0] / 2, out=R[f])
    if K == 0:
        return R
    t_prev = np.array(X, dtype=dtype, copy=True)  # T_0 (overwritten by T_2)
    t_cur = np.empty((n, m), dtype=dtype)
    op.step(a, b, 1.0, 0.0, 0.0, t_prev, t_cur, None, np.ascontiguousarray(coefs[:, 1]), R)
    bar.tick()
    for k in range(2, K + 1):
        op.step(a, b, 2.0, -1.0, 0.0, t_cur, t_prev, None, np.ascontiguousarray(coefs[:, k]), R)
        t_prev, t_cur = t_cur, t_prev
        bar.tick()
    return R


def _prepare_coefficients(filters, order, tol, lmax, damping, max_order):
    _guard_filter_memory(len(filters), order, max_order)
    if order is not None:
        error, c = _order_error(filters, order, lmax, damping)      # the coefficients it measured
        if error > tol:
            _warn_given_order(filters, order, error, tol, lmax, damping, max_order)
        return c, order
    order, error, _, c = _auto_order(filters, lmax, tol, max_order, damping)
    if error > tol:
        _warn_order(filters, order, error, tol, damping)
    return c, order


def _warn_given_order(filters, order, error, tol, lmax, damping, max_order):
    """An explicit ``order`` whose estimated error is above ``tol``: an AccuracyWarning naming the error and the
    order that meets tol (the automatic one, :func:`_auto_order`), or that ``max_order`` does not suffice."""
    try:
        # the degree search up to max_order (three (4096, max_order + 1) arrays), which the filter's own memory
        # estimate leaves out: it runs only for this warning
        memory_guard(3 * 8 * _ERROR_GRID * (max_order + 1), "", "")
    except MemoryError:
        warn(f"the Chebyshev series of {', '.join(map(repr, filters))} at the given order={order} has an estimated "
             f"relative error of {error:.2e} on [0, lmax], above tol={tol:g} (the search for the order that meets "
             f"it, up to max_order={max_order}, would not fit in memory: lower max_order).  Pass the tol this order "
             "is meant to meet to silence this.", AccuracyWarning)
        return
    needed, needed_error, _, _ = _auto_order(filters, lmax, tol, max_order, damping)
    if needed_error <= tol:
        fix = f"order {needed} meets tol={tol:g} (order=None chooses it)"
    else:
        fix = (f"max_order={max_order} does not suffice for tol={tol:g} (error {needed_error:.2e} there): use "
               "lanczos_filter / method='lanczos'" + (", or damping='jackson' for a non-smooth response"
                                                       if damping is None else ""))
    warn(f"the Chebyshev series of {', '.join(map(repr, filters))} at the given order={order} has an estimated "
         f"relative error of {error:.2e} on [0, lmax], above tol={tol:g}; {fix}.  Pass the tol this order is "
         "meant to meet to silence this.", AccuracyWarning)


@reuses_operator_symmetry
def chebyshev_filter(L: MatrixOrOperator, phi: ResponseBank, X: ArrayLike, order: int | None = None,
                     tol: float = 1e-8, lmax: float | None = None, *, damping: Literal["jackson"] | None = None,
                     max_order: int = DEFAULT_MAX_ORDER, reorder: Reorder = "auto",
                     backend: Backend = "auto") -> NDArray[np.floating]:
    r"""Apply :math:`\varphi(L)` to graph signals by a truncated Chebyshev series.

    .. math::

        \varphi(L) X \approx \frac{c_0}{2} X + \sum_{k=1}^{K} c_k T_k(\tilde L) X,
        \qquad \tilde L = \frac{2}{\lambda_{max}} L - I,

    with the coefficients of :func:`chebyshev_coefficients`.  A single response
    runs Clenshaw's backward recurrence, a filter bank the forward three-term
    recurrence :math:`T_{k+1} = 2\tilde L T_k - T_{k-1}` shared by all its
    responses; either way K sparse products on the whole (n, m) block, fused
    with the vector updates into one row-parallel compiled pass per degree
    and two reused buffers (no allocation per step).  If
    :math:`|\varphi - p_K| \le \epsilon \max|\varphi|` on
    :math:`[0, \lambda_{max}]`, then :math:`\|\varphi(L) x - p_K(L) x\|_2 \le
    \epsilon \max|\varphi| \|x\|_2` for symmetric L.

    Parameters
    ----------
    L : sparse matrix, ndarray or LinearOperator of shape (n, n)
        A Laplacian with real spectrum in :math:`[0, \lambda_{max}]`.  With
        ``lmax=None`` it must be symmetric (the bound on its spectrum needs it;
        otherwise ``ValueError``; a LinearOperator is tested by one product
        with 8 fixed vectors, :math:`x^T L y = y^T L x`); with a given ``lmax`` symmetry is not checked,
        and the random-walk Laplacian works too, with ``lmax`` of the normalized one.
    phi : filter, callable, or list of them
        The response (:mod:`graphrkhs.filters`), or a filter bank.
    X : array-like of shape (n,) or (n, m)
        Signals (columns).
    order : int >= 0, optional
        Degree K.  None picks the lowest degree whose relative max error on
        :math:`[0, \lambda_{max}]` is below ``tol`` (:func:`chebyshev_order`).
    tol : float > 0, default=1e-8
        Relative accuracy for ``order=None``; a given ``order`` whose estimated
        error is above it gets an :class:`~graphrkhs.AccuracyWarning` naming the
        error and the order that meets ``tol`` (pass the ``tol`` a low order is
        meant to meet).
    lmax : float > 0, optional
        Upper bound on the spectrum; None computes :func:`graphrkhs.lmax` (a
        guaranteed bound; 0 for a graph without edges, where the result is
        :math:`\varphi(0) X` exactly).  A given value is checked by 20
        Lanczos steps: a Rayleigh quotient above it proves it wrong
        (``ValueError``; the series would diverge on the eigenvalues above it).
    damping : {None, "jackson"}
        See :func:`chebyshev_coefficients`.
    max_order : int, default=1000
        Cap for ``order=None`` (an :class:`~graphrkhs.AccuracyWarning` when hit).
        ``order`` and ``max_order`` are limited to ``MAX_ORDER_LIMIT`` (10^5),
        and the memory of the call (coefficients, degree search, recurrence
        blocks) is estimated before any allocation: a ``MemoryError`` names
        the estimate when it exceeds 3/4 of the machine's memory.
    reorder : {"auto", True, False}, default="auto"
        Renumber the nodes by reverse Cuthill-McKee for the products (results
        come back in the given order).  ``"auto"`` does it from 20000 nodes
        when the given order is not already local and the call runs at least
        64 column-products (degree + 1 times the number of signals; a known
        order is needed, so ``order=None`` reorders); reuse the work across
        calls with :class:`~graphrkhs.GraphKernel`, which caches it.
    backend : {"auto", "numpy", "mpi", "dask", "numba", "scipy"}, default="auto"
        Where the products run (:mod:`graphrkhs._core.backend`): ``"numpy"``
        serially (the compiled fused kernel on all cores, SciPy's product for
        tiny blocks with n m < 20000; ``"numba"`` / ``"scipy"`` force one of
        them); ``"mpi"`` on the rows of a METIS partition per MPI rank
        (:mod:`graphrkhs.distributed`; run the script under ``mpiexec``, every
        rank gets the full result); ``"dask"`` on the workers of a Dask
        client.  ``"auto"``: MPI under ``mpiexec`` with more than one rank,
        Dask with an active client, else serial.  The distributed backends
        give the serial result to rounding (the same recurrence on the same
        coefficients and ``lmax``).

    Returns
    -------
    ndarray of shape X.shape, or (n_filters,) + X.shape for a bank
        float32 when L and X are float32, float64 otherwise.

    Notes
    -----
    In float32 the recurrence adds rounding errors of about K times float32's
    epsilon to the approximation error: ``tol`` below ~1e-6 buys nothing there.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import chebyshev_filter, exact_filter, filters, laplacian
    >>> W = np.diag(np.ones(9), 1); W = W + W.T            # path on 10 nodes
    >>> L = laplacian(W)
    >>> x = np.random.default_rng(0).normal(size=10)
    >>> y = chebyshev_filter(L, filters.Heat(0.7), x, tol=1e-10)
    >>> bool(np.abs(y - exact_filter(L, filters.Heat(0.7), x)).max() < 1e-9)
    True
    """
    filters, is_bank = _as_filter_bank(phi)
    L = _check_L(L)
    n = L.shape[0]
    X2, was_1d = _check_X(X, n)
    order, tol, max_order = _check_common(order, tol, max_order, damping, reorder, backend)
    dtype = _compute_dtype(L, X2)
    _guard_filter_memory(len(filters), order, max_order, n, X2.shape[1], dtype.itemsize,
                         0 if isinstance(L, spla.LinearOperator) else L.nnz)
    if lmax is not None:
        lmax = check_scalar(lmax, "lmax", low=0, low_inclusive=False)
        coefs, order = _prepare_coefficients(filters, order, tol, lmax, damping, max_order)
        check_given_lmax(L, lmax)   # products with L only after every cheap check
    elif not _symmetric(L):     # a LinearOperator too (symmetry_gap's dot test)
        # lmax's own refusal assumed a random-walk Laplacian and named a function not called here
        raise ValueError(
            "chebyshev_filter needs a symmetric L to bound its spectrum (lmax=None); L is not symmetric.  Pass a "
            "symmetric Laplacian: the combinatorial one, laplacian(W), or the symmetric normalized one, "
            "laplacian(W, 'normalized'); or, for an L with a real spectrum in [0, lmax], pass lmax.")
    if reorder == "auto" and order is not None and (order + 1) * X2.shape[1] < _REORDER_MIN_WORK:
        reorder = False  # a one-shot call too short to win back the reordering
    op = prepare_operator(L, dtype, reorder, backend, "chebyshev_filter")
    if lmax is None:
        # Same spectrum in any node order; Lanczos products are cheaper on the reordered matrix.
        # op.L is L cast to the compute dtype: a float32 L filtering a float64 X was checked at float64's
        # rounding level, and its Rayleigh quotient of -3.6e-8 (float32 rounding) refused as a negative eigenvalue
        lmax = _resolve_lmax(op.L if op.is_matrix else L, None, L.dtype)
        coefs, order = _prepare_coefficients(filters, order, tol, lmax, damping, max_order)
    # the whole X on every process (also under a distributed backend): the same column scales everywhere
    exps = _column_exponents(X2, dtype, lmax)
    if exps is not None:
        X2 = np.ldexp(X2.astype(dtype), -exps)
    Xi = op.to_internal(X2)
    Y = op.to_user(_chebyshev_apply(op, coefs, lmax, Xi))
    if exps is not None:
        Y = np.ldexp(Y, exps).astype(dtype, copy=False)
    if was_1d:
        Y = Y[:, :, 0]
    return Y if is_bank else Y[0]


# ---------------------------------------------------------------------------
# Lanczos
# ---------------------------------------------------------------------------


# ---------------------------------------------------------------------------
# Exact (dense) filtering
# ---------------------------------------------------------------------------


