"""ManifoldRidgePath.basis(0) of LapRLS (no consistency term) is the identity basis E_S, n x l, with no system:
the n x n memory guard of the other ratios (3 n^2 doubles) ran before that branch and refused it where it fits
(n = 3000, l = 750: 252 MB estimated, 18 MB used)."""

import numpy as np
import scipy.sparse as sp

import graphrkhs._core.validation as validation
from graphrkhs.solvers._selection import ManifoldRidgePath


def test_ratio_zero_basis_is_not_refused_by_the_n_by_n_guard(monkeypatch):
    n, l = 400, 100
    rng = np.random.default_rng(0)
    X = rng.random((n, 2))
    K = np.exp(-((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    M = sp.identity(n, format="csr")
    S = np.arange(l)
    # room for the n x l basis (and a margin), far less than three n x n arrays
    limit = 8.0 * 4 * n * l
    assert limit < 8.0 * 3 * n * n
    monkeypatch.setattr(validation, "_physical_memory", lambda: limit / 0.75)
    Z = ManifoldRidgePath(K, S, M).basis(0.0)
    E = np.zeros((n, l))
    E[S, np.arange(l)] = 1.0
    np.testing.assert_array_equal(Z, E)
