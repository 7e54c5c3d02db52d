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

Estimator level (issue 14, the inductive and data-dependent learners): ``E().fit`` with every parameter
"auto" against ``E(<the selected values>).fit`` (one fit at one value, same data), and the accuracy of
the defaults against the best of a fine hand grid (noisy circles, digits; mean over label draws):

  python benchmarks/selection.py --estimators [--repeats 5] [--fashion 5000] [--accuracy circles,digits]

writes results/selection_estimators.{json,md} and results/selection_accuracy_<data>.{json,md}.
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


# ---------------------------------------------------------------------------
# Estimators: E().fit (all "auto") against one fit at fixed values, and the accuracy acceptance
# ---------------------------------------------------------------------------

def _estimators():
    from graphrkhs import (FredholmClassifier, GRLSClassifier, LapRLSClassifier, PLapRLSClassifier,
                           PRLSClassifier, RLSClassifier, WarpedKernelClassifier)
    return {"RLS": RLSClassifier, "LapRLS": LapRLSClassifier, "PRLS": PRLSClassifier,
            "PLapRLS": PLapRLSClassifier, "G-RLS": GRLSClassifier, "Fredholm": FredholmClassifier,
            "Warped": WarpedKernelClassifier}


def _fixed_params(name, est):
    """The values an automatic fit selected, as fixed parameters (the 'single fit' at one value)."""
    if name == "RLS":
        return dict(sigma=est.sigma_, alpha=est.alpha_)
    if name in ("PRLS", "G-RLS"):
        return dict(sigma=est.sigma_, gamma=est.gamma_)
    if name == "Fredholm":
        return dict(sigma=est.sigma_, alpha=1e-3)
    return dict(sigma=est.sigma_, gamma_A=est.gamma_A_, gamma_I=est.gamma_I_)


def _load(dataset, n):
    if dataset == "digits":
        return load_digits()
    from graphrkhs.datasets import load_fashion_mnist
    X, y = load_fashion_mnist()
    idx = np.random.default_rng(0).choice(X.shape[0], n, replace=False)
    return np.asarray(X[idx], dtype=np.float64) / 255.0, y[idx]


def estimator_costs(dataset="digits", n=5000, repeats=5, only=""):
    """auto / single fit time of every inductive and data-dependent classifier (10 labels per class)."""
    X, y = _load(dataset, n)
    yp, S = sample_labels(y, 10, random_state=0)
    U = np.setdiff1d(np.arange(y.size), S)
    rows = []
    for name, E in _estimators().items():
        if only not in name:
            continue
        ta, est = _median_time(lambda: E().fit(X, yp), repeats)
        fixed = _fixed_params(name, est)
        ts, one = _median_time(lambda: E(**fixed).fit(X, yp), repeats)
        rows.append({"dataset": dataset, "n": int(X.shape[0]), "learner": name, "single_s": ts, "auto_s": ta,
                     "ratio": ta / ts, "acc_auto": float(est.score(X[U], y[U])),
                     "acc_single": float(one.score(X[U], y[U]))})
        print(f"{dataset:8s} {name:9s} single {ts:7.3f}s  auto {ta:7.3f}s  ratio {ta / ts:5.2f}  "
              f"acc auto {rows[-1]['acc_auto']:.3f}", flush=True)
    return rows


WIDTHS_HAND = (0.1, 0.2, 0.35, 0.5, 0.7, 1.0, 1.4)


def hand_grid(name, s0, widths=WIDTHS_HAND, gamma_As=(1e-6, 1e-3)):
    """A fine hand grid per learner (widths relative to the median pairwise distance s0)."""
    sig = [w * s0 for w in widths]
    if name == "RLS":
        return [dict(sigma=s, alpha=a) for s in sig for a in (1e-8, 1e-6, 1e-4, 1e-2)]
    if name in ("PRLS", "G-RLS"):
        return [dict(sigma=s, gamma=g) for s in sig for g in (1e-6, 1e-4, 1e-2, 1.0)]
    if name == "Fredholm":
        return [dict(sigma=s, alpha=a) for s in sig for a in (1e-6, 1e-4, 1e-2)]
    return [dict(sigma=s, gamma_A=ga, gamma_I=gi) for s in sig for ga in gamma_As
            for gi in (1e-2, 1.0, 1e2, 1e4)]


def accuracy_table(dataset, n_draws, labels, n_samples=1000, names=None, widths=WIDTHS_HAND, gamma_As=(1e-6, 1e-3)):
    """Defaults against the best of a fine hand grid (mean over label draws), per learner."""
    from graphrkhs.datasets import make_noisy_circles
    from graphrkhs.kernels import default_sigma

    names = names or list(_estimators())
    auto = {k: [] for k in names}
    hand = {k: [] for k in names}
    for d in range(n_draws):
        if dataset == "circles":
            X, y = make_noisy_circles(n_samples, random_state=d)
        else:
            X, y = load_digits()
        yp, S = sample_labels(y, labels, random_state=d)
        U = np.setdiff1d(np.arange(y.size), S)
        s0 = default_sigma(X)
        for k in names:
            E = _estimators()[k]
            auto[k].append(E().fit(X, yp).score(X[U], y[U]))
            hand[k].append([E(**p).fit(X, yp).score(X[U], y[U]) for p in hand_grid(k, s0, widths, gamma_As)])
        print(f"{dataset} draw {d}: " + ", ".join(f"{k} {auto[k][-1]:.3f}/{max(hand[k][-1]):.3f}" for k in names),
              flush=True)
    rows = []
    for k in names:
        H = np.mean(hand[k], axis=0)
        rows.append({"dataset": dataset, "learner": k, "auto": float(np.mean(auto[k])), "auto_std": float(np.std(auto[k])),
                     "hand_best": float(H.max()), "hand_best_params": hand_grid(k, 1.0, widths, gamma_As)[int(H.argmax())],
                     "gap": float(H.max() - np.mean(auto[k]))})
    return rows


def main_estimators(argv=None):
    ap = argparse.ArgumentParser(description="estimator-level cost and accuracy of the automatic defaults")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--only", default="")
    ap.add_argument("--fashion", type=int, default=0, help="also a Fashion-MNIST subset of this size")
    ap.add_argument("--accuracy", default="", help="'circles', 'digits' or 'circles,digits'")
    ap.add_argument("--draws", type=int, default=10)
    ap.add_argument("--tag", default="", help="suffix of the cost table's file name")
    ap.add_argument("--no-cost", action="store_true")
    args = ap.parse_args(argv)
    out = os.path.join(HERE, "results")
    os.makedirs(out, exist_ok=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if not args.no_cost:
            rows = estimator_costs("digits", repeats=args.repeats, only=args.only)
            if args.fashion:
                rows += estimator_costs("fashion", n=args.fashion, repeats=args.repeats, only=args.only)
            with open(os.path.join(out, f"selection_estimators{args.tag}.json"), "w") as f:
                json.dump({"repeats": args.repeats, "rows": rows}, f, indent=1)
            with open(os.path.join(out, f"selection_estimators{args.tag}.md"), "w") as f:
                f.write(f"# Automatic fit (all defaults) vs one fit at the selected values (10 labels/class, "
                        f"median of {args.repeats})\n\n| data | n | learner | single fit (s) | auto fit (s) | "
                        "auto / single | acc auto |\n|---|---|---|---|---|---|---|\n")
                for r in rows:
                    f.write(f"| {r['dataset']} | {r['n']} | {r['learner']} | {r['single_s']:.3f} | {r['auto_s']:.3f} | "
                            f"{r['ratio']:.2f} | {r['acc_auto']:.3f} |\n")
        for ds in [d for d in args.accuracy.split(",") if d]:
            names = [k for k in _estimators() if args.only in k]
            if ds == "circles":
                rows = accuracy_table("circles", args.draws, 10, names=names, widths=(0.2, 0.35, 0.5, 0.7, 1.0, 1.4))
            else:
                inductive = [k for k in names if k != "Fredholm" and k != "Warped"] or names
                rows = accuracy_table("digits", args.draws, 10, names=inductive, widths=(0.5, 0.7, 1.0),
                                      gamma_As=(1e-6,))
            with open(os.path.join(out, f"selection_accuracy_{ds}.json"), "w") as f:
                json.dump(rows, f, indent=1, default=str)
            with open(os.path.join(out, f"selection_accuracy_{ds}.md"), "w") as f:
                f.write(f"# Defaults vs the best of a hand grid ({ds}, 10 labels per class, mean over {args.draws} "
                        "draws)\n\n| learner | defaults | std | hand-tuned best | gap | best hand params "
                        "(sigma in units of the median distance) |\n|---|---|---|---|---|---|\n")
                for r in rows:
                    f.write(f"| {r['learner']} | {r['auto']:.3f} | {r['auto_std']:.3f} | {r['hand_best']:.3f} | "
                            f"{r['gap']:+.3f} | {r['hand_best_params']} |\n")
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="1 run per timing instead of 5")
    ap.add_argument("--only", default="", help="run the learners whose name contains this text")
    ap.add_argument("--estimators", action="store_true",
                    help="estimator-level table instead (see main_estimators; other flags after --)")
    args, rest = ap.parse_known_args(argv)
    if args.estimators:
        return main_estimators(rest + (["--only", args.only] if args.only else []))
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
