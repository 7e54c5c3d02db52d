"""
Linear Fredholm kernel as soft-thresholded PCA
==============================================

Que, Belkin & Wang (NIPS 2014, Theorem 4 and Section 5.1.1).  With a linear
outer kernel and a Gaussian inner kernel :math:`\\exp(-\\|u-v\\|^2/2t)` (FredLin1),
the Fredholm kernel is an inner product :math:`x^T \\Sigma_F z`; for data from
:math:`N(0, \\mathrm{diag}(s_1^2, \\dots, s_D^2))`

.. math:: \\Sigma_F = \\prod_d \\sqrt{\\frac{t}{2 s_d^2 + t}}\\;
          \\mathrm{diag}\\Big(\\frac{s_d^4}{2 s_d^2 + t}\\Big),

which rescales principal direction d by :math:`s_d^4/(2 s_d^2 + t)`: about
:math:`s_d^2/2` for :math:`s_d^2 \\gg t`, about :math:`s_d^4/t \\approx 0` for
:math:`s_d^2 \\ll t`.  The width t acts as a soft threshold on the principal
components.  We check the closed form, then use it for principal component
regression: :math:`y = a\\, x^T u_1` with :math:`u_1` the top principal
direction, data :math:`N(0, \\mathrm{diag}(10, 1, \\dots, 1))`, few labels.
"""

# %%
# The rescaling factors: empirical (FredholmKernel evaluated on unit vectors) and closed form.
import matplotlib.pyplot as plt
import numpy as np

from graphrkhs import FredholmKernel, FredholmRegressor

rng = np.random.default_rng(0)
s2 = np.array([10.0, 4.0, 2.0, 1.0, 0.5, 0.25])
X = rng.normal(size=(3000, s2.size)) * np.sqrt(s2)
fig, ax = plt.subplots(1, 2, figsize=(10, 4))
for t in (2.0, 8.0, 32.0):
    K = FredholmKernel.from_preset("FredLin1", X, sigma_inner=np.sqrt(t))
    empirical = np.diag(K(np.eye(s2.size)))
    closed = np.prod(np.sqrt(t / (2 * s2 + t))) * s2**2 / (2 * s2 + t)
    ax[0].loglog(s2, empirical / empirical.max(), "o", label=f"t = {t:g} (empirical)")
    ax[0].loglog(s2, closed / closed.max(), "-", color=ax[0].lines[-1].get_color())
    print(f"t = {t:4g}: max relative deviation from Theorem 4 = "
          f"{np.abs(empirical - closed).max() / closed.max():.3f}")
ax[0].set_xlabel("variance $s_d^2$ of the direction")
ax[0].set_ylabel("relative weight in $\\Sigma_F$")
ax[0].set_title("Theorem 4: dots = FredholmKernel, lines = closed form")
ax[0].legend(fontsize=8)

# %%
# Principal component regression with 20 labels among 1000 points in D = 50:
# ordinary least squares (minimum-norm ridge) on all dimensions, PCR with the
# top k principal components (of all points), and FredLin1 regression for a
# range of t (its ridge chosen by leave-one-out).
D, n, l, a = 50, 1000, 20, 2.0
var = np.r_[10.0, np.ones(D - 1)]
X = rng.normal(size=(n, D)) * np.sqrt(var)
y_true = a * X[:, 0]
y_obs = y_true + 0.5 * rng.normal(size=n)
y = np.full(n, np.nan)
y[:l] = y_obs[:l]
test = np.arange(l, n)


def mse(pred):
    return float(np.mean((pred - y_true[test]) ** 2))


ridge = np.linalg.solve(X[:l].T @ X[:l] + 1e-6 * np.eye(D), X[:l].T @ y_obs[:l])
print(f"least squares, all {D} dims:   test MSE {mse(X[test] @ ridge):.3f}")
_, _, Vt = np.linalg.svd(X - X.mean(0), full_matrices=False)
for k in (1, 5, 10):
    Z = X @ Vt[:k].T
    w = np.linalg.lstsq(Z[:l], y_obs[:l], rcond=None)[0]
    print(f"PCR, top {k:2d} components:      test MSE {mse(Z[test] @ w):.3f}")
ts = [0.5, 2, 10, 50, 200, 1000]
errors = []
for t in ts:
    reg = FredholmRegressor(outer="linear", inner="gaussian", sigma_inner=np.sqrt(t)).fit(X, y)
    errors.append(mse(reg.predict(X[test])))
    print(f"FredLin1, t = {t:4g}:            test MSE {errors[-1]:.3f}")
ax[1].semilogx(ts, errors, "o-", label="FredLin1 (no hard cut-off)")
ax[1].axhline(mse(X[test] @ ridge), color="gray", ls="--", label="least squares, all dims")
ax[1].set_xlabel("inner width t")
ax[1].set_ylabel("test MSE")
ax[1].set_title(f"y = {a:g} x1, {l} labels, D = {D}")
ax[1].legend(fontsize=8)
fig.tight_layout()
plt.show()
