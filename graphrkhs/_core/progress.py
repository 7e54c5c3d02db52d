"""Progress reporting."""

import sys
import time


class _Progress:
    """Timestamps on stderr when the user asked for ``verbose=True``; silent otherwise."""

    def __init__(self, verbose, what):
        self.verbose = bool(verbose)
        self.what = what
        self.t0 = time.perf_counter()

    def __call__(self, message):
        if self.verbose:
            print(f"[graphrkhs.{self.what} {time.perf_counter() - self.t0:7.2f}s] {message}",
                  file=sys.stderr, flush=True)

