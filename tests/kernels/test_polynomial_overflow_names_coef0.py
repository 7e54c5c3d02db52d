"""The polynomial kernel's overflow error names coef0 when coef0, not the points, leaves the range: (x^T z + 1e300)^2
of unit-scale points quoted |a^T b| ~ 1e0 and asked to rescale the points (which changes nothing)."""
import numpy as np
import pytest

from graphrkhs import pairwise_kernel

X = np.random.default_rng(0).normal(size=(4, 2))


@pytest.mark.parametrize("coef0, degree", [(1e300, 2), (1e160, 2), (-1e200, 3)])
def test_coef0_named(coef0, degree):
    with pytest.raises(ValueError, match="pass a smaller coef0") as info:
        pairwise_kernel(X, kernel="polynomial", coef0=coef0, degree=degree)
    assert "rescale the points" not in str(info.value)
    # the same points with a representable offset are fine: (x^T z + c)^p by its formula
    np.testing.assert_allclose(pairwise_kernel(X, kernel="polynomial", coef0=1e50, degree=degree),
                               (X @ X.T + 1e50) ** degree, rtol=1e-13)


def test_points_still_named_when_they_overflow():
    with pytest.raises(ValueError, match="rescale the points"):
        pairwise_kernel(X * 1e200, kernel="polynomial", coef0=1.0, degree=2)
