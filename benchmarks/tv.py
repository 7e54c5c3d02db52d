"""Benchmark: graph total variation (GraphTVClassifier / graph_tv) against n on Fashion-MNIST.

For each n in ``--sizes`` (random subsets of the 70000 Fashion-MNIST points, seed 0; n = 70000 is the
whole set) the default kNN graph ``knn_graph(X)`` is built once and cached under ``--cache``
(``scipy.sparse.save_npz``; not in the repository).  Each run draws 10 labels per class (draw d uses
``random_state=d``) and fits, on the same graph and labels:

* ``GraphTVClassifier(graph="precomputed")`` with its defaults (``R="kernel"``: generalized TV with
  :math:`R = \varphi(L)^{-1}`, ``graph_kernel_tv``; alpha by 2-fold CV): wall and CPU time, working-set
  rounds of the final fit, worst relative duality gap, accuracy on the unlabeled nodes;
* ``GraphKernelRidgeClassifier(graph="precomputed")`` with its defaults, the accuracy anchor;
* at n <= ``--incidence-max`` the graph TV of the incidence operator (``R="incidence"``, the previous
  default: primal-dual iterations, harmonic fallback on the unreached nodes): time, iterations,
  accuracy, unreached fraction.

Times are medians over the runs (>= 3 per size).  Results go to ``benchmarks/results/tv.json`` and
``tv.md``.

Usage::

    python benchmarks/tv.py                                   # sizes 2000 .. 70000, 3 runs each
    python benchmarks/tv.py --sizes 2000,5000 --runs 3 --quick
"""

import argparse
import json
import os
import platform
import sys
import time
import warnings

import numpy as np
import scipy.sparse as sp

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
RESULTS = os.path.join(HERE, "results")


def graph(n, cache):
    """The cached kNN graph of a random n-subset of Fashion-MNIST, and its labels."""
    os.makedirs(cache, exist_ok=True)
    gpath, ipath, ypath = (os.path.join(cache, f) for f in
                           (f"fmnist_knn_{n}.npz", f"fmnist_idx_{n}.npy", "fmnist_y.npy"))
    if not (os.path.exists(gpath) and os.path.exists(ipath) and os.path.exists(ypath)):
        from graphrkhs import knn_graph
        from graphrkhs.datasets import load_fashion_mnist
        X, y = load_fashion_mnist()
        np.save(ypath, y)
        perm = np.random.default_rng(0).permutation(y.size)
        idx = np.sort(perm[:n]) if n < y.size else np.arange(y.size)
        sp.save_npz(gpath, sp.csr_matrix(knn_graph(X[idx])))
        np.save(ipath, idx)
    idx = np.load(ipath)
    return sp.csr_array(sp.load_npz(gpath)), np.load(ypath)[idx]


def run_size(n, runs, cache, incidence_max, save=lambda row: None):
    from graphrkhs import GraphKernelRidgeClassifier, GraphTVClassifier
    from graphrkhs.datasets import sample_labels

    W, y = graph(n, cache)
    rows = []
    for d in range(runs):
        y_partial, keep = sample_labels(y, 10, random_state=d)
        hidden = np.ones(n, dtype=bool)
        hidden[keep] = False
        acc = lambda est: float(np.mean(est.transduction_[hidden] == y[hidden]))  # noqa: E731
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t0, c0 = time.perf_counter(), time.process_time()
            tv = GraphTVClassifier(graph="precomputed").fit(W, y_partial)
            t_tv, c_tv = time.perf_counter() - t0, time.process_time() - c0
            load = os.getloadavg()[0]
            t0 = time.perf_counter()
            gkr = GraphKernelRidgeClassifier(graph="precomputed").fit(W, y_partial)
            t_gkr = time.perf_counter() - t0
        row = {"n": n, "edges": int(W.nnz // 2), "draw": d, "tv_seconds": t_tv, "tv_cpu_seconds": c_tv,
               "load": load, "tv_alpha": float(tv.alpha_), "tv_iterations": int(tv.n_iter_),
               "tv_gap": float(np.max(tv.gap_)), "tv_accuracy": acc(tv),
               "gkr_seconds": t_gkr, "gkr_accuracy": acc(gkr)}
        if n <= incidence_max:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t0 = time.perf_counter()
                inc = GraphTVClassifier(R="incidence", graph="precomputed").fit(W, y_partial)
                row["incidence_seconds"] = time.perf_counter() - t0
            row["incidence_iterations"] = int(inc.n_iter_)
            row["incidence_accuracy"] = acc(inc)
            row["unreached_fraction"] = float(inc.unreached_.mean())
        print(json.dumps(row), flush=True)
        rows.append(row)
        save(row)
    return rows


def summarize(rows):
    out = []
    for n in sorted({r["n"] for r in rows}):
        rs = [r for r in rows if r["n"] == n]
        med = lambda k: float(np.median([r[k] for r in rs])) if k in rs[0] else None  # noqa: E731
        mean = lambda k: float(np.mean([r[k] for r in rs])) if k in rs[0] else None  # noqa: E731
        out.append({"n": n, "edges": rs[0]["edges"], "runs": len(rs), "tv_seconds": med("tv_seconds"),
                    "tv_seconds_max": max(r["tv_seconds"] for r in rs),
                    "tv_cpu_seconds": med("tv_cpu_seconds"), "load": mean("load"),
                    "tv_iterations": med("tv_iterations"), "tv_gap_max": max(r["tv_gap"] for r in rs),
                    "tv_accuracy": mean("tv_accuracy"), "tv_accuracy_std": float(np.std([r["tv_accuracy"] for r in rs])),
                    "gkr_accuracy": mean("gkr_accuracy"), "gkr_seconds": med("gkr_seconds"),
                    "incidence_seconds": med("incidence_seconds"), "incidence_iterations": med("incidence_iterations"),
                    "incidence_accuracy": mean("incidence_accuracy"), "unreached_fraction": mean("unreached_fraction")})
    return out


def render(summary, meta):
    f = lambda v, fmt: "-" if v is None else format(v, fmt)  # noqa: E731
    pc = lambda v: "-" if v is None else f"{100 * v:.2f}%"  # noqa: E731
    lines = ["## Graph TV on Fashion-MNIST subsets (knn_graph(X) defaults, 10 labels per class)", "",
             f"Machine: {meta['machine']}; load average at start {meta['load']:.1f}; run {meta['date']}. "
             "\"load\" is the 1-minute load average right after each TV fit (mean over the draws); "
             "the machine was shared with other jobs.", "",
             "| n | edges | runs | TV fit (median / max) | TV CPU | load | rounds | max gap | TV acc | GKR acc "
             "| TV - GKR | GKR fit | incidence TV fit | incidence iterations | incidence acc | unreached |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for s in summary:
        lines.append(
            f"| {s['n']} | {s['edges']} | {s['runs']} | {s['tv_seconds']:.1f} / {s['tv_seconds_max']:.1f} s | "
            f"{f(s['tv_cpu_seconds'], '.1f')} s | {f(s['load'], '.1f')} | {s['tv_iterations']:.0f} | "
            f"{s['tv_gap_max']:.1e} | {100 * s['tv_accuracy']:.2f}% +- {100 * s['tv_accuracy_std']:.2f} | "
            f"{100 * s['gkr_accuracy']:.2f}% | {100 * (s['tv_accuracy'] - s['gkr_accuracy']):+.2f} | "
            f"{s['gkr_seconds']:.1f} s | {f(s['incidence_seconds'], '.1f')} s | {f(s['incidence_iterations'], '.0f')} | "
            f"{pc(s['incidence_accuracy'])} | {pc(s['unreached_fraction'])} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="2000,5000,10000,20000,70000")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--incidence-max", type=int, default=5000,
                    help="also fit the incidence-operator TV (R='incidence') up to this n")
    ap.add_argument("--cache", default="/tmp/tv_cache")
    ap.add_argument("--quick", action="store_true", help="sizes 2000,5000 only")
    ap.add_argument("--merge", action="store_true",
                    help="keep the rows of benchmarks/results/tv.json for sizes not run now")
    args = ap.parse_args(argv)
    sizes = [2000, 5000] if args.quick else [int(s) for s in args.sizes.split(",")]
    meta = {"machine": f"{platform.platform()}, {os.cpu_count()} cores", "load": os.getloadavg()[0],
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    rows = []
    os.makedirs(RESULTS, exist_ok=True)
    path = os.path.join(RESULTS, "tv.json")
    if args.merge and os.path.exists(path):
        with open(path) as fh:
            rows = [r for r in json.load(fh)["rows"] if r["n"] not in sizes]

    def save(row):
        rows.append(row)
        summary = summarize(rows)
        with open(path, "w") as fh:
            json.dump({"meta": meta, "rows": rows, "summary": summary}, fh, indent=1)
        with open(os.path.join(RESULTS, "tv.md"), "w") as fh:
            fh.write(render(summary, meta))

    for n in sizes:                       # each row is saved as soon as it is measured
        run_size(n, args.runs, args.cache, args.incidence_max, save)
    return 0


if __name__ == "__main__":
    sys.exit(main())
