"""The estimator's random_state reaches every draw it documents: a Generator, a RandomState or a numpy
integer is honoured, never replaced by the seed 0.

LapRLS's and the warped kernel's joint sigma / gamma_A / gamma_I = "auto" selection (manifold_width_selection)
passed ``random_state if isinstance(random_state, int) else 0`` to the low-rank surrogate's landmarks: on 300
two-moons points every Generator (default_rng(3), default_rng(7)) and RandomState(3) selected with the table of
seed 0.  FredholmClassifier's graph-cut sample (more than CUT_MAX_POINTS points) did the same, and also
replaced np.int64(3) by 0.  None stays the seed 0 there (documented: the default selection is reproducible).
Oracles: select_laprls_lowrank's documented contract (a Generator gives one seed, drawn from it) and
FredholmClassifier's (one seed per fit, drawn once from a Generator; an int seeds default_rng).
"""
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_moons

import graphrkhs as g
import graphrkhs.estimators._datadependent as dd


def _moons(n, n_labels, seed=1):
    X, y = make_moons(n, noise=0.15, random_state=0)
    yp = np.full(n, -1)
    idx = np.random.default_rng(seed).choice(n, n_labels, replace=False)
    yp[idx] = y[idx]
    return X, yp


@pytest.mark.parametrize("cls", [g.LapRLSClassifier, g.WarpedKernelClassifier])
def test_joint_selection_draws_its_landmark_seed_from_a_generator(cls):
    X, yp = _moons(264, 12)          # more than the surrogate's 256 landmarks: the landmarks are a sample

    def table(rs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = cls(random_state=rs).fit(X, yp)
        return np.asarray(est.cv_results_["mean_test_score"])

    seed = int(np.random.default_rng(3).integers(2**31 - 1))      # the one seed the Generator gives
    by_generator = table(np.random.default_rng(3))
    assert np.array_equal(by_generator, table(seed))
    assert not np.array_equal(by_generator, table(0))              # the test can tell the seeds apart
    if cls is g.LapRLSClassifier:                                  # None: the documented seed 0
        assert np.array_equal(table(None), table(0))


def test_fredholm_graph_cut_sample_is_drawn_from_random_state(monkeypatch):
    X, yp = _moons(80, 10)
    monkeypatch.setattr(dd, "CUT_MAX_POINTS", 30)                   # sample 30 of the 80 points
    drawn = []
    real = dd.knn_graph

    def spy(Xc, *args, **kwargs):
        drawn.append(np.asarray(Xc).copy())
        return real(Xc, *args, **kwargs)

    monkeypatch.setattr(dd, "knn_graph", spy)

    def cut_points(rs):
        drawn.clear()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            g.FredholmClassifier(random_state=rs).fit(X, yp)
        assert len(drawn) == 1
        return drawn[0]

    pts3, pts0 = cut_points(3), cut_points(0)
    assert pts3.shape == (30, 2) and not np.array_equal(pts3, pts0)
    assert np.array_equal(cut_points(np.int64(3)), pts3)
    # a Generator gives the fit one seed (the same for its kernels and this sample), drawn from it once
    seed = int(np.random.default_rng(3).integers(2**32 - 1))
    assert np.array_equal(cut_points(np.random.default_rng(3)), cut_points(seed))
    assert np.array_equal(cut_points(None), pts0)
