"""Benchmark: the analysis operator of ``GraphTVRegressor`` (``R="incidence"`` / ``"kernel"`` / ``"auto"``).

Graph TV (``R="incidence"``) recovers piecewise-constant targets and is exact on low-dimensional data, but
on smooth targets over higher-dimensional data its minimizer is degenerate: spikes on the labeled nodes
over one constant (Slepcev & Thorpe 2019, p-Laplacian learning with p <= d).  ``R="kernel"`` (generalized
TV with :math:`R = \\varphi(L)^{-1}`) stays informative there.  ``R="auto"`` (the regressor's default) fits
both, each with its own k-fold selection of alpha on the same folds, and keeps the better CV score.

For every data set, label rate and draw (``--draws``; draw d labels a random ``rate`` of the points,
``default_rng(d)``, at least 12), each estimator is fitted with its defaults on the same points and labels,
the graph built from X (``knn_graph`` defaults): ``GraphTVRegressor(R=...)`` for the three values,
``GraphKernelRidgeRegressor()`` (ours, l2 counterpart) and, as the outside anchor, scikit-learn's
``KNeighborsRegressor(n_neighbors=min(5, l))`` on the labeled points.  Score: R^2 on the unlabeled points.
Reported: mean R^2 per row, and for ``"auto"`` the number of fits where it chose the operator whose own fit
scores the higher R^2 (ties within 1e-3 count as right), and its mean loss against the better of the two.
Fit times: medians over the draws.

Data (all in scikit-learn, no download): ``make_friedman1`` (400 and 2000 points, 10 features, smooth),
``load_diabetes`` (442 x 10, smooth), the digits with the digit as a number (1797 x 64, piecewise
constant on clusters), two moons with the moon as 0/1 (600 x 2, piecewise constant) and with
``x_0 + moon`` (piecewise smooth), a swiss roll with its roll parameter as target (1000 x 3, a smooth
target on a 2-D manifold).

Usage::

    python benchmarks/tv_regression.py                      # 5 draws, rates 0.02, 0.1, 0.3
    python benchmarks/tv_regression.py --draws 2 --datasets moons01,friedman400
"""

import argparse
import json
import os
import sys
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
RESULTS = os.path.join(HERE, "results")


def datasets():
    from sklearn import datasets as skd

    def friedman(n):
        return lambda: skd.make_friedman1(n, noise=0.5, random_state=0)

    def digits():
        X, y = skd.load_digits(return_X_y=True)
        return X / 16.0, y.astype(float)

    def moons(smooth):
        def make():
            X, y = skd.make_moons(600, noise=0.1, random_state=0)
            return X, (X[:, 0] + y if smooth else y.astype(float))
        return make

    def swiss():
        X, t = skd.make_swiss_roll(1000, noise=0.1, random_state=0)
        return X, t

    return {"friedman400": friedman(400), "friedman2000": friedman(2000),
            "diabetes": lambda: skd.load_diabetes(return_X_y=True), "digits": digits,
            "moons01": moons(False), "moons_smooth": moons(True), "swissroll": swiss}


def r2(pred, truth):
    return float(1.0 - np.mean((pred - truth) ** 2) / np.var(truth))


def run(names, rates, draws):
    from sklearn.neighbors import KNeighborsRegressor

    from graphrkhs import GraphKernelRidgeRegressor, GraphTVRegressor

    rows = []
    for name in names:
        X, t = datasets()[name]()
        n = t.size
        for rate in rates:
            scores = {k: [] for k in ("incidence", "kernel", "auto", "kernel ridge", "kNN (scikit-learn)")}
            times = {k: [] for k in scores}
            chosen, right, loss = [], 0, []
            for d in range(draws):
                lab = np.random.default_rng(d).choice(n, max(12, int(round(rate * n))), replace=False)
                y = np.full(n, np.nan)
                y[lab] = t[lab]
                un = np.ones(n, dtype=bool)
                un[lab] = False
                makers = {"incidence": lambda: GraphTVRegressor(R="incidence"),
                          "kernel": lambda: GraphTVRegressor(R="kernel"),
                          "auto": lambda: GraphTVRegressor(R="auto"),
                          "kernel ridge": lambda: GraphKernelRidgeRegressor()}
                for k, make in makers.items():
                    t0 = time.perf_counter()
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        model = make().fit(X, y)
                    times[k].append(time.perf_counter() - t0)
                    scores[k].append(r2(model.transduction_[un], t[un]))
                    if k == "auto":
                        chosen.append(str(model.R_))
                t0 = time.perf_counter()
                knn = KNeighborsRegressor(n_neighbors=min(5, lab.size)).fit(X[lab], t[lab])
                scores["kNN (scikit-learn)"].append(r2(knn.predict(X[un]), t[un]))
                times["kNN (scikit-learn)"].append(time.perf_counter() - t0)
                inc, ker = scores["incidence"][-1], scores["kernel"][-1]
                better = max(inc, ker)
                right += int(scores["auto"][-1] >= better - 1e-3)
                loss.append(better - scores["auto"][-1])
            row = {"dataset": name, "n": int(n), "rate": rate, "draws": draws,
                   "r2": {k: float(np.mean(v)) for k, v in scores.items()},
                   "time_median": {k: float(np.median(v)) for k, v in times.items()},
                   "auto_chosen": chosen, "auto_right": right, "auto_mean_loss": float(np.mean(loss))}
            rows.append(row)
            print(f"{name:13s} rate {rate:4.2f}  " + "  ".join(f"{k} {v:6.3f}" for k, v in row["r2"].items())
                  + f"  auto chose {''.join(c[0] for c in chosen)} ({right}/{draws} right)", flush=True)
    return rows


def write(rows):
    os.makedirs(RESULTS, exist_ok=True)
    with open(os.path.join(RESULTS, "tv_regression.json"), "w") as fh:
        json.dump(rows, fh, indent=1)
    keys = list(rows[0]["r2"])
    lines = ["| data (n) | labels | " + " | ".join(f"R^2 {k}" for k in keys)
             + " | auto chose (i/k) | auto right | auto's mean loss | fit time incidence / kernel / auto (s) |",
             "|" + "---|" * (len(keys) + 6)]
    for r in rows:
        tm = r["time_median"]
        lines.append(f"| {r['dataset']} ({r['n']}) | {r['rate']:.0%} | "
                     + " | ".join(f"{r['r2'][k]:.3f}" for k in keys)
                     + f" | {''.join(c[0] for c in r['auto_chosen'])} | {r['auto_right']}/{r['draws']}"
                     + f" | {r['auto_mean_loss']:.3f} | {tm['incidence']:.2f} / {tm['kernel']:.2f} / {tm['auto']:.2f} |")
    total = sum(r["auto_right"] for r in rows)
    fits = sum(r["draws"] for r in rows)
    lines.append("")
    lines.append(f"R=\"auto\" kept the operator with the higher R^2 (within 1e-3) in {total} of {fits} fits.")
    with open(os.path.join(RESULTS, "tv_regression.md"), "w") as fh:
        fh.write("\n".join(lines) + "\n")
    print("\n".join(lines))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", default=",".join(datasets()))
    ap.add_argument("--rates", default="0.02,0.1,0.3")
    ap.add_argument("--draws", type=int, default=5)
    args = ap.parse_args(argv)
    names = [s for s in args.datasets.split(",") if s]
    unknown = set(names) - set(datasets())
    if unknown:
        ap.error(f"unknown data set(s) {sorted(unknown)}; choose from {sorted(datasets())}")
    write(run(names, [float(r) for r in args.rates.split(",")], args.draws))


if __name__ == "__main__":
    main()
