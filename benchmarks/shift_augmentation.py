"""Benchmark: one-pixel translates of the images as extra graph nodes (issue 15, a lead; not a library option).

The recommended classifier (``PoissonRidgeEnsembleClassifier``, ``graph="auto"``: the self-tuning 10-NN
graph of the tangent distance on square images) labels the digits at 10 labels per class with 98.43 % over
``label_rates.py``'s 20 draws, under the issue's 98.5 %.  Session 24 found the bad draws cluster-level (a
sub-cluster with no label goes to a neighbouring class).  This script measures translation invariance as
*data augmentation* of the graph instead of a distance: every image gets ``--shifts`` copies moved by one
pixel (zeros shifted in), the default graph rule (``knn_graph(..., 10, weight="self-tuning",
relative_width=0.5, metric="tangent", image_shape=(s, s))``) is applied to all (1 + shifts) n images, the
classifier is fitted on that graph with ``graph="precomputed"``, and its labels of the original n nodes are
scored.  Variants:

* ``base``: the default graph (the reference of the paired differences);
* ``copies``: the copies are unlabeled nodes (the labels stay on the originals, so the leave-one-out of the
  ridge member sees the draw's labels only);
* ``labeled-copies``: a labeled image's copies carry its label too (5x the labeled nodes: the ridge member's
  leave-one-out then leaves out one node while its copies stay labeled, an optimistic selection; and its fits
  cost 10-15x ``base``'s);
* ``k14``: the default rule with 14 neighbours on the augmented images (room for an image's 4 own translates);
* ``nofamily``: on the augmented images, every node's 10 nearest *outside its own image* (an image's own
  translates, a translate's original and sibling translates left out of its list and of its self-tuning width;
  taken from the 14 nearest among the default rule's 30 cosine candidates, so that a list without family
  members is ``copies``'s): an image and its translates are never joined;
* ``nofamily-link``: ``nofamily`` plus one edge of the fixed weight ``--link-weight`` between every image and
  each of its own translates;
* ``additive``: the original nodes keep the default graph's lists of the original images (and its widths);
  the translates' lists (``nofamily``'s) only add nodes and edges (union of the lists).

Every graph rule is label-free.  ``--diagnose`` prints, for the original nodes, the own translates among their
10 neighbours in ``copies``, the base neighbours kept, the self-tuning widths, the own-translate edge weights,
the originals joined to others only through translates and the connected components; ``--members`` also scores
the argmax of the Poisson and of the graph kernel ridge member of each fit.

Every variant sees the same draws (``sample_labels(y, rate, random_state=default_rng([family, rate]))``,
``label_rates.py``'s with family 0), so the differences are paired (mean and standard error over the draws).
Each variant's graph is built once per data set (the labels do not enter it).

Usage::

    python benchmarks/shift_augmentation.py --rates 10 --draws 20
    python benchmarks/shift_augmentation.py --rates 1,5,10,50 --draws 20 --variants base,copies
    python benchmarks/shift_augmentation.py --dataset fashion --subset 10000 --rates 1,10 --draws 10

Prints one line per (rate, variant): mean +- std over the draws, the paired difference to ``base`` with its
standard error, the draws better / worse, the seconds of the graph and the median seconds of a fit.
"""

import argparse
import time
import warnings

import numpy as np
import scipy.sparse as sp

from scipy.sparse.csgraph import connected_components

from graphrkhs import PoissonRidgeEnsembleClassifier, knn_graph
from graphrkhs.datasets import load_digits, load_fashion_mnist, sample_labels
from graphrkhs.estimators._transductive import _standardize_columns
from graphrkhs.filters import Matern
from graphrkhs.graphs import _search, _tangent, graph_from_neighbors
from graphrkhs.graphs._construct import _apply_metric

SHIFTS_4 = ((0, 1), (0, -1), (1, 0), (-1, 0))
SHIFTS_8 = SHIFTS_4 + ((1, 1), (1, -1), (-1, 1), (-1, -1))


def shifted(images, dy, dx):
    """The images (n, s, s) moved by (dy, dx) pixels, zeros shifted in."""
    s = images.shape[1]
    out = np.zeros_like(images)
    out[:, max(dy, 0):s + min(dy, 0), max(dx, 0):s + min(dx, 0)] = \
        images[:, max(-dy, 0):s + min(-dy, 0), max(-dx, 0):s + min(-dx, 0)]
    return out


def default_rule(X, side):
    """The graph rule of ``graph="auto"`` on square images (module docs)."""
    return sp.csr_array(knn_graph(X, 10, weight="self-tuning", relative_width=0.5, metric="tangent",
                                  image_shape=(side, side)))


def tangent_lists(X, side, k, candidates_of=None):
    """The directed lists (distances, indices), (N, k), of the tangent rule: ``knn_graph``'s own stages (3k
    cosine candidates re-ranked in tangent distance; ``candidates_of``: the 3 ``candidates_of`` candidates of
    that many neighbours instead), so that ``graph_from_neighbors`` of them with the default weights is
    ``default_rule``'s graph for k = 10."""
    U = _apply_metric(np.asarray(X, dtype=np.float64), "tangent")
    n_search = min(U.shape[0] - 1, _tangent.TANGENT_CANDIDATES * (candidates_of or k))
    _, idx, _, _ = _search.knn_search_report(U, n_search, "auto", np.random.default_rng(0))
    return _tangent.tangent_rerank(U, U, idx, k, (side, side), tie=_search._TieRanks(U))


def graph_of_lists(dist, idx):
    """The default weights (self-tuning, r = 1/2, the last column the width) and union of given lists."""
    return sp.csr_array(graph_from_neighbors(dist, idx, weight="self-tuning", relative_width=0.5))


def drop_family(dist, idx, n, k=10):
    """Each row's first k neighbours that are not the same image (node j is image j % n): an image's own
    translates and a translate's original and sibling translates leave the list (and its self-tuning width)."""
    rows = np.arange(idx.shape[0])[:, None] % n
    keep = (idx % n) != rows
    order = np.argsort(~keep, axis=1, kind="stable")[:, :k]      # the kept columns first, in their order
    assert np.take_along_axis(keep, order, axis=1).all(), "fewer than k neighbours outside the family"
    return np.take_along_axis(dist, order, axis=1), np.take_along_axis(idx, order, axis=1)


def with_family_links(W, n, copies, weight):
    """W plus an edge of the given weight between every image and each of its translates."""
    orig = np.tile(np.arange(n), copies - 1)
    trans = np.arange(n, copies * n)
    L = sp.csr_array((np.full(orig.size, weight), (orig, trans)), shape=W.shape)
    return sp.csr_array(W + L + L.T)


def fit_labels(W, y, labeled, n, members=False, kernel=None):
    """The recommended classifier on the precomputed graph W; its labels of the first n nodes (with
    ``members``, also the argmax of the Poisson and of the graph kernel ridge scores)."""
    y_partial = np.full(W.shape[0], -1)
    y_partial[labeled] = y[labeled]
    est = PoissonRidgeEnsembleClassifier(kernel, graph="precomputed")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(W, y_partial)
    if not members:
        return est.transduction_[:n]
    c = est.classes_
    # the ensemble's standardization (over the unlabeled nodes) redone over the unlabeled ORIGINAL nodes only
    ref = np.ones(W.shape[0], dtype=bool)
    ref[labeled] = False
    ref[n:] = False
    F = (_standardize_columns(est.poisson_scores_, None, ref) + _standardize_columns(est.ridge_scores_, None, ref))
    return (est.transduction_[:n], c[np.argmax(est.poisson_scores_[:n], axis=1)],
            c[np.argmax(est.ridge_scores_[:n], axis=1)], float(getattr(est.kernel_, "kappa", np.nan)),
            c[np.argmax(F[:n], axis=1)])


def diagnose(X, side, n, copies, augmented, W_base, W_copies):
    """Why the copies help or hurt: the lists of the original nodes on the base and the augmented graph."""
    d_b, i_b = tangent_lists(X, side, 10)
    d_a, i_a = tangent_lists(augmented, side, 10)
    d_a, i_a = d_a[:n], i_a[:n]
    own = (i_a % n) == np.arange(n)[:, None]
    kept = np.array([len(set(i_b[j]) & set(i_a[j][i_a[j] < n])) for j in range(n)])
    distinct = np.array([len(set(i_a[j] % n) - {j}) for j in range(n)])
    ratio = d_a[:, -1] / d_b[:, -1]
    print(f"  own translates among an original's 10 neighbours: mean {own.sum(1).mean():.2f}, "
          f"histogram 0..4 {np.bincount(own.sum(1), minlength=5)[:5].tolist()}, in slots 1-4 "
          f"{own[:, :4].mean():.3f}", flush=True)
    print(f"  other originals in the list: mean {(i_a < n).sum(1).mean() - 0:.2f}; base neighbours kept as "
          f"originals {kept.mean():.2f} of 10; distinct other images (original or translate) {distinct.mean():.2f}",
          flush=True)
    print(f"  self-tuning width of the originals: base median {np.median(d_b[:, -1]):.4f}, augmented "
          f"{np.median(d_a[:, -1]):.4f}; ratio median {np.median(ratio):.3f} (q10 {np.quantile(ratio, .1):.3f}, "
          f"q90 {np.quantile(ratio, .9):.3f}); nearest-neighbour distance base {np.median(d_b[:, 0]):.4f}, "
          f"augmented {np.median(d_a[:, 0]):.4f}", flush=True)
    fam = [(j, j + b * n) for b in range(1, copies) for j in range(0, n, max(1, n // 2000))]
    wf = np.array([W_copies[a, b] for a, b in fam])
    print(f"  own-translate edge weights (augmented): median {np.median(wf):.3f} (q10 {np.quantile(wf, .1):.3f},"
          f" q90 {np.quantile(wf, .9):.3f}, absent {np.mean(wf == 0):.3f}); all edges median "
          f"{np.median(W_copies.data):.3f}; base edges median {np.median(W_base.data):.3f}", flush=True)
    W_oo = W_copies[:n][:, :n]
    deg_o = np.diff(sp.csr_array(W_oo).indptr)
    share = np.asarray(W_oo.sum(1)).ravel() / np.asarray(W_copies[:n].sum(1)).ravel()
    print(f"  originals with no edge to another original (only through translates): {int((deg_o == 0).sum())}; "
          f"original-original edges per original {deg_o.mean():.2f} (base graph {np.diff(W_base.indptr).mean():.2f});"
          f" weight share of an original's degree on originals: median {np.median(share):.3f}", flush=True)
    for name, W in (("base", W_base), ("augmented", W_copies), ("augmented, originals only", W_oo)):
        nc, lab = connected_components(W, directed=False)
        sizes = np.bincount(lab[:n] if W.shape[0] > n else lab)
        print(f"  components of {name}: {nc} (original nodes outside the largest: {n - sizes.max()})", flush=True)


VARIANTS = ("base", "copies", "labeled-copies", "k14", "nofamily", "nofamily-link", "additive")


def build_graph(name, X, augmented, side, n, copies, cache, link_weight):
    """The graph of a variant (the labels never enter it); ``cache`` keeps the lists shared by variants."""
    if name == "base":
        return default_rule(X, side)
    if name in ("copies", "labeled-copies"):
        return default_rule(augmented, side)
    if name == "k14":
        return sp.csr_array(knn_graph(augmented, 14, weight="self-tuning", relative_width=0.5, metric="tangent",
                                      image_shape=(side, side)))
    if "lists14" not in cache:      # the default rule's 30 candidates, 14 kept (room for the 4 of the family)
        cache["lists14"] = tangent_lists(augmented, side, 14, candidates_of=10)
    d, i = drop_family(*cache["lists14"], n)
    if name == "nofamily":
        return graph_of_lists(d, i)
    if name == "nofamily-link":
        return with_family_links(graph_of_lists(d, i), n, copies, link_weight)
    if name == "additive":
        # the originals keep the base graph's lists (and widths); the translates' lists (their own family left
        # out) only add edges
        d_b, i_b = tangent_lists(X, side, 10)
        d, i = d.copy(), i.copy()
        d[:n], i[:n] = d_b, i_b
        return graph_of_lists(d, i)
    raise SystemExit(f"unknown variant {name!r}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dataset", default="digits", choices=("digits", "fashion"))
    ap.add_argument("--subset", type=int, default=0, help="a seeded subset of this many images (0: all)")
    ap.add_argument("--rates", default="10")
    ap.add_argument("--draws", type=int, default=20)
    ap.add_argument("--family", type=int, default=0)
    ap.add_argument("--shifts", type=int, default=4, choices=(4, 8))
    ap.add_argument("--variants", default="base,copies,labeled-copies", help=f"of {', '.join(VARIANTS)}")
    ap.add_argument("--link-weight", type=float, default=0.5, help="of the image-translate edges of nofamily-link")
    ap.add_argument("--diagnose", action="store_true", help="print the lists and connectivity diagnosis")
    ap.add_argument("--members", action="store_true", help="also score the Poisson and ridge members, and the "
                    "ensemble with its standardization over the original unlabeled nodes only (not the translates)")
    ap.add_argument("--kappas", default="", help="a diagnosis: the ridge member's kernels Matern(2, kappa) for "
                    "these kappas (leave-one-out chooses; default: the library's Matern(2, 10))")
    args = ap.parse_args()

    X, y = load_digits() if args.dataset == "digits" else load_fashion_mnist()
    X, y = np.asarray(X, dtype=np.float64), np.asarray(y)
    if args.subset:
        keep = np.sort(np.random.default_rng(0).choice(X.shape[0], args.subset, replace=False))
        X, y = X[keep], y[keep]
    n, side = X.shape[0], int(round(np.sqrt(X.shape[1])))
    shifts = SHIFTS_4 if args.shifts == 4 else SHIFTS_8
    copies = 1 + len(shifts)
    variants = args.variants.split(",")
    if "base" in variants:
        variants = ["base"] + [v for v in variants if v != "base"]
    images = X.reshape(n, side, side)
    augmented = np.concatenate([images] + [shifted(images, dy, dx) for dy, dx in shifts]).reshape(-1, side * side)

    graphs, seconds, cache = {}, {}, {}
    for name in variants:
        t0 = time.perf_counter()
        graphs[name] = build_graph(name, X, augmented, side, n, copies, cache, args.link_weight)
        seconds[name] = time.perf_counter() - t0
        W = graphs[name]
        nc = connected_components(W, directed=False)[0]
        print(f"{args.dataset}: n = {n}, graph {name}: {W.shape[0]} nodes, {W.nnz // 2} edges, {nc} component(s), "
              f"{seconds[name]:.1f} s", flush=True)
    if args.diagnose:
        W_b = graphs["base"] if "base" in graphs else default_rule(X, side)
        W_c = graphs["copies"] if "copies" in graphs else default_rule(augmented, side)
        diagnose(X, side, n, copies, augmented, W_b, W_c)
    y_all = np.tile(y, copies)
    kernel = [Matern(2, float(k)) for k in args.kappas.split(",")] if args.kappas else None

    for rate in [int(r) for r in args.rates.split(",")]:
        rng = np.random.default_rng([args.family, rate])
        draws = [sample_labels(y, rate, random_state=rng)[1] for _ in range(args.draws)]
        scores = {}
        for name in variants:
            acc, acc_p, acc_r, fit_s, kap, acc_o = [], [], [], [], [], []
            for labeled in draws:
                hidden = np.ones(n, dtype=bool)
                hidden[labeled] = False
                t0 = time.perf_counter()
                if name == "base":
                    out = fit_labels(graphs["base"], y, labeled, n, args.members, kernel)
                elif name == "labeled-copies":
                    all_labeled = np.concatenate([labeled + j * n for j in range(copies)])
                    out = fit_labels(graphs[name], y_all, all_labeled, n, args.members, kernel)
                else:
                    out = fit_labels(graphs[name], y_all, labeled, n, args.members, kernel)
                fit_s.append(time.perf_counter() - t0)
                pred = out[0] if args.members else out
                acc.append(100.0 * np.mean(pred[hidden] == y[hidden]))
                if args.members:
                    acc_p.append(100.0 * np.mean(out[1][hidden] == y[hidden]))
                    acc_r.append(100.0 * np.mean(out[2][hidden] == y[hidden]))
                    kap.append(out[3])
                    acc_o.append(100.0 * np.mean(out[4][hidden] == y[hidden]))
            scores[name] = np.asarray(acc)
            line = (f"rate {rate:2d} {name:15s} {scores[name].mean():6.2f} +- {scores[name].std(ddof=1):.2f}"
                    if len(acc) > 1 else f"rate {rate:2d} {name:15s} {scores[name].mean():6.2f}")
            if name != "base" and "base" in scores and len(acc) > 1:
                d = scores[name] - scores["base"]
                line += (f"  paired {d.mean():+.3f} (se {d.std(ddof=1) / np.sqrt(d.size):.3f}) "
                         f"better/worse {int((d > 0).sum())}/{int((d < 0).sum())}")
            line += f"  graph {seconds[name]:.1f} s, fit median {np.median(fit_s):.2f} s"
            if args.members:
                line += (f"  [poisson {np.mean(acc_p):.2f}, ridge {np.mean(acc_r):.2f}, ensemble standardized on the "
                         f"originals {np.mean(acc_o):.2f}")
                line += f", kappas chosen {sorted(kap)}]" if kernel is not None and len(kernel) > 1 else "]"
            print(line, flush=True)


if __name__ == "__main__":
    main()
