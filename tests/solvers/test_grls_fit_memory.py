"""grls_fit's working memory: about 2 m x m float64 arrays beyond the caller's Phi on both of its branches, as
tracemalloc counts them (numpy's allocations; LAPACK's own copy and workspace inside eigh, another ~3 m x m on the
null-space branch, are not traced: its memory guard counts them, 5.5 m x m, measured 5.16 by RSS).

The Schur-complement branch (m gamma above the rounding level) factors one copy of Phi + m gamma I; the null-space
branch (gamma = 0: interpolation) forms Q^T Phi Q in place by a rank-2q update of one copy (the compact WY form of
the QR of Psi, never the m x m Q) and eigendecomposes it.  An explicit Q, or a second copy kept alive through the
eigendecomposition, raises the peak to 3 m x m or more.  The null-space branch estimates its memory first and
refuses a problem the machine cannot hold with a MemoryError naming the way out.  Oracle: the tracemalloc peak
against the m x m float64 unit, and the documented MemoryError contract.
"""
import tracemalloc

import numpy as np
import pytest

import graphrkhs._core.validation as validation
from graphrkhs import grls_fit, pairwise_kernel


def _problem(m=600):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(m, 3))
    return pairwise_kernel(X, sigma=1.0), np.hstack([np.ones((m, 1)), X]), rng.normal(size=m)


@pytest.mark.parametrize("gamma", [0.0, 1.0])
def test_grls_fit_peak_memory_is_about_two_gram_matrices(gamma):
    Phi, Psi, y = _problem()
    m = y.size
    tracemalloc.start()
    grls_fit(Phi, Psi, y, gamma)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert 1.5 * 8 * m * m < peak < 2.3 * 8 * m * m      # measured 2.02 m^2 float64 on both branches


def test_grls_fit_null_space_branch_refuses_what_does_not_fit(monkeypatch):
    # 5 m x m float64 available: under the 5.16 m^2 measured by RSS (the 3 m^2 estimated before let it run)
    Phi, Psi, y = _problem()
    m = y.size
    monkeypatch.setattr(validation, "_physical_memory", lambda: 5 * 8.0 * m * m / 0.75)
    with pytest.raises(MemoryError, match="larger gamma"):
        grls_fit(Phi, Psi, y, 0.0)
    monkeypatch.setattr(validation, "_physical_memory", lambda: 6 * 8.0 * m * m / 0.75)
    grls_fit(Phi, Psi, y, 0.0)


def test_prls_fit_gamma_zero_refuses_what_does_not_fit(monkeypatch):
    # the gamma = 0 limit's eigendecomposition: 4.12 l^2 float64 measured by RSS, estimated 4.5 l^2
    from graphrkhs import consistency_grams, prls_fit

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    K, Kp, Kpp, _ = consistency_grams(X, None, sigma=1.0)
    y = rng.normal(size=300)
    l = y.size
    monkeypatch.setattr(validation, "_physical_memory", lambda: 4 * 8.0 * l * l / 0.75)
    with pytest.raises(MemoryError, match="gamma > 0"):
        prls_fit(K, Kp, Kpp, y, 0.0)
    monkeypatch.setattr(validation, "_physical_memory", lambda: 5 * 8.0 * l * l / 0.75)
    prls_fit(K, Kp, Kpp, y, 0.0)


def test_prls_fit_stacked_solve_refuses_what_does_not_fit(monkeypatch):
    # gamma > 0: the stacked least-squares solve in K's eigenvector coordinates, measured 9.0 l^2 float64 by RSS
    # (l = 2500) and 10.0 by tracemalloc (l = 1500) beyond K and P, estimated 10 l^2 (6.5 l^2 K's itemsize before:
    # 1.4 times under, and 2.8 times for float32 K, whose stacked matrix is float64 all the same)
    from graphrkhs import consistency_grams, prls_fit

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    K, Kp, Kpp, _ = consistency_grams(X, None, sigma=1.0)
    y = rng.normal(size=300)
    l = y.size
    for dtype in (np.float64, np.float32):
        Kd, Kpd, Kppd = (A.astype(dtype) for A in (K, Kp, Kpp))
        monkeypatch.setattr(validation, "_physical_memory", lambda: 9 * 8.0 * l * l / 0.75)
        with pytest.raises(MemoryError, match="labeled points"):
            prls_fit(Kd, Kpd, Kppd, y.astype(dtype), 1e-3)
        monkeypatch.setattr(validation, "_physical_memory", lambda: 11 * 8.0 * l * l / 0.75)
        alpha, beta = prls_fit(Kd, Kpd, Kppd, y.astype(dtype), 1e-3)
        # alpha like Y (float32 in gave float64 out at gamma > 0, float32 at gamma = 0)
        assert alpha.dtype == dtype and beta.dtype == dtype
