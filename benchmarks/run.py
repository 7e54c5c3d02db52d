"""Run every benchmark script and gather their tables into one report.

Usage::

    python -m benchmarks --suite quick     # small sizes, under 10 minutes
    python -m benchmarks --suite full      # the sizes the issues quote (10^6 nodes, Fashion-MNIST): an hour or more

Each script ``benchmarks/<name>.py`` writes ``benchmarks/results/<name>.json``
and ``<name>.md``; this runner calls them (with ``--quick`` for the quick
suite), then writes ``benchmarks/REPORT.md``: the machine, the date, and every
table side by side with its anchors (scikit-learn, PyGSP, GraphLearning, bare
SciPy products), as ratios of medians measured in the same run.
"""

import argparse
import os
import platform
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "results")
SCRIPTS = ["graphs", "spectral", "transductive", "label_rates", "manifold", "datadependent"]
TITLES = {
    "graphs": "Graph construction (kNN)",
    "spectral": "Spectral filters (Chebyshev, Lanczos, lmax)",
    "transductive": "Transductive learners",
    "label_rates": "Accuracy against the label rate (issue 15)",
    "manifold": "Inductive semi-supervised learners (RLS, LapRLS, PRLS, PLapRLS, G-RLS)",
    "datadependent": "Data-dependent kernels (Fredholm, warped)",
    "distributed": "Distributed backend (MPI): Chebyshev step, halo volume, model and 10^8 projection",
}
# Sections whose scripts need a launcher (mpiexec): reported from their results, not run by this runner.
# Run them as their docstrings say (e.g. mpiexec -n 2 python benchmarks/distributed.py --out ...).
LAUNCHED = ["distributed"]


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
    parser.add_argument("--report-only", action="store_true", help="only rebuild REPORT.md from results/")
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


def write_report(status, suite):
    parts = ["# graphrkhs benchmark report", "",
             f"Written {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} "
             + (f"by `python -m benchmarks --suite {suite}`." if suite else
                "from the tables in benchmarks/results/ (each script's last run; its own date is in its section)."),
             "Every figure is a median of several runs; ratios compare methods measured in the same run "
             "(the machine is shared, so absolute seconds vary between runs, ratios much less).", "",
             "## Machine", "", machine_description(), ""]
    if status:
        parts += ["## This run", ""] + [f"- {name}: {s}" for name, s in status.items()] + [""]
    for name in SCRIPTS + LAUNCHED:
        md = os.path.join(RESULTS, f"{name}.md")
        parts.append(f"## {TITLES[name]}")
        parts.append("")
        if os.path.exists(md):
            with open(md) as f:
                body = f.read().strip().splitlines()
            # demote the script's own headings below this section's
            parts += [("##" + ln) if ln.startswith("#") else ln for ln in body]
            # images the scripts link relative to results/ are relative to benchmarks/ here
            parts = [ln.replace("](label_rates_", "](results/label_rates_") for ln in parts]
        else:
            parts.append(f"(no results yet: run `python benchmarks/{name}.py`)")
        parts.append("")
    with open(os.path.join(HERE, "REPORT.md"), "w") as f:
        f.write("\n".join(parts))
    print(f"wrote {os.path.join(HERE, 'REPORT.md')}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
