"""Graphs: sparse graphs from point clouds, Laplacians and conversions.

Every graph returned here is a :class:`scipy.sparse.csr_array` that is
symmetric, non-negative, has a zero diagonal and sorted indices.  Every
function that takes a graph accepts a sparse matrix or array of any format, a
dense array, a :class:`pygsp.graphs.Graph` or a :class:`networkx.Graph`,
through :func:`as_adjacency`.

Public API
----------
knn_graph, epsilon_graph, symmetrize
    Graph construction (:mod:`graphrkhs.graphs._construct`).
laplacian, degrees, connected_components, unlabeled_components
    Laplacians and structure (:mod:`graphrkhs.graphs._laplacian`).
as_adjacency, to_pygsp, to_networkx
    Conversions (:mod:`graphrkhs.graphs._convert`).
GraphSpec
    One graph specification (kind, n_neighbors, radius, weight, sigma, mode,
    algorithm, laplacian, laplacian_power) with ``build(X)``, shared by every
    estimator that builds a graph (:mod:`graphrkhs.graphs._spec`).
"""

from ._construct import *  # noqa: F401,F403
from ._construct import __all__ as _construct_all
from ._construct import KNN_ALGORITHMS, MODES, RADIUS_ALGORITHMS, WEIGHTS  # noqa: F401
from ._convert import *  # noqa: F401,F403
from ._convert import __all__ as _convert_all
from ._laplacian import *  # noqa: F401,F403
from ._laplacian import __all__ as _laplacian_all
from ._laplacian import LAPLACIANS  # noqa: F401
# Whether the normalized Laplacian reaches 2 (a bipartite component), public here (not in __all__) for the
# kernel layer's positivity test.
from ._laplacian import bipartite_component_count  # noqa: F401
from ._spec import *  # noqa: F401,F403
from ._spec import __all__ as _spec_all

# The kNN search backends, public here (not in __all__) for the kernel layer's neighbour lists.
from ._search import KD_TREE_MAX_DIM, knn_search  # noqa: F401
# The last stage of knn_graph and its recall estimate, public here (not in __all__) for the
# cell-wise construction of graphrkhs.distributed.
from ._construct import graph_from_neighbors  # noqa: F401
from ._search import estimate_recall  # noqa: F401
# The exact searches' final squared distances and their tie rule ((distance, tie rank) order, the tie ranks
# the rows' lexicographic order), public here (not in __all__) so that the cell-wise construction of
# graphrkhs.distributed follows the same one rule.
from ._search import _ascending as ascending_rows  # noqa: F401
from ._search import _exact_rerank as exact_sq_distances  # noqa: F401
from ._search import _lexsort_rows as lexsort_rows  # noqa: F401
from ._search import _order_ties as order_ties  # noqa: F401
from ._search import tie_ranks  # noqa: F401
# The same rule for the out-of-sample lookups of new points (estimators' predict, data-dependent kernels), and
# the tie ranks computed at their first use.
from ._search import query_distances, query_in_tie_order  # noqa: F401
from ._search import _TieRanks as LazyTieRanks  # noqa: F401
# The memory estimate of a kNN search and its graph assembly, for the same check there.
from ._search import _search_bytes as knn_search_bytes  # noqa: F401
# The points whose Euclidean distances are a graph's distances under metric=, public here (not in
# __all__) for the estimators' out-of-sample neighbours.
from ._construct import _apply_metric as metric_points  # noqa: F401
# The tangent distance's re-ranking, its image-shape check and the square-image test, public here (not
# in __all__) for the estimators' default graph and out-of-sample neighbours.
from ._tangent import IMAGE_TEST_ROWS, MIN_IMAGE_SIDE, TANGENT_CANDIDATES, check_image_shape, square_image_shape, tangent_rerank  # noqa: F401,E501

__all__ = list(_construct_all) + list(_laplacian_all) + list(_convert_all) + list(_spec_all)


def __getattr__(name):
    # ``lmax`` is a spectral bound and moved to graphrkhs.spectral; the old path
    # still resolves (lazily, so graphs never depends on spectral) with a warning.
    if name == "lmax":
        import importlib

        from .._core.validation import warn

        warn("graphrkhs.graphs.lmax moved to graphrkhs.spectral.lmax (also graphrkhs.lmax); "
             "the old path will be removed.", FutureWarning)
        return importlib.import_module("graphrkhs.spectral").lmax
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
