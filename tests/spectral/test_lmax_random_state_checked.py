"""lmax checks random_state on every path, as its Lanczos path (n > 64) does: an invalid seed on a small graph, the
zero matrix or method='gershgorin' is a TypeError / ValueError naming random_state, not silently ignored; valid
seeds leave the bound unchanged."""
import numpy as np
import pytest

from graphrkhs import laplacian, lmax

PATH = laplacian(np.diag(np.ones(4), 1) + np.diag(np.ones(4), -1))      # 5 nodes: the dense path


@pytest.mark.parametrize("random_state, exc", [("abc", TypeError), (2.5, TypeError), ([1, 2], TypeError),
                                               (True, TypeError), (-1, ValueError)])
@pytest.mark.parametrize("L, method", [(PATH, "lanczos"), (PATH, "gershgorin"), (np.zeros((3, 3)), "lanczos")])
def test_invalid_random_state_refused(L, method, random_state, exc):
    with pytest.raises(exc, match="random_state"):
        lmax(L, method, random_state=random_state)


def test_valid_seeds_same_bound():
    top = float(np.linalg.eigvalsh(PATH.toarray()).max())     # 2 + 2 cos(pi / 5)
    for rs in (None, 0, 7, np.random.default_rng(1), np.random.RandomState(2)):
        b = lmax(PATH, random_state=rs)
        assert top <= b <= top * 1.01
