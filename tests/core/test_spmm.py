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
