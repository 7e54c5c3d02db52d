"""Exploration for issue 15 (log in benchmarks/results/label_rates_exploration.md).

Score matrices of several configurations of the library's existing learners on several graphs
built from one cached exact neighbour search, and post-processings of the scores (argmax,
mean shift, class-mass normalization, volume balancing to the label proportions), on the same
seeded label draws.  Not a benchmark of record (label_rates.py is); a tool to find defaults.

Usage::

    python benchmarks/label_rates_explore.py --dataset digits --rates 1,10 --draws 5 --configs all
"""

import argparse
import itertools
import os
import time
import warnings

import numpy as np
import scipy.sparse as sp

import label_rates as lr


# ---------------------------------------------------------------------------
# the metric of the graph: a transform of X before the (exact, Euclidean) neighbour search
# ---------------------------------------------------------------------------

def transform(X, metric, seed=0):
    """``euclid``: X itself.  ``cos``: rows scaled to unit length (Euclidean distance on them is
    sqrt(2 - 2 cos), a monotone function of the cosine distance).  ``pca<m>``: the first m principal
    components (centred, exact SVD of the covariance); ``pca<m>w``: the same, whitened (each component
    divided by its standard deviation).  ``cospca<m>[w]``: unit rows, then PCA."""
    X = np.asarray(X, dtype=np.float64)
    if metric == "euclid":
        return X
    if metric.startswith("cos"):
        X = X / np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1e-300)
        metric = metric[3:] or "euclid"
        if metric == "euclid":
            return X
    if metric.startswith("pca"):
        white = metric.endswith("w")
        m = int(metric[3:].rstrip("w"))
        Xc = X - X.mean(0)
        evals, evecs = np.linalg.eigh(Xc.T @ Xc / X.shape[0])
        order = np.argsort(evals)[::-1][:m]
        Z = Xc @ evecs[:, order]
        if white:
            Z /= np.sqrt(np.maximum(evals[order], 1e-300))
        return Z
    raise ValueError(f"unknown metric {metric!r}")


def neighbours(dataset, X, metric, k=30):
    """Exact k-NN lists of the transformed points, cached per metric (the Euclidean ones are
    label_rates.py's cache)."""
    if metric == "euclid":
        return lr.exact_neighbours(dataset, X, k)
    return lr.exact_neighbours(f"{dataset}-{metric}", transform(X, metric), k)


# ---------------------------------------------------------------------------
# graphs from neighbour lists
# ---------------------------------------------------------------------------

def graph(I, D, k, weight):
    """kNN graph from exact lists (self excluded).  weights:
    gauss     exp(-d^2 / (2 s^2)), s = mean kNN distance, union (the library default)
    gl        exp(-4 d^2 / d_k(i)^2), averaged (GraphLearning's default)
    st        exp(-4 d^2 / (d_k(i) d_k(j))), union (self-tuning, GL's symgaussian)
    st1       exp(-d^2 / (d_k(i) d_k(j))), union (the library's self-tuning)"""
    n = I.shape[0]
    I = I[:, :k].astype(np.int64)
    D = D[:, :k].astype(np.float64)
    dk = np.maximum(D[:, -1], 1e-12)
    if weight == "gauss":
        w = np.exp(-D ** 2 / (2 * D.mean() ** 2))
    elif weight == "gl":
        w = np.exp(-4 * D ** 2 / dk[:, None] ** 2)
    elif weight == "st":
        w = np.exp(-4 * D ** 2 / (dk[:, None] * dk[I]))
    elif weight == "st1":
        w = np.exp(-D ** 2 / (dk[:, None] * dk[I]))
    else:
        raise ValueError(weight)
    rows = np.repeat(np.arange(n), k)
    W = sp.csr_array((w.ravel(), (rows, I.ravel())), shape=(n, n))
    if weight == "gl":
        W = (W + W.T) / 2
    else:
        W = W.maximum(W.T)
    W = sp.csr_array(W)
    W.setdiag(0)
    W.eliminate_zeros()
    return W


# ---------------------------------------------------------------------------
# score methods: fn(W, S, c, n_classes) -> (n, C) scores
# ---------------------------------------------------------------------------

def onehot(c, C):
    return np.eye(C)[c]


def m_poisson(W, S, c, C):
    from graphrkhs import poisson_learning
    return poisson_learning(W, S, onehot(c, C), tol=1e-3)


def m_gkr(phi=None, laplacian="normalized", alpha="auto"):
    from graphrkhs import GraphKernelRidgeClassifier

    def f(W, S, c, C):
        yp = np.full(W.shape[0], -1)
        yp[S] = c
        est = GraphKernelRidgeClassifier(phi, alpha=alpha, laplacian=laplacian, graph="precomputed")
        est.fit(W, yp)
        f.last = (est.alpha_, est.kernel_)
        return est.scores_
    return f


def m_selftrain(factor=3, base=None):
    """Two rounds of graph kernel ridge: the second adds, per class, the ``factor`` x (labels of the class)
    unlabeled nodes the first round assigns to it with the largest margin of the z-scored scores
    (pseudo-labels; self-training)."""
    first = base or m_gkr()

    def f(W, S, c, C):
        F = first(W, S, c, C)
        G = (F - F.mean(0)) / (F.std(0) + 1e-300)
        G[S] = -np.inf
        top2 = np.sort(G, axis=1)[:, -2:]
        margin = top2[:, 1] - top2[:, 0]
        pred = G.argmax(1)
        extra = []
        for k in range(C):
            cand = np.flatnonzero((pred == k) & np.isfinite(margin))
            m = factor * int(np.sum(c == k))
            extra.append(cand[np.argsort(-margin[cand])[:m]])
        extra = np.concatenate(extra)
        F2 = first(W, np.concatenate([S, extra]), np.concatenate([c, pred[extra]]), C)
        f.last = getattr(first, "last", None)
        return F2
    return f


def m_regsolve(a, laplacian="normalized"):
    """F = (I + a L)^{-1} Y_S (GraphLearning's randomwalk with a = alpha / (1 - alpha)): kernel
    'smoothing' without ridge inversion (the alpha -> infinity limit of kernel ridge, rescaled)."""
    from graphrkhs import laplacian as lap
    from graphrkhs._core.cg import conjugate_gradient  # noqa

    def f(W, S, c, C):
        L = lap(W, laplacian)
        A = sp.identity(W.shape[0], format="csr") + a * L
        B = np.zeros((W.shape[0], C))
        B[S] = onehot(c, C)
        import scipy.sparse.linalg as sla
        d = A.diagonal()
        M = sla.LinearOperator(A.shape, matvec=lambda x: x / d.reshape((-1,) + (1,) * (x.ndim - 1)))
        out = np.empty_like(B)
        for j in range(C):
            out[:, j] = sla.cg(A, B[:, j], rtol=1e-6, M=M, maxiter=2000)[0]
        return out
    return f


def m_laplace(W, S, c, C):
    from graphrkhs import harmonic_solution
    return harmonic_solution(W, S, onehot(c, C), tol=1e-6)


# ---------------------------------------------------------------------------
# post-processing of scores
# ---------------------------------------------------------------------------

def pp_argmax(F, c, C):
    return F.argmax(1)


def pp_shift(F, c, C):
    return (F - F.mean(0)).argmax(1)


def pp_zscore(F, c, C):
    return ((F - F.mean(0)) / (F.std(0) + 1e-300)).argmax(1)


def pp_cmn(F, c, C):
    """Zhu, Ghahramani & Lafferty (2003): column c scaled by q_c / sum_i F_ic (q = label proportions)."""
    q = np.bincount(c, minlength=C) / c.size
    s = np.clip(F, 0, None).sum(0)
    return (np.clip(F, 0, None) * (q / np.maximum(s, 1e-300))).argmax(1)


def pp_volume(F, c, C, iters=300):
    """Additive offsets b such that argmax(F + b) gives each class its label proportion of the nodes
    (a simple auction / dual ascent; GraphLearning's volume_label_projection is multiplicative)."""
    q = np.bincount(c, minlength=C) / c.size
    G = (F - F.mean(0)) / (F.std(0) + 1e-300)
    b = np.zeros(C)
    n = G.shape[0]
    step = 0.1
    for t in range(iters):
        lab = (G + b).argmax(1)
        frac = np.bincount(lab, minlength=C) / n
        b += step * (q - frac) / max(q.max(), 1e-12)
        step *= 0.985
    return (G + b).argmax(1)


POST = {"argmax": pp_argmax, "shift": pp_shift, "zscore": pp_zscore, "cmn": pp_cmn, "volume": pp_volume}


def configs(which):
    from graphrkhs import filters as fl
    allc = {
        "poisson": m_poisson,
        "laplace": m_laplace,
        "gkr-default": m_gkr(),
        "gkr-matern2-10-a1e-2": m_gkr(None, alpha=1e-2),
        "gkr-reglap19": m_gkr(fl.RegularizedLaplacian(19.0)),
        "gkr-reglap4": m_gkr(fl.RegularizedLaplacian(4.0)),
        "gkr-reglap50": m_gkr(fl.RegularizedLaplacian(50.0)),
        "gkr-heat10": m_gkr(fl.Heat(10.0)),
        "gkr-heat30": m_gkr(fl.Heat(30.0)),
        "gkr-matern2-20": m_gkr(fl.Matern(2, 20.0)),
        "gkr-matern1-10": m_gkr(fl.Matern(1, 10.0)),
        "gkr-grid": m_gkr([fl.Matern(2, 10.0), fl.RegularizedLaplacian(19.0), fl.Heat(10.0)]),
        # the filter scale / family chosen by the LOO engine among Matern(2, s) and (I + s L)^-1 at several s
        "gkr-grid2": m_gkr([fl.Matern(2, 5.0), fl.Matern(2, 10.0), fl.Matern(2, 20.0), fl.Matern(1, 10.0),
                            fl.RegularizedLaplacian(19.0)]),
        "gkr-matern2-5": m_gkr(fl.Matern(2, 5.0)),
        "gkr-matern2-40": m_gkr(fl.Matern(2, 40.0)),
        "regsolve19": m_regsolve(19.0),
        "gkr-comb": m_gkr(laplacian="combinatorial"),
        "gkr-selftrain3": m_selftrain(3),
        "gkr-selftrain1": m_selftrain(1),
    }
    if which == "all":
        return allc
    return {k: allc[k] for k in which.split(",")}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dataset", default="digits")
    p.add_argument("--rates", default="1,10")
    p.add_argument("--draws", type=int, default=5)
    p.add_argument("--configs", default="poisson,gkr-default")
    p.add_argument("--graphs", default="gauss10,gl10,st10")
    p.add_argument("--post", default="argmax,shift,zscore,volume")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--ensembles", action="store_true")
    p.add_argument("--classes", default=None, help="subset of classes, e.g. 0,2,4,6")
    p.add_argument("--ens-weights", default="0.5", help="weights w of w z(a) + (1 - w) z(b), e.g. 0.3,0.5,0.7")
    p.add_argument("--metrics", default="euclid",
                   help="metrics of our graphs (see transform): euclid,cos,pca50,pca50w,cospca100,...; "
                        "graph names get the suffix @<metric> unless it is euclid")
    args = p.parse_args()
    X, y = lr.load(args.dataset)
    y = np.unique(np.asarray(y), return_inverse=True)[1]
    I, D = lr.exact_neighbours(args.dataset, X, 30)
    if args.classes and args.metrics != "euclid":
        raise SystemExit("--classes with --metrics other than euclid is not supported")
    if args.classes:
        keep = np.isin(y, [int(v) for v in args.classes.split(",")])
        # re-search on the subset (neighbour lists of the full set would point outside it)
        X, y = X[keep], np.unique(y[keep], return_inverse=True)[1]
        from graphrkhs.graphs import knn_search
        D, I = knn_search(np.asarray(X), 30, "brute", None)
    C = int(y.max()) + 1
    graphs = {}
    for metric in args.metrics.split(","):
        if metric == "euclid":
            Im, Dm = I, D
        else:
            t0 = time.perf_counter()
            Im, Dm = neighbours(args.dataset, X, metric)
            print(f"neighbours on {metric}: {time.perf_counter() - t0:.1f} s (0 if cached)", flush=True)
        for g in args.graphs.split(","):
            # names: <weight><k>, e.g. gauss10, st15; "st1_<k>" (or st110 = st1_10) for the library's self-tuning
            if g.startswith("st1_") or g == "st110":
                wname, k = "st1", int(g[4:] if "_" in g else 10)
            else:
                wname = g.rstrip("0123456789")
                k = int(g[len(wname):])
            graphs[g if metric == "euclid" else f"{g}@{metric}"] = graph(Im, Dm, k, wname)
    names = args.configs.split(",")
    own = [c for c in names if not c.startswith(("gl-", "glon-"))]
    cfgs = configs(",".join(own)) if own else {}
    gl_cfgs = {}
    if any(c.startswith("gl-") for c in names):
        # GraphLearning's own methods on its own default graph (gl.weightmatrix.knn(X, 10) from the
        # same exact lists, as in label_rates.py): the anchors, on the same draws
        import graphlearning as gl
        Wgl = sp.csr_matrix(lr.gl_graph(args.dataset, X)[0])
        for c in names:
            if c.startswith("gl-"):
                cls = getattr(gl.ssl, c[3:])
                gl_cfgs[c] = (lambda cls: lambda W, S, c_, C: cls(Wgl).fit(S, c_))(cls)
    # "glon-<method>": GraphLearning's method on our graphs (every graph of --graphs)
    for c in names:
        if c.startswith("glon-"):
            import graphlearning as gl
            cls = getattr(gl.ssl, c[5:])
            cfgs[c] = (lambda cls: lambda W, S, c_, C: cls(sp.csr_matrix(W)).fit(S, c_))(cls)
    posts = args.post.split(",")
    for rate in [int(r) for r in args.rates.split(",")]:
        rng = np.random.default_rng([args.seed, rate])
        from graphrkhs.datasets import sample_labels
        sets = [sample_labels(y, rate, random_state=rng)[1] for _ in range(args.draws)]
        store = {}
        pairs = list(itertools.product(graphs.items(), cfgs.items()))
        pairs += [(("gl10", None), item) for item in gl_cfgs.items()]
        for (gname, W), (cname, fn) in pairs:
            acc = {pp: [] for pp in posts}
            t0 = time.perf_counter()
            extra, kernels = [], []
            for S in sets:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    F = fn(W, S, y[S], C)
                store.setdefault(gname, {}).setdefault(cname, []).append(F)
                if hasattr(fn, "last"):
                    extra.append(fn.last[0])
                    kernels.append(repr(fn.last[1]))
                hidden = np.ones(y.size, bool)
                hidden[S] = False
                for pp in posts:
                    acc[pp].append(np.mean(POST[pp](F, y[S], C)[hidden] == y[hidden]))
            t = (time.perf_counter() - t0) / len(sets)
            cells = "  ".join(f"{pp} {100 * np.mean(v):5.2f}+-{100 * np.std(v):4.2f}" for pp, v in acc.items())
            ex = f"  alpha {np.median(extra):.0e} kernels {sorted(set(kernels))}" if extra else ""
            print(f"{args.dataset}{'[' + args.classes + ']' if args.classes else ''} {rate:>3}/cl {gname:<14} "
                  f"{cname:<22} {cells}  {t:5.1f}s{ex}", flush=True)
        if args.ensembles:
            # sums of z-scored score matrices of pairs of configurations (same graph, same draw)
            def z(F):
                return (F - F.mean(0)) / (F.std(0) + 1e-300)
            for gname, per in store.items():
                for a, b in itertools.combinations(per, 2):
                    for wa in [float(v) for v in args.ens_weights.split(",")]:
                        acc = {pp: [] for pp in posts}
                        for d, S in enumerate(sets):
                            F = wa * z(per[a][d]) + (1 - wa) * z(per[b][d])
                            hidden = np.ones(y.size, bool)
                            hidden[S] = False
                            for pp in posts:
                                acc[pp].append(np.mean(POST[pp](F, y[S], C)[hidden] == y[hidden]))
                        cells = "  ".join(f"{pp} {100 * np.mean(v):5.2f}+-{100 * np.std(v):4.2f}"
                                          for pp, v in acc.items())
                        print(f"{args.dataset} {rate:>3}/cl {gname:<14} {wa:g} z({a})+{1 - wa:g} z({b}) {cells}",
                              flush=True)


if __name__ == "__main__":
    main()
