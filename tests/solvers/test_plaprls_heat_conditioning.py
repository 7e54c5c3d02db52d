"""plaprls_fit with an explicit penalty P (integral_operator="heat") is solved in K's eigenvector coordinates.

The formed system K N_Psi K + gamma_A l P had cond(K)^2, and its Cholesky solve moved PLapRLSRegressor's
predictions with the order of the training rows (12 labels of 30 points, sigma 1: by 5.7e-3 at
gamma_A = gamma_I = 1e-10 and 3.2e-5 at 1e-8); now by 3e-7 and 7e-9."""

import warnings

import numpy as np
import pytest

import graphrkhs as gr


@pytest.mark.parametrize("gamma, rtol", [(1e-10, 1e-5), (1e-8, 1e-7)])
def test_plaprls_heat_small_gammas_do_not_depend_on_the_row_order(gamma, rtol):
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 2))
    y = np.sin(2 * X[:, 0])
    y[12:] = np.nan
    T = rng.normal(size=(5, 2))

    def fit(Xf, yf):
        est = gr.PLapRLSRegressor(gamma_A=gamma, gamma_I=gamma, sigma=1.0, integral_operator="heat")
        return est.fit(Xf, yf).predict(T)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = fit(X, y)
        for seed in range(3):
            p = np.random.default_rng(seed).permutation(y.size)
            assert np.abs(fit(X[p], y[p]) - a).max() <= rtol * np.abs(a).max()
