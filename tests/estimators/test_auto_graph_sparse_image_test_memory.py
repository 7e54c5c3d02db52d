"""graph="auto" on sparse X: the square-image test expands sparse rows only when the columns can be an image.

270d621 made the sparse fit take the dense fit's graph on square images by testing a dense copy of up to
IMAGE_TEST_ROWS sampled rows -- of every sparse non-negative X, before the shape test: 2500 text-like rows of
50001 columns expanded to 763 MB (1 MB before).  Now a non-square column count returns at once, a square one
expands at most SPARSE_IMAGE_TEST_BYTES of rows, and the dense copy of sparse images the tangent graph needs is
memory-checked first.  Memory is measured with tracemalloc (no timing).
"""

import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs import PoissonRidgeEnsembleClassifier
from graphrkhs._core import validation
from graphrkhs.datasets import load_digits, sample_labels
from graphrkhs.estimators._transductive import SPARSE_IMAGE_TEST_BYTES, _auto_graph_spec


def _peak(call):
    tracemalloc.start()
    try:
        call()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_sparse_non_image_columns_are_not_expanded():
    rng = np.random.default_rng(0)
    X = sp.random(600, 50001, density=2e-4, format="csr", random_state=rng) + sp.csr_matrix(
        (np.ones(600), (np.arange(600), rng.integers(0, 50001, 600))), shape=(600, 50001))
    peak = _peak(lambda: _auto_graph_spec(X))
    # a dense copy of the 600 sampled rows alone is 240 MB; the stored entries are about 0.1 MB
    assert peak < 20 * 2**20, peak
    assert _auto_graph_spec(X).metric == "cosine"


def test_large_square_sparse_rows_expand_at_most_the_budget():
    side = 256                                   # 65536 columns: 2000 rows would be 1 GiB dense
    rng = np.random.default_rng(1)
    X = sp.random(2000, side * side, density=1e-3, format="csr", random_state=rng)
    X = X + sp.csr_matrix((np.ones(2000), (np.arange(2000), np.zeros(2000, dtype=int))), shape=X.shape)
    peak = _peak(lambda: _auto_graph_spec(X))
    assert peak < 8 * SPARSE_IMAGE_TEST_BYTES, peak


def test_sparse_images_dense_copy_is_memory_checked(monkeypatch):
    X, y = load_digits()
    X, y = X[:300], np.asarray(y[:300])
    _, labeled = sample_labels(y, 3, random_state=0)
    y_partial = np.full(y.size, -1)
    y_partial[labeled] = y[labeled]
    # 300 x 64 float64 = 150 KiB: refused under a limit of 0.75 * 128 KiB, before any graph is built
    monkeypatch.setattr(validation, "_physical_memory", lambda: 2**17)
    with pytest.raises(MemoryError, match=r"dense copy of 300 sparse images of 64 pixels .* pass graph='knn'"):
        PoissonRidgeEnsembleClassifier().fit(sp.csr_matrix(X), y_partial)
