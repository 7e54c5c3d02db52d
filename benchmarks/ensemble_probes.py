"""Issue 15: two probes of the recommended classifier on its own graph (measured, not adopted).

``weights``: the member weight w of ``PoissonRidgeEnsembleClassifier`` (F = w z(F_P) + (1 - w) z(F_R)),
without priors (argmax) and with the true class sizes of the unlabeled points (the size-constrained
assignment the classifier uses for ``class_priors``, ``solvers.size_constrained_assignment``), from the
member scores of one default fit per draw (``poisson_scores_``, ``ridge_scores_``; the weight needs no
refit).  The question: is w = 0.5 also the right weight when the class sizes are given?

``selftrain``: self-training on the classifier's own most confident labels.  Each round adds, per
predicted class, the unlabeled nodes of largest margin (top minus second standardized score) until the
class holds ``--schedule`` pseudo-labels, and refits with defaults; accuracy on the originally
unlabeled nodes after each round, and the precision of the pseudo-labels added.

Data: ``fashion`` (the graph ``benchmarks/label_rates.py`` caches for the recommended classifier,
``$GRAPHRKHS_RATES_CACHE/fashion_ours_graph_*.npz``; run that script first) or ``digits`` (the same
cache), the label draws of ``label_rates.py`` (``sample_labels`` with ``default_rng([seed, rate])``).

Run:  python benchmarks/ensemble_probes.py weights fashion --rates 1,5 --draws 10
      python benchmarks/ensemble_probes.py weights digits --rates 1,5,10 --draws 20
      python benchmarks/ensemble_probes.py selftrain fashion --rates 1 --draws 5 --schedule 20,100
"""
import argparse
import glob
import os
import warnings

import numpy as np
import scipy.sparse as sp

from graphrkhs import PoissonRidgeEnsembleClassifier
from graphrkhs.datasets import load_digits, load_fashion_mnist, sample_labels
from graphrkhs.solvers import size_constrained_assignment

CACHE = os.environ.get("GRAPHRKHS_RATES_CACHE", "/tmp/rates_cache")
WEIGHTS = (0.0, 0.25, 0.5, 0.75, 1.0)


def z(F):
    return (F - F.mean(axis=0)) / (F.std(axis=0) + 1e-300)


def load(name):
    y = (load_fashion_mnist if name == "fashion" else load_digits)()[1]
    paths = sorted(glob.glob(os.path.join(CACHE, f"{name}_ours_graph_*.npz")))
    if not paths:
        raise SystemExit(f"no cached graph for {name} in {CACHE}: run benchmarks/label_rates.py first")
    return y, sp.csr_array(sp.load_npz(paths[-1]))


def draws(y, rate, n, seed):
    rng = np.random.default_rng([seed, rate])
    return [sample_labels(y, rate, random_state=rng)[1] for _ in range(n)]


def fit(W, y, labeled):
    yp = np.full(y.size, -1)
    yp[labeled] = y[labeled]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return PoissonRidgeEnsembleClassifier(graph="precomputed").fit(W, yp)


def weights(y, W, rate, n, seed):
    rows = {}
    for S in draws(y, rate, n, seed):
        est = fit(W, y, S)
        U = np.ones(y.size, dtype=bool)
        U[S] = False
        sizes = np.bincount(y[U], minlength=est.classes_.size)   # the true class sizes of U
        for w in WEIGHTS:
            F = (w * z(est.poisson_scores_) + (1 - w) * z(est.ridge_scores_))[U]
            rows.setdefault(f"argmax, w = {w}", []).append(np.mean(est.classes_[F.argmax(axis=1)] == y[U]))
            assigned, _ = size_constrained_assignment(F, sizes)
            rows.setdefault(f"true sizes, w = {w}", []).append(np.mean(est.classes_[assigned] == y[U]))
    for key in sorted(rows, key=lambda k: (k.startswith("true"), k)):
        print(f"  {rate:>3}/class  {key:<22} {100 * np.mean(rows[key]):6.2f} +- {100 * np.std(rows[key]):5.2f}")


def selftrain(y, W, rate, n, seed, schedule):
    curves = []
    for d, S in enumerate(draws(y, rate, n, seed)):
        U0 = np.ones(y.size, dtype=bool)
        U0[S] = False
        pseudo = {}                                   # node -> pseudo-label
        accs, precisions = [], []
        for target in list(schedule) + [None]:
            labeled = np.r_[S, np.fromiter(pseudo, dtype=np.int64)]
            yy = y.copy()
            for i, c in pseudo.items():
                yy[i] = c
            est = fit(W, yy, labeled)
            F = est.scores_
            pred = F.argmax(axis=1)
            accs.append(np.mean(est.classes_[pred][U0] == y[U0]))
            if target is None:
                break
            top2 = np.sort(F, axis=1)[:, -2:]
            margin = top2[:, 1] - top2[:, 0]
            margin[labeled] = -np.inf
            added = []
            for c in range(est.classes_.size):
                have = sum(1 for v in pseudo.values() if v == est.classes_[c])
                cand = np.flatnonzero((pred == c) & np.isfinite(margin))
                added += [(int(i), est.classes_[c]) for i in cand[np.argsort(-margin[cand])][:max(target - have, 0)]]
            precisions.append(np.mean([y[i] == c for i, c in added]) if added else np.nan)
            pseudo.update(added)
        curves.append(accs)
        print(f"  {rate:>3}/class draw {d}: accuracy by round " + " ".join(f"{100 * a:.2f}" for a in accs)
              + " | pseudo-label precision " + " ".join(f"{100 * p:.1f}" for p in precisions), flush=True)
    curves = 100 * np.array(curves)
    print(f"  {rate:>3}/class mean by round " + " ".join(f"{a:.2f}" for a in curves.mean(axis=0))
          + f"; gain of the last round {np.mean(curves[:, -1] - curves[:, 0]):+.2f}")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("probe", choices=("weights", "selftrain"))
    p.add_argument("dataset", choices=("fashion", "digits"))
    p.add_argument("--rates", default="1,5")
    p.add_argument("--draws", type=int, default=10)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--schedule", default="20,100", help="selftrain: pseudo-labels per class after each round")
    args = p.parse_args(argv)
    y, W = load(args.dataset)
    for rate in (int(r) for r in args.rates.split(",")):
        if args.probe == "weights":
            weights(y, W, rate, args.draws, args.seed)
        else:
            selftrain(y, W, rate, args.draws, args.seed, [int(s) for s in args.schedule.split(",")])


if __name__ == "__main__":
    main()
