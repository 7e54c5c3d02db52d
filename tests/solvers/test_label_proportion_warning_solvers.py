"""The plain MBO / CutSSL solvers warn when class_priors=None takes the class sizes from unequal labeled
proportions that rest on too few labels (the rule: graphrkhs._core.labels.untrusted_label_proportions)."""

import warnings

import numpy as np
import pytest

from graphrkhs import GraphRKHSWarning
from graphrkhs.solvers import cut_ssl, poisson_mbo, volume_mbo


def _ours(record):
    return [w for w in record if issubclass(w.category, GraphRKHSWarning) and "class_priors is None" in str(w.message)]


@pytest.mark.parametrize("solver", [poisson_mbo, volume_mbo, cut_ssl])
def test_solvers_warn_on_label_proportions(solver):
    W = np.zeros((8, 8))
    W[:4, :4] = W[4:, 4:] = 1.0
    W[3, 4] = W[4, 3] = 0.1
    np.fill_diagonal(W, 0.0)
    labeled = [0, 4, 5, 6]
    Y = np.eye(2)[[0, 1, 1, 1]]
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        solver(W, labeled, Y)
    found = _ours(record)
    assert len(found) == 1 and "class 0 (column 0 of Y) rests on 1 label(s)" in str(found[0].message)
    assert "one per column of Y" in str(found[0].message) and found[0].filename == __file__
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        solver(W, labeled, Y, class_priors=[0.5, 0.5])
        solver(W, [0, 4], np.eye(2))              # one label per class
    assert _ours(record) == []
