"""``graphrkhs label``: a NaN cell among numeric labels that --unlabeled does not list (--unlabeled '' or
--unlabeled=-1) is refused, as an infinite one is.  Before, it made every label its cell's text: "1" and "1.0"
became two classes, and "nan" and "NaN" two more (6 classes for the 3 of {1, 2, NaN}), exit status 0; the
Python API never makes NaN a class."""

import numpy as np
import pytest

from cli_csv import number_rows, write_csv
from graphrkhs import cli


def _csv(path, labels):
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal(size=(6, 2)), rng.normal(size=(6, 2)) + 4]).round(4)
    write_csv(path, ["x", "y", "label"], number_rows(X, labels), lineterminator="\n")


@pytest.mark.parametrize("tokens, fix", [("--unlabeled=", "--unlabeled=NaN"), ("--unlabeled=-1", "--unlabeled=-1,NaN")])
def test_an_unlisted_nan_among_numeric_labels_is_refused(tmp_path, capsys, tokens, fix):
    src = tmp_path / "data.csv"
    _csv(src, ["1", "1.0", "", "NaN", "", "", "2", "2.0", "", "nan", "", ""])
    out = tmp_path / "o.csv"
    code = cli.main(["label", str(src), "--label-column", "label", "--output", str(out), "-q", tokens])
    err = capsys.readouterr().err
    assert code == 2
    assert "holds NaN ('NaN', line 5 and 1 more)" in err and f"({fix})" in err
    assert not out.exists()


def test_nan_listed_or_among_text_labels_is_accepted(tmp_path, capsys):
    src = tmp_path / "data.csv"
    _csv(src, ["1", "1.0", "", "NaN", "", "", "2", "2.0", "", "nan", "", ""])
    code = cli.main(["label", str(src), "--label-column", "label", "--output", str(tmp_path / "o.csv"), "-q",
                     "--unlabeled=-1,NaN"])
    assert code == 0 and "4 labeled, 2 classes" in capsys.readouterr().out
    _csv(src, ["a", "a", "", "nan", "", "", "b", "b", "", "", "", ""])     # a word among words stays a class
    code = cli.main(["label", str(src), "--label-column", "label", "--output", str(tmp_path / "o.csv"), "-q",
                     "--force", "--unlabeled="])
    assert code == 0 and "5 labeled, 3 classes" in capsys.readouterr().out
