"""``knn_graph(algorithm="auto")``: exact/approximate choice, recall estimate, fallback."""

import logging
import warnings

import numpy as np
import pytest
from sklearn.neighbors import NearestNeighbors

from graphrkhs import knn_graph
from graphrkhs.graphs import _search as _knn

# Every test that runs pynndescent runs in one pytest-xdist worker (setup.cfg: --dist loadgroup): its first
# search in a process compiles NN-descent kernels numba cannot cache on disk (they are typed by the distance
# function's dispatcher), 35-40 s on 2 idle cores and 100-150 s at load 10, and every worker that ran one of
# these tests paid it again.  tests/graphs/test_graphs.py's pynndescent recall test is in the same group.
pytestmark = pytest.mark.xdist_group("pynndescent")


def _points(n, d, seed):
    return np.random.default_rng(seed).normal(size=(n, d))


def _exact_lists(X, k):
    """Exact k nearest (self excluded) by scikit-learn: the oracle."""
    idx = NearestNeighbors(n_neighbors=k + 1, algorithm="brute").fit(X).kneighbors(X, return_distance=False)
    return np.array([[j for j in row if j != i][:k] for i, row in enumerate(idx)])


def _set_recall(idx, exact, rows):
    k = exact.shape[1]
    return np.mean([np.intersect1d(idx[i], exact[i]).size / k for i in rows])


@pytest.fixture
def small_thresholds(monkeypatch):
    """Approximate search from 200 points on, so the approximate path runs on small data;
    the recall is estimated on every point (then it is the true recall)."""
    monkeypatch.setattr(_knn, "ANN_MIN_SAMPLES", 200)
    monkeypatch.setattr(_knn, "RECALL_SAMPLE", 10**6)


@pytest.mark.parametrize("d, expected", [(3, "kd_tree"), (20, "brute")])
def test_auto_is_exact_below_the_thresholds(d, expected):
    X = _points(300, d, seed=0)
    W, info = knn_graph(X, 8, return_info=True)
    assert info["algorithm"] == expected and info["exact"] and info["recall"] == 1.0
    assert info["recall_sample"] == 0 and not info["fallback"]
    assert (W != knn_graph(X, 8, algorithm=expected)).nnz == 0


def test_auto_choice_rule(monkeypatch):
    n = _knn.ANN_MIN_SAMPLES
    monkeypatch.setattr(_knn, "have_pynndescent", lambda: True)
    assert _knn.auto_algorithm(n, _knn.KD_TREE_MAX_DIM + 1) == "pynndescent"
    assert _knn.auto_algorithm(n - 1, _knn.KD_TREE_MAX_DIM + 1) == "brute"
    assert _knn.auto_algorithm(10 * n, _knn.KD_TREE_MAX_DIM) == "kd_tree"
    monkeypatch.setattr(_knn, "have_pynndescent", lambda: False)
    assert _knn.auto_algorithm(10 * n, 784) == "brute"


def test_auto_is_approximate_above_the_thresholds(small_thresholds):
    X = _points(400, 20, seed=1)
    W, info = knn_graph(X, 10, random_state=0, return_info=True)
    assert info["algorithm"] == "pynndescent" and not info["exact"] and not info["fallback"]
    assert info["recall_sample"] == 400 and info["recall"] >= _knn.RECALL_TARGET
    # a graph: symmetric, non-negative, zero diagonal, every node with >= k neighbours (union)
    assert (W != W.T).nnz == 0
    assert W.data.min() >= 0 and np.all(W.diagonal() == 0)
    assert np.diff(W.indptr).min() >= 10


def test_approximate_path_is_deterministic_with_random_state(small_thresholds):
    X = _points(400, 20, seed=2)
    W1, info1 = knn_graph(X, 10, random_state=3, return_info=True)
    W2, info2 = knn_graph(X, 10, random_state=3, return_info=True)
    assert info1["algorithm"] == "pynndescent"
    assert (W1 != W2).nnz == 0 and np.array_equal(W1.data, W2.data)
    assert info1["recall"] == info2["recall"]


def test_estimate_recall_equals_oracle_recall():
    # Exact lists with some entries replaced by non-neighbours: a known recall below 1.
    n, k = 250, 7
    X = _points(n, 6, seed=4)
    exact = _exact_lists(X, k)
    rng = np.random.default_rng(5)
    idx = exact.copy()
    for i in rng.choice(n, 120, replace=False):
        a = rng.integers(0, k)
        far = np.setdiff1d(np.arange(n), np.concatenate([exact[i], [i]]))
        idx[i, a] = rng.choice(far[~np.isin(far, idx[i])])
    all_rows = np.arange(n)
    truth = _set_recall(idx, exact, all_rows)
    assert truth < 0.95
    assert _knn.estimate_recall(X, idx, all_rows) == pytest.approx(truth, abs=1e-12)
    rows = np.sort(rng.choice(n, 60, replace=False))
    assert _knn.estimate_recall(X, idx, rows) == pytest.approx(_set_recall(idx, exact, rows), abs=1e-12)
    assert _knn.estimate_recall(X, exact, all_rows) == 1.0


def test_reported_recall_of_the_approximate_path_equals_the_true_recall(small_thresholds):
    X = _points(400, 20, seed=6)
    dist, idx, scale, info = _knn.knn_search_report(X, 10, "auto", np.random.default_rng(0))
    assert info["algorithm"] == "pynndescent" and info["recall_sample"] == 400
    truth = _set_recall(idx, _exact_lists(X, 10), np.arange(400))
    assert info["recall"] == pytest.approx(truth, abs=1e-12)


def test_default_recall_sample_size(monkeypatch):
    monkeypatch.setattr(_knn, "ANN_MIN_SAMPLES", 200)
    _, info = knn_graph(_points(400, 20, seed=11), 10, random_state=0, return_info=True)
    assert info["recall_sample"] == min(400, _knn.RECALL_SAMPLE)


def test_recall_is_logged_at_info(small_thresholds, caplog):
    X = _points(300, 20, seed=7)
    with caplog.at_level(logging.INFO, logger="graphrkhs"):
        _, info = knn_graph(X, 10, random_state=0, return_info=True)
    assert any(f"recall@10 = {info['recall']:.4f}" in r.getMessage() for r in caplog.records)


def test_low_recall_falls_back_to_exact(small_thresholds, monkeypatch):
    X = _points(300, 20, seed=8)
    monkeypatch.setattr(_knn, "estimate_recall", lambda X, idx, sample: 0.5)
    with pytest.warns(RuntimeWarning, match="recall of 0.500 < 0.95; recomputing with exact search"):
        W, info = knn_graph(X, 10, random_state=0, return_info=True)
    assert info["fallback"] and info["algorithm"] == "brute" and info["exact"]
    assert info["recall"] == 1.0 and info["approximate_recall"] == 0.5
    assert (W != knn_graph(X, 10, algorithm="brute")).nnz == 0


def test_explicit_approximate_backend_only_warns(monkeypatch):
    X = _points(300, 20, seed=9)
    monkeypatch.setattr(_knn, "estimate_recall", lambda X, idx, sample: 0.5)
    with pytest.warns(RuntimeWarning, match="use algorithm='auto' or an exact one"):
        _, info = knn_graph(X, 10, algorithm="pynndescent", random_state=0, return_info=True)
    assert info["algorithm"] == "pynndescent" and not info["fallback"] and info["recall"] == 0.5


def test_no_fallback_warning_when_recall_meets_target(small_thresholds):
    X = _points(300, 20, seed=10)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        _, info = knn_graph(X, 10, random_state=0, return_info=True)
    assert info["recall"] >= _knn.RECALL_TARGET and not info["fallback"]


def test_return_info_must_be_bool():
    with pytest.raises(TypeError, match="return_info must be True or False"):
        knn_graph(_points(20, 2, seed=0), 3, return_info="yes")


def test_pynndescent_kernels_are_cached_on_disk_except_process_bound_signatures(monkeypatch):
    # pynndescent compiles most kernels without numba's on-disk cache: every new process paid 15-75 s
    # before its first approximate search.  cache_pynndescent_kernels gives them the cache, but never
    # saves a specialization typed by a function object of this process (it could not be loaded by the
    # next process, and each process would add files to the cache).
    import sys

    import pynndescent
    from numba.core import types
    from numba.core.caching import NullCache
    from numba.core.dispatcher import Dispatcher

    _knn.cache_pynndescent_kernels()
    kernels = [obj for name, module in list(sys.modules.items())
               if module is not None and (name == "pynndescent" or name.startswith("pynndescent."))
               for obj in vars(module).values() if isinstance(obj, Dispatcher)]
    assert len(kernels) > 20
    assert not [k.py_func.__name__ for k in kernels if isinstance(k._cache, NullCache)]
    cache = pynndescent.pynndescent_.generate_leaf_updates._cache
    saved = []
    monkeypatch.setattr(cache, "_save_overload", lambda sig, data: saved.append(sig))
    array = types.float32[:, ::1]
    cache.save_overload((array, types.Dispatcher(pynndescent.distances.euclidean)), None)
    assert saved == []
    cache.save_overload((array, types.int64), None)
    assert saved == [(array, types.int64)]
    assert _knn.cache_pynndescent_kernels() == 0          # once per process


def _near_duplicate_groups(seed=0, d=10):
    """20 groups far apart, each two subgroups 2e-7 apart of 4 points jittered by 1e-10: every point's 3
    nearest are its subgroup, the next 4 its sibling subgroup (pair distances ~1e-6 of the spread)."""
    rng = np.random.default_rng(seed)
    parts = []
    for center in rng.normal(size=(20, d)):
        for off in (0.0, 2e-7):
            parts.append(center + off * rng.normal(size=d) + 1e-10 * rng.normal(size=(4, d)))
    return np.vstack(parts)


def test_estimate_recall_of_near_duplicates_equals_the_oracle_recall():
    # the expanded-form distances were compared with a slack of 64 (d + 3) eps max|x|^2 (~5e-12 here) that
    # also admitted the sibling subgroup (squared distances ~2e-12): lists of wrong neighbours only had recall 1.0
    X = _near_duplicate_groups()
    n, k = X.shape[0], 3
    d2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    np.fill_diagonal(d2, np.inf)
    order = np.argsort(d2, axis=1)
    kth = np.take_along_axis(d2, order[:, k - 1:k], axis=1)
    assert (np.take_along_axis(d2, order[:, k:k + 1], axis=1) > 1e3 * kth).all()   # no near-tie at the k-th
    rows = np.arange(n)
    for lists in (order[:, k:2 * k], np.column_stack([order[:, :2], order[:, k]])):
        truth = np.mean(np.take_along_axis(d2, lists, axis=1) <= kth)
        assert truth in (0.0, 2 / 3)
        assert _knn.estimate_recall(X, lists, rows) == pytest.approx(truth, abs=1e-12)
    assert _knn.estimate_recall(X, order[:, :k], rows) == 1.0


def test_auto_falls_back_when_the_approximate_lists_of_near_duplicates_are_wrong(small_thresholds, monkeypatch):
    # through the search report: wrong approximate lists were accepted with an estimated recall of 1.0
    X = _near_duplicate_groups(seed=1, d=20)
    n, k = X.shape[0], 3
    order = np.argsort(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1) + np.diag(np.full(n, np.inf)), axis=1)
    wrong = order[:, k:2 * k]
    monkeypatch.setattr(_knn, "ANN_MIN_SAMPLES", 100)
    monkeypatch.setattr(_knn, "have_pynndescent", lambda: True)
    monkeypatch.setattr(_knn, "ann_search", lambda Xs, kk, algorithm, rs: (np.ones((n, kk)), wrong.copy()))
    with pytest.warns(RuntimeWarning, match="recall of 0.000 < 0.95; recomputing with exact search"):
        _, idx, _, info = _knn.knn_search_report(X, k, "auto", np.random.default_rng(0))
    assert info["fallback"] and info["approximate_recall"] == 0.0 and info["algorithm"] == "brute"
    np.testing.assert_array_equal(np.sort(idx, axis=1), np.sort(order[:, :k], axis=1))


def test_pynndescent_notice_of_unfilled_slots_does_not_reach_the_caller():
    # on 5 points pynndescent warned "Failed to correctly find n_neighbors for some samples" although the
    # lists were complete and exact: the caller checks unfilled slots (-1) and estimates the recall itself
    X = _points(5, 3, 0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        W = knn_graph(X, 3, algorithm="pynndescent", random_state=0)
    assert [str(w.message) for w in caught] == []
    np.testing.assert_allclose(W.toarray(), knn_graph(X, 3, algorithm="brute").toarray(), rtol=1e-6)


@pytest.mark.parametrize("algorithm", ["pynndescent", "hnswlib"])
def test_approximate_lists_carry_the_exact_paths_distances(algorithm):
    # the indexes return float32 distances: weights were 5e-8 off the exact graph's where the lists agree,
    # and near-ties could be ordered otherwise; the lists are now re-measured like every exact path
    X = _points(400, 20, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)     # a recall below target only warns here
        dist, idx = _knn.knn_search(X, 8, algorithm, np.random.default_rng(0))
    exact_d, exact_i = _knn.knn_search(X, 8, "brute", np.random.default_rng(0))
    same = (np.sort(idx, axis=1) == np.sort(exact_i, axis=1)).all(axis=1)
    assert same.mean() > 0.5                          # rows whose lists agree with exact search
    np.testing.assert_array_equal(idx[same], exact_i[same])
    np.testing.assert_array_equal(dist[same], exact_d[same])
    # every row: ascending, distances recomputed in float64 from X
    np.testing.assert_allclose(dist, np.linalg.norm(X[idx] - X[:, None, :], axis=2), rtol=1e-12)
    assert (np.diff(dist, axis=1) >= 0).all()


class _RecordingSearch:
    """``ann_search`` that records the number of points of each call and returns exact lists (the backend's
    recall is set by the mocked ``estimate_recall``)."""

    def __init__(self):
        self.sizes = []

    def __call__(self, Xs, k, algorithm, random_state):
        self.sizes.append(Xs.shape[0])
        return _knn.brute_search(Xs, k)


@pytest.fixture
def pilot_thresholds(monkeypatch):
    """Approximate search chosen from 200 points on, with a pilot of 100 points."""
    monkeypatch.setattr(_knn, "ANN_MIN_SAMPLES", 200)
    monkeypatch.setattr(_knn, "PILOT_SAMPLES", 100, raising=False)   # (raising=False: also run on the code before it)
    monkeypatch.setattr(_knn, "have_pynndescent", lambda: True)
    search = _RecordingSearch()
    monkeypatch.setattr(_knn, "ann_search", search)
    return search


def test_auto_searches_exactly_without_the_full_index_when_the_pilot_misses(pilot_thresholds, monkeypatch):
    # 50000 x 32 Gaussian points: pynndescent's index on all the points, its recall estimate (0.72) and the exact
    # fallback took 34-62 s against ~26 s for exact search alone; a pilot on a few points now predicts the miss
    X = _points(400, 20, seed=12)
    estimates = []
    monkeypatch.setattr(_knn, "estimate_recall", lambda X, idx, sample: estimates.append(len(X)) or 0.9)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)      # nothing to warn about: the result is exact
        W, info = knn_graph(X, 10, random_state=0, return_info=True)
    assert pilot_thresholds.sizes == [100] and estimates == [100]      # the pilot only, estimated on its points
    assert info["algorithm"] == "brute" and info["exact"] and not info["fallback"]
    assert info["pilot_recall"] == 0.9 and info["pilot_sample"] == 100
    assert info["recall"] == 1.0 and info["recall_sample"] == 0 and np.isnan(info["approximate_recall"])
    assert (W != knn_graph(X, 10, algorithm="brute")).nnz == 0


def test_auto_builds_the_full_index_when_the_pilot_meets_the_target(pilot_thresholds, monkeypatch):
    X = _points(400, 20, seed=13)
    monkeypatch.setattr(_knn, "estimate_recall", lambda X, idx, sample: 0.97)
    _, info = knn_graph(X, 10, random_state=0, return_info=True)
    assert pilot_thresholds.sizes == [100, 400]
    assert info["algorithm"] == "pynndescent" and not info["exact"] and not info["fallback"]
    assert info["pilot_recall"] == 0.97 and info["recall"] == 0.97 and info["approximate_recall"] == 0.97


def test_pilot_recall_is_measured_on_the_pilot_points(monkeypatch):
    # the pilot's lists are searched among the pilot's points: their estimate equals the oracle recall there
    monkeypatch.setattr(_knn, "PILOT_SAMPLES", 150)
    X = _points(400, 8, seed=14)
    seen = {}

    def wrong_lists(Xp, k, algorithm, random_state):
        seen["X"] = Xp
        exact = _exact_lists(Xp, k + 1)
        return None, np.column_stack([exact[:, :k - 1], exact[:, k]])     # the k-th replaced by the (k+1)-th
    monkeypatch.setattr(_knn, "ann_search", wrong_lists)
    recall, m = _knn._pilot_recall(X, 5, "pynndescent", np.random.default_rng(0))
    assert m == 150 and seen["X"].shape == (150, 8)
    assert all((X == row).all(axis=1).sum() == 1 for row in seen["X"])   # pilot rows are distinct points of X
    assert recall == pytest.approx(4 / 5, abs=1e-12)


def test_explicit_approximate_backend_runs_no_pilot(pilot_thresholds):
    _, info = knn_graph(_points(400, 20, seed=15), 10, algorithm="pynndescent", random_state=0, return_info=True)
    assert pilot_thresholds.sizes == [400] and info["pilot_sample"] == 0 and np.isnan(info["pilot_recall"])


def test_unusable_pilot_lists_mean_exact_search(pilot_thresholds, monkeypatch):
    def unusable(Xs, k, algorithm, random_state):
        pilot_thresholds.sizes.append(Xs.shape[0])
        raise _knn._UnusableApproximateResult("pynndescent returned the same neighbour twice", "")
    monkeypatch.setattr(_knn, "ann_search", unusable)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        W, info = knn_graph(_points(400, 20, seed=16), 10, random_state=0, return_info=True)
    assert pilot_thresholds.sizes == [100] and info["algorithm"] == "brute" and np.isnan(info["pilot_recall"])


INFO_KEYS = {"requested", "algorithm", "exact", "recall", "recall_sample", "recall_target", "fallback",
             "approximate_recall", "pilot_recall", "pilot_sample", "sparse", "seconds"}


def test_info_has_the_same_keys_on_every_path(pilot_thresholds, monkeypatch):
    # sparse X added a "sparse" key the dense paths lacked, and "approximate_recall" existed on a fallback only
    import scipy.sparse as sp

    X = _points(400, 20, seed=17)
    infos = {"kd_tree": knn_graph(X[:, :3], 5, return_info=True)[1],
             "brute": knn_graph(X, 5, algorithm="brute", return_info=True)[1],
             "sparse": knn_graph(sp.csr_array(X), 5, return_info=True)[1]}
    monkeypatch.setattr(_knn, "estimate_recall", lambda X, idx, sample: 0.97)
    infos["approximate"] = knn_graph(X, 5, random_state=0, return_info=True)[1]
    monkeypatch.setattr(_knn, "estimate_recall", lambda X, idx, sample: 0.97 if len(X) == 100 else 0.5)
    with pytest.warns(RuntimeWarning, match="recomputing with exact search"):
        infos["fallback"] = knn_graph(X, 5, random_state=0, return_info=True)[1]
    for path, info in infos.items():
        assert set(info) == INFO_KEYS, path
    assert infos["sparse"]["sparse"] and not infos["brute"]["sparse"]
    assert infos["fallback"]["fallback"] and infos["fallback"]["approximate_recall"] == 0.5
    assert np.isnan(infos["brute"]["approximate_recall"]) and infos["approximate"]["approximate_recall"] == 0.97


def test_auto_progress_does_not_name_the_approximate_backend_before_its_pilot(pilot_thresholds, monkeypatch, caplog):
    # the opening message named pynndescent although the pilot then chose exact search
    import logging
    X = _points(400, 20, seed=12)
    monkeypatch.setattr(_knn, "estimate_recall", lambda X, idx, sample: 0.9)
    with caplog.at_level(logging.INFO, logger="graphrkhs"):
        _, info = knn_graph(X, 10, random_state=0, return_info=True)
    opening = [r.getMessage() for r in caplog.records if "searching 10 neighbours" in r.getMessage()]
    assert info["algorithm"] == "brute"
    assert opening and "(pynndescent if its pilot meets the recall target, else exact)" in opening[0]
