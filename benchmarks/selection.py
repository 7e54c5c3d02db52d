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

Estimator level (issue 14, the inductive and data-dependent learners): ``E().fit`` with every parameter
"auto" against ``E(<the selected values>).fit`` (one fit at one value, same data), and the accuracy of
the defaults against the best of a fine hand grid (noisy circles, digits; mean over label draws):

  python benchmarks/selection.py --estimators [--repeats 5] [--fashion 5000] [--accuracy circles,digits]
                                             [--names RLS,PRLS,G-RLS]   (only these rows of the cost table)

writes results/selection_estimators.{json,md} and results/selection_accuracy_<data>.{json,md}.

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


def estimator_costs(dataset="digits", n=5000, repeats=5, only="", names=None):
    """auto / single fit time of every inductive and data-dependent classifier (10 labels per class).

    ``only``: the learners whose name contains this text; ``names``: exactly these learners.
    """
    X, y = _load(dataset, n)
    yp, S = sample_labels(y, 10, random_state=0)
    U = np.setdiff1d(np.arange(y.size), S)
    rows = []
    for name, E in _estimators().items():
        if only not in name or (names is not None and name not in names):
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


#: The fine hand grid: widths 2^(k/4) times the median pairwise distance, regularization over decades.
WIDTHS_HAND = tuple(2.0 ** (k / 4) for k in range(-10, 7))          # 0.18 .. 2.83
RIDGES_HAND = tuple(10.0 ** k for k in range(-10, 1))                # RLS alpha, Fredholm relative alpha
GAMMAS_HAND = tuple(10.0 ** k for k in range(-8, 1))                 # PRLS / G-RLS gamma
GAMMA_AS_HAND = tuple(10.0 ** k for k in range(-9, 0))               # LapRLS / PLapRLS / warped gamma_A
RATIOS_HAND = (0.0,) + tuple(10.0 ** k for k in range(0, 13))        # gamma_I / gamma_A (0: RLS)


def hand_grid(name, s0, widths=WIDTHS_HAND):
    """The fine hand grid of one learner (widths relative to the median pairwise distance s0)."""
    sig = [w * s0 for w in widths]
    if name == "RLS":
        return [dict(sigma=s, alpha=a) for s in sig for a in RIDGES_HAND]
    if name in ("PRLS", "G-RLS"):
        return [dict(sigma=s, gamma=g) for s in sig for g in GAMMAS_HAND]
    if name == "Fredholm":
        return [dict(sigma=s, alpha=a) for s in sig for a in RIDGES_HAND]
    return [dict(sigma=s, gamma_A=ga, gamma_I=r * ga) for s in sig for r in RATIOS_HAND for ga in GAMMA_AS_HAND]


def _predicted(F, classes):
    return classes[(F[:, 0] > 0).astype(int)] if F.shape[1] == 1 else classes[np.argmax(F, axis=1)]


def _path_scores(name, X, y, S, U, s0, widths):
    """Test accuracy of every point of ``hand_grid(name)`` through the solvers' ridge paths.

    The same fits as ``E(**params).fit`` (checked against the estimator at one grid point per call),
    but one kernel (and, for the manifold learners, one LU per ratio gamma_I / gamma_A) per width
    instead of one per grid point: Fredholm = RLS on the Fredholm kernel scaled by mean(diag K_SS)
    (its ``alpha`` is relative); LapRLS = warped-kernel RLS (the same function class, so the warped
    learner's grid is LapRLS's); PLapRLS = the consistency path on K / mean(K) with a free constant.
    """
    from graphrkhs import FredholmKernel
    from graphrkhs.solvers import ManifoldRidgePath

    classes = np.unique(y[S])
    Y = np.eye(classes.size)[np.searchsorted(classes, y[S])] * 2 - 1
    if classes.size == 2:
        Y = Y[:, 1:]
    l = S.size
    out = []
    M = graph_penalty(knn_graph(X, n_neighbors=10)) if name != "Fredholm" else None
    for w in widths:
        s = w * s0
        if name == "Fredholm":
            kern = FredholmKernel(X, sigma=s)
            R = kern.right_factor(X[S])
            G = kern(X[S], X[S], right=R)
            scale = float(np.trace(G)) / l
            KU = kern(X[U], X[S], right=R)
            for a in RIDGES_HAND:
                out.append(np.mean(_predicted(KU @ np.linalg.solve(G + a * scale * np.eye(l), Y), classes) == y[U]))
            continue
        K = pairwise_kernel(X, sigma=s).astype(np.float64)
        consistency = name == "PLapRLS"
        if consistency:
            K /= K.mean()
        mp = ManifoldRidgePath(K, S, M, consistency=consistency)
        for r in RATIOS_HAND:
            try:
                mp.basis(r)
            except np.linalg.LinAlgError:
                out.extend([np.nan] * len(GAMMA_AS_HAND))
                continue
            for ga in GAMMA_AS_HAND:
                alpha, b = mp.coef(Y, ga, r, fit_intercept=consistency)
                out.append(np.mean(_predicted(K[U] @ alpha + b, classes) == y[U]))
            mp._Z.clear()                      # one n x l basis at a time (memory)
    return out


def accuracy_table(dataset, n_draws, labels, n_samples=1000, names=None, widths=WIDTHS_HAND):
    """Defaults against the best of the fine hand grid (mean over label draws), per learner.

    The hand-tuned best is the grid point with the best *mean* test accuracy over the draws (one fixed
    setting per learner, picked on the test points: an optimistic reference).  RLS, PRLS and G-RLS are
    fitted by the estimator at every grid point; Fredholm, LapRLS, PLapRLS and warped through the
    solvers' paths (``_path_scores``, checked against the estimator at one grid point per draw).
    """
    from graphrkhs.datasets import make_noisy_circles
    from graphrkhs.kernels import default_sigma

    names = names or list(_estimators())
    auto = {k: [] for k in names}
    hand = {k: [] for k in names}
    path_based = {"Fredholm", "LapRLS", "PLapRLS", "Warped"}
    rng = np.random.default_rng(12345)
    for d in range(n_draws):
        if dataset == "circles":
            X, y = make_noisy_circles(n_samples, random_state=d)
        else:
            X, y = load_digits()
        yp, S = sample_labels(y, labels, random_state=d)
        U = np.setdiff1d(np.arange(y.size), S)
        s0 = default_sigma(X)
        shared = {}
        for k in names:
            E = _estimators()[k]
            auto[k].append(E().fit(X, yp).score(X[U], y[U]))
            grid = hand_grid(k, s0, widths)
            if k in path_based:
                key = "LapRLS" if k == "Warped" else k
                if key not in shared:
                    shared[key] = _path_scores(key, X, y, S, U, s0, widths)
                scores = shared[key]
                # the check: the estimator at one random grid point gives the path's accuracy
                i = int(rng.integers(len(grid)))
                if np.isfinite(scores[i]):
                    est = E(**grid[i]).fit(X, yp).score(X[U], y[U])
                    assert abs(est - scores[i]) <= 2.0 / U.size, (k, grid[i], est, scores[i])
            else:
                scores = [E(**p).fit(X, yp).score(X[U], y[U]) for p in grid]
            hand[k].append(scores)
        print(f"{dataset} draw {d}: " + ", ".join(f"{k} {auto[k][-1]:.3f}/{np.nanmax(hand[k][-1]):.3f}" for k in names),
              flush=True)
    rows = []
    for k in names:
        H = np.nanmean(hand[k], axis=0)
        i = int(np.nanargmax(H))
        rows.append({"dataset": dataset, "learner": k, "auto": float(np.mean(auto[k])), "auto_std": float(np.std(auto[k])),
                     "auto_min": float(np.min(auto[k])), "hand_best": float(H[i]),
                     "hand_best_params": {p: float(np.round(v, 10)) for p, v in hand_grid(k, 1.0, widths)[i].items()},
                     "gap": float(H[i] - np.mean(auto[k])), "n_draws": n_draws, "grid_size": len(H)})
    return rows


def main_estimators(argv=None):
    ap = argparse.ArgumentParser(description="estimator-level cost and accuracy of the automatic defaults")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--only", default="")
    ap.add_argument("--fashion", type=int, default=0, help="also a Fashion-MNIST subset of this size")
    ap.add_argument("--accuracy", default="", help="'circles', 'digits' or 'circles,digits'")
    ap.add_argument("--draws", type=int, default=10)
    ap.add_argument("--n-circles", type=int, default=1000, help="points of the noisy circles")
    ap.add_argument("--tag", default="", help="suffix of the cost table's file name")
    ap.add_argument("--no-cost", action="store_true")
    ap.add_argument("--names", default="", help="comma-separated exact learner names (e.g. 'RLS,PRLS,G-RLS'); "
                    "their rows replace those of the existing cost table, the other rows are kept")
    args = ap.parse_args(argv)
    names = [k for k in args.names.split(",") if k] or None
    if names is not None and set(names) - set(_estimators()):
        ap.error(f"--names: unknown learner(s) {sorted(set(names) - set(_estimators()))}; "
                 f"choose from {list(_estimators())}")
    out = os.path.join(HERE, "results")
    os.makedirs(out, exist_ok=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if not args.no_cost:
            load = os.getloadavg()
            rows = estimator_costs("digits", repeats=args.repeats, only=args.only, names=names)
            if args.fashion:
                rows += estimator_costs("fashion", n=args.fashion, repeats=args.repeats, only=args.only,
                                        names=names)
            load = [max(a, b) for a, b in zip(load, os.getloadavg())]
            for r in rows:
                r["load"] = round(load[0], 2)
            path = os.path.join(out, f"selection_estimators{args.tag}.json")
            if names is not None and os.path.exists(path):
                # a partial run replaces its learners' rows (per data set) and keeps the others, in order
                with open(path) as f:
                    old = json.load(f)["rows"]
                new = {(r["dataset"], r["learner"]): r for r in rows}
                merged = [new.pop((r["dataset"], r["learner"]), r) for r in old]
                rows = merged + list(new.values())
            with open(path, "w") as f:
                json.dump({"repeats": args.repeats, "rows": rows}, f, indent=1)
            with open(os.path.join(out, f"selection_estimators{args.tag}.md"), "w") as f:
                f.write(f"# Automatic fit (all defaults) vs one fit at the selected values (10 labels/class, "
                        f"median of {args.repeats})\n\nMachine: 2 cores shared with other jobs; 'load' is the "
                        "1-minute load average (uptime), the larger of its values at the start and the end of "
                        "the run that produced the row.\n\n"
                        "| data | n | learner | single fit (s) | auto fit (s) | auto / single | acc auto | load |\n"
                        "|---|---|---|---|---|---|---|---|\n")
                for r in rows:
                    ld = f"{r['load']:.1f}" if "load" in r else "n/a"
                    f.write(f"| {r['dataset']} | {r['n']} | {r['learner']} | {r['single_s']:.4f} | "
                            f"{r['auto_s']:.4f} | {r['ratio']:.2f} | {r['acc_auto']:.3f} | {ld} |\n")
        for ds in [d for d in args.accuracy.split(",") if d]:
            acc_names = names or [k for k in _estimators() if args.only in k]
            if ds == "circles":
                rows = accuracy_table("circles", args.draws, 10, n_samples=args.n_circles, names=acc_names)
            else:
                # digits: the widths above 1.4 times the median distance are far from every optimum (and
                # each costs an LU per ratio at n = 1797)
                rows = accuracy_table("digits", args.draws, 10, names=acc_names, widths=WIDTHS_HAND[:13])
            path = os.path.join(out, f"selection_accuracy_{ds}.json")
            if names is not None and os.path.exists(path):
                # --names: these learners' rows replace theirs in the existing table (same draws), the others are kept
                with open(path) as f:
                    old = json.load(f)
                new = {r["learner"]: r for r in rows}
                rows = [new.pop(r["learner"], r) for r in old] + list(new.values())
            with open(path, "w") as f:
                json.dump(rows, f, indent=1, default=str)
            rls = {r["learner"]: r["auto"] for r in rows}.get("RLS")
            with open(os.path.join(out, f"selection_accuracy_{ds}.md"), "w") as f:
                size = f"n={args.n_circles}, " if ds == "circles" else ""
                f.write(f"# Defaults vs the best of a fine hand grid ({ds}, {size}10 labels per class, mean over "
                        f"{args.draws} draws)\n\nHand grid: widths 2^(k/4) x the median pairwise distance "
                        "(k = -10..6; digits -10..2), ridges over decades (RLS alpha and Fredholm's relative "
                        "alpha 1e-10..1, PRLS / G-RLS gamma 1e-8..1, gamma_A 1e-9..1e-1 with gamma_I / gamma_A "
                        "in {0, 1, 10, ..., 1e12}); the best is the one setting with the best mean test "
                        "accuracy over the draws.  `python benchmarks/selection.py --estimators --no-cost "
                        f"--accuracy {ds} --draws {args.draws}`"
                        + (f" (rows of {', '.join(names)} from `--names {','.join(names)}`, the others from an "
                           "earlier full run)" if names else "") + ".\n\n"
                        "| learner | defaults | std | worst draw | hand-tuned best | gap | defaults - RLS | best hand "
                        "params (sigma in units of the median distance) |\n|---|---|---|---|---|---|---|---|\n")
                for r in rows:
                    margin = f"{r['auto'] - rls:+.3f}" if rls is not None else ""
                    f.write(f"| {r['learner']} | {r['auto']:.3f} | {r['auto_std']:.3f} | {r['auto_min']:.3f} | "
                            f"{r['hand_best']:.3f} | {r['gap']:+.3f} | {margin} | {r['hand_best_params']} |\n")
    return 0

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
    ap.add_argument("--estimators", action="store_true",
                    help="estimator-level table instead (see main_estimators; other flags after --)")
    ap.add_argument("--exact", action="store_true", help="--only names one learner exactly")
    ap.add_argument("--regressors", action="store_true",
                    help="only the table of every regressor vs the mean predictor (regressors_vs_mean.md)")
    args, rest = ap.parse_known_args(argv)
    if args.estimators:
        return main_estimators(rest + (["--only", args.only] if args.only else []))
    if rest:
        ap.error(f"unrecognized arguments: {' '.join(rest)}")
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
