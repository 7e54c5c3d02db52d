"""GraphTVRegressor with several target columns: mu is in the units of y, so alpha="auto" brings the columns
to one spread before the shared selection; a column's fit must not depend on the scale of the others."""
import numpy as np
import pytest

from graphrkhs import GraphTVRegressor


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=60)
    z = np.cos(X[:, 1]) + 0.1 * rng.normal(size=60)
    off = rng.random(60) < 0.6
    y[off] = np.nan
    z[off] = np.nan
    return X, y, z


def test_rescaled_copy_column_leaves_column_0_at_its_single_output_fit():
    # before: np.c_[y, 2 y] shared mu = 0.096 (y alone: 0.064), column 0 off by 1.6e-2
    X, y, _ = _data()
    one = GraphTVRegressor().fit(X, y)
    two = GraphTVRegressor().fit(X, np.c_[y, 2 * y])
    assert two.alpha_.shape == (2,)
    np.testing.assert_allclose(two.alpha_, [one.alpha_, 2 * one.alpha_], rtol=1e-12)
    np.testing.assert_allclose(two.transduction_[:, 0], one.transduction_, atol=1e-5)
    np.testing.assert_allclose(two.transduction_[:, 1], 2 * one.transduction_, atol=2e-5)


def test_scaling_one_column_does_not_change_the_other():
    X, y, z = _data()
    a = GraphTVRegressor().fit(X, np.c_[y, z])
    b = GraphTVRegressor().fit(X, np.c_[y, 8 * z])
    np.testing.assert_allclose(b.alpha_, a.alpha_ * [1, 8], rtol=1e-12)
    np.testing.assert_allclose(b.transduction_[:, 0], a.transduction_[:, 0], atol=1e-5)
    np.testing.assert_allclose(b.transduction_[:, 1], 8 * a.transduction_[:, 1], atol=8e-5)


@pytest.mark.parametrize("alpha", [0.2, [0.1, 0.3]])
def test_given_alpha_is_shared_in_the_units_of_y(alpha):
    X, y, z = _data()
    two = GraphTVRegressor(alpha=alpha).fit(X, np.c_[y, z])
    assert two.alpha_.shape == (2,) and two.alpha_[0] == two.alpha_[1]
    assert two.alpha_[0] in np.atleast_1d(alpha)
    if np.ndim(alpha) == 0:
        one = GraphTVRegressor(alpha=alpha).fit(X, y)
        np.testing.assert_allclose(two.transduction_[:, 0], one.transduction_, atol=1e-5)


@pytest.mark.parametrize("value", [0.0, 3.0])
def test_constant_column_leaves_the_other_at_its_single_output_fit(value):
    # a constant column is fitted exactly at any mu: it counted as spread 0 and halved the other's grid
    X, y, _ = _data()
    one = GraphTVRegressor().fit(X, y)
    two = GraphTVRegressor().fit(X, np.c_[y, np.where(np.isnan(y), np.nan, value)])
    assert two.alpha_[0] == pytest.approx(one.alpha_, rel=1e-12)
    np.testing.assert_allclose(two.transduction_[:, 0], one.transduction_, atol=1e-5)
    np.testing.assert_allclose(two.transduction_[:, 1], value, atol=1e-5)


def test_a_shift_of_y_shifts_the_fit():
    # TV and the degree fidelity are blind to constants: before, y + 500 ran 1240 iterations from the zero
    # start (y: 240) and came back 3.7e-4 off y's fit + 500
    X, y, z = _data()
    a = GraphTVRegressor().fit(X, np.c_[y, z])
    b = GraphTVRegressor().fit(X, np.c_[y + 500, z - 3])
    np.testing.assert_allclose(b.alpha_, a.alpha_, rtol=1e-12)
    assert b.n_iter_ == a.n_iter_
    np.testing.assert_allclose(b.transduction_ - [500, -3], a.transduction_, rtol=0, atol=1e-10)
