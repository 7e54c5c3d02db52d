"""Benchmark: kNN graph construction against scikit-learn, PyGSP and bare SciPy.

Every measurement runs in a fresh Python process (so that its peak resident
memory can be read from the operating system), after a small warm-up call
that loads compiled code; the same data and k are given to every method.
Medians over ``--repeats`` runs, ratios against the anchors from the same
run.  Writes ``benchmarks/results/graphs.json`` and ``graphs.md``.

Methods
-------
ours           graphrkhs.knn_graph(X, k) -- exact, Gaussian weights, union symmetrization
ours-ann       graphrkhs.knn_graph(X, k, algorithm="pynndescent") (the ``ann`` extra)
ours-hnsw      graphrkhs.knn_graph(X, k, algorithm="hnswlib")
sklearn        sklearn.neighbors.kneighbors_graph(X, k, mode="distance", n_jobs=-1), then
               A.maximum(A.T) and Gaussian weights (what a user writes by hand)
pygsp          pygsp.graphs.NNGraph(X, k=k) (its own defaults: centering, rescaling, 'average')
ckdtree        a bare scipy cKDTree build + query(k + 1, workers=-1): no graph assembly

Usage::

    python benchmarks/graphs.py                 # full run (10^4..10^6 uniform 3-D, 10^5 x 10-D, Fashion-MNIST)
    python benchmarks/graphs.py --quick         # small sizes only
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "results")
K = 10


def dataset(name):
    if name.startswith("uniform3d-"):
        n = int(float(name.split("-")[1]))
        return np.random.default_rng(0).random((n, 3))
    if name.startswith("uniform10d-"):
        n = int(float(name.split("-")[1]))
        return np.random.default_rng(0).random((n, 10))
    if name == "fashion-mnist":
        from graphrkhs.datasets import load_fashion_mnist

        X, _ = load_fashion_mnist(dtype=np.float32)
        return X
    raise ValueError(name)


def run_method(method, X):
    """Run one method once; returns (seconds, neighbour index array or None)."""
    import scipy.sparse as sp

    if method == "ours":
        from graphrkhs import knn_graph

        t0 = time.perf_counter()
        W = knn_graph(X, K)
        return time.perf_counter() - t0, W
    if method in ("ours-ann", "ours-hnsw"):
        from graphrkhs import knn_graph

        algorithm = "pynndescent" if method == "ours-ann" else "hnswlib"
        t0 = time.perf_counter()
        W = knn_graph(X, K, algorithm=algorithm, random_state=0)
        return time.perf_counter() - t0, W
    if method == "sklearn":
        from sklearn.neighbors import kneighbors_graph

        t0 = time.perf_counter()
        A = kneighbors_graph(X, K, mode="distance", n_jobs=-1)
        A = sp.csr_array(A.maximum(A.T))
        sigma = A.data.mean()
        A.data = np.exp(-A.data**2 / (2 * sigma**2))
        return time.perf_counter() - t0, A
    if method == "pygsp":
        from pygsp import graphs

        t0 = time.perf_counter()
        G = graphs.NNGraph(X, k=K)
        return time.perf_counter() - t0, G.W
    if method == "ckdtree":
        from scipy.spatial import cKDTree

        t0 = time.perf_counter()
        tree = cKDTree(X)
        tree.query(X, k=K + 1, workers=-1)
        return time.perf_counter() - t0, None
    raise ValueError(method)


def warm_up(method):
    """Load compiled code (numba caches, pynndescent's JIT) before timing; returns its seconds."""
    Xs = np.random.default_rng(1).random((2000, 20)).astype(np.float32)
    t0 = time.perf_counter()
    if method in ("ours", "ours-ann", "ours-hnsw"):
        run_method(method, Xs)
        if method == "ours":
            run_method(method, Xs[:, :3].astype(np.float64))
    return time.perf_counter() - t0


def worker(method, name):
    import resource

    X = dataset(name)
    compile_s = warm_up(method)
    base_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    seconds, W = run_method(method, X)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    out = {"seconds": seconds, "peak_rss_bytes": peak, "rss_before_bytes": base_rss, "warmup_seconds": compile_s,
           "nnz": int(W.nnz) if W is not None else None}
    print("RESULT " + json.dumps(out))


def run_once(method, name):
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", method, name]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    if proc.returncode != 0 or not line:
        print(f"  {method} on {name} failed:\n{proc.stderr[-2000:]}", file=sys.stderr)
        return None
    return json.loads(line[0][7:])


def measure_all(methods, name, repeats):
    """Interleave the repeats (A B C, A B C, ...) so that a load change on this shared
    machine hits every method alike; returns {method: summary}."""
    runs = {m: [] for m in methods}
    failed = set()
    for r in range(repeats):
        for method in methods:
            if method in failed:
                continue
            res = run_once(method, name)
            if res is None:
                failed.add(method)
                continue
            runs[method].append(res)
            print(f"  {method:10s} {name:18s} run {r + 1}: {res['seconds']:.2f} s, "
                  f"peak {res['peak_rss_bytes'] / 2**30:.2f} GiB", file=sys.stderr)
    out = {}
    for method, rs in runs.items():
        if method in failed or not rs:
            out[method] = None
            continue
        out[method] = {
            "seconds": [x["seconds"] for x in rs],
            "median_seconds": float(np.median([x["seconds"] for x in rs])),
            "peak_rss_gib": float(np.median([x["peak_rss_bytes"] for x in rs]) / 2**30),
            "warmup_seconds": float(np.median([x["warmup_seconds"] for x in rs])),
        }
    return out


def recall(name, method, exact="ours"):
    """recall@K of ``method``'s directed neighbour sets against the exact ones."""
    from graphrkhs.graphs import _search as _knn

    # Recompute directed lists (the stored graphs are symmetrized): exact by our brute/kd path,
    # approximate by the backend, both in this process.
    X = dataset(name)
    rng = np.random.default_rng(0)
    _, idx_exact = _knn.knn_search(X, K, "auto", rng)
    algorithm = {"ours-ann": "pynndescent", "ours-hnsw": "hnswlib"}[method]
    _, idx_approx = _knn.knn_search(X, K, algorithm, rng)
    hits = (idx_exact[:, :, None] == idx_approx[:, None, :]).any(axis=2).sum()
    return float(hits / idx_exact.size)


def machine():
    info = {"python": platform.python_version(), "platform": platform.platform(), "cores": os.cpu_count()}
    try:
        import numpy
        import scipy
        import sklearn

        info.update(numpy=numpy.__version__, scipy=scipy.__version__, sklearn=sklearn.__version__)
    except ImportError:
        pass
    return info


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--worker", nargs=2, metavar=("METHOD", "DATASET"))
    parser.add_argument("--quick", action="store_true", help="only the small sizes")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", default=None, help="comma-separated dataset names")
    args = parser.parse_args()
    if args.worker:
        worker(args.worker[0], args.worker[1])
        return

    plan = [
        ("uniform3d-1e4", ["ours", "sklearn", "pygsp", "ckdtree"]),
        ("uniform3d-1e5", ["ours", "sklearn", "pygsp", "ckdtree"]),
        ("uniform3d-1e6", ["ours", "sklearn", "pygsp", "ckdtree"]),
        ("uniform10d-1e5", ["ours", "ours-ann", "sklearn", "pygsp", "ckdtree"]),
        ("fashion-mnist", ["ours", "ours-ann", "ours-hnsw", "sklearn"]),
    ]
    if args.quick:
        plan = [p for p in plan if p[0] in ("uniform3d-1e4", "uniform3d-1e5")]
    if args.only:
        keep = set(args.only.split(","))
        plan = [p for p in plan if p[0] in keep]
    results = {"machine": machine(), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "k": K,
               "repeats": args.repeats, "datasets": {}}
    out_json = os.path.join(RESULTS, "graphs.json")
    if os.path.exists(out_json) and args.only:
        with open(out_json) as f:
            old = json.load(f)
        results["datasets"].update(old.get("datasets", {}))
    for name, methods in plan:
        print(f"{name}:", file=sys.stderr)
        entry = measure_all(methods, name, args.repeats)
        for method in ("ours-ann", "ours-hnsw"):
            if method in methods and entry.get(method):
                entry[method]["recall_at_10"] = recall(name, method)
        results["datasets"][name] = entry
        os.makedirs(RESULTS, exist_ok=True)
        with open(out_json, "w") as f:
            json.dump(results, f, indent=2)
    write_markdown(results)


def write_markdown(results):
    lines = [f"# kNN graph construction (k = {results['k']})", "",
             f"{results['date']}; {results['machine'].get('cores')} cores; medians of interleaved runs (column 'runs'), "
             "each in a fresh process; peak = peak resident memory of that process (includes the data).", "",
             "| data | method | runs | median s | peak GiB | vs sklearn | vs PyGSP | vs bare cKDTree | recall@10 | one-time warm-up s |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for name, entry in results["datasets"].items():
        ref_sk = (entry.get("sklearn") or {}).get("median_seconds")
        ref_pg = (entry.get("pygsp") or {}).get("median_seconds")
        ref_kd = (entry.get("ckdtree") or {}).get("median_seconds")
        for method, r in entry.items():
            if not r:
                lines.append(f"| {name} | {method} | 0 | failed | | | | | | |")
                continue
            s = r["median_seconds"]
            ratio = lambda ref: f"{s / ref:.2f}x" if ref else "-"  # noqa: E731
            rec = f"{r['recall_at_10']:.3f}" if "recall_at_10" in r else ("1 (exact)" if method in ("ours", "sklearn") else "-")
            warm = f"{r['warmup_seconds']:.1f}" if method.startswith("ours") else "-"
            lines.append(f"| {name} | {method} | {len(r['seconds'])} | {s:.2f} | {r['peak_rss_gib']:.2f} | {ratio(ref_sk)} | {ratio(ref_pg)} | "
                         f"{ratio(ref_kd)} | {rec} | {warm} |")
    with open(os.path.join(RESULTS, "graphs.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
