"""Graph TV regression at targets near float64's largest value: the same fit, scaled.

Both TV problems are homogeneous, f(c y, c mu) = c f(y, mu), and ``graph_tv`` / ``graph_kernel_tv`` solve in
units of a power of two near max |y|.  But the kernel operator's sources (f = Phi s) run to ten times max |y|,
and they were scaled back before f was formed:

* ``graph_kernel_tv`` on targets of 1.5e307 raised "X contains NaN or infinity" although its f is finite;
* ``GraphTVRegressor()`` at 5e307: every cross-validation fold's f overflowed (NaN CV errors), R="auto"
  chose by them, and the fit came back 23 % off the fit of y / 5e307 scaled back;
* at 1.2e308 the range of the labels overflowed in the degenerate-plateau check (which then skipped the
  graph-TV candidate's check silently).
"""
import numpy as np
import pytest

from graphrkhs import GraphKernel, graph_kernel_tv, knn_graph, laplacian
from graphrkhs.estimators import GraphTVRegressor
from graphrkhs.filters import Matern


def _problem(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=n)
    labeled = np.sort(rng.choice(n, 30, replace=False))
    return X, y, labeled


def test_kernel_tv_sources_beyond_float64_f_within():
    X, y, S = _problem()
    K = GraphKernel(laplacian(knn_graph(X, 10)), Matern(2, 10), input="laplacian")
    f1, res1 = graph_kernel_tv(K, S, y[S], alpha=0.1, return_info=True)
    # a scale at which the largest source overflows and f does not (the sources reach ~15 max |y|, f ~10)
    top_s = np.abs(res1.sources).max() / np.abs(y[S]).max()
    top_f = np.abs(f1).max() / np.abs(y[S]).max()
    assert top_s > 1.2 * top_f
    c = 1.6e308 / np.sqrt(top_s * top_f) / np.abs(y[S]).max()
    f = graph_kernel_tv(K, S, c * y[S], alpha=0.1 * c)
    assert np.all(np.isfinite(f))
    np.testing.assert_allclose(f / c, f1, rtol=1e-9, atol=1e-9 * np.abs(f1).max())


def test_kernel_tv_f_beyond_float64_is_an_error_not_inf():
    X, y, S = _problem()
    K = GraphKernel(laplacian(knn_graph(X, 10)), Matern(2, 10), input="laplacian")
    c = 1.2e308 / np.abs(y[S]).max()          # f reaches ~10 max |y|: beyond float64
    with pytest.raises(ValueError, match="the fitted f overflows float64 .*divide Y by its largest magnitude"):
        graph_kernel_tv(K, S, c * y[S], alpha=0.1 * c)


@pytest.mark.parametrize("top", [5e307, 1.2e308])
def test_regressor_near_the_largest_float_is_the_scaled_fit(top):
    X, y, S = _problem()
    y_obs = np.full(y.size, np.nan)
    y_obs[S] = y[S]
    base = GraphTVRegressor().fit(X, y_obs)
    c = top / np.abs(y[S]).max()
    with np.errstate(all="raise"):           # no numpy overflow on the way either
        big = GraphTVRegressor().fit(X, c * y_obs)
    assert big.R_ == base.R_
    np.testing.assert_allclose(np.ravel(big.alpha_) / c, np.ravel(base.alpha_), rtol=1e-12)
    np.testing.assert_allclose(big.transduction_ / c, base.transduction_, rtol=1e-8,
                               atol=1e-8 * np.abs(base.transduction_).max())


def test_plateau_check_at_the_largest_float():
    # the degenerate graph-TV fit (one value on the unlabeled nodes) is recognized whatever the targets' scale
    S = np.arange(10)
    Y = np.linspace(-1.0, 1.0, 10)[:, None]
    F = np.vstack([Y, np.full((40, 1), 0.25)])
    for c in (1.0, 1.7e308):
        assert GraphTVRegressor()._plateau_fraction(c * F, S, c * Y) == 1.0
