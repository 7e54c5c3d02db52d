"""predict with metric='tangent': the cosine candidates that the tangent distance re-ranks are taken in the
graph's tie order (the rows' contents), as knn_graph takes them, so a new point's neighbours do not depend on
the order of the fitted rows.

Oracle: twelve 4 x 4 images, each a 2 x 2 square with one pixel moved elsewhere, all exactly at chord distance
sqrt(1/2) from the square itself (checked).  With n_neighbors=1 the rule takes the first 3 (TANGENT_CANDIDATES
* k) of them in tie order -- the unit rows in lexicographic order -- and keeps the nearest in Simard's
one-sided tangent distance, computed here by least squares on the seven tangent vectors.  Before the fix
predict took the candidates in scikit-learn's index order: the value was 9, 8 or 7 depending on the order of
the rows.
"""

import warnings

import numpy as np
import scipy.ndimage as ndi

from graphrkhs import GraphSpec, LaplacianRegularizationRegressor

H = W = 4


def _images():
    q = np.zeros((H, W))
    q[1:3, 1:3] = 1.0
    fitted = []
    for r in range(H):
        for c in range(W):
            if q[r, c] == 0:
                f = q.copy()
                f[1, 1] = 0.0
                f[r, c] = 1.0
                fitted.append(f.ravel())
    return q.ravel(), np.array(fitted)


def _tangent_sq(u, v):
    """min_a |u + T a - v|^2, T the seven tangent vectors of u (Simard et al.; smoothing 0.7 px)."""
    s = ndi.gaussian_filter(u.reshape(H, W), 0.7, mode="nearest")
    gy, gx = np.gradient(s)
    yy, xx = np.mgrid[0:H, 0:W].astype(float)
    yy -= (H - 1) / 2
    xx -= (W - 1) / 2
    T = np.stack([gx, gy, yy * gx - xx * gy, xx * gx + yy * gy, xx * gx - yy * gy, yy * gx + xx * gy,
                  gx * gx + gy * gy]).reshape(7, -1).T
    a, *_ = np.linalg.lstsq(T, v - u, rcond=1e-5)
    res = u + T @ a - v
    return float(res @ res)


def test_tangent_predict_does_not_depend_on_row_order():
    q, F = _images()
    n = F.shape[0]
    U = F / np.linalg.norm(F, axis=1, keepdims=True)
    u = q / np.linalg.norm(q)
    chord = ((U - u) ** 2).sum(axis=1)
    assert np.all(chord == 0.5)                       # every fitted image is tied in the cosine search
    lex = np.lexsort(U.T[::-1])                       # tie order: first coordinate first
    cand = lex[:3]
    t = np.array([_tangent_sq(u, U[j]) for j in cand])
    assert np.sort(t)[1] - np.sort(t)[0] > 1e-3       # a clear winner among the candidates
    expected = float(cand[np.argmin(t)])

    y = np.arange(n, dtype=float)                     # every fitted point labeled with its own index
    got = []
    for seed in (0, 1, 3):                           # (before the fix: 9, 8 and 7)
        p = np.random.default_rng(seed).permutation(n)
        est = LaplacianRegularizationRegressor(alpha=0.0, graph=GraphSpec(n_neighbors=1, metric="tangent",
                                                                          image_shape=(H, W)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(F[p], y[p])
        got.append(float(est.predict(q[None, :])[0]))
    assert got == [expected] * 3
