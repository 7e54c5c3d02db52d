"""FredholmClassifier's cv_results_ rank by the criterion that made the choice (the graph cut among the LOO
candidates): rank 1 is the (sigma, alpha) used, as an explicit refit at those values shows."""

import warnings

import numpy as np
from sklearn.datasets import make_circles

from graphrkhs import FredholmClassifier


def test_rank_one_is_the_graph_cut_choice():
    X, y = make_circles(80, noise=0.08, factor=0.5, random_state=2)
    rng = np.random.default_rng(2)
    yy = np.full(80, -1)
    idx = rng.choice(80, 16, replace=False)
    yy[idx] = y[idx]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = FredholmClassifier().fit(X, yy)
    cv = est.cv_results_
    n = len(cv["params"])
    np.testing.assert_array_equal(np.sort(cv["rank_test_score"]), np.arange(1, n + 1))
    best = cv["params"][int(np.argmin(cv["rank_test_score"]))]
    assert best["sigma"] == est.sigma_
    # the oracle: a refit at the rank-1 values (alpha relative, as the table's) is the fitted model
    ref = FredholmClassifier(sigma=best["sigma"], alpha=best["alpha"]).fit(X, yy)
    assert ref.alpha_ == est.alpha_
    np.testing.assert_allclose(ref.decision_function(X), est.decision_function(X), rtol=1e-6, atol=1e-9)
    # the columns behind the ranking: rank 1 has finite normalized cut and the candidates' accuracy
    i = int(np.argmin(cv["rank_test_score"]))
    assert np.isfinite(cv["normalized_cut"][i])
    assert cv["mean_test_accuracy"][i] >= np.max(cv["mean_test_accuracy"]) - np.sqrt(0.25 / 16) - 1e-12


def test_fixed_width_table_shows_the_width_used():
    """A fixed (or default) sigma with alpha selected: the table's width column is sigma_ (it showed 1.0)."""
    from graphrkhs import FredholmRegressor

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = np.full(40, np.nan)
    y[:12] = np.sin(2 * X[:12, 0])
    for kw in (dict(sigma=0.5, alpha=[1e-3, 1e-2]), dict(sigma=0.5), dict(sigma=None)):
        est = FredholmRegressor(**kw).fit(X, y)
        assert set(est.cv_results_["param_sigma"]) == {est.sigma_}, kw
        assert all(p["sigma"] == est.sigma_ for p in est.cv_results_["params"])
