r"""Building blocks for applying :math:`\varphi(L)` many times (a "filter plan").

:func:`~graphrkhs.chebyshev_filter`, :func:`~graphrkhs.lanczos_filter` and
:func:`~graphrkhs.exact_filter` do all their set-up work on every call.  A
caller that applies the same response on the same graph many times -- the
kernel layer's :class:`~graphrkhs.GraphKernel`, or a researcher's own
operator -- does the set-up once with these pieces and then only applies:

1. :func:`check_filter_options` validates the options shared by the filters;
2. :func:`as_filter` / :func:`as_filter_bank` turn responses into filters;
3. :func:`is_symmetric` and :func:`resolve_lmax` check the operator and fix
   the Chebyshev interval :math:`[0, \lambda_{max}]`;
4. :func:`chebyshev_plan` picks the degree and computes the coefficients;
5. :func:`chebyshev_apply` / :func:`lanczos_apply` apply them to a block on a
   :class:`~graphrkhs._core.reorder.PreparedOperator` (the node reordering and
   compiled products, cached by the caller);
   :func:`column_exponents` says when (and by which powers of two) to
   scale the columns of a signal near the ends of the float range first;
   :func:`laplacian_null_space` gives the null space that
   :func:`lanczos_apply` deflates;
6. :func:`exact_eigh` is the dense eigendecomposition of the oracle.

These are public in :mod:`graphrkhs.spectral` (not in ``graphrkhs.__all__``:
they are for library builders, not for everyday use).
"""

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from .._core.linalg import reuses_operator_symmetry
from .._core.validation import check_scalar
from .filters import _as_filter, _as_filter_bank
from ._chebyshev import (
    DEFAULT_MAX_ORDER,
    EXACT_MAX_NODES,
    _chebyshev_apply,
    _check_common,
    _column_exponents,
    _prepare_coefficients,
    _resolve_lmax,
    _symmetric,
)
from ._lanczos import _exact_eigh, _lanczos_apply, _laplacian_null_space

__all__ = [
    "DEFAULT_MAX_ORDER",
    "EXACT_MAX_NODES",
    "as_filter",
    "as_filter_bank",
    "check_filter_options",
    "is_symmetric",
    "resolve_lmax",
    "chebyshev_plan",
    "chebyshev_apply",
    "column_exponents",
    "lanczos_apply",
    "laplacian_null_space",
    "exact_eigh",
]


def as_filter(phi, name="phi"):
    """A :class:`~graphrkhs.filters.Filter` from a filter or a plain callable of the eigenvalues.

    Raises ``TypeError`` naming ``name`` for anything else.
    """
    return _as_filter(phi, name)


def as_filter_bank(phi, name="phi"):
    """``(list of Filter, is_bank)`` from one response or a non-empty list/tuple of them."""
    return _as_filter_bank(phi, name)


def check_filter_options(order=None, tol=1e-8, max_order=DEFAULT_MAX_ORDER, damping=None, reorder="auto",
                         backend="auto"):
    """Validate the options of :func:`~graphrkhs.chebyshev_filter`; returns ``(order, tol, max_order)``.

    ``order`` None (automatic) or an int >= 0, ``tol`` > 0, ``max_order`` >= 0,
    ``damping`` in {None, "jackson"}, ``reorder`` in {"auto", True, False},
    ``backend`` one of ``graphrkhs._core.backend.BACKENDS`` ("auto", the serial
    kernels "numba", "scipy", "numpy", and the distributed "mpi", "dask"); a
    ``ValueError`` names the argument otherwise.
    """
    return _check_common(order, tol, max_order, damping, reorder, backend)


def is_symmetric(L, dtype=None):
    """Whether L (sparse, dense or a LinearOperator) is symmetric to the rounding of ``dtype`` (default L's).

    The relative tolerance is 1e-5 for float32 (a normalized Laplacian built
    in float32 is symmetric to about 1e-7 only) and 1e-10 otherwise; a
    LinearOperator is compared by the dot test of
    :func:`graphrkhs._core.linalg.symmetry_gap` (one product with 8 vectors),
    at a relative tolerance of at least 1e-6 (its products may be computed in
    a lower precision than its dtype).
    """
    return _symmetric(L, dtype)


@reuses_operator_symmetry
def resolve_lmax(L, lmax=None):
    r"""The Chebyshev interval's upper end: ``lmax`` checked (> 0), or :func:`~graphrkhs.lmax` of L if None.

    The computed bound is guaranteed to lie above the spectrum (a bound below
    it makes the polynomial blow up on the eigenvalues left outside).
    """
    return _resolve_lmax(L, lmax)


def chebyshev_plan(phi, lmax, *, order=None, tol=1e-8, damping=None, max_order=DEFAULT_MAX_ORDER):
    r"""Chebyshev coefficients of one response or a bank on :math:`[0, \lambda_{max}]`, degree chosen if needed.

    Parameters
    ----------
    phi : filter, callable, or list of them
    lmax : float >= 0
        Checked upper bound on the spectrum (:func:`resolve_lmax`; 0 for the
        zero matrix).  Required: there is no L here to compute it from, so
        None is a ``TypeError``.
    order : int, optional
        Degree K; None picks the lowest degree whose relative max error is
        below ``tol`` (:func:`~graphrkhs.chebyshev_order`, with an
        :class:`~graphrkhs.AccuracyWarning` when ``max_order`` is reached); a
        given order whose estimated error is above ``tol`` warns too.
    tol, damping, max_order
        As in :func:`~graphrkhs.chebyshev_filter`.

    Returns
    -------
    coefs : ndarray of shape (n_filters, K + 1)
        In the convention :math:`\varphi \approx c_0/2 + \sum_k c_k T_k`.
    order : int

    Raises
    ------
    TypeError, ValueError
        For an ``lmax``, ``order``, ``tol``, ``damping`` or ``max_order``
        that :func:`check_filter_options` / :func:`resolve_lmax` would refuse,
        before any coefficient is computed.
    """
    filters, _ = _as_filter_bank(phi)
    if lmax is None:
        raise TypeError("lmax must be a real number >= 0, an upper bound on the spectrum of L; chebyshev_plan has "
                        "no L to compute it from: pass resolve_lmax(L).")
    lmax = check_scalar(lmax, "lmax", low=0)
    order, tol, max_order = _check_common(order, tol, max_order, damping, "auto", "auto")
    return _prepare_coefficients(filters, order, tol, lmax, damping, max_order)


def chebyshev_apply(op, coefs, lmax, X=None, indicator=None):
    r"""Apply :math:`\sum'_k c_{f,k} T_k(2L/\lambda_{max} - I)` to a block, in the prepared operator's order.

    Parameters
    ----------
    op : PreparedOperator
        From :mod:`graphrkhs._core.reorder`; ``X`` and the result are in its
        internal node order (``op.to_internal`` / ``op.to_user``).  Any object
        with its ``shape``, ``dtype`` and ``step`` works: a
        ``graphrkhs.distributed.DistributedCSR`` runs the same recurrence on
        one process's rows (``shape`` is then the local one).
    coefs : ndarray of shape (F, K + 1)
        From :func:`chebyshev_plan`.
    lmax : float
    X : ndarray of shape (n, m), optional
    indicator : tuple (rows, m), optional
        Instead of X, the block E with :math:`E_{rows[j], j} = 1` (columns of
        the kernel), never formed densely for a single response.

    Returns
    -------
    ndarray of shape (F, n, m)
    """
    return _chebyshev_apply(op, coefs, lmax, X, indicator)


def column_exponents(X, dtype, lmax=None):
    r"""Powers of two to scale the columns of a signal by before :func:`chebyshev_apply`, or None.

    Parameters
    ----------
    X : ndarray of shape (n, m)
        The whole signal block (the same on every process of a distributed operator).
    dtype : float32 or float64
        The dtype of the recurrence.
    lmax : float, optional
        The Chebyshev interval's upper end: the products with L reach ``lmax`` times the
        signal, so columns whose peak times ``lmax`` lies near an end of the range are scaled
        too (a Laplacian of weights 1e200 and a signal of 1e150 overflowed in the products).

    Returns
    -------
    exps : int ndarray of shape (m,) or None
        None unless a column is within :math:`2^{64}` of the largest or the smallest normal
        float, where the recurrence's blocks (larger than :math:`\max|x|`) overflow or lose
        bits; then apply to ``np.ldexp(X, -exps)`` and take ``np.ldexp(Y, exps)`` -- exact,
        :math:`\varphi(L)` being linear.
    """
    return _column_exponents(np.asarray(X), np.dtype(dtype), lmax)


def lanczos_apply(op, filters, X, tol=1e-8, max_iter=None, check_every=5, *, null_space="auto"):
    r"""Lanczos evaluation of :math:`\varphi(L) X` on a prepared operator (see :func:`~graphrkhs.lanczos_filter`).

    Parameters
    ----------
    op : PreparedOperator
    filters : list of Filter
    X : ndarray of shape (n, m), internal node order
    tol : float > 0
    max_iter : int, optional
        Krylov dimension cap, default ``min(n, 500)``.
    check_every : int
    null_space : "auto", None or sparse matrix of shape (n, c), default="auto"
        An orthonormal basis of L's null space in the internal node order
        (:func:`laplacian_null_space` of ``op.L``): its part of X gets
        :math:`\varphi(0)` exactly and Lanczos runs on the rest, orthogonal
        to it (see :func:`~graphrkhs.lanczos_filter`).  ``"auto"`` finds it
        for a combinatorial Laplacian (zero row sums to the rounding of
        ``op.dtype``); a normalized Laplacian needs its degrees, so its caller
        passes the basis.  None deflates nothing.

    Returns
    -------
    Y : ndarray of shape (F, n, m)
    n_iter : ndarray of int, shape (m,)
    converged : ndarray of bool, shape (m,)
    """
    n = op.shape[0]
    # checked as lanczos_filter checks them: int("7") and int(2.5) used to pass, 0 ran no iteration
    tol = check_scalar(tol, "tol", low=0, low_inclusive=False)
    max_iter = check_scalar(max_iter, "max_iter", kind="int", low=1, allow_none=True)
    check_every = check_scalar(check_every, "check_every", kind="int", low=1)
    max_iter = min(n, 500) if max_iter is None else min(max_iter, n)
    if isinstance(null_space, str) and null_space == "auto":
        null_space = _laplacian_null_space(op.L, op.dtype) if getattr(op, "is_matrix", False) else None
    elif null_space is not None:
        if not (sp.issparse(null_space) or isinstance(null_space, np.ndarray)) or null_space.ndim != 2 or \
                null_space.shape[0] != n:
            raise ValueError(f"null_space must be 'auto', None or an ({n}, c) matrix with orthonormal columns; "
                             f"got {type(null_space).__name__} of shape {getattr(null_space, 'shape', None)}.")
    return _lanczos_apply(op, filters, X, tol, max_iter, check_every, null_space)


def laplacian_null_space(L, dtype=None, degrees=None):
    r"""Orthonormal basis of a graph Laplacian's null space, or None when it cannot be established exactly.

    One vector per connected component :math:`C` of L's off-diagonal pattern:
    :math:`1_C / \sqrt{|C|}` for the combinatorial :math:`D - W`, and
    :math:`D^{1/2} 1_C / \|D^{1/2} 1_C\|` for the normalized
    :math:`I - D^{-1/2} W D^{-1/2}` when its ``degrees`` are given (L alone
    does not determine them); an isolated node (a zero row) is its own
    component.  The candidate is accepted only if L has no positive
    off-diagonal entry and :math:`|Lv|` is within the rounding of each row's
    sum (:math:`2\,\mathrm{nnz}_i\,\epsilon\,(|L||v|)_i`, :math:`\epsilon`
    of ``dtype``, default L's); else (a shifted Laplacian, a normalized one
    without its degrees, a LinearOperator) the answer is None.

    Parameters
    ----------
    L : sparse matrix of shape (n, n)
    dtype : dtype, optional
        The precision L's entries were computed in (float32 rounds row sums to
        about 1e-7 of the degrees).
    degrees : array of shape (n,), optional
        The degrees :math:`d` of a normalized Laplacian, in L's node order.

    Returns
    -------
    scipy.sparse.csr_array of shape (n, c) or None
    """
    if isinstance(L, spla.LinearOperator) or not sp.issparse(L):
        L = L if isinstance(L, spla.LinearOperator) else sp.csr_array(np.asarray(L))
    return _laplacian_null_space(L, L.dtype if dtype is None else dtype, degrees)


def exact_eigh(L, max_nodes=EXACT_MAX_NODES):
    r"""Dense eigendecomposition :math:`L = U \Lambda U^T` of a symmetric L in float64, size-guarded.

    Returns ``(lam, U)`` as :func:`numpy.linalg.eigh`, except that eigenvalues
    below 0 by rounding only (above :math:`-\max(10^{-8}, 64\epsilon)\max|\lambda|`,
    :math:`\epsilon` of L's dtype) are returned as 0, so that a response defined on
    :math:`[0, \lambda_{max}]` (e.g. :math:`\sqrt\lambda`) is never evaluated at
    :math:`-10^{-16}`; and for a Laplacian (off-diagonal entries :math:`\le 0`,
    zero row sums or a unit diagonal) with c connected components, its c
    smallest eigenvalues are returned as 0 when they are within
    :math:`64\epsilon\max|\lambda|` of it (its null space has dimension c: they
    came out as :math:`+10^{-16}`, which ``Heat(1e16)`` turned into
    :math:`e^{-1}`).  A ``ValueError`` above ``max_nodes`` nodes or for a
    non-symmetric L.
    """
    return _exact_eigh(L, max_nodes)
