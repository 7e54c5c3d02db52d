"""``graphrkhs label --unlabeled``: number tokens match cells by exact value, as the classes are compared
(decimals: the class codes 12345678901234567890 and 12345678901234567891 are two classes).  Before, tokens
were compared as floats, so --unlabeled=12345678901234567890 also marked the rows of the class
12345678901234567891 unlabeled: that class vanished without a word."""

import numpy as np

from cli_csv import number_rows, write_csv
from graphrkhs import cli


def test_a_large_integer_token_marks_only_its_own_rows(tmp_path, capsys):
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal(size=(5, 2)) + c for c in ([0, 0], [4, 4], [-4, -4], [4, -4])]).round(3)
    lab = (["12345678901234567890"] * 2 + [""] * 3 + ["12345678901234567891"] * 2 + [""] * 3
           + ["7"] * 2 + [""] * 3 + ["8"] * 2 + [""] * 3)
    src = tmp_path / "data.csv"
    write_csv(src, ["x", "y", "label"], number_rows(X, lab), lineterminator="\n")
    code = cli.main(["label", str(src), "--label-column", "label", "--output", str(tmp_path / "o.csv"), "-q",
                     "--unlabeled=12345678901234567890"])
    out = capsys.readouterr().out
    assert code == 0
    # oracle: the token's 2 rows and the 12 empty cells are unlabeled; the other three classes keep 2 rows each
    assert "20 rows, 6 labeled, 3 classes" in out
    assert "12345678901234567891: 2" in out and "7: 2" in out and "8: 2" in out


def test_numbers_still_match_by_value(tmp_path, capsys):
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal(size=(5, 2)), rng.normal(size=(5, 2)) + 4]).round(3)
    lab = ["a", "a", "-1.0", "-1", "nan", "b", "b", "NaN", "-1e0", ""]
    src = tmp_path / "data.csv"
    write_csv(src, ["x", "y", "label"], number_rows(X, lab), lineterminator="\n")
    code = cli.main(["label", str(src), "--label-column", "label", "--output", str(tmp_path / "o.csv"), "-q"])
    assert code == 0 and "10 rows, 4 labeled, 2 classes" in capsys.readouterr().out
