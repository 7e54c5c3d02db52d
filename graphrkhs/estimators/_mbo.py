r"""Classifiers with class sizes (scikit-learn API): Poisson MBO, volume-constrained MBO and CutSSL.

Thin layers over :func:`~graphrkhs.solvers.poisson_mbo`,
:func:`~graphrkhs.solvers.volume_mbo` and :func:`~graphrkhs.solvers.cut_ssl`, with the transductive contract of
:mod:`graphrkhs.estimators._transductive` (graph parameters, ``transduction_``,
``label_distributions_``, the out-of-sample rule).  The class sizes of the
unlabeled nodes are ``class_priors`` (or, with ``class_priors=None``, the labeled
class proportions) times the number of unlabeled nodes some label reaches, the
rule of every classifier (``CLASS_PRIORS_DOC``); labeled nodes keep their labels
and are not counted; nodes of components without a label are not sized (their
distribution is the priors).
"""

from typing import Hashable, Optional, Sequence, Tuple, Union

from .._core.labels import UNLABELED
from .._core.types import RandomStateLike
from .._core.validation import Interval
from ..solvers import cut_ssl, poisson_mbo, volume_mbo
from ._base import POSITIVE
from ._transductive import _GRAPH_DOC, _PRECONDITIONERS, _TOL, GraphArg, _TransductiveClassifier

__all__ = ["PoissonMBOClassifier", "VolumeMBOClassifier", "CutSSLClassifier"]

_SIZES_DOC = r"""class_priors : array of shape (n_classes,), dict or pandas Series, optional
        Class proportions b (in the order of ``classes_``, summing to 1; a dict
        or Series keyed by class label is aligned by label; each class, having
        labeled nodes, needs a positive proportion: ValueError on a 0): class
        c gets :math:`u' b_c` of the :math:`u'` unlabeled nodes some label
        reaches (largest remainders), as with every classifier; the labeled
        nodes keep their labels and are not counted (the papers, and
        GraphLearning, size all nodes: for proportions :math:`\beta` of all
        :math:`N` nodes with :math:`l_c` labels of class c pass
        :math:`b_c = (N \beta_c - l_c) / (N - l)`); nodes of connected
        components without a label are not sized (no label informs them):
        their ``label_distributions_`` rows are b.
        None: the labeled class proportions -- the class sizes only when the
        labeled nodes are a uniform random sample.  ``fit`` warns
        (:class:`~graphrkhs.GraphRKHSWarning`, naming ``class_priors``) when
        those proportions are unequal and some class's rests on too few
        labels: a proportion :math:`\hat p_c = n_c / l` of :math:`l` labels
        drawn from :math:`N` samples has standard error
        :math:`\sqrt{\hat p_c (1 - \hat p_c) / l \cdot (N - l) / (N - 1)}`, and
        a class within two of them of 0
        (:math:`n_c < 4 (1 - \hat p_c) (N - l) / (N - 1)`: at most 3 labels,
        none when every sample is labeled) has a size the labels cannot tell from nothing (on
        two equal blobs of 21 points labeled 1 : 20 the sizes 2 : 40 label
        2 of the 21 unlabeled points correctly).  Equal label counts (1 or 10
        per class) give equal proportions and no warning.  With a fixed number of labels per class on
        imbalanced data pass the priors: on three blobs of 80 / 30 / 10 points
        with 3 labels each, ``None`` (1/3 each) labels 67 % (Poisson MBO) and
        61 % (volume MBO), where Poisson learning labels all of them.  The
        labeling is no test of the sizes: on balanced Fashion-MNIST Poisson
        learning's own class proportions are 0.1-0.25 (total variation) from
        uniform.
    class_normalization : {None, "mass", "mean_shift"}, default=None
        Applied to the final scores (see
        :class:`~graphrkhs.estimators._base.ClassifierOutputMixin`), followed by
        class offsets (the prices of the size-constrained assignment) that keep
        the class sizes of the solver's labels: alone, the per-class scaling
        moved them (volume MBO, sizes 45 / 27 / 18 of 90 blobs, ``"mass"``: 60
        / 27 / 3)."""


def _sizes_priors(est, Y):
    """The solver's ``class_priors``: the estimator's, or the labeled proportions of the one-hot Y (the solver's
    own default, passed explicitly: ``fit`` has already warned when they rest on too few labels)."""
    if est.class_priors is not None:
        return est._given_priors()        # in the order of classes_ (a dict / Series aligned by label)
    return Y.sum(axis=0) / Y.shape[0]


class PoissonMBOClassifier(_TransductiveClassifier):
    __doc__ = r"""Poisson MBO (Calder, Cook, Thorpe & Slepcev, ICML 2020, Algorithm 2).

    Poisson learning, then ``max_iter`` rounds of ``n_inner`` explicit steps of
    the heat equation forced by the Poisson source (weight ``mu``) and the
    projection onto labelings with the class sizes
    (:func:`~graphrkhs.solvers.poisson_mbo`).  Reproduces the paper's Poisson
    MBO (their Tables 1-3: 1-2 points above Poisson learning at 1-5 labels per
    class on MNIST / Fashion-MNIST VAE features); see the user guide and
    ``benchmarks/mbo.py`` for the comparison with GraphLearning's
    ``poisson_mbo`` on the same graphs.  ``predict_proba`` is the softmax of the
    final scores (the last diffused indicators minus the class prices).

    Parameters
    ----------
    """ + _SIZES_DOC + r"""
    mu : float > 0, default=1.0
        Weight of the Poisson forcing (the paper's value), in the units of the
        edge weights: the fit on ``c W`` with ``mu c`` is the fit on ``W`` with
        ``mu`` (1 suits weights of order 1, as those of
        :func:`~graphrkhs.knn_graph`; a precomputed graph in other units labels
        differently -- 8 % of three blobs' nodes at ``W * 7`` -- unless ``mu``
        follows, see :func:`~graphrkhs.solvers.poisson_mbo`).
    n_inner : int, default=40
        Heat steps per round (the paper's :math:`N_{inner}`).  Steps that
        would only repeat earlier ones (the steady state reached in floating
        point) are skipped with the same result, and a
        :class:`~graphrkhs.GraphRKHSWarning` asks for a smaller value when
        the steady state is reached within a round (see
        :func:`~graphrkhs.solvers.poisson_mbo`).
    max_iter : int, default=20
        Rounds (the paper's :math:`N_{outer}`); stops earlier at a fixed point
        (a ``ConvergenceWarning`` when the last round still moved more than
        0.1 % of the nodes, see :func:`~graphrkhs.solvers.poisson_mbo`).
    tol : float, default=1e-6
        CG relative residual of the initial Poisson solve.
    preconditioner : {"auto", "amg", "jacobi", None}, default="auto"
        Of the initial Poisson solve.
    """ + _GRAPH_DOC + r"""
    Attributes
    ----------
    n_iter_ : int
        Rounds run.
    classes_, transduction_, scores_, label_distributions_, n_features_in_
        As described in :ref:`ug_transductive` ("Using the estimators").

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import PoissonMBOClassifier
    >>> X = np.r_[np.linspace(0, 1, 5), np.linspace(1.5, 2.5, 5)][:, None]
    >>> y = np.full(10, -1); y[0], y[9] = 0, 1
    >>> PoissonMBOClassifier(n_neighbors=3).fit(X, y).transduction_
    array([0, 0, 0, 0, 0, 1, 1, 1, 1, 1])
    """

    _sizes_in_solver = True
    _parameter_constraints = {"mu": [POSITIVE], "n_inner": [Interval("int", 1, None)],
                              "max_iter": [Interval("int", 1, None)], "tol": _TOL,
                              "preconditioner": _PRECONDITIONERS}

    def __init__(self, *, class_priors: Optional[Sequence[float]] = None, class_normalization: Optional[str] = None,
                 mu: float = 1.0, n_inner: int = 40, max_iter: int = 20, tol: float = 1e-6,
                 preconditioner: Optional[str] = "auto", graph: GraphArg = "knn", n_neighbors: int = 10,
                 radius: Optional[float] = None, weight: str = "gaussian", sigma: Optional[float] = None,
                 random_state: RandomStateLike = None,
                 unlabeled: Optional[Hashable] = UNLABELED, verbose: Optional[bool] = None):
        self._store_init_params(locals())

    def _solve(self, W, S, Y):
        F, info = poisson_mbo(W, S, Y, class_priors=_sizes_priors(self, Y), mu=self.mu, n_inner=self.n_inner,
                              max_iter=self.max_iter, tol=self.tol, preconditioner=self.preconditioner,
                              return_info=True)
        self.n_iter_ = info["n_iter"]
        return F


class VolumeMBOClassifier(_TransductiveClassifier):
    __doc__ = r"""Volume-constrained MBO by auction dynamics (Jacobs, Merkurjev & Esedoglu, JCP 2018).

    Alternates a diffusion of the class indicators (``n_inner`` heat steps) with
    the assignment of the unlabeled nodes under exact class volumes (an
    auction); labeled nodes keep their labels (:func:`~graphrkhs.solvers.volume_mbo`).
    Reproduces their semi-supervised scheme with fixed volumes (GraphLearning's
    ``volume_mbo`` with ``volume_constraint=1``); see ``benchmarks/mbo.py``.
    ``predict_proba`` is the softmax of the final scores.

    Parameters
    ----------
    """ + _SIZES_DOC + r"""
    n_inner : int, default=100
        Heat steps per round (the diffusion time; see :func:`~graphrkhs.solvers.volume_mbo`
        for how it was chosen, and for the warning when it mixes a small dense graph).
        Steps that would only repeat earlier ones (the diffusion converged in
        floating point) are skipped with the same result.
    max_iter : int, default=100
        Rounds; stops earlier at a fixed point (a ``ConvergenceWarning`` when
        the last round still moved more than 0.1 % of the nodes).
    """ + _GRAPH_DOC + r"""
    Attributes
    ----------
    n_iter_ : int
        Rounds run.
    classes_, transduction_, scores_, label_distributions_, n_features_in_
        As described in :ref:`ug_transductive` ("Using the estimators").

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import VolumeMBOClassifier
    >>> X = np.r_[np.zeros((5, 1)), np.ones((5, 1))] + np.arange(10)[:, None] * 1e-3
    >>> y = np.full(10, -1); y[0], y[9] = 0, 1
    >>> VolumeMBOClassifier(n_neighbors=3).fit(X, y).transduction_
    array([0, 0, 0, 0, 0, 1, 1, 1, 1, 1])
    """

    _sizes_in_solver = True
    _parameter_constraints = {"n_inner": [Interval("int", 1, None)], "max_iter": [Interval("int", 1, None)]}

    def __init__(self, *, class_priors: Optional[Sequence[float]] = None, class_normalization: Optional[str] = None,
                 n_inner: int = 100, max_iter: int = 100, graph: GraphArg = "knn", n_neighbors: int = 10,
                 radius: Optional[float] = None, weight: str = "gaussian", sigma: Optional[float] = None,
                 random_state: RandomStateLike = None,
                 unlabeled: Optional[Hashable] = UNLABELED, verbose: Optional[bool] = None):
        self._store_init_params(locals())

    def _solve(self, W, S, Y):
        F, info = volume_mbo(W, S, Y, class_priors=_sizes_priors(self, Y), n_inner=self.n_inner,
                             max_iter=self.max_iter, return_info=True)
        self.n_iter_ = info["n_iter"]
        return F


class CutSSLClassifier(_TransductiveClassifier):
    __doc__ = r"""CutSSL (Holtz, Chen, Wan, Cheng & Mishne, NeurIPS 2024).

    The size-constrained minimum cut between the labeled classes, relaxed to a
    nonconvex quadratic program over the class indicators of the unlabeled
    nodes (non-negative rows summing to 1, columns summing to the class
    sizes), solved by ADMM along a homotopy ``s`` from the convex problem
    (Laplace learning with class sizes) towards integer labels
    (:func:`~graphrkhs.solvers.cut_ssl`).  The labels meet the class sizes
    exactly (the size-constrained assignment of the last iterate).
    ``predict_proba`` is the softmax of the final scores.

    Measured against this library's other methods on the same graph and label
    draws (``benchmarks/label_rates.py``, ``benchmarks/REPORT.md``): on the
    digits it is the most accurate at one and five labels per class without
    given priors (92.95 and 97.33 %, 20 draws; GraphLearning's Poisson MBO with
    the same sizes, the labeled proportions: 92.78 and 97.22); on Fashion-MNIST's raw pixels it
    is below :class:`~graphrkhs.PoissonRidgeEnsembleClassifier` at every rate
    (by 1.0 to 4.8 points on the same draws), at about 80 s a fit on 70000 nodes.

    Parameters
    ----------
    """ + _SIZES_DOC + r"""
    s : float or tuple of floats, default=(0.0, 0.1)
        The concavity schedule (non-decreasing, each at most ``rho / 2``,
        beyond which the ADMM can diverge; the authors' default).  Each
        value is a stage of at least ``min(patience, max_iter)`` and at most
        ``max_iter`` iterations; at most 1000 values.
    max_iter : int or tuple of ints, optional
        ADMM iterations of each stage; None: 100 for the first and 400 for
        each later one (the authors' defaults); stages stop
        earlier once the labels are stable (``patience``) and the primal
        residual is below ``tol``.
    rho : float > 0, default=1.0
        ADMM penalty, relative to the degrees (the iterations needed grow
        about in proportion to it).
    tol : float > 0, default=1e-3
        Primal and dual residual of the early stop and of the convergence check (see
        :func:`~graphrkhs.solvers.cut_ssl`).
    patience : int >= 1, default=50
        Iterations without a label change of the early stop.
    cg_tol : float > 0, default=1e-6
        Relative residual of each block solve (values below 10 machine
        epsilons, 2.2e-15, solve to that, the attainable accuracy; see
        :func:`~graphrkhs.solvers.cut_ssl`).
    """ + _GRAPH_DOC + r"""
    Attributes
    ----------
    n_iter_ : list of int
        ADMM iterations of each stage.
    integral_ : float
        Fraction of the unlabeled nodes whose relaxed indicator row has an
        entry above 0.99 (1: an integer solution).
    classes_, transduction_, scores_, label_distributions_, n_features_in_
        As described in :ref:`ug_transductive` ("Using the estimators").

    Examples
    --------
    >>> import numpy as np
    >>> from graphrkhs import CutSSLClassifier
    >>> X = np.r_[np.zeros((5, 1)), np.ones((5, 1))] + np.arange(10)[:, None] * 1e-3
    >>> y = np.full(10, -1); y[0], y[9] = 0, 1
    >>> CutSSLClassifier(n_neighbors=3).fit(X, y).transduction_
    array([0, 0, 0, 0, 0, 1, 1, 1, 1, 1])
    """

    _sizes_in_solver = True
    # s and max_iter: a number or one per stage (checked in full by the solver, before any solve)
    _parameter_constraints = {"s": [Interval("real", 0, None), "array-like"],
                              "max_iter": [Interval("int", 1, None), "array-like", None],
                              "rho": [POSITIVE], "tol": [POSITIVE], "patience": [Interval("int", 1, None)],
                              "cg_tol": [POSITIVE]}

    def __init__(self, *, class_priors: Optional[Sequence[float]] = None, class_normalization: Optional[str] = None,
                 s: Union[float, Tuple[float, ...]] = (0.0, 0.1), max_iter: Union[int, Tuple[int, ...], None] = None,
                 rho: float = 1.0, tol: float = 1e-3, patience: int = 50, cg_tol: float = 1e-6,
                 graph: GraphArg = "knn", n_neighbors: int = 10, radius: Optional[float] = None,
                 weight: str = "gaussian", sigma: Optional[float] = None,
                 random_state: RandomStateLike = None, unlabeled: Optional[Hashable] = UNLABELED,
                 verbose: Optional[bool] = None):
        self._store_init_params(locals())

    def _solve(self, W, S, Y):
        F, info = cut_ssl(W, S, Y, class_priors=_sizes_priors(self, Y), s=self.s, max_iter=self.max_iter, rho=self.rho,
                          tol=self.tol, patience=self.patience, cg_tol=self.cg_tol, return_info=True)
        self.n_iter_ = info["n_iter"]
        self.integral_ = info["integral"]
        return F
