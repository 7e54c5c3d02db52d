"""A labeled class that the fitted classifier predicts on (almost) none of the unlabeled points warns.

Labels drawn at random from classes of 95 % and 5 % (29 + 1 labels): the harmonic solution (Laplace learning),
LapRLS, PLapRLS and the warped-kernel classifier predicted the majority class on every unlabeled point,
silently -- the degeneracy of Laplace-type learning at low label rates (the lone label of the rare class
becomes a spike: Calder et al. 2020, "Poisson learning"; El Alaoui et al. 2016), found by
``benchmarks/default_fits.py`` (case ``unbal2``).  The fix the warning names, ``class_priors=``, restores the
rare class."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_iris, make_circles, make_classification, make_moons
from sklearn.preprocessing import StandardScaler

from graphrkhs import (GraphKernelRidgeClassifier, GraphRKHSWarning, LaplacianRegularizationClassifier,
                       LapRLSClassifier, PLapRLSClassifier, PoissonLearningClassifier, RLSClassifier,
                       WarpedKernelClassifier)
from graphrkhs._core.labels import UNPREDICTED_MIN_ROWS, UNPREDICTED_SHARE, unpredicted_classes
from graphrkhs.datasets import sample_labels

MESSAGE = "unlabeled samples, though"


def _ours(caught):
    return [w for w in caught if MESSAGE in str(w.message)]


@pytest.mark.parametrize("labels, predicted, expected", [
    ([29, 1], [970, 0], [1]),         # the degenerate fit: the rare class nowhere (about 32 rows expected)
    ([29, 1], [967, 3], [1]),         # 3 < 0.1 * 970 / 30 = 3.2
    ([29, 1], [966, 4], []),          # 4 >= 3.2: rare, but predicted
    ([29, 1], [300, 0], [1]),         # 10 rows expected, none predicted
    ([29, 1], [290, 0], []),          # 9.7 rows expected: too few to call the class missing
    ([5, 5, 5], [300, 149, 1], [2]),
    ([5, 5, 5], [300, 135, 15], []),  # 15 = 0.1 * 150: not below
    ([4, 0, 4], [100, 0, 100], []),   # a class without labels is not a labeled class
    ([10, 10], [0, 0], []),           # no unlabeled rows
])
def test_unpredicted_classes_is_the_share_rule(labels, predicted, expected):
    # a class with n_c of l labels is unpredicted when its label share would give it e_c = u n_c / l >= 10 of
    # the u unlabeled rows and it gets fewer than 0.1 e_c
    assert (UNPREDICTED_SHARE, UNPREDICTED_MIN_ROWS) == (0.1, 10)
    assert list(unpredicted_classes(labels, predicted)) == expected


@pytest.fixture(scope="module")
def unbalanced():
    # the survey's case unbal2, seed 1: 30 labels drawn at random over all points, 29 + 1
    X, y = make_classification(1000, 10, n_informative=5, n_classes=2, n_clusters_per_class=1,
                               weights=[0.95, 0.05], class_sep=1.5, random_state=1)
    lab = np.sort(np.random.default_rng(1).choice(1000, 30, replace=False))
    y_partial = np.full(1000, -1)
    y_partial[lab] = y[lab]
    assert list(np.bincount(y[lab])) == [29, 1]
    return X, y, y_partial


@pytest.mark.parametrize("cls", [LaplacianRegularizationClassifier, LapRLSClassifier, PLapRLSClassifier,
                                 WarpedKernelClassifier])
def test_a_class_predicted_nowhere_warns_and_class_priors_repairs_it(unbalanced, cls):
    X, y, y_partial = unbalanced
    unlabeled = y_partial == -1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = cls().fit(X, y_partial)
    pred = model.predict(X)[unlabeled]
    m = int((pred == 1).sum())
    assert m < UNPREDICTED_SHARE * unlabeled.sum() / 30        # the degenerate outcome, as found
    found = _ours(caught)
    assert len(found) == 1 and issubclass(found[0].category, GraphRKHSWarning)
    text = str(found[0].message)
    assert found[0].filename == __file__
    assert f"class 1 on {m} of the 970 unlabeled samples" in text and "1 of the 30 labels" in text
    assert "class_priors=" in text and cls.__name__ in text
    # the fix it names: the label proportions as class_priors -- the rare class comes back, no warning
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fixed = cls(class_priors=[29 / 30, 1 / 30]).fit(X, y_partial)
    assert not _ours(caught)
    fixed_pred = fixed.predict(X)[unlabeled]
    assert (fixed_pred == 1).sum() >= 30
    assert (fixed_pred == y[unlabeled]).mean() > (pred == y[unlabeled]).mean()


def test_learners_that_predict_the_rare_class_do_not_warn(unbalanced):
    X, y, y_partial = unbalanced
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        GraphKernelRidgeClassifier().fit(X, y_partial)
        PoissonLearningClassifier().fit(X, y_partial)       # over-predicts it: its own warning, not this one
    assert not _ours(caught)


@pytest.mark.parametrize("make", [
    lambda: make_moons(400, noise=0.1, random_state=0),
    lambda: make_circles(400, noise=0.05, factor=0.5, random_state=0),
    lambda: (StandardScaler().fit_transform(load_iris().data), load_iris().target),
])
@pytest.mark.parametrize("cls", [LaplacianRegularizationClassifier, RLSClassifier, LapRLSClassifier])
def test_balanced_data_do_not_warn(make, cls):
    X, y = make()
    for draw in range(2):
        if draw == 0:
            y_partial, _ = sample_labels(y, 3, random_state=0)
        else:
            lab = np.random.default_rng(1).choice(len(y), 20, replace=False)
            y_partial = np.full(len(y), -1)
            y_partial[lab] = y[lab]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            cls().fit(X, np.asarray(y_partial))
        assert not _ours(caught)


@pytest.mark.parametrize("cls", [LapRLSClassifier, WarpedKernelClassifier])
def test_the_check_reads_a_seeded_sample_of_the_unlabeled_rows(unbalanced, cls, monkeypatch):
    # a learner on points evaluated its fitted function on every fitted row again inside fit (60000 rows for
    # the Fashion-MNIST split): above UNPREDICTED_SAMPLE unlabeled rows the check reads a seeded sample of them,
    # which sees a vanished class as well
    from graphrkhs.estimators import _base

    X, _, y_partial = unbalanced
    monkeypatch.setattr(_base, "UNPREDICTED_SAMPLE", 400)      # the rare class's share: about 13 of them
    evaluated = []
    raw = cls._raw

    def counting_raw(self, Z):
        evaluated.append(len(Z))
        return raw(self, Z)

    monkeypatch.setattr(cls, "_raw", counting_raw)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cls().fit(X, y_partial)
    message = [str(w.message) for w in _ours(caught)]
    # the counts are of the sample: the message says so and gives the number of unlabeled rows (970), not 400
    assert len(message) == 1 and "on 0 of a seeded sample of 400 of the 970 unlabeled samples" in message[0]
    assert evaluated and max(evaluated) <= 400        # never all 970 unlabeled rows


def test_a_transductive_learner_counts_every_unlabeled_row(unbalanced, monkeypatch):
    # its decision on the fitted rows is transduction_, already computed: no sample (docs/reliability.rst:
    # "Learners on points count a seeded sample"), the counts are those of all 970 unlabeled rows
    from graphrkhs.estimators import _base

    X, _, y_partial = unbalanced
    monkeypatch.setattr(_base, "UNPREDICTED_SAMPLE", 400)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = LaplacianRegularizationClassifier().fit(X, y_partial)
    m = int((model.transduction_[y_partial == -1] == 1).sum())
    message = [str(w.message) for w in _ours(caught)]
    assert len(message) == 1 and f"class 1 on {m} of the 970 unlabeled samples" in message[0]
