"""``graphrkhs label`` on the files and columns a user actually has (session 15).

Column names with surrounding spaces, boolean labels, identifier columns given as the label column.
"""

import csv

import numpy as np
import pytest

from graphrkhs import cli


def _run(argv, capsys):
    code = cli.main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def _two_blobs(n_per=12, seed=0):
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(size=(n_per, 2)), rng.normal(size=(n_per, 2)) + 6])
    y = np.repeat(["a", "b"], n_per)
    return X, y


def _write(path, header, X, labels):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        for x, lab in zip(X, labels):
            w.writerow([f"{v:.6f}" for v in x] + [lab])


def _read(path):
    with open(path, newline="") as f:
        return list(csv.reader(f))


def _some_labels(y):
    return [lab if i % 4 == 0 else "" for i, lab in enumerate(y)]


# --- column names and surrounding spaces: the exact name first, then the stripped one -------------

@pytest.mark.parametrize("header_name, option", [("label", " label"), ("label", "label "),
                                                 (" label", "label"), (" label", " label")])
def test_label_column_matches_without_surrounding_spaces(tmp_path, capsys, header_name, option):
    # --label-column " label" on a header "label" was "unknown column ' label'; the columns are: x, y, label"
    X, y = _two_blobs()
    path = tmp_path / "d.csv"
    _write(path, ["x", "y", header_name], X, _some_labels(y))
    out_path = tmp_path / "o.csv"
    code, out, err = _run(["label", str(path), "--label-column", option, "-q", "--output", str(out_path)], capsys)
    assert code == 0, err
    rows = _read(out_path)
    # the input's header is written as the file spells it; the new column is named without the spaces
    assert rows[0] == ["x", "y", header_name, "predicted_label", "confidence"]
    assert [r[3] for r in rows[1:]] == list(y)


def test_features_match_without_surrounding_spaces(tmp_path, capsys):
    X, y = _two_blobs()
    path = tmp_path / "d.csv"
    _write(path, [" x", "y ", "label"], X, _some_labels(y))
    out_path = tmp_path / "o.csv"
    code, out, err = _run(["label", str(path), "--label-column", "label", "--features", "x , y", "-q",
                           "--output", str(out_path)], capsys)
    assert code == 0, err
    assert "2 feature(s)" in out
    assert _read(out_path)[0] == [" x", "y ", "label", "predicted_label", "confidence"]


def test_column_names_equal_up_to_spaces_are_ambiguous_unless_exact(tmp_path, capsys):
    X, y = _two_blobs()
    path = tmp_path / "d.csv"
    X3 = np.column_stack([X, X[:, 0]])
    _write(path, ["x", "x ", "y", "label"], X3, _some_labels(y))
    # the exact name picks its column
    code, out, err = _run(["label", str(path), "--label-column", "label", "--features", "x ,y", "-q",
                           "--output", str(tmp_path / "o.csv")], capsys)
    assert code == 0, err
    # a name that matches two columns only once spaces are ignored is an error naming both
    code, out, err = _run(["label", str(path), "--label-column", "label", "--features", " x,y", "-q",
                           "--output", str(tmp_path / "o2.csv")], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "--features ' x' matches 2 columns" in err and "'x', 'x '" in err and "give the exact name" in err
    # the same column named twice (once with spaces) is still named twice
    code, out, err = _run(["label", str(path), "--label-column", "label", "--features", "y, y ", "-q",
                           "--output", str(tmp_path / "o3.csv")], capsys)
    assert code == 2 and "--features names y more than once" in err, err


def test_unknown_column_message_shows_spaces_in_names(tmp_path, capsys):
    X, y = _two_blobs()
    path = tmp_path / "d.csv"
    _write(path, ["x", "y", " label"], X, _some_labels(y))
    code, out, err = _run(["label", str(path), "--label-column", "species", "-q"], capsys)
    assert code == 2 and "unknown column 'species'; the columns are: x, y, ' label'." in err, err


def test_npz_label_array_matches_without_surrounding_spaces(tmp_path, capsys):
    X, y = _two_blobs()
    path = tmp_path / "d.npz"
    np.savez(path, X=X, label=np.array(_some_labels(y)))
    out_path = tmp_path / "o.csv"
    code, out, err = _run(["label", str(path), "--label-column", "label ", "-q", "--output", str(out_path)], capsys)
    assert code == 0, err
    assert _read(out_path)[0] == ["x0", "x1", "label", "predicted_label", "confidence"]
