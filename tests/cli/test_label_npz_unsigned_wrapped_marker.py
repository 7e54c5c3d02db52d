"""``graphrkhs label`` on an .npz whose label array is unsigned and holds -1 cast to its dtype (uint8: 255).
The Python API gives a LabelCollisionWarning for such labels; the command read the labels as text, so the
rows meant unlabeled became a class 255 with no word (exit 0, "255: 8" labeled)."""

import numpy as np
import pytest

from cli_run import run


def _npz(path, dtype):
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(6, 2)), rng.normal(size=(6, 2)) + 6])
    y = np.array([0, 0, -1, -1, -1, -1, 1, 1, -1, -1, -1, -1]).astype(dtype)
    np.savez(path, X=X, label=y)


@pytest.mark.parametrize("dtype, top", [(np.uint8, 255), (np.uint16, 65535)])
def test_wrapped_minus_one_warns_and_names_the_fix(tmp_path, capsys, dtype, top):
    src = tmp_path / "data.npz"
    _npz(src, dtype)
    code, _, err = run(["label", str(src), "--label-column", "label", "--output", str(tmp_path / "o.csv"), "-q"],
                       capsys)
    assert code == 0
    assert "LabelCollisionWarning" in err and f"holds {top} (8 rows)" in err and "-1 cast to" in err
    assert f"--unlabeled={top}" in err and str(src) in err and f"if {top} is a class" in err


def test_the_suggested_marker_labels_the_rows_and_is_silent(tmp_path, capsys):
    src = tmp_path / "data.npz"
    _npz(src, np.uint8)
    code, out, err = run(["label", str(src), "--label-column", "label", "--output", str(tmp_path / "o.csv"), "-q",
                          "--unlabeled=255"], capsys)
    assert code == 0 and "LabelCollisionWarning" not in err
    assert "4 labeled, 2 classes" in out


def test_signed_labels_and_unsigned_without_the_wrapped_value_do_not_warn(tmp_path, capsys):
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(6, 2)), rng.normal(size=(6, 2)) + 6])
    for y in (np.array([0, 0, -1, -1, -1, -1, 1, 1, -1, -1, -1, -1], dtype=np.int8),
              np.array([0, 0, 1, 1, 0, 0, 2, 2, 2, 2, 1, 1], dtype=np.uint8)):
        src = tmp_path / "d.npz"
        np.savez(src, X=X, label=y)
        code, _, err = run(["label", str(src), "--label-column", "label", "--output", str(tmp_path / "o.csv"),
                            "-q", "--force"], capsys)
        assert code == 0 and "LabelCollisionWarning" not in err
