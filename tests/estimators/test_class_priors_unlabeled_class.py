"""class_priors with a proportion for a class that no labeled sample has: the error names the labeled classes."""

import re

import numpy as np
import pytest

from graphrkhs.estimators import PoissonMBOClassifier, PoissonRidgeEnsembleClassifier, RLSClassifier

X = np.linspace(0.0, 1.0, 12)[:, None]


@pytest.mark.parametrize("E", [PoissonMBOClassifier, PoissonRidgeEnsembleClassifier, RLSClassifier])
def test_a_prior_for_an_unlabeled_class_names_the_labeled_classes(E):
    y = np.array(["cat"] + [""] * 10 + ["mouse"], dtype=object)     # "dog" exists but has no label
    with pytest.raises(ValueError, match=r"one entry per class \(2, in the order of classes_\); got 3\. classes_ "
                                         r"are the classes with at least one labeled sample in y: 'cat', 'mouse'\. "
                                         r"A class without labels cannot be predicted"):
        kw = {} if E is RLSClassifier else {"n_neighbors": 3}
        E(unlabeled="", class_priors=[0.3, 0.3, 0.4], **kw).fit(X, y)


def test_too_few_priors_name_the_classes_without_the_unlabeled_class_hint():
    y = np.full(12, -1)
    y[0], y[11] = 0, 2
    with pytest.raises(ValueError, match=r"got 1\. classes_ are the classes with at least one labeled sample in y: "
                                         r"0, 2\.$"):
        PoissonMBOClassifier(n_neighbors=3, class_priors=[1.0]).fit(X, y)


@pytest.mark.parametrize("marker, y_marker, priors", [
    (-1, -1, {-1: 0.2, 0: 0.4, 1: 0.4}),
    ("?", "?", {"?": 0.2, 0: 0.4, 1: 0.4}),
])
def test_a_prior_keyed_by_the_unlabeled_marker_says_it_is_the_marker(marker, y_marker, priors):
    # before: "proportions for -1, which no labeled sample has (a class without labels cannot be predicted: label
    # one of its samples ...)" -- advice about a class, for the marker of the unlabeled rows
    y = np.array([0] + [y_marker] * 10 + [1], dtype=object)
    with pytest.raises(ValueError, match=re.escape(f"proportions for {marker!r}, the marker of the unlabeled rows "
                                                  f"(unlabeled={marker!r}), not a class: drop its proportion and "
                                                  "divide the others by their sum")):
        PoissonMBOClassifier(n_neighbors=3, unlabeled=marker, class_priors=priors).fit(X, y)
