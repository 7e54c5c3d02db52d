"""Forward error and cost of the graph solves' correction tests, against bare SciPy CG and PyAMG.

Every Laplacian solve of the graph solvers (``harmonic_solution`` here) is checked after its residual
test: direct solves are corrected by their own factors, unpreconditioned and Jacobi-scaled CG by a
correction solve to 1 %, each repeated while the correction is above 10 tol times X, with an
``AccuracyWarning`` when it stays above (``graphrkhs.solvers._graph._refined`` / ``_direct_solve``).

Part 1, accuracy: Gaussian-weighted 8-NN graphs of n Gaussian points in 3-D plus 6-30 outliers at radius
5-6.6 (degrees down to 1e-25; the 1500-4000-node ones link to each other more than to the cloud), 5
labels, 2 columns, tol 1e-8.  Each path's max-norm error relative to max |F| against an oracle
refined beyond float64 (a scaled dense solve plus two corrections on residuals in ``np.longdouble``),
and whether it warned.  Anchors in the same run: ``scipy.sparse.linalg.cg`` with a Jacobi
preconditioner (rtol 1e-8) and ``pyamg.smoothed_aggregation_solver(...).solve`` (tol 1e-8), on the
same L_UU system.

Part 2, cost: the harmonic solution with ``preconditioner="jacobi"`` on a 10-NN graph of 10^5
uniform points in the unit cube (50 labels, 5 classes), median of ``--repeats`` runs, with the bare
SciPy Jacobi CG on the same system as the anchor (ratio = ours / SciPy's; ours includes the
row-normalized residual, the correction test and the graph's Laplacian).

Usage::

    OPENBLAS_NUM_THREADS=1 python benchmarks/solve_checks.py [--repeats 3] [--quick]

(One BLAS thread: SciPy's CG makes a BLAS call per vector operation, whose threads spin against each
other on a loaded 2-core machine -- 3.4 s one run, 41 s another.)

Writes ``benchmarks/results/solve_checks.{json,md}``.
"""

import argparse
import json
import os
import time
import warnings

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "results")
OUTLIER_CASES = [(600, 6, 5.5, 0), (600, 6, 6.5, 1), (1500, 20, 5.5, 1), (2000, 20, 5.5, 2), (3000, 20, 5.5, 1),
                 (4000, 30, 5.0, 3)]


def _outlier_graph(n, n_out, radius, seed):
    from graphrkhs import knn_graph
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    D = rng.normal(size=(n_out, 3))
    D /= np.linalg.norm(D, axis=1)[:, None]
    X = np.r_[X, radius * D * rng.uniform(1.0, 1.2, (n_out, 1))]
    W = knn_graph(X, 8)
    S = rng.choice(n, 5, replace=False)
    return W, S, rng.normal(size=(5, 2))


def _system(W, S, Y):
    from graphrkhs import laplacian
    L = sp.csr_array(laplacian(W))
    U = np.setdiff1d(np.arange(L.shape[0]), S)
    return U, sp.csr_array(L[U][:, U]), -(L[U][:, S] @ Y)


def _oracle(A, B):
    A = A.toarray()
    s = 1.0 / np.sqrt(np.diag(A))
    As = A * s[:, None] * s[None, :]
    X = s[:, None] * np.linalg.solve(As, s[:, None] * B)
    A_ext = A.astype(np.longdouble)
    for _ in range(2):
        R = np.asarray(B.astype(np.longdouble) - A_ext @ X.astype(np.longdouble), dtype=np.float64)
        X = X + s[:, None] * np.linalg.solve(As, s[:, None] * R)
    return X


def _scipy_jacobi(A, B, rtol=1e-8):
    M = sp.diags_array(1.0 / A.diagonal())
    return np.column_stack([spla.cg(A, B[:, j], rtol=rtol, M=M, maxiter=10 * A.shape[0])[0]
                            for j in range(B.shape[1])])


def _pyamg(A, B):
    import pyamg
    ml = pyamg.smoothed_aggregation_solver(sp.csr_matrix(A))
    return np.column_stack([ml.solve(B[:, j], tol=1e-8, accel="cg", maxiter=1000) for j in range(B.shape[1])])


def accuracy_rows():
    from graphrkhs import AccuracyWarning, harmonic_solution
    rows = []
    for n, n_out, radius, seed in OUTLIER_CASES:
        W, S, Y = _outlier_graph(n, n_out, radius, seed)
        U, A, B = _system(W, S, Y)
        ref = _oracle(A, B)
        scale = np.abs(ref).max()
        d = A.diagonal()
        row = {"n": n + n_out, "outliers": n_out, "radius": radius, "min_degree": float(d.min())}
        for name, pc in [("auto (direct)", "auto"), ("jacobi", "jacobi"), ("none", None), ("amg", "amg")]:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                F = harmonic_solution(W, S, Y, preconditioner=pc, tol=1e-8)
            warned = any(issubclass(w.category, AccuracyWarning) for w in caught)
            row[name] = {"error": float(np.abs(F[U] - ref).max() / scale), "warned": warned}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            row["scipy cg jacobi"] = {"error": float(np.abs(_scipy_jacobi(A, B) - ref).max() / scale),
                                      "warned": False}
            row["pyamg"] = {"error": float(np.abs(_pyamg(A, B) - ref).max() / scale), "warned": False}
        rows.append(row)
        print(row, flush=True)
    return rows


def cost_rows(repeats, n):
    from graphrkhs import harmonic_solution, knn_graph
    rng = np.random.default_rng(0)
    W = knn_graph(rng.uniform(size=(n, 3)), 10)
    S = rng.choice(n, 50, replace=False)
    Y = np.eye(5)[rng.integers(0, 5, 50)]
    U, A, B = _system(W, S, Y)
    ours, anchor = [], []
    for _ in range(repeats):           # interleaved: the machine's load hits both alike
        start = time.perf_counter()
        F = harmonic_solution(W, S, Y, preconditioner="jacobi", tol=1e-8)
        ours.append(time.perf_counter() - start)
        start = time.perf_counter()
        X = _scipy_jacobi(A, B)
        anchor.append(time.perf_counter() - start)
    agree = float(np.abs(F[U] - X).max() / np.abs(X).max())
    row = {"n": n, "ours_s": float(np.median(ours)), "scipy_s": float(np.median(anchor)),
           "ratio": float(np.median(ours) / np.median(anchor)), "runs": repeats, "agreement": agree}
    print(row, flush=True)
    return [row]


def write(acc, cost):
    os.makedirs(RESULTS, exist_ok=True)
    with open(os.path.join(RESULTS, "solve_checks.json"), "w") as fh:
        json.dump({"accuracy": acc, "cost": cost}, fh, indent=1)
    paths = ["auto (direct)", "jacobi", "none", "amg", "scipy cg jacobi", "pyamg"]
    lines = [f"Run {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average {os.getloadavg()[0]:.1f}.",
             "",
             "Harmonic solution at tol 1e-8 on outlier graphs: max-norm error relative to max |F| against the "
             "extended-precision oracle; (w) = an AccuracyWarning was emitted.",
             "",
             "| nodes | outliers | radius | min degree | " + " | ".join(paths) + " |",
             "|---" * (4 + len(paths)) + "|"]
    for r in acc:
        cells = [f"{r[p]['error']:.1e}" + (" (w)" if r[p]["warned"] else "") for p in paths]
        lines.append(f"| {r['n']} | {r['outliers']} | {r['radius']} | {r['min_degree']:.0e} | " + " | ".join(cells)
                     + " |")
    lines += ["", "Cost of the checks: harmonic solution, Jacobi, 10-NN graph of uniform points in the unit cube, "
                  "against bare SciPy Jacobi CG on the same system (medians, interleaved runs).", "",
              "| n | ours s | SciPy s | ratio | runs | agreement |", "|---|---|---|---|---|---|"]
    for r in cost:
        lines.append(f"| {r['n']} | {r['ours_s']:.2f} | {r['scipy_s']:.2f} | {r['ratio']:.2f} | {r['runs']} | "
                     f"{r['agreement']:.1e} |")
    with open(os.path.join(RESULTS, "solve_checks.md"), "w") as fh:
        fh.write("\n".join(lines) + "\n")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="the cost part on 2 x 10^4 points")
    args = parser.parse_args(argv)
    acc = accuracy_rows()
    cost = cost_rows(args.repeats, 20000 if args.quick else 100000)
    write(acc, cost)


if __name__ == "__main__":
    main()
