"""Benchmark: graph total variation (GraphTVClassifier / graph_tv) against n on Fashion-MNIST.

For each n in ``--sizes`` (random subsets of the 70000 Fashion-MNIST points, seed 0; n = 70000 is the
whole set) the default kNN graph ``knn_graph(X)`` is built once and cached under ``--cache``
(``scipy.sparse.save_npz``; not in the repository).  Each run draws 10 labels per class (draw d uses
``random_state=d``) and fits, on the same graph and labels:

* ``GraphTVClassifier(graph="precomputed")`` with its defaults (alpha 0.5, tol 1e-4): wall time,
  primal-dual iterations, worst relative duality gap, accuracy on the unlabeled nodes, the fraction
  of nodes no TV cut reaches (``unreached_``, labeled by the harmonic fallback) and the accuracy of the
  raw TV argmax on the reached nodes;
* ``GraphKernelRidgeClassifier(graph="precomputed")`` with its defaults, the accuracy anchor;
* at n <= ``--old-max`` the generic primal-dual loop (``graph_tv(..., R=incidence_matrix(W))``, the
  solver before the fast path) on the same problem: time, iterations, objective (the two objectives
  must agree to the tolerance).

Times are medians over the runs (>= 3 per size).  Results go to ``benchmarks/results/tv.json`` and
``tv.md``.

Usage::

    python benchmarks/tv.py                                   # sizes 2000 .. 70000, 3 runs, 5 at 70000
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


def run_size(n, runs, cache, old_max, save=lambda row: None):
    from graphrkhs import GraphKernelRidgeClassifier, GraphTVClassifier, graph_tv, incidence_matrix
    from graphrkhs.datasets import sample_labels

    W, y = graph(n, cache)
    rows = []
    for d in range(runs):
        y_partial, keep = sample_labels(y, 10, random_state=d)
        hidden = np.ones(n, dtype=bool)
        hidden[keep] = False
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t0, c0 = time.perf_counter(), time.process_time()
            tv = GraphTVClassifier(graph="precomputed").fit(W, y_partial)
            t_tv, c_tv = time.perf_counter() - t0, time.process_time() - c0
            t0 = time.perf_counter()
            gkr = GraphKernelRidgeClassifier(graph="precomputed").fit(W, y_partial)
            t_gkr = time.perf_counter() - t0
        reached = ~tv.unreached_ & hidden
        raw = tv.scores_.argmax(axis=1)
        row = {"n": n, "edges": int(W.nnz // 2), "draw": d, "tv_seconds": t_tv, "tv_cpu_seconds": c_tv,
               "load": os.getloadavg()[0], "tv_iterations": int(tv.n_iter_),
               "tv_gap": float(np.max(tv.gap_)), "tv_accuracy": float(np.mean(tv.transduction_[hidden] == y[hidden])),
               "unreached_fraction": float(tv.unreached_.mean()),
               "tv_reached_accuracy": float(np.mean(raw[reached] == y[reached])) if reached.any() else None,
               "gkr_seconds": t_gkr, "gkr_accuracy": float(np.mean(gkr.transduction_[hidden] == y[hidden]))}
        if n <= old_max:
            Y = np.eye(10)[y[keep]]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t0 = time.perf_counter()
                _, new = graph_tv(W, keep, Y, alpha=0.5, return_info=True)
                row["fast_solver_seconds"] = time.perf_counter() - t0
                t0 = time.perf_counter()
                _, old = graph_tv(W, keep, Y, alpha=0.5, R=incidence_matrix(W), return_info=True)
                row["old_solver_seconds"] = time.perf_counter() - t0
            row["old_iterations"] = int(old.n_iter)
            row["objective_fast"] = float(new.objective.sum())
            row["objective_old"] = float(old.objective.sum())
        print(json.dumps(row), flush=True)
        rows.append(row)
        save(row)
    return rows


def summarize(rows):
    out = []
    for n in sorted({r["n"] for r in rows}):
        rs = [r for r in rows if r["n"] == n]
        med = lambda k: float(np.median([r[k] for r in rs])) if k in rs[0] else None  # noqa: E731
        mean = lambda k: float(np.mean([r[k] for r in rs]))  # noqa: E731
        out.append({"n": n, "edges": rs[0]["edges"], "runs": len(rs), "tv_seconds": med("tv_seconds"),
                    "tv_cpu_seconds": med("tv_cpu_seconds"), "load": mean("load") if "load" in rs[0] else None,
                    "tv_iterations": med("tv_iterations"), "tv_gap_max": max(r["tv_gap"] for r in rs),
                    "tv_accuracy": mean("tv_accuracy"), "tv_accuracy_std": float(np.std([r["tv_accuracy"] for r in rs])),
                    "gkr_accuracy": mean("gkr_accuracy"), "gkr_seconds": med("gkr_seconds"),
                    "unreached_fraction": mean("unreached_fraction"),
                    "old_solver_seconds": med("old_solver_seconds"), "fast_solver_seconds": med("fast_solver_seconds"),
                    "old_iterations": med("old_iterations"),
                    "objective_rel_diff": (max(abs(r["objective_fast"] - r["objective_old"]) / r["objective_old"]
                                               for r in rs) if "objective_old" in rs[0] else None)})
    return out


def render(summary, meta):
    f = lambda v, fmt: "-" if v is None else format(v, fmt)  # noqa: E731
    lines = [f"## Graph TV on Fashion-MNIST subsets (knn_graph(X) defaults, 10 labels per class)", "",
             f"Machine: {meta['machine']}; load average at start {meta['load']}. The machine was shared with "
             "other jobs: times are noisy (compare within a row).", "",
             "| n | edges | runs | TV fit (median) | TV CPU time | load | iterations | max gap | TV acc | GKR acc | TV - GKR | unreached "
             "| old solver | fast solver | old iterations | objective rel. diff |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for s in summary:
        lines.append(
            f"| {s['n']} | {s['edges']} | {s['runs']} | {s['tv_seconds']:.1f} s | {f(s['tv_cpu_seconds'], '.1f')} s | "
            f"{f(s['load'], '.0f')} | {s['tv_iterations']:.0f} | "
            f"{s['tv_gap_max']:.1e} | {100 * s['tv_accuracy']:.2f}% +- {100 * s['tv_accuracy_std']:.2f} | "
            f"{100 * s['gkr_accuracy']:.2f}% | {100 * (s['tv_accuracy'] - s['gkr_accuracy']):+.2f} | "
            f"{100 * s['unreached_fraction']:.1f}% | {f(s['old_solver_seconds'], '.1f')} s | "
            f"{f(s['fast_solver_seconds'], '.1f')} s | {f(s['old_iterations'], '.0f')} | "
            f"{f(s['objective_rel_diff'], '.1e')} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="2000,5000,10000,20000,70000")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--runs-full", type=int, default=5, help="label draws at n = 70000")
    ap.add_argument("--old-max", type=int, default=5000, help="run the generic (old) loop up to this n")
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
        run_size(n, args.runs_full if n >= 70000 else args.runs, args.cache, args.old_max, save)
    return 0


if __name__ == "__main__":
    sys.exit(main())
