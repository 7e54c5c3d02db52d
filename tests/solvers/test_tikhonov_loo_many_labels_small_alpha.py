"""tikhonov_path_errors on an ordinary kNN graph with 2000 labels at a small alpha: the leave-one-out is defined
and finite.  Since the Kron reduction kept its eigenvalues between 1e3 eps and 1e-10 of the largest (weakly attached
labels), their s = 1/t, up to 1/(1e3 eps ||T||), set the path's rounding level l eps max s above the ordinary s, and
the leave-one-out of 120-180 ordinary rows was reported undefined: the score -inf.  Oracle: the closed form
(y - H y)_i / (1 - H_ii) with H = (I + alpha L)^-1 inverted densely (every node labeled: the Kron reduction is L),
and a brute-force refit (sparse LU) for the rows where 1 - H_ii is below 1e-8 (nodes on edges of ~1e-20)."""
import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from graphrkhs import knn_graph, laplacian
from graphrkhs.solvers._selection import tikhonov_path_errors


def test_two_thousand_labels_at_small_alpha_have_a_finite_leave_one_out():
    rng = np.random.default_rng(0)
    n = 2000
    X = rng.normal(size=(n, 2))
    W = knn_graph(X, 4)
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=n)
    alpha = 1e-3
    score = tikhonov_path_errors(W, np.arange(n), y, np.array([alpha]))[0]
    L = sp.csc_array(laplacian(W))
    H = np.linalg.inv(np.eye(n) + alpha * L.toarray())
    den = 1.0 - np.diag(H)
    ok = den > 1e-8
    r = np.empty(n)
    r[ok] = (y - H @ y)[ok] / den[ok]
    for i in np.flatnonzero(~ok):
        J = np.ones(n)
        J[i] = 0.0
        r[i] = y[i] - spla.splu(sp.csc_array(sp.diags(J) + alpha * L)).solve(J * y)[i]
    assert np.isfinite(score).all()
    np.testing.assert_allclose(score, [-np.mean(r ** 2)], rtol=1e-8)
