"""The sections of the API reference, computed from the modules' ``__all__``.

Used by ``docs/conf.py`` (the ``graphrkhs-api`` directive and autosummary's stub
list) and by ``tests/test_docs.py``.  Every public name of the package lands in
exactly one section; a name that no section claims goes to "Other top-level
names", so nothing can silently drop out of the reference.
"""

import importlib
from typing import NamedTuple, Tuple


class Section(NamedTuple):
    key: str          # argument of the ``graphrkhs-api`` directive
    title: str
    names: Tuple[str, ...]  # fully qualified, e.g. "graphrkhs.knn_graph"


# (key, title, module whose __all__ is listed, prefix under which names are documented)
_LAYOUT = [
    ("graphs", "Graphs and Laplacians", "graphrkhs.graphs", "graphrkhs"),
    ("filters", "Spectral responses (graphrkhs.filters)", "graphrkhs.filters", "graphrkhs.filters"),
    ("spectral", "Evaluating phi(L): Chebyshev, Lanczos, exact", "graphrkhs.spectral", "graphrkhs"),
    ("kernels", "Kernels: graph, point-cloud and data-dependent", "graphrkhs.kernels", "graphrkhs"),
    ("solvers", "Solvers (plain functions)", "graphrkhs.solvers", "graphrkhs"),
    ("transductive", "Transductive estimators", "graphrkhs.transductive", "graphrkhs"),
    ("semisupervised", "Inductive semi-supervised estimators", "graphrkhs.semisupervised", "graphrkhs"),
    ("datasets", "Data sets (graphrkhs.datasets)", "graphrkhs.datasets", "graphrkhs.datasets"),
    ("distributed", "Distributed backends (graphrkhs.distributed)", "graphrkhs.distributed",
     "graphrkhs.distributed"),
]

# names of graphrkhs.__all__ that are not objects to document
_NOT_DOCUMENTED = {"__version__", "filters", "datasets", "graphs", "spectral", "kernels",
                   "solvers", "transductive", "semisupervised", "distributed"}


def _all(modname):
    try:
        mod = importlib.import_module(modname)
    except ImportError:
        return []
    return list(getattr(mod, "__all__", []))


def api_sections():
    """Return the list of :class:`Section` of the API reference, in page order."""
    import graphrkhs

    sections = []
    seen = set()
    for key, title, modname, prefix in _LAYOUT:
        names = []
        for name in _all(modname):
            full = f"{prefix}.{name}"
            if full not in seen:
                seen.add(full)
                names.append(full)
        sections.append(Section(key, title, tuple(names)))

    warn, other = [], []
    for name in graphrkhs.__all__:
        full = f"graphrkhs.{name}"
        if name in _NOT_DOCUMENTED or full in seen:
            continue
        seen.add(full)
        obj = getattr(graphrkhs, name, None)
        if isinstance(obj, type) and issubclass(obj, Warning):
            warn.append(full)
        else:
            other.append(full)
    sections.append(Section("warnings", "Warnings", tuple(warn)))
    sections.append(Section("other", "Other top-level names", tuple(other)))
    return sections


def documented_names():
    """Every fully qualified name the API reference documents."""
    return [n for s in api_sections() for n in s.names]
