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


def _consistent(L, b):
    from scipy.sparse import csgraph
    _, comp = csgraph.connected_components(L)
    return b - (np.bincount(comp, b) / np.bincount(comp))[comp]


def test_zero_coarse_level_ends_the_hierarchy():
    # 600 disjoint edges: every aggregate is a whole component, so the next level is the zero
    # matrix (600 unknowns > max_coarse); its bound 0 was divided by (ZeroDivisionError)
    n = 1200
    i = np.arange(0, n, 2)
    W = sp.coo_array((np.ones(n // 2), (i, i + 1)), shape=(n, n))
    L = sp.csr_array(laplacian(sp.csr_array(W + W.T)))
    M = amg_preconditioner(L, max_coarse=100)
    assert [lev.A.shape[0] for lev in M.levels] == [1200, 600]
    Md = _dense(M, n)
    np.testing.assert_allclose(Md, Md.T, atol=1e-12)
    assert np.linalg.eigvalsh(Md).min() > -1e-12
    b = _consistent(L, np.random.default_rng(16).standard_normal(n))
    res = conjugate_gradient(L, b, M=M, tol=1e-10)
    np.testing.assert_allclose(L @ res.x, b, atol=1e-8)


def test_coarse_unknowns_in_the_null_space_are_not_scaled_by_their_rounding():
    # a 1-nearest-neighbour graph: many components, each coarsened to one aggregate whose coarse
    # diagonal is rounding (1e-17) instead of 0; Jacobi scaling by it made |M b| ~ 1e15 |b| and CG
    # stop on "p^T A p <= 0" for a consistent right-hand side
    L = sp.csr_array(laplacian(knn_graph(np.random.default_rng(1).random((3000, 2)), 1)))
    M = amg_preconditioner(L, max_coarse=50)
    b = _consistent(L, np.random.default_rng(2).standard_normal(3000))
    assert np.linalg.norm(M @ b) < 1e3 * np.linalg.norm(b)
    res = conjugate_gradient(L, b, M=M, tol=1e-8)
    assert res.converged.all() and res.n_iter < 30
    np.testing.assert_allclose(L @ res.x, b, atol=1e-7 * np.abs(b).max())


# 66 points on a line (4 decimals): 12 Lanczos steps left the top Ritz value of the scaled 5-NN
# Laplacian 12% low and the smoother's bound 4.4% below lambda_max: the V-cycle was indefinite
_LINE66 = np.array([
    0.5654, 0.3433, 0.7947, 0.6455, 0.7572, 0.3272, 0.708, 0.4687, 0.2498, 0.0623, 0.5612, 0.742, 0.3587,
    0.8081, 0.0522, 0.5942, 0.4831, 0.5855, 0.5782, 0.9712, 0.7896, 0.9822, 0.7007, 0.5141, 0.2149, 0.8608,
    0.6755, 0.5873, 0.2536, 0.9542, 0.4205, 0.2525, 0.0468, 0.8823, 0.9331, 0.7903, 0.1941, 0.3098, 0.2345,
    0.9865, 0.7797, 0.5332, 0.0409, 0.6792, 0.2198, 0.0891, 0.3881, 0.5857, 0.8552, 0.8486, 0.6545, 0.1318,
    0.4038, 0.7956, 0.6048, 0.2241, 0.5036, 0.4442, 0.1281, 0.1807, 0.2937, 0.0808, 0.472, 0.8943, 0.8573,
    0.0555])


def test_smoother_bound_is_above_lambda_max_and_the_cycle_positive_definite_on_a_hard_line():
    from graphrkhs._core.amg import _diagonal_scaling, _scale, _spectral_bound

    A = sp.csr_array(laplacian(knn_graph(_LINE66[:, None], 5))) + 1e-2 * sp.eye_array(66)
    s = _diagonal_scaling(A)
    top = np.linalg.eigvalsh(_scale(A, s, s).toarray()).max()
    assert _spectral_bound(_scale(A, s, s)) >= top
    M = amg_preconditioner(A, max_coarse=13, degree=2, max_levels=2)
    Md = _dense(M, 66)
    assert np.linalg.eigvalsh((Md + Md.T) / 2).min() > 0


def test_work_buffers_too_large_for_memory_are_refused(monkeypatch):
    # five (n_level, m) blocks per level, allocated at the first product with a block of m columns
    from graphrkhs._core import validation
    A = _system(n=2000, seed=17)
    M = amg_preconditioner(A, max_coarse=50)
    monkeypatch.setattr(validation, "_physical_memory", lambda: 4 * 2**20)   # limit: 3 MiB
    np.testing.assert_allclose(M @ np.ones(2000), M.matmat(np.ones((2000, 1)))[:, 0])   # 80 kB: fits
    with pytest.raises(MemoryError, match=r"AMG V-cycle's work buffers for 64 column\(s\).*fewer columns"):
        M.matmat(np.ones((2000, 64)))


@pytest.mark.parametrize("cls", [sp.csr_array, sp.csr_matrix])
def test_input_with_duplicate_entries_is_not_mutated_and_is_summed(cls):
    # row 0 stores (0, 0) twice, unsorted: the set-up sums duplicates on its own copy
    indptr, indices = np.array([0, 3, 6, 8]), np.array([1, 0, 0, 0, 1, 2, 1, 2])
    data = np.array([-1.0, 1.0, 1.0, -1.0, 2.0, -1.0, -1.0, 2.0])
    A = cls((data.copy(), indices.copy(), indptr.copy()), shape=(3, 3))
    M = amg_preconditioner(A)
    np.testing.assert_array_equal(A.indptr, indptr)
    np.testing.assert_array_equal(A.indices, indices)
    np.testing.assert_array_equal(A.data, data)
    np.testing.assert_allclose(_dense(M, 3), np.linalg.pinv(A.toarray()), atol=1e-12)
