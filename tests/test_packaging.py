"""The packaging claims CI checks: tools/min_constraints.py pins exactly setup.cfg's lower bounds."""

import importlib.util
import pathlib
import subprocess
import sys

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

ROOT = pathlib.Path(__file__).resolve().parent.parent
TOOL = ROOT / "tools" / "min_constraints.py"


def _tool():
    spec = importlib.util.spec_from_file_location("min_constraints", TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _declared():
    """install_requires as setuptools reads it (an independent parser)."""
    from setuptools.config.setupcfg import read_configuration

    return [Requirement(r) for r in read_configuration(str(ROOT / "setup.cfg"))["options"]["install_requires"]]


def test_constraints_pin_every_runtime_dependency_to_its_declared_lower_bound():
    proc = subprocess.run([sys.executable, str(TOOL)], capture_output=True, text=True, check=True)
    pins = [line for line in proc.stdout.splitlines() if line and not line.startswith("#")]
    want = []
    for req in _declared():
        lower = [s.version for s in req.specifier if s.operator in (">=", "==")]
        assert len(lower) == 1, f"{req} must declare exactly one lower bound"
        want.append(f"{req.name}=={lower[0]}")
    assert pins == want


def test_declared_minimums_meet_what_the_code_needs():
    bounds = {req.name: min(Version(s.version) for s in req.specifier) for req in _declared()}
    assert bounds["scikit-learn"] >= Version("1.6")   # sklearn.utils.validation.validate_data
    assert bounds["numpy"] >= Version("2.0")          # np.array(copy=None)
    assert bounds["tqdm"] >= Version("4.58")          # tqdm(delay=...)


def test_an_entry_without_lower_bound_is_refused(tmp_path):
    cfg = tmp_path / "setup.cfg"
    cfg.write_text("[options]\ninstall_requires =\n    numpy>=2.0\n    # a comment\n    scipy\n")
    tool = _tool()
    with pytest.raises(ValueError, match="'scipy' has no lower bound"):
        [tool.minimum_pin(r) for r in tool.install_requires(str(cfg))]
    proc = subprocess.run([sys.executable, str(TOOL), str(cfg)], capture_output=True, text=True)
    assert proc.returncode == 1 and "scipy" in proc.stderr


def test_pins_keep_markers_and_read_compatible_release():
    tool = _tool()
    assert tool.minimum_pin("numba >= 0.60.0, <1") == "numba==0.60.0"
    assert tool.minimum_pin('tomli~=2.0; python_version < "3.11"') == 'tomli==2.0; python_version < "3.11"'
    assert tool.minimum_pin("pygsp[extra]>=0.6.0") == "pygsp==0.6.0"


def test_check_reports_what_is_installed(capsys):
    tool = _tool()
    from importlib.metadata import version

    have = version("numpy")
    assert tool.check_installed([f"numpy=={have}"]) == 0
    assert tool.check_installed(["numpy==0.0.1", "no-such-distribution-graphrkhs==1.0"]) == 2
    out = capsys.readouterr().out
    assert "MISMATCH" in out and "not installed" in out


@pytest.mark.parametrize("path", sorted((ROOT / "graphrkhs").rglob("*.py")), ids=lambda p: p.name)
def test_every_module_compiles_without_an_escape_warning(path):
    # a docstring with LaTeX in a non-raw string: "\o" of "\operatorname" warned on every import (an error in a
    # future Python); its "\rho" was a carriage return, which no compiler flags (the raw string fixed both)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compile(path.read_text(encoding="utf-8"), str(path), "exec")


_SOURCES = sorted([*(ROOT / "graphrkhs").rglob("*.py"), *(ROOT / "docs").rglob("*.rst"), *(ROOT / "tests").rglob("*.py"),
                   *(ROOT / "benchmarks").glob("*.py")])


def test_no_source_file_holds_control_characters():
    # a LaTeX docstring written through a non-raw string by a script: "\bar", "\frac", "\tilde", "\approx"
    # became backspace, form feed, tab and bell characters in the file, which neither the compiler nor the escape
    # check above sees (the rendered formula lost them)
    bad = {}
    for path in _SOURCES:
        if "auto_examples" in path.parts or "_build" in path.parts:
            continue
        text = path.read_text(encoding="utf-8")
        lines = [i + 1 for i, line in enumerate(text.split("\n"))
                 if any(ord(c) < 32 and c != "\n" for c in line)]
        if lines:
            bad[str(path.relative_to(ROOT))] = lines[:5]
    assert not bad, bad


def _unused_imports(path):
    """``(line, name)`` of every name a module imports and never reads (pyflakes' F401, by the ast).

    A name counts as read where it appears as an expression (``ast.Name``), in the module's ``__all__``
    (a re-export), or in a string annotation; a star import, and an import line marked ``# noqa`` (an
    availability probe such as ``import mpi4py``), are left alone.  A name only in a docstring is unused.
    """
    import ast

    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    lines = source.splitlines()
    read = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    for node in ast.walk(tree):
        annotations = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            annotations = [a.annotation for a in node.args.args + node.args.kwonlyargs + node.args.posonlyargs]
            annotations.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            annotations = [node.annotation]
        for ann in annotations:
            for sub in ast.walk(ann) if ann is not None else ():
                if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                    read |= {n.id for n in ast.walk(ast.parse(sub.value, mode="eval")) if isinstance(n, ast.Name)}
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            read |= {e.value for e in getattr(node.value, "elts", []) if isinstance(e, ast.Constant)}
    unused = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)) and "noqa" not in lines[node.lineno - 1]:
            if isinstance(node, ast.ImportFrom) and node.module == "__future__":
                continue
            for alias in node.names:
                bound = alias.asname or alias.name.split(".")[0]
                if alias.name != "*" and bound not in read:
                    unused.append((node.lineno, bound))
    return unused


def test_no_private_module_imports_a_name_it_does_not_use():
    # solvers/_tv.py imported graph_kernel_columns, named only in a docstring; _lowrank.py scipy.linalg and
    # CRITERIA, _selection.py scipy.sparse.linalg.  The package's __init__ files re-export by design.
    found = {}
    for path in sorted((ROOT / "graphrkhs").rglob("*.py")):
        if path.name != "__init__.py":
            unused = _unused_imports(path)
            if unused:
                found[str(path.relative_to(ROOT))] = unused
    assert not found, f"imported but unused: {found}"
