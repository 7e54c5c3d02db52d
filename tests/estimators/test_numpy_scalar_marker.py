"""The unlabeled marker matches numpy scalars of its value (np.str_ entries, an np.str_ marker): compared by
exact type, np.str_("?") never matched unlabeled="?" and the unlabeled rows were fitted as a class "?"."""
import numpy as np
import pytest

from graphrkhs import LaplacianRegularizationClassifier, RLSClassifier


def _data():
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 1, (8, 2)), rng.normal(5, 1, (8, 2))])
    y = np.array(["?"] * 16, dtype=object)
    y[[0, 1]] = "a"
    y[[8, 9]] = "b"
    y[15] = None
    return X, y


@pytest.mark.parametrize("est", [RLSClassifier(sigma=1.0, alpha=1e-3),
                                 LaplacianRegularizationClassifier(alpha=1e-2, n_neighbors=3)])
@pytest.mark.parametrize("numpy_in", ["entries", "marker"])
def test_numpy_str_marker_marks_unlabeled(est, numpy_in):
    X, y = _data()
    reference = est.set_params(unlabeled="?").fit(X, y).predict(X)            # Python strings, marker "?": the oracle
    assert est.classes_.tolist() == ["a", "b"]
    if numpy_in == "entries":
        # a list of a numpy array's items with a None: object dtype holding np.str_
        y_np = np.array([np.str_(v) if v is not None else None for v in y], dtype=object)
        assert isinstance(y_np[0], np.str_)
    else:
        y_np = y
        est.set_params(unlabeled=np.str_("?"))
    est.fit(X, y_np)
    assert [str(c) for c in est.classes_] == ["a", "b"]
    np.testing.assert_array_equal(est.predict(X).astype(str), reference.astype(str))
