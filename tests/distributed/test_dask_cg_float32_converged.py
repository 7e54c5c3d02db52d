"""dask_conjugate_gradient judges a float32 solution as conjugate_gradient does (10 eps of float32 of slack).

With float64's slack, a float32 B at the default tol=1e-8 came back "not converged" with a ConvergenceWarning (a
RuntimeError with on_failure="raise") for an x whose relative residual, 6.6e-8, is float32's rounding: the serial
conjugate_gradient and the MPI distributed_cg report the same x converged, without a word.
"""
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import graphrkhs as gr
from graphrkhs.distributed import mpi_world_size

import distributed  # noqa: E402,F401  (the test extra installs dask[distributed]; no skip hides its absence)

from graphrkhs.distributed._dask import dask_conjugate_gradient  # noqa: E402

pytestmark = pytest.mark.skipif(mpi_world_size() > 1, reason="the Dask tests run in the plain pytest pass "
                                "(tests/distributed, one process)")


@pytest.mark.parametrize("preconditioner", ["none", "amg"])
def test_float32_solution_converged_as_serially(client, preconditioner):
    n = 30
    A = sp.csr_array(sp.diags([-np.ones(n - 1), 2.1 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1]))
    b = np.sin(np.arange(n)).astype(np.float32)
    serial = gr.conjugate_gradient(A, b, tol=1e-8)
    assert serial.converged.all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")           # no ConvergenceWarning, as serially
        res = dask_conjugate_gradient(A, b, client=client, tol=1e-8, preconditioner=preconditioner,
                                      on_failure="raise")
    assert res.x.dtype == np.float32
    assert bool(np.ravel(res.converged)[0])
    b64 = b.astype(np.float64)
    true = np.linalg.norm(b64 - A @ res.x.astype(np.float64)) / np.linalg.norm(b64)
    assert 1e-8 < true <= 1e-8 * 1.01 + 10 * np.finfo(np.float32).eps     # float32's rounding, above tol
    ref = np.linalg.solve(A.toarray(), b64)
    assert np.abs(res.x - ref).max() <= 1e-6 * np.abs(ref).max()
