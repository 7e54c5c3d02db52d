"""GraphKernel on a normalized Laplacian whose top eigenvalue is just below 2 (odd cycles, near-bipartite graphs).

The normalized Laplacian's spectrum lies in [0, 2], and in [0, 2) when no connected component is bipartite
(Chung 1997, Lemma 1.7): InverseCosine (cos(pi lambda / 4), 0 at 2) and RandomWalk(2, p) are then positive
definite kernels, which the bound lmax = 2 (or the Lanczos bound's 2.003-2.01) refused.
"""

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs import filters
from graphrkhs.graphs import bipartite_component_count
from graphrkhs.kernels import GraphKernel


def cycle(n):
    i = np.arange(n)
    W = sp.coo_array((np.ones(n), (i, (i + 1) % n)), shape=(n, n))
    return (W + W.T).tocsr()


def with_tail(n):
    """An odd cycle of n nodes with a path of 3 nodes hung on node 0 (irregular: Gershgorin bound 2.22)."""
    W = sp.lil_array((n + 3, n + 3))
    W[: n, : n] = cycle(n)
    for a, b in [(0, n), (n, n + 1), (n + 1, n + 2)]:
        W[a, b] = W[b, a] = 1.0
    return sp.csr_array(W)


def dense_oracle(W, phi):
    d = np.asarray(W.sum(axis=1)).ravel()
    A = W.toarray() / np.sqrt(np.outer(d, d))
    lam, U = np.linalg.eigh(np.eye(len(d)) - A)
    return lam, (U * phi(lam)) @ U.T


@pytest.mark.parametrize("W", [cycle(23), cycle(101), with_tail(23), with_tail(51)],
                         ids=["C23", "C101", "C23+tail", "C51+tail"])
@pytest.mark.parametrize("phi", [filters.InverseCosine(), filters.RandomWalk(2.0, 3)], ids=["invcos", "rw2"])
def test_non_bipartite_accepted_and_positive_definite(W, phi):
    lam, oracle = dense_oracle(W, phi)
    assert lam.max() < 2 - 1e-4          # not bipartite: the kernel is positive definite
    K = GraphKernel(W, phi, laplacian="normalized")
    assert K.lmax <= 2.0                  # the theorem's bound, not the Lanczos margin's 2.003-2.01
    n = W.shape[0]
    Kd = K @ np.eye(n)
    np.testing.assert_allclose(Kd, oracle, atol=1e-7 * np.abs(oracle).max())
    assert np.linalg.eigvalsh((Kd + Kd.T) / 2).min() > 0.5 * phi(lam.max())


def test_float32_bound_rounding_to_two():
    # float32: the bound 1.99999994 rounds to 2 when the response is evaluated in float32
    K = GraphKernel(cycle(23).astype(np.float32), filters.InverseCosine(), laplacian="normalized")
    assert K.dtype == np.float32


@pytest.mark.parametrize("W", [cycle(24), sp.csr_array(sp.block_diag([cycle(23), cycle(4)]))],
                         ids=["C24", "C23+C4"])
def test_bipartite_component_still_refused(W):
    # an even cycle (as a component) has the eigenvalue 2, where both responses are 0: only semi-definite
    assert bipartite_component_count(W) == 1
    for phi in (filters.InverseCosine(), filters.RandomWalk(2.0, 3)):
        with pytest.raises(ValueError, match="not strictly positive on"):
            GraphKernel(W, phi, laplacian="normalized")


def test_bipartite_component_count():
    empty = sp.csr_array((3, 3))
    W = sp.csr_array(sp.block_diag([cycle(4), cycle(5), cycle(6), empty, cycle(3)]))
    assert bipartite_component_count(W) == 2
    assert bipartite_component_count(empty) == 0
    # an upper triangle is read as the graph, the diagonal (a Laplacian's) ignored
    assert bipartite_component_count(sp.triu(cycle(6)) + sp.eye(6)) == 1
