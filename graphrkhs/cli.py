"""The ``graphrkhs`` command.

``graphrkhs demo`` labels scikit-learn's bundled digits (1797 points) from a
few labels per class with the library's graph methods and prints their
accuracy and time beside scikit-learn's :class:`LabelSpreading`.
"""

import argparse
import sys
import time

import numpy as np

__all__ = ["main"]


def _demo_methods(n_neighbors):
    """(name, callable(X, y_partial, W) -> predicted codes) of every demo method."""
    from sklearn.semi_supervised import LabelSpreading

    from ._labels import one_hot, split_classification_labels
    from ._solvers_graph import harmonic_solution

    def harmonic(X, y, W):
        labeled, classes, codes = split_classification_labels(y, X.shape[0])
        F = harmonic_solution(W, np.flatnonzero(labeled), one_hot(codes[labeled], classes.size))
        return classes[F.argmax(axis=1)]

    def label_spreading(X, y, W):
        model = LabelSpreading(kernel="knn", n_neighbors=n_neighbors, max_iter=1000)
        return model.fit(X, y).transduction_

    return [
        ("Laplace learning (harmonic, AMG-CG)", harmonic, "graphrkhs"),
        ("LabelSpreading(knn)", label_spreading, "scikit-learn"),
    ]


def demo(labels_per_class=10, n_draws=5, n_neighbors=10, seed=0, out=sys.stdout):
    """Run the digits demo and print its table; returns the rows as dicts."""
    from .datasets import load_digits, sample_labels
    from .graphs import knn_graph

    X, y = load_digits()
    t0 = time.perf_counter()
    W = knn_graph(X, n_neighbors, weight="self-tuning")
    t_graph = time.perf_counter() - t0
    rng = np.random.default_rng(seed)
    draws = [sample_labels(y, labels_per_class, random_state=rng) for _ in range(n_draws)]
    print(f"graphrkhs demo: digits, n = {X.shape[0]}, {labels_per_class} labels per class, "
          f"{n_draws} random label draws, kNN graph k = {n_neighbors} (built in {t_graph:.2f} s)", file=out)
    rows = []
    for name, method, source in _demo_methods(n_neighbors):
        accs, times = [], []
        for y_partial, keep in draws:
            t0 = time.perf_counter()
            pred = method(X, y_partial, W)
            times.append(time.perf_counter() - t0)
            hidden = np.ones(y.size, dtype=bool)
            hidden[keep] = False
            accs.append(np.mean(pred[hidden] == y[hidden]))
        rows.append({"method": name, "source": source, "accuracy_mean": float(np.mean(accs)),
                     "accuracy_std": float(np.std(accs)), "time_median": float(np.median(times))})
    width = max(len(r["method"]) for r in rows)
    print(f"\n{'method':<{width}}  {'from':<12}  {'accuracy (unlabeled)':>20}  {'time (median)':>13}", file=out)
    print(f"{'-' * width}  {'-' * 12}  {'-' * 20}  {'-' * 13}", file=out)
    for r in rows:
        acc = f"{100 * r['accuracy_mean']:.1f}% +- {100 * r['accuracy_std']:.1f}"
        print(f"{r['method']:<{width}}  {r['source']:<12}  {acc:>20}  {r['time_median']:>11.3f} s", file=out)
    return rows


def build_parser():
    parser = argparse.ArgumentParser(
        prog="graphrkhs",
        description="Learning on graphs with reproducing-kernel Hilbert spaces.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    p_demo = sub.add_parser(
        "demo", help="label the digits from a few labels per class and compare with scikit-learn",
        description="Transductive labeling of scikit-learn's bundled digits (1797 points) from a few labels "
                    "per class; prints accuracy on the unlabeled points and time per method.")
    p_demo.add_argument("--labels-per-class", type=int, default=10, metavar="N",
                        help="labels kept per class (default: 10)")
    p_demo.add_argument("--draws", type=int, default=5, metavar="N",
                        help="random label draws to average over (default: 5)")
    p_demo.add_argument("--neighbors", type=int, default=10, metavar="K",
                        help="k of the kNN graph (default: 10)")
    p_demo.add_argument("--seed", type=int, default=0, help="random seed of the label draws (default: 0)")
    return parser


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    if args.command == "demo":
        for name in ("labels_per_class", "draws", "neighbors"):
            if getattr(args, name) < 1:
                parser.error(f"--{name.replace('_', '-')} must be at least 1")
        demo(args.labels_per_class, args.draws, args.neighbors, args.seed)
        return 0
    parser.error(f"unknown command {args.command}")  # pragma: no cover


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
