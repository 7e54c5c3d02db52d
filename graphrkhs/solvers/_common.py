"""Input handling shared by the graph solvers (harmonic, Tikhonov, Poisson, kernel ridge, TV)."""

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from .._core.labels import _check_labeled_index, _check_targets, cut_weak_links
from ..graphs import as_adjacency


def labeled_graph_problem(W, labeled, Y, cut_weak=False):
    """The checked inputs of a transductive problem: ``(W, S, Y2, was_1d, out_dtype)``.

    ``W`` as a float64 sparse adjacency (any graph form), ``S`` the labeled
    node indices, ``Y2`` the (l, m) float64 targets, whether ``Y`` was 1-D,
    and the dtype of the results (float32 for float32 targets, else float64).
    ``cut_weak``: drop the weak links that nearly disconnect the graph, with a
    :class:`~graphrkhs.GraphWarning` (:func:`graphrkhs._core.labels.cut_weak_links`;
    for the Laplacian systems, which they make singular to working precision).
    """
    W = as_adjacency(W, dtype=np.float64)
    S = _check_labeled_index(labeled, W.shape[0])
    Y2, was_1d, out_dtype = _check_targets(Y, S.size, W.shape[0])
    if cut_weak:
        W = cut_weak_links(W)
    return W, S, Y2, was_1d, out_dtype


def check_normal_degrees(W, solver):
    """ValueError naming W when every degree of W is subnormal (below float64's smallest normal number,
    2.2e-308): the reciprocal of the largest degree (a heat step, a Jacobi preconditioner) overflows,
    and the Laplacian systems are singular to working precision.  The solvers that call this do not
    depend on the scale of W (up to their documented parameters), so the fix is to scale W up."""
    if W.nnz == 0:
        return
    d_max = float(np.asarray(abs(W).sum(axis=1)).max())
    if 0 < d_max < np.finfo(np.float64).tiny:
        raise ValueError(f"W's edge weights are subnormal: its largest degree {d_max:.3g} is below float64's smallest "
                         f"normal number ({np.finfo(np.float64).tiny:.3g}), and {solver} cannot divide by it (the "
                         "reciprocal overflows). Multiply W by a positive constant, e.g. W / W.max().")


def spd_splu(A):
    """SuperLU factors of a sparse SPD matrix scaled to unit diagonal, with a symmetric fill-reducing
    ordering (minimum degree on A + A^T) and no pivoting.

    SuperLU's default column ordering (COLAMD) is made for unsymmetric matrices: on the Laplacian
    systems of kNN graphs it filled about twice as much (5.4 M against 2.8 M entries of L + U on 4000
    unknowns, d = 5) and took 2.8-5x longer (5000 nodes, d = 64: 13.8 s against 2.7 s).  Diagonal
    pivoting is stable on an SPD matrix with unit diagonal.  SuperLU's "Factor is exactly singular"
    comes back as its RuntimeError; the callers check their residuals.
    """
    return spla.splu(sp.csc_matrix(A), permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0.0,
                     options={"SymmetricMode": True})
