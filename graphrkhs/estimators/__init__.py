"""Estimators: scikit-learn estimators over the plain functions of :mod:`graphrkhs.solvers`.

Public API
----------
Transductive (label the nodes of one graph; :mod:`graphrkhs.estimators._transductive`)
    LaplacianRegularizationClassifier / Regressor, PoissonLearningClassifier,
    GraphKernelRidgeClassifier / Regressor, PoissonRidgeEnsembleClassifier, GraphTVClassifier / Regressor.
Class sizes (:mod:`graphrkhs.estimators._mbo`)
    PoissonMBOClassifier, VolumeMBOClassifier.
Inductive (fit on labeled and unlabeled points, predict anywhere; :mod:`graphrkhs.estimators._inductive`)
    RLS, LapRLS, PRLS, PLapRLS, GRLS (Classifier / Regressor).
Data-dependent kernels (:mod:`graphrkhs.estimators._datadependent`)
    FredholmClassifier / Regressor, WarpedKernelClassifier / Regressor.
Active learning (:mod:`graphrkhs.estimators._active`)
    propose_labels_for: the next nodes to label for a fitted transductive classifier.

Every estimator is built on one base (:mod:`graphrkhs.estimators._base`): the
shared ``fit`` with declarative parameter validation, the one label encoder
(``unlabeled=`` marker), ``predict`` / ``predict_proba`` / ``decision_function``
from class scores, graphs through :class:`graphrkhs.GraphSpec`, ``verbose=``.
"""

from .._core.labels import IdentifierLabelsWarning, LabelCollisionWarning
from ._active import propose_labels_for
from ._datadependent import *  # noqa: F401,F403
from ._datadependent import __all__ as _datadependent_all
from ._inductive import *  # noqa: F401,F403
from ._inductive import __all__ as _inductive_all
from ._transductive import *  # noqa: F401,F403
from ._transductive import __all__ as _transductive_all
from ._mbo import *  # noqa: F401,F403
from ._mbo import __all__ as _mbo_all
# The data guard of PoissonRidgeEnsembleClassifier(graph="auto"), public here (not in __all__) for the
# command line, which keeps the features it accepts unstandardized.
from ._transductive import AUTO_COSINE_MIN_FEATURES, prefers_cosine_graph  # noqa: F401

TRANSDUCTIVE = tuple(_transductive_all) + tuple(_mbo_all)
INDUCTIVE = tuple(_inductive_all) + tuple(_datadependent_all)
__all__ = list(_transductive_all) + list(_mbo_all) + list(_inductive_all) + list(_datadependent_all) + ["LabelCollisionWarning", "IdentifierLabelsWarning",
                                                                                    "propose_labels_for"]
