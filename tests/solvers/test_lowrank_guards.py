"""select_laprls_lowrank and nystrom_laprls_fit at their limits: memory estimated before the work, rounding of
the graph term at a huge gamma_I."""

import numpy as np
import pytest

import graphrkhs.solvers._lowrank as lowrank
from graphrkhs import graph_penalty, knn_graph, select_laprls_lowrank
from graphrkhs._core import validation


def test_select_laprls_lowrank_estimates_its_exact_step_before_the_surrogate(monkeypatch):
    """n = 200: one n x n float64 array is 312.5 KiB, the exact step's three 937.5 KiB.  On a machine whose
    limit (3/4 of its memory) is 600 KiB, each single array passed pairwise_kernel's guard, so the whole
    surrogate selection ran (and at a real n the exact step would then run out of memory); now a
    MemoryError naming the n x n arrays and the low-rank alternative comes first, before any Nystrom work."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2))
    M = graph_penalty(knn_graph(X, 5))
    S = np.arange(0, 200, 20)
    y = np.where(X[S, 0] > 0, 1.0, -1.0)

    class NoWork:
        def __init__(self, *a, **k):
            raise AssertionError("the surrogate selection started before the memory estimate")

    monkeypatch.setattr(lowrank, "NystromFeatures", NoWork)
    monkeypatch.setattr(validation, "_physical_memory", lambda: 800 * 2**10)      # limit 600 KiB
    with pytest.raises(MemoryError, match=r"200 x 200.*select_nystrom_laprls"):
        select_laprls_lowrank(X, S, y, M, [0.5, 1.0], n_components=16)


def test_nystrom_laprls_fit_graph_term_of_constant_features_vanishes():
    """F = constants: F^T M F = 1^T L 1 = 0 exactly (M 1 = 0), so every gamma_I gives the gamma_I = 0 fit.
    Computed, F^T M F is rounding of either sign (-2.4e-15 here), and gamma_I = 1e23 (what the selection of
    LapRLSClassifier(solver="nystrom") chose on identical points) made the system indefinite: LinAlgError.
    The selection's surrogate clips the negative eigenvalues of F^T M F at 0; the fit now does the same."""
    from graphrkhs import nystrom_laprls_fit

    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 2))
    M = graph_penalty(knn_graph(X, 5))
    F = np.ones((60, 1))
    assert (F.T @ (M @ F))[0, 0] < 0            # the rounding this test is about
    S = np.arange(0, 60, 10)
    y = rng.normal(size=6)
    w0 = nystrom_laprls_fit(F, S, y, M, 1e-2, 0.0)
    np.testing.assert_allclose(nystrom_laprls_fit(F, S, y, M, 1e-2, 1e23), w0, rtol=1e-12)
    np.testing.assert_allclose(w0, y.sum() / (6 + 1e-2 * 6), rtol=1e-12)   # (F_S^T F_S + gamma_A l) w = F_S^T y


def test_laprls_nystrom_on_identical_points_fits():
    """Every point identical: LapRLSClassifier(solver="nystrom") raised LinAlgError (see above); the function
    is then a constant, the same at every point."""
    from graphrkhs import LapRLSClassifier

    X = np.zeros((60, 2))
    y = np.full(60, -1)
    y[[0, 1, 2, 30, 31, 32]] = [0, 0, 0, 1, 1, 1]
    d = LapRLSClassifier(solver="nystrom").fit(X, y).decision_function(X)
    assert np.isfinite(d).all() and np.ptp(d) == 0


def test_nystrom_plaprls_fit_graph_term_of_constant_features_vanishes():
    """PLapRLS with F = constants and Psi = constants: f = w + beta is a constant, M 1 = 0, so the graph term
    is exactly 0 and every gamma_I gives f = mean(y) on the labeled points (the only unpenalized direction
    is the constant).  Computed, [F Psi]^T M [F Psi] is rounding of either sign, and gamma_I = 1e23 made
    the normal equations indefinite (LinAlgError); its PSD part is used now, as in nystrom_laprls_fit."""
    from graphrkhs import nystrom_plaprls_fit

    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 2))
    M = graph_penalty(knn_graph(X, 5))
    F = np.ones((60, 1))
    S = np.arange(0, 60, 10)
    y = rng.normal(size=6)
    for gamma_I in (0.0, 1.0, 1e23):
        w, b = nystrom_plaprls_fit(F, S, y, M, 1e-2, gamma_I)
        np.testing.assert_allclose(w[0] + b[0], y.mean(), rtol=1e-10)
