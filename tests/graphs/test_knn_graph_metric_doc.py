"""knn_graph's documented ``metric`` choices are the ones it accepts.

The type line read {"euclidean", "cosine"} although knn_graph (and GraphSpec, whose line lists
it) also takes "tangent", described a few lines below; epsilon_graph's line rightly lists two
(it refuses "tangent").
"""

import inspect
import re

import numpy as np
import pytest

from graphrkhs import GraphSpec, epsilon_graph, knn_graph
from graphrkhs.graphs._construct import METRICS


def _choices(obj, name):
    doc = inspect.cleandoc(obj.__doc__)
    line = re.search(rf"^{name} : \{{([^}}]*)\}}", doc, re.M).group(1)
    return {c.strip().strip('"') for c in line.split(",")}


@pytest.mark.parametrize("obj", [knn_graph, GraphSpec])
def test_metric_choices_are_documented(obj):
    assert _choices(obj, "metric") == set(METRICS)


def test_each_documented_knn_metric_is_accepted():
    X = np.random.default_rng(0).random((12, 9))
    for metric in _choices(knn_graph, "metric"):
        shape = (3, 3) if metric == "tangent" else None
        assert knn_graph(X, 3, metric=metric, image_shape=shape).shape == (12, 12)
    assert "tangent" not in _choices(epsilon_graph, "metric")
