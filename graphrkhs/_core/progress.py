"""Progress reporting and logging: one way for the whole library.

Library code never prints.  Two channels:

* ``logging.getLogger("graphrkhs")`` (a ``NullHandler`` is attached in
  ``graphrkhs/__init__.py``, nothing else: the application decides where
  records go) for messages about what is being done;
* tqdm progress bars on standard error for steps that can take more than a
  few seconds (kNN search, AMG set-up, CG, Chebyshev on many signals,
  hyperparameter grids).

Both are off by default.  They are switched on

* by a ``verbose=True`` argument of a public function or estimator, which
  holds for everything called inside it (a context variable, so a CG solve
  deep inside an estimator's ``fit`` shows its bar too), or
* for the whole program by the logger: ``logging.getLogger("graphrkhs")``
  at level ``INFO`` or lower turns them on, like ``verbose=True``
  everywhere.  ``verbose=False`` given explicitly still silences a call and
  everything inside it; ``verbose=None`` (the default of the functions)
  follows the enclosing call, else the logger.

Stage messages (:class:`_Progress`) are ``INFO`` records of the ``graphrkhs``
logger.  When no handler would show such a record (logging not configured,
the usual case in a script or notebook) but the call was made verbose, the
message is written to standard error instead, through ``tqdm.write`` so that
it does not break a running bar: ``verbose=True`` always shows something, and
a configured logger never gets the same line twice.

Bars appear only for steps that last longer than ``BAR_DELAY`` (half a
second): quick calls stay silent even when verbose.

The command line turns bars and messages on by default (``--quiet`` off; the
demo shows bars only, to keep its table readable).

Usage inside the library::

    from .._core.progress import _Progress, logger, progress_bar, verbosity

    def knn_graph(X, ..., verbose=None):
        with verbosity(verbose):
            progress = _Progress(None, "knn_graph")
            progress("searching ...")
            with progress_bar(total=n_blocks, desc="kNN search", unit="block") as bar:
                for block in ...:
                    ...
                    bar.update(1)
"""

import contextlib
import contextvars
import logging
import numbers
import sys
import time

import numpy as np

__all__ = ["logger", "verbosity", "progress_enabled", "progress_bar", "progress_iter", "progress_ticks"]

logger = logging.getLogger("graphrkhs")

# None: not decided by any caller (follow the logger); True / False: decided.
_VERBOSE = contextvars.ContextVar("graphrkhs_verbose", default=None)
# Whether stage messages may go to stderr when no logging handler shows them (the
# command line's demo keeps its table clean with bars only).
_MESSAGES = contextvars.ContextVar("graphrkhs_messages", default=True)

# A bar appears only once its step has run this long (seconds): quick steps stay silent
# even with verbose=True, long ones (the reason for the bars) show up after a moment.
BAR_DELAY = 0.5


def _decision(verbose):
    """``None`` stays undecided; ``True`` / ``False`` / ints (scikit-learn style, 0 is off) decide.

    The one place where a public ``verbose=`` becomes behaviour, so the one check of it: the
    values the estimators accept (their table: a bool, an int >= 0 or None; numpy bools and
    integers too).  Anything else raised here rather than read by ``bool()``: ``verbose="no"``
    would otherwise switch progress *on*.

    Raises
    ------
    TypeError
        ``verbose`` is not None, a bool or an int (a string, a float, a list ...).
    ValueError
        ``verbose`` is a negative int.
    """
    if verbose is None:
        return None
    if isinstance(verbose, (bool, np.bool_)):
        return bool(verbose)
    if not isinstance(verbose, (numbers.Integral, np.integer)):
        raise TypeError(f"verbose must be True, False, None or an int >= 0 (0 is off); got {verbose!r} "
                        f"of type {type(verbose).__name__}.")
    if verbose < 0:
        raise ValueError(f"verbose must be True, False, None or an int >= 0 (0 is off); got {verbose}.")
    return bool(verbose > 0)


@contextlib.contextmanager
def verbosity(verbose, *, messages=None):
    """Within the block, progress is on (``True``), off (``False``) or as the
    caller decided (``None``: an enclosing ``verbosity`` or the logger's level).

    ``verbose`` may also be an int, as in scikit-learn: 0 is False, > 0 True.  Any
    other value (a string, a float, a negative int) raises ``TypeError`` /
    ``ValueError`` naming ``verbose`` when the block is entered.
    ``messages=False`` keeps the bars but drops the stage messages that would go
    to stderr (records for configured logging handlers are still emitted);
    None leaves that as the caller decided.
    """
    decided = _decision(verbose)
    tokens = []
    if decided is not None:
        tokens.append((_VERBOSE, _VERBOSE.set(decided)))
    if messages is not None:
        tokens.append((_MESSAGES, _MESSAGES.set(bool(messages))))
    try:
        yield
    finally:
        for var, token in reversed(tokens):
            var.reset(token)


def progress_enabled():
    """Whether a progress bar started now would be shown."""
    decided = _VERBOSE.get()
    if decided is not None:
        return decided
    return logger.isEnabledFor(logging.INFO)


def _info_is_shown():
    """Whether an INFO record of the library logger reaches a handler that shows it
    (any handler on the way up except a ``NullHandler``, at a level <= INFO)."""
    if not logger.isEnabledFor(logging.INFO):
        return False
    node = logger
    while node is not None:
        for handler in node.handlers:
            if not isinstance(handler, logging.NullHandler) and handler.level <= logging.INFO:
                return True
        if not node.propagate:
            return False
        node = node.parent
    return False


def _write(line):
    """One line on standard error, above any running tqdm bar."""
    from tqdm.auto import tqdm

    tqdm.write(line, file=sys.stderr)


class _NoBar:
    """The do-nothing bar used when progress is off (no tqdm import, no output)."""

    n = 0
    disable = True

    def update(self, n=1):
        self.n += n

    def tick(self, n=1):
        pass

    def set_postfix_str(self, s=None, refresh=True):
        pass

    def set_postfix(self, ordered_dict=None, refresh=True, **kwargs):
        pass

    def set_description_str(self, s=None, refresh=True):
        pass

    def refresh(self):
        pass

    def close(self):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def _desc(desc):
    return f"graphrkhs: {desc}" if desc else "graphrkhs"


def progress_bar(total=None, desc=None, unit="it", leave=False):
    """A tqdm bar on standard error when progress is enabled, else a no-op object with
    the same ``update`` / ``set_postfix_str`` / ``close`` methods (both usable as a
    context manager).  The bar is drawn once the step has lasted ``BAR_DELAY``
    seconds (tqdm's ``delay``), so quick calls print nothing.

    ``total=None`` gives a counter without a percentage (CG iterations, AMG levels).
    Update it every few steps of a hot loop, not every step.
    """
    if not progress_enabled():
        return _NoBar()
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=_desc(desc), unit=unit, leave=leave, dynamic_ncols=True, file=sys.stderr,
                delay=BAR_DELAY)


class _Ticks:
    """Steps of a hot loop counted in Python ints, the bar moved every ``every`` of them."""

    disable = False

    def __init__(self, bar, every):
        self.bar = bar
        self.every = every
        self._pending = 0

    def tick(self, n=1):
        self._pending += n
        if self._pending >= self.every:
            self.bar.update(self._pending)
            self._pending = 0

    def set_postfix_str(self, s=None, refresh=False):
        self.bar.set_postfix_str(s, refresh=refresh)

    def close(self):
        if self._pending:
            self.bar.update(self._pending)
            self._pending = 0
        self.bar.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def progress_ticks(total, desc=None, unit="it", every=None, leave=False):
    """A bar for a hot loop: call ``.tick()`` once per step; the bar is redrawn every
    ``every`` steps only (default: a hundredth of ``total``), so the loop pays one
    integer addition per step.  A no-op object when progress is off."""
    if not progress_enabled():
        return _NoBar()
    if every is None:
        every = max(1, (total or 0) // 100)
    return _Ticks(progress_bar(total=total, desc=desc, unit=unit, leave=leave), int(every))


def progress_iter(iterable, total=None, desc=None, unit="it", leave=False):
    """Iterate ``iterable`` under a progress bar when progress is enabled."""
    if not progress_enabled():
        return iterable
    from tqdm.auto import tqdm

    return tqdm(iterable, total=total, desc=_desc(desc), unit=unit, leave=leave, dynamic_ncols=True,
                file=sys.stderr, delay=BAR_DELAY)


class _Progress:
    """Stage messages of a long computation.

    ``_Progress(verbose, what)(message)`` emits ``"<what>: <message> (<seconds> s)"``
    (seconds since the object was made) as an INFO record of the ``graphrkhs``
    logger, when progress is on: ``verbose`` true, or ``verbose=None`` and
    :func:`progress_enabled` at the time of the message.  ``verbose=False``
    silences it.  When no configured handler would show the record, the line
    goes to standard error (``tqdm.write``) instead.

    ``scope()`` is ``verbosity(verbose)``: an object that keeps the ``verbose``
    of its constructor (a kernel, an estimator) uses it to apply it to the work
    of its later method calls.
    """

    def __init__(self, verbose, what):
        # checked here, where the public function or object starts, before any of its work
        self._decided = _decision(verbose)
        self.verbose = verbose
        self.what = what
        self._start = time.perf_counter()

    def enabled(self):
        return progress_enabled() if self._decided is None else self._decided

    def scope(self):
        return verbosity(self.verbose)

    def __call__(self, message):
        if not self.enabled():
            return
        elapsed = time.perf_counter() - self._start
        if _info_is_shown():
            logger.info("%s: %s (%.1f s)", self.what, message, elapsed)
        elif _MESSAGES.get():
            _write(f"graphrkhs: {self.what}: {message} ({elapsed:.1f} s)")
