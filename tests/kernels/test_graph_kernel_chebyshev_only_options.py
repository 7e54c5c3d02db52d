"""GraphKernel's Chebyshev options (order, damping, max_order) with method="lanczos" / "exact".

They were accepted and ignored: GraphKernel(L, Heat(1), method="lanczos", order=2) applied the kernel to
1e-15 (Lanczos to tol) instead of the degree-2 series asked for, without a word.
"""

import numpy as np
import pytest

from graphrkhs import GraphKernel, filters


def _path():
    W = np.diag(np.ones(9), 1)
    return W + W.T


@pytest.mark.parametrize("method", ["lanczos", "exact"])
@pytest.mark.parametrize("option, value", [("order", 2), ("damping", "jackson"), ("max_order", 50)])
def test_chebyshev_options_refused_with_other_methods(method, option, value):
    with pytest.raises(ValueError, match=f"{option}=.*method='{method}'"):
        GraphKernel(_path(), filters.Heat(1.0), method=method, **{option: value})


@pytest.mark.parametrize("method", ["chebyshev", "lanczos", "exact"])
def test_defaults_still_accepted(method):
    K = GraphKernel(_path(), filters.Heat(1.0), method=method, max_order=1000)
    assert K.shape == (10, 10)


def test_chebyshev_takes_them():
    K = GraphKernel(_path(), filters.Heat(1.0), order=2, damping="jackson", tol=1.0)
    assert K.order == 2
