"""The exact LOO of Laplacian regularization (the Kron reduction) estimates its dense l x l memory first.

select_tikhonov_alpha / tikhonov_path_errors / select_tikhonov_solution(method="exact") build an l x l Schur
complement and its eigendecomposition (about 4.2 l x l float64 arrays at their peak, tracemalloc) with no
memory guard: a label set too large failed in numpy with a bare "Unable to allocate ..." (or ran the machine
out of memory).  Oracle: the tracemalloc peak of the unguarded run and the documented MemoryError contract.
"""
import tracemalloc
import warnings

import numpy as np
import pytest

import graphrkhs as g
import graphrkhs._core.validation as validation


def _problem():
    n = 600
    x = np.linspace(0.0, 1.0, n)
    W = g.knn_graph(x[:, None], 6)
    lab = np.arange(0, n, 2)
    return W, lab, np.sin(6 * x[lab])


@pytest.mark.parametrize("call", [
    lambda W, lab, y: g.select_tikhonov_alpha(W, lab, y),
    lambda W, lab, y: g.tikhonov_path_errors(W, lab, y, [0.1, 1.0]),
    lambda W, lab, y: g.select_tikhonov_solution(W, lab, y, method="exact"),
])
def test_kron_reduction_refuses_what_does_not_fit(monkeypatch, call):
    W, lab, y = _problem()
    tracemalloc.start()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        call(W, lab, y)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    l = lab.size
    assert peak > 3 * 8 * l * l          # it does grow with l^2 (2.2 MB at l = 300)
    # a machine with half the memory the call needs: a clear MemoryError naming the way out
    monkeypatch.setattr(validation, "_physical_memory", lambda: 0.5 * peak / 0.75)
    with pytest.raises(MemoryError, match="stochastic"):
        call(W, lab, y)
    # and one with twice the estimate's need still runs (the estimate is not far above the peak)
    monkeypatch.setattr(validation, "_physical_memory", lambda: 2.5 * peak / 0.75)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        call(W, lab, y)
