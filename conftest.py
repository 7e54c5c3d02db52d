"""Root test configuration: what applies to the docstring examples collected from ``graphrkhs/`` too
(``--doctest-modules``), which ``tests/conftest.py`` does not reach when only the package is run."""


def pytest_collection_modifyitems(config, items):
    """The docstring examples (``--doctest-modules``) run with warnings as errors.

    An Examples section that warns shows users a warning that is not what it is about, and users who copy it
    get it too (GRLSRegressor's example had a target of -1, the classifiers' unlabeled marker; nystrom_laprls_fit's
    had too few landmarks for the default trace-error tolerance; PoissonMBOClassifier's graph of two components
    reached the heat steps' steady state).  The errors are the UserWarnings (the library's own classes, and
    scikit-learn's DataConversionWarning that the label encoder issues) and the RuntimeWarnings attributed to a
    module ``graphrkhs...``: the library names the user's line, which in an example is a line of the documented
    module, and numpy's floating-point warnings name the line of the package or of the example that computed.
    A warning another library issues from its own code (scikit-learn's ConvergenceWarning, numpy's "Mean of
    empty slice") names that library's module and is left alone: those come and go with versions.  The
    library's own classes (GraphRKHSWarning) are errors wherever they are attributed: reached through another
    library's code (a scikit-learn Pipeline's fit), the library names that library's line.
    """
    import pytest

    for item in items:
        if type(item).__name__ == "DoctestItem":
            item.add_marker(pytest.mark.filterwarnings("error::graphrkhs.GraphRKHSWarning"))
            item.add_marker(pytest.mark.filterwarnings("error::UserWarning:graphrkhs"))
            item.add_marker(pytest.mark.filterwarnings("error::RuntimeWarning:graphrkhs"))
