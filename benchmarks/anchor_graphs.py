"""Issue 17: how far above RLS can any learner bounded by the transductive anchor get, per graph?

Fashion-MNIST's own split (60000 training points with 10 labels per class, 10000 test points), label
draws ``sample_labels(y_train, 10, random_state=d)`` (draw 0 is ``benchmarks/out_of_sample.py``'s).
For three 10-NN graphs of the training points -- ``gauss`` (``knn_graph`` defaults: Gaussian weights,
the graph of ``out_of_sample.py``, cached in ``/tmp/lowrank_cache``), ``st10`` (self-tuning weights,
relative width 1/2) and ``st10cos`` (the same on the cosine metric, ``metric="cosine"``) -- the
transductive graph kernel ridge (``GraphKernelRidgeClassifier``, defaults, the issue's anchor) is fitted
on the training graph and its labels are carried to the test points by the nearest training point
(``1nn``: Euclidean, ``1nncos``: cosine); ``unl`` is its accuracy on the unlabeled training points.
``rls`` is ``RLSClassifier()`` (defaults) on the 100 labeled points, scored on the test set.

The anchor is what issue 17's accuracy line compares LapRLS with; LapRLS in a landmark span stays below
the anchor (``laprls_ceiling.py``), so "anchor - RLS" bounds what the LapRLS line can show per graph.

Run:  python benchmarks/anchor_graphs.py [--draws 0,1,2,3,4]
Prints one dict per draw, then the means and the margins over RLS.
"""
import argparse
import os
import time

import numpy as np
import scipy.sparse as sp

import graphrkhs as gr
from graphrkhs.datasets import load_fashion_mnist, sample_labels

CACHE = "/tmp/lowrank_cache"
GRAPHS = {"st10": dict(weight="self-tuning", relative_width=0.5),
          "st10cos": dict(weight="self-tuning", relative_width=0.5, metric="cosine")}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--draws", default="0,1,2,3,4")
    args = p.parse_args()
    X, y = load_fashion_mnist()
    Xtr, ytr, Xte, yte = X[:60000], y[:60000], X[60000:], y[60000:]
    os.makedirs(CACHE, exist_ok=True)
    gpath = os.path.join(CACHE, "graph_knn10.npz")
    if not os.path.exists(gpath):
        sp.save_npz(gpath, sp.csr_matrix(gr.knn_graph(Xtr, 10)))
    graphs = {"gauss": sp.csr_array(sp.load_npz(gpath))}
    for name, kw in GRAPHS.items():
        path = os.path.join(CACHE, f"graph_{name}.npz")
        if not os.path.exists(path):
            t = time.perf_counter()
            sp.save_npz(path, sp.csr_matrix(gr.knn_graph(Xtr, 10, **kw)))
            print(f"{name}: built in {time.perf_counter() - t:.1f} s", flush=True)
        graphs[name] = sp.csr_array(sp.load_npz(path))
    unit = lambda A: A / np.linalg.norm(A, axis=1, keepdims=True)  # noqa: E731
    sq = (Xtr ** 2).sum(1)
    nn_euc = np.concatenate([np.argmin(sq[None, :] - 2 * Xte[i:i + 1000] @ Xtr.T, axis=1)
                             for i in range(0, len(Xte), 1000)])
    A, B = unit(Xtr), unit(Xte)
    nn_cos = np.concatenate([np.argmax(B[i:i + 1000] @ A.T, axis=1) for i in range(0, len(Xte), 1000)])
    rows = []
    for d in (int(s) for s in args.draws.split(",")):
        y_partial, _ = sample_labels(ytr, 10, random_state=d)
        labeled = y_partial != -1
        row = {"draw": d, "rls": gr.RLSClassifier().fit(Xtr[labeled], ytr[labeled]).score(Xte, yte)}
        for name, W in graphs.items():
            trans = np.asarray(gr.GraphKernelRidgeClassifier(graph="precomputed").fit(W, y_partial).transduction_)
            row[f"{name}_1nn"] = float(np.mean(trans[nn_euc] == yte))
            row[f"{name}_1nncos"] = float(np.mean(trans[nn_cos] == yte))
            row[f"{name}_unl"] = float(np.mean(trans[~labeled] == ytr[~labeled]))
        print({k: (round(v, 4) if isinstance(v, float) else v) for k, v in row.items()}, flush=True)
        rows.append(row)
    rls = np.array([r["rls"] for r in rows])
    print("| column | per draw | mean | minus RLS per draw (points) | mean minus RLS |")
    print("|---|---|---|---|---|")
    for key in rows[0]:
        if key == "draw":
            continue
        v = np.array([r[key] for r in rows])
        print(f"| {key} | {' / '.join(f'{x:.4f}' for x in v)} | {v.mean():.4f} | "
              f"{' / '.join(f'{100 * x:+.1f}' for x in v - rls)} | {100 * (v - rls).mean():+.1f} |")


if __name__ == "__main__":
    main()
