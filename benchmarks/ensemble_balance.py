"""The recommended classifier on unbalanced classes: its per-class standardization against class indicators
(issue 15 follow-up; measured, not adopted).

``PoissonRidgeEnsembleClassifier`` combines its members by ``F = 0.5 z(F_P) + 0.5 z(F_R)``, each class
column standardized over all nodes.  A column's spread shrinks with its class, so the standardization
raises small classes: an implicit prior of equal class sizes.  On strongly unbalanced synthetic blobs with
labels drawn at random, that made the ensemble label fewer nodes than either of its members.  The
candidate measured here maps the standardized columns back to the scale of a class indicator with
the class proportions the labels show, shrunk to uniform by a pseudo-count ``b`` per class::

    p_c = (l_c + b) / (l + C b),   F_ic = sqrt(p_c (1 - p_c)) Z_ic + p_c

(``Z`` the current combination; with as many labels in every class ``F`` is an affine image of ``Z``
common to all columns, so per-class label draws are labeled as now).  Columns: ``old`` (the classifier
as it is), ``P`` / ``R`` (Poisson learning / graph kernel ridge alone, raw argmax), ``b0`` ... ``b5``.

Data (each on the graph the classifier builds with its defaults): ``blobs200`` / ``blobs600``
(``make_blobs`` with class sizes 150/40/10 and 500/80/20), ``digits_unbal`` / ``fashion_unbal``
(class j kept with proportion 0.75^j, at least 12 images; Fashion-MNIST from a fixed random 10000
images), ``digits``, ``fashion`` (the same 10000 images), and scikit-learn's ``wine``, ``cancer``,
``iris`` (standardized).  Label draws: ``prop`` -- ``total`` nodes drawn at random, redrawn until every
class has one (the usual "label rate"); ``per-class`` -- ``total / C`` in every class.  Accuracy on the
unlabeled nodes, mean over the draws (seeds 0, 1, ...).

Run:  python benchmarks/ensemble_balance.py blobs600 --totals 10,20,50 --draws 20
      python benchmarks/ensemble_balance.py wine --totals 6,12,30 --draws 30
"""
import argparse
import warnings

import numpy as np

from graphrkhs import PoissonRidgeEnsembleClassifier
from graphrkhs.datasets import load_digits, load_fashion_mnist

PSEUDOCOUNTS = (0.0, 0.5, 1.0, 2.0, 5.0)


def zcols(F):
    D = F - F.mean(axis=0)
    s = D.std(axis=0)
    return D / np.where(s > 0, s, 1.0)


def unbalance(X, y, ratio, rng):
    keep = []
    for j, c in enumerate(np.unique(y)):
        idx = np.flatnonzero(y == c)
        keep.append(rng.choice(idx, max(12, int(round(idx.size * ratio ** j))), replace=False))
    keep = np.sort(np.concatenate(keep))
    return X[keep], y[keep]


def data(name):
    from sklearn.datasets import make_blobs
    rng = np.random.default_rng(0)
    if name == "blobs200":
        return make_blobs(n_samples=[150, 40, 10], centers=[[0, 0], [4, 0], [0, 4]], random_state=1)
    if name == "blobs600":
        return make_blobs(n_samples=[500, 80, 20], centers=[[0, 0], [4, 0], [0, 4]], random_state=1)
    if name in ("digits", "digits_unbal"):
        X, y = load_digits()
        X = np.asarray(X, dtype=np.float64)
        return unbalance(X, y, 0.75, rng) if name == "digits_unbal" else (X, y)
    if name in ("fashion", "fashion_unbal"):
        X, y = load_fashion_mnist()
        sub = rng.choice(y.size, 10000, replace=False)
        X, y = np.asarray(X)[sub], np.asarray(y)[sub]
        return unbalance(X, y, 0.75, rng) if name == "fashion_unbal" else (X, y)
    if name in ("wine", "cancer", "iris"):
        import sklearn.datasets as skd
        from sklearn.preprocessing import StandardScaler
        load = {"wine": skd.load_wine, "cancer": skd.load_breast_cancer, "iris": skd.load_iris}[name]
        X, y = load(return_X_y=True)
        return StandardScaler().fit_transform(X), y
    raise ValueError(f"unknown data set {name!r}")


def draw(y, total, mode, seed):
    rng = np.random.default_rng(seed)
    classes = np.unique(y)
    if mode == "per-class":
        return np.concatenate([rng.choice(np.flatnonzero(y == c), total // classes.size, replace=False)
                               for c in classes])
    while True:
        idx = rng.choice(y.size, total, replace=False)
        if np.unique(y[idx]).size == classes.size:
            return idx


def fit_draw(W, y, classes, idx):
    """The recommended classifier on the precomputed graph W with the labels of rows ``idx`` (class codes):
    ``(codes with -1 for unlabeled, hidden mask, true codes of the hidden rows, fitted estimator)``."""
    yy = np.full(y.size, -1)
    yy[idx] = np.searchsorted(classes, y[idx])
    hidden = yy == -1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = PoissonRidgeEnsembleClassifier(graph="precomputed").fit(W, yy)
    return yy, hidden, np.searchsorted(classes, y[hidden]), est


def parser(description):
    """The command line shared with ``ensemble_weight.py``: a data set, label totals, draws, draw mode."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("data")
    p.add_argument("--totals", default="10,20,50")
    p.add_argument("--draws", type=int, default=20)
    p.add_argument("--mode", choices=("prop", "per-class"), default="prop")
    return p


def main(argv=None):
    args = parser(__doc__.splitlines()[0]).parse_args(argv)
    X, y = data(args.data)
    classes = np.unique(y)
    W = PoissonRidgeEnsembleClassifier()._build_graph(X)
    print(f"{args.data}: n = {y.size}, class sizes {np.bincount(np.searchsorted(classes, y)).tolist()}, "
          f"{args.mode} draws", flush=True)
    for total in (int(t) for t in args.totals.split(",")):
        acc = {}
        for seed in range(args.draws):
            yy, hidden, truth, est = fit_draw(W, y, classes, draw(y, total, args.mode, seed))
            Z = 0.5 * zcols(est.poisson_scores_) + 0.5 * zcols(est.ridge_scores_)
            counts = np.bincount(yy[~hidden], minlength=classes.size).astype(np.float64)
            scores = {"old": est.scores_, "P": est.poisson_scores_, "R": est.ridge_scores_}
            for b in PSEUDOCOUNTS:
                q = (counts + b) / (counts.sum() + b * counts.size)
                scores[f"b{b:g}"] = np.sqrt(q * (1 - q)) * Z + q
            for key, F in scores.items():
                acc.setdefault(key, []).append(np.mean(est.classes_[F.argmax(axis=1)][hidden] == truth))
        print(f"  total {total:>4}: " + "  ".join(f"{k} {100 * np.mean(v):6.2f}" for k, v in acc.items()),
              flush=True)


if __name__ == "__main__":
    main()
