"""The transductive learners validate points as the inductive ones do (one validation, one wording)."""

import numpy as np
import pytest

from graphrkhs import LaplacianRegularizationClassifier, LapRLSClassifier


def _message(fn):
    with pytest.raises((ValueError, TypeError)) as info:
        fn()
    return type(info.value), str(info.value)


@pytest.mark.parametrize("X", [np.float64(3.0), np.arange(3.0), np.ones((3, 2)) + 1j],
                         ids=["0-D", "1-D", "complex"])
def test_fit_messages_are_the_inductive_ones(X):
    # scikit-learn's "Expected 2D array, got scalar array instead:\narray=3.0. ..." and the multi-line
    # "Complex data not supported\n[[1.+1.j ...]]" (the whole array printed) before
    y = np.array([0, 1, -1])
    got = _message(lambda: LaplacianRegularizationClassifier().fit(X, y))
    assert got == _message(lambda: LapRLSClassifier().fit(X, y))
    assert got[1].startswith(("X must be 2-D", "Complex data not supported: X must be real.")) and "\n" not in got[1]


@pytest.mark.parametrize("X", [np.float64(3.0), np.arange(2.0), np.ones((3, 2)) + 1j, np.ones((2, 3))],
                         ids=["0-D", "1-D", "complex", "features"])
def test_predict_messages_are_the_inductive_ones(X):
    rng = np.random.default_rng(0)
    Xfit = rng.normal(size=(12, 2))
    y = np.r_[0, 1, np.full(10, -1)]
    trans = LaplacianRegularizationClassifier(n_neighbors=4).fit(Xfit, y)
    ind = LapRLSClassifier(gamma_A=1e-2, gamma_I=1e-2, n_neighbors=4).fit(Xfit, y)
    got = _message(lambda: trans.predict(X))
    want = _message(lambda: ind.predict(X))
    assert got == (want[0], want[1].replace("LapRLSClassifier", "LaplacianRegularizationClassifier"))


def test_precomputed_edge_weights_of_new_points_are_numbers():
    # predict parsed text weights ([['1', '0', '0', '0']] predicted class 0) and dropped the imaginary part of
    # complex ones with a ComplexWarning only; the fit's adjacency refuses both
    W = np.ones((4, 4)) - np.eye(4)
    clf = LaplacianRegularizationClassifier(graph="precomputed").fit(W, np.array([0, 1, -1, -1]))
    with pytest.raises(TypeError, match="X holds text"):
        clf.predict(np.array([[1, 0, 0, 0]]).astype(str))
    with pytest.raises(TypeError, match=r"X \(the edge weights to the fitted nodes, graph='precomputed'\) must be "
                                        "a real numeric array; got complex dtype complex128"):
        clf.predict(np.array([[1, 0, 0, 0]]) + 1j)
    assert clf.predict(np.array([[1.0, 0, 0, 0]])).tolist() == [0]
