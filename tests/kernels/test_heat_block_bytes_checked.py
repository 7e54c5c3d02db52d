"""heat_kernel / heat_semigroup check block_bytes as pairwise_kernel does (an int >= 1, named in the error); a
valid value still gives the same kernel as the default block size."""
import numpy as np
import pytest

from graphrkhs import heat_kernel, heat_semigroup, pairwise_kernel

X = np.random.default_rng(0).normal(size=(6, 2))


@pytest.mark.parametrize("block_bytes, exc", [(-5, ValueError), (0, ValueError), (2.5, TypeError),
                                              ("abc", TypeError), (float("nan"), TypeError)])
def test_invalid_block_bytes_refused(block_bytes, exc):
    with pytest.raises(exc, match="block_bytes"):
        heat_kernel(X, block_bytes=block_bytes)
    with pytest.raises(exc, match="block_bytes"):
        heat_semigroup(X, block_bytes=block_bytes)
    with pytest.raises(exc, match="block_bytes"):
        pairwise_kernel(X, block_bytes=block_bytes)


def test_small_blocks_same_kernel():
    D = ((X[:, None] - X[None]) ** 2).sum(-1)
    for s, K in zip((1, 2, 3), heat_semigroup(X, sigma=0.7, block_bytes=8)):
        np.testing.assert_allclose(K, s ** -1.0 * np.exp(-D / (2 * s * 0.49)), rtol=1e-13)
