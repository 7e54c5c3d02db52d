r"""Dense linear algebra shared by the kernel and solver layers.

Kernel-type matrices reach the solvers either as arrays or as operators that
apply themselves blockwise (:class:`graphrkhs.KernelOperator`, a
:class:`scipy.sparse.linalg.LinearOperator`); the helpers here treat both
alike by duck typing (``matmat`` / ``toarray`` / ``shape``), so that this
module needs no higher layer.
"""

import numpy as np
import scipy.linalg as sla

__all__ = ["apply_matrix", "dense_matrix", "n_rows", "psd_solve", "check_square"]


def check_square(K, name="K", dtype=None):
    """K as a finite square (l, l) array (``dtype`` if given), or a ``ValueError`` naming ``name``."""
    K = np.asarray(K, dtype=dtype)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(f"{name} must be a square (l, l) kernel matrix; got shape {K.shape}.")
    if not np.isfinite(K).all():
        raise ValueError(f"{name} contains NaN or infinity.")
    return K


def apply_matrix(K, V):
    """``K @ V`` for an array, a sparse matrix or an operator with ``matmat`` (blockwise kernels)."""
    return K.matmat(V) if hasattr(K, "matmat") and np.ndim(V) == 2 else K @ V


def dense_matrix(K):
    """The dense array of K (``K.toarray()`` for operators and sparse matrices)."""
    return K.toarray() if hasattr(K, "toarray") else np.asarray(K)


def n_rows(K):
    """Number of rows of an array, sparse matrix or operator."""
    return K.shape[0] if hasattr(K, "shape") else np.asarray(K).shape[0]


def psd_solve(A, B):
    r"""Solve :math:`A X = B` for symmetric positive *semi*-definite A by Cholesky.

    A diagonal shift :math:`\epsilon I`, :math:`\epsilon = n\,\mathrm{eps}\,\max_i A_{ii}`
    (the size of the rounding error in forming A), makes the factorization
    exist when A is singular to working precision (Gaussian Gram matrices);
    it is raised 100-fold at most three times if Cholesky still fails.
    Directions damped by the shift carry functions of RKHS norm at rounding
    level, so the fitted function is unaffected.

    Parameters
    ----------
    A : ndarray of shape (n, n)
        Symmetric positive semidefinite.
    B : ndarray of shape (n,) or (n, k)

    Returns
    -------
    ndarray like B

    Raises
    ------
    numpy.linalg.LinAlgError
        When A is indefinite beyond rounding (Cholesky fails after the shifts).
    """
    A = np.asarray(A)
    n = A.shape[0]
    if n == 0:
        return np.zeros_like(B)
    eps = np.finfo(A.dtype).eps
    top = float(np.max(np.abs(np.diag(A))))
    shift = 0.0
    for attempt in range(4):  # at most three growing shifts
        try:
            Ashift = A if shift == 0.0 else A + shift * np.eye(n, dtype=A.dtype)
            c = sla.cho_factor(Ashift, lower=True, check_finite=False)
            return sla.cho_solve(c, B, check_finite=False)
        except np.linalg.LinAlgError:
            shift = n * eps * max(top, np.finfo(A.dtype).tiny) * (100.0 ** attempt)
    raise np.linalg.LinAlgError(
        "the system matrix is not positive semidefinite (Cholesky failed even with a diagonal shift of "
        f"{shift:.1e}); check that the kernel is positive definite and the weights non-negative."
    )
