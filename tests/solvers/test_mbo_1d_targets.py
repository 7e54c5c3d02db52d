"""The MBO solvers given a 1-D Y (class codes instead of one-hot indicators) say what Y must be."""

import numpy as np
import pytest

from graphrkhs.solvers import cut_ssl, poisson_mbo, volume_mbo


@pytest.mark.parametrize("solver", [poisson_mbo, volume_mbo, cut_ssl])
@pytest.mark.parametrize("Y", [np.array([0, 1]), np.array([[0.0], [1.0]])])
def test_mbo_one_column_targets_ask_for_one_hot_indicators(solver, Y):
    # before: "Y must have at least two columns (one-hot classes)." with no hint that class codes are not taken
    W = np.diag(np.ones(9), 1)
    W = W + W.T                                  # path on 10 nodes
    with pytest.raises(ValueError, match=r"Y must hold one-hot class indicators of shape \(len\(labeled\), k\).*"
                                         r"np\.eye\(k\)\[codes\].*got Y of shape " + re_shape(Y)):
        solver(W, [0, 9], Y)


def re_shape(Y):
    return r"\(" + r", ".join(map(str, Y.shape)) + (r",\)" if Y.ndim == 1 else r"\)")
