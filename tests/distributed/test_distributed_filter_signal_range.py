"""``distributed_chebyshev_filter`` on signals near the ends of the floating-point range.

``chebyshev_filter`` (and ``backend="mpi"`` through it) scales such columns by a power of two before the
recurrence, whose blocks exceed max |x|; ``distributed_chebyshev_filter`` -- documented "as
chebyshev_filter" -- did not: a signal column of 1e308 came back NaN (3e38 in float32), and one of 1e-318 lost its digits
to subnormals, silently.  The result
must be the dense oracle's, to the filter's tolerance, with the scale taken from the peaks of every rank's
rows (one rank: plain pytest; two: ``mpiexec -n 2``).
"""

import numpy as np
import pytest
import scipy.sparse as sp

import graphrkhs as gr
from graphrkhs import filters
from graphrkhs.distributed import DistributedCSR, distributed_chebyshev_filter


def _laplacian():
    X = np.random.default_rng(3).random((60, 2))
    W = gr.knn_graph(X, 5)
    return gr.laplacian(sp.block_diag([W, sp.csr_array((2, 2))], format="csr"))   # two isolated nodes too


def _oracle(L, x, t):
    """exp(-t L) x by dense eigh, each column in units of its peak (exact powers of two: phi(L) is linear)."""
    lam, U = np.linalg.eigh(L.toarray())
    x = np.asarray(x, dtype=np.float64)
    e = np.frexp(np.abs(x).max(axis=0))[1]
    return np.ldexp(U @ (np.exp(-t * lam)[:, None] * (U.T @ np.ldexp(x, -e))), e)


@pytest.mark.parametrize("dtype, big, rtol", [(np.float64, 1e308, 1e-7), (np.float32, 3e38, 1e-4)])
def test_signals_near_the_largest_float_are_filtered_not_nan(comm, dtype, big, rtol):
    L = _laplacian()
    n = L.shape[0]
    x = np.where(np.arange(n) % 3 == 0, -0.5, 1.0)[:, None] * np.array([[big, 1.0]])   # one huge, one plain column
    ex = _oracle(L, x, 1.0)        # phi(L) is linear: the oracle's scale does not matter (float64, finite here)
    D = DistributedCSR.from_global(L, comm, dtype=dtype)
    Y = D.gather(distributed_chebyshev_filter(D, filters.Heat(1.0), D.to_internal(x.astype(dtype)), tol=1e-10))
    assert Y.dtype == dtype and np.isfinite(Y).all()
    for j in range(2):
        assert np.abs(Y[:, j] - ex[:, j]).max() <= rtol * np.abs(ex[:, j]).max()
    # 1-D signal and a bank: the same
    y1 = D.gather(distributed_chebyshev_filter(D, filters.Heat(1.0), D.to_internal(x[:, 0].astype(dtype)),
                                               tol=1e-10))
    assert np.abs(y1 - ex[:, 0]).max() <= rtol * np.abs(ex[:, 0]).max()
    Yb = D.gather(distributed_chebyshev_filter(D, [filters.Heat(1.0), filters.Heat(2.0)],
                                               D.to_internal(x.astype(dtype)), tol=1e-10))
    ex2 = _oracle(L, x, 2.0)
    assert np.isfinite(Yb).all()
    assert np.abs(Yb[0, :, 0] - ex[:, 0]).max() <= rtol * np.abs(ex[:, 0]).max()
    assert np.abs(Yb[1, :, 0] - ex2[:, 0]).max() <= rtol * np.abs(ex2[:, 0]).max()


def test_tiny_signals_keep_their_digits(comm):
    L = _laplacian()
    x = np.linspace(-1.0, 1.0, L.shape[0]) * 1e-318                  # subnormal: bits lost without scaling
    ex = _oracle(L, x[:, None], 1.0)[:, 0]
    D = DistributedCSR.from_global(L, comm)
    y = D.gather(distributed_chebyshev_filter(D, filters.Heat(1.0), D.to_internal(x), tol=1e-10))
    assert np.abs(y - ex).max() <= 1e-7 * np.abs(ex).max()
