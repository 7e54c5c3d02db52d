"""estimate_recall refuses neighbour lists it cannot score with a ValueError naming indices / sample (k >= n
columns was numpy's "kth(=5) out of bounds (4)", k = 0 or an empty sample a ZeroDivisionError, too few
rows an IndexError), and scores a valid list against a brute-force oracle."""
import numpy as np
import pytest

from graphrkhs.graphs import estimate_recall

X = np.random.default_rng(0).normal(size=(4, 2))


@pytest.mark.parametrize("k", [0, 4, 5])
def test_k_outside_1_to_n_minus_1_is_refused(k):
    idx = np.tile(np.array([1, 2, 3, 0, 1])[:k], (4, 1)).reshape(4, k)
    with pytest.raises(ValueError, match=r"indices has k = %d columns" % k):
        estimate_recall(X, idx, np.arange(4))


def test_empty_sample_and_wrong_row_count_are_refused():
    idx = np.array([[1, 2, 3]] * 4)
    with pytest.raises(ValueError, match="sample must be a non-empty"):
        estimate_recall(X, idx, np.array([], dtype=int))
    with pytest.raises(ValueError, match="one row per point of X"):
        estimate_recall(X, idx[:3], np.arange(4))


def test_valid_lists_match_brute_force():
    idx = np.array([[1, 2], [0, 3], [3, 1], [2, 0]])
    D = np.linalg.norm(X[:, None] - X[None], axis=2)
    np.fill_diagonal(D, np.inf)
    kth = np.sort(D, axis=1)[:, 1]
    oracle = np.mean([D[i, j] <= kth[i] for i in range(4) for j in idx[i]])
    assert estimate_recall(X, idx, np.arange(4)) == pytest.approx(oracle, abs=0)
