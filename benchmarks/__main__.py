"""``python -m benchmarks`` runs every benchmark script and writes REPORT.md (see run.py)."""
import sys

from benchmarks.run import main

sys.exit(main())
