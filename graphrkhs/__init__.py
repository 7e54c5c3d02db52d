"""graphrkhs: learning on graphs with reproducing-kernel Hilbert spaces.

One package per layer; data flows one way, down this list (a lower layer
never imports a higher one; the contract is checked in CI):

* :mod:`graphrkhs.graphs` -- kNN and epsilon graphs, Laplacians, conversions;
* :mod:`graphrkhs.spectral` -- spectral responses (:mod:`graphrkhs.filters`), ``lmax``,
  Chebyshev / Lanczos / exact evaluation of phi(L) X;
* :mod:`graphrkhs.kernels` -- graph kernels phi(L), point-cloud kernels, data-dependent kernels;
* :mod:`graphrkhs.solvers` -- the numerical solvers behind every learner (plain functions);
* :mod:`graphrkhs.distributed` -- MPI and Dask backends of the ``backend=`` switch;
* :mod:`graphrkhs.estimators` -- scikit-learn estimators (transductive, inductive, data-dependent);
* :mod:`graphrkhs.cli` -- ``graphrkhs demo`` and ``graphrkhs label``;
* :mod:`graphrkhs.datasets` -- the papers' synthetic data and loaders.

Below them all, the private :mod:`graphrkhs._core` holds validation, label
encoding, progress reporting and the shared linear algebra.  The old module
paths :mod:`graphrkhs.transductive`, :mod:`graphrkhs.semisupervised` and
:mod:`graphrkhs.filters` remain as aliases.  The public names of every layer
are re-exported here; ``graphrkhs.__all__`` lists them.
"""

__version__ = "0.1.0"

import logging as _logging

# Library code never prints; the application decides where records go.
_logging.getLogger("graphrkhs").addHandler(_logging.NullHandler())

from ._core.validation import (  # noqa: E402
    AccuracyWarning,
    ConvergenceWarning,
    GraphRKHSWarning,
    GraphWarning,
)
from . import graphs  # noqa: E402
from .graphs import *  # noqa: E402,F401,F403
from . import spectral  # noqa: E402
from .spectral import *  # noqa: E402,F401,F403
from .spectral import filters  # noqa: E402
from . import kernels  # noqa: E402
from .kernels import *  # noqa: E402,F401,F403
from . import solvers  # noqa: E402
from .solvers import *  # noqa: E402,F401,F403
# Registers the "mpi" and "dask" backends of the backend= switch (imports neither mpi4py nor dask).
from . import distributed  # noqa: E402,F401
from . import estimators  # noqa: E402
from .estimators import *  # noqa: E402,F401,F403
from . import datasets, semisupervised, transductive  # noqa: E402,F401

__all__ = list(dict.fromkeys(
    ["GraphRKHSWarning", "ConvergenceWarning", "AccuracyWarning", "GraphWarning",
     "filters", "datasets", "__version__"]
    + graphs.__all__
    + spectral.__all__
    + kernels.__all__
    + solvers.__all__
    + estimators.__all__
))
