"""distributed_cg returns x of B's shape, as the serial conjugate_gradient: a 1-D right-hand side gave an
(n_own, 1) x (the serial solver returns (n,)).  Runs under plain pytest and under ``mpiexec -n 2``."""

import numpy as np
import scipy.sparse as sp

import graphrkhs as gr
from graphrkhs.distributed import DistributedCSR, distributed_cg


def _system():
    X = np.random.default_rng(0).normal(size=(30, 2))
    return sp.csr_array(gr.laplacian(gr.knn_graph(X, 4)) + sp.eye_array(30)), np.linspace(-1.0, 2.0, 30)


def test_distributed_cg_keeps_a_vector_right_hand_side_one_dimensional(comm):
    A, b = _system()
    D = DistributedCSR.from_global(A, comm)
    serial = gr.conjugate_gradient(A, b, tol=1e-12)
    for pc in ("none", "jacobi"):
        res = distributed_cg(D, b[D.owned], tol=1e-12, preconditioner=pc, on_failure="raise")
        assert res.x.shape == (D.shape[0],) and serial.x.shape == (30,)
        x = D.gather(res.x)
        assert x.shape == (30,)
        assert np.abs(x - np.linalg.solve(A.toarray(), b)).max() <= 1e-9


def test_distributed_cg_keeps_a_one_column_block_two_dimensional(comm):
    A, b = _system()
    D = DistributedCSR.from_global(A, comm)
    res = distributed_cg(D, b[D.owned][:, None], tol=1e-12, preconditioner="none", on_failure="raise")
    assert res.x.shape == (D.shape[0], 1)
