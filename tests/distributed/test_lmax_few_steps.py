"""distributed_lmax is an upper bound on the spectrum whatever ``steps``.

With few Lanczos steps the top Ritz value's residual bound locates some eigenvalue near it, not necessarily the
largest: two components of 10 and 8 nodes (lambda_max 8.12) gave 5.11, 5.95, 6.27 at steps = 1, 2, 3.  An unsettled
Ritz value now gives the Gershgorin bound.  Collective: runs under plain pytest and under mpiexec.
"""
import numpy as np
import pytest
import scipy.sparse as sp

import graphrkhs as gr
from graphrkhs.distributed import DistributedCSR, distributed_lmax


@pytest.mark.parametrize("steps", [1, 2, 3, 5, 8, 40])
def test_the_bound_is_above_the_spectrum(comm, steps):
    B1 = sp.random(10, 10, density=0.4, random_state=2)
    B2 = sp.random(8, 8, density=0.4, random_state=3)
    W = sp.csr_array(sp.block_diag([B1 + B1.T, B2 + B2.T]))
    W.setdiag(0)
    W.eliminate_zeros()
    L = gr.laplacian(W, "combinatorial")
    D = DistributedCSR.from_global(L, comm)
    top = np.linalg.eigvalsh(L.toarray()).max()
    bound = distributed_lmax(D, steps=steps)
    assert top <= bound <= D.gershgorin() * (1 + 1e-12)
