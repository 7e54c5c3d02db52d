"""make_noisy_circles: shapes, class balance, radii, noise levels, determinism, bad input."""

import numpy as np
import pytest

from graphrkhs.datasets import make_noisy_circles, make_noisy_subspace


def test_geometry_and_noise_levels():
    X, y = make_noisy_circles(4001, noise=0.0, n_noise_dims=6, noise_dim_std=0.3, factor=0.4, random_state=1)
    assert X.shape == (4001, 8) and y.dtype == np.int64
    assert np.bincount(y).tolist() == [2001, 2000]
    r = np.linalg.norm(X[:, :2], axis=1)
    np.testing.assert_allclose(r[y == 0], 1.0)                    # no in-plane noise: exact radii
    np.testing.assert_allclose(r[y == 1], 0.4)
    assert abs(X[:, 2:].std() - 0.3) < 0.01 and abs(X[:, 2:].mean()) < 0.01
    Xn, yn = make_noisy_circles(4000, noise=0.1, n_noise_dims=0, random_state=1)
    resid = np.linalg.norm(Xn, axis=1) - np.where(yn == 1, 0.5, 1.0)
    assert abs(resid.std() - 0.1) < 0.01                          # radial part of N(0, 0.1^2 I_2)


def test_deterministic_and_rotation_preserves_distances():
    a = make_noisy_circles(50, random_state=3)
    b = make_noisy_circles(50, random_state=3)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert not np.array_equal(a[0], make_noisy_circles(50, random_state=4)[0])
    R, yr = make_noisy_circles(50, rotate=True, random_state=3)
    np.testing.assert_array_equal(yr, a[1])
    d = lambda Z: ((Z[:, None] - Z[None]) ** 2).sum(-1)
    # the rotation is drawn after the data: pairwise distances are those of the unrotated set
    np.testing.assert_allclose(d(R), d(a[0]), atol=1e-10)


@pytest.mark.parametrize("kwargs, match", [
    ({"n_samples": 1}, "n_samples"), ({"noise": -0.1}, "noise"), ({"n_noise_dims": -1}, "n_noise_dims"),
    ({"factor": 1.0}, "factor"), ({"noise_dim_std": -1.0}, "noise_dim_std"),
])
def test_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_noisy_circles(**kwargs)


@pytest.mark.parametrize("make", [make_noisy_circles, make_noisy_subspace])
@pytest.mark.parametrize("rotate", ["no", 0, None, np.array([True])])
def test_rotate_must_be_a_bool(make, rotate):
    # rotate="no" (truthy) rotated the data, while load_digits / load_fashion_mnist refuse scale="no"
    with pytest.raises(TypeError, match=r"rotate must be True or False"):
        make(40, rotate=rotate, random_state=0)
    X, y = make(40, rotate=np.True_, random_state=0)
    Xr, yr = make(40, rotate=True, random_state=0)
    np.testing.assert_array_equal(X, Xr)


def test_noisy_subspace_class_rates_match_the_documented_ones():
    # the docstring called the parabola classes balanced in expectation; class 1 holds E[Phi(-(s1^2 - 1)/2)]
    from scipy import integrate, stats

    p, _ = integrate.quad(lambda s: stats.norm.pdf(s) * stats.norm.sf((s * s - 1) / 2), -np.inf, np.inf)
    assert abs(p - 0.5245) < 1e-4
    n = 200_000                                               # standard error of a rate: 0.0011
    _, y = make_noisy_subspace(n, n_features=3, random_state=0)
    assert abs(y.mean() - p) < 0.005
    _, y = make_noisy_subspace(n, n_signal=3, n_features=4, boundary="circle", random_state=0)
    assert abs(y.mean() - 0.5) < 0.005
