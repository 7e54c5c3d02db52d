"""The dot test of a LinearOperator's symmetry keeps its power as n grows.

Its bare ratio max |z_i^T A z_j - z_j^T A z_i| / (2 max |A z_i|) falls like 1/sqrt(n) for a fixed relative
asymmetry: a sparse matrix of 3e4 rows whose skew part is 1e-5 of its largest entry measured 2.4e-7 and passed
the 1e-6 tolerance as symmetric (the same matrix is refused at 1e-10 when given as a matrix).  The gap is now
scaled by sqrt(n); symmetric operators of the same size still pass.
"""

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import graphrkhs as g
from graphrkhs._core.linalg import operator_symmetry_rtol, symmetry_gap

N = 30_000


def sparse_pair(rel):
    rng = np.random.default_rng(0)
    A = sp.random_array((N, N), density=10 / N, random_state=rng, format="csr")
    S = sp.csr_array((A + A.T) / 2)
    E = sp.random_array((N, N), density=10 / N, random_state=rng, format="csr")
    E = sp.csr_array(E - E.T)
    return S, sp.csr_array(S + (rel * abs(S).max() / abs(E).max()) * E)


def test_small_relative_asymmetry_of_a_large_operator_is_refused():
    S, M = sparse_pair(1e-5)
    gap, scale = symmetry_gap(M, "L")
    assert gap > 1e-10 * scale                         # the matrix itself is refused
    with pytest.raises(ValueError, match="lmax needs a symmetric L"):
        g.lmax(spla.aslinearoperator(M))
    gap, scale = symmetry_gap(spla.aslinearoperator(M), "L")
    assert gap > 10 * operator_symmetry_rtol(np.float64) * scale
    # the symmetric part passes, in float64 and computed in float32 behind a float64 operator
    gap, scale = symmetry_gap(spla.aslinearoperator(S), "L")
    assert gap <= 1e-12 * scale
    S32 = S.astype(np.float32)
    op32 = spla.LinearOperator(S.shape, matvec=lambda x: (S32 @ x.astype(np.float32)).astype(np.float64),
                               matmat=lambda X: (S32 @ X.astype(np.float32)).astype(np.float64), dtype=np.float64)
    gap, scale = symmetry_gap(op32, "L")
    assert gap <= operator_symmetry_rtol(np.float64) * scale / 4
