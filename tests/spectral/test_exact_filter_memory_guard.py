"""exact_filter / exact_eigh estimate their dense memory first (about six n x n float64 arrays at eigh's peak,
measured 5.3 at n = 2000; then U^T X and per filter its product and stacked copy, measured 11 n^2 float64 in all for
4 filters on n = m = 2000) and raise a MemoryError naming the way out; they were guarded by max_nodes=5000 only,
under which a bank of 10 filters on np.eye(5000) needs about 4.6 GB. The limit is lowered with
validation._physical_memory so that a small problem stands for a large one."""

import numpy as np
import pytest

from graphrkhs import exact_filter, filters
from graphrkhs._core import validation
from graphrkhs.spectral import exact_eigh


n = 400
L = 2.0 * np.eye(n) - np.eye(n, k=1) - np.eye(n, k=-1)
L[0, 0] = L[-1, -1] = 1.0                    # combinatorial Laplacian of a path
bank = [filters.Heat(1.0), filters.Heat(2.0), filters.Heat(3.0)]


def test_bank_on_many_signals_refused(monkeypatch):
    # limit 12 MiB; 8 (n^2 + (2 * 3 + 2) n m) with m = 1000: 25.6 MB
    monkeypatch.setattr(validation, "_physical_memory", lambda: 16 * 2**20)
    with pytest.raises(MemoryError, match=r"dense eigendecomposition of a 400 x 400 L .* 3 filtered block\(s\) of "
                                          r"400 x 1000 .* use chebyshev_filter or lanczos_filter"):
        exact_filter(L, bank, np.ones((n, 1000)))


def test_eigendecomposition_alone_refused(monkeypatch):
    monkeypatch.setattr(validation, "_physical_memory", lambda: 4 * 2**20)     # 3 MiB < 6 * 8 * 400^2 = 7.7 MB
    with pytest.raises(MemoryError, match=r"dense eigendecomposition of a 400 x 400 L"):
        exact_eigh(L)


def test_one_signal_fits_and_matches_dense_oracle(monkeypatch):
    monkeypatch.setattr(validation, "_physical_memory", lambda: 16 * 2**20)
    x = np.cos(np.arange(n))
    lam, U = np.linalg.eigh(L)
    np.testing.assert_allclose(exact_filter(L, filters.Heat(1.0), x), U @ (np.exp(-lam) * (U.T @ x)), atol=1e-12)
