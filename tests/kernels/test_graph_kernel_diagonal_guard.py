"""GraphKernel.diagonal() computes every column (quadratic in n): refused above max_nodes, like toarray()."""

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs import GraphKernel, laplacian


def _path_kernel(n):
    e = np.ones(n - 1)
    W = sp.csr_array(sp.diags([e, e], [-1, 1]))
    return GraphKernel(laplacian(W), lambda lam: np.exp(-lam))


def test_diagonal_refused_above_default_max_nodes():
    # n = 20001 > 20000 (n = 20000 took 41 s and 1.7 GB; 200000 never finished); refused before any column
    with pytest.raises(ValueError, match=r"^diagonal\(\) computes all 20001 columns of the kernel \(as much work "
                                         r"as toarray\(\): 4e\+08 entries, \d+ products with L per batch of "
                                         r"columns\), above max_nodes=20000; use columns\(idx\)"):
        _path_kernel(20001).diagonal()


def test_diagonal_max_nodes_argument():
    gk = _path_kernel(40)
    with pytest.raises(ValueError, match=r"above max_nodes=39; .*or raise max_nodes knowingly\.$"):
        gk.diagonal(max_nodes=39)
    with pytest.raises(ValueError, match=r"^max_nodes must be >= 1; got 0\.$"):
        gk.diagonal(max_nodes=0)


def test_diagonal_below_bound_matches_dense():
    gk = _path_kernel(40)
    np.testing.assert_array_equal(gk.diagonal(max_nodes=40), np.diagonal(gk.toarray()))
