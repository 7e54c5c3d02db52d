r"""The one estimator base: the shared ``fit`` and the classifier / regressor outputs.

Every estimator of :mod:`graphrkhs.estimators` is
``Output mixin + family base + member``, in the manner of scikit-learn's
``BaseLabelPropagation``:

* :class:`GraphRKHSEstimator` holds the whole ``fit``: declarative parameter
  validation (each class declares ``_parameter_constraints``; the tables of
  the MRO are merged and checked by
  :func:`graphrkhs._core.validation.validate_params`), the member's
  cross-parameter rules (``_check_params``), the family's input validation
  (``_validate_input``: points, or a graph), the target encoding of the output
  mixin, and the member's solve (``_fit``) -- all under
  :func:`graphrkhs._core.progress.verbosity` (``verbose=``);
* :class:`ClassifierOutputMixin` encodes labels with the one label encoder
  (:func:`graphrkhs._core.labels.split_classification_labels`, marker
  ``unlabeled``) and derives ``predict``, ``decision_function`` and
  ``predict_proba`` from the per-class scores of ``_scores(X)``;
  :class:`RegressorOutputMixin` splits real targets (NaN = unlabeled).

``__init__`` only stores; each parameter is declared once (the shared
signature lives in one class per method, the outputs in the mixins).

Expected failures of scikit-learn's common checks are declared on the
estimator (``_expected_failed_checks``: check name -> reason), only where the
method cannot meet the check by its nature.
"""

import copy
import numbers
import inspect
from typing import Hashable, Optional

from numpy.typing import ArrayLike

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import validate_data

from .._core.backend import check_same_on_every_process
from .._core.labels import (TARGET_UNIT_EXPONENT, UNLABELED, _fractional_label, _label_kind, _show,
                            check_labeled_classes_have_priors, labeled_rows, one_hot, split_classification_labels,
                            split_regression_targets, warn_conflicting_copies, warn_unequal_label_counts,
                            warn_unpredicted_classes, warn_untrusted_label_proportions)
from .._core.progress import verbosity
from .._core.validation import (GraphRKHSWarning, GraphWarning, Interval, Options, check_class_priors, check_estimator_points,
                                float_dtype, power_of_two_exponent, sparse_points_refused, validate_params, warn)
from ..graphs import LAPLACIANS, WEIGHTS, GraphSpec, as_adjacency
from ..solvers import class_sizes, size_constrained_assignment
from ._auto import target_scales

__all__ = []

# The binary label problem of scikit-learn's check_classifiers_classes is {-1, +1}: with the
# default marker -1 every classifier here must refuse it (a one-class fit would be silent).
_MARKER_COLLISION = {
    "check_classifiers_classes": "its binary labels are {-1, +1}, and -1 is the default unlabeled marker "
                                 "(scikit-learn's semi-supervised convention): the fit raises the marker-"
                                 "collision error instead of fitting one class (pass unlabeled=None for such labels)",
}

# The options of ``class_normalization`` (see CLASS_PRIORS_DOC).
CLASS_NORMALIZATIONS = ("mass", "mean_shift")
#: unlabeled rows on which ``fit`` checks that every labeled class is predicted somewhere (a seeded sample of
#: them above this count; see ``ClassifierOutputMixin._warn_unpredicted_classes``)
UNPREDICTED_SAMPLE = 5000


class GraphRKHSEstimator(BaseEstimator):
    """Base of every graphrkhs estimator: the whole ``fit``.

    Subclasses say what differs:

    ``_parameter_constraints`` : dict
        parameter -> list of accepted values (merged along the MRO).
    ``_check_params()``
        Rules that involve several parameters (after the table check).
    ``_validate_input(X)``
        The family's input check; returns what ``_fit`` takes (points or a graph).
    ``_fit(X, labeled, Y)``
        The member's solve; ``Y`` holds the encoded targets of the labeled rows.
    """

    _parameter_constraints = {"verbose": ["boolean", Interval("int", 0, None), None]}
    _expected_failed_checks = {}

    def _store_init_params(self, values):
        """``__init__``'s whole body: store its arguments (``locals()``) as attributes, unchanged."""
        for name, value in values.items():
            if name != "self":
                setattr(self, name, value)

    @classmethod
    def _all_constraints(cls):
        merged = {}
        for klass in reversed(cls.__mro__):
            merged.update(klass.__dict__.get("_parameter_constraints", {}))
        return merged

    def _validate_params(self):
        validate_params(self.get_params(deep=False), self._all_constraints(), type(self).__name__)
        self._check_params()

    def _check_params(self):
        """Cross-parameter rules (members override)."""

    def fit(self, X: ArrayLike, y: ArrayLike) -> "GraphRKHSEstimator":
        """Fit on all rows of ``X`` (labeled and unlabeled).

        A refit starts from scratch: everything a previous fit stored is dropped
        first (a fit that raises leaves the estimator unfitted).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features), or a graph
            Points; for transductive learners with ``graph="precomputed"`` the
            graph itself.  Sparse points (scipy.sparse, any format) are taken
            by the transductive learners, which build their graph from them
            without densifying (:func:`~graphrkhs.knn_graph`; the fit equals
            the fit on ``X.toarray()``); the inductive point-cloud learners
            need dense points and raise a TypeError naming the fix.
        y : array-like of shape (n_samples,) (or (n_samples, n_targets) for regressors)
            Classifiers: class labels of any hashable type, ``unlabeled`` (default
            -1), None or NaN for the unlabeled rows.  Regressors: NaN for the
            unlabeled rows; several target columns share the selected
            hyperparameters, chosen with each column's error weighted by the
            inverse of its labeled variance (rescaling one column changes
            neither the choice nor the other columns' fits; see
            :func:`~graphrkhs.estimators._auto.target_scales`).

        Returns
        -------
        self
        """
        self._forget_fit()
        before = set(vars(self))
        try:
            self._fit_all(X, y)
        except BaseException:
            # a fit that raises leaves an unfitted estimator: what it stored before the error (n_features_in_ by
            # the input validation, classes_ by the label encoder) is dropped -- it made check_is_fitted pass and
            # predict fail with "object has no attribute 'X_fit_'" instead of NotFittedError
            self._fit_attributes = tuple(sorted(set(vars(self)) - before))
            self._forget_fit()
            raise
        # what this fit stored, to be dropped by the next one (_forget_fit)
        self._fit_attributes = tuple(sorted(set(vars(self)) - before))
        return self

    def _fit_all(self, X, y):
        # the parameter table first: a bad verbose is reported there (InvalidParameterError, as every
        # other parameter), not by verbosity() below
        self._validate_params()
        with verbosity(self.verbose):
            if y is None:
                raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None "
                                 "(give one target per row, marking the unlabeled rows).")
            X = self._validate_input(X)
            labeled, Y = self._encode_targets(y, self._n_samples(X))
            self._check_same_on_every_process(X, labeled, Y)
            self._check_target_range(X, Y)
            # several regression targets: fitted on their columns divided by their scales, then scaled back
            # (RegressorOutputMixin)
            scales = self._target_scales(Y)
            self._fit(X, labeled, Y if scales is None else Y / scales)
            if scales is not None:
                self._scale_back_targets(scales)

    def _check_same_on_every_process(self, X, labeled, Y):
        """A learner with a ``backend`` that resolves to MPI: the same points, labeled rows, targets and options
        on every rank, or the same ``ValueError`` on every rank (a fit on labels drawn on each rank without a
        seed returned each rank its own fit, or deadlocked in the distributed parts).  The options compared
        are numbers, strings and None (a callable's repr holds its address, which differs between
        processes); ``verbose`` may differ (progress on rank 0 only)."""
        params = self.get_params(deep=False)
        if "backend" not in params:
            return
        options = {k: v for k, v in params.items()
                   if k != "verbose" and (v is None or isinstance(v, (str, int, float)))}
        check_same_on_every_process(params["backend"], f"{type(self).__name__}.fit",
                                    {"X": X, "y (its labeled rows)": labeled, "y (its encoded targets)": Y,
                                     **options})

    def _target_scales(self, Y):
        """The column scales the targets are divided by for the fit, or None (classifiers, one column)."""
        return None

    def _check_target_range(self, X, Y):
        """Regressors: targets the output dtype of the fit can hold, and the fit's target-unit limit
        (classifiers: nothing to check or record)."""

    def _forget_fit(self):
        """Drop everything a previous ``fit`` stored: the attributes it added (recorded in
        ``_fit_attributes``) and every fitted attribute (a name ending in ``_`` that is not a
        parameter, e.g. one computed on first use after the fit).  What scikit-learn itself sets on
        the instance (``set_output``, metadata requests, the callback context of a meta-estimator)
        stays.  A refit then depends on its own data and parameters only (a fit on a precomputed graph
        after one on a data frame kept ``feature_names_in_``; one with a fixed ``alpha`` after
        ``alpha="auto"`` kept ``loo_scores_``), and a fit that raises leaves an unfitted estimator,
        never the old fit under new parameters."""
        params = self.get_params(deep=False)
        stale = set(getattr(self, "_fit_attributes", ())) | {"_fit_attributes"}
        stale |= {name for name in vars(self) if name.endswith("_") and not name.startswith("__")}
        for name in stale - set(params):
            if name in vars(self):
                delattr(self, name)

    @staticmethod
    def _n_samples(X):
        return X.shape[0]

    def _fit_points(self, X):
        """The points of the fit from ``_validate_input``'s result (None when X is not points: a graph)."""
        return X

    #: What the family does with identical labeled points of different labels (ClassifierOutputMixin._fit's
    #: warning: the one check of every classifier)
    _conflicting_copies_note = ""

    def _check_fitted(self):
        if not hasattr(self, "n_features_in_"):
            raise NotFittedError(f"This {type(self).__name__} instance is not fitted yet; call fit(X, y) first.")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags


def _softmax(S):
    Z = S - S.max(axis=1, keepdims=True)
    np.exp(Z, out=Z)
    Z /= Z.sum(axis=1, keepdims=True)
    return Z


class ClassifierOutputMixin(ClassifierMixin):
    r"""Classifier outputs from per-class scores.

    Members define ``_scores(X)`` -> (n, n_classes) class scores and choose
    ``_proba`` :

    * ``"softmax"``: :math:`p = \mathrm{softmax}(s)` over the classes (for two
      classes with one-vs-rest scores :math:`(-f, f)`,
      :math:`p(\text{classes\_}[1]) = 1 / (1 + e^{-2f})`): a monotone map of the
      decision values, not a calibrated probability;
    * ``"distribution"``: the scores are already a label distribution
      (non-negative, rows summing to 1, as the harmonic solution's); they are
      clipped at 0 and renormalized.  This distribution *is* the class score of
      these methods: ``predict``, ``decision_function`` and ``transduction_``
      use it too, so a row whose (normalized) scores are all :math:`\le 0`
      gets the class prior in all of them.

    A row with no information (all scores zero, e.g. a node far from every
    labeled one) gets the class prior, the proportions of the labeled classes
    (``class_priors`` when given): never NaN.  For ``"softmax"`` its scores
    are the centred log prior (fitted values all exactly 0: a point a few
    dozen kernel widths from every fitted one), so ``predict`` is the prior's
    most probable class and ``decision_function`` agrees.

    One decision rule: ``predict`` is the first class of largest score, and
    ``predict_proba`` keeps the order of the scores (where the rounding of the
    softmax ties a larger score with a smaller one, the larger one's
    probability is raised by one unit in the last place), so
    ``classes_[argmax(predict_proba(X))] == predict(X)``.

    Class priors and class-mass normalization (every classifier; ``fit``
    learns one affine map per class column, :math:`s'_c = a_c s_c + t_c`,
    from the scores of the fitted rows, and ``predict``, ``predict_proba``,
    ``decision_function`` and ``transduction_`` all use :math:`s'`; see
    ``CLASS_PRIORS_DOC`` for the options): the fitted attributes
    ``class_scale_`` (:math:`a`) and ``class_offset_`` (:math:`t`).
    """

    _expected_failed_checks = _MARKER_COLLISION
    _proba = "softmax"
    _target_coding = "pm1"   # "pm1": one-vs-rest +-1 columns (one column for 2 classes); "onehot": indicators
    _parameter_constraints = {"unlabeled": ["hashable", None], "class_priors": ["array-like", dict, None],
                              "class_normalization": [Options(*CLASS_NORMALIZATIONS), None]}
    # The estimators whose solver already imposes the class sizes (MBO) skip the assignment step; a class
    # normalization keeps the class sizes of their labels on the rows a label reaches.
    _sizes_in_solver = False
    # The estimators whose scores are balanced across classes by construction (Poisson learning's centred
    # sources, the ensemble's per-class standardization): an implicit prior of equal class sizes, which the
    # fit warns about when the label counts reject it (warn_unequal_label_counts)
    _equal_sizes_prior = False

    def __init_subclass__(cls, **kwargs):
        # A classifier's parameters are its method's (declared once, in the class shared with the
        # regressor twin) plus ``unlabeled``: its __init__ is made here, not written twice.
        super().__init_subclass__(**kwargs)
        _document_class_priors(cls)
        if "__init__" in cls.__dict__:
            return
        base = inspect.signature(cls.__init__)
        params = list(base.parameters.values())
        if (len(params) < 2 or "unlabeled" in base.parameters
                or any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in params)):
            return
        kw = inspect.Parameter.KEYWORD_ONLY
        extra = [inspect.Parameter("unlabeled", kw, default=UNLABELED, annotation=Optional[Hashable]),
                 inspect.Parameter("class_priors", kw, default=None, annotation=Optional[ArrayLike]),
                 inspect.Parameter("class_normalization", kw, default=None, annotation=Optional[str])]
        signature = base.replace(parameters=params + extra)
        method_init = cls.__init__

        def __init__(self, *args, unlabeled=UNLABELED, class_priors=None, class_normalization=None, **kwargs):
            method_init(self, *args, **kwargs)
            self.unlabeled = unlabeled
            self.class_priors = class_priors
            self.class_normalization = class_normalization

        __init__.__signature__ = signature
        __init__.__qualname__ = f"{cls.__qualname__}.__init__"
        __init__.__doc__ = f"Store the parameters (see :class:`{cls.__name__}`)."
        cls.__init__ = __init__

    def __getstate__(self):
        # the default marker is told from an explicit -1 by identity (UNLABELED), which pickling loses: an estimator
        # saved and loaded (joblib.dump / load, a parallel GridSearchCV's workers) took a new int64 -1 for an
        # explicit marker and fitted labels {-1, 0, 1} without the LabelCollisionWarning.  (UNLABELED cannot pickle
        # itself by name: scikit-learn's checks want a default of a plain type, np.int64.)
        state = super().__getstate__()
        if state.get("unlabeled") is UNLABELED:
            state["_unlabeled_default"] = True
        return state

    def __setstate__(self, state):
        state = dict(state)
        if state.pop("_unlabeled_default", False):
            state["unlabeled"] = UNLABELED
        super().__setstate__(state)

    def _encode_targets(self, y, n):
        labeled, classes, codes = split_classification_labels(y, n, unlabeled=self.unlabeled,
                                                              owner=type(self).__name__)
        k = classes.size
        self.classes_ = classes
        if self.class_priors is not None:      # before any heavy work
            # a zero prior for a labeled class contradicts the labels: refused by every classifier alike
            check_labeled_classes_have_priors(self._given_priors(), np.bincount(codes[labeled], minlength=k),
                                              classes=classes)
        elif self._sizes_in_solver or self.class_normalization == "mass":
            # the labeled proportions stand in for the class proportions (the sizes of the MBO solvers, the
            # masses of "mass"): warn when they rest on too few labels (user -> fit -> _fit_all -> here)
            warn_untrusted_label_proportions(np.bincount(codes[labeled], minlength=k), n, classes=classes,
                                             what="class sizes" if self._sizes_in_solver else "class masses")
        elif self._equal_sizes_prior and self.class_normalization is None:
            # scores balanced by construction (an implicit prior of equal class sizes): warn when the label
            # counts reject it
            warn_unequal_label_counts(np.bincount(codes[labeled], minlength=k), classes=classes,
                                      owner=type(self).__name__)
        Y = one_hot(codes[labeled], k)
        self.class_prior_ = Y.mean(axis=0)
        # the prior of the uninformed points, frozen with the fit (read by predict; see _prior_distribution)
        self._fitted_prior = None
        self._fitted_prior = np.array(self._prior_distribution(), dtype=np.float64)
        self._fit_labeled = labeled
        self._fit_codes = codes
        self.class_scale_ = self.class_offset_ = None
        if self._target_coding == "pm1":
            Y = 2.0 * Y - 1.0
            if k == 2:
                Y = Y[:, 1:]
        return labeled, Y

    def _class_scores(self, F):
        """(n, n_classes) scores from the fitted function values F ((n, 1) for +-1 binary): the class
        normalization applied, and for the ``"distribution"`` methods the label distribution of those
        (the one score that predict, predict_proba, decision_function and transduction_ read)."""
        S = self._normalized_scores(F)
        if self._proba == "distribution":
            return self._distribution(S)
        return self._prior_where_uninformed(F, S)

    def _prior_where_uninformed(self, F, S):
        r"""S with the rows whose fitted values F are all exactly 0 (no information: e.g. a point a few dozen
        kernel widths from every fitted one, for an expansion without intercept) set to the centred log prior
        :math:`\log q - \operatorname{mean}(\log q)`, q = ``_prior_distribution()``: its softmax is q, its argmax
        the prior's most probable class, and for two classes the decision value is
        :math:`\tfrac12 \log(q_1 / q_0)`.  Before, such a row was uniform in ``predict_proba`` and
        ``classes_[0]`` in ``predict``, whatever the prior."""
        F = np.asarray(F)
        empty = ~F.reshape(F.shape[0], -1).any(axis=1) if F.size else np.zeros(F.shape[0], dtype=bool)
        if not empty.any():
            return S
        with np.errstate(divide="ignore"):
            L = np.log(np.asarray(self._prior_distribution(), dtype=np.float64))
        S = np.array(S, dtype=np.float64)
        S[empty] = L - L[np.isfinite(L)].mean()
        return S

    def _normalized_scores(self, F):
        """(n, n_classes) scores from F with the class normalization (``class_scale_``) applied."""
        F = np.asarray(F, dtype=np.float64)
        if F.ndim == 1:
            F = F[:, None]
        if F.shape[1] == 1 and self.classes_.size == 2:
            F = np.hstack([-F, F])
        if getattr(self, "class_scale_", None) is not None:
            F = F * self.class_scale_ + self.class_offset_
        return F

    def _fit(self, X, labeled, Y):
        # identical labeled points with different labels: said once for every classifier (user -> fit ->
        # _fit_all -> _fit -> here); regressors are not checked: repeated measurements of one point are the
        # ordinary noise of regression, and every fit answers them with their (shrunk) mean
        points = self._fit_points(X)
        if points is not None:
            S = np.flatnonzero(labeled)
            warn_conflicting_copies(points[S], S, self._fit_codes[S], classes=self.classes_,
                                    owner=type(self).__name__, consequence=self._conflicting_copies_note)
        # the member's solve, then (for learners without fitted node scores) the class normalization
        # learned on the scores of the fitted rows
        super()._fit(X, labeled, Y)
        raw = None
        if self.class_scale_ is None and self._normalization_requested():
            raw = self._raw(X)
            self._fit_class_normalization(self._normalized_scores(raw))
        if self.class_priors is None:
            # without class sizes a labeled class can vanish from the decision (the degeneracy of
            # Laplace-type learning at low label rates): say so (class_priors imposes the sizes)
            self._warn_unpredicted_classes(X, raw)

    #: True: ``_fitted_decision`` evaluates the fitted function (a learner on points), so the unpredicted-class
    #: check reads a sample of the unlabeled rows; the transductive learners read ``transduction_``: every row
    _fitted_decision_evaluates = True

    def _fitted_decision(self, X, rows, raw=None):
        """(codes, counted): the class codes that ``predict`` gives the fitted rows ``rows`` (indices), and a
        mask over them of the rows whose decision is the model's (None: all).  Learners on points evaluate
        the fitted function there (``raw``: its values on every fitted row, when already computed); the
        transductive ones read ``transduction_``."""
        S = self._class_scores(self._raw(X[rows]) if raw is None else raw[rows])
        return np.argmax(S, axis=1), None

    def _warn_unpredicted_classes(self, X, raw=None):
        """:func:`~graphrkhs._core.labels.warn_unpredicted_classes` on the unlabeled fitted rows (a seeded sample
        of ``UNPREDICTED_SAMPLE`` of them when there are more and the decision costs an evaluation of the
        fitted function, ``_fitted_decision_evaluates``: a class's share is measured as well on it, and a
        learner on points need not evaluate its function on, e.g., 60000 rows again inside ``fit``)."""
        labeled = np.asarray(self._fit_labeled, dtype=bool)
        rows = np.flatnonzero(~labeled)
        if not rows.size:                     # every row labeled: nothing predicted to count
            return
        n_unlabeled = rows.size
        if rows.size > UNPREDICTED_SAMPLE and self._fitted_decision_evaluates:
            rows = np.sort(np.random.default_rng(0).choice(rows, UNPREDICTED_SAMPLE, replace=False))
        codes, counted = self._fitted_decision(X, rows, raw)
        codes = np.asarray(codes) if counted is None else np.asarray(codes)[counted]
        k = self.classes_.size
        warn_unpredicted_classes(np.bincount(self._fit_codes[labeled], minlength=k),
                                 np.bincount(codes, minlength=k), classes=self.classes_,
                                 owner=type(self).__name__,
                                 n_unlabeled=None if rows.size == n_unlabeled else n_unlabeled)

    def _normalization_requested(self):
        return self.class_normalization is not None or (self.class_priors is not None
                                                        and not self._sizes_in_solver)

    def _fit_class_normalization(self, S, exclude=None):
        r"""Learn ``class_scale_`` a and ``class_offset_`` t from the raw class scores S of the fitted rows.

        Reference rows R: the unlabeled fitted rows (all rows when none is unlabeled), without
        ``exclude`` (nodes no label reaches).  q = ``class_priors`` or the labeled proportions.
        The size-constrained assignment of ``class_priors`` runs on unlabeled rows only: without
        one it is skipped (the labeled rows keep their labels' scores).
        """
        k = self.classes_.size
        a, t = np.ones(k), np.zeros(k)
        self._sized_labels = None      # (rows, labels) of the sizes kept below, for the fitted rows' decision
        if not self._normalization_requested():
            return
        ref = ~np.asarray(self._fit_labeled, dtype=bool)
        if exclude is not None:
            ref &= ~exclude
        # the size constraint is on the unlabeled rows: with none (every reached row labeled) it is void,
        # and imposing the sizes on the labeled rows relabeled them against their own labels
        size_rows = bool(ref.any())
        if not ref.any():
            ref = np.ones(S.shape[0], dtype=bool) if exclude is None else ~exclude
        if not ref.any():
            self.class_scale_, self.class_offset_ = a, t
            return
        R = np.asarray(S, dtype=np.float64)[ref]
        ybar = self.class_prior_
        q = ybar if self.class_priors is None else self._given_priors()
        if self.class_normalization == "mass":
            # Zhu, Ghahramani & Lafferty (2003): s'_c = q_c s_c / mean_R s_c on non-negative scores
            low = min(float(R.min()), 0.0)
            mass = (R - low).mean(axis=0)
            # a column at the minimum up to rounding (volume MBO's class of size 0: one score on every reference
            # row, to one unit in the last place) has no mass: its rounding (7.4e-17) gave it the scale 2.4e15,
            # and the offsets of 7.7e15 rounded the other columns away (sizes 1 / 2 / 0 for the solver's 2 / 1 / 0)
            mass[mass <= 64 * np.finfo(np.float64).eps * (abs(low) + np.abs(R).max(axis=0))] = 0.0
            # a class with no mass on the reference rows (labeled only in a component whose every node is
            # labeled) keeps its scores in the units of the others: a scale of 0 erased them on its own labeled
            # nodes too, and "mass" moved both nodes of a labeled two-node component to class 0
            unit = float(mass[mass > 0].mean()) if np.any(mass > 0) else 1.0
            a = q / np.where(mass > 0, mass, unit)
            t = -low * a
        elif self.class_normalization == "mean_shift":
            # centred columns, reweighted by b / ybar (Calder et al. 2020, Algorithm 1)
            a = np.where(ybar > 0, q / np.where(ybar > 0, ybar, 1.0), 0.0)
            t = -a * R.mean(axis=0)
        if self.class_priors is not None and not self._sizes_in_solver and size_rows:
            # the labeling of R with class sizes |R| q closest to the priors: its class prices.  They are one
            # shift of every point's scores, the labeled training points' too: a learner on points warns when
            # they move some of its labeled points out of the class its own scores give them (RLS, priors
            # (0.98, 0.01, 0.01), 3 labels a class on 90 blobs: predict moved 5 of the 9)
            sizes = class_sizes(q, int(R.shape[0]))
            labels, prices = size_constrained_assignment(R * a + t, sizes)
            # the prices separate this labeling only up to exact ties: rows of equal scores (one-hot scores of a
            # component with a single labeled class) all took the first class at the argmax (three one-label
            # cliques, priors (0.2, 0.3, 0.5): 5 / 5 / 5 for the sizes 3 / 5 / 7); the fitted rows' decision of the
            # transductive learners keeps this labeling (_TransductiveClassifier._keep_the_sizes)
            self._sized_labels = (np.flatnonzero(ref), labels)
            held = np.asarray(self._fit_labeled, dtype=bool) & (True if exclude is None else ~exclude)
            own = np.asarray(self._fit_codes)[held]
            SL = np.asarray(S, dtype=np.float64)[held] * a + t
            mine = SL.argmax(axis=1) == own
            self._warn_labeled_moved(SL[mine], own[mine], prices, sizes)
            t = t + (prices.max() - prices)      # >= 0: non-negative scores stay non-negative
        elif self._sizes_in_solver and self.class_normalization is not None:
            # the solver's labels (the argmax of S) have its class sizes; the per-class scaling moved
            # them (volume MBO, sizes (45, 27, 18), "mass": 60 / 27 / 3): keep the sizes of its labels on
            # every reached row, labeled ones included (sized on the unlabeled rows alone, a class with no
            # unlabeled node was priced out, and its labeled nodes with it)
            sized = np.ones(S.shape[0], dtype=bool) if exclude is None else ~exclude
            if sized.any():
                raw = np.asarray(S, dtype=np.float64)[sized]
                own = np.bincount(raw.argmax(axis=1), minlength=k)
                labels, prices = size_constrained_assignment(raw * a + t, own)
                t = t + (prices.max() - prices)
                # the prices reproduce that labeling only up to ties: rows the solver split between classes
                # with equal scores (nodes its diffusion does not reach, told apart by one unit in the last
                # place) are equal after the scaling, and their argmax put them all in the first class
                # (Poisson MBO, sizes 8 / 30 / 2 of the unlabeled nodes: 6 / 34 / 0); the fitted rows'
                # decision keeps this labeling (_TransductiveClassifier._keep_the_sizes)
                self._sized_labels = (np.flatnonzero(sized), labels)
        self.class_scale_, self.class_offset_ = a, t

    def _warn_labeled_moved(self, SL, own, prices, sizes):
        """Warn when the class prices of ``class_priors`` move more than half of a class's labeled training
        rows (scores SL, classes own, each in its class by the method's own scores) to another class.  Transductive learners keep such rows
        in ``transduction_`` (``_keep_the_labels``); a learner on points has only ``predict``, a function of
        the point that shifts every point's scores alike, so it cannot: the prices that give the unlabeled
        rows their sizes fix the decision everywhere.  (Prices that also keep the labeled rows are the
        solutions of more difference constraints of the same kind; on 90 blobs with 3 labels a class and RLS
        no such prices existed -- the widest common margin was -1.23 for priors (0.98, 0.01, 0.01) and -0.48
        for (0.5, 0.49, 0.01), by linear programming -- nor in any of the 27 of 72 fits (6 draws, 4 priors off
        the class proportions, RLS / LapRLS / PLapRLS) where the prices moved a labeled point.)"""
        if not self._fitted_decision_evaluates:
            return
        moved = (SL - prices).argmax(axis=1) != own
        counts = np.bincount(own, minlength=sizes.size)
        lost = np.bincount(own[moved], minlength=sizes.size)
        # a labeled point near a class boundary may cross it with the priors at the true proportions (90
        # blobs, 3 labels a class, 6 draws: at most 1 of a class's 3, RLS / LapRLS / PLapRLS / Fredholm);
        # more than half of a class's labeled points moved is the priors contradicting the labels (3 of 3
        # at priors (0.98, 0.01, 0.01))
        if not (2 * lost > counts).any():
            return
        c = int(np.argmax(lost / np.maximum(counts, 1)))
        warn(f"class_priors moves {int(moved.sum())} of the {own.size} labeled training point(s) to another class in "
             f"{type(self).__name__}.predict ({int(lost[c])} of the {int(counts[c])} of class "
             f"{_show(self.classes_[c])}): the class offsets that give the {int(sizes.sum())} unlabeled rows the sizes "
             f"{', '.join(str(int(m)) for m in sizes)} cannot also keep them, and predict shifts every point, the "
             f"training ones included. Check class_priors (the class proportions of the unlabeled rows; class "
             f"{_show(self.classes_[c])} gets {int(sizes[c])} of them).", GraphRKHSWarning)

    def _prior_distribution(self):
        """The class distribution of a point no label informs: ``class_priors`` when given (the user's
        class proportions), else the labeled proportions ``class_prior_`` -- those of the fit once it has
        recorded them (``_encode_targets``): ``set_params(class_priors=...)`` after ``fit`` changed predict,
        predict_proba and decision_function of uninformed points without a refit (predict(X_fit) then
        disagreed with ``transduction_`` on the nodes no label reaches)."""
        fitted = getattr(self, "_fitted_prior", None)
        if fitted is not None:
            return fitted
        if self.class_priors is not None:
            return self._given_priors()
        return self.class_prior_

    def _given_priors(self):
        """``class_priors`` as float64 proportions in the order of ``classes_`` (None when not given): a
        dict or a pandas Series keyed by the class labels is aligned by label (a Series keyed
        ("dog", "cat") was read by position, giving "cat" the proportion of "dog"); a sequence (or a
        Series with the default index 0..k-1) is read in order."""
        if self.class_priors is None:
            return None
        b = _priors_in_class_order(self.class_priors, self.classes_, getattr(self, "unlabeled", None))
        return check_class_priors(b, self.classes_.size)

    def _distribution(self, S):
        P = np.clip(S, 0.0, None)
        total = P.sum(axis=1, keepdims=True)
        empty = ~(total[:, 0] > 0)
        P = P / np.where(total > 0, total, 1.0)
        P[empty] = self._prior_distribution()
        return P

    def _proba_of_scores(self, S):
        """Probabilities of the class scores S (``_class_scores``' output), with their argmax."""
        if self._proba == "distribution":
            return np.array(S, dtype=np.float64)      # S is the distribution already (_class_scores)
        P = _softmax(np.array(S, dtype=np.float64))
        bad = ~np.isfinite(P).all(axis=1)
        P[bad] = self._prior_distribution()
        # softmax is strictly monotone, its rounding is not: scores one ulp apart give equal
        # probabilities, and argmax(P) would then pick another class than predict's argmax(S)
        top = np.argmax(S, axis=1)
        rows = np.flatnonzero(~bad & (np.argmax(P, axis=1) != top))
        if rows.size:
            P[rows, top[rows]] = np.nextafter(P[rows].max(axis=1), np.inf)
        return P

    def _decision_of_scores(self, S):
        return 0.5 * (S[:, 1] - S[:, 0]) if S.shape[1] == 2 else S

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """Decision values: shape (n,) for two classes (positive means ``classes_[1]``;
        half the difference of the two class scores, which is the fitted function f
        of the one-vs-rest learners), else the (n, n_classes) class scores; in the
        floating dtype of the points (float32 stays float32)."""
        with verbosity(self.verbose):
            raw = self._scores(X)
            return in_dtype_keeping_argmax(self._decision_of_scores(self._class_scores(raw)), _float_of(raw))

    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """Class probabilities of shape (n, n_classes), rows non-negative and summing to 1
        (see the class documentation for their meaning in this method); in the floating
        dtype of the points."""
        with verbosity(self.verbose):
            raw = self._scores(X)
            return in_dtype_keeping_argmax(self._proba_of_scores(self._class_scores(raw)), _float_of(raw))

    def predict(self, X: ArrayLike) -> np.ndarray:
        """The class with the largest score (the first one at a tie; for the ``"distribution"``
        methods, of the label distribution), the argmax of ``predict_proba``."""
        with verbosity(self.verbose):
            S = self._class_scores(self._scores(X))
        return self.classes_[np.argmax(S, axis=1)]

    def score(self, X: ArrayLike, y: ArrayLike, sample_weight: Optional[ArrayLike] = None) -> float:
        """Mean accuracy of ``predict(X)`` on the *labeled* rows of ``y``.

        ``y`` is read as in ``fit``: the rows marked ``unlabeled`` (and None / NaN, "" among
        strings) are left out, so a semi-supervised target (e.g. in ``GridSearchCV``) scores the
        known labels only instead of counting every unlabeled row as an error.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features), or what ``predict`` takes
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), optional

        Returns
        -------
        float
        """
        from sklearn.metrics import accuracy_score
        pred = self.predict(X)
        y, keep = labeled_rows(y, pred.shape[0], unlabeled=self.unlabeled)
        w = _labeled_weights(sample_weight, keep)
        # float classes beyond int64 (the class 1e20, a whole number): scikit-learn's metrics cast them to int64
        # and said "continuous is not supported"; other float labels keep its checks (a fractional label, or
        # numbers scored against string classes, are its errors, as fit refuses them)
        y_kept, pred_kept = y[keep], np.asarray(pred)[keep]
        kinds = _labels_kind(y_kept), _labels_kind(pred_kept)
        if None not in kinds and kinds[0] != kinds[1]:
            # numbers against string classes (or the reverse): fit refuses a mix of label types; scikit-learn's
            # metrics refuse it from 1.7 on, 1.6 scored 0.0 without a word
            raise ValueError(f"Mix of label input types ({kinds[0]} and {kinds[1]}): y holds {kinds[0]} labels and "
                             f"the classes are {kinds[1]}s ({', '.join(map(_show, self.classes_[:3]))}"
                             f"{', ...' if len(self.classes_) > 3 else ''}).")
        numeric = kinds[0] == "number"
        huge = numeric and (_beyond_int64(y_kept) or _beyond_int64(pred_kept))
        if huge:
            fractional = _fractional_label(y_kept)
            if fractional is not None:         # scikit-learn's own refusal, which the equality scoring skips
                raise ValueError(f"Classification metrics can't handle continuous targets: y holds {fractional!r}, "
                                 "which is not a class label.")
        if huge or (y.dtype == object and any(isinstance(v, tuple) for v in y[keep].tolist())):
            # tuple classes: scikit-learn's metrics take them for a legacy multi-label format and refuse them
            hit = np.array([a == b for a, b in zip(y[keep].tolist(), pred[keep].tolist())], dtype=np.float64)
            return float(np.average(hit, weights=w))
        return float(accuracy_score(y[keep], pred[keep], sample_weight=w))


def _labels_kind(a):
    """"text" or "number" when every entry of the label array ``a`` is one (bools count as numbers here), else
    None (an empty array, tuples, mixed or other objects); per entry, the label encoder's own rule
    (``_core.labels._label_kind``)."""
    if a.dtype.kind in "USa":
        return "text"
    if a.dtype.kind in "fiub":
        return "number"
    if a.dtype == object and a.size:
        kinds = {"number" if k == "bool" else k for k in map(_label_kind, a.tolist())}
        if len(kinds) == 1 and None not in kinds:
            return kinds.pop()
    return None


def _beyond_int64(a):
    """Whether the float labels in ``a`` (a float or object array) reach 2**63, where scikit-learn's metrics, which
    cast float labels to int64, call them continuous."""
    if a.dtype == object:
        values = [abs(float(v)) for v in a.tolist() if isinstance(v, (float, np.floating))]
        return bool(values) and max(values) >= 2.0 ** 63
    return a.dtype.kind == "f" and a.size > 0 and float(np.abs(a).max()) >= 2.0 ** 63


def _labeled_weights(sample_weight, keep):
    """``score``'s ``sample_weight`` on the labeled rows ``keep`` (a boolean mask over the rows of X); a number weighs
    every row alike.  One entry per row of X, or a ValueError naming sample_weight (a wrong length was numpy's
    IndexError "boolean index did not match indexed array", a number "too many indices for array")."""
    if sample_weight is None:
        return None
    w = np.asarray(sample_weight)
    if w.ndim == 0:
        w = np.full(keep.shape[0], w)
    if w.ndim != 1 or w.shape[0] != keep.shape[0]:
        raise ValueError(f"sample_weight must have one entry per row of X ({keep.shape[0]}, the labeled and the "
                         f"unlabeled ones), or be a number; got shape {w.shape}.")
    return w[keep]


def _float_of(values):
    """float32 for float32 values, float64 otherwise (the dtype the outputs keep)."""
    return np.dtype(np.float32) if np.asarray(values).dtype == np.float32 else np.dtype(np.float64)


def in_dtype_keeping_argmax(P, dtype):
    """Scores or probabilities P ((n, k) or (n,)) computed in float64, returned in ``dtype`` with the argmax
    of every row kept: where rounding to float32 ties the largest entry with another, the largest is
    raised by one unit in the last place (so that ``classes_[argmax(predict_proba(X))] == predict(X)``
    stays exact, as for float64 points)."""
    dtype = np.dtype(dtype)
    P = np.asarray(P)
    out = P.astype(dtype, copy=False)
    if out.dtype == P.dtype or out.ndim != 2 or not out.shape[0]:
        return out
    top = np.argmax(P, axis=1)
    rows = np.flatnonzero(out.argmax(axis=1) != top)
    if rows.size:
        out[rows, top[rows]] = np.nextafter(out[rows].max(axis=1), dtype.type(np.inf))
    return out


#: Regressors whose results come back in float32 (float32 points or graph): targets above 2^100 (1.3e30) are fitted
#: in units of a power of two of y and predicted in those units (RegressorOutputMixin), exactly: near float32's
#: largest value the centred targets and the solves' sums overflowed (LapRLSRegressor and PLapRLSRegressor raised
#: 'Y contains NaN or infinity' on targets reaching 3.3e38, which float32 holds).
FLOAT32_TARGET_UNIT_EXPONENT = 100


class RegressorOutputMixin(RegressorMixin):
    """Regressor outputs: ``predict`` of the fitted function; NaN marks unlabeled targets."""

    # The families declare ``_TARGET_LINEAR``: their fitted attributes linear in the targets, each with the
    # target columns on its last axis; a multi-output fit runs on standardized columns and these are scaled
    # back (fit: _target_scales, _scale_back_targets).  A member whose selection is already scale free per column, or whose fit is not linear in
    # the targets (GraphTVRegressor: one alpha_ per column), sets ``_STANDARDIZES_TARGETS = False``.  (Read
    # with getattr: a default here would shadow the families', which come after this mixin in the MRO.)

    def _encode_targets(self, y, n):
        labeled, yv = split_regression_targets(y, n)
        self._y_1d = yv.ndim == 1
        Y = yv[labeled].reshape(int(labeled.sum()), -1)
        if getattr(self, "_UNLABELED_ROWS_HELP", False) and labeled.size and labeled.all():
            # a semi-supervised learner given no unlabeled row, some targets at -1 (the classifiers' unlabeled
            # marker): those -1s were fitted as values without a word (LapRLSRegressor predicted -0.85 everywhere
            # for a y with its 54 unlabeled rows at -1); the transductive regressors say so in their own words
            minus = int(np.count_nonzero(np.all(Y == -1.0, axis=1)))
            if minus:
                warn(f"{type(self).__name__}: y has no NaN, so all {labeled.size} rows are labeled, {minus} of them "
                     f"with the target -1, the classifiers' unlabeled marker, which is a real value to a regressor. "
                     f"NaN marks an unlabeled row for a regressor: if those rows are unlabeled, set their targets to "
                     f"np.nan.", GraphRKHSWarning)
        return labeled, Y

    def _check_target_range(self, X, Y):
        """Record the fit's target-unit limit (``_target_unit_limit``, read by :meth:`_target_scales` and
        :meth:`predict`: 2^100 for float32 results, 2^500 otherwise), then raise a ValueError naming y and X's
        dtype when a target column is outside float32's range and the fitted values come back in X's dtype,
        float32 (float32 points or graph; the solves run in float64 or in units of a power of two of y): a
        labeled target beyond float32's largest value (3.4e38), or a column whose targets are all below its
        smallest normal value (1.2e-38).  Such targets came back as inf / NaN
        predictions (RLSRegressor, FredholmRegressor, the transductive regressors at y ~ 1e45), raised
        'Y contains NaN or infinity' (LapRLSRegressor, PLapRLSRegressor), or as all-zero predictions at
        y ~ 1e-50, silently, where float64 X gives the fit."""
        float32 = float_dtype(getattr(X, "dtype", np.float64)) == np.float32
        # float32 output: targets above 2^FLOAT32_TARGET_UNIT_EXPONENT are fitted in units of a power of two
        # (_target_scales), as float64's near 1e308
        self._target_unit_limit = FLOAT32_TARGET_UNIT_EXPONENT if float32 else TARGET_UNIT_EXPONENT
        if not float32 or not np.size(Y):
            return
        info = np.finfo(np.float32)
        big, tiny = float(info.max), float(info.tiny)
        with np.errstate(invalid="ignore"):
            top = np.max(np.abs(np.asarray(Y, dtype=np.float64)).reshape(np.shape(Y)[0], -1), axis=0)
        bad = (top > big) | ((top > 0) & (top < tiny))
        if bad.any():
            value = float(top[bad][0])
            raise ValueError(f"{type(self).__name__}: y is outside the range of X's dtype, float32: its labeled "
                             f"targets reach {value:.3g} (float32 holds {tiny:.3g} .. {big:.3g}), and the "
                             "predictions come back in X's dtype. Pass X as float64 (X.astype(np.float64)), or "
                             "scale y into float32's range and scale the predictions back.")

    def _target_scales(self, Y):
        """The scales of the target columns (:func:`~graphrkhs.estimators._auto.target_scales`), kept as
        ``_y_scales``; None for one column or a member that opts out.

        One set of hyperparameters serves all columns and its criterion sums the columns' squared errors:
        on the raw targets a column weighed by its squared scale (an unrelated column times 100 moved the
        others' alpha_ from 10 to 1e6).  ``fit`` therefore runs the member's fit on the columns divided by
        their scales and multiplies the fitted functions back (:meth:`_scale_back_targets`).  The member's
        solve is linear in the targets at fixed hyperparameters, so each column's fit is unchanged (up to
        rounding) and the selection is invariant to rescaling any single column.  One column: the member's
        fit as is, bit for bit -- unless its largest magnitude exceeds :math:`2^{500}`
        (``TARGET_UNIT_EXPONENT``) or is below :math:`2^{-500}`: then the fit runs on ``y / 2^e``
        (:func:`~graphrkhs._core.validation.power_of_two_exponent`) and is scaled back by :math:`2^e`, exactly
        barring subnormal results (targets near 1e307 overflowed in the solves: PLapRLSRegressor predicted NaN,
        FredholmRegressor raised about its own coefficients; near 1e-318 the selections' squared errors
        underflowed to 0: FredholmRegressor chose another width and its fit was 108 % off).  A fit whose results
        are float32 (float32 points or graph) does the same above :math:`2^{100}`
        (``FLOAT32_TARGET_UNIT_EXPONENT``), and predicts in those units (targets reaching 3.3e38 overflowed)."""
        if not getattr(self, "_STANDARDIZES_TARGETS", True):
            self._y_scales = None
            return None
        scales = target_scales(Y)
        if scales is None:
            e = power_of_two_exponent(Y)
            if abs(e) > TARGET_UNIT_EXPONENT or e > getattr(self, "_target_unit_limit", TARGET_UNIT_EXPONENT):
                scales = np.full(np.shape(Y)[1], np.ldexp(1.0, e))
        self._y_scales = scales
        return scales

    def _scale_back_targets(self, scales):
        """Multiply the fitted attributes linear in the targets (the family's ``_TARGET_LINEAR``, columns on
        the last axis, and a member's cached factors through ``_rescale_target_factors``) by ``scales``."""
        for name in getattr(self, "_TARGET_LINEAR", ()):
            value = getattr(self, name, None)
            if value is not None:
                value = np.asarray(value)
                with np.errstate(over="ignore", invalid="ignore"):
                    back = (value * scales).astype(value.dtype, copy=False)
                if not np.isfinite(back).all() and np.isfinite(value).all():
                    raise self._too_large_targets(f"its fitted {name}", back.dtype)
                setattr(self, name, back)
        rescale = getattr(self, "_rescale_target_factors", None)
        if rescale is not None:
            with np.errstate(over="ignore", invalid="ignore"):
                rescale(scales)

    def _too_large_targets(self, what, dtype=np.float64):
        """The ValueError of a fit (or prediction) on finite targets whose result overflows its dtype."""
        dtype = np.dtype(dtype) if np.dtype(dtype) == np.float32 else np.dtype(np.float64)
        more = " (the dtype of X; X.astype(np.float64) gives float64 results)" if dtype == np.float32 else ""
        top = "3.4e38" if dtype == np.float32 else "1.8e308"
        return ValueError(f"{type(self).__name__}: y is too large: {what} overflows {dtype.name}{more} (beyond "
                          f"{top}). Scale the targets down (e.g. divide y by its largest magnitude) and scale the "
                          "predictions back.")

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Predicted targets, shape (n,) or (n, n_targets) like the fitted y."""
        scales = getattr(self, "_y_scales", None)
        with verbosity(self.verbose):
            if scales is None or float(np.max(scales)) <= np.ldexp(1.0, getattr(self, "_target_unit_limit",
                                                                                  TARGET_UNIT_EXPONENT)):
                F = np.asarray(self._scores(X))
            else:
                # a fit on targets near 1e308 (fitted on y / scales, _target_scales): predicted in those units,
                # by a shallow copy holding the fitted attributes divided by the scales (exact for the power of
                # two of a single column), and scaled back -- the sums of the predictions overflowed on the way
                # to values float64 holds (PLapRLSRegressor at y = +-1e306: coefficients 8.9e307)
                unit = copy.copy(self)
                unit._scale_back_targets(1.0 / scales)
                F = np.asarray(unit._scores(X))
                with np.errstate(over="ignore", invalid="ignore"):
                    back = (F * scales).astype(F.dtype, copy=False)
                if not np.isfinite(back).all() and np.isfinite(F).all():
                    raise self._too_large_targets("the prediction at X", back.dtype)
                F = back
        return F[:, 0] if (self._y_1d and F.ndim == 2) else F

    def score(self, X: ArrayLike, y: ArrayLike, sample_weight: Optional[ArrayLike] = None) -> float:
        """Coefficient of determination :math:`R^2` of ``predict(X)`` on the *labeled* rows of ``y``
        (NaN marks an unlabeled row, as in ``fit``), so a semi-supervised target can be scored.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features), or what ``predict`` takes
        y : array-like of shape (n_samples,) or (n_samples, n_targets)
        sample_weight : array-like of shape (n_samples,), optional

        Returns
        -------
        float
        """
        from sklearn.metrics import r2_score
        pred = self.predict(X)
        keep, y = split_regression_targets(y, pred.shape[0])
        w = _labeled_weights(sample_weight, keep)
        return float(r2_score(y[keep], pred[keep], sample_weight=w))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True       # y of shape (n, k) is fitted column by column
        return tags


UNLABELED_DOC = r"""unlabeled : hashable or None, default=-1
        Marker of the unlabeled rows of ``y`` (scikit-learn's -1 by default);
        None and NaN mark unlabeled rows too.  ``None``: only they do (for
        labels such as {-1, +1}).  Labels {-1, +1} with the default marker
        raise a ``ValueError`` naming the collision (never a one-class fit);
        when -1 looks like a class (integer labels, -1 no more frequent than
        a class, e.g. {-1, 0, 1}) and the marker was left at its default, a
        ``LabelCollisionWarning`` is emitted -- pass ``unlabeled=-1``
        explicitly to confirm it marks unlabeled rows."""

CLASS_PRIORS_DOC = r"""class_priors : array-like of shape (n_classes,), dict or pandas Series, optional
        Class proportions :math:`b` (in the order of ``classes_``, non-negative,
        summing to 1), e.g. known from a census of the data; a dict or a
        pandas Series keyed by the class labels is aligned with ``classes_``
        by label (a Series with the default index 0..k-1 is read in order).  Every class of
        ``classes_`` has labeled samples, so each needs a positive proportion
        (``fit`` raises ValueError on a 0, which contradicts those labels, as
        the MBO classifiers do).  Given, the labels of
        the unlabeled fitted rows are assigned with class sizes :math:`u b_c`
        (u their number, without the nodes no label reaches; rounded by
        largest remainders; the labeled rows are not counted and keep their
        labels -- one rule for every classifier, the MBO ones and CutSSL
        included: b are the proportions of the unlabeled rows, which for
        proportions :math:`\beta` of all N samples with :math:`l_c` labels of
        class c are :math:`(N \beta_c - l_c) / (N - l)`): the labeling that
        maximizes the total (normalized) score under those sizes, found by an
        auction (:func:`~graphrkhs.solvers.size_constrained_assignment`), whose
        class prices become the offsets ``class_offset_`` -- so new points are
        labeled by the same shifted scores.  The labeled rows keep their labels
        in ``transduction_`` (transductive learners); a learner on points has
        only ``predict``, a function of the point, so the offsets shift its
        labeled training points too, and near a class boundary one may cross
        it; ``fit`` warns (:class:`~graphrkhs.GraphRKHSWarning`) when they move
        more than half of a class's labeled points (the priors contradict the
        labels: RLS with priors (0.98, 0.01, 0.01) on three blobs, 3 labels
        each, predicted 5 of the 9 labeled points as other classes).  This is the volume-constrained
        decision of GraphLearning's ``class_priors`` (which reaches the sizes
        by gradient steps on multiplicative weights, within a tolerance) and of
        Jacobs, Merkurjev & Esedoglu (2018); here the sizes are met exactly:
        the transductive learners keep the assignment's labeling in
        ``transduction_`` also at exact score ties, which no prices separate
        (a learner on points: up to the few points at such ties).  None: no size constraint, and
        ``fit`` warns (:class:`~graphrkhs.GraphRKHSWarning`) when a labeled
        class is predicted on fewer than a tenth of the unlabeled rows its
        label share would give it (at least 10), the degeneracy of
        Laplace-type learning at low label rates (29 + 1 random labels of a
        95 / 5 % split: the rare class predicted nowhere; see
        :func:`~graphrkhs._core.labels.unpredicted_classes`).
    class_normalization : {None, "mass", "mean_shift"}, default=None
        Per-class normalization of the scores, learned on the unlabeled fitted
        rows R, with :math:`q` = ``class_priors`` or, when None, the labeled
        class proportions :math:`\bar y`:

        * ``"mass"``: class mass normalization (Zhu, Ghahramani & Lafferty,
          ICML 2003): :math:`s'_{ic} = q_c \hat s_{ic} / \operatorname{mean}_{j
          \in R} \hat s_{jc}`, :math:`\hat s = s - \min(0, \min_R s)` (the scores
          made non-negative by one common shift), so that each class's predicted
          mass is proportional to :math:`q_c`;
        * ``"mean_shift"``: :math:`s'_{ic} = (q_c / \bar y_c)(s_{ic} -
          \operatorname{mean}_{j \in R} s_{jc})`: every class column centred
          (the label-mean shift that makes Poisson learning immune to the
          constant bias of Laplace learning at low label rates) and weighted by
          the class-size ratio of Poisson learning's Algorithm 1 (Calder et al.,
          ICML 2020);
        * None: the method's scores.

        With ``class_priors`` the size-constrained assignment follows the
        normalization.  ``"mass"`` without ``class_priors`` takes the class
        masses from the labeled proportions: ``fit`` warns
        (:class:`~graphrkhs.GraphRKHSWarning`) when they are unequal and some
        class's rests on too few labels (within two standard errors
        :math:`\sqrt{\bar y_c (1 - \bar y_c) / l \cdot (N - l) / (N - 1)}` of
        0, :math:`l` labels of :math:`N` samples; at most 3 labels), as the MBO classifiers do for their class sizes."""

VERBOSE_DOC = r"""verbose : bool or None, default=None
        Progress bars (tqdm) of the long steps of ``fit`` and ``predict`` (graph,
        solves): True / False switch them on / off for everything inside; None
        follows the caller (an enclosing ``verbose=``, the command line) or the
        ``graphrkhs`` logger (see :mod:`graphrkhs._core.progress`)."""


def _priors_in_class_order(class_priors, classes, unlabeled=None):
    """``class_priors`` (a dict or pandas Series keyed by class label, or a sequence in the order of
    ``classes``) as a sequence in the order of ``classes`` (a ValueError naming the labels that do not
    match; a key equal to the marker ``unlabeled`` is named as the marker)."""
    if isinstance(class_priors, dict):
        by_label = class_priors
    elif hasattr(class_priors, "index") and hasattr(class_priors, "to_numpy") and np.ndim(class_priors) == 1:
        index = list(class_priors.index)
        if index == list(range(len(index))) and not _same_labels(index, classes):
            _check_priors_cover_the_labeled_classes(class_priors, classes)   # the default index: positional
            return class_priors.to_numpy()
        if len(set(index)) != len(index):
            raise ValueError(f"class_priors' index repeats a class label: {index!r}; give each class once.")
        by_label = dict(zip(index, class_priors.to_numpy()))
    else:
        _check_priors_cover_the_labeled_classes(class_priors, classes)
        return class_priors
    known = [c.item() if isinstance(c, np.generic) else c for c in classes]
    missing = [c for c in known if c not in by_label]
    extra = [key for key in by_label if not any(_equal_label(key, c) for c in known)]
    marker = [key for key in extra if _is_marker(key, unlabeled)]
    extra = [key for key in extra if not _is_marker(key, unlabeled)]
    if missing or extra or marker:
        parts = []
        if missing:
            parts.append(f"no proportion for class(es) {', '.join(map(repr, missing))}")
        if marker:
            parts.append(f"proportions for {marker[0]!r}, the marker of the unlabeled rows (unlabeled="
                         f"{unlabeled!r}), not a class: drop its proportion and divide the others by their sum")
        if extra:
            parts.append(f"proportions for {', '.join(map(repr, extra))}, which no labeled sample has (a class "
                         "without labels cannot be predicted: label one of its samples, or drop its proportion "
                         "and divide the others by their sum)")
        raise ValueError(f"class_priors keyed by class label must give one proportion per class of classes_ "
                         f"({', '.join(map(repr, known))}): {'; '.join(parts)}.")
    return [by_label[c] for c in known]


def _is_marker(key, unlabeled):
    """``key`` is the unlabeled marker (NaN included, when the marker is NaN)."""
    if unlabeled is None:
        return key is None
    if isinstance(unlabeled, float) and np.isnan(unlabeled):
        return isinstance(key, (float, np.floating)) and bool(np.isnan(key))
    return type(key) is not bool and _equal_label(key, unlabeled)


def _equal_label(a, b):
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return False


def _same_labels(index, classes):
    return len(index) == classes.size and all(any(_equal_label(i, c) for c in classes.tolist()) for i in index)


def _check_priors_cover_the_labeled_classes(class_priors, classes):
    """A ValueError naming the labeled classes when ``class_priors`` is a flat list of another length (the
    usual cause: a proportion for a class that no labeled sample has, which ``classes_`` does not hold)."""
    try:
        shape = np.shape(class_priors)
    except ValueError:                   # ragged: check_class_priors reports it
        return
    if len(shape) == 1 and shape[0] != classes.size:
        shown = ", ".join(_show_label(c) for c in classes[:10]) + (", ..." if classes.size > 10 else "")
        more = (" A class without labels cannot be predicted: label one of its samples, or drop its proportion "
                "(and divide the others by their sum).") if shape[0] > classes.size else ""
        raise ValueError(f"class_priors must have one entry per class ({classes.size}, in the order of classes_); "
                         f"got {shape[0]}. classes_ are the classes with at least one labeled sample in y: "
                         f"{shown}.{more}")


def _show_label(c):
    return repr(c.item() if isinstance(c, np.generic) else c)


def _document_class_priors(cls):
    """Add the ``class_priors`` / ``class_normalization`` entries to a classifier's Parameters section
    (once, before its Attributes or Examples section) when its docstring lacks them."""
    doc = cls.__dict__.get("__doc__")
    if not doc or "class_normalization :" in doc or "Parameters\n" not in doc:
        return
    entry = "    " + CLASS_PRIORS_DOC + "\n"
    for section in ("\n    Attributes\n    ------", "\n    Examples\n    ------", "\n    References\n    ------"):
        if section in doc:
            head, tail = doc.split(section, 1)
            cls.__doc__ = head.rstrip() + "\n" + entry + section + tail
            return
    cls.__doc__ = doc.rstrip() + "\n" + entry


# ---------------------------------------------------------------------------
# Pieces shared by the families
# ---------------------------------------------------------------------------

POSITIVE = Interval("real", 0, None, closed="neither")

# The graph parameters of every estimator that builds a graph (GraphSpec's names and defaults);
# the Gaussian width is ``sigma`` in the transductive learners and ``graph_sigma`` in the
# point-cloud learners, whose ``sigma`` is the kernel width.
GRAPH_CONSTRAINTS = {
    "n_neighbors": [Interval("int", 1, None)],
    "radius": [POSITIVE, None],
    "weight": [Options(*WEIGHTS)],
}
# ... and of the point-cloud learners with a graph term (LapRLS, PLapRLS, warped kernel).
POINT_CLOUD_GRAPH_CONSTRAINTS = {
    **GRAPH_CONSTRAINTS,
    "graph_sigma": [POSITIVE, None],
    "laplacian": [Options(*LAPLACIANS)],
    "laplacian_power": [Interval("int", 1, None)],
}


def graph_spec(estimator, sigma, **laplacian):
    """The :class:`~graphrkhs.GraphSpec` of an estimator's parameters (the one graph builder).

    A ``GraphSpec`` given as ``graph`` is used as is for the construction; the
    Laplacian kind and power (``laplacian``) stay the estimator's parameters.
    ``weight=None`` (an estimator whose default weights depend on the data) means
    :func:`~graphrkhs.knn_graph`'s default, Gaussian.
    """
    g = estimator.graph
    if isinstance(g, GraphSpec):
        _check_spec_laplacian(estimator, g)
    weight = "gaussian" if estimator.weight is None else estimator.weight
    spec = g if isinstance(g, GraphSpec) else GraphSpec(
        kind=g, n_neighbors=estimator.n_neighbors, radius=estimator.radius, weight=weight, sigma=sigma)
    return spec.replace(**laplacian) if laplacian else spec


def _check_spec_laplacian(estimator, spec):
    """A ValueError when a ``GraphSpec`` given as ``graph`` asks for a Laplacian kind or power (a field off
    GraphSpec's default) that the estimator does not use: its own ``laplacian`` / ``laplacian_power`` decide
    (or, without such a parameter, its method's Laplacian), and the spec's was dropped without a word
    (LapRLSClassifier(graph=GraphSpec(laplacian="normalized")) fitted the combinatorial Laplacian)."""
    params = estimator.get_params(deep=False)
    name = type(estimator).__name__
    for field, default in (("laplacian", "combinatorial"), ("laplacian_power", 1)):
        asked = getattr(spec, field)
        if asked == default or (field in params and params[field] == asked):
            continue
        if field in params:
            fix = (f"the estimator's own {field}={params[field]!r} decides: pass {field}={asked!r} to {name} "
                   f"(and leave GraphSpec's {field} at its default)")
        else:
            fix = (f"{name} has no {field} parameter (its method fixes the Laplacian): leave GraphSpec's {field} "
                   "at its default")
        raise ValueError(f"graph=GraphSpec({field}={asked!r}) asks for a Laplacian that {name} would not use: {fix}.")


def fit_copy(value):
    """A parameter value as a fit keeps it: an object with parameters of its own (``get_params``, e.g. a
    scikit-learn kernel given as ``kernel=``) deep-copied, other values as they are.  ``set_params(kernel__length_scale=5)``
    changes that object in place: kept by reference, it changed the fitted model's predictions without a refit
    (RLSClassifier: decision values 0.93 apart, PLapRLSClassifier 1.69)."""
    return copy.deepcopy(value) if hasattr(value, "get_params") and not isinstance(value, type) else value


def warn_edgeless_graph(W, estimator):
    r"""A :class:`GraphWarning` when the graph of a learner's intrinsic (manifold) term has no edge at all (an
    epsilon graph with a radius below every distance, a given zero adjacency): its Laplacian is 0, so the term
    :math:`\gamma_I f^T L^p f` is 0 whatever ``gamma_I`` and the fit is the purely supervised one (LapRLS and the
    warped kernel become RLS, PLapRLS becomes PRLS) -- the semi-supervised request silently dropped.  Nothing when
    ``gamma_I`` is 0 or a grid of zeros only (the user asked for no such term)."""
    if W.nnz or W.shape[0] < 2 or _all_zero(getattr(estimator, "gamma_I", None)):
        return
    graph = getattr(estimator, "graph", None)
    if isinstance(graph, str):
        how = f"graph={graph!r}" + (f", radius={estimator.radius!r}" if graph == "epsilon" else "")
    else:           # a GraphSpec shows its parameters; a given adjacency is named as such
        how = f"graph={graph!r}" if isinstance(graph, GraphSpec) else "the given graph"
    warn(f"{type(estimator).__name__}: the graph of the {W.shape[0]} training points has no edges ({how}), so "
         "its Laplacian is 0 and the intrinsic term gamma_I f^T L^p f drops out: the fit uses the labeled points "
         "alone (the supervised fit, as with gamma_I=0). Build a graph with edges: a larger radius, or graph='knn'.",
         GraphWarning)


def _all_zero(gamma):
    """Whether ``gamma`` is 0 or a grid (list, tuple, array) of zeros only; False for "auto" and the like.  A grid
    ``gamma_I=[0.0]`` warned about the edgeless graph although no candidate asks for the intrinsic term."""
    if isinstance(gamma, numbers.Real):
        return gamma == 0
    if isinstance(gamma, (str, bytes)) or not isinstance(gamma, (list, tuple, np.ndarray)):
        return False
    values = np.ravel(np.asarray(gamma, dtype=object))
    return values.size > 0 and all(isinstance(g, numbers.Real) and g == 0 for g in values)


def _graph_object(X):
    """Whether X is a pygsp or networkx graph (as_adjacency reads it; np.asarray of a networkx graph is the array
    of its node names, not of its weights)."""
    return (type(X).__module__ or "").startswith(("networkx", "pygsp"))


def _object_dtype(X):
    """Whether X (not sparse) reads as an object-dtype numpy array (False for what numpy cannot read)."""
    if _graph_object(X):
        return False
    try:
        return np.asarray(X).dtype == object
    except (TypeError, ValueError):          # ragged lists: as_adjacency reports them
        return False


def precomputed_adjacency(X, name="X"):
    """A given adjacency: ``graph="precomputed"``'s X (fit, and the model-change proposals on the fit's X) or the
    inductive learners' ``graph=`` (``name="graph"``), one rule for both: numeric object-dtype weights as
    object-dtype points and predict's new rows -- text and missing values refused by the one check, the
    numbers converted (as_adjacency refused the dtype; the inductive learners refused numeric object weights
    that the transductive ones take)."""
    check_numeric_points(X, name)
    if not sp.issparse(X) and _object_dtype(X):
        if name == "X":
            X = check_estimator_points(X)
        else:
            try:
                X = np.asarray(X).astype(np.float64)
            except (TypeError, ValueError) as exc:
                raise TypeError(f"{name} must hold numbers; got dtype object with non-numeric entries ({exc}).") from exc
    return as_adjacency(X)


def check_numeric_points(X, name="X"):
    """Refuse points that hold text or missing values, before any conversion to float.

    scikit-learn's float conversion (the transductive learners) and ``astype(float)`` of an object array
    (the inductive ones) parsed text points (``X.astype(str)``, a data frame with a str column) into
    numbers without a word; the project parses no text (regression targets, the command line's cells).
    Missing values (None, NaN, ``pd.NA``) in an object array were a ``TypeError`` about non-numeric
    entries.  Sparse matrices and graphs are left to their own checks.
    """
    from .._core.labels import _is_missing, _show

    # graphs: np.asarray(networkx_graph) lists the node names, so a graph with named nodes ("alice") was
    # refused as text points
    if sp.issparse(X) or X is None or isinstance(X, (str, bytes)) or _graph_object(X):
        return
    try:
        arr = np.asarray(X)
    except (TypeError, ValueError):        # ragged lists: the family's own check reports them
        return
    kind = arr.dtype.kind
    if kind in "US":
        text = arr.ravel()[0] if arr.size else ""
    elif kind == "O":
        items = arr.ravel().tolist()
        text = next((v for v in items if isinstance(v, (str, bytes, np.str_, np.bytes_))), None)
        if text is None:
            n_missing = sum(1 for v in items if _is_missing(v))
            if n_missing:
                raise ValueError(f"{name} contains missing values ({n_missing} entr{'y' if n_missing == 1 else 'ies'}: "
                                 "None, NaN or pd.NA); impute or drop those rows first.")
            return
    else:
        return
    raise TypeError(f"{name} holds text ({_show(text)}), but points must be numbers; text is not parsed into "
                    f"numbers silently. Convert it yourself ({name}.astype(float)), or encode categorical columns "
                    "as numbers first (e.g. sklearn.preprocessing.OneHotEncoder).")


class PointsLearner(GraphRKHSEstimator):
    """Family base of the learners on points that predict anywhere (inductive, data-dependent):
    X is validated once here, new points are checked against ``n_features_in_``, and the
    member's ``_raw(X)`` gives the fitted function at new points."""

    _conflicting_copies_note = ("the fitted function takes one value at such a point, pulled by the copies toward "
                                "the mean of their labels (it fits none of them), predict gives the class of that "
                                "value, and a leave-one-out selection leaves the copies out together")

    def _validate_input(self, X):
        if sp.issparse(X):          # the kernels evaluate dense rows: say who refuses and where sparse X goes
            raise sparse_points_refused("X", where=type(self).__name__)
        check_numeric_points(X)
        points = check_estimator_points(X, min_samples=2, reason=f": {type(self).__name__} fits on at least two rows")
        # n_features_in_, and feature_names_in_ for a data frame (its column names), as scikit-learn records them
        validate_data(self, X, skip_check_array=True, reset=True)
        return points

    def _check_X_new(self, X):
        self._check_fitted()
        if sp.issparse(X):
            raise sparse_points_refused("X", where=type(self).__name__)
        check_numeric_points(X)
        points = check_estimator_points(X)
        if points.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {points.shape[1]} features, but {type(self).__name__} is expecting "
                             f"{self.n_features_in_} features as input.")
        # a data frame's columns must be the fit's, in the fit's order (reordered columns would be silently
        # wrong predictions): scikit-learn's check, which raises on a difference
        validate_data(self, X, skip_check_array=True, reset=False)
        return points

    def _scores(self, X):
        return self._raw(self._check_X_new(X))


def canonical_order(W, S, Y):
    r"""An order of the labeled nodes S that does not depend on the numbering of the nodes: the order in which
    k-fold CV draws its folds (GraphTV's ``alpha``, the hinge loss's ridge).

    ``W`` is a graph's adjacency or a kernel matrix on the labeled points (dense or sparse, real symmetric;
    ``S`` the labeled rows), whose invariants do not change under a relabeling of the nodes -- nor, for a kernel of the
    distances, under a rigid motion of the points (the coordinates as keys made the hinge loss's folds, and its
    ridge, change with a rotation or a reflection of X: up to 1000x, 42 of 200 new points changed class).

    Lexicographic in (weighted degree :math:`d_i`, :math:`\sum_j w_{ij}^2`, targets Y), the two graph
    invariants rounded to 10 significant digits (a permuted graph sums a row's weights in another
    order); nodes equal in all of them (automorphic, or the same point twice) keep their order.  The
    targets only break the ties of the graph invariants: as the first key they made the order, hence the
    folds and ``alpha_``, depend on the sign of a regression target (``-y`` reversed it: GraphTVRegressor
    chose alpha 0.59 for -y against 2.36 for y, a fit 0.25 away from -f) and on the names of the classes.
    """
    W = sp.csr_array(W)
    # in units of a power of two near the largest weight (exact; the order does not change): the
    # squares of weights ~1e200 overflowed (NaN keys), of ~1e-200 underflowed (all 0)
    W = W * np.ldexp(1.0, -power_of_two_exponent(W.data))
    rows = np.asarray(S)
    deg = np.asarray(W.sum(axis=1)).ravel()[rows]
    sq = np.asarray(W.multiply(W).sum(axis=1)).ravel()[rows]

    def rounded(v):
        scale = np.where(v != 0, 10.0 ** np.floor(np.log10(np.abs(np.where(v != 0, v, 1.0)))), 1.0)
        return np.round(v / scale, 9) * scale

    Y2 = np.asarray(Y, dtype=np.float64).reshape(rows.size, -1)
    keys = [Y2[:, j] for j in range(Y2.shape[1] - 1, -1, -1)] + [rounded(sq), rounded(deg)]   # last = first key
    return np.lexsort(keys)
