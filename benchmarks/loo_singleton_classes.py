"""Benchmark: classifiers' "auto" selection with a few random labels (some classes labeled once).

Before session 19 a classifier's leave-one-out scored the held-out residual of a class's only label, which
only shrinks as the fit flattens.  This measures accuracy on the unlabeled points for random label draws of
total size N (``rng = np.random.default_rng([19, N, draw])``, N points drawn without replacement, so some
classes get one label, some none), digits (scikit-learn, scaled to [0, 1]) or a fixed 3000-point subset of
Fashion-MNIST (Debian's dataset-fashion-mnist), default parameters.  One JSON line per (N, draw, learner)
in ``/tmp/h19loo_bench/<dataset>_<tag>.jsonl``; run it once per checkout with a different tag::

    PYTHONPATH=<checkout> nice python benchmarks/loo_singleton_classes.py digits after 15,20,30 20 \
        GraphKernelRidgeClassifier,RLSClassifier,LapRLSClassifier,PoissonRidgeEnsembleClassifier

Results (session 19, 20 draws each, accuracy in %, before = main at b67ccf9, after = loo_rows="classes"):

=======  ==========================  ==  ======  =====  =====  ===
data     learner                     N   before  after  diff   w/l
=======  ==========================  ==  ======  =====  =====  ===
digits   GraphKernelRidgeClassifier  15  72.26   72.26  +0.00  0/0
digits   GraphKernelRidgeClassifier  20  78.59   78.58  -0.00  0/1
digits   GraphKernelRidgeClassifier  30  91.02   91.02  +0.00  0/0
digits   LapRLSClassifier            15  63.31   62.10  -1.20  2/8
digits   LapRLSClassifier            20  72.55   71.42  -1.13  0/7
digits   LapRLSClassifier            30  84.72   84.59  -0.13  0/3
digits   PoissonRidgeEnsemble        15  72.92   72.92  +0.00  0/0
digits   PoissonRidgeEnsemble        20  81.43   81.43  +0.00  0/0
digits   PoissonRidgeEnsemble        30  92.54   92.54  +0.00  0/0
digits   RLSClassifier               15  56.45   56.39  -0.06  6/4
digits   RLSClassifier               20  63.46   63.54  +0.08  4/0
digits   RLSClassifier               30  75.23   75.32  +0.09  6/0
fashion  GraphKernelRidgeClassifier  15  48.15   48.39  +0.24  1/1
fashion  GraphKernelRidgeClassifier  20  52.54   52.77  +0.23  3/1
fashion  GraphKernelRidgeClassifier  30  59.40   59.38  -0.02  0/2
fashion  LapRLSClassifier            15  38.35   39.32  +0.97  12/2
fashion  LapRLSClassifier            20  43.47   44.16  +0.70  7/1
fashion  PoissonRidgeEnsemble        15  52.39   52.42  +0.03  1/0
fashion  PoissonRidgeEnsemble        20  57.13   57.12  -0.01  0/1
fashion  PoissonRidgeEnsemble        30  62.89   62.92  +0.03  1/0
fashion  RLSClassifier               15  41.62   43.32  +1.70  14/3
fashion  RLSClassifier               20  44.65   45.93  +1.28  11/3
fashion  RLSClassifier               30  54.53   54.54  +0.01  2/3
=======  ==========================  ==  ======  =====  =====  ===

Over the 460 paired fits +0.12 +- 0.07 points; LapRLS on digits lost 1.1 - 1.2 points at N = 15, 20 (the
singletons' residuals had favoured a larger gamma_I / narrower width there), gained 0.7 - 1.0 on Fashion-MNIST.
(LapRLS on Fashion-MNIST at N = 30 was not run: 18 s a fit.)
"""
import json
import os
import sys
import time
import warnings

import numpy as np


def load(name):
    if name == "digits":
        from sklearn.datasets import load_digits
        X, y = load_digits(return_X_y=True)
        return X / 16.0, y
    from graphrkhs.datasets import load_fashion_mnist
    X, y = load_fashion_mnist(dtype=np.float64)
    keep = np.random.default_rng(0).choice(y.size, 3000, replace=False)
    return X[keep], y[keep]


def main(dataset, tag, sizes, n_draws, learners):
    import graphrkhs
    X, y = load(dataset)
    os.makedirs("/tmp/h19loo_bench", exist_ok=True)
    out = open(f"/tmp/h19loo_bench/{dataset}_{tag}.jsonl", "a")
    for N in sizes:
        for d in range(n_draws):
            rng = np.random.default_rng([19, N, d])
            lab = rng.choice(y.size, N, replace=False)
            yl = np.full(y.size, -1)
            yl[lab] = y[lab]
            counts = np.bincount(y[lab], minlength=10)
            hidden = np.setdiff1d(np.arange(y.size), lab)
            for name in learners:
                t0 = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    est = getattr(graphrkhs, name)().fit(X, yl)
                pred = est.transduction_[hidden] if hasattr(est, "transduction_") else est.predict(X[hidden])
                acc = float(np.mean(pred == y[hidden]))
                params = {k: float(getattr(est, k)) for k in ("alpha_", "sigma_", "gamma_A_", "gamma_I_")
                          if isinstance(getattr(est, k, None), (float, int, np.floating))}
                rec = dict(dataset=dataset, tag=tag, N=N, draw=d, learner=name, acc=acc, params=params,
                           singles=int((counts == 1).sum()), t=time.perf_counter() - t0)
                out.write(json.dumps(rec) + "\n")
                out.flush()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], [int(s) for s in sys.argv[3].split(",")], int(sys.argv[4]), sys.argv[5].split(","))
