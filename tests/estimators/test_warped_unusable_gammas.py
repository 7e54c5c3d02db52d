"""WarpedKernel estimators at a gamma_I / gamma_A the warped Gram matrix cannot take: a clear error."""

import warnings

import numpy as np
import pytest

from graphrkhs import SelectionWarning
from graphrkhs.estimators import WarpedKernelRegressor


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = np.full(40, np.nan)
    y[:10] = rng.normal(size=10)
    return X, y


@pytest.mark.parametrize("gamma_A", [[1e-12, 1e-11], 1e-11])
def test_unusable_gamma_A_names_the_argument_and_the_fix(gamma_A):
    # own grid: no value gave a usable system and the fallback (its value nearest 1e-2, 1e-11) cannot be
    # fitted either; it raised the solver's 'K + alpha * l * I ... increase alpha above 3.58e-17' (alpha is no
    # argument of the estimator, and alpha = 1e-11 already lay above that level)
    X, y = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SelectionWarning)
        with pytest.raises(np.linalg.LinAlgError) as info:
            WarpedKernelRegressor(sigma=1.0, gamma_A=gamma_A, gamma_I=1e3).fit(X, y)
    msg = str(info.value)
    assert "gamma_A=1e-11" in msg and "gamma_I=1000" in msg and "gamma_I / gamma_A = 1e+14" in msg
    assert "pass a larger gamma_A" in msg and "alpha" not in msg


def test_usable_fallback_still_fits():
    # 'auto' gamma_A at gamma_I = 1e9: every ratio of the LOO path refused, the fallback 0.01 fits
    X, y = _data()
    with pytest.warns(SelectionWarning, match="fallback gamma_A=0.01"):
        m = WarpedKernelRegressor(sigma=1.0, gamma_I=1e9).fit(X, y)
    assert m.gamma_A_ == 0.01 and np.isfinite(m.predict(X)).all()
