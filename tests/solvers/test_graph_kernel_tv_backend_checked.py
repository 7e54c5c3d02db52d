"""graph_kernel_tv checks ``backend`` also when a prebuilt GraphKernel (which has its own) leaves it unused: a
misspelt backend had been accepted silently there, while the same call on W refuses it."""

import numpy as np
import pytest

import graphrkhs as gr
from graphrkhs import GraphKernel, filters


@pytest.mark.parametrize("backend", ["bogus", None])
def test_prebuilt_kernel_backend_is_checked(backend):
    W = gr.knn_graph(np.random.default_rng(0).normal(size=(30, 2)), 5)
    K = GraphKernel(W, filters.RegularizedLaplacian(10.0))
    for graph in (W, K):
        with pytest.raises(ValueError, match="backend must be one of"):
            gr.graph_kernel_tv(graph, [0, 5], [1.0, 0.0], backend=backend)
