"""``graphrkhs label``: label the unlabeled rows of a user's CSV or .npz file.

Reading and writing use the standard library's :mod:`csv` (no pandas
dependency).  Every user error (bad input file, unknown column, an output
that is one of the inputs) is a :class:`LabelCommandError` whose message is
printed as one line with exit code 2; a bad option value, whatever the data,
is a :class:`LabelUsageError`, printed as a usage error (the usage line and
the error, exit code 2); any other exception is an internal error (exit code 1).

Data safety: the output is compared with the input as *files*
(:func:`os.path.samefile`: symlinks, hard links and relative paths are seen
through) and never written over it, even with ``--force``; the output is
written to a temporary file in its own directory and moved into place with
:func:`os.replace`, so an interrupted run leaves either the old file or the
complete new one.
"""

import collections
import csv
import decimal
import io
import itertools
import math
import os
import re
import sys
import tempfile
import time
import warnings

import numpy as np

from .._core.labels import CONFLICTING_COPIES

__all__ = []

# Missing-label tokens of --unlabeled by default.  Consistent with the Python API
# (graphrkhs._core.labels: -1, NaN, None and "" mark unlabeled samples), plus the
# usual spreadsheet spellings of a missing value.  An empty cell is always unlabeled.
DEFAULT_UNLABELED = ("", "NaN", "-1", "NA", "N/A", "null", "None")

DEFAULT_TIKHONOV_ALPHA = 1e-2

CONFIDENCE_DOC = (
    "confidence = the share of the predicted class in the row's class scores, p_c = (s_c - m) / sum_c' (s_c' - m) "
    "with m = min(0, min_c s_c) (1/C when all C scores are equal); the scores s are the class probabilities of "
    "the chosen method: the harmonic solution for laplace (one-vs-all), the estimator's label_distributions_ "
    "for the others (for poisson-ridge, poisson and kernel-ridge the softmax of its class scores -- combined "
    "standardized scores, Poisson potentials, ridge scores --, for tikhonov the Tikhonov label distribution), "
    "so p is the predicted class's probability; labeled rows get the same formula from their own scores (1 for "
    "laplace, whose labeled rows are fixed)"
)

#: The default --method: the library's recommended classifier for transductive labeling,
#: PoissonRidgeEnsembleClassifier with its defaults (its own graph="auto").
DEFAULT_METHOD = "poisson-ridge"

#: k of the kNN graph when --neighbors is not given (n - 1 on a file of n <= k rows).
DEFAULT_NEIGHBORS = 10


class LabelCommandError(Exception):
    """A user error of ``graphrkhs label`` (one line, exit code 2)."""


class LabelUsageError(LabelCommandError):
    """A bad option value of ``graphrkhs label`` (whatever the data): a usage error, two lines (the
    command's usage line and the error) with exit code 2, as argparse's own and the demo's."""


DELIMITERS = (",", "\t", ";")


def _delimiter(path, first_line):
    """Tab for .tsv/.tab files; otherwise the one of comma, tab, semicolon that splits the header into the
    most columns (comma on a tie), so that a tab-separated file named .csv is read as such."""
    if path.lower().endswith((".tsv", ".tab")):
        return "\t"
    best, best_n = ",", 1
    for d in DELIMITERS:
        n = len(next(csv.reader([first_line], delimiter=d), []))
        if n > best_n:
            best, best_n = d, n
    return best


def _read_csv(path, encoding=None):
    """``(header, rows, lines, first_line)`` of a CSV/TSV file (or a pipe: the text is read once).

    ``encoding``: the ``--encoding`` option; None reads UTF-8 (a UTF-8 byte order mark is dropped) or,
    after a UTF-16 byte order mark (Excel's "Unicode text"), UTF-16.
    """
    try:
        with open(path, "rb") as f:
            # read once, then parse: a pipe (/dev/stdin, a FIFO) cannot seek back to the start
            data = f.read()
        text = _decode_text(path, data, encoding)
        f = io.StringIO(text, newline="")
        first = f.readline()
        f.seek(0)
        reader = csv.reader(f, delimiter=_delimiter(path, first.rstrip("\r\n")))
        try:
            header = next(reader)
        except StopIteration:
            raise LabelCommandError(f"{path}: the file is empty (no header row).") from None
        if not any(h.strip() for h in header):
            raise LabelCommandError(f"{path}: the first line, the header row of column names, is empty.")
        # Blank lines are skipped; each row keeps its line number in the file (where it starts) so
        # that messages point at the line a user sees in an editor.  A line of delimiters only (",,") is a
        # row of empty cells, not a blank line: skipped, it left the output one row short of the input's
        # (joins by position misaligned) while a row with one empty feature cell was an error.
        rows, lines, last = [], [], reader.line_num
        for r in reader:
            if len(r) > 1 or any(cell.strip() for cell in r):
                rows.append(r)
                lines.append(last + 1)
            last = reader.line_num
    except csv.Error as exc:
        raise LabelCommandError(f"{path}: malformed CSV ({_one_line(exc)}).") from None
    except OSError as exc:
        raise LabelCommandError(f"cannot read {path}: {exc.strerror or _one_line(exc)}.") from None
    # Column names are kept as the file spells them (the output's header is the input's); options find
    # them by _find_column: the exact name first, then the name without surrounding spaces.
    if len(set(header)) != len(header):
        dup = sorted({h for h in header if header.count(h) > 1})
        hint = _header_hint(path, header, first.rstrip("\r\n"))
        raise LabelCommandError(f"{path}: duplicate column name(s) {_show_columns(dup)} in the header{hint}.")
    for r, line in zip(rows, lines):
        if len(r) != len(header):
            raise LabelCommandError(
                f"{path}: line {line} has {len(r)} cells but the header has {len(header)} columns."
            )
    return header, rows, lines, first.rstrip("\r\n")


#: The text encoding read by default (``--encoding``): UTF-8, with or without a byte order mark.
DEFAULT_ENCODING = "utf-8-sig"


def _encoding_option(text):
    """argparse ``type=`` of ``--encoding``: a codec Python knows (``codecs.lookup``), kept as given."""
    import argparse
    import codecs

    try:
        codecs.lookup(text)
    except LookupError:
        raise argparse.ArgumentTypeError(
            f"unknown encoding {text!r}: give a text encoding such as utf-8, cp1252 (Windows, Excel) or "
            "latin-1.") from None
    return text


def _decode_text(path, data, encoding):
    """The text of a CSV file's bytes; a :class:`LabelCommandError` naming the line and the fix when the
    bytes are not text in the encoding (``--encoding``; None: UTF-8, or UTF-16 after its byte order mark).

    A file in Windows-1252 or Latin-1 (what Excel and older tools save as "CSV") failed with "not a UTF-8
    text CSV file (invalid continuation byte)": no line, and no way to read it.  Binary data (a NUL byte
    in the first 8 KiB: a spreadsheet, an archive) keeps the message that this command reads text.
    """
    if encoding is None and data.startswith((b"\xff\xfe", b"\xfe\xff")):
        encoding = "utf-16"          # a UTF-16 byte order mark: unambiguous (UTF-8 text never starts so)
    if encoding is None and b"\x00" in data[:8192]:
        raise LabelCommandError(f"{path}: not a text CSV file (binary data: a NUL byte); graphrkhs label reads "
                                "CSV/TSV text and .npz files (np.savez: features and labels in one file); save a "
                                "spreadsheet as CSV first (a UTF-16 text file without a byte order mark: pass "
                                "--encoding utf-16).")
    try:
        text = data.decode(encoding or DEFAULT_ENCODING)
        # a byte order mark read as text (--encoding utf-8 on a file saved with one) is no part of the first
        # column name: '\ufeffx' was not found by --features x
        return text[1:] if text.startswith("\ufeff") else text
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        byte = f"byte 0x{data[exc.start]:02x}"
        if encoding is not None:
            raise LabelCommandError(f"{path}: line {line} is not {encoding} text ({byte}); check --encoding (the "
                                    "encoding the file was saved in, e.g. utf-8, cp1252 or latin-1).") from None
        raise LabelCommandError(
            f"{path}: line {line} is not UTF-8 text ({byte}): the file was saved in another encoding, most often "
            "Windows-1252 or Latin-1 (Excel's CSV on Windows, older tools): pass --encoding cp1252 (Windows, "
            "Excel) or --encoding latin-1, or convert the file to UTF-8 (e.g. iconv -f cp1252 -t utf-8).") from None


def _show_columns(names):
    """Column names for a message: as written, quoted when spaces surround them (or when empty)."""
    return ", ".join(repr(c) if c != c.strip() or not c else c for c in names)


def _find_column(name, header, option, path=None):
    """Index of the column ``name`` (given with ``option``) in ``header``: the one rule of every column option.

    The exact name first; else the column whose name without surrounding spaces is ``name`` without
    surrounding spaces (``--label-column " label"`` or ``"label "`` finds a column ``label``, and
    ``--label-column label`` a header cell ``" label"``).  Two columns that match only that way (``"a"``
    and ``"a "``) are an error naming both: give the exact name.  None when no column matches.
    """
    if name in header:
        return header.index(name)
    stripped = name.strip()
    matches = [j for j, c in enumerate(header) if c.strip() == stripped]
    if len(matches) > 1:
        where = f" of {path}" if path else ""
        raise LabelCommandError(
            f"{option} {name!r} matches {len(matches)} columns{where} once surrounding spaces are ignored: "
            f"{', '.join(repr(header[j]) for j in matches)}; give the exact name of one of them.")
    return matches[0] if matches else None


def _csv_list(text, option, item, example):
    """The items of a comma-separated option value (``--features``, ``--unlabeled``), read as one CSV record,
    so that an item holding a comma is written in double quotes as in a CSV file (``x,"width, cm"``); spaces
    are kept (the callers see through surrounding ones).  ``item`` ("name") and ``example`` (a quoted value):
    for the message."""
    try:
        return next(csv.reader([text], strict=True), [])
    except csv.Error:      # an unclosed quote: read leniently, the rest of the list was one item
        raise LabelUsageError(f"{option} {text!r} is not a comma-separated list with balanced quotes (a quote "
                              f"opens and closes a whole {item}); write a {item} that holds a comma in double "
                              f"quotes, {option} {example}.") from None


def _column_list(text):
    """The column names of a ``--features`` value (:func:`_csv_list`; the column rule of :func:`_find_column`
    sees through spaces around a name)."""
    return _csv_list(text, "--features", "name", "'x,\"width, cm\"'")


def _comma_name_hint(text, header):
    """A hint when unknown ``--features`` names come from a column whose name holds a comma, unquoted."""
    for c in header:
        if "," in c and c in text and '"' not in text:
            shown = text.replace(c, '"' + c.replace('"', '""') + '"')
            return (f"; the column {c!r} has a comma in its name: quote it as in a CSV file, "
                    f"--features '{shown}'")
    return ""


def _header_hint(path, header, first_line):
    """Why a header row may not be one ("" when it looks like one): the first line is data (a number among
    its cells: the file has no header row), or it was not split into columns (another delimiter)."""
    shown = first_line if len(first_line) <= 60 else first_line[:57] + "..."
    if any(_as_number(h) is not None for h in header):
        return (f"; {path}: the first line ({shown}) looks like data, not a header row (a column name is a "
                "number): add a header row of column names as the first line")
    if len(header) != 1:
        return ""
    for sep, name in ((",", "commas"), ("\t", "tabs"), (";", "semicolons"), (" ", "spaces")):
        if sep in header[0].strip():
            if path.lower().endswith((".tsv", ".tab")) and sep != "\t":
                return (f"; {path} is read as tab-separated (.tsv) but its header row is separated by {name}: "
                        "rename it .csv")
            if sep == " ":
                return (f"; the header row ({shown}) is one column: the file looks separated by spaces, but "
                        "graphrkhs label splits columns at commas, tabs or semicolons: convert the file to CSV")
            return ""
    return ""


def _one_line(exc):
    return " ".join(str(exc).split()) or type(exc).__name__


def _read_npz(path, label_column):
    import zipfile

    try:
        if not zipfile.is_zipfile(path):  # np.load would try it as a pickle and talk about allow_pickle
            raise LabelCommandError(f"{path}: not a valid .npz file (not a zip archive of .npy arrays).")
        return _read_npz_arrays(path, label_column)
    except LabelCommandError:
        raise
    except (zipfile.BadZipFile, EOFError) as exc:
        raise LabelCommandError(f"{path}: not a valid .npz file ({_one_line(exc)}).") from None
    except OSError as exc:
        raise LabelCommandError(f"cannot read {path}: {exc.strerror or _one_line(exc)}.") from None
    except (ValueError, KeyError, TypeError) as exc:
        if "allow_pickle" in str(exc):
            # numpy's own words name a flag of np.load, which this command does not have; say what to save
            raise LabelCommandError(
                f"{path}: an array of Python objects (dtype=object), which numpy reads only by unpickling, "
                "unsafe for a file from elsewhere; save the labels as strings (e.g. y.astype(str), with '' "
                "for unlabeled rows) or numbers (NaN or -1 for unlabeled rows), and the features as numbers."
            ) from None
        # e.g. truncated members, non-numeric features
        raise LabelCommandError(f"{path}: unreadable .npz content ({_one_line(exc)}).") from None


def _read_npz_arrays(path, label_column):
    with np.load(path, allow_pickle=False) as data:
        keys = list(data.keys())
        if {"data", "indices", "indptr", "format", "shape"} <= set(keys):
            # a scipy.sparse.save_npz file: one sparse matrix, no label column; this command writes every feature
            # cell back as CSV text and standardizes columns, so sparse features belong to the Python API
            raise LabelCommandError(
                f"{path} is a scipy.sparse matrix (scipy.sparse.save_npz), which holds no label column: graphrkhs "
                "label reads CSV/TSV text and .npz files of dense arrays (np.savez: the features and the label "
                "column).  For sparse features (e.g. TF-IDF) use the Python API, which takes them as they are: "
                "PoissonRidgeEnsembleClassifier().fit(scipy.sparse.load_npz(path), y).")
        found = _find_column(label_column, keys, "--label-column", path)
        if found is None:
            raise LabelCommandError(
                f"unknown column {label_column!r}: {path} holds arrays {_show_columns(keys)}."
            )
        label_column = keys[found]
        y = data[label_column]
        feature_keys = [k for k in keys if k != label_column]
        unused = []
        if "X" in feature_keys:
            X = data["X"]
            names = [f"x{j}" for j in range(X.shape[1] if X.ndim == 2 else 1)]
            unused = [k for k in feature_keys if k != "X"]      # said on stderr: not silently dropped
            clash = [c for c in names if c.strip() == label_column.strip()]
            if clash:
                # the output's header had the name twice, and the label column found by name was X's column:
                # a file labeled by one of its features (exit 0)
                raise LabelCommandError(
                    f"{path}: the label array {label_column!r} has the name of a column of X (the columns of X are "
                    f"named x0 ... x{len(names) - 1}); save the labels under another name, e.g. "
                    f"np.savez(file, X=X, label=labels), and pass --label-column label.")
        else:
            cols = [data[k] for k in feature_keys]
            if not cols:
                raise LabelCommandError(f"{path} has no feature arrays besides {label_column!r}.")
            bad = [(k, c.shape) for k, c in zip(feature_keys, cols) if c.ndim != 1]
            if bad:
                k, shape = bad[0]
                hint = (f": name it X, as in np.savez(file, X={k}, {label_column}=labels)" if len(shape) == 2
                        else "")
                raise LabelCommandError(f"{path}: the feature array {k!r} has shape {shape}; the features are "
                                        f"one 2-D array named 'X' or one 1-D array per feature{hint}.")
            if any(c.shape != cols[0].shape for c in cols):
                raise LabelCommandError(
                    f"{path}: the feature arrays differ in length ("
                    + ", ".join(f"{k!r}: {c.shape[0]}" for k, c in zip(feature_keys, cols))
                    + "); save one 1-D array per feature, all of one length (or all features as one 2-D array 'X').")
            X = np.column_stack(cols)
            names = feature_keys
    if X.ndim == 1:
        X = X[:, None]
    if X.ndim != 2 or X.dtype.kind not in "biuf":
        raise LabelCommandError(f"{path}: the features must be a numeric 1-D or 2-D array; got dtype {X.dtype} "
                                f"and shape {X.shape}.")
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise LabelCommandError(
            f"{path}: {label_column!r} must be 1-D with one entry per row of the features ({X.shape[0]})."
        )
    header = names + [label_column]
    # bytes labels (dtype "S", e.g. from h5py or np.char.encode) are text: str(b"") would be the class "b''"
    labels = ["" if (isinstance(v, float) and math.isnan(v)) else _decode_label(v, i, path, label_column)
              if isinstance(v, bytes) else str(v) for i, v in enumerate(y.tolist())]
    # each value as its own dtype prints it (shortest round trip): integers stay integers ("12", not "12.0"),
    # float32 keeps its digits ("0.1", not "0.10000000149011612"), booleans are 0 / 1
    cells = (X.astype(np.int64) if X.dtype.kind == "b" else X).astype(str).tolist()
    rows = [x + [lab] for x, lab in zip(cells, labels)]
    return header, rows, unused, y.dtype


def _decode_label(v, i, path, label_column):
    try:
        return v.decode("utf-8")
    except UnicodeDecodeError:
        raise LabelCommandError(
            f"{path}: {label_column!r} holds bytes that are not UTF-8 text (row index {i}: {v!r}); save the labels "
            f"as str, decoded with their encoding (e.g. np.char.decode({label_column}, 'latin-1')), or as numbers."
        ) from None


def _where(lines, i):
    """Where data row ``i`` is: its line in a CSV file (``lines``), its index in the arrays of an .npz (None)."""
    return f"line {lines[i]}" if lines is not None else f"row index {i}"


def _parse_features(header, rows, feature_names, path, lines=None):
    index = [header.index(c) for c in feature_names]
    n = len(rows)
    X = np.empty((n, len(index)))
    for j, col in enumerate(index):
        cells = [r[col].strip() for r in rows]
        try:
            # numpy's conversion takes more than the command's number grammar (1_000, non-ASCII digits);
            # one scan of the column's text finds the cells to check one by one
            joined = "".join(cells)
            if "_" in joined or not joined.isascii():
                if not all(_is_number(c) for c in cells):
                    raise ValueError
            X[:, j] = np.array(cells, dtype=np.float64)
        except ValueError:
            bad = next(i for i, c in enumerate(cells) if not _is_number(c))
            if not cells[bad]:
                raise LabelCommandError(
                    f"{path}: missing feature value (empty cell) in column {header[col]!r}, {_where(lines, bad)}; "
                    "impute or drop such rows first (or leave the column out with --features)."
                )
            comma = re.fullmatch(r"\s*[-+]?\d*,\d+\s*", cells[bad])
            thousands = re.fullmatch(r"\s*[-+]?\d{1,3}(,\d{3})+(\.\d*)?\s*", cells[bad])
            cell = cells[bad].strip()
            if thousands:
                # '1,000': a thousand (English) or 1.0 (a decimal comma): say both, assume neither
                hint = (f" ({cell!r} has a comma: numbers are read with a decimal point and without thousands "
                        f"separators; write {cell.replace(',', '')} or {cell.replace(',', '.')}, whichever is meant)"
                        if cell.count(",") == 1 and "." not in cell else
                        f" ({cell!r} has thousands separators: write {cell.replace(',', '')})")
            elif comma:
                hint = (f" ({cell!r} looks like a decimal comma: numbers are read with a decimal point, "
                        f"{cell.replace(',', '.')!r})")
            else:
                hint = ""
            raise LabelCommandError(
                f"{path}: non-numeric feature cell {cells[bad]!r} in column {header[col]!r}, {_where(lines, bad)}; "
                f"features must be numbers (choose numeric columns with --features){hint}."
            ) from None
    if not np.isfinite(X).all():
        i, j = np.argwhere(~np.isfinite(X))[0]
        raise LabelCommandError(
            f"{path}: missing or infinite feature value in column {feature_names[j]!r}, {_where(lines, i)}; "
            "impute or drop such rows first."
        )
    return X


def _is_number(cell):
    return _as_number(cell) is not None


# The one grammar of a number on this command line, for option values and file cells alike: ASCII
# decimal notation with an optional sign, fraction and exponent ("12", "-0.5", "1e-3", ".5"), and for
# reals the words nan / inf / infinity.  Python's int() and float() (and numpy's string conversion)
# also take digit-group underscores ("1_000") and digits of other scripts ("١٠"), which no
# spreadsheet, CSV reader (pandas, R) or other command-line tool reads as numbers: "1_000" would be
# the class 1000 and a feature of 1000 here but text everywhere else.
_INTEGER = re.compile(r"[+-]?[0-9]+")
_REAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_REAL_WORDS = ("nan", "inf", "infinity")


def _is_real_text(text):
    if _REAL.fullmatch(text):
        return True
    word = text[1:] if text.startswith(("+", "-")) else text
    return word.casefold() in _REAL_WORDS


def _int_option(text):
    """argparse ``type=`` of the integer options: a whole number in ASCII digits, optional sign."""
    import argparse

    if not _INTEGER.fullmatch(text.strip()):
        raise argparse.ArgumentTypeError(
            f"invalid integer {text!r}: write a whole number with the digits 0-9 only (e.g. 1000, not 1_000, "
            "1e3 or 10.0).")
    return int(text)


def _real_option(text):
    """argparse ``type=`` of the real-valued options: a decimal number (``1e-3``, ``0.01``), ASCII only."""
    import argparse

    if not _is_real_text(text.strip()):
        raise argparse.ArgumentTypeError(
            f"invalid number {text!r}: write a decimal number with the digits 0-9 (e.g. 0.01 or 1e-2, not "
            "1_000).")
    return float(text)


def add_label_options(p_label):
    """Register the options of ``graphrkhs label`` defined here (``--unlabeled``, ``--encoding``, ``--seed``,
    ``--alpha``)."""
    tokens = ",".join(DEFAULT_UNLABELED)
    p_label.add_argument(
        "--unlabeled", metavar="TOKENS", default=tokens,
        help="comma-separated label cells that mark an unlabeled row (default: %(default)r, i.e. an empty cell, "
             "NaN, -1 -- as in the Python API, where -1 marks unlabeled -- NA, N/A, null, None). Words match "
             "case-insensitively, numbers by value (-1 also matches -1.0); an empty cell is always unlabeled. "
             "Pass --unlabeled '' to make every non-empty cell (-1 included) a class (NaN among numeric labels is "
             "refused: it is never a class); write --unlabeled=-1,... when the list starts with a minus sign. "
             "The list is read as one CSV record, as --features: a "
             "token holding a comma is written in double quotes, --unlabeled '-1,\"n, a\"'")
    p_label.add_argument(
        "--encoding", type=_encoding_option, default=None, metavar="ENC",
        help="text encoding of a CSV/TSV input (default: UTF-8, with or without a byte order mark; UTF-16 when "
             "the file starts with its byte order mark); e.g. --encoding cp1252 for a CSV saved by Excel on "
             "Windows, --encoding latin-1. The output is written in UTF-8")
    p_label.add_argument(
        "--seed", type=_int_option, default=None, metavar="N",
        help="seed of the approximate kNN search (random_state of the graph; it acts only on >= 50000 rows in more "
             "than 16 feature columns, where the search is approximate): the same seed labels the same file the "
             "same way in every run (default: unseeded, runs on such files may build graphs a few edges apart)")
    p_label.add_argument(
        "--alpha", type=_real_option, default=None, metavar="MU",
        help=f"weight of the smoothness term of --method tikhonov, (J + MU L) F = J Y (default: "
             f"{DEFAULT_TIKHONOV_ALPHA:g}; must be > 0; 0 would be laplace)")
    p_label.epilog = (p_label.epilog + ". " if p_label.epilog else "") + "Output columns: predicted_COL and " + \
        CONFIDENCE_DOC + "."
    p_label.description = (
        "Read a CSV/TSV file (or .npz), treat the --unlabeled cells of the label column as unlabeled, build a kNN "
        "graph on the (standardized) feature columns, label every row, and write the rows to a new CSV file with "
        "a predicted-label and a confidence column. Never writes over the input (symlinks and hard links "
        "included, even with --force); writes the output atomically. Bad input exits with status 2.")


def _missing_matcher(spec):
    """A predicate ``cell -> bool`` for the tokens of ``--unlabeled`` (comma-separated)."""
    # one CSV record, as --features: a token holding a comma is written in double quotes ('-1,"n, a"')
    tokens = _csv_list(spec, "--unlabeled", "token", "'-1,\"n, a\"'") if isinstance(spec, str) else list(spec)
    # numbers are compared exactly (as decimals, as _parse_labels compares the classes): as floats, the token
    # 12345678901234567890 also marked the rows of the class 12345678901234567891 unlabeled
    words, numbers, nan = {""}, set(), False
    for token in (t.strip() for t in tokens):
        value = _as_decimal(token)
        if value is None:
            words.add(token.casefold())
        elif value.is_nan():
            nan = True
        else:
            numbers.add(value)

    def is_missing(cell):
        if cell.casefold() in words:
            return True
        value = _as_decimal(cell)
        return value is not None and ((nan and value.is_nan()) or value in numbers)
    return is_missing


def _as_number(cell):
    """The cell as a float when it is a number in the command's grammar (``_REAL``), else None."""
    text = cell.strip()
    return float(text) if _is_real_text(text) else None


def _as_decimal(cell):
    """The cell as an exact :class:`decimal.Decimal` when it is a number in the command's grammar, else None."""
    text = cell.strip()
    if not _is_real_text(text):
        return None
    try:
        return decimal.Decimal(text)
    except decimal.InvalidOperation:
        # an exponent beyond decimal's own limit (1e99999999999999999999): +-inf, as a float reads it (an infinite
        # label is then refused with its line, as "inf" is), not a traceback; a nonzero number below its smallest
        # exponent (1e-99999999999999999999) is the smallest fraction of its sign there (a real value, refused as
        # 1e-400 is), not the 0 a float reads, which merged it into the class 0
        value = float(text)
        mantissa = text.lower().split("e")[0]
        if value != 0.0 or not any(ch in "123456789" for ch in mantissa):
            return decimal.Decimal(value)
        return decimal.Decimal((1 if mantissa.lstrip().startswith("-") else 0, (1,), -999999999999999999))


def _parse_labels(raw, labeled):
    """Classes and per-row class keys.  When every labeled cell is a finite number the labels are
    numbers ("1" and "1.0" are one class), each named by its first spelling in the file (so "007"
    stays "007" and labeled rows read back as written); otherwise they are the cell strings.
    Numbers are compared exactly (as decimals, not floats: the class codes 12345678901234567890
    and 12345678901234567891 are one float but two classes)."""
    values = [_as_decimal(lab) for lab, m in zip(raw, labeled) if m]
    if values and all(v is not None and v.is_finite() for v in values):
        keys = [_as_decimal(lab) if m else None for lab, m in zip(raw, labeled)]
        classes = sorted(set(values))
        spelling = {}
        for lab, m in zip(raw, labeled):
            if m:
                spelling.setdefault(_as_decimal(lab), lab)
        names = [spelling[v] for v in classes]
    else:
        keys = [lab if m else None for lab, m in zip(raw, labeled)]
        classes = sorted({k for k in keys if k is not None}, key=_class_sort_key)
        names = list(classes)
    return classes, names, keys


def _same_file(a, b):
    """True when paths a and b name the same file (device and inode: symlinks, hard links, relative paths)."""
    try:
        return os.path.samefile(a, b)
    except OSError:  # b does not exist (yet)
        return False


def _special_file_kind(path):
    """What a non-regular file at ``path`` is (symlinks followed), or None for a regular or no file."""
    import stat

    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    for test, kind in ((stat.S_ISFIFO, "a named pipe"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return kind
    return None if stat.S_ISREG(mode) or stat.S_ISDIR(mode) else "a special file"


def _descriptor_alias(path):
    """The ``/proc/...`` path of an open file descriptor that ``path`` names through symlinks (``/dev/stdout``
    -> ``/proc/self/fd/1``, ``/dev/fd/3``), or None.  :func:`_special_file_kind` follows the chain to the file
    the descriptor is open on, a regular file when the standard output is redirected to one."""
    p = os.path.abspath(path)
    for _ in range(40):     # the kernel's own limit on a chain of symlinks
        p = os.path.join(os.path.realpath(os.path.dirname(p)), os.path.basename(p))
        if p.startswith("/proc/") or p.startswith("/dev/fd/"):
            return p
        if not os.path.islink(p):
            return None
        p = os.path.join(os.path.dirname(p), os.readlink(p))
    return None


def _check_output(output, inputs, force):
    if os.path.isdir(output):
        raise LabelCommandError(f"the output path is a directory: {output}")
    if output.endswith(tuple(sep for sep in (os.sep, os.altsep) if sep)):
        # a directory that does not exist (yet): the probe below wrote into its parent, and os.replace failed
        # only after the labeling, with "Not a directory"
        example = os.path.join(output, "labeled.csv")
        raise LabelCommandError(f"the output {output} ends with a path separator, so it names a directory, which "
                                f"does not exist; give a file name, e.g. --output {example} (in an existing "
                                "directory).")
    kind = _special_file_kind(output)
    if kind:
        # the output is written to a temporary file and moved into place: that would replace the device
        # or pipe (e.g. /dev/stdout, /dev/full: as root, the device node was gone) by a regular file
        raise LabelCommandError(f"the output {output} is not a regular file ({kind}); graphrkhs label writes a "
                                "new CSV file and would replace it: choose a file name.")
    alias = _descriptor_alias(output)
    if alias:
        # /dev/stdout with the standard output redirected to a file: a regular file at the end of the chain, so
        # the temporary file was moved over the /dev/stdout symlink itself (as root: gone for every process)
        raise LabelCommandError(f"the output {output} is an open file descriptor ({alias}), such as the standard "
                                "output; graphrkhs label writes a new CSV file and moves it into place, which would "
                                "replace that link: choose a file name.")
    for path in inputs:
        if _same_file(output, path) or os.path.abspath(output) == os.path.abspath(path):
            raise LabelCommandError(
                f"the output {output} is the input file {path} (same file on disk); graphrkhs label never "
                "overwrites its input, not even with --force: choose another --output."
            )
    if os.path.lexists(output) and not force:
        raise LabelCommandError(f"output file exists: {output} (pass --force to overwrite it).")
    parent = os.path.dirname(os.path.abspath(output))
    if not os.path.isdir(parent):
        raise LabelCommandError(f"the output directory does not exist: {parent}")
    # The output is written through a temporary file in its directory: try that now, so that an
    # unwritable directory is reported before the labeling (which may take minutes), not after it.
    try:
        fd, probe = tempfile.mkstemp(dir=parent, prefix="." + os.path.basename(output) + ".", suffix=".tmp")
    except OSError as exc:
        raise LabelCommandError(f"cannot write to {parent}: {exc.strerror or _one_line(exc)}.") from None
    os.close(fd)
    os.unlink(probe)


def _write_atomic(output, header, rows):
    """Write the CSV to a temporary file in the output's directory, then :func:`os.replace` it into place.

    A symlink at ``output`` is replaced by the new file (its target is left alone)."""
    parent = os.path.dirname(os.path.abspath(output))
    try:
        fd, tmp = tempfile.mkstemp(dir=parent, prefix="." + os.path.basename(output) + ".", suffix=".tmp")
    except OSError as exc:
        raise LabelCommandError(f"cannot write to {parent}: {exc.strerror or _one_line(exc)}.") from None
    try:
        with os.fdopen(fd, "w", newline="", encoding="utf-8") as f:
            # tab-separated for .tsv / .tab names, as the input is read
            writer = csv.writer(f, delimiter="\t" if output.lower().endswith((".tsv", ".tab")) else ",")
            writer.writerow(header)
            writer.writerows(rows)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, output)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):   # a full disk, a lost mount: the user's machine, not a bug (exit 2)
            raise LabelCommandError(f"cannot write {output}: {exc.strerror or _one_line(exc)}; the old file, if "
                                    "any, is unchanged.") from None
        raise


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def run_label(args, out=None, err=None):
    """Carry out ``graphrkhs label`` for parsed arguments; returns the summary dict."""
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    from ..estimators import prefers_cosine_graph
    from ..graphs import knn_graph

    path = args.input
    if not os.path.exists(path):
        raise LabelCommandError(f"input file not found: {path}")
    if os.path.isdir(path):
        raise LabelCommandError(f"input is a directory, not a file: {path}")
    is_npz = path.lower().endswith(".npz")
    if args.output is not None and not args.output.strip():
        raise LabelUsageError("--output is empty; give a file name (or leave --output out for "
                                "INPUT.labeled.csv).")
    if args.output is None and _special_file_kind(path):
        # /dev/stdin or a named pipe: INPUT.labeled.csv would be a new file beside it (in /dev for /dev/stdin)
        raise LabelCommandError(f"the input {path} is not a regular file ({_special_file_kind(path)}); give "
                                "--output OUT.csv (the default, INPUT.labeled.csv, is for input files).")
    if args.output is None and _descriptor_alias(path):
        # /dev/stdin redirected from a file: a regular file at the end of the chain, and the default output
        # was /dev/stdin.labeled.csv, a new file in /dev
        raise LabelCommandError(f"the input {path} is an open file descriptor ({_descriptor_alias(path)}), such as "
                                "the standard input; give --output OUT.csv (the default, INPUT.labeled.csv, is for "
                                "input files).")
    output = args.output or (os.path.splitext(path)[0] + ".labeled.csv")
    # "--output -": the labeled rows on standard output (the Unix convention; it wrote a file named "-"), and
    # the summary that goes there otherwise on standard error, so that the table stays clean
    to_stdout = output == "-"
    table_out = out
    if to_stdout:
        out = err
    method = args.method
    alpha = getattr(args, "alpha", None)
    if args.neighbors is not None and args.neighbors < 1:
        raise LabelUsageError(f"--neighbors must be at least 1; got {args.neighbors}.")
    seed = getattr(args, "seed", None)
    if seed is not None and seed < 0:  # numpy's generators take seeds >= 0 only
        raise LabelUsageError(f"--seed must be a non-negative integer; got {seed}.")
    if alpha is not None and method != "tikhonov":
        raise LabelUsageError(f"--alpha applies to --method tikhonov only; got --method {method}.")
    if method == "tikhonov":
        alpha = DEFAULT_TIKHONOV_ALPHA if alpha is None else alpha
        if not (math.isfinite(alpha) and alpha > 0):
            raise LabelUsageError(f"--alpha must be a finite number > 0; got {alpha} (0 is --method laplace).")
    is_missing = _missing_matcher(getattr(args, "unlabeled", DEFAULT_UNLABELED))
    # a bad --features list is a usage error, reported before the file is read
    listed = None if args.features is None else _column_list(args.features)
    encoding = getattr(args, "encoding", None)
    if encoding is not None and is_npz:
        raise LabelUsageError(f"--encoding applies to CSV/TSV input only (an .npz file is binary); got {path}.")

    if is_npz:
        header, rows, unused, label_dtype = _read_npz(path, args.label_column)
        lines = first_line = None
    else:
        header, rows, lines, first_line = _read_csv(path, encoding)
        unused, label_dtype = [], None
    unused_note = (f"features from the 2-D array 'X'; array(s) {', '.join(map(repr, unused))} not used"
                   if unused else "")
    label_idx = _find_column(args.label_column, header, "--label-column", path)
    if label_idx is None:
        hint = "" if is_npz else _header_hint(path, header, first_line)
        raise LabelCommandError(
            f"unknown column {args.label_column!r}; the columns are: {_show_columns(header)}{hint}."
        )
    column = header[label_idx]          # as the file spells it
    # the new column's name: the label column's without surrounding spaces ("predicted_label")
    predicted_column = f"predicted_{column.strip()}"
    taken = [c for c in (predicted_column, "confidence") if any(h.strip() == c for h in header)]
    if taken:
        # the output's header had the name twice (a file written by graphrkhs label, labeled again: two
        # predicted_COL and two confidence columns, the old ones also taken as features)
        raise LabelCommandError(
            f"{path} already has the column(s) {_show_columns(taken)}, which the output adds: rename or remove it "
            "first (a file written by graphrkhs label: label its input again, with the new labels).")
    # after the column check (a wrong column is the more useful message), before any work
    if output.lower().endswith(".npz"):
        raise LabelCommandError(f"--output {output}: graphrkhs label writes CSV text: name the output .csv (or "
                                ".tsv for tabs).")
    if not to_stdout:
        _check_output(output, [path], args.force)
    if not rows:
        raise LabelCommandError(f"{path} holds no rows (its arrays are empty)." if is_npz
                                else f"{path} has a header but no data rows.")
    if args.features is None and unused_note:
        print(f"note: {unused_note} (save one 1-D array per feature and no 'X' to use them).", file=err)
    if args.features is not None:
        names = [c for c in listed if c.strip()]
        if not names:
            raise LabelCommandError(f"--features {args.features!r} names no column; give comma-separated column "
                                    "names (or leave --features out for every column but the label column).")
        found = [_find_column(c, header, "--features", path) for c in names]
        unknown = [c.strip() for c, j in zip(names, found) if j is None]
        if unknown:
            npz_hint = (f" ({unused_note}: put every feature in 'X', or save one 1-D array per feature and no 'X')"
                        if unused_note else "")
            raise LabelCommandError(f"unknown feature column(s) {', '.join(unknown)}; the columns are: "
                                    f"{_show_columns(header)}{npz_hint}{_comma_name_hint(args.features, header)}.")
        repeated = sorted({header[j] for j in found if found.count(j) > 1})
        if repeated:  # a column given twice would count twice in every distance
            raise LabelCommandError(f"--features names {_show_columns(repeated)} more than once.")
        if label_idx in found:
            raise LabelCommandError(f"the label column {column!r} cannot also be a feature.")
        features = [header[j] for j in found]
    else:
        # an unnamed column with no value in any row is no feature: the trailing delimiter of some exports
        features = [c for j, c in enumerate(header) if j != label_idx
                    and (c.strip() or any(r[j].strip() for r in rows))]
    if not features:
        raise LabelCommandError("no feature columns: the file has only the label column.")
    X = _parse_features(header, rows, features, path, lines)
    n = X.shape[0]
    raw_labels = [r[label_idx].strip() for r in rows]
    labeled = np.array([not is_missing(lab) for lab in raw_labels])
    if not labeled.any():
        raise LabelCommandError(f"no labeled rows: every cell of column {column!r} is a missing-label "
                                "token (see --unlabeled).")
    classes, names, keys = _parse_labels(raw_labels, labeled)
    _refuse_infinite_labels(column, raw_labels, labeled, lines, getattr(args, "unlabeled", ""))
    fractional = [name for c, name in zip(classes, names)
                  if isinstance(c, decimal.Decimal) and c != c.to_integral_value()]
    if fractional:
        # the Python API refuses real-valued labels ("use a regressor"); here every distinct value became a
        # class of its own (a regression target labeled as hundreds of one-row classes)
        shown = ", ".join(repr(v) for v in fractional[:3]) + (", ..." if len(fractional) > 3 else "")
        raise LabelCommandError(
            f"the label column {column!r} holds real values ({shown}), not class labels: graphrkhs "
            "label labels classes (as the Python API, which asks for a regressor for real-valued targets). "
            "If they are class codes, write them as text (e.g. c1.5) or as whole numbers.")
    if len(classes) < 2:
        # numbers are one class by value ("007" and "7"): name the other spellings merged into it
        spellings = list(dict.fromkeys(lab for lab, m in zip(raw_labels, labeled) if m and lab != names[0]))
        shown = repr(names[0]) + ("" if not spellings else ", also written " + ", ".join(
            repr(v) for v in spellings[:3]) + (", ..." if len(spellings) > 3 else ""))
        merged = ("; numeric labels are compared by value (\"1\", \"01\" and \"1.0\" are one class): if these "
                  "are distinct codes, write the codes as text (e.g. c007, c7)") if spellings else ""
        raise LabelCommandError(
            f"only one class ({shown}) among the labeled rows; labeling needs at least two classes"
            f"{merged}{_hidden_class_hint(args, raw_labels, labeled)}."
        )
    _check_minus_one_is_not_a_hidden_class(args, column, classes, names, raw_labels, labeled)
    _check_classes_are_labels(column, header, names, n, int(labeled.sum()))
    if n - labeled.sum() == 0:
        print(_all_labeled_note(column, classes, names, keys), file=err)
    if n < 2:
        raise LabelCommandError("the file needs at least two rows.")
    if args.neighbors is None:   # the default, 10, takes every other row of a smaller file
        k = min(DEFAULT_NEIGHBORS, n - 1)
    elif args.neighbors >= n:    # a value the user gave is not changed behind their back (as demo, knn_graph)
        raise LabelUsageError(f"--neighbors must be below {n}, the number of rows (a point has at most {n - 1} "
                              f"neighbours); pass --neighbors {n - 1} or fewer.")
    else:
        k = args.neighbors
    if np.all(X == X[0]):  # every row the same point: any labeling is arbitrary
        raise LabelCommandError(f"every feature column ({', '.join(features)}) is constant: the rows cannot be "
                                "told apart, so there is nothing to label them by (check --features).")

    # poisson-ridge on images / counts (the cosine guard of its graph="auto": >= 32 non-negative columns,
    # no zero row): z-scores would make the pixels signed and reweight them; its cosine graph needs
    # no common scale (it compares profiles), so the features stay as they are.
    raw_for_cosine = method == "poisson-ridge" and prefers_cosine_graph(X)
    standardize = not (args.no_standardize or raw_for_cosine)
    if standardize:
        X = _zscores(X)

    t0 = time.perf_counter()
    verbose = n >= 20000
    codes = np.full(n, -1)
    lookup = {c: i for i, c in enumerate(classes)}
    codes[labeled] = [lookup[key] for key, m in zip(keys, labeled) if m]
    _warn_minus_one_class(args, column, raw_labels, classes, names, codes[labeled], err)
    _warn_wrapped_minus_one(args, path, column, label_dtype, raw_labels, labeled, err)
    _warn_case_variants(column, names, err)
    # on the features the graph is built from (after the z-scores): rows 1 ulp apart in the file can be identical
    # there, joined at distance 0, and the estimator's own warning, left out below, checked these
    _warn_conflicting_copies(X, codes, labeled, names, lines, err)
    # The library's warnings (e.g. rows in a component without labels) are shown once each, as one
    # line of the command, not as Python's "file.py:123: Warning" with a line of library source.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            if method == "poisson-ridge":
                scores, spec = _recommended_scores(X, codes, len(classes), k, verbose, random_state=seed)
                graph = f"{spec.metric} {spec.weight} kNN graph k = {k}"
            else:
                W = knn_graph(X, k, weight="self-tuning", verbose=verbose, random_state=seed)
                scores = _label_scores(method, W, codes, len(classes), alpha)
                graph = f"kNN graph k = {k}"
        except (ValueError, np.linalg.LinAlgError) as exc:  # the library's messages for data it cannot label
            raise LabelCommandError(f"cannot label this data: {_one_line(exc)}") from None
    elapsed = time.perf_counter() - t0
    for category, text in dict.fromkeys((w.category.__name__, _one_line(w.message)) for w in caught):
        if CONFLICTING_COPIES in text:
            continue             # said above for every method, with lines and class names (_warn_conflicting_copies)
        print(f"graphrkhs label: warning ({category}): {text}", file=err)

    probs = _scores_to_confidence(scores)
    pred = probs.argmax(axis=1)
    confidence = probs[np.arange(n), pred]
    pred_labels = np.array(names, dtype=object)[pred]
    # Methods other than laplace may predict another class at a given label (a noisy label, or a
    # labeled point deep in another class): the output keeps the given label and shows the prediction
    # beside it; say so, since such rows are easy to miss.
    changed = np.flatnonzero(labeled & (pred != codes))
    if changed.size:
        shown = ", ".join(_where(lines, i) for i in changed[:5]) + (", ..." if changed.size > 5 else "")
        print(f"note: at {changed.size} of the {int(labeled.sum())} labeled rows the prediction differs from the "
              f"given label ({shown}); the output keeps the given label in {column!r} and the "
              f"prediction in {predicted_column!r}.", file=err)

    out_header = header + [predicted_column, "confidence"]
    table = (list(r) + [p, f"{c:.4f}"] for r, p, c in zip(rows, pred_labels, confidence))
    if to_stdout:
        # "\n" line endings for pipes (cut, awk, sort saw a trailing "\r" with the file's "\r\n"), with the
        # file's quoting: each row is written with the "\r\n" terminator, which quotes a cell holding a bare "\r"
        # (a "\n" terminator left it bare: a broken row when read back), and the terminator is then replaced
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        for row in itertools.chain([out_header], table):
            buffer.seek(0)
            buffer.truncate()
            writer.writerow(row)
            table_out.write(buffer.getvalue()[:-2] + "\n")
        table_out.flush()
    else:
        _write_atomic(output, out_header, table)

    counts = {c: int(np.sum(codes == i)) for i, c in enumerate(names)}
    print(f"graphrkhs label: {n} rows, {int(labeled.sum())} labeled, {len(classes)} classes, "
          f"method {method}{f' (alpha {alpha:g})' if method == 'tikhonov' else ''}, {len(features)} feature(s) "
          f"({'standardized' if standardize else 'raw'}), {graph}; "
          f"{elapsed:.2f} s", file=out)
    # one line of the summary: 500 classes made it 7 000 characters long; the table lists them all
    shown = [f"{c}: {m}" for c, m in counts.items()]
    if len(shown) > SUMMARY_CLASSES:
        rest = len(shown) - SUMMARY_CLASSES
        shown = shown[:SUMMARY_CLASSES] + [f"... ({rest} more classes; --labels-per-class-report lists all)"]
    print("labeled per class: " + ", ".join(shown), file=out)
    if args.labels_per_class_report:
        predicted = {c: int(np.sum(pred == i)) for i, c in enumerate(names)}
        width = max(len(str(c)) for c in names)
        print(f"\n{'class':<{width}}  {'labeled':>8}  {'predicted':>9}  {'mean confidence':>15}", file=out)
        for i, c in enumerate(names):
            sel = pred == i
            mc = f"{confidence[sel].mean():.3f}" if sel.any() else "-"
            print(f"{c:<{width}}  {counts[c]:>8}  {predicted[c]:>9}  {mc:>15}", file=out)
    print("wrote the labeled rows to standard output" if to_stdout else f"wrote {output}", file=out)
    return {"n": n, "labeled": int(labeled.sum()), "classes": names, "output": output}


def _all_labeled_note(column, classes, names, keys):
    """The note of a file with no unlabeled row: a marker such as '?' or 'unknown' (no default --unlabeled
    token) was read as a class; name the classes and the option, with the most frequent class as example."""
    counts = collections.Counter(keys)
    top = names[max(range(len(classes)), key=lambda i: (counts[classes[i]], -i))]
    token = next(_csv_rows([[top]]))
    shown = ", ".join(repr(v) for v in names[:5]) + (", ..." if len(names) > 5 else "")
    return (f"note: every row is already labeled (no cell of {column!r} is empty or an --unlabeled token); "
            f"predictions are the fitted values; if one of the classes ({shown}) marks unlabeled rows, pass it "
            f"with --unlabeled, e.g. --unlabeled={token}")


#: Classes named on the summary's "labeled per class" line (the --labels-per-class-report table: all).
SUMMARY_CLASSES = 20

#: float64 arrays of rows x classes that labeling holds at once (class scores of each method, their
#: standardization, the probabilities, the confidences): the memory estimate of many classes.
SCORE_COPIES = 8


def _check_classes_are_labels(column, header, names, n, n_labeled):
    """Refuse, before the graph and the fit, a label column that cannot be class labels.

    An identifier (a row id, a name, a free-text column) given as ``--label-column``: every labeled
    row is a class of its own, and the work and memory grow with rows x classes (1500 rows of 1500
    one-row classes took 33 s and 560 MB, then wrote each row's own id back).  Refused when there are
    more than 20 classes, fewer than 2 labeled rows per class on average, and more than half the rows
    labeled (a one-shot task labels few rows): the library's one rule,
    :func:`graphrkhs._core.labels.looks_like_identifiers`, on which the classifiers warn.  Then, any number of
    classes: the rows x classes score arrays must fit in memory (:func:`memory_guard`).
    """
    from .._core import labels as core_labels
    from .._core.validation import memory_guard

    C = len(names)
    if core_labels.looks_like_identifiers(C, n_labeled, n):
        shown = ", ".join(repr(c) for c in names[:3])
        others = [c for c in header if c != column]
        raise LabelCommandError(
            f"the label column {column!r} holds {C} distinct values among its {n_labeled} labeled rows "
            f"({n_labeled / C:.2f} rows per class; e.g. {shown}, ...): it looks like an identifier or free-text "
            "column, not class labels. Give the column of class labels with --label-column (the other columns "
            f"are: {_show_columns(others)}); graphrkhs label refuses more than {core_labels.ID_LIKE_MIN_CLASSES} classes "
            "with fewer than 2 labeled rows per class when most rows are labeled (to label such data anyway, use "
            "the Python API: PoissonRidgeEnsembleClassifier().fit(X, y)).")
    try:
        memory_guard(SCORE_COPIES * 8 * n * C, f"labeling {n} rows into {C} classes ({SCORE_COPIES} arrays of "
                     "rows x classes)", "label fewer rows at a time, or merge classes.")
    except MemoryError as exc:
        raise LabelCommandError(f"{exc} (--label-column {column!r})") from None


def _refuse_infinite_labels(column, raw_labels, labeled, lines, spec=""):
    """Refuse an infinite cell ("inf", "-Infinity") among numeric labels, as the Python API refuses infinite class
    labels, and a NaN cell that --unlabeled does not list (NaN is never a class in the Python API).  It made every
    label its cell's text (numbers are compared by value only when all are finite): the
    column's "1" and "1.0" became two classes, real-valued labels escaped their refusal, and "inf" a class of
    its own that took a third of the unlabeled rows."""
    values = [(i, _as_decimal(lab)) for i, (lab, m) in enumerate(zip(raw_labels, labeled)) if m]
    if not values or any(v is None for _, v in values):
        return                                   # text labels: "inf" is a word among words
    infinite = [i for i, v in values if v.is_infinite()]
    if infinite:
        i = infinite[0]
        more = f" and {len(infinite) - 1} more" if len(infinite) > 1 else ""
        raise LabelCommandError(
            f"the label column {column!r} holds an infinite value ({raw_labels[i]!r}, {_where(lines, i)}{more}) among "
            "its numeric labels: not a class label (the Python API refuses infinite labels too). Leave the cell "
            "empty if the row is unlabeled, or correct it.")
    # NaN cells that --unlabeled does not list (--unlabeled '' or =-1): the same text fallback made "1" and "1.0"
    # two classes and NaN a class, which the Python API never makes it (NaN always marks an unlabeled row)
    missing = [i for i, v in values if v.is_nan()]
    if missing:
        i = missing[0]
        more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
        listed = [t for t in _csv_list(spec, "--unlabeled", "token", "") if t.strip()] if isinstance(spec, str) else []
        fix = "--unlabeled=" + next(_csv_rows([listed + ["NaN"]]))
        raise LabelCommandError(
            f"the label column {column!r} holds NaN ({raw_labels[i]!r}, {_where(lines, i)}{more}) among its numeric "
            "labels, and --unlabeled does not list it: NaN is a missing value, not a class label (the Python API "
            f"reads it as unlabeled). Add NaN to --unlabeled ({fix}) or leave those cells empty.")


def _show_cell(cell):
    """A label cell in a message: numbers as written (-1), words quoted ('a')."""
    return cell if _as_number(cell) is not None else repr(cell)


def _check_minus_one_is_not_a_hidden_class(args, column, classes, names, raw_labels, labeled):
    """Refuse a numeric label column that marks unlabeled rows both with -1 and with another default token.

    -1 alone is the Python API's marker; next to empty (or NA, ...) cells, with integer classes, it is as likely
    a class (labels -1, 0, 1) that the default --unlabeled tokens would drop without a word."""
    if getattr(args, "unlabeled", ",".join(DEFAULT_UNLABELED)) != ",".join(DEFAULT_UNLABELED):
        return
    if not all(isinstance(c, decimal.Decimal) for c in classes):
        return
    minus, others, empty = [], {}, 0
    for cell, m in zip(raw_labels, labeled):
        if m:
            continue
        if _as_number(cell) == -1:
            minus.append(cell)
        elif not cell:
            empty += 1
        else:
            first, count = others.get(cell.casefold(), (cell, 0))
            others[cell.casefold()] = (first, count + 1)
    if not minus or not (empty or others):
        return
    shown = (["empty"] if empty else []) + [repr(first) for first, _ in others.values()]
    n_other = empty + sum(count for _, count in others.values())
    tokens = ",".join(next(iter(_csv_rows([[first]]))) for first, _ in others.values())
    as_class = f"--unlabeled={tokens}" if tokens else "--unlabeled ''"
    as_marker = "--unlabeled=-1" + (f",{tokens}" if tokens else "")
    spell = minus[0]
    raise LabelCommandError(
        f"column {column!r} marks unlabeled rows both with {spell} ({len(minus)} rows) and with "
        f"{' and '.join(shown)} cells ({n_other} rows), and its classes are numbers ("
        + ", ".join(names[:5]) + (", ..." if len(names) > 5 else "")
        + f"): {spell} may be a class; if -1 is a class, pass {as_class}; if -1 marks unlabeled rows too, "
        f"pass {as_marker}."
    )


def _csv_rows(rows):
    """Each row as one CSV record (no line end): the spelling of an --unlabeled list."""
    for row in rows:
        s = io.StringIO()
        csv.writer(s, lineterminator="").writerow(row)
        yield s.getvalue()


def _hidden_class_hint(args, raw_labels, labeled):
    """Why there may be one class only: non-empty cells that --unlabeled read as unlabeled (a class named
    in --unlabeled, e.g. --unlabeled a with classes {a, b}, or -1 of labels {-1, +1} with the defaults)."""
    tokens = {}
    for cell, m in zip(raw_labels, labeled):
        if not m and cell:
            key = cell.casefold() if _as_decimal(cell) is None else _as_decimal(cell)
            first, count = tokens.get(key, (cell, 0))
            tokens[key] = (first, count + 1)
    tokens = {k: v for k, v in tokens.items() if not (isinstance(k, decimal.Decimal) and k.is_nan())}
    if not tokens:
        return ""
    spec = getattr(args, "unlabeled", ",".join(DEFAULT_UNLABELED))
    if spec != ",".join(DEFAULT_UNLABELED):
        by = f"by --unlabeled {spec!r}"
    else:
        by = "by the default --unlabeled tokens" + (" (-1 marks unlabeled as in the Python API)"
                                                    if -1.0 in tokens else "")
    if len(tokens) == 1:
        (cell, count), = tokens.values()
        what, which = f"the {count} row(s) with {_show_cell(cell)}", f"if {_show_cell(cell)} is a class"
    else:
        what = "the rows with " + ", ".join(f"{_show_cell(cell)} ({count})" for cell, count in tokens.values())
        which = "if one of these is a class"
    return (f"; {what} were read as unlabeled {by}: {which}, leave it out of --unlabeled (--unlabeled '' "
            "reads only empty cells as unlabeled)")


def _zscores(X):
    """Each column's z-scores, (x - mean) / std (a constant column: x - mean), without overflow.

    z-scores do not depend on a column's scale, so each column is first divided by its largest
    absolute value: computed directly, a column of values near 1e300 had a variance of inf (its
    z-scores 0: the column silently dropped), and near 1e308 a mean of inf (NaN features).
    """
    scale = np.max(np.abs(X), axis=0)
    X = X / np.where(scale > 0, scale, 1.0)
    std = X.std(axis=0)
    return (X - X.mean(axis=0)) / np.where(std > 0, std, 1.0)


def _warn_conflicting_copies(X, codes, labeled, names, lines, err):
    """Labeled rows with identical features and different labels, for every --method (one line): the library's
    check (:func:`graphrkhs._core.labels.conflicting_copies`), which the estimators run only on points, so that
    only poisson-ridge said it (the others fit a precomputed graph), and with 0-based rows and class codes."""
    from .._core.labels import conflicting_copies

    S = np.flatnonzero(labeled)
    groups = conflicting_copies(X[S], codes[S])
    if not groups:
        return
    G = S[groups[0][:4]]
    more = " ..." if groups[0].size > 4 else ""
    example = (f"{', '.join(_where(lines, i) for i in G[:-1])} and {_where(lines, G[-1])}{more} labeled "
               f"{', '.join(_show_cell(names[codes[i]]) for i in G)}")
    print(f"graphrkhs label: warning: {len(groups)} group(s) of labeled rows with identical features carry "
          f"different labels ({sum(g.size for g in groups)} rows; e.g. {example}); each keeps its given label in "
          "the output, and the graph joins the copies at distance 0, so their neighbours get a mix of these labels; "
          "deduplicate or relabel the rows if they are mistakes.", file=err)


def _warn_case_variants(column, names, err):
    """Text classes that differ only in upper / lower case (``setosa``, ``Setosa``) are two classes, as the
    Python API reads them; a typing slip that splits one class in two is likely, so say so (one line)."""
    groups = {}
    for name in names:
        groups.setdefault(name.casefold(), []).append(name)
    variants = [g for g in groups.values() if len(g) > 1]
    if variants:
        shown = "; ".join(" and ".join(repr(v) for v in g) for g in variants[:3]) + ("; ..." if len(variants) > 3
                                                                                  else "")
        print(f"graphrkhs label: warning: classes of {column!r} that differ only in upper/lower case ({shown}) are "
              "labeled as different classes; if they are one class, write them alike in the file.", file=err)


def _warn_minus_one_class(args, column, raw_labels, classes, names, labeled_codes, err):
    """The Python API's LabelCollisionWarning for the default tokens: -1 read as unlabeled although it looks
    like a class (integer classes, and -1 as frequent as the largest class or between two classes)."""
    if getattr(args, "unlabeled", ",".join(DEFAULT_UNLABELED)) != ",".join(DEFAULT_UNLABELED):
        return                               # the user chose the tokens
    n_minus_one = sum(1 for c in raw_labels if _as_number(c) == -1.0)
    if not n_minus_one or not all(isinstance(c, decimal.Decimal) and c == c.to_integral_value() for c in classes):
        return
    largest = int(np.bincount(labeled_codes, minlength=len(classes)).max())
    if n_minus_one <= largest or classes[0] < -1 < classes[-1]:
        print(f"graphrkhs label: warning (LabelCollisionWarning): the {n_minus_one} row(s) with -1 in "
              f"{column!r} were read as unlabeled (-1 is a missing-label token by default, as in the "
              f"Python API), but -1 looks like one of the classes ({', '.join(['-1'] + list(names))}); if it is, "
              "pass --unlabeled '' (or the token your file uses for unlabeled rows).", file=err)


def _warn_wrapped_minus_one(args, path, column, dtype, raw_labels, labeled, err):
    """The Python API's LabelCollisionWarning on an unsigned label array of an .npz file that holds -1 cast to
    its dtype (``np.array([0, 1, -1]).astype(np.uint8)`` is ``[0, 1, 255]``): the default --unlabeled tokens
    read the labels as text, so the rows meant unlabeled were a class 255 without a word."""
    from .._core.labels import wrapped_minus_one

    if dtype is None or getattr(args, "unlabeled", ",".join(DEFAULT_UNLABELED)) != ",".join(DEFAULT_UNLABELED):
        return                               # a CSV file, or the user chose the tokens
    top = wrapped_minus_one(dtype)
    if top is None:
        return
    n_top = sum(1 for cell, m in zip(raw_labels, labeled) if m and cell == str(top))
    if n_top:
        print(f"graphrkhs label: warning (LabelCollisionWarning): {path}: the label array {column!r} is {dtype} and "
              f"holds {top} ({n_top} rows), which is -1 cast to {dtype}: it is labeled as a class {top}; if these "
              f"rows are unlabeled, pass --unlabeled={top} (or save the labels in a signed dtype such as "
              f"int64, with -1 for the unlabeled rows); if {top} is a class, pass --unlabeled=-1 to silence "
              "this warning.", file=err)


def _scores_to_confidence(scores):
    """Per-row class shares in [0, 1] summing to 1 (the ``confidence`` column is the predicted class's share).

    :math:`p_c = (s_c - m) / \\sum_{c'} (s_{c'} - m)`, :math:`m = \\min(0, \\min_c s_c)`:
    the scores passed here (the harmonic solution, or an estimator's
    ``label_distributions_``: for Poisson learning and kernel ridge the softmax
    of its signed class scores) are non-negative class weights and are only
    normalized; signed scores would be shifted per row so that the least
    likely class has share 0.  A row of equal scores
    gets the uniform share 1/C.  The same formula serves labeled and unlabeled
    rows and every method.
    """
    scores = np.asarray(scores, dtype=np.float64)
    shifted = scores - np.minimum(scores.min(axis=1, keepdims=True), 0.0)
    total = shifted.sum(axis=1, keepdims=True)
    uniform = np.full_like(shifted, 1.0 / shifted.shape[1])
    return np.where(total > 0, shifted / np.where(total > 0, total, 1.0), uniform)


def _class_sort_key(label):
    try:
        return (0, float(label), label)
    except ValueError:
        return (1, 0.0, label)


LABEL_METHODS = ("poisson-ridge", "laplace", "poisson", "tikhonov", "kernel-ridge")


def _recommended_scores(X, codes, n_classes, k, verbose=False, random_state=None):
    """(n, n_classes) class probabilities of :class:`~graphrkhs.PoissonRidgeEnsembleClassifier` with its
    defaults (``n_neighbors=k``; it builds its own ``graph="auto"`` graph from X, with the progress bar of the
    other methods' graph when ``verbose``, and the seed ``random_state`` of its kNN search), and its graph spec."""
    from ..estimators import PoissonRidgeEnsembleClassifier

    # codes: -1 marks the unlabeled rows (this command's own coding), so the marker is given explicitly
    model = PoissonRidgeEnsembleClassifier(n_neighbors=k, unlabeled=-1, verbose=verbose,
                                           random_state=random_state).fit(X, codes)
    full = np.zeros((X.shape[0], n_classes))
    full[:, np.asarray(model.classes_, dtype=int)] = model.label_distributions_
    return full, model.graph_spec_


def _label_scores(method, W, codes, n_classes, alpha=None):
    """(n, n_classes) class scores of every row by the chosen transductive method."""
    from .._core.labels import one_hot
    from .. import estimators
    from ..solvers import harmonic_solution

    labeled = codes >= 0
    if method == "laplace":
        return harmonic_solution(W, np.flatnonzero(labeled), one_hot(codes[labeled], n_classes))
    estimator = {
        "poisson": "PoissonLearningClassifier",
        "tikhonov": "LaplacianRegularizationClassifier",
        "kernel-ridge": "GraphKernelRidgeClassifier",
    }[method]
    cls = getattr(estimators, estimator, None)
    if cls is None:
        raise LabelCommandError(f"method {method!r} is not available in this version; use 'laplace'.")
    # codes: -1 marks the unlabeled rows (this command's own coding), so the marker is given explicitly
    kwargs = dict(graph="precomputed", unlabeled=-1) if method != "tikhonov" else dict(
        alpha=alpha, graph="precomputed", unlabeled=-1)
    model = cls(**kwargs).fit(W, codes)
    scores = np.asarray(model.label_distributions_, dtype=np.float64)
    # label_distributions_ columns follow classes_ (the codes 0..n_classes-1 present).
    full = np.zeros((W.shape[0], n_classes))
    full[:, np.asarray(model.classes_, dtype=int)] = scores
    return full
