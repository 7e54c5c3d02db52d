"""Benchmark: Fredholm and warped-kernel learners against plain-kernel RLS / SVM.

Sections (all in one run, anchors measured in the same run):

1. ``noisy``  -- the noise-assumption data of Que, Belkin & Wang (n = 2000, signal in d = 2 of
   D = 100 dimensions, noise variance 0.25, curved boundary), 10 labels per class, 10 draws (new data
   and labels each draw).  Issue target: Fredholm RLS >= 5 points above Gaussian RLS (mean).
2. ``digits`` -- scikit-learn's digits (1797 x 64), 10 labels per class, 5 draws.
3. ``approx`` -- approximation error of the sparse (kNN-truncated) outer kernel, Nystrom and random
   features against the exact Fredholm kernel at n = 5000 (Fashion-MNIST subset).
4. ``scale``  -- Fredholm classifier (sparse outer + Nystrom inner) on Fashion-MNIST subsets
   n = 5000, 20000 and all 70000, 10 labels per class: time (median of >= 3 runs, each in a fresh
   subprocess) and peak memory, against two anchors run in the same process: the kNN graph of the same
   points (graphrkhs.knn_graph, the unavoidable neighbour search) and plain Gaussian RLS.

Tuning rule (the same for every method, uses labeled points only): a grid of Gaussian widths
sigma = default_sigma(X) * {0.35, 0.5, 0.7, 1, 1.4} (median pairwise distance; unlabeled *points*
are used, never their labels) times a ridge grid alpha * l = {1e-8, 10^-7.5, ..., 1} * mean(diag K_SS);
the pair with the smallest closed-form leave-one-out squared error of RLS on the labeled points wins.
SVMs use the pair chosen for RLS of the same kernel (C = 1 / (2 alpha l)).  Fredholm kernels use one
width for both kernels (sigma_inner = sigma), as the paper's FredGauss does.  Warped kernels
(LapRLS) tune sigma and gamma_A in {1e-6, 1e-4, 1e-2} (gamma_I = 1) by the same LOO error.

5. ``warped_scale`` -- WarpedKernelClassifier (CG solver) on Fashion-MNIST subsets n = 5000, 20000 (its
   Gram matrix is dense n x n, so 70000 points would need 20 GB in float32: not run).

Run:  python benchmarks/datadependent.py [--sections noisy,digits,approx,scale,warped_scale] [--quick]
Writes benchmarks/results/datadependent.json and .md.
"""

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time

import numpy as np
from scipy.spatial.distance import cdist
from sklearn.svm import SVC

import graphrkhs as gr
from graphrkhs.datasets import load_digits, load_fashion_mnist, make_noisy_subspace, sample_labels

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "results")
SIGMA_FACTORS = (0.35, 0.5, 0.7, 1.0, 1.4)
RELATIVE_RIDGES = np.logspace(-8, 0, 17)
WARPED_GAMMA_A = (1e-6, 1e-4, 1e-2)


# ---------------------------------------------------------------------------
# kernels as (gram on labeled, gram of other points) factories
# ---------------------------------------------------------------------------

def gaussian_factory(X, keep, sigma):
    XS = X[keep]
    return np.exp(-cdist(XS, XS, "sqeuclidean") / (2 * sigma**2)), \
        (lambda A: np.exp(-cdist(A, XS, "sqeuclidean") / (2 * sigma**2)))


def fredholm_factory(normalized, inner="gaussian", **extra):
    def make(X, keep, sigma):
        K = gr.FredholmKernel(X, sigma=sigma, inner=inner, normalized=normalized, **extra)
        XS = X[keep]
        R = K.right_factor(XS)
        return K(XS, XS, right=R), (lambda A: K(A, XS, right=R))
    return make


def warped_factory(gamma_A):
    def make(X, keep, sigma):
        K = gr.WarpedKernel(X, sigma=sigma, gamma_A=gamma_A, gamma_I=1.0, n_neighbors=10)
        XS = X[keep]
        R = K.right_factor(XS)
        return K(XS, XS, right=R), (lambda A: K(A, XS, right=R))
    return make


def tune(factory, X, keep, Y, sigmas, fixed_ridge=None):
    """LOO-RLS choice over the sigma grid (and the relative ridge grid). Returns (loo, sigma, alpha, G, gram)."""
    best = None
    l = len(keep)
    for s in sigmas:
        G, gram = factory(X, keep, s)
        if fixed_ridge is None:
            alphas = RELATIVE_RIDGES * max(np.trace(G) / l, 1e-300) / l
        else:
            alphas = np.array([fixed_ridge])
        loo = gr.rls_loo_error(G, Y, alphas)
        j = int(np.argmin(loo))
        if best is None or loo[j] < best[0]:
            best = (loo[j], s, alphas[j], G, gram)
    return best


def run_methods(X, y, keep, methods, sigmas):
    hidden = np.setdiff1d(np.arange(len(y)), keep)
    classes = np.unique(y[keep])
    codes = np.searchsorted(classes, y[keep])
    Y = 2.0 * np.eye(classes.size)[codes] - 1.0
    out = {}
    for name, (factory, fixed, with_svm) in methods.items():
        t0 = time.perf_counter()
        if isinstance(factory, dict):  # warped: one factory per gamma_A
            cands = [(tune(f, X, keep, Y, sigmas, fixed_ridge=g), g) for g, f in factory.items()]
            (loo, s, alpha, G, gram), _ = min(cands, key=lambda c: c[0][0])
        else:
            loo, s, alpha, G, gram = tune(factory, X, keep, Y, sigmas, fixed_ridge=fixed)
        Gh = gram(X[hidden])
        c = gr.rls_coefficients(G, Y, alpha)
        acc = float(np.mean(classes[np.argmax(Gh @ c, axis=1)] == y[hidden]))
        t_rls = time.perf_counter() - t0
        out[name + " RLS"] = dict(acc=acc, sigma=float(s), alpha=float(alpha), time=t_rls)
        if with_svm:
            t1 = time.perf_counter()
            svc = SVC(kernel="precomputed", C=1.0 / (2 * alpha * len(keep))).fit(G, codes)
            acc_svm = float(np.mean(classes[svc.predict(Gh)] == y[hidden]))
            out[name + " SVM"] = dict(acc=acc_svm, sigma=float(s), alpha=float(alpha),
                                      time=t_rls + time.perf_counter() - t1)
    return out


def accuracy_section(name, loader, n_draws, methods):
    rows = {}
    for draw in range(n_draws):
        X, y = loader(draw)
        _, keep = sample_labels(y, 10, random_state=1000 + draw)
        sigmas = [gr.default_sigma(X) * f for f in SIGMA_FACTORS]
        res = run_methods(X, y, keep, methods, sigmas)
        for m, r in res.items():
            rows.setdefault(m, []).append(r)
        print(f"[{name}] draw {draw}: " + ", ".join(f"{m} {r['acc']:.3f}" for m, r in res.items()), flush=True)
    summary = {}
    base = np.array([r["acc"] for r in rows["Gaussian RLS"]])
    for m, rs in rows.items():
        acc = np.array([r["acc"] for r in rs])
        summary[m] = dict(mean_acc=float(acc.mean()), std_acc=float(acc.std()),
                          gain_vs_gaussian_rls_points=float(100 * (acc - base).mean()),
                          wins_vs_gaussian_rls=int(np.sum(acc > base)),
                          median_time_s=float(np.median([r["time"] for r in rs])),
                          accs=acc.tolist(), sigmas=[r["sigma"] for r in rs])
    return summary


def methods_table(with_warped=True):
    m = {
        "Gaussian": (gaussian_factory, None, True),
        "FredGauss": (fredholm_factory(False), None, True),
        "FredGauss(N)": (fredholm_factory(True), None, True),
        "FredLin2(N)": (fredholm_factory(True, inner="linear"), None, False),
    }
    if with_warped:
        m["Warped (LapRLS)"] = ({g: warped_factory(g) for g in WARPED_GAMMA_A}, "fixed", False)
    return m


# ---------------------------------------------------------------------------
# approximation error and scale
# ---------------------------------------------------------------------------

def approx_section(n=5000, quick=False):
    X, y = load_fashion_mnist()
    rng = np.random.default_rng(0)
    idx = rng.choice(X.shape[0], n, replace=False)
    X, y = X[idx].astype(np.float64), y[idx]
    _, keep = sample_labels(y, 10, random_state=1)
    evalpts = rng.choice(n, 500, replace=False)
    s = gr.default_sigma(X)
    # outer width: the median distance to the 10th neighbour (a local average, where truncating the outer
    # kernel to the nearest points is meant to be an approximation); inner width: the median distance.
    s_loc = float(np.median(np.sort(cdist(X[:500], X, "sqeuclidean"), axis=1)[:, 10]) ** 0.5)
    t0 = time.perf_counter()
    exact = gr.FredholmKernel(X, sigma=s_loc, sigma_inner=s, normalized=True, inner_approximation="exact")
    R = exact.right_factor(X[keep])
    G0 = exact(X[evalpts], X[keep], right=R)
    t_exact = time.perf_counter() - t0
    rows = {"exact (dense outer, exact inner)": dict(rel_error=0.0, time_s=t_exact)}
    configs = [("kNN outer k=10", dict(n_neighbors=10, inner_approximation="exact")),
               ("kNN outer k=50", dict(n_neighbors=50, inner_approximation="exact")),
               ("kNN outer k=200", dict(n_neighbors=200, inner_approximation="exact")),
               ("Nystrom m=500", dict(inner_approximation="nystrom", n_components=500)),
               ("Nystrom m=1000", dict(inner_approximation="nystrom", n_components=1000)),
               ("random features m=1000", dict(inner_approximation="random_features", n_components=1000)),
               ("random features m=4000", dict(inner_approximation="random_features", n_components=4000)),
               ("kNN k=10 + Nystrom m=1000", dict(n_neighbors=10, inner_approximation="nystrom", n_components=1000))]
    for name, kw in configs:
        errs, times = [], []
        for seed in range(3):  # landmarks / random features are random: mean error and median time of 3 seeds
            t0 = time.perf_counter()
            K = gr.FredholmKernel(X, sigma=s_loc, sigma_inner=s, normalized=True, random_state=seed, **kw)
            G = K(X[evalpts], X[keep])
            times.append(time.perf_counter() - t0)
            errs.append(float(np.linalg.norm(G - G0) / np.linalg.norm(G0)))
        rows[name] = dict(rel_error=float(np.mean(errs)), rel_error_max=float(np.max(errs)),
                          time_s=float(np.median(times)))
        print(f"[approx] {name}: rel. error {rows[name]['rel_error']:.4f}", flush=True)
    return dict(n=n, n_eval=500, n_labeled=int(keep.size), sigma=s_loc, sigma_inner=s, rows=rows)


def scale_child(n, seed):
    """One timed run in a fresh process; prints a JSON line."""
    X, y = load_fashion_mnist()
    if n < X.shape[0]:
        idx = np.random.default_rng(seed).choice(X.shape[0], n, replace=False)
        X, y = X[idx], y[idx]
    y_partial, keep = sample_labels(y, 10, random_state=seed)
    hidden = np.setdiff1d(np.arange(n), keep)
    out = dict(n=n, seed=seed)
    # anchor 1: the kNN graph of the same points (same neighbour count)
    t0 = time.perf_counter()
    gr.knn_graph(X, 10)
    out["knn_graph_s"] = time.perf_counter() - t0
    # anchor 2: plain Gaussian RLS on the labeled points (width and ridge by the LOO rule)
    t0 = time.perf_counter()
    s0 = gr.default_sigma(X)
    XS = X[keep].astype(np.float64)
    Y = 2.0 * np.eye(10)[y[keep]] - 1
    best = None
    for f in SIGMA_FACTORS:
        G = np.exp(-cdist(XS, XS, "sqeuclidean") / (2 * (s0 * f) ** 2))
        alphas = RELATIVE_RIDGES * np.trace(G) / len(keep) / len(keep)
        loo = gr.rls_loo_error(G, Y, alphas)
        if best is None or loo.min() < best[0]:
            best = (loo.min(), s0 * f, alphas[np.argmin(loo)], G)
    c = gr.rls_coefficients(best[3], Y, best[2])
    pred = np.argmax(np.exp(-cdist(X[hidden].astype(np.float64), XS, "sqeuclidean") / (2 * best[1] ** 2)) @ c, 1)
    out["gaussian_rls_s"] = time.perf_counter() - t0
    out["gaussian_rls_acc"] = float(np.mean(pred == y[hidden]))
    # Fredholm classifier: sparse outer (k = 10), Nystrom inner (m = 1000), default widths, LOO ridge
    t0 = time.perf_counter()
    clf = gr.FredholmClassifier(normalized=True, n_neighbors=10, inner_approximation="nystrom", n_components=1000,
                                random_state=seed).fit(X, y_partial)
    out["fredholm_fit_s"] = time.perf_counter() - t0
    t1 = time.perf_counter()
    pred = clf.predict(X)
    out["fredholm_predict_s"] = time.perf_counter() - t1
    out["fredholm_total_s"] = time.perf_counter() - t0
    out["fredholm_acc"] = float(np.mean(pred[hidden] == y[hidden]))
    out["peak_rss_gb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    print("RESULT " + json.dumps(out), flush=True)


def warped_child(n, seed):
    """One timed warped-kernel run (CG solver) in a fresh process; prints a JSON line."""
    X, y = load_fashion_mnist()
    idx = np.random.default_rng(seed).choice(X.shape[0], n, replace=False)
    X, y = X[idx], y[idx]
    y_partial, keep = sample_labels(y, 10, random_state=seed)
    hidden = np.setdiff1d(np.arange(n), keep)
    out = dict(n=n, seed=seed)
    t0 = time.perf_counter()
    gr.knn_graph(X, 10)
    out["knn_graph_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    clf = gr.WarpedKernelClassifier(n_neighbors=10, solver="cg").fit(X, y_partial)
    out["warped_fit_s"] = time.perf_counter() - t0
    t1 = time.perf_counter()
    pred = clf.predict(X)
    out["warped_predict_s"] = time.perf_counter() - t1
    out["warped_total_s"] = time.perf_counter() - t0
    out["warped_acc"] = float(np.mean(pred[hidden] == y[hidden]))
    out["peak_rss_gb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20
    print("RESULT " + json.dumps(out), flush=True)


def warped_scale_section(sizes, repeats):
    rows = []
    for n in sizes:
        runs = []
        for r in range(repeats):
            proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--warped-child", str(n), str(r)],
                                  capture_output=True, text=True, check=True)
            line = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")][-1]
            runs.append(json.loads(line[7:]))
            print(f"[warped_scale] n={n} run {r}: {runs[-1]}", flush=True)
        med = {k: float(np.median([run[k] for run in runs])) for k in runs[0] if k not in ("n", "seed")}
        med.update(n=n, runs=repeats, ratio_warped_over_knn_graph=float(np.median(
            [run["warped_total_s"] / run["knn_graph_s"] for run in runs])))
        rows.append(med)
    return rows


def scale_section(sizes, repeats):
    rows = []
    for n in sizes:
        runs = []
        for r in range(repeats):
            proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", str(n), str(r)],
                                  capture_output=True, text=True, check=True)
            line = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")][-1]
            runs.append(json.loads(line[7:]))
            print(f"[scale] n={n} run {r}: {runs[-1]}", flush=True)
        med = {k: float(np.median([run[k] for run in runs])) for k in runs[0] if k not in ("n", "seed")}
        med["n"] = n
        med["runs"] = repeats
        med["ratio_fredholm_over_knn_graph"] = float(np.median([run["fredholm_total_s"] / run["knn_graph_s"]
                                                               for run in runs]))
        med["fredholm_minus_gaussian_points"] = 100 * (med["fredholm_acc"] - med["gaussian_rls_acc"])
        rows.append(med)
    return rows


# ---------------------------------------------------------------------------

def markdown(results):
    lines = ["# Data-dependent kernels benchmark", "",
             f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores; "
             f"date {results['date']}.", ""]
    for key, title in (("noisy", "Noisy subspace (n=2000, d=2, D=100, noise var 0.25, 10 labels/class)"),
                       ("digits", "Digits (1797 x 64, 10 labels/class)")):
        if key not in results:
            continue
        sec = results[key]
        lines += [f"## {title}", "", f"{sec['draws']} draws; tuning: LOO-RLS on labeled points (see script).", "",
                  "| method | mean acc | std | gain vs Gaussian RLS (points) | wins / draws | median time (s) |",
                  "|---|---|---|---|---|---|"]
        for m, r in sec["summary"].items():
            lines.append(f"| {m} | {r['mean_acc']:.3f} | {r['std_acc']:.3f} | {r['gain_vs_gaussian_rls_points']:+.1f} "
                         f"| {r['wins_vs_gaussian_rls']}/{sec['draws']} | {r['median_time_s']:.2f} |")
        ranking = sorted(sec["summary"], key=lambda m: -sec["summary"][m]["mean_acc"])
        fred = [m for m in ranking if m.startswith("Fred")]
        plain = [m for m in ranking if m.startswith("Gaussian")]
        holds = sec["summary"][fred[0]]["mean_acc"] > sec["summary"][plain[0]]["mean_acc"]
        lines += ["", "Ranking (mean accuracy): " + " > ".join(ranking) + ".",
                  "Que, Belkin & Wang's qualitative claim (Fredholm kernels beat the plain Gaussian kernel, RLS and "
                  f"SVM, with few labels): best Fredholm ({fred[0]}) vs best plain ({plain[0]}): "
                  f"{'holds' if holds else 'does NOT hold'} here."]
        if key == "noisy":
            gain = sec["summary"]["FredGauss(N) RLS"]["gain_vs_gaussian_rls_points"]
            lines.append(f"Issue target (FredGauss(N) RLS >= +5 points over Gaussian RLS): {gain:+.1f} points, "
                         f"{'met' if gain >= 5 else 'NOT met'}.")
        lines.append("")
    if "approx" in results:
        a = results["approx"]
        lines += [f"## Approximation error of the Fredholm kernel (Fashion-MNIST subset n={a['n']}, FredGauss(N))",
                  "", f"Outer sigma {a['sigma']:.2f} (median 10th-neighbour distance), inner sigma "
                  f"{a.get('sigma_inner', a['sigma']):.2f} (median distance). Relative Frobenius error of "
                  f"K_F({a['n_eval']} points, {a['n_labeled']} labeled) "
                  "against the exact kernel (dense outer, exact inner).", "",
                  "| option | relative error (mean of 3 seeds) | max | median time (s) |", "|---|---|---|---|"]
        for name, r in a["rows"].items():
            lines.append(f"| {name} | {r['rel_error']:.4f} | {r.get('rel_error_max', r['rel_error']):.4f} | "
                         f"{r['time_s']:.2f} |")
        lines.append("")
    if "scale" in results:
        lines += ["## Scale: FredholmClassifier on Fashion-MNIST (kNN outer k=10, Nystrom m=1000, 10 labels/class)",
                  "", "Medians over runs, each in a fresh process; anchors in the same process.", "",
                  "| n | runs | fit (s) | predict all n (s) | total (s) | kNN graph anchor (s) | total / kNN graph | "
                  "peak RSS (GB) | Fredholm acc | Gaussian RLS acc | gain (points) |",
                  "|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in results["scale"]:
            lines.append(f"| {r['n']} | {r['runs']} | {r['fredholm_fit_s']:.1f} | {r['fredholm_predict_s']:.1f} | "
                         f"{r['fredholm_total_s']:.1f} | {r['knn_graph_s']:.1f} | "
                         f"{r['ratio_fredholm_over_knn_graph']:.2f} | {r['peak_rss_gb']:.2f} | "
                         f"{r['fredholm_acc']:.3f} | {r['gaussian_rls_acc']:.3f} | "
                         f"{r['fredholm_minus_gaussian_points']:+.1f} |")
        lines.append("")
    if "warped_scale" in results:
        lines += ["## Scale: WarpedKernelClassifier on Fashion-MNIST subsets (CG solver, defaults, 10 labels/class)",
                  "", "Dense Gram matrix of the n points (float32) + sparse point-cloud root; one multi-column CG "
                  "solve at fit, none at predict. Medians over runs in fresh processes.", "",
                  "| n | runs | fit (s) | predict all n (s) | total (s) | kNN graph anchor (s) | total / kNN graph | "
                  "peak RSS (GB) | acc |", "|---|---|---|---|---|---|---|---|---|"]
        for r in results["warped_scale"]:
            lines.append(f"| {r['n']} | {r['runs']} | {r['warped_fit_s']:.1f} | {r['warped_predict_s']:.1f} | "
                         f"{r['warped_total_s']:.1f} | {r['knn_graph_s']:.1f} | "
                         f"{r['ratio_warped_over_knn_graph']:.2f} | "
                         f"{r['peak_rss_gb']:.2f} | {r['warped_acc']:.3f} |")
        lines.append("")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sections", default="noisy,digits,approx,scale")
    ap.add_argument("--quick", action="store_true", help="few draws, small sizes (smoke test)")
    ap.add_argument("--sizes", default="5000,20000,70000")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--child", nargs=2, type=int, help=argparse.SUPPRESS)
    ap.add_argument("--warped-child", nargs=2, type=int, help=argparse.SUPPRESS)
    ap.add_argument("--warped-sizes", default="5000,20000")
    args = ap.parse_args(argv)
    if args.child:
        scale_child(*args.child)
        return
    if args.warped_child:
        warped_child(*args.warped_child)
        return
    sections = args.sections.split(",")
    path_json = os.path.join(RESULTS, "datadependent.json")
    results = {}
    if os.path.exists(path_json):  # keep sections not rerun
        with open(path_json) as f:
            results = json.load(f)
    results["date"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    if "noisy" in sections:
        draws = 2 if args.quick else 10
        results["noisy"] = dict(draws=draws, summary=accuracy_section(
            "noisy", lambda d: make_noisy_subspace(2000, random_state=d), draws, methods_table()))
    if "digits" in sections:
        draws = 1 if args.quick else 5
        results["digits"] = dict(draws=draws, summary=accuracy_section(
            "digits", lambda d: load_digits(), draws, methods_table()))
    if "approx" in sections:
        results["approx"] = approx_section(2000 if args.quick else 5000)
    if "scale" in sections:
        sizes = [2000] if args.quick else [int(s) for s in args.sizes.split(",")]
        results["scale"] = scale_section(sizes, 1 if args.quick else max(3, args.repeats))
    if "warped_scale" in sections:
        sizes = [2000] if args.quick else [int(s) for s in args.warped_sizes.split(",")]
        results["warped_scale"] = warped_scale_section(sizes, 1 if args.quick else max(3, args.repeats))
    os.makedirs(RESULTS, exist_ok=True)
    with open(path_json, "w") as f:
        json.dump(results, f, indent=1)
    with open(os.path.join(RESULTS, "datadependent.md"), "w") as f:
        f.write(markdown(results))
    print(markdown(results))


if __name__ == "__main__":
    main()
