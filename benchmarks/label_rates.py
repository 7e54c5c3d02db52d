"""Benchmark: accuracy against the label rate (issue 15), ours against GraphLearning.

One run per dataset: every method sees the same graph and the same seeded random label draws
(``graphrkhs.datasets.sample_labels``, ``n`` labels of every class, draws 0..N-1 of one generator
per rate); accuracy is measured on the unlabeled points.

Graphs
    ``ours``  the graph the recommended estimator builds from X with its defaults and
              ``random_state=--seed`` (``est._build_graph(X)``: one graph in every process where the search
              is approximate; ``PoissonRidgeEnsembleClassifier``'s ``graph="auto"``: on Fashion-MNIST and
              the digits -- >= 32 non-negative columns that are the pixels of square images -- the
              self-tuning graph of the tangent distance ``knn_graph(X, 10, weight="self-tuning",
              relative_width=0.5, metric="tangent", image_shape=(s, s))`` (before
              session 23 the same with ``metric="cosine"``), else ``knn_graph(X, 10)``; the resolved spec
              is printed and stored as ``graph_ours``).
              Our estimators are then fitted with ``graph="precomputed"`` on it and otherwise default
              parameters -- for the recommended one the same labels as ``fit(X, y)`` (module docs of
              ``graphrkhs.transductive``), without rebuilding the graph for every draw; except where the
              recommended estimator's default also solves on the images' one-pixel translates (at most
              ``SHIFT_COPIES_MAX_IMAGES`` square images: the digits, since session 36), whose rows are
              then ``fit(X, y)`` itself with ``random_state=--seed`` (``augments``); the other
              rows of ours (Laplace, Poisson, kernel ridge) share this graph, which is not the
              Euclidean Gaussian graph they would build with their own defaults.
    ``gl``    GraphLearning's default graph ``gl.weightmatrix.knn(X, 10)`` (weights
              ``exp(-4 |x_i - x_j|^2 / d_k(x_i)^2)``, symmetrized by averaging).  GraphLearning searches
              with annoy (approximate, a Python loop over the points); here it gets the exact
              neighbour lists through ``knn_data=`` (its documented bypass), so its graph is the one
              its own construction gives with exact neighbours.

Methods (each on the graphs named in ``--gl-graphs`` for GraphLearning, on ``ours`` for ours)
    ours          the recommended default classifier (``RECOMMENDED`` below), Laplace learning,
                  Poisson learning, graph kernel ridge -- all with default parameters; CutSSL
                  (``CutSSLClassifier``, Holtz et al., NeurIPS 2024: it needs class sizes) with the
                  label proportions of the draw and, in the priors track, the true ones.
    GraphLearning ``gl.ssl.laplace``, ``poisson``, ``randomwalk``, ``poisson_mbo``, ``volume_mbo``
                  with their defaults.
    priors track  the same with the true class proportions given: GraphLearning's
                  ``class_priors=`` (poisson, poisson_mbo, volume_mbo) and ours ``class_priors=``
                  (skipped with a note when the installed estimator does not accept it).

The slow methods (GraphLearning's MBO, 30-60 s a fit on Fashion-MNIST; CutSSL, about 100 s) can be limited to the first ``--slow-draws``
draws (the same label sets as the others, fewer of them); the table gives the number of draws of
every cell.

Outputs: ``benchmarks/results/label_rates.{json,md}`` and ``label_rates_<dataset>.png``
(accuracy against labels per class).  Every row is saved when it finishes, merged (under a file lock)
with the stored rows of the same set-up (draws, seed, graphs), so an interrupted run keeps what it
measured and the rates of one dataset can run in separate processes (``--rates 1,10`` and
``--rates 5,50``, say) into one table.  GraphLearning's ``poisson`` with priors on our graph is the slow
row on Fashion-MNIST (median 85 s a fit at 5 labels per class, load 4-5): its volume projection (up to
10^4 reweighting steps, each a full argmax over the nodes) converges slowly on that graph.

Usage::

    python benchmarks/label_rates.py --quick                  # digits, 3 draws
    nice python benchmarks/label_rates.py --datasets fashion,digits --draws 20
    python benchmarks/label_rates.py --datasets fashion --rates 1,5 --draws 5 --slow-draws 2
    python benchmarks/label_rates.py --datasets fashion --rates 10,50 --draws 20 --slow-draws 2 \
        --no-previews --skip-laplace --resume      # only the rows not stored yet
    python benchmarks/label_rates.py --datasets fashion --rates 1,10 --draws 20 --slow-draws 2 \
        --no-previews --core       # the compared rows first; the same without --core and with --resume later
    python benchmarks/label_rates.py --datasets digits --draws 20 --no-previews --resume \
        --core --redo recommended  # the recommended rows again (a changed default), the others kept
"""

import argparse
import fcntl
import inspect
import json
import os
import platform
import time
import warnings

import numpy as np
import scipy.sparse as sp

HERE = os.path.dirname(os.path.abspath(__file__))
# GRAPHRKHS_RATES_RESULTS: another directory for the tables (a trial run that must not merge into the stored ones)
RESULTS = os.environ.get("GRAPHRKHS_RATES_RESULTS", os.path.join(HERE, "results"))
CACHE = os.environ.get("GRAPHRKHS_RATES_CACHE", "/tmp/rates_cache")


def recommended():
    """The recommended default classifier for transductive labeling (issue 15), default parameters
    (the default method of ``graphrkhs label`` and the first row of ``graphrkhs demo``)."""
    from graphrkhs import PoissonRidgeEnsembleClassifier
    return PoissonRidgeEnsembleClassifier()


RECOMMENDED = "PoissonRidgeEnsembleClassifier()"


# ---------------------------------------------------------------------------
# data and graphs (cached: the Fashion-MNIST search is the expensive step)
# ---------------------------------------------------------------------------

def load(name):
    from graphrkhs.datasets import load_digits, load_fashion_mnist
    if name == "fashion":
        return load_fashion_mnist()
    if name == "digits":
        return load_digits()
    raise ValueError(f"unknown dataset {name!r}")


def _cached(path, build, save, read):
    if os.path.exists(path):
        return read(path), 0.0
    t0 = time.perf_counter()
    out = build()
    t = time.perf_counter() - t0
    os.makedirs(os.path.dirname(path), exist_ok=True)
    save(path, out)
    return out, t


def _save_sparse(path, W):
    sp.save_npz(path, sp.csr_matrix(W))


def _read_sparse(path):
    return sp.csr_array(sp.load_npz(path))


def our_graph_spec(X):
    """The GraphSpec the recommended estimator resolves for X with its defaults."""
    return recommended()._graph_spec(X)


def our_graph(name, X, seed):
    """The graph the recommended estimator builds from X with its defaults and ``random_state=seed`` (cached per
    resolved spec and seed, so that a change of the default never reuses another graph).

    The seed makes the graph one graph: on Fashion-MNIST the search is approximate (pynndescent), and two
    processes of this script building it unseeded got graphs whose edge counts differ by 8."""
    import hashlib
    est = recommended().set_params(random_state=seed)
    key = hashlib.sha1(f"{our_graph_spec(X)!r} random_state={seed!r}".encode()).hexdigest()[:10]
    return _cached(os.path.join(CACHE, f"{name}_ours_graph_{key}.npz"), lambda: est._build_graph(X),
                   _save_sparse, _read_sparse)


def exact_neighbours(name, X, k):
    """Exact k nearest neighbours (self excluded) with the library's exact search; cached."""
    from graphrkhs.graphs import knn_search
    path_i = os.path.join(CACHE, f"{name}_knn{k}_idx.npy")
    path_d = os.path.join(CACHE, f"{name}_knn{k}_dist.npy")
    if os.path.exists(path_i) and os.path.exists(path_d):
        return np.load(path_i), np.load(path_d)
    algorithm = "brute" if X.shape[1] > 16 else "kd_tree"
    D, I = knn_search(np.asarray(X), k, algorithm, None)
    os.makedirs(CACHE, exist_ok=True)
    np.save(path_i, I.astype(np.int32))
    np.save(path_d, D.astype(np.float32))
    return I, D


def gl_graph(name, X, k=10):
    """GraphLearning's default graph ``gl.weightmatrix.knn(X, k)`` on exact neighbour lists."""
    import graphlearning as gl

    def build():
        I, D = exact_neighbours(name, X, max(k, 30) if name == "fashion" else k)
        n = I.shape[0]
        # GraphLearning's lists include the point itself first (distance 0).
        J = np.hstack([np.arange(n)[:, None], I[:, :k]]).astype(np.int64)
        Dk = np.hstack([np.zeros((n, 1)), D[:, :k].astype(np.float64)])
        return gl.weightmatrix.knn(None, k, knn_data=(J, Dk))
    return _cached(os.path.join(CACHE, f"{name}_gl_graph.npz"), build, _save_sparse, _read_sparse)


def self_tuning_graph(name, X, k=10):
    """The candidate default graph of the exploration: kNN (k = 10, exact lists, union), weights
    ``exp(-4 d_ij^2 / (d_k(i) d_k(j)))`` -- the library's self-tuning weights with relative width 1/2
    (GraphLearning's 'symgaussian').  Built here from the cached neighbour lists."""
    def build():
        I, D = exact_neighbours(name, X, max(k, 30) if name == "fashion" else k)
        n = I.shape[0]
        I = I[:, :k].astype(np.int64)
        D = D[:, :k].astype(np.float64)
        dk = np.maximum(D[:, -1], np.finfo(np.float64).tiny)
        w = np.exp(-4.0 * D ** 2 / (dk[:, None] * dk[I]))
        W = sp.csr_array((w.ravel(), (np.repeat(np.arange(n), k), I.ravel())), shape=(n, n))
        W = sp.csr_array(W.maximum(W.T))
        W.setdiag(0)
        W.eliminate_zeros()
        return W
    return _cached(os.path.join(CACHE, f"{name}_st_graph.npz"), build, _save_sparse, _read_sparse)


def _previews(W, priors):
    """Exploration's candidate defaults on the self-tuning graph (previews; not library defaults yet):
    graph kernel ridge and Poisson learning with default parameters, and the sum of their
    per-column standardized scores (with and without volume balancing)."""
    from graphrkhs import GraphKernelRidgeClassifier, PoissonLearningClassifier
    n = W.shape[0]
    memo = {}

    def z(F):
        return (F - F.mean(axis=0)) / (F.std(axis=0) + 1e-300)

    def fitted(S, c):
        key = S.tobytes()
        if key not in memo:      # kept for every draw: the rows run method by method over the draws
            yp = np.full(n, -1)
            yp[S] = c
            g = GraphKernelRidgeClassifier(graph="precomputed").fit(W, yp)
            p = PoissonLearningClassifier(graph="precomputed").fit(W, yp)
            memo[key] = (g.scores_, p.scores_, g.classes_)
        return memo[key]

    def gkr(S, c):
        G, P, cl = fitted(S, c)
        return cl[G.argmax(axis=1)]

    def poisson(S, c):
        G, P, cl = fitted(S, c)
        return cl[P.argmax(axis=1)]

    def ens(S, c):
        G, P, cl = fitted(S, c)
        return cl[(z(G) + z(P)).argmax(axis=1)]

    done = {}

    def ens_vol(given):
        def run(S, c):
            G, P, cl = fitted(S, c)
            q = priors[cl] if given else np.bincount(c, minlength=priors.size)[cl] / c.size
            memo = (S.tobytes(), np.round(q, 12).tobytes())
            if memo not in done:
                done[memo] = cl[volume_balance(z(G) + z(P), q)]
            return done[memo]
        return run

    return [("preview [st graph]: graph kernel ridge defaults", "graphrkhs (script)", "none", gkr),
            ("preview [st graph]: Poisson defaults", "graphrkhs (script)", "none", poisson),
            ("preview [st graph]: z(kernel ridge) + z(Poisson)", "graphrkhs (script)", "none", ens),
            ("preview [st graph]: z(kernel ridge) + z(Poisson), volume to label proportions",
             "graphrkhs (script)", "none", ens_vol(False)),
            ("preview [st graph]: z(kernel ridge) + z(Poisson), volume to given priors",
             "graphrkhs (script)", "given", ens_vol(True))]


# ---------------------------------------------------------------------------
# methods: name -> fn(labeled indices, their labels) -> predicted labels of all nodes
# ---------------------------------------------------------------------------

def _accepts(est, param):
    return param in inspect.signature(type(est).__init__).parameters


def volume_balance(F, proportions, iters=300):
    """Labels ``argmax(G + b)`` with per-class offsets b chosen so that each class gets (nearly) its
    proportion of the nodes; G are the scores standardized per column.  A dual-ascent (auction)
    step on b; GraphLearning's ``volume_label_projection`` does the same with multiplicative weights.
    Used here only to preview class normalization from decision scores (issue 15, deliverable 1 is
    another branch's)."""
    q = np.asarray(proportions, dtype=np.float64)
    G = (F - F.mean(axis=0)) / (F.std(axis=0) + 1e-300)
    b = np.zeros(G.shape[1])
    step = 0.1
    for _ in range(iters):
        frac = np.bincount((G + b).argmax(axis=1), minlength=G.shape[1]) / G.shape[0]
        b += step * (q - frac) / q.max()
        step *= 0.985
    return (G + b).argmax(axis=1)


def augments(X):
    """Whether the recommended estimator's ``graph="auto"`` solves on the images and their one-pixel translates
    (at most ``SHIFT_COPIES_MAX_IMAGES`` square images, session 36): then its rows are fitted from X itself."""
    from graphrkhs.estimators._transductive import SHIFT_COPIES_MAX_IMAGES
    return our_graph_spec(X).metric == "tangent" and X.shape[0] <= SHIFT_COPIES_MAX_IMAGES


def _ours(W, y_all, priors, X_fit=None, seed=None):
    """Our rows on the graph W; ``X_fit``: the points, when the recommended estimator's default does more than
    solve on W (:func:`augments`): its rows are then ``recommended().fit(X_fit, y)`` itself (graph="auto",
    ``random_state=seed``, as ``our_graph`` builds W), the graph rebuilt in every fit."""
    from graphrkhs import (GraphKernelRidgeClassifier, LaplacianRegularizationClassifier,
                           PoissonLearningClassifier)
    n = W.shape[0]
    scores = {}     # (method, draw) -> the fitted scores, for the post-processed preview rows

    makers = {}     # method -> its fit, for a preview whose fitted row was skipped (--resume: stored)

    def fit(key, make, **kw):
        from_points = make is recommended and X_fit is not None

        def run(S, c):
            yp = np.full(n, -1)
            yp[S] = c
            est = make()
            if from_points:
                est.set_params(random_state=seed, **kw)
                est.fit(X_fit, yp)
            else:
                est.set_params(graph="precomputed", **kw)
                est.fit(W, yp)
            scores[key, S.tobytes()] = (est.scores_, est.classes_)
            return est.transduction_
        makers[key] = run
        return run

    done = {}

    def balanced(key, given):
        def run(S, c):
            if (key, S.tobytes()) not in scores:       # the fitted row was stored by an earlier run: fit it here
                makers[key](S, c)
            F, classes = scores[key, S.tobytes()]
            q = priors[classes] if given else np.bincount(c, minlength=priors.size)[classes] / c.size
            # given priors equal to the label proportions (balanced data): the same computation, once
            memo = (key, S.tobytes(), np.round(q, 12).tobytes())
            if memo not in done:
                done[memo] = classes[volume_balance(F, q)]
            return done[memo]
        return run

    rec_is_gkr = RECOMMENDED == "GraphKernelRidgeClassifier()"
    rows = [(f"recommended: {RECOMMENDED}" + (" (= graph kernel ridge defaults)" if rec_is_gkr else ""),
             "graphrkhs", "none", fit("rec", recommended)),
            ("Laplace learning (LaplacianRegularizationClassifier)", "graphrkhs", "none",
             fit("laplace", LaplacianRegularizationClassifier)),
            ("Poisson learning (PoissonLearningClassifier)", "graphrkhs", "none",
             fit("poisson", PoissonLearningClassifier))]
    if not rec_is_gkr:
        rows.append(("graph kernel ridge (GraphKernelRidgeClassifier)", "graphrkhs", "none",
                     fit("gkr", GraphKernelRidgeClassifier)))
    # previews of class normalization, computed here from the scores of the fits above (no refit)
    rows += [("preview: recommended + volume balancing to the label proportions", "graphrkhs (script)",
              "none", balanced("rec", False)),
             ("preview: Poisson + volume balancing to the label proportions", "graphrkhs (script)", "none",
              balanced("poisson", False)),
             ("preview: recommended + volume balancing to the given priors", "graphrkhs (script)", "given",
              balanced("rec", True)),
             ("preview: Poisson + volume balancing to the given priors", "graphrkhs (script)", "given",
              balanced("poisson", True))]
    skipped = []
    try:
        from graphrkhs import CutSSLClassifier
    except ImportError:
        skipped.append("CutSSL: the installed version has no CutSSLClassifier")
    else:
        cut_memo = {}

        def cutssl(given):
            # class_priors=None is the label proportions of the draw; when these equal the true priors
            # (balanced data, stratified draws: Fashion-MNIST) both tracks are one computation, done once
            def run(S, c):
                b = priors if given else np.bincount(c, minlength=priors.size) / c.size
                key = (S.tobytes(), np.round(b, 12).tobytes())
                if key not in cut_memo:
                    yp = np.full(n, -1)
                    yp[S] = c
                    est = CutSSLClassifier(graph="precomputed", class_priors=b).fit(W, yp)
                    cut_memo[key] = est.transduction_
                return cut_memo[key]
            return run

        rows.append(("CutSSL (CutSSLClassifier; sizes = label proportions)", "graphrkhs", "labels", cutssl(False)))
        rows.append(("CutSSL (CutSSLClassifier)", "graphrkhs", "given", cutssl(True)))
    for label, make in ((f"recommended: {RECOMMENDED}", recommended),
                        ("Poisson learning (PoissonLearningClassifier)", PoissonLearningClassifier)):
        if _accepts(make(), "class_priors"):
            rows.append((label, "graphrkhs", "given", fit(label, make, class_priors=priors)))
        else:
            skipped.append(f"{label}: the installed version has no class_priors= (its priors track is skipped)")
    return rows, skipped


_MEMO = {}


def _gl(W, graph_name, priors, slow):
    import graphlearning as gl
    Wm = sp.csr_matrix(W)

    def run(cls, **kw):
        return lambda S, c: cls(Wm, **kw).fit_predict(S, c)

    def run_priors(cls, given):
        # GraphLearning's MBO methods need class priors; the "none" track gives them the label
        # proportions of the draw.  When these equal the true proportions (balanced data, stratified
        # draws: Fashion-MNIST) both tracks are the same computation, done once (memo).
        def fn(S, c):
            b = priors if given else np.bincount(c, minlength=priors.size) / c.size
            key = (cls.__name__, graph_name, S.tobytes(), np.round(b, 12).tobytes())
            if key not in _MEMO:
                _MEMO[key] = cls(Wm, class_priors=b).fit_predict(S, c)
            return _MEMO[key]
        return fn

    rows = [(f"laplace [{graph_name} graph]", "GraphLearning", "none", run(gl.ssl.laplace)),
            (f"poisson [{graph_name} graph]", "GraphLearning", "none", run(gl.ssl.poisson)),
            (f"randomwalk [{graph_name} graph]", "GraphLearning", "none", run(gl.ssl.randomwalk)),
            (f"poisson [{graph_name} graph]", "GraphLearning", "given", run(gl.ssl.poisson, class_priors=priors))]
    if slow:
        rows += [(f"poisson_mbo [{graph_name} graph] (priors = label proportions)", "GraphLearning", "labels",
                  run_priors(gl.ssl.poisson_mbo, False)),
                 (f"volume_mbo [{graph_name} graph] (priors = label proportions)", "GraphLearning", "labels",
                  run_priors(gl.ssl.volume_mbo, False)),
                 (f"poisson_mbo [{graph_name} graph]", "GraphLearning", "given", run_priors(gl.ssl.poisson_mbo, True)),
                 (f"volume_mbo [{graph_name} graph]", "GraphLearning", "given", run_priors(gl.ssl.volume_mbo, True))]
    return rows


SLOW = ("poisson_mbo", "volume_mbo", "CutSSL")


def _is_core(name, source, priors, fn, graph):
    """The rows issue 15's acceptance compares (``--core``): the recommended classifier in both
    tracks, GraphLearning's methods on its own graph, and its methods without priors on ours (the
    shared-graph comparison).  Left out: our component rows (Poisson, kernel ridge, Laplace),
    the previews, CutSSL, and GraphLearning's poisson with priors on our graph (85 s a fit); a later
    run with ``--resume`` and without ``--core`` adds them to the same table."""
    if source == "GraphLearning":
        return graph == "gl" or priors == "none"
    return name.startswith("recommended")


def evaluate(y, rate, draws, methods, slow_draws, seed, on_row=None, done=frozenset()):
    from graphrkhs.datasets import sample_labels
    rng = np.random.default_rng([seed, rate])
    label_sets = [sample_labels(y, rate, random_state=rng)[1] for _ in range(draws)]
    rows = []
    for name, source, priors, fn, graph in methods:
        if (rate, name, priors, graph) in done:     # --resume: stored by an earlier run of the same set-up
            continue
        sets = label_sets[:slow_draws] if name.startswith(SLOW) else label_sets
        accs, times = [], []
        for S in sets:
            hidden = np.ones(y.size, dtype=bool)
            hidden[S] = False
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                pred = np.asarray(fn(S, y[S]))
            times.append(time.perf_counter() - t0)
            accs.append(float(np.mean(pred[hidden] == y[hidden])))
        row = {"method": name, "source": source, "priors": priors, "graph": graph, "labels_per_class": rate,
               "draws": len(accs), "accuracy_mean": float(np.mean(accs)), "accuracy_std": float(np.std(accs)),
               "accuracies": accs, "time_median": float(np.median(times))}
        rows.append(row)
        if on_row is not None:
            on_row(row)
        print(f"  {rate:>3}/class  [{priors:>5}] {name:<62} {100 * row['accuracy_mean']:6.2f} +- "
              f"{100 * row['accuracy_std']:5.2f}  ({len(accs)} draws, {row['time_median']:6.2f} s)", flush=True)
    return rows


def run_dataset(name, args, save=None):
    X, y = load(name)
    y = np.asarray(y)
    classes, y = np.unique(y, return_inverse=True)
    priors = np.bincount(y) / y.size
    print(f"[{name}] n = {y.size}, {classes.size} classes", flush=True)
    W_ours, t_ours = our_graph(name, X, args.seed)
    W_ours = W_ours.astype(np.float64)
    args.graph_ours = repr(our_graph_spec(X))
    print(f"  our graph: {args.graph_ours}", flush=True)
    graphs = {"ours": W_ours}
    if "gl" in args.gl_graphs:
        W_gl, _ = gl_graph(name, X)
        graphs["gl"] = sp.csr_array(W_gl, dtype=np.float64)
    print(f"  graphs ready (ours: {W_ours.nnz // 2} edges"
          + (f", built in {t_ours:.1f} s" if t_ours else ", cached") + ")", flush=True)
    X_fit = X if augments(X) else None
    if X_fit is not None:
        print("  the recommended rows are fitted from X (graph='auto' adds the images' one-pixel translates to "
              "the graph it solves on)", flush=True)
    ours, skipped = _ours(W_ours, y, priors, X_fit, args.seed)
    for note in skipped:
        print("  NOTE:", note, flush=True)
    methods = [(n_, s, p, f, "ours") for n_, s, p, f in ours if not (args.skip_laplace and "Laplace" in n_)]
    if args.previews:
        W_st, _ = self_tuning_graph(name, X)
        methods += [(n_, s, p, f, "st") for n_, s, p, f in _previews(sp.csr_array(W_st, dtype=np.float64), priors)]
    for g in args.gl_graphs:
        if g in graphs:
            methods += [(n_, s, p, f, g) for n_, s, p, f in _gl(graphs[g], g, priors, args.slow_draws > 0)]
    if getattr(args, "core", False):
        methods = [m for m in methods if _is_core(*m)]
    skip = [w for w in getattr(args, "skip", "").split(",") if w]
    methods = [m for m in methods if not any(w in m[0] for w in skip)]
    rows = []

    def on_row(row):
        # every finished row is saved at once: an interrupted run keeps what it measured, and
        # processes running other rates of the same dataset merge into one record (``save``)
        rows.append(row)
        if save is not None:
            save(_dataset_record(name, y, W_ours, graphs, args, skipped, rows))

    done = set()
    if getattr(args, "resume", False) and os.path.exists(os.path.join(RESULTS, "label_rates.json")):
        stored = json.load(open(os.path.join(RESULTS, "label_rates.json"))).get("datasets", {}).get(name)
        setup = _dataset_record(name, y, W_ours, graphs, args, skipped, [])
        if stored and all(stored.get(k) == setup.get(k) for k in _SETUP):
            redo = [part for part in getattr(args, "redo", "").split(",") if part]
            # --redo: rows measured again (a changed default) although stored; the new rows replace the stored
            done = {_row_key(r) for r in stored["rows"] if not any(part in r["method"] for part in redo)}
            print(f"  --resume: {len(done)} rows of the same set-up are stored and skipped", flush=True)
    for rate in args.rates:
        evaluate(y, rate, args.draws, methods, args.slow_draws, args.seed, on_row, frozenset(done))
    return _dataset_record(name, y, W_ours, graphs, args, skipped, rows)


_SETUP = ("draws", "slow_draws", "seed", "graph_ours", "edges_ours", "edges_gl", "recommended")


def _row_key(row):
    return row["labels_per_class"], row["method"], row["priors"], row["graph"]


def _merge_records(stored, record):
    """``record`` plus the rows of ``stored`` it lacks, when both come from the same set-up."""
    if not stored or any(stored.get(k) != record.get(k) for k in _SETUP):
        return record
    have = {_row_key(r) for r in record["rows"]}
    rows = [r for r in stored["rows"] if _row_key(r) not in have] + record["rows"]
    rows.sort(key=lambda r: r["labels_per_class"])     # stable: each rate keeps its method order
    return {**record, "rows": rows}


def _dataset_record(name, y, W_ours, graphs, args, skipped, rows):
    return {"dataset": name, "n": int(y.size), "edges_ours": int(W_ours.nnz // 2),
            "edges_gl": int(graphs["gl"].nnz // 2) if "gl" in graphs else None, "draws": args.draws,
            "slow_draws": min(args.slow_draws, args.draws), "seed": args.seed, "recommended": RECOMMENDED,
            "graph_ours": getattr(args, "graph_ours", None),
            "notes": skipped, "rows": rows, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}


# ---------------------------------------------------------------------------
# rendering
# ---------------------------------------------------------------------------

def _best_gl(rows, rate, tracks):
    cand = [r for r in rows if r["source"] == "GraphLearning" and r["labels_per_class"] == rate
            and r["priors"] in tracks]
    return max(cand, key=lambda r: r["accuracy_mean"]) if cand else None


def render(results):
    lines = ["# Accuracy against the label rate (issue 15)", "",
             f"Machine: {results.get('machine', '?')}. Accuracy on the unlabeled points, mean +- std over the "
             "label draws (same draws and graph for every method of a row block).", ""]
    for name, d in results.get("datasets", {}).items():
        rates = sorted({r["labels_per_class"] for r in d["rows"]})
        lines += [f"## {name} (n = {d['n']}; our graph {d['edges_ours']} edges, GraphLearning's "
                  f"{d['edges_gl']} edges), {d['draws']} draws ({d['slow_draws']} for the MBO methods), "
                  f"{d['date']}", "", f"Recommended default: `{d['recommended']}`."
                  + (f" Our graph (its default graph for these data): `{d['graph_ours']}`." if d.get("graph_ours")
                     else ""), ""]
        for note in d.get("notes", []):
            lines += [f"Note: {note}", ""]
        keys = []
        for r in d["rows"]:
            k = (r["method"], r["source"], r["priors"])
            if k not in keys:
                keys.append(k)
        lines += ["| method | from | class priors | " + " | ".join(f"{r}/class" for r in rates) + " |",
                  "|---|---|---|" + "---|" * len(rates)]
        for k in keys:
            cells = []
            for rate in rates:
                r = next((r for r in d["rows"] if (r["method"], r["source"], r["priors"]) == k
                          and r["labels_per_class"] == rate), None)
                cells.append("-" if r is None else f"{100 * r['accuracy_mean']:.2f} +- {100 * r['accuracy_std']:.2f}"
                             + ("" if r["draws"] == d["draws"] else f" ({r['draws']})"))
            lines.append(f"| {k[0]} | {k[1]} | {k[2]} | " + " | ".join(cells) + " |")
        lines += ["", "Margins (points, means): each of our rows minus the best GraphLearning method of its "
                  "track.  Without priors: against laplace / poisson / randomwalk (no priors), and against these "
                  "plus the MBO methods given the label proportions of the draw (they need priors; on balanced "
                  "data with stratified draws these are the true priors).  With priors: against poisson / "
                  "poisson_mbo / volume_mbo given the same priors.", "",
                  "| ours | against | " + " | ".join(f"{r}/class" for r in rates) + " |",
                  "|---|---|" + "---|" * len(rates)]
        for k in keys:
            if not k[1].startswith("graphrkhs"):
                continue
            for label, gl_tracks in ((("GL, no priors", ("none",)), ("GL, no priors + MBO (label proportions)",
                                      ("none", "labels"))) if k[2] == "none" else (("GL, same priors", ("given",)),)):
                cells = []
                for rate in rates:
                    ours = next((r for r in d["rows"] if (r["method"], r["source"], r["priors"]) == k
                                 and r["labels_per_class"] == rate), None)
                    best = _best_gl(d["rows"], rate, gl_tracks)
                    cells.append("-" if ours is None or best is None else
                                 f"{100 * (ours['accuracy_mean'] - best['accuracy_mean']):+.2f} (vs {best['method']})")
                lines.append(f"| {k[0]} [{k[2]}] | {label} | " + " | ".join(cells) + " |")
        lines += ["", f"![accuracy against labels per class](label_rates_{name}.png)", ""]
    return "\n".join(lines)


def plot(results):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    for name, d in results.get("datasets", {}).items():
        fig, ax = plt.subplots(figsize=(8, 5.5))
        keys = []
        for r in d["rows"]:
            k = (r["method"], r["source"], r["priors"])
            if k not in keys:
                keys.append(k)
        for k in keys:
            rr = sorted((r for r in d["rows"] if (r["method"], r["source"], r["priors"]) == k),
                        key=lambda r: r["labels_per_class"])
            x = [r["labels_per_class"] for r in rr]
            m = [100 * r["accuracy_mean"] for r in rr]
            s = [100 * r["accuracy_std"] for r in rr]
            style = "-" if k[1] == "graphrkhs" else "--"
            lw = 2.5 if k[0].startswith("recommended") else 1.0
            label = f"{k[0].split(' (')[0]} ({k[1]}{', priors' if k[2] == 'given' else ''})"
            ax.errorbar(x, m, yerr=s, ls=style, lw=lw, marker="o", ms=3, capsize=2, label=label)
        ax.set_xscale("log")
        ax.set_xlabel("labels per class")
        ax.set_ylabel("accuracy on unlabeled points (%)")
        ax.set_title(f"{name}: accuracy against the label rate ({d['draws']} draws)")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=6, loc="lower right")
        fig.tight_layout()
        fig.savefig(os.path.join(RESULTS, f"label_rates_{name}.png"), dpi=110)
        plt.close(fig)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--datasets", default="fashion,digits")
    p.add_argument("--draws", type=int, default=20)
    p.add_argument("--slow-draws", type=int, default=None,
                   help="draws for poisson_mbo / volume_mbo (the first ones; default: all, 0: skip them)")
    p.add_argument("--rates", default="1,5,10,50")
    p.add_argument("--gl-graphs", default="gl,ours", help="graphs GraphLearning's methods run on")
    p.add_argument("--seed", type=int, default=0,
                   help="seed of the label draws and of our graph's (approximate) kNN search (default: 0)")
    p.add_argument("--quick", action="store_true", help="digits only, 3 draws")
    p.add_argument("--no-previews", dest="previews", action="store_false",
                   help="skip the exploration's candidate defaults (self-tuning graph, ensembles)")
    p.add_argument("--resume", action="store_true",
                   help="skip the rows stored by an earlier run with the same draws, seed and graphs")
    p.add_argument("--core", action="store_true",
                   help="only the rows the acceptance compares (the recommended classifier, GraphLearning's "
                        "methods); add the others later with --resume")
    p.add_argument("--skip", default="",
                   help="comma-separated parts of method names whose rows are skipped (e.g. CutSSL)")
    p.add_argument("--redo", default="",
                   help="with --resume: comma-separated parts of method names whose stored rows are measured again "
                        "(e.g. 'recommended' after a change of its defaults)")
    p.add_argument("--skip-laplace", action="store_true",
                   help="skip our Laplace learning (GraphLearning's laplace runs on its graph anyway)")
    args = p.parse_args(argv)
    if args.quick:
        args.datasets, args.draws = "digits", 3
    args.rates = [int(r) for r in args.rates.split(",")]
    args.gl_graphs = args.gl_graphs.split(",")
    if args.slow_draws is None:
        args.slow_draws = args.draws
    os.makedirs(RESULTS, exist_ok=True)
    jpath = os.path.join(RESULTS, "label_rates.json")
    results = json.load(open(jpath)) if os.path.exists(jpath) else {}
    results["machine"] = f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores"
    results.setdefault("datasets", {})
    def save(record):
        # Re-read under a lock: other processes may have written other datasets, or other rates of
        # this one, meanwhile.  Merge, don't clobber: rows of the stored record that this run has not
        # measured are kept when the stored record used the same set-up (draws, seed, graph).
        with open(jpath + ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if os.path.exists(jpath):
                results["datasets"].update(json.load(open(jpath)).get("datasets", {}))
            results["datasets"][record["dataset"]] = _merge_records(
                results["datasets"].get(record["dataset"]), record)
            with open(jpath, "w") as f:
                json.dump(results, f, indent=1)
            with open(os.path.join(RESULTS, "label_rates.md"), "w") as f:
                f.write(render(results))
            plot(results)

    for name in args.datasets.split(","):
        save(run_dataset(name, args, save))
    print(render(results))


if __name__ == "__main__":
    main()
