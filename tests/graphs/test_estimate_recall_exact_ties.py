"""estimate_recall counts on distances: among exactly tied neighbours (duplicated rows) any choice is a hit.

Approximate search on duplicated rows lists other copies than exact search (there is no tie rule to follow);
those lists are as near as the exact ones, so recall@k is 1 -- an index-based recall would report them as
misses.  A neighbour farther than the exact k-th distance is a miss.
"""

import numpy as np

from graphrkhs.graphs import estimate_recall


def test_tied_copies_are_hits_and_a_farther_point_a_miss():
    rng = np.random.default_rng(0)
    base = rng.standard_normal((6, 3))
    X = np.repeat(base, 5, axis=0)                     # point i has 4 copies at distance 0: rows 5(i//5) + 0..4
    k = 3
    n = X.shape[0]
    copies = [[j for j in range(5 * (i // 5), 5 * (i // 5) + 5) if j != i] for i in range(n)]
    lowest = np.array([c[:k] for c in copies])          # the lowest-indexed copies (exact search's tie order)
    highest = np.array([c[-k:] for c in copies])        # other copies, as an approximate search may list
    assert (lowest != highest).any()
    sample = np.arange(n)
    assert estimate_recall(X, lowest, sample) == 1.0
    assert estimate_recall(X, highest, sample) == 1.0
    # a point of another group in the last slot of row 0: one miss out of n k
    wrong = highest.copy()
    wrong[0, -1] = 5
    assert estimate_recall(X, wrong, sample) == (n * k - 1) / (n * k)
