"""Benchmark: cost of automatic parameter selection against one fit at a fixed value (issue 14, "Cost").

On scikit-learn's digits (1797 x 64), 10 labels per class, for each learner wired to the selection
engine (graphrkhs.solvers._selection), two timings of the *same* end-to-end work (kernel or graph
construction, solve, predictions on all points):

* single: one fit at the fixed default parameter value;
* auto:   the engine's selection (exact LOO over the default grids, with their edge extensions) plus
          the final fit at the selected value.

Each timing is the median of 5 runs; the table reports auto / single and the transductive accuracy of
both.  The machine is shared (2 cores, other jobs running): ratios are more stable than seconds, but
still noisy by some 10-20 %.  The graph (kNN) is built once outside both timings for the graph learners
(it is shared by both and by every grid point).

Run:  python benchmarks/selection.py [--quick]
Writes benchmarks/results/selection.json and .md.
"""

import argparse
import json
import os
import time
import warnings

import numpy as np

from graphrkhs import filters
from graphrkhs.datasets import load_digits, sample_labels
from graphrkhs.graphs import knn_graph, laplacian
from graphrkhs.kernels import FredholmKernel, default_sigma, pairwise_kernel
from graphrkhs.solvers import (
    SelectionWarning, graph_kernel_columns, graph_penalty, laprls_fit, rls_fit, select_kernel_ridge,
    select_laprls_gammas, select_ridge_alpha, select_tikhonov_alpha, tikhonov_solution,
)

HERE = os.path.dirname(os.path.abspath(__file__))
WIDTHS = (0.5, 0.7, 1.0, 1.4)          # times the median pairwise distance


def _median_time(fn, repeats):
    times, out = [], None
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return float(np.median(times)), out


def _accuracy(F, y, S):
    U = np.setdiff1d(np.arange(y.size), S)
    return float(np.mean(np.argmax(F[U], axis=1) == y[U]))


def learners(X, y, S, W):
    Y = np.eye(10)[y[S]] * 2 - 1                      # +-1 one-vs-rest coding
    s0 = default_sigma(X)
    n = X.shape[0]

    def rls_single():
        K = pairwise_kernel(X, X[S], sigma=s0)
        return K @ rls_fit(K[S], Y, 1e-3)

    def rls_auto():
        res = select_kernel_ridge(lambda s: pairwise_kernel(X[S], sigma=s), Y, s0 * np.array(WIDTHS),
                                  ridge_scale="l", scoring="accuracy")
        K = pairwise_kernel(X, X[S], sigma=res.best_params["sigma"])
        return K @ rls_fit(K[S], Y, res.best_params["alpha"])

    def fred_single():
        kern = FredholmKernel(X, sigma=s0)
        K = kern(X, X[S])
        return K @ rls_fit(K[S], Y, 1e-3)

    def fred_auto():
        kerns = {}

        def make(s):
            kerns[s] = FredholmKernel(X, sigma=s)(X, X[S])
            return kerns[s][S]
        res = select_kernel_ridge(make, Y, s0 * np.array(WIDTHS), ridge_scale="l", scoring="accuracy")
        K = kerns[res.best_params["sigma"]]
        return K @ rls_fit(K[S], Y, res.best_params["alpha"])

    L = laplacian(W, "normalized")
    phi = filters.default_kernel()

    def gkr_single():
        C = graph_kernel_columns(L, phi, S)
        return C @ np.linalg.solve(C[S] + 1e-3 * np.eye(S.size), Y)

    def gkr_auto():
        C = graph_kernel_columns(L, phi, S)
        res = select_ridge_alpha(C[S], Y, scoring="accuracy")
        return C @ np.linalg.solve(C[S] + res.best_params["alpha"] * np.eye(S.size), Y)

    def tik_single():
        return tikhonov_solution(W, S, Y, alpha=1e-2)

    def tik_auto():
        res = select_tikhonov_alpha(W, S, Y, scoring="accuracy")
        return tikhonov_solution(W, S, Y, alpha=res.best_params["alpha"])

    M = graph_penalty(W)

    def lap_single():
        K = pairwise_kernel(X, sigma=s0)
        return K @ laprls_fit(K, S, Y, M, 1e-3, 1.0, solver="direct")

    def lap_auto():
        K = pairwise_kernel(X, sigma=s0)
        res = select_laprls_gammas(K, S, Y, M, scoring="accuracy")
        return K @ laprls_fit(K, S, Y, M, res.best_params["gamma_A"], res.best_params["gamma_I"],
                              solver="direct")

    return {"RLS (sigma, alpha)": (rls_single, rls_auto),
            "Fredholm RLS (sigma, alpha)": (fred_single, fred_auto),
            "graph kernel ridge (alpha)": (gkr_single, gkr_auto),
            "Tikhonov (alpha)": (tik_single, tik_auto),
            f"LapRLS (gamma_A, gamma_I), n={n}": (lap_single, lap_auto)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="1 run per timing instead of 5")
    ap.add_argument("--only", default="", help="run the learners whose name contains this text")
    args = ap.parse_args(argv)
    repeats = 1 if args.quick else 5
    X, y = load_digits()
    _, S = sample_labels(y, 10, random_state=0)
    W = knn_graph(X, n_neighbors=10)
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SelectionWarning)
        for name, (single, auto) in learners(X, y, S, W).items():
            if args.only not in name:
                continue
            ts, Fs = _median_time(single, repeats)
            ta, Fa = _median_time(auto, repeats)
            rows.append({"learner": name, "single_s": ts, "auto_s": ta, "ratio": ta / ts,
                         "acc_single": _accuracy(Fs, y, S), "acc_auto": _accuracy(Fa, y, S)})
            print(f"{name:38s} single {ts:7.3f}s  auto {ta:7.3f}s  ratio {ta / ts:5.2f}  "
                  f"acc {rows[-1]['acc_single']:.3f} -> {rows[-1]['acc_auto']:.3f}", flush=True)
    out = os.path.join(HERE, "results")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "selection.json"), "w") as f:
        json.dump({"repeats": repeats, "rows": rows}, f, indent=1)
    with open(os.path.join(out, "selection.md"), "w") as f:
        f.write(f"# Automatic selection vs one fit (digits, 10 labels/class, median of {repeats})\n\n"
                "| learner | single fit (s) | auto fit (s) | auto / single | acc single | acc auto |\n"
                "|---|---|---|---|---|---|\n")
        for r in rows:
            f.write(f"| {r['learner']} | {r['single_s']:.3f} | {r['auto_s']:.3f} | {r['ratio']:.2f} | "
                    f"{r['acc_single']:.3f} | {r['acc_auto']:.3f} |\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
