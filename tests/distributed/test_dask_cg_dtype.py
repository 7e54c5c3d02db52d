"""dask_conjugate_gradient returns the solution in B's dtype, as conjugate_gradient does.

A float32 right-hand side came back as a float64 solution (the serial solver returns float32).  The iteration
still runs in float64; only the returned x is in B's dtype (float32 stays float32, anything else float64).
"""
import numpy as np
import pytest
import scipy.sparse as sp

import graphrkhs as gr
from graphrkhs.distributed import mpi_world_size

import distributed  # noqa: E402,F401  (the test extra installs dask[distributed]; no skip hides its absence)

from graphrkhs.distributed._dask import dask_conjugate_gradient  # noqa: E402

pytestmark = pytest.mark.skipif(mpi_world_size() > 1, reason="the Dask tests run in the plain pytest pass "
                                "(tests/distributed, one process)")


def test_solution_dtype_follows_the_right_hand_side(client):
    n = 30
    A = sp.csr_array(sp.diags([-np.ones(n - 1), 2.1 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1]))
    b = np.sin(np.arange(n))
    x_ref = np.linalg.solve(A.toarray(), b)
    for B, dtype in ((b.astype(np.float32), np.float32), (b, np.float64), (np.round(10 * b).astype(np.int64), np.float64)):
        serial = gr.conjugate_gradient(A, B, tol=1e-6)
        res = dask_conjugate_gradient(A, B, client=client, tol=1e-6)
        assert res.x.dtype == serial.x.dtype == dtype
        ref = np.linalg.solve(A.toarray(), B.astype(np.float64))
        assert np.abs(res.x - ref).max() <= 1e-5 * np.abs(ref).max()
    res = dask_conjugate_gradient(A, np.c_[b, b].astype(np.float32), client=client, tol=1e-6)
    assert res.x.dtype == np.float32 and res.x.shape == (n, 2)
    assert np.abs(res.x - x_ref[:, None]).max() <= 1e-5 * np.abs(x_ref).max()


def test_reported_residual_is_that_of_the_returned_float32_solution(client):
    # review of b972523: the residuals and the converged flags were those of the float64 iterate (1.7e-15,
    # converged at tol 1e-8) while the float32 x returned has a relative residual of about 6.6e-8
    import warnings
    n = 30
    A = sp.csr_array(sp.diags([-np.ones(n - 1), 2.1 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1]))
    b = np.sin(np.arange(n)).astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = dask_conjugate_gradient(A, b, client=client, tol=1e-8)
    b64 = b.astype(np.float64)
    true = np.linalg.norm(b64 - A @ res.x.astype(np.float64)) / np.linalg.norm(b64)
    assert res.x.dtype == np.float32
    assert np.isclose(float(np.ravel(res.residual_norms)[0]), true, rtol=1e-6, atol=0)
    # judged as conjugate_gradient judges a float32 x: 10 eps of float32 of slack (test_dask_cg_float32_converged)
    assert bool(np.ravel(res.converged)[0]) == (true <= 1e-8 * 1.01 + 10 * np.finfo(np.float32).eps)
