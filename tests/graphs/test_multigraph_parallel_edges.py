"""A networkx multigraph's parallel edges add their weights, as networkx's own adjacency and Laplacian.

``as_adjacency`` collapsed a MultiGraph with ``nx.Graph(G)``, which keeps only the last parallel edge:
edges 0-1 of weights 1 and 2 gave W[0, 1] = 2 and ``laplacian(G)`` differed from
``nx.laplacian_matrix(G)`` (degree 2 against 3), silently."""

import warnings

import networkx as nx
import numpy as np

from graphrkhs import as_adjacency, laplacian


def _multigraph():
    G = nx.MultiGraph()
    G.add_edge(0, 1, weight=1.0)
    G.add_edge(0, 1, weight=2.0)
    G.add_edge(1, 2, weight=0.5)
    G.add_edge(1, 2)                # no weight: 1
    return G


def test_parallel_edges_add_their_weights():
    expected = np.array([[0.0, 3.0, 0.0],
                         [3.0, 0.0, 1.5],
                         [0.0, 1.5, 0.0]])
    np.testing.assert_array_equal(as_adjacency(_multigraph()).toarray(), expected)


def test_laplacian_of_a_multigraph_is_networkx_laplacian():
    G = _multigraph()
    L = laplacian(G).toarray()
    np.testing.assert_array_equal(L, np.diag([3.0, 4.5, 1.5]) - as_adjacency(G).toarray())
    np.testing.assert_allclose(L, nx.laplacian_matrix(G).toarray(), rtol=0, atol=0)


def test_multigraph_self_loops_still_removed_with_a_warning():
    G = _multigraph()
    G.add_edge(2, 2, weight=4.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        W = as_adjacency(G)
    assert W.diagonal().max() == 0 and W[0, 1] == 3.0
    assert any("self-loops" in str(w.message) for w in caught)
