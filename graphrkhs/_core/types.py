"""Type aliases of the public signatures (annotations only; nothing here is checked at run time)."""

from typing import Any, Union

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp
import scipy.sparse.linalg as spla

__all__ = ["ArrayLike", "GraphLike", "Indices", "SparseMatrix", "MatrixLike", "OperatorLike", "Float"]

#: Anything :func:`numpy.asarray` turns into an array.
ArrayLike = npt.ArrayLike
#: A graph in any form :func:`graphrkhs.as_adjacency` takes: a sparse matrix or array, a dense
#: array, a pygsp or networkx graph.
GraphLike = Any
#: Node or point indices (int array) or a boolean mask.
Indices = npt.ArrayLike
#: A SciPy sparse matrix or array (``sparray`` exists from SciPy 1.11).
SparseMatrix = Union[sp.spmatrix, getattr(sp, "sparray", sp.spmatrix)]
#: A dense or sparse matrix.
MatrixLike = Union[np.ndarray, SparseMatrix]
#: A matrix or a matrix-free LinearOperator (kernel operators with ``matmat`` are accepted too).
OperatorLike = Union[np.ndarray, SparseMatrix, spla.LinearOperator]
#: A real scalar.
Float = Union[float, np.floating]
