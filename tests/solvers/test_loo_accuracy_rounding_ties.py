"""loo_scores(scoring="accuracy"): a LOO decision within the residuals' rounding is a tie, counted wrong as a
prediction of exactly 0 is.  Its sign was rounding noise decided by the order of the rows:
FredholmClassifier(normalized=True) with 2 labels per class on moons predicted +-1.1e-16 at every held-out label
at its smallest width, scored "accuracy" 0.75 in one row order (and chose that width, sigma 0.075) and 0.25 in
another (sigma 2.4): decision values 1.2 apart."""

import warnings

import numpy as np
from sklearn.datasets import make_circles, make_moons

import graphrkhs as gr
from graphrkhs.solvers import loo_scores


def test_rounding_level_predictions_are_ties():
    y = np.array([1.0, -1.0, 1.0, -1.0])
    eps = np.finfo(np.float64).eps
    # predictions y - R of +-1 ulp with the labels' signs: no decision (as exact zeros), accuracy 0
    for P in (np.array([eps, -eps, eps, -eps]) / 2, np.zeros(4), np.array([1e-15, -1e-15, 1e-15, -1e-15])):
        acc, _ = loo_scores((y - P)[:, None], y, "accuracy")
        assert acc == 0.0
    # a decision above the rounding level counts: 3 of 4 signs right
    acc, _ = loo_scores((y - np.array([1e-12, -1e-12, 1e-12, 1e-12]))[:, None], y, "accuracy")
    assert acc == 0.75
    # one-hot columns: the two largest predictions within rounding tie; a gap of 1e-12 decides
    Y = np.eye(3)[[0, 1, 2]]
    P = np.array([[0.5, 0.5 - 1e-17, 0.0], [0.1, 0.6, 0.6 - 1e-12], [0.3, 0.0, 0.9]])
    acc, _ = loo_scores((Y - P)[None], Y, "accuracy")
    assert np.isclose(acc[0], 2 / 3)


def _fredholm_data(trial):
    rng = np.random.default_rng(trial)
    X, y = (make_moons(80, noise=0.15, random_state=trial) if trial % 3 == 0
            else make_circles(80, noise=0.08, factor=0.5, random_state=trial))
    lab = np.concatenate([rng.choice(np.flatnonzero(y == c), 2, replace=False) for c in np.unique(y)])
    yp = np.full(80, -1)
    yp[lab] = y[lab]
    return X, yp, rng.normal(size=(20, 2))


def test_fredholm_normalized_auto_does_not_depend_on_the_row_order():
    X, yp, T = _fredholm_data(24)
    perm = np.random.default_rng(100).permutation(80)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = gr.FredholmClassifier(normalized=True).fit(X, yp)
        b = gr.FredholmClassifier(normalized=True).fit(X[perm], yp[perm])
    assert a.sigma_ == b.sigma_
    np.testing.assert_allclose(b.alpha_, a.alpha_, rtol=1e-9)
    assert np.abs(a.decision_function(T) - b.decision_function(T)).max() <= 1e-8


def test_small_correct_decisions_of_many_labels_count():
    # 100 labels, every LOO decision 1e-13 with the label's sign (a heavily regularized fit: GraphKernelRidge at
    # alpha 1e14 on the digits predicts at that scale): accuracy 1.  A tie rule that grew with l (16 l eps,
    # 3.5e-13 here) counted them all wrong
    y = np.where(np.arange(100) % 2 == 0, 1.0, -1.0)
    acc, _ = loo_scores((y - 1e-13 * y)[:, None], y, "accuracy")
    assert acc == 1.0
    Y = np.eye(2)[(np.arange(100) % 2)]
    acc, _ = loo_scores((Y - (0.5 + 1e-13 * (Y - 0.5)))[None], Y, "accuracy")
    assert acc[0] == 1.0
