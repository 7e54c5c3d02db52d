"""Order of the gallery: by method family, in the order of the user guide.

sphinx-gallery takes the sort key by its importable name (a callable in
``conf.py`` itself could not be pickled with the configuration).  A script is
placed by the first keyword of ``FAMILIES`` its file name contains; scripts
that match none come last, and ties are broken by file name, so a new example
needs no change here to appear.
"""

from pathlib import Path

# (keywords, family rank): graphs, spectral, graph kernels, transductive,
# inductive, data-dependent, scaling -- the order of docs/user_guide.
FAMILIES = [
    (("graph_construction", "knn", "epsilon", "laplacian"), 0),
    (("chebyshev", "lanczos", "spectral", "filter", "heat_kernel"), 1),
    (("graph_kernel", "rkhs"), 2),
    (("ridge", "tv", "poisson", "harmonic", "laplace_learning", "transductive", "active", "class_sizes"), 3),
    (("rls", "laprls", "prls", "grls", "manifold", "two_moons"), 4),
    (("warped", "fredholm", "noise"), 5),
    (("scaling", "benchmark", "timing"), 6),
]


def family_rank(filename):
    stem = Path(filename).stem.lower()
    for keywords, rank in FAMILIES:
        if any(k in stem for k in keywords):
            return rank
    return len(FAMILIES)


class FamilySortKey:
    """sphinx-gallery ``within_subsection_order``: (family rank, file name)."""

    def __init__(self, src_dir):
        self.src_dir = src_dir

    def __call__(self, filename):
        return (family_rank(filename), str(filename))

    def __repr__(self):
        return f"<{self.__class__.__name__}>"
