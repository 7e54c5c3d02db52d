"""The Gaussian kernel between two point sets: time against bare SciPy / scikit-learn, and one far row.

``pairwise_kernel(A, B)`` computes distances in a centred frame scaled by a power of two (shift-invariant,
overflow-free; ``docs/reliability.rst``, "Extreme magnitudes").  Since session 34 the centre is a point of B's
bulk and rows far beyond the other set's extent get a frame of their own, so one far row (a fill value of 1e20 in
a ``predict`` batch) no longer changes the kernel values of the other rows.  This script measures, in one run:

* the time of ``graphrkhs.pairwise_kernel(A, B, sigma=...)`` against two anchors computing the same matrix:
  ``np.exp(-scipy.spatial.distance.cdist(A, B, "sqeuclidean") / (2 sigma^2))`` and scikit-learn's
  ``rbf_kernel`` (medians of ``--repeats`` calls, interleaved, so that all rows see the same load);
* the agreement of the three (largest absolute difference);
* one row of A replaced by 1e20 in every coordinate: the largest change of the *other* rows' kernel values, for
  each of the three.

Usage::

    OPENBLAS_NUM_THREADS=1 python benchmarks/kernel_frame.py --repeats 5
    python benchmarks/kernel_frame.py --quick

Writes ``benchmarks/results/kernel_frame.{json,md}``.
"""

import argparse
import json
import os
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SIZES = [(10000, 1000, 784), (2000, 20000, 784), (5000, 5000, 64)]
QUICK_SIZES = [(2000, 500, 784), (1000, 1000, 64)]


def _median_seconds(fn, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="small sizes")
    args = parser.parse_args(argv)

    from scipy.spatial.distance import cdist
    from sklearn.metrics.pairwise import rbf_kernel

    from graphrkhs import pairwise_kernel

    rng = np.random.default_rng(0)
    sigma = None
    methods = {
        "graphrkhs": lambda A, B: pairwise_kernel(A, B, "gaussian", sigma=sigma),
        "scipy cdist + exp": lambda A, B: np.exp(-cdist(A, B, "sqeuclidean") / (2 * sigma ** 2)),
        "sklearn rbf_kernel": lambda A, B: rbf_kernel(A, B, gamma=1 / (2 * sigma ** 2)),
    }
    rows = []
    load = os.getloadavg()[0]
    threads = os.environ.get("OPENBLAS_NUM_THREADS", "unset")
    for n_a, n_b, d in (QUICK_SIZES if args.quick else SIZES):
        A, B = rng.random((n_a, d)), rng.random((n_b, d))
        sigma = float(np.sqrt(d / 6.0))          # the mean distance of uniform points: kernel values near 0.37
        times = {name: [] for name in methods}
        for _ in range(args.repeats):            # interleaved: every method sees the same load
            for name, fn in methods.items():
                times[name].append(_median_seconds(lambda: fn(A, B), 1))
        medians = {name: float(np.median(t)) for name, t in times.items()}
        values = {name: fn(A, B) for name, fn in methods.items()}
        agree = max(float(np.abs(values[name] - values["graphrkhs"]).max()) for name in methods)
        far = A.copy()
        far[0] = 1e20
        shift = {}
        for name, fn in methods.items():
            with np.errstate(all="ignore"):
                K_far = fn(far, B)
            shift[name] = float(np.abs(K_far[1:] - values[name][1:]).max())
        rows.append({"n_A": n_a, "n_B": n_b, "d": d, "median_s": medians, "max_abs_difference": agree,
                     "far_row_change_of_other_rows": shift})

    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    meta = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "repeats": args.repeats,
            "load_average_at_start": load, "OPENBLAS_NUM_THREADS": threads, "quick": args.quick}
    with open(os.path.join(HERE, "results", "kernel_frame.json"), "w") as f:
        json.dump({"meta": meta, "rows": rows}, f, indent=2)
    lines = [
        "### The Gaussian kernel between two point sets (`kernel_frame.py`)",
        "",
        f"{meta['date']}, medians of {args.repeats} interleaved calls, OPENBLAS_NUM_THREADS={threads}, load "
        f"average {load:.1f} at the start; uniform points in [0, 1]^d, sigma = sqrt(d / 6).  \"far row\": the "
        "largest change of the other rows' kernel values when one row of A is replaced by 1e20.",
        "",
        "| n_A x n_B, d | graphrkhs s | scipy cdist + exp s | sklearn rbf_kernel s | graphrkhs / scipy | "
        "graphrkhs / sklearn | largest difference | far row: graphrkhs / scipy / sklearn |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        m, s = r["median_s"], r["far_row_change_of_other_rows"]
        lines.append(
            f"| {r['n_A']} x {r['n_B']}, {r['d']} | {m['graphrkhs']:.3f} | {m['scipy cdist + exp']:.3f} | "
            f"{m['sklearn rbf_kernel']:.3f} | {m['graphrkhs'] / m['scipy cdist + exp']:.2f} | "
            f"{m['graphrkhs'] / m['sklearn rbf_kernel']:.2f} | {r['max_abs_difference']:.1e} | "
            f"{s['graphrkhs']:.1e} / {s['scipy cdist + exp']:.1e} / {s['sklearn rbf_kernel']:.1e} |")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(HERE, "results", "kernel_frame.md"), "w") as f:
        f.write(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
