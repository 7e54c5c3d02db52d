"""PLapRLS at one label per class uses the documented gamma_A = 1e-6, gamma_I = 1e6 on every path.

Its Nystrom path and its heat operator took the other fallback, gamma_I = 100 (two moons, one label per class:
0.805 and 0.800 against the direct path's 0.850).
"""
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_moons

from graphrkhs import PLapRLSClassifier


@pytest.mark.parametrize("options", [{"solver": "nystrom", "n_components": 200}, {"integral_operator": "heat"},
                                     {"solver": "direct"}])
def test_one_label_per_class_is_graph_dominated_on_every_path(options):
    X, y = make_moons(200, noise=0.1, random_state=0)
    labels = np.full(200, -1)
    labels[np.flatnonzero(y == 0)[0]] = 0
    labels[np.flatnonzero(y == 1)[0]] = 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = PLapRLSClassifier(random_state=0, **options).fit(X, labels)
    assert (clf.gamma_A_, clf.gamma_I_) == (1e-6, 1e6)
