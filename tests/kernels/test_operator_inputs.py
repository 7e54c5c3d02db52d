"""KernelOperator products refuse non-finite and non-real blocks (they came back as NaN, silently)."""

import numpy as np
import pytest

from graphrkhs import KernelOperator, pairwise_kernel


@pytest.mark.parametrize("cache_bytes", [0, 10**6])          # blockwise and cached dense
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_kernel_operator_refuses_non_finite_blocks(cache_bytes, bad):
    X = np.random.default_rng(0).normal(size=(12, 3))
    op = KernelOperator(X, sigma=1.5, cache_bytes=cache_bytes)
    V = np.ones((12, 2))
    V[3, 1] = bad
    with pytest.raises(ValueError, match="V contains NaN or infinity"):
        op @ V
    with pytest.raises(ValueError, match="V contains NaN or infinity"):
        op.matmat(V[:, 1])
    # finite blocks: the dense product (oracle)
    np.testing.assert_allclose(op @ np.arange(12.0), pairwise_kernel(X, sigma=1.5) @ np.arange(12.0), rtol=1e-12)


def test_kernel_operator_refuses_complex_and_text_blocks():
    op = KernelOperator(np.random.default_rng(0).normal(size=(5, 2)))
    with pytest.raises(TypeError, match="V must be a real numeric array; got dtype complex128"):
        op @ (np.ones(5) + 1j)
    with pytest.raises(TypeError, match="V must be a real numeric array"):
        op @ np.array(["a"] * 5)
