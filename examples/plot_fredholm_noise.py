"""
Fredholm kernels and the noise assumption
=========================================

Que, Belkin & Wang (NIPS 2014, Sections 3 and 5.1): the "noise assumption"
says that directions of small variance are uninformative.  Here the class
depends on two signal coordinates (a parabolic boundary) and the other
``D - 2`` coordinates are Gaussian noise of variance 0.25.  With 10 labels per
class, a Gaussian kernel on the labeled points is swamped by the accumulated
noise as D grows; the Fredholm kernel
:math:`k_F(x,z) = \\sum_{ij} p_x(x_i) k_H(x_i, x_j) p_z(x_j)` averages the inner
Gaussian over the unlabeled points near x and z, which suppresses the noise.

Both learners use the same tuning rule: width = median pairwise distance
(from the points, not the labels), ridge by closed-form leave-one-out RLS error
on the labeled points.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np
from sklearn.svm import SVC

from graphrkhs import FredholmClassifier, default_sigma, rls_coefficients, rls_loo_error
from graphrkhs.datasets import make_noisy_subspace, sample_labels


def gaussian_gram(A, B, sigma):
    d2 = (A * A).sum(1)[:, None] + (B * B).sum(1)[None, :] - 2 * A @ B.T
    return np.exp(-np.maximum(d2, 0) / (2 * sigma**2))


def plain_gaussian(X, y, keep, hidden, sigma):
    """Gaussian RLS and SVM on the labeled points; ridge by LOO (same grid as the estimators)."""
    G = gaussian_gram(X[keep], X[keep], sigma)
    Y = 2.0 * np.eye(2)[y[keep]] - 1
    alphas = np.logspace(-8, 0, 17) / keep.size
    alpha = alphas[np.argmin(rls_loo_error(G, Y, alphas))]
    Gh = gaussian_gram(X[hidden], X[keep], sigma)
    rls = np.mean(np.argmax(Gh @ rls_coefficients(G, Y, alpha), 1) == y[hidden])
    svm = SVC(kernel="precomputed", C=1 / (2 * alpha * keep.size)).fit(G, y[keep])
    return rls, np.mean(svm.predict(Gh) == y[hidden])


# %%
# Accuracy on the unlabeled points against the number of dimensions D
# (3 draws each, n = 800 points).
dims = [2, 10, 30, 60, 100]
scores = {k: [] for k in ("Gaussian RLS", "Gaussian SVM", "Fredholm RLS", "Fredholm SVM")}
for D in dims:
    acc = {k: [] for k in scores}
    for draw in range(3):
        X, y = make_noisy_subspace(800, n_features=max(D, 3), random_state=draw)
        X = X[:, :D]  # D = 2: the signal alone
        y_partial, keep = sample_labels(y, 10, random_state=100 + draw)
        hidden = np.setdiff1d(np.arange(len(y)), keep)
        s = default_sigma(X)
        rls, svm = plain_gaussian(X, y, keep, hidden, s)
        acc["Gaussian RLS"].append(rls)
        acc["Gaussian SVM"].append(svm)
        for loss, name in (("squared", "Fredholm RLS"), ("hinge", "Fredholm SVM")):
            clf = FredholmClassifier(sigma=s, normalized=True, loss=loss).fit(X, y_partial)
            acc[name].append(clf.score(X[hidden], y[hidden]))
    for k in scores:
        scores[k].append(np.mean(acc[k]))
    print(f"D = {D:3d}: " + ", ".join(f"{k} {np.mean(v):.3f}" for k, v in acc.items()))

# %%
fig, ax = plt.subplots(figsize=(6, 4))
for k, v in scores.items():
    ax.plot(dims, v, "o-" if "Fredholm" in k else "s--", label=k)
ax.set_xlabel("number of dimensions D (2 signal + D - 2 noise)")
ax.set_ylabel("accuracy on unlabeled points")
ax.set_title("10 labels per class, n = 800")
ax.legend()
fig.tight_layout()
plt.show()
