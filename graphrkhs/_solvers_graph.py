r"""Transductive solvers on graphs (plain functions).

Notation: n nodes, S the labeled nodes, U the others, L a Laplacian,
Y_S an (l, m) block of targets (one-hot class indicators or real values).
"""

import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph

from ._iterative import amg_preconditioner, conjugate_gradient
from ._validation import GraphWarning, check_option, check_scalar, warn
from .graphs import LAPLACIANS, as_adjacency, laplacian

__all__ = ["harmonic_solution"]


def _check_labeled_index(labeled, n):
    labeled = np.asarray(labeled)
    if labeled.dtype == bool:
        if labeled.shape != (n,):
            raise ValueError(f"a boolean labeled mask must have shape ({n},); got {labeled.shape}.")
        idx = np.flatnonzero(labeled)
    else:
        if labeled.ndim != 1 or not np.issubdtype(labeled.dtype, np.integer):
            raise TypeError("labeled must be a 1-D array of node indices or a boolean mask of length n.")
        idx = labeled.astype(np.int64)
        if idx.size and (idx.min() < 0 or idx.max() >= n):
            raise ValueError(f"labeled indices must lie in [0, {n}); got range [{idx.min()}, {idx.max()}].")
        if np.unique(idx).size != idx.size:
            raise ValueError("labeled indices must be distinct.")
    if idx.size == 0:
        raise ValueError("labeled is empty: at least one node must be labeled.")
    return idx


def unlabeled_components(W, labeled_idx):
    """Boolean mask of nodes whose connected component holds no labeled node."""
    _, comp = csgraph.connected_components(W, directed=False)
    has_label = np.zeros(comp.max() + 1, dtype=bool)
    has_label[comp[labeled_idx]] = True
    return ~has_label[comp]


def harmonic_solution(W, labeled, Y, *, kind="combinatorial", rtol=1e-8, maxiter=None,
                      preconditioner="amg"):
    r"""Harmonic extension (Laplace learning, Zhu, Ghahramani & Lafferty 2003).

    Solves :math:`L_{UU} F_U = -L_{US} Y_S` with :math:`F_S = Y_S`: the limit
    :math:`\mu \to 0` of Tikhonov regularization :math:`(J + \mu L) F = J Y`.
    All columns of ``Y`` (e.g. one-hot classes) are solved in one block CG
    with one AMG hierarchy.

    Parameters
    ----------
    W : graph
        Any form :func:`~graphrkhs.as_adjacency` accepts.
    labeled : array of int or bool mask
        The labeled nodes S.
    Y : ndarray of shape (len(S),) or (len(S), m)
        Targets on S, in the order of ``labeled``.
    kind : {"combinatorial", "normalized"}, default="combinatorial"
        Laplacian kind (random-walk gives the same harmonic solution as
        combinatorial).
    rtol, maxiter
        CG stopping rule (relative residual) and iteration cap.
    preconditioner : {"amg", "jacobi", None}, default="amg"
        Smoothed-aggregation AMG (built once for all columns), diagonal, or none.

    Returns
    -------
    F : ndarray of shape (n,) or (n, m)
        Equal to ``Y`` on S.  Nodes in components without any labeled node get
        the mean of ``Y`` (the class prior for one-hot targets), with a
        :class:`~graphrkhs.GraphWarning`.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import harmonic_solution
    >>> W = np.diag(np.ones(4), 1); W = W + W.T          # path on 5 nodes
    >>> harmonic_solution(W, [0, 4], np.array([0.0, 1.0])).round(6)
    array([0.  , 0.25, 0.5 , 0.75, 1.  ])
    """
    check_option(kind, "kind", LAPLACIANS)
    check_option(preconditioner if preconditioner is not None else "none", "preconditioner",
                 ("amg", "jacobi", "none"))
    rtol = check_scalar(rtol, "rtol", low=0, low_inclusive=False)
    W = as_adjacency(W)
    n = W.shape[0]
    S = _check_labeled_index(labeled, n)
    Y = np.asarray(Y, dtype=np.float64)
    was_1d = Y.ndim == 1
    Y2 = Y.reshape(Y.shape[0], -1)
    if Y2.shape[0] != S.size:
        raise ValueError(f"Y must have one row per labeled node ({S.size}); got {Y2.shape[0]}.")
    if not np.isfinite(Y2).all():
        raise ValueError("Y contains NaN or infinity.")
    lap_kind = "combinatorial" if kind == "randomwalk" else kind
    L = laplacian(W, lap_kind)
    F = np.empty((n, Y2.shape[1]))
    F[S] = Y2
    orphan = unlabeled_components(W, S)
    if orphan.any():
        warn(f"{int(orphan.sum())} node(s) lie in connected components without any labeled node; "
             "they get the mean of the labeled targets (the class prior).", GraphWarning)
        F[orphan] = Y2.mean(axis=0)
    is_free = np.ones(n, dtype=bool)
    is_free[S] = False
    is_free &= ~orphan
    U = np.flatnonzero(is_free)
    if U.size:
        L_UU = sp.csr_array(L[U][:, U])
        rhs = -(L[U][:, S] @ Y2)
        M = None
        if preconditioner == "amg":
            M = amg_preconditioner(L_UU)
        elif preconditioner == "jacobi":
            M = sp.diags_array(1.0 / L_UU.diagonal())
        F[U] = conjugate_gradient(L_UU, rhs, M=M, rtol=rtol, maxiter=maxiter).x
    return F[:, 0] if was_1d else F
