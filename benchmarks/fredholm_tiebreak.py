"""FredholmClassifier's tie-break among LOO-equivalent grid points: normalized cut against the alternatives.

Not a benchmark of record (``selection.py`` is): the probe behind the switch of
:func:`graphrkhs.solvers.graph_cut_choice` from the fraction of cut kNN edges to the normalized cut
(session 11, ``benchmarks/report/09_selection.md``).  ``--rule`` replaces the tie-break inside the
estimator for the run:

* ``ncut``  -- the library's rule (normalized cut of the predicted classes, a class predicted nowhere
  ruled out);
* ``edges`` -- the previous rule, the fraction of cut edges (reimplemented here);
* ``loo``   -- no tie-break: the best LOO accuracy, then the lower LOO MSE.

Data: two moons (200 points, noise 0.1; labels drawn per class with the counts of ``--moons``, seeds
0 .. draws-1), noisy circles (``make_noisy_circles(1000)``, ``sample_labels``), digits (10 per class).
Accuracy on all points, mean over the draws.

Usage::

    python benchmarks/fredholm_tiebreak.py --rule ncut
    python benchmarks/fredholm_tiebreak.py --rule edges
"""

import argparse
import warnings

import numpy as np


def _install(rule):
    import graphrkhs.estimators._datadependent as dd
    if rule == "ncut":
        return
    if rule == "loo":
        def choice(acc, mse, l, predict, edges, n_classes=None):
            acc, mse = np.asarray(acc), np.where(np.isfinite(mse), mse, np.inf)
            order = np.lexsort((mse.ravel(), -acc.ravel()))
            return tuple(int(v) for v in np.unravel_index(order[0], acc.shape))
    else:
        def choice(acc, mse, l, predict, edges, n_classes=None):
            acc, mse = np.asarray(acc), np.where(np.isfinite(mse), mse, np.inf)
            r, c = (np.asarray(e) for e in edges)
            best = float(acc.max())
            ok = acc >= best - np.sqrt(max(best * (1 - best), 0.0) / l) - 1e-12
            cut = np.full(acc.shape, np.inf)
            for i in np.flatnonzero(ok.any(axis=1)):
                js = np.flatnonzero(ok[i])
                labels = predict(i, js)
                cut[i, js] = np.mean(labels[:, r] != labels[:, c], axis=1)
            order = np.lexsort((mse.ravel(), cut.ravel()))
            return tuple(int(v) for v in np.unravel_index(order[0], acc.shape))
    dd.graph_cut_choice = choice


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rule", choices=("ncut", "edges", "loo"), default="ncut")
    p.add_argument("--draws", type=int, default=12)
    p.add_argument("--moons", default="3:1,8:2,5:5,2:2", help="labels per class (class 0 : class 1)")
    p.add_argument("--skip-circles", action="store_true")
    args = p.parse_args()
    _install(args.rule)
    from sklearn.datasets import make_moons
    from graphrkhs import FredholmClassifier
    from graphrkhs.datasets import load_digits, make_noisy_circles, sample_labels
    warnings.simplefilter("ignore")

    def acc(X, y, y_partial):
        return float((FredholmClassifier().fit(X, y_partial).predict(X) == y).mean())

    print(f"rule: {args.rule}")
    for pair in args.moons.split(","):
        a, b = (int(v) for v in pair.split(":"))
        accs = []
        for seed in range(args.draws):
            X, y = make_moons(200, noise=0.1, random_state=seed)
            rng = np.random.default_rng(seed)
            yp = np.full(len(y), -1)
            yp[rng.choice(np.flatnonzero(y == 0), a, replace=False)] = 0
            yp[rng.choice(np.flatnonzero(y == 1), b, replace=False)] = 1
            accs.append(acc(X, y, yp))
        print(f"moons {a}:{b}, {args.draws} draws: {np.mean(accs):.4f}  "
              f"(constant on {sum(v == 0.5 for v in accs)})", flush=True)
    if args.skip_circles:
        return
    X, y = make_noisy_circles(1000, random_state=0)
    for per in (3, 10):
        accs = [acc(X, y, sample_labels(y, per, random_state=d)[0]) for d in range(5)]
        print(f"noisy circles, {per} per class, 5 draws: {np.mean(accs):.4f}", flush=True)
    X, y = load_digits()
    accs = [acc(X, y, sample_labels(y, 10, random_state=d)[0]) for d in range(3)]
    print(f"digits, 10 per class, 3 draws: {np.mean(accs):.4f}", flush=True)


if __name__ == "__main__":
    main()
