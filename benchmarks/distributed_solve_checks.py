"""Benchmark: the cost of the correction test on the MPI backend's graph solves (session 30).

Since session 30 ``backend="mpi"`` / ``"dask"`` solves with ``preconditioner="jacobi"`` or ``None`` (and AMG on
graphs whose degrees span more than 1e8) get the serial solves' correction test (``graphrkhs.solvers._graph``):
a Jacobi-scaled correction solve to 1 %, serial, on MPI rank 0 and broadcast.  This script times the harmonic
solution of a 10-NN graph of uniform 3-D points (10 classes, 100 labels) under the launcher, medians of
``--repeats`` runs; run it once on the code before the change and once after for the ratio::

    OPENBLAS_NUM_THREADS=1 mpiexec -n 2 python benchmarks/distributed_solve_checks.py --preconditioner jacobi

Anchor in the same run: the serial solve (``backend="numpy"``) with the same preconditioner, on rank 0
while the other rank waits.
"""

import argparse
import time

import numpy as np


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--preconditioner", default="jacobi")
    args = parser.parse_args()
    from mpi4py import MPI

    import graphrkhs as gr

    comm = MPI.COMM_WORLD
    rng = np.random.default_rng(0)
    W = gr.knn_graph(rng.random((args.n, 3)), 10)
    S = rng.choice(args.n, 100, replace=False)
    Y = np.eye(10)[np.arange(100) % 10]
    pc = None if args.preconditioner == "none" else args.preconditioner

    def timed(backend):
        times = []
        for _ in range(args.repeats):
            comm.barrier()
            t = time.perf_counter()
            if backend == "mpi" or comm.rank == 0:
                gr.harmonic_solution(W, S, Y, preconditioner=pc, tol=1e-8, backend=backend)
            comm.barrier()
            times.append(time.perf_counter() - t)
        return times

    mpi, serial = timed("mpi"), timed("numpy")
    if comm.rank == 0:
        print(f"n = {args.n}, preconditioner = {args.preconditioner}, {comm.size} ranks: "
              f"mpi {np.round(mpi, 2).tolist()} median {np.median(mpi):.2f} s; "
              f"serial {np.round(serial, 2).tolist()} median {np.median(serial):.2f} s")


if __name__ == "__main__":
    main()
