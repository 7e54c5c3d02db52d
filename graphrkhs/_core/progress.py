"""Progress reporting and logging: one way for the whole library.

Library code never prints.  Two channels:

* ``logging.getLogger("graphrkhs")`` (a ``NullHandler`` is attached in
  ``graphrkhs/__init__.py``) for messages about what is being done;
* tqdm progress bars for steps that can take more than a few seconds (kNN
  search, AMG set-up, CG, Chebyshev on many signals, hyperparameter grids).

Bars are off by default.  They are switched on

* by a ``verbose=True`` argument of a public function or estimator, which
  holds for everything called inside it (a context variable, so a CG solve
  deep inside an estimator's ``fit`` shows its bar too), or
* for the whole program by the logger: ``logging.getLogger("graphrkhs")``
  at level ``INFO`` or lower turns them on, like ``verbose=True``
  everywhere (``verbose=False`` given explicitly still silences a call).

The command line turns them on by default.

Usage inside the library::

    from .._core.progress import logger, progress_bar, verbosity

    def knn_graph(X, ..., verbose=False):
        with verbosity(verbose):
            with progress_bar(total=n_blocks, desc="kNN search") as bar:
                for block in ...:
                    ...
                    bar.update(1)
            logger.info("kNN graph: %d nodes, %d edges", n, nnz)
"""

import contextlib
import contextvars
import logging

__all__ = ["logger", "verbosity", "progress_enabled", "progress_bar", "progress_iter"]

logger = logging.getLogger("graphrkhs")

# None: not decided by any caller (follow the logger); True / False: decided.
_VERBOSE = contextvars.ContextVar("graphrkhs_verbose", default=None)


@contextlib.contextmanager
def verbosity(verbose):
    """Within the block, progress bars are on (``True``), off (``False``) or as the
    caller decided (``None``: an enclosing ``verbosity`` or the logger's level).

    ``verbose`` may also be an int, as in scikit-learn: 0 is False, > 0 True.
    """
    if verbose is None:
        yield
        return
    token = _VERBOSE.set(bool(verbose))
    try:
        yield
    finally:
        _VERBOSE.reset(token)


def progress_enabled():
    """Whether a progress bar started now would be shown."""
    decided = _VERBOSE.get()
    if decided is not None:
        return decided
    return logger.isEnabledFor(logging.INFO)


class _NoBar:
    """The do-nothing bar used when progress is off (no tqdm import, no output)."""

    n = 0

    def update(self, n=1):
        self.n += n

    def set_postfix_str(self, s=None, refresh=True):
        pass

    def set_description_str(self, s=None, refresh=True):
        pass

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def progress_bar(total=None, desc=None, unit="it", leave=False):
    """A tqdm bar when progress is enabled, else a no-op object with the same
    ``update`` / ``set_postfix_str`` / ``close`` methods (usable as a context manager)."""
    if not progress_enabled():
        return _NoBar()
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=f"graphrkhs: {desc}" if desc else "graphrkhs", unit=unit, leave=leave,
                dynamic_ncols=True)


def progress_iter(iterable, total=None, desc=None, unit="it", leave=False):
    """Iterate ``iterable`` under a progress bar when progress is enabled."""
    if not progress_enabled():
        return iterable
    from tqdm.auto import tqdm

    return tqdm(iterable, total=total, desc=f"graphrkhs: {desc}" if desc else "graphrkhs", unit=unit,
                leave=leave, dynamic_ncols=True)


class _Progress:
    """Stage messages of a long computation, as ``logging`` records (INFO) of the
    ``graphrkhs`` logger, emitted while progress is enabled (``verbose=True`` or
    the logger at INFO)."""

    def __init__(self, verbose, what):
        self.verbose = verbose
        self.what = what

    def __call__(self, message):
        if self.verbose or (self.verbose is None and progress_enabled()):
            logger.info("%s: %s", self.what, message)
