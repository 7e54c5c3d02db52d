"""Bad input to the partition plan and to distributed CG: an exception naming the argument, before any work.

Runs under plain pytest (one rank) and ``mpiexec -n 2`` (every rank raises the same error).
"""

import numpy as np
import pytest
import scipy.sparse as sp

from graphrkhs.distributed import DistributedCSR, PartitionPlan, distributed_cg


def _path(n=6):
    return sp.csr_array(2.0 * np.eye(n) - 0.5 * np.eye(n, k=1) - 0.5 * np.eye(n, k=-1))


@pytest.mark.parametrize("n_parts, exc, match", [
    (0, ValueError, "n_parts must be >= 1; got 0"),
    (-2, ValueError, "n_parts must be >= 1"),
    (2.5, (TypeError, ValueError), "n_parts"),
])
def test_partition_plan_refuses_a_bad_number_of_parts(n_parts, exc, match):
    # 0 parts read "part must hold part numbers in [0, 0)" (naming part, which was right); 2.5 made 2 parts
    with pytest.raises(exc, match=match):
        PartitionPlan(_path(), np.zeros(6, dtype=np.int64), n_parts)


def test_partition_plan_allows_more_parts_than_nodes():
    # documented: parts may be empty
    plan = PartitionPlan(_path(), np.arange(6), 8)
    assert [o.size for o in plan.owned] == [1] * 6 + [0, 0]


def test_distributed_cg_refuses_an_empty_system():
    # a 0 x 0 system failed as "max_iter must be >= 1; got 0" (the default 10 n), an option not passed
    D = DistributedCSR.from_global(sp.csr_array((0, 0)))
    with pytest.raises(ValueError, match=r"D has no rows \(a 0 x 0 system\)"):
        distributed_cg(D, np.zeros(0))
