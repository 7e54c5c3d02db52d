r"""Compiled sparse kernels behind the Chebyshev and Lanczos filters.

One fused, row-parallel kernel (numba, ``prange`` over blocks of rows) does
one step of every three-term polynomial recurrence used here:

.. math::

    \mathrm{out}_{i,:} \leftarrow \alpha\,\big(a\,(L\,\mathrm{cur})_{i,:} + b\,\mathrm{cur}_{i,:}\big)
    + \beta\,\mathrm{out}_{i,:} + \gamma\,X_{i,:},
    \qquad R_{f,i,:} \mathrel{+}= w_f\,\mathrm{out}_{i,:}\ (f = 1..F)

* a Chebyshev step :math:`T_{k+1} = 2\tilde L T_k - T_{k-1}` with
  :math:`\tilde L = a L + b I` is ``alpha=2, beta=-1`` writing :math:`T_{k+1}`
  over :math:`T_{k-1}` (row i of the result needs row i of the overwritten
  block only, so the update is safe in place), the bank accumulation
  :math:`R_f \mathrel{+}= c_{f,k+1} T_{k+1}` fused in;
* a Clenshaw step :math:`b_k = c_k X + 2\tilde L b_{k+1} - b_{k+2}` is
  ``alpha=2, beta=-1, gamma=c_k``;
* a plain product :math:`L\,\mathrm{cur}` is ``a=1, b=0, alpha=1, beta=0``.

Fusing reads each block once per step instead of once per BLAS-1 pass, and
the row-parallel loop uses every core (SciPy's sparse products are
single-threaded).  ``beta == 0`` never reads ``out`` (it may hold garbage) and
``gamma == 0`` never reads ``X``.
"""

import numpy as np

try:
    from numba import njit, prange
except ImportError as exc:  # pragma: no cover - numba is a hard dependency
    raise ImportError("graphrkhs needs numba (pip install numba)") from exc

__all__ = []

# Rows handled by one parallel task: large enough to amortize the scheduling,
# small enough to balance two threads on graphs with uneven degrees.
_ROWS_PER_TASK = 2048


@njit(parallel=True, cache=True, nogil=True)
def _fused_step(indptr, indices, data, a, b, alpha, beta, gamma, cur, out, X, weights, R):
    n, m = cur.shape
    n_filters = weights.shape[0]
    n_tasks = (n + _ROWS_PER_TASK - 1) // _ROWS_PER_TASK
    for task in prange(n_tasks):
        start = task * _ROWS_PER_TASK
        stop = min(n, start + _ROWS_PER_TASK)
        acc = np.empty(m, dtype=cur.dtype)
        for i in range(start, stop):
            if m == 1:
                s = 0.0  # float64 accumulation of one row's products
                for p in range(indptr[i], indptr[i + 1]):
                    s += data[p] * cur[indices[p], 0]
                v = alpha * (a * s + b * cur[i, 0])
                if beta != 0:
                    v += beta * out[i, 0]
                if gamma != 0:
                    v += gamma * X[i, 0]
                out[i, 0] = v
                for f in range(n_filters):
                    R[f, i, 0] += weights[f] * v
            else:
                for j in range(m):
                    acc[j] = 0
                for p in range(indptr[i], indptr[i + 1]):
                    w = data[p]
                    col = indices[p]
                    for j in range(m):
                        acc[j] += w * cur[col, j]
                if beta != 0:
                    if gamma != 0:
                        for j in range(m):
                            out[i, j] = alpha * (a * acc[j] + b * cur[i, j]) + beta * out[i, j] + gamma * X[i, j]
                    else:
                        for j in range(m):
                            out[i, j] = alpha * (a * acc[j] + b * cur[i, j]) + beta * out[i, j]
                else:
                    if gamma != 0:
                        for j in range(m):
                            out[i, j] = alpha * (a * acc[j] + b * cur[i, j]) + gamma * X[i, j]
                    else:
                        for j in range(m):
                            out[i, j] = alpha * (a * acc[j] + b * cur[i, j])
                for f in range(n_filters):
                    wf = weights[f]
                    for j in range(m):
                        R[f, i, j] += wf * out[i, j]


def fused_step(L, a, b, alpha, beta, gamma, cur, out, X=None, weights=None, R=None):
    """Run :func:`_fused_step` on a CSR matrix ``L`` (arguments as in the module doc).

    ``cur``, ``out``, ``X`` and ``R`` are C-contiguous blocks of L's dtype;
    ``out`` must not alias ``cur``.
    """
    dtype = cur.dtype.type
    if X is None:
        X = cur[:0]  # never read when gamma == 0
        gamma = 0.0
    if weights is None:
        weights = np.zeros(0, dtype=cur.dtype)
        R = np.zeros((0, 1, 1), dtype=cur.dtype)
    _fused_step(L.indptr, L.indices, L.data, dtype(a), dtype(b), dtype(alpha), dtype(beta), dtype(gamma),
                cur, out, X, weights, R)
    return out
