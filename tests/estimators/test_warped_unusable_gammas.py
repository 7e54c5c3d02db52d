"""WarpedKernel estimators at a huge gamma_I / gamma_A: LapRLS's answer with a warning, never an error."""

import warnings

import numpy as np
import pytest

from graphrkhs import AccuracyWarning, SelectionWarning
from graphrkhs.estimators import LapRLSRegressor, WarpedKernelRegressor


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = np.full(40, np.nan)
    y[:10] = rng.normal(size=10)
    return X, y


@pytest.mark.parametrize("gamma_A", [[1e-12, 1e-11], 1e-11])
def test_huge_ratio_fits_like_laprls_with_an_accuracy_warning(gamma_A):
    # gamma_I / gamma_A = 1e14: the LU of I + M K behind the direct warped kernel lost all its digits here
    # (1.6 relative error of the kernel against a 50-digit oracle), the warped Gram matrix came out indefinite and
    # the fit raised.  The Cholesky form keeps the kernel accurate (tests/kernels/test_warped_accuracy.py): the fit
    # is LapRLS's at the same gammas (the warped kernel's central identity), to the accuracy the AccuracyWarning
    # of the kernel gives (its solve at this ratio), and the fallback still says no grid value was usable.
    X, y = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SelectionWarning)
        with pytest.warns(AccuracyWarning, match="bounds the kernel's error"):
            m = WarpedKernelRegressor(sigma=1.0, gamma_A=gamma_A, gamma_I=1e3).fit(X, y)
    ref = LapRLSRegressor(sigma=1.0, gamma_A=1e-11, gamma_I=1e3).fit(X, y)
    p, q = m.predict(X), ref.predict(X)
    assert np.abs(p - q).max() <= 0.15 * np.abs(q).max()


def test_usable_fallback_still_fits():
    # 'auto' gamma_A at gamma_I = 1e9: every ratio of the LOO path refused, the fallback 0.01 fits
    X, y = _data()
    with pytest.warns(SelectionWarning, match="fallback gamma_A=0.01"):
        m = WarpedKernelRegressor(sigma=1.0, gamma_I=1e9).fit(X, y)
    assert m.gamma_A_ == 0.01 and np.isfinite(m.predict(X)).all()
