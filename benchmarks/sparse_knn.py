"""kNN graph of sparse points (TF-IDF-like) against the same points densified.

Synthetic bag-of-words rows (``scipy.sparse.random`` with a fixed seed, a
Zipf-like column popularity so that documents share frequent terms, rows
scaled to unit length as TF-IDF rows are), ``knn_graph(X, 10,
metric="cosine", weight="self-tuning", relative_width=0.5)`` -- the graph
the recommended classifier builds on such data -- timed on the CSR matrix
and on ``X.toarray()`` (median of ``--repeats`` runs each, the first call
of each kind warmed up beforehand), with scikit-learn's
``NearestNeighbors(metric="cosine", algorithm="brute")`` on the CSR matrix
as the anchor (its kneighbors only, no graph).  Also checks that both
graphs have the same edges and reports the largest weight difference.

Usage::

    python benchmarks/sparse_knn.py [--n 3000] [--d 10000] [--terms 30] [--repeats 3]

Writes ``benchmarks/results/sparse_knn.json`` and ``sparse_knn.md``.
"""

import argparse
import json
import os
import statistics
import time

import numpy as np
import scipy.sparse as sp

HERE = os.path.dirname(os.path.abspath(__file__))


def tfidf_like(n, d, terms, seed=0):
    rng = np.random.default_rng(seed)
    popularity = 1.0 / np.arange(1, d + 1) ** 0.8
    popularity /= popularity.sum()
    rows = np.repeat(np.arange(n), terms)
    cols = rng.choice(d, size=n * terms, p=popularity)
    X = sp.csr_array((rng.exponential(1.0, n * terms), (rows, cols)), shape=(n, d))
    X.sum_duplicates()
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    return sp.csr_array(sp.diags_array(1.0 / norms) @ X)


def median_time(fn, repeats):
    fn()   # warm-up (numba kernels, caches)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), times


def main(argv=None):
    from sklearn.neighbors import NearestNeighbors

    from graphrkhs import knn_graph

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=3000)
    p.add_argument("--d", type=int, default=10000)
    p.add_argument("--terms", type=int, default=30)
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args(argv)
    X = tfidf_like(args.n, args.d, args.terms)
    D = X.toarray()
    kw = dict(metric="cosine", weight="self-tuning", relative_width=0.5)
    load_before = os.getloadavg()[0]
    t_sparse, runs_sparse = median_time(lambda: knn_graph(X, 10, **kw), args.repeats)
    t_dense, runs_dense = median_time(lambda: knn_graph(D, 10, **kw), args.repeats)
    nn = NearestNeighbors(n_neighbors=10, metric="cosine", algorithm="brute").fit(X)
    t_sklearn, runs_sklearn = median_time(lambda: nn.kneighbors(None), args.repeats)
    load_after = os.getloadavg()[0]
    A, B = knn_graph(D, 10, **kw), knn_graph(X, 10, **kw)
    same_edges = bool(((A != 0) != (B != 0)).nnz == 0)
    max_diff = float(abs(A - B).max()) if same_edges else float("nan")
    result = {
        "n": args.n, "d": args.d, "nnz": int(X.nnz), "density": X.nnz / (args.n * args.d),
        "sparse_s": t_sparse, "dense_s": t_dense, "sklearn_kneighbors_sparse_s": t_sklearn,
        "runs": {"sparse": runs_sparse, "dense": runs_dense, "sklearn": runs_sklearn},
        "dense_over_sparse": t_dense / t_sparse, "sparse_over_sklearn": t_sparse / t_sklearn,
        "same_edges": same_edges, "max_weight_difference": max_diff,
        "load": [load_before, load_after], "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    with open(os.path.join(HERE, "results", "sparse_knn.json"), "w") as f:
        json.dump(result, f, indent=2)
    md = (f"Sparse kNN graph (`python benchmarks/sparse_knn.py`, {result['date']}, load {load_before:.1f} -> "
          f"{load_after:.1f}): {args.n} x {args.d} TF-IDF-like rows, {X.nnz} stored entries "
          f"(density {result['density']:.4f}), cosine self-tuning kNN graph k = 10, medians of {args.repeats} runs.\n\n"
          "| input | seconds | time / sparse time |\n|---|---|---|\n"
          f"| `knn_graph(X)`, X CSR (exact sparse search) | {t_sparse:.2f} | 1 |\n"
          f"| `knn_graph(X.toarray())` (exact dense search) | {t_dense:.2f} | {t_dense / t_sparse:.1f}x |\n"
          f"| anchor: scikit-learn `NearestNeighbors(metric='cosine', algorithm='brute')` on CSR, kneighbors only "
          f"| {t_sklearn:.2f} | {t_sklearn / t_sparse:.2f}x |\n\n"
          f"Same edges: {same_edges}; largest weight difference {max_diff:.1e}.\n")
    with open(os.path.join(HERE, "results", "sparse_knn.md"), "w") as f:
        f.write(md)
    print(md)


if __name__ == "__main__":
    main()
