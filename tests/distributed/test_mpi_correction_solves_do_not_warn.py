"""The MPI backend's refinement correction solves give no AccuracyWarning of their own, as serially.

``_solve_spd`` refines an iterative solve by correction solves whose relative error is not that of the
solution (``warn_now=False``: serially no forward-error warning).  The MPI ``solve_spd`` checked every solve
(``forward_checked``) and warned regardless: on a graph with 8 linked outliers (600 nodes, plain CG, tol 1e-8)
``harmonic_solution(..., backend="mpi")`` said "the CG solve met its residual test but its estimated forward
error ..." while its solution was 1.8e-9 off, as the serial one, which says nothing.  Runs under plain pytest
(one rank) and ``mpiexec -n 2``.
"""

import importlib.util
import pathlib
import warnings

import numpy as np

import graphrkhs as gr


def _forward_error_module():
    spec = importlib.util.spec_from_file_location(
        "_cg_forward_error", pathlib.Path(__file__).parents[1] / "solvers" / "test_cg_forward_error.py")
    fe = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fe)
    return fe


def test_harmonic_solution_on_mpi_warns_as_the_serial_solve(comm):
    fe = _forward_error_module()
    W, S, Y = fe._outlier_graph(600, 8, 5.5, 5, 3)
    F_ref = fe._refined_harmonic(W, S, Y)
    said = {}
    for backend in ("numpy", "mpi"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            F = gr.harmonic_solution(W, S, Y, preconditioner=None, tol=1e-8, backend=backend)
        said[backend] = [str(w.message) for w in caught if issubclass(w.category, gr.AccuracyWarning)]
        assert np.abs(F - F_ref).max() <= 10 * 1e-8 * np.abs(F_ref).max()
    assert said["numpy"] == []
    assert said["mpi"] == said["numpy"]
