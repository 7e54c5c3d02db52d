"""``graphrkhs label`` on an .npz of a 2-D 'X' and a label array named like one of X's columns ('x0'): refused
with the fix.  Before, the label column was found by name in the header [x0, x1, x0]: the command labeled the
file by X's first column (classes 0, 1, 2, 5, 6, 7 instead of 10 and 20), took the labels as a feature, and wrote
a header with 'x0' twice -- exit 0."""

import numpy as np
import pytest

from graphrkhs import cli


@pytest.mark.parametrize("name", ["x0", "x1"])
def test_a_label_array_named_like_a_column_of_x_is_refused(tmp_path, capsys, name):
    rng = np.random.default_rng(1)
    X = np.vstack([rng.integers(0, 3, size=(5, 2)), rng.integers(5, 8, size=(5, 2))])
    y = np.array([10, 10, -1, -1, -1, 20, 20, -1, -1, -1])
    src = tmp_path / "data.npz"
    np.savez(src, X=X, **{name: y})
    out = tmp_path / "o.csv"
    code = cli.main(["label", str(src), "--label-column", name, "--output", str(out), "-q"])
    err = capsys.readouterr().err
    assert code == 2
    assert f"the label array {name!r} has the name of a column of X" in err and "x0 ... x1" in err
    assert not out.exists()


def test_other_label_names_still_work(tmp_path, capsys):
    rng = np.random.default_rng(1)
    X = np.vstack([rng.integers(0, 3, size=(5, 2)), rng.integers(5, 8, size=(5, 2))])
    src = tmp_path / "data.npz"
    np.savez(src, X=X, x2=np.array([10, 10, -1, -1, -1, 20, 20, -1, -1, -1]))
    code = cli.main(["label", str(src), "--label-column", "x2", "--output", str(tmp_path / "o.csv"), "-q"])
    assert code == 0 and "4 labeled, 2 classes" in capsys.readouterr().out
