"""Run every benchmark script and gather their tables into one report.

Usage::

    python -m benchmarks --suite quick     # small sizes, under 10 minutes
    python -m benchmarks --suite full      # the sizes the issues quote (10^6 nodes, Fashion-MNIST): an hour or more

Each script ``benchmarks/<name>.py`` writes ``benchmarks/results/<name>.json``
and ``<name>.md``; this runner calls them (with ``--quick`` for the quick
suite), then writes ``benchmarks/REPORT.md``: the machine, the date, and every
table side by side with its anchors (scikit-learn, PyGSP, GraphLearning, bare
SciPy products), as ratios of medians measured in the same run.

REPORT.md is assembled, never edited by hand: its sections are the files
``benchmarks/report/*.md`` (in file-name order), the findings written for each
benchmark, in which a line ``<!-- include results/<name>.md -->`` stands for a
script's latest table.  Edit those files and rebuild with ``--report-only``;
``tests/test_benchmark_report.py`` checks that REPORT.md is their assembly.
Scripts that need a launcher (``distributed.py`` under ``mpiexec``) or hours
(the label-rate and out-of-sample runs at full size) are run as their
docstrings say; their sections quote or include their results.
"""

import argparse
import glob
import os
import platform
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPORT_SOURCES = os.path.join(HERE, "report")
SCRIPTS = ["graphs", "spectral", "transductive", "label_rates", "manifold", "datadependent"]


def machine_description():
    lines = [f"- Python {platform.python_version()} on {platform.platform()}", f"- {os.cpu_count()} cores"]
    try:
        with open("/proc/meminfo") as f:
            mem_kib = int(f.readline().split()[1])
        lines.append(f"- {mem_kib / 2**20:.0f} GiB memory")
    except OSError:
        pass
    try:
        import numpy
        import scipy
        import sklearn

        lines.append(f"- numpy {numpy.__version__}, scipy {scipy.__version__}, scikit-learn {sklearn.__version__}")
        from threadpoolctl import threadpool_info

        blas = [f"{i['internal_api']} ({i['num_threads']} threads)" for i in threadpool_info()]
        lines.append(f"- BLAS: {', '.join(blas)}")
    except ImportError:
        pass
    return "\n".join(lines)


def supports_quick(script):
    proc = subprocess.run([sys.executable, script, "--help"], capture_output=True, text=True, cwd=HERE)
    return "--quick" in proc.stdout


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--suite", choices=("quick", "full"), default="quick")
    parser.add_argument("--only", default=None, help="comma-separated subset of " + ",".join(SCRIPTS))
    parser.add_argument("--report-only", action="store_true", help="only rebuild REPORT.md from report/ and results/")
    args = parser.parse_args(argv)
    names = SCRIPTS if not args.only else [s for s in SCRIPTS if s in args.only.split(",")]
    status = {}
    if not args.report_only:
        for name in names:
            script = os.path.join(HERE, f"{name}.py")
            if not os.path.exists(script):
                status[name] = "missing"
                continue
            cmd = [sys.executable, script]
            if args.suite == "quick":
                if not supports_quick(script):
                    status[name] = "skipped (no --quick mode)"
                    continue
                cmd.append("--quick")
            print(f"== {name}: {' '.join(cmd[1:])}", file=sys.stderr, flush=True)
            t0 = time.perf_counter()
            proc = subprocess.run(cmd, cwd=os.path.dirname(HERE))
            status[name] = f"{'ok' if proc.returncode == 0 else f'failed (exit {proc.returncode})'} in " \
                           f"{time.perf_counter() - t0:.0f} s"
    write_report(status, None if args.report_only else args.suite)
    return 0 if all(s.startswith("ok") or s.startswith("skipped") for s in status.values()) else 1


INCLUDE = re.compile(r"^<!-- include (results/[\w.-]+\.md) -->$")


def results_block(relpath):
    """A script's table (``results/<name>.md``) as a report block: its headings demoted below the
    report's sections, its image links made relative to ``benchmarks/``."""
    path = os.path.join(HERE, relpath)
    if not os.path.exists(path):
        name = os.path.splitext(os.path.basename(relpath))[0]
        return [f"(no results yet: run `python benchmarks/{name}.py`)"]
    with open(path) as f:
        body = f.read().strip().splitlines()
    return [("##" + ln if ln.startswith("#") else ln).replace("](label_rates_", "](results/label_rates_")
            for ln in body]


def report_sections():
    """The report's sections: ``benchmarks/report/*.md`` in file-name order, each a curated text (the
    findings, written by hand and kept in git) in which a line ``<!-- include results/<name>.md -->``
    stands for that script's latest table."""
    sections = []
    for path in sorted(glob.glob(os.path.join(REPORT_SOURCES, "*.md"))):
        with open(path) as f:
            lines = f.read().rstrip("\n").split("\n")
        out = []
        for ln in lines:
            m = INCLUDE.match(ln)
            out += results_block(m.group(1)) if m else [ln]
        sections.append("\n".join(out))
    return sections


def write_report(status, suite):
    """Write REPORT.md: the machine, this run's status, then every section of ``report_sections``.

    The findings live in ``benchmarks/report/`` (REPORT.md is only their assembly), so rebuilding the
    report after a benchmark run refreshes the included tables and loses none of the written analysis.
    A script whose table no section includes is named in the status lines with its results file."""
    parts = ["# graphrkhs benchmark report", "",
             f"Written {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} "
             + (f"by `python -m benchmarks --suite {suite}`." if suite else
                "from the tables in benchmarks/results/ (each script's last run; its own date is in its section)."),
             "Every figure is a median of several runs; ratios compare methods measured in the same run "
             "(the machine is shared, so absolute seconds vary between runs, ratios much less).", "",
             "## Machine", "", machine_description(), ""]
    if status:
        parts += ["## This run", ""] + [f"- {name}: {s} (tables: `benchmarks/results/{name}.md`)"
                                        for name, s in status.items()] + [""]
    parts.append("\n\n".join(report_sections()))
    with open(os.path.join(HERE, "REPORT.md"), "w") as f:
        f.write("\n".join(parts) + "\n")
    print(f"wrote {os.path.join(HERE, 'REPORT.md')}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
