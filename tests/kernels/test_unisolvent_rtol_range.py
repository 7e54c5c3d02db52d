"""unisolvent_points refuses rtol >= 1 up front, naming rtol (the pivots of a pivoted QR decrease, so
|R_qq| <= rtol |R_11| held for every Psi and the error spoke of "numerical rank 0")."""
import numpy as np
import pytest

from graphrkhs.kernels import unisolvent_points


@pytest.mark.parametrize("rtol", [1.0, 2.0])
def test_rtol_at_least_one_is_refused_naming_rtol(rtol):
    x = np.array([0.0, 1.0, 2.0, 3.0])
    Psi = np.column_stack([np.ones(4), x])          # unisolvent on any two distinct points
    with pytest.raises(ValueError, match=r"rtol must be < 1"):
        unisolvent_points(Psi, rtol=rtol)


def test_rtol_just_below_one_still_works():
    Psi = np.eye(3)                                  # all pivots equal: 0.5 accepts them
    assert sorted(unisolvent_points(Psi, rtol=0.5).tolist()) == [0, 1, 2]
