"""An explicit Chebyshev ``order`` whose truncation error is above ``tol`` warns (AccuracyWarning), as the
automatic order does at ``max_order``; before, it was silent (Heat(1.0) on [0, 40] at order 3: relative
error 0.43 on [0, 40], against tol 1e-8).  The error is the automatic order's estimate (chebyshev_order)."""
import re
import warnings

import numpy as np
import pytest

from graphrkhs import AccuracyWarning, GraphKernel, chebyshev_filter, chebyshev_order, filters
from graphrkhs.spectral._plan import chebyshev_plan

W = np.diag(np.ones(29), 1)
W = np.diag((W + W.T).sum(axis=0)) - (W + W.T)       # the Laplacian of a path on 30 nodes
X = np.random.default_rng(0).standard_normal((30, 2))


def _accuracy(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [str(w.message) for w in caught if issubclass(w.category, AccuracyWarning)]


def _error_of(phi, lmax, order):
    # the dense oracle of the truncation error: p_K from the plan's coefficients on a fine grid of [0, lmax]
    c, _ = chebyshev_plan(phi, lmax, order=order, tol=1.0)
    lam = np.linspace(0, lmax, 20001)
    t = 2 * lam / lmax - 1
    T = np.cos(np.outer(np.arccos(t), np.arange(order + 1)))
    p = T @ c[0] - c[0][0] / 2
    return np.abs(p - phi(lam)).max() / np.abs(phi(lam)).max()


@pytest.mark.parametrize("call", [
    lambda: chebyshev_filter(W, filters.Heat(1.0), X, order=3, lmax=40.0),
    lambda: chebyshev_plan(filters.Heat(1.0), 40.0, order=3),
    lambda: GraphKernel(W, filters.Heat(1.0), order=3, lmax=40.0, input="laplacian"),
])
def test_explicit_order_below_tol_warns(call):
    caught = _accuracy(call)
    assert len(caught) == 1
    needed = chebyshev_order(filters.Heat(1.0), 40.0, 1e-8)
    err = _error_of(filters.Heat(1.0), 40.0, 3)
    assert err > 0.1                              # the oracle: far above tol
    assert f"order=3" in caught[0] and f"order {needed} meets tol=1e-08" in caught[0], caught[0]
    stated = float(re.search(r"relative error of ([0-9.e+-]+)", caught[0]).group(1))
    np.testing.assert_allclose(stated, err, rtol=1e-2)     # the grid estimate against the fine-grid oracle


def test_explicit_order_meeting_tol_is_silent():
    needed = chebyshev_order(filters.Heat(1.0), 40.0, 1e-8)
    assert not _accuracy(lambda: chebyshev_filter(W, filters.Heat(1.0), X, order=needed, lmax=40.0))
    assert not _accuracy(lambda: chebyshev_filter(W, filters.Heat(1.0), X, order=needed + 5, lmax=40.0))
    # a low order with the tol it meets
    err = _error_of(filters.Heat(1.0), 40.0, 3)
    assert not _accuracy(lambda: chebyshev_filter(W, filters.Heat(1.0), X, order=3, lmax=40.0, tol=2 * err))


def test_explicit_order_when_max_order_does_not_suffice():
    caught = _accuracy(lambda: chebyshev_plan(filters.Heat(1.0), 40.0, order=3, max_order=5))
    assert len(caught) == 1 and "max_order=5 does not suffice" in caught[0], caught


def test_exact_polynomial_is_silent():
    # a polynomial of degree 4 at order 4: exact
    assert not _accuracy(lambda: chebyshev_plan(filters.RandomWalk(3.0, 4), 2.0, order=4))


@pytest.mark.parametrize("damping", [None, "jackson"])
def test_explicit_order_samples_the_response_once_on_the_quadrature_nodes(damping):
    """With order= given, the error estimate computed the coefficients (one evaluation of phi on the
    4 (K + 1) Chebyshev-Gauss nodes) and the filter computed them again: a user's response was evaluated
    twice on the same nodes.  Once now; the filter applies the very coefficients chebyshev_coefficients
    defines, checked against the dense sum c_0/2 + sum_k c_k T_k(2 L / lmax - I) x."""
    from graphrkhs import chebyshev_coefficients

    order, lmax, n_nodes = 12, 4.5, 64                          # max(4 (12 + 1), 64) nodes
    sizes = []

    def phi(lam):
        sizes.append(np.size(lam))
        return np.exp(-0.8 * np.asarray(lam))

    Y = chebyshev_filter(W, phi, X, order=order, lmax=lmax, tol=1.0, damping=damping)
    assert sizes.count(n_nodes) == 1
    c = chebyshev_coefficients(np.vectorize(lambda t: np.exp(-0.8 * t)), order, lmax, damping=damping)
    S = 2 * W / lmax - np.eye(30)
    T_prev, T = np.eye(30), S
    oracle = c[0] / 2 * X + c[1] * (S @ X)
    for k in range(2, order + 1):
        T_prev, T = T, 2 * S @ T - T_prev
        oracle += c[k] * (T @ X)
    np.testing.assert_allclose(Y, oracle, rtol=0, atol=1e-12 * np.abs(oracle).max())
