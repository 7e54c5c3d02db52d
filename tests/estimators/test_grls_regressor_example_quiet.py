"""GRLSRegressor's Examples section runs without a warning.

Its targets were ``1 + 2 x`` on ``linspace(-5, 5, 21)``, so the row x = -1 had
the target -1 and the fit warned (GraphRKHSWarning: a regressor given -1, the
classifiers' unlabeled marker, without any NaN) -- a documented warning, but not
what the example is about; users who copy it got it too.
"""

import doctest
import warnings

import graphrkhs
from graphrkhs import GRLSRegressor


def test_grls_regressor_example_runs_without_a_warning():
    finder = doctest.DocTestFinder(recurse=False)
    (test,) = finder.find(GRLSRegressor, "GRLSRegressor", globs={"graphrkhs": graphrkhs})
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = runner.run(test, out=lambda s: None)
    assert result.attempted >= 4
    assert result.failed == 0
