"""End to end under MPI: kNN graph -> Laplacian -> graph kernel ridge labels, serial and on P ranks.

Run::

    mpiexec -n 2 python benchmarks/e2e_mpi.py                  # 10^6 points
    mpiexec -n 2 python benchmarks/e2e_mpi.py --n 100000

Data: ``n`` points uniform in the unit cube, three classes by a smooth rule
(the sign pattern of two sines), ``--rate`` of the points labeled.  The serial
pipeline runs on rank 0 alone (exact kd-tree kNN graph, k = 10, Gaussian
weights; normalized Laplacian), the distributed one on all ranks
(``knn_graph(..., backend="mpi")``: exact search cell by cell;
``laplacian(..., backend="mpi")``: row blocks), and the two graphs and
Laplacians are compared entry for entry; then
:func:`graphrkhs.graph_kernel_ridge` with the regularized-Laplacian kernel
:math:`\\varphi(\\lambda) = 1/(1 + a\\lambda)` (``method="sparse"``: the SPD system
:math:`(J + \\mu(I + aL)) f = J y`, AMG-preconditioned block CG) runs once with
``backend="numpy"`` on rank 0 alone (the other ranks wait without spinning)
and once with ``backend="mpi"`` on all ranks (block CG with summed dot
products, block-Jacobi AMG).  Rank 0 prints one JSON line: times, the
largest relative difference of the scores, and whether every node gets the
same label.
"""

import argparse
import json
import os
import sys
import time
import warnings

import numpy as np


def _sleep_barrier(comm):
    req = comm.Ibarrier()
    while not req.Test():
        time.sleep(0.005)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--rate", type=float, default=0.001)
    ap.add_argument("--tol", type=float, default=1e-8)
    args = ap.parse_args(argv)

    from mpi4py import MPI
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    cores = os.cpu_count() or 1
    os.environ["GRAPHRKHS_NUM_THREADS"] = str(cores)
    import graphrkhs as gr
    import graphrkhs._core.spmm as spmm

    rng = np.random.default_rng(0)
    X = rng.random((args.n, 3))
    y = (np.sin(6 * X[:, 0]) > 0).astype(int) + (np.sin(5 * X[:, 1] + 3 * X[:, 2]) > 0.3).astype(int)
    S = np.sort(rng.choice(args.n, max(30, int(args.rate * args.n)), replace=False))
    Y = np.eye(3)[y[S]]
    # serial pipeline on rank 0: exact kNN graph, normalized Laplacian
    W0 = L0 = None
    t_knn = None
    if rank == 0:
        t0 = time.perf_counter()
        W0 = gr.knn_graph(X, args.k, algorithm="kd_tree", backend="numpy")
        t_knn = time.perf_counter() - t0
        L0 = gr.laplacian(W0, "normalized", backend="numpy")
    if size > 1:
        _sleep_barrier(comm)
    # distributed pipeline on all ranks: cell-wise exact kNN, row-block Laplacian
    spmm._POOL = None
    os.environ["GRAPHRKHS_NUM_THREADS"] = str(max(1, cores // size))
    comm.Barrier()
    t0 = time.perf_counter()
    W = gr.knn_graph(X, args.k, backend="mpi")
    comm.Barrier()
    t_knn_mpi = time.perf_counter() - t0
    L1 = gr.laplacian(W, "normalized", backend="mpi")
    same_graph = same_laplacian = None
    if rank == 0:
        same_graph = bool((W != W0).nnz == 0)
        same_laplacian = bool(np.array_equal(L1.indptr, L0.indptr) and np.array_equal(L1.indices, L0.indices)
                              and np.array_equal(L1.data, L0.data))
    del L1, L0, W0
    spmm._POOL = None
    os.environ["GRAPHRKHS_NUM_THREADS"] = str(cores)
    phi = gr.filters.RegularizedLaplacian(10.0)
    kw = dict(alpha=1e-2, method="sparse", laplacian="normalized", tol=args.tol, preconditioner="amg")

    F0, t_serial = None, None
    if rank == 0:
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            F0 = gr.graph_kernel_ridge(W, S, Y, phi, backend="numpy", **kw)
        t_serial = time.perf_counter() - t0
    if size > 1:
        _sleep_barrier(comm)
    spmm._POOL = None
    os.environ["GRAPHRKHS_NUM_THREADS"] = str(max(1, cores // size))
    comm.Barrier()
    t0 = time.perf_counter()
    F1 = gr.graph_kernel_ridge(W, S, Y, phi, backend="mpi", **kw)
    comm.Barrier()
    t_mpi = time.perf_counter() - t0
    if rank == 0:
        labels0, labels1 = F0.argmax(1), F1.argmax(1)
        print(json.dumps({
            "kind": "e2e_knn_laplacian_ridge", "n": args.n, "ranks": size, "labeled": int(S.size),
            "knn_s": round(t_knn, 2), "knn_mpi_s": round(t_knn_mpi, 2), "same_graph": same_graph,
            "same_laplacian": same_laplacian, "serial_solve_s": round(t_serial, 2), "mpi_solve_s": round(t_mpi, 2),
            "max_rel_score_diff": float(np.abs(F1 - F0).max() / np.abs(F0).max()),
            "same_labels": bool(np.array_equal(labels0, labels1)),
            "n_label_differences": int((labels0 != labels1).sum()),
            "accuracy_unlabeled": float((labels1 == y)[np.setdiff1d(np.arange(args.n), S)].mean()),
        }), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
