"""``graphrkhs label``: a number cell whose exponent is beyond the decimal module's limit
("1e99999999999999999999", which a float reads as inf) is read as that float value: an infinite label is refused
with its line, and ``--unlabeled=inf`` marks it unlabeled, where both were a ``decimal.InvalidOperation``
traceback."""
import numpy as np

from cli_csv import number_rows, write_csv
from graphrkhs import cli

HUGE = "1e99999999999999999999"


def _csv(path):
    X = np.random.default_rng(0).normal(size=(12, 2))
    labels = ["1", "2", HUGE, "", "", "", "1", "2", "", "", "", ""]
    write_csv(path, ["x", "y", "label"], number_rows(X, labels), lineterminator="\n")


def test_an_infinite_label_beyond_decimal_is_refused_with_its_line(tmp_path, capsys):
    src = tmp_path / "data.csv"
    _csv(src)
    code = cli.main(["label", str(src), "--label-column", "label", "--output", str(tmp_path / "o.csv"), "-q"])
    err = capsys.readouterr().err
    assert code == 2
    assert f"holds an infinite value ('{HUGE}', line 4)" in err


def test_unlabeled_inf_matches_it(tmp_path, capsys):
    src = tmp_path / "data.csv"
    _csv(src)
    out = tmp_path / "o.csv"
    code = cli.main(["label", str(src), "--label-column", "label", "--output", str(out), "--unlabeled=inf"])
    assert code == 0
    assert "4 labeled, 2 classes" in capsys.readouterr().out
    assert out.read_text().splitlines()[3].split(",")[3] in ("1", "2")       # line 4 got a predicted class


def test_a_tiny_label_beyond_decimal_is_a_real_value_not_the_class_0(tmp_path, capsys):
    # 1e-99999999999999999999 is not 0 (a float underflows it): refused as real-valued next to whole labels, as
    # 1e-400 is, instead of joining the class 0 (and --unlabeled with it does not unlabel the 0 cells)
    X = np.random.default_rng(0).normal(size=(12, 2))
    labels = ["0", "2", "1e-99999999999999999999", "", "", "", "0", "2", "", "", "", ""]
    src = tmp_path / "data.csv"
    write_csv(src, ["x", "y", "label"], number_rows(X, labels), lineterminator="\n")
    code = cli.main(["label", str(src), "--label-column", "label", "--output", str(tmp_path / "o.csv"), "-q"])
    assert code == 2 and "real values" in capsys.readouterr().err
    code = cli.main(["label", str(src), "--label-column", "label", "--output", str(tmp_path / "p.csv"),
                     "--unlabeled=1e-99999999999999999999"])
    assert code == 0 and "4 labeled, 2 classes" in capsys.readouterr().out
