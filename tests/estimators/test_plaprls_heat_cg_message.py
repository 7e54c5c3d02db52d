"""PLapRLS's heat penalty with m below the number of features, solved by CG: the error names the penalty and m.

The penalty K_t - 2K_2t + K_3t is indefinite there; CG meets a direction of negative curvature and raised
conjugate_gradient's LinAlgError, which is about a graph Laplacian and a right-hand side not summing to 0 on
its components -- neither of which is the problem, nor in the user's hands.
"""
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_moons

from graphrkhs import KernelOperator, PLapRLSClassifier, knn_graph, laplacian, pairwise_kernel, plaprls_fit


def _moons():
    X, y = make_moons(80, noise=0.1, random_state=0)
    yl = np.full(80, -1)
    yl[:10] = y[:10]
    return X, yl


def test_estimator_error_names_m_and_the_remedies():
    X, yl = _moons()
    clf = PLapRLSClassifier(integral_operator="heat", m=1, solver="cg", sigma=0.4, gamma_A=1e-2, gamma_I=10.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # the warning about m < d given before the solve
        with pytest.raises(np.linalg.LinAlgError,
                           match=r"^PLapRLSClassifier: CG \(solver='cg'\) met a direction of non-positive curvature "
                                 r"in the system of integral_operator='heat': with m=1 below the number of features "
                                 r"\(2\) its penalty K_t - 2K_2t \+ K_3t is indefinite\. Pass m >= 2 \(or m=None, "
                                 r"the number of features\), integral_operator='empirical', or solver='direct'") as ei:
            clf.fit(X, yl)
    assert "Laplacian" not in str(ei.value)


def test_plaprls_fit_error_names_the_penalty_p():
    X, yl = _moons()
    S = np.flatnonzero(yl >= 0)
    K = pairwise_kernel(X, sigma=0.4)
    P = KernelOperator(X, kernel="heat_penalty", sigma=0.4, m=1)
    M = laplacian(knn_graph(X, 10))
    with pytest.raises(np.linalg.LinAlgError,
                       match=r"^plaprls_fit: CG met a direction of non-positive curvature .* the penalty P is not "
                             r"positive semidefinite .* Pass a positive semidefinite P .* P=None .* "
                             r"solver='direct'") as ei:
        plaprls_fit(K, S, 2.0 * yl[S] - 1, M, 1e-2, 10.0, P=P, solver="cg")
    assert "Laplacian" not in str(ei.value)
