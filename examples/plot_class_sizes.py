"""
Class sizes at one label per class: Poisson, MBO and CutSSL
===========================================================

With one labeled image per class, the labels alone say little about where the
class boundaries lie; knowing how *large* each class is says a lot.  Every
classifier of the package takes ``class_priors=`` (class proportions); three of
them build the class sizes into the method itself:

* :class:`~graphrkhs.PoissonMBOClassifier` -- Poisson learning, then rounds of
  heat diffusion each followed by the projection onto labelings with the sizes
  (Calder et al., ICML 2020);
* :class:`~graphrkhs.VolumeMBOClassifier` -- auction dynamics with fixed class
  volumes (Jacobs, Merkurjev & Esedoglu, 2018);
* :class:`~graphrkhs.CutSSLClassifier` -- the size-constrained minimum cut as a
  nonconvex quadratic program over the class indicators (Holtz et al., NeurIPS
  2024).

On scikit-learn's handwritten digits (1797 images, the 10-nearest-neighbour
graph built once), five random draws of one label per class: accuracy on the
unlabeled images, without the sizes and with the true class proportions.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits

from graphrkhs import (CutSSLClassifier, PoissonLearningClassifier, PoissonMBOClassifier, VolumeMBOClassifier,
                       knn_graph)

X, y = load_digits(return_X_y=True)
W = knn_graph(X / 16.0)          # every fit below uses it (graph="precomputed")
priors = np.bincount(y) / y.size
draws = range(5)
methods = {"Poisson learning": PoissonLearningClassifier, "Poisson MBO": PoissonMBOClassifier,
           "volume MBO": VolumeMBOClassifier, "CutSSL": CutSSLClassifier}


def accuracy(make, seed, class_priors):
    rng = np.random.default_rng(seed)
    y_semi = np.full(y.size, -1)
    for c in range(10):
        i = rng.choice(np.flatnonzero(y == c))
        y_semi[i] = c
    clf = make(graph="precomputed", class_priors=class_priors).fit(W, y_semi)
    unl = y_semi == -1
    return 100 * np.mean(clf.transduction_[unl] == y[unl])


# the MBO methods and CutSSL always use sizes: without priors, the labeled proportions (here uniform)
results = {name: [np.mean([accuracy(make, s, b) for s in draws]) for b in (None, priors)]
           for name, make in methods.items()}
for name, (plain, given) in results.items():
    print(f"{name:<18} no priors {plain:5.1f} %   true priors {given:5.1f} %")

# %%
fig, ax = plt.subplots(figsize=(6, 3.2))
pos = np.arange(len(results))
ax.bar(pos - 0.2, [r[0] for r in results.values()], 0.4, label="class_priors=None")
ax.bar(pos + 0.2, [r[1] for r in results.values()], 0.4, label="true class proportions")
ax.set_xticks(pos, list(results))
ax.set_ylim(50, 100)
ax.set_ylabel("accuracy on unlabeled (%)")
ax.set_title("Digits, one label per class (mean of 5 draws)")
ax.legend(loc="lower right")
fig.tight_layout()
plt.show()
