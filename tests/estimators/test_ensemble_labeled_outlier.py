"""The recommended classifier with one labeled outlier: its Poisson part still carries the labels.

A labeled point far off its blob (degree 5e-13) has a legitimately huge Poisson potential (1e12); it set its class
column's standard deviation alone, every other node's Poisson z-score was ~0, and with poisson_weight=1 the
ensemble labeled 33 % of 600 blob points (Poisson learning alone: 89 %).  The statistics are now taken over the
unlabeled nodes.
"""
import warnings

import numpy as np
from sklearn.datasets import make_blobs

from graphrkhs import PoissonLearningClassifier, PoissonRidgeEnsembleClassifier


def test_a_labeled_outlier_does_not_erase_the_poisson_part():
    X, t = make_blobs(600, centers=3, cluster_std=1.0, random_state=0)
    y = np.full(600, -1)
    rng = np.random.default_rng(1)
    for c in range(3):
        y[rng.choice(np.flatnonzero(t == c), 3, replace=False)] = c
    U = y < 0
    X2 = np.r_[X, [X[t == 0].mean(axis=0) + [5.0, 0.0]]]
    y2 = np.r_[y, 0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        poisson = PoissonLearningClassifier().fit(X2, y2).transduction_[:600]
        ens = PoissonRidgeEnsembleClassifier(poisson_weight=1.0).fit(X2, y2)
    assert np.abs(np.asarray(ens.poisson_scores_)).max() > 1e10          # the outlier's potential, as it should be
    # the standardized Poisson part labels as Poisson learning does
    assert np.mean(ens.transduction_[:600][U] == poisson[U]) > 0.9       # (0.33 before)
    assert np.mean(ens.transduction_[:600][U] == t[U]) > 0.85
