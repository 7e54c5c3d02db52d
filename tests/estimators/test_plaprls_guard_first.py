"""PLapRLS(solver="direct") refuses a dense system beyond memory before its O(n^2 d) kernel pass.

The empirical operator's kappa (the kernel's mean, one pass over all n^2 pairs) ran before plaprls_fit's memory
estimate: at n = 30000 the refusal came after 21 s, at 10^5 points after minutes.
"""
import numpy as np
import pytest

import graphrkhs.estimators._inductive as inductive
from graphrkhs import KernelOperator, PLapRLSClassifier


def test_the_estimate_comes_before_any_kernel_product(monkeypatch):
    real_guard = inductive.memory_guard
    monkeypatch.setattr(inductive, "memory_guard",
                        lambda n_bytes, what, alternative, limit=None: real_guard(n_bytes, what, alternative, limit=1e6))
    products = []
    real_matmat = KernelOperator.matmat
    monkeypatch.setattr(KernelOperator, "matmat", lambda self, V, *a, **k: products.append(1) or
                        real_matmat(self, V, *a, **k))
    X = np.random.default_rng(0).normal(size=(3000, 5))
    y = np.full(3000, -1)
    y[:10] = np.arange(10) % 2
    with pytest.raises(MemoryError, match=r"the dense PLapRLS system on 3000 points would need .*use solver='cg'"):
        PLapRLSClassifier(solver="direct", gamma_A=1e-3, gamma_I=1e-2).fit(X, y)
    assert products == []
