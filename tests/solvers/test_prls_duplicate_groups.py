"""PRLS's leave-one-out leaves identical labeled points out together (leave-group-out), like every other
learner's: left out alone, a point's copy stays among the labels (and in PRLS's expansion), its residual is
near 0 and the selection favoured the fits that interpolate."""
import warnings

import numpy as np
from sklearn.datasets import make_moons

from graphrkhs import PRLSRegressor
from graphrkhs._core.loo import duplicate_groups
from graphrkhs.solvers import consistency_grams, prls_fit, prls_loo_errors


def _data():
    X, _ = make_moons(40, noise=0.1, random_state=0)
    y = np.sin(3 * X[:10, 0]) + 0.1 * np.random.default_rng(0).standard_normal(10)
    XS, yS = np.r_[X[:10], X[:3]], np.r_[y, y[:3]]            # points 0, 1, 2 labeled twice
    return X, XS, yS


def _refit_group_residuals(K, Kp, Kpp, y, gamma, groups):
    """Brute force: prls_fit on the labels without each row's whole group (the points stay in L_K's sum: the
    grams are sub-matrices), with the full fit's weight gamma l (prls_fit's 1/(l - k) loss scaling undone)."""
    l = y.size
    Psi = np.ones((l, 1))
    out = np.empty(l)
    for i in range(l):
        keep = groups != groups[i]
        sub = np.ix_(keep, keep)
        coef, b = prls_fit(K[sub], Kp[sub], Kpp[sub], y[keep], gamma * l / keep.sum(), Psi[keep])
        out[i] = y[i] - float(K[i, keep] @ coef + Psi[i] @ b)
    return out


def test_prls_loo_with_groups_is_the_refit_without_the_group():
    X, XS, y = _data()
    K, Kp, Kpp, _ = consistency_grams(XS, X, sigma=0.5)
    groups = duplicate_groups(XS)
    gammas = np.array([1e-4, 1e-2, 1.0])
    scores, _ = prls_loo_errors(K, Kp, Kpp, y, gammas, loo_groups=groups)
    expected = [-np.mean(_refit_group_residuals(K, Kp, Kpp, y, g, groups) ** 2) for g in gammas]
    np.testing.assert_allclose(scores, expected, rtol=1e-6)
    # without groups, the rows of the repeated points score their copy's fit: another criterion
    plain, _ = prls_loo_errors(K, Kp, Kpp, y, gammas)
    assert not np.allclose(plain, expected, rtol=1e-3)


def test_prls_regressor_selects_by_the_refits_without_each_group_and_does_not_warn():
    X, XS, y = _data()
    Xall = np.r_[X, X[:3]]
    yall = np.r_[y[:10], np.full(30, np.nan), y[10:]]
    gammas = [1e-4, 1e-2, 1.0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = PRLSRegressor(sigma=0.5, gamma=gammas).fit(Xall, yall)
    assert not [w for w in caught if "repeat other labeled" in str(w.message)]     # was warned, not grouped
    groups = duplicate_groups(XS)
    np.testing.assert_array_equal(est._loo_groups, groups)
    K, Kp, Kpp, _ = consistency_grams(XS, Xall, sigma=0.5)          # L_K on all rows, the copies included
    expected = [-np.mean(_refit_group_residuals(K, Kp, Kpp, y, g, groups) ** 2) for g in gammas]
    np.testing.assert_allclose(est.cv_results_["mean_test_score"], expected, rtol=1e-6)
