"""Benchmark: every classifier with its defaults at one label per class (the leave-one-out gate).

With every class labeled once, leave-one-out cannot rank parameters (leaving out a class's only label
leaves the class without one); the learners then use their fallback numbers
(``graphrkhs.estimators._auto.loo_selects``).  This measures what that gives: accuracy on the unlabeled
points, mean +- standard deviation over seeded label draws (``sample_labels(y, 1, random_state=d)``,
d = 0..N-1), for every inductive learner (``predict`` on the unlabeled points) and the transductive
Laplace learning and graph kernel ridge (``transduction_``), each with default parameters and its own
default graph.  Anchors in the same run: scikit-learn's 1-nearest-neighbour classifier on the labeled
points and ``LabelSpreading(kernel="knn")``.

Data: scikit-learn's digits (1797 x 64, scaled to [0, 1]) and ``fashion<N>k``, N thousand Fashion-MNIST
points (a fixed random subset of the 70000, pixels in [0, 1]; skipped when the Debian package is not
installed).  Above 6000 points LapRLS and PLapRLS take their Nystrom paths.

Run:  python benchmarks/one_label_per_class.py [--draws 10] [--datasets digits,fashion3k]
      python benchmarks/one_label_per_class.py --datasets fashion12k --draws 3 \
             --learners LapRLSClassifier,PLapRLSClassifier --no-anchors
Writes benchmarks/results/one_label_per_class.{json,md} (one record per dataset, merged with the stored
ones).
"""

import argparse
import json
import os
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "results")

LEARNERS = ["RLSClassifier", "PRLSClassifier", "GRLSClassifier", "FredholmClassifier", "LapRLSClassifier",
            "PLapRLSClassifier", "WarpedKernelClassifier", "LaplacianRegularizationClassifier",
            "GraphKernelRidgeClassifier"]


def load(name):
    if name == "digits":
        from sklearn.datasets import load_digits
        X, y = load_digits(return_X_y=True)
        return X / 16.0, y
    if name.startswith("fashion") and name.endswith("k") and name[7:-1].isdigit():
        from graphrkhs.datasets import load_fashion_mnist
        X, y = load_fashion_mnist(dtype=np.float64)
        keep = np.random.default_rng(0).choice(y.size, 1000 * int(name[7:-1]), replace=False)
        return X[keep], y[keep]
    raise ValueError(f"unknown dataset {name!r} (digits or fashion<N>k, N thousand Fashion-MNIST points)")


def anchors():
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.semi_supervised import LabelSpreading

    def one_nn(X, yl, hidden):
        lab = yl >= 0
        return KNeighborsClassifier(1).fit(X[lab], yl[lab]).predict(X[hidden])

    def spreading(X, yl, hidden):
        return LabelSpreading(kernel="knn", n_neighbors=10).fit(X, yl).transduction_[hidden]

    return [("anchor: 1-NN on the labeled points (scikit-learn)", one_nn),
            ("anchor: LabelSpreading(kernel='knn') (scikit-learn)", spreading)]


def ours(name):
    import graphrkhs

    def run(X, yl, hidden):
        est = getattr(graphrkhs, name)().fit(X, yl)
        if hasattr(est, "transduction_"):
            return est.transduction_[hidden]
        return est.predict(X[hidden])

    return run


def evaluate(X, y, draws, methods):
    from graphrkhs.datasets import sample_labels
    rows = []
    for label, fn in methods:
        accs, times = [], []
        for d in range(draws):
            yl, keep = sample_labels(y, 1, random_state=d)
            hidden = np.ones(y.size, dtype=bool)
            hidden[keep] = False
            t0 = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                pred = np.asarray(fn(X, np.asarray(yl), hidden))
            times.append(time.perf_counter() - t0)
            accs.append(float(np.mean(pred == y[hidden])))
        rows.append({"method": label, "accuracy_mean": float(np.mean(accs)), "accuracy_std": float(np.std(accs)),
                     "accuracies": accs, "time_median": float(np.median(times))})
        print(f"  {label:<55} {100 * rows[-1]['accuracy_mean']:6.2f} +- {100 * rows[-1]['accuracy_std']:5.2f}"
              f"  ({rows[-1]['time_median']:.2f} s)", flush=True)
    return rows


def render(results):
    lines = ["# Every classifier with its defaults at one label per class", "",
             f"Accuracy on the unlabeled points (%), mean +- std over the label draws; {results['date']}.", ""]
    for name, rows in results["datasets"].items():
        lines += [f"## {name} ({results['draws'].get(name, '?')} draws)", "",
                  "| method | accuracy | fit (median, s) |", "|---|---|---|"]
        lines += [f"| {r['method']} | {100 * r['accuracy_mean']:.2f} +- {100 * r['accuracy_std']:.2f} | "
                  f"{r['time_median']:.2f} |" for r in rows]
        lines.append("")
    return "\n".join(lines)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--draws", type=int, default=10)
    p.add_argument("--datasets", default="digits,fashion3k")
    p.add_argument("--learners", default=",".join(LEARNERS))
    p.add_argument("--no-anchors", dest="anchors", action="store_false")
    args = p.parse_args(argv)
    jpath = os.path.join(RESULTS, "one_label_per_class.json")
    results = json.load(open(jpath)) if os.path.exists(jpath) else {"datasets": {}}
    results.setdefault("draws", {})
    if not isinstance(results["draws"], dict):
        results["draws"] = {}
    results["date"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    for name in args.datasets.split(","):
        try:
            X, y = load(name)
        except (OSError, FileNotFoundError) as exc:
            print(f"[{name}] skipped: {exc}")
            continue
        print(f"[{name}] n = {y.size}", flush=True)
        methods = (anchors() if args.anchors else []) + [(f"graphrkhs {n}()", ours(n))
                                                         for n in args.learners.split(",")]
        results["datasets"][name] = evaluate(X, y, args.draws, methods)
        results["draws"][name] = args.draws
    os.makedirs(RESULTS, exist_ok=True)
    with open(jpath, "w") as f:
        json.dump(results, f, indent=1)
    with open(os.path.join(RESULTS, "one_label_per_class.md"), "w") as f:
        f.write(render(results))
    print(render(results))


if __name__ == "__main__":
    main()
