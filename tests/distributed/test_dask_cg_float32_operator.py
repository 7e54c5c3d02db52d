"""dask_conjugate_gradient on a float32 DaskOperator with a float64 right-hand side follows the serial rule of
conjugate_gradient (products in float32 only when A and B are both float32): the products ran in float32, the
solution was 1.8e-7 off at tol=1e-13 with a "did not reach tol" warning, where the serial CG on the same float32
matrix is 8e-15 off."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import graphrkhs as gr

import distributed  # noqa: F401  (the test extra installs dask[distributed]; no skip hides its absence)

from graphrkhs.distributed import DaskOperator, dask_conjugate_gradient, mpi_world_size

pytestmark = pytest.mark.skipif(mpi_world_size() > 1, reason="the Dask tests run in the plain pytest pass "
                                "(test_dask.py's convention)")


def _system():
    rng = np.random.default_rng(0)
    n = 40
    W = (gr.knn_graph(rng.normal(size=(n, 2)), 4) > 0).astype(np.float64) * 3.0
    A32 = sp.csr_array(gr.laplacian(sp.csr_array(W)) + sp.eye_array(n)).astype(np.float32)
    B = rng.normal(size=(n, 2)) + 1 / 3                      # not representable in float32
    return A32, B, np.linalg.solve(A32.toarray().astype(np.float64), B)   # the oracle: A's float32 entries


@pytest.mark.parametrize("pc", ["none", "jacobi"])
def test_float32_dask_operator_keeps_a_float64_right_hand_side_accurate(client, pc):
    A32, B, exact = _system()
    op = DaskOperator(A32, client, dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = dask_conjugate_gradient(op, B, tol=1e-13, preconditioner=pc)
    serial = gr.conjugate_gradient(A32, B, tol=1e-13)
    assert res.x.dtype == np.float64 and bool(res.converged.all())
    assert np.abs(serial.x - exact).max() <= 1e-11 * np.abs(exact).max()
    assert np.abs(res.x - exact).max() <= 1e-11 * np.abs(exact).max()


def test_float32_dask_operator_with_a_float32_right_hand_side_returns_float32(client):
    A32, B, exact = _system()
    op = DaskOperator(A32, client, dtype=np.float32)
    res = dask_conjugate_gradient(op, B.astype(np.float32), tol=1e-5, preconditioner="none")
    assert res.x.dtype == np.float32
    assert np.abs(res.x - exact).max() <= 1e-4 * np.abs(exact).max()
