"""Small dense factorizations on one BLAS thread: fit times with and without the rule.

The model-selection engines factor many small matrices (about 130 eigendecompositions of order
30-60 in one ``LapRLSRegressor().fit`` on 30 points).  :func:`graphrkhs._core.linalg.small_dense_threads`
runs those of order <= ``SMALL_DENSE_ORDER`` on one BLAS thread.  This script times the same fits
with the rule (``--rule on``, the library) and without it (``--rule off``: the order limit set to 0,
so every factorization uses the caller's BLAS threads), in the same process, alternating, and prints
the median of ``--repeats`` fits per learner and the ratio off / on.

Both rows run with the process's BLAS thread count (``OPENBLAS_NUM_THREADS`` unset: one per core).
The ratio depends on how busy the machine is: OpenBLAS's threads spin while they wait for each
other, which costs little on idle cores and a great deal on a shared machine; record the load
average with the figures (printed).

Usage::

    python benchmarks/small_dense_threads.py --repeats 7
"""

import argparse
import os
import time
import warnings

import numpy as np


def _fit_seconds(make, X, y):
    start = time.perf_counter()
    make().fit(X, y)
    return time.perf_counter() - start


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--n", type=int, default=60, help="points (two blobs, all labeled for the regressors)")
    args = parser.parse_args(argv)

    import graphrkhs as gr
    import graphrkhs._core.linalg as linalg
    from sklearn.datasets import make_blobs

    warnings.simplefilter("ignore")
    X, y = make_blobs(n_samples=args.n, centers=2, n_features=3, random_state=0)
    y = y.astype(np.float64)
    learners = {"LapRLSRegressor": gr.LapRLSRegressor, "WarpedKernelRegressor": gr.WarpedKernelRegressor,
                "PRLSRegressor": gr.PRLSRegressor, "GRLSRegressor": gr.GRLSRegressor,
                "FredholmRegressor": gr.FredholmRegressor}
    limit = linalg.SMALL_DENSE_ORDER
    print(f"n = {args.n}, {args.repeats} fits per row, load average at start {os.getloadavg()[0]:.1f}")
    print("| learner | with the rule, median s | without, median s | without / with |")
    print("|---|---|---|---|")
    for name, make in learners.items():
        make().fit(X, y)   # compile / warm caches once
        on, off = [], []
        for _ in range(args.repeats):   # alternating, so that both rows see the same load
            linalg.SMALL_DENSE_ORDER = limit
            on.append(_fit_seconds(make, X, y))
            linalg.SMALL_DENSE_ORDER = 0
            off.append(_fit_seconds(make, X, y))
        linalg.SMALL_DENSE_ORDER = limit
        print(f"| {name} | {np.median(on):.3f} | {np.median(off):.3f} | {np.median(off) / np.median(on):.1f} |",
              flush=True)
    print(f"load average at end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
