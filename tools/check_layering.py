#!/usr/bin/env python3
"""The layering contract of graphrkhs, checked by parsing every import.

Rules (see docs/architecture.rst):

1. Layers, data flowing one way.  ``_core < datasets < graphs < spectral <
   kernels < solvers < distributed < estimators < cli``: a module of one layer imports only
   from its own layer or a lower one.  Every import counts, also one inside
   a function.
2. No cycles: no two modules import each other, directly or through others
   (a package's ``__init__`` counts as a module).
3. Private names stay home: an import that crosses from one layer package to
   another names the other package's public namespace -- no ``_private``
   module of it, no ``_private`` name -- except from ``_core``, which exists
   to be shared.

The top-level facade (``graphrkhs/__init__.py``, ``__main__`` and the old-path
aliases ``transductive``, ``semisupervised``, ``filters``) sits above every layer.

Usage: ``python tools/check_layering.py [PACKAGE_DIR]``; exit 1 and one line
per violation when the contract is broken.
"""

import ast
import pathlib
import sys

LAYERS = ("_core", "datasets", "graphs", "spectral", "kernels", "solvers", "distributed", "estimators", "cli")
TOP = "graphrkhs"


def _module_name(root, path):
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _layer(module):
    parts = module.split(".")
    if len(parts) > 1 and parts[0] == TOP and parts[1] in LAYERS:
        return parts[1]
    return None


def collect(root):
    """Return ``{module: [(lineno, target_module, imported_names), ...]}`` for the package at ``root``."""
    root = pathlib.Path(root).resolve()
    files = {_module_name(root, f): f for f in sorted(root.rglob("*.py"))}
    packages = {m for m, f in files.items() if f.name == "__init__.py"}
    imports = {}
    for module, path in files.items():
        is_pkg = module in packages
        here = module.split(".") if is_pkg else module.split(".")[:-1]
        edges = []
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.split(".")[0] == TOP:
                        edges.append((node.lineno, alias.name, []))
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = here[: len(here) - (node.level - 1)]
                    target = ".".join(base + (node.module.split(".") if node.module else []))
                else:
                    target = node.module or ""
                if target.split(".")[0] != TOP:
                    continue
                names = [a.name for a in node.names]
                # "from pkg import mod" imports the module pkg.mod where it exists.
                submodules = [n for n in names if f"{target}.{n}" in files]
                for n in submodules:
                    edges.append((node.lineno, f"{target}.{n}", []))
                rest = [n for n in names if n not in submodules]
                if rest or not submodules:
                    edges.append((node.lineno, target, rest))
        imports[module] = edges
    return imports, files


def _cycles(imports):
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    graph = {m: sorted({t for _, t, _ in edges if t in imports and t != m}) for m, edges in imports.items()}
    index, low, on_stack, stack, out, counter = {}, {}, set(), [], [], [0]
    for start in graph:
        if start in index:
            continue
        work = [(start, 0)]
        while work:
            v, i = work.pop()
            if i == 0:
                index[v] = low[v] = counter[0]
                counter[0] += 1
                stack.append(v)
                on_stack.add(v)
            recurse = False
            for j in range(i, len(graph[v])):
                w = graph[v][j]
                if w not in index:
                    work.append((v, j + 1))
                    work.append((w, 0))
                    recurse = True
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            if recurse:
                continue
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
            if work:
                u = work[-1][0]
                low[u] = min(low[u], low[v])
    return out


def check(root):
    """All violations of the contract for the package at ``root``, one message each."""
    imports, files = collect(root)
    root = pathlib.Path(root).resolve()
    problems = []
    for module, edges in imports.items():
        src_layer = _layer(module)
        where = files[module].relative_to(root.parent)
        for lineno, target, names in edges:
            dst_layer = _layer(target)
            if src_layer is None or dst_layer is None:
                continue
            if LAYERS.index(dst_layer) > LAYERS.index(src_layer):
                problems.append(f"{where}:{lineno}: upward import: layer {src_layer!r} imports {target} "
                                f"(layer {dst_layer!r}); move the shared piece down")
            if dst_layer != src_layer and dst_layer != "_core":
                private_parts = [p for p in target.split(".")[2:] if p.startswith("_")]
                private_names = [n for n in names if n.startswith("_")]
                if private_parts or private_names:
                    what = ", ".join(private_parts + private_names)
                    problems.append(f"{where}:{lineno}: private import across layers: {module} takes {what} "
                                    f"from {target}; import the public name from graphrkhs.{dst_layer} "
                                    "or move the shared piece to _core")
    for comp in _cycles(imports):
        members = set(comp)
        # name every import inside the cycle by file and line, so it can be found and cut
        edges = [f"{files[m].relative_to(root.parent)}:{lineno} imports {t}"
                 for m in comp for lineno, t, _ in imports[m] if t in members and t != m]
        problems.append("import cycle: " + " -> ".join(comp + comp[:1]) + " (" + "; ".join(edges) + ")")
    return problems


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    root = pathlib.Path(argv[0] if argv else pathlib.Path(__file__).resolve().parents[1] / TOP)
    problems = check(root)
    for p in problems:
        print(p)
    n_modules = len(collect(root)[0])
    print(f"layering: {len(problems)} violation(s) in {n_modules} modules")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
