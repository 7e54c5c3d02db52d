"""Transductive estimators on graphs (scikit-learn API).

(Filled in by the transductive-learners issue.)
"""

__all__ = []
