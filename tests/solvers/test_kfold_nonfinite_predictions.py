"""kfold_scores names predictions with NaN or infinity (a failed fit) instead of scoring them: "accuracy"
counted a NaN as a wrong label and "mse" made that grid point's mean NaN (ranked -inf), so a value whose fit
failed left the selection without a word (a = 1.0 below; a = 0.5 was chosen)."""
import numpy as np
import pytest

from graphrkhs.solvers import kfold_scores

Y = np.array([0, 1] * 6)


def _fit_predict(tr, te, a):
    return np.full(len(te), np.nan) if a == 1.0 else Y[te].astype(float)


@pytest.mark.parametrize("scoring", ["accuracy", "mse"])
def test_nonfinite_predictions_named(scoring):
    y = Y if scoring == "accuracy" else Y.astype(float)
    with pytest.raises(ValueError, match=r"fit_predict returned NaN or infinity at \{'a': 1.0\}"):
        kfold_scores(_fit_predict, y, {"a": [0.5, 1.0]}, scoring=scoring)


def test_finite_and_label_predictions_scored():
    res = kfold_scores(lambda tr, te, a: Y[te], Y, {"a": [0.5, 1.0]})
    assert np.all(res.scores == 1.0)
    labels = np.array(["x", "y"] * 6)
    res = kfold_scores(lambda tr, te, a: labels[te], labels, {"a": [0.5]})
    assert res.scores.ravel()[0] == 1.0
