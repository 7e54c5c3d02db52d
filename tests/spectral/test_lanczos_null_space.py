"""lanczos_filter deflates a Laplacian's null space: phi(L) x = phi(0) P0 x + phi(L) (I - P0) x.

A Ritz value of the null space carries the rounding eps ||L|| (+1e-16 on a path), which a sharp low-pass
response magnifies: Heat(1e12) on a path of 5 nodes was 2e-5 off, Heat(1e16) 0.16, every column
"converged" and no warning.  References: closed forms (paths) or a dense eigendecomposition of L restricted
to the complement of its exact null space, never the code under test.
"""

import re
import warnings

import numpy as np
import pytest
import scipy.linalg as sla
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from graphrkhs import AccuracyWarning, filters, knn_graph, lanczos_filter, laplacian
from graphrkhs.spectral import laplacian_null_space, lanczos_apply
from graphrkhs._core.reorder import PreparedOperator


def _path(n):
    return np.diag(np.ones(n - 1), 1) + np.diag(np.ones(n - 1), -1)


def _path_eig(n):
    """Closed form: eigenvalues 2 - 2 cos(pi k / n), eigenvectors cos(pi k (j + 1/2) / n); the first is 0 exactly."""
    k = np.arange(n)
    lam = 2 - 2 * np.cos(np.pi * k / n)
    lam[0] = 0.0
    U = np.cos(np.pi * np.outer(k + 0.5, k) / n)
    return lam, U / np.linalg.norm(U, axis=0)


def _deflated_reference(W, kind, phi, X):
    """phi(0) on the exact null space (D^(1/2) 1 on each component), numpy eigh of L on its complement."""
    W = np.asarray(W, dtype=np.float64)
    n = W.shape[0]
    d = W.sum(axis=1)
    c, labels = connected_components(sp.csr_array(W), directed=False)
    v = np.ones(n) if kind == "combinatorial" else np.sqrt(d)
    v[v == 0] = 1.0
    Q = np.zeros((n, c))
    Q[np.arange(n), labels] = v
    Q /= np.linalg.norm(Q, axis=0)
    Ld = laplacian(W, kind).toarray()
    B = sla.qr(Q, mode="full")[0][:, c:]
    theta, S = np.linalg.eigh(B.T @ Ld @ B)
    theta = np.clip(theta, 0.0, None)
    return phi(np.zeros(1))[0] * Q @ (Q.T @ X) + B @ S @ (phi(theta)[:, None] * (S.T @ (B.T @ X)))


def _run(L, phi, X, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")        # no warning: these answers are right
        Y, info = lanczos_filter(L, phi, X, return_info=True, **kwargs)
    assert info["converged"].all()
    return Y


@pytest.mark.parametrize("t", [1e4, 1e8, 1e12, 1e16])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_sharp_heat_on_a_path_is_exact_to_rounding(t, dtype):
    # before: 2.1e-9 / 2.1e-5 / 0.16 off at t = 1e8 / 1e12 / 1e16 (float64), 0.14 at t = 1e8 in float32
    n = 5
    lam, U = _path_eig(n)
    X = np.random.default_rng(0).normal(size=(n, 3))
    ref = U @ (np.exp(-t * lam)[:, None] * (U.T @ X))
    Y = _run(laplacian(_path(n)).astype(dtype), filters.Heat(t), X.astype(dtype))
    assert Y.dtype == dtype
    assert np.linalg.norm(Y - ref, axis=0).max() <= 64 * np.finfo(dtype).eps * np.linalg.norm(X, axis=0).max()


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_several_components_and_an_isolated_node(dtype):
    # paths of 7, 3, 1 (isolated) and 12 nodes in shuffled order: before, float32 Heat(1e12) was 0.55 off
    sizes = [7, 3, 1, 12]
    W = sla.block_diag(*[_path(s) for s in sizes])
    lam, U = np.concatenate([_path_eig(s)[0] for s in sizes]), sla.block_diag(*[_path_eig(s)[1] for s in sizes])
    perm = np.random.default_rng(3).permutation(W.shape[0])
    W, U = W[np.ix_(perm, perm)], U[perm]
    X = np.random.default_rng(1).normal(size=(W.shape[0], 4))
    L = laplacian(W).astype(dtype)
    for phi in (filters.Heat(1.0), filters.Heat(1e12), filters.Heat(1e16), filters.RegularizedLaplacian(3.0)):
        ref = U @ (phi(lam)[:, None] * (U.T @ X))
        for reorder in (False, True):
            Y = _run(L, phi, X.astype(dtype), reorder=reorder)
            assert np.linalg.norm(Y - ref, axis=0).max() <= 64 * np.finfo(dtype).eps * np.linalg.norm(X, axis=0).max()


def test_weights_spanning_1e_minus_8_to_1e8():
    # the graph of test_lanczos_does_not_stop_before_reaching_the_low_end_of_the_spectrum: lambda_2 = 734,
    # lmax = 1.9e8; before, Heat(1e6) was 1.9e-5 off and Heat(1e9) 1.5e-2
    rng = np.random.default_rng(0)
    n = 50
    W = (rng.random((n, n)) < 0.2) * 10 ** rng.uniform(-8, 8, (n, n))
    W = np.triu(W, 1)
    W = W + W.T
    x = np.random.default_rng(1).normal(size=(n, 1))
    for t in (200.0, 1e6, 1e9):
        ref = _deflated_reference(W, "combinatorial", filters.Heat(t), x)
        y = _run(laplacian(W), filters.Heat(t), x)
        assert np.linalg.norm(y - ref) <= 1e-12 * np.linalg.norm(x)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_ordinary_responses_unchanged(dtype):
    # a connected random graph and smooth responses: the deflated and the plain run agree to rounding
    rng = np.random.default_rng(5)
    n = 60
    W = np.triu((rng.random((n, n)) < 0.1) * rng.random((n, n)), 1)
    W = W + W.T
    X = rng.normal(size=(n, 3))
    for phi in (filters.Heat(1.0), filters.RegularizedLaplacian(10.0), filters.Matern(2, 1.0)):
        ref = _deflated_reference(W, "combinatorial", phi, X)
        Y = _run(laplacian(W).astype(dtype), phi, X.astype(dtype), tol=1e-10)
        tol = 1e-12 if dtype == np.float64 else 1e-5
        assert np.linalg.norm(Y - ref, axis=0).max() <= tol * np.linalg.norm(X, axis=0).max()


def test_null_space_only_when_established_exactly():
    W = sla.block_diag(_path(4), np.zeros((1, 1)), _path(3))
    L = laplacian(W)
    Q = laplacian_null_space(L)
    assert Q.shape == (8, 3)
    np.testing.assert_allclose((Q.T @ Q).toarray(), np.eye(3), atol=1e-15)
    assert np.abs(L @ Q.toarray()).max() == 0.0
    # a shifted Laplacian has no null space; a normalized one is established only with its degrees
    assert laplacian_null_space(L + 1e-6 * sp.eye_array(8)) is None
    N = laplacian(W, "normalized")
    assert laplacian_null_space(N) is None
    Qn = laplacian_null_space(N, degrees=W.sum(axis=1))
    assert Qn.shape == (8, 3)
    assert np.abs(N @ Qn.toarray()).max() <= 1e-15
    assert laplacian_null_space(N, degrees=np.ones(8)) is None     # wrong degrees: refused, not used


def test_lanczos_apply_null_space_argument():
    L = laplacian(_path(5))
    op = PreparedOperator(L, np.float64)
    X = np.random.default_rng(0).normal(size=(5, 2))
    lam, U = _path_eig(5)
    ref = U @ (np.exp(-1e16 * lam)[:, None] * (U.T @ X))
    Y = lanczos_apply(op, [filters.Heat(1e16)], X)[0][0]               # "auto": combinatorial, deflated
    assert np.abs(Y - ref).max() <= 1e-14
    Y = lanczos_apply(op, [filters.Heat(1e16)], X, null_space=laplacian_null_space(L))[0][0]
    assert np.abs(Y - ref).max() <= 1e-14
    with pytest.raises(ValueError, match="null_space"):
        lanczos_apply(op, [filters.Heat(1.0)], X, null_space=np.ones((4, 1)))


# -- no null space to deflate: a normalized Laplacian given as a matrix (its degrees are not known) -----------

def _normalized_reference(W, phi, x):
    return _deflated_reference(np.asarray(W.toarray() if sp.issparse(W) else W), "normalized", phi, x)


def test_normalized_laplacian_warns_where_its_zero_ritz_value_meets_a_sharp_response():
    # path of 5 nodes: Heat(1e12) 9.5e-5 off (relative), before and now; before, no warning
    W = _path(5)
    x = np.random.default_rng(0).normal(size=(5, 2))
    with pytest.warns(AccuracyWarning, match="0 only to rounding"):
        lanczos_filter(laplacian(W, "normalized"), filters.Heat(1e12), x)


def test_normalized_laplacian_does_not_stop_on_a_ritz_value_still_on_its_way_to_0():
    # a kNN graph of 200 nodes: at 25 steps the smallest Ritz value was 5e-9, below the 1e-8 ||L|| taken for
    # "0 to rounding", so the Gauss-Radau check was skipped and Heat(1e12) stopped 0.066 off, "converged";
    # now the check is skipped only where the response cannot tell that Ritz value from 0
    W = knn_graph(np.random.default_rng(7).normal(size=(200, 3)), 8)
    x = np.random.default_rng(1).normal(size=(200, 1))
    ref = _normalized_reference(W, filters.Heat(1e12), x)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = lanczos_filter(laplacian(W, "normalized"), filters.Heat(1e12), x)
    # the AccuracyWarning gives the order of what rounding can cost (1.9e-5 of the peak here); the error depends
    # on the rounding of the products: 5e-16 of |x| with numpy 2.4 / scipy 1.17, 2.9e-5 with the declared minimum
    # versions (numpy 2.0, scipy 1.13) -- in both far below the 0.066 of the skipped check
    reported = [float(re.search(r"changes by up to ([0-9.e+-]+) of its peak", str(w.message)).group(1))
                for w in caught if issubclass(w.category, AccuracyWarning)]
    assert len(reported) == 1
    assert np.linalg.norm(y - ref) <= 10 * reported[0] * np.linalg.norm(x)
    assert np.linalg.norm(y - ref) <= 1e-3 * np.linalg.norm(x)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_normalized_laplacian_ordinary_responses_do_not_warn(dtype):
    rng = np.random.default_rng(5)
    graphs = [_path(5), sla.block_diag(_path(7), _path(3), np.zeros((1, 1)), _path(12)),
              knn_graph(rng.normal(size=(200, 3)), 8).toarray()]
    W = (rng.random((50, 50)) < 0.2) * 10 ** rng.uniform(-8, 8, (50, 50))
    graphs.append(np.triu(W, 1) + np.triu(W, 1).T)
    for W in graphs:
        x = rng.normal(size=(W.shape[0], 2))
        for phi in (filters.Heat(1.0), filters.Heat(10.0), filters.RegularizedLaplacian(10.0)):
            Y = _run(laplacian(W, "normalized").astype(dtype), phi, x.astype(dtype))     # no warning
            tol = 1e-10 if dtype == np.float64 else 1e-6
            assert np.linalg.norm(Y - _normalized_reference(W, phi, x), axis=0).max() <= tol * np.abs(x).max() * 10
