"""Every gallery script ``examples/plot_*.py`` runs to completion.

The scripts are discovered when the tests are collected, so a new example is
tested without touching this file.  Each runs in a fresh process of its own (no
state leaks between scripts, a crash or a hung script cannot take the test run
down with it) with the non-interactive matplotlib backend "Agg", in an empty
temporary working directory (scripts must not depend on the directory they are
started from), as ``__main__`` with the script's directory first on
``sys.path``, and is killed after ``GRAPHRKHS_EXAMPLE_TIMEOUT`` seconds
(default 600: a guard against a hung script, not a time limit -- at 60 s a
script of the 30 s budget failed on a 2-core machine at load 8); its exit status is the one ``python script.py`` would return (an
exception: 1, ``sys.exit(n)``: n, a signal: minus its number).

The processes are forked from one server interpreter that has imported numpy,
scipy, scikit-learn, matplotlib and graphrkhs once (``PRELOAD``) and runs no
script itself: those imports took about half of the examples' time when every
script started a new interpreter.

The gallery's budget is 30 s per script on two cores.  No test asserts a wall
clock time; a script over budget is reported as a warning in the test summary.
"""

import os
import select
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SCRIPTS = sorted(EXAMPLES.glob("plot_*.py"))
TIMEOUT = float(os.environ.get("GRAPHRKHS_EXAMPLE_TIMEOUT", "600"))
BUDGET = 30.0


def _tail(text, n=40):
    if isinstance(text, bytes):  # TimeoutExpired keeps bytes even with text=True
        text = text.decode(errors="replace")
    lines = (text or "").splitlines()
    return "\n".join(lines[-n:])


# A fork server: one interpreter imports the modules every script imports, once, then forks a fresh
# child process per script. The child redirects its output to files, changes to the script's working
# directory and runs the script as __main__ (what `python script.py` does); the server reports the
# child's process id and, when it ends, its exit status as `python script.py` would have returned it.
PRELOAD = ("numpy", "scipy.sparse", "scipy.sparse.linalg", "sklearn", "matplotlib.pyplot", "graphrkhs")
_SERVER = r"""
import os, runpy, sys, traceback
for name in sys.argv[1:]:
    __import__(name)
report = os.fdopen(os.dup(1), "w", buffering=1)
report.write("ready\n")
for line in sys.stdin:
    script, cwd, out_path, err_path = line.rstrip("\n").split("\t")
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            for fd, path, flags in ((0, os.devnull, os.O_RDONLY),
                                    (1, out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
                                    (2, err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)):
                new = os.open(path, flags, 0o644)
                os.dup2(new, fd)
                os.close(new)
            sys.stdin = open(0, closefd=False)
            sys.stdout = open(1, "w", buffering=1, closefd=False)
            sys.stderr = open(2, "w", buffering=1, closefd=False)
            os.chdir(cwd)
            sys.argv = [script]
            sys.path[0] = os.path.dirname(script)
            try:
                runpy.run_path(script, run_name="__main__")
                code = 0
            except SystemExit as exc:
                if exc.code is None or isinstance(exc.code, int):
                    code = exc.code or 0
                else:
                    print(exc.code, file=sys.stderr)
            except BaseException:
                traceback.print_exc()
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)
    report.write(f"{pid}\n")
    _, status = os.waitpid(pid, 0)
    report.write(f"{os.waitstatus_to_exitcode(status)}\n")
"""


def _readline(proc, deadline):
    """The server's next report line, or None when ``deadline`` (perf_counter) passes first."""
    fd = proc.stdout.fileno()
    line = b""
    while not line.endswith(b"\n"):
        if not select.select([fd], [], [], max(deadline - time.perf_counter(), 0))[0]:
            return None
        chunk = os.read(fd, 1)
        if not chunk:
            raise RuntimeError(f"the example server ended (exit status {proc.wait()}); see its stderr above")
        line += chunk
    return line.decode().strip()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    env = dict(os.environ)
    env["MPLBACKEND"] = "Agg"
    # Scripts may import helpers that live next to them.
    env["PYTHONPATH"] = os.pathsep.join(
        [str(EXAMPLES)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    proc = subprocess.Popen([sys.executable, "-c", _SERVER, *PRELOAD], cwd=tmp_path_factory.mktemp("server"),
                            env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    try:
        if _readline(proc, time.perf_counter() + TIMEOUT) != "ready":
            pytest.fail(f"the example server did not import {PRELOAD} within {TIMEOUT:g} s")
        yield proc
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()


@pytest.mark.parametrize("script", SCRIPTS, ids=[p.name for p in SCRIPTS])
def test_example_runs(script, server, tmp_path):
    cwd = tmp_path / "cwd"                  # empty: the output files are kept beside it
    cwd.mkdir()
    out, err = tmp_path / "stdout.txt", tmp_path / "stderr.txt"
    start = time.perf_counter()
    server.stdin.write(f"{script}\t{cwd}\t{out}\t{err}\n".encode())
    pid = int(_readline(server, start + TIMEOUT))
    status = _readline(server, start + TIMEOUT)
    if status is None:
        os.kill(pid, signal.SIGKILL)
        _readline(server, time.perf_counter() + TIMEOUT)   # its exit status, -9
        pytest.fail(f"{script.name} did not finish within {TIMEOUT:g} s (killed).\n"
                    f"--- last output ---\n{_tail(out.read_text(errors='replace'))}\n"
                    f"--- last stderr ---\n{_tail(err.read_text(errors='replace'))}")
    elapsed = time.perf_counter() - start
    returncode = int(status)
    assert returncode == 0, (
        f"{script.name} exited with status {returncode} after {elapsed:.1f} s.\n"
        f"--- stderr (last lines) ---\n{_tail(err.read_text(errors='replace'))}")
    if elapsed > BUDGET:
        warnings.warn(f"{script.name} took {elapsed:.1f} s, over the gallery budget of "
                      f"{BUDGET:g} s per script", UserWarning)
