"""The layering contract (tools/check_layering.py) holds on the package, and the checker catches violations.

The contract (docs/architecture.rst): ``_core < datasets < graphs < spectral <
kernels < solvers < distributed < estimators < cli``; no upward import (also not inside a
function), no import cycle, no private module or name imported across layer
packages except from ``_core``.
"""

import functools
import importlib.util
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "graphrkhs"
CHECKER = ROOT / "tools" / "check_layering.py"

_spec = importlib.util.spec_from_file_location("check_layering", CHECKER)
check_layering = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check_layering)


def test_package_keeps_the_layering_contract():
    problems = sorted(_baseline())
    assert not problems, "layering violations:\n" + "\n".join(problems)


def test_checker_sees_every_module():
    imports, files = check_layering.collect(PACKAGE)
    expected = {p for p in PACKAGE.rglob("*.py")}
    assert set(files.values()) == expected
    # the layer packages import _core: the checker really parses imports
    assert any(t.startswith("graphrkhs._core") for _, t, _ in imports["graphrkhs.graphs._laplacian"])


# ---------------------------------------------------------------------------
# The checker on copies of the package with violations inserted
# ---------------------------------------------------------------------------

@pytest.fixture
def copy(tmp_path):
    dst = tmp_path / "graphrkhs"
    shutil.copytree(PACKAGE, dst, ignore=shutil.ignore_patterns("__pycache__"))
    return dst


def _insert(path, line, at_top=True):
    """Insert ``line`` after the module docstring (at_top) or at the end; return its 1-based line number."""
    lines = path.read_text().splitlines()
    if at_top:
        i = 0
        if lines[0].lstrip().startswith(('"""', 'r"""')):
            quote = '"""'
            first = lines[0].split(quote, 1)[1]
            i = 1 if quote in first else next(k for k in range(1, len(lines)) if quote in lines[k]) + 1
        lines[i:i] = [line]
        lineno = i + 1
    else:
        lines.append(line)
        lineno = len(lines)
    path.write_text("\n".join(lines) + "\n")
    return lineno


@functools.lru_cache(maxsize=None)
def _baseline():
    """The checker's findings on the package itself (no test edits the package; a frozenset, read-only)."""
    return frozenset(check_layering.check(PACKAGE))


def _new_problems(copy):
    baseline = _baseline()
    return [p for p in check_layering.check(copy) if p not in baseline]


def test_upward_import_is_reported_with_file_and_line(copy):
    lineno = _insert(copy / "graphs" / "_convert.py", "from ..estimators import RLSClassifier")
    new = _new_problems(copy)
    assert any(p.startswith(f"graphrkhs/graphs/_convert.py:{lineno}: upward import") and "graphrkhs.estimators" in p
               for p in new), new


def test_function_level_import_counts(copy):
    body = "def _late():\n    from ..solvers import graph_tv\n    return graph_tv\n"
    path = copy / "spectral" / "_lmax.py"
    n_before = len(path.read_text().splitlines())
    path.write_text(path.read_text() + "\n\n" + body)
    lineno = n_before + 4                  # two blank lines, the def, then the import
    assert path.read_text().splitlines()[lineno - 1].strip() == "from ..solvers import graph_tv"
    new = _new_problems(copy)
    assert any(p.startswith(f"graphrkhs/spectral/_lmax.py:{lineno}: upward import") for p in new), new


def test_import_cycle_is_reported_with_file_and_line(copy):
    a = _insert(copy / "graphs" / "_construct.py", "from . import _convert as _cycle_a  # noqa")
    b = _insert(copy / "graphs" / "_convert.py", "from . import _construct as _cycle_b  # noqa")
    new = [p for p in _new_problems(copy) if p.startswith("import cycle")]
    assert len(new) == 1, new
    assert "graphrkhs.graphs._construct" in new[0] and "graphrkhs.graphs._convert" in new[0]
    assert f"graphrkhs/graphs/_construct.py:{a}" in new[0] and f"graphrkhs/graphs/_convert.py:{b}" in new[0]


def test_private_cross_layer_import_is_reported_with_file_and_line(copy):
    lineno = _insert(copy / "spectral" / "_lmax.py", "from ..graphs._search import knn_search")
    new = _new_problems(copy)
    assert any(p.startswith(f"graphrkhs/spectral/_lmax.py:{lineno}: private import across layers")
               and "_search" in p for p in new), new


def test_private_name_from_a_public_namespace_is_reported(copy):
    lineno = _insert(copy / "kernels" / "_pointcloud.py", "from ..graphs import _construct")
    lineno2 = _insert(copy / "solvers" / "_tv.py", "from ..kernels import _operator as _op_mod")
    new = _new_problems(copy)
    assert any(p.startswith(f"graphrkhs/kernels/_pointcloud.py:{lineno}: private import") for p in new), new
    assert any(p.startswith(f"graphrkhs/solvers/_tv.py:{lineno2}: private import") for p in new), new


def test_core_may_be_imported_privately_and_downward_imports_are_fine(copy):
    _insert(copy / "cli" / "_main.py", "from .._core.validation import check_scalar as _cs  # noqa")
    _insert(copy / "solvers" / "_tv.py", "from ..graphs import laplacian as _lap  # noqa")
    assert _new_problems(copy) == []


def _run(pkg):
    return subprocess.run([sys.executable, str(CHECKER), str(pkg)], capture_output=True, text=True)


def _clean_package(root):
    """A tiny package that keeps the contract: every layer imports only public names from below."""
    pkg = root / "graphrkhs"
    files = {
        "__init__.py": "from . import graphs, spectral\n",
        "_core/__init__.py": "",
        "_core/validation.py": "def check(x):\n    return x\n",
        "graphs/__init__.py": "from ._build import build\n__all__ = ['build']\n",
        "graphs/_build.py": "from .._core.validation import check\n\ndef build(x):\n    return check(x)\n",
        "spectral/__init__.py": "from ._apply import apply\n",
        "spectral/_apply.py": "from ..graphs import build\n\ndef apply(x):\n    from .._core import validation\n"
                              "    return validation.check(build(x))\n",
    }
    for name, text in files.items():
        path = pkg / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return pkg


def test_command_line_exit_codes(tmp_path):
    clean = _clean_package(tmp_path / "clean")
    ok = _run(clean)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "0 violation(s)" in ok.stdout
    bad = _clean_package(tmp_path / "bad")
    (bad / "graphs" / "_build.py").write_text("from ..spectral import apply\n" + (bad / "graphs" / "_build.py").read_text())
    res = _run(bad)
    assert res.returncode == 1
    assert "graphrkhs/graphs/_build.py:1: upward import" in res.stdout


def test_command_line_fails_on_the_violating_copy(copy):
    _insert(copy / "graphs" / "_convert.py", "from ..estimators import RLSClassifier")
    res = _run(copy)
    assert res.returncode == 1
    assert "graphrkhs/graphs/_convert.py" in res.stdout and "upward import" in res.stdout
