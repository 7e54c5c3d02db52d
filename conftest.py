"""Root test configuration: what applies to the docstring examples collected from ``graphrkhs/`` too
(``--doctest-modules``), which ``tests/conftest.py`` does not reach when only the package is run."""


def pytest_collection_modifyitems(config, items):
    """The docstring examples (``--doctest-modules``) run with warnings as errors.

    An Examples section that warns shows users a warning that is not what it is about, and users who copy it
    get it too (GRLSRegressor's example had a target of -1, the classifiers' unlabeled marker; nystrom_laprls_fit's
    had too few landmarks for the default trace-error tolerance; PoissonMBOClassifier's graph of two components
    reached the heat steps' steady state).  UserWarning covers the library's own warning classes; RuntimeWarning
    numpy's floating-point ones.  Third-party deprecations are left alone (they come and go with versions).
    """
    import pytest

    for item in items:
        if type(item).__name__ == "DoctestItem":
            item.add_marker(pytest.mark.filterwarnings("error::UserWarning"))
            item.add_marker(pytest.mark.filterwarnings("error::RuntimeWarning"))
