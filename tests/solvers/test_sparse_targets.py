"""Sparse targets: a one-hot Y given as a SciPy sparse matrix (``LabelBinarizer(sparse_output=True)``).

``np.asarray`` of a sparse matrix is a 0-d object array, so the target check refused it as "Y must be a real
numeric array ... got dtype object" -- although Y is a matrix of floats.  The solvers now densify it (the one
helper ``dense_array``) and give the dense answer exactly.
"""

import numpy as np
import pytest
import scipy.sparse as sp

import graphrkhs as gr


def _path_graph(n=12):
    W = sp.diags_array([np.ones(n - 1), np.ones(n - 1)], offsets=[1, -1]).tocsr()
    return W


@pytest.mark.parametrize("fmt", [sp.csr_matrix, sp.csr_array, sp.coo_array])
def test_harmonic_solution_of_sparse_one_hot_targets_is_the_dense_one(fmt):
    W = _path_graph()
    Y = np.eye(2)
    dense = gr.harmonic_solution(W, [0, 11], Y)
    np.testing.assert_array_equal(gr.harmonic_solution(W, [0, 11], fmt(Y)), dense)
    # the oracle: the harmonic interpolation on a path is linear between the labeled ends
    t = np.arange(12) / 11.0
    np.testing.assert_allclose(dense, np.c_[1 - t, t], atol=1e-9)


def test_poisson_learning_and_graph_tv_take_sparse_targets():
    W = _path_graph()
    Y = np.eye(2)
    np.testing.assert_array_equal(gr.poisson_learning(W, [0, 11], sp.csr_array(Y)),
                                  gr.poisson_learning(W, [0, 11], Y))
    np.testing.assert_array_equal(gr.graph_tv(W, [0, 11], sp.csr_array(Y)), gr.graph_tv(W, [0, 11], Y))
