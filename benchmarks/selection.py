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

Run:  python benchmarks/selection.py [--quick] [--only NAME]
Writes benchmarks/results/selection.json and .md.

``--regressors``: every regressor of the package with its defaults against predicting the mean of the
observed values, on the issue's smooth signal with a non-zero mean and a trend (2000 random 2-D points,
5% observed); writes benchmarks/results/regressors_vs_mean.json and .md.
"""

import argparse
import json
import os
import time
import warnings

import numpy as np

import graphrkhs
from graphrkhs import GraphTVClassifier, filters
from graphrkhs.datasets import load_digits, sample_labels
from graphrkhs.graphs import knn_graph, laplacian
from graphrkhs.kernels import FredholmKernel, default_sigma, pairwise_kernel
from graphrkhs.solvers import (
    SelectionWarning, graph_kernel_columns, graph_penalty, laprls_fit, rls_fit, select_kernel_ridge,
    select_laprls_gammas, select_ridge_alpha, select_tikhonov_solution, tikhonov_solution,
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
        # the Kron reduction: one factorization for the LOO path and the final fit
        return select_tikhonov_solution(W, S, Y, scoring="accuracy")[0]

    def tik_stochastic():
        # the matrix-free LOO (forced here; used by default above STOCHASTIC_MIN_LABELS labels)
        return select_tikhonov_solution(W, S, Y, scoring="accuracy", method="stochastic")[0]

    y_partial = np.full(y.size, -1)
    y_partial[S] = y[S]

    def tv_single():
        return GraphTVClassifier(0.5, graph="precomputed").fit(W, y_partial).scores_

    def tv_auto():
        return GraphTVClassifier(graph="precomputed").fit(W, y_partial).scores_

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
            "Tikhonov (alpha), matrix-free LOO": (tik_single, tik_stochastic),
            "graph TV classifier (alpha, 2-fold CV)": (tv_single, tv_auto),
            f"LapRLS (gamma_A, gamma_I), n={n}": (lap_single, lap_auto)}


def regressors_vs_mean(n=2000, rate=0.05, seeds=(0, 1, 2), only=""):
    """Every regressor of ``graphrkhs.__all__`` with its defaults against the mean of the observed values.

    The issue's task: n random points in [-1, 1]^2, a smooth signal with a non-zero mean and a trend,
    ``f = 3 + 1.5 x_0 + sin(3 x_1)``, observed with noise 0.1 at a fraction ``rate`` of the points; RMSE
    on the unobserved points, for the estimator with defaults and for the constant ``mean(y_observed)``.
    """
    names = [nm for nm in graphrkhs.__all__ if nm.endswith("Regressor") and only in nm]
    rows = []
    for name in names:
        ratios, rmses, base, times = [], [], [], []
        for seed in seeds:
            rng = np.random.default_rng(seed)
            X = rng.uniform(-1, 1, size=(n, 2))
            f = 3.0 + 1.5 * X[:, 0] + np.sin(3 * X[:, 1])
            S = rng.choice(n, int(rate * n), replace=False)
            y = np.full(n, np.nan)
            y[S] = f[S] + 0.1 * rng.normal(size=S.size)
            U = np.setdiff1d(np.arange(n), S)
            t = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                est = getattr(graphrkhs, name)().fit(X, y)
            pred = est.transduction_ if hasattr(est, "transduction_") else est.predict(X)
            times.append(time.perf_counter() - t)
            rmses.append(float(np.sqrt(np.mean((pred[U] - f[U]) ** 2))))
            base.append(float(np.sqrt(np.mean((y[S].mean() - f[U]) ** 2))))
            ratios.append(rmses[-1] / base[-1])
        rows.append({"regressor": name, "rmse": float(np.mean(rmses)), "rmse_mean_predictor": float(np.mean(base)),
                     "ratio": float(np.mean(ratios)), "ratio_max": float(np.max(ratios)),
                     "fit_s": float(np.median(times))})
        print(f"{name:34s} RMSE {rows[-1]['rmse']:.3f}  mean predictor {rows[-1]['rmse_mean_predictor']:.3f}  "
              f"ratio {rows[-1]['ratio']:.3f} (max {rows[-1]['ratio_max']:.3f})  fit {rows[-1]['fit_s']:.2f}s",
              flush=True)
    return rows


def _write_regressors(rows, n, rate, seeds):
    out = os.path.join(HERE, "results")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "regressors_vs_mean.json"), "w") as f:
        json.dump({"n": n, "rate": rate, "seeds": list(seeds), "rows": rows}, f, indent=1)
    with open(os.path.join(out, "regressors_vs_mean.md"), "w") as f:
        f.write(f"# Regressors with defaults vs the mean of the observed values\n\n"
                f"n={n} uniform points in [-1, 1]^2, f = 3 + 1.5 x0 + sin(3 x1), {rate:.0%} observed (noise "
                f"0.1), RMSE on the unobserved points, mean over seeds {list(seeds)}.\n\n"
                "| regressor | RMSE | RMSE of the mean | ratio | worst ratio | fit (s) |\n|---|---|---|---|---|---|\n")
        for r in rows:
            f.write(f"| {r['regressor']} | {r['rmse']:.3f} | {r['rmse_mean_predictor']:.3f} | {r['ratio']:.3f} | "
                    f"{r['ratio_max']:.3f} | {r['fit_s']:.2f} |\n")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="1 run per timing instead of 5")
    ap.add_argument("--only", default="", help="run the learners whose name contains this text")
    ap.add_argument("--exact", action="store_true", help="--only names one learner exactly")
    ap.add_argument("--regressors", action="store_true",
                    help="only the table of every regressor vs the mean predictor (regressors_vs_mean.md)")
    args = ap.parse_args(argv)
    if args.regressors:
        n, rate, seeds = (500, 0.1, (0,)) if args.quick else (2000, 0.05, (0, 1, 2))
        _write_regressors(regressors_vs_mean(n, rate, seeds, args.only), n, rate, seeds)
        return 0
    repeats = 1 if args.quick else 5
    X, y = load_digits()
    _, S = sample_labels(y, 10, random_state=0)
    W = knn_graph(X, n_neighbors=10)
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SelectionWarning)
        for name, (single, auto) in learners(X, y, S, W).items():
            if (args.only != name) if args.exact else (args.only not in name):
                continue
            # interleaved (single, auto, single, auto, ...): the load of a shared machine drifts over a run
            t_s, t_a = [], []
            for _ in range(repeats):
                t, Fs = _median_time(single, 1)
                t_s.append(t)
                t, Fa = _median_time(auto, 1)
                t_a.append(t)
            ts, ta = float(np.median(t_s)), float(np.median(t_a))
            rows.append({"learner": name, "single_s": ts, "auto_s": ta, "ratio": ta / ts,
                         "acc_single": _accuracy(Fs, y, S), "acc_auto": _accuracy(Fa, y, S)})
            print(f"{name:38s} single {ts:7.3f}s  auto {ta:7.3f}s  ratio {ta / ts:5.2f}  "
                  f"acc {rows[-1]['acc_single']:.3f} -> {rows[-1]['acc_auto']:.3f}", flush=True)
    out = os.path.join(HERE, "results")
    os.makedirs(out, exist_ok=True)
    if args.only and os.path.exists(os.path.join(out, "selection.json")):
        # a partial run (--only) replaces its rows in the table and keeps the others
        with open(os.path.join(out, "selection.json")) as f:
            old = json.load(f)["rows"]
        names = {r["learner"] for r in rows}
        rows = [r for r in old if r["learner"] not in names] + rows
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
