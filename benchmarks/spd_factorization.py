"""Sparse direct solves of the Laplacian systems: SuperLU's default ordering against ``spd_splu``.

Every direct solve of the graph solvers (harmonic and Poisson learning, Tikhonov, graph kernel ridge
up to ``DIRECT_MAX_NODES`` unknowns) and the exact leave-one-out engine factor a grounded Laplacian
system scaled to unit diagonal.  ``graphrkhs.solvers._common.spd_splu`` factors it with a symmetric
minimum-degree ordering (``MMD_AT_PLUS_A``) and no pivoting; SuperLU's default (``COLAMD``, a column
ordering for unsymmetric matrices, with partial pivoting) is the anchor.  Both run in the same process,
alternating, on the same matrix: kNN graphs (k = 10) of Gaussian points in d dimensions, 1 % of the
nodes grounded (labeled), one right-hand side per class.  Printed per case: the entries of L + U, the
median of ``--repeats`` factor + solve times, the ratio, and the largest relative residual.

Usage::

    OPENBLAS_NUM_THREADS=1 python benchmarks/spd_factorization.py --repeats 5
"""

import argparse
import os
import time

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

CASES = [(4000, 2, 10), (5000, 5, 10), (5000, 5, 500), (1797, 64, 10), (5000, 64, 10)]


def _system(n, d, seed=0):
    from graphrkhs import knn_graph, laplacian
    X = np.random.default_rng(seed).normal(size=(n, d))
    L = sp.csr_array(laplacian(knn_graph(X, 10)))
    free = np.arange(n) >= n // 100
    A = sp.csr_array(L[free][:, free])
    s = 1.0 / np.sqrt(A.diagonal())
    return sp.csc_matrix(A.multiply(s[:, None]).multiply(s[None, :]))


def _timed(factor, A, B, repeats):
    times, residual, fill = [], 0.0, 0
    for _ in range(repeats):
        start = time.perf_counter()
        lu = factor(A)
        X = lu.solve(B)
        times.append(time.perf_counter() - start)
        residual = float(np.abs(A @ X - B).max() / np.abs(B).max())
        fill = lu.L.nnz + lu.U.nnz
    return float(np.median(times)), fill, residual


def main(argv=None):
    from graphrkhs.solvers._common import spd_splu
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.1f}; medians of {args.repeats} factor + solve runs")
    print("| n | d | right-hand sides | nnz(L+U) COLAMD / spd_splu | seconds COLAMD / spd_splu | ratio | residual |")
    print("|---|---|---|---|---|---|---|")
    for n, d, m in CASES:
        A = _system(n, d)
        B = np.random.default_rng(1).normal(size=(A.shape[0], m))
        t_col, f_col, r_col = _timed(spla.splu, A, B, args.repeats)
        t_spd, f_spd, r_spd = _timed(spd_splu, A, B, args.repeats)
        print(f"| {n} | {d} | {m} | {f_col} / {f_spd} | {t_col:.2f} / {t_spd:.2f} | {t_col / t_spd:.1f}x | "
              f"{max(r_col, r_spd):.1e} |", flush=True)


if __name__ == "__main__":
    main()
