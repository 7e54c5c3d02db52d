r"""Active learning with a fitted transductive classifier (convenience over
:func:`graphrkhs.propose_labels`).

The estimators do not keep the graph or the labeled mask, so the wrapper takes
the ``X`` and ``y`` the classifier was fitted on: ``y`` gives the labeled nodes
(with the estimator's ``unlabeled`` marker), ``X`` the graph for the
model-change criterion (rebuilt with the estimator's graph parameters, or
``X`` itself with ``graph="precomputed"``).
"""

from typing import Tuple, Union

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError

from .._core.labels import labeled_set_differences, split_classification_labels
from .._core.validation import check_flag, held_warnings
from ..solvers import propose_labels
from ._transductive import LaplacianRegularizationClassifier, _TransductiveClassifier, precomputed_adjacency

__all__ = ["propose_labels_for"]


def propose_labels_for(estimator: BaseEstimator, X: ArrayLike, y: ArrayLike, n_points: int = 1, *,
                       criterion: str = "uncertainty", random_state: Union[None, int, np.random.Generator] = None,
                       return_values: bool = False) -> Union[np.ndarray, Tuple[np.ndarray, np.ndarray]]:
    r"""Propose the next nodes to label for a fitted transductive classifier.

    Calls :func:`~graphrkhs.propose_labels` with the classifier's
    ``label_distributions_``, the labeled nodes of ``y`` and, for
    ``criterion="model_change"``, the classifier's graph:

    * :class:`~graphrkhs.LaplacianRegularizationClassifier`: the exact model
      change of its own solution (its ``scores_``, ``alpha`` and ``laplacian``),
      each node labeled with its predicted class (that of ``transduction_``,
      after ``class_priors`` / ``class_normalization``: ``decision_map``);
    * any other transductive classifier (Poisson learning, graph kernel
      ridge, graph TV): the model change of the harmonic (Laplace-learning)
      look-ahead on its graph, started from its label distributions -- a
      surrogate, as Miller & Calder (2021) use the Gaussian-regression model
      for other graph learners.

    Parameters
    ----------
    estimator : fitted transductive classifier
        E.g. :class:`~graphrkhs.PoissonLearningClassifier`, fitted on ``X, y``.
    X : array-like or sparse matrix of shape (n_samples, n_features), or graph
        What the classifier was fitted on (points, or the graph with
        ``graph="precomputed"``); only read for ``"model_change"``, and then
        validated as the classifier's ``fit`` validates it (text points are
        refused, the number of features must be the fitted one).
    y : array-like of shape (n,)
        The targets it was fitted on (``estimator.unlabeled`` marks the
        unlabeled nodes); labeled nodes are never proposed.  A ``y`` whose
        labeled rows or labels differ from the fit's (labels added after
        the fit, without a refit) raises a ValueError: the proposals come
        from the fitted scores, so refit on the new ``y`` first.
    n_points, criterion, random_state, return_values
        As in :func:`~graphrkhs.propose_labels`.

    Returns
    -------
    nodes : ndarray of int of shape (n_points,)
        Row indices of ``X`` to label next, best first.
    values : ndarray of shape (n_points,), only with ``return_values``

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import LaplacianRegularizationClassifier, propose_labels_for
    >>> X = np.linspace(0, 1, 9)[:, None]
    >>> y = np.full(9, -1); y[0], y[8] = 0, 1
    >>> clf = LaplacianRegularizationClassifier(n_neighbors=2).fit(X, y)
    >>> propose_labels_for(clf, X, y, criterion="model_change")
    array([4])
    """
    check_flag(return_values, "return_values")
    if not isinstance(estimator, _TransductiveClassifier):
        raise TypeError("estimator must be a transductive classifier of graphrkhs (e.g. "
                        f"PoissonLearningClassifier); got {type(estimator).__name__}.")
    if not hasattr(estimator, "label_distributions_"):
        raise NotFittedError(f"This {type(estimator).__name__} instance is not fitted yet; call fit(X, y) "
                             "first, then propose labels.")
    n = estimator.label_distributions_.shape[0]
    with held_warnings():
        # the marker rules were already reported by fit, on the same y: held in this thread and dropped (a
        # process-wide warnings filter, entered and left by two threads in turn, stayed installed for good)
        labeled, classes, codes = split_classification_labels(y, n, unlabeled=estimator.unlabeled,
                                                              owner=type(estimator).__name__)
    _check_the_fits_targets(estimator, labeled, classes, codes)
    kwargs = {}
    # the estimator itself: propose_labels reads its label_distributions_, and their log-domain values where
    # the probabilities round to one-hot
    scores = estimator
    if criterion == "model_change":
        if estimator.graph == "precomputed":
            W = precomputed_adjacency(X)      # the fit's rule (numeric object-dtype weights accepted)
        else:
            # the estimator's own graph rule (graph="auto" of the recommended classifier depends on X)
            # the fit's validation of points (np.asarray(X, float64) parsed text points without a word)
            Xa = estimator._points(X, reset=False)      # sparse points stay sparse: knn_graph takes them
            # ... built with the estimator's random_state: an int rebuilds the fit's graph also where the
            # kNN search is approximate
            W = estimator._graph_of(Xa)
        if W.shape[0] != n:
            raise ValueError(f"X gives a graph on {W.shape[0]} nodes, but {type(estimator).__name__} was fitted "
                             f"on {n}; pass the X it was fitted on.")
        kwargs["graph"] = W
        if isinstance(estimator, LaplacianRegularizationClassifier):
            scores = estimator.scores_
            kwargs.update(alpha=estimator.alpha_, laplacian=estimator.laplacian)   # the fitted (selected) value
            if getattr(estimator, "class_scale_", None) is not None:
                # the pseudo-label is the classifier's predicted class, that of its normalized scores: with
                # class_normalization="mass" on a path of 7 nodes (labels 0, 0 at the left end, 1 at the right) the
                # argmax of scores_ gave node 4 class 1 where transduction_ gives it class 0, and node 3 (change
                # 0.76) was proposed where labeling node 4 with its predicted class changes the model by 1.14
                kwargs["decision_map"] = (estimator.class_scale_, estimator.class_offset_)
    return propose_labels(scores, n_points, criterion=criterion, labeled=labeled, random_state=random_state,
                          return_values=return_values, **kwargs)


def _check_the_fits_targets(estimator, labeled, classes, codes):
    """A ValueError when ``y``'s labeled rows or their labels are not those of the estimator's fit.

    The scores are the fit's: proposing from them with another labeled set (the active-learning loop
    that labels the proposed nodes and proposes again without a refit) answered for a model that was
    never fitted -- on a path of 9 nodes labeled at the ends, with node 4 labeled after the fit, model
    change proposed node 3 where the refit model proposes node 2.
    """
    fit_labeled = getattr(estimator, "_fit_labeled", None)
    fit_codes = getattr(estimator, "_fit_codes", None)
    if fit_labeled is None or fit_codes is None:
        return
    fit_labeled = np.asarray(fit_labeled, dtype=bool)
    owner = type(estimator).__name__
    problems = labeled_set_differences(labeled, fit_labeled)
    if not problems:
        # the labels of the common rows, matched to the fit's classes by value (any container, int or float)
        to_fit = np.array([_class_index(estimator.classes_, c) for c in classes.tolist()], dtype=np.int64)
        rows = np.flatnonzero(labeled)
        other = rows[to_fit[codes[rows]] != np.asarray(fit_codes)[rows]]
        if other.size:
            problems.append(f"{other.size} labeled row(s) hold another label than in the fit (row {int(other[0])})")
    if problems:
        raise ValueError(f"y is not the target {owner} was fitted on: {'; '.join(problems)}. The proposals come "
                         "from the fitted scores: pass the y of the fit, or refit on the new y first "
                         "(estimator.fit(X, y)), then propose.")


def _class_index(fit_classes, label):
    for i, c in enumerate(fit_classes.tolist()):
        try:
            if bool(c == label):
                return i
        except (TypeError, ValueError):
            continue
    return -1
