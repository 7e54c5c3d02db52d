"""Issue 13, deliverable 3: property-based fuzzing of the numerics with hypothesis.

Generated graphs and point clouds (n <= 40, so that one example takes milliseconds) against
properties that hold by mathematics, not by the code under test:

* graph builders: symmetric, non-negative, zero-diagonal CSR, whatever the data (duplicates and
  constant columns included); invariant to scaling X (self-tuning, binary, Gaussian with the
  data-driven width) and to shifting it;
* Laplacians: :math:`L \\mathbf 1 = 0` (combinatorial), positive semidefinite, the normalized
  spectrum in [0, 2];
* filters: the matrix-free :class:`~graphrkhs.GraphKernel` and :func:`~graphrkhs.chebyshev_filter`
  agree with the dense eigendecomposition (:func:`~graphrkhs.exact_filter`);
* point-cloud kernels symmetric positive semidefinite;
* harmonic solution: interpolates the labels and obeys the maximum principle;
* transductive solvers: permutation equivariant (relabel the nodes, get the relabelled answer), and
  free of the units of W on any connectivity (scale W, get the same answer or its 1/c multiple);
* float32 within a float32-scaled tolerance of float64.

The settings profile (fixed seed, no deadline, bounded examples) is chosen in tests/conftest.py.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph  # noqa: F401  (sp.csgraph)
from hypothesis import assume, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import graphrkhs as g
from graphrkhs import filters

EPS32 = float(np.finfo(np.float32).eps)


# ---------------------------------------------------------------------------------------------
# Strategies
# ---------------------------------------------------------------------------------------------

@st.composite
def point_clouds(draw, min_n=5, max_n=40, max_d=4):
    """Generic points: a seed, a size and a mix of scales (continuous, so no exact kNN ties)."""
    n = draw(st.integers(min_n, max_n))
    d = draw(st.integers(1, max_d))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.1, 10.0, size=d)
    if draw(st.booleans()):  # two clusters: a graph with nearly disconnected parts
        X[: n // 2] += 20.0
    return X


# Adversarial values: duplicates, zeros, constant columns, wide magnitudes.
raw_points = hnp.arrays(
    np.float64,
    st.tuples(st.integers(4, 25), st.integers(1, 3)),
    elements=st.one_of(st.sampled_from([0.0, 1.0, -1.0]),
                       st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False, width=64)),
)


@st.composite
def graphs(draw, min_n=4, max_n=40):
    """Symmetric non-negative weighted adjacency with a zero diagonal; any connectivity."""
    n = draw(st.integers(min_n, max_n))
    seed = draw(st.integers(0, 2**32 - 1))
    density = draw(st.sampled_from([0.05, 0.15, 0.4]))
    power = draw(st.sampled_from([1, 3]))  # weights spanning 3 or 9 decades
    rng = np.random.default_rng(seed)
    m = max(1, int(density * n * n))
    rows, cols = rng.integers(0, n, size=m), rng.integers(0, n, size=m)
    upper = rows < cols
    data = rng.uniform(0.01, 10.0, size=int(upper.sum())) ** power
    U = sp.csr_array(sp.coo_array((data, (rows[upper], cols[upper])), shape=(n, n)))  # duplicates summed
    return sp.csr_array(U + U.T)


@st.composite
def connected_graphs(draw, min_n=4, max_n=40):
    """A path through a random permutation (connected) plus random extra edges."""
    W = draw(graphs(min_n, max_n))
    n = W.shape[0]
    order = np.random.default_rng(draw(st.integers(0, 2**32 - 1))).permutation(n)
    P = sp.csr_array((np.ones(n - 1), (order[:-1], order[1:])), shape=(n, n))
    return sp.csr_array(W + P + P.T)


def _dense_eigs(L):
    return np.linalg.eigvalsh(L.toarray() if sp.issparse(L) else L)


def _assert_adjacency(W, n):
    assert isinstance(W, sp.csr_array) and W.format == "csr"
    assert W.shape == (n, n)
    assert np.isfinite(W.data).all()
    assert (W.data >= 0).all()
    assert not W.diagonal().any()
    assert abs(W - W.T).max() == 0 if W.nnz else True


# ---------------------------------------------------------------------------------------------
# Graph builders
# ---------------------------------------------------------------------------------------------

@given(X=point_clouds(), k=st.integers(1, 8),
       weight=st.sampled_from(["gaussian", "self-tuning", "binary"]),
       mode=st.sampled_from(["union", "mutual", "average"]))
def test_knn_graph_is_a_symmetric_adjacency(X, k, weight, mode):
    k = min(k, len(X) - 1)
    W = g.knn_graph(X, k, weight=weight, mode=mode)
    _assert_adjacency(W, len(X))
    if mode == "union":  # every point keeps at least its k nearest neighbours
        assert (np.diff(W.indptr) >= k).all()


@given(X=raw_points, k=st.integers(1, 5))
def test_knn_graph_on_adversarial_values(X, k):
    """Duplicates, zeros and constant columns: still a valid adjacency, never NaN."""
    k = min(k, len(X) - 1)
    W = g.knn_graph(X, k, weight="gaussian")
    _assert_adjacency(W, len(X))


@given(X=point_clouds(max_n=30), radius=st.floats(0.1, 5.0))
def test_epsilon_graph_is_a_symmetric_adjacency(X, radius):
    W = g.epsilon_graph(X, radius, weight="binary")
    _assert_adjacency(W, len(X))
    # binary weights: exactly the pairs within the radius
    D = np.linalg.norm(X[:, None] - X[None], axis=-1)
    expected = (D <= radius) & ~np.eye(len(X), dtype=bool)
    near_boundary = np.abs(D - radius) <= 1e-9 * radius
    assert np.array_equal((W.toarray() > 0) | near_boundary, expected | near_boundary)


@given(X=point_clouds(), k=st.integers(2, 6), e=st.integers(-60, 60),
       weight=st.sampled_from(["gaussian", "self-tuning", "binary"]))
def test_knn_graph_invariant_to_scaling(X, k, e, weight):
    """A power-of-two scale is exact in floating point, so the graph must not change at all
    beyond rounding of the weights (Gaussian with sigma=None, self-tuning and binary weights
    are scale-free by definition)."""
    k = min(k, len(X) - 1)
    W0 = g.knn_graph(X, k, weight=weight)
    W1 = g.knn_graph(np.ldexp(X, e), k, weight=weight)
    assert np.array_equal(W0.indices, W1.indices) and np.array_equal(W0.indptr, W1.indptr)
    np.testing.assert_allclose(W1.data, W0.data, rtol=1e-9)


@given(X=point_clouds(), k=st.integers(2, 6), shift=st.floats(-1e3, 1e3),
       weight=st.sampled_from(["gaussian", "self-tuning", "binary"]))
def test_knn_graph_invariant_to_shifting(X, k, shift, weight):
    """Distances do not see a shift; only the rounding of X + c does (relative 1e-16 |c|)."""
    k = min(k, len(X) - 1)
    W0 = g.knn_graph(X, k, weight=weight)
    W1 = g.knn_graph(X + shift, k, weight=weight)
    D = np.linalg.norm(X[:, None] - X[None], axis=-1)
    # a kNN relation decided by a distance gap below the rounding of the shift may flip: skip those
    gaps = np.diff(np.sort(D, axis=1)[:, : k + 2], axis=1)
    assume(gaps.min() > 1e-9 * (1 + abs(shift)) * D.max())
    assert np.array_equal(W0.indices, W1.indices) and np.array_equal(W0.indptr, W1.indptr)
    np.testing.assert_allclose(W1.data, W0.data, rtol=1e-6)


@given(X=point_clouds(), k=st.integers(2, 6), weight=st.sampled_from(["gaussian", "self-tuning", "binary"]))
def test_knn_graph_float32_close_to_float64(X, k, weight):
    k = min(k, len(X) - 1)
    D = np.linalg.norm(X[:, None] - X[None], axis=-1)
    gaps = np.diff(np.sort(D, axis=1)[:, : k + 2], axis=1)
    assume(gaps.min() > 1e-4 * D.max())  # float32 distances decide the same neighbours
    W64 = g.knn_graph(X, k, weight=weight)
    W32 = g.knn_graph(X.astype(np.float32), k, weight=weight)
    assert W32.dtype == np.float32
    assert np.array_equal(W64.indices, W32.indices)
    # a weight exp(-d^2 / 2 s^2) moves by about (d^2 / s^2) * eps relative
    np.testing.assert_allclose(W32.data, W64.data, rtol=1e3 * EPS32, atol=1e3 * EPS32)


# ---------------------------------------------------------------------------------------------
# Laplacians
# ---------------------------------------------------------------------------------------------

@given(W=graphs())
def test_combinatorial_laplacian_annihilates_constants_and_is_psd(W):
    L = g.laplacian(W)
    scale = max(1.0, float(abs(L).max()) if L.nnz else 1.0)
    np.testing.assert_allclose(L @ np.ones(W.shape[0]), 0, atol=1e-12 * scale * W.shape[0])
    lam = _dense_eigs(L)
    assert lam[0] >= -1e-10 * scale
    # one zero eigenvalue per connected component
    n_comp = g.connected_components(W)[0]
    assert np.sum(lam <= 1e-9 * scale) >= n_comp


@given(W=graphs())
def test_normalized_laplacian_spectrum_in_0_2(W):
    lam = _dense_eigs(g.laplacian(W, "normalized"))
    assert lam[0] >= -1e-10 and lam[-1] <= 2 + 1e-10


@given(W=graphs())
def test_randomwalk_laplacian_rows_sum_to_zero_on_non_isolated_nodes(W):
    Lrw = g.laplacian(W, "randomwalk")
    deg = np.asarray(W.sum(axis=1)).ravel()
    rows = Lrw @ np.ones(W.shape[0])
    np.testing.assert_allclose(rows[deg > 0], 0, atol=1e-12)


@given(W=graphs())
def test_laplacian_float32_close_to_float64(W):
    L64 = g.laplacian(W, "normalized").toarray()
    L32 = g.laplacian(W.astype(np.float32), "normalized").toarray()
    assert L32.dtype == np.float32
    np.testing.assert_allclose(L32, L64, atol=50 * EPS32)


# ---------------------------------------------------------------------------------------------
# Spectral filters and graph kernels
# ---------------------------------------------------------------------------------------------

RESPONSES = st.sampled_from([filters.Heat(0.5), filters.Heat(3.0), filters.RegularizedLaplacian(1.0),
                             filters.Matern(2, 10.0)])


@given(W=graphs(max_n=30), phi=RESPONSES, m=st.integers(1, 3), seed=st.integers(0, 1000))
def test_chebyshev_filter_matches_exact(W, phi, m, seed):
    L = g.laplacian(W, "normalized")
    X = np.random.default_rng(seed).normal(size=(W.shape[0], m))
    ref = g.exact_filter(L, phi, X)
    out = g.chebyshev_filter(L, phi, X, tol=1e-8)
    np.testing.assert_allclose(out, ref, atol=1e-6 * np.abs(X).max() * max(1, np.abs(ref).max()))


@given(W=connected_graphs(max_n=30), phi=RESPONSES, seed=st.integers(0, 1000),
       method=st.sampled_from(["chebyshev", "lanczos"]))
def test_graph_kernel_matrix_free_matches_assembled(W, phi, seed, method):
    """K = phi(L) applied without forming it equals the dense eigendecomposition, and the
    Chebyshev operator is exactly symmetric."""
    L = g.laplacian(W, "normalized")
    X = np.random.default_rng(seed).normal(size=(W.shape[0], 2))
    K = g.GraphKernel(W, phi, method=method, tol=1e-8)
    ref = g.exact_filter(L, phi, X)
    np.testing.assert_allclose(K @ X, ref, atol=1e-5 * max(1, np.abs(ref).max()) * np.abs(X).max())
    if method == "chebyshev":
        Kd = K.toarray()
        np.testing.assert_allclose(Kd, Kd.T, atol=1e-12 * np.abs(Kd).max())


@given(W=connected_graphs(max_n=25), phi=RESPONSES)
def test_graph_kernel_is_psd(W, phi):
    Kd = g.GraphKernel(W, phi, method="exact").toarray()
    np.testing.assert_allclose(Kd, Kd.T, atol=1e-12 * np.abs(Kd).max())
    assert np.linalg.eigvalsh((Kd + Kd.T) / 2)[0] >= -1e-9 * np.abs(Kd).max()


@given(W=connected_graphs(max_n=30), seed=st.integers(0, 1000))
def test_chebyshev_filter_float32_close_to_float64(W, seed):
    L = g.laplacian(W, "normalized")
    X = np.random.default_rng(seed).normal(size=(W.shape[0], 2))
    out64 = g.chebyshev_filter(L, filters.Heat(1.0), X, tol=1e-6)
    out32 = g.chebyshev_filter(L.astype(np.float32), filters.Heat(1.0), X.astype(np.float32), tol=1e-6)
    assert out32.dtype == np.float32
    np.testing.assert_allclose(out32, out64, atol=200 * EPS32 * np.abs(X).max())


# ---------------------------------------------------------------------------------------------
# Point-cloud kernels
# ---------------------------------------------------------------------------------------------

@given(X=point_clouds(max_n=30), kernel=st.sampled_from(["gaussian", "linear", "polynomial", "heat"]),
       sigma=st.floats(0.1, 10.0))
def test_point_cloud_kernels_symmetric_psd(X, kernel, sigma):
    K = g.pairwise_kernel(X, kernel=kernel, sigma=sigma)
    assert np.isfinite(K).all()
    top = max(np.abs(K).max(), 1e-300)
    np.testing.assert_allclose(K, K.T, atol=1e-12 * top)
    assert np.linalg.eigvalsh((K + K.T) / 2)[0] >= -1e-9 * top * len(X)


@given(X=point_clouds(max_n=30), sigma=st.floats(0.1, 10.0), shift=st.floats(-1e4, 1e4))
def test_gaussian_kernel_shift_invariant(X, sigma, shift):
    K0 = g.gaussian_kernel(X, sigma=sigma)
    K1 = g.gaussian_kernel(X + shift, sigma=sigma)
    # the only difference allowed is the rounding of X + shift itself
    np.testing.assert_allclose(K1, K0, atol=1e-9 * (1 + abs(shift)) * (1 + np.abs(X).max()) / sigma**2)


# ---------------------------------------------------------------------------------------------
# Transductive solvers
# ---------------------------------------------------------------------------------------------

@st.composite
def labeled_problems(draw, max_n=40):
    W = draw(connected_graphs(min_n=6, max_n=max_n))
    n = W.shape[0]
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n_lab = draw(st.integers(2, max(2, n // 3)))
    labeled = np.sort(rng.choice(n, size=n_lab, replace=False))
    y = rng.uniform(-5.0, 5.0, size=n_lab)
    return W, labeled, y


@given(problem=labeled_problems())
def test_harmonic_solution_interpolates_and_obeys_maximum_principle(problem):
    W, labeled, y = problem
    F = g.harmonic_solution(W, labeled, y)
    np.testing.assert_allclose(F[labeled], y, atol=1e-10 * np.abs(y).max())
    span = y.max() - y.min()
    assert F.min() >= y.min() - 1e-6 * span and F.max() <= y.max() + 1e-6 * span
    # harmonic: (L F)_i = 0 at every unlabeled node
    unl = np.setdiff1d(np.arange(W.shape[0]), labeled)
    LF = g.laplacian(W) @ F
    np.testing.assert_allclose(LF[unl], 0, atol=1e-6 * np.abs(y).max() * abs(W).max() * W.shape[0])


def _permuted(W, labeled, perm):
    """Node i of the new graph is node perm[i] of the old one."""
    inv = np.empty_like(perm)
    inv[perm] = np.arange(len(perm))
    Wp = sp.csr_array(W[perm][:, perm])
    return Wp, inv[labeled]


SOLVERS = {
    "harmonic": lambda W, S, Y: g.harmonic_solution(W, S, Y),
    "tikhonov": lambda W, S, Y: g.tikhonov_solution(W, S, Y, alpha=0.1),
    "poisson": lambda W, S, Y: g.poisson_learning(W, S, Y, tol=1e-10),
    "kernel_ridge": lambda W, S, Y: g.graph_kernel_ridge(W, S, Y, kernel=filters.Heat(1.0), method="direct"),
}


@given(problem=labeled_problems(max_n=30), solver=st.sampled_from(sorted(SOLVERS)),
       seed=st.integers(0, 2**32 - 1))
def test_transductive_solvers_permutation_equivariant(problem, solver, seed):
    W, labeled, y = problem
    Y = np.stack([y, -y], axis=1)
    if solver == "poisson":  # one-hot classes
        Y = np.eye(2)[(y > 0).astype(int)]
        assume(0 < Y[:, 0].sum() < len(y))
    perm = np.random.default_rng(seed).permutation(W.shape[0])
    Wp, Sp = _permuted(W, labeled, perm)
    F = SOLVERS[solver](W, labeled, Y)
    Fp = SOLVERS[solver](Wp, Sp, Y)
    np.testing.assert_allclose(Fp, F[perm], rtol=1e-6, atol=1e-8 * max(1.0, np.abs(F).max()))


@st.composite
def labeled_graphs(draw, max_n=30):
    """Any connectivity (label-free components, isolated nodes) and two classes among the labels."""
    W = draw(graphs(min_n=6, max_n=max_n))
    n = W.shape[0]
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    labeled = np.sort(rng.choice(n, size=draw(st.integers(2, max(2, n // 3))), replace=False))
    classes = np.arange(labeled.size) % 2
    return W, labeled, np.eye(2)[rng.permutation(classes)]


UNIT_FREE_SOLVERS = {    # the answer in the units of W: F(c W) = F(W) * c**power
    "harmonic": (lambda W, S, Y: g.harmonic_solution(W, S, Y), 0),
    "poisson": (lambda W, S, Y: g.poisson_learning(W, S, Y, tol=1e-12), -1),
    "tv": (lambda W, S, Y: g.graph_tv(W, S, Y, alpha=0.3, tol=1e-9), 0),
    "kernel_ridge": (lambda W, S, Y: g.graph_kernel_ridge(W, S, Y, kernel=filters.Heat(1.0), method="direct",
                                                           laplacian="normalized"), 0),
}


@given(problem=labeled_graphs(), solver=st.sampled_from(sorted(UNIT_FREE_SOLVERS)),
       exponent=st.sampled_from([-120, -40, -3, 2, 40, 120]))
def test_transductive_solvers_do_not_depend_on_the_units_of_w(problem, solver, exponent):
    # Poisson learning's offset between labeled components was in absolute units: at W * 1e100 it
    # swamped the potentials and a component labeled with two classes predicted one.
    W, labeled, Y = problem
    assume(W.nnz > 0)                        # no edges: no units
    fit, power = UNIT_FREE_SOLVERS[solver]
    c = 10.0 ** exponent
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")      # label-free components: GraphWarning
        F = fit(W, labeled, Y)
        Fc = fit(W * c, labeled, Y)
    # label-free components get the labels' mean (a prior, without units) in every solver
    _, comp = sp.csgraph.connected_components(W, directed=False)
    scored = np.isin(comp, comp[labeled])
    Fc[scored] /= c ** power
    np.testing.assert_allclose(Fc, F, rtol=1e-5, atol=1e-6 * max(1.0, np.abs(F).max()))


@given(problem=labeled_problems(max_n=30))
def test_harmonic_solution_float32_close_to_float64(problem):
    W, labeled, y = problem
    F64 = g.harmonic_solution(W, labeled, y)
    F32 = g.harmonic_solution(W.astype(np.float32), labeled, y.astype(np.float32))
    assert np.isfinite(F32).all()
    # conditioning of L_UU scales the float32 error; the weights span at most 1e3 here
    np.testing.assert_allclose(F32, F64, atol=1e-3 * np.abs(y).max())


# ---------------------------------------------------------------------------------------------
# Estimators
# ---------------------------------------------------------------------------------------------

@given(X=point_clouds(min_n=8, max_n=30), seed=st.integers(0, 2**32 - 1),
       weight=st.sampled_from(["gaussian", "self-tuning", "binary"]))
def test_transductive_estimator_permutation_equivariant(X, seed, weight):
    """Shuffling the rows of (X, y) shuffles the transductive answer the same way: the estimator
    sees a set of points, not an order (the kNN graph, the default width and the solver all
    commute with the permutation)."""
    n = len(X)
    rng = np.random.default_rng(seed)
    y = np.full(n, np.nan)
    lab = rng.choice(n, size=max(2, n // 4), replace=False)
    y[lab] = rng.uniform(-1.0, 1.0, size=lab.size)
    k = min(5, n - 1)
    D = np.linalg.norm(X[:, None] - X[None], axis=-1)
    gaps = np.diff(np.sort(D, axis=1)[:, : k + 2], axis=1)
    assume(gaps.min() > 1e-9 * D.max())  # no near-tie in the kNN relation
    perm = rng.permutation(n)
    est = g.LaplacianRegularizationRegressor(n_neighbors=k, weight=weight)
    # labels in one cluster only: the other gets the documented fallback with a GraphWarning
    with np.errstate(all="raise"), warnings.catch_warnings():
        warnings.simplefilter("ignore", g.GraphWarning)
        F = est.fit(X, y).transduction_
        Fp = g.LaplacianRegularizationRegressor(n_neighbors=k, weight=weight).fit(X[perm], y[perm]).transduction_
    assert np.isfinite(F).all()
    np.testing.assert_allclose(Fp, F[perm], rtol=1e-6, atol=1e-9)
