r"""Transductive learners on graphs (scikit-learn API).

Each estimator is a thin layer over a plain function of
:mod:`graphrkhs.solvers`:

=====================================================  ==============================================
:class:`LaplacianRegularizationClassifier` / ``Regr``  :func:`~graphrkhs.tikhonov_solution`,
                                                       :func:`~graphrkhs.harmonic_solution` (alpha=0)
:class:`PoissonLearningClassifier`                     :func:`~graphrkhs.poisson_learning`
:class:`GraphKernelRidgeClassifier` / ``Regressor``    :func:`~graphrkhs.graph_kernel_ridge`
                                                       (+ :func:`~graphrkhs.graph_kernel_ridge_loo`)
:class:`PoissonRidgeEnsembleClassifier`                :func:`~graphrkhs.poisson_learning` and
                                                       :func:`~graphrkhs.graph_kernel_ridge` on one graph,
                                                       standardized scores averaged
:class:`GraphTVClassifier` / ``Regressor``             :func:`~graphrkhs.graph_kernel_tv` (classifier's
                                                       default), :func:`~graphrkhs.graph_tv`
=====================================================  ==============================================

Common behaviour
----------------
``fit(X, y)``: ``X`` are points (a kNN or epsilon graph is built with the
estimator's graph parameters) or, with ``graph="precomputed"``, the graph
itself (any form :func:`~graphrkhs.as_adjacency` accepts).  ``y`` has one
entry per node: ``unlabeled`` (default -1, scikit-learn's convention; class
labels may be any hashable values) marks an unlabeled node for classifiers,
NaN for regressors (a -1 is a real target value there; a regressor's y
without NaN has nothing to transduce and warns).  Fitted attributes: ``transduction_`` (the label/value of
every node), ``scores_`` (the method's per-class scores of every node: the
harmonic/Tikhonov label distribution, Poisson's signed potentials, ...;
the method's own, ``class_priors`` act on the decision only),
``label_distributions_`` (``predict_proba`` of every node, as in
:class:`sklearn.semi_supervised.LabelSpreading`: rows non-negative, summing
to 1), ``classes_``, ``n_features_in_``.  Scores, probabilities and
regression values keep the floating dtype of ``X`` (float32 points or graph:
float32 ``scores_``, ``label_distributions_``, ``predict_proba``,
``decision_function``, ``transduction_`` of regressors; the solves run in
float64).  The class priors or normalization
never move a labeled node off its label in ``transduction_``,
``label_distributions_`` and ``predict``: where the class prices of the priors,
fitted on the unlabeled nodes, would move one that the method's own scores
put in its class, its label's score is raised to just above its largest class
score in the decision (``scores_`` is left as the method's).  Where the
method's own scores already put a labeled node in another class (a noisy
label), that is the method's answer and is kept -- except in Laplacian
regularization, which keeps every given label (as its harmonic limit does).

``predict(X_new)``, the out-of-sample rule: a new point gets the average of
the scores of its ``n_neighbors`` nearest fitted points (among equidistant ones
those the graph's exact search would take first, by coordinates, so the rule
does not depend on the order of the fitted rows), weighted by
:math:`\exp(-d^2 / (2 h^2))`, h the distance to the farthest of them (a
Nadaraya-Watson step on the graph's neighbourhoods); a new point that
coincides with a fitted one (:math:`d \le 10^{-6} h`) gets that node's own
scores, so ``predict`` of the fitted points is ``transduction_``; d is the graph's
distance (for ``metric="cosine"`` the Euclidean distance between the rows
scaled to unit length, so a new row with no direction -- all zero -- raises).  With
``graph="precomputed"``, ``X_new`` is the (n_new, n_fit) matrix of edge
weights from the new nodes to the fitted ones, and the scores are averaged
with those weights.

Graph: the estimator builds ``GraphSpec(graph, n_neighbors, radius, weight,
sigma).build(X)`` (:class:`~graphrkhs.GraphSpec`), with the defaults of
:func:`~graphrkhs.knn_graph` (k = 10, Gaussian weights of width the mean
neighbour distance), so that fitting on ``X`` labels exactly as fitting with
``graph="precomputed"`` on ``knn_graph(X)``.  ``graph`` may also be a
``GraphSpec`` (for ``mode``, ``algorithm``, ...), which then replaces
``n_neighbors``, ``radius``, ``weight`` and ``sigma``.  ``random_state`` seeds
the build (``GraphSpec.build(X, random_state=...)``): the approximate kNN
search of ``algorithm="auto"`` on large high-dimensional data is random, and
an int gives the same graph in every fit.
"""


import numbers
from typing import Hashable, Optional, Sequence, Union

import numpy as np
from numpy.typing import ArrayLike
import scipy.sparse as sp
from sklearn.base import is_classifier
from sklearn.neighbors import NearestNeighbors
from sklearn.utils.validation import check_is_fitted, validate_data

from .._core.backend import BACKENDS
from .._core.progress import logger, verbosity
from .._core.types import RandomStateLike
from .._core.labels import UNLABELED, _orphans, label_free_mask
from .._core.validation import GraphRKHSWarning, GraphWarning, Interval, SelectionWarning, Options, check_estimator_points, check_numeric_dtype, check_points, float_dtype, held_warnings, holds_bool, memory_guard, power_of_two_exponent, warn
from ..graphs import WEIGHTS, GraphSpec, connected_components, laplacian, metric_points
from ..graphs import IMAGE_TEST_ROWS, MIN_IMAGE_SIDE, TANGENT_CANDIDATES, check_image_shape, square_image_shape, tangent_rerank
from ..graphs import LazyTieRanks, query_in_tie_order
from ..graphs import query_distances as _exact_distances
from ..solvers import (
    graph_kernel_columns,
    graph_kernel_ridge,
    graph_kernel_tv,
    graph_tv,
    harmonic_solution,
    poisson_learning,
    tikhonov_solution,
)
from ..spectral.filters import default_kernel
from .._core.labels import classes_labeled_per_component
from .._core.loo import in_ridge_batches
from ..solvers import KernelRidgePath, class_loo_rows, loo_scores, select_grid, select_tikhonov_solution
from ..solvers import held_selection_warnings, release_selection_warnings
from ..solvers import KERNEL_TV_MAX_ITER, STOCHASTIC_MIN_LABELS, TIKHONOV_ALPHAS, graph_kernel_ridge_stochastic_errors, kfold_scores
from ..kernels import GraphKernel
from ._auto import (FIT_INTERCEPT, MIN_LABELS, NO_LOO, TUNABLE_NONNEG, TUNABLE_POSITIVE, free_constant, grid_of,
                    loo_rows_of, loo_selects)
from ._auto import unselected
from ._base import canonical_order as _canonical_node_order
from ._base import (
    GRAPH_CONSTRAINTS,
    POSITIVE,
    UNLABELED_DOC,
    VERBOSE_DOC,
    ClassifierOutputMixin,
    check_numeric_points,
    GraphRKHSEstimator,
    RegressorOutputMixin,
    graph_spec,
    in_dtype_keeping_argmax,
    precomputed_adjacency,
)

__all__ = [
    "LaplacianRegularizationClassifier",
    "LaplacianRegularizationRegressor",
    "PoissonLearningClassifier",
    "GraphKernelRidgeClassifier",
    "GraphKernelRidgeRegressor",
    "PoissonRidgeEnsembleClassifier",
    "GraphTVClassifier",
    "GraphTVRegressor",
]

DEFAULT_ALPHAS = (1e-4, 1e-3, 1e-2, 1e-1, 1.0)
_PRECONDITIONERS = [Options("auto", "amg", "jacobi"), None]
_BACKEND = [Options(*BACKENDS)]
GraphArg = Union[str, GraphSpec]


def _scaled_by_power_of_two(P, e):
    """Points times :math:`2^e` (exact in binary floating point, dtype kept; sparse points stay sparse)."""
    if e == 0:
        return P
    if sp.issparse(P):
        P = sp.csr_array(P, copy=True)
        P.data = np.ldexp(P.data, e)
        return P
    return np.ldexp(P, e)


class _GraphLearner(GraphRKHSEstimator):
    """Transductive family: X is points (a graph is built with the GraphSpec of the
    parameters) or the graph itself; members define ``_solve(W, S, Y)``."""

    _parameter_constraints = {
        "graph": [Options("knn", "epsilon", "precomputed"), GraphSpec],
        **GRAPH_CONSTRAINTS,
        "sigma": [POSITIVE, None],
        "random_state": ["random_state"],
    }

    def _validate_input(self, X):
        """Validate X (points, or the graph with ``graph="precomputed"``); the graph of points is
        built in ``_fit``, after the targets are checked (bad input fails before heavy work)."""
        self._nn = None
        if self.graph == "precomputed":
            W = precomputed_adjacency(X)
            self._X_fit = None
            self.n_features_in_ = W.shape[0]
            return W
        X = self._points(X, reset=True)
        X = check_points(X, "X", accept_sparse=True)     # a CSR copy for sparse points
        self._graph_spec(X).validate(X.shape[0])
        return X

    _conflicting_copies_note = ("each copy stays a node of its own with its own label (the graph joins the copies "
                                "at distance 0), transduction_ gives each node its own result, and predict(X) at "
                                "such a point gives the mean of the copies' scores (it may differ from "
                                "transduction_ there)")

    def _fit_points(self, X):
        return None if self.graph == "precomputed" else X

    def _points(self, X, reset):
        """Points X (fit: ``reset``; new points: checked against the fit's features) by the one validation of
        the estimators (:func:`~graphrkhs._core.validation.check_estimator_points`, the inductive learners'
        messages; scikit-learn's printed the whole array for complex X); sparse points by scikit-learn's."""
        check_numeric_points(X)
        if sp.issparse(X):
            return validate_data(self, X, dtype=[np.float64, np.float32], ensure_min_samples=2 if reset else 1,
                                 reset=reset, accept_sparse=True)
        points = check_estimator_points(X, min_samples=2 if reset else 1,
                                        reason=f": {type(self).__name__} fits on at least two rows" if reset else "")
        if not reset and points.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {points.shape[1]} features, but {type(self).__name__} is expecting "
                             f"{self.n_features_in_} features as input.")
        # n_features_in_ (fit), and feature_names_in_ for a data frame, as scikit-learn records and checks them
        validate_data(self, X, skip_check_array=True, reset=reset)
        return points

    def _graph_spec(self, X):
        """The GraphSpec of the parameters (members may let it depend on the points X)."""
        return graph_spec(self, self.sigma)

    def _graph_of(self, X):
        """The adjacency of the points X: the GraphSpec of the parameters built with ``random_state`` (the
        approximate kNN search's seed; an int gives the same graph in every fit and process)."""
        return self._graph_spec(X).build(X, random_state=self.random_state)

    def _build_graph(self, X):
        """The adjacency of the points X (:meth:`_graph_of`); remember what the out-of-sample rule needs."""
        spec = self._graph_spec(X)
        W = self._graph_of(X)
        self._X_fit = X
        self._n_oos = min(spec.n_neighbors, X.shape[0])
        # new points meet the fitted ones in the graph's distance (cosine: the rows scaled to unit length),
        # in units of a power of two near the largest coordinate (exact, as knn_graph's search): the squared
        # distances of points near 1e155 overflowed (NaN weights) and near 1e-200 underflowed (every point
        # "on" a fitted node), so predict(X_fit) labeled half of two separated blobs wrong while the graph
        # and transduction_ were right
        self._oos_metric = spec.metric
        # the tangent distance ranks TANGENT_CANDIDATES times more cosine candidates (as the graph's search);
        # the shape as knn_graph took it (ints: a spec's whole floats (8.0, 8.0) failed predict's reshape)
        self._oos_image_shape = check_image_shape(spec.image_shape, X.shape[1]) if spec.metric == "tangent" else None
        P = metric_points(X, spec.metric)
        e = power_of_two_exponent(P.data if sp.issparse(P) else P)
        # only where squared distances could leave the dtype's range (|x| beyond 2^(maxexp/4): 2^256 in float64,
        # 2^32 in float32): ordinary points keep their units, and the index holds no rescaled copy of them
        self._oos_exponent = e if abs(e) > np.finfo(np.result_type(P.dtype, np.float32)).maxexp // 4 else 0
        # the index's points, kept for the exact distances of its candidates (_exact_distances); the same array as
        # the fitted points (or the index's) unless the metric or the scale made a copy
        self._oos_points = _scaled_by_power_of_two(P, -self._oos_exponent)
        self._nn = NearestNeighbors(n_neighbors=self._n_oos).fit(self._oos_points)
        # equidistant fitted points are taken in the graph's order (tie ranks: by coordinates), not by index
        self._oos_tie = LazyTieRanks(self._oos_points)
        return W

    def _fit(self, X, labeled, Y):
        W = X if self.graph == "precomputed" else self._build_graph(X)
        S = np.flatnonzero(labeled)
        deg = np.diff(W.indptr)
        lonely = S[deg[S] == 0]
        if lonely.size:
            warn(f"{lonely.size} labeled node(s) are isolated (no edges, e.g. node {int(lonely[0])}): their "
                 "labels inform no other node.", GraphWarning)
        F = np.asarray(self._solve(W, S, Y), dtype=np.float64).reshape(W.shape[0], -1)
        self._store(F, label_free_mask(W, S))

    #: A new point within this fraction of its neighbourhood's radius h of a fitted node is that node.
    #: Brute-force distances carry a rounding of about sqrt(eps) |x| (1e-7 relative to h on image rows).
    _COINCIDENT = 1e-6

    def _oos_scores(self, X, scores, return_node=False):
        """Out-of-sample rule: weighted average of the fitted nodes' scores (module docs).

        ``return_node``: also the fitted node each new point sits on (-1 for none; None for a
        precomputed graph, whose new rows are edge weights)."""
        n_fit = scores.shape[0]
        node = None
        if self._X_fit is None:
            # text weights were parsed and complex ones lost their imaginary part (a ComplexWarning only): the
            # fit's adjacency refuses both
            check_numeric_points(X)
            raw = X if sp.issparse(X) else np.asarray(X)
            if raw.dtype != object:
                check_numeric_dtype(raw, "X (the edge weights to the fitted nodes, graph='precomputed')")
            if sp.issparse(X):
                Wn = sp.csr_array(X, dtype=np.float64)
            else:
                Wn = np.asarray(raw, dtype=np.float64)
                if Wn.ndim != 2:
                    raise ValueError(f"with graph='precomputed', X must be the (n_new, {n_fit}) matrix of edge "
                                     f"weights to the fitted nodes; got shape {Wn.shape}.")
            if Wn.shape[1] != n_fit:
                raise ValueError(f"with graph='precomputed', X must have one column per fitted node ({n_fit}); "
                                 f"got shape {Wn.shape}.")
            data = Wn.data if sp.issparse(Wn) else Wn
            if not np.isfinite(data).all() or (data < 0).any():
                raise ValueError("X must hold finite non-negative edge weights.")
            orphan = getattr(self, "_orphan_nodes", None)
            if orphan is not None and np.any(orphan):
                # label-free nodes carry no information (see the points' branch): their edges are dropped, and a
                # new node linked to them only is one of them (the prior)
                all_w = np.asarray(Wn.sum(axis=1)).ravel()
                dropped = sp.csr_array(Wn) @ sp.diags_array((~np.asarray(orphan)).astype(np.float64))
                only = (np.asarray(dropped.sum(axis=1)).ravel() == 0) & (all_w > 0)
                if only.any():           # (their rows kept: scores replaced by the prior, no "no edge" warning)
                    node = np.full(Wn.shape[0], -1)
                    node[only] = int(np.flatnonzero(orphan)[0])
                    dropped = dropped + sp.diags_array(only.astype(np.float64)) @ sp.csr_array(Wn)
                Wn = dropped
            rows = np.asarray(Wn.sum(axis=1)).ravel()
            num = np.asarray(Wn @ scores)
        else:
            X = self._points(X, reset=False)
            shape = getattr(self, "_oos_image_shape", None)
            if shape is not None and sp.issparse(X):     # as the fit's knn_graph
                raise TypeError("metric='tangent' takes dense images; X is sparse.  Pass X.toarray().")
            P = _scaled_by_power_of_two(metric_points(X, self._oos_metric), -getattr(self, "_oos_exponent", 0))
            fitted = getattr(self, "_oos_points", None)
            if sp.issparse(P) and not sp.issparse(self._nn._fit_X if fitted is None else fitted):
                # sparse new points, dense fitted ones: the index (a k-d tree) refused them ("kd_tree does not work
                # with sparse matrices ... set algorithm='brute'", an option the estimator does not have); their
                # dense rows take no more memory than the fitted points' rows
                P = P.toarray()
            tie = getattr(self, "_oos_tie", None)
            if tie is None:    # fitted by a version without it (pickled): the ranks of the index's points
                tie = self._oos_tie = LazyTieRanks(self._nn._fit_X if fitted is None else fitted)
            def search(rows, width):
                Q = P if rows is None else P[rows]
                d, i = self._nn.kneighbors(Q, n_neighbors=width)
                return _exact_distances(Q, fitted, d, i)
            if shape is None:
                # among fitted points at the same distance, the lower tie rank first (as the graph's search)
                dist, idx = query_in_tie_order(search, P.shape[0], n_fit, self._n_oos, tie)
            else:
                # the cosine candidates in the same tie order as the graph's (scikit-learn's index order made a
                # new image's neighbours depend on the order of the fitted rows where more than 3k were tied)
                n_candidates = min(n_fit, TANGENT_CANDIDATES * self._n_oos)
                _, idx = query_in_tie_order(search, P.shape[0], n_fit, n_candidates, tie)
                dist, idx = tangent_rerank(np.asarray(P, dtype=np.float64), self._oos_points, idx, self._n_oos, shape,
                                           tie=tie)
            lost = _lost_queries(dist, None if shape is not None else
                                 (self._nn._fit_X if fitted is None else fitted))
            h = dist[:, -1:]
            h = np.where((h > 0) & np.isfinite(h), h, 1.0)
            with np.errstate(invalid="ignore", over="ignore"):
                w = np.exp(-(dist / h) ** 2 / 2)
            w[lost] = 0.0
            # a new point on a fitted node (up to the rounding of the distance) is that node: it gets the
            # node's own scores (the mean of several coinciding ones), so predict(X_fit) is transduction_
            same = dist <= self._COINCIDENT * h
            on_node = same[:, 0]
            w[on_node] = same[on_node]
            node = np.where(on_node, idx[:, 0], -1)
            orphan = getattr(self, "_orphan_nodes", None)
            if orphan is not None and np.any(orphan):
                # a fitted node no label reaches carries no information: its scores (the class prior as raw
                # scores) went into the average and then through the class normalization, so a new point 0.01
                # from a label-free cluster got class 2 with probability 0.83 where its fitted neighbours have the
                # uniform prior.  Its weight is dropped; a point whose neighbours are all label-free is one of them
                # (the prior, as a point on such a node)
                on_orphan = np.asarray(orphan)[idx] & (w > 0)
                only = ~on_node & on_orphan.any(axis=1) & ~((w > 0) & ~on_orphan).any(axis=1)
                w[on_orphan & ~(on_node | only)[:, None]] = 0.0     # ("only" rows: the prior, see predict)
                node = np.where(only, idx[:, 0], node)
            rows = w.sum(axis=1)
            num = np.einsum("ik,ik...->i...", w, scores[idx])
        out = np.empty((num.shape[0],) + scores.shape[1:])
        ok = rows > 0
        out[ok] = num[ok] / rows[ok].reshape((-1,) + (1,) * (scores.ndim - 1))
        if self._X_fit is not None and lost.any():
            warn(f"{int(lost.sum())} new point(s) lie so far outside the fitted points (more than 1e8 times their "
                 f"largest norm away, e.g. row {int(np.flatnonzero(lost)[0])}) that their nearest fitted points cannot "
                 "be told apart in float64: they get the mean score.  Check the units of X (the same scaling as in "
                 "fit).", GraphWarning)
            ok |= lost
            out[lost] = scores.mean(axis=0)
        if (~ok).any():
            warn(f"{int((~ok).sum())} new node(s) have no edge to the fitted graph; they get the mean score.",
                 GraphWarning)
            out[~ok] = scores.mean(axis=0)
        return (out, node) if return_node else out

    def _scores(self, X):
        check_is_fitted(self, "transduction_")
        return self._oos_scores(X, self._fitted_scores())

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.graph == "precomputed"
        tags.input_tags.sparse = True      # sparse points (graph builders) or a sparse graph
        return tags


class _TransductiveClassifier(ClassifierOutputMixin, _GraphLearner):
    _target_coding = "onehot"
    #: True: every labeled node keeps its given label in the decision (``transduction_``, ``predict``,
    #: ``label_distributions_``), whatever the method's own scores say there (``_keep_the_labels``).
    _keeps_given_labels = False

    def _fit(self, X, labeled, Y):
        # fitted scores and probabilities in the floating dtype of the points (or graph), as the
        # transductive regressors' values (DESIGN: results keep the input dtype); the solves and the
        # decision run in float64
        self._out_dtype = float_dtype(X.dtype)
        super()._fit(X, labeled, Y)

    def _output(self, P):
        """P (n, k) or (n,) in the output dtype of the fit, each row's argmax kept
        (:func:`~graphrkhs.estimators._base.in_dtype_keeping_argmax`)."""
        return in_dtype_keeping_argmax(P, getattr(self, "_out_dtype", np.dtype(np.float64)))

    def _store(self, F, orphan):
        self.scores_ = F.astype(getattr(self, "_out_dtype", np.float64), copy=False)
        self._fit_class_normalization(F, exclude=orphan)   # class priors / normalization (_base)
        # the decision's scores: scores_ with the labeled rows kept on their labels
        self._decision_scores = self._keep_the_sizes(self._keep_the_labels(F))
        S = self._class_scores(self._decision_scores)
        P = self._proba_of_scores(S)
        P[orphan] = self._prior_distribution()     # no label reaches these nodes: the class prior, exactly
        self._orphan_nodes = orphan
        self.label_distributions_ = self._output(P)
        # ... and its most probable class (their scores under a class normalization need not agree: with
        # mean_shift, the prior vector minus the reached nodes' column means)
        codes = S.argmax(axis=1)
        codes[orphan] = np.argmax(self._prior_distribution())
        self.transduction_ = self.classes_[codes]
        self._transduction_codes = codes

    def _log_label_distributions(self):
        """float64 log of ``label_distributions_`` computed in the log domain (the log-softmax of the class
        scores, the log prior where no label reaches), or None for the ``"distribution"`` methods, whose
        probabilities are the scores themselves.  Where the class scores differ by more than about 37 the
        softmax rounds to one-hot; :func:`~graphrkhs.propose_labels` orders such rows by these."""
        if self._proba != "softmax" or not hasattr(self, "_decision_scores"):
            return None
        S = np.array(self._class_scores(self._decision_scores), dtype=np.float64)
        S -= S.max(axis=1, keepdims=True)
        S -= np.log(np.exp(S).sum(axis=1, keepdims=True))
        with np.errstate(divide="ignore"):
            S[np.asarray(self._orphan_nodes, dtype=bool)] = np.log(self._prior_distribution())
        return S

    _fitted_decision_evaluates = False           # transduction_ is at hand: the check counts every unlabeled row

    def _fitted_decision(self, X, rows, raw=None):
        # transduction_ (its codes); the nodes no label reaches get the prior, not the model's decision
        return self._transduction_codes[rows], ~np.asarray(self._orphan_nodes, dtype=bool)[rows]

    def _keep_the_labels(self, F):
        """F with the label's score raised to just above the row's largest class score (after the class
        normalization) in every labeled row that the normalization moved off its label.

        The class prices of ``class_priors`` (and the per-class scaling of a normalization) are shifts
        of whole columns, sized on the unlabeled rows: far from the labeled proportions they moved
        labeled nodes (Poisson learning, priors (0.9, 0.05, 0.05), 3 labels a class: 3 of the 9).
        A labeled node keeps its label where only the normalization moved it; a row whose own argmax is
        another class (a noisy label) is the method's answer and is not touched -- except for the methods
        that keep every given label (``_keeps_given_labels``: Laplace learning), where every labeled row
        whose decision is not its label is raised.
        """
        labeled = np.flatnonzero(np.asarray(self._fit_labeled, dtype=bool))
        if labeled.size == 0:
            return F
        own = self._fit_codes[labeled]
        S = self._class_scores(F[labeled])
        if self._keeps_given_labels:
            off = S.argmax(axis=1) != own
        else:
            # only where the priors / normalization moved the node: where the method's own scores already
            # put it in another class (a noisy label, a labeled point deep in another class) that answer is
            # the method's and stays visible (``graphrkhs label`` reports it)
            raw = np.asarray(self._own_scores(F), dtype=np.float64).reshape(F.shape[0], -1)[labeled]
            if raw.shape[1] == 1:                            # a +-1 column of two classes
                raw = np.hstack([-raw, raw])
            off = (S.argmax(axis=1) != own) & (raw.argmax(axis=1) == own)
        if not off.any():
            return F
        return self._raised(F, labeled[off], own[off])

    def _keep_the_sizes(self, F):
        """F with the class of the size-kept labeling (``_sized_labels``: the assignment of ``class_priors``,
        or the MBO classifiers' labels under a class normalization) raised to just above the row's largest
        class score in every unlabeled row whose decision is another class: the prices give that labeling up
        to ties only, and rows that tie take the first class, which broke the class sizes."""
        sized = getattr(self, "_sized_labels", None)
        if sized is None:
            return F
        rows, labels = sized
        unlabeled = ~np.asarray(self._fit_labeled, dtype=bool)[rows]
        rows, labels = rows[unlabeled], labels[unlabeled]
        off = self._class_scores(F[rows]).argmax(axis=1) != labels
        return self._raised(F, rows[off], labels[off]) if off.any() else F

    def _raised(self, F, rows, cls):
        """A copy of F with the score of class ``cls[i]`` in row ``rows[i]`` raised to just above the row's
        largest class score (after the class normalization), so that the row's decision is that class."""
        F = np.array(F, copy=True)
        a = self.class_scale_ if self.class_scale_ is not None else np.ones(self.classes_.size)
        t = self.class_offset_ if self.class_offset_ is not None else np.zeros(self.classes_.size)
        # the largest competing score on the scale that is raised (before a distribution's renormalization)
        top = (self._normalized_scores(F[rows]) if self._proba == "distribution" else
               self._class_scores(F[rows])).max(axis=1)
        # a_c = 0 (a class without mass on the reference rows): its column is the constant t_c, raise nothing
        scale = np.where(a[cls] > 0, a[cls], 1.0)
        target = np.where(a[cls] > 0, (top - t[cls]) / scale, np.asarray(F[rows, cls], dtype=np.float64))
        step = np.maximum(np.abs(target), 1.0) * 4 * np.finfo(F.dtype).eps
        todo = np.ones(rows.size, dtype=bool)
        for _ in range(60):
            F[rows[todo], cls[todo]] = target[todo] + step[todo]
            todo &= self._class_scores(F[rows]).argmax(axis=1) != cls
            if not todo.any():
                break
            step *= 2.0
        return F

    def _own_scores(self, F):
        """The method's scores without what the class priors did to them (F when the priors act on the
        decision only, as for every method but Poisson learning's column weights)."""
        return F

    def _fitted_scores(self):
        return self._decision_scores

    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """Class probabilities of shape (n, n_classes), rows non-negative and summing to 1
        (see the class documentation for their meaning in this method); a point on a fitted node
        gets that node's row of ``label_distributions_`` (the class prior where no label reaches)."""
        with verbosity(self.verbose):
            check_is_fitted(self, "transduction_")
            scores, node = self._oos_scores(X, self._fitted_scores(), return_node=True)
            P = self._proba_of_scores(self._class_scores(scores))
        if node is not None:
            P[self._on_orphan(node)] = self._prior_distribution()
        return self._output(P)

    def _on_orphan(self, node):
        """Which new points sit on a fitted node that no label reaches (``node``: -1 for none)."""
        on_orphan = node >= 0
        on_orphan[on_orphan] = self._orphan_nodes[node[on_orphan]]
        return on_orphan

    def _node_class_scores(self, X):
        """Class scores of new points; a point on a fitted node that no label reaches gets the prior
        (its label distribution) as its scores, so predict and decision_function follow it."""
        check_is_fitted(self, "transduction_")
        scores, node = self._oos_scores(X, self._fitted_scores(), return_node=True)
        S = self._class_scores(scores)
        if node is not None:
            S[self._on_orphan(node)] = self._prior_distribution()
        return S

    def predict(self, X: ArrayLike) -> np.ndarray:
        """The class with the largest score; a point on a fitted node gets that node's
        ``transduction_`` (the most probable class of the prior where no label reaches)."""
        with verbosity(self.verbose):
            codes = self._node_class_scores(X).argmax(axis=1)     # NotFittedError before classes_ is read
        return self.classes_[codes]

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """Decision values (see :class:`~graphrkhs.estimators._base.ClassifierOutputMixin`); a point on
        a fitted node that no label reaches gets those of the prior, in agreement with ``predict``."""
        with verbosity(self.verbose):
            return self._output(self._decision_of_scores(self._node_class_scores(X)))


#: A new point this many times the fitted points' largest norm away from them, with its k nearest at one distance to
#: the rounding (:func:`_lost_queries`), has neighbours float64 cannot tell apart.
_FAR_FACTOR = 1e8


def _lost_queries(dist, fitted):
    """New points whose neighbours mean nothing: distances that overflowed (inf), or (``fitted`` given) all k
    equal to the rounding at more than ``_FAR_FACTOR`` times the fitted points' largest norm.

    The k-th distance scales the weights (``exp(-(d / d_k)^2 / 2)``): a point 3e100 away from 60 points near the
    origin saw its 10 distances equal in float64, and got the first fitted point in tie order with full
    confidence (the other blob's class at 3e6); beyond 1e154 the distances overflowed and inf / inf gave NaN
    weights (numpy's "invalid value encountered in divide")."""
    lost = ~np.isfinite(dist).all(axis=1)
    if fitted is None or not dist.size:
        return lost
    if sp.issparse(fitted):
        radius = float(np.sqrt(np.asarray(sp.csr_array(fitted).multiply(fitted).sum(axis=1)).max(initial=0.0)))
    else:
        radius = float(np.abs(fitted).max(initial=0.0)) * np.sqrt(fitted.shape[1])
    with np.errstate(invalid="ignore", over="ignore"):
        tied = (dist[:, -1] - dist[:, 0]) <= 8 * np.finfo(np.float64).eps * dist[:, -1]
        far = dist[:, 0] > _FAR_FACTOR * radius
    return lost | (tied & far & np.isfinite(dist[:, -1]))


class _TransductiveRegressor(RegressorOutputMixin, _GraphLearner):
    #: scaled back after a fit on standardized target columns (RegressorOutputMixin._scale_back_targets)
    _TARGET_LINEAR = ("transduction_",)

    # function values in the floating dtype of the fitted points (or graph), as the point regressors'
    # (DESIGN: results keep the input dtype; float32 in, float32 out); the solves run in float64
    def _fit(self, X, labeled, Y):
        self._out_dtype = float_dtype(X.dtype)
        if labeled.size and labeled.all():
            # transductive: the fit's answer is transduction_ on the unlabeled rows, and there are none.
            # Only NaN marks them here, so a classifier-style -1 is taken as a real target (silently
            # before: a y with its unlabeled rows at -1 was a fit of those -1s, with no message)
            # Y may be divided by the column scales (fit: several targets); -1 / s is then exactly what -1 became
            s = getattr(self, "_y_scales", None)
            minus = int(np.count_nonzero(np.all(Y == (-1.0 if s is None else -1.0 / s), axis=1)))
            why = (f" ({minus} of them have the target -1, the classifiers' unlabeled marker, which is a real "
                   f"value to a regressor)" if minus else "")
            warn(f"{type(self).__name__}: y has no NaN, so all {labeled.size} rows are labeled and there is "
                 f"nothing to transduce{why}. NaN marks an unlabeled row for a regressor: set the targets of "
                 f"the rows to be predicted to np.nan.", GraphRKHSWarning)
        super()._fit(X, labeled, Y)

    def _store(self, F, orphan):
        F = F.astype(self._out_dtype, copy=False)
        self.transduction_ = F[:, 0] if self._y_1d else F

    def _scores(self, X):
        out = super()._scores(X)
        return out.astype(self.transduction_.dtype, copy=False)

    def _fitted_scores(self):
        return self.transduction_


_GRAPH_DOC = r"""
    graph : {"knn", "epsilon", "precomputed"} or GraphSpec, default="knn"
        How ``X`` becomes a graph: kNN or epsilon graph of the points, ``X`` is the
        graph (any form :func:`~graphrkhs.as_adjacency` accepts), or a
        :class:`~graphrkhs.GraphSpec` (which replaces the four parameters below).
    n_neighbors : int, default=10
        k of the kNN graph (and of the out-of-sample rule); :func:`~graphrkhs.knn_graph`'s default.
    radius : float, optional
        Radius of the epsilon graph (needed for ``graph="epsilon"``).
    weight : {"gaussian", "self-tuning", "binary"}, default="gaussian"
        Edge weights, see :func:`~graphrkhs.knn_graph` (its default: on the digits, two moons and
        two circles it labeled best, see the user guide).
    sigma : float > 0, optional
        Gaussian width (None: the mean neighbour distance, as :func:`~graphrkhs.knn_graph`).
    random_state : int, numpy.random.Generator or None, default=None
        Seed of the graph's kNN search, :func:`~graphrkhs.knn_graph`'s ``random_state``: it acts only
        where the search is approximate (``algorithm="auto"`` on at least 50000 points in more than 16
        dimensions with pynndescent installed: the index, its pilot and the recall sample), so that
        an int gives the same graph, and labels, in every fit and process; None draws a fresh seed
        (two fits of such data may build graphs a few edges apart).  Exact searches, epsilon graphs
        and ``graph="precomputed"`` do not use it.
    """ + UNLABELED_DOC.replace("unlabeled :", "unlabeled :", 1) + r"""
    """ + VERBOSE_DOC + "\n"

_GRAPH_DOC_REG = _GRAPH_DOC.split("    unlabeled :")[0] + "    " + VERBOSE_DOC + "\n"

_ENSEMBLE_GRAPH_DOC = _GRAPH_DOC.replace(
    """    graph : {"knn", "epsilon", "precomputed"} or GraphSpec, default="knn"
        How ``X`` becomes a graph: kNN or epsilon graph of the points, ``X`` is the""",
    """    graph : {"auto", "knn", "epsilon", "precomputed"} or GraphSpec, default="auto"
        How ``X`` becomes a graph: ``"auto"`` the kNN graph chosen from the data
        ("Default graph" above), kNN or epsilon graph of the points, ``X`` is the""").replace(
    """    weight : {"gaussian", "self-tuning", "binary"}, default="gaussian"
        Edge weights, see :func:`~graphrkhs.knn_graph` (its default: on the digits, two moons and
        two circles it labeled best, see the user guide).""",
    """    weight : {"gaussian", "self-tuning", "binary"}, optional
        Edge weights, see :func:`~graphrkhs.knn_graph`; None: those of ``graph="auto"``'s
        branch, Gaussian for ``graph="knn"`` / ``"epsilon"``.""")
assert _ENSEMBLE_GRAPH_DOC.count("default=\"auto\"") >= 1 and "optional\n        Edge weights" in _ENSEMBLE_GRAPH_DOC

# the relative residual of the Laplacian solves: at tol >= 1 CG's zero start already meets it (the solvers refuse it)
_TOL = [Interval("real", 0, 1, closed="neither")]


# ---------------------------------------------------------------------------
# Laplacian regularization
# ---------------------------------------------------------------------------

class _LaplacianRegularization(_GraphLearner):
    """Parameters and solve shared by the Laplacian-regularization classifier and regressor."""

    _parameter_constraints = {
        "alpha": TUNABLE_NONNEG,
        "laplacian": [Options("combinatorial", "normalized")],
        "tol": _TOL,
        "preconditioner": _PRECONDITIONERS,
        "backend": _BACKEND,
    }

    _scoring = "mse"

    def __init__(self, alpha: Union[float, str, Sequence[float]] = "auto", *, laplacian: str = "combinatorial",
                 tol: float = 1e-8,
                 preconditioner: Optional[str] = "auto", graph: GraphArg = "knn", n_neighbors: int = 10,
                 radius: Optional[float] = None, weight: str = "gaussian", sigma: Optional[float] = None,
                 random_state: RandomStateLike = None,
                 verbose: Optional[bool] = None, backend: str = "auto"):
        self._store_init_params(locals())

    def _solve(self, W, S, Y):
        grid, extend = grid_of(self.alpha, TIKHONOV_ALPHAS, "alpha", allow_zero=True)
        self.cv_results_ = None
        # the combinatorial Laplacian is blind to constants: every alpha fits a constant target exactly
        fits = self.laplacian == "combinatorial"
        if grid is None or not loo_selects(Y, is_classifier(self), fits_constants=fits):
            if grid is None:
                self.alpha_ = float(self.alpha)
            elif S.size < MIN_LABELS or not is_classifier(self):
                # a regressor with 3 labels or more: a constant target (loo_selects), which every alpha fits
                # exactly, the harmonic solution among them
                # too few labels for leave-one-out: the parameter-free harmonic solution (one's own grid: its
                # value nearest 0, i.e. its smallest, with a SelectionWarning)
                self.alpha_ = unselected(self.alpha, 0.0, "alpha", allow_zero=True)
            elif np.ptp(np.asarray(Y, dtype=np.float64).sum(axis=0)) == 0:
                # every class labeled once: leaving a class's only label out leaves it without one, so the
                # LOO error falls as mu grows and "selects" the top of any grid.  The largest value of the
                # grid is used, its smoothest fit (near the Poisson limit, which labels best there)
                self.alpha_ = unselected(self.alpha, float(grid.max()), "alpha", allow_zero=True)
                logger.info("%s: one labeled node per class, so leave-one-out cannot choose alpha; using "
                            "alpha=%g (the largest of the grid).", type(self).__name__, self.alpha_)
            else:
                # classes labeled unequally often (labels 0, 1, 1): as mu grows every score tends to the
                # labeled proportions, and at the top of the grid the majority took every node (class 1 all
                # 60 blob points but the labeled one of class 0).  The harmonic solution has no such bias
                # (one's own grid: its value nearest 0, with a SelectionWarning)
                self.alpha_ = unselected(self.alpha, 0.0, "alpha", allow_zero=True)
                logger.info("%s: too few labels per class for leave-one-out to choose alpha, and the classes "
                            "are labeled unequally often; using alpha=%g (0: the harmonic solution).",
                            type(self).__name__, self.alpha_)
            if self.alpha_ == 0:
                return harmonic_solution(W, S, Y, laplacian=self.laplacian, tol=self.tol,
                                         preconditioner=self.preconditioner, backend=self.backend)
            return tikhonov_solution(W, S, Y, alpha=self.alpha_, laplacian=self.laplacian, tol=self.tol,
                                     preconditioner=self.preconditioner, backend=self.backend)
        # exact LOO on the Kron reduction (one factorization for the path and the fit), matrix-free
        # above STOCHASTIC_MIN_LABELS labels; the default grid extends at its upper edge, one's own does not
        F, res = select_tikhonov_solution(W, S, Y, None if extend else grid, laplacian=self.laplacian,
                                          scoring=self._scoring, loo_rows=loo_rows_of(self),
                                          max_extensions=2 if extend else 0, tol=self.tol,
                                          preconditioner=self.preconditioner, backend=self.backend)
        self.alpha_ = res.best_params["alpha"]
        self.cv_results_ = res.cv_results_
        return F


class LaplacianRegularizationClassifier(_TransductiveClassifier, _LaplacianRegularization):
    __doc__ = r"""Laplace learning / Tikhonov regularization on a graph (classification).

    One-vs-all scores :math:`F` solve :math:`(J + \mu L) F = J Y` (Y one-hot,
    :math:`\mu` = ``alpha``), or, for ``alpha=0``, the harmonic extension
    :math:`L_{UU} F_U = -L_{US} Y_S` (Zhu, Ghahramani & Lafferty 2003);
    class = argmax.  All classes in one AMG-preconditioned block CG.

    ``predict_proba`` is the label distribution: with the combinatorial
    Laplacian the scores are non-negative and sum to 1 on every node (the
    maximum principle; the harmonic value is the probability that a random walk
    first reaches a node of each class); they are clipped at 0 and renormalized
    otherwise.  ``decision_function`` is built on the same distribution.

    Every labeled node keeps its given label in ``transduction_``,
    ``label_distributions_`` and ``predict`` (the harmonic solution holds
    :math:`F_S = Y_S`; for :math:`\mu > 0` the fit only pulls towards the
    labels, and ``scores_`` stays that fit).  As :math:`\mu` grows the scores
    of every node tend to the labeled class proportions :math:`\bar y`
    (:math:`F = \bar y + G/\mu`, G the Poisson potentials), so with unbalanced
    labels the majority class takes every node: a fit whose scores leave a
    labeled class without any node, not even its labeled ones, warns
    (:class:`~graphrkhs.SelectionWarning` when ``alpha`` was selected).

    With ``alpha="auto"`` (the default), :math:`\mu` is chosen by exact
    leave-one-out over the labeled nodes
    (:func:`~graphrkhs.select_tikhonov_solution`: the Kron reduction
    :math:`L/L_{UU}` gives every :math:`\mu` from one sparse factorization,
    which also yields the final fit, so the automatic fit costs one to two
    fixed-:math:`\mu` fits (digits: 2.2x); above ``STOCHASTIC_MIN_LABELS`` labeled nodes the
    diagonal of the hat matrix is estimated by random probes).  The grid
    holds :math:`\mu = 0`, the harmonic solution, scored by its own exact
    LOO: on clean labels it is usually the choice.  Classifier: LOO
    accuracy, ties broken by the LOO squared error of the one-hot scores,
    then towards the larger :math:`\mu`; regressor: LOO squared error.
    The LOO accuracy is that of the argmax of the method's own scores:
    ``class_priors`` and ``class_normalization`` act on the decision of the
    fit at the chosen :math:`\mu` only, not on the held-out decisions that
    choose it (see :class:`GraphKernelRidgeClassifier` for why).

    Parameters
    ----------
    alpha : "auto", float >= 0 or sequence of float >= 0, default="auto"
        :math:`\mu`.  ``"auto"``: selected from ``TIKHONOV_ALPHAS`` (0 and
        ``geomspace(1e-4, 1e3, 15)``, extended upwards at its edge); a
        sequence: one's own grid (not extended); a number: that value, and
        ``alpha=0`` is the parameter-free harmonic solution (labels fixed),
        the standard Laplace learning (also used, with fewer than 3 labeled
        nodes, by ``"auto"``).  With every class labeled once the LOO cannot
        rank (:ref:`ug_one_label`): the largest value of the grid is used
        (1e3 by default, near the Poisson limit); where too few classes have
        two labels and the classes are labeled unequally often (0, 1, 1),
        0 (the harmonic solution: at a large alpha the majority of the labels
        takes every node).
    laplacian : {"combinatorial", "normalized"}, default="combinatorial"
        Laplacian kind (the combinatorial one keeps the maximum principle).
    tol : float, default=1e-8
        CG relative residual.
    preconditioner : {"auto", "amg", "jacobi", None}, default="auto"
        See :func:`~graphrkhs.harmonic_solution` ("auto": direct up to 5000
        nodes, AMG above).
    backend : {"auto", "numpy", "numba", "scipy", "mpi", "dask"}, default="auto"
        Where the solve at a fixed ``alpha`` runs (see
        :func:`~graphrkhs.harmonic_solution`; ``"auto"`` is MPI under
        ``mpiexec`` with several ranks).  The automatic choice of ``alpha``
        is not distributed: its leave-one-out path and the fit at the chosen
        value come from one sparse factorization in each process, whatever
        the backend (pass a number to solve on the backend).
    """ + _GRAPH_DOC + r"""
    Attributes
    ----------
    alpha_ : float
        The :math:`\mu` used (0: the harmonic solution).
    cv_results_ : dict or None
        The leave-one-out scores of the grid (scikit-learn's layout, higher is
        better); None for a fixed ``alpha``.
    classes_, transduction_, scores_, label_distributions_, n_features_in_
        As described in :ref:`ug_transductive` ("Using the estimators").

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import LaplacianRegularizationClassifier
    >>> X = np.r_[np.zeros((5, 1)), np.ones((5, 1))] + np.arange(10)[:, None] * 1e-3
    >>> y = np.full(10, -1); y[0], y[9] = 0, 1
    >>> LaplacianRegularizationClassifier(n_neighbors=3).fit(X, y).transduction_
    array([0, 0, 0, 0, 0, 1, 1, 1, 1, 1])
    """

    _proba = "distribution"     # the harmonic / Tikhonov scores are a label distribution
    _scoring = "accuracy"
    # the harmonic solution keeps them exactly (F_S = Y_S); Tikhonov's fidelity term only pulls towards them
    _keeps_given_labels = True

    def _store(self, F, orphan):
        super()._store(F, orphan)
        self._warn_swallowed_classes(F, orphan)

    def _warn_swallowed_classes(self, F, orphan):
        r"""Warn when the fit's own scores give some labeled class no node at all, not even its labeled ones.

        As :math:`\mu \to \infty` the Tikhonov scores of every node of a labeled component tend to the
        labeled class proportions :math:`\bar y` (:math:`F = \bar y + G / \mu`, G the Poisson potentials),
        so at a large ``alpha`` the majority of the labels takes every node.  The harmonic solution
        (``alpha=0``) never does this (:math:`F_S = Y_S`).
        """
        reached = ~np.asarray(orphan, dtype=bool)
        if self.alpha_ == 0 or not reached.any() or self.classes_.size < 2:
            return
        codes = np.asarray(F, dtype=np.float64)[reached].argmax(axis=1)
        won = np.bincount(codes, minlength=self.classes_.size)
        lost = np.flatnonzero(won == 0)
        if lost.size == 0:
            return
        winners = np.flatnonzero(won > 0)
        names = ", ".join(str(c) for c in self.classes_[lost])
        props = ", ".join(f"{p:.2g}" for p in self.class_prior_)
        if self.cv_results_ is not None:
            how = "chosen by leave-one-out"
        elif isinstance(self.alpha, numbers.Real):
            how = "given"
        else:
            how = "the fallback of alpha='auto' without a leave-one-out choice"
        one = lost.size == 1
        warn(f"{type(self).__name__}: at alpha={self.alpha_:.3g} ({how}) the fit puts every node in class"
             f"{'' if winners.size == 1 else 'es'} {', '.join(str(c) for c in self.classes_[winners])}: "
             f"class{'' if one else 'es'} {names} keep{'s' if one else ''} only {'its' if one else 'their'} "
             f"labeled nodes (kept on their labels in transduction_). As alpha grows the scores of every node "
             f"tend to the labeled "
             f"proportions ({props}), and the largest takes all; use a smaller alpha (0: the harmonic "
             f"solution) or PoissonLearningClassifier.",
             SelectionWarning if self.cv_results_ is not None else GraphRKHSWarning)


class LaplacianRegularizationRegressor(_TransductiveRegressor, _LaplacianRegularization):
    __doc__ = r"""Laplace learning / Tikhonov regularization on a graph (regression).

    :math:`(J + \mu L) f = J y`, or the harmonic extension for ``alpha=0``;
    ``alpha="auto"`` minimizes the exact leave-one-out squared error (with the
    combinatorial Laplacian constants are unpenalized: a shift of y shifts
    the prediction).  Parameters and the attributes ``alpha_``,
    ``cv_results_`` as in :class:`LaplacianRegularizationClassifier` (without
    ``unlabeled``: NaN marks an unlabeled target).

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import LaplacianRegularizationRegressor
    >>> W = np.diag(np.ones(4), 1); W = W + W.T                 # path on 5 nodes
    >>> y = np.array([0.0, np.nan, np.nan, np.nan, 1.0])
    >>> LaplacianRegularizationRegressor(graph="precomputed").fit(W, y).transduction_.round(6)
    array([0.  , 0.25, 0.5 , 0.75, 1.  ])
    """


# ---------------------------------------------------------------------------
# Poisson learning
# ---------------------------------------------------------------------------

class PoissonLearningClassifier(_TransductiveClassifier):
    __doc__ = r"""Poisson learning (Calder, Cook, Thorpe & Slepcev, ICML 2020).

    Scores solve :math:`L F = \sum_{j \in S} (y_j - \bar y) \delta_j` with
    degree-weighted zero mean (:func:`~graphrkhs.poisson_learning`);
    class = argmax of :math:`F \operatorname{diag}(b / \bar y)`.  The method of
    choice at one or a few labels per class, where Laplace learning
    degenerates.  ``predict_proba`` is the softmax of these signed potentials
    over the classes (a monotone map of the scores, not a calibrated
    probability; nodes without information get the class prior).

    Nothing is tuned (no ``"auto"`` parameter, no ``cv_results_``): the
    Poisson equation has no regularization weight -- its solution is fixed
    by the graph and the labels; ``class_priors`` is prior knowledge, not a
    fit parameter (k-fold CV on a few labels per class could not estimate
    it), and ``tol`` only sets the accuracy of the solve.  The graph's own
    parameters (``n_neighbors``, ``sigma``) are shared with every graph
    learner and chosen with the graph.

    Parameters
    ----------
    class_priors : array of shape (n_classes,), dict or pandas Series, optional
        Class proportions b (in the order of ``classes_``, summing to 1; a dict
        or Series keyed by class label is aligned by label): the
        scores are reweighted by :math:`b / \bar y` (the paper's Algorithm 1),
        then the unlabeled nodes are labeled with class sizes :math:`u b_c`
        (the size-constrained assignment, see ``class_normalization`` below
        and :class:`~graphrkhs.estimators._base.ClassifierOutputMixin`).  None:
        the labeled proportions, no reweighting, no size constraint.
    class_normalization : {None, "mass", "mean_shift"}, default=None
        Per-class score normalization before the decision (see the user
        guide, "Class priors"): class mass normalization (Zhu et al. 2003) or
        centring of each class column.
    tol : float, default=1e-6
        CG relative residual (decisions are stable long before: on
        Fashion-MNIST 1e-3 changed under 0.01% of them).
    preconditioner : {"auto", "amg", "jacobi", None}, default="auto"
        See :func:`~graphrkhs.poisson_learning`.
    backend : {"auto", "numpy", "numba", "scipy", "mpi", "dask"}, default="auto"
        Where the Poisson solve runs (see :func:`~graphrkhs.poisson_learning`;
        ``"auto"`` is MPI under ``mpiexec`` with several ranks).  Up to 5000
        nodes ``preconditioner="auto"`` factorizes on every process whatever
        the backend (pass ``"amg"`` to solve by CG on the backend).
    """ + _GRAPH_DOC + r"""
    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import PoissonLearningClassifier
    >>> X = np.r_[np.zeros((5, 1)), np.ones((5, 1))] + np.arange(10)[:, None] * 1e-3
    >>> y = np.full(10, -1); y[0], y[9] = 0, 1
    >>> PoissonLearningClassifier(n_neighbors=3).fit(X, y).transduction_
    array([0, 0, 0, 0, 0, 1, 1, 1, 1, 1])
    """

    _equal_sizes_prior = True       # centred sources: balanced classes by construction (warn_unequal_label_counts)
    _parameter_constraints = {"class_priors": ["array-like", dict, None], "tol": _TOL,
                              "preconditioner": _PRECONDITIONERS, "backend": _BACKEND}

    def __init__(self, *, class_priors: Optional[Sequence[float]] = None, class_normalization: Optional[str] = None,
                 tol: float = 1e-6,
                 preconditioner: Optional[str] = "auto", graph: GraphArg = "knn", n_neighbors: int = 10,
                 radius: Optional[float] = None, weight: str = "gaussian", sigma: Optional[float] = None,
                 random_state: RandomStateLike = None,
                 unlabeled: Optional[Hashable] = UNLABELED, verbose: Optional[bool] = None, backend: str = "auto"):
        self._store_init_params(locals())

    def _own_scores(self, F):
        # poisson_learning weighted column c by b_c / ybar_c (the priors over the labeled proportions): undo it
        if self.class_priors is None or self.class_normalization == "mean_shift":
            return F
        b = self._given_priors()
        ybar = np.asarray(self.class_prior_, dtype=np.float64)
        weight = b / np.where(ybar != 0, ybar, 1.0)
        return F / np.where(weight > 0, weight, 1.0)

    def _solve(self, W, S, Y):
        # "mean_shift" applies the b / ybar reweighting itself (_base): not twice
        priors = None if self.class_normalization == "mean_shift" else self._given_priors()
        return poisson_learning(W, S, Y, class_priors=priors, tol=self.tol,
                                preconditioner=self.preconditioner, backend=self.backend)


# ---------------------------------------------------------------------------
# Graph kernel ridge
# ---------------------------------------------------------------------------

def _is_filter_or_grid(value):
    return value is None or callable(value) or (
        isinstance(value, (list, tuple)) and len(value) > 0 and all(callable(k) for k in value))


class _FilterOrGrid:
    def __call__(self, value):
        return _is_filter_or_grid(value)

    def __str__(self):
        return "None, a filter from graphrkhs.filters or a non-empty list of them"


class _PositiveGrid:
    def __call__(self, value):
        if value is None:
            return True
        if holds_bool(value):           # numpy's 1.0 / 0.0 for True / False
            return False
        try:
            a = np.asarray(value, dtype=np.float64)
        except (TypeError, ValueError):
            return False
        return a.ndim == 1 and a.size > 0 and bool(np.isfinite(a).all() and (a > 0).all())

    def __str__(self):
        return "None or a non-empty 1-D sequence of positive numbers"


#: The grid-edge warning of graph kernel ridge names the argument that holds the grid (``alpha`` takes no
#: grid there: "pass a wider grid" for alpha raised).
ALPHAS_AXIS = {"alpha": "alpha (grid: alphas)"}


class _GraphKernelRidge(_GraphLearner):
    """Parameters and solve shared by the graph kernel ridge classifier and regressor."""

    _parameter_constraints = {
        "kernel": [_FilterOrGrid()],
        "alpha": [POSITIVE, Options("auto")],
        "alphas": [_PositiveGrid()],
        "fit_intercept": FIT_INTERCEPT,
        "method": [Options("auto", "direct", "cg", "sparse")],
        "laplacian": [Options("combinatorial", "normalized")],
        "backend": _BACKEND,
    }

    def __init__(self, kernel=None, *, alpha: Union[float, str] = "auto", alphas: Optional[Sequence[float]] = None,
                 fit_intercept: Union[bool, str] = "auto", method: str = "auto", laplacian: str = "normalized", graph: GraphArg = "knn", n_neighbors: int = 10,
                 radius: Optional[float] = None, weight: str = "gaussian", sigma: Optional[float] = None,
                 random_state: RandomStateLike = None,
                 verbose: Optional[bool] = None, backend: str = "auto"):
        self._store_init_params(locals())

    def _check_params(self):
        if len(self._kernels()) > 1 and self.alpha != "auto":
            raise ValueError("a list of kernels is a grid for leave-one-out selection: it needs alpha='auto'.")

    _scoring = "mse"

    def _alpha_grid(self):
        """``(grid, extend)`` of ``alpha="auto"``: ``alphas=None`` the default grid ``DEFAULT_ALPHAS``, extended
        at its edges; one's own sequence, not extended (an explicit grid equal to the default one was taken
        for the default, compared by value, and extended to alpha 3.8e-9 below its smallest value 1e-4)."""
        return grid_of("auto" if self.alphas is None else self.alphas, DEFAULT_ALPHAS, "alphas")

    def _alphas_value(self):
        """``alphas`` in :func:`~graphrkhs.estimators._auto.unselected`'s terms: "auto" for the default grid."""
        return "auto" if self.alphas is None else self.alphas

    def _kernels(self):
        k = self.kernel if self.kernel is not None else default_kernel()
        return list(k) if isinstance(k, (list, tuple)) else [k]

    def _solve(self, W, S, Y):
        kernels = self._kernels()
        self.cv_results_ = None
        if self.alpha != "auto" and not free_constant(self):
            self.alpha_, self.kernel_ = float(self.alpha), kernels[0]
            return graph_kernel_ridge(W, S, Y, kernels[0], alpha=self.alpha, method=self.method,
                                      laplacian=self.laplacian, backend=self.backend)
        if self.alpha != "auto" and self.method in ("cg", "sparse"):
            # a fixed alpha with the free constant on the solver path asked for (it formed the n x l kernel
            # columns whatever the method: "cg" and "sparse" were ignored, and "sparse" with a response that has
            # no polynomial inverse fitted where fit_intercept=False refuses it)
            self.alpha_, self.kernel_ = float(self.alpha), kernels[0]
            return self._solve_free_constant(W, S, Y, kernels[0])
        if self.alpha == "auto" and S.size > STOCHASTIC_MIN_LABELS:
            return self._solve_stochastic(W, S, Y, kernels)
        L = laplacian(W, self.laplacian, dtype=np.float64)
        cols = [graph_kernel_columns(L, phi, S, backend=self.backend) for phi in kernels]
        unpen = np.ones(S.size) if free_constant(self) else None
        rows = _informed_loo_rows(self, W, S, Y) if self.alpha == "auto" else None
        if self.alpha != "auto":
            ki, self.alpha_ = 0, float(self.alpha)
        elif not loo_selects(Y, is_classifier(self), fits_constants=free_constant(self)) or _too_few(rows):
            # leaving out a class's only label leaves the class without one, so the LOO error of every
            # point falls as mu grows and "selects" the top of any grid: it says nothing about mu (nor does a
            # constant regression target with a free constant: every mu fits it exactly).  The
            # largest value of the grid is used (its smoothest fit), without a selection or a warning.
            # (one's own grid: its largest value, with a SelectionWarning naming it)
            grid, _ = self._alpha_grid()
            ki, self.alpha_ = 0, unselected(self._alphas_value(), float(grid.max()), "alphas")
            logger.info("%s: leave-one-out cannot choose alpha (%s); using alpha=%g (the largest of alphas) "
                        "and the first kernel.", type(self).__name__, NO_LOO, self.alpha_)
        else:
            paths = [KernelRidgePath(C[S], unpenalized=unpen) for C in cols]
            grid, default_grid = self._alpha_grid()

            def evaluate(kernel, alpha):
                out = [_path_scores(paths[int(k) - 1], Y, alpha, self._scoring, rows) for k in kernel]
                return np.array([o[0] for o in out]), np.array([o[1] for o in out])

            scale = max(float(np.abs(np.diag(cols[0][S])).max()), 1e-300)
            # the default grid extends at its edges (down to the rounding level of Phi_SS); one's own does not
            res = select_grid(evaluate, {"kernel": np.arange(1, len(kernels) + 1, dtype=float), "alpha": grid},
                              extend=("alpha",), max_extensions=2 if default_grid else 0, criterion="loo",
                              bounds={"alpha": (1e-10 * scale, np.inf)}, names=ALPHAS_AXIS)
            ki, self.alpha_ = int(res.best_params["kernel"]) - 1, res.best_params["alpha"]
            self.loo_scores_ = res.scores
            self.cv_results_ = res.cv_results_
        self.kernel_ = kernels[ki]
        C = cols[ki]
        A = C[S] + self.alpha_ * np.eye(S.size)
        if free_constant(self):
            # [[Phi_SS + mu I, 1], [1^T, 0]] [beta; b] = [y; 0]
            K1 = np.block([[A, np.ones((S.size, 1))], [np.ones((1, S.size)), np.zeros((1, 1))]])
            sol = np.linalg.solve(K1, np.vstack([Y, np.zeros((1, Y.shape[1]))]))
            F = C @ sol[:-1] + sol[-1]
        else:
            F = C @ np.linalg.solve(A, Y)
        _orphans(W, S, Y, F)     # label-free components get the class prior (one rule, with the solvers)
        return F

    def _solve_free_constant(self, W, S, Y, phi):
        r"""The fit with the free constant b by :func:`~graphrkhs.graph_kernel_ridge` on ``method``: the targets
        and a column of ones, :math:`F = \Phi_{:,S} P [y, 1]`, :math:`P = (\Phi_{SS} + \mu I)^{-1}`, then
        :math:`b = 1^T P y / 1^T P 1` and :math:`f = F_y - b F_1 + b` (the saddle-point system of ``_solve``).
        "sparse" returns no coefficients: :math:`P [y, 1] = ([y, 1] - F_S) / \mu` on S."""
        Y1 = np.hstack([Y, np.ones((S.size, 1))])
        if self.method == "sparse":
            F = graph_kernel_ridge(W, S, Y1, phi, alpha=self.alpha_, method="sparse", laplacian=self.laplacian,
                                   backend=self.backend)
            R = Y1 - F[S]
        else:
            F, R = graph_kernel_ridge(W, S, Y1, phi, alpha=self.alpha_, method=self.method,
                                      laplacian=self.laplacian, backend=self.backend, return_coef=True)
        b = R[:, :-1].sum(axis=0) / R[:, -1].sum()
        F = F[:, :-1] - F[:, -1:] * b + b
        # label-free components: the class prior, as in _solve (graph_kernel_ridge gave them mean(y) - b + b and
        # its GraphWarning already)
        F[label_free_mask(W, S)] = Y.mean(axis=0)
        return F

    def _solve_stochastic(self, W, S, Y, kernels):
        r"""``alpha="auto"`` above ``STOCHASTIC_MIN_LABELS`` labels: matrix-free LOO, CG fits (no n x l block).

        The LOO of each (kernel, alpha) is :func:`~graphrkhs.graph_kernel_ridge_stochastic_errors`
        (diag(I - H) from random probes, same probes everywhere); the fit at the choice is CG on
        :math:`\Phi_{SS} + \mu I` with the free constant, if any, eliminated:
        :math:`b = 1^T P y / 1^T P 1`, :math:`P = (\Phi_{SS} + \mu I)^{-1}`.
        """
        L = laplacian(W, self.laplacian, dtype=np.float64)
        unpen = np.ones(S.size) if free_constant(self) else None
        rows = _informed_loo_rows(self, W, S, Y)
        if _too_few(rows):       # (thousands of labels, each alone in its component) the estimator's own rows
            rows = loo_rows_of(self)
        ops = [GraphKernel(L, phi, input="laplacian", backend=self.backend) for phi in kernels]
        cache = {}

        def evaluate(kernel, alpha):
            score = np.empty((kernel.size, alpha.size))
            tie = np.empty_like(score)
            for i, k in enumerate(kernel):          # kernels of the grid
                new = [float(a) for a in alpha if (int(k), float(a)) not in cache]
                if new:
                    sc, tb = graph_kernel_ridge_stochastic_errors(ops[int(k) - 1], S, Y, new, unpenalized=unpen,
                                                                  scoring=self._scoring, loo_rows=rows)
                    cache.update({(int(k), a): (x, t) for a, x, t in zip(new, sc, tb)})
                score[i] = [cache[(int(k), float(a))][0] for a in alpha]
                tie[i] = [cache[(int(k), float(a))][1] for a in alpha]
            return score, tie

        grid, default_grid = self._alpha_grid()
        res = select_grid(evaluate, {"kernel": np.arange(1, len(kernels) + 1, dtype=float), "alpha": grid},
                          extend=("alpha",), max_extensions=2 if default_grid else 0, criterion="loo-stochastic",
                          names=ALPHAS_AXIS)
        ki, self.alpha_ = int(res.best_params["kernel"]) - 1, res.best_params["alpha"]
        self.kernel_ = kernels[ki]
        self.loo_scores_ = res.scores
        self.cv_results_ = res.cv_results_
        if unpen is None:
            return graph_kernel_ridge(ops[ki], S, Y, alpha=self.alpha_, method="cg")
        F, beta = graph_kernel_ridge(ops[ki], S, np.hstack([Y, np.ones((S.size, 1))]), alpha=self.alpha_,
                                     method="cg", return_coef=True)
        b = beta[:, :-1].sum(axis=0) / beta[:, -1].sum()          # 1^T P y / 1^T P 1
        return F[:, :-1] - F[:, -1:] * b + b


def _informed_loo_rows(estimator, W, S, Y):
    """``loo_rows`` of the graph kernel ridge's leave-one-out: the estimator's own (:func:`loo_rows_of`: a
    classifier's classes labeled twice) less the labeled nodes alone among the labels of their connected
    component.  Without its label such a node's component is label-free and the refit gives it the mean target
    (the class prior, ``_orphans``) whatever alpha and kernel; the closed form scored instead its kernel value
    0 or, with a free constant, the constant b fitted to the other components' labels, which moves with alpha
    (a regressor's choice went to alpha 0.32 where the refits' LOO is lowest at 1e-3).  The rule of
    :func:`~graphrkhs.tikhonov_path_errors`.  None when every row is scored."""
    _, comp = connected_components(W)       # plain components: those of the orphan rule (label_free_mask)
    informed = np.bincount(comp[S], minlength=comp.max() + 1)[comp[S]] > 1
    own = loo_rows_of(estimator)
    if own is None:
        return None if informed.all() else informed
    classes = class_loo_rows(np.asarray(Y, dtype=np.float64).reshape(S.size, -1))
    return classes & informed


def _too_few(rows):
    """Whether a mask of scored rows (None: all) leaves fewer than ``MIN_LABELS`` rows to rank by."""
    return rows is not None and int(np.count_nonzero(rows)) < MIN_LABELS


def _path_scores(path, Y, alphas, scoring, loo_rows=None):
    """(score, tie-break) of a ridge path: LOO accuracy (ties by LOO squared error) or minus the LOO MSE
    (``loo_rows``: the rows scored, :func:`~graphrkhs.loo_scores`)."""
    Y2 = np.asarray(Y, dtype=np.float64).reshape(Y.shape[0], -1)
    # in batches of ridges: a grid of 10^6 alphas held every LOO residual at once (6.8 GB on 600 nodes)
    return in_ridge_batches(lambda r: loo_scores(path.loo_residuals(Y, r), Y2, scoring, loo_rows=loo_rows),
                            alphas, *Y2.shape)


class GraphKernelRidgeClassifier(_TransductiveClassifier, _GraphKernelRidge):
    __doc__ = r"""Kernel ridge in the graph RKHS :math:`\mathcal H_\varphi` (Pena 2017), one-vs-all.

    :math:`F = \Phi_{:,S} (\Phi_{SS} + \mu I)^{-1} Y_S` with
    :math:`\Phi = \varphi(L)` (:func:`~graphrkhs.graph_kernel_ridge`).  With
    ``alpha="auto"``, :math:`\mu` (and the kernel, given a list) is chosen by
    exact leave-one-out over the labeled nodes
    (:func:`~graphrkhs.graph_kernel_ridge_loo`): LOO accuracy, ties broken by
    LOO squared error.  With exactly one labeled node per class the LOO says
    nothing about :math:`\mu` (leaving a node out leaves its class without a
    label, and every LOO error then falls as :math:`\mu` grows), so the largest
    value of ``alphas`` is used without a selection (logged at INFO); the same
    with fewer than 3 labeled nodes (:ref:`ug_one_label`).  A labeled node
    alone among the labels of its connected component is not scored (without
    its label the refit gives its component the class prior whatever
    :math:`\mu`), as in :func:`~graphrkhs.tikhonov_path_errors`.  Above
    ``STOCHASTIC_MIN_LABELS`` (2000) labeled nodes the LOO is matrix-free
    (:func:`~graphrkhs.graph_kernel_ridge_stochastic_errors`: the diagonal
    of the hat matrix from 64 random probes, CG solves, never the
    :math:`n \times l` block of kernel columns) and so is the final fit.
    Never looks at unlabeled labels.  ``predict_proba`` is the softmax of the
    one-vs-all scores over the classes.

    The LOO accuracy is that of the argmax of the held-out one-vs-all
    scores: ``class_priors`` and ``class_normalization`` act on the decision
    of the fit at the chosen :math:`\mu` only, not on the held-out decisions
    that choose it.  Scoring the decision rule itself would need, for every
    left-out label and every :math:`\mu`, the normalization refitted on the
    refit's scores of every unlabeled node (the masses of ``"mass"`` with its
    minimum shift, an O(n) pass per left-out label) and, with
    ``class_priors``, a size-constrained assignment over the unlabeled nodes
    per left-out label -- one refit's cost each, not the closed form's.

    Parameters
    ----------
    kernel : filter or list of filters, optional
        The response :math:`\varphi` (default ``Matern(2, 10.0)``,
        :math:`(0.04 + \lambda)^{-2}`, see :func:`~graphrkhs.filters.default_kernel`).
    alpha : float > 0 or "auto", default="auto"
        :math:`\mu`.
    alphas : sequence of float or None, default=None
        The grid for ``alpha="auto"``.  None: (1e-4, 1e-3, 1e-2, 1e-1, 1), extended
        geometrically at its edges when the choice sits there; a sequence: one's own
        grid, not extended (a :class:`~graphrkhs.SelectionWarning` says when the choice
        is at its edge), and a value used without a selection is its largest.
    method : {"auto", "direct", "cg", "sparse"}, default="auto"
        Solver path for a fixed ``alpha`` (see :func:`~graphrkhs.graph_kernel_ridge`).
    fit_intercept : bool or "auto", default="auto"
        A free (unpenalized) constant b: :math:`f = \Phi_{:,S}\beta + b` with
        :math:`[[\Phi_{SS} + \mu I, 1], [1^T, 0]] [\beta; b] = [y_S; 0]`, so that a
        shift of y shifts the fit; "auto": for regressors only (the leave-one-out
        selection of ``alpha`` then keeps the constant free too).
    laplacian : {"normalized", "combinatorial"}, default="normalized"
    backend : {"auto", "numpy", "numba", "scipy", "mpi", "dask"}, default="auto"
        Where the Chebyshev passes and solves run (see
        :func:`~graphrkhs.graph_kernel_ridge`).
    """ + _GRAPH_DOC + r"""
    Attributes
    ----------
    alpha_ : float
        The ridge weight used.
    kernel_ : filter
        The response used.
    loo_scores_ : ndarray of shape (n_kernels, n_alphas)
        Leave-one-out scores of the grid (``alpha="auto"`` only; higher is better).
    classes_, transduction_, scores_, label_distributions_, n_features_in_
        As described in :ref:`ug_transductive` ("Using the estimators").

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import GraphKernelRidgeClassifier
    >>> X = np.r_[np.zeros((5, 1)), np.ones((5, 1))] + np.arange(10)[:, None] * 1e-3
    >>> y = np.full(10, -1); y[[0, 1]], y[[8, 9]] = 0, 1
    >>> GraphKernelRidgeClassifier(n_neighbors=3).fit(X, y).transduction_
    array([0, 0, 0, 0, 0, 1, 1, 1, 1, 1])
    """

    _scoring = "accuracy"


class GraphKernelRidgeRegressor(_TransductiveRegressor, _GraphKernelRidge):
    __doc__ = r"""Kernel ridge in the graph RKHS :math:`\mathcal H_\varphi` (Pena 2017), regression.

    :math:`f = \Phi_{:,S} \beta + b`, :math:`[[\Phi_{SS} + \mu I, 1], [1^T, 0]]
    [\beta; b] = [y_S; 0]` with the default ``fit_intercept="auto"`` (a free constant
    b, so that a shift of y shifts the fit), :math:`f = \Phi_{:,S} (\Phi_{SS} + \mu
    I)^{-1} y_S` with ``fit_intercept=False``; ``alpha="auto"`` minimizes the exact
    leave-one-out squared error.  Parameters as in :class:`GraphKernelRidgeClassifier`.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import GraphKernelRidgeRegressor, filters
    >>> W = np.diag(np.ones(4), 1); W = W + W.T                 # path on 5 nodes
    >>> y = np.array([0.0, np.nan, np.nan, np.nan, 1.0])
    >>> est = GraphKernelRidgeRegressor(filters.RegularizedLaplacian(1.0), alpha=1e-3, graph="precomputed")
    >>> f = est.fit(W, y).transduction_
    >>> bool(np.all(np.diff(f) > 0))                           # increasing from label 0 to label 1
    True
    """


# ---------------------------------------------------------------------------
# Poisson learning + graph kernel ridge: the standardized-score ensemble
# ---------------------------------------------------------------------------

def _standardize_columns(F, rows=None, ref=None, pooled=False):
    r"""Each class column standardized over the nodes ``rows``: :math:`z(F)_{ic} = (F_{ic} - m_c) / s_c`.

    :math:`m_c` and :math:`s_c` are the mean and the population standard deviation (ddof 0) of column
    c over the nodes ``ref`` (a boolean mask within ``rows``: the ensemble passes the unlabeled ones; None, or
    a mask with no node: ``rows``), applied to every node of ``rows`` (a boolean mask; None: every node); the
    other nodes get z = 0.  A constant column (:math:`s_c = 0`) gives 0, not NaN.  The deviations are divided
    by their largest magnitude before :math:`s_c` is taken (z is invariant to it): Poisson's potentials scale
    as 1/c with the edge weights, and at c = 2^-600 their squares overflowed (z = 0), at 2^600 they
    underflowed (z ~ 1e120).  ``pooled``: one mean and one spread over every entry of the ``ref`` rows (all
    columns), which keeps each row's order of the columns (its argmax).  Deviations at the rounding level of
    the values (64 eps of their largest magnitude) count as none (z = 0): scaled to a unit spread they made up
    a decision (two ridge scores equal but for 1e-17 became -0.5 and +0.5).
    """
    F = np.asarray(F, dtype=np.float64)
    rows = np.ones(F.shape[0], dtype=bool) if rows is None else np.asarray(rows, dtype=bool)
    Z = np.zeros_like(F)
    if not rows.any():
        return Z
    ref = rows if ref is None else np.asarray(ref, dtype=bool) & rows
    if not ref.any():
        ref = rows
    axis = None if pooled else 0
    mean = F[ref].mean(axis=axis)
    top = np.abs(F[ref] - mean).max(axis=axis)
    varies = top > 64 * np.finfo(np.float64).eps * np.abs(F[ref]).max(axis=axis)
    unit = np.where(varies, top, 1.0)
    s = ((F[ref] - mean) / unit).std(axis=axis)
    Z[rows] = np.where(varies, (F[rows] - mean) / unit / np.where(s > 0, s, 1.0), 0.0)
    return Z


#: Fewest columns for which ``graph="auto"`` of :class:`PoissonRidgeEnsembleClassifier` considers the
#: cosine graph (with non-negative entries and no zero row): images, counts and histograms have many
#: more; geometric data (2-D/3-D shapes, a few physical measurements) fewer.
AUTO_COSINE_MIN_FEATURES = 32
#: r of the self-tuning weights exp(-d^2 / (r^2 sigma_i sigma_j)) of the cosine branch (GraphLearning's
#: sharpness exp(-4 d^2 / (sigma_i sigma_j))).
AUTO_RELATIVE_WIDTH = 0.5
#: Fewest unlabeled reached nodes over which :class:`PoissonRidgeEnsembleClassifier` takes each class
#: column's mean and spread; with fewer, one mean and spread per member over all its columns (still over the
#: unlabeled reached nodes), which keeps each member's decision.  A column's mean over 1 node makes every
#: z-score 0 there, over 2 every column +-1: the classes tied and the first won (a 3-node path labeled
#: (0, 1, unlabeled) was labeled 0 everywhere, the labeled 1 and its only neighbour included, where both
#: members give 0, 1, 1).  On random graphs with 2 to 9 unlabeled nodes the ensemble disagreed with both
#: members where they agreed on 1-14 % of those nodes.
ENSEMBLE_MIN_UNLABELED_STATISTICS = 10


def prefers_cosine_graph(X):
    """The data guard of ``graph="auto"``: ``X`` has at least ``AUTO_COSINE_MIN_FEATURES`` columns, no
    negative entry and no all-zero row (a zero row has no direction)."""
    if sp.issparse(X):            # the same test on the stored entries (the others are zeros)
        X = sp.csr_array(X, copy=True)
        X.sum_duplicates()
        X.eliminate_zeros()
        return bool(X.shape[1] >= AUTO_COSINE_MIN_FEATURES and X.shape[0] > 0 and (X.data >= 0).all()
                    and (np.diff(X.indptr) > 0).all())
    X = np.asarray(X)
    return bool(X.ndim == 2 and X.shape[1] >= AUTO_COSINE_MIN_FEATURES and X.shape[0] > 0
                and X.min() >= 0 and (X.max(axis=1) > 0).all())


#: ``graph="auto"`` on square images solves on a graph that also holds four one-pixel translates of every
#: image (unlabeled nodes) when there are at most this many images (the graph then has 5n nodes): digits at 10
#: labels per class 98.43 -> 98.65 % over 20 draws (paired +0.22, se 0.06; 1 / 5 / 50 per class +0.32 / +0.11
#: / +0.03), benchmarks/shift_augmentation.py, for a fit 8x as long (0.35 -> 2.85 s).  A budget on cost:
#: 5000 images of 32 x 32 pixels took 3.6 -> 31.8 s a fit (review, synthetic data), and the gain above the
#: digits' size is unmeasured (Fashion-MNIST, 10000 images, labeled copies: +0.02 at 10 per class).
SHIFT_COPIES_MAX_IMAGES = 2000

#: The translates of :data:`SHIFT_COPIES_MAX_IMAGES`: (rows, columns) moved, zeros shifted in.
IMAGE_SHIFTS = ((0, 1), (0, -1), (1, 0), (-1, 0))


def image_translates(X, image_shape):
    r"""The one-pixel translates of the images ``X`` (n, h w), zeros shifted in, stacked shift by shift.

    Rows in the order of :data:`IMAGE_SHIFTS` (n rows each); a translate that is all zeros (an image whose ink
    lies in the row or column shifted out) is dropped, since the cosine and tangent distances need a non-zero
    row.  Returns ``(T, source)``: the translates and the image each one comes from.
    """
    h, w = image_shape
    images = np.asarray(X).reshape(-1, h, w)
    blocks, sources = [], []
    for dy, dx in IMAGE_SHIFTS:
        moved = np.zeros_like(images)
        moved[:, max(dy, 0):h + min(dy, 0), max(dx, 0):w + min(dx, 0)] = \
            images[:, max(-dy, 0):h + min(-dy, 0), max(-dx, 0):w + min(-dx, 0)]
        moved = moved.reshape(images.shape[0], -1)
        keep = (moved != 0).any(axis=1)
        blocks.append(moved[keep])
        sources.append(np.flatnonzero(keep))
    return np.concatenate(blocks), np.concatenate(sources)


#: Bytes of dense rows a sparse ``X`` may be expanded to for the square-image test of ``graph="auto"``.
SPARSE_IMAGE_TEST_BYTES = 64 * 2**20


def _sparse_square_image_shape(X):
    """:func:`square_image_shape` of a sparse ``X``: on the dense rows of the sample a dense ``X`` is tested on.

    Only when the columns can be a square image (``p = s^2``, ``s >= MIN_IMAGE_SIDE``): other sparse data (text
    counts, 50000 columns) are never expanded.  At most ``SPARSE_IMAGE_TEST_BYTES`` of dense rows (images
    larger than 64 x 64 pixels are tested on fewer rows than ``IMAGE_TEST_ROWS``), never a dense copy of a
    large ``X``.
    """
    n, p = X.shape
    side = int(round(np.sqrt(p)))
    if side * side != p or side < MIN_IMAGE_SIDE or n < 3:
        return None
    n_rows = min(n, IMAGE_TEST_ROWS, max(3, SPARSE_IMAGE_TEST_BYTES // (8 * p)))
    # the rows square_image_shape draws from a dense X (the same generator); it then takes all of them
    rows = np.sort(np.random.default_rng(0).choice(n, n_rows, replace=False))
    return square_image_shape(sp.csr_array(X)[rows].toarray())


def _dense_images(X):
    """A sparse ``X`` of square images as the dense rows the tangent distance compares (memory checked first)."""
    memory_guard(8.0 * X.shape[0] * X.shape[1],
                 f"the dense copy of {X.shape[0]} sparse images of {X.shape[1]} pixels (graph='auto' chose the "
                 "tangent distance, which compares dense rows)",
                 "pass graph='knn' (the cosine or Euclidean graph of the sparse rows), or fewer images.")
    return X.toarray()


def _auto_graph_spec(X, n_neighbors=10, *, weight=None, sigma=None):
    r"""The graph ``graph="auto"`` builds from the points ``X`` (see :class:`PoissonRidgeEnsembleClassifier`).

    Cosine self-tuning kNN graph (:math:`r = 1/2`) when ``prefers_cosine_graph(X)`` -- with the tangent
    distance when the rows are also square raster images (:func:`square_image_shape`) -- else the
    Euclidean Gaussian kNN graph (:func:`~graphrkhs.knn_graph`'s defaults); a ``weight`` given
    replaces the weights of either branch (with ``knn_graph``'s meaning of it and of ``sigma``).
    """
    metric, image_shape = ("cosine" if prefers_cosine_graph(X) else "euclidean"), None
    if metric == "cosine":
        if sp.issparse(X):
            image_shape = _sparse_square_image_shape(X)
        else:
            image_shape = square_image_shape(X)
        if image_shape is not None:
            metric = "tangent"
    if weight is not None:      # the user's weights, with knn_graph's meaning (and defaults)
        return GraphSpec(n_neighbors=n_neighbors, weight=weight, sigma=sigma, metric=metric, image_shape=image_shape)
    if metric != "euclidean":
        return GraphSpec(n_neighbors=n_neighbors, weight="self-tuning", relative_width=AUTO_RELATIVE_WIDTH,
                         metric=metric, image_shape=image_shape)
    return GraphSpec(n_neighbors=n_neighbors, sigma=sigma)     # exactly the graph of graph="knn"


class PoissonRidgeEnsembleClassifier(_TransductiveClassifier, _GraphKernelRidge):
    __doc__ = r"""Poisson learning and graph kernel ridge on one graph: their standardized scores averaged.

    .. math::

       F = w\, z(F_{\mathrm{P}}) + (1 - w)\, z(F_{\mathrm{R}}), \qquad
       z(F)_{ic} = \frac{F_{ic} - m_c}{s_c + 10^{-300}},

    :math:`F_{\mathrm{P}}` Poisson learning's class scores (Calder, Cook,
    Thorpe & Slepcev, ICML 2020; :func:`~graphrkhs.poisson_learning`, as
    :class:`PoissonLearningClassifier`), :math:`F_{\mathrm{R}}` graph kernel
    ridge's one-vs-all scores (Pena 2017; :math:`\Phi_{:,S}(\Phi_{SS} + \mu
    I)^{-1} Y_S`, as :class:`GraphKernelRidgeClassifier`, with its own
    leave-one-out choice of :math:`\mu` for ``alpha="auto"``), both on the
    same graph, built once; :math:`m_c`, :math:`s_c` the mean and population
    standard deviation of class column c over the unlabeled nodes some label
    reaches (the nodes decided: a labeled node's Poisson potential is a
    source's peak, and one labeled outlier set a whole column's spread) --
    with fewer than ``ENSEMBLE_MIN_UNLABELED_STATISTICS`` (10) such nodes,
    one mean and spread per member over all its columns (a column's over one
    or two nodes ties every class; the pooled ones keep each member's
    decision);
    the nodes of
    components without labels get :math:`F = 0` and the class prior, as in
    every transductive classifier.  Class = argmax of :math:`F` (then ``class_priors`` /
    ``class_normalization`` as for every classifier).  The standardization
    puts the two methods' scores, of very different scales (Poisson's
    potentials grow with the graph, ridge scores live in [0, 1]), on one
    scale per class; it also removes any positive rescaling of a class column,
    so Poisson's :math:`b / \bar y` reweighting would change nothing and is
    not applied.  ``w = 1`` labels as standardized Poisson learning, ``w = 0``
    as standardized kernel ridge.

    With ``class_priors`` :math:`b` (class proportions, known in advance) the
    u unlabeled nodes U are labeled

    .. math::

       c(i) = \arg\max_c (F_{ic} - p_c), \qquad
       p = \text{the prices of } \max_{c} \sum_{i \in U} F_{i, c(i)}
       \ \text{s.t.}\ |\{i \in U : c(i) = j\}| = n_j ,

    :math:`n_j` = ``class_sizes(b, u)`` (:math:`u b_j` rounded by largest
    remainders): the labeling of U with the prescribed class sizes and the
    largest total standardized score, by the auction algorithm (Bertsekas
    1988) with prices that separate its labeling
    (:func:`~graphrkhs.solvers.size_constrained_assignment`), so the predicted
    class counts on U are exactly :math:`n_j` (unless scores tie) and new
    points are labeled by the same shifted scores.  This is the
    volume-constrained decision of Poisson learning with class priors
    (Calder et al. 2020; GraphLearning's ``class_priors`` reaches the sizes
    approximately, by gradient steps on multiplicative class weights
    :math:`\arg\max_c w_c \hat F_{ic}`) and of the auction dynamics of
    Jacobs, Merkurjev & Esedoglu (J. Comput. Phys. 2018), here on the
    ensemble's scores, exactly and with additive prices (the dual variables
    of the assignment).  On Fashion-MNIST (the cosine graph below, 5 draws,
    true priors; ``benchmarks/results/label_rates_exploration.md``, session
    4) the priors changed the accuracy by -0.75 / +0.17 / +0.49 / +0.80
    points at 1 / 5 / 10 / 50 labels per class (66.19 / 73.49 / 77.09 /
    82.09 %), against 65.23 / 70.39 / 73.94 / 76.99 for the best of
    GraphLearning's poisson and volume_mbo given the same priors on its own
    graph.

    In the label-rate exploration of issue 15 on Fashion-MNIST raw pixels
    (``benchmarks/results/label_rates_exploration.md``, session 3; 5 label
    draws, a 10-NN self-tuning cosine graph), ``w = 0.5`` labeled 66.9 / 73.2
    / 76.7 / 81.4 % of the unlabeled images at 1 / 5 / 10 / 50 labels per
    class, against 65.5 / 67.6 / 70.6 / 71.3 (Poisson) and 63.2 / 72.8 /
    76.4 / 81.8 (kernel ridge) on the same graph and draws; over 20 draws on
    that cosine graph (``benchmarks/label_rates.py``, ``benchmarks/REPORT.md``;
    the default on images before the tangent distance) 62.70 / 72.44 /
    76.40 / 81.40 %, against 62.37 / 69.25 / 70.43 / 71.79 (Poisson) and
    59.74 / 72.20 / 76.50 / 81.73 (kernel ridge).  On the tangent graph, the
    default on images since then, 64.41 / 74.02 / 77.83 / 82.35 % over 20
    draws, against 59.91 / 68.82 / 73.51 / 78.89 for the best of
    GraphLearning's methods on its own graph and 63.79 / 73.05 / 77.06 /
    82.30 for the best of them handed the same graph.  It is the library's recommended
    classifier for transductive labeling: the default method of
    ``graphrkhs label`` and the first row of ``graphrkhs demo``.
    ``predict_proba`` is the softmax of the combined scores (a monotone map,
    not a calibrated probability).

    **Default graph** (``graph="auto"``), resolved at fit time from the
    points and recorded in ``graph_spec_`` (and logged, level INFO, by the
    ``graphrkhs`` logger):

    * images, counts, histograms -- ``X`` with at least
      ``AUTO_COSINE_MIN_FEATURES`` (32) columns, no negative entry and no
      all-zero row: the cosine self-tuning kNN graph
      ``knn_graph(X, n_neighbors, weight="self-tuning", relative_width=0.5,
      metric="cosine")``, weights :math:`\exp(-4 d_{ij}^2 / (\sigma_i
      \sigma_j))` on the rows scaled to unit length.  That is the graph of the
      Fashion-MNIST figures above; on scikit-learn's digits (64 columns,
      10 labels per class, 10 draws) it labels 97.5 % against 96.7 % for the
      Euclidean Gaussian graph (user guide, "Transductive learning");
    * and square raster images -- :math:`s^2` columns, :math:`s \ge 8`, whose
      vertically and horizontally adjacent pixels are both more correlated than
      the pixels near only in the reading order
      (``graphrkhs.graphs.square_image_shape``): the same graph with
      ``metric="tangent", image_shape=(s, s)``, Simard et al.'s tangent distance
      between the images (:func:`~graphrkhs.knn_graph`; sparse images are
      densified for it, so the fit is that on ``X.toarray()``).  Digits 1 / 10 labels
      per class (20 draws): 93.2 / 98.4 % against 90.3 / 97.7 % on the cosine
      graph; Fashion-MNIST 1 / 5 / 10 (10 draws): 65.0 / 74.8 / 77.8 against
      62.8 / 72.8 / 76.3.  With at most ``SHIFT_COPIES_MAX_IMAGES`` (2000)
      images the scores are solved on the same rule's graph of the images
      *and* their four one-pixel translates (up, down, left, right, zeros
      shifted in), unlabeled nodes that carry
      translation invariance into the graph as data augmentation; the fitted
      graph, ``predict`` and ``propose_labels_for`` keep the n original nodes.
      Digits (``benchmarks/shift_augmentation.py``, 20 draws): 93.54 / 97.73 /
      98.65 / 99.22 % at 1 / 5 / 10 / 50 labels per class against 93.22 /
      97.61 / 98.43 / 99.19 without (paired +0.22, se 0.06, at 10 per class),
      for a fit about 8 times as long (0.35 -> 2.85 s); nodes no label
      reaches in that graph get the class prior;
    * anything else (low-dimensional or signed features): the Euclidean
      Gaussian kNN graph ``knn_graph(X, n_neighbors)``, the library's default.
      Cosine distances ignore the length of a point: on two moons (2-D,
      n = 1000, noise 0.1, 2 labels per class, 10 draws) the cosine graph
      labels 79.2 % against 99.9 % for this graph (Euclidean self-tuning
      weights, r = 1/2: 93.8 %), on two circles 49.8 % against 100 %.

    The 32-column threshold keeps every low-dimensional geometric data set
    (where a point's length carries information) on the Euclidean graph;
    non-negativity makes the cosine distance a comparison of profiles
    (pixel intensities, counts), which is where it was measured to win.
    A ``weight`` given replaces the weights of either branch, with
    :func:`~graphrkhs.knn_graph`'s meaning of it and of ``sigma`` (the
    metric stays the guard's choice); ``graph="knn"``
    (or ``"epsilon"``, or a :class:`~graphrkhs.GraphSpec`) builds exactly the
    graph asked for, as every other estimator.

    Parameters
    ----------
    kernel : filter or list of filters, optional
        The response :math:`\varphi` of the kernel ridge part (default
        ``Matern(2, 10.0)``, as :class:`GraphKernelRidgeClassifier`).
    poisson_weight : float in [0, 1], default=0.5
        :math:`w`, the weight of the standardized Poisson scores.
    alpha : float > 0 or "auto", default="auto"
        :math:`\mu` of the kernel ridge part; "auto": exact leave-one-out over
        ``alphas`` on the ridge scores alone (as :class:`GraphKernelRidgeClassifier`).
    alphas : sequence of float or None, default=None
        The grid for ``alpha="auto"``.  None: (1e-4, 1e-3, 1e-2, 1e-1, 1), extended
        geometrically at its edges when the choice sits there; a sequence: one's own
        grid, not extended (a :class:`~graphrkhs.SelectionWarning` says when the choice
        is at its edge), and a value used without a selection is its largest.
    fit_intercept : bool or "auto", default="auto"
        A free constant in the kernel ridge part, as
        :class:`~graphrkhs.GraphKernelRidgeClassifier`'s ("auto": none, this is a classifier).
    method : {"auto", "direct", "cg", "sparse"}, default="auto"
        Kernel ridge solver path for a fixed ``alpha``.
    laplacian : {"normalized", "combinatorial"}, default="normalized"
        Laplacian of the kernel ridge part (Poisson learning uses the
        combinatorial one, as :func:`~graphrkhs.poisson_learning`).
    tol : float, default=1e-6
        CG relative residual of the Poisson solve.
    preconditioner : {"auto", "amg", "jacobi", None}, default="auto"
        Of the Poisson solve, see :func:`~graphrkhs.poisson_learning`.
    backend : {"auto", "numpy", "numba", "scipy", "mpi", "dask"}, default="auto"
        Where the kernel ridge part's Chebyshev passes and solves and the
        Poisson solve run (see :class:`PoissonLearningClassifier`).
    """ + _ENSEMBLE_GRAPH_DOC + r"""
    Attributes
    ----------
    graph_spec_ : GraphSpec or None
        The specification of the graph built from ``X`` (for ``graph="auto"``
        the resolved one, see "Default graph" above); None with
        ``graph="precomputed"``.
    poisson_scores_, ridge_scores_ : ndarray of shape (n_nodes, n_classes)
        :math:`F_{\mathrm{P}}` and :math:`F_{\mathrm{R}}` before standardization.
    alpha_, kernel_, loo_scores_, cv_results_
        Of the kernel ridge part, see :class:`GraphKernelRidgeClassifier`.
    classes_, transduction_, scores_, label_distributions_, n_features_in_
        See :mod:`graphrkhs.transductive`; ``scores_`` is :math:`F`.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import PoissonRidgeEnsembleClassifier
    >>> X = np.r_[np.zeros((5, 1)), np.ones((5, 1))] + np.arange(10)[:, None] * 1e-3
    >>> y = np.full(10, -1); y[[0, 1]], y[[8, 9]] = 0, 1
    >>> PoissonRidgeEnsembleClassifier(n_neighbors=3).fit(X, y).transduction_
    array([0, 0, 0, 0, 0, 1, 1, 1, 1, 1])
    """

    _scoring = "accuracy"
    _equal_sizes_prior = True       # per-class standardized scores (warn_unequal_label_counts)
    _parameter_constraints = {"poisson_weight": [Interval("real", 0, 1, closed="both")], "tol": _TOL,
                              "preconditioner": _PRECONDITIONERS,
                              "graph": [Options("auto", "knn", "epsilon", "precomputed"), GraphSpec],
                              "weight": [Options(*WEIGHTS), None]}

    def __init__(self, kernel=None, *, poisson_weight: float = 0.5, alpha: Union[float, str] = "auto",
                 alphas: Optional[Sequence[float]] = None, fit_intercept: Union[bool, str] = "auto",
                 method: str = "auto", laplacian: str = "normalized", tol: float = 1e-6,
                 preconditioner: Optional[str] = "auto", graph: GraphArg = "auto", n_neighbors: int = 10,
                 radius: Optional[float] = None, weight: Optional[str] = None, sigma: Optional[float] = None,
                 random_state: RandomStateLike = None,
                 unlabeled: Optional[Hashable] = UNLABELED, class_priors: Optional[Sequence[float]] = None,
                 class_normalization: Optional[str] = None, verbose: Optional[bool] = None, backend: str = "auto"):
        self._store_init_params(locals())

    def _validate_input(self, X):
        self.graph_spec_ = None          # stays None for a precomputed graph
        self._solve_graph = None         # set by _build_graph when graph="auto" adds image translates
        self._augmented_label_free = None
        return super()._validate_input(X)

    def _store(self, F, orphan):
        # solved on the graph with the translates: the nodes no label reaches there (a node cut off in the images'
        # own graph can be reached through translates, and its scores are then not the prior)
        augmented = getattr(self, "_augmented_label_free", None)
        self._augmented_label_free = None
        super()._store(F, orphan if augmented is None else augmented)

    def _graph_spec(self, X):
        if self.graph == "auto":
            return _auto_graph_spec(X, self.n_neighbors, weight=self.weight, sigma=self.sigma)
        return super()._graph_spec(X)

    def _points(self, X, reset):
        X = super()._points(X, reset)
        spec = getattr(self, "graph_spec_", None)
        if not reset and sp.issparse(X) and self.graph == "auto" and spec is not None and spec.metric == "tangent":
            X = _dense_images(X)    # new images for the tangent graph graph="auto" chose (as in _build_graph)
        return X

    def _build_graph(self, X):
        if sp.issparse(X) and self.graph == "auto" and self._graph_spec(X).metric == "tangent":
            # square images given sparse: the tangent distance takes dense rows, and graph="auto" builds the
            # graph of the dense fit (it had silently built the cosine graph: 2 of 400 digits labeled otherwise)
            X = _dense_images(X)
        W = super()._build_graph(X)
        self.graph_spec_ = self._graph_spec(X)
        self._solve_graph = None
        spec = self.graph_spec_
        if self.graph == "auto" and spec.metric == "tangent" and X.shape[0] <= SHIFT_COPIES_MAX_IMAGES:
            # the images' one-pixel translates as unlabeled nodes of the graph the scores are solved on (the same
            # rule on all of them); the fitted graph, predict and propose_labels_for keep the original nodes
            T, _ = image_translates(X, check_image_shape(spec.image_shape, X.shape[1]))
            X_aug = np.concatenate([np.asarray(X), T.astype(np.asarray(X).dtype, copy=False)])
            self._solve_graph = (W, spec.build(X_aug, random_state=self.random_state))
            logger.info("%s: solved on %d nodes (%d images and %d one-pixel translates)", type(self).__name__,
                        X_aug.shape[0], X.shape[0], T.shape[0])
        why = ""
        if self.graph == "auto":
            metric = self.graph_spec_.metric
            why = (f" ({'at least' if metric != 'euclidean' else 'not'} "
                   f"{AUTO_COSINE_MIN_FEATURES} non-negative columns without a zero row"
                   f"{', square images of shape %r' % (self.graph_spec_.image_shape,) if metric == 'tangent' else ''}: "
                   f"{metric} graph)")
        logger.info("%s: graph=%r%s built as %r", type(self).__name__, self.graph, why, self.graph_spec_)
        return W

    def _solve(self, W, S, Y):
        augmented = getattr(self, "_solve_graph", None)
        if augmented is not None and augmented[0] is W:
            # graph="auto" on few images: the scores of the original nodes (the first n) on the graph that also
            # holds their translates (SHIFT_COPIES_MAX_IMAGES); the labels stay on the original nodes
            n = W.shape[0]
            self._solve_graph = None        # used once: the 5n-node graph is not kept in the fitted estimator
            W_aug = augmented[1]
            # the graph's own reports count the user's n nodes, not the translates: the label-free warning of the
            # members (about nodes of the 5n graph) is replaced by one about the original nodes no label reaches
            # in the graph solved on (their scores are the prior, as _store then sets them)
            # (this thread's graphrkhs warnings: warnings.catch_warnings swaps the process's filters and
            # showwarning, and two threads of fit left a recording showwarning installed for good)
            with held_warnings() as said:
                F = self._solve_on(W_aug, S, Y)
            for w in said:
                if not (isinstance(w, GraphWarning) and "without any labeled node" in str(w)):
                    warn(w)
            orphan = label_free_mask(W_aug, S)[:n]
            if orphan.any():
                warn(f"{int(orphan.sum())} node(s) lie in connected components without any labeled node (in the "
                     "graph of the images and their one-pixel translates); they get the class prior.", GraphWarning)
            self._augmented_label_free = orphan
            self.poisson_scores_, self.ridge_scores_ = self.poisson_scores_[:n], self.ridge_scores_[:n]
            return F[:n]
        return self._solve_on(W, S, Y)

    def _solve_on(self, W, S, Y):
        # one graph W for both parts (built once by _fit); Y holds the one-hot labels
        # both parts report the same graph (its label-free components, isolated labeled nodes): a GraphWarning
        # of the ridge part that the Poisson part gave already is not shown twice
        # (held per thread, not in warnings.catch_warnings(record=True): see held_warnings)
        with held_warnings() as said:
            F_p = np.asarray(poisson_learning(W, S, Y, tol=self.tol, preconditioner=self.preconditioner,
                                              backend=self.backend),
                             dtype=np.float64).reshape(W.shape[0], -1)
        with held_warnings() as said_r:
            F_r = np.asarray(_GraphKernelRidge._solve(self, W, S, Y), dtype=np.float64).reshape(W.shape[0], -1)
        graph_said = {str(w) for w in said if isinstance(w, GraphWarning)}
        for w in said + [w for w in said_r if not (isinstance(w, GraphWarning) and str(w) in graph_said)]:
            warn(w)
        dtype = getattr(self, "_out_dtype", np.float64)
        self.poisson_scores_, self.ridge_scores_ = F_p.astype(dtype, copy=False), F_r.astype(dtype, copy=False)
        w = float(self.poisson_weight)
        # standardized over the nodes some label reaches: both members give the others the class prior, which
        # has no units, while Poisson's potentials are in 1/units of W -- over all nodes, the units of W moved
        # the decision on reached nodes (W * 1e4: 5 of 90 changed class); the others get z = 0 (no
        # information: the class prior, as in every transductive classifier)
        reached = ~label_free_mask(W, S)
        # the statistics over the unlabeled reached nodes, the ones decided: a labeled node's Poisson potential is
        # a source's peak, and one labeled outlier (degree 1e-16..1e-50: its potential 3.6e4..4e50, legitimately)
        # set its class's standard deviation alone, so that every other node's Poisson z-score was ~0 (the
        # ensemble fell to the ridge part; with poisson_weight=1, 0.902 -> 0.333).  Digits, 20-40 draws at 1 / 5 /
        # 10 labels per class: -0.01 / +0.02 / +0.01 points (paired, se 0.01)
        unlabeled = reached.copy()
        unlabeled[S] = False
        # a class column's mean and spread over fewer than ENSEMBLE_MIN_UNLABELED_STATISTICS nodes are no
        # statistics (one node: every z-score 0; two: every column +-1): then one mean and spread per member
        # over all its columns, which keeps each member's own decision at every node (the labeled nodes stay
        # out of them, for the outlier above)
        pooled = np.count_nonzero(unlabeled) < ENSEMBLE_MIN_UNLABELED_STATISTICS
        F = (w * _standardize_columns(F_p, reached, unlabeled, pooled)
             + (1.0 - w) * _standardize_columns(F_r, reached, unlabeled, pooled))
        if pooled:
            # members that disagree at a node can cancel exactly (one unlabeled node, two classes: each member's
            # pooled z-scores are +-1): the sum's rounding then chose the class, which moved with the order of the
            # nodes (65 / 55 of 120 orders).  Classes within rounding of a row's best tie exactly, and scores
            # within rounding of 0 are 0 (a row of zeros is decided by the class prior, a row of equal nonzero
            # scores by the first class): the same decision whatever the order
            eps = np.finfo(np.float64).eps
            best = F.max(axis=1, keepdims=True)
            F = np.where(best - F <= 64 * eps * (1.0 + np.abs(best)), best, F)
            F = np.where(np.abs(F) <= 64 * eps, 0.0, F)
        # on a graph of several components, the standardization over all reached nodes let a class labeled only
        # in another component win on nodes no label of it reaches (a 200-node component labeled with class 2
        # only: 16 of its nodes predicted class 0); each component decides among the classes labeled in it, as
        # both members do on their own
        return classes_labeled_per_component(F, W, S, Y, margin=1.0)


# ---------------------------------------------------------------------------
# Graph total variation
# ---------------------------------------------------------------------------



#: ``R="auto"`` of the TV regressor drops graph TV when its fit takes one value on at least this fraction of the
#: unlabeled nodes: the degenerate minimizer (spikes on the labels over one constant), measured at 0.96-1.00
#: on smooth targets over 10-dimensional data (make_friedman1, diabetes; 2-10 % labels); a piecewise-constant
#: target's largest class is its largest plateau (0.5 on two moons)
PLATEAU_FRACTION = 0.9


class _GraphTV(_GraphLearner):
    """Parameters and solve shared by the graph-TV classifier and regressor."""

    _parameter_constraints = {"alpha": TUNABLE_POSITIVE, "tol": [POSITIVE], "max_iter": [Interval("int", 1, None)]}

    def __init__(self, alpha: Union[float, str, Sequence[float]] = "auto", *, tol: float = 1e-4,
                 max_iter: int = 20000, graph: GraphArg = "knn",
                 n_neighbors: int = 10, radius: Optional[float] = None, weight: str = "gaussian",
                 sigma: Optional[float] = None, random_state: RandomStateLike = None, verbose: Optional[bool] = None):
        self._store_init_params(locals())

    #: k of the k-fold CV of alpha="auto", and the duality gap of its fits (class decisions and the
    #: ranking of alphas 3-5x apart are settled long before the default tol: see _TV_DOC)
    _CV_FOLDS = 3
    _CV_TOL = 1e-2

    #: the analysis operator of the estimator ("incidence": graph TV; "kernel": R = phi(L)^{-1})
    R = "incidence"

    def _operator(self):
        """The analysis operator of the solve under way: ``R``, or with ``R="auto"`` the candidate being scored
        (then the one chosen, ``R_``)."""
        return getattr(self, "_operator_in_use", None) or self.R

    def _tv(self, W, S, Y, alpha, tol, warm=None):
        # fidelity="degree": scale-invariant in W, labeled nodes within alpha/2 of their targets.
        on_failure = "ignore" if tol != self.tol else "warn"
        if self._operator() == "kernel":
            # the kernel columns Phi[:, S] of the whole labeled set, computed once per fit (_solve);
            # a fold's are a subset of them.  max_iter caps the working-set rounds there.
            K, S_all, C = self._kernel_columns
            cols = C[:, np.searchsorted(S_all, S)]
            fold = S.size < S_all.size
            # solved for Y / u and alpha / u, u a power of two near max |y| (the same solve, bit for bit: the
            # function works in those units itself), so that a fold's sources s -- often ten times max |y| -- and
            # its f = Phi^T s stay finite: at |y| ~ 5e307 they overflowed, every fold's CV error was NaN and
            # R="auto" chose by the NaNs (the fit 23 % off y's own scaled back)
            u = float(np.ldexp(1.0, power_of_two_exponent(Y)))
            # graph_kernel_tv leaves label-free components at its minimizer (0: R = phi(L)^{-1} does not
            # cancel constants); the estimators give them the prior, the rule of every learner, with its
            # warning (below), in place of the solver's.  Held in this thread (held_warnings), not a
            # process-wide warnings filter, which another thread's entering and leaving could leave installed
            with held_warnings() as said:
                F, res = graph_kernel_tv(K, S, Y / u, alpha=alpha / u, tol=tol,
                                         max_iter=min(self.max_iter, KERNEL_TV_MAX_ITER), columns=cols,
                                         on_failure=on_failure, return_info=True, compute_f=not fold)
            for w in said:
                if not (isinstance(w, GraphWarning) and "connected components without any labeled node" in str(w)):
                    warn(w)
            if fold:
                # a cross-validation fold needs f on the labeled nodes only: f_k = Phi[:, k]^T s there,
                # from the shared columns (no Chebyshev pass); elsewhere unused (zeros)
                s = res.sources.reshape(-1, Y.shape[1])
                on = np.flatnonzero(np.any(s != 0, axis=1))
                F = np.zeros((W.shape[0], Y.shape[1]))
                F[S_all] = C[on].T @ s[on]
            with np.errstate(over="ignore"):      # an f beyond float64 is inf: the fit's overflow check reports it
                F = F * u
                res.p, res.sources = res.p * u, res.sources * u
                res.objective = res.objective * u * u
            if not fold:
                _orphans(W, S, Y, F)    # label-free components: the mean of the labeled targets (the class prior)
            return F, res
        f0, p0 = (None, None) if warm is None else warm
        return graph_tv(W, S, Y, alpha=alpha, fidelity="degree", tol=tol, max_iter=self.max_iter, f0=f0, p0=p0,
                        return_info=True, on_failure=on_failure)

    def _solve(self, W, S, Y):
        if self.R != "auto":
            self.R_ = self.R
            return self._solve_with_operator(W, S, Y, self.R)
        # R="auto": each operator with its own alpha selection on the same folds (drawn from the labeled nodes in
        # a canonical order, seeded), the better best CV score wins (ties: "kernel", never degenerate).  Graph TV
        # ("incidence") is exact on piecewise-constant targets over low-dimensional data and degenerate on smooth
        # targets in higher dimension (one constant over the unlabeled nodes: R^2 < 0 on make_friedman1 and the
        # diabetes data at 2-10 % labels, where "kernel" gives 0.14-0.57, the graph kernel ridge's); the held-out
        # labels of the folds see that plateau, so the CV tells the two apart.  Each candidate's warnings (its
        # edge reports, its convergence) are held and only the chosen one's are shown: the other fit is not used
        fits, held = {}, {}
        for op in ("kernel", "incidence"):
            with held_selection_warnings() as held[op]:
                F = self._solve_with_operator(W, S, Y, op)
            fits[op] = (F, self.alpha_, self.cv_results_, self.n_iter_, self.gap_)
        scores = {op: _best_cv_score(fit[2]) for op, fit in fits.items()}
        plateau = self._plateau_fraction(fits["incidence"][0], S, Y)
        if plateau >= PLATEAU_FRACTION:
            # the degenerate graph-TV fit: with a dozen labels its CV can still tie or beat the kernel's (the
            # diabetes data at 2 % labels: chosen in 3 of 5 draws, R^2 0.04 against the kernel's 0.16)
            logger.info("R='auto': graph TV predicts one value on %.0f%% of the unlabeled nodes (the degenerate "
                        "minimizer); R='kernel' is used", 100 * plateau)
            scores["incidence"] = -np.inf
        chosen = "incidence" if scores["incidence"] > scores["kernel"] else "kernel"
        if not np.isfinite(scores["kernel"]) and not np.isfinite(scores["incidence"]):
            logger.info("R='auto': too few labels for the folds to compare the operators; R='kernel' is used")
        release_selection_warnings(held[chosen])
        F, self.alpha_, _, self.n_iter_, self.gap_ = fits[chosen]
        self.R_ = chosen
        self.cv_results_ = _operators_cv_results({op: fit[2] for op, fit in fits.items()})
        return F

    def _plateau_fraction(self, F, S, Y):
        """The largest fraction of the unlabeled nodes on which the graph-TV fit ``F`` takes one value (0 for a
        learner without that failure: the classifier's TV columns are nearly cuts, plateaus by design)."""
        return 0.0

    def _solve_with_operator(self, W, S, Y, op):
        self._operator_in_use = op
        try:
            if op == "kernel":
                phi = self.kernel if self.kernel is not None else default_kernel()
                inv = getattr(phi, "inverse_polynomial", None)
                if inv is None or inv() is None:       # before the kernel columns: the fidelity weights need R
                    raise ValueError(f"R='kernel' needs a kernel whose inverse 1/phi is a polynomial (the entries of "
                                     f"R = 1/phi(L) weigh the labels), e.g. filters.Matern or "
                                     f"filters.RegularizedLaplacian; {phi!r} has none.")
                # the kernel columns Phi[:, S] and the final f = Phi s: Chebyshev passes on the backend
                K = GraphKernel(laplacian(W, self.laplacian, dtype=np.float64), phi, input="laplacian",
                                backend=self.backend)
                self._kernel_columns = (K, S, K.columns(S))
            return self._solve_tv(W, S, Y)
        finally:
            self._kernel_columns = None       # n x l floats: not kept on the fitted estimator
            self._operator_in_use = None

    def _solve_tv(self, W, S, Y):
        alpha = self._select_alpha(W, S, Y)
        F, res = self._tv(W, S, Y, alpha, self.tol)
        self.alpha_ = alpha
        self.n_iter_, self.gap_ = res.n_iter, res.gap
        return F

    def _select_alpha(self, W, S, Y):
        """``alpha_`` by k-fold CV on the labeled nodes (``kfold_scores``); warm starts along each fold's path."""
        grid, extend = grid_of(self.alpha, self._default_alphas(Y), "alpha")
        self.cv_results_ = None
        if grid is None and self.R != "auto":
            return float(self.alpha)
        if grid is None:        # R="auto" with a number: the operators are compared by the CV at that alpha
            grid, extend = np.array([float(self.alpha)]), False
        # the folds are drawn on the labeled nodes in a canonical order, so that the choice does not
        # depend on how the nodes are numbered (a permutation of the rows of X permuted the folds)
        order = _canonical_node_order(W, S, Y)
        S, Y = S[order], Y[order]
        target = self._cv_target(Y)
        if target is None:                    # too few labels (per class) for k-fold: the fallback value
            # (one's own grid: its member nearest that value, with a SelectionWarning)
            return unselected(self.alpha, self._fallback_alpha(grid), "alpha",
                              why="the labels cannot choose it (too few per class for k-fold cross-validation)")
        warm, done = {}, {}
        cv_tol = min(self.tol * 100, self._CV_TOL)

        def run(train, test, alpha):
            key = train.tobytes()
            prev = warm.get(key)
            start = None
            if prev is not None:              # the dual box scales with alpha: rescale p (|p| <= alpha)
                near = min(prev, key=lambda a: abs(np.log(a / alpha)))
                start = (prev[near][0], prev[near][1] * (alpha / near))
            # a fold's graph reports (components its held-out labels leave label-free: "8 node(s) ...
            # without any labeled node" from each fold fit and harmonic fallback) are about a problem the
            # user did not pose; the fit on every label reports the user's graph (held in this thread, not a
            # process-wide warnings filter)
            with held_warnings() as said:
                F, res = self._tv(W, S[train], Y[train], alpha, cv_tol, start)
                warm.setdefault(key, {})[alpha] = (F, res.p)
                done[key, alpha] = self._cv_predict(W, S, Y, train, test, F)
            for w in said:
                if not isinstance(w, GraphWarning):
                    warn(w)

        def fit_predict(train, test, alpha):
            key = train.tobytes()
            if key not in warm:
                # a fold's first call runs its whole grid from the largest alpha down, each fit warm-started
                # from the previous one (large alphas converge fastest); extensions start from the nearest
                for a in sorted(grid, reverse=True):
                    run(train, test, float(a))
            if (key, alpha) not in done:
                run(train, test, alpha)
            return done[key, alpha]

        # one's own grid is not extended but a choice at its edge is reported (extend with no extension: the
        # rule of every "auto" parameter); it was not with the bounded default grid (_cv_extend False), so
        # GraphTVRegressor(alpha=[1e-9, 1e-8]) returned an edge without a SelectionWarning
        res = kfold_scores(fit_predict, target, {"alpha": grid}, n_splits=self._CV_FOLDS,
                           stratify=self._cv_scoring == "accuracy", scoring=self._cv_scoring, random_state=0,
                           extend=("alpha",) if (self._cv_extend or not extend) else (),
                           max_extensions=1 if extend else 0)
        self.cv_results_ = res.cv_results_
        return res.best_params["alpha"]



def _best_cv_score(cv_results):
    """The best mean CV score of a selection's table (the sum over the columns' tables of a per-column
    selection); -inf without one (too few labels for the folds)."""
    if cv_results is None:
        return -np.inf
    if isinstance(cv_results, list):
        return float(sum(_best_cv_score(c) for c in cv_results))
    scores = np.asarray(cv_results["mean_test_score"], dtype=np.float64)
    scores = scores[np.isfinite(scores)]
    return float(scores.max()) if scores.size else -np.inf


def _operators_cv_results(tables):
    """One ``cv_results_`` from the tables of ``R="auto"``'s candidates (``{operator: table}``): their rows one
    after the other with a ``param_R`` column, ranked together (scikit-learn's rule: 1 for the best, ties share
    the smaller rank).  Per-column tables (lists) are joined column by column; None when no candidate had one."""
    if any(t is None for t in tables.values()):
        return None
    first = next(iter(tables.values()))
    if isinstance(first, list):
        return [_operators_cv_results({op: t[j] for op, t in tables.items()}) for j in range(len(first))]
    out = {"params": [{**p, "R": op} for op, t in tables.items() for p in t["params"]]}
    for key in first:
        if key.startswith("param_"):
            out[key] = np.concatenate([np.asarray(t[key]) for t in tables.values()])
    out["param_R"] = np.array([op for op, t in tables.items() for _ in t["params"]], dtype=object)
    for key in first:
        if key != "params" and not key.startswith("param_") and key != "rank_test_score":
            out[key] = np.concatenate([np.asarray(t[key], dtype=np.float64) for t in tables.values()])
    mean = np.where(np.isfinite(out["mean_test_score"]), out["mean_test_score"], -np.inf)
    out["rank_test_score"] = (1 + np.sum(mean[None, :] > mean[:, None], axis=1)).astype(np.int64)
    return out

def _tv_random_state_doc(doc):
    """``doc`` with graph TV's ``random_state``: the graph's seed, not that of the folds of ``alpha="auto"``."""
    old = 'and ``graph="precomputed"`` do not use it.\n'
    assert doc.count(old) == 1
    return doc.replace(old, 'and ``graph="precomputed"`` do not use it; nor do the folds of ``alpha="auto"``\n'
                            '        (a fixed seed, see ``alpha``).\n')


_TV_DOC = r"""
    Parameters
    ----------
    alpha : "auto", float > 0 or sequence of float > 0, default="auto"
        ``"auto"``: chosen by k-fold cross-validation on the labeled nodes
        (:func:`~graphrkhs.kfold_scores`; TV is not linear in the
        labels, so there is no closed-form leave-one-out): the held-out labels
        stay in the graph, unlabeled; each fold runs along the grid with warm
        starts (the previous primal and rescaled dual) at a duality gap of
        1e-2 (classifier) or 1e-3 (regressor), or 100 ``tol`` if smaller.
        The folds are drawn with a fixed seed (0, whatever ``random_state``:
        the same folds, hence the same choice, in every fit) on the labeled
        nodes sorted by weighted degree and sum of squared weights (the
        targets break ties), so the choice depends neither on the numbering of
        the nodes nor on the sign of the targets or the names of the classes.  Classifier: 2 folds (stratified), CV accuracy, ties towards the
        larger (faster) value; grid ``(0.1, 0.3, 0.9)`` with ``R="kernel"``
        (each fit a few working-set rounds on the shared kernel columns), and
        ``(0.5, 0.9)`` with ``R="incidence"``, whose decisions hardly move in
        between (see below), so this mostly guards against a graph where they
        do, at about one extra default fit (digits: 2.5x a fit at 0.5,
        ``benchmarks/selection.py``).  Regressor: 3 folds, grid
        ``(0.1, 0.4, 1.6)`` times the standard deviation of the labeled
        values (each less the midrange of its component's labels; on a
        connected graph, of the labeled values), CV squared error, not extended (smaller values need many
        more iterations and gained nothing in the benchmarks).  A sequence is
        one's own grid; a number is used as is.  With too few labels for
        the folds (2 per class for the classifier, 6 for the regressor):
        0.5 for the classifier (when in the grid), the geometric middle of
        the grid for the regressor.
        :math:`\mu` of the degree-weighted problem (below), a number relative to
        the graph: multiplying all edge weights by c multiplies both terms by c,
        so the solution does not change.  A labeled node stays within
        :math:`\mu / 2` of its target (:func:`~graphrkhs.graph_tv`), so with
        :math:`\mu < 1` every labeled node keeps its class (its own score is
        :math:`\ge 1 - \mu/2 > 1/2`, the others :math:`\le \mu/2`).  The class
        decisions hardly depend on it (on the digits with 10 labels per class,
        :math:`\mu` from 0.05 to 0.9 gave identical labels); larger values converge
        faster (there, at ``tol=1e-2``: 260 iterations at 0.5, 3390 at 0.05).
    tol : float, default=1e-4
        Relative duality gap (:func:`~graphrkhs.graph_tv`'s default; for class
        decisions 1e-2 is usually enough: on the digits with 10 labels per class
        the decisions at 1e-2 and 1e-3 were identical, at half the time).
    max_iter : int, default=20000""" + _GRAPH_DOC + r"""
    Attributes
    ----------
    alpha_ : float
        The :math:`\mu` used.
    cv_results_ : dict or None
        The k-fold scores of the grid (scikit-learn's layout; mean and std
        over folds, higher is better); None without selection.
    n_iter_ : int
        Primal-dual iterations run (of the final fit).
    gap_ : ndarray of shape (n_columns,)
        Final relative duality gaps."""


class _GraphTVWithOperator(_GraphTV):
    """The TV estimators' parameters: the graph TV's plus the analysis operator (``R``, ``kernel``,
    ``laplacian``) and ``backend`` (their distributed parts: the Chebyshev passes of ``R="kernel"`` and the
    classifier's harmonic fallback of ``R="incidence"``; graph TV's primal-dual iterations have none); the
    classifier's own __init__ (with ``unlabeled`` ...) is made from this one, the regressor's (``R="auto"``)
    is its own."""

    _parameter_constraints = {"R": [Options("auto", "kernel", "incidence")], "kernel": ["callable", None],
                              "laplacian": [Options("normalized", "combinatorial")], "backend": _BACKEND}

    def __init__(self, alpha: Union[float, str, Sequence[float]] = "auto", *, R: str = "kernel", kernel=None,
                 laplacian: str = "normalized", tol: float = 1e-4, max_iter: int = 20000, graph: GraphArg = "knn",
                 n_neighbors: int = 10, radius: Optional[float] = None, weight: str = "gaussian",
                 sigma: Optional[float] = None,
                 random_state: RandomStateLike = None, verbose: Optional[bool] = None, backend: str = "auto"):
        self._store_init_params(locals())


class GraphTVClassifier(_TransductiveClassifier, _GraphTVWithOperator):
    __doc__ = r"""Graph total-variation classifier (one-vs-all scores, Pena 2017 "generalized TV").

    Each class column solves the generalized-TV problem of the slides

    .. math::

        \min_f \sum_{j \in S} \lambda_j (y_j - f_j)^2 + \mu \|R f\|_1 ,
        \qquad \lambda_j = \sum_i |R_{ij}| ,

    with :math:`y` the one-hot column of the class; class = argmax;
    ``predict_proba`` is the softmax of the class scores.  ``R`` chooses the
    analysis operator:

    * ``"kernel"`` (default): :math:`R = \varphi(L)^{-1}`, the inverse of the
      graph kernel :math:`\Phi = \varphi(L)` of
      :class:`GraphKernelRidgeClassifier` (``kernel``, default
      :func:`~graphrkhs.filters.default_kernel`, on the ``laplacian``).  With
      :math:`s = R f` this is a lasso on the sources,
      :math:`f = \sum_k s_k \Phi_{:,k}` a sparse kernel expansion (the
      slides' representer form), solved exactly with a certified duality gap
      by :func:`~graphrkhs.graph_kernel_tv` (working sets over the l kernel
      columns :math:`\Phi_{:,S}`, computed once per fit and shared by the
      cross-validation folds).  It stays informative at low label rates: on
      Fashion-MNIST with 10 labels per class its accuracy is within a point
      of the graph kernel ridge's from 2000 to 70000 nodes, at a few working-set
      rounds whatever n (``benchmarks/tv.py``).
    * ``"incidence"``: the graph TV :math:`\sum_e w_e |f_i - f_j|`
      (:func:`~graphrkhs.graph_tv`, diagonally preconditioned Chambolle-Pock;
      :math:`\lambda_j = d_j`, the weighted degree), the default before.  TV
      keeps sharp class boundaries that quadratic penalties smear, but at low
      label rates its minimizer is degenerate: each column is a cut around
      its class's own labeled nodes (cost :math:`\mu d_j` each) over a flat
      plateau.  A node on the "rest" side of every class's cut -- all its
      scores at most 1/2 -- gets no class information from TV (before this
      rule, 12% of the digits, all given the first class); such nodes get the
      scores of Laplace learning on the same graph
      (:func:`~graphrkhs.harmonic_solution`, Zhu et al. 2003), with a
      :class:`~graphrkhs.GraphWarning` that gives their number;
      ``unreached_`` marks them.  On Fashion-MNIST with 10 labels per class
      86% (2000 nodes) to 99.9% (70000) of the nodes are unreached, and the
      classifier is Laplace learning there (12 points below the kernel ridge
      at 70000 nodes).

    With either operator both terms scale alike with R (W for the incidence,
    :math:`\Phi` for the kernel), and a labeled node stays within
    :math:`\mu / 2` of its target, so with :math:`\mu < 1` it keeps its class.
    """ + _tv_random_state_doc(_TV_DOC.replace(
        "    tol : float, default=1e-4",
        r"""    R : {"kernel", "incidence", "auto"}, default="kernel"
        The analysis operator (above).  ``"auto"``: both, each with its own
        ``alpha`` selection on the same folds, the one with the better best
        CV score kept (ties: ``"kernel"``; too few labels for the folds:
        ``"kernel"``); about the cost of the two fits.  The one used is ``R_``.
    kernel : filter from :mod:`graphrkhs.filters`, optional
        :math:`\varphi` of ``R="kernel"`` (default
        :func:`~graphrkhs.filters.default_kernel`); its inverse must be a
        polynomial (``inverse_polynomial()``, e.g. ``filters.Matern``,
        ``filters.RegularizedLaplacian``) for the fidelity weights.
    laplacian : {"normalized", "combinatorial"}, default="normalized"
        The Laplacian of ``R="kernel"``.
    backend : {"auto", "numpy", "numba", "scipy", "mpi", "dask"}, default="auto"
        Where the Chebyshev passes of ``R="kernel"`` (the kernel columns
        :math:`\Phi_{:,S}` and :math:`f = \Phi s`, see
        :func:`~graphrkhs.graph_kernel_tv`) and the harmonic solves of the
        ``R="incidence"`` fallback run (see
        :func:`~graphrkhs.harmonic_solution`; ``"auto"`` is MPI under
        ``mpiexec`` with several ranks).  The lasso on the l labeled sources
        and the primal-dual iterations of :func:`~graphrkhs.graph_tv` are
        not distributed: each process runs them, whatever the backend.
    tol : float, default=1e-4""", 1).replace(
        "max_iter : int, default=20000",
        "max_iter : int, default=20000\n        Primal-dual iterations (``R=\"incidence\"``); working-set rounds are capped at\n"
        "        ``min(max_iter, KERNEL_TV_MAX_ITER)`` (50) for ``R=\"kernel\"``.", 1)) + r"""
    R_ : str
        The operator used (``R``, or the one ``R="auto"`` chose); with
        ``"auto"``, ``cv_results_`` holds both candidates' rows (``param_R``).
    unreached_ : ndarray of bool, shape (n_nodes,)
        Nodes no TV class column reached (labeled by the harmonic fallback);
        all False with ``R="kernel"``.
    classes_, transduction_, scores_, label_distributions_, n_features_in_
        As described in :ref:`ug_transductive` ("Using the estimators").

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import GraphTVClassifier
    >>> X = np.r_[np.zeros((5, 1)), np.ones((5, 1))] + np.arange(10)[:, None] * 1e-3
    >>> y = np.full(10, -1); y[0], y[9] = 0, 1
    >>> GraphTVClassifier(n_neighbors=3).fit(X, y).transduction_
    array([0, 0, 0, 0, 0, 1, 1, 1, 1, 1])
    """

    _cv_scoring = "accuracy"
    _cv_extend = False          # bounded: above 1 labeled nodes may lose their class
    _CV_FOLDS = 2               # two fits per grid value: the selection costs about one default fit

    def _default_alphas(self, Y):
        # below 1 every labeled node keeps its class (module docs).  Incidence: decisions are flat in
        # between, and small values converge slowly (0.3: 2x the iterations of 0.5).  Kernel: a few
        # working-set rounds whatever the value; on Fashion-MNIST (10 labels per class) 0.2 was 0.2
        # points above 0.5, so the grid reaches down
        return np.array([0.1, 0.3, 0.9]) if self._operator() == "kernel" else np.array([0.5, 0.9])

    def _fallback_alpha(self, grid):
        # the value of the documentation's digits study (fast, every labeled node keeps its class)
        return 0.5 if grid.min() <= 0.5 <= grid.max() else float(np.sqrt(grid[0] * grid[-1]))

    def _cv_target(self, Y):
        cls = Y.argmax(axis=1)
        counts = np.bincount(cls, minlength=Y.shape[1])
        return cls if counts[counts > 0].min() >= 2 and (counts > 0).sum() >= 2 else None

    def _cv_predict(self, W, S, Y, train, test, F):
        F = np.array(F[S[test]])
        flat = F.max(axis=1) <= 0.5           # the unreached rule of the fit (class docs)
        if self._operator() == "incidence" and flat.any():
            F[flat] = harmonic_solution(W, S[train], Y[train], backend=self.backend)[S[test][flat]]
        return F.argmax(axis=1)

    def _solve(self, W, S, Y):
        F = super()._solve(W, S, Y)
        if self.R_ == "kernel":             # smooth kernel expansions: no plateau, no fallback
            self.unreached_ = np.zeros(W.shape[0], dtype=bool)
            return F
        # One-hot targets: a node is reached by class c when column c puts it on the class side of
        # the cut (> 1/2).  Label-free components are excluded: they get the prior (their own warning).
        unreached = (F.max(axis=1) <= 0.5) & ~label_free_mask(W, S)
        self.unreached_ = unreached
        if unreached.any():
            warn(f"{int(unreached.sum())} of {W.shape[0]} node(s) lie on the rest side of every class's TV cut "
                 "(no class information reaches them; their TV scores are flat); they get the scores of "
                 "Laplace learning (harmonic_solution). More labels near them would decide them by TV.",
                 GraphWarning)
            H = harmonic_solution(W, S, Y, backend=self.backend)
            F[unreached] = H[unreached]
        return F


class GraphTVRegressor(_TransductiveRegressor, _GraphTVWithOperator):
    _cv_scoring = "mse"

    # R="auto" by default, unlike the classifier's "kernel" (measured there on Fashion-MNIST): the regressor's
    # targets range from piecewise constant, where graph TV is exact on low-dimensional data, to smooth, where
    # graph TV is degenerate (class docs)
    def __init__(self, alpha: Union[float, str, Sequence[float]] = "auto", *, R: str = "auto", kernel=None,
                 laplacian: str = "normalized", tol: float = 1e-4, max_iter: int = 20000, graph: GraphArg = "knn",
                 n_neighbors: int = 10, radius: Optional[float] = None, weight: str = "gaussian",
                 sigma: Optional[float] = None,
                 random_state: RandomStateLike = None, verbose: Optional[bool] = None, backend: str = "auto"):
        self._store_init_params(locals())
    # the columns are brought to one spread by _select_alpha itself (one alpha_ per column; TV is not linear
    # in y, so the mixin's standardize-and-scale-back would be wrong here)
    _STANDARDIZES_TARGETS = False
    # not extended: below ~0.1 std(y) the primal-dual iterations grow past max_iter (2000 points, 5% labels:
    # 20000 iterations at 0.05 without reaching tol) while the CV error is flat there
    _cv_extend = False
    _CV_TOL = 1e-3              # squared errors of alphas 5x apart differ by a few %: a tighter gap

    @staticmethod
    def _column_spreads(Y):
        # the standard deviation of each column, in the units of its max |y| (the squares of y ~ 1e200
        # overflowed to an infinite grid)
        if not Y.shape[0]:
            return np.zeros(Y.shape[1])
        top = np.max(np.abs(Y), axis=0)
        unit = np.where(top > 0, top, 1.0)
        return (Y / unit).std(axis=0) * unit

    def _default_alphas(self, Y):
        # alpha is in the units of y: relative to the spread of the labeled values, the mean standard
        # deviation of the columns that vary (a constant column is fitted exactly at any alpha)
        spread = self._column_spreads(Y)
        spread = spread[spread > 0]
        if not spread.size:
            return np.array([0.1, 0.4, 1.6])
        top = float(spread.max())
        return float(np.mean(spread / top)) * top * np.array([0.1, 0.4, 1.6])

    def _fallback_alpha(self, grid):
        return float(np.sqrt(grid[0] * grid[-1]))      # the geometric middle of the grid

    def _solve(self, W, S, Y):
        # R="auto" with one's own alpha (a grid or a number) and several columns: each column chooses its operator
        # with its alpha (as its alpha alone, _solve_tv_per_column): a choice shared over the columns' CV errors,
        # summed in the units of y, made a column's fit depend on the scale of the others (alpha=0.1: column 1
        # times 1000 switched both columns from the incidence operator to the kernel one and moved column 0 by
        # 0.99 of its range 3.7)
        if self.R != "auto" or Y.shape[1] < 2 or isinstance(self.alpha, str):
            F = super()._solve(W, S, Y)
            if Y.shape[1] >= 2:         # per column, as alpha_
                self.R_ = np.full(Y.shape[1], self.R_, dtype=object)
            return F
        fits, alphas, results, operators, iters, gaps = [], [], [], [], [], []
        for j in range(Y.shape[1]):
            fits.append(super()._solve(W, S, Y[:, j:j + 1]))
            alphas.append(float(np.ravel(self.alpha_)[0]))
            results.append(self.cv_results_)
            operators.append(self.R_)
            iters.append(self.n_iter_)
            gaps.append(np.atleast_1d(self.gap_))
        self.alpha_ = np.array(alphas, dtype=np.float64)
        self.R_ = np.array(operators, dtype=object)
        self.cv_results_ = results
        self.n_iter_ = max(iters)
        self.gap_ = np.concatenate(gaps)
        return np.hstack(fits)

    def _plateau_fraction(self, F, S, Y):
        # per column: the unlabeled values rounded to 1e-3 of the labeled targets' range (far above the
        # solver's duality gap, far below any step the labels show), the largest group; the worst column
        unlabeled = np.ones(F.shape[0], dtype=bool)
        unlabeled[S] = False
        if not unlabeled.any():
            return 0.0
        worst = 0.0
        for j in range(F.shape[1]):
            # half the range, from halves: the range itself overflowed at |y| ~ 1e308 (inf: the check skipped)
            half = float(np.max(Y[:, j]) / 2 - np.min(Y[:, j]) / 2) if Y.shape[0] else 0.0
            if half == 0:
                continue
            _, counts = np.unique(np.round(F[unlabeled, j] / (2e-3 * half)), return_counts=True)
            worst = max(worst, counts.max() / unlabeled.sum())
        return worst

    def _solve_tv(self, W, S, Y):
        # Solved for y minus the midrange c_k of each column's labels in each connected component k.  Graph TV and
        # the fidelity are blind to a constant on a component (f(y + c_k) = f(y) + c_k there); the kernel operator
        # is not (||R (f + c)||_1 != ||R f||_1) and is made so.  From the zero start the iterations had to travel
        # to the offset: y + 500 took 1240 primal-dual iterations instead of 240 and came back 3.7e-4 off y's fit
        # + 500 (at the default tol); centred, a shift of y shifts the fit and leaves alpha_ and the iterations
        # alone.  Per component, because one midrange over all labels made a component's R="kernel" fit depend
        # on the labels of another (component B's labels + 10 moved component A's predictions by up to 2.8).
        # Label-free components keep the prior, the mean of the labeled targets (_orphans' rule, in y's units).
        c = self._component_midranges(W, S, Y)
        F = self._solve_tv_centred(W, S, Y - c[S]) + c
        orphan = label_free_mask(W, S)
        if orphan.any() and Y.shape[0]:
            F[orphan] = Y.mean(axis=0)
        return F

    @staticmethod
    def _component_midranges(W, S, Y):
        """(n, m): for each node, the midrange of each column's labels in its connected component (0 in a
        label-free one)."""
        n_comp, comp = connected_components(W)
        lo = np.full((n_comp, Y.shape[1]), np.inf)
        hi = np.full((n_comp, Y.shape[1]), -np.inf)
        np.minimum.at(lo, comp[S], Y)
        np.maximum.at(hi, comp[S], Y)
        labeled = np.isfinite(lo)
        mid = np.zeros_like(lo)
        mid[labeled] = lo[labeled] / 2 + hi[labeled] / 2     # halves first: no overflow at y ~ 1e308
        return mid[comp]

    def _solve_tv_centred(self, W, S, Y):
        # Columns share one selection (the library's multi-output rule: one hyperparameter, chosen on the
        # criterion summed over the columns), but mu is in the units of y and TV is not linear in y, so a
        # shared mu made a column's answer depend on the others' scale (np.c_[y, 2 y]: column 0 at
        # alpha_ 0.114 instead of y's own 0.076, 1.9e-2 off).  With alpha="auto" every column is first
        # brought to the same spread u (the mean of the columns' standard deviations); since
        # f(c y, c mu) = c f(y, mu), column j then solves at mu_j = alpha (s_j / u), one multiple of its
        # own spread, and a column rescaled leaves every other column's fit unchanged.  A number is in the
        # units of y and shared as given; one's own grid too, each column selecting from it on its own
        # (_solve_tv_per_column).
        k = Y.shape[1]
        if k >= 2 and not isinstance(self.alpha, str) and np.ndim(self.alpha) > 0:
            return self._solve_tv_per_column(W, S, Y)
        if k < 2 or not isinstance(self.alpha, str):
            F = super()._solve_tv(W, S, Y)
            if k >= 2:
                self.alpha_ = np.full(k, self.alpha_)
            return F
        spread = self._column_spreads(Y)
        varies = spread > 0
        if not varies.any():
            F = super()._solve_tv(W, S, Y)
            self.alpha_ = np.full(k, self.alpha_)
            return F
        # u: the mean spread of the columns that vary; a constant column fits exactly at any mu (zero CV
        # error at every alpha) and is left as it is (a zero column halved the grid of the other)
        top = float(spread.max())
        u = float(np.mean(spread[varies] / top)) * top
        ratio = np.where(varies, spread / u, 1.0)          # s_j / u
        F = super()._solve_tv(W, S, Y / ratio)
        self.alpha_ = self.alpha_ * ratio
        return F * ratio

    def _solve_tv_per_column(self, W, S, Y):
        # One's own grid is in the units of y, and TV is not linear in y: a choice shared by the columns (their
        # CV errors summed in the units of y) weighed each column by its squared scale, so rescaling one column
        # moved the others' alpha_ and fits (np.c_[y0, 1e3 y1] on a 200-node graph: column 0 at alpha_ 0.3
        # instead of its own 0.05 and 0.12 of its range off).  Bringing the columns to one spread, as
        # alpha="auto" does, would not help: the grid would then be in the units of that mean spread, which
        # every column's scale moves.  So each column selects its own alpha_j from the grid: its fit is that of
        # the column alone (bit for bit), whatever the other columns hold.
        fits, alphas, results, iters, gaps = [], [], [], [], []
        for j in range(Y.shape[1]):
            fits.append(super()._solve_tv(W, S, Y[:, j:j + 1]))
            alphas.append(self.alpha_)
            results.append(self.cv_results_)
            iters.append(self.n_iter_)
            gaps.append(np.atleast_1d(self.gap_))
        self.alpha_ = np.array(alphas, dtype=np.float64)
        self.cv_results_ = results
        self.n_iter_ = max(iters)
        self.gap_ = np.concatenate(gaps)
        return np.hstack(fits)

    def _cv_target(self, Y):
        # kfold_scores compares predictions with its target: predict each test row's root mean squared
        # error over the columns against a target of 0, so that "mse" scores all columns
        return np.zeros(Y.shape[0]) if Y.shape[0] >= 2 * self._CV_FOLDS else None

    def _cv_predict(self, W, S, Y, train, test, F):
        # in the units of y, unless its squares would over- or underflow (|y| beyond 1e+-100): then in
        # units of a power of two near max |y| (same ranking; at y ~ 1e200 every score was -inf and
        # at 1e-200 every score 0, so the choice was the tie rule's, not the data's)
        top = float(np.max(np.abs(Y))) if Y.size else 0.0
        unit = 1.0 if top == 0 or 1e-100 <= top <= 1e100 else float(np.ldexp(1.0, power_of_two_exponent(Y)))
        return np.sqrt(np.mean(((F[S[test]] - Y[test]) / unit) ** 2, axis=1))


    __doc__ = r"""Graph total-variation regression (Pena 2017 "generalized TV").

    :math:`\min_f \sum_{j \in S} \lambda_j (y_j - f_j)^2 + \mu \|R (f - c)\|_1`
    with the analysis operator R of :class:`GraphTVClassifier` and :math:`c_i`
    the midrange of the labels of node i's connected component (below; for
    ``R="incidence"`` c changes nothing, graph TV being blind to a constant on a
    component; for ``R="kernel"`` it is part of the problem solved):

    * ``R="incidence"``: the graph TV :math:`\sum_e w_e |f_i - f_j|`,
      :math:`\lambda_j = d_j` the weighted degree (:func:`~graphrkhs.graph_tv` with
      ``fidelity="degree"``: invariant to the scale of W).  Recovers
      piecewise-constant signals, and on low-dimensional data (two moons: a
      0/1 or piecewise-smooth target at 2-30 % labels, R^2 0.90-1.00) it is
      the better operator.  On smooth targets over higher-dimensional data its
      minimizer is degenerate (spikes on the labeled nodes over one constant,
      Slepcev & Thorpe 2019): ``make_friedman1`` (10 features) and the
      diabetes data at 2-10 % labels gave R^2 between -0.07 and 0.
    * ``R="kernel"``: :math:`R = \varphi(L)^{-1}`, f a sparse combination of
      graph-kernel columns (:func:`~graphrkhs.graph_kernel_tv`), smooth away
      from the labels: R^2 0.14-0.73 on those data, the graph kernel ridge's.
    * ``R="auto"`` (default): both, each with its own ``alpha`` selection on
      the same cross-validation folds of the labeled nodes; the one with the
      better best CV score is kept (ties, or too few labels for the folds:
      ``"kernel"``), at about the cost of the two fits.  A graph-TV fit that
      takes one value on at least ``PLATEAU_FRACTION`` (0.9) of the unlabeled
      nodes -- the degenerate minimizer -- is not kept whatever its CV score
      (with a dozen labels that score can beat the kernel's by chance).
      Measured by ``benchmarks/tv_regression.py`` (``benchmarks/REPORT.md``,
      "Graph TV regression").

    The penalty is linear and the fidelity quadratic in y, so :math:`\mu` is in
    the units of y: a labeled value moves by at most :math:`\mu / 2` (scale
    :math:`\mu` with y).  A shift of y shifts the fit, and a shift of the
    labels of one connected component shifts that component's fit and leaves
    the others' alone: it is solved for y minus the midrange of each column's
    labels in each component (graph TV is blind to a constant on a
    component, and the kernel operator is made so), so that at a given
    ``alpha`` a component's fit depends on its own labels only.  Label-free
    components get the mean of the labeled targets.

    Several target columns (y of shape (n, k)) share one selection, as in
    the library's other regressors (one hyperparameter chosen on the
    criterion summed over the columns); since :math:`\mu` is in the units
    of y, ``alpha="auto"`` first brings every column to the same spread
    (the mean of the columns' standard deviations): column j is solved at
    :math:`\mu_j` = the chosen multiple of its own standard deviation, so a
    column's fit does not depend on the scale of the others (it still
    depends on their values through the shared choice).  A number is in
    the units of y and used for every column.  One's own grid is in the
    units of y too, so its values mean different things for columns of
    different scales: each column selects its own :math:`\mu_j` from it
    (k-fold CV on that column alone; its fit is that of the column fitted
    alone, whatever the other columns hold, at k times the cost of one
    selection).
    """ + _tv_random_state_doc(_TV_DOC.replace(_GRAPH_DOC, _GRAPH_DOC_REG).replace(
        r"""    alpha_ : float
        The :math:`\mu` used.
    cv_results_ : dict or None
        The k-fold scores of the grid (scikit-learn's layout; mean and std
        over folds, higher is better); None without selection.""",
        r"""    alpha_ : float or ndarray of shape (n_targets,)
        The :math:`\mu` used; with k >= 2 target columns the :math:`\mu_j` of
        each (equal for a number, see above).
    cv_results_ : dict, list of dict or None
        The k-fold scores of the grid (scikit-learn's layout; mean and std
        over folds, higher is better); None without selection.  With
        k >= 2 target columns and one's own grid, one per column (each
        column's own selection).  With ``R="auto"``, both candidates' rows
        (``param_R``).""", 1).replace(
        "    tol : float, default=1e-4",
        r"""    R : {"auto", "kernel", "incidence"}, default="auto"
        The analysis operator (above).  The one used is ``R_`` (per column,
        as ``alpha_``, with k >= 2 target columns).
    kernel : filter from :mod:`graphrkhs.filters`, optional
        :math:`\varphi` of ``R="kernel"`` (default
        :func:`~graphrkhs.filters.default_kernel`); its inverse must be a
        polynomial (``inverse_polynomial()``) for the fidelity weights.
    laplacian : {"normalized", "combinatorial"}, default="normalized"
        The Laplacian of ``R="kernel"``.
    backend : {"auto", "numpy", "numba", "scipy", "mpi", "dask"}, default="auto"
        Where the Chebyshev passes of ``R="kernel"`` run (see
        :class:`GraphTVClassifier`); the primal-dual iterations of graph TV
        are not distributed.
    tol : float, default=1e-4""", 1)) + r"""
    R_ : str or ndarray of str of shape (n_targets,)
        The operator used.

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import GraphTVRegressor
    >>> W = np.diag(np.ones(5), 1); W = W + W.T                 # path on 6 nodes
    >>> y = np.array([0.0, 0.0, np.nan, np.nan, 1.0, 1.0])
    >>> f = GraphTVRegressor(alpha=0.1, R="incidence", graph="precomputed").fit(W, y).transduction_
    >>> f[[0, 1, 4, 5]].round(3)                               # 0.1 / (2 (d_0 + d_1)) = 1/60
    array([0.017, 0.017, 0.983, 0.983])
    """
