"""The leave-one-out engine against brute-force refits and the GCV closed form."""

import numpy as np
import pytest

from graphrkhs import KernelRidgePath, gcv_scores, graph_kernel_ridge_loo, loo_predictions, loo_residuals, rls_loo_error

ALPHAS = [1e-4, 1e-2, 0.3, 5.0]


def _kernel(l=12, seed=0):
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(l, 2))
    d2 = ((Z[:, None] - Z[None]) ** 2).sum(-1)
    return np.exp(-d2 / 2.0), rng


def _refit_residuals(K, Y, mu):
    """Dense oracle: refit the ridge (K + mu I) beta = y without point i and predict it."""
    l = K.shape[0]
    out = np.empty_like(Y)
    for i in range(l):  # one refit per left-out point: the definition of LOO
        keep = np.delete(np.arange(l), i)
        beta = np.linalg.solve(K[np.ix_(keep, keep)] + mu * np.eye(l - 1), Y[keep])
        out[i] = Y[i] - K[i, keep] @ beta
    return out


@pytest.mark.parametrize("m", [None, 3])
def test_path_residuals_equal_brute_force_refits(m):
    K, rng = _kernel()
    Y = rng.normal(size=12) if m is None else rng.normal(size=(12, m))
    R = KernelRidgePath(K).loo_residuals(Y, ALPHAS)
    assert R.shape == (len(ALPHAS), 12, 1 if m is None else m)
    for a, mu in enumerate(ALPHAS):
        ref = _refit_residuals(K, Y, mu)
        np.testing.assert_allclose(R[a], ref.reshape(12, -1), rtol=1e-7, atol=1e-9)


def test_path_gcv_equals_closed_form_from_the_hat_matrix():
    K, rng = _kernel(15, seed=1)
    Y = rng.normal(size=(15, 2))
    G = KernelRidgePath(K).gcv(Y, ALPHAS)
    for a, mu in enumerate(ALPHAS):
        H = K @ np.linalg.inv(K + mu * np.eye(15))
        resid = Y - H @ Y
        closed = (resid ** 2).mean(axis=0) / (np.trace(np.eye(15) - H) / 15) ** 2
        np.testing.assert_allclose(G[a], closed, rtol=1e-9)
        np.testing.assert_allclose(gcv_scores(H, Y), closed, rtol=1e-9)
    assert gcv_scores(H, Y[:, 0]) == pytest.approx(closed[0], rel=1e-9)


def test_hat_diagonal_and_hat_matrix_entry_point():
    K, rng = _kernel(10, seed=2)
    path = KernelRidgePath(K)
    mu = 0.05
    H = K @ np.linalg.inv(K + mu * np.eye(10))
    np.testing.assert_allclose(path.hat_diagonal(mu), np.diag(H), atol=1e-12)
    Y = rng.normal(size=(10, 2))
    np.testing.assert_allclose(loo_residuals(H, Y), path.loo_residuals(Y, [mu])[0], rtol=1e-7, atol=1e-10)
    np.testing.assert_allclose(loo_predictions(H, Y), Y - loo_residuals(H, Y), atol=1e-14)


def test_hat_entry_point_on_a_generalized_ridge_equals_refits():
    """Any linear smoother: b = argmin ||y - X b||^2 + mu b^T P b, H = X (X^T X + mu P)^-1 X^T."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(14, 4))
    A = rng.normal(size=(4, 4))
    P = A @ A.T + 0.1 * np.eye(4)
    mu = 0.7
    y = rng.normal(size=14)
    H = X @ np.linalg.solve(X.T @ X + mu * P, X.T)
    R = loo_residuals(H, y)
    for i in range(14):  # refits without point i
        keep = np.delete(np.arange(14), i)
        b = np.linalg.solve(X[keep].T @ X[keep] + mu * P, X[keep].T @ y[keep])
        assert R[i] == pytest.approx(y[i] - X[i] @ b, rel=1e-9, abs=1e-12)


def test_wrappers_are_the_engine_with_their_ridge_scalings():
    K, rng = _kernel(9, seed=4)
    Y = rng.normal(size=(9, 2))
    path = KernelRidgePath(K)
    np.testing.assert_allclose(graph_kernel_ridge_loo(K, Y, ALPHAS), path.loo_residuals(Y, ALPHAS), atol=1e-14)
    # RLS: (K + alpha l I), the mean squared LOO residual
    expected = (path.loo_residuals(Y, np.array(ALPHAS) * 9) ** 2).mean(axis=(1, 2))
    np.testing.assert_allclose(rls_loo_error(K, Y, ALPHAS), expected, rtol=1e-12)
    ref = np.mean([(_refit_residuals(K, Y, 0.3 * 9) ** 2).mean()])
    assert rls_loo_error(K, Y, [0.3])[0] == pytest.approx(ref, rel=1e-8)


@pytest.mark.parametrize("call, match", [
    (lambda: KernelRidgePath(np.ones((2, 3))), "square"),
    (lambda: KernelRidgePath(np.array([[1.0, np.nan], [0.0, 1.0]])), "NaN"),
    (lambda: KernelRidgePath(np.eye(2)).loo_residuals(np.ones(3), [1.0]), "one row per labeled"),
    (lambda: KernelRidgePath(np.eye(2)).loo_residuals(np.ones(2), [0.0]), "ridges"),
    (lambda: KernelRidgePath(np.eye(2)).gcv(np.ones(2), []), "ridges"),
    (lambda: loo_residuals(np.eye(2), np.ones(2)), "interpolated"),
    (lambda: gcv_scores(np.eye(2), np.ones(2)), "GCV is undefined"),
    # eigenvalues 1 - 0.9 sqrt(2) < 0, 1, 1 + 0.9 sqrt(2): clipping would score another kernel's LOO
    (lambda: KernelRidgePath(np.array([[1.0, 0.9, 0.0], [0.9, 1.0, 0.9], [0.0, 0.9, 1.0]])),
     "not positive semidefinite"),
    (lambda: graph_kernel_ridge_loo(np.array([[1.0, 2.0], [2.0, 1.0]]), np.ones(2), [1.0]), "not positive semidefinite"),
])
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_negative_eigenvalues_of_rounding_size_are_clipped():
    # a PSD kernel perturbed by -1e-9 of its scale along one direction (a Chebyshev kernel's error)
    rng = np.random.default_rng(3)
    B = rng.normal(size=(6, 3))
    K = B @ B.T                                     # rank 3: three zero eigenvalues
    v = np.linalg.eigh(K)[1][:, 0]
    top = np.linalg.eigvalsh(K).max()
    path = KernelRidgePath(K - 1e-9 * top * np.outer(v, v))
    assert path.eigenvalues.min() == 0.0
    y = rng.normal(size=6)
    np.testing.assert_allclose(path.loo_residuals(y, [0.5]), KernelRidgePath(K).loo_residuals(y, [0.5]), atol=1e-7)


# ---------------------------------------------------------------------------
# Stochastic diagonal estimation
# ---------------------------------------------------------------------------

def _spd(n, seed):
    rng = np.random.default_rng(seed)
    B = rng.normal(size=(n, n))
    return B @ B.T / n + np.eye(n)


def test_diagonal_estimate_is_exact_for_a_diagonal_and_unbiased_within_its_std():
    from graphrkhs._core.loo import diagonal_from_probes, estimate_diagonal, rademacher_probes

    D = np.diag(np.arange(1.0, 8.0))
    np.testing.assert_array_equal(estimate_diagonal(lambda Z: D @ Z, 7, n_probes=3, random_state=1), np.diag(D))
    A = _spd(60, 0)
    p = 64
    # Var(d_i) = sum_{j != i} A_ij^2 / p for Rademacher probes (Bekas, Kokiopoulou & Saad 2007)
    sd = np.sqrt(((A ** 2).sum(axis=1) - np.diag(A) ** 2) / p)
    d, se = estimate_diagonal(lambda Z: A @ Z, 60, n_probes=p, block=7, random_state=2, return_stderr=True)
    z = (d - np.diag(A)) / sd
    assert np.abs(z).max() < 5                      # 60 entries, each a sum of 64 bounded terms
    assert abs(np.mean(z ** 2) - 1) < 0.5           # the variance formula (chi^2_60 / 60 has std 0.18)
    np.testing.assert_allclose(np.median(se / sd), 1.0, atol=0.2)   # the reported error estimates it
    # the 1/sqrt(p) law: the mean squared error over many seeds falls 4x from 16 to 64 probes
    errs = {}
    for q in (16, 64):
        e = [np.mean((diagonal_from_probes(Z, A @ Z)[0] - np.diag(A)) ** 2)
             for Z in (rademacher_probes(60, q, s) for s in range(40))]
        errs[q] = np.mean(e)
    assert 3.0 < errs[16] / errs[64] < 5.3


@pytest.mark.parametrize("call, match", [
    (lambda: __import__("graphrkhs._core.loo", fromlist=["x"]).diagonal_from_probes(np.ones((3, 2)), np.ones((2, 2))),
     "same shape"),
    (lambda: __import__("graphrkhs._core.loo", fromlist=["x"]).estimate_diagonal(lambda Z: Z[:1], 3), "shape"),
    (lambda: __import__("graphrkhs._core.loo", fromlist=["x"]).rademacher_probes(3, 0), "n_probes"),
])
def test_diagonal_estimate_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize("c", [1.0, 1e-20, 1e20])
@pytest.mark.parametrize("free_constant", [False, True])
def test_path_loo_at_a_small_relative_ridge_is_the_refit_at_any_scale(c, free_constant):
    # 1 - H_ii = mu sum_j U_ij^2 / (s_j + mu) is computed without cancellation and is ~5e-15 at a ridge 5e-14
    # times the kernel's scale (above its rounding level, 6 eps max s = 1.5e-14); an absolute cut-off 1e-14
    # on it reported every LOO residual as undefined (inf) while the refits without each point are well
    # defined (K = 10 I + B B^T / |B|^2 is well conditioned)
    rng = np.random.default_rng(4)
    B = rng.normal(size=(6, 3))
    K = (10 * np.eye(6) + B @ B.T / np.sum(B ** 2)) * c
    y = rng.normal(size=6) * c
    mu = 5e-14 * c
    path = KernelRidgePath(K, unpenalized=np.ones(6) if free_constant else None)
    R = path.loo_residuals(y, [mu])[0, :, 0]
    oracle = []
    for i in range(6):
        k = np.delete(np.arange(6), i)
        A = K[np.ix_(k, k)] + mu * np.eye(5)
        if free_constant:           # [[K + mu I, 1], [1^T, 0]] [beta; b] = [y; 0]
            A = np.block([[A, np.ones((5, 1))], [np.ones((1, 5)), np.zeros((1, 1))]])
            sol = np.linalg.solve(A, np.r_[y[k], 0.0])
            pred = K[i, k] @ sol[:5] + sol[5]
        else:
            pred = K[i, k] @ np.linalg.solve(A, y[k])
        oracle.append(y[i] - pred)
    np.testing.assert_allclose(R, oracle, rtol=1e-6)


def test_unpenalized_basis_in_any_units_gives_the_refits():
    # (1, x, x^2) in micrometres has columns of sizes 1 ... 1e12: the rank test compared singular values
    # across those units and refused a basis of full rank.  The LOO residuals depend on span(Psi) only;
    # the oracle is explicit refits of the saddle system [[K + mu I, Psi], [Psi^T, 0]] on the unit basis.
    rng = np.random.default_rng(3)
    x = rng.normal(size=12)
    K = np.exp(-0.5 * (x[:, None] - x[None, :]) ** 2)
    y = np.sin(2 * x) + 0.1 * rng.normal(size=12)
    Psi = np.c_[np.ones(12), x, x**2]
    mu = 0.05
    expected = np.empty(12)
    for i in range(12):
        keep = np.arange(12) != i
        A = np.block([[K[np.ix_(keep, keep)] + mu * np.eye(11), Psi[keep]], [Psi[keep].T, np.zeros((3, 3))]])
        sol = np.linalg.solve(A, np.r_[y[keep], np.zeros(3)])
        expected[i] = y[i] - (K[i, keep] @ sol[:11] + Psi[i] @ sol[11:])
    for scale in (1.0, 1e6, 1e-6):
        xs = x * scale
        Psi_s = np.c_[np.ones(12), xs, xs**2]
        got = KernelRidgePath(K, unpenalized=Psi_s).loo_residuals(y, [mu])[0]
        np.testing.assert_allclose(got.ravel(), expected, rtol=1e-7, atol=1e-10)


def test_the_path_products_of_a_small_kernel_run_on_one_blas_thread(monkeypatch):
    # the LOO engine's products have order l: on a shared machine two spinning BLAS threads made them 120x
    # slower (small_dense_threads); the rule must hold inside loo_residuals / gcv, not only in the eigh
    from threadpoolctl import ThreadpoolController, threadpool_limits

    import graphrkhs._core.loo as loo
    from graphrkhs import KernelRidgePath

    seen = []
    rotate = loo._rotate

    def spy(U, T):
        seen.append({lib["num_threads"] for lib in ThreadpoolController().select(user_api="blas").info()})
        return rotate(U, T)

    monkeypatch.setattr(loo, "_rotate", spy)
    rng = np.random.default_rng(0)
    A = rng.normal(size=(12, 12))
    y = rng.normal(size=12)
    with threadpool_limits(limits=2, user_api="blas"):
        path = KernelRidgePath(A @ A.T)
        resid = path.loo_residuals(y, [0.5])
        path.gcv(y, [0.5])
    assert seen and all(threads == {1} for threads in seen)
    # and the value is the explicit refit's: y_i minus the prediction of the ridge fitted without point i
    K = A @ A.T
    i = 3
    keep = np.delete(np.arange(12), i)
    beta = np.linalg.solve(K[np.ix_(keep, keep)] + 0.5 * np.eye(11), y[keep])
    np.testing.assert_allclose(resid[0, i, 0], y[i] - K[i, keep] @ beta, rtol=1e-10)


def _subspace_problem(l, r, rank, seed):
    """K = A diag(w) A^T with A (l, r) of the given rank (rank < min(l, r): rank deficient), its thin QR."""
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(l, rank)) @ rng.normal(size=(rank, r))
    w = rng.uniform(0.1, 2.0, size=r)
    Q, R = np.linalg.qr(A)
    return A, w, Q, R, rng


@pytest.mark.parametrize("l, r, rank", [(30, 8, 8), (30, 8, 5), (8, 12, 8), (8, 12, 6), (10, 10, 10)])
def test_path_of_a_kernel_in_a_subspace_is_the_dense_path(l, r, rank):
    """KernelRidgePath.from_subspace(Q, C) for K = Q C Q^T (Q with k <= l orthonormal columns; the other l - k
    eigenvalues 0) against the dense KernelRidgePath(K) and the brute-force refits: LOO residuals (plain and
    leave-group-out), GCV (plain, centred, with groups) and the leverages, at ridges from far below to far above
    the kernel's scale; l > r (k = r < l), l < r (k = l: the full basis) and rank-deficient A."""
    A, w, Q, R, rng = _subspace_problem(l, r, rank, seed=l + 7 * r + rank)
    K = (A * w) @ A.T
    C = (R * w) @ R.T
    Y = rng.normal(size=(l, 3))
    ridges = np.array([1e-6, 1e-3, 0.1, 1.0, 30.0]) * np.abs(np.linalg.eigvalsh(K)).max()
    dense, sub = KernelRidgePath(K), KernelRidgePath.from_subspace(Q, C)
    assert sub.eigenvectors.shape == (l, min(l, r))
    for mu_i, mu in enumerate(ridges[1:], start=1):        # the refits (the definition), where they are stable
        np.testing.assert_allclose(sub.loo_residuals(Y, [mu])[0], _refit_residuals(K, Y, mu), rtol=1e-7,
                                   atol=1e-9 * np.abs(Y).max())
    groups = np.arange(l) // 2                               # pairs left out together
    for kw in ({}, {"groups": groups}):
        np.testing.assert_allclose(sub.loo_residuals(Y, ridges, **kw), dense.loo_residuals(Y, ridges, **kw),
                                   rtol=1e-6, atol=1e-9)
        for centred in (False, True):
            np.testing.assert_allclose(sub.gcv(Y, ridges, centred=centred, **kw),
                                       dense.gcv(Y, ridges, centred=centred, **kw), rtol=1e-7)
    for mu in ridges:
        np.testing.assert_allclose(sub.hat_diagonal(mu), dense.hat_diagonal(mu), rtol=1e-9, atol=1e-12)


def test_path_of_a_kernel_in_a_subspace_bad_input():
    Q = np.linalg.qr(np.random.default_rng(0).normal(size=(6, 3)))[0]
    with pytest.raises(ValueError, match="core"):
        KernelRidgePath.from_subspace(Q, np.eye(4))
    with pytest.raises(ValueError, match="orthonormal"):
        KernelRidgePath.from_subspace(2 * Q, np.eye(3))
    with pytest.raises(ValueError, match="positive semidefinite"):
        KernelRidgePath.from_subspace(Q, -np.eye(3))
    with pytest.raises(ValueError, match="unpenalized"):
        KernelRidgePath.from_subspace(Q, np.eye(3), unpenalized=np.ones(6))
