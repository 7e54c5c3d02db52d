"""pairwise_kernel's dtype with mixed float32 / float64 points: float32 only when both are float32 (the
documented rule; the docstring said "A's float dtype", which float32 A with float64 B contradicted)."""
import numpy as np

from graphrkhs.kernels import pairwise_kernel


def test_mixed_dtypes_promote_and_docstring_says_so():
    rng = np.random.default_rng(0)
    A32 = rng.normal(size=(3, 2)).astype(np.float32)
    B64 = rng.normal(size=(2, 2))
    assert pairwise_kernel(A32, B64).dtype == np.float64
    assert pairwise_kernel(B64, A32).dtype == np.float64
    assert pairwise_kernel(A32, B64.astype(np.float32)).dtype == np.float32
    assert pairwise_kernel(A32).dtype == np.float32
    doc = " ".join(pairwise_kernel.__doc__.split())
    assert "in A's float dtype" not in doc
    assert "float32 only when both are float32" in doc
