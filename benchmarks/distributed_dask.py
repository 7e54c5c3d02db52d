"""Benchmark: distributed kNN construction and the Dask backend (issue 16, deliverables 3 and 4).

Three sections, each run in its own process (``--section``), results merged into
``benchmarks/results/distributed_dask.json`` and ``distributed_dask.md``:

``knn3d``
    2e5 uniform points in the unit cube, k = 10: the exact ``knn_graph`` (kd-tree)
    against ``distributed_knn_graph`` with k-means and RCB cells (16 cells), run
    serially and on a Dask LocalCluster (2 workers, one task per cell and phase);
    edge recall against the exact graph, halo visits per point.
``fmnist``
    Fashion-MNIST (70000 x 784), k = 10: exact ``knn_graph(algorithm="brute")``
    against k-means cells (16 cells), complete halo (exact) and a halo of the 2
    nearest candidate cells (approximate), serially; edge recall.
``cheb``
    One Chebyshev step (fused three-term step of the recurrence) on a 3-D kNN graph
    (k = 10, normalized Laplacian) at 2e5 nodes (8 signals) and 1e6 nodes (16 signals):
    the serial operator (RCM-reordered, compiled kernel on both cores) against the
    Dask operator on a LocalCluster of 1 and 2 workers (threads, 1 per worker, TCP on
    127.0.0.1).  Per-step time = (t(K=25) - t(K=5)) / 20 from medians of 5 runs of
    the whole filter, so the scatter of the signals and the final gather cancel; they
    are reported as the fixed cost.

The machine is shared (2 cores, other jobs): the 1-minute load average is recorded.

Usage::

    python -m benchmarks.distributed_dask --section knn3d
    python -m benchmarks.distributed_dask --section fmnist
    python -m benchmarks.distributed_dask --section cheb
"""

import argparse
import json
import os
import platform
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import graphrkhs as gr  # noqa: E402
from graphrkhs import filters  # noqa: E402
from graphrkhs._core.reorder import PreparedOperator  # noqa: E402
from graphrkhs.distributed._dask import DaskOperator  # noqa: E402
from graphrkhs.distributed._knn import distributed_knn_graph, edge_recall  # noqa: E402
from graphrkhs.spectral import chebyshev_apply, chebyshev_coefficients  # noqa: E402

RESULTS = os.path.join(HERE, "results")
JSON = os.path.join(RESULTS, "distributed_dask.json")
MD = os.path.join(RESULTS, "distributed_dask.md")


def load():
    return round(os.getloadavg()[0], 1)


def cluster(n_workers):
    from distributed import Client, LocalCluster

    c = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=False, protocol="tcp",
                     host="127.0.0.1", dashboard_address="127.0.0.1:0")
    return c, Client(c)


def knn3d():
    rng = np.random.default_rng(0)
    X = rng.random((200_000, 3))
    rows = []
    gr.knn_graph(X[:2000], 10)  # compile
    t = time.perf_counter()
    W0 = gr.knn_graph(X, 10)
    rows.append({"method": "knn_graph (kd-tree, exact)", "executor": "serial", "seconds": time.perf_counter() - t,
                 "recall": 1.0, "visits_per_point": 0.0, "load": load()})
    cl, client = cluster(2)
    try:
        for partitioner in ("kmeans", "rcb"):
            for executor in ("serial", client):
                t = time.perf_counter()
                W, cells, info = distributed_knn_graph(X, 10, n_cells=16, partitioner=partitioner,
                                                       executor=executor, random_state=0, return_info=True)
                sec = time.perf_counter() - t
                rows.append({"method": f"distributed_knn_graph ({partitioner}, 16 cells, exact halo)",
                             "executor": "serial" if executor == "serial" else "dask (2 workers)",
                             "seconds": sec, "recall": edge_recall(W, W0),
                             "max_abs_weight_diff": float(abs(W - W0).max()),
                             "visits_per_point": info["visits_per_point"],
                             "cell_sizes": [int(c) for c in info["cell_sizes"]], "load": load()})
                print(rows[-1], flush=True)
    finally:
        client.close()
        cl.close()
    return {"knn3d": {"n": 200_000, "d": 3, "k": 10, "rows": rows}}


def fmnist():
    X, _ = gr.datasets.load_fashion_mnist()
    X = np.asarray(X, dtype=np.float64)
    rows = []
    t = time.perf_counter()
    W0 = gr.knn_graph(X, 10, algorithm="brute")
    rows.append({"method": "knn_graph (brute, exact)", "seconds": time.perf_counter() - t, "recall": 1.0,
                 "visits_per_point": 0.0, "load": load()})
    print(rows[-1], flush=True)
    for halo in ("exact", 2):
        t = time.perf_counter()
        W, cells, info = distributed_knn_graph(X, 10, n_cells=16, partitioner="kmeans", halo=halo,
                                               random_state=0, return_info=True)
        rows.append({"method": f"distributed_knn_graph (kmeans, 16 cells, halo={halo})",
                     "seconds": time.perf_counter() - t, "recall": edge_recall(W, W0),
                     "visits_per_point": info["visits_per_point"],
                     "cell_sizes": [int(c) for c in info["cell_sizes"]], "load": load()})
        print(rows[-1], flush=True)
    return {"fmnist": {"n": X.shape[0], "d": X.shape[1], "k": 10, "rows": rows}}


def _median_time(fn, repeats):
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return float(np.median(times)), times


def cheb(sizes=((200_000, 8), (1_000_000, 16)), repeats=5, orders=(5, 25)):
    out = []
    for n, m in sizes:
        rng = np.random.default_rng(1)
        X = rng.random((n, 3))
        L = gr.laplacian(gr.knn_graph(X, 10), kind="normalized")
        S = rng.normal(size=(n, m))
        coefs = {K: chebyshev_coefficients(filters.Heat(1.0), K, 2.0)[None] for K in orders}
        ref = {}

        def run(op, K):
            return op.to_user(chebyshev_apply(op, coefs[K], 2.0, op.to_internal(S)))[0]

        op = PreparedOperator(L, np.float64, reorder=True)
        ref = run(op, orders[1])
        med = {K: _median_time(lambda: run(op, K), repeats) for K in orders}
        step = (med[orders[1]][0] - med[orders[0]][0]) / (orders[1] - orders[0])
        out.append({"n": n, "signals": m, "nnz": int(L.nnz), "backend": "serial", "workers": 0,
                    "step_ms": 1e3 * step, "fixed_s": med[orders[0]][0] - orders[0] * step,
                    "times": {K: med[K][1] for K in orders}, "load": load()})
        print(out[-1], flush=True)
        serial_step = step
        for w in (1, 2):
            cl, client = cluster(w)
            try:
                t = time.perf_counter()
                op = DaskOperator(L, client)
                setup = time.perf_counter() - t
                err = float(np.abs(run(op, orders[1]) - ref).max() / np.abs(ref).max())
                med = {K: _median_time(lambda: run(op, K), repeats) for K in orders}
                step = (med[orders[1]][0] - med[orders[0]][0]) / (orders[1] - orders[0])
                out.append({"n": n, "signals": m, "nnz": int(L.nnz), "backend": "dask", "workers": w,
                            "step_ms": 1e3 * step, "ratio_to_serial": step / serial_step,
                            "overhead_ms": 1e3 * (step - serial_step), "fixed_s": med[orders[0]][0] - orders[0] * step,
                            "setup_s": setup, "halo_rows": [int(h) for h in op.halo_rows()],
                            "rel_error_vs_serial": err, "times": {K: med[K][1] for K in orders}, "load": load()})
                print(out[-1], flush=True)
                del op
            finally:
                client.close()
                cl.close()
        del L, S
    return {"cheb": out}


def write(results):
    data = {}
    if os.path.exists(JSON):
        with open(JSON) as f:
            data = json.load(f)
    data.update(results)
    data["machine"] = {"cpus": os.cpu_count(), "python": platform.python_version(), "dask": _dask_version()}
    with open(JSON, "w") as f:
        json.dump(data, f, indent=1, default=str)
    lines = ["# Distributed kNN construction and the Dask backend", "",
             "Produced by `python -m benchmarks.distributed_dask --section knn3d|fmnist|cheb` on a shared 2-core "
             "machine (load = 1-minute load average after the run).", ""]
    if "knn3d" in data:
        lines += ["## kNN graph, 2e5 uniform points in 3-D, k = 10", "",
                  "| method | executor | seconds | edge recall | halo visits / point | load |", "|---|---|---|---|---|---|"]
        for r in data["knn3d"]["rows"]:
            lines.append(f"| {r['method']} | {r.get('executor', 'serial')} | {r['seconds']:.1f} | {r['recall']:.4f} | "
                         f"{r['visits_per_point']:.2f} | {r['load']} |")
        lines.append("")
    if "fmnist" in data:
        lines += ["## kNN graph, Fashion-MNIST (70000 x 784), k = 10, serial", "",
                  "| method | seconds | edge recall | halo visits / point | load |", "|---|---|---|---|---|"]
        for r in data["fmnist"]["rows"]:
            lines.append(f"| {r['method']} | {r['seconds']:.1f} | {r['recall']:.4f} | {r['visits_per_point']:.2f} | "
                         f"{r['load']} |")
        lines.append("")
    if "cheb" in data:
        lines += ["## One Chebyshev step, 3-D kNN graph (k = 10), normalized Laplacian", "",
                  "Per step = (median t(K=25) - median t(K=5)) / 20 over 5 runs each; fixed = scatter of the "
                  "signals + gather of the result (+ coefficients).", "",
                  "| nodes | signals | backend | workers | ms / step | x serial | overhead ms / step | fixed s | "
                  "rel. error vs serial | load |", "|---|---|---|---|---|---|---|---|---|---|"]
        for r in data["cheb"]:
            lines.append(f"| {r['n']:.0e} | {r['signals']} | {r['backend']} | {r['workers'] or '-'} | "
                         f"{r['step_ms']:.1f} | {r.get('ratio_to_serial', 1.0):.2f} | "
                         f"{r.get('overhead_ms', 0.0):.1f} | {r['fixed_s']:.2f} | "
                         f"{r.get('rel_error_vs_serial', 0.0):.1e} | {r['load']} |")
        lines.append("")
    with open(MD, "w") as f:
        f.write("\n".join(lines))


def _dask_version():
    try:
        import dask
        return dask.__version__
    except ImportError:
        return None


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--section", choices=("knn3d", "fmnist", "cheb"), required=True)
    p.add_argument("--sizes", default=None, help="for cheb: n:m,n:m (default 200000:8,1000000:16)")
    args = p.parse_args(argv)
    os.makedirs(RESULTS, exist_ok=True)
    if args.section == "knn3d":
        res = knn3d()
    elif args.section == "fmnist":
        res = fmnist()
    else:
        sizes = ((200_000, 8), (1_000_000, 16)) if args.sizes is None else \
            tuple(tuple(int(v) for v in s.split(":")) for s in args.sizes.split(","))
        res = cheb(sizes)
    write(res)
    return 0


if __name__ == "__main__":
    sys.exit(main())
