"""The compiled sparse product (graphrkhs._core.spmm) against SciPy's ``A @ X``."""

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs._core.spmm import fused_step, spmm


def _matrix():
    return sp.csr_array(sp.random(12, 10, density=0.3, random_state=2))


@pytest.mark.parametrize("m", [1, 3])
@pytest.mark.parametrize("layout", ["C", "F", "strided"])
def test_spmm_equals_scipy_product(m, layout):
    A = _matrix()
    base = np.random.default_rng(0).standard_normal((10, 2 * m))
    cur = {"C": np.ascontiguousarray(base[:, :m]), "F": np.asfortranarray(base[:, :m]),
           "strided": base[:, ::2]}[layout]
    out0 = np.random.default_rng(1).standard_normal((12, m))
    out = out0.copy()
    spmm(A, cur, out, beta=0.5)
    np.testing.assert_allclose(out, A.toarray() @ cur + 0.5 * out0, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("m", [1, 3])
def test_integer_blocks_are_refused_not_truncated(m):
    # an int64 block used to be accumulated in integers: A @ ones came out truncated, no error
    A = _matrix()
    with pytest.raises(TypeError, match="fused_step: cur must be a float block; got dtype int64"):
        spmm(A, np.ones((10, m), dtype=np.int64), np.empty((12, m)))
    with pytest.raises(TypeError, match="fused_step: out must be a float block; got dtype int64"):
        spmm(A, np.ones((10, m)), np.empty((12, m), dtype=np.int64))


def test_output_aliasing_the_input_is_refused():
    # out == cur used to overwrite rows that later rows still read: a wrong product, no error
    S = sp.csr_array(sp.random(10, 10, density=0.3, random_state=3))
    Y = np.random.default_rng(0).standard_normal((10, 3))
    with pytest.raises(ValueError, match="out shares memory with cur"):
        spmm(S, Y, Y)
    with pytest.raises(ValueError, match="out shares memory with cur"):
        fused_step(S, 2.0, 1.0, 1.0, 0.0, 0.0, Y, Y[:, ::-1])


# ---------------------------------------------------------------------------
# What reaches the compiled kernels (defect review r10idx): each case used to
# end in numba's type inference, in a silently wrong result or out of bounds.
# ---------------------------------------------------------------------------

from types import SimpleNamespace  # noqa: E402

from graphrkhs._core import spmm as spmm_module  # noqa: E402
from graphrkhs._core.reorder import PreparedOperator  # noqa: E402
from graphrkhs._core.spmm import gather_rows  # noqa: E402


@pytest.mark.parametrize("m", [1, 3])
def test_complex_matrix_is_refused_before_the_compiler(m):
    # complex entries used to fail inside numba's type inference ("During: Pass nopython_type_inference")
    A = _matrix()
    C = sp.csr_array((A.data * (1 + 1j), A.indices, A.indptr), shape=A.shape)
    with pytest.raises(TypeError, match="fused_step: L must have real entries .*; got dtype complex128"):
        spmm(C, np.ones((10, m)), np.empty((12, m)))


@pytest.mark.parametrize("m", [1, 3])
def test_read_only_output_is_refused_before_the_compiler(m):
    A = _matrix()
    out = np.empty((12, m))
    out.flags.writeable = False
    with pytest.raises(ValueError, match="fused_step: out is read-only"):
        spmm(A, np.ones((10, m)), out)
    cur = np.random.default_rng(0).standard_normal((10, m))
    cur.flags.writeable = False   # a read-only input is fine
    out = np.empty((12, m))
    spmm(A, cur, out)
    np.testing.assert_allclose(out, A.toarray() @ cur, rtol=1e-12, atol=1e-12)


def test_accumulator_aliasing_cur_is_refused():
    # R[f, i] += w_f out[i] is written while later rows still read cur: with R[0] the memory of cur
    # the product came out wrong (max error 23.7 on a 50 x 50 matrix), no error
    S = sp.csr_array(sp.random(10, 10, density=0.3, random_state=3))
    R = np.zeros((1, 10, 3))
    R[0] = np.random.default_rng(0).standard_normal((10, 3))
    with pytest.raises(ValueError, match="R shares memory with cur"):
        fused_step(S, 1.0, 0.0, 1.0, 0.0, 0.0, R[0], np.empty((10, 3)), weights=np.ones(1), R=R)
    # separate blocks: out = S cur, R[0] += 2 out (dense oracle)
    cur, R0 = R[0].copy(), R[0].copy()
    out = np.empty((10, 3))
    fused_step(S, 1.0, 0.0, 1.0, 0.0, 0.0, cur, out, weights=np.array([2.0]), R=R)
    np.testing.assert_allclose(out, S.toarray() @ cur, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(R[0], R0 + 2 * S.toarray() @ cur, rtol=1e-12, atol=1e-12)


def test_weights_must_be_one_dimensional():
    S = _matrix()
    with pytest.raises(ValueError, match="weights must be a 1-D real array"):
        fused_step(S, 1.0, 0.0, 1.0, 0.0, 0.0, np.ones((10, 3)), np.empty((12, 3)),
                   weights=np.ones((2, 1)), R=np.zeros((2, 12, 3)))


def test_index_check_is_not_vouched_for_by_another_shape():
    # the once-per-matrix check was remembered by the identity of the index arrays alone: the same
    # arrays under a narrower shape (or beside a shorter data array) then reached the kernel unchecked
    A = sp.csr_array(sp.random(12, 10, density=0.5, random_state=4))
    spmm(A, np.ones((10, 2)), np.empty((12, 2)))
    narrow = SimpleNamespace(indices=A.indices, indptr=A.indptr, data=A.data, shape=(12, 3), nnz=A.nnz)
    with pytest.raises(ValueError, match=r"L.indices holds the index \d+, outside the valid range \[0, 3\)"):
        spmm(narrow, np.ones((3, 2)), np.empty((12, 2)))
    short = SimpleNamespace(indices=A.indices, indptr=A.indptr, data=A.data[:-4], shape=A.shape, nnz=A.nnz)
    with pytest.raises(ValueError, match="L.indices and L.data must have the same length"):
        spmm(short, np.ones((10, 2)), np.empty((12, 2)))


def test_unsigned_indptr_that_decreases_is_refused():
    # np.diff of an unsigned indptr wraps around, so a decreasing entry passed the monotonicity check
    indptr = np.array([0, 3, 1, 4], dtype=np.uint32)
    L = SimpleNamespace(indices=np.array([0, 1, 2, 0], dtype=np.uint32), indptr=indptr,
                        data=np.ones(4), shape=(3, 3), nnz=4)
    with pytest.raises(ValueError, match="L.indptr must be non-decreasing"):
        spmm(L, np.ones((3, 2)), np.empty((3, 2)))


def test_gather_rows_refuses_bad_outputs():
    rng = np.random.default_rng(0)
    src = rng.standard_normal((600_000, 2))   # large enough for the compiled, chunked path
    perm = rng.permutation(600_000)
    np.testing.assert_array_equal(gather_rows(src, perm), src[perm])
    # out == src permuted in place came back wrong (rows read after they were overwritten)
    with pytest.raises(ValueError, match="out shares memory with src"):
        gather_rows(src, perm, out=src)
    # an integer out truncated every value
    with pytest.raises(TypeError, match="out must be a writeable float32 or float64 block; got dtype int64"):
        gather_rows(src, perm, out=np.empty(src.shape, dtype=np.int64))
    with pytest.raises(ValueError, match="src must be 2-D and rows 1-D"):
        gather_rows(np.arange(5.0), np.arange(5))


def test_thread_count_from_the_environment(monkeypatch):
    monkeypatch.setenv("GRAPHRKHS_NUM_THREADS", "two")
    with pytest.raises(ValueError, match="GRAPHRKHS_NUM_THREADS must be a positive integer.*'two'"):
        spmm_module.n_threads()
    monkeypatch.setenv("GRAPHRKHS_NUM_THREADS", "0")
    with pytest.raises(ValueError, match="GRAPHRKHS_NUM_THREADS must be a positive integer"):
        spmm_module.n_threads()
    # a huge count used to start that many helper threads; a call never has more than _MAX_CHUNKS chunks
    monkeypatch.setenv("GRAPHRKHS_NUM_THREADS", "100000")
    monkeypatch.setattr(spmm_module, "_POOL", None)
    assert spmm_module._pool().n_helpers == spmm_module._MAX_CHUNKS - 1


def _laplacian(n=60, seed=5):
    W = sp.random(n, n, density=0.1, random_state=seed)
    W = sp.csr_array(W + W.T)
    W.setdiag(0)
    W.eliminate_zeros()
    return sp.csr_array(sp.diags_array(np.asarray(W.sum(axis=1)).ravel()) - W)


@pytest.mark.parametrize("backend", ["numba", "scipy"])
def test_prepared_operator_does_not_follow_in_place_edits_of_the_input(backend):
    # the operator shared L's index and data arrays: an index edited in place afterwards reached the
    # compiled kernel unchecked (out of range: a segfault; in range: a silently different operator)
    L = _laplacian()
    dense = L.toarray()
    op = PreparedOperator(L, np.float64, reorder=False, backend=backend)
    assert not any(np.shares_memory(a, b) for a in (op.L.indices, op.L.indptr, op.L.data)
                   for b in (L.indices, L.indptr, L.data))
    L.indices[:] = L.indices[::-1]   # still in range, a different matrix
    L.data[:] = 7.0
    X = np.random.default_rng(0).standard_normal((60, 3))
    np.testing.assert_allclose(op.matmat(op.to_internal(X)), dense @ X, rtol=1e-12, atol=1e-12)


def test_prepared_operator_refuses_complex_and_misshapen_blocks():
    L = _laplacian()
    with pytest.raises(TypeError, match="L must have real entries; got dtype complex128"):
        PreparedOperator(sp.csr_array(L * 1j), np.float64)   # astype(float) dropped the imaginary part
    n = 20_000   # reordered: the permuted gather cut an (n + 10)-row block to n rows, no error
    path = sp.diags_array([-np.ones(n - 1), 2 * np.ones(n), -np.ones(n - 1)], offsets=[-1, 0, 1], format="csr")
    shuffle = np.random.default_rng(1).permutation(n)
    op = PreparedOperator(sp.csr_array(path[shuffle][:, shuffle]), np.float64, reorder=True)
    assert op.perm is not None
    with pytest.raises(ValueError, match=r"the signal block must have shape \(20000, m\); got \(20010, 2\)"):
        op.to_internal(np.ones((n + 10, 2)))
    with pytest.raises(ValueError, match=r"the internal block must have 20000 rows \(nodes\); got shape \(20010, 2\)"):
        op.to_user(np.ones((n + 10, 2)))
    with pytest.raises(ValueError, match=r"the internal block must have 20000 rows"):
        op.to_user(np.ones((3, n + 10, 2)))
    Y = np.random.default_rng(2).standard_normal((n, 2))
    np.testing.assert_array_equal(op.to_user(op.to_internal(Y)), Y)


def test_permutation_of_long_rows_with_duplicates_equals_dense():
    # rows longer than _INSERTION_MAX take the merge-sort path (a hub's row was insertion-sorted:
    # quadratic in its degree); duplicates stay, in their order, and sum as before
    from graphrkhs._core.reorder import _INSERTION_MAX, permute_symmetric

    n = 3 * _INSERTION_MAX
    rng = np.random.default_rng(6)
    rows = np.r_[np.zeros(n - 1, int), np.arange(1, n), 0, 0]
    cols = np.r_[np.arange(1, n), np.zeros(n - 1, int), 5, 5]     # the hub's row holds (0, 5) three times
    vals = rng.random(rows.size)
    order = rng.permutation(rows.size)                              # unsorted rows
    W = sp.csr_array((vals[order], (rows[order], cols[order])), shape=(n, n))
    W = sp.csr_array((W.data, W.indices, W.indptr), shape=(n, n))  # no sum_duplicates: non-canonical
    perm = rng.permutation(n)
    P, iperm = permute_symmetric(W, perm)
    np.testing.assert_allclose(P.toarray(), W.toarray()[perm][:, perm], rtol=0, atol=1e-15)
    assert all((np.diff(P.indices[P.indptr[i]:P.indptr[i + 1]]) >= 0).all() for i in range(n))
    np.testing.assert_array_equal(iperm[perm], np.arange(n))


def test_shifted_views_of_the_same_block_are_refused():
    # X = buf[:-1], out = buf[1:]: row i of X had been overwritten as row i - 1 of out before it was read
    S = _matrix()
    rng = np.random.default_rng(7)
    cur = rng.standard_normal((10, 3))
    buf = rng.standard_normal((13, 3))
    with pytest.raises(ValueError, match="X overlaps out without being the same block"):
        fused_step(S, 1.0, 0.0, 1.0, 0.0, 1.0, cur, buf[1:], X=buf[:-1])
    # the same block is an in-place update: out <- S cur + out + X with out = X
    X = buf[:12].copy()
    X0 = X.copy()
    fused_step(S, 1.0, 0.0, 1.0, 1.0, 1.0, cur, X, X=X)
    np.testing.assert_allclose(X, S.toarray() @ cur + 2 * X0, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float16, np.longdouble])
def test_float_dtypes_numba_cannot_compile_are_refused(dtype):
    # numba has no float16 (NotImplementedError: float16) nor long double (TypingError in its inference)
    A = _matrix()
    with pytest.raises(TypeError, match=f"fused_step: cur must be a float block; got dtype {np.dtype(dtype)}"):
        spmm(A, np.ones((10, 2), dtype=dtype), np.empty((12, 2)))
    B = sp.csr_array((A.data.astype(dtype), A.indices, A.indptr), shape=A.shape)
    with pytest.raises(TypeError, match=f"fused_step: L must have real entries .*got dtype {np.dtype(dtype)}"):
        spmm(B, np.ones((10, 2)), np.empty((12, 2)))


@pytest.mark.parametrize("m", [1, 3])
@pytest.mark.parametrize("n", [60, 200_000])   # one chunk, and rows shared between threads
@pytest.mark.parametrize("edit", ["column", "row pointer"])
def test_index_arrays_edited_in_place_after_a_product_are_refused(m, n, edit):
    # the O(nnz) index check ran once per matrix (by identity); an index array edited in place afterwards
    # reached the compiled loop unchecked: cur[indices[p]] read outside the block (a segfault)
    rng = np.random.default_rng(3)
    L = sp.csr_array(sp.diags_array([np.ones(n - 1), 2 * np.ones(n), np.ones(n - 1)], offsets=[-1, 0, 1],
                                    format="csr"))
    cur = rng.standard_normal((n, m))
    out = np.empty((n, m))
    fused_step(L, 1.0, 0.0, 1.0, 0.0, 0.0, cur, out)
    np.testing.assert_allclose(out, L @ cur, rtol=1e-13)
    if edit == "column":
        L.indices[n // 2] = n + 10**6
        message = r"L\.indices"
    else:
        L.indptr[n // 3 + 1] = L.nnz + 10**6
        message = r"L\.indptr must be non-decreasing"
    with pytest.raises(ValueError, match=message):
        fused_step(L, 1.0, 0.0, 1.0, 0.0, 0.0, cur, out)


def test_sealed_matrix_refuses_in_place_index_edits_and_stays_exact():
    # a sealed matrix (an operator's own, checked once) keeps its check true: its index arrays are read-only
    from graphrkhs._core.spmm import seal_csr
    L = _laplacian()
    dense = L.toarray()
    seal_csr(L)
    with pytest.raises(ValueError, match="read-only"):
        L.indices[0] = 10**6
    with pytest.raises(ValueError, match="read-only"):
        L.indptr[1] = 10**6
    cur = np.random.default_rng(4).standard_normal((60, 2))
    out = np.empty((60, 2))
    np.testing.assert_allclose(fused_step(L, 1.0, 0.0, 1.0, 0.0, 0.0, cur, out), dense @ cur, rtol=1e-13)
    bad = _laplacian()
    bad.indices[3] = 10**6
    with pytest.raises(ValueError, match=r"A\.indices"):
        seal_csr(bad, "A")
