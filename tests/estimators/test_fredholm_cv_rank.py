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
