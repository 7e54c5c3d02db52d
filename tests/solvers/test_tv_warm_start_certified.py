"""graph_tv (incidence fast path) warm-started at a point that already meets tol returns that point."""

import numpy as np

from graphrkhs import graph_tv, knn_graph


def test_a_certified_warm_start_is_returned_as_it_is():
    rng = np.random.default_rng(1)
    n = 300
    X = rng.normal(size=(n, 2))
    W = knn_graph(X, 6)
    S = rng.choice(n, 40, replace=False)
    Y = np.c_[np.sign(X[S, 0]), X[S, 1] * 1e-3 + 5]
    F1, r1 = graph_tv(W, S, Y, alpha=0.3, tol=1e-6, max_iter=100000, on_failure="raise", return_info=True)
    assert (r1.gap <= 1e-6).all()
    # before: the iterations started from (F1, p1) with the primal weight 1 and moved away, 30 iterations to
    # certify a point 5e-6 from F1 (on 1500 nodes 1790 iterations; on 6000 the gap ended at 1.7e-5 > tol after
    # 20000, with a ConvergenceWarning, from a start whose gap was 1e-6)
    F2, r2 = graph_tv(W, S, Y, alpha=0.3, tol=1e-6, f0=F1, p0=r1.p, on_failure="raise", return_info=True)
    assert r2.converged and r2.n_iter == 0
    np.testing.assert_array_equal(F2, F1)
    np.testing.assert_array_equal(r2.p, r1.p)
    np.testing.assert_allclose(r2.gap, r1.gap, rtol=1e-12)
    np.testing.assert_allclose(r2.objective, r1.objective, rtol=1e-12)


def test_an_uncertified_warm_start_still_iterates_to_tol():
    rng = np.random.default_rng(2)
    n = 200
    X = rng.normal(size=(n, 2))
    W = knn_graph(X, 6)
    S = rng.choice(n, 20, replace=False)
    y = np.sign(X[S, 0])
    F1, r1 = graph_tv(W, S, y, alpha=0.3, tol=1e-6, max_iter=100000, on_failure="raise", return_info=True)
    # the solution at alpha 0.3 (dual rescaled) as the start at alpha 0.6: not certified there, iterated
    F3, r3 = graph_tv(W, S, y, alpha=0.6, tol=1e-6, max_iter=100000, on_failure="raise", return_info=True)
    F4, r4 = graph_tv(W, S, y, alpha=0.6, tol=1e-6, f0=F1, p0=2 * r1.p, max_iter=100000, on_failure="raise",
                      return_info=True)
    assert r4.n_iter > 0 and r4.converged
    # both certified to 1e-6 of the objective: equal objectives within that
    np.testing.assert_allclose(r4.objective, r3.objective, rtol=3e-6)


def test_a_warm_start_certified_in_some_columns_only():
    # the certified columns are returned as they are, the others iterate to tol (the start check drops the
    # finished columns from every per-column array, the value box's bounds included: a column negated after
    # the first solve is not certified)
    rng = np.random.default_rng(1)
    n = 300
    X = rng.normal(size=(n, 2))
    W = knn_graph(X, 6)
    S = rng.choice(n, 40, replace=False)
    Y = np.c_[np.sign(X[S, 0]), X[S, 1] * 1e-3 + 5]
    F1, r1 = graph_tv(W, S, Y, alpha=0.3, tol=1e-6, max_iter=100000, on_failure="raise", return_info=True)
    Y2 = Y.copy()
    Y2[:, 0] = -Y2[:, 0]
    F2, r2 = graph_tv(W, S, Y2, alpha=0.3, tol=1e-6, f0=F1, p0=r1.p, max_iter=100000, on_failure="raise",
                      return_info=True)
    assert r2.converged and r2.n_iter > 0 and (r2.gap <= 1e-6).all()
    np.testing.assert_array_equal(F2[:, 1], F1[:, 1])
    assert r2.gap[1] == r1.gap[1]
    # the negated column's minimum is the first solve's (TV and the fidelity are even): objectives within tol
    np.testing.assert_allclose(r2.objective[0], r1.objective[0], rtol=3e-6)
