"""Label handling shared by every estimator (scikit-learn's semi-supervised
convention: -1 marks an unlabeled classification target, NaN an unlabeled
regression target; class labels may be any hashable values)."""

import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph

from .validation import GraphWarning, warn

__all__ = []

UNLABELED = -1


def _is_unlabeled_value(v):
    if v is None:
        return True
    if isinstance(v, (float, np.floating)) and np.isnan(v):
        return True
    if isinstance(v, (int, np.integer, float, np.floating)) and not isinstance(v, (bool, np.bool_)):
        return v == UNLABELED
    if isinstance(v, str):
        return v == "-1" or v == ""
    return False


def split_classification_labels(y, n_samples, name="y"):
    """Return ``(labeled_mask, classes, codes)`` for a semi-supervised target.

    ``codes[i]`` is the index into ``classes`` of labeled sample i (-1 where
    unlabeled).  Unlabeled: -1 (int or float), NaN, None, or the strings
    "-1" and "" in a string/object array.

    Raises ValueError for a wrong length, no labeled sample, or a 2-D y.
    """
    y = np.asarray(y)
    if y.ndim == 2 and y.shape[1] == 1:
        y = y.ravel()
    if y.ndim != 1:
        raise ValueError(f"{name} must be 1-D with one entry per sample; got shape {y.shape}.")
    if y.shape[0] != n_samples:
        raise ValueError(
            f"{name} has {y.shape[0]} entries but there are {n_samples} samples; "
            "give one label per sample, -1 (or NaN) for unlabeled ones."
        )
    if y.dtype.kind in "iub":
        labeled = y != UNLABELED
    elif y.dtype.kind == "f":
        labeled = ~(np.isnan(y) | (y == UNLABELED))
        if np.isinf(y).any():
            raise ValueError(f"{name} contains infinity.")
    else:
        labeled = ~np.fromiter((_is_unlabeled_value(v) for v in y), dtype=bool, count=y.shape[0])
    if not labeled.any():
        raise ValueError(f"{name} has no labeled samples: every entry is -1/NaN. Label at least one sample per class.")
    values = y[labeled]
    if y.dtype == object:
        # Mixed types cannot be sorted; keep first-appearance order then.
        try:
            classes = np.unique(values)
        except TypeError:
            seen = dict.fromkeys(values.tolist())
            classes = np.array(list(seen), dtype=object)
    else:
        classes = np.unique(values)
    codes = np.full(n_samples, -1, dtype=np.int64)
    if y.dtype == object:
        lookup = {c: i for i, c in enumerate(classes.tolist())}
        codes[labeled] = [lookup[v] for v in values.tolist()]
    else:
        codes[labeled] = np.searchsorted(classes, values)
    return labeled, classes, codes


def split_regression_targets(y, n_samples, name="y"):
    """Return ``(labeled_mask, values)`` for a semi-supervised regression target.

    NaN marks an unlabeled sample (a -1 is a legitimate real value here).
    Targets may be (n,) or (n, m); a row is unlabeled when all its entries are NaN.
    """
    try:
        y = np.asarray(y, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be numeric for regression (NaN for unlabeled): {exc}") from exc
    if y.ndim not in (1, 2):
        raise ValueError(f"{name} must be 1-D or 2-D; got shape {y.shape}.")
    if y.shape[0] != n_samples:
        raise ValueError(
            f"{name} has {y.shape[0]} entries but there are {n_samples} samples; "
            "give one target per sample, NaN for unlabeled ones."
        )
    if np.isinf(y).any():
        raise ValueError(f"{name} contains infinity.")
    nan = np.isnan(y)
    labeled = ~nan if y.ndim == 1 else ~nan.all(axis=1)
    if y.ndim == 2 and (nan[labeled].any()):
        raise ValueError(f"{name}: a labeled row has NaN in some but not all columns.")
    if not labeled.any():
        raise ValueError(f"{name} has no labeled samples: every entry is NaN.")
    return labeled, y


def one_hot(codes, n_classes, dtype=np.float64):
    """(n_labeled, n_classes) indicator matrix of class codes (all >= 0)."""
    Y = np.zeros((codes.shape[0], n_classes), dtype=dtype)
    Y[np.arange(codes.shape[0]), codes] = 1.0
    return Y


def _check_labeled_index(labeled, n):
    labeled = np.asarray(labeled)
    if labeled.dtype == bool:
        if labeled.shape != (n,):
            raise ValueError(f"a boolean labeled mask must have shape ({n},); got {labeled.shape}.")
        idx = np.flatnonzero(labeled)
    else:
        if labeled.ndim != 1 or not (np.issubdtype(labeled.dtype, np.integer) or labeled.size == 0):
            raise TypeError("labeled must be a 1-D array of node indices or a boolean mask of length n.")
        idx = labeled.astype(np.int64)
        if idx.size and (idx.min() < 0 or idx.max() >= n):
            raise ValueError(f"labeled indices must lie in [0, {n}); got range [{idx.min()}, {idx.max()}].")
        if np.unique(idx).size != idx.size:
            raise ValueError("labeled indices must be distinct.")
    if idx.size == 0:
        raise ValueError("labeled is empty: at least one node must be labeled.")
    return idx


def _check_targets(Y, l):
    Y = np.asarray(Y)
    if Y.dtype == object or not (np.issubdtype(Y.dtype, np.number) or Y.dtype == bool):
        raise TypeError(f"Y must be a numeric array; got dtype {Y.dtype}.")
    if Y.ndim not in (1, 2):
        raise ValueError(f"Y must have shape (l,) or (l, m); got shape {Y.shape}.")
    out_dtype = np.dtype(np.float32) if Y.dtype == np.float32 else np.dtype(np.float64)
    was_1d = Y.ndim == 1
    Y2 = np.asarray(Y, dtype=np.float64).reshape(Y.shape[0], -1)
    if Y2.shape[0] != l:
        raise ValueError(f"Y must have one row per labeled node ({l}); got {Y2.shape[0]}.")
    if Y2.shape[1] == 0:
        raise ValueError("Y has no columns.")
    if not np.isfinite(Y2).all():
        raise ValueError("Y contains NaN or infinity.")
    return Y2, was_1d, out_dtype


def label_free_mask(W, labeled_idx):
    """Boolean mask of the nodes whose connected component holds no labeled node.

    ``W`` is a sparse adjacency already checked by the caller (the public
    entry point is :func:`graphrkhs.unlabeled_components`).
    """
    W = sp.csr_array(W)
    _, comp = csgraph.connected_components(W, directed=False)
    has_label = np.zeros(comp.max() + 1, dtype=bool)
    has_label[comp[np.asarray(labeled_idx, dtype=np.int64)]] = True
    return ~has_label[comp]


def _orphans(W, S, Y2, F):
    """Fill nodes of label-free components with the target mean; return their mask."""
    orphan = label_free_mask(W, S)
    if orphan.any():
        warn(f"{int(orphan.sum())} node(s) lie in connected components without any labeled node; "
             "they get the mean of the labeled targets (the class prior).", GraphWarning, stacklevel=4)
        F[orphan] = Y2.mean(axis=0)
    return orphan



#: Relative weight below which an edge counts as a *weak link* (:func:`cut_weak_links`):
#: an edge (i, j) with :math:`w_{ij} \le 10^{-10} \min(d_i, d_j)`, i.e. a random walk crosses
#: it with probability at most 1e-10 from either end.  A part of the graph attached only by
#: such edges makes the Laplacian systems of Laplace / Poisson learning ill-conditioned by
#: a factor of at least 1e10 (their smallest eigenvalue is at most the cut weight over the
#: part's volume): more than 10 of float64's 16 digits are lost, and at 1e-16 the direct
#: factorization is exactly singular and CG drifts to scores of 1e16 - 1e32.  Degrees, not
#: the largest weight, set the scale, so a far outlier whose few edges are all tiny (but
#: carry all of its degree) is *not* cut off.
WEAK_EDGE_RTOL = 1e-10


def weak_link_split(W, rtol=WEAK_EDGE_RTOL):
    """Components of the graph without its weak links: ``(W_strong, n_affected)``.

    ``W_strong`` is ``W`` without the edges :math:`w_{ij} \\le` ``rtol``
    :math:`\\min(d_i, d_j)` *if* dropping them splits a connected component
    (then ``n_affected`` counts the nodes outside the largest piece of each
    split component), else ``W`` itself and 0.  Cost: one pass over the
    edges and two connected-components searches.
    """
    W = sp.csr_array(W)
    d = np.asarray(abs(W).sum(axis=1)).ravel()
    C = sp.coo_array(W)
    weak = (C.row != C.col) & (np.abs(C.data) <= rtol * np.minimum(d[C.row], d[C.col]))
    if not weak.any():
        return W, 0
    keep = ~weak
    Ws = sp.csr_array((C.data[keep], (C.row[keep], C.col[keep])), shape=W.shape)
    n_all, comp_all = csgraph.connected_components(W, directed=False)
    n_strong, comp_strong = csgraph.connected_components(Ws, directed=False)
    if n_strong == n_all:
        return W, 0
    size = np.bincount(comp_strong, minlength=n_strong)
    # Each strong piece lies in one original component: keep the largest piece's size per component.
    parent = np.zeros(n_strong, dtype=np.int64)
    parent[comp_strong] = comp_all
    largest = np.zeros(n_all, dtype=np.int64)
    np.maximum.at(largest, parent, size)
    n_affected = int(W.shape[0] - largest.sum())
    return Ws, n_affected


def cut_weak_links(W, stacklevel=5):
    """:func:`weak_link_split` with the :class:`GraphWarning` of the documented fallback.

    Returns the graph to solve on (``W`` itself when nothing is weakly attached).
    """
    Ws, n_affected = weak_link_split(W)
    if n_affected:
        warn(f"the graph is nearly disconnected: {n_affected} node(s) are attached to the rest of their component "
             f"only through edges of relative weight <= {WEAK_EDGE_RTOL:g} (w_ij <= {WEAK_EDGE_RTOL:g} min(d_i, "
             "d_j)), which would make the linear system singular to working precision. Those edges are dropped: "
             "each weakly attached part is treated as its own component (solved on its own if it holds labeled "
             "nodes, else given the mean of the labeled targets, the class prior).", GraphWarning,
             stacklevel=stacklevel)
    return Ws
