"""Graph Laplacians, degrees and connected components."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from scipy.sparse import csgraph

from .._core.types import FloatDType, GraphLike, LaplacianKind
from .._core.validation import check_index_array, check_option
from .._core.labels import label_free_mask
from ._convert import as_adjacency


__all__ = [
    "laplacian",
    "degrees",
    "connected_components",
    "unlabeled_components",
]


def degrees(W: GraphLike) -> NDArray[np.floating]:
    """Weighted degrees :math:`d_i = \\sum_j w_{ij}` of any graph form."""
    W = as_adjacency(W)
    return np.asarray(W.sum(axis=1)).ravel()


def laplacian(W: GraphLike, kind: LaplacianKind = "combinatorial", *, dtype: FloatDType = None) -> sp.csr_array:
    r"""Graph Laplacian of an adjacency matrix.

    Parameters
    ----------
    W : graph
        Any form :func:`as_adjacency` accepts.
    kind : {"combinatorial", "normalized", "randomwalk"}, default="combinatorial"
        :math:`D - W`, :math:`I - D^{-1/2} W D^{-1/2}` or :math:`I - D^{-1} W`.
    dtype : {None, float32, float64}
        As in :func:`as_adjacency`.

    Returns
    -------
    L : scipy.sparse.csr_array
        Symmetric for the first two kinds.  Rows (and columns) of isolated
        nodes are zero in every kind: the normalized forms use
        :math:`d_i^{-1/2} = 0` and put 0, not 1, on their diagonal.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import laplacian
    >>> laplacian(np.array([[0., 1.], [1., 0.]])).toarray()
    array([[ 1., -1.],
           [-1.,  1.]])
    """
    check_option(kind, "kind", LAPLACIANS)
    W = as_adjacency(W, dtype=dtype)
    n = W.shape[0]
    d = np.asarray(W.sum(axis=1)).ravel()
    connected = (d > 0).astype(W.dtype)
    if kind == "combinatorial":
        L = sp.diags_array(d.astype(W.dtype)) - W
    elif kind == "normalized":
        inv_sqrt = np.zeros_like(d)
        inv_sqrt[d > 0] = 1.0 / np.sqrt(d[d > 0])
        scale = sp.diags_array(inv_sqrt.astype(W.dtype))
        L = sp.diags_array(connected) - scale @ W @ scale
    else:
        inv = np.zeros_like(d)
        inv[d > 0] = 1.0 / d[d > 0]
        L = sp.diags_array(connected) - sp.diags_array(inv.astype(W.dtype)) @ W
    L = sp.csr_array(L, dtype=W.dtype)
    L.sort_indices()
    assert L.shape == (n, n)
    return L


def connected_components(W: GraphLike) -> tuple[int, NDArray[np.integer]]:
    """Connected components of an (undirected) graph.

    Returns
    -------
    n_components : int
    labels : ndarray of shape (n,)
        Component index of each node.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import connected_components
    >>> connected_components(np.array([[0., 1, 0], [1, 0, 0], [0, 0, 0]]))
    (2, array([0, 0, 1], dtype=int32))
    """
    W = as_adjacency(W)
    return csgraph.connected_components(W, directed=False)


LAPLACIANS = ("combinatorial", "normalized", "randomwalk")


def unlabeled_components(W: GraphLike, labeled_idx: ArrayLike) -> NDArray[np.bool_]:
    """Boolean mask of the nodes whose connected component holds no labeled node.

    Parameters
    ----------
    W : graph
        Any form :func:`~graphrkhs.as_adjacency` accepts.
    labeled_idx : array of int
        Labeled nodes.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import unlabeled_components
    >>> W = np.array([[0., 1, 0], [1, 0, 0], [0, 0, 0]])
    >>> unlabeled_components(W, [0])
    array([False, False,  True])
    """
    W = as_adjacency(W)
    idx = np.asarray(labeled_idx)
    if idx.dtype == bool and idx.shape == (W.shape[0],):
        idx = np.flatnonzero(idx)
    elif idx.size == 0:
        idx = idx.astype(np.int64)  # [] reads as float64
    # an index past the end would otherwise surface as an IndexError deep inside
    check_index_array(idx.ravel(), W.shape[0], "labeled_idx")
    return label_free_mask(W, idx.ravel())
