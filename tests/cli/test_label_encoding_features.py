"""``graphrkhs label`` on files in other encodings and on column names with commas (session 16)."""

import numpy as np
import pytest

from cli_csv import number_rows, read_csv, write_csv
from cli_run import run
from graphrkhs import cli


def _rows(n_per=10, seed=0):
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(size=(n_per, 2)), rng.normal(size=(n_per, 2)) + 6])
    labels = ["café" if i < n_per else "thé" for i in range(2 * n_per)]
    labels = [lab if i % 3 == 0 else "" for i, lab in enumerate(labels)]
    return X, labels, ["café" if i < n_per else "thé" for i in range(2 * n_per)]


# --- encodings ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("encoding", ["cp1252", "latin-1"])
def test_non_utf8_csv_error_names_the_line_and_the_encoding_option(tmp_path, capsys, encoding):
    # a cp1252 / latin-1 file (Excel's "CSV" on Windows) ended in "not a UTF-8 text CSV file (invalid
    # continuation byte); graphrkhs label reads CSV/TSV text and .npz files": no line, no way to read it
    X, labels, _ = _rows()
    path = tmp_path / "d.csv"
    write_csv(path, ["x", "y", "drink"], number_rows(X, labels, decimals=6), encoding=encoding)
    code, out, err = run(["label", str(path), "--label-column", "drink", "-q",
                          "--output", str(tmp_path / "o.csv")], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert f"{path}: line 2 is not UTF-8 text (byte 0xe9)" in err
    assert "pass --encoding cp1252 (Windows, Excel) or --encoding latin-1" in err
    assert "or convert the file to UTF-8" in err


@pytest.mark.parametrize("encoding", ["cp1252", "latin-1"])
def test_encoding_option_reads_the_file_and_writes_utf8(tmp_path, capsys, encoding):
    X, labels, truth = _rows()
    path = tmp_path / "d.csv"
    write_csv(path, ["x", "y", "drink"], number_rows(X, labels, decimals=6), encoding=encoding)
    out_path = tmp_path / "o.csv"
    code, out, err = run(["label", str(path), "--label-column", "drink", "--encoding", encoding, "-q",
                          "--method", "laplace", "--output", str(out_path)], capsys)
    assert code == 0, err
    rows = read_csv(out_path)            # the output is UTF-8 text
    assert rows[0] == ["x", "y", "drink", "predicted_drink", "confidence"]
    assert [r[2] for r in rows[1:]] == labels
    assert [r[3] for r in rows[1:]] == truth


def test_utf16_file_with_byte_order_mark_is_read(tmp_path, capsys):
    # Excel's "Unicode text" export: UTF-16 with a byte order mark (it was "not a UTF-8 text CSV file")
    X, labels, truth = _rows()
    path = tmp_path / "d.csv"
    write_csv(path, ["x", "y", "drink"], number_rows(X, labels, decimals=6), encoding="utf-16")
    out_path = tmp_path / "o.csv"
    code, out, err = run(["label", str(path), "--label-column", "drink", "-q", "--method", "laplace",
                          "--output", str(out_path)], capsys)
    assert code == 0, err
    assert [r[3] for r in read_csv(out_path)[1:]] == truth


def test_unknown_encoding_is_a_usage_error(tmp_path, capsys):
    X, labels, _ = _rows()
    path = tmp_path / "d.csv"
    write_csv(path, ["x", "y", "drink"], number_rows(X, labels, decimals=6))
    with pytest.raises(SystemExit) as info:
        cli.main(["label", str(path), "--label-column", "drink", "--encoding", "klingon", "-q"])
    err = capsys.readouterr().err
    assert info.value.code == 2 and len(err.strip().splitlines()) == 2, err
    assert "graphrkhs label: error: argument --encoding: unknown encoding 'klingon'" in err


def test_wrong_explicit_encoding_names_the_option(tmp_path, capsys):
    X, labels, _ = _rows()
    path = tmp_path / "d.csv"
    write_csv(path, ["x", "y", "drink"], number_rows(X, labels, decimals=6), encoding="latin-1")
    code, out, err = run(["label", str(path), "--label-column", "drink", "--encoding", "ascii", "-q",
                          "--output", str(tmp_path / "o.csv")], capsys)
    assert code == 2, err
    assert f"{path}: line 2 is not ascii text (byte 0xe9); check --encoding" in err


def test_encoding_with_npz_input_is_a_usage_error(tmp_path, capsys):
    path = tmp_path / "d.npz"
    np.savez(path, X=np.zeros((4, 2)), y=np.array([0, 1, -1, -1]))
    with pytest.raises(SystemExit) as info:
        cli.main(["label", str(path), "--label-column", "y", "--encoding", "cp1252", "-q"])
    err = capsys.readouterr().err
    assert info.value.code == 2
    assert "--encoding applies to CSV/TSV input only (an .npz file is binary)" in err


def test_binary_file_named_csv_keeps_the_not_a_text_file_message(tmp_path, capsys):
    path = tmp_path / "d.csv"
    path.write_bytes(b"PK\x03\x04\x14\x00\x06\x00\x08\x00\x00\x00!\x00\xff\xfe" + bytes(range(256)))
    code, out, err = run(["label", str(path), "--label-column", "y", "-q", "--output", str(tmp_path / "o.csv")],
                         capsys)
    assert code == 2
    assert "not a text CSV file (binary data: a NUL byte); graphrkhs label reads CSV/TSV text and .npz" in err
    assert "save a spreadsheet as CSV first" in err


# --- column names with commas ---------------------------------------------------------------------

def test_features_names_a_column_with_a_comma_by_csv_quoting(tmp_path, capsys):
    # a header "width, cm" could not be chosen: --features "width, cm" split it into 'width' and ' cm'
    X, labels, truth = _rows()
    path = tmp_path / "d.csv"
    X3 = np.column_stack([X, np.arange(X.shape[0]) * 1000.0])     # a column that would spoil the graph
    write_csv(path, ["width, cm", "height", "row id", "drink"], number_rows(X3, labels, decimals=6))
    out_path = tmp_path / "o.csv"
    code, out, err = run(["label", str(path), "--label-column", "drink", "--features", '"width, cm",height',
                          "-q", "--method", "laplace", "--output", str(out_path)], capsys)
    assert code == 0, err
    assert "2 feature(s)" in out
    assert [r[4] for r in read_csv(out_path)[1:]] == truth


def test_unquoted_comma_column_gets_the_quoting_hint(tmp_path, capsys):
    X, labels, _ = _rows()
    path = tmp_path / "d.csv"
    write_csv(path, ["width, cm", "height", "drink"], number_rows(X, labels, decimals=6))
    code, out, err = run(["label", str(path), "--label-column", "drink", "--features", "width, cm,height",
                          "-q", "--output", str(tmp_path / "o.csv")], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "unknown feature column(s) width, cm" in err
    assert ("the column 'width, cm' has a comma in its name: quote it as in a CSV file, "
            "--features '\"width, cm\",height'") in err


def test_help_documents_the_quoting_and_the_encoding(capsys):
    with pytest.raises(SystemExit):
        cli.main(["label", "-h"])
    text = " ".join(capsys.readouterr().out.split())
    assert 'quote a name that holds a comma as in a CSV file: --features \'x,"width, cm"\'' in text
    assert "--encoding ENC" in text and "cp1252" in text


# --- a closed standard output ---------------------------------------------------------------------

class _ClosedPipe:
    """A standard output whose reader has gone (``graphrkhs label ... | head -1``)."""

    def write(self, text):
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self):
        raise BrokenPipeError(32, "Broken pipe")

    def fileno(self):
        import io
        raise io.UnsupportedOperation("fileno")


def test_closed_stdout_ends_quietly_with_the_sigpipe_status(tmp_path, capsys, monkeypatch):
    # the summary printed into a closed pipe ended in a BrokenPipeError traceback and exit status 1
    # (an "internal error"), after the output file had been written
    import sys

    X, labels, truth = _rows()
    path = tmp_path / "d.csv"
    write_csv(path, ["x", "y", "drink"], number_rows(X, labels, decimals=6))
    out_path = tmp_path / "o.csv"
    monkeypatch.setattr(sys, "stdout", _ClosedPipe())
    code = cli.main(["label", str(path), "--label-column", "drink", "-q", "--method", "laplace",
                     "--output", str(out_path)])
    err = capsys.readouterr().err
    assert code == 141 and err == ""
    assert [r[3] for r in read_csv(out_path)[1:]] == truth    # the output file is complete


def test_explicit_utf8_encoding_drops_the_byte_order_mark(tmp_path, capsys):
    # --encoding utf-8 on a file with a BOM kept it in the first column name ('\ufeffx'): --features x was unknown
    X, labels, truth = _rows()
    path = tmp_path / "d.csv"
    write_csv(path, ["x", "y", "drink"], number_rows(X, labels, decimals=6), encoding="utf-8-sig")
    out_path = tmp_path / "o.csv"
    code, out, err = run(["label", str(path), "--label-column", "drink", "--features", "x,y", "--encoding", "utf-8",
                          "-q", "--method", "laplace", "--output", str(out_path)], capsys)
    assert code == 0, err
    assert read_csv(out_path)[0][0] == "x"


def test_thousands_separator_cell_gets_a_hint_for_both_readings(tmp_path, capsys):
    # '1,000' was said to look like a decimal comma, read as '1.000' -- in English it is a thousand
    path = tmp_path / "d.csv"
    path.write_text('x,y,lab\n"1,000",2,a\n3,4,b\n5,6,\n')
    code, out, err = run(["label", str(path), "--label-column", "lab", "-q", "--output", str(tmp_path / "o.csv")],
                         capsys)
    assert code == 2
    assert ("('1,000' has a comma: numbers are read with a decimal point and without thousands separators; write "
            "1000 or 1.000, whichever is meant)") in err
    path.write_text('x,y,lab\n"2,5",2,a\n3,4,b\n5,6,\n')
    code, out, err = run(["label", str(path), "--label-column", "lab", "-q", "--output", str(tmp_path / "o.csv")],
                         capsys)
    assert "('2,5' looks like a decimal comma: numbers are read with a decimal point, '2.5')" in err


@pytest.mark.parametrize("value", ['"width, cm,height', '"width, cm"x,height'])
def test_features_with_unbalanced_quotes_is_a_usage_error(tmp_path, capsys, value):
    # '"width, cm,height' (no closing quote) was read as one name 'width, cm,height': "unknown feature column"
    X, labels, _ = _rows()
    path = tmp_path / "d.csv"
    write_csv(path, ["width, cm", "height", "drink"], number_rows(X, labels, decimals=6))
    with pytest.raises(SystemExit) as info:
        cli.main(["label", str(path), "--label-column", "drink", "--features", value, "-q",
                  "--output", str(tmp_path / "o.csv")])
    err = capsys.readouterr().err
    assert info.value.code == 2 and len(err.strip().splitlines()) == 2, err
    assert f"--features {value!r} is not a comma-separated list with balanced quotes" in err
    assert "write a name that holds a comma in double quotes, --features 'x,\"width, cm\"'" in err


# --- --unlabeled: the same CSV-record rule as --features ------------------------------------------------

def test_unlabeled_token_with_a_comma_is_written_quoted(tmp_path, capsys):
    # the tokens were split on every comma: '"n, a"' gave the tokens '"n' and 'a"', and the rows labeled
    # "n, a" became a third class
    X, labels, truth = _rows()
    labels = [lab if lab else "n, a" for lab in labels]
    path = tmp_path / "d.csv"
    write_csv(path, ["x", "y", "drink"], number_rows(X, labels, decimals=6))
    out_path = tmp_path / "o.csv"
    code, out, err = run(["label", str(path), "--label-column", "drink", "--unlabeled", '-1,"n, a"', "-q",
                          "--output", str(out_path)], capsys)
    assert code == 0, err
    rows = read_csv(out_path)
    assert [r[rows[0].index("predicted_drink")] for r in rows[1:]] == truth


def test_unlabeled_with_unbalanced_quotes_is_a_usage_error(tmp_path, capsys):
    X, labels, _ = _rows()
    path = tmp_path / "d.csv"
    write_csv(path, ["x", "y", "drink"], number_rows(X, labels, decimals=6))
    with pytest.raises(SystemExit) as info:
        cli.main(["label", str(path), "--label-column", "drink", "--unlabeled", '"n, a', "-q",
                  "--output", str(tmp_path / "o.csv")])
    err = capsys.readouterr().err
    assert info.value.code == 2
    assert "--unlabeled '\"n, a' is not a comma-separated list with balanced quotes" in err
