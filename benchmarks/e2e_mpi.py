"""End to end under MPI: kNN graph -> Laplacian -> graph kernel ridge labels, serial and on P ranks.

Run::

    mpiexec -n 2 python benchmarks/e2e_mpi.py                  # 10^6 points
    mpiexec -n 2 python benchmarks/e2e_mpi.py --n 100000

Data: ``n`` points uniform in the unit cube, three classes by a smooth rule
(the sign pattern of two sines), ``--rate`` of the points labeled.  The kNN
graph (k = 10, Gaussian weights) is built on rank 0 and broadcast (the
distributed kNN construction is another part of issue 16); then
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
    t0 = time.perf_counter()
    W = gr.knn_graph(X, args.k) if rank == 0 else None
    t_knn = time.perf_counter() - t0
    if size > 1:
        W = comm.bcast(W, root=0)
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
            "knn_s": round(t_knn, 2), "serial_solve_s": round(t_serial, 2), "mpi_solve_s": round(t_mpi, 2),
            "max_rel_score_diff": float(np.abs(F1 - F0).max() / np.abs(F0).max()),
            "same_labels": bool(np.array_equal(labels0, labels1)),
            "n_label_differences": int((labels0 != labels1).sum()),
            "accuracy_unlabeled": float((labels1 == y)[np.setdiff1d(np.arange(args.n), S)].mean()),
        }), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
