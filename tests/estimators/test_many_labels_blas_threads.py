"""Many labels (l ~ n): the LOO selection's eigendecompositions of order l run on one BLAS thread.

``graphrkhs demo --labels-per-class 173`` (l = 1730) printed only its header in 300 s: the kernels of
order l > 512 were factored on the caller's two OpenBLAS threads, whose spinning on the shared machine
made each ``eigh`` 7-30x slower (RLSClassifier().fit over 120 s; see ``small_dense_threads``).  The test
counts the threads inside every eigendecomposition instead of timing anything.
"""

import numpy as np
from sklearn.kernel_ridge import KernelRidge

from graphrkhs import RLSRegressor


def test_rls_loo_selection_over_600_labels_factors_on_one_blas_thread(monkeypatch):
    from threadpoolctl import ThreadpoolController, threadpool_limits

    seen = []
    eigh = np.linalg.eigh

    def spy(A, *args, **kwargs):
        threads = {lib["num_threads"] for lib in ThreadpoolController().select(user_api="blas").info()}
        seen.append((A.shape[0], threads))
        return eigh(A, *args, **kwargs)

    monkeypatch.setattr(np.linalg, "eigh", spy)
    rng = np.random.default_rng(0)
    X = rng.uniform(-3, 3, size=(600, 2))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=600)
    with threadpool_limits(limits=2, user_api="blas"):
        est = RLSRegressor(sigma=0.8, alpha=[1e-4, 1e-3, 1e-2], fit_intercept=False).fit(X, y)
    order_l = [threads for order, threads in seen if order == 600]
    assert order_l, "the alpha path factored no kernel of order l"
    assert all(threads == {1} for threads in order_l), order_l
    # the result is the mathematics' whatever the threads: the selected ridge's fit is kernel ridge's, and
    # the selected ridge has the smallest exact LOO error of the grid (explicit refits without point i)
    kr = KernelRidge(alpha=est.alpha_ * 600, kernel="rbf", gamma=1 / (2 * 0.8**2)).fit(X, y)
    Z = rng.uniform(-3, 3, size=(20, 2))
    np.testing.assert_allclose(est.predict(Z), kr.predict(Z), atol=1e-8)
    K = np.exp(-((X[:, None, :] - X[None, :, :]) ** 2).sum(-1) / (2 * 0.8**2))
    loo = []
    for a in (1e-4, 1e-3, 1e-2):
        H = K @ np.linalg.inv(K + a * 600 * np.eye(600))     # hat matrix; LOO residual (y - Hy)_i / (1 - H_ii)
        loo.append(np.mean(((y - H @ y) / (1 - np.diag(H))) ** 2))
    assert est.alpha_ == (1e-4, 1e-3, 1e-2)[int(np.argmin(loo))]
