"""DistributedCSR.gather on a filter bank's (F, n_own) responses to one signal (distributed_chebyshev_filter on a
1-D block): gather's doc promised (F, n_own, ...) blocks, but a 2-D block was read as (n_own, m) and failed
inside numpy ("shape mismatch: value array of shape (4,11) could not be broadcast ...").  node_axis=1 gathers
it (equal to the serial chebyshev_filter); without it a node axis of the wrong length is a ValueError naming
node_axis, on every rank.  Runs under plain pytest and under ``mpiexec -n 2``."""

import numpy as np
import pytest
import scipy.sparse as sp

import graphrkhs as gr
from graphrkhs import filters
from graphrkhs.distributed import DistributedCSR, distributed_chebyshev_filter


def test_gather_of_a_bank_response_to_one_signal(comm):
    rng = np.random.default_rng(0)
    L = sp.csr_array(gr.laplacian(gr.knn_graph(rng.normal(size=(20, 2)), 4)))
    x = rng.normal(size=20)
    bank = [filters.Heat(1.0), filters.Heat(2.0)]
    D = DistributedCSR.from_global(L, comm)
    Y = distributed_chebyshev_filter(D, bank, x[D.owned], tol=1e-12)
    assert Y.shape == (2, D.shape[0])
    got = D.gather(Y, node_axis=1)
    ref = gr.chebyshev_filter(L, bank, x, tol=1e-12)
    assert got.shape == ref.shape == (2, 20)
    assert np.abs(got - ref).max() <= 1e-12
    with pytest.raises(ValueError, match="node_axis=1"):
        D.gather(Y)
