"""A LinearOperator's symmetry is tested once per public call (one product with a block of 8 vectors).

chebyshev_filter(lmax=None) tested it three times (itself, lmax, check_psd_spectrum) and lanczos_filter twice
(itself, check_psd_spectrum): 3 and 2 products with 8 columns, plus building the vectors each time (0.25 s
at n = 1e6, more than the product).
"""
import collections

import numpy as np
import pytest
import scipy.sparse.linalg as spla

from graphrkhs import chebyshev_filter, filters, laplacian, lmax
from graphrkhs._core.linalg import symmetry_gap
from graphrkhs.spectral import lanczos_filter, resolve_lmax

DOT_BLOCK = 8       # the dot test's block; every other product here has 1 column (one signal, Lanczos, ARPACK)


class _Counting(spla.LinearOperator):
    """L as an operator that counts its products by number of columns."""

    def __init__(self, L):
        super().__init__(L.dtype, L.shape)
        self.L = L
        self.widths = collections.Counter()

    def _matvec(self, x):
        self.widths[1] += 1
        return self.L @ x

    def _matmat(self, X):
        self.widths[X.shape[1]] += 1
        return self.L @ X

    def _adjoint(self):
        return self


def _normalized_laplacian(n=120, seed=0):
    rng = np.random.default_rng(seed)
    W = np.triu(rng.random((n, n)) < 0.08, 1) * rng.uniform(0.5, 2.0, (n, n))
    return laplacian(W + W.T, "normalized")


CALLS = {
    "chebyshev_filter(lmax=None)": lambda op, x: chebyshev_filter(op, filters.Heat(1.0), x),
    "chebyshev_filter(lmax=2)": lambda op, x: chebyshev_filter(op, filters.Heat(1.0), x, lmax=2.0),
    "lanczos_filter": lambda op, x: lanczos_filter(op, filters.Heat(1.0), x),
    "lmax": lambda op, x: lmax(op),
    "resolve_lmax": lambda op, x: resolve_lmax(op),
}


@pytest.mark.parametrize("call", list(CALLS))
def test_one_symmetry_block_per_call(call):
    L = _normalized_laplacian()
    x = np.random.default_rng(1).normal(size=L.shape[0])
    op = _Counting(L)
    CALLS[call](op, x)
    assert op.widths[DOT_BLOCK] == 1
    assert set(op.widths) <= {1, DOT_BLOCK}
    CALLS[call](op, x)          # the verdict is not kept beyond the call: a second call tests again
    assert op.widths[DOT_BLOCK] == 2


def test_a_refused_call_leaves_nothing_behind():
    # the random-walk Laplacian of a star is refused; the same operator is tested again by the next call
    W = np.zeros((11, 11))
    W[10, :10] = 1.0
    op = _Counting(laplacian(W + W.T, "randomwalk"))
    for k in (1, 2):
        with pytest.raises(ValueError, match="symmetric L"):
            chebyshev_filter(op, filters.Heat(1.0), np.ones(11))
        assert op.widths[DOT_BLOCK] == k


def test_dot_test_is_deterministic_and_exact_on_a_symmetric_operator():
    L = _normalized_laplacian()
    first = symmetry_gap(spla.aslinearoperator(L))
    assert symmetry_gap(spla.aslinearoperator(L)) == first
    gap, scale = first
    assert scale > 0 and gap <= 1e-14 * scale
