"""Benchmark: transductive graph learners against scikit-learn and GraphLearning.

Sections (choose with ``--sections``; results merge into
``benchmarks/results/transductive.json`` and are rendered to ``transductive.md``):

digits     scikit-learn's digits, 10 labels per class, 10 random label draws.  Every method gets the
           same graph: our default kNN graph (k = 10, self-tuning weights of relative width 1/2);
           LabelSpreading/LabelPropagation get it through a callable kernel; ``LabelSpreading(knn)``
           (its own binary kNN graph) is listed as the scikit-learn anchor of the issue.
fashion    Fashion-MNIST (70000 x 784 in [0, 1]), ``knn_graph(X, 10)`` built once and cached under
           /tmp (not in the repository), 1, 5, 10, 50 labels per class, 10 draws, the same graph and
           labels for every method: our harmonic (Laplace) and Poisson learning and graph kernel
           ridge (LOO-chosen at <= 5 labels/class; the sparse RegularizedLaplacian(4) system at every
           rate) against GraphLearning's ``laplace`` and ``poisson`` and scikit-learn's
           LabelSpreading (same graph).
poisson    Poisson learning only, ours against GraphLearning's, alternating per draw (timing).
large      The 10^6-node 3-D kNN graph (uniform points in the unit cube, k = 10), 20 labeled nodes (2
           classes): harmonic and Tikhonov solves, AMG-preconditioned CG (hierarchy built inside each
           solve) against plain CG to the same relative residual, time and peak traced memory
           (tracemalloc) per stored edge.
memory     Peak memory of the AMG solves at 10^5, 3 10^5 and 10^6 nodes (bytes per edge).
ridge      Graph kernel ridge with 5000 labeled nodes on the 10^6-node graph, matrix-free CG path.

Accuracy is measured on the unlabeled nodes; times are medians over the draws (each draw is one
run; >= 3 runs per cell), ratios are against the anchors measured in the same run.

Usage::

    python benchmarks/transductive.py                         # all sections
    python benchmarks/transductive.py --sections digits,fashion --draws 10
"""

import argparse
import functools
import json
import os
import platform
import time
import tracemalloc
import warnings

import numpy as np
import scipy.sparse as sp

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "results")
CACHE = os.environ.get("GRAPHRKHS_BENCH_CACHE", "/tmp/graphrkhs_bench")


def _timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def _summary(name, source, accs, times, **extra):
    row = {"method": name, "source": source, "accuracy_mean": float(np.mean(accs)),
           "accuracy_std": float(np.std(accs)), "time_median": float(np.median(times)),
           "n_runs": len(times)}
    row.update(extra)
    return row


def _graph_kernel_callable(W):
    """A scikit-learn label-propagation kernel that returns the precomputed graph."""
    Wd = sp.csr_matrix(W)

    def kernel(A, B):
        if A.shape[0] != Wd.shape[0] or B.shape[0] != Wd.shape[0]:
            raise ValueError("this kernel only knows the fitted nodes")
        return Wd
    return kernel


def _methods(W, n_classes, include_ridge=True, include_tv=True, include_propagation=False,
             preconditioner="auto", rtol_poisson=1e-6, include_sparse_ridge=False):
    """(name, source, fn(labeled_idx, labeled_codes) -> predicted codes)."""
    import graphlearning as gl
    from sklearn.semi_supervised import LabelPropagation, LabelSpreading

    from graphrkhs import (GraphKernelRidgeClassifier, GraphTVClassifier, harmonic_solution,
                           poisson_learning)
    from graphrkhs._core.labels import one_hot

    n = W.shape[0]
    Wm = sp.csr_matrix(W)
    dummy_X = np.zeros((n, 1))

    def harmonic(S, c):
        F = harmonic_solution(W, S, one_hot(c, n_classes), preconditioner=preconditioner, tol=1e-6)
        return F.argmax(axis=1)

    def poisson(S, c):
        F = poisson_learning(W, S, one_hot(c, n_classes), preconditioner=preconditioner, tol=rtol_poisson)
        return F.argmax(axis=1)

    def y_partial(S, c):
        y = np.full(n, -1)
        y[S] = c
        return y

    def ridge(S, c):
        est = GraphKernelRidgeClassifier(graph="precomputed")
        return est.fit(W, y_partial(S, c)).transduction_

    def tv(S, c):
        return GraphTVClassifier(graph="precomputed").fit(W, y_partial(S, c)).transduction_

    def gl_laplace(S, c):
        return gl.ssl.laplace(Wm).fit_predict(S, c)

    def gl_poisson(S, c):
        return gl.ssl.poisson(Wm).fit_predict(S, c)

    def label_spreading(S, c):
        model = LabelSpreading(kernel=_graph_kernel_callable(W), max_iter=1000)
        return model.fit(dummy_X, y_partial(S, c)).transduction_

    def label_propagation(S, c):
        model = LabelPropagation(kernel=_graph_kernel_callable(W), max_iter=1000)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return model.fit(dummy_X, y_partial(S, c)).transduction_

    rows = [("Laplace learning (harmonic)", "graphrkhs", harmonic),
            ("Poisson learning", "graphrkhs", poisson)]
    if include_ridge:
        rows.append(("Graph kernel ridge (LOO alpha)", "graphrkhs", ridge))
    if include_sparse_ridge:
        rows.append(("Graph kernel ridge (RegLap(4), sparse)", "graphrkhs", _sparse_ridge(W, n_classes)))
    if include_tv:
        rows.append(("Graph TV", "graphrkhs", tv))
    rows += [("laplace", "GraphLearning", gl_laplace),
             ("poisson", "GraphLearning", gl_poisson),
             ("LabelSpreading (same graph)", "scikit-learn", label_spreading)]
    if include_propagation:
        rows.append(("LabelPropagation (same graph)", "scikit-learn", label_propagation))
    return rows


def _sparse_ridge(W, n_classes):
    """Graph kernel ridge with RegularizedLaplacian(4) on the normalized Laplacian, alpha = 0.01: the
    kernel chosen by exact leave-one-out on the labeled nodes of the first 50-per-class Fashion-MNIST
    draw (grid a in {0.25, 1, 4}, alpha in {0.01 .. 10}; LOO accuracy 0.772, 0.784, 0.814), never by
    unlabeled labels -- solved as the sparse full-space system (J + mu (I + a L)) F = J Y by
    Jacobi-scaled CG."""
    from graphrkhs import filters, graph_kernel_ridge
    from graphrkhs._core.labels import one_hot

    phi = filters.RegularizedLaplacian(4.0)

    def ridge(S, c):
        F = graph_kernel_ridge(W, S, one_hot(c, n_classes), phi, alpha=0.01, method="sparse",
                               preconditioner="jacobi", tol=1e-4)
        return F.argmax(axis=1)
    return ridge


def _evaluate(W, y, per_class, draws, methods, seed=0):
    from graphrkhs.datasets import sample_labels

    rng = np.random.default_rng(seed)
    label_sets = [sample_labels(y, per_class, random_state=rng)[1] for _ in range(draws)]
    rows = []
    for name, source, fn in methods:
        accs, times = [], []
        for S in label_sets:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                pred, t = _timed(lambda: fn(S, y[S]))
            hidden = np.ones(y.size, dtype=bool)
            hidden[S] = False
            accs.append(float(np.mean(np.asarray(pred)[hidden] == y[hidden])))
            times.append(t)
        rows.append(_summary(name, source, accs, times, labels_per_class=per_class))
        print(f"  {per_class:>3}/class  {name:<34} {100 * rows[-1]['accuracy_mean']:6.2f}% "
              f"+- {100 * rows[-1]['accuracy_std']:.2f}  {rows[-1]['time_median']:8.3f} s", flush=True)
    return rows


def section_digits(args):
    from sklearn.semi_supervised import LabelSpreading

    from graphrkhs import LaplacianRegularizationClassifier
    from graphrkhs.datasets import load_digits, sample_labels

    X, y = load_digits()
    W = LaplacianRegularizationClassifier()._build_graph(X)      # the estimators' default graph
    rows = _evaluate(W, y, 10, args.draws, _methods(W, 10, include_propagation=True))
    # scikit-learn's LabelSpreading with its own kNN graph (the anchor)
    rng = np.random.default_rng(0)
    accs, times = [], []
    for _ in range(args.draws):
        y_partial, keep = sample_labels(y, 10, random_state=rng)
        model, t = _timed(lambda: LabelSpreading(kernel="knn", n_neighbors=10, max_iter=1000).fit(X, y_partial))
        hidden = np.ones(y.size, dtype=bool)
        hidden[keep] = False
        accs.append(float(np.mean(model.transduction_[hidden] == y[hidden])))
        times.append(t)
    rows.append(_summary("LabelSpreading(knn, own graph)", "scikit-learn", accs, times, labels_per_class=10))
    return {"dataset": "digits", "n": int(X.shape[0]), "draws": args.draws, "rows": rows}


def fashion_graph():
    path = os.path.join(CACHE, "fmnist_knn10.npz")
    ypath = os.path.join(CACHE, "fmnist_y.npy")
    if os.path.exists(path) and os.path.exists(ypath):
        return sp.csr_array(sp.load_npz(path)), np.load(ypath), None
    from graphrkhs import knn_graph
    from graphrkhs.datasets import load_fashion_mnist

    X, y = load_fashion_mnist()
    W, t = _timed(lambda: knn_graph(X, 10))
    os.makedirs(CACHE, exist_ok=True)
    sp.save_npz(path, sp.csr_matrix(W))
    np.save(ypath, y)
    return W, y, t


def section_fashion(args):
    W, y, t_graph = fashion_graph()
    W = W.astype(np.float64)
    out = {"dataset": "fashion-mnist", "n": int(W.shape[0]), "edges": int(W.nnz // 2), "draws": args.draws,
           "graph_seconds": t_graph, "rows": []}
    for per_class in args.rates:
        methods = _methods(W, 10, include_ridge=per_class <= 5, include_tv=False,
                           preconditioner="auto", rtol_poisson=1e-3, include_sparse_ridge=True)
        out["rows"] += _evaluate(W, y, per_class, args.draws, methods)
    return out


def section_poisson(args):
    """Poisson learning only, ours against GraphLearning's, alternating per draw (timing re-check)."""
    import graphlearning as gl

    from graphrkhs import poisson_learning
    from graphrkhs._core.labels import one_hot
    from graphrkhs.datasets import sample_labels

    W, y, _ = fashion_graph()
    W = W.astype(np.float64)
    Wm = sp.csr_matrix(W)
    rows = []
    for per_class in args.rates:
        rng = np.random.default_rng(1)
        acc = {"ours": [], "gl": []}
        tim = {"ours": [], "gl": []}
        for _ in range(args.draws):
            S = sample_labels(y, per_class, random_state=rng)[1]
            hidden = np.ones(y.size, dtype=bool)
            hidden[S] = False
            # alternate the order so that load drifts hit both alike
            for who in (("ours", "gl") if len(tim["ours"]) % 2 == 0 else ("gl", "ours")):
                if who == "ours":
                    F, t = _timed(lambda: poisson_learning(W, S, one_hot(y[S], 10), preconditioner="auto",
                                                           tol=1e-3))
                    pred = F.argmax(axis=1)
                else:
                    pred, t = _timed(lambda: gl.ssl.poisson(Wm).fit_predict(S, y[S]))
                acc[who].append(float(np.mean(pred[hidden] == y[hidden])))
                tim[who].append(t)
        row = {"labels_per_class": per_class, "draws": args.draws,
               "ours_accuracy": float(np.mean(acc["ours"])), "gl_accuracy": float(np.mean(acc["gl"])),
               "ours_time_median": float(np.median(tim["ours"])), "gl_time_median": float(np.median(tim["gl"])),
               "time_ratio_ours_over_gl": float(np.median(np.array(tim["ours"]) / np.array(tim["gl"])))}
        rows.append(row)
        print(f"  {per_class}/class: ours {100 * row['ours_accuracy']:.2f}% {row['ours_time_median']:.2f} s, "
              f"GL {100 * row['gl_accuracy']:.2f}% {row['gl_time_median']:.2f} s, "
              f"median paired ratio {row['time_ratio_ours_over_gl']:.2f}", flush=True)
    return {"rows": rows}


def large_graph():
    path = os.path.join(CACHE, "uniform3d_1e6_knn10.npz")
    xpath = os.path.join(CACHE, "uniform3d_1e6_X.npy")
    if os.path.exists(path) and os.path.exists(xpath):
        return sp.csr_array(sp.load_npz(path)), np.load(xpath), None
    from graphrkhs import knn_graph

    X = np.random.default_rng(0).random((10**6, 3))
    W, t = _timed(lambda: knn_graph(X, 10))
    os.makedirs(CACHE, exist_ok=True)
    sp.save_npz(path, sp.csr_matrix(W))
    np.save(xpath, X)
    return W, X, t


def _traced(fn):
    tracemalloc.start()
    try:
        out, t = _timed(fn)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return out, t, peak


def section_large(args):
    from graphrkhs import harmonic_solution, tikhonov_solution

    W, X, t_graph = large_graph()
    W = W.astype(np.float64)
    n = W.shape[0]
    rng = np.random.default_rng(0)
    # 10 labels per class, the usual semi-supervised regime: far apart labels make the system
    # ill-conditioned, which is where a multigrid preconditioner is needed.
    S = np.sort(rng.choice(n, args.large_labeled, replace=False))
    Y = np.eye(2)[(X[S, 0] + X[S, 1] > 1.0).astype(int)]
    rtol = args.large_rtol
    rows = []
    for solver, name in ((harmonic_solution, "harmonic"),
                         (lambda *a, **k: tikhonov_solution(*a, alpha=1e-2, **k), "Tikhonov (alpha=1e-2)")):
        res = {}
        for pre in ("amg", None):
            times, peaks = [], []
            for _ in range(args.large_repeats if pre == "amg" else 1):
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    F, t, peak = _traced(lambda: solver(W, S, Y, tol=rtol, preconditioner=pre,
                                                        max_iter=args.large_maxiter))
                times.append(t)
                peaks.append(peak)
            converged = not any("did not reach" in str(w.message) for w in caught)
            res[pre or "none"] = (F, times, peaks, converged)
            print(f"  {name:<24} {str(pre):<5} {np.median(times):8.2f} s  peak {max(peaks) / 2**20:8.1f} MiB  "
                  f"converged={converged}", flush=True)
        Fa, ta, pa, ca = res["amg"]
        Fn, tn, pn, cn = res["none"]
        rows.append({"solver": name, "n": n, "edges": int(W.nnz // 2), "labeled": int(S.size), "rtol": rtol,
                     "amg_seconds_median": float(np.median(ta)), "amg_runs": len(ta),
                     "amg_seconds_all": [float(v) for v in ta],
                     "plain_cg_seconds": float(np.median(tn)), "plain_cg_runs": len(tn),
                     "speedup": float(np.median(tn) / np.median(ta)),
                     "amg_peak_bytes": int(max(pa)), "plain_peak_bytes": int(max(pn)),
                     "amg_bytes_per_edge": float(max(pa) / (W.nnz // 2)),
                     "amg_converged": ca, "plain_converged": cn,
                     "max_abs_difference": float(np.abs(Fa - Fn).max())})
    return {"dataset": "uniform 3-D, kNN k = 10", "graph_seconds": t_graph, "rows": rows}


def section_memory(args):
    """Peak traced memory of the AMG harmonic and Tikhonov solves at 10^5, 3 10^5 and 10^6 nodes:
    bytes per edge should stay flat (memory linear in the edge count)."""
    from graphrkhs import harmonic_solution, knn_graph, tikhonov_solution

    rows = []
    for n in (10**5, 3 * 10**5, 10**6):
        if n == 10**6:
            W = large_graph()[0]
        else:
            W = knn_graph(np.random.default_rng(0).random((n, 3)), 10)
        W = W.astype(np.float64)
        S = np.sort(np.random.default_rng(0).choice(n, 20, replace=False))
        Y = np.eye(2)[np.arange(20) % 2]
        for solver in (harmonic_solution, functools.partial(tikhonov_solution, alpha=1e-2)):
            _, t, peak = _traced(lambda: solver(W, S, Y, tol=1e-6, preconditioner="amg"))
            edges = int(W.nnz // 2)
            name = getattr(solver, "__name__", "tikhonov_solution")
            rows.append({"solver": name, "n": n, "edges": edges, "seconds": t,
                         "peak_bytes": int(peak), "bytes_per_edge": peak / edges})
            print(f"  {name:<18} n={n:>8} {t:6.2f} s  peak {peak / 2**20:7.1f} MiB  "
                  f"{peak / edges:5.0f} B/edge", flush=True)
    return {"rows": rows}


def section_ridge(args):
    from graphrkhs import filters, graph_kernel_ridge, laplacian
    from graphrkhs.kernels import GraphKernel

    W, X, _ = large_graph()
    W = W.astype(np.float64)
    n = W.shape[0]
    rng = np.random.default_rng(1)
    S = np.sort(rng.choice(n, 5000, replace=False))
    y = np.sin(4 * X[S, 0]) * np.cos(3 * X[S, 1])
    phi = filters.Heat(5.0)
    (K, t_setup) = _timed(lambda: GraphKernel(laplacian(W, "normalized"), phi))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        (F, t_solve) = _timed(lambda: graph_kernel_ridge(K, S, y, alpha=0.1, method="cg", tol=1e-6))
    converged = not any("did not reach" in str(w.message) for w in caught)
    rmse = float(np.sqrt(np.mean((F - np.sin(4 * X[:, 0]) * np.cos(3 * X[:, 1])) ** 2)))
    row = {"n": n, "labeled": int(S.size), "kernel": repr(phi), "order": K.order, "alpha": 0.1,
           "setup_seconds": t_setup, "solve_seconds": t_solve, "total_seconds": t_setup + t_solve,
           "converged": converged, "rmse_vs_truth_all_nodes": rmse}
    print(f"  ridge 5000 labeled: setup {t_setup:.1f} s, solve {t_solve:.1f} s, order {K.order}, "
          f"converged={converged}, rmse {rmse:.3f}", flush=True)
    return {"rows": [row]}


def render(results):
    lines = ["# Transductive learners: benchmark", "",
             f"Machine: {results.get('machine', '?')}. Shared with other jobs while running: compare "
             "ratios measured in the same run, not absolute seconds.", ""]
    if "digits" in results:
        d = results["digits"]
        lines += [f"## Digits (n = {d['n']}), 10 labels per class, {d['draws']} draws, same graph", "",
                  "| method | from | accuracy (unlabeled) | median time | time / GraphLearning laplace |",
                  "|---|---|---|---|---|"]
        ref = next(r["time_median"] for r in d["rows"] if r["method"] == "laplace")
        for r in d["rows"]:
            lines.append(f"| {r['method']} | {r['source']} | {100 * r['accuracy_mean']:.2f}% +- "
                         f"{100 * r['accuracy_std']:.2f} | {r['time_median']:.3f} s | "
                         f"{r['time_median'] / ref:.2f} |")
        lines.append("")
    if "fashion" in results:
        d = results["fashion"]
        lines += [f"## Fashion-MNIST (n = {d['n']}, {d['edges']} edges, knn_graph(X, 10)), {d['draws']} draws",
                  "", "| labels/class | method | from | accuracy (unlabeled) | median time | "
                  "acc - GL poisson (points) | time / GL poisson |", "|---|---|---|---|---|---|---|"]
        for rate in sorted({r["labels_per_class"] for r in d["rows"]}):
            rr = [r for r in d["rows"] if r["labels_per_class"] == rate]
            ref = next(r for r in rr if r["method"] == "poisson")
            for r in rr:
                lines.append(f"| {rate} | {r['method']} | {r['source']} | {100 * r['accuracy_mean']:.2f}% +- "
                             f"{100 * r['accuracy_std']:.2f} | {r['time_median']:.2f} s | "
                             f"{100 * (r['accuracy_mean'] - ref['accuracy_mean']):+.2f} | "
                             f"{r['time_median'] / ref['time_median']:.2f} |")
        lines.append("")
    if "poisson" in results:
        lines += ["## Poisson learning re-check on Fashion-MNIST: ours (preconditioner 'auto' = AMG, rtol 1e-3) vs "
                  "GraphLearning, alternating runs", "",
                  "| labels/class | draws | ours acc | GL acc | ours time | GL time | median paired time ratio |",
                  "|---|---|---|---|---|---|---|"]
        for r in results["poisson"]["rows"]:
            lines.append(f"| {r['labels_per_class']} | {r['draws']} | {100 * r['ours_accuracy']:.2f}% | "
                         f"{100 * r['gl_accuracy']:.2f}% | {r['ours_time_median']:.2f} s | "
                         f"{r['gl_time_median']:.2f} s | {r['time_ratio_ours_over_gl']:.2f} |")
        lines.append("")
    if "large" in results:
        d = results["large"]
        lines += ["## 10^6-node 3-D kNN graph: AMG-CG vs plain CG (same rtol)", "",
                  "| solver | n | edges | rtol | AMG-CG (median) | plain CG | speedup | AMG peak memory | "
                  "bytes/edge | converged (AMG / plain) | max abs diff |", "|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in d["rows"]:
            lines.append(f"| {r['solver']} | {r['n']} | {r['edges']} | {r['rtol']:g} | "
                         f"{r['amg_seconds_median']:.1f} s ({r['amg_runs']} runs) | {r['plain_cg_seconds']:.1f} s | "
                         f"{r['speedup']:.1f}x | {r['amg_peak_bytes'] / 2**20:.0f} MiB | "
                         f"{r['amg_bytes_per_edge']:.0f} | {r['amg_converged']} / {r['plain_converged']} | "
                         f"{r['max_abs_difference']:.1e} |")
        lines.append("")
    if "memory" in results:
        lines += ["## Memory of the AMG solves against graph size (peak traced memory, one run each)", "",
                  "| solver | n | edges | seconds | peak memory | bytes/edge |", "|---|---|---|---|---|---|"]
        for r in results["memory"]["rows"]:
            lines.append(f"| {r['solver']} | {r['n']} | {r['edges']} | {r['seconds']:.2f} s | "
                         f"{r['peak_bytes'] / 2**20:.0f} MiB | {r['bytes_per_edge']:.0f} |")
        lines.append("")
    if "ridge" in results:
        r = results["ridge"]["rows"][0]
        lines += ["## Graph kernel ridge, 5000 labeled nodes on the 10^6-node graph (matrix-free CG)", "",
                  "| kernel | Chebyshev order | setup | solve | total | converged | RMSE vs truth |",
                  "|---|---|---|---|---|---|---|",
                  f"| {r['kernel']} | {r['order']} | {r['setup_seconds']:.1f} s | {r['solve_seconds']:.1f} s | "
                  f"{r['total_seconds']:.1f} s | {r['converged']} | {r['rmse_vs_truth_all_nodes']:.3f} |", ""]
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--sections", default="digits,fashion,large,memory,ridge")
    p.add_argument("--draws", type=int, default=10)
    p.add_argument("--rates", default="1,5,10,50")
    p.add_argument("--large-rtol", type=float, default=1e-6)
    p.add_argument("--large-repeats", type=int, default=3)
    p.add_argument("--large-maxiter", type=int, default=20000)
    p.add_argument("--large-labeled", type=int, default=20)
    p.add_argument("--quick", action="store_true",
                   help="digits section only, 3 label draws (for python -m benchmarks --suite quick)")
    args = p.parse_args(argv)
    if args.quick:
        args.sections, args.draws = "digits", 3
    args.rates = [int(r) for r in args.rates.split(",")]
    os.makedirs(RESULTS, exist_ok=True)
    jpath = os.path.join(RESULTS, "transductive.json")
    results = json.load(open(jpath)) if os.path.exists(jpath) else {}
    results["machine"] = f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores"
    for name in args.sections.split(","):
        print(f"[{name}]", flush=True)
        results[name] = globals()[f"section_{name}"](args)
        with open(jpath, "w") as f:
            json.dump(results, f, indent=1)
        with open(os.path.join(RESULTS, "transductive.md"), "w") as f:
            f.write(render(results))
    print(render(results))


if __name__ == "__main__":
    main()
