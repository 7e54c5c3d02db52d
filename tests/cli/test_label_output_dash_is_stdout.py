"""``graphrkhs label --output -`` writes the labeled table to standard output (the Unix convention) and the
summary to standard error.  Before, it wrote a file literally named "-" in the working directory and printed
"wrote -" on standard output."""

import csv
import io

import numpy as np

from cli_csv import number_rows, write_csv
from graphrkhs import cli


def _write_input(tmp_path):
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(6, 2)), rng.normal(size=(6, 2)) + 5]).round(3)
    lab = ["a", "a", "", "", "", "", "b", "b", "", "", "", ""]
    src = tmp_path / "data.csv"
    write_csv(src, ["x", "y", "label"], number_rows(X, lab), lineterminator="\n")
    return src, X, lab


def test_output_dash_writes_the_table_to_stdout_and_the_summary_to_stderr(tmp_path, capsys, monkeypatch):
    src, X, lab = _write_input(tmp_path)
    monkeypatch.chdir(tmp_path)
    code = cli.main(["label", str(src), "--label-column", "label", "--output", "-", "-q"])
    captured = capsys.readouterr()
    assert code == 0
    assert not (tmp_path / "-").exists()
    rows = list(csv.reader(io.StringIO(captured.out)))
    assert rows[0] == ["x", "y", "label", "predicted_label", "confidence"]
    assert len(rows) == 1 + len(lab)
    assert [r[2] for r in rows[1:]] == lab
    # two well separated blobs, each with two labels: every row gets its blob's class
    assert [r[3] for r in rows[1:]] == ["a"] * 6 + ["b"] * 6
    assert all(0.5 <= float(r[4]) <= 1.0 for r in rows[1:])
    assert "graphrkhs label: 12 rows, 4 labeled" in captured.err and "standard output" in captured.err

    # the same table as written to a file
    code = cli.main(["label", str(src), "--label-column", "label", "--output", "out.csv", "-q"])
    capsys.readouterr()
    assert code == 0
    with open(tmp_path / "out.csv", encoding="utf-8", newline="") as f:
        # the same table; "\n" line endings for pipes where the file has "\r\n"
        assert f.read().replace("\r\n", "\n") == captured.out
    assert "\r" not in captured.out


def test_output_dash_quotes_a_cell_holding_a_carriage_return(tmp_path, capsys, monkeypatch):
    # the file's CSV dialect on standard output too: a label cell "a\rx" stays one quoted cell (with "\n" line
    # endings it was written bare and read back as a broken row)
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(6, 2)), rng.normal(size=(6, 2)) + 5]).round(3)
    lab = ["a\rx", "a\rx", "", "", "", "", "b", "b", "", "", "", ""]
    src = tmp_path / "data.csv"
    write_csv(src, ["x", "y", "label"], number_rows(X, lab))
    monkeypatch.chdir(tmp_path)
    code = cli.main(["label", str(src), "--label-column", "label", "--output", "-", "-q"])
    out = capsys.readouterr().out
    assert code == 0
    rows = list(csv.reader(io.StringIO(out, newline="")))
    assert len(rows) == 1 + len(lab)
    assert [r[2] for r in rows[1:]] == lab
