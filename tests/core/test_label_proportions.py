"""The rule of the label-proportion warning: a class's labeled proportion p = n_c / l is untrusted when
it is within two (binomial) standard errors sqrt(p (1 - p) / l) of 0, and the counts are unequal."""

import numpy as np
import pytest

from graphrkhs._core.labels import untrusted_label_proportions


def _oracle(counts):
    counts = np.asarray(counts, dtype=float)
    if (counts == counts[0]).all():
        return []
    l = counts.sum()
    p = counts / l
    return [c for c in range(counts.size) if p[c] <= 0 or p[c] < 2.0 * np.sqrt(p[c] * (1 - p[c]) / l)]


@pytest.mark.parametrize("counts, expected", [
    ([1, 20], [0]), ([2, 3], [0]), ([3, 4], []), ([3, 30], [0]), ([4, 40], []), ([0, 5], [0]),
    ([1, 1], []), ([10, 10, 10], []), ([1, 2, 3], [0, 1]), ([5, 50, 50], []),
])
def test_rule(counts, expected):
    assert untrusted_label_proportions(counts).tolist() == expected == _oracle(counts)


def test_rule_matches_the_standard_error_form_on_a_grid():
    for a in range(0, 12):
        for b in range(1, 60):
            assert untrusted_label_proportions([a, b]).tolist() == _oracle([a, b])
