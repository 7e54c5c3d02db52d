"""Every Fredholm kernel of one fit (each width of the selection, and the fit's own) has the same Nystrom
inner factor, whatever random_state is.

A Generator, a RandomState or None reached each FredholmKernel, which drew other landmarks for every width:
the widths were compared on different approximations of the inner kernel (and above KEEP_KERNELS_MAX_N points
the kernel rebuilt at the chosen width was not the one scored).  An int seeded each alike.  Oracle: the
landmark rows of every NystromFeatures built during the fit (spied), which must be the same.
"""
import warnings

import numpy as np
import pytest

import graphrkhs as g
import graphrkhs.kernels._datadependent as kd


@pytest.mark.parametrize("random_state", [np.random.default_rng(0), np.random.RandomState(0), None, 7])
def test_one_inner_factor_for_every_width(random_state, monkeypatch):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(60, 2))
    y = np.full(60, np.nan)
    y[::3] = X[::3, 0] ** 2 + 0.1 * rng.normal(size=20)
    built = []
    real = kd.NystromFeatures

    def spy(*args, **kwargs):
        ny = real(*args, **kwargs)
        built.append(np.sort(ny.landmark_index_))
        return ny

    monkeypatch.setattr(kd, "NystromFeatures", spy)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g.FredholmRegressor(sigma=[0.5, 1.0, 2.0], alpha=1e-2, inner_approximation="nystrom", n_components=15,
                            random_state=random_state).fit(X, y)
    assert len(built) >= 3, "one factor per width at least"
    assert all(np.array_equal(b, built[0]) for b in built[1:])
