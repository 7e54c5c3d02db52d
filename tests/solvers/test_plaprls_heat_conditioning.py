"""plaprls_fit with an explicit penalty P (integral_operator="heat") is solved in K's eigenvector coordinates.

The formed system K N_Psi K + gamma_A l P had cond(K)^2, and its Cholesky solve moved PLapRLSRegressor's
predictions with the order of the training rows (12 labels of 30 points, sigma 1: by 5.7e-3 at
gamma_A = gamma_I = 1e-10 and 3.2e-5 at 1e-8); in K's eigenvector coordinates by 3.5e-5 / 3.9e-7 / 8.8e-9 at 1e-12 /
1e-10 / 1e-8 (the loss and penalties of size gamma in one formed system, see test_plaprls_heat_stacked.py); as a
stacked least-squares problem by 2.7e-11 / 3.6e-12 and less."""

import warnings

import numpy as np
import pytest

import graphrkhs as gr


@pytest.mark.parametrize("gamma, rtol", [(1e-12, 1e-9), (1e-10, 1e-9), (1e-8, 1e-9)])
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


def test_heat_path_at_gamma_A_zero_is_the_empirical_system_in_the_range_of_K():
    # at gamma_A = 0 the penalty P drops out: K N_Psi K alpha = K r0 is the empirical operator's system at lam1 = 0,
    # now solved in the range of K as there.  The formed K N_Psi K (cond(K)^2) moved with the row order by 3.7e-3
    # at gamma_I = 1e-6 (40 points, 12 labels) where the range solve moves by 1e-7
    from graphrkhs import pairwise_kernel
    from graphrkhs.solvers import plaprls_fit

    rng = np.random.default_rng(3)
    n = 40
    X = rng.normal(size=(n, 2))
    S = np.arange(12)
    y = np.sin(2 * X[S, 0])
    D = ((X[:, None] - X[None]) ** 2).sum(-1)
    W = np.exp(-D)
    np.fill_diagonal(W, 0)
    M = np.diag(W.sum(1)) - W

    def fit(perm, explicit):
        Xp = X[perm]
        K = pairwise_kernel(Xp, sigma=1.0)
        inv = np.argsort(perm)
        kw = {"P": pairwise_kernel(Xp, sigma=np.sqrt(2.0))} if explicit else {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a, b = plaprls_fit(K, inv[S], y, M[np.ix_(perm, perm)], 0.0, 1e-6, solver="direct", **kw)[:2]
        return (K @ a + (b[0] if np.ndim(b) else b))[inv]

    f_heat, f_emp = fit(np.arange(n), True), fit(np.arange(n), False)
    np.testing.assert_allclose(f_heat, f_emp, rtol=0, atol=1e-12 * np.abs(f_emp).max())
    for seed in range(3):
        f_perm = fit(np.random.default_rng(seed).permutation(n), True)
        assert np.abs(f_perm - f_heat).max() <= 1e-5 * np.abs(f_heat).max()
