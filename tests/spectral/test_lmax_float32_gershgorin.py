"""lmax of a float32 Laplacian is an upper bound on the top eigenvalue of its entries (its docstring: "an upper bound
on the largest eigenvalue"; "gershgorin is a proof"). The Gershgorin row sums were taken in float32 and rounded below
the bound they prove: the normalized Laplacian of K_{22,22} in float32 (off-diagonal entries 1/22 rounded up) has top
eigenvalue 2.0000000298 (dense float64 eigvalsh of its entries); lmax returned 2.0, one float32 step under it."""

import warnings
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs import laplacian, lmax


def _complete_bipartite(a, b):
    return sp.csr_array(sp.bmat([[None, sp.csr_array(np.ones((a, b)))], [sp.csr_array(np.ones((b, a))), None]]))


def _top(L):
    return float(np.linalg.eigvalsh(L.toarray().astype(np.float64)).max())


def test_k22_22_float32_normalized():
    L = laplacian(_complete_bipartite(22, 22), "normalized", dtype=np.float32)
    # the top eigenvalue of the float32 entries, exactly: a unit diagonal and one value -c on the edges of
    # K_{22,22} (adjacency eigenvalues +-22) give 1 + 22 c, exact in float64 (c has 24 bits).  eigvalsh's
    # 2.000000029802323 is one float64 step above it, which lmax's exact bound was asserted to reach
    A = L.toarray().astype(np.float64)
    edges = A[~np.eye(44, dtype=bool)]
    c = -edges[edges != 0]
    assert c.size == 2 * 22 * 22 and np.all(c == c[0]) and np.all(np.diag(A) == 1.0)
    top = 1.0 + 22 * c[0]
    assert Fraction(top) == 1 + 22 * Fraction(float(c[0]))   # no rounding in the oracle
    assert top > 2.0                           # the float32 entries' own spectrum
    assert abs(_top(L) - top) <= 4 * np.finfo(np.float64).eps * top    # the dense eigensolver agrees
    assert lmax(L) >= top
    assert lmax(L, "gershgorin") >= top
    assert lmax(L.toarray()) >= top            # dense input too


@pytest.mark.parametrize("kind", ["normalized", "combinatorial"])
def test_generated_graphs_float32(kind):
    rng = np.random.default_rng(0)
    graphs = [_complete_bipartite(a, b) for a in range(1, 40, 3) for b in (a, a + 5)]
    for _ in range(20):                        # weighted bipartite graphs, n up to 100 (both lmax paths)
        a, b = rng.integers(2, 50, size=2)
        B = sp.random(a, b, density=0.6, random_state=int(rng.integers(2**31)))
        B.data = rng.choice([0.5, 1.0, 3.0], size=B.nnz)
        graphs.append(sp.csr_array(sp.bmat([[None, B], [B.T, None]])))
    for W in graphs:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")    # isolated nodes of the random ones
            L = laplacian(W, kind, dtype=np.float32)
        top = _top(L)
        # float64 eigvalsh's own rounding: a few eps64 relative
        assert lmax(L) >= top * (1 - 1e-14), (W.shape, lmax(L), top)
        assert lmax(L, "gershgorin") >= top * (1 - 1e-14), (W.shape, lmax(L, "gershgorin"), top)
