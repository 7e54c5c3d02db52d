"""An unconverged conjugate-gradient solve returns its last iterate, the one closest to the solution.

CG's k-th iterate minimizes the energy-norm error ||x - x*||_A over the k-th Krylov space, so that error falls
at every step (Hestenes & Stiefel 1952), while the residual ||b - A x|| may rise, even above the zero start's, on
an ill-conditioned A.  Returning an earlier iterate of smaller residual would return a point farther from x*
(for ridge-type systems: a higher value of the objective being minimized).  Oracle: plain CG written here.
"""
import warnings

import numpy as np
import pytest

from graphrkhs import conjugate_gradient
from graphrkhs.kernels import kernel_cg


def _ill_conditioned(n=120, seed=0):
    rng = np.random.default_rng(seed)
    Q, _ = np.linalg.qr(rng.normal(size=(n, n)))
    A = (Q * np.logspace(-5, 0, n)) @ Q.T
    return (A + A.T) / 2, rng.normal(size=(n, 3))


def _oracle_iterates(A, b, steps):
    x, r = np.zeros_like(b), b.copy()
    p, out = r.copy(), []
    for _ in range(steps):
        Ap = A @ p
        a = (r @ r) / (p @ Ap)
        x = x + a * p
        r_new = r - a * Ap
        p = r_new + (r_new @ r_new) / (r @ r) * p
        r = r_new
        out.append(x.copy())
    return out


def _energy_error(A, x, xs):
    e = x - xs
    return float(np.sqrt(e @ A @ e))


@pytest.mark.parametrize("solver", ["conjugate_gradient", "kernel_cg"])
def test_unconverged_solve_returns_the_last_iterate_of_least_energy_error(solver):
    A, B = _ill_conditioned()
    steps = 12
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if solver == "conjugate_gradient":
            X = conjugate_gradient(A, B, tol=1e-12, max_iter=steps, on_failure="ignore").x
        else:
            X, _ = kernel_cg(lambda P, GP: A @ P, lambda V: V, B, tol=1e-12, max_iter=steps, on_failure="ignore")
    for j in range(B.shape[1]):
        b = B[:, j]
        xs = np.linalg.solve(A, b)
        iterates = _oracle_iterates(A, b, steps)
        np.testing.assert_allclose(X[:, j], iterates[-1], rtol=1e-8, atol=1e-10 * np.linalg.norm(iterates[-1]))
        errors = [_energy_error(A, x, xs) for x in iterates]
        # the energy error falls at every step and is below the zero start's ...
        assert all(e1 < e0 for e0, e1 in zip([_energy_error(A, 0 * b, xs)] + errors, errors))
        # ... although the returned residual is above the zero start's (the case where a smaller residual misleads)
        assert np.linalg.norm(b - A @ X[:, j]) > np.linalg.norm(b)
