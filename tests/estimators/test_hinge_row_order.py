"""The hinge-loss classifiers (Fredholm, warped) do not depend on the order of the training rows.

libsvm stops at a KKT violation of ``tol``; at scikit-learn's default 1e-3 permuting the training rows moved the
decision values by 3-5e-4 (relative) and flipped 1-4 of 14400 grid predictions.  The SVMs now stop at 1e-7.
"""
import warnings

import numpy as np
import pytest

import graphrkhs


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("name", ["FredholmClassifier", "WarpedKernelClassifier"])
def test_permuting_the_training_rows_keeps_the_hinge_fit(name, n_classes):
    rng = np.random.default_rng(0)
    X = np.repeat([[0.0, 0.0], [3.0, 0.0], [0.0, 3.0]], 20, axis=0) + rng.normal(scale=1.2, size=(60, 2))
    y = np.full(60, -1)
    lab = np.r_[0:5, 20:25, 40:45]
    y[lab] = np.repeat([0, 1, 2], 5)
    if n_classes == 2:
        y[y == 2] = 1
    grid = np.linspace(-3, 6, 40)
    X_new = np.array([(a, b) for a in grid for b in grid])
    E = getattr(graphrkhs, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = E(loss="hinge", random_state=0).fit(X, y)
        d_ref = ref.decision_function(X_new)
        for seed in range(3):
            perm = np.random.default_rng(seed).permutation(60)
            d = E(loss="hinge", random_state=0).fit(X[perm], y[perm]).decision_function(X_new)
            assert np.abs(d - d_ref).max() <= 1e-6 * np.abs(d_ref).max(), seed
