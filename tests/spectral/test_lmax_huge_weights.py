"""lmax() with weights near the largest float: a finite bound when the spectrum fits, a clear error otherwise."""

import warnings

import numpy as np
import pytest

from graphrkhs import GraphKernel, chebyshev_filter, filters, laplacian, lmax


def _path(w, n=5):
    W = np.diag(np.full(n - 1, w), 1)
    return W + W.T


def test_lmax_bounds_spectrum_near_overflow():
    L = laplacian(_path(3e307))
    true = np.linalg.eigvalsh(L.toarray() / 2.0**1020).max() * 2.0**1020
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        for bound in (lmax(L), lmax(L.toarray()), lmax(L, "gershgorin")):
            assert np.isfinite(bound) and true <= bound <= 1.11 * true


@pytest.mark.parametrize("w", [3e307, 1e250])
def test_lmax_bounds_spectrum_near_overflow_beyond_the_dense_path(w):
    # n > 64 goes through Lanczos (ARPACK), not the dense eigvalsh of small L: at 3e307 it raised ArpackError
    # -9999, at 1e250 its products overflowed ("overflow in dot"); the bound of 2^-e L scaled back is finite
    n = 200
    L = laplacian(_path(w, n))
    true = 2.0 * w * (1.0 + np.cos(np.pi / n))        # the path Laplacian's largest eigenvalue, closed form
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        bound = lmax(L)
    assert np.isfinite(bound) and true <= bound <= 1.11 * true


@pytest.mark.parametrize("call", [
    lambda W: lmax(laplacian(W)),
    lambda W: chebyshev_filter(laplacian(W), filters.Heat(1e-308), np.ones(5)),
    lambda W: GraphKernel(W, filters.Heat(1e-309), laplacian="combinatorial"),
])
def test_spectrum_beyond_float64_is_a_clear_error(call):
    # the path of weights 5e307 has lambda_max = 3.618 * 5e307 > 1.8e308: lmax returned inf, and GraphKernel
    # refused "lmax must be finite; got inf" though no lmax was passed
    with pytest.raises(ValueError, match="beyond the float64 range.*scale the graph's weights down"):
        call(_path(5e307))
