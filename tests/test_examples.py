"""Every gallery script ``examples/plot_*.py`` runs to completion.

The scripts are discovered when the tests are collected, so a new example is
tested without touching this file.  Each runs in a fresh Python process (no
state leaks between scripts, a crash or a hung script cannot take the test run
down with it) with the non-interactive matplotlib backend "Agg", in a temporary
working directory (scripts must not depend on the directory they are started
from), and is killed after ``GRAPHRKHS_EXAMPLE_TIMEOUT`` seconds (default 60).

The gallery's budget is 30 s per script on two cores.  No test asserts a wall
clock time; a script over budget is reported as a warning in the test summary.
"""

import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SCRIPTS = sorted(EXAMPLES.glob("plot_*.py"))
TIMEOUT = float(os.environ.get("GRAPHRKHS_EXAMPLE_TIMEOUT", "60"))
BUDGET = 30.0


def _tail(text, n=40):
    if isinstance(text, bytes):  # TimeoutExpired keeps bytes even with text=True
        text = text.decode(errors="replace")
    lines = (text or "").splitlines()
    return "\n".join(lines[-n:])


@pytest.mark.parametrize("script", SCRIPTS, ids=[p.name for p in SCRIPTS])
def test_example_runs(script, tmp_path):
    env = dict(os.environ)
    env["MPLBACKEND"] = "Agg"
    # Scripts may import helpers that live next to them.
    env["PYTHONPATH"] = os.pathsep.join(
        [str(EXAMPLES)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    start = time.perf_counter()
    try:
        proc = subprocess.run(
            [sys.executable, str(script)], cwd=tmp_path, env=env,
            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"{script.name} did not finish within {TIMEOUT:g} s (killed).\n"
                    f"--- last output ---\n{_tail(exc.stdout)}\n"
                    f"--- last stderr ---\n{_tail(exc.stderr)}")
    elapsed = time.perf_counter() - start
    assert proc.returncode == 0, (
        f"{script.name} exited with status {proc.returncode} after {elapsed:.1f} s.\n"
        f"--- stderr (last lines) ---\n{_tail(proc.stderr)}")
    if elapsed > BUDGET:
        warnings.warn(f"{script.name} took {elapsed:.1f} s, over the gallery budget of "
                      f"{BUDGET:g} s per script", UserWarning)
