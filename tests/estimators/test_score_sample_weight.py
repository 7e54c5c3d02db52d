"""``score(X, y, sample_weight)``: a ``sample_weight`` of the wrong length raised numpy's ``IndexError: boolean index
did not match indexed array along axis 0; size of axis is 5 but size of corresponding boolean axis is 40`` (the
mask of y's labeled rows applied to it), naming no argument, where scikit-learn's scorers raise a ValueError; a
number raised ``IndexError: too many indices for array``.  Now a ValueError names sample_weight, and a number
weighs every row alike (the unweighted score)."""
import warnings

import numpy as np
import pytest

from graphrkhs import LaplacianRegularizationClassifier, RLSClassifier, RLSRegressor


def _fitted():
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(size=(20, 2)), rng.normal(size=(20, 2)) + 4.0]
    y = np.full(40, -1)
    y[[0, 1, 2, 20, 21]] = [0, 0, 0, 1, 1]
    truth = np.repeat([0, 1], 20)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ests = [(RLSClassifier(sigma=1.0, alpha=1e-2).fit(X, y), truth),
                (LaplacianRegularizationClassifier(n_neighbors=4, alpha=0.1).fit(X, y), truth),
                (RLSRegressor(sigma=1.0, alpha=1e-2).fit(X, np.where(y == -1, np.nan, y)), truth + 0.1 * X[:, 0])]
    return X, ests


@pytest.mark.parametrize("length", [5, 41])
def test_a_sample_weight_of_another_length_is_named(length):
    X, ests = _fitted()
    for est, truth in ests:
        with pytest.raises(ValueError, match=r"sample_weight must have one entry per row of X \(40"):
            est.score(X, truth, sample_weight=np.ones(length))


def test_a_number_weighs_every_row_alike():
    X, ests = _fitted()
    for est, truth in ests:
        y = truth.astype(float)
        y[::4] = np.nan                                   # unlabeled rows left out, as without weights
        assert est.score(X, y, sample_weight=2.0) == est.score(X, y)
