"""The kernel ridge LOO entry points that take a user's K refuse a K that is not symmetric.

The leave-one-out engine (KernelRidgePath) reads (K + K^T) / 2: an upper triangle passed by mistake
(np.triu of a Gaussian Gram, 8 points) was scored as another kernel, silently.  graph_kernel_ridge_loo
refused it already; rls_loo_error, ridge_path_errors and select_ridge_alpha ran on.  A rounding-size
asymmetry (1e-12 of the largest entry) is still accepted and scored as the symmetric kernel.
"""
import numpy as np
import pytest

from graphrkhs import pairwise_kernel, rls_loo_error
from graphrkhs.solvers import ridge_path_errors, select_kernel_ridge, select_ridge_alpha


def _problem():
    X = np.random.default_rng(0).normal(size=(8, 2))
    return pairwise_kernel(X, sigma=1.0), np.sin(X[:, 0])


CALLS = {
    "rls_loo_error": lambda K, y: rls_loo_error(K, y, [1e-3, 1.0]),
    "ridge_path_errors": lambda K, y: ridge_path_errors(K, y, [1e-3, 1.0])[0],
    "select_ridge_alpha": lambda K, y: select_ridge_alpha(K, y, [1e-3, 1.0], extend=False).scores,
}


@pytest.mark.parametrize("name", list(CALLS))
def test_asymmetric_kernel_refused(name):
    K, y = _problem()
    with pytest.raises(ValueError, match=r"K must be symmetric: max \|K_ij - K_ji\|"):
        CALLS[name](np.triu(K), y)


@pytest.mark.parametrize("name", list(CALLS))
def test_rounding_asymmetry_accepted(name):
    K, y = _problem()
    E = np.zeros_like(K)
    E[0, 1] = 1e-12          # a rounding-size asymmetry: scored as the symmetric kernel (K + K^T) / 2
    Ks = K + E / 2 + E.T / 2
    np.testing.assert_allclose(CALLS[name](K + E, y), CALLS[name](Ks, y), rtol=1e-12, atol=0)


def test_select_kernel_ridge_refuses_asymmetric_make_kernel():
    # make_kernel returning np.triu of the Gram was scored as (K + K^T) / 2, silently (sigma 1, alpha 2.4e-10)
    X = np.random.default_rng(0).normal(size=(8, 2))
    y = np.sin(X[:, 0])
    with pytest.raises(ValueError, match=r"make_kernel\(sigma\) must be symmetric"):
        select_kernel_ridge(lambda s: np.triu(pairwise_kernel(X, sigma=s)), y, [1.0], [1e-3])
    res = select_kernel_ridge(lambda s: pairwise_kernel(X, sigma=s), y, [1.0], [1e-3])
    assert np.isfinite(res.scores).all()
