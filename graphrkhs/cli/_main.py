"""The ``graphrkhs`` command.

``graphrkhs demo`` labels scikit-learn's bundled digits (1797 points) from a
few labels per class with the library's graph methods and prints their
accuracy and time beside scikit-learn's :class:`LabelSpreading`.

Progress bars (and stage messages of long steps) are on by default on the
command line, on standard error; ``--quiet`` switches them off.  Results go
to standard output either way.
"""

import argparse
import os
import sys


from .._core.progress import verbosity
from ._demo import _demo_plot, demo
from ._label import _descriptor_alias, _int_option, _special_file_kind

__all__ = ["main", "build_parser"]


class _Parser(argparse.ArgumentParser):
    """argparse's parser, with a short usage line above a usage error.

    argparse prints its whole usage block (every option of ``graphrkhs label``, wrapped over 6
    lines) above the one line that says what is wrong; here an error is two lines: the
    ``short_usage`` and the error.  ``--help`` keeps the complete usage and every option.
    """

    def __init__(self, *args, short_usage=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.short_usage = short_usage or f"{self.prog} [options]"

    def error(self, message):
        self.exit(2, f"usage: {self.short_usage} (-h for help)\n{self.prog}: error: {message}\n")


def build_parser():
    parser = _Parser(
        prog="graphrkhs", short_usage="graphrkhs COMMAND [options]",
        description="Learning on graphs with reproducing-kernel Hilbert spaces.",
    )
    # Every command takes --quiet (after the command name, where users type options).
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("-q", "--quiet", action="store_true",
                        help="no progress bars or progress messages on stderr (default: shown)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    p_demo = sub.add_parser(
        "demo", parents=[common], short_usage="graphrkhs demo [options]", help="label the digits from a few labels per class and compare with scikit-learn",
        description="Transductive labeling of scikit-learn's bundled digits (1797 points) from a few labels "
                    "per class; prints accuracy on the unlabeled points and time per method.")
    # a command's usage errors show that command's usage line ("graphrkhs demo [-h] ..."), not the top level's
    p_demo.set_defaults(command_parser=p_demo)
    p_demo.add_argument("--labels-per-class", type=_int_option, default=10, metavar="N",
                        help="labels kept per class (default: 10)")
    p_demo.add_argument("--draws", type=_int_option, default=5, metavar="N",
                        help="random label draws to average over (default: 5)")
    p_demo.add_argument("--neighbors", type=_int_option, default=10, metavar="K",
                        help="k of the kNN graph (default: 10)")
    p_demo.add_argument("--seed", type=_int_option, default=0, help="random seed of the label draws (default: 0)")
    p_demo.add_argument("--plot", metavar="FILE.png", default=None,
                        help="save a picture: 2-D embedding of the digits coloured by the best method's "
                             "predicted label, mistakes circled (t-SNE view; needs matplotlib)")

    from ._label import DEFAULT_METHOD, LABEL_METHODS, add_label_options

    p_label = sub.add_parser(
        "label", parents=[common], short_usage="graphrkhs label INPUT --label-column COL [options]", help="label the unlabeled rows of your CSV (or .npz) file",
        description="Read a CSV file (or .npz), treat empty/NaN cells of the label column as unlabeled, build a "
                    "kNN graph on the (standardized) feature columns, label every row, and write the rows back "
                    "with a predicted-label and a confidence column. Never overwrites the input.",
        epilog="example: graphrkhs label data.csv --label-column species --output labeled.csv")
    p_label.add_argument("input", metavar="INPUT", help="CSV (or TSV) file with a header row, or .npz file of named "
                         "arrays (features in 'X' or one array per feature, labels in LABEL_COLUMN); the --unlabeled "
                         "cells (by default empty, NaN, -1, ...) mark the rows to label")
    p_label.add_argument("--label-column", required=True, metavar="COL",
                         help="the column with the known labels; cells listed by --unlabeled mark unlabeled rows")
    p_label.add_argument("--features", metavar="COLS", default=None,
                         help="comma-separated feature columns (default: every other column); quote a name that holds a "
                              "comma as in a CSV file: --features 'x,\"width, cm\"'")
    p_label.add_argument("--method", choices=LABEL_METHODS, default=DEFAULT_METHOD,
                         help="transductive method (default: poisson-ridge, the library's recommended "
                              "classifier: Poisson learning and graph kernel ridge on one graph, standardized "
                              "scores averaged (PoissonRidgeEnsembleClassifier), on its own graph: cosine "
                              "self-tuning kNN for >= 32 non-negative feature columns (images, counts; kept "
                              "unstandardized), else Euclidean Gaussian kNN; laplace is the harmonic solution, "
                              "poisson, tikhonov and kernel-ridge the single methods, these on a self-tuning "
                              "kNN graph)")
    p_label.add_argument("--output", metavar="OUT.csv", default=None,
                         help="where to write the labeled rows, as CSV (tab-separated when named .tsv or .tab; "
                              "default: INPUT with suffix .labeled.csv); '-' writes them to standard output, as "
                              "comma-separated CSV, and the summary to standard error")
    p_label.add_argument("--neighbors", type=_int_option, default=None, metavar="K",
                         help="k of the kNN graph, below the number of rows (default: 10, or the number of rows - 1 "
                              "for a smaller file)")
    p_label.add_argument("--no-standardize", action="store_true",
                         help="use the features as they are (default: z-score each feature column first, so "
                              "that columns in large units do not dominate the distances -- except with "
                              "--method poisson-ridge on >= 32 non-negative columns with no all-zero row, which "
                              "builds a cosine graph on the raw features)")
    p_label.add_argument("--labels-per-class-report", action="store_true",
                         help="print a table of labeled and predicted counts and mean confidence per class")
    p_label.add_argument("--force", action="store_true", help="overwrite OUT if it exists (never the input)")
    p_label.set_defaults(command_parser=p_label)
    add_label_options(p_label)  # --unlabeled, --alpha; description (defined with the command in _label.py)
    return parser


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        # a usage error like any other: the usage line and one error line on stderr, exit status 2
        parser.error("give a command: demo or label (graphrkhs COMMAND -h for its options)")
    # The demo's point is its table: bars (for anything slow) but no stage messages around it.
    try:
        with verbosity(not args.quiet, messages=args.command != "demo"):
            return _run(parser, args)
    except BrokenPipeError:
        # the reader of standard output has gone (graphrkhs label ... | head -1): end quietly, with the
        # status of a command killed by SIGPIPE, not a traceback and the internal-error status 1
        _silence_stdout()
        return SIGPIPE_STATUS


#: Exit status when standard output is closed by its reader: 128 + SIGPIPE, as a shell reports a command
#: killed by the signal.
SIGPIPE_STATUS = 141


def _silence_stdout():
    """Point standard output at /dev/null, so that Python's flush at exit does not raise again."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):   # a replaced stream (tests): nothing to redirect
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


def _run(parser, args):
    parser = getattr(args, "command_parser", parser)
    if args.command == "demo":
        for name in ("labels_per_class", "draws", "neighbors"):
            if getattr(args, name) < 1:
                parser.error(f"--{name.replace('_', '-')} must be at least 1")
        if args.seed < 0:  # numpy's generators take seeds >= 0 only
            parser.error(f"--seed must be a non-negative integer; got {args.seed}")
        _check_demo_args(parser, args)          # before the fits, not after a minute of them
        rows = demo(args.labels_per_class, args.draws, args.neighbors, args.seed)
        if args.plot:
            _demo_plot(args.plot, rows, args.labels_per_class, args.neighbors, args.seed)
        return 0
    if args.command == "label":
        from ._label import LabelCommandError, LabelUsageError, run_label

        try:
            run_label(args)
        except LabelUsageError as exc:
            parser.error(str(exc))   # a bad option value: the usage line and the error, as argparse's
        except LabelCommandError as exc:
            print(f"graphrkhs label: error: {exc}", file=sys.stderr)
            return 2
        return 0
    parser.error(f"unknown command {args.command}")  # pragma: no cover


def _check_demo_args(parser, args):
    """The demo's user errors that would otherwise surface only after its fits."""
    import numpy as np

    from ..datasets import load_digits

    if args.plot is not None and not args.plot.strip():
        # --plot "$OUT" with OUT unset: every fit ran, then no picture was saved, without a word
        parser.error("--plot is empty; give a file name for the picture, e.g. digits.png")
    y = load_digits()[1]
    smallest = int(np.bincount(y).min())
    if args.neighbors >= y.shape[0]:
        parser.error(f"--neighbors must be below {y.shape[0]}, the number of digit images")
    if args.labels_per_class >= smallest:
        parser.error(f"--labels-per-class must be below {smallest}: the smallest digit class has {smallest} "
                     "images, and labeling needs unlabeled ones")
    if args.plot:
        if os.path.isdir(args.plot):
            parser.error(f"--plot: {args.plot} is a directory; give a file name, e.g. "
                         f"{os.path.join(args.plot, 'digits.png')}")
        kind = _special_file_kind(args.plot)
        if kind:
            # matplotlib would write the PNG into it after the fits (a named pipe without a reader: a hang)
            parser.error(f"--plot: {args.plot} is not a regular file ({kind}); give a file name for the "
                         "picture, e.g. digits.png")
        alias = _descriptor_alias(args.plot)
        if alias:
            # /dev/stdout redirected to a file: the PNG went into that file after the table
            parser.error(f"--plot: {args.plot} is an open file descriptor ({alias}), such as the standard output; "
                         "give a file name for the picture, e.g. digits.png")
        parent = os.path.dirname(os.path.abspath(args.plot))
        if not os.path.isdir(parent):
            parser.error(f"--plot: the directory does not exist: {parent}")
        if not os.access(parent, os.W_OK):
            parser.error(f"--plot: the directory is not writable: {parent}")
        try:
            from matplotlib.backend_bases import FigureCanvasBase
        except ImportError:
            parser.error("--plot needs matplotlib (pip install matplotlib)")
        # the picture's format is the file's extension (none: PNG); matplotlib would refuse
        # an unknown one only when saving, after the fits
        ext = os.path.splitext(args.plot)[1][1:].lower()
        formats = FigureCanvasBase.get_supported_filetypes()
        if ext and ext not in formats:
            parser.error(f"--plot: matplotlib cannot save .{ext} files; name the file .png (or one of "
                         f"{', '.join('.' + f for f in sorted(formats))})")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
