"""graph_kernel_tv(compute_f=...) takes True or False only (check_flag), as return_info does."""

import numpy as np
import pytest

from graphrkhs import graph_kernel_tv


@pytest.mark.parametrize("value", ["False", "no", None, 0])
def test_compute_f_must_be_a_bool(value):
    W = np.diag(np.ones(5), 1)
    W = W + W.T
    # before: "False" and "no" (truthy) ran the final Chebyshev pass and returned f; None returned None
    with pytest.raises(TypeError, match="compute_f must be True or False"):
        graph_kernel_tv(W, [0, 5], np.array([0.0, 1.0]), alpha=0.1, compute_f=value)


def test_compute_f_bools_still_work():
    W = np.diag(np.ones(5), 1)
    W = W + W.T
    F, res = graph_kernel_tv(W, [0, 5], np.array([0.0, 1.0]), alpha=0.1, compute_f=np.bool_(False),
                             return_info=True)
    assert F is None and res.sources.shape == (6,)
    assert graph_kernel_tv(W, [0, 5], np.array([0.0, 1.0]), alpha=0.1, compute_f=True).shape == (6,)
