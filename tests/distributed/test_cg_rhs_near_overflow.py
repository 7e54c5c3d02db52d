"""Distributed CG on right-hand sides near the largest float.

``conjugate_gradient`` solves each column in units of a power of two of its peak; with ``allreduce`` (the
distributed path: ``distributed_cg``) the peak was the *sum* of the processes' maxima, which overflowed for
B ~ 1e308 on two processes: no column was scaled, CG stopped at x = 0 after 0 iterations (relative error 1)
where the serial solve is exact.  The first test runs under plain pytest (one rank) and ``mpiexec -n 2``;
the second is the same situation in one process: an ``allreduce`` that stands for two processes holding the
same rows (the system diag(A, A) with B twice, whose solution is A^-1 B on each).
"""

import numpy as np
import scipy.sparse as sp

import graphrkhs as gr
from graphrkhs.distributed import DistributedCSR, distributed_cg


def _system():
    X = np.random.default_rng(5).random((40, 2))
    A = sp.csr_array(gr.laplacian(gr.knn_graph(X, 4)) + sp.eye_array(40))
    b = np.where(np.arange(40) % 2 == 0, -1.0, 1.0) * 1e308
    x = np.linalg.solve(A.toarray(), b * 2.0 ** -1000) * 2.0 ** 1000      # the oracle, in exact units
    return A, b, x


def test_distributed_cg_solves_a_right_hand_side_of_1e308(comm):
    A, b, x = _system()
    D = DistributedCSR.from_global(A, comm)
    for pc in ("none", "jacobi"):
        res = distributed_cg(D, D.to_internal(b), tol=1e-10, preconditioner=pc, on_failure="raise")
        got = D.gather(res.x)          # 1-D, as b (it was (n, 1) before session 37)
        assert np.isfinite(got).all() and bool(res.converged.all())
        assert np.abs(got - x).max() <= 1e-9 * np.abs(x).max()


def test_conjugate_gradient_with_an_allreduce_over_two_processes_near_overflow():
    A, b, x = _system()
    res = gr.conjugate_gradient(A, np.c_[b, b * 1e-300], tol=1e-10, allreduce=lambda a: 2.0 * np.asarray(a),
                                on_failure="raise")
    assert bool(res.converged.all()) and res.n_iter > 0
    assert np.abs(res.x[:, 0] - x).max() <= 1e-9 * np.abs(x).max()
    assert np.abs(res.x[:, 1] - x * 1e-300).max() <= 1e-9 * np.abs(x * 1e-300).max()


def test_conjugate_gradient_with_an_allreduce_over_two_processes_subnormal_rhs():
    """The other end: a column whose peak is the smallest subnormal (5e-324).  Dividing every process's peak
    by the number of processes rounded it to 0: the column got exponent 1, ldexp turned it into 0, and CG
    returned x = 0 after 0 iterations as converged; the solution's entries are up to 0.6 units of 5e-324."""
    A, _, _ = _system()
    b = np.zeros(40)
    b[3] = 5e-324
    unit = np.linalg.solve(A.toarray(), np.eye(40)[3])          # x in units of the smallest subnormal
    res = gr.conjugate_gradient(A, b, tol=1e-10, allreduce=lambda a: 2.0 * np.asarray(a), on_failure="raise")
    assert res.n_iter > 0 and np.abs(res.x).max() > 0
    assert np.abs(res.x / 5e-324 - unit).max() <= 1.0           # each entry rounds to a whole number of units
