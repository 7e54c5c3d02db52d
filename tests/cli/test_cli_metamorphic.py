"""Metamorphic identities of ``graphrkhs label`` (session 28): the same file written another way labels
the same rows the same way.

The CLI counterpart of tests/estimators/test_metamorphic.py (which checks the estimators on a graph): here
the whole path -- reading, standardizing, building the kNN graph, fitting, writing -- is under test.

* row order: shuffling the rows of the input permutes the output rows (same label and confidence per
  original row), for every --method, also with duplicated rows;
* feature column order: the kNN graphs (Euclidean Gaussian, self-tuning, cosine) depend on the feature
  vectors through distances and inner products only, so reordering the feature columns changes nothing
  -- also for image-shaped files (>= 32 non-negative columns, the cosine graph of poisson-ridge): the CLI
  has no image-aware kernel, the pixel layout is not used;
* class names: renaming the classes (integers with a 0, an order that reverses the sorted order) renames
  the predictions and keeps the confidences;
* spelling of the file: CRLF line ends, a UTF-8 byte order mark, no final newline, quoted cells, tab or
  semicolon delimiters, and the same data as .npz give byte-identical labels and confidences.

Confidences are compared as written (4 decimals): the same floats up to summation order.
"""

import csv

import numpy as np
import pytest

from cli_csv import csv_text, number_rows, read_csv
from graphrkhs import cli

METHODS = ["poisson-ridge", "laplace", "poisson", "tikhonov", "kernel-ridge"]


def _blobs(n_per=15, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(size=(n_per, d)), rng.normal(size=(n_per, d)) + 3.0])
    y = np.repeat(["a", "b"], n_per)
    labels = [lab if i % 5 == 0 else "" for i, lab in enumerate(y)]
    return X, labels


def _text(header, X, labels, lineterminator="\n", **dialect):
    return csv_text(header, number_rows(X, labels, decimals=6), lineterminator=lineterminator, **dialect)


def _label(path, tmp_path, capsys, *extra, name="out.csv"):
    out = tmp_path / name
    code = cli.main(["label", str(path), "--label-column", "cls", "-q", "--force", "--output", str(out), *extra])
    err = capsys.readouterr().err
    assert code == 0, err
    rows = read_csv(out)
    return rows[0], [(r[-2], r[-1]) for r in rows[1:]]


def _blobs_labeled(tmp_path, capsys, *extra):
    """The blobs, their label cells and the output of the plain CSV file: the reference of each identity."""
    X, labels = _blobs()
    _, base = _label(_write(tmp_path, "a.csv", _text(["x", "y", "z", "cls"], X, labels)), tmp_path, capsys, *extra,
                     name="a_out.csv")
    return X, labels, base


def _write(tmp_path, name, text, **kw):
    path = tmp_path / name
    with open(path, "w", newline="", **kw) as f:
        f.write(text)
    return path


@pytest.mark.parametrize("method", METHODS)
def test_row_order_permutes_the_output(method, tmp_path, capsys):
    X, labels = _blobs()
    X[7] = X[6]                      # duplicated rows: a tie among neighbours must not follow the row order
    X[20] = X[21] = X[22]
    header = ["x", "y", "z", "cls"]
    base_path = _write(tmp_path, "a.csv", _text(header, X, labels))
    _, base = _label(base_path, tmp_path, capsys, "--method", method, name="a_out.csv")
    perm = np.random.default_rng(1).permutation(len(X))
    p_path = _write(tmp_path, "p.csv", _text(header, X[perm], [labels[i] for i in perm]))
    _, permuted = _label(p_path, tmp_path, capsys, "--method", method, name="p_out.csv")
    assert permuted == [base[i] for i in perm]
    assert {lab for lab, _ in base} == {"a", "b"}


@pytest.mark.parametrize("method", METHODS)
def test_feature_column_order_changes_nothing(method, tmp_path, capsys):
    X, labels, base = _blobs_labeled(tmp_path, capsys, "--method", method)
    order = [2, 0, 1]
    # the label column first, the features reordered: the same rows, the same answers
    rows = [[lab] + row for lab, row in zip(labels, number_rows(X[:, order], decimals=6))]
    text = csv_text(["cls", "z", "x", "y"], rows, lineterminator="\n")
    header, moved = _label(_write(tmp_path, "c.csv", text), tmp_path, capsys, "--method", method, name="c_out.csv")
    assert header == ["cls", "z", "x", "y", "predicted_cls", "confidence"]
    assert moved == base


def test_image_shaped_feature_column_order_changes_nothing(tmp_path, capsys):
    # 40 non-negative "pixel" columns: poisson-ridge builds its cosine graph on the raw pixels; a pixel
    # permutation (the image scrambled) is the same point cloud up to a rotation of the axes
    rng = np.random.default_rng(3)
    proto = rng.uniform(size=(2, 40))
    X = np.vstack([proto[0] + 0.3 * rng.uniform(size=(15, 40)), proto[1] + 0.3 * rng.uniform(size=(15, 40))])
    labels = [lab if i % 5 == 0 else "" for i, lab in enumerate(np.repeat(["a", "b"], 15))]
    names = [f"p{j}" for j in range(40)]
    _, base = _label(_write(tmp_path, "a.csv", _text(names + ["cls"], X, labels)), tmp_path, capsys,
                     name="a_out.csv")
    order = rng.permutation(40)
    _, moved = _label(_write(tmp_path, "c.csv", _text([names[j] for j in order] + ["cls"], X[:, order], labels)),
                      tmp_path, capsys, name="c_out.csv")
    assert moved == base
    assert {lab for lab, _ in base} == {"a", "b"}


@pytest.mark.parametrize("method", METHODS)
def test_renaming_the_classes_renames_the_predictions(method, tmp_path, capsys):
    # "a" < "b" but "1" > "0": the renamed classes are sorted the other way round
    X, labels, base = _blobs_labeled(tmp_path, capsys, "--method", method)
    rename = {"a": "1", "b": "0", "": ""}
    _, renamed = _label(_write(tmp_path, "r.csv", _text(["x", "y", "z", "cls"], X, [rename[v] for v in labels])),
                        tmp_path, capsys, "--method", method, name="r_out.csv")
    assert renamed == [(rename[lab], c) for lab, c in base]


@pytest.mark.parametrize("spelling", ["crlf", "bom", "no_final_newline", "quoted", "tab", "semicolon", "npz"])
def test_spelling_of_the_file_changes_nothing(spelling, tmp_path, capsys):
    X, labels, base = _blobs_labeled(tmp_path, capsys)
    header = ["x", "y", "z", "cls"]
    if spelling == "npz":
        path = tmp_path / "s.npz"
        np.savez(path, X=np.array([[float(f"{v:.6f}") for v in x] for x in X]), cls=np.array(labels))
    elif spelling == "bom":
        path = _write(tmp_path, "s.csv", _text(header, X, labels), encoding="utf-8-sig")
    elif spelling == "quoted":
        path = _write(tmp_path, "s.csv", _text(header, X, labels, quoting=csv.QUOTE_ALL))
    else:
        text = {"crlf": lambda: _text(header, X, labels, lineterminator="\r\n"),
                "no_final_newline": lambda: _text(header, X, labels).rstrip("\n"),
                "tab": lambda: _text(header, X, labels, delimiter="\t"),
                "semicolon": lambda: _text(header, X, labels, delimiter=";")}[spelling]()
        path = _write(tmp_path, "s.tsv" if spelling == "tab" else "s.csv", text)
    out_header, spelt = _label(path, tmp_path, capsys, name="s_out.csv")
    assert out_header[-2:] == ["predicted_cls", "confidence"]
    assert out_header[0] == ("x0" if spelling == "npz" else "x")      # no byte order mark in the first name
    assert spelt == base


# --- .npz keys: what is read is said --------------------------------------------------------------------

def test_npz_arrays_beside_X_are_named_as_unused(tmp_path, capsys):
    # np.savez(f, X=X, cls=y, extra=z): the features are X; 'extra' was dropped without a word, and
    # --features extra said "unknown feature column(s) extra; the columns are: x0, x1, cls" of a file that has it
    X, labels = _blobs(d=2)
    path = tmp_path / "d.npz"
    np.savez(path, X=X, extra=X[:, 0] * 2.0, cls=np.array(labels))
    out = tmp_path / "o.csv"
    assert cli.main(["label", str(path), "--label-column", "cls", "-q", "--output", str(out)]) == 0
    err = capsys.readouterr().err
    assert "note: features from the 2-D array 'X'; array(s) 'extra' not used" in err
    with open(out, newline="") as f:
        assert next(csv.reader(f)) == ["x0", "x1", "cls", "predicted_cls", "confidence"]
    code = cli.main(["label", str(path), "--label-column", "cls", "-q", "--force", "--output", str(out),
                     "--features", "extra"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "unknown feature column(s) extra" in err and "array(s) 'extra' not used" in err
    assert "save one 1-D array per feature" in err


def test_npz_two_dimensional_array_not_named_X_names_the_array_and_its_shape(tmp_path, capsys):
    # "feature arrays features must be 1-D ..." read as English; the array, its shape and the key to use
    X, labels = _blobs(d=2)
    path = tmp_path / "d.npz"
    np.savez(path, features=X, cls=np.array(labels))
    code = cli.main(["label", str(path), "--label-column", "cls", "-q", "--output", str(tmp_path / "o.csv")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert "'features' has shape (30, 2)" in err
    assert "np.savez(file, X=features, cls=labels)" in err


# --- the unlabeled marker ---------------------------------------------------------------------------------

def test_every_row_labeled_names_the_unlabeled_option_and_the_classes(tmp_path, capsys):
    # a file marking unlabeled rows with '?' (not a default token) was labeled with '?' as a third class and
    # the note said only "every row is already labeled"; with --unlabeled=? it is two classes
    X, labels = _blobs()
    text = _text(["x", "y", "z", "cls"], X, [lab or "?" for lab in labels])
    path = _write(tmp_path, "q.csv", text)
    out = tmp_path / "o.csv"
    assert cli.main(["label", str(path), "--label-column", "cls", "-q", "--output", str(out)]) == 0
    err = capsys.readouterr().err
    assert ("note: every row is already labeled (no cell of 'cls' is empty or an --unlabeled token); predictions "
            "are the fitted values; if one of the classes ('?', 'a', 'b') marks unlabeled rows, pass it with "
            "--unlabeled, e.g. --unlabeled=?") in err
    _, marked = _label(path, tmp_path, capsys, "--unlabeled=?", name="m_out.csv")
    assert marked == _blobs_labeled(tmp_path, capsys)[2]                  # the explicit marker is the empty cell by another name


# --- the output on an error -------------------------------------------------------------------------------

def test_a_failed_write_leaves_the_old_output_and_no_partial_file(tmp_path, capsys, monkeypatch):
    # a full disk at the moment of writing: exit 2 with one line, the old output byte for byte, no temporary
    # file left next to it
    import errno
    import os

    X, labels = _blobs()
    path = _write(tmp_path, "a.csv", _text(["x", "y", "z", "cls"], X, labels))
    out = tmp_path / "out.csv"
    out.write_text("old,output\n1,2\n")

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    code = cli.main(["label", str(path), "--label-column", "cls", "-q", "--force", "--output", str(out)])
    err = capsys.readouterr().err
    assert code == 2
    assert err == (f"graphrkhs label: error: cannot write {out}: {os.strerror(errno.ENOSPC)}; the old file, if any, "
                   "is unchanged.\n")
    assert out.read_text() == "old,output\n1,2\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv", "out.csv"]


def test_a_user_error_after_reading_writes_no_output(tmp_path, capsys):
    # one class only: found after the file is read; no output file appears
    X, labels = _blobs()
    path = _write(tmp_path, "a.csv", _text(["x", "y", "z", "cls"], X, [v if v != "b" else "" for v in labels]))
    out = tmp_path / "out.csv"
    code = cli.main(["label", str(path), "--label-column", "cls", "-q", "--output", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "only one class ('a')" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv"]


def _three_classes_with_minus_one(tmp_path, other_marker=""):
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(10, 2)) + c for c in ([0, 0], [5, 0], [0, 5])])
    y = np.repeat(["-1", "0", "1"], 10)
    labels = [lab if i % 3 == 0 else other_marker for i, lab in enumerate(y)]
    return X, labels, _write(tmp_path, "m.csv", _text(["x", "y", "cls"], X, labels))


@pytest.mark.parametrize("other_marker", ["", "NA"])
def test_minus_one_beside_another_unlabeled_marker_is_an_error_naming_the_option(other_marker, tmp_path, capsys):
    # classes -1, 0, 1 with empty (or NA) cells for unlabeled rows: the -1 rows were read as unlabeled by the
    # default tokens and the file was labeled with classes 0 and 1 only, without a word
    X, labels, path = _three_classes_with_minus_one(tmp_path, other_marker)
    out = tmp_path / "o.csv"
    code = cli.main(["label", str(path), "--label-column", "cls", "-q", "--output", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    shown = "empty" if not other_marker else "'NA'"
    assert (f"column 'cls' marks unlabeled rows both with -1 (4 rows) and with {shown} cells (20 rows)") in err
    assert "if -1 is a class, pass " + ("--unlabeled=NA" if other_marker else "--unlabeled ''") in err
    assert f"if -1 marks unlabeled rows too, pass --unlabeled=-1{',NA' if other_marker else ''}" in err
    assert not out.exists()
    # either choice made explicit is labeled: -1 a class (its rows are the blob near the origin) ...
    unlabeled = ["--unlabeled", ""] if not other_marker else ["--unlabeled=NA"]
    _, as_class = _label(path, tmp_path, capsys, *unlabeled, name="c.csv")
    assert [lab for lab, _ in as_class] == ["-1"] * 10 + ["0"] * 10 + ["1"] * 10
    # ... or -1 unlabeled, the same as a file with -1 written as the other marker
    _, as_marker = _label(path, tmp_path, capsys, "--unlabeled=-1" + (",NA" if other_marker else ""), name="u.csv")
    same = _write(tmp_path, "same.csv", _text(["x", "y", "cls"], X, [other_marker if v == "-1" else v
                                                                     for v in labels]))
    _, reference = _label(same, tmp_path, capsys, name="r.csv")
    assert as_marker == reference


def test_minus_one_as_the_only_unlabeled_marker_is_the_python_api_convention(tmp_path, capsys):
    X, labels, _ = _three_classes_with_minus_one(tmp_path)
    path = _write(tmp_path, "api.csv", _text(["x", "y", "cls"], X, [v if v not in ("", "-1") else "-1"
                                                                    for v in labels]))
    _, out = _label(path, tmp_path, capsys, name="o.csv")
    assert {lab for lab, _ in out} == {"0", "1"}


def test_minus_one_as_the_only_marker_between_two_classes_keeps_the_warning(tmp_path, capsys):
    # classes -2 and 0, -1 the only marker: the Python API's LabelCollisionWarning rule (-1 between two
    # classes), not the two-marker error
    X, labels = _blobs()
    path = _write(tmp_path, "w.csv", _text(["x", "y", "z", "cls"], X, [{"a": "-2", "b": "0", "": "-1"}[v]
                                                                       for v in labels]))
    code = cli.main(["label", str(path), "--label-column", "cls", "-q", "--output", str(tmp_path / "o.csv")])
    err = capsys.readouterr().err
    assert code == 0
    assert err.count("\n") == 1 and "warning (LabelCollisionWarning): the 24 row(s) with -1" in err
