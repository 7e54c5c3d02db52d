"""The CSV input files of the ``graphrkhs label`` tests: one writer for the headers, cells, separators, line
endings and encodings they need.

The test modules of this folder import it by name (``from cli_csv import ...``): the test tree has no
``__init__.py``, so pytest's default ("prepend") import mode puts this folder on ``sys.path`` before it imports
them.  (Not ``_csv.py``: that name is the standard library's C module behind :mod:`csv`, which this folder on
``sys.path`` would shadow.)
"""

import csv
import io


def number_rows(X, *columns, decimals=None):
    """Rows of cells: each row of the numbers ``X`` and then its cell of each of ``columns`` (label texts).

    ``decimals=None`` writes each number as Python's shortest round-trip text (``repr(float(v))``: the file
    holds the exact float), an integer ``decimals`` with that many digits after the point (``f"{v:.6f}"``).
    """
    spec = "" if decimals is None else f".{decimals}f"     # format(v, "") of a float is its repr
    return [[format(float(v), spec) for v in x] + [column[i] for column in columns] for i, x in enumerate(X)]


def csv_text(header, rows, **dialect):
    """The text of a CSV file: the ``header`` row, then ``rows`` (lists of cell texts), written by
    :func:`csv.writer` with the format parameters ``dialect`` (``delimiter``, ``lineterminator``, ``quoting``);
    its defaults: commas, cells holding a comma, a quote or a line break quoted, and ``"\\r\\n"`` line endings,
    as spreadsheets write them."""
    s = io.StringIO()
    w = csv.writer(s, **dialect)
    w.writerow(header)
    w.writerows(rows)
    return s.getvalue()


def write_csv(path, header, rows, *, encoding="utf-8", **dialect):
    """Write :func:`csv_text` of ``header``, ``rows`` and ``dialect`` to ``path`` in ``encoding``, byte for byte
    (no newline translation); returns ``path``."""
    with open(path, "w", newline="", encoding=encoding) as f:
        f.write(csv_text(header, rows, **dialect))
    return path


def read_csv(path):
    """The rows of the CSV file ``path`` (lists of cell texts, the header first), read as ``graphrkhs label``
    writes its output: UTF-8, line endings kept inside quoted cells (``newline=""``, as :mod:`csv` asks)."""
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))
