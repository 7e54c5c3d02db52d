r"""Tangent distance between images, and the test that tells square raster images from other rows.

The tangent distance (Simard, LeCun & Denker, NIPS 1993; Simard, LeCun, Denker & Victorri,
"Transformation invariance in pattern recognition -- tangent distance and tangent propagation", 1998)
measures two images up to small transformations: the difference :math:`u_i - u_j` is taken after
removing its component along the tangent plane :math:`T_i` of :math:`u_i`'s orbit under the
transformations,

.. math::

   d_{\tau}(u_i, u_j)^2 = \min_a \|u_i + T_i a - u_j\|^2
                        = \|u_i - u_j\|^2 - \|Q_i^\top (u_i - u_j)\|^2,

:math:`Q_i` an orthonormal basis of the span of :math:`T_i` (this is the one-sided distance; the
columns of :math:`T_i` are the seven derivatives of Simard et al.: translations in x and y, rotation,
scaling, the two hyperbolic deformations and the line thickness, computed from the image smoothed by
a Gaussian of ``TANGENT_SMOOTHING`` pixels).  The rows are the images scaled to unit length, as for
``metric="cosine"``: the distance is the chord distance of the cosine graph less what small
deformations explain.

A graph with ``metric="tangent"`` (:func:`~graphrkhs.knn_graph`) takes ``TANGENT_CANDIDATES`` times k
candidates per point from the cosine search and keeps the k nearest of them in tangent distance
(the cosine neighbours are where the tangent ones are: on the digits, 3k cosine candidates and an
exhaustive search gave the same accuracy, 98.18 against 98.17 % at 10 labels per class with the
symmetrized distance; on Fashion-MNIST a quarter of the kept neighbours lie beyond the 10th cosine
one and 6 % beyond the 20th; benchmarks/REPORT.md, "Accuracy against the label rate").
"""

from __future__ import annotations

import numpy as np
import scipy.ndimage as ndi
from numba import njit, prange

from .._core.validation import check_index_array, power_of_two_exponent

__all__ = []

#: Width (pixels) of the Gaussian that smooths an image before its derivatives are taken.
TANGENT_SMOOTHING = 0.7
#: Candidates from the cosine search per neighbour kept by the tangent distance.
TANGENT_CANDIDATES = 3
#: Number of tangent directions (Simard et al.'s seven).
N_TANGENTS = 7
#: Bytes of the per-block work arrays of the re-ranking (differences and tangent bases).
TANGENT_BLOCK_BYTES = 2 ** 27
#: Smallest side of a square image that ``square_image_shape`` recognizes.
MIN_IMAGE_SIDE = 8
#: Rows of the sample on which ``square_image_shape`` measures the correlations.
IMAGE_TEST_ROWS = 2000
#: How much more correlated grid neighbours must be than the pixel pairs that are near only in the
#: rows' reading order (see ``square_image_shape``).
IMAGE_CORRELATION_MARGIN = 0.15


def check_image_shape(image_shape, n_features=None, argument="image_shape"):
    """``image_shape`` as a tuple ``(height, width)`` of ints >= 2 (whose product is ``n_features`` when given)."""
    def whole(s):
        return (isinstance(s, (int, np.integer)) and not isinstance(s, bool)) or \
            (isinstance(s, (float, np.floating)) and float(s).is_integer())
    listed = isinstance(image_shape, (tuple, list)) or (isinstance(image_shape, np.ndarray) and image_shape.ndim == 1)
    shape = tuple(image_shape) if listed else None
    if shape is None or len(shape) != 2 or not all(whole(s) for s in shape) or min(shape) < 2:
        raise ValueError(f"{argument} must be a pair (height, width) of ints >= 2 (the images' pixels, row "
                         f"by row); got {image_shape!r}.")
    height, width = int(shape[0]), int(shape[1])
    if n_features is not None and height * width != n_features:
        raise ValueError(f"{argument}={(height, width)} has {height * width} pixels but X has {n_features} "
                         f"columns; pass the shape of the images whose rows X holds, row by row.")
    return height, width


def tangent_bases(U, image_shape, smoothing=TANGENT_SMOOTHING, factored=False):
    r"""Orthonormal bases :math:`Q_i^\top` (shape (m, 7, p), as rows) of the tangent planes of the images ``U``.

    ``U`` (m, p): images row by row (``image_shape`` = (height, width)).  Tangent vectors (Simard et
    al. 1998) from the image smoothed by a Gaussian of ``smoothing`` pixels, :math:`g_x, g_y` its
    derivatives and :math:`(x, y)` the pixel's offset from the centre: :math:`g_x`, :math:`g_y`,
    :math:`y g_x - x g_y` (rotation), :math:`x g_x + y g_y` (scaling), :math:`x g_x - y g_y`,
    :math:`y g_x + x g_y` (hyperbolic), :math:`g_x^2 + g_y^2` (thickness).  The basis comes from the
    eigenvectors of the 7 x 7 Gram matrix; directions with eigenvalue below :math:`10^{-10}` times the
    largest (or every direction of a flat image) are dropped as zero rows, so a flat image is
    compared by its plain chord distance.

    Returns ``(Q, None)``; with ``factored=True`` ``(T, A)`` such that :math:`Q_i^\top = A_i T_i`
    (tangents as rows (m, 7, p) and a 7 x 7 whitening per image), so that :math:`Q_i^\top d` costs
    seven dot products of length p and a 7 x 7 product.
    """
    m, p = U.shape
    height, width = image_shape
    smooth = ndi.gaussian_filter(U.reshape(m, height, width), (0, smoothing, smoothing), mode="nearest")
    gy, gx = np.gradient(smooth, axis=(1, 2))
    yy, xx = np.mgrid[0:height, 0:width].astype(np.float64)
    yy -= (height - 1) / 2
    xx -= (width - 1) / 2
    # tangents as rows (m, 7, p): each written contiguously
    T = np.empty((m, N_TANGENTS, height, width))
    T[:, 0], T[:, 1] = gx, gy
    np.subtract(yy * gx, xx * gy, out=T[:, 2])
    np.add(xx * gx, yy * gy, out=T[:, 3])
    np.subtract(xx * gx, yy * gy, out=T[:, 4])
    np.add(yy * gx, xx * gy, out=T[:, 5])
    np.add(gx * gx, gy * gy, out=T[:, 6])
    T = T.reshape(m, N_TANGENTS, p)
    lam, V = np.linalg.eigh(np.matmul(T, T.transpose(0, 2, 1)))
    keep = lam > 1e-10 * np.maximum(lam[:, -1:], np.finfo(np.float64).tiny)
    scale = np.where(keep, 1.0 / np.sqrt(np.where(keep, lam, 1.0)), 0.0)
    # Q_i^T = (V diag(scale))^T T_i: orthonormal rows (zero rows for the dropped directions)
    whiten = np.ascontiguousarray((V * scale[:, None, :]).transpose(0, 2, 1))
    return (np.matmul(whiten, T), None) if not factored else (T, whiten)


def _rows_per_block(p):
    """Query rows whose tangent bases (p x 7 float64 each) fit in ``TANGENT_BLOCK_BYTES``."""
    return max(1, TANGENT_BLOCK_BYTES // (8 * p * (2 * N_TANGENTS + 1)))


def tangent_rerank(U_query, U_fitted, candidates, n_neighbors, image_shape, *, smoothing=TANGENT_SMOOTHING,
                   tie=None):
    r"""The ``n_neighbors`` nearest of each query's candidates in one-sided tangent distance.

    Parameters
    ----------
    U_query : ndarray (m, p)
        Query images, unit rows (their tangent planes are used).
    U_fitted : ndarray (n, p)
        The images the candidates index, unit rows.
    candidates : ndarray of int (m, c)
        Candidate rows of ``U_fitted`` for each query (checked here: the compiled loop reads them
        unchecked).
    n_neighbors : int
        Neighbours kept, <= c.
    tie : ndarray of int (n,), optional
        The tie ranks of the rows of ``U_fitted`` (``graphrkhs.graphs._search.tie_ranks``, or anything
        indexed alike; looked up only for a row with a tie): candidates at exactly the same tangent
        distance are kept in this order, as the exact Euclidean searches keep theirs, so the graph does
        not depend on the order of the rows.  None: by index.

    Returns
    -------
    dist, idx : ndarray (m, n_neighbors)
        :math:`d_\tau` (see the module documentation), ascending per row with ties in (distance,
        tie rank) order, and the rows of ``U_fitted``.

    Memory: the tangent bases of ``TANGENT_BLOCK_BYTES`` worth of query rows at a time; the pairs'
    differences are never stored (a compiled loop reads both rows in place).
    """
    U_query = np.ascontiguousarray(U_query, dtype=np.float64)
    U_fitted = np.ascontiguousarray(U_fitted, dtype=np.float64)
    candidates = np.ascontiguousarray(candidates, dtype=np.int64)
    m, p = U_query.shape
    check_index_array(candidates, U_fitted.shape[0], "tangent-distance candidates")
    if U_fitted.shape[1] != p or candidates.shape[0] != m:
        raise ValueError(f"tangent_rerank: {m} queries of {p} pixels, {U_fitted.shape[1]} pixels fitted and "
                         f"{candidates.shape[0]} candidate lists do not match.")
    sq = np.empty(candidates.shape)
    step = _rows_per_block(p)
    for lo in range(0, m, step):
        rows = slice(lo, min(m, lo + step))
        T, A = tangent_bases(U_query[rows], image_shape, smoothing, factored=True)
        _tangent_sq(U_query[rows], U_fitted, candidates[rows], T, A, sq[rows])
    order = _order(sq, candidates, tie)[:, :n_neighbors]
    return np.sqrt(np.take_along_axis(sq, order, axis=1)), np.take_along_axis(candidates, order, axis=1)


# reassociation lets the dot products use SIMD (the order of a sum of squares only moves the last bits)
@njit(parallel=True, cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _tangent_sq(U, F, cand, T, A, out):
    """``out[a, b] = |u_a - f_j|^2 - |A_a T_a (u_a - f_j)|^2`` (clipped at 0), ``j = cand[a, b]``: each
    difference formed once in a per-thread buffer, never stored."""
    r, p = T.shape[1], T.shape[2]
    for a in prange(cand.shape[0]):
        diff = np.empty(p)
        along = np.empty(r)
        for b in range(cand.shape[1]):
            j = cand[a, b]
            total = 0.0
            for c in range(p):
                t = U[a, c] - F[j, c]
                diff[c] = t
                total += t * t
            for e in range(r):
                acc = 0.0
                for c in range(p):
                    acc += T[a, e, c] * diff[c]
                along[e] = acc
            for e in range(r):
                acc = 0.0
                for g in range(r):
                    acc += A[a, e, g] * along[g]
                total -= acc * acc
            out[a, b] = total if total > 0.0 else 0.0


def _order(sq, candidates, tie=None):
    """Per row, the column order by (distance, tie rank of the candidate), or (distance, index) without
    ``tie``; the ranks are looked up for the rows with a tie only."""
    order = np.argsort(sq, axis=1, kind="stable")
    s = np.take_along_axis(sq, order, axis=1)
    tied = np.flatnonzero((s[:, 1:] == s[:, :-1]).any(axis=1))
    if tied.size:
        key = candidates[tied] if tie is None else tie[candidates[tied]]
        order[tied] = np.lexsort((key, sq[tied]), axis=-1)
    return order


def square_image_shape(X, random_state=0):
    r"""``(s, s)`` when the rows of ``X`` look like square raster images read row by row, else None.

    A dense ``X`` with :math:`p = s^2` columns, :math:`s \ge` ``MIN_IMAGE_SIDE``, is taken for images
    when, on a sample of at most ``IMAGE_TEST_ROWS`` rows, the mean correlation of vertically adjacent
    pixels (columns :math:`j, j + s`) and that of horizontally adjacent ones (:math:`j, j + 1` in one
    row) both exceed by ``IMAGE_CORRELATION_MARGIN`` the mean correlation of the pairs that are near in
    the reading order only: half a row apart in one row (:math:`j, j + \lfloor s/2 \rfloor`), and the
    last pixel of a row with the first of the next.  In a sequence (a time series, a 1-D histogram)
    correlation falls with the lag, so lag s is below lag s/2 and lag 1 across the row end is as high
    as any; in an image the vertical neighbour at lag s is the nearer one.  Constant columns (blank
    borders) are left out of the means.  Measured (the smaller grid-neighbour mean less the larger
    reading-order mean): scikit-learn's digits 0.26 and Fashion-MNIST 0.48 pass; random walks, sine
    waves, AR(1) series, 1-D and 3-D histograms of 64 bins, ``make_classification`` features and
    Fashion-MNIST with its pixels permuted do not (margins -0.86 to 0.01).
    """
    if not isinstance(X, np.ndarray) or X.ndim != 2:
        return None
    n, p = X.shape
    side = int(round(np.sqrt(p)))
    if side * side != p or side < MIN_IMAGE_SIDE or n < 3:
        return None
    rows = np.random.default_rng(random_state).choice(n, min(n, IMAGE_TEST_ROWS), replace=False)
    S = np.asarray(X[np.sort(rows)], dtype=np.float64)
    # an exact power-of-two rescaling first: the squared column norms overflowed beyond |x| ~ 1e154 and
    # underflowed below 1e-162, and images so scaled were not recognized
    S = np.ldexp(S, -power_of_two_exponent(S))
    S = S - S.mean(axis=0)
    norm = np.sqrt(np.einsum("ij,ij->j", S, S))
    live = norm > 1e-12 * max(float(norm.max()), np.finfo(np.float64).tiny)
    S = S / np.where(live, norm, 1.0)
    r, c = np.divmod(np.arange(p), side)

    def mean_correlation(first, lag):
        first = first[live[first] & live[first + lag]]
        if not first.size:
            return np.nan
        return float(np.einsum("ij,ij->j", S[:, first], S[:, first + lag]).mean())

    vertical = mean_correlation(np.flatnonzero(r < side - 1), side)
    horizontal = mean_correlation(np.flatnonzero(c < side - 1), 1)
    half_row = mean_correlation(np.flatnonzero(c < side - side // 2), side // 2)
    row_end = mean_correlation(np.flatnonzero((c == side - 1) & (r < side - 1)), 1)
    near_in_order = np.nanmax([half_row, row_end]) if not np.isnan([half_row, row_end]).all() else np.nan
    if np.isnan([vertical, horizontal, near_in_order]).any():
        return None
    if min(vertical, horizontal) >= near_in_order + IMAGE_CORRELATION_MARGIN:
        return side, side
    return None
