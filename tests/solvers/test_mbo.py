"""The size-constrained assignment (auction) and the MBO solvers: dense oracles and fixed points."""

import warnings

import numpy as np
import pytest
from scipy.optimize import linear_sum_assignment

import graphrkhs as g
from graphrkhs.solvers import class_sizes, poisson_mbo, size_constrained_assignment, volume_mbo


def _brute_force_optimum(S, sizes):
    """max sum S[i, c_i] with |c| = sizes: the assignment problem with each class replicated sizes[c] times."""
    cols = np.repeat(np.arange(S.shape[1]), sizes)
    r, c = linear_sum_assignment(-S[:, cols])
    return S[r, cols[c]].sum()


def test_class_sizes_are_largest_remainders_summing_to_n():
    b = np.array([0.37, 0.21, 0.42])
    for n in (0, 1, 7, 100, 1001):
        sizes = class_sizes(b, n)
        assert sizes.sum() == n
        assert np.all((sizes == np.floor(n * b)) | (sizes == np.floor(n * b) + 1))
    np.testing.assert_array_equal(class_sizes([0.5, 0.25, 0.25], 10), [5, 3, 2])


@pytest.mark.parametrize("seed", range(4))
def test_assignment_is_optimal_and_has_the_sizes_exactly(seed):
    rng = np.random.default_rng(seed)
    n, k = 40, 3 + seed % 2
    S = rng.normal(size=(n, k))
    sizes = class_sizes(rng.dirichlet(np.ones(k)), n)
    labels, prices = size_constrained_assignment(S, sizes)
    np.testing.assert_array_equal(np.bincount(labels, minlength=k), sizes)
    np.testing.assert_allclose(S[np.arange(n), labels].sum(), _brute_force_optimum(S, sizes), rtol=0, atol=1e-8)
    # continuous scores (no ties): the prices separate the labeling, the plain argmax is the labeling
    V = S - prices
    np.testing.assert_array_equal(V.argmax(axis=1), labels)


def _max_cycle_mean(A):
    """The maximum mean weight of a simple cycle of the complete digraph with weights A (brute force)."""
    import itertools
    k = A.shape[0]
    best = -np.inf
    for m in range(2, k + 1):
        for cyc in itertools.permutations(range(k), m):
            if cyc[0] == min(cyc):
                best = max(best, np.mean([A[cyc[i], cyc[(i + 1) % m]] for i in range(m)]))
    return best


@pytest.mark.parametrize("seed", range(5))
def test_assignment_prices_separate_with_at_least_half_the_widest_margin(seed):
    # oracle: the labeling is separated with margin delta iff p_j - p_c >= A_cj + delta,
    # A_cj = max over class-c nodes of S_ij - S_ic; the widest margin is minus the maximum cycle mean of A
    rng = np.random.default_rng(seed)
    n, k = 60, 3 + seed % 3
    S = rng.normal(size=(n, k)) + 2.0 * np.eye(k)[rng.integers(0, k, n)]
    sizes = class_sizes(rng.dirichlet(3 * np.ones(k)), n)
    labels, prices = size_constrained_assignment(S, sizes)
    A = np.full((k, k), -np.inf)
    for c in range(k):
        A[c] = (S[labels == c] - S[labels == c][:, [c]]).max(axis=0)
    delta_star = -_max_cycle_mean(np.where(np.eye(k, dtype=bool), -np.inf, A))
    V = S - prices
    own = V[np.arange(n), labels]
    V[np.arange(n), labels] = -np.inf
    margin = (own - V.max(axis=1)).min()
    assert delta_star > 0
    assert delta_star / 2 - 1e-12 <= margin <= delta_star + 1e-12, (margin, delta_star)


def test_assignment_with_tied_scores_keeps_the_sizes_and_the_auction_prices():
    # identical rows split between classes: no prices separate them, the labels still have the sizes
    S = np.eye(3)[[0, 0, 0, 1, 2, 2]].astype(float)
    labels, prices = size_constrained_assignment(S, [2, 2, 2])
    np.testing.assert_array_equal(np.bincount(labels, minlength=3), [2, 2, 2])
    V = S - prices
    assert np.all(V[np.arange(6), labels] >= V.max(axis=1) - 1e-8)


def test_assignment_with_free_sizes_is_the_argmax():
    rng = np.random.default_rng(5)
    S = rng.random((30, 3))
    best = S.argmax(axis=1)
    labels, _ = size_constrained_assignment(S, np.bincount(best, minlength=3))
    np.testing.assert_array_equal(labels, best)


@pytest.mark.parametrize("bad, match", [
    (dict(sizes=[2, 2]), "sum to the number of rows"),
    (dict(sizes=[3]), "one per column"),
    (dict(sizes=[4, -1]), "non-negative"),
    (dict(S=np.array([[np.nan, 1.0], [0, 1], [1, 0]])), "finite"),
    # finite scores whose prices overflow float64: inf prices and non-optimal labels, with RuntimeWarnings
    (dict(S=np.array([[1.7e308, -1.7e308], [0.0, 0.0], [1.0, 1.0]])), "too large for the auction's prices"),
])
def test_assignment_bad_input(bad, match):
    args = dict(S=np.eye(3)[:, :2], sizes=[2, 1])
    args.update(bad)
    with pytest.raises(ValueError, match=match):
        size_constrained_assignment(args["S"], args["sizes"])


@pytest.mark.parametrize("S", [
    np.array([[0.5000000000000007, 0.5000000000000004]] * 4),    # volume MBO's diffused rows on K_6
    np.array([[1e8, 1e8 + 1.4901161193847656e-08]] * 4),          # differences of one ulp of the scores
])
@pytest.mark.parametrize("tol", [1e-10, 1e-20])
def test_assignment_of_scores_that_differ_below_their_magnitude_finishes_optimal(S, tol):
    # the auction bid eps = tol * span (3e-26 on the first S) on top of scores near 0.5 or 1e8, where it
    # was lost to rounding: the bids never rose, and the auction cycled until max_iter (RuntimeError)
    labels, prices = size_constrained_assignment(S, [2, 2], tol=tol, max_iter=2000)
    np.testing.assert_array_equal(np.bincount(labels, minlength=2), [2, 2])
    assert S[np.arange(4), labels].sum() == _brute_force_optimum(S, [2, 2])
    V = S - prices
    assert np.all(V[np.arange(4), labels] >= V.max(axis=1) - 1e-9 * (S.max() - S.min()))


def test_assignment_sparse_scores_name_the_fix():
    import scipy.sparse as sp
    with pytest.raises(TypeError, match=r"S must be a dense \(n, k\) score array; got a sparse .*S.toarray\(\)"):
        size_constrained_assignment(sp.csr_array(np.eye(3)[:, :2]), [2, 1])

def _two_cliques(a=6, b=4, bridge=0.05):
    """Cliques of a and b nodes joined by one weak edge (a separable toy graph)."""
    n = a + b
    W = np.zeros((n, n))
    W[:a, :a] = 1.0
    W[a:, a:] = 1.0
    np.fill_diagonal(W, 0.0)
    W[a - 1, a] = W[a, a - 1] = bridge
    return W, np.r_[np.zeros(a, int), np.ones(b, int)]


@pytest.mark.parametrize("solver", [poisson_mbo, volume_mbo])
def test_mbo_recovers_the_cliques_and_stops_at_a_fixed_point(solver):
    W, truth = _two_cliques()
    F, info = solver(W, [0, 9], np.eye(2), class_priors=[0.6, 0.4], return_info=True)
    np.testing.assert_array_equal(F.argmax(axis=1), truth)
    assert info["converged"] and info["changed"][-1] == 0
    # a fixed point: more rounds change nothing
    F2 = solver(W, [0, 9], np.eye(2), class_priors=[0.6, 0.4], max_iter=info["n_iter"] + 5)
    np.testing.assert_array_equal(F2.argmax(axis=1), truth)


@pytest.mark.parametrize("solver", [poisson_mbo, volume_mbo])
def test_mbo_imposes_the_class_sizes(solver):
    # a ring of 30 nodes with 2 labels: the class sizes follow the priors, not the geometry
    n = 30
    W = np.zeros((n, n))
    i = np.arange(n)
    W[i, (i + 1) % n] = W[(i + 1) % n, i] = 1.0
    for b in ([0.5, 0.5], [0.7, 0.3]):
        F = solver(W, [0, 15], np.eye(2), class_priors=b)
        counts = np.bincount(F.argmax(axis=1), minlength=2)
        np.testing.assert_array_equal(counts, class_sizes(b, n))


@pytest.mark.parametrize("solver", [poisson_mbo, volume_mbo])
def test_mbo_sizes_the_reached_nodes_and_gives_label_free_components_the_priors(solver):
    # cliques of 10 (class 0 labels), 20 (class 1 labels) and 10 (no label, a separate component);
    # priors (8/26, 18/26): the 26 unlabeled reached nodes get sizes (8, 18) -- the cliques -- and the
    # label-free clique the priors.  Sizing all 40 nodes let the label-free rows (assigned at random) take
    # places of the reached ones, and those rows got the labeled proportions (1/2, 1/2), not b.
    sizes = [10, 20, 10]
    n = sum(sizes)
    W = np.zeros((n, n))
    start = np.cumsum([0] + sizes)
    for a, z in zip(start[:-1], start[1:]):
        W[a:z, a:z] = 1.0
    np.fill_diagonal(W, 0.0)
    b = np.array([8 / 26, 18 / 26])
    with pytest.warns(g.GraphWarning, match="without any labeled node"):
        F = solver(W, [0, 1, 10, 11], np.eye(2)[[0, 0, 1, 1]], class_priors=b)
    np.testing.assert_array_equal(F[:30].argmax(axis=1), np.repeat([0, 1], [10, 20]))
    np.testing.assert_array_equal(F[30:], np.tile(b, (10, 1)))

@pytest.mark.parametrize("solver", [poisson_mbo, volume_mbo])
def test_mbo_scores_of_the_reached_nodes_do_not_depend_on_a_label_free_component(solver):
    # A component without labels is not assigned and informs nothing: appending one (an isolated node, a
    # separate clique) must leave every reached node's row as it was.  The labeled rows' scores (their class
    # at the largest score plus 1, the others at the smallest minus 1) were taken from the extremes of U minus
    # the prices over all rows, label-free ones included: on three blobs an isolated node moved them by 0.39
    # (volume MBO) and 0.01 (Poisson MBO with mu = 1e-3, whose forcing then leaves U near the one-hot range).
    import scipy.sparse as sp

    rng = np.random.default_rng(0)
    centres = np.array([[0.0, 0.0], [4.0, 0.0], [0.0, 4.0]])
    X = np.repeat(centres, 30, axis=0) + rng.normal(scale=1.2, size=(90, 2))
    W = sp.csr_array(g.knn_graph(X, 6))
    labeled = np.array([0, 1, 2, 30, 31, 32, 60, 61, 62])
    Y = np.eye(3)[np.repeat([0, 1, 2], 3)]
    kw = {"mu": 1e-3} if solver is poisson_mbo else {}
    F = solver(W, labeled, Y, **kw)
    for extra in (sp.csr_array((1, 1)), sp.csr_array(np.ones((4, 4)) - np.eye(4))):
        with pytest.warns(g.GraphWarning, match="without any labeled node"):
            G = solver(sp.block_diag([W, extra], format="csr"), labeled, Y, **kw)
        np.testing.assert_array_equal(G[:90], F)


@pytest.mark.parametrize("solver", [poisson_mbo, volume_mbo])
@pytest.mark.parametrize("n, b", [(6, [0.5, 0.5]), (6, [0.25, 0.75]), (8, [0.5, 0.5])])
def test_mbo_labels_of_tied_nodes_have_the_class_sizes(solver, n, b):
    # the complete graph K_n with two labels: every unlabeled node ties, no class prices separate the
    # projection, and argmax(U - prices) put them all in one class (Poisson MBO: sizes [5, 1] for
    # [3, 3]); volume MBO's auction did not finish (RuntimeError after 100000 bidding rounds)
    W = np.ones((n, n)) - np.eye(n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", g.ConvergenceWarning)    # tied nodes swap places each round
        F = solver(W, [0, 1], np.eye(2), class_priors=b)
    labels = F.argmax(axis=1)
    np.testing.assert_array_equal(np.bincount(labels, minlength=2), class_sizes(b, n))
    if solver is volume_mbo:
        np.testing.assert_array_equal(labels[:2], [0, 1])


def test_volume_mbo_keeps_the_labeled_nodes():
    W, truth = _two_cliques(5, 5, bridge=1.0)
    # a wrong-looking label inside clique 0 stays as given
    F = volume_mbo(W, [0, 1, 9], np.eye(2)[[0, 1, 1]], class_priors=[0.5, 0.5])
    assert F.argmax(axis=1)[1] == 1


def test_poisson_mbo_default_priors_are_the_labeled_fractions():
    W, _ = _two_cliques()
    a = poisson_mbo(W, [0, 1, 9], np.eye(2)[[0, 0, 1]])
    b = poisson_mbo(W, [0, 1, 9], np.eye(2)[[0, 0, 1]], class_priors=[2 / 3, 1 / 3])
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("solver", [poisson_mbo, volume_mbo])
@pytest.mark.parametrize("priors", [[0.5, 0.3, 0.2], [1.5, -0.5], [0.6, 0.6], [np.nan, 1.0]])
def test_mbo_bad_priors_name_class_priors(solver, priors):
    W, _ = _two_cliques()
    with pytest.raises(ValueError, match="class_priors"):
        solver(W, [0, 9], np.eye(2), class_priors=priors)


@pytest.mark.parametrize("solver", [poisson_mbo, volume_mbo, g.cut_ssl])
@pytest.mark.parametrize("Y", [[[0.5, 0.5], [0.0, 1.0]],
                               # one positive entry but not 1: Poisson MBO's forcing used it as a weight
                               # (on a random graph of 30 nodes 2 labels moved against the one-hot Y)
                               [[0.2, 0.0], [0.0, 1.0]], [[5.0, 0.0], [0.0, 1.0]], [[1.0, -1.0], [0.0, 1.0]]])
def test_mbo_needs_one_hot_targets(solver, Y):
    W, _ = _two_cliques()
    with pytest.raises(ValueError, match="one-hot"):
        solver(W, [0, 9], np.array(Y))


# ---------------------------------------------------------------------------------------------
# volume_mbo's warm start (init=)
# ---------------------------------------------------------------------------------------------

def _sizes_of_free(codes, k, n):
    # class_priors=None: the labeled proportions, as the proportions of the n - l unlabeled nodes
    return class_sizes(np.bincount(codes, minlength=k) / codes.size, n - codes.size)


def _hungarian(U, sizes):
    """The size-constrained assignment by the Hungarian method on the class columns replicated sizes[c] times."""
    cols = np.repeat(np.arange(U.shape[1]), sizes)
    r, c = linear_sum_assignment(-U[:, cols])
    out = np.empty(U.shape[0], dtype=int)
    out[r] = cols[c]
    return out


def _labels_of(F, S, codes, k):
    """Labels encoded by an MBO output F: the labeled codes, and for the others the assignment of F's rows
    with the class sizes -- F = U - prices, and a per-class shift does not change that assignment (every
    labeling with the sizes pays the same total price), so this is exactly the assignment of the last U,
    whatever the prices (argmax(F) may differ from it at the price-setting nodes and at exact ties)."""
    n = F.shape[0]
    free = np.setdiff1d(np.arange(n), S)
    labels = np.empty(n, dtype=int)
    labels[S] = codes
    labels[free] = _hungarian(F[free], _sizes_of_free(codes, k, n))
    return labels


def _dense_volume_mbo(W, S, codes, k, n_inner, max_iter, init):
    """Oracle: the iteration written with dense matrices and the Hungarian method."""
    n = W.shape[0]
    d = W.sum(axis=1)
    P = np.eye(n) - (np.diag(d) - W) / d.max()
    free = np.setdiff1d(np.arange(n), S)
    sizes = _sizes_of_free(codes, k, n)
    labels = np.empty(n, dtype=int)
    labels[S] = codes
    labels[free] = _hungarian(init[free], sizes)
    for _ in range(max_iter):
        U = np.eye(k)[labels]
        for _ in range(n_inner):
            U = P @ U
        new = _hungarian(U[free], sizes)
        done = np.array_equal(new, labels[free])
        labels[free] = new
        if done:
            break
    return labels


def _blobs(seed, n=24, k=3, centres=None):
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=3.0, size=(k, 2)) if centres is None else np.asarray(centres, dtype=float)
    X = np.repeat(centres, n // k, axis=0) + rng.normal(size=(n, 2))
    W = np.exp(-((X[:, None] - X[None]) ** 2).sum(-1) / 4.0)      # continuous weights: no score ties
    np.fill_diagonal(W, 0.0)
    return W, np.repeat(np.arange(k), n // k), rng


@pytest.mark.parametrize("seed", range(3))
def test_volume_mbo_warm_start_matches_a_dense_oracle(seed):
    W, _, rng = _blobs(seed)
    k = 3
    S = np.array([0, 8, 16, 1, 9, 17])
    codes = np.array([0, 1, 2, 0, 1, 2])
    init = rng.normal(size=(W.shape[0], k))        # a random start: the oracle must follow it exactly
    F = volume_mbo(W, S, np.eye(k)[codes], n_inner=5, max_iter=30, init=init)
    np.testing.assert_array_equal(_labels_of(F, S, codes, k), _dense_volume_mbo(W, S, codes, k, 5, 30, init))


def test_volume_mbo_warm_start_at_a_fixed_point_changes_nothing():
    W, truth, _ = _blobs(7, centres=[[0.0, 0.0], [8.0, 0.0], [0.0, 8.0]])     # well separated
    S, codes = np.array([0, 8, 16]), np.array([0, 1, 2])
    F, info = volume_mbo(W, S, np.eye(3)[codes], return_info=True)
    assert info["converged"]
    # restarting from the output (its labels are a fixed point) stops after one round without a change
    F2, info2 = volume_mbo(W, S, np.eye(3)[codes], init=F, return_info=True)
    assert info2["changed"] == [0]
    np.testing.assert_array_equal(_labels_of(F2, S, codes, 3), _labels_of(F, S, codes, 3))
    np.testing.assert_array_equal(_labels_of(F, S, codes, 3), truth)
    # the truth itself is a start; MBO descends to a nearby fixed point (here the truth again)
    F3 = volume_mbo(W, S, np.eye(3)[codes], init=np.eye(3)[truth])
    np.testing.assert_array_equal(_labels_of(F3, S, codes, 3), truth)


def test_volume_mbo_warm_start_keeps_the_labeled_nodes():
    W, _, _ = _blobs(3)
    S, codes = np.array([0, 1, 8, 16]), np.array([0, 2, 1, 2])    # node 1 (in blob 0) labeled 2
    init = np.tile([1.0, 0.0, 0.0], (W.shape[0], 1))               # every node prefers class 0
    F = volume_mbo(W, S, np.eye(3)[codes], init=init)
    np.testing.assert_array_equal(F[S].argmax(axis=1), codes)


@pytest.mark.parametrize("init", [np.zeros((10, 3)), np.zeros((9, 2)), np.zeros(10),
                                  np.r_[[[np.nan, 0.0]], np.zeros((9, 2))]])
def test_volume_mbo_bad_init_names_init(init):
    W, _ = _two_cliques()
    with pytest.raises(ValueError, match="init"):
        volume_mbo(W, [0, 9], np.eye(2), init=init)


@pytest.mark.parametrize("solver", [poisson_mbo, volume_mbo])
def test_mbo_zero_prior_of_a_labeled_class_is_refused(solver):
    # Poisson MBO relabeled the class-0 labels, volume MBO gave the class 2 nodes of its size 0: silently
    W, _ = _two_cliques()
    with pytest.raises(ValueError, match=r"class_priors gives class 0 \(column 0 of Y\) proportion 0, but 1 label\(s\) belong"):
        solver(W, [0, 9], np.eye(2), class_priors=[0.0, 1.0])


@pytest.mark.parametrize("solver", [poisson_mbo, volume_mbo, g.cut_ssl])
def test_mbo_sizes_the_unlabeled_nodes_whatever_the_labeled_counts(solver):
    # 10 nodes, class 1 labeled 3 times, b = (0.85, 0.15): the priors are the class proportions of the
    # 6 unlabeled nodes, sizes class_sizes(b, 6) = (5, 1) whatever the labeled counts (sized over all 10
    # nodes, as the papers do, class 1 got round(1.5) < 3 places: a warning, and the sizes not met)
    W, _ = _two_cliques(5, 5, bridge=1.0)
    b = np.array([0.85, 0.15])
    with warnings.catch_warnings():
        warnings.simplefilter("error", g.GraphRKHSWarning)
        F = solver(W, [0, 7, 8, 9], np.eye(2)[[0, 1, 1, 1]], class_priors=b)
    labels = F.argmax(axis=1)
    # every solver keeps the labeled nodes (poisson_mbo moved them to fit the sizes)
    np.testing.assert_array_equal(labels[[0, 7, 8, 9]], [0, 1, 1, 1])
    free = np.setdiff1d(np.arange(10), [0, 7, 8, 9])
    np.testing.assert_array_equal(np.bincount(labels[free], minlength=2), class_sizes(b, 6))


# --- CutSSL (Holtz et al., NeurIPS 2024) ------------------------------------------------------------

def _cut_problem(seed, n=14, k=3, per_class=1):
    """A random connected weighted graph, labeled nodes and the sizes of the unlabeled ones."""
    rng = np.random.default_rng(seed)
    A = np.triu(rng.random((n, n)) * (rng.random((n, n)) < 0.5), 1)
    A[np.arange(n - 1), np.arange(1, n)] += 0.5           # a path keeps it connected
    W = A + A.T
    labeled = rng.choice(n, k * per_class, replace=False)
    codes = np.tile(np.arange(k), per_class)
    return W, labeled, np.eye(k)[codes], codes


def _cut_qp_oracle(W, labeled, codes, k, m, s):
    """The CutSSL quadratic program solved by scipy's SLSQP on the dense matrices (the oracle)."""
    from scipy.optimize import minimize
    n = W.shape[0]
    U = np.setdiff1d(np.arange(n), labeled)
    d = W.sum(axis=1)
    A = (np.diag(d) - W - s * np.diag(d))[np.ix_(U, U)]
    B = W[np.ix_(U, labeled)] @ np.eye(k)[codes]
    u = U.size

    def f(x):
        X = x.reshape(u, k)
        return 0.5 * np.sum(X * (A @ X)) - np.sum(X * B), ((A @ X) - B).ravel()

    cons = [{"type": "eq", "fun": lambda x: x.reshape(u, k).sum(axis=1) - 1},
            # the last column sum follows from the others and the row sums (SLSQP needs independent ones)
            {"type": "eq", "fun": lambda x: x.reshape(u, k).sum(axis=0)[:-1] - m[:-1]}]
    x0 = np.tile(m / u, (u, 1)).ravel()
    res = minimize(f, x0, jac=True, method="SLSQP", bounds=[(0, None)] * (u * k), constraints=cons,
                   options={"ftol": 1e-14, "maxiter": 2000})
    assert res.success, res.message
    return U, res.x.reshape(u, k), f(res.x)[0]


@pytest.mark.parametrize("seed", range(3))
def test_cut_ssl_convex_stage_is_the_quadratic_program_minimizer(seed):
    # s = 0: a strictly convex QP (L_UU is positive definite), so ADMM must reach its unique minimizer
    W, labeled, Y, codes = _cut_problem(seed)
    k = Y.shape[1]
    n = W.shape[0]
    m = class_sizes([0.5, 0.3, 0.2], n - labeled.size)      # the unlabeled nodes' sizes
    # 400 iterations, no early stop: the ADMM is at its fixed point well before (F bit for bit that of 4000)
    F = g.cut_ssl(W, labeled, Y, class_priors=[0.5, 0.3, 0.2], s=0.0, max_iter=400, tol=1e-9,
                  patience=400, cg_tol=1e-12, exact_sizes=False)
    U, X_star, _ = _cut_qp_oracle(W, labeled, codes, k, m.astype(float), 0.0)
    np.testing.assert_allclose(F[U], X_star, atol=2e-5)
    np.testing.assert_array_equal(F[labeled], Y)


@pytest.mark.parametrize("seed", range(3))
def test_cut_ssl_nonconvex_stage_is_feasible_and_no_worse_than_the_convex_minimizer(seed):
    # s > 0: the returned point is feasible (rows on the simplex, columns the sizes) and its objective
    # (with the concave term) is at most that of the s = 0 minimizer, a feasible point of the same problem
    W, labeled, Y, codes = _cut_problem(seed)
    k, n = Y.shape[1], W.shape[0]
    b = np.full(k, 1 / k)
    m = class_sizes(b, n - labeled.size).astype(float)
    s = 0.1
    # stages of 200 and 300 iterations: F is bit for bit that of (2000, 3000) with patience 3000
    F, info = g.cut_ssl(W, labeled, Y, class_priors=b, s=(0.0, s), max_iter=(200, 300), tol=1e-8,
                        patience=300, cg_tol=1e-12, exact_sizes=False, return_info=True)
    U = np.setdiff1d(np.arange(n), labeled)
    Z = F[U]
    assert Z.min() >= 0 and info["primal_residual"] < 1e-5
    np.testing.assert_allclose(Z.sum(axis=1), 1, atol=1e-5)
    np.testing.assert_allclose(Z.sum(axis=0), m, atol=1e-4)
    d = W.sum(axis=1)
    A = (np.diag(d) - W - s * np.diag(d))[np.ix_(U, U)]
    B = W[np.ix_(U, labeled)] @ Y

    def objective(X):
        return 0.5 * np.sum(X * (A @ X)) - np.sum(X * B)

    _, X0, _ = _cut_qp_oracle(W, labeled, codes, k, m, 0.0)
    assert objective(Z) <= objective(X0) + 1e-6


def test_cut_ssl_labels_meet_the_sizes_exactly_and_separate_two_clusters():
    # two 6-cliques joined by one weak edge, one label each: the minimum cut with sizes 6 / 6
    W, _ = _two_cliques(6, 6, bridge=0.1)
    F = g.cut_ssl(W, [0, 11], np.eye(2))
    np.testing.assert_array_equal(F.argmax(axis=1), [0] * 6 + [1] * 6)
    # priors 2/3, 1/3: exactly 8 and 4 nodes
    F = g.cut_ssl(W, [0, 11], np.eye(2), class_priors=[2 / 3, 1 / 3])
    np.testing.assert_array_equal(np.bincount(F.argmax(axis=1)), [8, 4])


def test_cut_ssl_is_invariant_to_the_scale_and_numbering_of_the_graph():
    W, labeled, Y, codes = _cut_problem(5, n=20)
    F = g.cut_ssl(W, labeled, Y)
    np.testing.assert_allclose(g.cut_ssl(1e6 * W, labeled, Y), F, atol=1e-6)
    perm = np.random.default_rng(1).permutation(W.shape[0])
    inv = np.argsort(perm)
    Fp = g.cut_ssl(W[np.ix_(perm, perm)], inv[labeled], Y)
    np.testing.assert_allclose(Fp[inv], F, atol=1e-6)


def test_cut_ssl_gives_label_free_components_the_priors():
    W, labeled, Y, codes = _cut_problem(2, n=10)
    Wb = np.zeros((13, 13))
    Wb[:10, :10] = W
    Wb[10, 11] = Wb[11, 10] = Wb[11, 12] = Wb[12, 11] = 1.0       # a 3-node component without labels
    b = [0.2, 0.3, 0.5]
    with pytest.warns(g.GraphWarning):
        F = g.cut_ssl(Wb, labeled, Y, class_priors=b)
    np.testing.assert_allclose(F[10:], np.tile(b, (3, 1)))
    # the sizes are those of the 10 nodes the labels reach
    np.testing.assert_array_equal(np.bincount(F[:10].argmax(axis=1), minlength=3), class_sizes(b, 10))


def test_cut_ssl_warns_when_the_admm_stops_short_and_not_when_it_converges():
    # two 6-cliques, one label each: the indicators leave the polytope's interior (X - Z != 0), and
    # 10 iterations per stage leave a residual of about 1e-3
    W, _ = _two_cliques(6, 6, bridge=0.1)
    labeled, Y = [0, 11], np.eye(2)
    with pytest.warns(g.ConvergenceWarning, match="max_iter"):
        _, info = g.cut_ssl(W, labeled, Y, max_iter=10, tol=1e-6, return_info=True)
    assert info["primal_residual"] > 1e-6 and info["n_iter"] == [10, 10] and not info["converged"]
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error", g.ConvergenceWarning)
        _, info = g.cut_ssl(W, labeled, Y, return_info=True)
    # the reported residual is the degree-weighted RMS of X - Z, at most the tolerance
    assert 0 <= info["primal_residual"] <= 1e-3 and info["converged"]
    # labels that have not been stable for `patience` iterations are not settled either, whatever the residual
    with pytest.warns(g.ConvergenceWarning, match="labels unchanged for the last") as caught:
        _, info = g.cut_ssl(W, labeled, Y, max_iter=10, patience=50, tol=1.0, return_info=True)
    assert not info["converged"]
    # a max_iter below patience cannot reach the early stop at all: the warning says which knob to turn
    assert "The last stage's max_iter (10) is below patience (50)" in str(caught[0].message)
    with pytest.warns(g.ConvergenceWarning) as caught:
        g.cut_ssl(W, labeled, Y, max_iter=60, patience=50, tol=1e-300)
    assert "below patience" not in str(caught[0].message)
    # at max_iter == patience the early stop is reachable (the quiet count may run from the stage's first
    # iteration), so the hint must not claim otherwise
    with pytest.warns(g.ConvergenceWarning) as caught:
        g.cut_ssl(W, labeled, Y, max_iter=50, patience=50, tol=1e-300)
    assert "below patience" not in str(caught[0].message)


def test_poisson_mbo_warns_when_it_ends_unsettled_and_not_when_it_settles():
    # three blobs, one label each: the first projection moves 19 nodes, the second none; with max_iter=1
    # poisson_mbo returned the unsettled labels without a word (volume_mbo and cut_ssl warn)
    from sklearn.datasets import make_blobs
    X, y = make_blobs(60, centers=3, random_state=0)
    W = g.knn_graph(X, 6)
    Y = np.eye(3)[y[:3]]
    with pytest.warns(g.ConvergenceWarning, match=r"poisson_mbo: labels still changed in round 1 \(19 node"):
        _, info = poisson_mbo(W, [0, 1, 2], Y, max_iter=1, return_info=True)
    assert info["changed"] == [19] and not info["converged"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", g.ConvergenceWarning)
        _, info = poisson_mbo(W, [0, 1, 2], Y, max_iter=2, return_info=True)
    assert info["changed"] == [19, 0] and info["converged"]


@pytest.mark.parametrize("solver", [poisson_mbo, volume_mbo])
def test_mbo_warns_above_the_settled_fraction_and_logs_below_it(solver, monkeypatch, caplog):
    # the last round's moves against MBO_SETTLED_FRACTION of the projected nodes (57 here, 3 labeled): above it
    # a ConvergenceWarning, at or below it an INFO record; return_info's "converged" is False either way
    import logging
    from graphrkhs.solvers import _mbo
    from sklearn.datasets import make_blobs
    X, y = make_blobs(60, centers=3, random_state=0)
    W = g.knn_graph(X, 6)
    Y = np.eye(3)[y[:3]]
    kw = dict(class_priors=[1 / 3, 1 / 3, 1 / 3], max_iter=1, return_info=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", g.ConvergenceWarning)
        _, info = solver(W, [0, 1, 2], Y, **kw)
    moved = info["changed"][-1]
    assert moved > 0 and not info["converged"]
    name = solver.__name__
    monkeypatch.setattr(_mbo, "MBO_SETTLED_FRACTION", (moved - 0.5) / 57)
    with pytest.warns(g.ConvergenceWarning, match=rf"{name}: labels still changed in round 1 \({moved} node\(s\) of 57\); raise max_iter"):
        solver(W, [0, 1, 2], Y, **kw)
    monkeypatch.setattr(_mbo, "MBO_SETTLED_FRACTION", moved / 57)
    with warnings.catch_warnings(), caplog.at_level(logging.INFO, logger="graphrkhs"):
        warnings.simplefilter("error", g.ConvergenceWarning)
        _, info = solver(W, [0, 1, 2], Y, **kw)
    assert not info["converged"] and info["changed"] == [moved]
    assert any(f"{name}: labels still changed in round 1 ({moved} node(s) of 57)" in r.getMessage()
               for r in caplog.records)


@pytest.mark.parametrize("solver", [poisson_mbo, volume_mbo])
def test_mbo_exactly_tied_nodes_keep_their_class_and_the_iteration_settles(solver):
    # the complete graph K_8 with two labels: the 6 unlabeled nodes tie exactly, and the projection moved
    # all 6 every round (changed = [6, 6, ...], no fixed point, a ConvergenceWarning after max_iter)
    n = 8
    W = np.ones((n, n)) - np.eye(n)
    with warnings.catch_warnings():
        warnings.simplefilter("error", g.ConvergenceWarning)
        F, info = solver(W, [0, 1], np.eye(2), class_priors=[0.5, 0.5], return_info=True)
    assert info["converged"] and info["changed"][-1] == 0 and info["n_iter"] <= 2
    labels = F.argmax(axis=1)
    np.testing.assert_array_equal(np.bincount(labels, minlength=2), [4, 4])
    np.testing.assert_array_equal(labels[:2], [0, 1])


@pytest.mark.parametrize("solver", [poisson_mbo, volume_mbo, g.cut_ssl])
def test_mbo_scores_keep_the_float32_dtype_of_the_targets_and_their_labels(solver):
    # float32 targets gave float64 scores (harmonic_solution and poisson_learning return float32)
    W, _ = _two_cliques(5, 5, bridge=1.0)
    W = np.c_[np.r_[W, np.zeros((2, 10))], np.zeros((12, 2))]      # + 2 nodes no label reaches
    W[10, 11] = W[11, 10] = 1.0
    labeled, b = [0, 1, 9], [0.5, 0.5]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        F64 = solver(W, labeled, np.eye(2)[[0, 0, 1]], class_priors=b)
        F32 = solver(W.astype(np.float32), labeled, np.eye(2, dtype=np.float32)[[0, 0, 1]], class_priors=b)
    assert F64.dtype == np.float64 and F32.dtype == np.float32
    np.testing.assert_array_equal(F32.argmax(axis=1), F64.argmax(axis=1))
    np.testing.assert_allclose(F32, F64, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("solver", [poisson_mbo, volume_mbo, g.cut_ssl, g.poisson_learning])
def test_subnormal_edge_weights_raise_naming_W_and_the_fix(solver):
    # a path with weights 1e-310 (every degree subnormal): poisson_mbo / poisson_learning raised a
    # LinAlgError about the "Laplacian system", volume_mbo "S must be finite", cut_ssl "M contains NaN"
    W = np.diag(np.ones(5), 1)
    W = (W + W.T) * 1e-310
    with pytest.raises(ValueError, match=r"W's edge weights are subnormal.*" + solver.__name__ +
                       r".*Multiply W by a positive constant, e.g. W / W.max\(\)"):
        solver(W, [0, 5], np.eye(2), class_priors=[0.5, 0.5])
    # scaled up they give the labels of the path
    F = solver(W / W.max(), [0, 5], np.eye(2), class_priors=[0.5, 0.5])
    np.testing.assert_array_equal(F.argmax(axis=1), [0, 0, 0, 1, 1, 1])


def _interleaved_cliques(m=6, across=0.3):
    """Two dense classes of m nodes, interleaved (node i in class i % 2): weights 1 within, ``across`` between."""
    y = np.tile([0, 1], m)
    W = np.where(y[:, None] == y[None], 1.0, across)
    np.fill_diagonal(W, 0.0)
    return W, y


def test_volume_mbo_warns_when_the_diffusion_fully_mixes_a_small_dense_graph():
    # 12 dense nodes: the slowest mode of I - tau L decays by 0.7 a step, so n_inner=100 left the
    # diffused indicators constant to 1.1e-16 with no word about the diffusion time: the assignment
    # followed rounding (before the keep-on-tie rule 10 of 12 right, labels still changing at round 100;
    # with it every round keeps the start's labels: the MBO rounds do no work)
    W, y = _interleaved_cliques()
    with pytest.warns(g.GraphRKHSWarning, match=r"n_inner=100.*lower n_inner"):
        volume_mbo(W, [0, 1], np.eye(2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F = volume_mbo(W, [0, 1], np.eye(2), n_inner=5)       # spread 0.023: no warning, the classes
    np.testing.assert_array_equal(F.argmax(axis=1), y)


def test_auction_round_budget_grows_with_the_number_of_rows(monkeypatch):
    # A fixed cap of 1e5 bidding rounds stopped PoissonLearningClassifier(class_priors=...) on the
    # 70000-node Fashion-MNIST tangent graph (1 label per class, uniform priors: 107948 rounds needed;
    # 1635 / 23519 at 2000 / 20000 rows of the same scores).  The default budget is max(1e5, 20 n).
    import graphrkhs.solvers._mbo as mbo
    from graphrkhs.solvers import class_sizes, size_constrained_assignment

    seen = []
    real = mbo._auction

    def spy(S, sizes, eps, max_rounds):
        seen.append(max_rounds)
        return real(S, sizes, eps, max_rounds)

    monkeypatch.setattr(mbo, "_auction", spy)
    rng = np.random.default_rng(0)
    for n in (300, 12000):
        S = rng.random((n, 3))
        sizes = class_sizes([0.5, 0.3, 0.2], n)
        labels, prices = size_constrained_assignment(S, sizes)
        assert np.array_equal(np.bincount(labels, minlength=3), sizes)
        assert np.array_equal(np.bincount((S - prices).argmax(axis=1), minlength=3), sizes)
    assert seen == [100000, 20 * 12000]
    with pytest.raises(RuntimeError, match=r"max_iter=3 bidding rounds"):
        size_constrained_assignment(S, sizes, max_iter=3)


@pytest.mark.parametrize("seed", range(40))
def test_assignment_matches_the_expanded_assignment_problem(seed):
    # oracle: class c as sizes[c] identical columns of an n x n assignment problem, solved by scipy's
    # linear_sum_assignment; scores with ties (integers), near-identical rows and scales 1e-8..1e8
    from scipy.optimize import linear_sum_assignment
    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(1, 60)), int(rng.integers(2, 7))
    kind = seed % 4
    if kind == 0:
        S = rng.normal(size=(n, k))
    elif kind == 1:
        S = rng.integers(0, 3, size=(n, k)).astype(float)
    elif kind == 2:
        S = np.repeat(rng.normal(size=(1, k)), n, axis=0) + 1e-12 * rng.normal(size=(n, k))
    else:
        S = rng.normal(size=(n, k)) * 10.0 ** rng.integers(-8, 9)
    sizes = class_sizes(rng.dirichlet(0.7 * np.ones(k)), n)
    labels, prices = size_constrained_assignment(S, sizes)
    np.testing.assert_array_equal(np.bincount(labels, minlength=k), sizes)
    cols = np.repeat(np.arange(k), sizes)
    rows, picked = linear_sum_assignment(-S[:, cols])
    optimum = S[rows, cols[picked]].sum()
    span = S.max() - S.min()
    # within n eps of the optimum (eps = 1e-10 of the score range), plus the sums' rounding
    assert S[np.arange(n), labels].sum() >= optimum - n * 1e-10 * span - 1e-12 * np.abs(S).sum()
    # epsilon-complementary slackness at the returned prices
    V = S - prices
    assert np.all(V[np.arange(n), labels] >= V.max(axis=1) - 1e-10 * span - 1e-12 * np.abs(S).max(axis=1))
