"""prls_fit when the kernel functions lie in the span of Psi on the labeled points (QK is rounding).

Two labeled copies of one point with Psi = constants (or two distinct points with Psi = [1, x]): Q K = 0 in
exact arithmetic, so the kernel part cannot lower the loss and the minimizer's fitted values are the least-squares
fit by Psi alone (the copies' mean).  At gamma = 0 (documented: gamma >= 0) the system Q K solved its own
rounding: alpha ~ 6e13, beta ~ -2e14, the fit 0.59375 for the targets (1, 0) (their mean is 0.5), and values
~ -1e14 at every other point.
"""
import numpy as np
import pytest

from graphrkhs import pairwise_kernel
from graphrkhs.solvers import consistency_grams, prls_fit


def _least_squares_fit(K, P, Y, gamma, Psi):
    """Fitted values of min (1/l)|y - K a - Psi b|^2 + gamma a^T P a, by the minimum-norm solution of the
    normal equations (their Eq. 11) -- unique in the fitted values."""
    l = K.shape[0]
    H = np.block([[gamma * l * P + K @ K, K @ Psi], [Psi.T @ K, Psi.T @ Psi]])
    rhs = np.concatenate([K @ Y, Psi.T @ Y])
    z = np.linalg.lstsq(H, rhs, rcond=1e-12)[0]
    return K @ z[:l] + Psi @ z[l:]


@pytest.mark.parametrize("operator", ["empirical", "heat"])
@pytest.mark.parametrize("gamma", [0.0, 1e-8])
def test_copies_of_one_point_with_constants(operator, gamma):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 2))
    XS = np.array([X[0], X[0]])
    y = np.array([1.0, 0.0])
    K, Kp, Kpp, _ = consistency_grams(XS, X if operator == "empirical" else None, integral_operator=operator,
                                      sigma=1.0)
    a, b = prls_fit(K, Kp, Kpp, y, gamma)
    P = K - 2 * Kp + Kpp
    assert np.allclose(K @ a + b[0], _least_squares_fit(K, P, y, gamma, np.ones((2, 1))), atol=1e-10)
    assert np.allclose(K @ a + b[0], 0.5, atol=1e-10)
    # the kernel part is in the span of the constants: its minimum-norm coefficients are 0, and the
    # function stays the mean off the labeled points (it was ~ -1e14 there)
    assert np.abs(a).max() <= 1e-8
    f_new = pairwise_kernel(X[1:], XS, sigma=1.0) @ a + b[0]
    assert np.allclose(f_new, 0.5, atol=1e-8)


@pytest.mark.parametrize("operator", ["empirical", "heat"])
@pytest.mark.parametrize("sigma", [0.5, 0.9, 2.0])
def test_two_points_with_a_linear_basis(operator, sigma):
    XS = np.array([[-1.64, 1.26], [-1.64, 1.26], [-0.65, -0.04]])
    y = np.array([[-0.85, 0.56], [0.31, 0.79], [-0.83, 0.01]])     # the copies' means: -0.27, 0.675
    Psi = np.column_stack([np.ones(3), XS[:, 0]])
    K, Kp, Kpp, _ = consistency_grams(XS, integral_operator=operator, sigma=sigma)
    a, b = prls_fit(K, Kp, Kpp, y, 0.0, Psi=Psi)
    fit = K @ a + Psi @ b
    expected = np.array([y[:2].mean(axis=0), y[:2].mean(axis=0), y[2]])
    assert np.allclose(fit, expected, atol=1e-10)
