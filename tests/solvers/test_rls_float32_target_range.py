"""rls_fit on a float32 Gram matrix with float64 targets outside float32's range.

The solve runs in K's dtype with Y cast to it: targets of 1e39 .. 1e150 became inf and the coefficients came back
inf (alpha > 0) or NaN (alpha = 0), and targets of 1e-50 became 0 with zero coefficients, silently; 1e200 raised
"beyond float64's range (below 2^1024)" for a result of 2^665.  The float32 solve now runs in units of a power of
two of Y (exact), and coefficients float32 cannot hold are a ValueError naming Y and K's dtype.
"""
import numpy as np
import pytest

from graphrkhs.solvers import rls_fit

K32 = np.array([[1.0, 0.5], [0.5, 1.0]], dtype=np.float32)
Y = np.array([1.0, -1.0])


def _oracle(scale, alpha):
    return np.linalg.solve(K32.astype(np.float64) + alpha * 2 * np.eye(2), Y * scale)


@pytest.mark.parametrize("scale", [1e-30, 1e-20, 1.0, 1e20, 1e37])
@pytest.mark.parametrize("alpha", [0.0, 1.0])
def test_in_range_targets_keep_float32_accuracy(scale, alpha):
    C = rls_fit(K32, Y * scale, alpha)
    assert C.dtype == np.float32
    assert np.allclose(C, _oracle(scale, alpha), rtol=1e-5, atol=0)


@pytest.mark.parametrize("scale", [1e39, 1e100, 1e200, 1e-42, 1e-50, 1e-200])
@pytest.mark.parametrize("alpha", [0.0, 1.0])
def test_out_of_range_targets_raise(scale, alpha):
    with pytest.raises(ValueError, match="float32"):
        rls_fit(K32, Y * scale, alpha)
