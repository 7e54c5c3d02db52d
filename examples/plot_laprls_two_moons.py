"""
LapRLS against RLS on two moons with one label per class
========================================================

Belkin, Niyogi & Sindhwani (JMLR 2006, Figure 2): with a single labeled point
per class, RLS can only draw a boundary halfway between the two labels.  LapRLS
adds the intrinsic penalty :math:`\\frac{\\gamma_I}{n^2} f^T L f` on a 10-nearest
-neighbour graph of all 300 points, so the decision function must be smooth
along the data and the boundary follows the gap between the moons.  Both are
inductive: the boundaries below are ``predict`` on a grid of new points.
PLapRLS (Yang, King & Lyu) is shown for comparison.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_moons

from graphrkhs import LapRLSClassifier, PLapRLSClassifier, RLSClassifier

X, y = make_moons(300, noise=0.07, random_state=0)
y_semi = np.full(300, -1)
labeled = [int(np.flatnonzero(y == c)[0]) for c in (0, 1)]
y_semi[labeled] = y[labeled]

models = {
    "RLS": RLSClassifier(sigma=0.3, alpha=1e-3),
    "LapRLS": LapRLSClassifier(sigma=0.3, gamma_A=1e-6, gamma_I=100.0),
    "PLapRLS": PLapRLSClassifier(sigma=0.3, gamma_A=1e-6, gamma_I=100.0),
}
for m in models.values():
    m.fit(X, y_semi)

# %%
# Decision boundaries
# -------------------
xx, yy = np.meshgrid(np.linspace(-1.5, 2.5, 200), np.linspace(-1.0, 1.5, 150))
grid = np.c_[xx.ravel(), yy.ravel()]
fig, axes = plt.subplots(1, 3, figsize=(15, 4))
unl = y_semi == -1
for ax, (name, m) in zip(axes, models.items()):
    Z = m.decision_function(grid).reshape(xx.shape)
    ax.contourf(xx, yy, Z, levels=20, cmap="RdBu", alpha=0.4)
    ax.contour(xx, yy, Z, levels=[0], colors="k")
    ax.scatter(X[:, 0], X[:, 1], c=y, cmap="RdBu", s=6)
    ax.scatter(X[labeled, 0], X[labeled, 1], c="yellow", edgecolors="k", s=120, marker="*")
    acc = (m.predict(X[unl]) == y[unl]).mean()
    ax.set_title(f"{name}: accuracy on unlabeled {acc:.3f}")
fig.tight_layout()
