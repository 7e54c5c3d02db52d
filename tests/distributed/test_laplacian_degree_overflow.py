"""``laplacian(W, kind, backend="mpi" | "dask")`` on an adjacency whose degrees overflow the float range.

The serial build scales W down by a power of two when a degree overflows (the normalized and random-walk
Laplacians do not depend on the scale of W); the row-distributed builds raised "the degrees (row sums) of W
overflow float64: pass finite degrees=, or scale W down" instead -- an argument ``laplacian`` does not have.
They must give the serial matrix, entry for entry, and the dense formula.  The MPI test runs under plain
pytest (one rank) and under ``mpiexec -n 2`` (two row blocks); the Dask one in the one-process pass.
"""

import warnings

import numpy as np
import pytest

import graphrkhs as gr
from graphrkhs.distributed import mpi_world_size


def _graph(dtype):
    big = 1e308 if dtype == np.float64 else 3e38            # two such weights in a row overflow its degree
    W = np.zeros((5, 5))
    W[0, 1] = W[0, 2] = big
    W[2, 3] = 1.0
    W[3, 4] = 0.5 * big
    return (W + W.T).astype(dtype)


def _dense(W, kind):
    """The formula on W / 2^1000 (float64, far from overflow; the forms do not depend on the scale of W)."""
    V = W.astype(np.float64) * 2.0 ** -1000 if W.dtype == np.float64 else W.astype(np.float64)
    d = V.sum(axis=1)
    if kind == "normalized":
        return np.eye(len(d)) - V / np.sqrt(np.outer(d, d))
    return np.eye(len(d)) - V / d[:, None]


def _check(W, kind, backend):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        L = gr.laplacian(W, kind, backend=backend)
    L_serial = gr.laplacian(W, kind, backend="numpy")
    assert L.dtype == W.dtype
    assert np.array_equal(L.indptr, L_serial.indptr) and np.array_equal(L.indices, L_serial.indices)
    assert np.array_equal(L.data, L_serial.data)
    rtol = 1e-6 if W.dtype == np.float32 else 1e-14
    np.testing.assert_allclose(L.toarray(), _dense(W, kind), rtol=rtol, atol=rtol)
    # and no "overflow encountered in reduceat" leaking out of the degrees (the serial build keeps it in)
    assert not [w for w in caught if issubclass(w.category, RuntimeWarning)]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("kind", ["normalized", "randomwalk"])
def test_mpi_laplacian_of_overflowing_degrees_is_the_serial_one(kind, dtype):
    _check(_graph(dtype), kind, "mpi")


@pytest.mark.skipif(mpi_world_size() > 1, reason="the Dask tests run in the plain pytest pass (one process), not "
                                                 "on every MPI rank")
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("kind", ["normalized", "randomwalk"])
def test_dask_laplacian_of_overflowing_degrees_is_the_serial_one(kind, dtype, request):
    request.getfixturevalue("client")
    _check(_graph(dtype), kind, "dask")


def test_the_combinatorial_laplacian_still_refuses_overflowing_degrees():
    # D - W is not representable: a ValueError as serially
    with pytest.raises(ValueError, match="overflow"):
        gr.laplacian(_graph(np.float64), "combinatorial", backend="mpi")
