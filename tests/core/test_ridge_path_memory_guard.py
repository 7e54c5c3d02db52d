"""KernelRidgePath (select_ridge_alpha, ridge_path_errors, rls_loo_error, graph_kernel_ridge_loo) estimates the
memory of its l x l eigendecomposition first.

Unguarded, it allocated about 2 x 8 l^2 bytes beside the caller's K (tracemalloc, l = 400), plus LAPACK's work
arrays, with no estimate.  Oracle: the tracemalloc peak and the documented MemoryError contract.
"""
import tracemalloc

import numpy as np
import pytest

import graphrkhs as g
import graphrkhs._core.validation as validation


def _problem():
    x = np.linspace(0.0, 1.0, 400)
    return np.exp(-(x[:, None] - x[None]) ** 2 / 0.02), np.sin(6 * x)


@pytest.mark.parametrize("call", [
    lambda K, y: g.KernelRidgePath(K),
    lambda K, y: g.select_ridge_alpha(K, y, [0.01, 0.1], extend=False),
    lambda K, y: g.ridge_path_errors(K, y, [0.01, 0.1]),
])
def test_ridge_path_refuses_what_does_not_fit(monkeypatch, call):
    K, y = _problem()
    tracemalloc.start()
    call(K, y)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    l = K.shape[0]
    assert peak > 1.5 * 8 * l * l
    monkeypatch.setattr(validation, "_physical_memory", lambda: 0.5 * peak / 0.75)
    with pytest.raises(MemoryError, match="ridge path"):
        call(K, y)
    monkeypatch.setattr(validation, "_physical_memory", lambda: 2.5 * peak / 0.75)
    call(K, y)
