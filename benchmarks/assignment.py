"""Benchmark: the size-constrained assignment (auction) on real scores, against scipy's assignment solver.

:func:`graphrkhs.solvers.size_constrained_assignment` labels n nodes with k prescribed class sizes and the
largest total score; every classifier's ``class_priors`` and each round of Poisson / volume MBO run it.
Scores: Poisson learning's (:func:`graphrkhs.poisson_learning`) on the recommended classifier's Fashion-MNIST
graph (``benchmarks/label_rates.py``'s cache, ``random_state=0``), 1 and 10 labels per class (the first draw
of ``default_rng([0, rate])``), raw and standardized per class; the first n unlabeled rows, uniform sizes.

Anchor, same run: ``scipy.optimize.linear_sum_assignment`` on the expanded n x n problem (class c as
``sizes[c]`` identical columns), the exact optimum, for n up to ``--anchor-max`` (its dense n x n cost
matrix rules out the 69990 rows).  Times are medians of ``--repeats`` runs (a first, untimed call compiles
the auction); the table gives the optimum gap of ours (total score below scipy's, relative to it) and the
time ratio scipy / ours.

Run:  python benchmarks/assignment.py                 # n = 2000, 4000, 20000, all; 5 repeats
"""
import argparse
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
RESULTS = os.path.join(HERE, "results")


def scores(rate):
    """Poisson learning's scores of the unlabeled rows of Fashion-MNIST, one draw of ``rate`` labels per class."""
    import label_rates
    from graphrkhs import poisson_learning
    from graphrkhs.datasets import sample_labels
    X, y = label_rates.load("fashion")
    W, _ = label_rates.our_graph("fashion", X, 0)
    keep = sample_labels(y, rate, random_state=np.random.default_rng([0, rate]))[1]
    classes = np.unique(y)
    F = poisson_learning(W, keep, (y[keep][:, None] == classes).astype(float))
    return F[np.setdiff1d(np.arange(y.size), keep)]


def median_time(fn, repeats):
    """(median seconds, last result) of ``repeats`` calls (the timing loop of ``spectral.py``)."""
    from spectral import median_time as timed
    seconds, _, out = timed(fn, repeats)
    return seconds, out


def main(argv=None):
    from scipy.optimize import linear_sum_assignment
    from graphrkhs.solvers import class_sizes, size_constrained_assignment
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="2000,4000,20000,all", help="row counts (\"all\": every unlabeled row)")
    p.add_argument("--rates", default="1,10", help="labels per class of the score draws")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--anchor-max", type=int, default=4000, help="largest n for scipy's n x n anchor")
    args = p.parse_args(argv)
    rows = []
    size_constrained_assignment(np.eye(3), [1, 1, 1])          # compile (cached on disk after the first process)
    for rate in (int(r) for r in args.rates.split(",")):
        F = scores(rate)
        for kind, S_all in (("raw", F), ("standardized", (F - F.mean(0)) / F.std(0))):
            for n in (S_all.shape[0] if s == "all" else int(s) for s in args.sizes.split(",")):
                S = S_all[:n]
                sizes = class_sizes(np.full(S.shape[1], 1.0 / S.shape[1]), n)
                t_ours, (labels, _) = median_time(lambda: size_constrained_assignment(S, sizes), args.repeats)
                ours = float(S[np.arange(n), labels].sum())
                row = dict(rate=rate, scores=kind, n=n, ours_s=t_ours, ours_total=ours)
                if n <= args.anchor_max:
                    cols = np.repeat(np.arange(S.shape[1]), sizes)
                    t_lsa, (r, c) = median_time(lambda: linear_sum_assignment(-S[:, cols]), max(1, args.repeats // 2))
                    best = float(S[r, cols[c]].sum())
                    row.update(scipy_s=t_lsa, scipy_total=best, gap=(best - ours) / abs(best), ratio=t_lsa / t_ours)
                rows.append(row)
                print(json.dumps(row), flush=True)
    os.makedirs(RESULTS, exist_ok=True)
    with open(os.path.join(RESULTS, "assignment.json"), "w") as f:
        json.dump(rows, f, indent=1)
    lines = ["| labels per class | scores | n | ours s (median) | scipy n x n s (median) | scipy / ours | optimum gap |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        anchor = (f"{r['scipy_s']:.3f} | {r['ratio']:.0f} | {r['gap']:.1e}" if "scipy_s" in r else "- | - | -")
        lines.append(f"| {r['rate']} | {r['scores']} | {r['n']} | {r['ours_s']:.3f} | {anchor} |")
    with open(os.path.join(RESULTS, "assignment.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
