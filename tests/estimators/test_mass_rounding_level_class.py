"""Class mass normalization of a class whose scores on the unlabeled rows are one value up to rounding.

Volume MBO gives a class of size 0 (priors (0.55, 0.27, 0.18) on 3 unlabeled nodes: sizes 2 / 1 / 0) the same
score on every unlabeled node, equal to the smallest score of the rows to one unit in the last place.  Its "mass"
over those rows was that rounding (about 1e-16) instead of 0, so its scale q / mass was 2.4e15 and the class
offsets about 1e16, which rounded the other columns' scores away: the unlabeled nodes were labeled 1 / 2 / 0,
not the sizes 2 / 1 / 0 of the solver's labels and of the priors (the documented contract of
``class_normalization`` for the classifiers with class sizes).
"""

import warnings

import numpy as np

from graphrkhs import VolumeMBOClassifier
from graphrkhs.solvers import class_sizes, volume_mbo

# 8 nodes, weights in tenths (a random draw that shows the rounding)
W = np.array([[0.0, 0.0, 0.9, 0.9, 0.0, 0.0, 0.0, 0.3],
              [0.0, 0.0, 0.0, 0.0, 0.4, 0.2, 0.3, 0.3],
              [0.9, 0.0, 0.0, 0.0, 0.5, 0.2, 0.5, 0.0],
              [0.9, 0.0, 0.0, 0.0, 0.4, 0.0, 0.0, 0.6],
              [0.0, 0.4, 0.5, 0.4, 0.0, 0.0, 0.4, 0.0],
              [0.0, 0.2, 0.2, 0.0, 0.0, 0.0, 0.0, 0.6],
              [0.0, 0.3, 0.5, 0.0, 0.4, 0.0, 0.0, 0.0],
              [0.3, 0.3, 0.0, 0.6, 0.0, 0.6, 0.0, 0.0]])
PRIORS = [0.55, 0.27, 0.18]


def test_mass_keeps_the_solvers_class_sizes_when_a_class_has_rounding_mass():
    y = np.array([0, 1, 2, 0, 1, -1, -1, -1])
    unlabeled = y == -1
    sizes = class_sizes(PRIORS, int(unlabeled.sum()))
    np.testing.assert_array_equal(sizes, [2, 1, 0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        F = volume_mbo(W, np.flatnonzero(~unlabeled), np.eye(3)[y[~unlabeled]], class_priors=PRIORS)
        est = VolumeMBOClassifier(graph="precomputed", class_priors=PRIORS, class_normalization="mass").fit(W, y)
    np.testing.assert_array_equal(np.bincount(F.argmax(axis=1)[unlabeled], minlength=3), sizes)
    np.testing.assert_array_equal(np.bincount(est.transduction_[unlabeled], minlength=3), sizes)
    # the scales stay in the units of the scores: q_c / mass_c, the class of no mass at the others' mean mass
    assert np.all(est.class_scale_ < 10.0)
    np.testing.assert_array_equal(est.classes_[est.label_distributions_.argmax(axis=1)], est.transduction_)
    np.testing.assert_array_equal(est.transduction_[~unlabeled], y[~unlabeled])
