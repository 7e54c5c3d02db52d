"""Issue 15: does the point-cloud RKHS add to the recommended classifier's graph scores?

Late fusion, test-tuned weight: the recommended classifier's standardized class scores E
(``PoissonRidgeEnsembleClassifier``, defaults) and RLS's decision scores R (``RLSClassifier``, defaults:
Gaussian kernel on the labeled points, width and ridge by exact LOO) evaluated on every point,

    F = (1 - t) z(E) + t z(R),    z(A)_ic = (A_ic - mean_c) / std_c  (class columns over all points),

accuracy on the unlabeled points for t in {0, 0.1, 0.15, 0.2, 0.3} (t = 0 is the classifier alone).

``fashion``: Fashion-MNIST 70000 x 784 on the classifier's default graph for these data (the cosine
self-tuning 10-NN graph, cached in ``/tmp/lowrank_cache/graph70k_st10cos.npz``), ``--rates`` labels per
class, draws ``sample_labels(y, rate, random_state=d)``, d < ``--draws``; one line per (rate, draw).
``small``: the digits (pixels / 16), two moons (n = 1000, noise 0.1) and two circles (n = 1000, noise
0.05, factor 0.5), the classifier fitted on X (``graph="auto"``), 10 labels per class; mean and minimum
over the draws.

Run:  python benchmarks/ensemble_features.py fashion --rates 10,50,1,5 --draws 3
      python benchmarks/ensemble_features.py small --draws 20
"""
import argparse
import os
import warnings

import numpy as np
import scipy.sparse as sp

import graphrkhs as gr
from graphrkhs.datasets import load_fashion_mnist, sample_labels

WEIGHTS = (0.0, 0.1, 0.15, 0.2, 0.3)
CACHE = "/tmp/lowrank_cache"


def z(A):
    return (A - A.mean(axis=0)) / (A.std(axis=0) + 1e-300)


def fused_accuracies(E, R, y, unlabeled):
    if R.ndim == 1:
        R = np.c_[-R, R]
    return {t: float(np.mean(((1 - t) * z(E) + t * z(R)).argmax(axis=1)[unlabeled] == y[unlabeled]))
            for t in WEIGHTS}


def run_fashion(args):
    X, y = load_fashion_mnist()
    path = os.path.join(CACHE, "graph70k_st10cos.npz")
    if not os.path.exists(path):
        os.makedirs(CACHE, exist_ok=True)
        sp.save_npz(path, sp.csr_matrix(gr.knn_graph(X, 10, weight="self-tuning", relative_width=0.5,
                                                     metric="cosine")))
    W = sp.csr_array(sp.load_npz(path))
    for rate in args.rates:
        for d in range(args.draws):
            yp, _ = sample_labels(y, rate, random_state=d)
            lab = yp != -1
            E = np.asarray(gr.PoissonRidgeEnsembleClassifier(graph="precomputed").fit(W, yp).scores_)
            R = gr.RLSClassifier().fit(X[lab], y[lab]).decision_function(X)
            row = {"rate": rate, "draw": d, "rls": float(np.mean(R.argmax(1)[~lab] == y[~lab]))}
            row.update(fused_accuracies(E, R, y, ~lab))
            print({k: round(v, 4) if isinstance(v, float) else v for k, v in row.items()}, flush=True)


def run_small(args):
    from sklearn.datasets import load_digits, make_circles, make_moons
    for name in ("digits", "moons", "circles"):
        acc = {t: [] for t in WEIGHTS}
        rls = []
        for d in range(args.draws):
            if name == "digits":
                X, y = load_digits(return_X_y=True)
                X = X / 16.0
            elif name == "moons":
                X, y = make_moons(1000, noise=0.1, random_state=d)
            else:
                X, y = make_circles(1000, noise=0.05, factor=0.5, random_state=d)
            yp, _ = sample_labels(y, 10, random_state=d)
            lab = yp != -1
            E = np.asarray(gr.PoissonRidgeEnsembleClassifier().fit(X, yp).scores_)
            R = gr.RLSClassifier().fit(X[lab], y[lab]).decision_function(X)
            rls.append(np.mean((R > 0 if R.ndim == 1 else R.argmax(1))[~lab] == y[~lab]))
            for t, a in fused_accuracies(E, R, y, ~lab).items():
                acc[t].append(a)
        print(name, f"RLS {100 * np.mean(rls):.2f};", "; ".join(
            f"t = {t}: {100 * np.mean(v):.2f} (min {100 * np.min(v):.2f})" for t, v in acc.items()), flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("data", choices=("fashion", "small"))
    p.add_argument("--rates", default="10,50,1,5")
    p.add_argument("--draws", type=int, default=3)
    args = p.parse_args()
    args.rates = [int(s) for s in args.rates.split(",")]
    warnings.simplefilter("ignore")      # the 1-label-per-class selections warn at their grid edges
    (run_fashion if args.data == "fashion" else run_small)(args)


if __name__ == "__main__":
    main()
