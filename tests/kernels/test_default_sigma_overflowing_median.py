"""default_sigma on points whose median distance is beyond float64 (points near +-1e308): a ValueError naming
X, where it returned 1.0 silently and the Gaussian kernel at that width was the identity matrix. Median
distances just inside the range are still exact."""
import numpy as np
import pytest

from graphrkhs.kernels import default_sigma


@pytest.mark.parametrize("X", [np.array([[-1.5e308], [1.5e308], [1.6e308]]),      # median 3.0e308
                               np.array([[-1e308, -1e308], [1e308, 1e308]])])     # the one distance 2.8e308
def test_overflowing_median_distance_is_a_value_error(X):
    with pytest.raises(ValueError, match=r"median pairwise distance of the points X .*beyond the float64"):
        default_sigma(X)


def test_median_just_inside_the_range_is_exact():
    X = np.array([[-1.7e308], [-1.7e308], [-1.7e308], [1.7e308]])
    # distances 0, 0, 0, 3.4e308 (x3): the median of the six is the mean of 0 and 3.4e308 = 1.7e308
    assert default_sigma(X) == pytest.approx(1.7e308, rel=1e-15)
    assert default_sigma(np.array([[-1e308], [0.0], [1e308]])) == pytest.approx(1e308, rel=1e-15)
