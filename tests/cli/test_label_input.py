"""``graphrkhs label`` on the files and columns a user actually has (session 15).

Column names with surrounding spaces, boolean labels, identifier columns given as the label column.
"""

import numpy as np
import pytest

from cli_csv import number_rows, read_csv, write_csv
from cli_run import run
from graphrkhs import cli


def _two_blobs(n_per=12, seed=0):
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(size=(n_per, 2)), rng.normal(size=(n_per, 2)) + 6])
    y = np.repeat(["a", "b"], n_per)
    return X, y


def _some_labels(y):
    return [lab if i % 4 == 0 else "" for i, lab in enumerate(y)]


# --- column names and surrounding spaces: the exact name first, then the stripped one -------------

@pytest.mark.parametrize("header_name, option", [("label", " label"), ("label", "label "),
                                                 (" label", "label"), (" label", " label")])
def test_label_column_matches_without_surrounding_spaces(tmp_path, capsys, header_name, option):
    # --label-column " label" on a header "label" was "unknown column ' label'; the columns are: x, y, label"
    X, y = _two_blobs()
    path = tmp_path / "d.csv"
    write_csv(path, ["x", "y", header_name], number_rows(X, _some_labels(y), decimals=6))
    out_path = tmp_path / "o.csv"
    code, out, err = run(["label", str(path), "--label-column", option, "-q", "--output", str(out_path)], capsys)
    assert code == 0, err
    rows = read_csv(out_path)
    # the input's header is written as the file spells it; the new column is named without the spaces
    assert rows[0] == ["x", "y", header_name, "predicted_label", "confidence"]
    assert [r[3] for r in rows[1:]] == list(y)


def test_features_match_without_surrounding_spaces(tmp_path, capsys):
    X, y = _two_blobs()
    path = tmp_path / "d.csv"
    write_csv(path, [" x", "y ", "label"], number_rows(X, _some_labels(y), decimals=6))
    out_path = tmp_path / "o.csv"
    code, out, err = run(["label", str(path), "--label-column", "label", "--features", "x , y", "-q",
                          "--output", str(out_path)], capsys)
    assert code == 0, err
    assert "2 feature(s)" in out
    assert read_csv(out_path)[0] == [" x", "y ", "label", "predicted_label", "confidence"]


def test_column_names_equal_up_to_spaces_are_ambiguous_unless_exact(tmp_path, capsys):
    X, y = _two_blobs()
    path = tmp_path / "d.csv"
    X3 = np.column_stack([X, X[:, 0]])
    write_csv(path, ["x", "x ", "y", "label"], number_rows(X3, _some_labels(y), decimals=6))
    # the exact name picks its column
    code, out, err = run(["label", str(path), "--label-column", "label", "--features", "x ,y", "-q",
                          "--output", str(tmp_path / "o.csv")], capsys)
    assert code == 0, err
    # a name that matches two columns only once spaces are ignored is an error naming both
    code, out, err = run(["label", str(path), "--label-column", "label", "--features", " x,y", "-q",
                          "--output", str(tmp_path / "o2.csv")], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "--features ' x' matches 2 columns" in err and "'x', 'x '" in err and "give the exact name" in err
    # the same column named twice (once with spaces) is still named twice
    code, out, err = run(["label", str(path), "--label-column", "label", "--features", "y, y ", "-q",
                          "--output", str(tmp_path / "o3.csv")], capsys)
    assert code == 2 and "--features names y more than once" in err, err


def test_unknown_column_message_shows_spaces_in_names(tmp_path, capsys):
    X, y = _two_blobs()
    path = tmp_path / "d.csv"
    write_csv(path, ["x", "y", " label"], number_rows(X, _some_labels(y), decimals=6))
    code, out, err = run(["label", str(path), "--label-column", "species", "-q"], capsys)
    assert code == 2 and "unknown column 'species'; the columns are: x, y, ' label'." in err, err


def test_npz_label_array_matches_without_surrounding_spaces(tmp_path, capsys):
    X, y = _two_blobs()
    path = tmp_path / "d.npz"
    np.savez(path, X=X, label=np.array(_some_labels(y)))
    out_path = tmp_path / "o.csv"
    code, out, err = run(["label", str(path), "--label-column", "label ", "-q", "--output", str(out_path)], capsys)
    assert code == 0, err
    assert read_csv(out_path)[0] == ["x0", "x1", "label", "predicted_label", "confidence"]


# --- an identifier column given as the label column; memory of rows x classes ----------------------

def _no_fit(monkeypatch):
    """Make any labeling work fail the test: the checks must come before the graph and the fit."""
    import graphrkhs.cli._label as label_cli
    import graphrkhs.estimators as estimators

    def boom(*args, **kwargs):
        raise AssertionError("labeling work started")
    monkeypatch.setattr(estimators.PoissonRidgeEnsembleClassifier, "fit", boom)
    monkeypatch.setattr(label_cli, "_label_scores", boom)


def _blob_rows(n, seed=0):
    return np.random.default_rng(seed).normal(size=(n, 2))


def test_identifier_label_column_is_refused_before_any_work(tmp_path, capsys, monkeypatch):
    # 1500 rows with an id per row as --label-column: 1500 one-row classes, 33 s and 560 MB, and each row's
    # own id written back as its prediction, with no word
    _no_fit(monkeypatch)
    path = tmp_path / "d.csv"
    write_csv(path, ["x", "y", "user_id"], number_rows(_blob_rows(60), [f"u{i}" for i in range(60)], decimals=6))
    out_path = tmp_path / "o.csv"
    code, out, err = run(["label", str(path), "--label-column", "user_id", "-q", "--output", str(out_path)], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert ("the label column 'user_id' holds 60 distinct values among its 60 labeled rows (1.00 rows per class; "
            "e.g. 'u0', 'u1', 'u10', ...): it looks like an identifier") in err
    assert "Give the column of class labels with --label-column (the other columns are: x, y)" in err
    assert not out_path.exists() and out == ""
    # an id column with a few repeats and a few empty cells (fewer than 2 rows per class, most rows labeled)
    ids = [f"u{i // 2 if i < 10 else i}" if i % 7 else "" for i in range(60)]
    write_csv(path, ["x", "y", "user_id"], number_rows(_blob_rows(60), ids, decimals=6))
    code, out, err = run(["label", str(path), "--label-column", "user_id", "-q", "--output", str(out_path)], capsys)
    assert code == 2 and "looks like an identifier" in err, err


def test_one_label_per_class_on_few_labeled_rows_is_not_an_identifier(tmp_path, capsys):
    # one-shot labeling (every class labeled once, few rows labeled) stays legal with many classes
    rng = np.random.default_rng(0)
    centers = rng.normal(size=(25, 2)) * 20
    X = np.repeat(centers, 4, axis=0) + rng.normal(size=(100, 2)) * 0.1
    labels = [f"c{i // 4}" if i % 4 == 0 else "" for i in range(100)]
    path = tmp_path / "d.csv"
    write_csv(path, ["x", "y", "label"], number_rows(X, labels, decimals=6))
    out_path = tmp_path / "o.csv"
    code, out, err = run(["label", str(path), "--label-column", "label", "--method", "laplace", "--neighbors", "3",
                          "-q", "--output", str(out_path)], capsys)
    assert code == 0, err
    assert "100 rows, 25 labeled, 25 classes" in out
    # the summary line names 20 classes (it was one line of every class, 7 000 characters for 500 classes)
    assert ("labeled per class: c0: 1, c1: 1, c10: 1, c11: 1, c12: 1, c13: 1, c14: 1, c15: 1, c16: 1, c17: 1, "
            "c18: 1, c19: 1, c2: 1, c20: 1, c21: 1, c22: 1, c23: 1, c24: 1, c3: 1, c4: 1, ... (5 more classes; "
            "--labels-per-class-report lists all)\n") in out
    pred = [r[3] for r in read_csv(out_path)[1:]]
    assert pred == [f"c{i // 4}" for i in range(100)]


def test_rows_times_classes_beyond_memory_is_refused_before_any_work(tmp_path, capsys, monkeypatch):
    import graphrkhs._core.validation as validation

    _no_fit(monkeypatch)
    # 1200 rows, 12 classes: 8 arrays of 1200 x 12 float64 = 0.9 MiB, over a machine of 1 MiB (3/4: 0.75 MiB)
    monkeypatch.setattr(validation, "_physical_memory", lambda: 2**20)
    path = tmp_path / "d.csv"
    write_csv(path, ["x", "y", "label"],
              number_rows(_blob_rows(1200), [f"c{i % 12}" if i < 24 else "" for i in range(1200)], decimals=6))
    code, out, err = run(["label", str(path), "--label-column", "label", "-q",
                          "--output", str(tmp_path / "o.csv")], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert ("labeling 1200 rows into 12 classes (8 arrays of rows x classes) would need 0.9 MiB, more than the "
            "0.8 MiB available; label fewer rows at a time, or merge classes. (--label-column 'label')") in err


# --- the command and the Python API on the same data ------------------------------------------------

def test_true_false_labels_are_the_classes_of_the_python_api(tmp_path, capsys):
    # a True / False column is a classification target on both sides (the regressors refuse booleans):
    # the command's predictions are the classifier's on the z-scored features, class for class
    from graphrkhs import PoissonRidgeEnsembleClassifier

    X, y = _two_blobs(n_per=15)
    truth = y == "b"
    labeled = np.arange(truth.size) % 5 == 0
    path = tmp_path / "d.csv"
    write_csv(path, ["x", "y", "flag"],
              number_rows(X, [str(t) if m else "" for t, m in zip(truth, labeled)], decimals=6))
    out_path = tmp_path / "o.csv"
    code, out, err = run(["label", str(path), "--label-column", "flag", "--neighbors", "5", "-q",
                          "--output", str(out_path)], capsys)
    assert code == 0, err
    assert "labeled per class: False: 3, True: 3" in out
    rows = read_csv(out_path)
    Xr = np.array([[float(v) for v in r[:2]] for r in rows[1:]])
    Z = (Xr - Xr.mean(axis=0)) / Xr.std(axis=0)
    y_api = np.array([t if m else None for t, m in zip(truth, labeled)], dtype=object)
    model = PoissonRidgeEnsembleClassifier(n_neighbors=5).fit(Z, y_api)
    assert model.classes_.tolist() == [False, True]
    assert [r[3] for r in rows[1:]] == [str(v) for v in model.transduction_.tolist()]
    np.testing.assert_allclose([float(r[4]) for r in rows[1:]], model.label_distributions_.max(axis=1), atol=5e-5)


@pytest.mark.parametrize("extra", ["predicted_label", "confidence", "confidence "])
def test_input_with_an_output_column_name_is_refused(tmp_path, capsys, monkeypatch, extra):
    # labeling a file written by graphrkhs label again wrote a header with two predicted_label / confidence
    # columns (and took the old confidence column as a feature)
    _no_fit(monkeypatch)
    X, y = _two_blobs()
    path = tmp_path / "d.csv"
    write_csv(path, ["x", "y", extra, "label"],
              number_rows(np.column_stack([X, np.full(len(y), 0.5)]), _some_labels(y), decimals=6))
    out_path = tmp_path / "o.csv"
    code, out, err = run(["label", str(path), "--label-column", "label", "--features", "x,y", "-q",
                          "--output", str(out_path)], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert f"{path} already has the column(s) {extra.strip()}, which the output adds: rename or remove it" in err
    assert not out_path.exists()


def test_demo_plot_into_a_named_pipe_is_a_usage_error_before_the_fits(tmp_path, capsys, monkeypatch):
    # --plot FIFO passed every check; matplotlib would have written the PNG into the pipe after the fits
    # (blocking for ever without a reader), as --plot /dev/stdout mixes a PNG into the table on stdout
    import os

    from graphrkhs.cli import _main

    def fits(*args, **kwargs):
        raise AssertionError("the demo ran before its arguments were checked")

    monkeypatch.setattr(_main, "demo", fits)
    fifo = tmp_path / "pipe.png"
    os.mkfifo(fifo)
    with pytest.raises(SystemExit) as exc:
        cli.main(["demo", "-q", "--plot", str(fifo)])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err == (f"usage: graphrkhs demo [options] (-h for help)\ngraphrkhs demo: error: --plot: {fifo} is not a "
                   "regular file (a named pipe); give a file name for the picture, e.g. digits.png\n")


@pytest.mark.skipif(not __import__("os").path.isdir("/proc/self/fd"), reason="needs /proc/self/fd (Linux)")
def test_demo_plot_into_an_open_file_descriptor_is_a_usage_error_before_the_fits(tmp_path, capsys, monkeypatch):
    # graphrkhs demo --plot /dev/stdout > results.txt: /dev/stdout -> /proc/self/fd/1 -> a regular file passed the
    # special-file check, and the PNG went into results.txt after the table.  The same chain in tmp_path
    from graphrkhs.cli import _main

    def fits(*args, **kwargs):
        raise AssertionError("the demo ran before its arguments were checked")

    monkeypatch.setattr(_main, "demo", fits)
    with open(tmp_path / "results.txt", "w") as held:
        alias = tmp_path / "stdout"
        alias.symlink_to(f"/proc/self/fd/{held.fileno()}")
        with pytest.raises(SystemExit) as exc:
            cli.main(["demo", "-q", "--plot", str(alias)])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert f"graphrkhs demo: error: --plot: {alias} is an open file descriptor" in err
    assert "give a file name for the picture, e.g. digits.png" in err and len(err.strip().splitlines()) == 2


def test_classes_differing_only_in_case_get_a_warning(tmp_path, capsys):
    # 'setosa' and 'Setosa' were two classes without a word (a typing slip splits one class in two)
    X, y = _two_blobs()
    labels = _some_labels(y)
    labels[4] = "A"
    path = tmp_path / "d.csv"
    write_csv(path, ["x", "y", "label"], number_rows(X, labels, decimals=6))
    out_path = tmp_path / "o.csv"
    code, out, err = run(["label", str(path), "--label-column", "label", "--method", "laplace", "-q",
                          "--output", str(out_path)], capsys)
    assert code == 0, err
    assert "3 classes" in out
    assert err == ("graphrkhs label: warning: classes of 'label' that differ only in upper/lower case ('A' and 'a') "
                   "are labeled as different classes; if they are one class, write them alike in the file.\n")


@pytest.mark.parametrize("argv, message", [
    (["--neighbors", "0"], "--neighbors must be at least 1; got 0."),
    # was clamped silently to 23 (the demo and knn_graph refuse a k without n - 1 other points)
    (["--neighbors", "24"], "--neighbors must be below 24, the number of rows (a point has at most 23 "
                            "neighbours); pass --neighbors 23 or fewer."),
    (["--neighbors", "1000"], "--neighbors must be below 24, the number of rows (a point has at most 23 "
                              "neighbours); pass --neighbors 23 or fewer."),
    (["--alpha", "0.1"], "--alpha applies to --method tikhonov only; got --method poisson-ridge."),
    (["--method", "tikhonov", "--alpha", "0"], "--alpha must be a finite number > 0; got 0.0 (0 is --method laplace)."),
    (["--output", " "], "--output is empty; give a file name (or leave --output out for INPUT.labeled.csv)."),
])
def test_label_bad_option_values_are_two_line_usage_errors(tmp_path, capsys, argv, message):
    # they were one line "graphrkhs label: error: ..." without the usage line, unlike argparse's own errors
    # (--method magic) and the demo's (--draws 0)
    X, y = _two_blobs()
    path = tmp_path / "d.csv"
    write_csv(path, ["x", "y", "label"], number_rows(X, _some_labels(y), decimals=6))
    with pytest.raises(SystemExit) as exc:
        cli.main(["label", str(path), "--label-column", "label", "-q"] + argv)
    assert exc.value.code == 2
    assert capsys.readouterr().err == ("usage: graphrkhs label INPUT --label-column COL [options] (-h for help)\n"
                                       f"graphrkhs label: error: {message}\n")


def test_label_default_neighbors_on_a_small_file_is_rows_minus_one(tmp_path, capsys):
    # the default k = 10 (not a value the user gave) is n - 1 on a file of n <= 10 rows, and says so
    X, y = _two_blobs(n_per=4)
    path = tmp_path / "d.csv"
    write_csv(path, ["x", "y", "label"], number_rows(X, _some_labels(y), decimals=6))
    code, out, err = run(["label", str(path), "--label-column", "label", "--method", "laplace", "-q",
                          "--output", str(tmp_path / "o.csv")], capsys)
    assert code == 0, err
    assert "kNN graph k = 7" in out
    code, out, err = run(["label", str(path), "--label-column", "label", "--method", "laplace", "-q",
                          "--neighbors", "7", "--output", str(tmp_path / "o2.csv"), "--force"], capsys)
    assert code == 0, err
    assert "kNN graph k = 7" in out
