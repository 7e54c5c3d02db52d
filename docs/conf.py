"""Sphinx configuration of the graphrkhs documentation.

Build (warnings are errors)::

    python -m sphinx -W --keep-going -b html docs docs/_build/html

Build without running the gallery scripts (fast; the examples are shown as code)::

    python -m sphinx -W --keep-going -b html -D plot_gallery=0 docs docs/_build/html

Links into the NumPy/SciPy/scikit-learn references need the network:
``GRAPHRKHS_DOCS_INTERSPHINX=1 python -m sphinx ...``.

Run the ``>>>`` blocks of the user guide and of the API reference::

    python -m sphinx -b doctest docs docs/_build/doctest

The API reference is generated from the ``__all__`` lists of the public modules
at build time (see :func:`api_sections` and the ``graphrkhs-api`` directive
below), so a public name added to a module appears in the reference without
editing ``api.rst``; ``tests/test_docs.py`` checks that nothing falls through.
"""

import os
import sys
import warnings
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import Directive
from docutils.statemachine import StringList
from sphinx.ext.autosummary import Autosummary

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(DOCS))  # for _api.py and _gallery_order.py

import graphrkhs  # noqa: E402

from _api import api_sections  # noqa: E402

# -- project -------------------------------------------------------------------

project = "graphrkhs"
author = "the graphrkhs developers"
copyright = "2026, the graphrkhs developers"
version = release = graphrkhs.__version__

# -- general -------------------------------------------------------------------

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.doctest",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]

# Links to the NumPy / SciPy / scikit-learn / PyGSP / NetworkX references need
# their inventories from the network; offline builds (the default, and CI) skip
# them.  GRAPHRKHS_DOCS_INTERSPHINX=1 turns them on.
if os.environ.get("GRAPHRKHS_DOCS_INTERSPHINX", "0") not in ("", "0"):
    extensions.append("sphinx.ext.intersphinx")
    intersphinx_mapping = {
        "python": ("https://docs.python.org/3", None),
        "numpy": ("https://numpy.org/doc/stable", None),
        "scipy": ("https://docs.scipy.org/doc/scipy", None),
        "sklearn": ("https://scikit-learn.org/stable", None),
        "pygsp": ("https://pygsp.readthedocs.io/en/stable", None),
        "networkx": ("https://networkx.org/documentation/stable", None),
        "matplotlib": ("https://matplotlib.org/stable", None),
    }

templates_path = ["_templates"]
exclude_patterns = [
    "_build",
    "Thumbs.db",
    ".DS_Store",
    "generated/_api_names.rst",   # stub list for autosummary, never a page
    "auto_examples/*.ipynb",
    "auto_examples/*.py",
    "auto_examples/*.zip",
    "auto_examples/*.md5",
    "auto_examples/*.codeobj.json",
]
default_role = "obj"
root_doc = "index"

# -- autodoc / autosummary / numpydoc -----------------------------------------

autodoc_default_options = {"member-order": "bysource"}
autodoc_typehints = "none"              # the numpydoc sections carry the types
autosummary_imported_members = True
autosummary_ignore_module_all = False

numpydoc_show_class_members = False     # methods are documented by the class template
numpydoc_class_members_toctree = False
numpydoc_attributes_as_param_list = True
numpydoc_xref_param_type = False


def _write_stub_list():
    """Write the list of public names for autosummary's stub generation.

    The file is excluded from the build (``exclude_patterns``); autosummary only
    reads it to know which ``generated/<name>.rst`` pages to create.  It is
    rewritten at every build, so names added to a module's ``__all__`` get a
    page without anyone editing the docs.
    """
    out = DOCS / "generated"
    out.mkdir(exist_ok=True)
    names = []
    for section in api_sections():
        names += [n for n in section.names if n not in names]
    lines = [":orphan:", "", ".. autosummary::", f"   :toctree: {out}", ""]
    lines += [f"   {name}" for name in names]
    text = "\n".join(lines) + "\n"
    # Stub pages of names that left the API would be orphans ("document isn't
    # included in any toctree", an error under -W): remove them.
    for stale in out.glob("graphrkhs.*.rst"):
        if stale.stem not in names:
            stale.unlink()
    target = out / "_api_names.rst"
    if not target.exists() or target.read_text() != text:
        target.write_text(text)
    return "generated/_api_names.rst"


_stub_list = _write_stub_list()
autosummary_generate = [_stub_list]


class GraphRKHSAPI(Autosummary):
    """``.. graphrkhs-api:: <section key>``: an autosummary table of one API section.

    The names come from :func:`_api.api_sections` (the modules' ``__all__``),
    so the table cannot fall behind the code.
    """

    required_arguments = 1
    has_content = False
    option_spec = dict(Autosummary.option_spec)

    def run(self):
        key = self.arguments[0]
        sections = {s.key: s for s in api_sections()}
        if key not in sections:
            raise self.error(f"graphrkhs-api: unknown section {key!r}; "
                             f"known: {sorted(sections)}")
        section = sections[key]
        if not section.names:
            para = nodes.paragraph(text="(None at present.)")
            return [para]
        self.options.setdefault("toctree", "generated/")
        self.options.setdefault("nosignatures", None)
        self.content = StringList(list(section.names),
                                  source="graphrkhs-api")
        self.arguments = []
        return super().run()


class GraphRKHSHelp(Directive):
    """``.. graphrkhs-help:: [subcommand]``: the ``--help`` text of the command line,
    captured from :func:`graphrkhs.cli.main` at build time (it cannot go stale)."""

    optional_arguments = 1
    has_content = False

    def run(self):
        import contextlib
        import io

        from graphrkhs.cli import main

        argv = list(self.arguments) + ["--help"]
        buf = io.StringIO()
        old_columns = os.environ.get("COLUMNS")
        os.environ["COLUMNS"] = "88"
        try:
            with contextlib.redirect_stdout(buf):
                try:
                    main(argv)
                except SystemExit as exc:
                    if exc.code not in (0, None):
                        raise self.error(f"graphrkhs {' '.join(argv)} exited with {exc.code}")
        finally:
            if old_columns is None:
                os.environ.pop("COLUMNS", None)
            else:
                os.environ["COLUMNS"] = old_columns
        text = buf.getvalue().rstrip()
        if not text:
            raise self.error(f"graphrkhs {' '.join(argv)} printed nothing")
        block = nodes.literal_block(text, text)
        block["language"] = "text"
        return [block]


# -- doctest -------------------------------------------------------------------

doctest_global_setup = """
import numpy as np
import graphrkhs
"""
doctest_default_flags = (
    __import__("doctest").ELLIPSIS
    | __import__("doctest").NORMALIZE_WHITESPACE
    | __import__("doctest").DONT_ACCEPT_TRUE_FOR_1
)

# -- sphinx-gallery ------------------------------------------------------------

sphinx_gallery_conf = {
    "examples_dirs": [str(ROOT / "examples")],
    "gallery_dirs": ["auto_examples"],
    "filename_pattern": r"/plot_",         # execute the plot_*.py scripts
    "ignore_pattern": r"^(?!plot_)",       # and render nothing else in examples/
    "within_subsection_order": "_gallery_order.FamilySortKey",  # user-guide order
    "doc_module": ("graphrkhs",),
    "backreferences_dir": "generated/backreferences",
    "reference_url": {"graphrkhs": None},
    "matplotlib_animations": False,
    "remove_config_comments": True,
    "min_reported_time": 5,
    "show_memory": False,
    "download_all_examples": True,
    "default_thumb_file": None,
    "line_numbers": False,
    "capture_repr": ("_repr_html_", "__repr__"),
    "image_scrapers": ("matplotlib",),
    "reset_modules": ("matplotlib",),
    "plot_gallery": "True",
}
os.environ.setdefault("MPLBACKEND", "Agg")

# Gallery scripts and docstrings may emit our own numerical warnings on purpose
# (they show what the warning looks like); they are not documentation errors.
warnings.filterwarnings("default", category=graphrkhs.GraphRKHSWarning)

# -- html ----------------------------------------------------------------------

html_theme = "pydata_sphinx_theme"
html_title = f"graphrkhs {version}"
html_static_path = []
html_show_sourcelink = False
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 6,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_sidebars = {"index": [], "getting_started": [], "references": []}
mathjax3_config = {"tex": {"macros": {"R": r"\mathbb{R}", "H": r"\mathcal{H}"}}}


def _skip_foreign_members(app, what, name, obj, skip, options):
    """Document only the members this package defines.

    Estimators inherit ``get_params``, ``set_*_request``, ``score`` ... from
    scikit-learn and operators inherit ``matvec``, ``adjoint`` ... from SciPy;
    those are documented upstream, and their docstrings cross-reference labels
    that do not exist here.  Named-tuple fields are described in the class
    docstring's Attributes section.
    """
    if what not in ("class", "exception"):
        return None
    target = obj.fget if isinstance(obj, property) else obj
    target = getattr(target, "__func__", target)
    module = getattr(target, "__module__", None) or ""
    if not module.startswith("graphrkhs"):
        return True
    return None


def _constant_docstring(name):
    """The ``#:`` documentation comment of a public constant, wherever it is defined.

    Constants are re-exported from private modules, where autodoc does not look;
    without this, a constant would be documented by the docstring of its type
    (``int([x]) -> integer ...``).
    """
    import pkgutil

    from sphinx.pycode import ModuleAnalyzer

    for info in pkgutil.walk_packages(graphrkhs.__path__, "graphrkhs."):
        if info.name.endswith("__main__") or info.name.startswith("graphrkhs.cli"):
            continue  # importing them would run the command line
        try:
            docs = ModuleAnalyzer.for_module(info.name).find_attr_docs()
        except Exception:  # noqa: BLE001 -- a module without source: skip it
            continue
        if ("", name) in docs:
            return list(docs[("", name)])
    return None


def _document_constants(app, what, name, obj, options, lines):
    if what not in ("data", "attribute"):
        return
    builtin_doc = inspect_cleandoc(type(obj).__doc__ or "").strip()
    text = "\n".join(lines).strip()
    if text and not (builtin_doc and builtin_doc.splitlines()[0] == text.splitlines()[0]):
        return
    short = name.rsplit(".", 1)[-1]
    own = _constant_docstring(short)
    lines[:] = own if own else [f"Module-level constant (``{type(obj).__name__}``)."]


def inspect_cleandoc(doc):
    import inspect

    return inspect.cleandoc(doc)


def _api_page_always_outdated(app, env, added, changed, removed):
    """Re-read ``api.rst`` at every build: its tables come from ``__all__``, which
    Sphinx's incremental build cannot see change."""
    return ["api"]


def _no_gallery_for_doctest(app):
    """The doctest builder checks ``>>>`` blocks; running the gallery scripts
    there would only cost time (tests/test_examples.py runs them)."""
    if app.builder.name == "doctest":
        app.config.plot_gallery = False


def setup(app):
    app.add_directive("graphrkhs-api", GraphRKHSAPI)
    app.add_directive("graphrkhs-help", GraphRKHSHelp)
    app.connect("builder-inited", _no_gallery_for_doctest, priority=5)
    app.connect("env-get-outdated", _api_page_always_outdated)
    app.connect("autodoc-process-docstring", _document_constants, priority=100)
    app.connect("autodoc-skip-member", _skip_foreign_members)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
