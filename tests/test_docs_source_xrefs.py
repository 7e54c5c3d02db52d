"""Every Sphinx cross-reference to ``graphrkhs.<name>`` in the package's own
docstrings and comments names an object that exists.

tests/test_docs.py checks the hand-written pages; the docstrings had a stale one:
graphrkhs/_core/amg.py referred to :mod:`graphrkhs._spmm`, a module that moved to
graphrkhs._core.spmm.
"""

import importlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ROLE = re.compile(r":(?:func|class|meth|mod|attr|data|exc|obj):`~?(graphrkhs(?:\.\w+)*)`")


def _resolves(dotted):
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def test_source_cross_references_resolve():
    broken = []
    for path in sorted((ROOT / "graphrkhs").rglob("*.py")):
        for name in ROLE.findall(path.read_text(encoding="utf-8")):
            if not _resolves(name):
                broken.append(f"{path.relative_to(ROOT)}: {name}")
    assert not broken, f"cross-references to objects that do not exist: {broken}"
