"""Probe: the recommended classifier's standardization statistics, every reached node vs the unlabeled ones.

Session 32 changed ``PoissonRidgeEnsembleClassifier``'s per-class z-scores to take their mean and spread over the
unlabeled nodes some label reaches (a labeled outlier's legitimate Poisson potential, up to 1e50, had set a whole
column's spread).  This script measures the change on the same graph and label draws, paired: the previous rule
(statistics over every reached node, labeled ones included) is restored for the "old" fits by wrapping the
module's ``_standardize_columns`` so that it ignores its ``ref`` mask.

Usage::

    python benchmarks/ensemble_statistics.py --dataset fashion --rates 1,10 --draws 0,1,2
    python benchmarks/ensemble_statistics.py --dataset digits --rates 1,5,10 --draws 0-19

The graph is the classifier's default (``graph="auto"``, built once with ``random_state=0``); label draws
``sample_labels(y, rate, default_rng([21, rate, d]))``; accuracy on the unlabeled nodes.  One line per draw on
stdout, then a table of paired differences.  Fashion-MNIST needs Debian's ``dataset-fashion-mnist``.
"""

import argparse
import warnings

import numpy as np


def _draws(text):
    out = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out += list(range(int(lo), int(hi) + 1)) if hi else [int(lo)]
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dataset", choices=("fashion", "digits"), default="digits")
    parser.add_argument("--rates", default="1,10")
    parser.add_argument("--draws", default="0-4")
    args = parser.parse_args()
    import graphrkhs.estimators._transductive as transductive
    from graphrkhs import PoissonRidgeEnsembleClassifier
    from graphrkhs.datasets import load_digits, load_fashion_mnist, sample_labels

    X, y = load_fashion_mnist() if args.dataset == "fashion" else load_digits()
    W = PoissonRidgeEnsembleClassifier(random_state=0)._build_graph(np.asarray(X))
    new = transductive._standardize_columns

    def old(F, rows=None, ref=None, pooled=False):
        return new(F, rows, None, pooled)

    diffs = {}
    for rate in (int(r) for r in args.rates.split(",")):
        for d in _draws(args.draws):
            part = sample_labels(y, rate, random_state=np.random.default_rng([21, rate, d]))
            yy = part[0] if isinstance(part, tuple) else part
            U = yy == -1
            acc = []
            for rule in (old, new):
                transductive._standardize_columns = rule
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        clf = PoissonRidgeEnsembleClassifier(graph="precomputed").fit(W, yy)
                finally:
                    transductive._standardize_columns = new
                acc.append(100 * float(np.mean(clf.transduction_[U] == y[U])))
            diffs.setdefault(rate, []).append(acc)
            print(f"{rate} {d} old {acc[0]:.2f} new {acc[1]:.2f} diff {acc[1] - acc[0]:+.2f}", flush=True)
    print("| labels per class | draws | old (every reached node) | new (unlabeled reached nodes) | paired difference "
          "(points) | se |")
    print("|---|---|---|---|---|---|")
    for rate, pairs in diffs.items():
        a, b = np.array(pairs).T
        d = b - a
        se = d.std(ddof=1) / np.sqrt(d.size) if d.size > 1 else float("nan")
        print(f"| {rate} | {d.size} | {a.mean():.2f} +- {a.std():.2f} | {b.mean():.2f} +- {b.std():.2f} | "
              f"{d.mean():+.2f} | {se:.2f} |")


if __name__ == "__main__":
    main()
