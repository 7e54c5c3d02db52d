"""nystrom_laprls_fit's Examples section runs without a warning.

It capped the Nystrom features at 10 landmarks of 30 points with sigma 0.2,
whose estimated relative trace error is 0.0171, above NystromFeatures' default
tol 0.01, so the example's first line warned (AccuracyWarning); 12 landmarks
are within it.
"""

import doctest
import warnings

import graphrkhs
from graphrkhs import nystrom_laprls_fit


def test_nystrom_laprls_fit_example_runs_without_a_warning():
    finder = doctest.DocTestFinder(recurse=False)
    (test,) = finder.find(nystrom_laprls_fit, "nystrom_laprls_fit", globs={"graphrkhs": graphrkhs})
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = runner.run(test, out=lambda s: None)
    assert result.attempted >= 5
    assert result.failed == 0
