"""A grid of non-numbers is a ValueError naming the argument, not numpy's "could not convert string to float"."""

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs.solvers import (laprls_grid_errors, select_grid, select_tikhonov_solution,
                               tikhonov_stochastic_errors)

W = np.ones((6, 6)) - np.eye(6)
Y = np.array([1.0, 2.0, 3.0])


@pytest.mark.parametrize("bad", ["abc", [1j, 2.0], [[1.0], [1.0, 2.0]], ["x"]])
def test_select_tikhonov_solution_names_alphas(bad):
    with pytest.raises(ValueError, match=r"^alphas must be a non-empty 1-D sequence of finite numbers >= 0; got "):
        select_tikhonov_solution(W, [0, 1, 2], Y, bad)


@pytest.mark.parametrize("bad", ["abc", [1j, 2.0]])
def test_tikhonov_stochastic_errors_names_alphas(bad):
    with pytest.raises(ValueError, match=r"^alphas must be a non-empty 1-D sequence of finite numbers >= 0; got "):
        tikhonov_stochastic_errors(W, [0, 1, 2], Y, bad)


def test_the_message_shows_the_value_given():
    with pytest.raises(ValueError, match=r"got 'abc'\.$"):
        select_tikhonov_solution(W, [0, 1, 2], Y, "abc")


def test_select_grid_names_the_axis():
    with pytest.raises(ValueError, match=r"^the grid of 'a' must be a non-empty increasing 1-D sequence"):
        select_grid(lambda a: -a, {"a": "abc"})


def test_laprls_grid_errors_names_gamma_Is():
    with pytest.raises(ValueError, match=r"^gamma_Is must be a non-empty 1-D sequence of finite numbers >= 0"):
        laprls_grid_errors(np.eye(6), [0, 1, 2], Y, sp.eye(6), [1.0], "zz")
