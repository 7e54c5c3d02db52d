"""hat_matrix_errors / select_linear_smoother name a hat matrix with NaN or infinity (the caller's solve failed)
instead of scoring that grid point -inf without a word: a hat() returning NaN at alpha = 1e-3 only dropped that
value from the selection silently (the other values were scored and one of them chosen)."""
import numpy as np
import pytest

from graphrkhs.solvers import hat_matrix_errors, select_linear_smoother


def _problem():
    x = np.linspace(0, 1, 8)
    K = np.exp(-(x[:, None] - x[None]) ** 2 / 0.1)
    return K, np.sin(3 * x)


def _hat(K, bad):
    def hat(alpha):
        H = K @ np.linalg.inv(K + alpha * np.eye(K.shape[0]))
        return np.full_like(H, np.nan) if alpha == bad else H
    return hat


def test_nonfinite_hat_named():
    K, y = _problem()
    with pytest.raises(ValueError, match=r"hat\(\*\*params\) returned NaN or infinity at \{'alpha': 0.001\}"):
        hat_matrix_errors(_hat(K, 1e-3), y, [{"alpha": 1e-1}, {"alpha": 1e-3}])
    with pytest.raises(ValueError, match="NaN or infinity"):
        select_linear_smoother(_hat(K, 1e-3), y, {"alpha": [1e-3, 1e-1]})


def test_finite_hat_scored():
    K, y = _problem()
    score, _ = hat_matrix_errors(_hat(K, None), y, [{"alpha": 1e-1}, {"alpha": 1e-3}])
    assert np.isfinite(score).all()
