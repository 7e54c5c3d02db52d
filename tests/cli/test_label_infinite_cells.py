"""``graphrkhs label``: an infinite cell among numeric labels is refused, as the Python API refuses
infinite class labels.  Before, one "inf" cell made every label its cell's text: "1" and "1.0" became two
classes, "inf" a class of its own, and the exit status was 0."""

import numpy as np
import pytest

from cli_csv import number_rows, write_csv
from cli_run import run


def _csv(path, labels):
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(6, 2)), rng.normal(size=(6, 2)) + 6])
    write_csv(path, ["x", "y", "label"], number_rows(X, labels, decimals=6), lineterminator="\n")


@pytest.mark.parametrize("cell", ["inf", "-Infinity"])
def test_an_infinite_cell_among_numeric_labels_is_refused(tmp_path, capsys, cell):
    src = tmp_path / "data.csv"
    _csv(src, ["1", "", "1.0", cell, "", "", "2", "", "2", "", "", ""])
    out = tmp_path / "out.csv"
    code, _, err = run(["label", str(src), "--label-column", "label", "--output", str(out), "-q"], capsys)
    assert code == 2
    assert "infinite value" in err and repr(cell) in err and "line 5" in err
    assert "Traceback" not in err
    assert not out.exists()


def test_npz_float_labels_with_inf_are_refused(tmp_path, capsys):
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(6, 2)), rng.normal(size=(6, 2)) + 6])
    y = np.full(12, np.nan)
    y[[0, 1]], y[[6, 7]], y[3] = 0.0, 1.0, np.inf
    src = tmp_path / "data.npz"
    np.savez(src, X=X, label=y)
    code, _, err = run(["label", str(src), "--label-column", "label", "--output", str(tmp_path / "o.csv"), "-q"],
                       capsys)
    assert code == 2
    assert "infinite value" in err and "row index 3" in err


def test_inf_among_text_labels_stays_a_word(tmp_path, capsys):
    src = tmp_path / "data.csv"
    _csv(src, ["a", "", "inf", "", "", "", "b", "", "b", "", "", ""])
    out = tmp_path / "out.csv"
    code, _, err = run(["label", str(src), "--label-column", "label", "--output", str(out), "-q"], capsys)
    assert code == 0, err
