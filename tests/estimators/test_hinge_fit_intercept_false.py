"""loss="hinge" with fit_intercept=False: the SVM always fits its free intercept, so the option was silently
ignored (decision values identical to fit_intercept=True); now a ValueError naming fit_intercept."""
import numpy as np
import pytest

from graphrkhs import FredholmClassifier, WarpedKernelClassifier


def _data():
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(0, 1, (15, 2)) + [3, 3], rng.normal(0, 1, (15, 2)) + [5, 3]]
    y = np.full(30, -1)
    y[:4], y[15:19] = 0, 1
    return X, y


@pytest.mark.parametrize("make", [
    lambda fi: WarpedKernelClassifier(loss="hinge", fit_intercept=fi, sigma=1.0, gamma_A=1e-2, gamma_I=1.0,
                                      n_neighbors=5),
    lambda fi: FredholmClassifier(loss="hinge", fit_intercept=fi, sigma=1.0, alpha=1e-2),
])
def test_hinge_refuses_fit_intercept_false(make):
    X, y = _data()
    with pytest.raises(ValueError, match="fit_intercept=False"):
        make(False).fit(X, y)
    clf = make(True).fit(X, y)            # the SVM's own intercept: accepted
    assert np.isfinite(clf.decision_function(X)).all()
