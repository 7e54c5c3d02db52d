"""``graphrkhs label --output newdir/`` (a directory name that does not exist): refused before the labeling with a
message naming the fix.  Before, the output checks passed (they probed the parent directory), the whole labeling
ran, and the write failed at the end with "cannot write newdir/: Not a directory"."""

import numpy as np

from cli_csv import number_rows, write_csv
from graphrkhs import cli
from graphrkhs.cli import _label


def test_an_output_ending_with_a_separator_is_refused_before_the_labeling(tmp_path, capsys, monkeypatch):
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(5, 2)), rng.normal(size=(5, 2)) + 4]).round(3)
    lab = ["a", "a", "", "", "", "b", "b", "", "", ""]
    src = tmp_path / "data.csv"
    write_csv(src, ["x", "y", "label"], number_rows(X, lab), lineterminator="\n")

    def no_fit(*args, **kwargs):
        raise AssertionError("the labeling ran before the output was refused")

    monkeypatch.setattr(_label, "_recommended_scores", no_fit)
    out = str(tmp_path / "newdir") + "/"
    code = cli.main(["label", str(src), "--label-column", "label", "--output", out, "-q"])
    err = capsys.readouterr().err
    assert code == 2
    assert "ends with a path separator" in err and "newdir/labeled.csv" in err
    assert not (tmp_path / "newdir").exists()
