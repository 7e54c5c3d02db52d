"""Type aliases of the public API (annotations only; nothing here is checked at run time).

Shared by every layer, so they live in ``_core``.  The graph forms that
:func:`graphrkhs.as_adjacency` accepts include pygsp and networkx graphs;
static type checkers see them, while at run time (where importing those
packages would only slow ``import graphrkhs`` down) they are left open.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Literal, Sequence, Union

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp
import scipy.sparse.linalg as spla

__all__ = []

#: Anything :func:`numpy.asarray` turns into an array.
ArrayLike = npt.ArrayLike

#: Node or point indices (int array) or a boolean mask.
Indices = npt.ArrayLike

#: A SciPy sparse matrix or array of any format.
SparseMatrix = Union[sp.sparray, sp.spmatrix]

#: A square matrix or operator: sparse, dense, or a LinearOperator.
MatrixOrOperator = Union[SparseMatrix, npt.ArrayLike, spla.LinearOperator]

if TYPE_CHECKING:  # pragma: no cover
    import networkx
    import pygsp

    #: Every graph form :func:`graphrkhs.as_adjacency` accepts.
    GraphLike = Union[SparseMatrix, npt.ArrayLike, pygsp.graphs.Graph, networkx.Graph]
else:
    GraphLike = Union[SparseMatrix, npt.ArrayLike, Any]

#: A dtype argument that selects the float precision (None keeps the input's).
FloatDType = Union[None, type, str, np.dtype]

#: A random state: an int seed, None or a NumPy Generator / RandomState.
RandomStateLike = Union[None, int, np.random.Generator, np.random.RandomState]

#: A spectral response: a :class:`graphrkhs.filters.Filter` or a callable on eigenvalues.
ResponseLike = Callable[[np.ndarray], Any]

#: One response or a bank of them (a list evaluated in one recurrence).
ResponseBank = Union[ResponseLike, Sequence[ResponseLike]]

#: A point-cloud kernel by name, or a callable on two point blocks returning their kernel matrix.
KernelName = Union[Literal["gaussian", "heat", "linear", "polynomial"], Callable[[np.ndarray, np.ndarray], Any]]

LaplacianKind = Literal["combinatorial", "normalized", "randomwalk"]
SymmetricLaplacianKind = Literal["combinatorial", "normalized"]
Reorder = Union[Literal["auto"], bool]
Backend = Literal["auto", "numpy", "numba", "scipy", "mpi", "dask"]

#: A dense or sparse matrix.
MatrixLike = Union[np.ndarray, SparseMatrix]

#: A matrix or a matrix-free LinearOperator (kernel operators with ``matmat`` are accepted too).
OperatorLike = Union[np.ndarray, SparseMatrix, spla.LinearOperator]

#: A real scalar.
Float = Union[float, np.floating]
