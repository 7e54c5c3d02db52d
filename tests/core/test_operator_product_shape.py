"""A LinearOperator whose product has the wrong shape: a ValueError naming the argument and the shapes.

scipy's wrapper reshapes a matvec's result to (n,) / (n, 1): a vector of the wrong length failed there with
"cannot reshape array of size 99 into shape (100,1)", naming no argument; a matmat returning the transpose
(m, n) was reshaped by the symmetry dot test into (n, m) and refused as "not symmetric" (a misleading error).  Every public entry point that takes an
operator goes through graphrkhs._core.linalg.operator_matmat.
"""

import re

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import graphrkhs as g
from graphrkhs import filters

N = 40


def path_laplacian():
    W = sp.diags([np.ones(N - 1), np.ones(N - 1)], [-1, 1], format="csr")
    return g.laplacian(W)


L = path_laplacian()
SHORT = spla.LinearOperator((N, N), matvec=lambda x: (L @ x)[:-1], dtype=float)
TWO_ROWS = spla.LinearOperator((N, N), matvec=lambda x: np.vstack([L @ np.ravel(x)] * 2), dtype=float)
TRANSPOSED = spla.LinearOperator((N, N), matvec=lambda x: L @ x,
                                 matmat=lambda X: np.ascontiguousarray((L @ X).T), dtype=float)

CASES = [(SHORT, "matvec", (N,), (N - 1,)), (TWO_ROWS, "matvec", (N,), (2, N)),
         (TRANSPOSED, "matmat", None, None)]

ENTRY_POINTS = {
    "lmax": (lambda A: g.lmax(A), "L"),
    "chebyshev_filter": (lambda A: g.chebyshev_filter(A, filters.Heat(1.0), np.ones(N)), "L"),
    "lanczos_filter": (lambda A: g.lanczos_filter(A, filters.Heat(1.0), np.ones(N)), "L"),
    "exact_filter": (lambda A: g.exact_filter(A, filters.Heat(1.0), np.ones(N)), "L"),
    "conjugate_gradient A": (lambda A: g.conjugate_gradient(A, np.ones((N, 3))), "A"),
    "conjugate_gradient M": (lambda A: g.conjugate_gradient(L + sp.eye(N), np.ones((N, 3)), M=A), "M"),
}


@pytest.mark.parametrize("entry", list(ENTRY_POINTS))
@pytest.mark.parametrize("case", range(len(CASES)), ids=["short", "two_rows", "transposed"])
def test_wrong_product_shape_named(entry, case):
    op, kind, given, got = CASES[case]
    call, name = ENTRY_POINTS[entry]
    if entry == "exact_filter" and kind == "matmat":
        # its only product is with the identity, a square block: (L I)^T = L is the right answer
        np.testing.assert_allclose(call(op), g.exact_filter(L, filters.Heat(1.0), np.ones(N)), atol=1e-12)
        return
    if kind == "matmat":
        message = (rf"{name} \(a LinearOperator of shape \({N}, {N}\)\) returned an array of shape \(\d+, {N}\) "
                   rf"from its matmat of an input of shape \({N}, \d+\); expected shape \({N}, \d+\)")
    else:
        message = re.escape(f"{name} (a LinearOperator of shape ({N}, {N})) returned an array of shape {got} from "
                            f"its matvec of an input of shape {given}; expected shape ({N},)")
    with pytest.raises(ValueError, match=message):
        call(op)


def test_right_shapes_still_work():
    # the same operators with a correct product: nothing refused, the same numbers as the matrix
    good = spla.LinearOperator((N, N), matvec=lambda x: L @ x, dtype=float)
    x = np.linspace(-1, 1, N)
    np.testing.assert_allclose(g.chebyshev_filter(good, filters.Heat(1.0), x),
                               g.chebyshev_filter(L, filters.Heat(1.0), x), atol=1e-10)
    res = g.conjugate_gradient(spla.aslinearoperator(L + sp.eye(N)), x)
    np.testing.assert_allclose((L + sp.eye(N)) @ res.x, x, atol=1e-6)
