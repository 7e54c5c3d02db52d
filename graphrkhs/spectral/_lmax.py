"""A guaranteed upper bound on the largest eigenvalue of a symmetric operator."""

from __future__ import annotations

from typing import Literal

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from .._core.linalg import lanczos_tridiagonal, operator_symmetry_rtol, reuses_operator_symmetry, symmetry_gap
from .._core.types import MatrixOrOperator, RandomStateLike
from .._core.validation import check_option, check_random_state, check_scalar, native_byte_order, sparse_storable


__all__ = [
    "lmax",
]

#: Lanczos steps of the cheap check of a user-given ``lmax`` (:func:`check_given_lmax`):
#: about as many sparse products as a degree-20 Chebyshev filter on one signal.
LMAX_CHECK_STEPS = 20


def _is_graph_object(G):
    # pygsp and networkx graphs, recognised without importing either library
    module = type(G).__module__.split(".")[0]
    return module in ("pygsp", "networkx")


def _refuse_complex(L, name):
    # a complex LinearOperator was run on its real part (numpy's ComplexWarning the only sign): a Hermitian
    # magnetic Laplacian got an lmax below its spectrum and the filters of Re L; a complex matrix was refused by
    # the filters alone, and by lmax as 'not symmetric'
    if L.dtype is not None and np.issubdtype(np.dtype(L.dtype), np.complexfloating):
        what = "a LinearOperator of " if isinstance(L, spla.LinearOperator) else ""
        raise TypeError(f"{name} must be real; got {what}dtype {np.dtype(L.dtype)}.  The spectral filters and lmax "
                        "take a real symmetric L (a graph Laplacian).")


def _as_square_operator(L, name="L"):
    if _is_graph_object(L):
        raise TypeError(
            f"{name} must be a Laplacian matrix or a LinearOperator; got a {type(L).__module__.split('.')[0]} graph "
            f"object. Pass graphrkhs.laplacian(G) (combinatorial) or graphrkhs.laplacian(G, 'normalized'): the "
            "kind of Laplacian fixes the spectrum, so it is yours to choose (graphrkhs.GraphKernel takes a "
            "graph object directly, with its laplacian= argument)."
        )
    if isinstance(L, spla.LinearOperator):
        _refuse_complex(L, name)
        if L.shape[0] != L.shape[1]:
            raise ValueError(f"{name} must be square; got shape {L.shape}.")
        return L
    if sp.issparse(L):
        # native byte order: a big-endian float32 L kept float64's rounding level (its dtype is not float32)
        L = sp.csr_array(native_byte_order(L))
        if not L.has_canonical_format:
            # csr_array(L) shares the caller's arrays, and abs(L) (scipy) sums its duplicates in place: the
            # caller's L kept stale entries past its nnz (L.tocoo() raised, count_nonzero() counted them)
            L = L.copy()
    else:
        L = np.asarray(L)
        if L.dtype == object or not np.issubdtype(L.dtype, np.number):
            raise TypeError(f"{name} must be a numeric matrix or a LinearOperator; got dtype {L.dtype}.")
        L = sparse_storable(L)                             # float16 -> float64 (no sparse float16)
    _refuse_complex(L, name)
    if L.ndim != 2 or L.shape[0] != L.shape[1] or L.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty square matrix; got shape {L.shape}.")
    data = L.data if sp.issparse(L) else L
    if not np.isfinite(data).all():
        raise ValueError(f"{name} contains NaN or infinity.")
    return L


def _is_symmetric(L):
    # Relative tolerance scaled to the dtype: a float32 Laplacian built from a symmetric
    # adjacency is symmetric only to float32 rounding (normalization by sqrt(d_i d_j)).
    # A LinearOperator by the dot test of symmetry_gap.
    rtol = 1e-5 if L.dtype == np.float32 else 1e-8
    if isinstance(L, spla.LinearOperator):
        rtol = max(rtol, operator_symmetry_rtol(L.dtype))
    gap, scale = symmetry_gap(L, "L")
    return gap <= rtol * scale


@reuses_operator_symmetry
def lmax(L: MatrixOrOperator, method: Literal["lanczos", "gershgorin"] = "lanczos", *, margin: float = 0.005,
         tol: float = 1e-4, random_state: RandomStateLike = 0) -> float:
    r"""An upper bound on the largest eigenvalue of a symmetric Laplacian.

    Chebyshev filters (:mod:`graphrkhs.spectral`) approximate a response on
    :math:`[0, \lambda_{max}]`; a bound *below* the spectrum makes the
    polynomial blow up, one far above wastes degree.  This function returns a
    bound above :math:`\lambda_{max}` and, by default, within about 1% of it.
    ``"gershgorin"`` is a proof; ``"lanczos"`` bounds the eigenvalue that
    ARPACK's run converged to (its residual is added), which is the largest
    for the positive semidefinite Laplacians this is meant for (never below
    :math:`\lambda_{max}` on 150 random graphs of 5 kinds at tolerances up
    to 0.5), not for an indefinite matrix, where it may find an interior one
    (the filters refuse a matrix with a negative Rayleigh quotient).

    Parameters
    ----------
    L : sparse matrix, ndarray or LinearOperator of shape (n, n)
        Symmetric, else a ``ValueError`` (a LinearOperator is tested by one
        product with 8 fixed vectors, :math:`x^T L y = y^T L x`).  (The
        random-walk Laplacian has the spectrum of the normalized one: pass that.)
    method : {"lanczos", "gershgorin"}, default="lanczos"
        ``"gershgorin"``: :math:`\max_i \sum_j |L_{ij}|`, free and always valid
        (:math:`2 d_{max}` for the combinatorial Laplacian), but can be far
        above (the normalized Laplacian's spectrum lies in [0, 2] whatever
        this bound says).  ``"lanczos"``: the largest Ritz
        value :math:`\theta` of an implicitly restarted Lanczos run (ARPACK)
        plus its residual norm :math:`\|L v - \theta v\|` (an eigenvalue lies
        within it) and ``margin`` :math:`\theta`, capped by the Gershgorin
        bound when ``L`` is a matrix.
    margin : float >= 0, default=0.005
        Relative safety margin of the Lanczos bound.
    tol : float > 0, default=1e-4
        Relative tolerance of the Lanczos run; its residual is added anyway.
    random_state : int, Generator or None, default=0
        Seeds the Lanczos start vector (results are reproducible by default).

    Returns
    -------
    float
        0.0 exactly for the zero matrix (the Laplacian of a graph without
        edges): its spectrum is {0}, and :math:`\varphi(L) X = \varphi(0) X`
        is what the filters then return, exactly.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import laplacian, lmax
    >>> L = laplacian(np.ones((4, 4)) - np.eye(4))    # complete graph K4: eigenvalues 0, 4, 4, 4
    >>> 4.0 <= lmax(L) <= 4.0 * 1.01
    True
    >>> float(lmax(L, "gershgorin"))
    6.0
    """
    check_option(method, "method", ("lanczos", "gershgorin"))
    margin = check_scalar(margin, "margin", low=0)
    tol = check_scalar(tol, "tol", low=0, low_inclusive=False)
    if not isinstance(random_state, np.random.RandomState):
        # checked on every path (the dense one of n <= 64 nodes and the Gershgorin bound draw nothing), as
        # the Lanczos path checks it; a legacy RandomState is left undrawn until a start vector is needed
        check_random_state(random_state)
    L = _as_square_operator(L)
    is_operator = isinstance(L, spla.LinearOperator)
    e = 0 if is_operator else _scale_exponent(L)
    if e > 0:
        # entries above 2^200: the bound of 2^-e L, scaled back exactly.  The row sums and ARPACK's products
        # overflowed near 1e308 (a path of weights 5e307: inf returned, and the filters then refused
        # "lmax must be finite", an argument the caller had not passed)
        Ls = L.copy()
        if sp.issparse(Ls):
            Ls.data = np.ldexp(Ls.data, -e)
        else:
            Ls = np.ldexp(Ls, -e)
        scaled = lmax(Ls, method, margin=margin, tol=tol, random_state=random_state)
        with np.errstate(over="ignore"):
            bound = float(np.ldexp(scaled, e))
        if not np.isfinite(bound):
            raise ValueError(
                f"the largest eigenvalue of L is beyond the float64 range: its bound is {scaled:.6g} x 2^{e} "
                f"(entries of L up to {float(np.ldexp(_peak_entry(Ls), e)):.3g}), so no filter or kernel can be "
                "evaluated on its spectrum; scale the graph's weights down (e.g. by a power of two).")
        return bound
    gersh = None
    if not is_operator:
        absL = abs(L)
        # summed in float64: float32 sums rounded below the bound it proves (K_{22,22} normalized, float32
        # entries 1/22 rounded up: 2.0 against the entries' top eigenvalue 2.00000003)
        gersh = float(np.asarray(absL.astype(np.float64, copy=False).sum(axis=1)).max())
        if method == "gershgorin" or gersh == 0.0:
            return gersh   # gersh == 0: the zero matrix, spectrum {0}
    elif method == "gershgorin":
        raise TypeError("method='gershgorin' needs the matrix entries; a LinearOperator was given.")
    # a LinearOperator too (the dot test of symmetry_gap): the random-walk Laplacian of a star as an operator
    # got 1.32 for a spectrum reaching 2 (the dense path below reads one triangle only)
    if not _is_symmetric(L):
        raise ValueError(
            "lmax needs a symmetric L; the random-walk Laplacian I - D^-1 W has the spectrum of the "
            "normalized Laplacian: compute lmax(laplacian(W, 'normalized')) instead."
        )
    n = L.shape[0]
    if n <= 64:
        dense = L @ np.eye(n) if is_operator else (L.toarray() if sp.issparse(L) else np.asarray(L, float))
        ev = float(np.linalg.eigvalsh(np.asarray(dense, dtype=np.float64)).max())
        bound = ev + margin * abs(ev) + 64 * np.finfo(float).eps * (gersh or abs(ev) or 1.0)
        return float(min(bound, gersh) if gersh is not None else bound)
    rng = check_random_state(random_state)
    v0 = rng.standard_normal(n)
    if is_operator and not np.any(L.matvec(v0)):
        return 0.0   # L v0 = 0 for a random v0: L = 0 (ARPACK would stop on a zero Krylov vector)
    try:
        theta, residual = _arpack_top(L, v0, tol)
    except spla.ArpackNoConvergence:  # nothing converged: Gershgorin
        if gersh is not None:
            return gersh
        raise
    bound = theta + residual + margin * abs(theta)
    return float(min(bound, gersh) if gersh is not None else bound)


def _arpack_top(L, v0, tol):
    r"""The Ritz value :math:`\theta` an implicitly restarted Lanczos run (ARPACK, ``which="LA"``) converged
    to, and its residual norm :math:`\|L v - \theta v\|`: a Rayleigh quotient (the spectrum reaches above
    it) within ``residual`` of an eigenvalue, the largest for a positive semidefinite L.

    Raises ``ArpackNoConvergence`` when no Ritz value converged (a partial result is used).
    """
    n = L.shape[0]
    op = L if isinstance(L, spla.LinearOperator) else spla.aslinearoperator(L)
    if op.dtype != np.float64:
        # ARPACK on float32 limits the attainable accuracy; run the iteration in float64.
        op = spla.LinearOperator(op.shape, matvec=lambda x: np.asarray(L @ x.astype(op.dtype), dtype=np.float64),
                                 dtype=np.float64)
    try:
        theta, vec = spla.eigsh(op, k=1, which="LA", tol=tol, v0=v0, ncv=min(n, 24), maxiter=50 * n)
    except spla.ArpackNoConvergence as exc:  # fall back on what converged
        if not exc.eigenvalues.size:
            raise
        theta, vec = exc.eigenvalues, exc.eigenvectors
    theta = float(theta[0])
    v = vec[:, 0]
    residual = float(np.linalg.norm(op.matvec(v) - theta * v) / np.linalg.norm(v))
    return theta, residual



def _ritz_extremes(L, steps=LMAX_CHECK_STEPS, random_state=0, residual=False):
    """The smallest and largest Ritz values of a short Lanczos run on a symmetric L: Rayleigh quotients, so
    the spectrum reaches below the first and above the second.  ``residual=True`` adds the residual norm
    :math:`\\beta_k |s_k|` of the largest (an eigenvalue lies within it of that Ritz value)."""
    L = _as_square_operator(L)
    n = L.shape[0]
    k = max(1, min(int(steps), n))
    # the run on 2^-e L when L's scale is far from 1 (Ritz values scaled back exactly): the squared norms of its
    # vectors underflowed for entries near 1e-200 (a breakdown at the first step, whose Rayleigh quotient of a
    # random vector then "bounded" the spectrum: lmax given at half the spectrum was accepted and the series
    # came back 1e4 times off) and overflow near 1e200
    e = _scale_exponent(L)
    if e:
        def matvec(q):
            return np.ldexp(np.asarray(L @ q.astype(L.dtype), dtype=np.float64), -e)
    else:
        def matvec(q):
            return L @ q.astype(L.dtype)
    alpha, beta = lanczos_tridiagonal(matvec, n, k, check_random_state(random_state))
    m = alpha.size
    T = np.diag(alpha) + np.diag(beta[: m - 1], 1) + np.diag(beta[: m - 1], -1)
    theta, S = np.linalg.eigh(T)
    lo, hi = float(np.ldexp(theta.min(), e)), float(np.ldexp(theta.max(), e))
    if residual:
        return lo, hi, float(np.ldexp(abs(beta[m - 1] * S[m - 1, -1]), e))
    return lo, hi


def _peak_entry(L):
    """The largest absolute entry of a sparse or dense matrix."""
    return float(np.abs(L.data if sp.issparse(L) else L).max(initial=0.0))


def _scale_exponent(L):
    """A power-of-two exponent e of L's scale when that scale lies outside [2^-200, 2^200], else 0.

    The largest entry of a matrix; of a LinearOperator, the largest entry of its product with a fixed vector.
    """
    if isinstance(L, spla.LinearOperator):
        n = L.shape[0]
        peak = float(np.abs(np.asarray(L @ np.cos(np.arange(n, dtype=np.float64)).astype(L.dtype))).max(initial=0.0))
    else:
        peak = _peak_entry(L)
    if not np.isfinite(peak) or peak == 0.0 or 2.0 ** -200 <= peak <= 2.0 ** 200:
        return 0
    return int(np.frexp(peak)[1])


def _entry_eps(dtype):
    r"""Unit roundoff of the precision L's entries were given in (float64 for anything but float32).

    Rounding the entries of a Laplacian to this precision moves its eigenvalues
    by up to about :math:`\epsilon \||L|\|_2` (Weyl): a float32 Laplacian whose
    exact spectrum is :math:`[0, 2]` has Rayleigh quotients like
    :math:`-3\cdot 10^{-8}` and :math:`2 + 2\cdot 10^{-7}` (the complete graph, a
    path), which prove nothing wrong with it.
    """
    return float(np.finfo(np.float32 if np.dtype(dtype) == np.float32 else np.float64).eps)


def _refuse_negative_spectrum(low, scale, name="L", dtype=np.float64):
    """A Rayleigh quotient below 0 (beyond the rounding of L's entries) proves a negative eigenvalue: refuse it."""
    rounding = max(1e-8, 64 * _entry_eps(dtype))
    if low < -rounding * max(abs(scale), np.finfo(np.float64).tiny):
        raise ValueError(
            f"{name} has a negative eigenvalue (a Rayleigh quotient of {name} is {low:.6g}): the Chebyshev / "
            f"Lanczos filters approximate a response on [0, lmax], the spectrum of a graph Laplacian (positive "
            f"semidefinite), and would be silently wrong on the eigenvalues below 0. Pass a Laplacian "
            f"(graphrkhs.laplacian), or shift {name} to make it positive semidefinite.")


@reuses_operator_symmetry
def check_psd_spectrum(L, lmax_value: float, name: str = "L", *, dtype=None) -> None:
    r"""Refuse a matrix whose spectrum provably reaches below 0 (the filters' interval is :math:`[0, \lambda_{max}]`).

    Free for every combinatorial Laplacian and any diagonally dominant
    matrix with a non-negative diagonal (Gershgorin:
    :math:`\min_i L_{ii} - \sum_{j \ne i} |L_{ij}| \ge 0`); otherwise (the
    normalized Laplacian, an operator) the smallest Ritz value of a
    ``LMAX_CHECK_STEPS``-step Lanczos run, a Rayleigh quotient: a value below
    0 proves a negative eigenvalue (a cheap proof of the error, never a proof
    of positive semidefiniteness).  A non-symmetric matrix or LinearOperator
    (the random-walk Laplacian, whose spectrum is that of the normalized one)
    is not checked.
    ``dtype`` is the precision L's entries were given in (default L's own;
    a float32 Laplacian passed here as float64 keeps float32's rounding
    level, :math:`64\epsilon_{32}` relative, below which a negative Rayleigh
    quotient is rounding of the entries, not a negative eigenvalue).
    """
    L = _as_square_operator(L, name)
    dtype = L.dtype if dtype is None else dtype
    if not isinstance(L, spla.LinearOperator):
        absL = abs(L)
        diag = L.diagonal() if sp.issparse(L) else np.diag(L)
        rows = np.asarray(absL.sum(axis=1)).ravel()
        scale = float(rows.max(initial=0.0))
        if scale == 0.0:
            return
        gershgorin_low = float((2 * diag - rows).min())        # L_ii - sum_{j != i} |L_ij|
        if gershgorin_low >= -64 * _entry_eps(dtype) * scale:
            return
    if not _is_symmetric(L):         # a LinearOperator too (the dot test): Lanczos needs a symmetric L
        return
    low, high = _ritz_extremes(L)
    _refuse_negative_spectrum(low, max(abs(high), abs(lmax_value)), name, dtype)


def rayleigh_lower_bound(L, steps: int = LMAX_CHECK_STEPS, random_state: RandomStateLike = 0) -> float:
    r"""A lower bound on the largest eigenvalue of a symmetric L: the largest Ritz value of a short Lanczos run.

    Every Ritz value :math:`\theta = v^T L v / v^T v` (v a Ritz vector) is a
    Rayleigh quotient, hence :math:`\theta \le \lambda_{max}` whatever the
    number of steps; ``steps`` products with L (full reorthogonalization of
    a few vectors, so no ghost values).  A cheap *proof* that a claimed upper
    bound is wrong, never a proof that one is right.
    """
    return _ritz_extremes(L, steps, random_state)[1]


@reuses_operator_symmetry
def check_given_lmax(L, lmax: float, name: str = "lmax") -> float:
    r"""Refuse a user-given ``lmax`` below the spectrum of L.

    Chebyshev filters on :math:`[0, \lambda_{max}]` diverge like
    :math:`T_K(2\lambda/\lambda_{max} - 1) \approx \cosh(2K\sqrt{\delta})`
    on eigenvalues :math:`\lambda = (1 + \delta)\,` ``lmax`` left outside
    (degree 30, half the spectrum outside: an error of 1e58; degree 107 and
    a bound 1.5% low: 44 times the response, for a tolerance of 1e-8).
    A short Lanczos run (``LMAX_CHECK_STEPS`` products) gives its largest
    Ritz value :math:`\theta`, a Rayleigh quotient, with residual r:

    * ``lmax`` below :math:`\theta` (beyond rounding) is proven below the
      spectrum: a ``ValueError``;
    * ``lmax`` at or above :math:`\theta + 2r` (or the Gershgorin bound of a
      matrix, a proof) is accepted, however loose.  An eigenvalue lies within
      r of :math:`\theta`, but after 20 or 40 steps not always the largest:
      on 102 Laplacians (kNN, Erdos-Renyi, grids, paths; combinatorial and
      normalized) :math:`\theta + r` fell up to 0.16% below
      :math:`\lambda_{max}` on 2, :math:`\theta + 2r` on none;
    * in between -- 20 steps can leave :math:`\theta` 1.5% below
      :math:`\lambda_{max}` on a kNN Laplacian -- a run twice as long is
      tested the same way, and if it does not decide either, the converged
      Ritz value of an ARPACK run (relative residual 1e-6, as
      :func:`graphrkhs.lmax`) does: ``lmax`` below it is refused.  A bound accepted this way is at most
      about 1e-6 relative below :math:`\lambda_{max}`, where even a degree-1000
      series stays at its tolerance (dense oracle: a bound 1e-5 low changes
      nothing, 1e-4 low doubles the error of a degree-1000 resolvent).

    A smallest Ritz value below 0 (L is not positive semidefinite) is a
    ``ValueError`` too.  A non-symmetric L (the random-walk Laplacian, as a
    matrix or a LinearOperator) is not checked: pass the bound of the
    normalized Laplacian, which has its spectrum.
    """
    L = _as_square_operator(L, "L")
    is_operator = isinstance(L, spla.LinearOperator)
    if not _is_symmetric(L):
        # the random-walk Laplacian: its Ritz values bound nothing; its spectrum is the normalized one's,
        # so lmax(laplacian(W, "normalized")) is the documented bound to pass.  As a LinearOperator too (the dot
        # test): its 'Ritz values' (-0.0079 on a 40-node kNN graph) refused it as having a negative eigenvalue
        return lmax
    low, bound, residual = _ritz_extremes(L, residual=True)
    _refuse_negative_spectrum(low, max(abs(bound), abs(lmax)), "L", L.dtype)

    def slack(theta):
        # rounding of L's entries (float32: a bipartite normalized Laplacian has Rayleigh quotients
        # 2 + 2e-7, and lmax=2 is still right: T_K(1 + d) - 1 ~ K^2 d is below float32's own rounding)
        return 1e-10 * abs(lmax) + 64 * _entry_eps(L.dtype) * abs(theta)

    def refuse(theta, how):
        raise ValueError(
            f"{name}={lmax:.6g} is below the spectrum of L: {how} Rayleigh quotient of L is {theta:.6g}, so its "
            f"largest eigenvalue is at least that and the Chebyshev series would diverge on the eigenvalues "
            f"above {name}. Pass {name}=None (computed by graphrkhs.lmax, a guaranteed bound) or a value "
            f">= {theta:.6g} (for a normalized Laplacian, 2 is always safe)."
        )

    gersh = (float(np.asarray(abs(L).astype(np.float64, copy=False).sum(axis=1)).max())   # a proof (float64 sums,
             if not is_operator else np.inf)                                              # as in lmax)
    if bound > lmax + slack(bound):
        refuse(bound, "a")
    if lmax >= min(bound + 2 * residual, gersh):
        return lmax
    # lmax lies between the short run's Ritz value and its error bar: a run twice as long (which
    # settles graphrkhs.lmax's own bound, 0.5% above lambda_max, on kNN Laplacians), then ARPACK
    _, bound, residual = _ritz_extremes(L, 2 * LMAX_CHECK_STEPS, residual=True)
    if bound > lmax + slack(bound):
        refuse(bound, "a")
    if lmax >= min(bound + 2 * residual, gersh):
        return lmax
    n = L.shape[0]
    if n <= 64:
        dense = L @ np.eye(n) if is_operator else (L.toarray() if sp.issparse(L) else np.asarray(L))
        top, how = float(np.linalg.eigvalsh(np.asarray(dense, dtype=np.float64)).max()), "the largest"
    else:
        try:
            top, how = _arpack_top(L, check_random_state(0).standard_normal(n), 1e-6)[0], "a converged (ARPACK)"
        except spla.ArpackNoConvergence:
            return lmax          # nothing converged: no proof either way (the short runs' tests passed)
    if top > lmax + slack(top):
        refuse(top, how)
    return lmax
