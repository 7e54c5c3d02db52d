"""Root test configuration: what applies to the docstring examples collected from ``graphrkhs/`` too
(``--doctest-modules``), which ``tests/conftest.py`` does not reach when only the package is run."""


def pytest_collection_modifyitems(config, items):
    """The docstring examples (``--doctest-modules``) run with warnings as errors.

    An Examples section that warns shows users a warning that is not what it is about, and users who copy it
    get it too (GRLSRegressor's example had a target of -1, the classifiers' unlabeled marker; nystrom_laprls_fit's
    had too few landmarks for the default trace-error tolerance; PoissonMBOClassifier's graph of two components
    reached the heat steps' steady state).  The errors are the library's own warnings (every class derives from
    GraphRKHSWarning) and the floating-point RuntimeWarnings of numpy issued from the package's code or the
    examples' lines (module ``graphrkhs...``); other libraries' warnings are left alone (they come and go with
    versions and platforms: scikit-learn's ConvergenceWarning, numpy's spurious matmul warnings on macOS's
    Accelerate).
    """
    import pytest

    for item in items:
        if type(item).__name__ == "DoctestItem":
            item.add_marker(pytest.mark.filterwarnings("error::graphrkhs.GraphRKHSWarning"))
            item.add_marker(pytest.mark.filterwarnings("error::RuntimeWarning:graphrkhs"))
