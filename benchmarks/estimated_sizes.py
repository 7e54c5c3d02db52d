"""Volume-constrained MBO after the recommended classifier, with class sizes from its own labels
(issue 15, the digits line; measured, not adopted).

Session 4 found that the recommended classifier reaches 98.5 % on the digits at 10 labels per class only
with class sizes: warm-started volume MBO (``volume_mbo(W, S, Y, class_priors=b, n_inner=30,
init=z(F))``, F the classifier's ``scores_`` standardized per class) gave 98.84 with the true class
proportions and 98.65 with the label proportions (which are "equal sizes" under per-class label draws,
and so no general default).  The question here: do sizes *estimated* without the labels' proportions --
the class counts of the classifier's own argmax over all nodes -- carry the gain?

Columns: ``argmax`` (the classifier as it is), ``vol30_est`` / ``vol100_30_est`` (sizes = the
argmax's class counts; 30 heat steps, or 100 then 30), ``vol30_true`` (the true proportions, an
upper reference), ``vol30_lab`` (the label proportions).  Draws ``sample_labels(y, rate,
random_state=d)``, d = 0 .. draws-1; accuracy (%) on the unlabeled points, mean +- std.

Run:  OPENBLAS_NUM_THREADS=1 python benchmarks/estimated_sizes.py digits 10 20
      python benchmarks/estimated_sizes.py fashion:10000 10 5      (a fixed random 10000 images)
"""
import sys
import warnings

import numpy as np

from graphrkhs import PoissonRidgeEnsembleClassifier, volume_mbo
from graphrkhs.datasets import load_digits, load_fashion_mnist, sample_labels


def load(name):
    if name == "digits":
        X, y = load_digits()
        return X, y
    n = int(name.split(":")[1])
    X, y = load_fashion_mnist()
    idx = np.random.default_rng(0).permutation(len(y))[:n]
    return X[idx], y[idx]


def refine(W, S, Y, Z, priors, stages):
    """Chained warm-started volume MBO (one stage per heat-step count), labels of the last stage."""
    F = Z
    for steps in stages:
        F = volume_mbo(W, S, Y, class_priors=priors, n_inner=steps, init=F)
    return np.argmax(F, axis=1)


def main(argv):
    name, rate, draws = argv[0], int(argv[1]), int(argv[2])
    X, y = load(name)
    k = int(y.max()) + 1
    true = np.bincount(y, minlength=k) / y.size
    cols = ["argmax", "vol30_est", "vol100_30_est", "vol30_true", "vol30_lab"]
    acc = {c: [] for c in cols}
    W = None
    for d in range(draws):
        yl = sample_labels(y, rate, random_state=d)[0]
        clf = PoissonRidgeEnsembleClassifier().fit(X, yl)
        if W is None:
            W = clf.graph_spec_.build(X)          # the classifier's own graph (deterministic for exact search)
        S = np.flatnonzero(yl >= 0)
        U = yl < 0
        Y = np.eye(k)[yl[S]]
        F = clf.scores_
        Z = (F - F.mean(axis=0)) / F.std(axis=0)
        pred = clf.transduction_
        est = np.bincount(pred, minlength=k) / y.size
        lab = np.bincount(yl[S], minlength=k) / S.size
        labels = {"argmax": pred, "vol30_est": refine(W, S, Y, Z, est, [30]),
                  "vol100_30_est": refine(W, S, Y, Z, est, [100, 30]),
                  "vol30_true": refine(W, S, Y, Z, true, [30]), "vol30_lab": refine(W, S, Y, Z, lab, [30])}
        for c in cols:
            acc[c].append(100 * float((labels[c][U] == y[U]).mean()))
        print(d, " ".join(f"{c} {acc[c][-1]:.2f}" for c in cols), flush=True)
    print(f"{name}, {rate} labels per class, {draws} draws:")
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    print("| " + " | ".join(f"{np.mean(acc[c]):.2f} +- {np.std(acc[c]):.2f}" for c in cols) + " |")


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    main(sys.argv[1:])
