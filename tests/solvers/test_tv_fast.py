"""The incidence fast path of graph_tv (fused sweeps, adaptive restarts, float32 iterate when tol
allows): same problem, same minimizer as the generic primal-dual loop (R given as a sparse matrix)
and as cvxpy; the duality gap at return, recomputed here from (f, p) in float64, is below tol."""

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs import graph_tv, incidence_matrix, knn_graph
from graphrkhs.solvers._tv import FLOAT32_MIN_TOL, _conj_box_loss


def _problem(n=70, k=6, seed=0, n_lab=14, m=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    W = knn_graph(X, k)
    S = np.sort(rng.choice(n, n_lab, replace=False))
    Y = np.eye(m)[np.arange(n_lab) % m]
    return W, S, Y, X


def _gap(W, S, Y, alpha, f, p):
    """Relative primal-dual gap of (f, p) computed from scratch (float64, numpy)."""
    W = sp.csr_array(W, dtype=np.float64)
    R = incidence_matrix(W)
    Y = Y.reshape(S.size, -1)
    f = np.asarray(f, dtype=np.float64).reshape(W.shape[0], -1)
    p = np.asarray(p, dtype=np.float64).reshape(R.shape[0], -1)
    assert np.abs(p).max() <= alpha * (1 + 1e-12)            # dual feasible
    lam = np.asarray(W.sum(axis=1)).ravel()[S][:, None]
    lo, hi = Y.min(axis=0), Y.max(axis=0)
    assert (f >= lo - 1e-7).all() and (f <= hi + 1e-7).all()
    obj = (lam * (Y - f[S]) ** 2).sum(axis=0) + alpha * np.abs(R @ f).sum(axis=0)
    dual = -_conj_box_loss(-(R.T @ p), Y, S, lam, lo, hi)
    return obj, dual, (obj - dual) / obj


def _cvxpy_objective(W, S, y, alpha):
    import cvxpy as cp
    R = incidence_matrix(W)
    lam = np.asarray(sp.csr_array(W).sum(axis=1)).ravel()[S]
    f = cp.Variable(W.shape[0])
    prob = cp.Problem(cp.Minimize(cp.sum(cp.multiply(lam, cp.square(y - f[S]))) + alpha * cp.norm1(R @ f)))
    prob.solve(solver=cp.CLARABEL, tol_gap_rel=1e-12, tol_gap_abs=1e-12, tol_feas=1e-12)
    return prob.value


@pytest.mark.parametrize("alpha", [0.05, 0.5])
def test_fast_path_matches_the_generic_loop_and_cvxpy(alpha):
    W, S, Y, _ = _problem()
    F, res = graph_tv(W, S, Y, alpha=alpha, tol=1e-9, max_iter=200000, return_info=True)
    G, ref = graph_tv(W, S, Y, alpha=alpha, R=incidence_matrix(W), tol=1e-9, max_iter=400000, return_info=True)
    assert res.converged and ref.converged
    np.testing.assert_allclose(res.objective, ref.objective, rtol=2e-9)
    for c in range(Y.shape[1]):
        assert abs(res.objective[c] - _cvxpy_objective(W, S, Y[:, c], alpha)) <= 2e-9 * res.objective[c]
    # the gap at return, recomputed from the returned (f, p), is below tol
    obj, dual, gap = _gap(W, S, Y, alpha, F, res.p)
    np.testing.assert_allclose(obj, res.objective, rtol=1e-12)
    assert (gap <= 1e-9).all() and (gap >= -1e-12).all()
    # the minimizer: equal at every node where the generic loop's answer is unique to the tolerance
    # (on a Gaussian kNN graph the TV minimizer is unique; both solvers are within sqrt(gap) of it)
    np.testing.assert_allclose(F, G, atol=2e-3)
    assert res.n_iter < ref.n_iter                           # and fewer iterations (restarts)


def test_float32_iterate_still_certifies_the_gap_in_float64():
    W, S, Y, _ = _problem(seed=1)
    tol = 1e-4
    assert tol >= FLOAT32_MIN_TOL                             # this call iterates in float32
    F, res = graph_tv(W, S, Y, alpha=0.3, tol=tol, return_info=True)
    assert F.dtype == np.float64                              # results in the dtype of Y
    obj, dual, gap = _gap(W, S, Y, 0.3, F, res.p)
    assert res.converged and (gap <= tol * (1 + 1e-6)).all()
    best = np.array([_cvxpy_objective(W, S, Y[:, c], 0.3) for c in range(Y.shape[1])])
    assert (obj >= best * (1 - 1e-9)).all() and (obj <= best * (1 + tol)).all()
    assert (dual <= best * (1 + 1e-9)).all()                  # a lower bound, as duality says


def test_permutation_equivariance():
    W, S, Y, _ = _problem(seed=2)
    n = W.shape[0]
    perm = np.random.default_rng(5).permutation(n)
    inv = np.argsort(perm)
    Wp = sp.csr_array(W)[perm][:, perm]
    F = graph_tv(W, S, Y, alpha=0.2, tol=1e-10, max_iter=200000)
    Fp = graph_tv(Wp, inv[S], Y, alpha=0.2, tol=1e-10, max_iter=200000)
    np.testing.assert_allclose(Fp[inv], F, atol=1e-4)


def test_regression_shift_equivariance():
    # the fidelity depends on y - f and the TV term on differences: y + c gives f + c
    W, S, _, X = _problem(seed=3)
    y = np.sin(2 * X[S, 0]) + X[S, 1]
    f = graph_tv(W, S, y, alpha=0.1, tol=1e-10, max_iter=200000)
    g = graph_tv(W, S, y + 100.0, alpha=0.1, tol=1e-10, max_iter=200000)
    np.testing.assert_allclose(g - 100.0, f, atol=1e-5)


def test_warm_start_from_the_solution_stops_at_the_first_check():
    W, S, Y, _ = _problem(seed=4)
    _, cold = graph_tv(W, S, Y, alpha=0.5, tol=1e-8, return_info=True)
    _, warm = graph_tv(W, S, Y, alpha=0.5, tol=1e-8, f0=cold.f, p0=cold.p, return_info=True, check_every=5)
    assert warm.converged and warm.n_iter <= 5 < cold.n_iter


@pytest.mark.parametrize("kw, match", [
    ({"f0": np.zeros(3)}, "f0 must have shape"),
    ({"p0": np.zeros(2)}, "p0 must have shape"),
    ({"f0": np.full((70, 3), np.nan)}, "f0 and p0 must be finite"),
])
def test_bad_warm_starts_are_refused_and_inputs_unchanged(kw, match):
    W, S, Y, _ = _problem()
    W0, S0, Y0 = W.copy(), S.copy(), Y.copy()
    with pytest.raises(ValueError, match=match):
        graph_tv(W, S, Y, **kw)
    assert (W != W0).nnz == 0
    np.testing.assert_array_equal(S, S0)
    np.testing.assert_array_equal(Y, Y0)


def test_renumbered_path_gives_the_same_solution_in_the_callers_order(monkeypatch):
    # large graphs in a scattered node order are renumbered (reverse Cuthill-McKee) for the sweeps;
    # F and the dual p (rows in incidence_matrix(W)'s order, orientation included) come back mapped
    import graphrkhs.solvers._tv as tv_module

    rng = np.random.default_rng(6)
    W = knn_graph(rng.normal(size=(400, 2)), 6)
    perm = rng.permutation(400)
    W = sp.csr_array(W[perm][:, perm])
    S = np.sort(rng.choice(400, 30, replace=False))
    Y = np.eye(3)[np.arange(30) % 3]
    F1, r1 = graph_tv(W, S, Y, alpha=0.3, tol=1e-9, max_iter=100000, return_info=True)
    monkeypatch.setattr(tv_module, "REORDER_MIN_NODES", 100)
    F2, r2 = graph_tv(W, S, Y, alpha=0.3, tol=1e-9, max_iter=100000, return_info=True)
    np.testing.assert_allclose(F2, F1, atol=1e-6)
    obj, dual, gap = _gap(W, S, Y, 0.3, F2, r2.p)
    np.testing.assert_allclose(obj, r2.objective, rtol=1e-12)
    assert (gap <= 1e-9).all()


@pytest.mark.parametrize("c", [1e-200, 1e-160, 1e160, 1e200])
@pytest.mark.parametrize("R", ["incidence", "sparse"])
def test_targets_near_the_ends_of_float64_keep_the_closed_form(c, R):
    # path on 6 nodes, y = (0, 0, ., ., 1, 1) c, mu = 0.1 c: the two labeled pairs move by
    # mu / (2 (d_0 + d_1)) = c / 60 towards each other (the TV of a monotone path is f_5 - f_0).
    # The squares of y ~ 1e-160 underflowed (gap 0 at the start: zeros reported converged) and
    # those of y ~ 1e160 overflowed (NaN gaps).
    W = np.diag(np.ones(5), 1)
    W = W + W.T
    S, y = np.array([0, 1, 4, 5]), np.array([0.0, 0.0, 1.0, 1.0])
    Rop = "incidence" if R == "incidence" else incidence_matrix(W)
    with np.errstate(all="raise"):
        F, res = graph_tv(W, S, y * c, alpha=0.1 * c, R=Rop, tol=1e-8, max_iter=100000, return_info=True)
    assert res.converged
    np.testing.assert_allclose(F[S] / c, [1 / 60, 1 / 60, 59 / 60, 59 / 60], rtol=1e-6)
    assert np.all(np.abs(res.p) <= 0.1 * c)


def test_float32_iterate_that_cannot_certify_the_gap_goes_on_in_float64():
    # three cliques, each labeled with one value: the minimizer is each clique's value (objective 0).
    # Values that float32 cannot hold jitter by an ulp between neighbours; that TV (~ mu w 1e-8) is
    # far above tol times the gap's floor, so the float32 iterate stalled at a gap of ~1 for all of
    # max_iter (ConvergenceWarning) where the float64 loop converges in a few hundred iterations.
    n = 30
    W = np.zeros((n, n))
    for c in range(3):
        W[10 * c:10 * c + 10, 10 * c:10 * c + 10] = 1.0
    np.fill_diagonal(W, 0.0)
    S = np.array([0, 1, 10, 11, 20, 21])
    y = np.array([0.1, 0.1, 0.2, 0.2, 0.35, 0.35])
    assert 1e-4 >= FLOAT32_MIN_TOL                            # the default tol iterates in float32
    F, res = graph_tv(W, S, y, alpha=0.5, tol=1e-4, max_iter=5000, on_failure="raise", return_info=True)
    assert res.converged and res.n_iter < 5000
    np.testing.assert_allclose(F, np.repeat([0.1, 0.2, 0.35], 10), rtol=1e-6)


@pytest.mark.parametrize("path", ["incidence", "matrix"])
def test_a_subnormal_edge_weight_gives_the_minimizer_not_nan(path):
    # sigma_e = 1 / (2 w_e) overflowed to inf at w_e = 1e-320 and every iterate became NaN.  The edge's
    # term alpha w_e |f_i - f_j| is below rounding: the minimizer is that of the graph without it.
    W, S, Y, _ = _problem()
    W = sp.csr_array(W, copy=True)
    i, j = W.nonzero()
    e = np.flatnonzero(i < j)[7]
    W[i[e], j[e]] = W[j[e], i[e]] = 1e-320
    W_cut = W.copy()
    W_cut[i[e], j[e]] = W_cut[j[e], i[e]] = 0.0
    W_cut.eliminate_zeros()
    R = "incidence" if path == "incidence" else incidence_matrix(W)
    f, res = graph_tv(W, S, Y, alpha=0.5, R=R, tol=1e-6, return_info=True)
    assert res.converged and np.isfinite(f).all() and np.isfinite(res.p).all()
    assert res.p.shape == (incidence_matrix(W).shape[0], 3)          # the caller's edges, the dropped one included
    obj, dual, gap = _gap(W, S, Y, 0.5, f, res.p)                      # certified on the given graph
    assert (gap <= 1e-6).all()
    f_cut = graph_tv(W_cut, S, Y, alpha=0.5, tol=1e-10)
    obj_cut = _gap(W_cut, S, Y, 0.5, f_cut, graph_tv(W_cut, S, Y, alpha=0.5, tol=1e-10, return_info=True)[1].p)[0]
    np.testing.assert_allclose(obj, obj_cut, rtol=2e-6)


def test_a_path_cut_by_a_subnormal_edge_splits_into_its_labeled_halves():
    W = np.diag(np.ones(5), 1)
    W = W + W.T
    W[2, 3] = W[3, 2] = 1e-320
    for R in ("incidence", incidence_matrix(W)):
        f = graph_tv(W, [0, 1, 4, 5], np.array([0.0, 0.0, 1.0, 1.0]), alpha=0.1, R=R, tol=1e-8)
        np.testing.assert_allclose(f, [0, 0, 0, 1, 1, 1], atol=1e-6)


@pytest.mark.parametrize("fidelity", ["degree", "uniform"])
@pytest.mark.parametrize("scale", [2.0 ** -130, 1e-40, 1.0, 1e40])
def test_the_minimizer_and_p_do_not_depend_on_the_units_of_w(scale, fidelity):
    # A labeled node without edges (lambda = 1) and the edge (0, 4) to a labeled node: column 0's
    # minimizer is f_0 = f_4 = 1.  At W * 1e-40 the gap's floor, made of that unit lambda, certified
    # f_4 = 0.98 after 20 iterations.  The problem is homogeneous in W (degree fidelity; uniform
    # fidelity: mu scales with W), so f, p and the objective follow the units exactly.
    W = np.zeros((6, 6))
    W[4, 0] = W[0, 4] = 2.0
    Y = np.array([[0.0, 1.0], [1.0, 0.0]])
    alpha = 0.3 if fidelity == "degree" else 0.3 / scale
    f, res = graph_tv(W * scale, [3, 4], Y, alpha=alpha, tol=1e-9, fidelity=fidelity, return_info=True)
    f1, res1 = graph_tv(W, [3, 4], Y, alpha=0.3, tol=1e-9, fidelity=fidelity, return_info=True)
    np.testing.assert_allclose(f1[[0, 4], 0], 1.0, atol=1e-6)
    np.testing.assert_allclose(f, f1, atol=1e-6)
    p_units = 1.0 if fidelity == "degree" else 1.0 / scale      # |p| <= mu
    np.testing.assert_allclose(res.p / p_units, res1.p, atol=1e-6)
    obj_units = scale if fidelity == "degree" else 1.0
    np.testing.assert_allclose(res.objective / obj_units, res1.objective, rtol=1e-6, atol=1e-12)
