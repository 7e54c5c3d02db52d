"""PLapRLSRegressor (empirical integral operator, constant null space, direct solve) on two points, one labeled:
the normalized K has equal row sums, so K 1 = n 1, (I - K/n) and N_Psi K both annihilate the constants and the
system T is exactly singular at gamma_A > 0 too.  The LU of T returned inf / NaN and fit raised 'V contains NaN
or infinity; the product M @ V needs finite entries'.  Oracle: the free constant fits the one label exactly at
zero penalty (constants are in the null space of the graph term and of f - L_K f), and a connected graph makes it
the only zero-objective fit, so the fitted function is the constant y everywhere."""
import warnings

import numpy as np
import pytest

from graphrkhs.estimators import PLapRLSRegressor


@pytest.mark.parametrize("kw", [dict(gamma_A=1e-3, gamma_I=1.0), dict(gamma_A=1.0, gamma_I=0.0),
                                dict(gamma_A=1e-3, gamma_I=1.0, sigma=1.0), dict(gamma_A=1e-3, sigma=1.0), {}])
def test_two_points_one_label_is_the_constant(kw):
    rng = np.random.default_rng(5)
    X = rng.normal(size=(2, 2))
    y = np.array([np.nan, 0.1097064])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = PLapRLSRegressor(n_neighbors=1, **kw).fit(X, y)
    Xn = np.r_[X, rng.normal(size=(4, 2))]
    np.testing.assert_allclose(est.predict(Xn), np.full(6, 0.1097064), rtol=1e-10)
