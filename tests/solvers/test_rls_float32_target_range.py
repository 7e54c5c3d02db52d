"""rls_fit on a float32 Gram matrix with float64 targets outside float32's range.

The solve runs in K's dtype with Y cast to it: targets of 1e39 .. 1e150 became inf and the coefficients came back
inf (alpha > 0) or NaN (alpha = 0), and targets of 1e-50 became 0 with zero coefficients, silently; 1e200 raised
"beyond float64's range (below 2^1024)" for a result of 2^665.  The float32 solve now runs in units of a power of
two of Y (exact), and coefficients float32 cannot hold are a ValueError naming Y and K's dtype.
"""
import numpy as np
import pytest

from graphrkhs.solvers import grls_fit, rls_fit

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


@pytest.mark.parametrize("alpha", [0.0, 0.1])
def test_columns_in_very_different_units_each_keep_float32_accuracy(alpha):
    # one power of two for all columns put a column 1e50 times smaller than another below float32's range:
    # its coefficients came back 0 without a word (rls_fit and grls_fit); one power a column keeps each
    rng = np.random.default_rng(0)
    B = rng.normal(size=(6, 6))
    K = B @ B.T + 6 * np.eye(6)
    Y = np.c_[rng.normal(size=6) * 1e30, rng.normal(size=6) * 1e-20, rng.normal(size=6)]
    expected = np.linalg.solve(K + alpha * 6 * np.eye(6), Y)          # float64 oracle
    got = rls_fit(K.astype(np.float32), Y, alpha)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=0)
    Psi = np.ones((6, 1))
    c64, b64 = grls_fit(K, Psi, Y, alpha)
    c32, b32 = grls_fit(K.astype(np.float32), Psi.astype(np.float32), Y, alpha)
    for j in range(3):
        np.testing.assert_allclose(c32[:, j], c64[:, j], rtol=0, atol=1e-4 * np.abs(c64[:, j]).max())
        np.testing.assert_allclose(b32[:, j], b64[:, j], rtol=0, atol=1e-4 * np.abs(c64[:, j]).max())
