"""Benchmark: MBO with class sizes and class priors, ours against GraphLearning's on the same graph and draws.

Every method gets GraphLearning's own graph, ``gl.weightmatrix.knn(X, 10)`` (exact neighbours from
scikit-learn passed as its ``knn_data``, since its own search needs annoy; self-loops dropped; ours as
``graph="precomputed"``), the same random label draws (``draws`` per rate, seeds 0, 1, ...)
and the same class priors (the true class proportions, ``gl.utils.class_priors``):

=====================================  ======================================================
ours                                   GraphLearning 1.7.5
=====================================  ======================================================
PoissonLearningClassifier(priors)      ``gl.ssl.poisson(W, class_priors)``
PoissonMBOClassifier(priors)           ``gl.ssl.poisson_mbo(W, class_priors)`` (Ns=40, mu=1, T=20)
VolumeMBOClassifier(priors)            ``gl.ssl.volume_mbo(W, class_priors)`` (its defaults:
                                       temperature 0.1, volume_constraint 0.5)
=====================================  ======================================================

Accuracy on the unlabeled nodes, mean +- standard deviation over the draws; times are medians of
one fit per draw.

Datasets: scikit-learn's digits (1797 points) and Fashion-MNIST (70000 x 784 in [0, 1]; its
GraphLearning graph is cached under ``$GRAPHRKHS_BENCH_CACHE`` (default /tmp/graphrkhs_bench)).

Usage::

    python benchmarks/mbo.py --quick                        # digits only
    python benchmarks/mbo.py --datasets digits,fashion --rates 1,5,10 --draws 5
"""

import argparse
import json
import os
import sys
import time
import warnings

import numpy as np
import scipy.sparse as sp

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
RESULTS = os.path.join(HERE, "results")
CACHE = os.environ.get("GRAPHRKHS_BENCH_CACHE", "/tmp/graphrkhs_bench")


def _data(name):
    from graphrkhs.datasets import load_digits, load_fashion_mnist

    if name == "digits":
        X, y = load_digits()
        return X, y, None
    X, y = load_fashion_mnist()
    return X, y, os.path.join(CACHE, "fmnist_gl_knn10.npz")


def gl_graph(name, knn_files=None):
    """GraphLearning's kNN graph of the data set (cached for Fashion-MNIST).

    ``knn_files``: (indices.npy, distances.npy) of a previous exact search of at least 10 neighbours
    per point, self excluded (e.g. the cache of ``benchmarks/label_rates.py``), instead of searching."""
    import graphlearning as gl

    X, y, path = _data(name)
    if path is not None and os.path.exists(path):
        return sp.csr_array(sp.load_npz(path)), np.asarray(y), 0.0
    from sklearn.neighbors import NearestNeighbors

    t0 = time.perf_counter()
    # GraphLearning's own search needs annoy (not installed): exact neighbours (self included, as
    # its knnsearch returns them) handed to its weight construction, k = 10 + self
    if knn_files is not None:
        ind = np.load(knn_files[0])[:, :10].astype(np.int64)
        dist = np.load(knn_files[1])[:, :10].astype(np.float64)
        ind = np.hstack([np.arange(X.shape[0])[:, None], ind])
        dist = np.hstack([np.zeros((X.shape[0], 1)), dist])
    else:
        dist, ind = NearestNeighbors(n_neighbors=11, algorithm="brute").fit(X).kneighbors(X)
    W = sp.csr_array(gl.weightmatrix.knn(X, 10, knn_data=(ind, dist)))
    W.setdiag(0)            # the self-loops GraphLearning's solvers drop anyway
    W.eliminate_zeros()
    t = time.perf_counter() - t0
    if path is not None:
        os.makedirs(CACHE, exist_ok=True)
        sp.save_npz(path, sp.csr_matrix(W))
    return sp.csr_array(W), np.asarray(y), t


def _draw(y, per_class, seed):
    rng = np.random.default_rng(seed)
    return np.sort(np.concatenate([rng.choice(np.flatnonzero(y == c), per_class, replace=False)
                                   for c in np.unique(y)]))


def methods(W, priors):
    """(name, source, fn(train_idx, train_labels) -> predicted codes of every node)."""
    import graphlearning as gl

    import graphrkhs as g

    def ours(E, **kw):
        def run(idx, lab):
            yy = np.full(W.shape[0], -1)
            yy[idx] = lab
            return E(graph="precomputed", class_priors=priors, **kw).fit(W, yy).transduction_
        return run

    def theirs(make):
        def run(idx, lab):
            return make().fit_predict(idx, lab)
        return run

    # the slowest (GraphLearning's poisson_mbo) last: a run cut short keeps the others
    return [
        ("Poisson + priors", "graphrkhs", ours(g.PoissonLearningClassifier, tol=1e-3)),
        ("Poisson MBO", "graphrkhs", ours(g.PoissonMBOClassifier, tol=1e-3)),
        ("volume MBO", "graphrkhs", ours(g.VolumeMBOClassifier)),
        ("poisson (class_priors)", "GraphLearning", theirs(lambda: gl.ssl.poisson(W, class_priors=priors))),
        ("volume_mbo", "GraphLearning", theirs(lambda: gl.ssl.volume_mbo(W, class_priors=priors))),
        ("poisson_mbo", "GraphLearning", theirs(lambda: gl.ssl.poisson_mbo(W, class_priors=priors))),
    ]


def run_dataset(name, rates, draws, only=None, knn_files=None):
    W, y, t_graph = gl_graph(name, knn_files)
    k = int(y.max()) + 1
    priors = np.bincount(y, minlength=k) / y.size
    rows = []
    for per_class in rates:
        draws_idx = [_draw(y, per_class, seed) for seed in range(draws)]
        for mname, source, fn in methods(W, priors):
            if only and not any(o in mname for o in only):
                continue
            accs, times = [], []
            for idx in draws_idx:
                unl = np.ones(y.size, dtype=bool)
                unl[idx] = False
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    t0 = time.perf_counter()
                    pred = np.asarray(fn(idx, y[idx]))
                    times.append(time.perf_counter() - t0)
                accs.append(100.0 * np.mean(pred[unl] == y[unl]))
            row = {"dataset": name, "labels_per_class": per_class, "method": mname, "source": source,
                   "accuracy_mean": float(np.mean(accs)), "accuracy_std": float(np.std(accs)),
                   "accuracies": [float(a) for a in accs], "time_median": float(np.median(times)),
                   "draws": draws}
            rows.append(row)
            print(f"{name:8s} {per_class:3d}/class  {source:13s} {mname:24s} "
                  f"{row['accuracy_mean']:6.2f} +- {row['accuracy_std']:5.2f}  {row['time_median']:7.2f} s",
                  file=sys.stderr, flush=True)
    return {"dataset": name, "n": int(W.shape[0]), "edges": int(W.nnz // 2), "graph_seconds": t_graph,
            "rows": rows}


def render(results):
    lines = ["# MBO with class sizes: graphrkhs against GraphLearning", "",
             "Same graph (`gl.weightmatrix.knn(X, 10)`), same label draws and the true class priors for every "
             "method; accuracy (%) on the unlabeled nodes, mean +- std over the draws; median seconds per fit.", ""]
    for d in results.values():
        rates = sorted({r["labels_per_class"] for r in d["rows"]})
        draws = d["rows"][0]["draws"] if d["rows"] else 0
        lines += [f"## {d['dataset']} (n = {d['n']}, {draws} draws)", "",
                  "| method | " + " | ".join(f"{r}/class" for r in rates) + " | time (s) |",
                  "|---" * (len(rates) + 2) + "|"]
        names = list(dict.fromkeys((r["source"], r["method"]) for r in d["rows"]))
        for source, m in names:
            cells, t = [], []
            for rate in rates:
                row = next((r for r in d["rows"] if r["method"] == m and r["source"] == source
                            and r["labels_per_class"] == rate), None)
                cells.append(f"{row['accuracy_mean']:.1f} +- {row['accuracy_std']:.1f}" if row else "")
                if row:
                    t.append(row["time_median"])
            lines.append(f"| {source} {m} | " + " | ".join(cells) + f" | {max(t):.2f} |")
        lines.append("")
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--datasets", default="digits,fashion")
    p.add_argument("--rates", default="1,5,10")
    p.add_argument("--draws", type=int, default=5)
    p.add_argument("--only", default=None, help="comma-separated substrings of method names")
    p.add_argument("--quick", action="store_true", help="digits only, 5 draws")
    p.add_argument("--results", default=os.path.join(RESULTS, "mbo.json"),
                   help="JSON file the results merge into (the table goes beside it, .md)")
    p.add_argument("--knn-files", default=None,
                   help="indices.npy,distances.npy of a cached exact Fashion-MNIST kNN search (self excluded)")
    args = p.parse_args(argv)
    datasets = ["digits"] if args.quick else args.datasets.split(",")
    rates = [int(r) for r in args.rates.split(",")]
    only = args.only.split(",") if args.only else None
    path = args.results
    results = json.load(open(path)) if os.path.exists(path) else {}
    for name in datasets:
        for i, rate in enumerate(rates):      # saved after every rate: a long run leaves partial results
            knn = args.knn_files.split(",") if (args.knn_files and name == "fashion") else None
            part = run_dataset(name, [rate], args.draws, only, knn)
            if i == 0:
                results[name] = part
            else:
                results[name]["rows"] += part["rows"]
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
            with open(path, "w") as f:
                json.dump(results, f, indent=1)
            with open(os.path.splitext(path)[0] + ".md", "w") as f:
                f.write(render(results) + "\n")
    print(render(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
