"""graphrkhs benchmarks: ``python -m benchmarks --suite quick|full`` runs them all (see run.py)."""
