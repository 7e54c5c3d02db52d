"""The symmetric-kernel check refuses other matrices (an upper triangle), not a kernel's own error.

check_symmetric_kernel (graphrkhs._core.loo) refused at 1e-6 of max|K| a float32 product of Gram
matrices (1.1e-6) and a warped kernel computed by CG at tol 1e-3 (1.6e-4), both accepted before the
check existed; grls_fit still fitted np.triu(Phi) as its diagonal; GridResult's tie rule by value cast an
axis of names to float.
"""

import numpy as np
import pytest

from graphrkhs import grls_fit, pairwise_kernel, prls_fit, rls_loo_error
from graphrkhs.solvers import GridResult


def _gram(n=12, d=2, seed=0):
    X = np.random.default_rng(seed).normal(size=(n, d))
    return X, pairwise_kernel(X, sigma=1.5)


def test_an_asymmetry_at_a_kernels_error_level_is_scored_as_its_symmetric_part():
    X, K = _gram()
    y = np.sin(X[:, 0])
    skew = np.triu(np.full_like(K, 1e-4), 1)
    Kp = K + skew - skew.T           # asymmetric by 2e-4 of max|K| = 1: an approximate kernel's error
    sym = (Kp + Kp.T) / 2            # = K exactly
    assert rls_loo_error(Kp, y, 0.1) == pytest.approx(rls_loo_error(sym, y, 0.1), rel=1e-12)


def test_prls_takes_float32_grams_asymmetric_at_their_rounding():
    X, K = _gram(40, 3, 1)
    K32 = K.astype(np.float32)
    Kp = (K32 @ K32 / 40).astype(np.float32)
    Kpp = (Kp @ K32 / 40).astype(np.float32)
    # the products' rounding, made deterministic: a relative asymmetry of 3e-6, above the old 1e-6
    E = np.triu(np.full(Kpp.shape, 3e-6 * np.abs(Kpp).max(), dtype=np.float32), 1)
    Kpp = Kpp + E
    y = np.sin(X[:, 0])
    alpha, beta = prls_fit(K32, Kp, Kpp, y, 1e-2)
    alpha_s, beta_s = prls_fit(K32, Kp, (Kpp + Kpp.T) / 2, y, 1e-2)
    # the fitted values (alpha itself is ill-conditioned in float32): those of the symmetric part
    f, f_s = K @ alpha + beta, K @ alpha_s + beta_s
    np.testing.assert_allclose(f, f_s, atol=1e-4 * np.abs(f_s).max())


def test_grls_refuses_an_upper_triangle_by_name():
    X, K = _gram()
    Psi = np.ones((12, 1))
    with pytest.raises(ValueError, match=r"^Phi must be symmetric"):
        grls_fit(np.triu(K), Psi, np.sin(X[:, 0]), 0.1)


def test_an_upper_triangle_is_still_refused_by_the_loo_engine():
    X, K = _gram()
    with pytest.raises(ValueError, match=r"^K must be symmetric"):
        rls_loo_error(np.triu(K), np.sin(X[:, 0]), 0.1)


def test_grid_result_keeps_an_axis_of_names_in_its_given_order():
    res = GridResult({"kernel": np.array(["gaussian", "laplacian", "cosine"]), "alpha": [0.1, 1.0]},
                     np.zeros((3, 2)))
    # ties go to the last name (the order given) and the largest alpha
    assert res.best_params == {"kernel": "cosine", "alpha": 1.0}
    assert res.at_edge == {"kernel": True, "alpha": True}
    res = GridResult({"kernel": np.array(["gaussian", "laplacian", "cosine"])}, np.array([0.0, 1.0, 0.0]))
    assert res.best_params == {"kernel": "laplacian"} and res.at_edge == {"kernel": False}


def test_an_upper_triangle_is_refused_when_one_point_dominates_the_scale():
    # one point of norm 40 orthogonal to 49 others: np.triu of the linear kernel is only 3.7e-3 of max|K|
    # asymmetric, but of the order of the others' cosine similarities in units of the diagonal
    rng = np.random.default_rng(1)
    Z = rng.normal(size=(50, 5))
    Z[0] = 0.0
    Z[0, 0] = 40.0
    Z[1:, 0] = 0.0
    K = Z @ Z.T
    with pytest.raises(ValueError, match=r"^Phi must be symmetric"):
        grls_fit(np.triu(K), np.ones((50, 1)), Z[:, 1], 0.1)
    with pytest.raises(ValueError, match=r"^K must be symmetric"):
        rls_loo_error(np.triu(K), Z[:, 1], 0.1)
