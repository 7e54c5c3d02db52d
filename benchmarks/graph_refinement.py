"""Probe (issue 15): does a refined graph lift the recommended classifier?

The recommended classifier (``PoissonRidgeEnsembleClassifier``) is fitted with ``graph="precomputed"``
on graphs derived from its default one (``graph="auto"``: the cosine self-tuning 10-NN graph, r = 1/2,
on both data sets), on the label draws of ``label_rates.py`` (``sample_labels`` with the generator
``default_rng([0, rate])``), accuracy on the unlabeled points.  Graphs (names on the command line):

``base``      the default graph;
``k<K>``      the same rule with K neighbours;
``diff<T>``   the points smoothed T times by the lazy random walk of the default graph,
              X <- (X + D^-1 W X) / 2, and the default rule rebuilt on them (feature diffusion);
``sdiff<T>``  the same with the plain walk X <- D^-1 W X;
``snn``       the default edges reweighted by their shared neighbours |N(i) & N(j)| / k;
``snnmix``    the same with (|N(i) & N(j)| + 1) / (k + 1);
``cat``       the default rule on [X, (X + D^-1 W X) / 2];
``euc``, ``euc7``  Euclidean self-tuning graphs (k = 10, 7);
``sqrt``      the default rule on sqrt(X);
``rw1``, ``rw25``  the cosine self-tuning graph with r = 1, 1/4;
``centred``   the default rule on X minus its mean row (the correlation metric);
``pca<D>``    the default rule on the first D principal components (centred, not whitened);
``std``       the default rule on the pixels centred and scaled to unit variance per feature;
``shift<R>`` / ``shift<R>k<K>``  a translation-invariant distance for square images: the Euclidean distance
              minimized over shifts of either image by up to R pixels in x and y (zero fill; symmetrized),
              the Euclidean self-tuning kNN weights exp(-4 d^2 / (s_i s_j)) on it, K = 10 neighbours unless
              given (a dense n x n distance: refused above 5000 points).

Usage::

    python benchmarks/graph_refinement.py digits 1,10 20 base,diff1,snn,k7,k5
    OPENBLAS_NUM_THREADS=1 python benchmarks/graph_refinement.py fashion 1,10 5 base,k7,diff1
"""

import argparse
import time
import warnings

import numpy as np
import scipy.sparse as sp


def _cosine(Z, k=10, r=0.5):
    from graphrkhs import knn_graph
    return sp.csr_array(knn_graph(Z, k, weight="self-tuning", relative_width=r, metric="cosine"))


def _walk(W):
    return sp.diags_array(1.0 / np.asarray(W.sum(axis=1)).ravel()) @ W


def refined_graph(name, X, W0):
    from graphrkhs import knn_graph
    if name == "base":
        return W0
    if name.startswith("k"):
        return _cosine(X, int(name[1:]))
    if name.startswith("diff") or name.startswith("sdiff"):
        lazy = name.startswith("diff")
        P, Z = _walk(W0), X.copy()
        for _ in range(int(name[4 if lazy else 5:])):
            Z = 0.5 * (Z + P @ Z) if lazy else P @ Z
        return _cosine(Z)
    if name in ("snn", "snnmix"):
        A = (W0 > 0).astype(np.float64)
        shared = sp.csr_array((A @ A.T).multiply(W0 > 0))
        shared.data = shared.data / 10.0 if name == "snn" else (shared.data + 1) / 11.0
        return sp.csr_array(W0.multiply(shared))
    if name == "cat":
        return _cosine(np.hstack([X, 0.5 * (X + _walk(W0) @ X)]))
    if name in ("euc", "euc7"):
        return sp.csr_array(knn_graph(X, 10 if name == "euc" else 7, weight="self-tuning", relative_width=0.5))
    if name == "sqrt":
        return _cosine(np.sqrt(X))
    if name in ("rw1", "rw25"):
        return _cosine(X, r=1.0 if name == "rw1" else 0.25)
    if name == "centred":
        return _cosine(X - X.mean(axis=0))
    if name.startswith("pca"):
        from sklearn.decomposition import PCA
        return _cosine(PCA(int(name[3:]), random_state=0).fit_transform(X))
    if name == "std":
        scale = X.std(axis=0)
        return _cosine((X - X.mean(axis=0)) / np.where(scale > 0, scale, 1.0))
    if name.startswith("shift"):
        R, _, K = name[5:].partition("k")
        return _shift_graph(X, int(R), int(K or 10))
    raise ValueError(f"unknown graph {name!r}")


def _shift_graph(X, R, k):
    """The self-tuning kNN graph of the distance min over shifts (|dx|, |dy| <= R) of one image against the other."""
    n, p = X.shape
    side = int(round(np.sqrt(p)))
    if side * side != p or n > 5000:
        raise ValueError(f"shift graphs need square images and at most 5000 points; got {X.shape}.")
    img = X.reshape(n, side, side)
    sq = (X ** 2).sum(axis=1)
    D = np.full((n, n), np.inf)
    for dx in range(-R, R + 1):
        for dy in range(-R, R + 1):
            moved = np.zeros_like(img)
            moved[:, max(-dy, 0):side + min(-dy, 0), max(-dx, 0):side + min(-dx, 0)] = \
                img[:, max(dy, 0):side + min(dy, 0), max(dx, 0):side + min(dx, 0)]
            M = moved.reshape(n, p)
            d = np.sqrt(np.maximum((M ** 2).sum(axis=1)[:, None] + sq[None, :] - 2 * M @ X.T, 0.0))
            D = np.minimum(D, np.minimum(d, d.T))
    np.fill_diagonal(D, np.inf)
    nbr = np.argsort(D, axis=1)[:, :k]
    dk = np.take_along_axis(D, nbr, axis=1)
    rows = np.repeat(np.arange(n), k)
    width = dk[:, -1]
    W = sp.csr_array((np.exp(-4 * dk.ravel() ** 2 / (width[rows] * width[nbr.ravel()])), (rows, nbr.ravel())),
                     shape=(n, n))
    return sp.csr_array(W.maximum(W.T))


def main(argv=None):
    from graphrkhs import PoissonRidgeEnsembleClassifier
    from graphrkhs.datasets import load_digits, load_fashion_mnist, sample_labels
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", choices=["digits", "fashion"])
    parser.add_argument("rates")
    parser.add_argument("draws", type=int)
    parser.add_argument("graphs")
    args = parser.parse_args(argv)
    X, y = load_digits() if args.dataset == "digits" else load_fashion_mnist()
    X = np.asarray(X, dtype=np.float64)
    n = y.size
    W0 = _cosine(X)
    for name in args.graphs.split(","):
        start = time.perf_counter()
        W = refined_graph(name, X, W0)
        t_graph = time.perf_counter() - start
        for rate in (int(r) for r in args.rates.split(",")):
            rng = np.random.default_rng([0, rate])
            accs = []
            for _ in range(args.draws):
                S = sample_labels(y, rate, random_state=rng)[1]
                y_fit = np.full(n, -1)
                y_fit[S] = y[S]
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    est = PoissonRidgeEnsembleClassifier(graph="precomputed").fit(W, y_fit)
                hidden = np.ones(n, dtype=bool)
                hidden[S] = False
                accs.append(np.mean(est.transduction_[hidden] == y[hidden]))
            print(f"{args.dataset} {name:8s} {rate:3d}/class: {100 * np.mean(accs):6.2f} +- {100 * np.std(accs):5.2f} "
                  f"({args.draws} draws; graph {t_graph:.1f} s)", flush=True)


if __name__ == "__main__":
    main()
