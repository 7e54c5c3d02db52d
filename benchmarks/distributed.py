"""MPI backend benchmark: one Chebyshev step on 16 signals, serial vs P ranks in the same run.

Run (the mpich wheel of ``pip install 'graphrkhs[mpi]'`` provides mpiexec)::

    mpiexec -n 2 python benchmarks/distributed.py               # 2e5 and 1e6 nodes
    mpiexec -n 2 python benchmarks/distributed.py --sizes 200000 --reps 7

What is measured, per size (3-D kNN graph of uniform random points, k = 10,
symmetrized, normalized Laplacian, float64):

* ``serial_1thread``: the same serial kernel on one thread (one core's
  rate: what each rank of the distributed step runs at);
* ``serial``: the library's serial path -- :class:`PreparedOperator` (RCM
  order, 32-bit indices) and the compiled fused kernel on all cores of the
  node (rank 0 alone; the other ranks sleep in a non-busy wait, so the serial
  run has the whole machine);
* ``mpi``: the same step on :class:`~graphrkhs.distributed.DistributedCSR`
  (METIS partition, halo exchange by ``Ineighbor_alltoallv`` overlapped with
  the interior rows), one compute thread per rank; the time of a step is the
  slowest rank's, between barriers;
* the parts of the distributed step: local compute without the exchange, and
  the exchange alone (for the performance model of ``benchmarks/REPORT.md``);
* halo volume per partition, and METIS halo volumes for 8 and 64 parts
  (partitioner only, no MPI) to check the surface law of the model;
* a CG solve (harmonic labels from 0.1% labeled nodes, AMG / block-Jacobi
  AMG) serial vs distributed: time, relative difference, identical labels.

Medians of ``--reps`` (>= 5) repetitions; JSON lines on rank 0's stdout
(``--out`` writes them to a file too).
"""

import argparse
import json
import os
import sys
import time

import numpy as np


def _sleep_barrier(comm):
    """A barrier that does not spin (MPICH's Barrier busy-polls and would steal a core from the serial run).

    Every rank must call it (an Ibarrier matches only Ibarriers, never a Barrier).
    """
    req = comm.Ibarrier()
    while not req.Test():
        time.sleep(0.005)


def _median_time(fn, reps, comm=None):
    times = []
    for _ in range(reps):
        if comm is not None:
            comm.Barrier()
        t0 = time.perf_counter()
        fn()
        if comm is not None:
            comm.Barrier()
        times.append(time.perf_counter() - t0)
    return float(np.median(times)), [round(t, 5) for t in times]


def _graph(n, k, seed=0):
    import graphrkhs as gr
    X = np.random.default_rng(seed).random((n, 3))
    W = gr.knn_graph(X, k)
    return gr.laplacian(W, "normalized")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[200_000, 1_000_000])
    ap.add_argument("--signals", type=int, default=16)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--no-cg", action="store_true")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    if args.reps < 5:
        ap.error("--reps must be >= 5 (medians of at least 5)")

    from mpi4py import MPI
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    cores = os.cpu_count() or 1
    # serial phase first: rank 0 uses every core of the node
    os.environ["GRAPHRKHS_NUM_THREADS"] = str(cores)
    import graphrkhs as gr  # noqa: F401  (registers the backends)
    import graphrkhs._core.spmm as spmm
    from graphrkhs._core.reorder import PreparedOperator
    from graphrkhs.distributed import DistributedCSR, MPIComm, partition_plan

    records = []

    def emit(rec):
        if rank == 0:
            line = json.dumps(rec)
            print(line, flush=True)
            records.append(rec)

    for n in args.sizes:
        m = args.signals
        # -- graph: built once on rank 0, broadcast (a pickle of ~15 n entries)
        t0 = time.perf_counter()
        L = _graph(n, args.k) if rank == 0 else None
        t_graph = time.perf_counter() - t0
        if size > 1:
            if rank == 0:
                comm.bcast(L, root=0)
            else:
                L = comm.bcast(None, root=0)
        X = np.random.default_rng(1).standard_normal((n, m))
        a, b = 2.0 / 2.0, -1.0     # normalized Laplacian: lmax = 2

        # -- serial: rank 0 alone, all cores
        spmm._POOL = None
        os.environ["GRAPHRKHS_NUM_THREADS"] = str(cores)
        serial = serial1 = None
        if rank == 0:
            op = PreparedOperator(L, np.float64, "auto", "auto")
            cur, prev = op.to_internal(X, copy=True), op.to_internal(X, copy=True)
            step = lambda: op.step(a, b, 2.0, -1.0, 0.0, cur, prev)   # noqa: E731
            step()   # compile / warm up
            serial, serial_times = _median_time(step, args.reps)
            # the same serial kernel on one thread: the rate of one core, which each rank runs at
            spmm._POOL = None
            os.environ["GRAPHRKHS_NUM_THREADS"] = "1"
            step()
            serial1, serial1_times = _median_time(step, args.reps)
            spmm._POOL = None
            os.environ["GRAPHRKHS_NUM_THREADS"] = str(cores)
            ref = op.to_user(op.matmat(op.to_internal(X)))
            del op, cur, prev
        if size > 1:
            _sleep_barrier(comm)

        # -- distributed: one compute thread per rank
        spmm._POOL = None
        os.environ["GRAPHRKHS_NUM_THREADS"] = str(max(1, cores // size))
        mcomm = MPIComm(comm)
        t0 = time.perf_counter()
        D = DistributedCSR.from_global(L, mcomm)
        t_setup = time.perf_counter() - t0
        cur = D.to_internal(X)
        prev = D.to_internal(X)
        out = np.empty_like(cur)
        dstep = lambda: D.step(a, b, 2.0, -1.0, 0.0, cur, prev)   # noqa: E731
        dstep()
        dist, dist_times = _median_time(dstep, args.reps, comm)
        # products agree with serial
        prod = D.gather(D.matmat(cur, out))
        if rank == 0:
            prod_err = float(np.abs(prod - ref).max() / np.abs(ref).max())
        # the parts: local compute only (no exchange) and the exchange only
        from graphrkhs._core.spmm import fused_step
        compute_only = lambda: fused_step(D.A_own, a, b, 2.0, -1.0, 0.0, cur, prev) if D.shape[0] else None  # noqa: E731
        t_comp = []
        for _ in range(args.reps):
            comm.Barrier()
            t1 = time.perf_counter()
            compute_only()
            t_comp.append(time.perf_counter() - t1)
        t_comp = float(np.median(t_comp))
        t_exch, _ = _median_time(lambda: D.halo.exchange(cur), args.reps, comm)
        per_rank = comm.gather({"rank": rank, "n_own": D.shape[0], "n_ghost": D.halo.n_ghost,
                                "nnz": int(D.A_own.nnz + D.A_ghost.nnz), "neighbours": int(D.halo.sources.size),
                                "halo_bytes": int(D.halo_bytes(m)), "compute_s": t_comp}, root=0)
        if rank == 0:
            emit({"kind": "chebyshev_step", "n": n, "nnz": int(L.nnz), "signals": m, "ranks": size,
                  "cores": cores, "graph_build_s": round(t_graph, 2), "dist_setup_s": round(t_setup, 2),
                  "serial_s": serial, "serial_times": serial_times, "mpi_s": dist, "mpi_times": dist_times,
                  "serial_1thread_s": serial1, "serial_1thread_times": serial1_times,
                  "ratio": dist / serial, "ratio_vs_1thread": dist / serial1, "parallel_efficiency": serial / (size * dist) if size > 1 else 1.0,
                  "exchange_s": t_exch, "product_rel_err": prod_err, "per_rank": per_rank})
        del cur, prev, out
        D.halo.free()
        del D

        # -- partitioner only: halo volume per part for more parts (surface law of the model)
        if rank == 0 and n <= 1_000_000:
            for P in (8, 64):
                t0 = time.perf_counter()
                plan = partition_plan(L, P)
                sizes_ = np.array([o.size for o in plan.owned])
                emit({"kind": "partition", "n": n, "parts": P, "seconds": round(time.perf_counter() - t0, 2),
                      "rows_mean": float(sizes_.mean()), "ghosts_mean": float(plan.halo_volume.mean()),
                      "ghosts_max": int(plan.halo_volume.max())})
        if size > 1:
            _sleep_barrier(comm)

        # -- CG: harmonic labels, serial vs distributed
        if not args.no_cg:
            import warnings
            rng = np.random.default_rng(2)
            Wg = gr.knn_graph(np.random.default_rng(0).random((n, 3)), args.k) if rank == 0 else None
            Wg = comm.bcast(Wg, root=0) if size > 1 else Wg
            S = rng.choice(n, max(10, n // 1000), replace=False)
            Y = np.eye(3)[rng.integers(0, 3, S.size)]
            spmm._POOL = None
            os.environ["GRAPHRKHS_NUM_THREADS"] = str(cores)
            F0 = None
            if rank == 0:
                t0 = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    F0 = gr.harmonic_solution(Wg, S, Y, tol=1e-8, preconditioner="amg", backend="numpy")
                t_serial_cg = time.perf_counter() - t0
            if size > 1:
                _sleep_barrier(comm)
            spmm._POOL = None
            os.environ["GRAPHRKHS_NUM_THREADS"] = str(max(1, cores // size))
            comm.Barrier()
            t0 = time.perf_counter()
            F1 = gr.harmonic_solution(Wg, S, Y, tol=1e-8, preconditioner="amg", backend="mpi")
            comm.Barrier()
            t_mpi_cg = time.perf_counter() - t0
            if rank == 0:
                emit({"kind": "cg_harmonic", "n": n, "labeled": int(S.size), "tol": 1e-8, "serial_s": t_serial_cg,
                      "mpi_s": t_mpi_cg, "ranks": size,
                      "max_rel_diff": float(np.abs(F1 - F0).max() / np.abs(F0).max()),
                      "same_labels": bool(np.array_equal(F1.argmax(1), F0.argmax(1)))})
            del Wg, F0, F1
        del L, X
    if rank == 0 and args.out:
        with open(args.out, "w") as fh:
            for rec in records:
                fh.write(json.dumps(rec) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
