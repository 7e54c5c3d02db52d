"""Running the ``graphrkhs`` command in the test process, for the tests of this folder.

Imported by name (``from cli_run import run``), as :mod:`cli_csv` is: the test tree has no ``__init__.py``, so
pytest's default ("prepend") import mode puts this folder on ``sys.path`` before it imports the test modules.
"""

from graphrkhs import cli


def run(argv, capsys):
    """``(exit code, stdout, stderr)`` of ``graphrkhs`` with the arguments ``argv`` (a list of strings), run by
    :func:`graphrkhs.cli.main` in this process; ``capsys`` is pytest's fixture, whose captured text is read and
    cleared here."""
    code = cli.main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err
