"""select_laprls_lowrank's exact step holds three n x n arrays (K, M K, the LU of I + rho' M K): the memory
estimate is made before the surrogate selection, not found out after it."""

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
