"""laprls_fit's direct residual check knows float64's floor (it checks B alpha without B, overwritten by its LU)."""
import re

import numpy as np
import pytest

from graphrkhs import ConvergenceWarning, knn_graph, laplacian, laprls_fit, pairwise_kernel
from graphrkhs._core.linalg import rounding_floor


def test_residual_at_the_rounding_floor_is_not_called_ill_conditioned():
    # gamma_I = 1e6, tol = 1e-10: the residual 9.4e-8 sits at float64's floor eps |B| |alpha| / |Jy| = 3.2e-8
    # (the dense check of B says so); the check without B had no floor and blamed the matrix ("increase gamma_A")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 2))
    K = pairwise_kernel(X, sigma=1.0)
    M = laplacian(knn_graph(X, 5))
    S = np.arange(10)
    y = rng.normal(size=10)
    with pytest.warns(ConvergenceWarning) as rec:
        a = laprls_fit(K, S, y, M, 1e-6, 1e6, solver="direct", tol=1e-10)
    msg = " ".join(str(w.message) for w in rec)
    assert "float64 cannot do better" in msg and "ill-conditioned" not in msg
    n, l = 50, 10
    J = np.zeros(n)
    J[S] = 1.0
    B = (np.diag(J) + 1e6 * l / n ** 2 * M.toarray()) @ K + 1e-6 * l * np.eye(n)
    JY = np.zeros(n)
    JY[S] = y
    dense = float(rounding_floor(B, a, JY)[0])
    shown = float(re.search(r"alone is ([0-9.e+-]+) of \|b\|", msg).group(1))
    # the floor of the check as computed, B alpha = J K alpha + M' (K alpha) + gamma_A l alpha:
    # eps ((J + |M'|) |K| |alpha| + gamma_A l |alpha|), at least the dense eps |B| |alpha| (18 x here: M' K cancels)
    assert dense <= shown <= 100 * dense
