"""A networkx graph whose nodes have names (strings) as the precomputed graph.

``check_numeric_points`` read the graph with ``np.asarray``, which lists a networkx graph's node names, and refused
the graph as "X holds text ('a'), but points must be numbers" -- though ``as_adjacency`` reads it (nodes in
``G.nodes`` order) and the check's docstring leaves graphs to their own checks.  Both places a graph is given were
affected: ``graph="precomputed"`` (X of the transductive learners) and the inductive learners' ``graph=``.
"""
import networkx as nx
import numpy as np

from graphrkhs import as_adjacency
from graphrkhs.estimators import LaplacianRegularizationRegressor, LapRLSRegressor


def _named_graph():
    G = nx.Graph()
    G.add_weighted_edges_from([("a", "b", 1.0), ("b", "c", 1.0), ("c", "d", 1.0), ("d", "a", 1.0), ("c", "e", 2.0)])
    return G


def test_transductive_precomputed_graph_with_named_nodes():
    G = _named_graph()
    y = np.array([0.0, np.nan, 1.0, np.nan, np.nan])       # in G.nodes order: a, b, c, d, e
    est = LaplacianRegularizationRegressor(graph="precomputed", alpha=0.5).fit(G, y)
    # the Tikhonov solution (J + mu L) f = J y, dense, on the adjacency of the 5-cycle-with-tail
    W = as_adjacency(G).toarray()
    L = np.diag(W.sum(axis=1)) - W
    J = np.diag([1.0, 0, 1, 0, 0])
    f = np.linalg.solve(J + 0.5 * L, J @ np.nan_to_num(y))
    np.testing.assert_allclose(est.transduction_, f, rtol=1e-10, atol=1e-12)


def test_inductive_graph_parameter_with_named_nodes():
    G = _named_graph()
    X = np.random.default_rng(0).normal(size=(5, 2))
    y = np.array([0.0, np.nan, 1.0, np.nan, np.nan])
    named = LapRLSRegressor(graph=G, sigma=1.0, gamma_A=0.1, gamma_I=1.0).fit(X, y)
    plain = LapRLSRegressor(graph=as_adjacency(G), sigma=1.0, gamma_A=0.1, gamma_I=1.0).fit(X, y)
    np.testing.assert_array_equal(named.predict(X), plain.predict(X))
