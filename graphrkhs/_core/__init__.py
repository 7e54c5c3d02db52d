"""Shared foundations of every layer (private).

Validation and configuration, label encoding, progress reporting, and the
shared linear algebra: sparse block products, node reordering, conjugate
gradients, smoothed-aggregation AMG and the leave-one-out engine; the
registry of the ``backend=`` switch (``backend.py``).  Every
layer may import from here; nothing here imports any other part of
graphrkhs.
"""
