"""graphrkhs: learning on graphs with reproducing-kernel Hilbert spaces.

Layers (each imports only the ones above it):

* :mod:`graphrkhs.graphs` -- kNN and epsilon graphs, Laplacians, ``lmax``, conversions;
* :mod:`graphrkhs.filters` -- spectral responses phi(lambda) (heat, regularized Laplacian, ...);
* :mod:`graphrkhs.spectral` -- Chebyshev / Lanczos / exact evaluation of phi(L) X;
* :mod:`graphrkhs.kernels` -- graph kernels phi(L), point-cloud kernels, data-dependent kernels;
* :mod:`graphrkhs.solvers` -- the numerical solvers behind every learner (plain functions);
* :mod:`graphrkhs.transductive`, :mod:`graphrkhs.semisupervised` -- scikit-learn estimators;
* :mod:`graphrkhs.datasets` -- the papers' synthetic data and loaders.

The public names of every module are re-exported here; ``graphrkhs.__all__``
lists them.
"""

__version__ = "0.1.0"

from . import _validation
from ._validation import AccuracyWarning, ConvergenceWarning, GraphRKHSWarning, GraphWarning
from . import graphs
from .graphs import *  # noqa: F401,F403
from . import filters
from . import spectral
from .spectral import *  # noqa: F401,F403
from . import kernels
from .kernels import *  # noqa: F401,F403
from . import solvers
from .solvers import *  # noqa: F401,F403
from . import transductive
from .transductive import *  # noqa: F401,F403
from . import semisupervised
from .semisupervised import *  # noqa: F401,F403
from . import datasets

__all__ = (
    ["GraphRKHSWarning", "ConvergenceWarning", "AccuracyWarning", "GraphWarning",
     "filters", "datasets", "__version__"]
    + graphs.__all__
    + spectral.__all__
    + kernels.__all__
    + solvers.__all__
    + transductive.__all__
    + semisupervised.__all__
)
