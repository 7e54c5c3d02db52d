r"""Active learning on a graph: which nodes to label next (plain functions).

Given a fitted transductive model -- its (n, m) class scores or label
distributions P, and the labeled set S -- :func:`propose_labels` ranks the
unlabeled nodes by an acquisition criterion and returns the best
``n_points`` of them:

``"uncertainty"``
    Smallest margin between the two largest class probabilities,
    :math:`P_{k,(1)} - P_{k,(2)}` (margin sampling; Settles 2009, sec. 3.1).
``"entropy"``
    Largest Shannon entropy :math:`-\sum_c P_{kc} \log P_{kc}`.
``"model_change"``
    Largest change of the whole solution when node k receives its predicted
    label (Miller & Calder 2021), computed exactly from the linear smoother
    of Laplace learning, see below.

Model change of a linear smoother
---------------------------------
Laplace learning / Tikhonov regularization, :math:`(J + \mu L) F = J Y`
(:func:`~graphrkhs.tikhonov_solution`), is the posterior mean of a Gaussian
model with the (improper) prior precision L and noise variance :math:`\mu`;
its posterior covariance is :math:`C = (L + J/\mu)^{-1}`, and for
:math:`\mu = 0` (the harmonic solution, :func:`~graphrkhs.harmonic_solution`)
:math:`C_{UU} = L_{UU}^{-1}`, :math:`C = 0` on S.  Labeling one more node k
with the label vector y is a rank-one update (Sherman-Morrison):

.. math::

    F^{+(k, y)} = F + \frac{C_{:,k}\,(y - F_k)^T}{\mu + C_{kk}},
    \qquad
    C^{+k} = C - \frac{C_{:,k} C_{k,:}}{\mu + C_{kk}},

(for :math:`\mu = 0` this is the look-ahead of Zhu, Lafferty & Ghahramani,
ICML 2003 workshop, "Combining active learning and semi-supervised learning
using Gaussian fields and harmonic functions").  With the pseudo-label
:math:`\hat y_k` (the one-hot vector of the predicted class) the model change
is the Frobenius norm of the update,

.. math::

    \mathrm{MC}(k) = \|F^{+(k, \hat y_k)} - F\|_F
    = \frac{\|C_{:,k}\|_2\, \|\hat y_k - F_k\|_2}{\mu + C_{kk}},

the criterion of Miller & Calder ("Model-change active learning in
graph-based semi-supervised learning", 2021; they evaluate it on a spectral
truncation of C for large graphs).  Here C is formed densely on the
unlabeled nodes (one Cholesky factorization, :math:`O(|U|^3)`, memory
:math:`8 |U|^2` bytes, guarded), which is exact and fast up to a few
thousand nodes.  A batch (``n_points > 1``) is chosen greedily: after each
pick, F and C are updated as if the pick had received its pseudo-label, so
the next pick is the best for the model that already knows the earlier
ones (the batch spreads over the graph instead of crowding one region).
Uncertainty batches are the ``n_points`` best nodes of the current model.

Components of the graph without a labeled node: labeling one of their nodes
makes the whole component the null vector v of the Laplacian through the
label, :math:`(v / v_k)\,\hat y_k^T` (v constant for the combinatorial
Laplacian, :math:`v = D^{1/2} 1` for the normalized one), so its model change
is the re-solve's, :math:`\|(v / v_k)\,\hat y_k^T - F_c\|_F`
(:math:`\sqrt{|\text{component}|}\,\|\hat y_k - F_k\|` for the combinatorial
Laplacian and scores constant there, where the nodes tie), and after a pick
there the component's scores are set to that re-solve.  A shift of
:math:`10^{-10}` times the largest degree on the diagonal keeps the
factorization defined and carries the covariance's greedy updates after a
pick there (its approximation was off by up to :math:`7 \cdot 10^{-5}` on a
path of 1000 nodes).  The
class prior that the solvers give such components moves with every new label;
that convention is not counted as a change of the model.

Ties (criterion values equal to within :math:`10^{-10}` of the largest value, the
rounding of the model: mirror-image nodes of a symmetric graph) are broken by the
lowest node index, or at random with ``random_state`` given; either way the
result is reproducible.
"""

from typing import Optional, Tuple, Union

import numpy as np
import scipy.sparse as sp
from scipy.sparse import csgraph
from sklearn.exceptions import NotFittedError

from .._core.labels import _check_labeled_index, label_free_mask, labeled_set_differences
from .._core.types import ArrayLike, GraphLike, Indices
from .._core.validation import (
    check_flag,
    check_option,
    check_random_state,
    check_scalar,
    dense_array,
    memory_guard,
    power_of_two_exponent,
)
from ..graphs import as_adjacency
from ..graphs import laplacian as graph_laplacian

__all__ = ["propose_labels"]

#: The criteria of :func:`propose_labels`.
ACQUISITION_CRITERIA = ("uncertainty", "entropy", "model_change")

# Label-free components make L_UU singular: a shift of this size (relative to the largest
# degree) keeps the factorization defined; as it tends to 0 the model change of a node there
# tends to its exact limit (labeling it makes its whole component constant).
_SINGULAR_SHIFT = 1e-10


def _class_scores(scores):
    """The (n, m) float64 scores of an array or of a fitted model's ``label_distributions_``."""
    # any 2-D array-like (a pandas DataFrame: its values; it was refused as "got DataFrame"); a model has no
    # __array__
    array_like = isinstance(scores, (np.ndarray, list, tuple)) or sp.issparse(scores) or hasattr(scores, "__array__")
    if not array_like or hasattr(scores, "label_distributions_"):
        if not hasattr(scores, "label_distributions_"):
            if hasattr(scores, "transduction_"):
                raise TypeError(f"{type(scores).__name__} has no class probabilities (label_distributions_): "
                                "active learning here needs a transductive classifier, not a regressor.")
            if hasattr(scores, "fit"):
                raise NotFittedError(f"{type(scores).__name__} is not fitted (it has no label_distributions_); "
                                     "call fit(X, y) first, or pass its (n, n_classes) class probabilities.")
            raise TypeError("scores must be an (n, n_classes) array of class probabilities or a fitted "
                            f"transductive classifier (with label_distributions_); got {type(scores).__name__}.")
        scores = scores.label_distributions_
    P = dense_array(scores)
    if P.dtype == object or not np.issubdtype(P.dtype, np.number):
        raise TypeError(f"scores must be numeric; got dtype {P.dtype}.")
    if P.dtype.kind == "c":   # the cast below kept the real part only
        raise TypeError(f"scores must be real; got complex dtype {P.dtype}. Pass scores.real if the imaginary "
                        "part is rounding noise.")
    if P.ndim != 2 or P.shape[1] < 2 or P.shape[0] == 0:
        raise ValueError("scores must have shape (n, n_classes) with at least one node and two classes (one "
                         f"column of class probabilities per class); got shape {P.shape}.")
    P = P.astype(np.float64)
    if not np.isfinite(P).all():
        raise ValueError("scores contain NaN or infinity.")
    return P


def _probabilities(P):
    """Rows clipped at 0 and normalized to sum 1 (a row without mass: uniform)."""
    Q = np.clip(P, 0.0, None)
    # each row over its largest entry first: the sum of finite scores near the float64 maximum overflowed
    # to inf (row (1e308, 1.7e308): probabilities (0, 0), margin 0 instead of 0.26)
    top = Q.max(axis=1, keepdims=True)
    Q = Q / np.where(top > 0, top, 1.0)
    total = Q.sum(axis=1, keepdims=True)
    return np.where(total > 0, Q / np.where(total > 0, total, 1.0), 1.0 / P.shape[1])


def _uncertainty(P, criterion):
    """Acquisition value (larger is better) of the margin or entropy criterion."""
    Q = _probabilities(P)
    if criterion == "uncertainty":
        top2 = np.partition(Q, Q.shape[1] - 2, axis=1)[:, -2:]
        return -(top2[:, 1] - top2[:, 0])          # small margin first
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.where(Q > 0, np.log(np.where(Q > 0, Q, 1.0)), 0.0)
    return -(Q * logs).sum(axis=1)


def _log_probabilities(scores, shape):
    """The float64 log class probabilities that a fitted classifier computes in the log domain
    (``_log_label_distributions``; None for an array of scores, or a model without them)."""
    get = getattr(scores, "_log_label_distributions", None) if hasattr(scores, "label_distributions_") else None
    logP = get() if callable(get) else None
    if logP is None:
        return None
    logP = np.asarray(logP, dtype=np.float64)
    return logP if logP.shape == shape and not np.isnan(logP).any() else None


def _log_uncertainty(logP, criterion):
    r"""The acquisition value of :func:`_uncertainty` up to a strictly increasing map, from the log
    probabilities l: :math:`\log(1 - \text{margin}) = \log(P_{(2)} + \sum_{c \ne (1)} P_c)` and
    :math:`\log H = \log \sum_c P_c (-l_c)`.  It keeps the order of the rows whose probabilities rounded to
    one-hot (every margin 1, every entropy 0): a classifier whose scores differ by a few dozen units."""
    n, k = logP.shape
    top = logP.argmax(axis=1)
    rows = np.arange(n)
    others = logP.copy()
    others[rows, top] = -np.inf
    if criterion == "uncertainty":
        second = others.max(axis=1, keepdims=True)
        terms = np.hstack([others, second])
    else:
        # -l_top = log1p(sum_{c != top} exp(l_c - l_top)) = log1p(exp(x)): where it is below the rounding of
        # l_top, log(-l_top) = x - exp(x) / 2 + O(exp(2x))
        x = _logsumexp(others - logP[rows, top][:, None])
        with np.errstate(divide="ignore", over="ignore"):
            log_neg_top = np.where(x < -20, x - 0.5 * np.exp(np.minimum(x, 0.0)), np.log(np.log1p(np.exp(x))))
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(np.isfinite(others), others + np.log(-others), -np.inf)
        terms[rows, top] = logP[rows, top] + log_neg_top
    return _logsumexp(terms)


def _logsumexp(A):
    """Row-wise log(sum(exp(A))) of an array with -inf entries (-inf for a row of them)."""
    top = A.max(axis=1)
    safe = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return safe + np.log(np.exp(A - safe[:, None]).sum(axis=1))


def _posterior_covariance(W, S, alpha, kind):
    """Dense C of Laplace learning on the nodes ``free`` (module docs): (C, free)."""
    n = W.shape[0]
    L = graph_laplacian(W, kind, dtype=np.float64)
    if alpha == 0:
        free = np.ones(n, dtype=bool)
        free[S] = False
        free = np.flatnonzero(free)
        A = L[free][:, free]
    else:
        free = np.arange(n)
        jd = np.zeros(n)
        jd[S] = 1.0 / alpha
        A = L + sp.diags_array(jd)
    # the matrix, LAPACK's work copy, the inverse and its symmetrized copy: four dense |free|^2 blocks
    memory_guard(32.0 * free.size ** 2, f"the dense posterior covariance on {free.size} nodes",
                 "use criterion='uncertainty' or 'entropy', which need no covariance.")
    A = sp.csr_array(A).toarray()
    if label_free_mask(W, S).any():
        # relative to the largest degree (an absolute floor dominated L on graphs of small weights and
        # made the model change depend on the scale of W); 1 only when there is no edge at all
        top = float(np.asarray(W.sum(axis=1)).max())
        A[np.diag_indices_from(A)] += _SINGULAR_SHIFT * (top if top > 0 else 1.0)
    # C = A^{-1} (A is SPD once every component holds a label).  LAPACK's LU inverse (getrf/getri),
    # not a Cholesky solve: with the OpenBLAS build here the Cholesky factorization and solve on the
    # identity took about twice as long as the whole LU inverse on the digits (n = 1780); the
    # oracle tests hold it to 1e-8.
    C = np.linalg.inv(A)
    return (C + C.T) / 2, free


def _mc_values(C, F, alpha, decision_map=None):
    """MC(k) of every column of C (module docs), with the pseudo-label of every row of F: its argmax, or that of
    ``scale * F + offset`` with ``decision_map = (scale, offset)`` (a classifier's class normalization)."""
    R = -F
    D = F if decision_map is None else F * decision_map[0] + decision_map[1]
    R[np.arange(F.shape[0]), D.argmax(axis=1)] += 1.0          # pseudo-label minus current scores
    # a node whose scores are its pseudo-label up to their rounding is certain: labeling it changes nothing.
    # Left in, that rounding (scores one-hot to 1e-16, as a solve leaves them) made model changes of ~1e-15
    # that outranked the tie rule: on two labeled, well-separated blobs the proposals followed the rounding
    # and random_state changed nothing
    R[np.abs(R) <= _ROUNDING_ULPS * np.finfo(np.float64).eps * max(1.0, float(np.abs(F).max(initial=0.0)))] = 0.0
    denom = alpha + np.diag(C)
    values = np.full(F.shape[0], -np.inf)
    # denom is 0 only at a node the harmonic model already fixes (picked earlier in the batch)
    ok = denom > 0
    values[ok] = np.linalg.norm(C, axis=0)[ok] * np.linalg.norm(R[ok], axis=1) / denom[ok]
    return values, R


#: Entries of a pseudo-label residual within this many units of rounding of the scores' scale are 0
#: (:func:`_mc_values`); the level of the Laplacian eigenvalue rounding elsewhere (``_clip_rounding``).
_ROUNDING_ULPS = 64


#: Criterion values within this fraction of the largest one (in absolute value) are ties
#: (:func:`_tie_tolerance`): mirror-image nodes of a symmetric graph have values that differ by the rounding
#: of the model (a few units of 1e-16 relative for the probabilities, up to the condition number times
#: that for the dense covariance of the model change), not by what labeling them would teach.
_TIE_RTOL = 1e-10


def _tie_tolerance(values):
    """Absolute tolerance under which two criterion values are a tie (``_TIE_RTOL`` of the largest finite
    magnitude; 0 when there is none)."""
    finite = values[np.isfinite(values)]
    return _TIE_RTOL * float(np.abs(finite).max()) if finite.size else 0.0


def _best(values, allowed, tiebreak):
    """Index of the largest value among ``allowed``; ties (values within :func:`_tie_tolerance` of the
    largest) go to the smallest ``tiebreak`` rank."""
    cand = np.flatnonzero(allowed)
    v = values[cand]
    top = cand[v >= v.max() - _tie_tolerance(v)]
    return int(top[np.argmin(tiebreak[top])])


def _top(values, allowed, tiebreak, n_points, finer=None):
    """The ``n_points`` ``allowed`` indices of largest value, best first; values within
    :func:`_tie_tolerance` of the best remaining one are ties, taken in ``tiebreak`` order (the order
    :func:`_best` would pick them one by one).  ``finer``: a second value of the same order (a strictly
    increasing map of the first, with the resolution the first lost to rounding) that orders such ties
    first, with ties of its own (to its tolerance) left to ``tiebreak``."""
    return _ranked(np.flatnonzero(allowed), values, tiebreak, n_points, finer)


def _ranked(cand, values, tiebreak, n_points, finer=None):
    order = cand[np.lexsort((tiebreak[cand], -values[cand]))]
    neg = -values[order]                       # ascending
    tol = _tie_tolerance(values[cand])
    out, i = [], 0
    while len(out) < n_points and i < order.size:
        j = max(int(np.searchsorted(neg, neg[i] + tol, side="right")), i + 1)
        block = order[i:j]
        if finer is not None and block.size > 1:
            out.extend(_ranked(block, finer, tiebreak, n_points - len(out)).tolist())
        else:
            out.extend(block[np.argsort(tiebreak[block], kind="stable")].tolist())
        i = j
    return np.asarray(out[:n_points], dtype=np.int64)


def propose_labels(scores: ArrayLike, n_points: int = 1, *, criterion: str = "uncertainty",
                   labeled: Optional[Indices] = None, graph: Optional[GraphLike] = None, alpha: float = 0.0,
                   laplacian: str = "combinatorial", random_state: Union[None, int, np.random.Generator] = None,
                   return_values: bool = False, decision_map: Optional[Tuple[ArrayLike, ArrayLike]] = None
                   ) -> Union[np.ndarray, Tuple[np.ndarray, np.ndarray]]:
    r"""Propose the next nodes to label, from a fitted transductive model (active learning).

    The ``n_points`` unlabeled nodes with the largest acquisition value
    (see :mod:`graphrkhs.solvers._active` for the formulas):

    * ``"uncertainty"``: smallest margin :math:`P_{k,(1)} - P_{k,(2)}` between
      the two largest class probabilities (margin sampling);
    * ``"entropy"``: largest entropy :math:`-\sum_c P_{kc}\log P_{kc}`;
    * ``"model_change"``: largest change of the Laplace-learning solution
      when node k gets its predicted label (Miller & Calder 2021),

      .. math::

          \mathrm{MC}(k) = \frac{\|C_{:,k}\|_2\, \|\hat y_k - F_k\|_2}{\mu + C_{kk}},
          \qquad C = (L + J/\mu)^{-1} \;(\mu > 0), \quad C_{UU} = L_{UU}^{-1} \;(\mu = 0),

      exact (equal to re-solving with node k labeled), batches chosen greedily
      with rank-one updates of C and F.

    Margin and entropy agree for two classes; with many classes the margin
    looks only at the two contenders, which is what decides the label, and is
    the default (on the digits with Laplace learning, from 20 to 60 labels, it
    chose the better labels of the two every round).

    Parameters
    ----------
    scores : array-like of shape (n, n_classes), or a fitted transductive classifier
        Class probabilities of every node: a classifier's
        ``label_distributions_`` (a fitted classifier may be passed itself).
        Any 2-D array-like is taken by its values (a pandas DataFrame: its
        rows in order, whatever its index); the returned nodes, like
        ``labeled``, are row positions 0..n-1, not index labels.
        Negative entries are clipped to 0 and rows renormalized for the
        uncertainty criteria.  A fitted classifier whose probabilities are a
        softmax of class scores (all but Laplacian regularization) also gives
        their logarithms, computed from the scores: where the probabilities
        round to one-hot (scores more than about 37 apart: every margin 1,
        every entropy 0) those order the nodes as the exact probabilities
        would (:func:`~graphrkhs.propose_labels_for` passes the classifier).  For ``"model_change"`` these must be the
        scores F of the Laplace-learning model described by ``graph``,
        ``alpha`` and ``laplacian`` (the ``label_distributions_`` of a
        :class:`~graphrkhs.LaplacianRegularizationClassifier`); scores of
        another model make it a surrogate of that model's change.
    n_points : int >= 1, default=1
        How many nodes to propose; at most the number of unlabeled nodes.
    criterion : {"uncertainty", "entropy", "model_change"}, default="uncertainty"
    labeled : array of int or bool mask of length n, optional
        The nodes already labeled: never proposed (and the labeled set S of
        the model-change covariance).  None: no node is labeled yet (not
        allowed with ``"model_change"``, whose model needs labels, nor with
        a fitted classifier as ``scores``, whose fit had labels: a
        ValueError names ``labeled=`` and
        :func:`~graphrkhs.propose_labels_for`).  With a fitted classifier it
        must be the rows its fit labeled (a ValueError names the rows that
        differ: its scores answer for that fit).
    graph : graph, optional
        The graph of the model (any form :func:`~graphrkhs.as_adjacency`
        accepts); required by ``"model_change"``, ignored otherwise.
    alpha : float >= 0, default=0.0
        :math:`\mu` of the Laplace-learning model (0: the harmonic solution,
        as :func:`~graphrkhs.tikhonov_solution`).
    laplacian : {"combinatorial", "normalized"}, default="combinatorial"
        Laplacian kind of the model.
    random_state : None, int or numpy.random.Generator, optional
        Ties between equal criterion values (equal to within :math:`10^{-10}`
        of the largest value: the model's rounding, as between the mirror
        images on a symmetric graph): None gives them to the lowest node
        index; a seed breaks them at random, reproducibly.
    return_values : bool, default=False
        Also return the criterion value of each proposed node (for a greedy
        model-change batch, its value at the time it was picked).
    decision_map : tuple (scale, offset) of arrays of shape (n_classes,), optional
        For ``"model_change"``: the predicted class of a node (its
        pseudo-label) is the argmax of ``scale * F + offset`` instead of F,
        the decision of a classifier that normalizes the scores F of its
        Laplace-learning model (``class_scale_`` and ``class_offset_`` of a
        :class:`~graphrkhs.LaplacianRegularizationClassifier` with
        ``class_priors`` or ``class_normalization``;
        :func:`~graphrkhs.propose_labels_for` passes them).  The change
        itself is that of F.  Rows whose mapped scores tie exactly take the
        first class, as an argmax does (the classifier's size constraint may
        split such rows between classes).  None: the argmax of F.

    Returns
    -------
    nodes : ndarray of int of shape (n_points,)
        The proposed nodes, best first.
    values : ndarray of shape (n_points,), only with ``return_values``
        Their criterion values (larger is better; for ``"uncertainty"`` minus
        the margin).

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import propose_labels
    >>> P = np.array([[0.9, 0.1], [0.55, 0.45], [0.5, 0.5], [0.2, 0.8]])
    >>> propose_labels(P, 2, labeled=[2])          # node 2 is labeled already
    array([1, 3])
    >>> W = np.diag(np.ones(6), 1); W = W + W.T     # path on 7 nodes, ends labeled
    >>> F = np.c_[np.linspace(1, 0, 7), np.linspace(0, 1, 7)]   # the harmonic solution
    >>> propose_labels(F, criterion="model_change", labeled=[0, 6], graph=W)
    array([3])
    """
    check_flag(return_values, "return_values")
    P = _class_scores(scores)
    n = P.shape[0]
    if labeled is None and hasattr(scores, "label_distributions_"):
        # a fitted classifier has labeled nodes: "nothing labeled yet" proposed them (a labeled node of
        # Poisson learning whose label disagrees with its neighbours came first)
        raise ValueError(f"labeled=None with a fitted {type(scores).__name__}: its labeled nodes would be proposed "
                         "again. Pass labeled= (the labeled rows of the y it was fitted on, indices or a boolean "
                         "mask), or call propose_labels_for(estimator, X, y, ...).")
    check_option(criterion, "criterion", ACQUISITION_CRITERIA)
    n_points = check_scalar(n_points, "n_points", kind="int", low=1)
    alpha = check_scalar(alpha, "alpha", low=0)
    check_option(laplacian, "laplacian", ("combinatorial", "normalized"))
    S = np.empty(0, dtype=np.int64) if labeled is None else _check_labeled_index_or_empty(labeled, n)
    _check_the_fits_labeled_set(scores, S, n)
    allowed = np.ones(n, dtype=bool)
    allowed[S] = False
    n_free = int(allowed.sum())
    if n_free == 0:
        raise ValueError(f"every node is labeled ({n} of {n}): no node is left to propose.")
    if n_points > n_free:
        raise ValueError(f"n_points={n_points} exceeds the {n_free} unlabeled node(s) left to propose; "
                         f"ask for at most {n_free}.")
    rng = check_random_state(random_state) if random_state is not None else None
    tiebreak = np.arange(n) if rng is None else rng.permutation(n)
    if criterion != "model_change":
        values = _uncertainty(P, criterion)
        # a classifier's probabilities round to one-hot where its class scores differ by more than about 37
        # (every margin 1: Poisson learning on two tight blobs, potentials of +-1700, proposed nodes 1..5 by
        # index); its log probabilities order those rows as the exact probabilities do
        logP = _log_probabilities(scores, P.shape)
        finer = None if logP is None else _log_uncertainty(logP, criterion)
        # best value first, ties (to rounding) by the finer value, then the tie-break rank; labeled nodes never
        order = _top(values, allowed, tiebreak, n_points, finer)
        return (order, values[order]) if return_values else order

    if graph is None:
        raise ValueError("criterion='model_change' needs the graph of the model: pass graph=W (the graph the "
                         "scores were computed on).")
    if S.size == 0:
        raise ValueError("criterion='model_change' needs the labeled nodes of the model: pass labeled=.")
    W = as_adjacency(graph, dtype=np.float64)
    if W.shape[0] != n:
        raise ValueError(f"graph has {W.shape[0]} nodes but scores has {n} rows; pass the graph the scores "
                         "were computed on.")
    e = power_of_two_exponent(W.data)
    if abs(e) > 64:
        # in units of 2^e of the weights (exact): C = (L + J/alpha)^{-1} scales as 2^-e and its squared
        # norms overflowed (weights ~2^-600: every value inf).  With alpha -> alpha 2^e, C -> 2^e C, every
        # model change and the greedy updates are unchanged
        W = W * np.ldexp(1.0, -e)
        alpha = float(np.ldexp(alpha, e))
    decision_map = _check_decision_map(decision_map, P.shape[1])
    C, free = _posterior_covariance(W, S, alpha, laplacian)
    F = P[free].copy()
    allowed_f = allowed[free]
    tb = tiebreak[free]
    # the label-free component of each free node (-1: one with a label or an earlier pick) and its size
    _, comp = csgraph.connected_components(W, directed=False)
    has_label = np.bincount(comp[S], minlength=comp.max() + 1) > 0
    free_comp = np.where(has_label[comp], -1, comp)[free]
    # the null vector of the Laplacian on each component: a single label there makes the component this vector
    # times the label (constant for the combinatorial Laplacian, D^{1/2} 1 for the normalized one)
    null = _null_vector(W, laplacian)[free]
    picks, picked_values, label_free = [], [], None
    for _ in range(n_points):
        values, R = _mc_values(C, F, alpha, decision_map)
        # the exact change in the label-free components (module docs): the singular shift's approximation of it
        # differs from node to node by more than the tie tolerance and always favoured a path's centre.  F is
        # not updated on a component until a pick there closes it (C is block diagonal): computed once
        open_ = free_comp >= 0
        if label_free is None:
            label_free = _label_free_changes(F, R, null, free_comp)
        values[open_] = label_free[open_]
        j = _best(values, allowed_f, tb)
        members = None
        if free_comp[j] >= 0:
            members = np.flatnonzero(free_comp == free_comp[j])
            free_comp[members] = -1      # its component has a (pseudo-)label now
        picks.append(int(free[j]))
        picked_values.append(float(values[j]))
        allowed_f[j] = False
        if members is not None:
            resolved = np.outer(null[members] / null[j], F[j] + R[j])
        # Look-ahead with the pseudo-label: the model as if node j had been labeled (rank-one update).
        c = C[:, j].copy()
        denom = alpha + c[j]
        F += np.outer(c, R[j]) / denom
        C -= np.outer(c, c) / denom
        if members is not None:
            # the re-solve there, exactly: the null vector through the pseudo-label (the shift's update only
            # approximates it, and for the normalized Laplacian it started from the prior, not the null vector)
            F[members] = resolved
    nodes = np.asarray(picks, dtype=np.int64)
    return (nodes, np.asarray(picked_values)) if return_values else nodes


def _check_decision_map(decision_map, m):
    """``decision_map`` as two float64 arrays of shape (m,) (None stays None)."""
    if decision_map is None:
        return None
    try:
        scale, offset = decision_map
        scale, offset = np.asarray(scale, dtype=np.float64), np.asarray(offset, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError("decision_map must be a pair (scale, offset) of arrays of real numbers, one entry per class "
                        f"(e.g. (clf.class_scale_, clf.class_offset_)); got {decision_map!r}.") from None
    if scale.shape != (m,) or offset.shape != (m,) or not (np.isfinite(scale).all() and np.isfinite(offset).all()):
        raise ValueError(f"decision_map must be a pair (scale, offset) of {m} finite numbers each (one per column of "
                         f"scores); got shapes {scale.shape} and {offset.shape}.")
    return scale, offset


def _null_vector(W, kind):
    r"""Per node, the null vector of the Laplacian ``kind`` on its component: 1 (combinatorial) or
    :math:`\sqrt{d_i}` (normalized; 1 at an isolated node, whose row of the Laplacian is 0)."""
    if kind == "combinatorial":
        return np.ones(W.shape[0])
    d = np.asarray(W.sum(axis=1), dtype=np.float64).ravel()
    return np.where(d > 0, np.sqrt(d), 1.0)


def _label_free_changes(F, R, null, free_comp):
    r"""Model change of labeling each node k of a label-free component c (``free_comp`` >= 0; other entries
    unused): the re-solve makes the component :math:`(v / v_k)\,\hat y_k^T` (v the null vector), so the change
    is :math:`\|(v/v_k)\,\hat y_k^T - F_c\|_F`.  With a reference node r of c, :math:`h = F_r / v_r`,
    :math:`F_c - v h^T = v g^T / s + E`, :math:`s = v^T v`, :math:`g = (F_c - v h^T)^T v` and
    :math:`E^T v = 0`, it is

    .. math:: \|(v/v_k)\,\hat y_k^T - F_c\|_F^2 = s\,\|R_k / v_k + (F_k / v_k - h - g / s)\|^2 + \|E\|_F^2,

    two non-negative terms, O(|c| m) per component (a loop over k would be O(|c|^2 m)).  The reference row
    makes the second bracket exactly 0 where F is constant and v = 1 (the combinatorial Laplacian's
    label-free components at the prior): the value is then exactly :math:`\sqrt{|c|}\,\|R_k\|`, however
    small :math:`R_k`, and equal rows tie exactly."""
    out = np.zeros(F.shape[0])
    open_ = np.flatnonzero(free_comp >= 0)
    if open_.size == 0:
        return out
    labels, first, comp_of = np.unique(free_comp[open_], return_index=True, return_inverse=True)
    v, Fo = null[open_], F[open_]
    h = Fo[first] / v[first, None]                          # per component: the reference row's F / v
    Fs = Fo - v[:, None] * h[comp_of]                       # F_c - v h^T
    s = np.bincount(comp_of, weights=v * v, minlength=labels.size)
    g = np.zeros((labels.size, F.shape[1]))
    np.add.at(g, comp_of, v[:, None] * Fs)
    mean = (g / s[:, None])[comp_of]
    E = Fs - v[:, None] * mean
    e2 = np.bincount(comp_of, weights=np.einsum("im,im->i", E, E), minlength=labels.size)
    D = R[open_] / v[:, None] + (Fs / v[:, None] - mean)
    out[open_] = np.sqrt(s[comp_of] * np.einsum("im,im->i", D, D) + e2[comp_of])
    return out


def _check_the_fits_labeled_set(scores, S, n):
    """A ValueError when ``scores`` is a fitted classifier whose fit labeled other rows than ``S``: its scores
    answer for that fit, and a row labeled there could be proposed (``propose_labels_for`` checks the same
    on ``y``)."""
    fit_labeled = getattr(scores, "_fit_labeled", None) if hasattr(scores, "label_distributions_") else None
    if fit_labeled is None:
        return
    fit_labeled = np.asarray(fit_labeled, dtype=bool)
    if fit_labeled.shape != (n,):
        return
    given = np.zeros(n, dtype=bool)
    given[S] = True
    problems = labeled_set_differences(given, fit_labeled)
    if problems:
        raise ValueError(f"labeled is not the labeled set {type(scores).__name__} was fitted on: "
                         f"{'; '.join(problems)}. Its scores come from that fit: pass the labeled rows of the y "
                         "it was fitted on, or refit on the new labels first (or call propose_labels_for).")


def _check_labeled_index_or_empty(labeled, n):
    """Labeled indices or mask; an empty set is allowed here (nothing labeled yet)."""
    arr = np.asarray(labeled)
    if arr.size == 0 or (arr.dtype == bool and arr.shape == (n,) and not arr.any()):
        return np.empty(0, dtype=np.int64)
    return _check_labeled_index(labeled, n)
