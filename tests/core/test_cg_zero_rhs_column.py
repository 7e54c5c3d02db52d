"""conjugate_gradient with a zero column of B and a nonzero start x0 for it.

The solution of that column is 0, but its relative residual target, tol * |b| = 0, was unreachable from x0:
CG iterated until its squared norms underflowed, and p^T A p = 0 raised 'A is not positive definite' on an SPD
A (Jacobi-preconditioned, x0 ~ 1e-113: CutSSL's warm start of a class given no unlabeled node by class_priors,
on a complete graph); from x0 ~ 1e100 Jacobi CG returned the column ~4e69 with a ConvergenceWarning and plain CG
raised FloatingPointError; from x0 ~ 1 it returned rounding (~1e-15).  The zero column now comes back 0,
converged, at once.
"""
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs.solvers import conjugate_gradient, cut_ssl

A = np.full((4, 4), -1.0) + 20.0 * np.eye(4)
B = np.column_stack([np.zeros(4), np.full(4, 16.0)])


@pytest.mark.parametrize("scale", [1e-113, 1e-3, 1.0, 1e100])
@pytest.mark.parametrize("jacobi", [True, False])
def test_zero_column_from_a_nonzero_start(scale, jacobi):
    x0 = np.column_stack([scale * np.array([6.757, 6.757, 3.638, 3.638]), np.ones(4)])
    M = sp.diags_array(np.full(4, 1.0 / 19.0)) if jacobi else None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = conjugate_gradient(sp.csr_array(A), B, x0=x0, M=M, tol=1e-6)
    assert np.array_equal(res.x[:, 0], np.zeros(4))
    assert np.allclose(A @ res.x[:, 1], B[:, 1], rtol=1e-6)
    assert res.converged.all()
    res1 = conjugate_gradient(sp.csr_array(A), B[:, 0], x0=x0[:, 0], M=M, tol=1e-6)
    assert np.array_equal(res1.x, np.zeros(4)) and res1.converged.all()


def test_zero_column_cut_ssl_start():
    # CutSSL's warm start that raised LinAlgError ('A is not positive definite') on this SPD system
    x0 = np.array([[6.7570163476691847e-113, 1.0], [6.7570163476691847e-113, 1.0],
                   [3.6383934179757093e-113, 1.0], [3.6383934179757168e-113, 1.0]])
    res = conjugate_gradient(sp.csr_array(A), B, x0=x0, M=sp.diags_array(np.full(4, 1.0 / 19.0)), tol=1e-6)
    assert np.array_equal(res.x[:, 0], np.zeros(4))
    assert res.converged.all()


def test_cut_ssl_with_a_class_sized_zero_on_a_complete_graph():
    n = 11
    W = np.ones((n, n)) - np.eye(n)
    S = np.array([7, 2, 6, 5, 9, 10, 8])
    codes = np.array([0, 1, 0, 1, 0, 0, 1])
    priors = np.array([0.04383573639314343, 0.9561642636068566])     # sizes (0, 4) of the 4 unlabeled nodes
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # the label-proportion / convergence notes of a tiny graph
        F = cut_ssl(W, S, np.eye(2)[codes], class_priors=priors)
    labels = F.argmax(axis=1)
    assert np.array_equal(labels[S], codes)
    assert np.array_equal(labels[[0, 1, 3, 4]], [1, 1, 1, 1])
