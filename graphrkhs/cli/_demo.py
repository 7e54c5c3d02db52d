"""``graphrkhs demo``: transductive labeling of scikit-learn's digits beside LabelSpreading."""

import os
import sys
import time
import warnings

import numpy as np

__all__ = ["demo"]

#: The demo table's first row: the recommended classifier with its defaults.
RECOMMENDED_ROW = "Poisson + kernel ridge ensemble (recommended)"


def _demo_methods(n_neighbors):
    r"""(name, callable(X, y_partial, W) -> predicted labels) of every demo method.

    The first row is the library's recommended classifier for transductive labeling,
    :class:`~graphrkhs.PoissonRidgeEnsembleClassifier` with its defaults (its own
    ``graph="auto"``: on the digits, 8 x 8 images, the self-tuning kNN graph of the tangent distance).
    The next two label the precomputed graph ``W`` (self-tuning kNN weights;
    the second sharpened to :math:`\exp(-4 d^2 / (\sigma_i \sigma_j))`, GraphLearning's
    sharpness); the other graphrkhs learners (transductive and inductive) build
    their own kNN graph from X with their documented defaults (those of
    :func:`~graphrkhs.knn_graph`); hyperparameters are defaults or chosen by
    leave-one-out on the labeled points, never by the hidden labels.
    """
    from sklearn.semi_supervised import LabelSpreading

    from ..estimators import (
        FredholmClassifier,
        GraphKernelRidgeClassifier,
        GraphTVClassifier,
        GRLSClassifier,
        LaplacianRegularizationClassifier,
        LapRLSClassifier,
        PLapRLSClassifier,
        PoissonLearningClassifier,
        PoissonRidgeEnsembleClassifier,
        PRLSClassifier,
        RLSClassifier,
        WarpedKernelClassifier,
    )

    def harmonic(X, y, W):
        return LaplacianRegularizationClassifier(0.0, graph="precomputed", unlabeled=-1).fit(W, y).transduction_

    def sharp_harmonic(X, y, W):
        model = LaplacianRegularizationClassifier(0.0, graph="precomputed", unlabeled=-1)
        return model.fit(W.power(4.0), y).transduction_

    def estimator(make):
        def run(X, y, W):
            return make().fit(X, y).transduction_
        return run

    def inductive(cls):
        def run(X, y, W):
            return cls().fit(X, y).predict(X)
        return run

    def label_spreading(X, y, W):
        model = LabelSpreading(kernel="knn", n_neighbors=n_neighbors, max_iter=1000)
        return model.fit(X, y).transduction_

    return [
        (RECOMMENDED_ROW, estimator(lambda: PoissonRidgeEnsembleClassifier(n_neighbors=n_neighbors)), "graphrkhs"),
        ("Laplace learning (harmonic, AMG-CG)", harmonic, "graphrkhs"),
        ("Laplace learning (sharp kNN weights)", sharp_harmonic, "graphrkhs"),
        ("Poisson learning", estimator(lambda: PoissonLearningClassifier(n_neighbors=n_neighbors)), "graphrkhs"),
        ("Graph kernel ridge (LOO alpha)",
         estimator(lambda: GraphKernelRidgeClassifier(n_neighbors=n_neighbors)), "graphrkhs"),
        # tol=1e-2: class decisions need no tighter duality gap (identical to 1e-3 on the digits).
        ("Graph TV", estimator(lambda: GraphTVClassifier(n_neighbors=n_neighbors, tol=1e-2)), "graphrkhs"),
        # Inductive learners: fitted on labeled + unlabeled rows, then predict(X) on the same rows.
        ("RLS (supervised, inductive)", inductive(RLSClassifier), "graphrkhs"),
        ("LapRLS (inductive)", inductive(LapRLSClassifier), "graphrkhs"),
        ("PRLS (inductive)", inductive(PRLSClassifier), "graphrkhs"),
        ("PLapRLS (inductive)", inductive(PLapRLSClassifier), "graphrkhs"),
        ("G-RLS, constant feature (inductive)", inductive(GRLSClassifier), "graphrkhs"),
        ("Fredholm RLS (inductive)", inductive(FredholmClassifier), "graphrkhs"),
        ("Warped-kernel RLS (inductive)", inductive(WarpedKernelClassifier), "graphrkhs"),
        ("LabelSpreading(knn)", label_spreading, "scikit-learn"),
    ]


def demo(labels_per_class=10, n_draws=5, n_neighbors=10, seed=0, out=None):
    """Run the digits demo and print its table; returns the rows as dicts.

    Parameters
    ----------
    labels_per_class : int >= 1, default=10
        Labels kept per digit class in each draw (below 174, the smallest class).
    n_draws : int >= 1, default=5
        Random label draws; the table shows mean and spread (standard deviation) over them, the
        accuracy alone for one draw.
    n_neighbors : int >= 1, default=10
        k of the kNN graphs.
    seed : int >= 0, default=0
        Seed of the label draws.
    out : file, optional
        Where the table goes (default: standard output).

    Returns
    -------
    list of dict
        One per method: ``method``, ``source``, ``accuracy_mean``, ``accuracy_std``, ``time_median``.
    """
    from .._core.validation import check_scalar

    # checked here, before the data and the fits (n_draws=0 used to print a table of NaN)
    labels_per_class = check_scalar(labels_per_class, "labels_per_class", kind="int", low=1)
    n_draws = check_scalar(n_draws, "n_draws", kind="int", low=1)
    n_neighbors = check_scalar(n_neighbors, "n_neighbors", kind="int", low=1)
    seed = check_scalar(seed, "seed", kind="int", low=0)
    out = sys.stdout if out is None else out
    from ..datasets import load_digits, sample_labels
    from ..graphs import knn_graph

    X, y = load_digits()
    t0 = time.perf_counter()
    W = knn_graph(X, n_neighbors, weight="self-tuning")
    t_graph = time.perf_counter() - t0
    rng = np.random.default_rng(seed)
    draws = [sample_labels(y, labels_per_class, random_state=rng) for _ in range(n_draws)]
    print(f"graphrkhs demo: digits, n = {X.shape[0]}, {labels_per_class} labels per class, "
          f"{n_draws} random label draws, kNN graph k = {n_neighbors} (built in {t_graph:.2f} s)", file=out)
    rows, notes = [], {}
    for name, method, source in _demo_methods(n_neighbors):
        accs, times = [], []
        for draw, (y_partial, keep) in enumerate(draws):
            # The library's warnings (e.g. a GraphWarning naming a fallback) are collected and
            # listed under the table, once per method and kind, instead of interleaving with it.
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                t0 = time.perf_counter()
                pred = method(X, y_partial, W)
                times.append(time.perf_counter() - t0)
            for w in caught:
                first_sentence = str(w.message).split(";")[0].split(". ")[0]
                key = (name, w.category.__name__)
                # the draws that raised it (a method warning twice in one draw was "2 of 1 draw(s)")
                notes.setdefault(key, [set(), first_sentence])[0].add(draw)
            hidden = np.ones(y.size, dtype=bool)
            hidden[keep] = False
            accs.append(np.mean(pred[hidden] == y[hidden]))
        rows.append({"method": name, "source": source, "accuracy_mean": float(np.mean(accs)),
                     "accuracy_std": float(np.std(accs)), "time_median": float(np.median(times))})
    width = max(len(r["method"]) for r in rows)
    print(f"\n{'method':<{width}}  {'from':<12}  {'accuracy (unlabeled)':>20}  {'time (median)':>13}", file=out)
    print(f"{'-' * width}  {'-' * 12}  {'-' * 20}  {'-' * 13}", file=out)
    for r in rows:
        # the spread over the draws (one draw has none to show: not "+- 0.0")
        acc = f"{100 * r['accuracy_mean']:.1f}%" + (f" +- {100 * r['accuracy_std']:.1f}" if n_draws > 1 else "")
        print(f"{r['method']:<{width}}  {r['source']:<12}  {acc:>20}  {r['time_median']:>11.3f} s", file=out)
    if notes:
        print("\nwarnings raised during the fits (see the docs' Reliability page):", file=out)
        for (name, category), (which, text) in notes.items():
            print(f"- {name}: {category} in {len(which)} of {n_draws} draw(s): {text}", file=out)
    return rows


def _demo_plot(path, rows, labels_per_class, n_neighbors, seed):
    """Save the digits in a 2-D t-SNE embedding, coloured by the best graphrkhs method's labels."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from sklearn.manifold import TSNE

    from ..datasets import load_digits, sample_labels
    from ..graphs import knn_graph

    X, y = load_digits()
    W = knn_graph(X, n_neighbors, weight="self-tuning")
    ours = [r for r in rows if r["source"] == "graphrkhs"]
    best = max(ours, key=lambda r: r["accuracy_mean"])
    method = dict((name, m) for name, m, _ in _demo_methods(n_neighbors))[best["method"]]
    y_partial, keep = sample_labels(y, labels_per_class, random_state=np.random.default_rng(seed))
    pred = np.asarray(method(X, y_partial, W))
    # t-SNE separates the ten digit clusters in 2-D (a spectral embedding collapses most of them).
    # scikit-learn seeds t-SNE by a legacy RandomState, which takes seeds below 2**32 only: --seed 2**32 (taken
    # by the label draws) ended in TSNE's InvalidParameterError after every fit.  Above, a RandomState on the
    # seed's SeedSequence; below, the seed itself (the same picture as before)
    tsne_seed = seed if seed < 2**32 else np.random.RandomState(np.random.MT19937(seed))
    emb = TSNE(n_components=2, init="pca", random_state=tsne_seed, perplexity=30, max_iter=500).fit_transform(X)
    hidden = np.ones(y.size, dtype=bool)
    hidden[keep] = False
    wrong = (pred != y) & hidden           # as the title's accuracy: the given labels are not mistakes
    fig, ax = plt.subplots(figsize=(7, 6))
    sc = ax.scatter(emb[:, 0], emb[:, 1], c=pred.astype(int), cmap="tab10", s=8)
    ax.scatter(emb[wrong, 0], emb[wrong, 1], facecolors="none", edgecolors="k", s=40, linewidths=0.8,
               label=f"mistakes ({int(wrong.sum())})")
    ax.scatter(emb[keep, 0], emb[keep, 1], marker="*", c="k", s=30, label="given labels")
    ax.legend(loc="best")
    fig.colorbar(sc, ax=ax, label="predicted digit")
    accuracy = 100 * np.mean(pred[hidden] == y[hidden])
    ax.set_title(f"{best['method']}\n{labels_per_class} labels/class, accuracy {accuracy:.1f}% (t-SNE view)")
    ax.set_xticks([])
    ax.set_yticks([])
    fig.tight_layout()
    if not os.path.splitext(path)[1]:
        path += ".png"   # what matplotlib does with a name without extension; the message names the real file
    fig.savefig(path, dpi=120)
    plt.close(fig)
    print(f"saved {path}")

