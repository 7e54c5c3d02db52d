"""The block smoothed-aggregation V-cycle: the algebra of a symmetric multigrid preconditioner."""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.polynomial import Chebyshev

from graphrkhs import amg_preconditioner, conjugate_gradient, knn_graph, laplacian
from graphrkhs._core.amg import SmoothedAggregationPreconditioner, chebyshev_smoother_coefficients


def _system(n=1500, shift=1e-3, seed=0, d=3):
    X = np.random.default_rng(seed).random((n, d))
    L = laplacian(knn_graph(X, 8))
    return sp.csr_array(L + shift * sp.eye_array(n))


def _dense(M, n):
    return M.matmat(np.eye(n))


@pytest.mark.parametrize("degree,ratio", [(1, 2.0), (2, 8.0), (3, 30.0), (4, 30.0)])
def test_smoother_polynomial_is_the_scaled_chebyshev_polynomial(degree, ratio):
    c = chebyshev_smoother_coefficients(degree, ratio)
    assert c.shape == (degree,)
    lo, hi = 1 / ratio, 1.0
    theta, delta = (hi + lo) / 2, (hi - lo) / 2
    lam = np.linspace(0, 1, 201)
    e = 1 - lam * np.polynomial.polynomial.polyval(lam, c)
    t_k = Chebyshev.basis(degree)
    np.testing.assert_allclose(e, t_k((theta - lam) / delta) / t_k(theta / delta), atol=1e-12)
    # smallest on the target interval: |e| <= 1 / T_k(theta / delta) there, e(0) = 1
    inside = lam >= lo
    assert np.all(np.abs(e[inside]) <= 1 / t_k(theta / delta) + 1e-12)
    assert e[0] == pytest.approx(1.0)


def test_vcycle_is_symmetric_positive_definite_and_contracts_in_the_energy_norm():
    A = _system(n=1200)
    M = amg_preconditioner(A, max_coarse=40)
    assert len(M.levels) >= 3
    Md = _dense(M, A.shape[0])
    np.testing.assert_allclose(Md, Md.T, atol=1e-12 * np.abs(Md).max())
    # M A is similar to A^{1/2} M A^{1/2}: for a symmetric V-cycle whose smoother contracts in the
    # A-norm its eigenvalues lie in (0, 1]  (I - M A is the product S E S of A-contractions).
    Ad = A.toarray()
    w, V = np.linalg.eigh(Ad)
    half = (V * np.sqrt(w)) @ V.T
    ev = np.linalg.eigvalsh(half @ Md @ half)
    assert ev.min() > 0
    assert ev.max() <= 1 + 1e-9


def test_block_application_equals_column_by_column():
    A = _system(n=900, seed=1)
    M = amg_preconditioner(A, max_coarse=50)
    B = np.random.default_rng(2).standard_normal((900, 5))
    block = M.matmat(B)
    for j in range(5):
        np.testing.assert_allclose(block[:, j], M.matvec(B[:, j]), rtol=1e-12, atol=1e-14)
    # width changes reuse or replace the work buffers without mixing results
    np.testing.assert_allclose(M.matmat(B[:, :2]), block[:, :2], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(M @ B[:, 3], block[:, 3], rtol=1e-12, atol=1e-14)


def test_small_matrix_is_solved_exactly():
    A = _system(n=120, seed=3)
    M = amg_preconditioner(A, max_coarse=500)
    assert len(M.levels) == 1
    np.testing.assert_allclose(_dense(M, 120), np.linalg.inv(A.toarray()), rtol=1e-8, atol=1e-10)


def test_singular_laplacian_is_solved_by_a_generalized_inverse():
    # one level: M = D^{-1/2} (D^{-1/2} L D^{-1/2})^+ D^{-1/2}, a symmetric generalized inverse
    # (L M L = L), so L M b = b for every b in the range of L (the constant null space is the
    # caller's to project out)
    X = np.random.default_rng(4).random((100, 2))
    L = laplacian(knn_graph(X, 6)).toarray()
    Md = _dense(amg_preconditioner(L, max_coarse=500), 100)
    np.testing.assert_allclose(Md, Md.T, atol=1e-10)
    np.testing.assert_allclose(L @ Md @ L, L, atol=1e-8)
    assert np.linalg.eigvalsh(Md).min() > -1e-10


def test_coarsening_follows_pyamg_standard_aggregation():
    import pyamg   # a runtime dependency
    A = _system(n=3000, seed=5)
    ours = amg_preconditioner(A, max_coarse=20)
    theirs = pyamg.smoothed_aggregation_solver(sp.csr_matrix(A), symmetry="symmetric", max_coarse=20,
                                               improve_candidates=None)
    assert [lev.A.shape[0] for lev in ours.levels][:2] == [lev.A.shape[0] for lev in theirs.levels][:2]


@pytest.mark.parametrize("d", [2, 3])
def test_preconditioned_cg_needs_few_iterations_independent_of_size(d):
    iterations = []
    for n in (2000, 16000):
        A = _system(n=n, seed=6, d=d, shift=0.0) + sp.diags_array(np.r_[np.ones(5), np.zeros(n - 5)])
        B = np.random.default_rng(7).standard_normal((n, 2))
        res = conjugate_gradient(A, B, M=amg_preconditioner(A), tol=1e-8)
        assert res.converged.all()
        np.testing.assert_allclose(A @ res.x, B, atol=1e-6 * np.abs(B).max())
        iterations.append(res.n_iter)
    # multigrid: growing the graph eightfold adds a few iterations, not a factor sqrt(8) of them
    assert iterations[1] <= iterations[0] + 10
    assert iterations[1] < 40


def test_spectral_bound_is_above_the_largest_eigenvalue():
    from graphrkhs._core.amg import _scale, _diagonal_scaling, _spectral_bound

    for seed in range(10):
        A = _system(n=400, seed=seed, shift=0.0)
        s = _diagonal_scaling(A)
        At = _scale(A, s, s)
        top = np.linalg.eigvalsh(At.toarray()).max()
        bound = _spectral_bound(At, random_state=seed)
        assert top <= bound <= 1.15 * top


@pytest.mark.parametrize("kwargs,error,match", [
    (dict(degree=0), ValueError, "degree must be >= 1"),
    (dict(degree=2.5), TypeError, "degree must be an int"),
    (dict(ratio=1.0), ValueError, "ratio must be > 1"),
    (dict(strength=1.0), ValueError, "strength must be < 1"),
    (dict(max_coarse=0), ValueError, "max_coarse must be >= 1"),
    (dict(max_levels=0), ValueError, "max_levels must be >= 1"),
])
def test_amg_preconditioner_bad_input(kwargs, error, match):
    with pytest.raises(error, match=match):
        amg_preconditioner(_system(n=50), **kwargs)


def test_amg_preconditioner_rejects_non_matrices():
    with pytest.raises(TypeError, match="sparse matrix or an ndarray"):
        amg_preconditioner("A")
    with pytest.raises(ValueError, match="square"):
        amg_preconditioner(sp.random_array((4, 5), density=0.5))
    assert isinstance(amg_preconditioner(_system(n=60).toarray()), SmoothedAggregationPreconditioner)


def test_one_preconditioner_shared_by_threads_gives_each_the_serial_result():
    # "build once, reuse across solves": concurrent applications (a thread pool of solves) each need
    # their own work buffers; shared ones were overwritten mid-cycle (relative errors ~1e3)
    import threading
    A = _system(n=6000, seed=8)
    M = amg_preconditioner(A, max_coarse=50)
    rng = np.random.default_rng(9)
    blocks = [rng.standard_normal((6000, 3)) for _ in range(4)]
    serial = [M.matmat(B) for B in blocks]
    worst = [0.0] * 4

    def run(i):
        for _ in range(6):
            worst[i] = max(worst[i], float(np.abs(M.matmat(blocks[i]) - serial[i]).max()))

    threads = [threading.Thread(target=run, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert worst == [0.0] * 4


def test_preconditioner_pickles_without_its_work_buffers():
    import pickle
    A = _system(n=600, seed=10)
    M = amg_preconditioner(A, max_coarse=50)
    B = np.random.default_rng(11).standard_normal((600, 2))
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(M)).matmat(B), M.matmat(B))


@pytest.mark.parametrize("make,match", [
    # a random-walk Laplacian (plus I): gave a preconditioner 24% away from symmetric
    (lambda W: sp.eye_array(W.shape[0]) - sp.diags_array(1 / W.sum(axis=1)) @ W + sp.eye_array(W.shape[0]),
     "A must be symmetric"),
    # the adjacency passed for the Laplacian: indefinite, gave an SPD-looking M of nothing
    (lambda W: W, "zero diagonal entry with nonzero off-diagonal entries in row"),
    (lambda W: -laplacian(W), "negative diagonal entry"),
])
def test_amg_preconditioner_refuses_matrices_that_cannot_be_symmetric_psd(make, match):
    W = knn_graph(np.random.default_rng(12).random((200, 2)), 6)
    with pytest.raises(ValueError, match=match):
        amg_preconditioner(sp.csr_array(make(W)), max_coarse=30)


def test_float32_laplacian_symmetric_to_its_rounding_is_accepted_and_gives_the_float64_preconditioner():
    W = knn_graph(np.random.default_rng(13).random((400, 2)), 6)
    L64 = sp.csr_array(laplacian(W, "normalized")) + 1e-2 * sp.eye_array(400)
    L32 = sp.csr_array(L64, dtype=np.float32)
    B = np.random.default_rng(14).standard_normal((400, 2))
    M32, M64 = amg_preconditioner(L32, max_coarse=30), amg_preconditioner(L64, max_coarse=30)
    np.testing.assert_allclose(M32.matmat(B), M64.matmat(B), rtol=1e-4, atol=1e-4 * np.abs(M64.matmat(B)).max())
    # an isolated node (a zero row of a singular Laplacian) is PSD: accepted
    keep = sp.diags_array(np.r_[0.0, np.ones(399)])
    amg_preconditioner(laplacian(sp.csr_array(keep @ W @ keep)), max_coarse=30)


def test_dense_coarsest_level_too_large_for_memory_is_refused_before_it_is_formed(monkeypatch):
    # max_levels=1 makes the whole matrix the dense coarsest level: 32 n^2 bytes for its
    # eigendecomposition (n = 10^5: 320 GB), refused with a MemoryError naming the options
    from graphrkhs._core import validation
    monkeypatch.setattr(validation, "_physical_memory", lambda: 8 * 2**20)
    with pytest.raises(MemoryError, match=r"dense coarsest AMG level \(900 unknowns\).*raise max_levels \(now 1\)"):
        amg_preconditioner(_system(n=900, seed=15), max_levels=1)
    assert len(amg_preconditioner(_system(n=900, seed=15), max_coarse=100).levels) >= 2   # 6 MiB limit: fits
