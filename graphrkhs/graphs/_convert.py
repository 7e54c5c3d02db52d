"""One conversion of every graph form to a CSR adjacency, and conversions out."""

from __future__ import annotations

import decimal
import math
import numbers
from typing import TYPE_CHECKING

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from .._core.linalg import symmetry_gap, symmetry_rtol as _rounding_rtol
from .._core.types import FloatDType, GraphLike
from .._core.validation import check_dtype, check_scalar, native_byte_order, sparse_storable, warn, GraphWarning

if TYPE_CHECKING:  # pragma: no cover
    import networkx
    import pygsp


__all__ = [
    "as_adjacency",
    "to_pygsp",
    "to_networkx",
]


def _output_dtype(dtype, input_dtype):
    dtype = check_dtype(dtype)
    if dtype is not None:
        return dtype
    return np.dtype(np.float32) if input_dtype == np.float32 else np.dtype(np.float64)


def as_adjacency(G: GraphLike, *, dtype: FloatDType = None, symmetry_rtol: float | None = None) -> sp.csr_array:
    r"""Convert any supported graph form to a validated CSR adjacency matrix.

    Parameters
    ----------
    G : scipy sparse matrix/array, ndarray, pygsp.graphs.Graph or networkx.Graph
        The weighted adjacency.  A networkx graph is read with its edge
        attribute ``"weight"`` (1 where absent), rows in ``G.nodes`` order;
        the parallel edges of a multigraph add their weights (as networkx's
        ``to_scipy_sparse_array`` and ``laplacian_matrix``).
    dtype : {None, float32, float64}
        None keeps float32 input as float32 and uses float64 otherwise
        (integer, boolean and float16 input is upcast to float64; scipy.sparse
        cannot hold float16).
    symmetry_rtol : float >= 0, optional
        Relative tolerance of the symmetry check, scaled by the largest
        weight; default 1e-10 for float64 and 1e-5 for float32 input (1e-2
        for float16), whatever ``dtype`` (a float32 adjacency read in float64
        keeps its float32 rounding; a float64 one cast to float32 is checked
        at float32's).  An adjacency within tolerance is symmetrized exactly
        as :math:`(W + W^T)/2`.

    Warns
    -----
    GraphWarning
        When the cast to ``dtype`` turns positive weights into 0 (below
        float32's smallest subnormal, about 1.4e-45): those edges are dropped.

    Returns
    -------
    W : scipy.sparse.csr_array
        A copy (the input is never modified): symmetric, non-negative, finite,
        zero diagonal, explicit zeros removed, sorted indices.

    Raises
    ------
    TypeError
        For an unsupported type (including a LinearOperator, a directed
        networkx graph and a numpy masked array or a list of masked rows,
        whose mask would be lost: pass ``W.filled(0)``), or a networkx edge
        weight that is not a real number (a string such as ``"2"`` is not
        parsed; ``int``, ``float``, ``fractions.Fraction``,
        ``decimal.Decimal`` and NumPy real scalars are read as their
        nearest float64).
    ValueError
        For a non-square, empty, non-finite, negative or asymmetric matrix,
        or a networkx edge weight that is finite but beyond float64's range.

    Notes
    -----
    Self-loops are removed with a :class:`GraphWarning`: they do not change the
    combinatorial Laplacian :math:`D - W` but would distort the normalized one.

    Examples
    --------
    >>> import networkx as nx
    >>> from graphrkhs import as_adjacency
    >>> as_adjacency(nx.path_graph(3)).toarray()
    array([[0., 1., 0.],
           [1., 0., 1.],
           [0., 1., 0.]])
    """
    # NaN would switch the symmetry check off (gap > NaN is False), a negative value fail every matrix
    symmetry_rtol = check_scalar(symmetry_rtol, "symmetry_rtol", low=0, allow_none=True)
    # the precision the weights were given in (before _to_sparse upcasts float16): its rounding is no asymmetry
    given = getattr(G, "dtype", None)
    W = _to_sparse(G)
    if W.ndim != 2 or W.shape[0] != W.shape[1]:
        raise ValueError(f"the adjacency must be square (n, n); got shape {W.shape}.")
    if W.shape[0] == 0:
        raise ValueError("the adjacency is empty (0 nodes).")
    if W.dtype == bool or np.issubdtype(W.dtype, np.integer):
        W = W.astype(np.float64)
    if np.issubdtype(W.dtype, np.complexfloating) or not np.issubdtype(W.dtype, np.floating):
        raise TypeError(f"the adjacency must hold real weights; got dtype {W.dtype}.")
    target = check_dtype(dtype) or (np.dtype(np.float32) if W.dtype == np.float32 else np.dtype(np.float64))
    source = W.dtype
    if source.itemsize > target.itemsize and W.nnz:
        # weights below half the smallest subnormal of target become 0 in the cast: those edges vanish
        with np.errstate(over="ignore", under="ignore"):
            src = W.data
            lost = int(np.count_nonzero((src != 0) & (src.astype(target) == 0)))
        if lost:
            smallest = float(np.abs(src[src != 0]).min())
            warn(f"{lost} of {W.nnz} stored weights of the adjacency (down to {smallest:.3g}) underflow to 0 in "
                 f"dtype={target.name}; those edges are dropped.  Rescale W (the normalized Laplacians do "
                 "not depend on its scale) or pass dtype=float64 to keep them.", GraphWarning)
    with np.errstate(over="ignore"):      # a cast to float32 that overflows is reported below
        W = sp.csr_array(W, dtype=target, copy=True)
        W.sum_duplicates()
    if not np.isfinite(W.data).all():
        G_data = _to_sparse(G).data if source != target else W.data
        if source != target and np.isfinite(G_data).all():
            raise ValueError(f"the adjacency's weights (up to {float(np.abs(G_data).max()):g}) do not fit "
                             f"{target.name}; rescale W (the normalized Laplacians do not depend on its scale) "
                             "or use dtype=float64.")
        raise ValueError("the adjacency has NaN or infinite weights; weights must be finite.")
    if (W.data < 0).any():
        raise ValueError(
            f"the adjacency has negative weights (min {W.data.min():g}); graph weights must be >= 0."
        )
    W.eliminate_zeros()
    W = _drop_self_loops(W, "the adjacency")
    # the coarser of the given, source and target precisions: a float32 matrix asymmetric by its rounding
    # (6e-8 of its largest weight) read with dtype=float64 -- as every solver reads W -- was refused as
    # "not symmetric" at float64's 1e-10, while laplacian(W) accepted it
    precisions = [source, target] + ([np.dtype(given)] if isinstance(given, np.dtype) else [])
    rtol = symmetry_rtol if symmetry_rtol is not None else max(_rounding_rtol(t) for t in precisions)
    if W.nnz:
        WT = W.T.tocsr()
        gap, scale = symmetry_gap(W, "G", transpose=WT)    # scale = max W (weights >= 0 here)
        if gap > rtol * scale:
            raise ValueError(
                f"the adjacency is not symmetric (max |W - W.T| = {gap:.3g}); symmetrize it first, e.g. "
                "graphrkhs.symmetrize(W, 'union') (max of both directions), 'mutual' (min) or "
                "'average' ((W + W.T) / 2)."
            )
        if gap > 0:
            W = _mean_of_directions(W, WT)
            W.eliminate_zeros()
    W.sort_indices()
    return W


def _mean_of_directions(W, WT):
    """(W + W^T) / 2 without overflow: the sum is inf for weights above max/2, then each half is summed.

    The plain form first: halving each term first would lose the last bit of odd subnormal weights.
    """
    with np.errstate(over="ignore"):
        S = (W + WT) * 0.5
    if S.nnz and not np.isfinite(S.data).all():
        S = W * 0.5 + WT * 0.5
    return sp.csr_array(S)


def _drop_self_loops(W, what):
    """W (a CSR array, modified in place) without its diagonal, with a :class:`GraphWarning` if it had one.

    Graphs here have a zero diagonal: a self-loop does not change the combinatorial
    Laplacian D - W but distorts the normalized and random-walk ones.
    """
    if W.nnz and W.diagonal().any():
        warn(f"{what} has self-loops; they were removed (graphs here have a zero diagonal).", GraphWarning)
        W.setdiag(0)
        W.eliminate_zeros()
    return W


def _beyond_float64(w):
    """Whether an exact number (int, Fraction, Decimal) is finite but has no finite float64 (``float(w)``
    overflows: an ``OverflowError`` for int and Fraction, inf for Decimal)."""
    if isinstance(w, decimal.Decimal) and not w.is_finite():
        return False        # an infinite or NaN weight: the finiteness check names it
    try:
        return math.isinf(float(w))
    except OverflowError:
        return True


def _scientific(w):
    """An exact number (int, Fraction, Decimal) in scientific notation with 4 digits, at any magnitude."""
    d = w if isinstance(w, decimal.Decimal) else decimal.Decimal(w.numerator) / decimal.Decimal(w.denominator)
    return format(d, ".3e")


def _to_sparse(G):
    if isinstance(G, spla.LinearOperator):
        raise TypeError("a LinearOperator cannot be used as a graph; pass the adjacency matrix itself.")
    if sp.issparse(G):
        G = native_byte_order(G)          # scipy.sparse's own operations refuse big-endian data
        if G.dtype == bool or np.issubdtype(G.dtype, np.integer):
            # before the CSR conversion, which sums duplicate COO entries in the input's dtype
            # (uint8 200 + 100 would wrap around to 44)
            G = G.astype(np.float64)
        return sp.csr_array(G)
    module = type(G).__module__ or ""
    if module.startswith("pygsp"):
        W = getattr(G, "W", None)
        if W is None:
            raise TypeError("this pygsp object has no adjacency matrix W.")
        return sp.csr_array(W)
    if module.startswith("networkx"):
        import networkx as nx

        if G.is_directed():
            raise TypeError(
                "a directed networkx graph is not supported; convert it with G.to_undirected() "
                "(or symmetrize the adjacency with graphrkhs.symmetrize)."
            )
        if G.number_of_nodes() == 0:
            raise ValueError("the networkx graph has no nodes.")
        # a multigraph keeps its parallel edges: to_scipy_sparse_array sums their weights (networkx's
        # adjacency and Laplacian of a multigraph); nx.Graph(G) kept only the last one, silently
        for u, v, w in G.edges(data="weight", default=1):
            # networkx's float64 conversion parses the string "2" (and [2.0]) as the weight 2.0, silently
            # decimal.Decimal is a real number that numbers.Real leaves out: read, as a Fraction is, as its
            # correctly rounded float64 (the precision every adjacency is read in)
            if not isinstance(w, (numbers.Real, decimal.Decimal, np.integer, np.floating, np.bool_)):
                raise TypeError(f"G: the networkx edge attribute 'weight' must be a real number on every edge; "
                                f"edge ({u!r}, {v!r}) has {w!r} of type {type(w).__name__}.  Store real numbers as "
                                "weights (int, float, Fraction, Decimal or a NumPy real scalar); a string is not "
                                "parsed: convert it with float(w).")
            if isinstance(w, (numbers.Rational, decimal.Decimal)) and _beyond_float64(w):
                raise ValueError(f"G: the networkx edge ({u!r}, {v!r}) has the weight {_scientific(w)}, finite but beyond "
                                 "float64's range (about 1.8e308), in which every adjacency is read; divide the "
                                 "weights by a common factor (the Laplacian's eigenvectors do not change).")
        try:
            return sp.csr_array(nx.to_scipy_sparse_array(G, weight="weight", format="csr", dtype=np.float64))
        except (TypeError, ValueError) as exc:     # an edge attribute "weight" that is not a number
            raise TypeError(f"G: the networkx edge attribute 'weight' must be a real number on every edge "
                            f"({exc}); fix or remove the non-numeric weights.") from None
    # a list or tuple of masked rows too: np.asarray stacks their data into a plain array
    if isinstance(G, np.ma.MaskedArray) or (isinstance(G, (list, tuple))
                                            and any(isinstance(row, np.ma.MaskedArray) for row in G)):
        raise TypeError("the adjacency is a numpy masked array (or a list of masked rows); its mask would be "
                        "ignored (np.asarray drops it) and the masked weights read as edges: pass W.filled(0) "
                        "(masked entries as no edge) or an unmasked array.")
    if isinstance(G, np.ndarray) or isinstance(G, (list, tuple)):
        arr = np.asarray(G)
        if arr.dtype == object or not (np.issubdtype(arr.dtype, np.number) or arr.dtype == bool):
            # strings and objects would reach scipy.sparse, whose dtype error does not say which
            # argument is wrong
            raise TypeError(f"the adjacency array must be numeric; got dtype {arr.dtype}.")
        if arr.ndim != 2:
            raise ValueError(f"the adjacency must be a 2-D (n, n) array; got {arr.ndim}-D.")
        return sp.csr_array(sparse_storable(arr))      # float16 -> float64, as integers and booleans
    raise TypeError(
        "graph must be a scipy sparse matrix or array, a dense numpy array, a pygsp.graphs.Graph or a "
        f"networkx.Graph; got {type(G).__module__}.{type(G).__name__}."
    )


def to_pygsp(W: GraphLike) -> pygsp.graphs.Graph:
    """A :class:`pygsp.graphs.Graph` on the adjacency ``W`` (any graph form).

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import to_pygsp
    >>> to_pygsp(np.array([[0., 2.], [2., 0.]])).N
    2
    """
    from pygsp import graphs

    return graphs.Graph(as_adjacency(W))


def to_networkx(W: GraphLike) -> networkx.Graph:
    """A :class:`networkx.Graph` with the weights of ``W`` as the edge attribute ``"weight"``.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import to_networkx
    >>> G = to_networkx(np.array([[0., 2.], [2., 0.]]))
    >>> float(G[0][1]["weight"])   # a NumPy or a Python float, depending on the networkx version
    2.0
    """
    import networkx as nx

    return nx.from_scipy_sparse_array(as_adjacency(W), edge_attribute="weight")

