"""benchmarks/REPORT.md is the assembly of benchmarks/report/*.md with the scripts' tables included.

The findings of every benchmark are written by hand in ``benchmarks/report/``; ``benchmarks/run.py``
rebuilds REPORT.md from them after a benchmark run.  Before, it rebuilt REPORT.md from the scripts'
tables alone and dropped the 800 lines of written findings.
"""
import importlib.util
import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCHMARKS = os.path.join(ROOT, "benchmarks")


@pytest.fixture(scope="module")
def run():
    spec = importlib.util.spec_from_file_location("benchmarks_run", os.path.join(BENCHMARKS, "run.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_report_is_the_assembly_of_its_sources(run):
    with open(os.path.join(BENCHMARKS, "REPORT.md")) as f:
        report = f.read()
    first = report.index("\n## Graph construction")   # after the header and the machine description
    assert report[first + 1:] == "\n\n".join(run.report_sections()) + "\n", (
        "benchmarks/REPORT.md differs from benchmarks/report/*.md: edit the sources and run "
        "`python -m benchmarks --report-only`")


def test_every_include_names_a_results_file():
    includes = []
    for name in sorted(os.listdir(os.path.join(BENCHMARKS, "report"))):
        with open(os.path.join(BENCHMARKS, "report", name)) as f:
            includes += re.findall(r"^<!-- include (\S+) -->$", f.read(), flags=re.M)
    assert includes
    for rel in includes:
        assert os.path.isfile(os.path.join(BENCHMARKS, rel)), rel


def test_write_report_keeps_written_findings_and_includes_tables(run, tmp_path, monkeypatch):
    (tmp_path / "report").mkdir()
    (tmp_path / "results").mkdir()
    (tmp_path / "report" / "02_b.md").write_text("## B\n\nfinding b\n<!-- include results/missing.md -->\n")
    (tmp_path / "report" / "01_a.md").write_text(
        "## A\n\nfinding a, line 1\n\n<!-- include results/a.md -->\n\nfinding a, line 2\n")
    (tmp_path / "results" / "a.md").write_text("# table a\n\n| x |\n|---|\n| 1 |\n\n![plot](label_rates_a.png)\n")
    monkeypatch.setattr(run, "HERE", str(tmp_path))
    monkeypatch.setattr(run, "REPORT_SOURCES", str(tmp_path / "report"))
    run.write_report({"a": "ok in 1 s"}, "quick")
    text = (tmp_path / "REPORT.md").read_text()
    body = text[text.index("## A"):]
    assert body == ("## A\n\nfinding a, line 1\n\n### table a\n\n| x |\n|---|\n| 1 |\n\n"
                    "![plot](results/label_rates_a.png)\n\nfinding a, line 2\n\n"
                    "## B\n\nfinding b\n(no results yet: run `python benchmarks/missing.py`)\n")
    assert "- a: ok in 1 s (tables: `benchmarks/results/a.md`)" in text
    assert text.index("## This run") < text.index("## A")
