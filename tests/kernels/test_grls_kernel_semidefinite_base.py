"""GRLSKernel with a linear / polynomial base kernel: refused (its docstring and Li, Lee & Leung's construction need a
strictly positive definite phi; with kernel='linear' the constructed Gram on 8 points in 2-D had eigenvalues
-1.4e-15, -5.5e-16, ..., i.e. it was singular although the docstring says K is positive definite)."""

import numpy as np
import pytest

from graphrkhs import GRLSKernel


X = np.random.default_rng(0).standard_normal((8, 2))


@pytest.mark.parametrize("kernel", ["linear", "polynomial"])
def test_semidefinite_base_kernel_refused(kernel):
    with pytest.raises(ValueError, match=rf"strictly positive definite base kernel .*kernel='{kernel}'"):
        GRLSKernel(X, kernel=kernel)


@pytest.mark.parametrize("kernel", ["gaussian", "heat"])
def test_positive_definite_base_kernel_gives_positive_definite_gram(kernel):
    K = GRLSKernel(X, features="linear", kernel=kernel, sigma=1.0)
    G = K(X)
    assert np.linalg.eigvalsh((G + G.T) / 2).min() > 1e-8
