"""Benchmark: inductive semi-supervised kernel learners (RLS, LapRLS, PRLS, PLapRLS, G-RLS).

Two parts, written to ``benchmarks/results/manifold.json`` and ``manifold.md``:

1. **Time and memory** on Fashion-MNIST subsets (float64, n = 2000, 5000, 20000
   training points, 10 labels per class, one-vs-rest over 10 classes): fit and
   predict (on the n training rows, through the out-of-sample path) of every
   learner with its defaults.  The anchor is scikit-learn's ``KernelRidge``
   (``kernel="rbf"``, same width) against ``RLSRegressor`` -- both fitted on all
   n rows labeled (one-hot targets), i.e. the same n x n Cholesky problem.  Each
   measurement runs in a fresh process (peak RSS from the OS) after a warm-up
   fit on 200 points (imports, BLAS threads); medians over
   ``--repeats`` runs with the methods interleaved, ratios from the same run.
2. **Accuracy on the digits** (scikit-learn's 1797 x 64), 10 labels per class,
   10 label draws, accuracy on the unlabeled rows.  Hyperparameters per draw by
   leave-one-out on the *labeled* points only (the hat-matrix identity of
   :func:`graphrkhs.loo_predictions`): maximize LOO accuracy, ties broken by LOO
   squared error, then by grid order.  The estimators' defaults are reported too.

Usage::

    python benchmarks/manifold.py            # full: n up to 20000, 3 repeats (about 40 minutes)
    python benchmarks/manifold.py --quick    # n = 2000 only, digits with 3 draws
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "results")
METHODS = ["KernelRidge", "RLS(all labeled)", "RLS", "PRLS", "GRLS", "LapRLS", "PLapRLS"]


# ---------------------------------------------------------------------------
# Part 1: one measurement in a fresh process
# ---------------------------------------------------------------------------

def fashion_subset(n, seed=0):
    from graphrkhs.datasets import load_fashion_mnist, sample_labels

    X, y = load_fashion_mnist(dtype=np.float32)
    idx = np.random.default_rng(seed).permutation(X.shape[0])[:n]
    X, y = X[idx].astype(np.float64), y[idx]
    yl, _ = sample_labels(y, 10, random_state=seed)
    return X, y, np.asarray(yl)


def measure_one(method, n):
    import resource

    import graphrkhs as gr

    from sklearn.kernel_ridge import KernelRidge

    X, y, yl = fashion_subset(n)
    sigma = gr.default_sigma(X)
    if n > 200:   # warm-up on a small problem: lazy imports and BLAS thread start-up are not timed
        measure_one(method, 200)
    t0 = time.perf_counter()
    if method == "KernelRidge":
        Y = np.eye(10)[y] * 2 - 1
        est = KernelRidge(alpha=1e-3 * n, kernel="rbf", gamma=1 / (2 * sigma**2)).fit(X, Y)
        t1 = time.perf_counter()
        pred = est.predict(X).argmax(1)
    else:
        if method == "RLS(all labeled)":
            est = gr.RLSClassifier(sigma=sigma, alpha=1e-3).fit(X, y)
        else:
            est = {"RLS": gr.RLSClassifier, "PRLS": gr.PRLSClassifier, "GRLS": gr.GRLSClassifier,
                   "LapRLS": gr.LapRLSClassifier, "PLapRLS": gr.PLapRLSClassifier}[method](sigma=sigma).fit(X, yl)
        t1 = time.perf_counter()
        pred = est.predict(X)
    t2 = time.perf_counter()
    un = yl == -1
    info = getattr(est, "solver_info_", {})
    return {"fit": t1 - t0, "predict": t2 - t1, "rss_gib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20,
            "accuracy_unlabeled": float((pred[un] == y[un]).mean()),
            "solver": info.get("solver"), "n_iter": int(info.get("n_iter", 0)) if info else None,
            "converged": bool(np.all(info.get("converged", True))) if info else None}


def run_timing(sizes, repeats):
    rows = []
    for n in sizes:
        runs = {m: [] for m in METHODS}
        for r in range(repeats):
            for m in METHODS:          # interleaved, so load changes hit every method alike
                if m == "PLapRLS" and n >= 20000 and r > 0:
                    continue           # its CG fit takes minutes at n = 20000: one run only (said in the table)
                proc = subprocess.run([sys.executable, __file__, "--one", m, str(n)], capture_output=True, text=True)
                if proc.returncode != 0:
                    print(proc.stderr[-2000:], file=sys.stderr)
                    runs[m].append(None)
                    continue
                res = json.loads(proc.stdout.strip().splitlines()[-1])
                runs[m].append(res)
                print(f"n={n} rep={r} {m}: fit {res['fit']:.2f}s predict {res['predict']:.2f}s "
                      f"rss {res['rss_gib']:.2f} GiB acc {res['accuracy_unlabeled']:.3f} {res.get('solver')} "
                      f"{res.get('n_iter')}", file=sys.stderr, flush=True)
        for m in METHODS:
            ok = [x for x in runs[m] if x is not None]
            if not ok:
                rows.append({"n": n, "method": m, "failed": True})
                continue
            rows.append({"n": n, "method": m, "repeats": len(ok),
                         "fit_median": float(np.median([x["fit"] for x in ok])),
                         "fit_all": [x["fit"] for x in ok],
                         "predict_median": float(np.median([x["predict"] for x in ok])),
                         "rss_gib_max": float(max(x["rss_gib"] for x in ok)),
                         "accuracy_unlabeled": ok[0]["accuracy_unlabeled"],
                         "solver": ok[0]["solver"], "n_iter": ok[0]["n_iter"], "converged": ok[0]["converged"]})
        # ratios against the anchor, per repeat then median (same-run pairs)
        kr = runs["KernelRidge"]
        rl = runs["RLS(all labeled)"]
        pairs = [b["fit"] / a["fit"] for a, b in zip(kr, rl) if a and b]
        for row in rows:
            if row["n"] == n and row["method"] == "RLS(all labeled)" and pairs:
                row["fit_ratio_vs_kernelridge"] = float(np.median(pairs))
    return rows


def anchor_pairs(sizes=(2000, 5000), repeats=7):
    """RLS vs KernelRidge fit, in one process, alternating, ``repeats`` pairs per size (median of ratios).

    The fresh-process table above includes whatever else the shared machine was doing during
    each (minutes-long) run; alternating short fits in one process exposes both to the same load.
    """
    from sklearn.kernel_ridge import KernelRidge

    import graphrkhs as gr

    out = []
    for n in sizes:
        X, y, _ = fashion_subset(n)
        sigma = gr.default_sigma(X)
        Y = np.eye(10)[y] * 2 - 1
        kr_t, rls_t = [], []
        for r in range(repeats + 1):
            order = ("kr", "rls") if r % 2 == 0 else ("rls", "kr")
            times = {}
            for m in order:
                t0 = time.perf_counter()
                if m == "kr":
                    KernelRidge(alpha=1e-3 * n, kernel="rbf", gamma=1 / (2 * sigma**2)).fit(X, Y)
                else:
                    gr.RLSClassifier(sigma=sigma, alpha=1e-3).fit(X, y)
                times[m] = time.perf_counter() - t0
            if r:                                   # the first pair is a warm-up
                kr_t.append(times["kr"])
                rls_t.append(times["rls"])
        ratios = [a / b for a, b in zip(rls_t, kr_t)]
        out.append({"n": n, "kernelridge_median": float(np.median(kr_t)), "rls_median": float(np.median(rls_t)),
                    "ratio_median": float(np.median(ratios)), "ratios": ratios})
        print(f"anchor n={n}: KernelRidge {np.median(kr_t):.2f}s RLS {np.median(rls_t):.2f}s "
              f"ratio {np.median(ratios):.2f}", file=sys.stderr, flush=True)
    return out


def rows_from_log(path):
    """Timing rows from the per-run lines this script prints on stderr (same medians and ratios)."""
    import re

    pat = re.compile(r"n=(\d+) rep=(\d+) (.+?): fit ([\d.]+)s predict ([\d.]+)s rss ([\d.]+) GiB acc ([\d.]+) "
                     r"(\S+) (\S+)")
    runs = {}
    for line in open(path):
        mt = pat.match(line.strip())
        if mt:
            n, rep, m = int(mt[1]), int(mt[2]), mt[3]
            runs.setdefault(n, {}).setdefault(m, {})[rep] = {
                "fit": float(mt[4]), "predict": float(mt[5]), "rss_gib": float(mt[6]),
                "accuracy_unlabeled": float(mt[7]), "solver": None if mt[8] == "None" else mt[8],
                "n_iter": None if mt[9] == "None" else int(mt[9]), "converged": None}
    rows = []
    for n in sorted(runs):
        for m in METHODS:
            ok = list(runs[n].get(m, {}).values())
            if not ok:
                rows.append({"n": n, "method": m, "failed": True})
                continue
            row = {"n": n, "method": m, "repeats": len(ok),
                   "fit_median": float(np.median([x["fit"] for x in ok])), "fit_all": [x["fit"] for x in ok],
                   "predict_median": float(np.median([x["predict"] for x in ok])),
                   "rss_gib_max": float(max(x["rss_gib"] for x in ok)),
                   "accuracy_unlabeled": ok[0]["accuracy_unlabeled"], "solver": ok[0]["solver"],
                   "n_iter": ok[0]["n_iter"], "converged": ok[0]["converged"]}
            if m == "RLS(all labeled)":
                kr, rl = runs[n].get("KernelRidge", {}), runs[n][m]
                pairs = [rl[r]["fit"] / kr[r]["fit"] for r in rl if r in kr]
                if pairs:
                    row["fit_ratio_vs_kernelridge"] = float(np.median(pairs))
            rows.append(row)
    return rows


# ---------------------------------------------------------------------------
# Part 2: digits accuracy with leave-one-out selection on the labeled points
# ---------------------------------------------------------------------------

GRIDS = {
    "RLS": [dict(alpha=a) for a in (1e-5, 1e-4, 1e-3, 1e-2, 1e-1)],
    "PRLS": [dict(gamma=g) for g in (1e-5, 1e-4, 1e-3, 1e-2, 1e-1)],
    "LapRLS": [dict(gamma_A=a, gamma_I=i) for a in (1e-6, 1e-4) for i in (1.0, 10.0, 100.0, 1000.0)],
    "PLapRLS": [dict(gamma_A=a, gamma_I=i) for a in (1e-6, 1e-4) for i in (1.0, 10.0, 100.0, 1000.0)],
}


def hat_matrices(X, S, sigma, M):
    """For each learner and grid point, the hat matrix on the labeled points (fit applied to I_l)."""
    import graphrkhs as gr

    n, l = X.shape[0], S.size
    K = gr.pairwise_kernel(X, sigma=sigma)
    I = np.eye(l)
    out = {}
    KSS = K[np.ix_(S, S)]
    out["RLS"] = [KSS @ gr.rls_fit(KSS, I, p["alpha"]) for p in GRIDS["RLS"]]
    Kg, Kp, Kpp, kappa = gr.consistency_grams(X[S], X, integral_operator="empirical", sigma=sigma)
    res = []
    for p in GRIDS["PRLS"]:
        a, b = gr.prls_fit(Kg, Kp, Kpp, I, p["gamma"])
        res.append(Kg @ a + b)
    out["PRLS"] = res
    out["LapRLS"] = [K[S] @ gr.laprls_fit(K, S, I, M, p["gamma_A"], p["gamma_I"]) for p in GRIDS["LapRLS"]]
    Kn = K / (K.mean())
    res = []
    for p in GRIDS["PLapRLS"]:
        a, b = gr.plaprls_fit(Kn, S, I, M, p["gamma_A"], p["gamma_I"])
        res.append(Kn[S] @ a + b)
    out["PLapRLS"] = res
    return out


def loo_select(H_list, Y, codes):
    import graphrkhs as gr

    best, key = 0, None
    for i, H in enumerate(H_list):
        F = gr.loo_predictions(H, Y)
        acc = float((F.argmax(1) == codes).mean())
        mse = float(((F - Y) ** 2).mean())
        k = (-acc, mse)
        if key is None or k < key:
            best, key = i, k
    return best, -key[0]


def run_digits(n_draws):
    import graphrkhs as gr
    from graphrkhs.datasets import load_digits, sample_labels

    X, y = load_digits()
    sigma = gr.default_sigma(X)
    M = gr.graph_penalty(gr.knn_graph(X, 10))
    classes = {"RLS": gr.RLSClassifier, "PRLS": gr.PRLSClassifier, "LapRLS": gr.LapRLSClassifier,
               "PLapRLS": gr.PLapRLSClassifier, "GRLS": gr.GRLSClassifier}
    acc_loo = {m: [] for m in GRIDS}
    acc_def = {m: [] for m in classes}
    chosen = {m: [] for m in GRIDS}
    for draw in range(n_draws):
        yl, _ = sample_labels(y, 10, random_state=draw)
        yl = np.asarray(yl)
        un = yl == -1
        S = np.flatnonzero(~un)
        codes = y[S]
        Y = np.where(np.eye(10)[codes] > 0, 1.0, -1.0)
        H = hat_matrices(X, S, sigma, M)
        for m in GRIDS:
            i, loo_acc = loo_select(H[m], Y, codes)
            params = GRIDS[m][i]
            chosen[m].append({**params, "loo_accuracy": loo_acc})
            est = classes[m](sigma=sigma, **params).fit(X, yl)
            acc_loo[m].append(float((est.predict(X[un]) == y[un]).mean()))
        for m, E in classes.items():
            acc_def[m].append(float((E().fit(X, yl).predict(X[un]) == y[un]).mean()))
        print(f"digits draw {draw}: LOO-selected " + ", ".join(f"{m} {acc_loo[m][-1]:.4f}" for m in GRIDS),
              file=sys.stderr, flush=True)
    summary = {m: {"mean": float(np.mean(v)), "std": float(np.std(v)), "all": v} for m, v in acc_loo.items()}
    defaults = {m: {"mean": float(np.mean(v)), "std": float(np.std(v)), "all": v} for m, v in acc_def.items()}
    return {"loo_selected": summary, "defaults": defaults, "chosen": chosen, "n_draws": n_draws}


# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------

def write(timing, digits, args):
    os.makedirs(RESULTS, exist_ok=True)
    with open(os.path.join(RESULTS, "manifold.json"), "w") as f:
        json.dump({"timing": timing, "digits": digits, "quick": args.quick, "repeats": args.repeats,
                   "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}, f, indent=1)
    now = time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())
    if getattr(args, "assemble", None):
        # the timing rows come from an earlier run's log, the digits rows (and the anchor pairs) from their
        # own JSON: each part states its own date, so that rows measured on other days are not labelled as one run
        when = (f"Assembled {now} from the timing log `{os.path.basename(args.assemble)}` (timing rows of the run "
                f"of {args.timing_date or 'an earlier date'}) and the digits results of {digits.get('date', '?')} "
                f"(anchor pairs of {digits.get('anchor_date', digits.get('date', '?'))}); ")
    else:
        when = f"Run {now}, "
    L = ["# Inductive semi-supervised learners", "",
         when +
         f"{'quick' if args.quick else 'full'} mode; medians of up to {args.repeats} interleaved runs (column "
         "'runs'), each in a fresh process; machine shared with other jobs (load average 6-10 on 2 cores during "
         "this run: absolute seconds are noisy, same-run ratios much less).  'failed / not run': the process died "
         "without a Python error (killed by signal; on this shared 24 GB machine most likely out of memory) or "
         "the run was stopped at the deadline.", "",
         "## Fit / predict time on Fashion-MNIST subsets (float64, 10 labels per class, one-vs-rest x 10)", "",
         "`KernelRidge` (anchor) and `RLS(all labeled)` fit the same fully labeled n x n problem; the other rows "
         "are the semi-supervised learners with their defaults (100 labeled rows).  PLapRLS at n = 20000 "
         "(kernel-preconditioned CG, two kernel products per iteration) is a single run.", "",
         "| n | method | runs | fit (s) | predict (s) | fit / KernelRidge | peak RSS (GiB) | solver (iters) | "
         "acc. unlabeled |", "|---|---|---|---|---|---|---|---|---|"]
    for r in timing:
        if r.get("failed"):
            L.append(f"| {r['n']} | {r['method']} | 0 | failed / not run | | | | | |")
            continue
        ratio = f"{r['fit_ratio_vs_kernelridge']:.2f}" if "fit_ratio_vs_kernelridge" in r else ""
        solver = "" if r["solver"] is None else f"{r['solver']} ({r['n_iter']})" + ("" if r["converged"] in (None, True) else " NOT converged")
        L.append(f"| {r['n']} | {r['method']} | {r['repeats']} | {r['fit_median']:.2f} | {r['predict_median']:.2f} | {ratio} | "
                 f"{r['rss_gib_max']:.2f} | {solver} | {r['accuracy_unlabeled']:.3f} |")
    if digits and digits.get("anchor"):
        L += ["", "## RLS against KernelRidge, one process, alternating fits (7 pairs after a warm-up pair)", "",
              "| n | KernelRidge fit (s) | RLS fit (s) | median of RLS / KernelRidge |", "|---|---|---|---|"]
        for a in digits["anchor"]:
            L.append(f"| {a['n']} | {a['kernelridge_median']:.2f} | {a['rls_median']:.2f} | {a['ratio_median']:.2f} |")
    if digits:
        L += ["", f"## Digits (1797 x 64), 10 labels per class, mean over {digits['n_draws']} draws "
              "(accuracy on the unlabeled rows)", "",
              "| method | LOO-selected (mean +- std) | defaults (mean) |", "|---|---|---|"]
        for m in ("RLS", "PRLS", "LapRLS", "PLapRLS", "GRLS"):
            loo = digits["loo_selected"].get(m)
            d = digits["defaults"][m]
            loo_txt = "" if loo is None else "{:.4f} +- {:.4f}".format(loo["mean"], loo["std"])
            L.append(f"| {m} | {loo_txt} | {d['mean']:.4f} |")
        best_lap = min(digits["loo_selected"]["LapRLS"]["mean"], digits["loo_selected"]["PLapRLS"]["mean"])
        best_sup = max(digits["loo_selected"]["RLS"]["mean"], digits["loo_selected"]["PRLS"]["mean"])
        L += ["", f"Margin (worse of LapRLS/PLapRLS minus better of RLS/PRLS, LOO-selected): "
              f"{100 * (best_lap - best_sup):.2f} points (target >= 3).", "",
              "Selection rule: for each draw, every grid point's hat matrix on the 100 labeled points gives exact "
              "leave-one-out predictions; the grid point with the best LOO accuracy (ties: lowest LOO squared error) "
              "is refitted on all rows.  Grids: " + "; ".join(f"{m}: {GRIDS[m]}" for m in GRIDS) + ".  "
              "sigma = median pairwise distance (no labels), 10-NN Gaussian graph, combinatorial Laplacian."]
    with open(os.path.join(RESULTS, "manifold.md"), "w") as f:
        f.write("\n".join(L) + "\n")
    print("\n".join(L))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="n = 2000 only and 3 digit draws")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sizes", default=None, help="comma-separated training sizes")
    parser.add_argument("--skip-timing", action="store_true")
    parser.add_argument("--skip-digits", action="store_true")
    parser.add_argument("--digits-json", default=None,
                        help="with --skip-timing: only write the digits results to this JSON file")
    parser.add_argument("--assemble", default=None, metavar="LOG",
                        help="rebuild the tables from a timing log (this script's stderr) and --digits-json")
    parser.add_argument("--timing-date", default=None,
                        help="with --assemble: the date of the run that wrote the timing log (stated in the table)")
    parser.add_argument("--anchor-from", default=None, metavar="JSON",
                        help="with --assemble: take the RLS / KernelRidge anchor pairs from this earlier "
                             "manifold.json (e.g. when the new digits run was made on a loaded machine)")
    parser.add_argument("--one", nargs=2, metavar=("METHOD", "N"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure_one(args.one[0], int(args.one[1]))))
        return 0
    if args.assemble:
        with open(args.digits_json) as f:
            digits = json.load(f)
        if args.anchor_from:
            with open(args.anchor_from) as f:
                earlier = json.load(f)
            digits["anchor"] = earlier["digits"]["anchor"]
            digits["anchor_date"] = earlier.get("date", "?")
        write(rows_from_log(args.assemble), digits, args)
        return 0
    if args.digits_json and args.skip_timing:
        digits = run_digits(3 if args.quick else 10)
        digits["anchor"] = anchor_pairs()
        digits["date"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        with open(args.digits_json, "w") as f:
            json.dump(digits, f)
        return 0
    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else ([2000] if args.quick else [2000, 5000, 20000])
    timing = [] if args.skip_timing else run_timing(sizes, args.repeats)
    digits = None if args.skip_digits else run_digits(3 if args.quick else 10)
    write(timing, digits, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
