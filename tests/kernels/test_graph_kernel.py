"""GraphKernel: phi(L) as a symmetric positive definite LinearOperator."""

import warnings

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from graphrkhs import GraphKernel, exact_filter, filters, knn_graph, laplacian, to_pygsp
from graphrkhs.kernels import GraphKernel as GraphKernelFromKernels


def _geometric(n=120, seed=0, dtype=np.float64):
    X = np.random.default_rng(seed).random((n, 2))
    return knn_graph(X, 6).astype(dtype)


def _dense_kernel(L, phi):
    lam, U = np.linalg.eigh(L.toarray().astype(np.float64))
    return (U * phi(lam)) @ U.T


def test_reexported_from_kernels():
    assert GraphKernelFromKernels is GraphKernel
    assert isinstance(GraphKernel(_geometric(30), filters.Heat(1.0)), spla.LinearOperator)


@pytest.mark.parametrize("form", ["dense", "csr_matrix", "csr_array", "networkx", "pygsp"])
def test_accepts_every_graph_form(form):
    W = _geometric(60, seed=1)
    G = {"dense": W.toarray(), "csr_matrix": sp.csr_matrix(W), "csr_array": W,
         "networkx": nx.from_scipy_sparse_array(W), "pygsp": to_pygsp(W)}[form]
    K = GraphKernel(G, filters.Heat(0.5))
    np.testing.assert_allclose(K.L.toarray(), laplacian(W, "normalized").toarray(), atol=1e-14)  # the default kind


def test_laplacian_is_told_apart_from_adjacency():
    W = _geometric(50, seed=2)
    L = laplacian(W, "normalized")
    K = GraphKernel(L, filters.Heat(1.0))                       # negative off-diagonal: a Laplacian
    np.testing.assert_array_equal(K.L.toarray(), L.toarray())
    Kn = GraphKernel(W, filters.Heat(1.0), laplacian="normalized")
    np.testing.assert_allclose(Kn.L.toarray(), L.toarray(), atol=1e-15)
    with pytest.raises(ValueError, match="already a Laplacian"):
        GraphKernel(L, filters.Heat(1.0), laplacian="normalized")
    Z = np.zeros((4, 4))                                        # empty graph: both readings give L = 0
    for input in ("auto", "laplacian", "adjacency"):
        K0 = GraphKernel(Z, filters.Heat(1.0), input=input, lmax=1.0)
        np.testing.assert_allclose(K0 @ np.arange(4.0), np.arange(4.0), atol=1e-12)  # phi(0) = 1


@pytest.mark.parametrize("method", ["chebyshev", "lanczos", "exact"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_products_match_dense_kernel(method, dtype):
    W = _geometric(120, seed=3, dtype=dtype)
    phi = filters.RegularizedLaplacian(0.4)
    K = GraphKernel(W, phi, method=method, tol=1e-9 if dtype == np.float64 else 1e-5)
    assert K.dtype == dtype
    Kd = _dense_kernel(laplacian(W.astype(np.float64), "normalized"), phi)
    X = np.random.default_rng(0).normal(size=(120, 3)).astype(dtype)
    atol = (1e-8 if dtype == np.float64 else 2e-4) * np.linalg.norm(X, axis=0).max()
    np.testing.assert_allclose(K @ X, Kd @ X, atol=atol)
    np.testing.assert_allclose(K.matvec(X[:, 0]), Kd @ X[:, 0], atol=atol)
    np.testing.assert_allclose(K.rmatvec(X[:, 1]), Kd @ X[:, 1], atol=atol)
    assert (K @ X).dtype == dtype and K.matvec(X[:, 0]).shape == (120,)
    if method == "chebyshev":
        assert K.order == chebyshev_order_of(K)
    else:
        assert K.order is None


def chebyshev_order_of(K):
    from graphrkhs import chebyshev_order

    return chebyshev_order(K.phi, K.lmax, K.tol)


@pytest.mark.parametrize("method", ["chebyshev", "exact"])
def test_adjoint_dot_test_and_positive_definiteness(method):
    W = _geometric(80, seed=4)
    K = GraphKernel(W, filters.Heat(0.3), method=method)
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=80), rng.normal(size=80)
    lhs, rhs = y @ (K @ x), (K.H @ y) @ x
    assert abs(lhs - rhs) <= 1e-12 * np.linalg.norm(x) * np.linalg.norm(y)
    assert K.H is K and K.T is K
    M = K.toarray()
    np.testing.assert_allclose(M, M.T, atol=1e-13)
    ev = np.linalg.eigvalsh(0.5 * (M + M.T))
    lam = np.linalg.eigvalsh(K.L.toarray())
    np.testing.assert_allclose(ev, np.sort(K.phi(lam)), atol=1e-8)     # spectrum = phi(spectrum of L)
    assert ev.min() > 0


def test_columns_submatrix_and_batches():
    W = _geometric(150, seed=5)
    phi = filters.Matern(2, 1.2)
    K = GraphKernel(W, phi)
    Kd = _dense_kernel(K.L, phi)
    idx = np.array([3, 0, 149, 77, 3])
    C = K.columns(idx)
    assert C.shape == (150, 5)
    np.testing.assert_allclose(C, Kd[:, idx], atol=1e-9)
    np.testing.assert_allclose(K.columns(idx, batch_size=2), C, atol=1e-14)
    np.testing.assert_allclose(K.columns([-1]), Kd[:, [149]], atol=1e-9)
    mask = np.zeros(150, bool)
    mask[[4, 9]] = True
    np.testing.assert_allclose(K.columns(mask), Kd[:, [4, 9]], atol=1e-9)
    out = np.empty((150, 5))
    assert K.columns(idx, out=out) is out
    rows, cols = np.array([1, 2, 3, 100]), np.array([5, 6])
    np.testing.assert_allclose(K.submatrix(rows, cols), Kd[np.ix_(rows, cols)], atol=1e-9)
    np.testing.assert_allclose(K.submatrix(cols, rows), Kd[np.ix_(cols, rows)], atol=1e-9)
    np.testing.assert_allclose(K.diagonal(batch_size=40), np.diag(Kd), atol=1e-9)
    # columns() (indicator scatter) and matmat() on the identity are the same polynomial
    np.testing.assert_allclose(K.toarray(), K @ np.eye(150), atol=1e-13)


def test_filter_bank_free_columns_with_lanczos():
    W = _geometric(60, seed=6)
    phi = filters.Heat(2.0)
    K = GraphKernel(W, phi, method="lanczos", tol=1e-10)
    np.testing.assert_allclose(K.columns([0, 7]), _dense_kernel(K.L, phi)[:, [0, 7]], atol=1e-9)


def test_reordering_is_cached_and_invisible():
    """Past 20000 nodes RCM is applied once; results stay in the user's node order."""
    rng = np.random.default_rng(7)
    W = knn_graph(rng.random((20_000, 3)), 5)
    phi = filters.Heat(0.05)
    K = GraphKernel(W, phi, order=12, lmax=40.0)
    K0 = GraphKernel(W, phi, order=12, lmax=40.0, reorder=False)
    assert K.perm is not None and K0.perm is None
    np.testing.assert_array_equal(np.sort(K.perm), np.arange(20_000))
    assert K.timings["reorder"] > 0
    X = rng.normal(size=(20_000, 3))
    np.testing.assert_allclose(K @ X, K0 @ X, atol=1e-12)
    idx = [0, 12345, 19999]
    np.testing.assert_allclose(K.columns(idx), K0.columns(idx), atol=1e-12)
    # the same degree-12 polynomial through SciPy, no reordering
    ref = K0 @ X
    from graphrkhs import chebyshev_filter

    np.testing.assert_allclose(chebyshev_filter(K.L, phi, X, order=12, lmax=40.0, backend="scipy", reorder=False),
                               ref, atol=1e-12)


def test_representer_theorem_two_forms_agree():
    """Pena: ridge in H_phi, f = Phi[:, S] (Phi_SS + mu I)^-1 y, equals the sparse form (J + mu Phi^-1) f = J y."""
    W = _geometric(100, seed=8)
    alpha, mu = 2.0, 0.3
    K = GraphKernel(W, filters.RegularizedLaplacian(alpha), tol=1e-12)
    rng = np.random.default_rng(0)
    S = rng.choice(100, 15, replace=False)
    y = rng.normal(size=15)
    beta = np.linalg.solve(K.submatrix(S, S) + mu * np.eye(15), y)
    f_representer = K.columns(S) @ beta
    c = K.phi.inverse_polynomial()
    Phi_inv = c[0] * sp.eye(100) + c[1] * K.L
    J = sp.diags_array(np.isin(np.arange(100), S).astype(float))
    rhs = np.zeros(100)
    rhs[S] = y
    f_sparse = spla.spsolve(sp.csc_array(J + mu * Phi_inv), rhs)
    np.testing.assert_allclose(f_representer, f_sparse, atol=1e-9)


def test_heat_semigroup():
    W = _geometric(90, seed=9)
    x = np.random.default_rng(0).normal(size=90)
    K1 = GraphKernel(W, filters.Heat(0.4), tol=1e-11)
    K2 = GraphKernel(W, filters.Heat(0.6), tol=1e-11)
    K3 = GraphKernel(W, filters.Heat(1.0), tol=1e-11)
    np.testing.assert_allclose(K1 @ (K2 @ x), K3 @ x, atol=1e-9)
    np.testing.assert_allclose(K3 @ x, exact_filter(K3.L, filters.Heat(1.0), x), atol=1e-9)


def test_float32_kernel_on_float64_signals():
    W = _geometric(70, seed=11, dtype=np.float32)
    K = GraphKernel(W, filters.Heat(0.5), tol=1e-5)
    x = np.random.default_rng(0).normal(size=70)
    y = K @ x                                      # computed in float64 on the same (cached) ordering
    assert y.dtype == np.float64 and K.dtype == np.float32
    ref = _dense_kernel(laplacian(W.astype(np.float64), "normalized"), filters.Heat(0.5)) @ x
    np.testing.assert_allclose(y, ref, atol=1e-4 * np.linalg.norm(x))


def test_isolated_node_and_repr():
    W = np.zeros((6, 6))
    W[0, 1] = W[1, 0] = W[1, 2] = W[2, 1] = 1.0      # nodes 3, 4, 5 isolated
    K = GraphKernel(W, filters.Heat(1.0))
    C = K.columns([4])
    np.testing.assert_allclose(C[:, 0], np.eye(6)[4], atol=1e-9)         # phi(0) e_4
    assert repr(K).startswith("GraphKernel(n=6, phi=Heat(t=1.0), method='chebyshev'")


W30 = _geometric(30, seed=10)
HEAT = filters.Heat(1.0)
BAD = [
    (lambda: GraphKernel(W30, HEAT, method="svd"), ValueError, "method must be one of"),
    (lambda: GraphKernel(W30, HEAT, order=-1), ValueError, "order must be >= 0"),
    (lambda: GraphKernel(W30, HEAT, tol=0), ValueError, "tol must be > 0"),
    (lambda: GraphKernel(W30, HEAT, laplacian="randomwalk"), ValueError, "laplacian must be one of"),
    (lambda: GraphKernel(W30, HEAT, input="graph"), ValueError, "input must be one of"),
    (lambda: GraphKernel(W30, "heat"), TypeError, "phi must be"),
    (lambda: GraphKernel(W30, HEAT, lmax=-1.0), ValueError, "lmax must be > 0"),
    (lambda: GraphKernel(laplacian(W30, "randomwalk"), HEAT), ValueError, "must be symmetric"),
    (lambda: GraphKernel(np.ones((3, 4)), HEAT), ValueError, "square"),
    (lambda: GraphKernel(-W30.toarray() + np.eye(30) * 0 - np.triu(np.ones((30, 30)), 1), HEAT), ValueError,
     "symmetric"),
    (lambda: GraphKernel(W30, filters.RandomWalk(1.0, 1)), ValueError, "not strictly positive"),
    (lambda: GraphKernel(W30, filters.InverseCosine(), laplacian="combinatorial"), ValueError,
     "not a positive definite kernel"),
    (lambda: GraphKernel(W30, HEAT) @ np.ones(29), ValueError, "expected 30 rows"),
    (lambda: GraphKernel(W30, HEAT).columns([30]), ValueError, r"node indices in \[-30, 30\)"),
    (lambda: GraphKernel(W30, HEAT).columns([1.5]), TypeError, "node indices"),
    (lambda: GraphKernel(W30, HEAT).columns(np.ones(3, bool)), ValueError, "boolean idx mask"),
    (lambda: GraphKernel(W30, HEAT).columns([1], out=np.empty((30, 2))), ValueError, "out must have shape"),
    # an integer out= truncated every entry to 0
    (lambda: GraphKernel(W30, HEAT).columns([1], out=np.empty((30, 1), int)), TypeError, "out must be a float32"),
    (lambda: GraphKernel(W30, HEAT).columns([1], out=np.empty((30, 1), complex)), TypeError, "out must be a float32"),
    (lambda: GraphKernel(W30, HEAT).columns([1], out=[[0.0]] * 30), TypeError, "out must be a float32"),
    (lambda: GraphKernel(W30, HEAT).columns([1], batch_size=0), ValueError, "batch_size must be >= 1"),
    (lambda: GraphKernel(W30, HEAT).toarray(max_nodes=10), ValueError, "max_nodes=10"),
    # NaN in a matrix was reported as "L has a positive diagonal but no off-diagonal entries" (sign analysis)
    (lambda: GraphKernel(laplacian(W30).toarray() * np.nan, HEAT), ValueError, "L contains NaN or infinity"),
    (lambda: GraphKernel(sp.csr_array(np.where(W30.toarray() > 0, np.inf, 0.0)), HEAT), ValueError,
     "L contains NaN or infinity"),
]


@pytest.mark.parametrize("call,error,match", BAD)
def test_bad_input(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_indefinite_response_allowed_when_asked():
    K = GraphKernel(W30, filters.RandomWalk(1.0, 1), check_positive=False)
    lam = np.linalg.eigvalsh(K.L.toarray())
    assert np.linalg.eigvalsh(K.toarray()).min() == pytest.approx((1.0 - lam).min(), abs=1e-8)


def test_float16_adjacency_or_laplacian_is_upcast_like_integers():
    """GraphKernel and exact_filter gave scipy.sparse's float16 dtype error; a float16 matrix is upcast to
    float64 (as integers are).  Path graph: weights and Laplacian exact in float16."""
    n = 12
    A = np.diag(np.ones(n - 1), 1) + np.diag(np.ones(n - 1), -1)
    L = np.diag(A.sum(1)) - A
    x = np.random.default_rng(3).normal(size=n)
    phi = filters.Heat(0.7)
    w, V = np.linalg.eigh(L)
    ref = V @ (np.exp(-0.7 * w) * (V.T @ x))
    for M, kind in ((A, "combinatorial"), (L, None)):
        K = GraphKernel(M.astype(np.float16), phi, method="exact", laplacian=kind)
        assert K.dtype == np.float64
        np.testing.assert_allclose(K @ x, ref, rtol=0, atol=1e-12)
    np.testing.assert_allclose(exact_filter(L.astype(np.float16), phi, x), ref, rtol=0, atol=1e-12)


@pytest.mark.parametrize("method", ["exact", "lanczos"])
def test_response_on_zero_to_lmax_and_non_finite_response(method):
    # sqrt(lambda) + 1 was evaluated at the rounding-negative zero eigenvalue by method="exact" (all-NaN kernel);
    # a response NaN on the spectrum passed with check_positive=False and gave NaN products
    n = 10
    k = np.arange(n)
    lam = 2.0 - 2.0 * np.cos(np.pi * k / n)                       # path Laplacian, closed form
    U = np.cos(np.pi * np.outer(np.arange(n) + 0.5, k) / n)
    U /= np.linalg.norm(U, axis=0)
    W = np.diag(np.ones(n - 1), 1) + np.diag(np.ones(n - 1), -1)
    L = laplacian(W)
    K = GraphKernel(L, filters.Filter(lambda x: np.sqrt(x) + 1.0, name="s"), method=method, tol=1e-12)
    ref = (U * (np.sqrt(lam) + 1.0)) @ U.T
    atol = 1e-7   # sqrt of a rounding-level eigenvalue (1e-16) is 1e-8
    np.testing.assert_allclose(K.toarray(), ref, rtol=0, atol=atol * np.abs(ref).max())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        with pytest.raises(ValueError, match="not finite"):
            GraphKernel(L, filters.Filter(lambda x: np.sqrt(x - 1.0)), method=method, check_positive=False) @ np.ones(n)


@pytest.mark.parametrize("method", ["chebyshev", "lanczos", "exact"])
def test_complex_signals_are_refused_not_cast(method):
    # K @ (1j * x) returned 0 (the real part, with only a ComplexWarning)
    W = np.diag(np.ones(9), 1) + np.diag(np.ones(9), -1)
    K = GraphKernel(W, filters.Heat(1.0), method=method)
    x = np.random.default_rng(0).normal(size=10)
    for call in (lambda: K @ (1j * x), lambda: K.matvec(1j * x), lambda: K.matmat((1j * x)[:, None]),
                 lambda: K.dot(1j * x), lambda: K.rmatvec(1j * x)):
        with pytest.raises(TypeError, match="X must be real"):
            call()


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_noncanonical_laplacian_input_is_not_modified(index_dtype):
    # a CSR Laplacian with duplicate and unsorted column indices: GraphKernel sorted it in place,
    # rewriting the caller's arrays (and so any other matrix built on the same data array)
    L = laplacian(_geometric(12), "normalized")
    oracle = _dense_kernel(L, lambda lam: np.exp(-lam))
    coo = L.tocoo()
    r, c = np.concatenate([coo.row, coo.row]), np.concatenate([coo.col, coo.col])
    d = np.concatenate([coo.data, coo.data]) / 2           # every entry split into two duplicates
    order = np.lexsort((-c, r))                            # columns in decreasing order in each row
    r, c, d = r[order], c[order], d[order]
    indptr = np.searchsorted(r, np.arange(13)).astype(index_dtype)
    Ln = sp.csr_array((d, c.astype(index_dtype), indptr), shape=(12, 12))
    Ln.has_canonical_format = False
    twin = sp.csr_array((d, c.astype(index_dtype), indptr.copy()), shape=(12, 12))  # shares d
    saved = Ln.data.copy(), Ln.indices.copy()
    for method in ("chebyshev", "lanczos", "exact"):
        K = GraphKernel(Ln, filters.Heat(1.0), input="laplacian", method=method)
        np.testing.assert_allclose(K.toarray(), oracle, atol=1e-8)
    np.testing.assert_array_equal(Ln.data, saved[0])
    np.testing.assert_array_equal(Ln.indices, saved[1])
    np.testing.assert_allclose(twin.toarray(), L.toarray(), atol=1e-15)


@pytest.mark.parametrize("method", ["chebyshev", "exact"])
def test_submatrix_estimates_its_memory_before_allocating(method, monkeypatch):
    """submatrix(rows, cols) allocates a (len(rows), len(cols)) result -- n^2 numbers for rows = cols = all
    nodes -- but only its batches of columns were guarded: with 300 x 300 entries (703 KiB) against a limit of
    48 KiB it filled the whole array.  Now a MemoryError naming the size, before any column is computed; the
    same request under the limit gives the dense kernel (oracle: exact_filter on the identity)."""
    from graphrkhs._core import validation

    W = np.diag(np.ones(299), 1)
    W = W + W.T
    K = GraphKernel(W, filters.Heat(1.0), method=method)
    idx = np.arange(300)
    want = exact_filter(K.L, filters.Heat(1.0), np.eye(300))
    np.testing.assert_allclose(K.submatrix(idx[:40], idx[::3]), want[:40][:, ::3], atol=1e-7)
    monkeypatch.setattr(validation, "_physical_memory", lambda: 64 * 2**10)   # limit 48 KiB
    with pytest.raises(MemoryError, match=r"300 x 300"):
        K.submatrix(idx, idx, batch_size=2)
