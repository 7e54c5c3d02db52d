"""
Scaling of the solvers with n
=============================

Laplace learning (the harmonic solution :math:`L_{UU} F_U = -L_{US} Y_S`),
Tikhonov regularization :math:`(J + \\mu L) F = J Y` and Poisson learning are
sparse symmetric positive (semi)definite systems.  On kNN graphs of
low-dimensional point clouds their condition number grows with n (the
graph Laplacian approximates a differential operator), so plain conjugate
gradients need more and more steps, while a smoothed-aggregation AMG
preconditioner (PyAMG) keeps the step count nearly constant: its cost grows
like the number of edges.  Symmetric Jacobi scaling helps only a little on
such graphs (it is the better choice on kNN graphs of high-dimensional data,
where plain CG already converges fast).  Below 5000 unknowns
``preconditioner="auto"`` uses a sparse direct factorization instead.

We time :func:`graphrkhs.harmonic_solution` with each option on kNN graphs
(k = 10) of uniform points in the unit cube, 2 classes, 20 labeled nodes
(with a fixed fraction of labeled nodes the labels pin the solution down
everywhere and even plain CG converges fast).
The benchmark ``benchmarks/transductive.py`` runs the same comparison on
10^6 nodes.
"""

# %%
# Timings
# -------
import time

import matplotlib.pyplot as plt
import numpy as np

from graphrkhs import harmonic_solution, knn_graph

sizes = [1500, 4500, 13500]
options = {"AMG-CG": "amg", "Jacobi-CG": "jacobi", "plain CG": None, "direct (auto, n <= 5000)": "auto"}
timings = {name: [] for name in options}
rng = np.random.default_rng(0)
for n in sizes:
    X = rng.random((n, 3))
    W = knn_graph(X, 10)
    S = rng.choice(n, 20, replace=False)
    Y = np.eye(2)[(X[S, 0] > 0.5).astype(int)]
    for name, pre in options.items():
        if pre == "auto" and n > 5000:
            timings[name].append(np.nan)
            continue
        best = np.inf
        for _ in range(2):           # best of two: the machine may be shared
            t0 = time.perf_counter()
            F = harmonic_solution(W, S, Y, preconditioner=pre, tol=1e-8)
            best = min(best, time.perf_counter() - t0)
        timings[name].append(best)
    print(f"n = {n:6d}: " + ", ".join(f"{k} {v[-1]:.3f} s" for k, v in timings.items()))

# %%
# Time against n (log-log).  AMG-CG grows about linearly with n; plain CG
# faster than linearly, because its step count grows too.
fig, ax = plt.subplots(figsize=(6, 4))
for name, ts in timings.items():
    ax.loglog(sizes, ts, "o-", label=name)
ax.loglog(sizes, timings["AMG-CG"][0] * np.array(sizes) / sizes[0], "k:", label="linear in n")
ax.set_xlabel("number of nodes n")
ax.set_ylabel("seconds (best of 2)")
ax.set_title("Harmonic solution on 3-D kNN graphs")
ax.legend()
fig.tight_layout()
