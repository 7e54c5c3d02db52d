"""The rule of the label-proportion warning: a class's labeled proportion p = n_c / l (l labels drawn from N
samples) is untrusted when it is within two standard errors sqrt(p (1 - p) / l (N - l) / (N - 1)) of 0
(binomial with the finite-population correction), and the counts are unequal."""

import numpy as np
import pytest

from graphrkhs._core.labels import untrusted_label_proportions


def _oracle(counts, N=None):
    counts = np.asarray(counts, dtype=float)
    if (counts == counts[0]).all():
        return []
    l = counts.sum()
    p = counts / l
    fpc = 1.0 if N is None else ((N - l) / (N - 1) if N > l else 0.0)
    se = np.sqrt(p * (1 - p) / l * fpc)
    return [c for c in range(counts.size) if (p[c] <= 0 and fpc > 0) or p[c] < 2.0 * se[c]]


@pytest.mark.parametrize("counts, N, expected", [
    ([1, 20], None, [0]), ([2, 3], None, [0]), ([3, 4], None, []), ([3, 30], None, [0]), ([4, 40], None, []),
    ([0, 5], None, [0]), ([1, 1], None, []), ([10, 10, 10], None, []), ([1, 2, 3], None, [0, 1]),
    ([5, 50, 50], None, []),
    ([1, 20], 42, [0]),           # the two blobs of 21 points: 1 < 4 (20/21) (21/41) = 1.95
    ([2, 20], 42, []),            # 2 > 4 (20/22) (20/41) = 1.77
    ([3, 20], 23, []),            # every sample labeled: the proportions are the data's
    ([1, 20], 21, []),
])
def test_rule(counts, N, expected):
    assert untrusted_label_proportions(counts, N).tolist() == expected == _oracle(counts, N)


def test_rule_matches_the_standard_error_form_on_a_grid():
    for a in range(0, 12):
        for b in range(1, 60):
            assert untrusted_label_proportions([a, b]).tolist() == _oracle([a, b])
            for N in (a + b, a + b + 1, 2 * (a + b), 10 * (a + b)):
                assert untrusted_label_proportions([a, b], N).tolist() == _oracle([a, b], N), (a, b, N)
