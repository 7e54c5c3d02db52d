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

``smooth``: Correct and Smooth (Huang, He, Singh, Lim & Benson, ICLR 2021) with RLS as the base
predictor: R = ``RLSClassifier()`` decision scores on every point (Gaussian kernel on the labeled points,
width and ridge by exact LOO); *correct*: the labeled residuals E0 = Y_S - R_S spread by personalized
PageRank on the normalized adjacency A = D^-1/2 W D^-1/2 (E <- (1 - a1) E0 + a1 A E, 50 steps), added to
R rescaled to the labeled residuals' mean l1 size (the paper's "autoscale"; a1 = 0: no correction);
*smooth*: G0 = the corrected scores with the labeled rows set to Y_S, G <- (1 - a2) G0 + a2 A G (100
steps); then the recommended classifier's scores fused with it, (1 - t) z(E) + t z(G).  Accuracy on the
unlabeled points for every (a1, a2, t) of a small grid, the best printed first: the best is chosen on
the unlabeled points themselves, an upper bound for any rule the labels could give.

``reweight``: GraphLearning's Laplace learning with its reweightings of the graph near the labels
(``graphlearning.ssl.laplace(W, reweighting=...)``: ``"properly"``, the properly weighted Laplacian of
Calder & Slepcev (Appl. Math. Optim. 2020), with distances to the labels from the unit-length rows;
``"wnll"``, the weighted nonlocal Laplacian of Shi, Osher & Zhu (J. Sci. Comput. 2017); ``"poisson"``)
against its Laplace and Poisson learning, on the same graph and draws: do they help at one label per
class, where plain Laplace learning degenerates?  Needs ``graphlearning``.

Data: ``fashion`` (the graph ``benchmarks/label_rates.py`` caches for the recommended classifier,
``$GRAPHRKHS_RATES_CACHE/fashion_ours_graph_*.npz``; run that script first) or ``digits`` (the same
cache), the label draws of ``label_rates.py`` (``sample_labels`` with ``default_rng([seed, rate])``).

Run:  python benchmarks/ensemble_probes.py weights fashion --rates 1,5 --draws 10
      python benchmarks/ensemble_probes.py weights digits --rates 1,5,10 --draws 20
      python benchmarks/ensemble_probes.py selftrain fashion --rates 1 --draws 5 --schedule 20,100
      python benchmarks/ensemble_probes.py smooth fashion --rates 1,10,50 --draws 3
      python benchmarks/ensemble_probes.py reweight fashion --rates 1 --draws 3
"""
import argparse
import glob
import os
import warnings

import numpy as np
import scipy.sparse as sp

from graphrkhs import PoissonRidgeEnsembleClassifier, RLSClassifier
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


def _ppr(A, F0, a, steps):
    F = F0.copy()
    for _ in range(steps):
        F = (1 - a) * F0 + a * (A @ F)
    return F


def smooth(y, X, W, rate, n, seed):
    d = np.asarray(W.sum(axis=1)).ravel()
    scale = sp.diags_array(1 / np.sqrt(d))
    A = sp.csr_array(scale @ W @ scale)
    rows = {}
    for S in draws(y, rate, n, seed):
        est = fit(W, y, S)
        U = np.ones(y.size, dtype=bool)
        U[S] = False
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            R = RLSClassifier().fit(X[S], y[S]).decision_function(X)
        Y = np.zeros_like(R)
        Y[S, np.searchsorted(est.classes_, y[S])] = 1
        E0 = np.zeros_like(R)
        E0[S] = Y[S] - R[S]
        size = np.abs(E0[S]).sum(axis=1).mean()
        acc = lambda F: 100 * np.mean(est.classes_[F.argmax(axis=1)][U] == y[U])  # noqa: E731
        rows.setdefault("recommended classifier alone", []).append(acc(est.scores_))
        rows.setdefault("RLS alone", []).append(acc(R))
        for a1 in (0.0, 0.8, 0.95):
            C = R
            if a1 > 0:
                E = _ppr(A, E0, a1, 50)
                C = R + size * E / (np.abs(E).sum(axis=1, keepdims=True) + 1e-300)
            for a2 in (0.5, 0.8, 0.9, 0.95, 0.99):
                G0 = C.copy()
                G0[S] = Y[S]
                G = _ppr(A, G0, a2, 100)
                rows.setdefault(f"C&S a1={a1} a2={a2}", []).append(acc(G))
                for t in (0.3, 0.5):
                    rows.setdefault(f"fused t={t}, C&S a1={a1} a2={a2}", []).append(
                        acc((1 - t) * z(est.scores_) + t * z(G)))
    best = sorted(rows, key=lambda k: -np.mean(rows[k]))
    for key in ["recommended classifier alone", "RLS alone"] + [k for k in best if "C&S" in k][:5]:
        print(f"  {rate:>3}/class  {key:<36} {np.mean(rows[key]):6.2f} +- {np.std(rows[key]):5.2f}", flush=True)


def reweight(y, X, W, rate, n, seed):
    import graphlearning as gl

    Xunit = X / np.maximum(np.linalg.norm(X, axis=1, keepdims=True), 1e-300)
    Wgl = sp.csr_matrix(W)
    models = {"GraphLearning poisson": lambda: gl.ssl.poisson(Wgl),
              "GraphLearning laplace": lambda: gl.ssl.laplace(Wgl),
              "laplace, properly weighted": lambda: gl.ssl.laplace(Wgl, X=Xunit, reweighting="properly"),
              "laplace, wnll": lambda: gl.ssl.laplace(Wgl, reweighting="wnll"),
              "laplace, poisson reweighting": lambda: gl.ssl.laplace(Wgl, reweighting="poisson")}
    rows = {}
    for S in draws(y, rate, n, seed):
        U = np.ones(y.size, dtype=bool)
        U[S] = False
        for key, make in models.items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                pred = make().fit_predict(S, y[S])
            rows.setdefault(key, []).append(100 * np.mean(pred[U] == y[U]))
    for key, acc in rows.items():
        print(f"  {rate:>3}/class  {key:<30} {np.mean(acc):6.2f} +- {np.std(acc):5.2f}", flush=True)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("probe", choices=("weights", "selftrain", "smooth", "reweight"))
    p.add_argument("dataset", choices=("fashion", "digits"))
    p.add_argument("--rates", default="1,5")
    p.add_argument("--draws", type=int, default=10)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--schedule", default="20,100", help="selftrain: pseudo-labels per class after each round")
    args = p.parse_args(argv)
    y, W = load(args.dataset)
    X = None
    if args.probe in ("smooth", "reweight"):
        X = np.asarray((load_fashion_mnist if args.dataset == "fashion" else load_digits)()[0], dtype=np.float64)
    for rate in (int(r) for r in args.rates.split(",")):
        if args.probe == "weights":
            weights(y, W, rate, args.draws, args.seed)
        elif args.probe == "smooth":
            smooth(y, X, W, rate, args.draws, args.seed)
        elif args.probe == "reweight":
            reweight(y, X, W, rate, args.draws, args.seed)
        else:
            selftrain(y, W, rate, args.draws, args.seed, [int(s) for s in args.schedule.split(",")])


if __name__ == "__main__":
    main()
