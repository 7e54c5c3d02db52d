"""``graphrkhs demo --seed S --plot FILE`` with S >= 2**32: the label draws took the seed (numpy's Generator
takes any non-negative int), but t-SNE's was passed on as the int, which scikit-learn refuses above 2**32 - 1:
the command ended in TSNE's InvalidParameterError after every fit.  Oracle: scikit-learn's own parameter
validation of the random_state handed to TSNE; a seed below 2**32 is passed on unchanged (the same picture).
"""
import numpy as np
import pytest
import sklearn.manifold

from graphrkhs.cli._demo import _demo_plot


@pytest.mark.parametrize("seed", [2**32 - 1, 2**32])          # each side of the RandomState range
def test_demo_plot_seeds_tsne_with_any_nonnegative_seed(seed, tmp_path, monkeypatch):
    seen = []

    class FakeTSNE(sklearn.manifold.TSNE):
        def fit_transform(self, X, y=None):
            self._validate_params()           # scikit-learn's check of random_state, as the real fit does
            seen.append(self.random_state)
            return np.zeros((X.shape[0], 2)) + np.arange(X.shape[0])[:, None]

    monkeypatch.setattr(sklearn.manifold, "TSNE", FakeTSNE)
    rows = [{"source": "graphrkhs", "method": "Laplace learning (harmonic, AMG-CG)", "accuracy_mean": 0.9}]
    _demo_plot(str(tmp_path / "d.png"), rows, 2, 10, seed)
    assert (tmp_path / "d.png").stat().st_size > 0
    if seed < 2**32:
        assert seen == [seed]
    else:
        assert isinstance(seen[0], np.random.RandomState)
