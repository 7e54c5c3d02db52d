r"""A launcher for notebooks: run a script on P MPI processes from a Python session.

A notebook kernel is one process; the MPI backend needs ``mpiexec``.
:func:`run_mpi` runs ``mpiexec -n P python script.py args...`` with the
notebook's own Python (so the same environment), waits for it and returns its
exit status and output.  The launcher's own MPI variables are removed from
the child's environment, so it also works from a process that was itself
started by ``mpiexec``.
"""

import os
import shutil
import subprocess
import sys

from .._core.validation import check_scalar
from ._comm import RANK_PID_VARIABLE

__all__ = ["run_mpi"]

# Variables through which a launcher tells a process it belongs to an MPI job; a nested mpiexec must not inherit them.
_LAUNCHER_PREFIXES = ("PMI_", "PMIX_", "HYDRA_", "MPI_LOCAL", "OMPI_", "MV2_")


def run_mpi(script, n_procs=2, args=(), *, mpiexec=None, timeout=None, check=True, capture=True):
    r"""Run ``script`` under ``mpiexec -n n_procs`` with this Python interpreter.

    Parameters
    ----------
    script : str or path
        The Python script (the same one that runs serially: ``backend="auto"``
        switches to MPI inside it).
    n_procs : int >= 1, default=2
    args : sequence of str
        Extra command-line arguments of the script.
    mpiexec : str, optional
        The launcher; default ``mpiexec`` on the PATH (the ``mpich`` wheel of
        ``pip install 'graphrkhs[mpi]'`` installs one).
    timeout : float, optional
        Seconds before the run is killed (``subprocess.TimeoutExpired``).
    check : bool, default=True
        Raise ``subprocess.CalledProcessError`` (with the output) on a non-zero exit.
    capture : bool, default=True
        Return the output instead of letting it through to the terminal.

    Returns
    -------
    subprocess.CompletedProcess
        ``stdout`` / ``stderr`` hold the output of all ranks (text).

    Examples
    --------
    In a notebook::

        from graphrkhs.distributed import run_mpi
        out = run_mpi("label.py", 4, ["--n", "1000000"])
        print(out.stdout)
    """
    n_procs = check_scalar(n_procs, "n_procs", kind="int", low=1)   # int(2.5) launched 2 processes
    if isinstance(args, (str, bytes)):
        # a string is a sequence of characters: "--n 1000" launched the script with '-', '-', 'n', ' ', ...
        words = (args.decode(errors="replace") if isinstance(args, bytes) else args).split()
        raise TypeError(f"args must be a sequence of arguments (a list such as ['--n', '1000']); got the "
                        f"{type(args).__name__} {args!r}: pass {words!r}.")
    if not os.path.isfile(script):
        raise FileNotFoundError(f"script {script!r} does not exist.")
    launcher = mpiexec or shutil.which("mpiexec")
    if launcher is None:
        raise FileNotFoundError("no mpiexec on the PATH: pip install 'graphrkhs[mpi]' (the mpich wheel provides "
                                "one) or pass mpiexec='/path/to/mpiexec'.")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(_LAUNCHER_PREFIXES) and k != RANK_PID_VARIABLE}
    cmd = [launcher, "-n", str(n_procs), sys.executable, os.fspath(script), *map(str, args)]
    return subprocess.run(cmd, env=env, timeout=timeout, check=check, capture_output=capture, text=True)
