"""The compiled graph kernels give the same bits on one thread and on two.

The test suite runs numba's parallel loops on one thread per process (tests/conftest.py: on the 2-core CI machine
two threads per xdist worker mostly spin).  Their results must not depend on the thread count -- each ``prange``
iteration writes its own row (the kNN tiles' candidate lists, the exact distances of the candidates, the tangent
distance, the symmetrized graph's rows) -- and this test keeps two-thread runs covered: the same graphs built in a
child process with ``NUMBA_NUM_THREADS=2`` equal this process's, entry for entry.
"""
import os
import subprocess
import sys

import numba
import numpy as np
import scipy.sparse as sp

from graphrkhs import knn_graph

_CHILD = """
import sys
import numba
import numpy as np
import scipy.sparse as sp
from graphrkhs import knn_graph
sys.path.insert(0, {here!r})
from test_numba_thread_count import _graphs
assert numba.get_num_threads() == 2, numba.get_num_threads()
for name, W in _graphs().items():
    sp.save_npz({out!r} + name + ".npz", W)
"""


def _graphs():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(1500, 40))
    images = rng.uniform(size=(300, 64))
    return {
        "brute": knn_graph(X, 10, algorithm="brute"),
        "self_tuning_mutual": knn_graph(X, 7, algorithm="brute", weight="self-tuning", mode="mutual"),
        "tangent": knn_graph(images, 6, metric="tangent", image_shape=(8, 8)),
    }


def test_graphs_are_the_same_on_one_and_two_numba_threads(tmp_path):
    out = str(tmp_path) + os.sep
    env = {**os.environ, "NUMBA_NUM_THREADS": "2"}
    code = _CHILD.format(here=os.path.dirname(__file__), out=out)
    subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=600)
    # this process on one thread whatever NUMBA_NUM_THREADS says (with 2 both sides would run on two)
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        graphs = _graphs()
    finally:
        numba.set_num_threads(threads)
    for name, W in graphs.items():
        other = sp.load_npz(out + name + ".npz")
        assert W.shape == other.shape
        assert (W != other).nnz == 0, name
