"""WarpedKernel(A, right=R) without B.

FredholmKernel's right factor carries B (K(A, right=K.right_factor(B)) is K(A, B)); the warped kernel's does
not (its base term k(A, B) needs the points), and B = None was read as B = A: K(A, right=K.right_factor(B))
was k(A, A) - k_A^T V_B, 0.997 off K(A, B) for len(A) == len(B) (Gaussian, peak 1), and numpy's
"operands could not be broadcast together" otherwise.
"""

import numpy as np
import pytest

from graphrkhs import WarpedKernel


@pytest.mark.parametrize("solver", ["direct", "cg", "nystrom"])
@pytest.mark.parametrize("n_b", [3, 5])
def test_right_without_b_is_refused(solver, n_b):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    A = rng.normal(size=(5, 2))
    B = rng.normal(size=(n_b, 2))
    K = WarpedKernel(X, sigma=1.0, n_neighbors=5, solver=solver, n_components=30)
    R = K.right_factor(B)
    with pytest.raises(ValueError, match=r"K\(A, B, right=K.right_factor\(B\)\)"):
        K(A, right=R)
    np.testing.assert_allclose(K(A, B, right=R), K(A, B), rtol=1e-12, atol=1e-14)
