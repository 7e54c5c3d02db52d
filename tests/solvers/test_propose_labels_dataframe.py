"""propose_labels takes any 2-D array-like of scores: a pandas DataFrame was refused ("scores must be an
(n, n_classes) array ... got DataFrame").  Its values are used in row order; the proposed nodes are positions."""

import numpy as np
import pandas as pd
import pytest

import graphrkhs as gr


def test_propose_labels_accepts_a_dataframe_of_scores_and_returns_positions():
    P = np.array([[0.9, 0.1], [0.55, 0.45], [0.2, 0.8], [0.5, 0.5]])
    df = pd.DataFrame(P, index=[10, 11, 12, 13], columns=["a", "b"])
    # the oracle: the smallest margins are rows 3 (0.0) then 1 (0.1)
    assert gr.propose_labels(df, 2).tolist() == [3, 1] == gr.propose_labels(P, 2).tolist()
    nodes, values = gr.propose_labels(df, 2, labeled=[3], criterion="entropy", return_values=True)
    ref = gr.propose_labels(P, 2, labeled=[3], criterion="entropy", return_values=True)
    assert nodes.tolist() == ref[0].tolist() == [1, 2]
    assert np.array_equal(values, ref[1])


def test_propose_labels_still_refuses_a_non_array():
    with pytest.raises(TypeError, match="scores must be"):
        gr.propose_labels({"a": 1}, 1)
