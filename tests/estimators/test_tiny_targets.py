"""Regressors on subnormal targets choose what they choose on the same targets in units of a power of two.

Near 1e-318 the selections' squared errors underflowed to 0 (every candidate tied), so FredholmRegressor chose
another width than on ``y * 2^1056`` -- the same numbers, exactly -- and its fit came back 108 % off.  Targets
whose largest magnitude is below 2^-500 are now fitted in units of a power of two (as those above 2^500 were).
"""
import numpy as np
import pytest

from graphrkhs.estimators import FredholmRegressor, GraphKernelRidgeRegressor, PRLSRegressor, RLSRegressor

E = 1056                # y / 2^1056 ~ 1e-318: subnormal, about 6 significant digits left


def _problem(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=n)
    y[rng.permutation(n)[30:]] = np.nan
    return X, y


@pytest.mark.parametrize("make, selected", [
    (FredholmRegressor, ("sigma_", "alpha_")),
    (PRLSRegressor, ("sigma_",)),
    (GraphKernelRidgeRegressor, ("alpha_",)),
    (RLSRegressor, ("sigma_", "alpha_")),
])
def test_subnormal_targets_select_as_their_unit_equivalent(make, selected):
    X, y = _problem()
    tiny = np.ldexp(y, -E)                         # rounded to the subnormal grid
    unit = np.ldexp(tiny, E)                       # those very numbers, in units of 2^-1056 (exact)
    a = make().fit(X, unit)
    b = make().fit(X, tiny)
    for name in selected:
        assert getattr(b, name) == pytest.approx(getattr(a, name), rel=1e-12), name
    pa, pb = np.asarray(a.predict(X)), np.ldexp(np.asarray(b.predict(X)), E)
    assert np.all(np.isfinite(pb))
    # the subnormal grid holds about 6 digits of these targets: the predictions agree to that
    np.testing.assert_allclose(pb, pa, rtol=0, atol=1e-3 * np.abs(pa).max())
