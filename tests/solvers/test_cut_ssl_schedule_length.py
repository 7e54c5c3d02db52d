"""CutSSL's schedule s: one ADMM stage per value, at most MAX_CUT_STAGES values."""

import re
import warnings

import numpy as np
import pytest

from graphrkhs import CutSSLClassifier, cut_ssl


def _path():
    W = np.diag(np.ones(5), 1)
    return W + W.T


@pytest.mark.parametrize("length", [1001, 10 ** 6])
def test_cut_ssl_refuses_more_than_1000_stages(length):
    # a schedule of 100 values took 27 s on 600 nodes and one of 1e6 values ran for hours: every value is
    # a stage of at least min(patience, max_iter) iterations; refused before any work, naming s
    s = np.linspace(0.0, 0.1, length)
    msg = (f"s has {length} values, more than 1000: each value is an ADMM stage of at least min(patience, max_iter) "
           f"iterations (50 by default) and at most max_iter (400 by default), so this schedule would take at least "
           f"{50 * length:.3g} iterations at the defaults. Pass at most 1000 values (the authors' homotopy has 2).")
    with pytest.raises(ValueError, match=re.escape(msg)):
        cut_ssl(_path(), [0, 5], np.eye(2), s=s, max_iter=1)
    X = np.arange(6.0)[:, None]
    with pytest.raises(ValueError, match=re.escape(msg)):
        CutSSLClassifier(s=tuple(s), max_iter=1, n_neighbors=2).fit(X, [0, -1, -1, -1, -1, 1])


def test_cut_ssl_runs_one_stage_per_value_up_to_1000():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # one iteration a stage does not settle
        F, info = cut_ssl(_path(), [0, 5], np.eye(2), s=np.linspace(0.0, 0.1, 1000), max_iter=1, return_info=True)
    assert info["n_iter"] == [1] * 1000
    assert np.all(np.isfinite(F))
