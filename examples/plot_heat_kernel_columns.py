"""
Heat kernel columns on a manifold
=================================

The graph heat kernel :math:`\\Phi = e^{-tL}` (:class:`graphrkhs.filters.Heat`)
of a kNN graph built on points sampled from a manifold approximates the heat
kernel *of the manifold*: a column :math:`\\Phi[:, i]` is the temperature after
diffusing a unit of heat from point i for time t, and heat travels along the
manifold, not through the ambient space.  That is what makes graph kernels
useful when the data lie on a curved low-dimensional set (Smola & Kondor 2003;
Belkin & Niyogi 2003).

We sample a Swiss roll, build its kNN graph, and compute a few columns of
:class:`graphrkhs.GraphKernel` (each column is one Chebyshev recurrence on an
indicator vector; the kernel matrix is never formed).  Plotted on the
unrolled coordinates of the roll, the columns spread as round blobs that grow
with t; the ambient Gaussian kernel of comparable width leaks across the
layers of the roll instead.
"""

# %%
# Data and graph
# --------------
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_swiss_roll

from graphrkhs import GraphKernel, filters, gaussian_kernel, knn_graph

X, roll = make_swiss_roll(n_samples=2500, noise=0.05, random_state=0)
height = X[:, 1]
W = knn_graph(X, 10)
print(f"{W.shape[0]} nodes, {W.nnz // 2} edges")

# Two sources: one on an inner layer, one on the next layer out, close in R^3.
inner = np.argmin((roll - 7.5) ** 2 + (height - 10) ** 2)
distance = np.linalg.norm(X - X[inner], axis=1)
outer_candidates = np.flatnonzero(np.abs(roll - roll[inner]) > 4)
outer = outer_candidates[np.argmin(distance[outer_candidates])]
print(f"ambient distance between the sources {distance[outer]:.2f}, "
      f"along the roll about {abs(roll[outer] - roll[inner]) * np.hypot(1, roll[inner]):.0f}")

# %%
# Heat kernel columns for three diffusion times
# ---------------------------------------------
times = [2.0, 10.0, 40.0]
columns = []
for t in times:
    K = GraphKernel(W, filters.Heat(t), laplacian="combinatorial")
    columns.append(K.columns([inner]))
    print(f"t={t:5.1f}: Chebyshev order {K.order}, lmax {K.lmax:.2f}")

fig, axes = plt.subplots(2, 3, figsize=(11, 6.5), sharex=True, sharey=True)
for ax, t, col in zip(axes[0], times, columns):
    c = col[:, 0]
    ax.scatter(roll, height, c=c, s=6, cmap="inferno", vmin=0, vmax=c.max())
    ax.plot(roll[inner], height[inner], "c+", ms=12, mew=2)
    ax.set_title(f"graph heat kernel, t = {t:g}")

# %%
# The ambient Gaussian kernel, with widths matched to the spread of the heat
# columns, reaches the next layer of the roll before it has covered its own
# neighbourhood on the manifold.
for ax, col in zip(axes[1], columns):
    c = col[:, 0] / col[:, 0].sum()
    spread = np.sqrt((c * distance**2).sum())
    g = gaussian_kernel(X[[inner]], X, sigma=spread / np.sqrt(3))[0]
    ax.scatter(roll, height, c=g, s=6, cmap="inferno", vmin=0, vmax=1)
    ax.plot(roll[inner], height[inner], "c+", ms=12, mew=2)
    ax.set_title(f"ambient Gaussian, sigma = {spread / np.sqrt(3):.1f}")
for ax in axes[:, 0]:
    ax.set_ylabel("height")
for ax in axes[1]:
    ax.set_xlabel("position along the roll")
fig.suptitle("Columns Phi[:, i] plotted on the unrolled Swiss roll (+ marks node i)")
fig.tight_layout()

# %%
# Heat stays on its layer
# -----------------------
# Mass of each column that sits more than 4 roll units away from the source
# (that is, on another layer), for the heat kernel and the ambient Gaussian.
far = np.abs(roll - roll[inner]) > 4
for t, col in zip(times, columns):
    c = np.clip(col[:, 0], 0, None)
    c = c / c.sum()
    spread = np.sqrt((c * distance**2).sum())
    g = gaussian_kernel(X[[inner]], X, sigma=spread / np.sqrt(3))[0]
    g = g / g.sum()
    print(f"t={t:5.1f}: mass on other layers, heat {c[far].sum():.3f}, Gaussian {g[far].sum():.3f}")
