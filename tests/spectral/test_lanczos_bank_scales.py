"""lanczos_filter on a filter bank whose responses differ in scale.

The stopping test measured every response's change against the largest response of the bank, so a response
1e-6 times smaller than its companion Heat(0.5) came back 0.046 off (relative to itself) at tol=1e-8, where the
same response alone was 4.6e-8 off and chebyshev_filter's bank 6.8e-9 (each response to its own peak).
"""

import numpy as np
import pytest

from graphrkhs import filters, knn_graph, lanczos_filter, laplacian


@pytest.mark.parametrize("c", [1.0, 1e-3, 1e-6, 1e-12])
def test_small_response_in_a_bank_is_as_accurate_as_alone(c):
    rng = np.random.default_rng(0)
    L = laplacian(knn_graph(rng.normal(size=(300, 2)), 8))
    lam, U = np.linalg.eigh(L.toarray())
    lam = np.clip(lam, 0.0, None)
    lam[0] = 0.0                                  # connected: one zero eigenvalue
    x = rng.normal(size=300)
    small = filters.Filter(lambda l: c / (1.0 + 5.0 * l) ** 3, name="small")
    bank = [filters.Heat(0.5), small]
    Y = lanczos_filter(L, bank, x, tol=1e-8)
    for f, y in zip(bank, Y):
        ref = U @ (f(lam) * (U.T @ x))
        assert np.abs(y - ref).max() <= 1e-6 * np.abs(ref).max()
