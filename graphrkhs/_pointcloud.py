r"""Point-cloud kernels k(x, z) on R^d, evaluated blockwise.

Conventions (shared by every learner):

* ``"gaussian"``: :math:`k(x, z) = \exp(-\|x - z\|^2 / (2\sigma^2))`;
* ``"heat"``: the Gaussian written as a heat kernel with :math:`t = \sigma^2 / 2`,
  :math:`K_t(x, z) = (4\pi t)^{-m/2} \exp(-\|x - z\|^2 / (4t))`, ``m`` the
  (intrinsic) dimension; see :func:`heat_kernel`;
* ``"linear"``: :math:`k(x, z) = x^T z`;
* ``"polynomial"``: :math:`k(x, z) = (x^T z + c_0)^p`;
* a callable ``k(A, B) -> ndarray (len(A), len(B))``.
"""

import numpy as np

from ._validation import check_option, check_points, check_scalar

__all__ = ["pairwise_kernel", "gaussian_kernel", "linear_kernel", "polynomial_kernel", "KERNELS"]

KERNELS = ("gaussian", "heat", "linear", "polynomial")

# Bytes of one output block when a kernel matrix is evaluated blockwise.
BLOCK_BYTES = 128 * 2**20


def _sq_dists(A, B):
    """Squared Euclidean distances, clipped at 0 (the expansion can round below)."""
    D = np.einsum("ij,ij->i", A, A)[:, None] + np.einsum("ij,ij->i", B, B)[None, :] - 2.0 * (A @ B.T)
    np.maximum(D, 0, out=D)
    return D


def gaussian_kernel(A, B=None, sigma=1.0):
    r"""Gaussian kernel :math:`\exp(-\|a - b\|^2 / (2\sigma^2))` between the rows of A and B.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import gaussian_kernel
    >>> float(gaussian_kernel(np.zeros((1, 2)), np.ones((1, 2)), sigma=1.0)[0, 0]) == float(np.exp(-1.0))
    True
    """
    sigma = check_scalar(sigma, "sigma", low=0, low_inclusive=False)
    return pairwise_kernel(A, B, kernel="gaussian", sigma=sigma)


def linear_kernel(A, B=None):
    """Linear kernel :math:`a^T b`."""
    return pairwise_kernel(A, B, kernel="linear")


def polynomial_kernel(A, B=None, degree=2, coef0=1.0):
    """Polynomial kernel :math:`(a^T b + c_0)^p`."""
    return pairwise_kernel(A, B, kernel="polynomial", degree=degree, coef0=coef0)


def pairwise_kernel(A, B=None, kernel="gaussian", *, sigma=1.0, degree=2, coef0=1.0, m=None,
                    block_bytes=BLOCK_BYTES):
    r"""Kernel matrix :math:`K_{ij} = k(a_i, b_j)`, computed in row blocks.

    Parameters
    ----------
    A : array of shape (n_a, d)
    B : array of shape (n_b, d), optional
        None means ``A``.
    kernel : {"gaussian", "heat", "linear", "polynomial"} or callable
        See the module documentation.  A callable gets two point blocks.
    sigma : float > 0
        Gaussian width; the heat kernel uses :math:`t = \sigma^2/2`.
    degree, coef0
        Polynomial kernel parameters.
    m : int, optional
        Dimension in the heat normalization :math:`(4\pi t)^{-m/2}`; default d.
    block_bytes : int
        Memory of one block of rows of the temporary distance matrix.

    Returns
    -------
    K : ndarray of shape (n_a, n_b), in A's float dtype (float32 stays float32).
    """
    A = check_points(A, "A")
    B = A if B is None else check_points(B, "B")
    if A.shape[1] != B.shape[1]:
        raise ValueError(f"A and B must have the same number of features; got {A.shape[1]} and {B.shape[1]}.")
    dtype = np.result_type(A.dtype, B.dtype)
    A = A.astype(dtype, copy=False)
    B = B.astype(dtype, copy=False)
    if callable(kernel):
        K = np.asarray(kernel(A, B))
        if K.shape != (A.shape[0], B.shape[0]):
            raise ValueError(f"the kernel callable returned shape {K.shape}; expected {(A.shape[0], B.shape[0])}.")
        return K
    check_option(kernel, "kernel", KERNELS)
    if kernel in ("gaussian", "heat"):
        sigma = check_scalar(sigma, "sigma", low=0, low_inclusive=False)
    if kernel == "polynomial":
        degree = check_scalar(degree, "degree", kind="int", low=1)
        coef0 = check_scalar(coef0, "coef0")
    out = np.empty((A.shape[0], B.shape[0]), dtype=dtype)
    rows = max(1, int(block_bytes // (max(1, B.shape[0]) * np.dtype(dtype).itemsize)))
    if kernel == "heat":
        t = sigma * sigma / 2.0
        dim = A.shape[1] if m is None else check_scalar(m, "m", kind="int", low=1)
        # log of the normalization, exponentiated together with the Gaussian so that
        # (4 pi t)^(-m/2) cannot under/overflow on its own in high dimension.
        log_norm = -0.5 * dim * np.log(4.0 * np.pi * t)
    for s in range(0, A.shape[0], rows):
        blk = A[s:s + rows]
        if kernel == "linear":
            out[s:s + rows] = blk @ B.T
        elif kernel == "polynomial":
            out[s:s + rows] = (blk @ B.T + coef0) ** degree
        elif kernel == "gaussian":
            out[s:s + rows] = np.exp(_sq_dists(blk, B) * (-0.5 / sigma**2))
        else:
            out[s:s + rows] = np.exp(log_norm - _sq_dists(blk, B) / (4.0 * t))
    return out
