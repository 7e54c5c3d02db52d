r"""Distributed backends: the same numerics on MPI ranks (and Dask workers).

Layer: above :mod:`graphrkhs.solvers`, below :mod:`graphrkhs.estimators`.
The entry points of the lower layers take ``backend="auto" | "numpy" | "mpi" |
"dask"`` and dispatch through the registry of :mod:`graphrkhs._core.backend`;
importing this package registers the implementations (and imports neither
mpi4py nor dask until they are used).

* :mod:`._comm` -- the communication layer (:class:`Communicator`:
  allreduce, broadcast, row gathers, halo exchange) with a serial and an MPI
  implementation;
* :mod:`._partition` -- METIS (or RCM-block) partitioning and the
  :class:`PartitionPlan` (owned rows, ghost rows, send lists);
* :mod:`._csr` -- :class:`DistributedCSR`, the row-distributed operator the
  serial Chebyshev recurrence and CG run on unchanged;
* :mod:`._mpi` -- the ``"mpi"`` backend (registered here);
* :mod:`._dask` -- the ``"dask"`` backend (registered when imported, here):
  row blocks held by the workers of a ``distributed.Client``;
* :mod:`._knn` -- :func:`distributed_knn_graph`, exact kNN search cell by
  cell (k-means or recursive coordinate bisection) with a halo pass; the
  cells double as the graph partition;
* :mod:`._laplacian` -- Laplacians built by row blocks
  (``laplacian(W, kind, backend="mpi" | "dask")``);
* :func:`run_mpi` -- run a script under ``mpiexec`` from a notebook.
"""

from .._core.backend import register_backend
from ._comm import Communicator, HaloExchange, MPIComm, SerialComm, mpi_world_size, world
from ._partition import PartitionPlan, partition_graph, partition_plan
from ._csr import DistributedCSR
from ._mpi import MPIBackend, block_jacobi_amg, distributed_cg, distributed_chebyshev_filter, distributed_lmax
from ._launch import run_mpi
from ._dask import DaskBackend, DaskOperator, dask_conjugate_gradient, get_dask_client
from ._knn import KNNCells, distributed_knn_graph, edge_recall, fit_cells
from ._laplacian import dask_laplacian, mpi_laplacian, row_blocks

register_backend(MPIBackend())

__all__ = [
    "Communicator",
    "SerialComm",
    "MPIComm",
    "HaloExchange",
    "world",
    "mpi_world_size",
    "PartitionPlan",
    "partition_graph",
    "partition_plan",
    "DistributedCSR",
    "MPIBackend",
    "block_jacobi_amg",
    "distributed_cg",
    "distributed_chebyshev_filter",
    "distributed_lmax",
    "run_mpi",
    "DaskBackend",
    "DaskOperator",
    "dask_conjugate_gradient",
    "get_dask_client",
    "KNNCells",
    "distributed_knn_graph",
    "edge_recall",
    "fit_cells",
    "mpi_laplacian",
    "dask_laplacian",
    "row_blocks",
]
