"""A transductive regressor given a y without NaN has nothing to transduce: it warns, naming NaN as the
unlabeled marker (and the classifier-style -1s it took as real targets); an inductive regressor does not."""
import re
import warnings

import numpy as np
import pytest

from graphrkhs import (GraphKernelRidgeRegressor, GraphRKHSWarning, GraphTVRegressor,
                       LaplacianRegularizationRegressor, RLSRegressor)


def _data():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 2))
    y = np.sin(X[:, 0])
    return X, y


@pytest.mark.parametrize("Est", [LaplacianRegularizationRegressor, GraphKernelRidgeRegressor, GraphTVRegressor])
def test_minus_one_marker_without_nan_warns(Est):
    X, y = _data()
    y[::3] = -1.0                        # classifier-style unlabeled rows: real targets to a regressor
    with pytest.warns(GraphRKHSWarning, match=r"all 30 rows are labeled and there is nothing to transduce "
                                              r"\(10 of them have the target -1") as rec:
        est = Est(alpha=0.5).fit(X, y)
    assert any("NaN marks an unlabeled row" in str(w.message) and w.filename == __file__ for w in rec)
    np.testing.assert_array_equal(np.isnan(est.transduction_), False)


@pytest.mark.parametrize("Est", [LaplacianRegularizationRegressor, GraphKernelRidgeRegressor, GraphTVRegressor])
def test_all_labeled_without_minus_one_warns_without_the_marker_clause(Est):
    X, y = _data()
    with pytest.warns(GraphRKHSWarning, match="nothing to transduce") as rec:
        Est(alpha=0.5).fit(X, np.c_[y, 2 * y])
    assert not any("-1" in str(w.message) for w in rec)


@pytest.mark.parametrize("Est", [LaplacianRegularizationRegressor, GraphKernelRidgeRegressor, GraphTVRegressor])
def test_nan_rows_do_not_warn(Est):
    X, y = _data()
    y[::3] = np.nan
    with warnings.catch_warnings():
        warnings.simplefilter("error", GraphRKHSWarning)
        Est(alpha=0.5).fit(X, y)


def test_inductive_regressor_all_labeled_is_a_normal_fit():
    X, y = _data()
    y[::3] = -1.0
    with warnings.catch_warnings():
        warnings.simplefilter("error", GraphRKHSWarning)
        RLSRegressor(alpha=0.1, sigma=1.0).fit(X, y)


@pytest.mark.parametrize("name", ["LapRLSRegressor", "PRLSRegressor", "PLapRLSRegressor", "GRLSRegressor",
                                  "FredholmRegressor", "WarpedKernelRegressor"])
def test_semi_supervised_inductive_regressor_names_the_minus_one_targets(name):
    # a semi-supervised learner with no NaN in y and targets at -1: they were fitted as values without a word
    # (LapRLSRegressor predicted -0.85 everywhere on a y with its unlabeled rows at -1); RLS, supervised, stays quiet
    import graphrkhs

    X, y = _data()
    y[::3] = -1.0
    with pytest.warns(GraphRKHSWarning, match=re.escape(
            f"{name}: y has no NaN, so all 30 rows are labeled, 10 of them with the target -1, the classifiers' "
            "unlabeled marker, which is a real value to a regressor. NaN marks an unlabeled row for a regressor: "
            "if those rows are unlabeled, set their targets to np.nan.")) as rec:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", category=graphrkhs.SelectionWarning)
            getattr(graphrkhs, name)().fit(X, y)
    assert any("y has no NaN" in str(w.message) and w.filename == __file__ for w in rec)
    # the same y with NaN for the unlabeled rows: no such warning
    y[::3] = np.nan
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        getattr(graphrkhs, name)().fit(X, y)
    assert not any("y has no NaN" in str(w.message) for w in rec)
