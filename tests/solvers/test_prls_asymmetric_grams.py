"""prls_fit, prls_loo_errors and select_prls_gamma refuse K, Kp or Kpp that are not symmetric.

They read (K + K^T) / 2 (the eigendecomposition) and P = K - 2K' + K'' symmetrized: np.triu of one of the
heat semigroup's Gram matrices (8 points) was fitted and scored, with at most a warning that the penalty is
"indefinite" (none at all for an upper-triangular Kpp, whose indefinite part the ridge of P absorbed).
"""
import numpy as np
import pytest

from graphrkhs import heat_semigroup, prls_fit
from graphrkhs.solvers import prls_loo_errors, select_prls_gamma


def _grams():
    X = np.random.default_rng(0).normal(size=(8, 2))
    return list(heat_semigroup(X, sigma=1.0)), np.sin(X[:, 0])


CALLS = {
    "prls_fit": lambda G, y: prls_fit(*G, y, 1e-2),
    "prls_loo_errors": lambda G, y: prls_loo_errors(*G, y, [1e-2]),
    "select_prls_gamma": lambda G, y: select_prls_gamma(*G, y, [1e-2], extend=False),
}


@pytest.mark.parametrize("which, name", [(0, "K"), (1, "Kp"), (2, "Kpp")])
@pytest.mark.parametrize("call", list(CALLS))
def test_asymmetric_gram_refused(call, which, name):
    G, y = _grams()
    G[which] = np.triu(G[which])
    with pytest.raises(ValueError, match=rf"{name} must be symmetric: max \|{name}_ij - {name}_ji\|"):
        CALLS[call](G, y)


@pytest.mark.parametrize("call", list(CALLS))
def test_symmetric_grams_accepted(call):
    G, y = _grams()
    CALLS[call](G, y)
