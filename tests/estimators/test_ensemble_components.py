"""The recommended classifier on a graph of several components: a component predicts only classes labeled in it.

Its per-class standardization runs over every reached node, so a class labeled only elsewhere could win on a
component no label of it reaches: a 200-node component whose labels were all class 2 had 16 nodes predicted
class 0 (and Poisson learning's component offsets let other components move a component's own decisions).
"""
import numpy as np
import scipy.sparse as sp
from sklearn.datasets import make_blobs

from graphrkhs import PoissonRidgeEnsembleClassifier, knn_graph


def test_a_component_labeled_with_one_class_predicts_it():
    X, t = make_blobs(300, centers=3, cluster_std=1.0, random_state=0)
    rng = np.random.default_rng(1)
    y = np.full(300, -1)
    for c in range(3):
        y[rng.choice(np.flatnonzero(t == c), 3, replace=False)] = c
    XB = make_blobs(60, centers=1, cluster_std=1.0, random_state=5)[0]
    W = sp.block_diag([knn_graph(X, 10), knn_graph(XB, 10)]).tocsr()
    yB = np.full(60, -1)
    yB[:3] = 2
    clf = PoissonRidgeEnsembleClassifier(graph="precomputed").fit(W, np.r_[y, yB])
    np.testing.assert_array_equal(clf.transduction_[300:], np.full(60, 2))
    # the main component's decisions are among its own classes, all three labeled there
    assert set(np.unique(clf.transduction_[:300])) <= {0, 1, 2}


def test_classes_labeled_per_component_against_the_rule():
    from graphrkhs._core.labels import classes_labeled_per_component

    # components {0, 1, 2} (classes 0 and 1 labeled), {3, 4} (class 1 only), {5} (no label)
    W = np.zeros((6, 6))
    for i, j in [(0, 1), (1, 2), (3, 4)]:
        W[i, j] = W[j, i] = 1.0
    F = np.array([[0.3, -0.2, 5.0], [0.1, 0.4, 2.0], [-0.5, 0.2, 1.0],
                  [0.7, 0.1, 9.0], [0.6, -0.3, 8.0], [4.0, 4.0, 4.0]])
    G = classes_labeled_per_component(F.copy(), W, [0, 2, 3], np.eye(3)[[0, 1, 1]], margin=1.0)
    expected = F.copy()
    expected[:3, 2] = F[:3, :2].min() - 1.0          # class 2 is labeled in no component
    expected[3:5, [0, 2]] = F[3:5, 1].min() - 1.0    # component {3, 4}: only class 1 labeled
    np.testing.assert_array_equal(G, expected)       # the label-free node 5 is left as it is
