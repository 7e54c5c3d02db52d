"""``python -m graphrkhs`` runs the command line (see :mod:`graphrkhs.cli`)."""
import sys

from .cli import main

sys.exit(main())
