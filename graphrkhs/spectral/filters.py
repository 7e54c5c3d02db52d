r"""Spectral responses :math:`\varphi(\lambda)` that define graph kernels :math:`\Phi = \varphi(L)`.

A graph kernel is a function of the Laplacian: with :math:`L = U \Lambda U^T`,
:math:`\Phi = U \varphi(\Lambda) U^T`, and the graph RKHS :math:`\mathcal H_\varphi`
has the norm :math:`\|f\|^2 = \sum_l \hat f(l)^2 / \varphi(\lambda_l)` (Pena 2017,
"Transductive learning & RKHS on graphs"; Smola & Kondor 2003, "Kernels and
regularization on graphs", COLT).  :math:`\Phi` is positive definite exactly
when :math:`\varphi > 0` on the spectrum, which :meth:`Filter.is_positive`
checks on the interval :math:`[0, \lambda_{max}]`.

Every response here is a function of the *absolute* eigenvalue: it is never
rescaled by an estimate of :math:`\lambda_{max}` (PyGSP's ``Heat(G, scale)``
is :math:`\exp(-\tau\lambda/\lambda_{max})`, i.e. ``Heat(t=tau / lmax)`` here).

==============================================  ==========================================================
:class:`Heat` ``(t)``                           :math:`e^{-t\lambda}` (diffusion kernel)
:class:`RegularizedLaplacian` ``(alpha)``       :math:`1 / (1 + \alpha\lambda)`
:class:`RandomWalk` ``(a, p)``                  :math:`(a - \lambda)^p`, :math:`a > \lambda_{max}`
:class:`InverseCosine` ``()``                   :math:`\cos(\pi\lambda / 4)` (normalized Laplacian)
:class:`Matern` ``(nu, kappa)``                 :math:`(2\nu/\kappa^2 + \lambda)^{-\nu}`
:class:`Filter` ``(func, name=...)``            any vectorized callable
==============================================  ==========================================================

Each filter is callable on arrays of eigenvalues, has a readable ``repr``,
compares equal to a filter of the same kind and parameters, and offers
:meth:`~Filter.inverse_polynomial` (the coefficients of :math:`1/\varphi` when
that is a polynomial, so that :math:`\Phi^{-1}` is a sparse matrix polynomial
in :math:`L` -- what solvers use to avoid applying :math:`\Phi` at all).
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._core.validation import check_scalar

__all__ = ["Filter", "Heat", "RegularizedLaplacian", "RandomWalk", "InverseCosine", "Matern", "default_kernel"]

# Number of points of the grid on which a generic response is checked for
# positivity: dense enough to see a sign change of any reasonably smooth
# response of degree up to ~1000 on the interval.
POSITIVITY_GRID = 4097


def _check_lmax(lmax):
    return check_scalar(lmax, "lmax", low=0)


def _check_dtype(dtype):
    """The floating dtype a response is evaluated in by :meth:`Filter.is_positive` (float32 or float64)."""
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"dtype must be numpy.float32 or numpy.float64; got {dtype!r}.") from None
    if dt not in (np.float32, np.float64):
        raise TypeError(f"dtype must be numpy.float32 or numpy.float64; got {dt}.")
    return dt


def _positive_between(phi, lmax, dtype, ends=(0.0,)):
    """phi evaluated in ``dtype`` finite at each of ``ends`` and at lmax, and > 0 at lmax: the positivity test of
    a response that is monotone on [0, lmax] (decreasing, finite and positive at 0 by its formula).  Evaluated,
    not from the formula: exp(-1e4 lambda) is 0 in floating point for lambda > 0.075, and a response that
    underflows to 0 inside the spectrum gives a kernel phi(L) that is only semi-definite."""
    dt = _check_dtype(dtype)
    pts = np.array(list(ends) + [_check_lmax(lmax)], dtype=dt)
    with np.errstate(all="ignore"):
        values = np.asarray(phi(pts))
    return bool(np.all(np.isfinite(values)) and values[-1] > 0)


def _eigenvalues(lam):
    if isinstance(lam, (str, bytes)) or lam is None:
        raise TypeError(f"lam must be a number or an array of eigenvalues; got {type(lam).__name__}.")
    arr = np.asarray(lam)
    if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
        raise TypeError(f"lam must hold real numbers; got dtype {arr.dtype}.")
    if np.issubdtype(arr.dtype, np.complexfloating):
        raise TypeError(f"lam must be real; got complex dtype {arr.dtype}.")
    return arr.astype(np.float32 if arr.dtype == np.float32 else np.float64, copy=False)


class Filter:
    r"""A spectral response :math:`\varphi(\lambda)` given by any vectorized callable.

    Parameters
    ----------
    func : callable
        ``func(lam) -> array`` of the same shape as ``lam`` (an ndarray of
        eigenvalues), real and finite on :math:`[0, \lambda_{max}]`.
    name : str, optional
        Shown by ``repr``; default the callable's ``__name__``.
    inverse_polynomial : array-like, optional
        Ascending coefficients :math:`c` with :math:`1/\varphi(\lambda) = \sum_k c_k \lambda^k`,
        if the caller knows them (they are not checked against ``func``).

    Notes
    -----
    :meth:`is_positive` of a generic filter is a numerical check on a grid of
    :data:`POSITIVITY_GRID` points of :math:`[0, \lambda_{max}]` (Chebyshev
    points plus both ends); the built-in families answer from their formula.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import filters
    >>> phi = filters.Filter(lambda lam: 1.0 / (1.0 + lam) ** 2, name="squared_resolvent")
    >>> phi
    Filter(squared_resolvent)
    >>> phi(np.array([0.0, 1.0])).tolist()
    [1.0, 0.25]
    >>> phi.is_positive(2.0)
    True
    """

    def __init__(self, func: Callable[[NDArray[np.floating]], ArrayLike], name: str | None = None, *,
                 inverse_polynomial: ArrayLike | None = None) -> None:
        if not callable(func):
            raise TypeError(f"func must be a callable taking an array of eigenvalues; got {type(func).__name__}.")
        if name is not None and not isinstance(name, str):
            raise TypeError(f"name must be a string or None; got {type(name).__name__}.")
        self.func = func
        self.name = name if name is not None else getattr(func, "__name__", type(func).__name__)
        if inverse_polynomial is not None:
            coef = np.asarray(inverse_polynomial, dtype=np.float64)
            if coef.ndim != 1 or coef.size == 0 or not np.isfinite(coef).all():
                raise ValueError("inverse_polynomial must be a non-empty 1-D array of finite coefficients.")
            inverse_polynomial = coef
        self._inverse_polynomial = inverse_polynomial

    # -- evaluation ---------------------------------------------------------
    def __call__(self, lam: ArrayLike) -> NDArray[np.floating] | np.floating:
        arr = _eigenvalues(lam)
        out = self._evaluate(arr)
        out = np.asarray(out)
        if out.shape != arr.shape:
            if out.ndim == 0:  # a constant response
                out = np.full(arr.shape, out)
            else:
                raise ValueError(
                    f"{self!r} returned shape {out.shape} for eigenvalues of shape {arr.shape}; a response "
                    "must be evaluated elementwise."
                )
        if out.dtype == object or np.issubdtype(out.dtype, np.complexfloating):
            raise TypeError(f"{self!r} must return real numbers; got dtype {out.dtype}.")
        return out.astype(arr.dtype, copy=False) if np.ndim(lam) else out.astype(arr.dtype)[()]

    def _evaluate(self, lam):
        try:
            return self.func(lam)
        except (TypeError, ValueError) as exc:
            if lam.ndim == 0 or lam.size == 0:
                raise
            try:    # a response written for one number at a time (math.exp, an if on lam) works on one
                self.func(lam.flat[0])
            except Exception:
                raise exc from None     # the response's own error, on a single eigenvalue too
            raise TypeError(
                f"{self!r} must accept a numpy array of eigenvalues and return their responses elementwise; "
                f"called on an array it raised {type(exc).__name__}: {exc}. Write it with numpy (np.exp, not "
                "math.exp; np.where, not if), or wrap a function of one number: np.vectorize(func, otypes=[float])."
            ) from exc

    # -- properties ---------------------------------------------------------
    def is_positive(self, lmax: float, *, dtype: type = np.float64) -> bool:
        r"""Whether :math:`\varphi(\lambda) > 0` for every :math:`\lambda \in [0, \lambda_{max}]`.

        A kernel :math:`\varphi(L)` is positive definite iff this holds on the
        spectrum; :class:`~graphrkhs.GraphKernel` refuses responses for which
        it does not.  The test is on :math:`\varphi` as evaluated in floating
        point of ``dtype``: a response that underflows to 0 inside the
        spectrum (``Heat(1e4)`` on a combinatorial Laplacian, where
        :math:`e^{-10^4 \lambda} = 0` for :math:`\lambda > 0.075`) or
        overflows is not positive.

        Parameters
        ----------
        lmax : float >= 0
            The right end of the interval (an upper bound of the spectrum).
        dtype : {numpy.float64, numpy.float32}, default=numpy.float64
            The precision the kernel is applied in (float32 underflows below
            ~1e-45, float64 below ~5e-324).
        """
        lmax = _check_lmax(lmax)
        dt = _check_dtype(dtype)
        grid = (0.5 * lmax * (1.0 - np.cos(np.linspace(0.0, np.pi, POSITIVITY_GRID)))).astype(dt)
        with np.errstate(all="ignore"):
            values = self(grid)
        return bool(np.all(np.isfinite(values)) and np.all(values > 0))

    def inverse_polynomial(self) -> NDArray[np.float64] | None:
        r"""Ascending coefficients :math:`c` with :math:`1/\varphi(\lambda) = \sum_k c_k \lambda^k`, or None.

        When :math:`1/\varphi` is a polynomial, :math:`\Phi^{-1} = \sum_k c_k L^k`
        is sparse and a ridge problem in :math:`\mathcal H_\varphi` is a sparse
        linear system.
        """
        return None if self._inverse_polynomial is None else self._inverse_polynomial.copy()

    # -- identity -----------------------------------------------------------
    def _params(self):
        # the inverse polynomial is part of the identity: the solvers take the sparse path from it
        inv = self._inverse_polynomial
        return {"func": self.func, "name": self.name,
                "inverse_polynomial": None if inv is None else tuple(float(c) for c in inv)}

    def __repr__(self):
        return f"Filter({self.name})"

    def __eq__(self, other):
        return type(other) is type(self) and self._params() == other._params()

    def __hash__(self):
        return hash((type(self).__name__, tuple(self._params().items())))


class _Family(Filter):
    """A named parametric family (evaluated from its formula)."""

    def __init__(self):
        self._inverse_polynomial = None

    @property
    def name(self) -> str:
        return type(self).__name__

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self._params().items())
        return f"{type(self).__name__}({args})"


class Heat(_Family):
    r"""Heat (diffusion) kernel :math:`\varphi(\lambda) = e^{-t\lambda}` (Kondor & Lafferty 2002).

    :math:`\Phi = e^{-tL}` diffuses a signal for time ``t``; the RKHS norm
    penalizes frequency :math:`\lambda` by :math:`e^{t\lambda}`.  Positive for
    every ``t`` in exact arithmetic (not in floating point, see ``t``); its Chebyshev coefficients have a closed form in modified
    Bessel functions (see :func:`graphrkhs.chebyshev_coefficients`).

    Parameters
    ----------
    t : float >= 0
        Diffusion time, in the units of 1/eigenvalue (no default: the useful
        range depends on the Laplacian's scale, about :math:`1/\lambda_2` to
        :math:`10/\lambda_{max}`).  :meth:`is_positive` is false once
        :math:`e^{-t\lambda_{max}}` underflows (:math:`t \lambda_{max} > 745`
        in float64, > 103 in float32): :math:`\varphi(L)` is then only
        semi-definite in floating point.  PyGSP's ``Heat(G, scale=tau)`` is ``Heat(tau / G.lmax)``.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import filters
    >>> phi = filters.Heat(0.5)
    >>> phi
    Heat(t=0.5)
    >>> bool(np.allclose(phi(np.array([0.0, 2.0])), [1.0, np.exp(-1.0)]))
    True
    """

    def __init__(self, t: float) -> None:
        super().__init__()
        self.t = check_scalar(t, "t", low=0)

    def _evaluate(self, lam):
        return np.exp(-self.t * lam)

    def is_positive(self, lmax: float, *, dtype: type = np.float64) -> bool:
        return _positive_between(self, lmax, dtype)

    def _params(self):
        return {"t": self.t}


class RegularizedLaplacian(_Family):
    r"""Regularized Laplacian :math:`\varphi(\lambda) = 1 / (1 + \alpha\lambda)` (Smola & Kondor 2003).

    The RKHS norm is :math:`\|f\|^2 = f^T (I + \alpha L) f`, so
    :meth:`inverse_polynomial` is ``[1, alpha]`` and :math:`\Phi^{-1} = I + \alpha L`
    is sparse.

    Parameters
    ----------
    alpha : float >= 0
        Weight of the smoothness term :math:`f^T L f` against :math:`\|f\|^2`
        (no default: it is scale dependent, like ``t`` of :class:`Heat`).

    Examples
    --------
    >>> from graphrkhs import filters
    >>> phi = filters.RegularizedLaplacian(2.0)
    >>> float(phi(1.5)), phi.inverse_polynomial().tolist()
    (0.25, [1.0, 2.0])
    """

    def __init__(self, alpha: float) -> None:
        super().__init__()
        self.alpha = check_scalar(alpha, "alpha", low=0)

    def _evaluate(self, lam):
        return 1.0 / (1.0 + self.alpha * lam)

    def is_positive(self, lmax: float, *, dtype: type = np.float64) -> bool:
        return _positive_between(self, lmax, dtype)

    def inverse_polynomial(self) -> NDArray[np.float64] | None:
        return np.array([1.0, self.alpha])

    def _params(self):
        return {"alpha": self.alpha}


class RandomWalk(_Family):
    r"""p-step random walk kernel :math:`\varphi(\lambda) = (a - \lambda)^p` (Smola & Kondor 2003).

    For the normalized Laplacian :math:`(a - L)^p = ((a - 1) I + D^{-1/2} W D^{-1/2})^p`
    counts weighted walks of length p with laziness ``a - 1``.

    Parameters
    ----------
    a : float > 0
        Shift; the kernel is positive definite only when :math:`a > \lambda_{max}`
        (Smola & Kondor ask :math:`a \ge 2` for the normalized Laplacian, whose
        spectrum lies in [0, 2]; ``a = 2`` is only semi-definite on a bipartite graph).
    p : int >= 1
        Number of steps.

    Examples
    --------
    >>> from graphrkhs import filters
    >>> phi = filters.RandomWalk(3.0, 2)
    >>> float(phi(1.0)), phi.is_positive(2.0), phi.is_positive(3.0)
    (4.0, True, False)
    """

    def __init__(self, a: float, p: int) -> None:
        super().__init__()
        self.a = check_scalar(a, "a", low=0, low_inclusive=False)
        self.p = check_scalar(p, "p", kind="int", low=1)

    def _evaluate(self, lam):
        return (self.a - lam) ** self.p

    def is_positive(self, lmax: float, *, dtype: type = np.float64) -> bool:
        # (a - lambda)^p decreases on [0, a): positive iff a > lmax, (a - lmax)^p has not underflowed and a^p
        # has not overflowed
        return bool(self.a > _check_lmax(lmax)) and _positive_between(self, lmax, dtype)

    def _params(self):
        return {"a": self.a, "p": self.p}


class InverseCosine(_Family):
    r"""Inverse cosine kernel :math:`\varphi(\lambda) = \cos(\pi\lambda / 4)` (Smola & Kondor 2003).

    Meant for the normalized Laplacian (spectrum in [0, 2]); positive on
    :math:`[0, \lambda_{max}]` iff :math:`\lambda_{max} < 2`, so only
    semi-definite on a bipartite graph (eigenvalue 2).

    Examples
    --------
    >>> from graphrkhs import filters
    >>> phi = filters.InverseCosine()
    >>> round(float(phi(1.0)), 6), phi.is_positive(1.9), phi.is_positive(2.0)
    (0.707107, True, False)
    """

    def _evaluate(self, lam):
        return np.cos(lam * (np.pi / 4))

    def is_positive(self, lmax: float, *, dtype: type = np.float64) -> bool:
        return bool(_check_lmax(lmax) < 2.0) and _positive_between(self, lmax, dtype)

    def _params(self):
        return {}


class Matern(_Family):
    r"""Graph Matérn kernel :math:`\varphi(\lambda) = (2\nu/\kappa^2 + \lambda)^{-\nu}`.

    The graph analogue of the Matérn covariance (Borovitskiy, Azangulov,
    Terenin, Mostowsky, Deisenroth & Durrande, "Matérn Gaussian processes on
    graphs", AISTATS 2021), without their normalizing constant.  ``nu``
    controls smoothness, ``kappa`` the length scale; :math:`\nu \to \infty`
    with fixed :math:`\kappa` tends to the heat kernel
    :math:`e^{-\kappa^2 \lambda / 2}` up to a constant.

    Parameters
    ----------
    nu : float > 0
        Smoothness.  An integer value (``2`` or ``2.0``) makes :math:`1/\varphi`
        the polynomial :math:`(2\nu/\kappa^2 + \lambda)^\nu`, returned by
        :meth:`inverse_polynomial` (None when its coefficients
        :math:`\binom{\nu}{k} (2\nu/\kappa^2)^{\nu - k}` overflow float64).
    kappa : float > 0
        Length scale.  ``nu`` and ``kappa`` must keep the peak
        :math:`\varphi(0) = (2\nu/\kappa^2)^{-\nu}` inside float64's range
        (a ``ValueError`` otherwise: ``Matern(2000, 40.0)`` has
        :math:`\varphi(0) = 2.5^{-2000}`, which is 0 in floating point, so
        :math:`\varphi(L)` would be the zero matrix); :math:`\kappa = \sqrt{2\nu}`
        gives :math:`\varphi(0) = 1`.  :meth:`is_positive` is
        :math:`\varphi(\lambda_{max}) > 0` as evaluated (the response decreases),
        so a response that underflows to 0 inside the spectrum is not a
        positive definite kernel.

    Examples
    --------
    >>> from graphrkhs import filters
    >>> phi = filters.Matern(2, 2.0)          # (1 + lambda)^-2
    >>> float(phi(1.0)), phi.inverse_polynomial().tolist()
    (0.25, [1.0, 2.0, 1.0])
    """

    def __init__(self, nu: float, kappa: float) -> None:
        super().__init__()
        self.nu = check_scalar(nu, "nu", low=0, low_inclusive=False)
        self.kappa = check_scalar(kappa, "kappa", low=0, low_inclusive=False)
        # kappa^2 by a product (Python's float ** raised OverflowError past 1.3e154, and 2 nu / 0.0 a
        # ZeroDivisionError below 1.5e-162); where it leaves the range, 2 nu / kappa / kappa is the shift
        # (Matern(1e-3, 1e155): 2e-313, a peak of 2.05)
        # (kappa**2 itself in range: the product differs from it by an ulp for ~0.1 % of kappas, and filters
        # of an ordinary kappa keep their values)
        square = self.kappa * self.kappa
        self._shift = (2.0 * self.nu / self.kappa**2 if 1e-300 < square < 1e300
                       else 2.0 * self.nu / self.kappa / self.kappa)
        if not np.isfinite(self._shift) or self._shift == 0.0:
            raise ValueError(f"2 nu / kappa^2 {'overflows' if self._shift else 'underflows to 0'} for nu={nu}, "
                             f"kappa={kappa}; choose kappa near sqrt(2 nu) = {math.sqrt(2.0 * self.nu):.3g}.")
        # the peak phi(0) = shift^(-nu), by its logarithm (the power itself is what may leave the range)
        log_peak = -self.nu * math.log(self._shift)
        info = np.finfo(np.float64)
        if not math.log(info.tiny) < log_peak < math.log(info.max):
            raise ValueError(
                f"Matern(nu={nu}, kappa={kappa}) has phi(0) = (2 nu / kappa^2)^(-nu) = 10^{log_peak / math.log(10):.0f}, "
                f"outside float64's range, so phi(L) would be {'0' if log_peak < 0 else 'infinite'} in floating "
                f"point; choose kappa near sqrt(2 nu) = {math.sqrt(2.0 * self.nu):.3g} (then phi(0) = 1), or a "
                "smaller nu."
            )

    def _evaluate(self, lam):
        return (self._shift + lam) ** (-self.nu)

    def is_positive(self, lmax: float, *, dtype: type = np.float64) -> bool:
        # decreasing in lambda, finite and positive at 0 (checked at construction in float64): positive on
        # [0, lmax] iff its value at lmax has not underflowed to 0 (and, in float32, phi(0) is in range)
        return _positive_between(self, lmax, dtype)

    def inverse_polynomial(self) -> NDArray[np.float64] | None:
        if self.nu != int(self.nu):
            return None
        nu = int(self.nu)
        # sum_k binom(nu, k) s^(nu - k) = (1 + s)^nu <= (nu + 1) max_k (...): a largest coefficient that provably
        # overflows answers None before the nu + 1 of them are listed (nu = 1e7, a Matern near the heat kernel,
        # took 15.7 s to return None, and nu = 2^53 a MemoryError); the test below gives the same answer
        if nu * math.log1p(self._shift) - math.log(nu + 1.0) >= math.log(np.finfo(np.float64).max) - 1.0:
            return None
        k = np.arange(nu + 1)
        # coefficients binom(nu, k) shift^(nu - k), by their logarithms: None when one overflows float64
        # (Matern(2000, 1.0) raised OverflowError converting binom(2000, 1000) to a float)
        log_binom = np.array([math.lgamma(nu + 1) - math.lgamma(j + 1) - math.lgamma(nu - j + 1) for j in k])
        log_coef = log_binom + (nu - k) * math.log(self._shift)
        if log_coef.max() >= math.log(np.finfo(np.float64).max) - 1.0:
            return None
        if nu <= 1000:   # exact binomials (they fit a float64 here: binom(1000, 500) < 3e299)
            binom = np.array([math.comb(nu, int(j)) for j in k], dtype=np.float64)
            with np.errstate(under="ignore"):
                return binom * self._shift ** (nu - k).astype(np.float64)
        with np.errstate(under="ignore"):
            return np.exp(log_coef)

    def _params(self):
        return {"nu": self.nu, "kappa": self.kappa}


def _as_filter(phi, name="phi"):
    """A :class:`Filter` from a filter or a plain callable (private helper)."""
    if isinstance(phi, Filter):
        return phi
    if callable(phi) and not isinstance(phi, type):
        return Filter(phi)
    raise TypeError(
        f"{name} must be a graphrkhs.filters filter (Heat, RegularizedLaplacian, RandomWalk, InverseCosine, "
        f"Matern, Filter) or a callable of the eigenvalues; got {type(phi).__name__}."
    )


def _as_filter_bank(phi, name="phi"):
    """``(list of Filter, is_bank)`` from one filter or a list/tuple of filters (private helper)."""
    if isinstance(phi, (list, tuple)):
        if not phi:
            raise ValueError(f"{name} is an empty filter bank; give at least one response.")
        return [_as_filter(p, f"{name}[{i}]") for i, p in enumerate(phi)], True
    return [_as_filter(phi, name)], False


def default_kernel() -> Matern:
    r"""The default response of the graph kernel ridge: ``Matern(2, 10.0)``, :math:`(0.04 + \lambda)^{-2}`.

    On the normalized Laplacian (spectrum in [0, 2]) it is
    :math:`625 (1 + 25\lambda)^{-2}`: a smooth low-pass response whose
    inverse is a degree-2 polynomial, so the ridge is a sparse system.
    Used by :func:`~graphrkhs.graph_kernel_ridge` and the graph kernel ridge
    estimators when ``kernel=None``.

    Examples
    --------
    >>> from graphrkhs import filters
    >>> filters.default_kernel()
    Matern(nu=2.0, kappa=10.0)
    """
    return Matern(2, 10.0)
