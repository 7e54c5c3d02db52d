r"""One graph specification: how a point cloud becomes a graph and a Laplacian.

:class:`GraphSpec` gathers the parameters of :func:`knn_graph`,
:func:`epsilon_graph` and :func:`laplacian` under the same names and with the
same defaults, so that a graph built by hand and the graph an estimator builds
from the same parameters are the same graph.  Every estimator that builds a
graph does it through ``GraphSpec(...).build(X)``; an estimator also accepts a
``GraphSpec`` as its ``graph=`` argument.
"""

import dataclasses
from typing import Optional

import numpy as np

from .._core.validation import check_option, check_scalar
from ._construct import (KNN_ALGORITHMS, METRICS, MODES, RADIUS_ALGORITHMS, WEIGHTS, _sigma_named, check_radius_metric,
                         epsilon_graph, knn_graph)
from ._tangent import check_image_shape
from ._convert import as_adjacency
from ._laplacian import LAPLACIANS, laplacian

__all__ = ["GraphSpec"]

KINDS = ("knn", "epsilon")


@dataclasses.dataclass(frozen=True)
class GraphSpec:
    r"""How to build a graph (and its Laplacian) from points.

    Parameters
    ----------
    kind : {"knn", "epsilon"}, default="knn"
        k-nearest-neighbour graph (:func:`knn_graph`) or epsilon-ball graph
        (:func:`epsilon_graph`).
    n_neighbors : int, default=10
        k of the kNN graph (:func:`knn_graph`'s default: the usual 10 of
        graph-based semi-supervised learning).
    radius : float > 0, optional
        Ball radius; required for ``kind="epsilon"``, ignored by ``kind="knn"``
        (but still checked: :meth:`validate` refuses a radius <= 0, NaN or inf).
    weight : {"gaussian", "binary", "self-tuning"}, default="gaussian"
        Edge weights, as in :func:`knn_graph`: :math:`\exp(-d^2 / (2\sigma^2))`,
        1, or Zelnik-Manor & Perona's :math:`\exp(-d^2 / (\sigma_i \sigma_j))`.
        Gaussian is the default because it labeled best in our comparison
        (Laplace, Poisson and graph kernel ridge learning on scikit-learn's
        digits with 1 and 10 labels per class and on two moons and two circles
        with 1-3 labels per class, k = 10): it won by up to 6 points on the
        moons, about tied on the circles, and lost at most 1.7 points on the
        digits to self-tuning weights (user guide, "Graphs").
    sigma : float > 0, optional
        Gaussian width; None: the mean distance over the graph's neighbour
        pairs (:func:`knn_graph`).  Ignored by the other weights.
    relative_width : float > 0, default=1.0
        :math:`r` in the self-tuning weight
        :math:`\exp(-d_{ij}^2 / (r^2 \sigma_i \sigma_j))` (:func:`knn_graph`);
        ignored by the other weights.
    mode : {"union", "mutual", "average"}, default="union"
        Symmetrization of the kNN relation (:func:`knn_graph`).
    algorithm : str, default="auto"
        Neighbour search (:func:`knn_graph`, :func:`epsilon_graph`).
    metric : {"euclidean", "cosine", "tangent"}, default="euclidean"
        Distance of the graph: ``"cosine"`` builds it on the rows scaled to
        unit length, ``"tangent"`` (kNN graphs of images) with the tangent
        distance between them (:func:`knn_graph`).
    image_shape : (int, int), optional
        ``(height, width)`` of the images, for ``metric="tangent"`` only.
    laplacian : {"combinatorial", "normalized", "randomwalk"}, default="combinatorial"
        Laplacian kind (:func:`laplacian`'s default).
    laplacian_power : int >= 1, default=1
        p in :math:`L^p`, for the methods that use a power of the Laplacian.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import GraphSpec, knn_graph
    >>> X = np.random.default_rng(0).normal(size=(50, 2))
    >>> W = GraphSpec(n_neighbors=5).build(X)
    >>> bool((W != knn_graph(X, 5)).nnz == 0)
    True
    >>> GraphSpec(n_neighbors=5, laplacian="normalized").laplacian_of(W).shape
    (50, 50)
    """

    kind: str = "knn"
    n_neighbors: int = 10
    radius: Optional[float] = None
    weight: str = "gaussian"
    sigma: Optional[float] = None
    mode: str = "union"
    algorithm: str = "auto"
    laplacian: str = "combinatorial"
    laplacian_power: int = 1
    relative_width: float = 1.0
    metric: str = "euclidean"
    image_shape: Optional[tuple] = None

    def __post_init__(self):
        # a list or array shape is kept as a tuple: the spec stays hashable and its repr one form
        # (a 0-d or 2-d array is left for validate to refuse)
        if isinstance(self.image_shape, np.ndarray) and self.image_shape.ndim == 1:
            object.__setattr__(self, "image_shape", tuple(self.image_shape.tolist()))
        elif isinstance(self.image_shape, list):
            object.__setattr__(self, "image_shape", tuple(self.image_shape))

    def validate(self, n_samples=None):
        """Check every field (and ``n_neighbors < n_samples`` when n is given); returns self.

        Raises ``ValueError`` / ``TypeError`` naming the field.
        """
        check_option(self.kind, "kind", KINDS)
        check_scalar(self.n_neighbors, "n_neighbors", kind="int", low=1)
        check_option(self.weight, "weight", WEIGHTS)
        check_scalar(self.sigma, "sigma", low=0, low_inclusive=False, allow_none=True)
        check_scalar(self.relative_width, "relative_width", low=0, low_inclusive=False)
        check_option(self.mode, "mode", MODES)
        if self.kind == "knn":
            check_option(self.metric, "metric", METRICS)
        else:
            check_radius_metric(self.metric, "kind='knn'")
        if self.metric == "tangent":
            if self.image_shape is None:
                raise ValueError("metric='tangent' needs image_shape=(height, width), the shape of the images whose "
                                 "pixels the rows of X hold row by row.")
            check_image_shape(self.image_shape)
        elif self.image_shape is not None:
            raise ValueError(f"image_shape={self.image_shape!r} is used by metric='tangent' only; got "
                             f"metric={self.metric!r}.")
        check_option(self.algorithm, "algorithm", KNN_ALGORITHMS if self.kind == "knn" else RADIUS_ALGORITHMS)
        check_option(self.laplacian, "laplacian", LAPLACIANS)
        check_scalar(self.laplacian_power, "laplacian_power", kind="int", low=1)
        # also when a kNN graph ignores it (as the estimators' radius=, and sigma= of non-Gaussian weights here)
        check_scalar(self.radius, "radius", low=0, low_inclusive=False, allow_none=True)
        if self.kind == "epsilon":
            if self.radius is None:
                raise ValueError("an epsilon graph needs radius (a float > 0); got None.")
        elif n_samples is not None and self.n_neighbors >= n_samples:
            raise ValueError(f"n_neighbors must be < n_samples = {n_samples}; got {self.n_neighbors}: "
                             f"pass n_neighbors={n_samples - 1} or fewer (a point has at most n_samples - 1 neighbours).")
        return self

    def replace(self, **changes):
        """A copy with some fields changed (:func:`dataclasses.replace`)."""
        return dataclasses.replace(self, **changes)

    def build(self, X, *, dtype=None, verbose=None, random_state=None, sigma_name="sigma"):
        """The adjacency of the points ``X``: :func:`knn_graph` or :func:`epsilon_graph`
        called with this specification's fields.

        ``verbose=None`` leaves progress reporting to the caller's context (an
        estimator's ``verbose=``, or the ``graphrkhs`` logger).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
            Points; a scipy.sparse ``X`` is searched without densifying it
            (:func:`knn_graph`, :func:`epsilon_graph`).
        sigma_name : str, default="sigma"
            The name the caller's user gave :attr:`sigma` under, used by the
            warning about Gaussian weights that underflowed: an estimator whose
            own ``sigma`` is its kernel width passes ``"graph_sigma"``.

        Returns
        -------
        W : scipy.sparse.csr_array of shape (n_samples, n_samples)
        """
        # the options only: knn_graph checks X itself (shape, finiteness) and then n_neighbors
        # against its rows, so that an empty or one-row X is reported as a problem of X
        self.validate()
        with _sigma_named(sigma_name):
            if self.kind == "knn":
                return knn_graph(X, self.n_neighbors, weight=self.weight, sigma=self.sigma,
                                 relative_width=self.relative_width, mode=self.mode, algorithm=self.algorithm,
                                 metric=self.metric, image_shape=self.image_shape, dtype=dtype, verbose=verbose,
                                 random_state=random_state)
            return epsilon_graph(X, self.radius, weight=self.weight, sigma=self.sigma,
                                 relative_width=self.relative_width, algorithm=self.algorithm, metric=self.metric,
                                 dtype=dtype, verbose=verbose)

    def laplacian_of(self, W, *, dtype=None):
        """:func:`laplacian` of the graph ``W`` (any graph form) with this specification's kind.

        The power ``laplacian_power`` is left to the method that uses it (a power
        of a sparse Laplacian is applied, not formed, by the solvers).
        """
        check_option(self.laplacian, "laplacian", LAPLACIANS)
        return laplacian(as_adjacency(W, dtype=dtype), self.laplacian, dtype=dtype)
