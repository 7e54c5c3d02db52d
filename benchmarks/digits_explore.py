"""Issue 15, session 4: what reaches 98.5% on the digits with 10 labels per class?  (--dataset fashion20k: the check)

Not a benchmark of record (``label_rates.py`` is): the exploration behind
``benchmarks/results/label_rates_exploration.md``, "Session 4 (digits)".  Digits (scikit-learn,
1797 x 64), draws ``sample_labels(y, rate, random_state=d)``, d = 0 .. draws-1; accuracy on the
unlabeled points, mean +- std over the draws.

Graph names ``<prep>:<metric>:<k>:<r>:<mode>:<weight>`` are ``knn_graph(prep(X), k, weight=weight,
relative_width=r, mode=mode, metric=metric)`` (exact search), e.g.
``raw:cosine:10:0.5:union:self-tuning`` (the data-guarded default graph of the recommended
classifier for digits); ``gl:raw:10`` is GraphLearning's ``gl.weightmatrix.knn(X, 10)`` on exact
lists.  Methods: ``P`` Poisson learning, ``R`` graph kernel ridge (defaults, LOO alpha), ``ens``
0.5 z(P) + 0.5 z(R) (= ``PoissonRidgeEnsembleClassifier``), ``VMBO`` / ``PMBO`` the library's MBO
classifiers, ``gl-*`` GraphLearning's methods on the same graph (``-pri``: ``class_priors`` = the
label proportions), ``refine(s1, s2, ...)``: volume-constrained MBO (``volume_mbo``'s iteration:
``s`` heat steps ``U <- (I - L / max d) U`` of the one-hot labels, then the size-constrained
assignment of the unlabeled nodes to the label proportions, until a fixed point, one stage per
``s``) started from the ensemble's scores: ``volume_mbo(..., n_inner=s, init=F)`` chained.  Post-processing: ``argmax`` and
``volume`` (size-constrained assignment of the standardized scores of the unlabeled nodes to the
label proportions, as ``class_priors`` = label proportions does).

Usage::

    OPENBLAS_NUM_THREADS=1 nice -n 10 python benchmarks/digits_explore.py --draws 20 \
        --graphs raw:cosine:10:0.5:union:self-tuning --methods P,R,ens,VMBO,PMBO,gl \
        --refine "30;100;100,30"
"""

import argparse
import time
import warnings

import numpy as np
import scipy.sparse as sp


def prep(name, X):
    """Parameter-free feature maps tried before the neighbour search."""
    if name == "raw":
        return X
    if name == "sqrt":                     # Hellinger-type on non-negative data
        return np.sqrt(X)
    if name == "rowc":                     # row centring (+ cosine: correlation distance)
        return X - X.mean(axis=1, keepdims=True)
    raise ValueError(f"unknown prep {name!r}")


def build(gname, X):
    import graphrkhs as g
    if gname.startswith("gl:"):
        import graphlearning as gl
        from sklearn.neighbors import NearestNeighbors
        _, p, k = gname.split(":")
        Z, k = prep(p, X), int(k)
        D, J = NearestNeighbors(n_neighbors=k + 1, algorithm="brute").fit(Z).kneighbors(Z)
        return sp.csr_array(gl.weightmatrix.knn(None, k, knn_data=(J, D)))
    p, metric, k, r, mode, weight = gname.split(":")
    kw = dict(weight=weight, mode=mode, metric=metric, algorithm="brute")
    if weight == "self-tuning":
        kw["relative_width"] = float(r)
    return sp.csr_array(g.knn_graph(prep(p, X), int(k), **kw))


def z(F):
    return (F - F.mean(axis=0)) / (F.std(axis=0) + 1e-300)


def volume_labels(F, S, y, C):
    """Unlabeled nodes assigned with the label proportions as class sizes (standardized scores)."""
    from graphrkhs.solvers._mbo import class_sizes, size_constrained_assignment
    q = np.bincount(y[S], minlength=C) / S.size
    U = np.setdiff1d(np.arange(F.shape[0]), S)
    out = F.argmax(axis=1)
    out[U] = size_constrained_assignment(z(F)[U], class_sizes(q, U.size))[0]
    out[S] = y[S]
    return out


def refine(W, S, F0, y, C, schedule, max_iter=100):
    """Volume-constrained MBO (``volume_mbo``, sizes = the label proportions) warm-started from F0's
    assignment, one call per entry of schedule, each started from the previous output."""
    from graphrkhs import volume_mbo
    F = F0
    for steps in schedule:
        F = volume_mbo(W, S, np.eye(C)[y[S]], n_inner=steps, max_iter=max_iter, init=F)
    return F.argmax(axis=1)


def main():
    import graphrkhs as g
    from graphrkhs.datasets import sample_labels
    from sklearn.datasets import load_digits

    ap = argparse.ArgumentParser()
    ap.add_argument("--draws", type=int, default=20)
    ap.add_argument("--rate", type=int, default=10)
    ap.add_argument("--graphs", default="raw:cosine:10:0.5:union:self-tuning")
    ap.add_argument("--methods", default="P,R,ens,VMBO,PMBO,gl")
    ap.add_argument("--refine", default="30;100;100,30", help="';'-separated schedules of heat steps")
    ap.add_argument("--dataset", default="digits", choices=["digits", "fashion20k"],
                    help="fashion20k: 20000 Fashion-MNIST images drawn once (default_rng(0)), pixels in [0, 1]")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    if args.dataset == "digits":
        X, y = load_digits(return_X_y=True)
    else:
        from graphrkhs.datasets import load_fashion_mnist
        X, y = load_fashion_mnist()
        X, y = np.asarray(X, dtype=np.float64), np.asarray(y).astype(np.int64)
        X = X / 255.0 if X.max() > 1.5 else X
        keep = np.sort(np.random.default_rng(0).choice(X.shape[0], 20000, replace=False))
        X, y = X[keep], y[keep]
    X = X.astype(np.float64)
    C = 10
    sets = [sample_labels(y, args.rate, random_state=d)[1] for d in range(args.draws)]
    methods = args.methods.split(",")
    schedules = [tuple(int(v) for v in s.split(",")) for s in args.refine.split(";") if s]

    def fit_est(name, **kw):
        def f(W, S):
            yp = np.full(W.shape[0], -1)
            yp[S] = y[S]
            return getattr(g, name)(graph="precomputed", **kw).fit(W, yp).scores_
        return f

    def fit_gl(name, **kw):
        def f(W, S):
            import graphlearning as gl
            m = getattr(gl.ssl, name)(sp.csr_matrix(W), **kw)
            m.fit(S, y[S])
            return np.eye(C)[m.predict()]
        return f

    def row(label, labels_of_draws, t):
        acc = []
        for lab, S in zip(labels_of_draws, sets):
            hidden = np.ones(y.size, bool)
            hidden[S] = False
            acc.append(100 * np.mean(lab[hidden] == y[hidden]))
        print(f"{label:<58} {np.mean(acc):6.2f} +- {np.std(acc):4.2f}   ({t:5.2f} s/draw)", flush=True)

    pri = None
    for gname in args.graphs.split(","):
        W = build(gname, X)
        scores = {}
        todo = {"P": lambda W, S: g.poisson_learning(W, S, np.eye(C)[y[S]], tol=1e-8),
                "R": fit_est("GraphKernelRidgeClassifier"),
                "VMBO": fit_est("VolumeMBOClassifier"), "PMBO": fit_est("PoissonMBOClassifier")}
        if "gl" in methods:
            pri = np.full(C, 1.0 / C)         # the label proportions of sample_labels' balanced draws
            for name, kw in [("laplace", {}), ("poisson", {}), ("randomwalk", {}),
                             ("poisson", {"class_priors": pri}), ("poisson_mbo", {"class_priors": pri})]:
                todo[f"gl-{name}{'-pri' if kw else ''}"] = fit_gl(name, **kw)
        need = [m for m in todo if m in methods or (m.startswith("gl-") and "gl" in methods)
                or (m in ("P", "R") and ("ens" in methods or schedules))]
        for m in need:
            t0 = time.perf_counter()
            scores[m] = [np.asarray(todo[m](W, S), dtype=np.float64) for S in sets]
            t = (time.perf_counter() - t0) / len(sets)
            if m in methods or m.startswith("gl-"):
                row(f"{gname} {m} argmax", [F.argmax(1) for F in scores[m]], t)
                if not m.startswith("gl-") and m not in ("VMBO", "PMBO"):
                    row(f"{gname} {m} volume", [volume_labels(F, S, y, C) for F, S in zip(scores[m], sets)], t)
        if "P" in scores and "R" in scores:
            ens = [0.5 * z(a) + 0.5 * z(b) for a, b in zip(scores["P"], scores["R"])]
            if "ens" in methods:
                row(f"{gname} ens argmax", [F.argmax(1) for F in ens], 0.0)
                row(f"{gname} ens volume", [volume_labels(F, S, y, C) for F, S in zip(ens, sets)], 0.0)
            for sched in schedules:
                t0 = time.perf_counter()
                labs = [refine(W, S, F, y, C, sched) for F, S in zip(ens, sets)]
                row(f"{gname} ens refine{sched}", labs, (time.perf_counter() - t0) / len(sets))


if __name__ == "__main__":
    main()
