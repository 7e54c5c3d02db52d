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
    import numba
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


@njit(parallel=True, cache=True, nogil=True)
def _fused_step_1(indptr, indices, data, a, b, alpha, beta, gamma, cur, out, X, weights, R):
    """The single-column case of :func:`_fused_step` on 1-D blocks (scalar accumulator)."""
    n = cur.shape[0]
    n_filters = weights.shape[0]
    n_tasks = (n + _ROWS_PER_TASK - 1) // _ROWS_PER_TASK
    use_out = beta != 0
    use_x = gamma != 0
    for task in prange(n_tasks):
        start = task * _ROWS_PER_TASK
        stop = min(n, start + _ROWS_PER_TASK)
        for i in range(start, stop):
            s = 0.0
            for p in range(indptr[i], indptr[i + 1]):
                s += data[p] * cur[indices[p]]
            v = alpha * (a * s + b * cur[i])
            if use_out:
                v += beta * out[i]
            if use_x:
                v += gamma * X[i]
            out[i] = v
            for f in range(n_filters):
                R[f, i] += weights[f] * v


def _unsigned(a):
    return a.view(np.uint32) if a.dtype == np.int32 else (a.view(np.uint64) if a.dtype == np.int64 else a)


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
    # Dynamic scheduling of the row blocks: on a machine shared with other
    # processes a descheduled thread then delays one block, not half the rows
    # (measured: static halves made a 2-thread step 10x slower under load).
    # Unsigned indices spare the compiled loop numba's negative-index wraparound test.
    indptr, indices = _unsigned(L.indptr), _unsigned(L.indices)
    args = (dtype(a), dtype(b), dtype(alpha), dtype(beta), dtype(gamma))
    with numba.parallel_chunksize(1):
        if cur.shape[1] == 1:
            _fused_step_1(indptr, indices, L.data, *args, cur[:, 0], out[:, 0], X[:, 0],
                          weights, R[:, :, 0])
        else:
            _fused_step(indptr, indices, L.data, *args, cur, out, X, weights, R)
    return out
