"""The ``graphrkhs`` command: demo and label (happy paths and every documented user error)."""

import io
import os
import subprocess
import sys

import numpy as np
import pytest

from cli_csv import number_rows, read_csv, write_csv
from cli_run import run
from graphrkhs import cli
from graphrkhs.datasets import load_digits


def _blobs(n_per=40, seed=0):
    rng = np.random.default_rng(seed)
    centers = np.array([[0, 0], [6, 0], [0, 6]])
    X = np.vstack([c + rng.normal(size=(n_per, 2)) for c in centers])
    y = np.repeat(np.array(["setosa", "versicolor", "virginica"]), n_per)
    return X, y


@pytest.fixture
def blobs_csv(tmp_path):
    X, y = _blobs()
    rng = np.random.default_rng(1)
    labeled = np.zeros(y.size, dtype=bool)
    for c in np.unique(y):
        labeled[rng.choice(np.flatnonzero(y == c), 3, replace=False)] = True
    names = ["id%d" % i for i in range(y.size)]
    species = [lab if m else ("" if i % 2 else "NaN") for i, (lab, m) in enumerate(zip(y, labeled))]
    path = tmp_path / "flowers.csv"
    write_csv(path, ["width", "height", "name", "species"], number_rows(X, names, species, decimals=6))
    return path, y


def test_label_csv_happy_path(blobs_csv, tmp_path, capsys):
    path, y = blobs_csv
    before = path.read_bytes()
    out_path = tmp_path / "out.csv"
    code, out, err = run(["label", str(path), "--label-column", "species", "--features", "width,height",
                          "--output", str(out_path), "--labels-per-class-report"], capsys)
    assert code == 0, err
    assert path.read_bytes() == before  # input untouched
    rows = read_csv(out_path)
    assert rows[0] == ["width", "height", "name", "species", "predicted_species", "confidence"]
    pred = np.array([r[4] for r in rows[1:]])
    conf = np.array([float(r[5]) for r in rows[1:]])
    assert (pred == y).mean() >= 0.95  # well-separated blobs
    assert np.all((conf >= 1 / 3 - 1e-9) & (conf <= 1))
    assert "120 rows, 9 labeled, 3 classes" in out
    assert "setosa: 3" in out and "wrote" in out
    assert "predicted" in out  # the per-class report table


def test_label_default_output_and_force(blobs_csv, capsys):
    path, _ = blobs_csv
    args = ["label", str(path), "--label-column", "species", "--features", "width,height"]
    assert run(args, capsys)[0] == 0
    default_out = str(path)[:-4] + ".labeled.csv"
    assert os.path.exists(default_out)
    code, out, err = run(args, capsys)
    assert code == 2 and "output file exists" in err and "--force" in err
    assert len(err.strip().splitlines()) == 1
    assert run(args + ["--force"], capsys)[0] == 0


def test_label_npz(tmp_path, capsys):
    X, y = _blobs()
    labels = np.full(y.size, np.nan)
    codes = np.unique(y, return_inverse=True)[1].astype(float)
    labels[::10] = codes[::10]
    path = tmp_path / "data.npz"
    np.savez(path, X=X, target=labels)
    out_path = tmp_path / "npz_out.csv"
    code, out, err = run(["label", str(path), "--label-column", "target", "--output", str(out_path)], capsys)
    assert code == 0, err
    rows = read_csv(out_path)
    assert rows[0][-2:] == ["predicted_target", "confidence"]
    pred = np.array([float(r[-2]) for r in rows[1:]])
    assert (pred == codes).mean() >= 0.95


def _error_cases(tmp_path):
    good = tmp_path / "good.csv"
    write_csv(good, ["a", "b", "label"], [["0", "0", "x"], ["1", "1", "y"], ["0.1", "0", ""], ["1", "0.9", ""]])
    one_class = tmp_path / "one.csv"
    write_csv(one_class, ["a", "label"], [["0", "x"], ["1", "x"], ["2", ""]])
    none = tmp_path / "none.csv"
    write_csv(none, ["a", "label"], [["0", ""], ["1", "NaN"]])
    text = tmp_path / "text.csv"
    write_csv(text, ["a", "label"], [["0", "x"], ["oops", "y"], ["2", ""]])
    existing = tmp_path / "exists.csv"
    existing.write_text("taken\n")
    return [
        ([str(tmp_path / "missing.csv"), "--label-column", "label"], "input file not found"),
        ([str(good), "--label-column", "klass"], "unknown column 'klass'"),
        ([str(good), "--label-column", "label", "--features", "a,zz"], "unknown feature column"),
        ([str(none), "--label-column", "label"], "no labeled rows"),
        ([str(one_class), "--label-column", "label"], "only one class"),
        ([str(text), "--label-column", "label"], "non-numeric feature cell 'oops'"),
        ([str(good), "--label-column", "label", "--output", str(existing)], "output file exists"),
        ([str(good), "--label-column", "label", "--output", str(good), "--force"], "never overwrites its input"),
    ]


def test_label_errors_are_one_line_exit_2(tmp_path, capsys):
    for argv, message in _error_cases(tmp_path):
        code, out, err = run(["label"] + argv, capsys)
        assert code == 2, (argv, err)
        assert message in err, (argv, err)
        assert len(err.strip().splitlines()) == 1, err


def test_help_texts_are_complete():
    parser = cli.build_parser()
    text = parser.format_help()
    assert "demo" in text and "label" in text
    sub = {a.dest: a for a in parser._actions}["command"].choices
    label_help = sub["label"].format_help()
    for option in ("--label-column", "--features", "--method", "--output", "--neighbors",
                   "--labels-per-class-report", "--force", "--no-standardize"):
        assert option in label_help
    assert "--plot" in sub["demo"].format_help()


def test_demo_table_reports_every_method(capsys):
    table = io.StringIO()
    rows = cli.demo(labels_per_class=10, n_draws=1, out=table)
    # one draw has no spread: the table printed "98.3% +- 0.0" for every method
    assert "+-" not in table.getvalue() and f"{100 * rows[0]['accuracy_mean']:.1f}%" in table.getvalue()
    names = [r["method"] for r in rows]
    assert "LabelSpreading(knn)" in names
    # the first row is the recommended classifier with its defaults: the same accuracy as fitting
    # PoissonRidgeEnsembleClassifier() on the demo's (only) label draw
    from graphrkhs import PoissonRidgeEnsembleClassifier
    from graphrkhs.cli._demo import RECOMMENDED_ROW
    from graphrkhs.datasets import sample_labels
    assert names[0] == RECOMMENDED_ROW and "recommended" in names[0]
    X, y = load_digits()
    y_partial, keep = sample_labels(y, 10, random_state=np.random.default_rng(0))
    pred = PoissonRidgeEnsembleClassifier().fit(X, y_partial).transduction_
    hidden = np.setdiff1d(np.arange(y.size), keep)
    assert rows[0]["accuracy_mean"] == np.mean(pred[hidden] == y[hidden])
    assert all(0.0 <= r["accuracy_mean"] <= 1.0 for r in rows)
    # Laplace learning on the digits with 10 labels per class is far above chance (and above 90%).
    harmonic = next(r for r in rows if r["method"].startswith("Laplace learning"))
    assert harmonic["accuracy_mean"] > 0.9


def test_console_entry_point_runs():
    proc = subprocess.run([sys.executable, "-m", "graphrkhs", "--help"], capture_output=True, text=True)
    assert proc.returncode == 0 and "demo" in proc.stdout and "label" in proc.stdout
    proc = subprocess.run([sys.executable, "-m", "graphrkhs"], capture_output=True, text=True)
    assert proc.returncode == 2


@pytest.mark.parametrize("method", ["poisson-ridge", "laplace", "poisson", "tikhonov", "kernel-ridge"])
def test_label_confidence_is_a_share_for_every_method(blobs_csv, tmp_path, capsys, method):
    path, y = blobs_csv
    out_path = tmp_path / f"out-{method}.csv"
    code, out, err = run(["label", str(path), "--label-column", "species", "--features", "width,height",
                          "--method", method, "--output", str(out_path)], capsys)
    assert code == 0, err
    rows = read_csv(out_path)[1:]
    conf = np.array([float(r[5]) for r in rows])
    assert np.all((conf >= 1 / 3 - 1e-9) & (conf <= 1 + 1e-9))
    pred = np.array([r[4] for r in rows])
    assert (pred == y).mean() >= 0.9


def test_scores_to_confidence_rules():
    from graphrkhs.cli._label import _scores_to_confidence

    np.testing.assert_allclose(_scores_to_confidence(np.array([[0.5, 0.3, 0.2]])), [[0.5, 0.3, 0.2]])
    np.testing.assert_allclose(_scores_to_confidence(np.array([[2.0, -1.0, 0.0]])), [[0.75, 0.0, 0.25]])
    np.testing.assert_allclose(_scores_to_confidence(np.zeros((1, 4))), [[0.25] * 4])


def test_quiet_flag_on_every_command():
    parser = cli.build_parser()
    for argv in (["demo"], ["label", "x.csv", "--label-column", "y"]):
        assert parser.parse_args(argv).quiet is False
        assert parser.parse_args(argv + ["--quiet"]).quiet is True
        assert parser.parse_args(argv + ["-q"]).quiet is True
    sub = next(a for a in parser._actions if a.dest == "command").choices
    for name in ("demo", "label"):
        assert "--quiet" in sub[name].format_help()


def test_progress_on_by_default_on_the_command_line_and_off_with_quiet(blobs_csv, tmp_path, capsys, monkeypatch):
    from graphrkhs._core import progress

    monkeypatch.setattr(progress, "BAR_DELAY", 0)   # draw bars at once: this problem is quick
    path, _ = blobs_csv
    argv = ["label", str(path), "--label-column", "species", "--features", "width,height",
            "--method", "kernel-ridge", "--force", "--output", str(tmp_path / "out.csv")]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    assert "graphrkhs: " in err          # a bar of the library on stderr
    assert "graphrkhs: " not in out      # results only on stdout
    code, out_quiet, err = run(argv + ["--quiet"], capsys)
    assert code == 0 and err == ""
    # the same report (its timing aside)
    assert out_quiet.splitlines()[1:] == out.splitlines()[1:] and out_quiet.split(";")[0] == out.split(";")[0]
    assert not progress.progress_enabled()   # the command's choice does not outlive it


def _labels_of_csv(path, column):
    rows = read_csv(path)
    i = rows[0].index(column)
    return rows[1:], i


def test_label_default_method_is_the_recommended_classifier(blobs_csv, tmp_path, capsys):
    """2-D features: z-scored, then PoissonRidgeEnsembleClassifier() (its Euclidean Gaussian graph)."""
    from graphrkhs import GraphSpec, PoissonRidgeEnsembleClassifier

    assert cli.build_parser().parse_args(["label", "x.csv", "--label-column", "y"]).method == "poisson-ridge"
    path, y = blobs_csv
    out_path = tmp_path / "out.csv"
    code, out, err = run(["label", str(path), "--label-column", "species", "--features", "width,height",
                          "--output", str(out_path)], capsys)
    assert code == 0, err
    assert "method poisson-ridge" in out and "(standardized)" in out and "euclidean gaussian kNN graph" in out
    rows, i = _labels_of_csv(out_path, "predicted_species")
    # the oracle: the estimator called directly on the z-scored features
    raw = read_csv(path)[1:]
    X = np.array([[float(r[0]), float(r[1])] for r in raw])
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    names = np.array(["setosa", "versicolor", "virginica"])
    codes = np.array([list(names).index(r[3]) if r[3] in names else -1 for r in raw])
    est = PoissonRidgeEnsembleClassifier().fit(X, codes)
    assert est.graph_spec_ == GraphSpec()
    np.testing.assert_array_equal([r[i] for r in rows], names[est.transduction_])
    np.testing.assert_allclose([float(r[i + 1]) for r in rows], est.label_distributions_.max(axis=1), atol=5e-5)


def test_label_default_method_keeps_non_negative_wide_features_raw_for_its_cosine_graph(tmp_path, capsys):
    from graphrkhs import GraphSpec, PoissonRidgeEnsembleClassifier

    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(3), 30)
    X = (rng.uniform(size=(3, 40)) ** 3)[y] * rng.uniform(0.3, 3, size=(90, 1)) + 0.05 * rng.uniform(size=(90, 40))
    codes = np.full(90, -1)
    codes[[0, 1, 30, 31, 60, 61]] = y[[0, 1, 30, 31, 60, 61]]
    path = tmp_path / "pixels.csv"
    write_csv(path, [f"p{j}" for j in range(40)] + ["digit"], number_rows(X, [str(c) if c >= 0 else "" for c in codes]))
    out_path = tmp_path / "pixels_out.csv"
    code, out, err = run(["label", str(path), "--label-column", "digit", "--output", str(out_path)], capsys)
    assert code == 0, err
    assert "(raw)" in out and "cosine self-tuning kNN graph" in out
    est = PoissonRidgeEnsembleClassifier().fit(X, codes)
    assert est.graph_spec_.metric == "cosine"
    rows, i = _labels_of_csv(out_path, "predicted_digit")
    np.testing.assert_array_equal([int(r[i]) for r in rows], est.transduction_)
    assert np.mean(est.transduction_ == y) > 0.9


def test_demo_refuses_more_neighbors_than_images(capsys):
    # used to run into knn_graph and end in a ValueError traceback (exit code 1)
    n = load_digits()[0].shape[0]
    with pytest.raises(SystemExit) as exc:
        cli.main(["demo", "-q", "--neighbors", str(n)])
    assert exc.value.code == 2
    assert f"--neighbors must be below {n}, the number of digit images" in capsys.readouterr().err


# --- review round 10: defects found by reproducers (each failed before its fix) ---------------------


def _two_blobs_rows(noisy=False):
    """40 rows of two separated 2-D blobs, every fifth row labeled 'a' / 'b' (one label flipped if noisy)."""
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(20, 2)), rng.normal(size=(20, 2)) + 6])
    labels = ["" if i % 5 else ("a" if i < 20 else "b") for i in range(40)]
    if noisy:
        labels[5] = "b"   # a labeled row deep in blob a carries b
    return X, labels


def test_label_npz_bytes_labels_are_text(tmp_path, capsys):
    # bytes labels used to be written as str(b''): the empty ones became the class "b''" (every row labeled)
    X, labels = _two_blobs_rows()
    path = tmp_path / "bytes.npz"
    np.savez(path, X=(10 * X).astype(np.int64), y=np.array(labels, dtype="S"))
    out_path = tmp_path / "out.csv"
    code, out, err = run(["label", str(path), "--label-column", "y", "--output", str(out_path), "-q"], capsys)
    assert code == 0, err
    assert "40 rows, 8 labeled, 2 classes" in out and "a: 4, b: 4" in out
    rows, i = _labels_of_csv(out_path, "y")
    assert [r[i] for r in rows] == labels
    # integer features are written as integers (they used to come out as "12.0")
    assert [r[:2] for r in rows] == [[str(v) for v in x] for x in (10 * X).astype(np.int64)]


def test_label_numeric_labels_are_compared_exactly(tmp_path, capsys):
    # two class codes that are one float64 used to be merged into one class ("only one class")
    X, labels = _two_blobs_rows()
    codes = {"a": "12345678901234567890", "b": "12345678901234567891", "": ""}
    path = tmp_path / "codes.csv"
    write_csv(path, ["x1", "x2", "code"], number_rows(X, [codes[lab] for lab in labels]))
    out_path = tmp_path / "out.csv"
    code, out, err = run(["label", str(path), "--label-column", "code", "--output", str(out_path), "-q"], capsys)
    assert code == 0, err
    assert "2 classes" in out
    rows, i = _labels_of_csv(out_path, "predicted_code")
    assert [r[i] for r in rows] == [codes["a"]] * 20 + [codes["b"]] * 20


def test_label_messages_name_the_line_of_the_file(tmp_path, capsys):
    # blank lines are skipped; messages used to count data rows ("row 4" for the bad cell on line 6)
    bad_cell = tmp_path / "cell.csv"
    bad_cell.write_text("x1,x2,cls\n\n1,2,a\n\n3,4,b\n5,oops,\n6,7,\n")
    ragged = tmp_path / "ragged.csv"
    ragged.write_text("x1,x2,cls\n\n1,2,a\n\n3,4,b\n5,6\n6,7,\n")
    blank_header = tmp_path / "blank.csv"
    blank_header.write_text("\nx1,cls\n1,a\n")
    # a line of delimiters is a row of empty cells, not a blank line: it was skipped (the output one row short)
    empty_cells = tmp_path / "empty_cells.csv"
    empty_cells.write_text("x1,x2,cls\n1,2,a\n,,\n3,4,b\n")
    nan_npz = tmp_path / "nan.npz"
    np.savez(nan_npz, X=np.array([[0.0], [1.0], [2.0], [np.nan]]), y=np.array([0, 1, -1, -1]))
    for path, column, message in [
        (bad_cell, "cls", "non-numeric feature cell 'oops' in column 'x2', line 6;"),
        (ragged, "cls", "line 6 has 2 cells but the header has 3 columns"),
        (blank_header, "cls", "the first line, the header row of column names, is empty"),
        (empty_cells, "cls", "missing feature value (empty cell) in column 'x1', line 3;"),
        (nan_npz, "y", "infinite feature value in column 'x0', row index 3;"),
    ]:
        code, out, err = run(["label", str(path), "--label-column", column, "-q",
                              "--output", str(tmp_path / "out.csv")], capsys)
        assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err


def test_label_unwritable_output_directory_is_reported_before_the_labeling(blobs_csv, tmp_path, capsys,
                                                                           monkeypatch):
    from graphrkhs.cli import _label

    def no_temporary_file(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    def labeling(*args, **kwargs):  # used to run (minutes on big data) before the write failed
        raise AssertionError("the labeling ran before the output directory was checked")

    monkeypatch.setattr(_label.tempfile, "mkstemp", no_temporary_file)
    monkeypatch.setattr(_label, "_recommended_scores", labeling)
    path, _ = blobs_csv
    code, out, err = run(["label", str(path), "--label-column", "species", "--features", "width,height",
                          "--output", str(tmp_path / "out.csv")], capsys)
    assert code == 2 and f"cannot write to {tmp_path}: Permission denied" in err, err


def test_label_empty_output_is_an_error(blobs_csv, capsys):
    # --output "" used to be read as "not given" and write INPUT.labeled.csv
    path, _ = blobs_csv
    with pytest.raises(SystemExit) as exc:   # a usage error (session 15): usage line + error, exit 2
        cli.main(["label", str(path), "--label-column", "species", "--output", ""])
    assert exc.value.code == 2 and "--output is empty" in capsys.readouterr().err
    assert not os.path.exists(str(path)[:-4] + ".labeled.csv")


def test_label_says_when_a_prediction_differs_from_a_given_label(tmp_path, capsys):
    X, labels = _two_blobs_rows(noisy=True)
    path = tmp_path / "noisy.csv"
    write_csv(path, ["x1", "x2", "cls"], number_rows(X, labels))
    out_path = tmp_path / "out.csv"
    # (the blobs are two components; kernel ridge's own scores put the flipped row in its blob's class, while
    # Poisson learning on blob a alone -- labels a, b, a, a -- keeps it: its source dominates there)
    code, out, err = run(["label", str(path), "--label-column", "cls", "--output", str(out_path), "-q",
                          "--method", "kernel-ridge"], capsys)
    assert code == 0, err
    rows, i = _labels_of_csv(out_path, "cls")
    changed = [k for k, r in enumerate(rows) if r[i] and r[i] != r[i + 1]]
    assert changed == [5]            # the flipped label, predicted 'a' (its blob)
    assert "note: at 1 of the 8 labeled rows the prediction differs from the given label (line 7)" in err
    # laplace keeps every given label: no note
    code, out, err = run(["label", str(path), "--label-column", "cls", "--output", str(out_path), "-q",
                          "--method", "laplace", "--force"], capsys)
    assert code == 0 and "differs" not in err


def test_label_library_warnings_are_one_line_each(tmp_path, capsys):
    # a blob without labels: the library's GraphWarning used to appear as Python's "file.py:986: GraphWarning"
    # plus a line of library source, twice (once per solve of the ensemble)
    X, labels = _two_blobs_rows()
    X = np.vstack([X, np.random.default_rng(1).normal(size=(20, 2)) + [100, -100]])
    path = tmp_path / "island.csv"
    write_csv(path, ["x1", "x2", "cls"], number_rows(X, labels + [""] * 20))
    code, out, err = run(["label", str(path), "--label-column", "cls", "--neighbors", "5", "-q",
                          "--output", str(tmp_path / "out.csv")], capsys)
    assert code == 0, err
    assert err.count("graphrkhs label: warning (GraphWarning): 20 node(s) lie in connected components") == 1, err
    assert ".py:" not in err and len(err.strip().splitlines()) == 1


def test_demo_bad_seed_and_plot_format_are_usage_errors(tmp_path, capsys, monkeypatch):
    # --seed -1 used to end in numpy's ValueError traceback; --plot x.xyz in matplotlib's, after every fit
    from graphrkhs.cli import _main

    def fits(*args, **kwargs):
        raise AssertionError("the demo ran before its arguments were checked")

    monkeypatch.setattr(_main, "demo", fits)
    for argv, message in [(["--seed", "-1"], "--seed must be a non-negative integer; got -1"),
                          (["--plot", str(tmp_path / "x.xyz")], "--plot: matplotlib cannot save .xyz files"),
                          # an empty name (an unset shell variable, --plot "$OUT") ran every fit and saved nothing
                          (["--plot", ""], "--plot is empty; give a file name for the picture, e.g. digits.png"),
                          (["--plot", "  "], "--plot is empty; give a file name for the picture, e.g. digits.png")]:
        with pytest.raises(SystemExit) as exc:
            cli.main(["demo", "-q"] + argv)
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert message in err
        # the demo's own usage line and prefix (they were the top level's "graphrkhs [-h] COMMAND ...")
        assert err.startswith("usage: graphrkhs demo [options] (-h for help)\n") and "graphrkhs demo: error: " in err


def test_label_trailing_delimiters_missing_cells_constant_features_and_npy(tmp_path, capsys):
    # "x1,x2,cls," (a trailing delimiter on every line) used to make an unnamed empty column a feature and fail
    # with "non-numeric feature cell '' in column ''"; it is no feature, and is written back as it was
    trailing = tmp_path / "trailing.csv"
    trailing.write_text("x1,x2,cls,\n0,0,a,\n0.1,0,,\n5,5,b,\n5.1,5,,\n")
    out_path = tmp_path / "out.csv"
    code, out, err = run(["label", str(trailing), "--label-column", "cls", "-q", "--output", str(out_path)], capsys)
    assert code == 0, err
    assert "2 feature(s)" in out
    lines = out_path.read_text().splitlines()
    assert lines[0] == "x1,x2,cls,,predicted_cls,confidence" and lines[1].startswith("0,0,a,,a,")
    empty_cell = tmp_path / "empty_cell.csv"
    empty_cell.write_text("x1,x2,cls\n0,0,a\n0.1,,\n5,5,b\n5.1,5,\n")
    constant = tmp_path / "constant.csv"
    constant.write_text("x1,x2,cls\n1,2,a\n1,2,\n1,2,b\n1,2,\n")
    npy = tmp_path / "features.npy"
    np.save(npy, np.zeros((4, 2)))
    for path, message in [
        (empty_cell, "missing feature value (empty cell) in column 'x2', line 3"),   # was "non-numeric ... ''"
        (constant, "every feature column (x1, x2) is constant"),                     # was labeled at random
        (npy, "graphrkhs label reads CSV/TSV text and .npz files"),
    ]:
        code, out, err = run(["label", str(path), "--label-column", "cls", "-q", "--output", str(out_path),
                              "--force"], capsys)
        assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err


def test_label_features_option_names_columns_once(blobs_csv, capsys):
    # --features "" used to mean every column, "," to say "the file has only the label column", and
    # "width,width" to count width twice in every distance
    path, _ = blobs_csv
    for value, message in [("", "--features '' names no column"), (",", "--features ',' names no column"),
                           ("width,height,width", "--features names width more than once")]:
        code, out, err = run(["label", str(path), "--label-column", "species", "--features", value, "-q"], capsys)
        assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize("kwargs, exc, match", [
    ({"n_draws": 0}, ValueError, "n_draws must be >= 1"),             # used to print a table of NaN
    ({"seed": -1}, ValueError, "seed must be >= 0"),                  # used: numpy's "expected non-negative integer"
    ({"labels_per_class": 0}, ValueError, "labels_per_class must be >= 1"),   # used to name n_per_class
    ({"n_neighbors": 2.5}, TypeError, "n_neighbors must be an int"),
])
def test_demo_function_checks_its_arguments_first(kwargs, exc, match, monkeypatch):
    from graphrkhs import datasets

    monkeypatch.setattr(datasets, "load_digits", lambda: pytest.fail("loaded the data before the checks"))
    with pytest.raises(exc, match=match):
        cli.demo(out=io.StringIO(), **kwargs)


def test_demo_plot_names_the_file_it_writes(tmp_path, capsys, monkeypatch):
    # matplotlib adds ".png" to a name without extension; the demo used to report the name without it
    # (and an existing directory as --plot passed the checks)
    import sklearn.manifold

    from graphrkhs.cli._demo import _demo_plot

    class FirstTwoColumns:            # t-SNE stand-in: the test is about the file, not the picture
        def __init__(self, **kwargs):
            pass

        def fit_transform(self, X):
            return X[:, :2]

    monkeypatch.setattr(sklearn.manifold, "TSNE", FirstTwoColumns)
    rows = [{"method": "Laplace learning (harmonic, AMG-CG)", "source": "graphrkhs", "accuracy_mean": 1.0}]
    _demo_plot(str(tmp_path / "digits"), rows, 10, 10, 0)
    assert (tmp_path / "digits.png").is_file()
    assert capsys.readouterr().out == f"saved {tmp_path / 'digits.png'}\n"
    with pytest.raises(SystemExit) as exc:
        cli.main(["demo", "-q", "--plot", str(tmp_path)])
    assert exc.value.code == 2 and f"--plot: {tmp_path} is a directory" in capsys.readouterr().err


def test_demo_plot_counts_mistakes_on_the_unlabeled_points_only(tmp_path, monkeypatch):
    # the circled "mistakes" and their count took in the labeled points too, which the title's accuracy
    # (unlabeled points) leaves out: a method that misfits only its given labels showed as many mistakes
    import matplotlib.axes
    import sklearn.manifold

    from graphrkhs.cli import _demo
    from graphrkhs.datasets import load_digits

    class FirstTwoColumns:
        def __init__(self, **kwargs):
            pass

        def fit_transform(self, X):
            return X[:, :2]

    _, y = load_digits()

    def misfits_its_labels(X, y_partial, W):
        given = y_partial != -1
        return np.where(given, (y_partial + 1) % 10, y)      # right on every unlabeled point

    labels = []
    scatter = matplotlib.axes.Axes.scatter

    def recording_scatter(self, *args, **kwargs):
        labels.append(kwargs.get("label"))
        return scatter(self, *args, **kwargs)

    monkeypatch.setattr(sklearn.manifold, "TSNE", FirstTwoColumns)
    monkeypatch.setattr(_demo, "_demo_methods", lambda k: [("fake", misfits_its_labels, None)])
    monkeypatch.setattr(matplotlib.axes.Axes, "scatter", recording_scatter)
    rows = [{"method": "fake", "source": "graphrkhs", "accuracy_mean": 1.0}]
    _demo._demo_plot(str(tmp_path / "digits.png"), rows, 10, 10, 0)
    assert "mistakes (0)" in labels


def test_label_npz_object_array_names_what_to_save(tmp_path, capsys):
    # an object array used to get numpy's "cannot be loaded when allow_pickle=False", a flag this command lacks
    path = tmp_path / "objects.npz"
    np.savez(path, X=np.zeros((6, 2)), cls=np.array(["a", "", None, "b", "", ""], dtype=object))
    code, out, err = run(["label", str(path), "--label-column", "cls", "-q", "--output", str(tmp_path / "o.csv")],
                         capsys)
    assert code == 2
    assert "an array of Python objects (dtype=object)" in err and "y.astype(str)" in err
    assert "allow_pickle" not in err and not (tmp_path / "o.csv").exists()


def test_label_decimal_comma_gets_a_hint(tmp_path, capsys):
    # "1,5" (a decimal comma, common in European spreadsheets' semicolon CSV) got only "non-numeric"
    path = tmp_path / "semicolons.csv"
    path.write_text("x1;x2;cls\n1,5;2;a\n1;2;\n3;4;b\n3;5;\n")
    code, out, err = run(["label", str(path), "--label-column", "cls", "-q", "--output", str(tmp_path / "o.csv")],
                         capsys)
    assert code == 2
    assert "non-numeric feature cell '1,5' in column 'x1', line 2" in err
    assert "looks like a decimal comma" in err and "'1.5'" in err
    plain = tmp_path / "words.csv"
    plain.write_text("x1,x2,cls\nred,2,a\n1,2,\n3,4,b\n3,5,\n")
    code, out, err = run(["label", str(plain), "--label-column", "cls", "-q", "--output", str(tmp_path / "p.csv")],
                         capsys)
    assert code == 2 and "non-numeric feature cell 'red'" in err and "decimal comma" not in err


# ---------------------------------------------------------------------------
# one number grammar: option values and file cells (ASCII decimal notation)
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("argv", [
    ["demo", "--labels-per-class", "1_0"],
    ["demo", "--draws", "1_0"],
    ["demo", "--neighbors", "1_0"],
    ["demo", "--seed", "1_000"],
    ["demo", "--draws", "\u0663"],                       # ARABIC-INDIC DIGIT THREE: int() reads 3
    ["label", "IN", "--label-column", "label", "--neighbors", "1_0"],
    ["label", "IN", "--label-column", "label", "--neighbors", "\u0663"],
    ["label", "IN", "--label-column", "label", "--method", "tikhonov", "--alpha", "1_0"],
    ["label", "IN", "--label-column", "label", "--method", "tikhonov", "--alpha", "\u0661"],
])
def test_numeric_options_take_plain_decimal_digits_only(argv, tmp_path, capsys, monkeypatch):
    # int("1_000") == 1000 and float("\u0661") == 1.0 in Python; no other tool reads them as numbers
    from graphrkhs.cli import _label, _main

    def no_work(*a, **k):
        raise AssertionError("the command ran with an option value it should have refused")

    monkeypatch.setattr(_main, "demo", no_work)
    monkeypatch.setattr(_label, "run_label", no_work)
    argv = [str(tmp_path / "in.csv") if a == "IN" else a for a in argv]
    with pytest.raises(SystemExit) as exc:
        cli.main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {argv[-2]}: invalid" in err and "digits 0-9" in err, err


def test_numeric_options_still_take_signs_exponents_and_spaces():
    parser = cli.build_parser()
    args = parser.parse_args(["label", "in.csv", "--label-column", "y", "--neighbors", "+7",
                              "--alpha", "2.5E-3"])
    assert (args.neighbors, args.alpha) == (7, 0.0025)
    assert parser.parse_args(["demo", "--seed", " 12 "]).seed == 12


def test_label_cells_with_underscores_are_text_not_numbers(tmp_path, capsys):
    # "1_000" and "1000" are two labels (as pandas, R and spreadsheets read them), not one class 1000
    X, _ = _blobs(n_per=10)
    labels = [""] * 30
    labels[0], labels[1], labels[10], labels[11] = "1_000", "1_000", "1000", "1000"
    path = tmp_path / "codes.csv"
    write_csv(path, ["a", "b", "label"], number_rows(X, labels, decimals=6))
    out_path = tmp_path / "out.csv"
    code, out, err = run(["label", str(path), "--label-column", "label", "--method", "laplace",
                          "--output", str(out_path), "-q"], capsys)
    assert code == 0, err
    assert "4 labeled, 2 classes" in out
    pred = [r[3] for r in read_csv(out_path)[1:]]
    assert pred[:10] == ["1_000"] * 10 and pred[10:20] == ["1000"] * 10


@pytest.mark.parametrize("cell", ["1_000", "\u0661\u0662"])
def test_label_feature_cells_take_plain_decimal_digits_only(cell, tmp_path, capsys):
    path = tmp_path / "f.csv"
    write_csv(path, ["a", "label"], [["0", "x"], ["1", "y"], [cell, ""], ["2", ""]])
    code, out, err = run(["label", str(path), "--label-column", "label"], capsys)
    assert code == 2, err
    assert f"non-numeric feature cell {cell!r} in column 'a', line 4" in err, err
    assert len(err.strip().splitlines()) == 1


# ---------------------------------------------------------------------------
# session 13: files without a header row or with another delimiter, usage errors
# ---------------------------------------------------------------------------

def test_label_file_without_header_row_says_so(tmp_path, capsys):
    # the first data row taken as the header: "duplicate column name(s) 1 in the header" named no cause
    dup = tmp_path / "nohead.csv"
    dup.write_text("1,2,1\n1,3,2\n2,2,\n5,5,1\n")
    code, out, err = run(["label", str(dup), "--label-column", "y", "-q"], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert f"{dup}: the first line (1,2,1) looks like data, not a header row" in err
    assert "add a header row of column names" in err
    # no repeated value in the first row: the unknown-column message names the same cause
    distinct = tmp_path / "distinct.csv"
    distinct.write_text("0.5,2,a\n1,3,b\n2,2,\n")
    code, out, err = run(["label", str(distinct), "--label-column", "y", "-q"], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "unknown column 'y'" in err and "looks like data, not a header row" in err
    # a real header with a duplicate name keeps the plain message
    named = tmp_path / "named.csv"
    named.write_text("a,a,y\n1,3,b\n2,2,\n")
    code, out, err = run(["label", str(named), "--label-column", "y", "-q"], capsys)
    assert code == 2 and "duplicate column name(s) a in the header" in err and "header row" not in err


def test_label_space_or_wrong_delimiter_gets_a_hint(tmp_path, capsys):
    # "unknown column 'y'; the columns are: a b y." gave no hint that the file is space-separated
    spaces = tmp_path / "spaces.csv"
    spaces.write_text("a b y\n1 2 1\n1 3 2\n2 2 x\n")
    code, out, err = run(["label", str(spaces), "--label-column", "y", "-q"], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "unknown column 'y'" in err
    assert "separated by spaces" in err and "commas, tabs or semicolons" in err
    commas = tmp_path / "commas.tsv"
    commas.write_text("a,b,y\n1,2,1\n1,3,2\n")
    code, out, err = run(["label", str(commas), "--label-column", "y", "-q"], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "read as tab-separated (.tsv)" in err and "separated by commas" in err and "rename it" in err
    # a one-column file whose header has no other separator gets no hint
    single = tmp_path / "single.csv"
    single.write_text("a\n1\n2\n")
    code, out, err = run(["label", str(single), "--label-column", "y", "-q"], capsys)
    assert code == 2 and "unknown column 'y'" in err and "separated by" not in err


def test_missing_command_is_a_one_line_usage_error(capsys):
    # `graphrkhs` alone printed the 12-line help to stdout and exited 2
    with pytest.raises(SystemExit) as exc:
        cli.main([])
    assert exc.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.strip().splitlines()
    assert lines[0].startswith("usage: graphrkhs")
    assert lines[-1] == ("graphrkhs: error: give a command: demo or label "
                         "(graphrkhs COMMAND -h for its options)")
    assert [line for line in lines if "error" in line] == [lines[-1]]


# session 14: the --unlabeled option in the one-class message, short usage errors


def test_label_one_class_names_the_unlabeled_option_that_hid_a_class(tmp_path, capsys):
    # classes {a, b} with --unlabeled a: "only one class ('b') among the labeled rows; labeling needs at
    # least two classes." -- no word of --unlabeled, which had made the 4 rows of 'a' unlabeled
    X, labels = _two_blobs_rows()
    path = tmp_path / "ab.csv"
    write_csv(path, ["x1", "x2", "y"], number_rows(X, labels, decimals=6))
    code, out, err = run(["label", str(path), "--label-column", "y", "--unlabeled", "a",
                          "--output", str(tmp_path / "out.csv"), "-q"], capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1, err
    assert err.startswith("graphrkhs label: error: only one class ('b') among the labeled rows"), err
    assert "the 4 row(s) with 'a' were read as unlabeled by --unlabeled 'a'" in err, err
    assert "if 'a' is a class, leave it out of --unlabeled" in err, err
    # a class that is one of the default tokens ("NA", North America) is named the same way
    labels = ["NA" if lab == "a" else lab for lab in labels]
    write_csv(path, ["x1", "x2", "y"], number_rows(X, labels, decimals=6))
    code, out, err = run(["label", str(path), "--label-column", "y", "--output", str(tmp_path / "out.csv"), "-q"],
                         capsys)
    assert code == 2 and "the 4 row(s) with 'NA' were read as unlabeled by the default --unlabeled tokens: if 'NA' is a class" in err, err
    assert err.count("\n") == 1, err


def test_label_real_valued_labels_are_refused_as_by_the_api(tmp_path, capsys):
    # a label column of real values (a regression target) was labeled with every distinct value a class of
    # its own, while the Python API refuses such labels ("use a regressor"); whole numbers written 1.0 stay
    # classes ("1" and "1.0" are one class)
    X, labels = _two_blobs_rows()
    values = {"a": "1.5", "b": "2.5", "": ""}
    path = tmp_path / "real.csv"
    write_csv(path, ["x1", "x2", "y"], number_rows(X, [values[lab] for lab in labels], decimals=6))
    code, out, err = run(["label", str(path), "--label-column", "y", "--output", str(tmp_path / "out.csv"), "-q"],
                         capsys)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith("graphrkhs label: error: the label column 'y' holds real values ('1.5', '2.5'), not "
                          "class labels"), err
    assert "write them as text (e.g. c1.5)" in err, err
    from graphrkhs import PoissonRidgeEnsembleClassifier
    with pytest.raises(ValueError, match="use a regressor"):
        PoissonRidgeEnsembleClassifier().fit(np.asarray(X, dtype=float),
                                             np.array([float(values[lab]) if lab else -1 for lab in labels]))
    whole = {"a": "1.0", "b": "2", "": ""}
    write_csv(path, ["x1", "x2", "y"], number_rows(X, [whole[lab] for lab in labels], decimals=6))
    code, out, err = run(["label", str(path), "--label-column", "y", "--output", str(tmp_path / "out.csv"), "-q",
                          "--force"], capsys)
    assert code == 0, err


@pytest.mark.parametrize("argv, message", [
    (["label"], "graphrkhs label: error: the following arguments are required: INPUT, --label-column"),
    (["label", "x.csv", "--label-column", "y", "--method", "magic"],
     "graphrkhs label: error: argument --method: invalid choice: 'magic'"),
    (["label", "x.csv", "--label-column", "y", "--neighbors", "1e3"],
     "graphrkhs label: error: argument --neighbors: invalid integer '1e3'"),
    (["demo", "--draws", "x"], "graphrkhs demo: error: argument --draws: invalid integer 'x'"),
    (["frobnicate"], "graphrkhs: error: argument COMMAND: invalid choice: 'frobnicate'"),
])
def test_usage_errors_are_two_short_lines(argv, message, capsys, monkeypatch):
    # `graphrkhs label` with a bad option printed argparse's usage block wrapped over 6 lines (every option
    # of the command) above its one error line; now one short usage line naming -h, then the error line
    monkeypatch.setenv("COLUMNS", "80")
    with pytest.raises(SystemExit) as exc:
        cli.main(argv)
    assert exc.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 2, err
    assert lines[0].startswith("usage: graphrkhs") and "-h" in lines[0] and len(lines[0]) <= 80, lines[0]
    assert lines[1].startswith(message), lines[1]
    if argv[0] == "label":
        assert lines[0] == "usage: graphrkhs label INPUT --label-column COL [options] (-h for help)"


def test_help_keeps_the_full_usage_and_every_option(capsys):
    with pytest.raises(SystemExit) as exc:
        cli.main(["label", "-h"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: graphrkhs label [-h] [-q] --label-column COL")
    for option in ("--features", "--method", "--output", "--neighbors", "--no-standardize",
                   "--labels-per-class-report", "--force", "--unlabeled", "--alpha", "INPUT"):
        assert option in out


def test_label_standardizes_features_near_the_float_limit(tmp_path, capsys):
    # a column of values near 1e308: its mean and variance overflowed (numpy RuntimeWarnings printed with
    # their source lines), the z-scores became NaN and the run ended in "cannot label this data: Input X
    # contains NaN ..." (scikit-learn's advice about HistGradientBoosting) for a file without any NaN.
    # z-scores do not depend on a column's scale: the file times 1e300 must give the same output.
    X, labels = _two_blobs_rows()
    outputs = []
    for scale in (1.0, 1e300):
        path = tmp_path / f"scaled{scale:g}.csv"
        write_csv(path, ["x1", "x2", "y"], number_rows(X * [scale, 1.0], labels))
        out_path = tmp_path / f"out{scale:g}.csv"
        code, out, err = run(["label", str(path), "--label-column", "y", "--output", str(out_path), "-q"], capsys)
        assert code == 0 and err == "", err
        rows, i = _labels_of_csv(out_path, "predicted_y")
        outputs.append([r[i:] for r in rows])
    assert outputs[0] == outputs[1]


def test_label_npz_bytes_that_are_not_utf8_and_empty_arrays(tmp_path, capsys):
    # bytes labels that are not UTF-8 ended in "unreadable .npz content ('utf-8' codec can't decode byte 0xff
    # in position 0: invalid start byte)": no array, row or fix named; empty arrays were "a header but no data
    # rows" (an .npz has no header)
    X, labels = _two_blobs_rows()
    path = tmp_path / "latin1.npz"
    np.savez(path, X=X, y=np.array([lab.replace("a", "\xe9").encode("latin-1") for lab in labels]))
    code, out, err = run(["label", str(path), "--label-column", "y", "--output", str(tmp_path / "o.csv")], capsys)
    assert code == 2 and err.count("\n") == 1, err
    assert ("'y' holds bytes that are not UTF-8 text (row index 0: b'\\xe9')" in err
            and "np.char.decode(y, 'latin-1')" in err), err
    path = tmp_path / "empty.npz"
    np.savez(path, X=np.zeros((0, 2)), y=np.array([], dtype=str))
    code, out, err = run(["label", str(path), "--label-column", "y", "--output", str(tmp_path / "o.csv")], capsys)
    assert code == 2 and err == f"graphrkhs label: error: {path} holds no rows (its arrays are empty).\n", err


def test_label_sparse_npz_names_the_python_api(tmp_path, capsys):
    # a scipy.sparse.save_npz file got "unknown column 'y': ... holds arrays data, indices, indptr, format, shape"
    import scipy.sparse as sp

    path = tmp_path / "tfidf.npz"
    sp.save_npz(path, sp.random(10, 30, density=0.2, format="csr", random_state=0))
    code, out, err = run(["label", str(path), "--label-column", "y", "-q", "--output", str(tmp_path / "o.csv")],
                         capsys)
    assert code == 2
    assert "is a scipy.sparse matrix (scipy.sparse.save_npz), which holds no label column" in err
    assert "PoissonRidgeEnsembleClassifier().fit(scipy.sparse.load_npz(path), y)" in err
    assert not (tmp_path / "o.csv").exists()


def test_label_one_class_names_the_spellings_merged_by_value(tmp_path, capsys):
    # class codes "007" and "7" are one number, so one class: the error said "only one class ('007')",
    # with no word of the rows written "7" that it had merged into it
    X, labels = _two_blobs_rows()
    labels = ["007" if lab == "a" else "7" if lab == "b" else lab for lab in labels]
    path = tmp_path / "codes.csv"
    write_csv(path, ["x1", "x2", "y"], number_rows(X, labels, decimals=6))
    code, out, err = run(["label", str(path), "--label-column", "y", "--output", str(tmp_path / "out.csv"), "-q"],
                         capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1, err
    assert err.startswith("graphrkhs label: error: only one class ('007', also written '7') among the labeled rows"), err
    assert "numeric labels are compared by value" in err and "write the codes as text" in err, err


def _approximate_search_csv(tmp_path, monkeypatch):
    """400 rows of two shifted Gaussian clouds in 20 columns, 5 labels a class, with ``algorithm="auto"``'s
    approximate threshold lowered to 200 rows (tests/graphs/test_knn_auto.py): the graph's kNN search is
    pynndescent's, whose lists depend on the seed."""
    from graphrkhs.graphs import _search

    monkeypatch.setattr(_search, "ANN_MIN_SAMPLES", 200)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 20))
    X[200:, 0] += 3.0
    keep = np.r_[rng.choice(200, 5, replace=False), 200 + rng.choice(200, 5, replace=False)]
    labels = np.full(400, "", dtype=object)
    labels[keep] = np.where(keep < 200, "a", "b")
    path = tmp_path / "clouds.csv"
    write_csv(path, [f"x{j}" for j in range(20)] + ["cls"], number_rows(X, labels))
    codes = np.full(400, -1)
    codes[keep] = (keep >= 200).astype(int)
    return path, X, codes


def _predicted(path):
    rows = read_csv(path)
    return [r[-2] for r in rows[1:]], [r[-1] for r in rows[1:]]


@pytest.mark.xdist_group("pynndescent")
@pytest.mark.parametrize("method", ["poisson-ridge", "poisson"])
def test_label_seed_is_the_random_state_of_the_graphs_search(method, tmp_path, capsys, monkeypatch):
    from graphrkhs import PoissonLearningClassifier, PoissonRidgeEnsembleClassifier, knn_graph

    path, X, codes = _approximate_search_csv(tmp_path, monkeypatch)

    def labeled(*extra):
        out = tmp_path / f"out{len(os.listdir(tmp_path))}.csv"
        code, _, err = run(["label", str(path), "--label-column", "cls", "--method", method, "-q",
                            "--no-standardize", "--output", str(out), *extra], capsys)
        assert code == 0, err
        return _predicted(out)

    first, again, other = labeled("--seed", "0"), labeled("--seed", "0"), labeled("--seed", "1")
    assert first == again
    assert first[1] != other[1]          # another seed, another graph: other confidences
    # the seed reaches the graph: the labels of the method fitted on the graph of knn_graph(..., random_state=0)
    if method == "poisson-ridge":        # signed columns: its graph="auto" is knn_graph(X, k)
        oracle = PoissonRidgeEnsembleClassifier(graph="precomputed").fit(knn_graph(X, 10, random_state=0), codes)
    else:
        oracle = PoissonLearningClassifier(graph="precomputed").fit(
            knn_graph(X, 10, weight="self-tuning", random_state=0), codes)
    assert first[0] == list(np.array(["a", "b"])[oracle.transduction_])


def test_label_seed_defaults_to_unseeded_and_refuses_a_negative_value(blobs_csv, capsys):
    parser = cli.build_parser()
    assert parser.parse_args(["label", "in.csv", "--label-column", "y"]).seed is None
    assert parser.parse_args(["label", "in.csv", "--label-column", "y", "--seed", "7"]).seed == 7
    path, _ = blobs_csv
    with pytest.raises(SystemExit) as exc:
        cli.main(["label", str(path), "--label-column", "species", "--seed", "-1"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "--seed must be a non-negative integer; got -1." in err, err
