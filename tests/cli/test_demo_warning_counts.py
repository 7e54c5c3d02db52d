"""The demo's list of warnings counts the draws that raised each one: a method warning twice in one draw
was listed as "UserWarning in 2 of 1 draw(s)"."""

import io
import warnings

import numpy as np

from graphrkhs.cli import _demo


def test_demo_counts_draws_not_warnings(monkeypatch):
    def twice(X, y, W):
        warnings.warn("first thing; more", UserWarning)
        warnings.warn("second thing; more", UserWarning)
        return np.zeros(X.shape[0], dtype=int)

    monkeypatch.setattr(_demo, "_demo_methods", lambda n_neighbors: [("a method", twice, "graphrkhs")])
    out = io.StringIO()
    _demo.demo(1, 2, 10, 0, out=out)
    text = out.getvalue()
    assert "- a method: UserWarning in 2 of 2 draw(s): first thing" in text
    assert "4 of 2" not in text
