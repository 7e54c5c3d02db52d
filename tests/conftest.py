"""Suite-wide test configuration: the hypothesis settings profiles.

The property-based tests (tests/reliability/test_properties.py) run under a named profile:

* ``ci`` (default): derandomized -- the examples are a fixed function of each test, so a CI run
  is reproducible and a failure reruns identically -- with a bounded number of examples and no
  per-example deadline (the 2-core CI machine is shared; a slow example is not a failure).
  The whole property suite takes about 20 seconds.
* ``dev``: random examples, 200 per property, for a local fuzzing session
  (``HYPOTHESIS_PROFILE=dev python -m pytest tests/reliability/test_properties.py``).

Select one with the environment variable ``HYPOTHESIS_PROFILE``.

BLAS runs on one thread per test process (and its child processes: the CLI and example tests)
unless ``OPENBLAS_NUM_THREADS``, ``OMP_NUM_THREADS`` or ``MKL_NUM_THREADS`` is set.  The suite's
matrices are small, where BLAS threads gain nothing, and on a shared 2-core machine OpenBLAS's
threads spin waiting for each other: the 104 scikit-learn checks of LapRLSRegressor took 601 s
with two threads against 38 s with one at load 8.  The cores are used by running the tests
themselves in parallel instead: ``setup.cfg`` starts one pytest-xdist worker per core (``-n auto``,
at most 4); ``-n 0`` runs everything in this process.

Numba's parallel loops (``prange``: the kNN search, the graph's symmetrization and row sort, the
tangent distance) likewise run on one thread per test process (and its child processes) unless
``NUMBA_NUM_THREADS`` is set, for the same reason: on these small graphs every parallel region is
mostly the threads' start and wait, and at load 10 on 2 cores a 400-point ``knn_graph`` took
79 ms with two numba threads against 10 ms with one (median of 10); the permuted-rows tests of
tests/graphs/test_knn_ties.py (72 graphs each) 48 s against 17 s for six of them.  The loops'
results do not depend on the thread count (each iteration writes its own row).
"""

import os

_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
if not any(v in os.environ for v in _THREAD_VARIABLES):
    for _variable in _THREAD_VARIABLES:
        os.environ[_variable] = "1"          # child processes read it at start-up
    from threadpoolctl import threadpool_limits

    _BLAS_LIMIT = threadpool_limits(limits=1, user_api="blas")     # this process: numpy is loaded already

if "NUMBA_NUM_THREADS" not in os.environ:
    import sys

    if "numba" in sys.modules:
        # imported already (pytest started from a process that imported numba, or a plugin): numba re-reads
        # NUMBA_NUM_THREADS before every compile and refuses a change once its threads are launched, so the
        # variable stays as it is and only this process's parallel regions are limited
        sys.modules["numba"].set_num_threads(1)
    else:
        os.environ["NUMBA_NUM_THREADS"] = "1"    # read when numba is imported: this process and child processes

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    database=None,  # nothing written into the checkout; derandomized runs need no replay store
    deadline=None,
    max_examples=30,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "dev",
    deadline=None,
    max_examples=200,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
