"""The recommended classifier's Poisson share w against the label rate (issue 15 follow-up, session 26;
measured, not adopted).

``PoissonRidgeEnsembleClassifier`` labels by ``F = w z(F_P) + (1 - w) z(F_R)`` (standardized Poisson
learning and graph kernel ridge scores on one graph), ``w = poisson_weight = 1/2``.  The 20-draw
Fashion-MNIST table shows the ensemble under its kernel ridge member at 10 and 50 labels per class.  This
script fits the classifier once per label draw and re-combines the two members' scores (``poisson_scores_``,
``ridge_scores_``, which do not depend on ``w``) for every ``w`` of a grid and for two rate-dependent
candidates: ``mean`` -- ``w = 1 / (1 + sqrt(l / c))`` (l labels of c classes) and ``min`` -- ``w = 1 / (1 +
sqrt(min_c l_c))`` (the least-labeled class); accuracy on the unlabeled nodes, mean over the draws, and the
candidates' paired differences to ``w = 1/2`` with their standard errors.

Data: ``fashion-full`` / ``digits-full`` -- all 70000 / 1797 images on the graph of
``benchmarks/label_rates.py`` (its cache, the recommended graph with ``random_state=0``), labels drawn
per class by ``sample_labels`` from ``default_rng([family, labels per class])`` (family 0 is the
benchmark's own draws: another one keeps them out of the choice); the data sets of ``ensemble_balance.py``
(``fashion`` = a fixed 10000 images, ``digits``, ``wine``, ``cancer``, ``iris``, unbalanced variants and
blobs), labels drawn at random (``--mode prop``, redrawn until every class has one) or per class.

Run:  python benchmarks/ensemble_weight.py fashion-full --totals 10,50,100,500 --draws 6 --family 5
      python benchmarks/ensemble_weight.py digits-full --totals 10,50,100,500 --draws 30 --family 5
      python benchmarks/ensemble_weight.py fashion --totals 20,100,500 --draws 10
      python benchmarks/ensemble_weight.py wine --totals 6,12,30 --draws 30
(``--totals`` are total label counts; with the ``-full`` data sets they are drawn per class.)
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from ensemble_balance import data, draw, fit_draw, parser, zcols  # noqa: E402

WEIGHTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 1.0)


def problem(name):
    """(W, y, label draw function) for a data set name."""
    from graphrkhs import PoissonRidgeEnsembleClassifier
    if name.endswith("-full"):
        import label_rates
        base = name[:-len("-full")]
        X, y = label_rates.load(base)
        W, _ = label_rates.our_graph(base, X, 0)
        return W, np.asarray(y), "per-class"
    X, y = data(name)
    return PoissonRidgeEnsembleClassifier()._build_graph(X), np.asarray(y), None


def main(argv=None):
    from graphrkhs.datasets import sample_labels
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--family", type=int, default=5, help="seed family of the per-class draws of the -full data")
    args = p.parse_args(argv)
    W, y, forced = problem(args.data)
    mode = forced or args.mode
    classes = np.unique(y)
    print(f"{args.data}: n = {y.size}, {classes.size} classes, {mode} draws, family {args.family}", flush=True)
    head = " | ".join(f"w={w:g}" for w in WEIGHTS)
    print(f"| data | labels (draws) | {head} | mean rule (w) | - 1/2 (se) | min rule (w) | - 1/2 (se) |", flush=True)
    print("|---" * (len(WEIGHTS) + 6) + "|", flush=True)
    for total in (int(t) for t in args.totals.split(",")):
        rng = np.random.default_rng([args.family, total // classes.size])
        acc = np.zeros((args.draws, len(WEIGHTS) + 2))
        w_rule = np.zeros((args.draws, 2))
        for d in range(args.draws):
            if args.data.endswith("-full"):
                idx = sample_labels(y, total // classes.size, random_state=rng)[1]
            else:
                idx = draw(y, total, mode, d)
            yy, hidden, truth, est = fit_draw(W, y, classes, idx)
            zp, zr = zcols(est.poisson_scores_), zcols(est.ridge_scores_)
            for j, w in enumerate(WEIGHTS):
                acc[d, j] = np.mean(est.classes_[np.argmax(w * zp + (1 - w) * zr, axis=1)][hidden] == truth)
            counts = np.bincount(yy[~hidden], minlength=classes.size)
            w_rule[d] = 1.0 / (1.0 + np.sqrt(idx.size / classes.size)), 1.0 / (1.0 + np.sqrt(counts.min()))
            for r in range(2):
                w = w_rule[d, r]
                acc[d, len(WEIGHTS) + r] = np.mean(
                    est.classes_[np.argmax(w * zp + (1 - w) * zr, axis=1)][hidden] == truth)
        acc *= 100
        half = acc[:, WEIGHTS.index(0.5)]
        cells = " | ".join(f"{a:.2f}" for a in acc[:, :len(WEIGHTS)].mean(axis=0))
        rules = []
        for r in range(2):
            diff = acc[:, len(WEIGHTS) + r] - half
            se = diff.std(ddof=1) / np.sqrt(args.draws) if args.draws > 1 else float("nan")
            rules.append(f"{acc[:, len(WEIGHTS) + r].mean():.2f} ({w_rule[:, r].mean():.2f}) | {diff.mean():+.2f} ({se:.2f})")
        print(f"| {args.data} | {total} ({args.draws}) | {cells} | {' | '.join(rules)} |", flush=True)


if __name__ == "__main__":
    main()
