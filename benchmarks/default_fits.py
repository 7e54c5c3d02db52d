"""Survey: every estimator's *default* fit on the data a demanding user brings, against simple anchors.

What it measures.  Every class in ``graphrkhs.__all__`` whose name ends in ``Classifier`` / ``Regressor`` is
fitted with its defaults (``cls().fit(X, y_partial).predict(X)``) on each case below, for ``--seeds``
draws of the labels; the score is the accuracy (classification) or R^2 (regression; multi-output: the
R^2 of every column, the row shows the smallest) on the unlabeled points.  In the same run, on the same
points and labels, the anchors are fitted: scikit-learn's ``LabelSpreading(kernel="knn")`` and
``KNeighborsClassifier(n_neighbors=min(5, l))`` on the labeled points (classification),
``KNeighborsRegressor(n_neighbors=min(5, l))`` (regression).  Also recorded: the fit + predict time, an
exception (class and message), a non-finite prediction, a prediction that is one class everywhere, and
every warning raised from graphrkhs.  A row is *flagged* when its score is more than ``--margin``
(default 0.15) below both the best anchor and the median of the library's estimators on that case, or
when the fit crashes, predicts NaN, or predicts one class everywhere while the anchors do not.

The cases are the ones the first survey (eight clean, scaled, small data sets) left out: many classes
(make_classification, 10 and 20 classes, 5 labels per class); strongly unbalanced classes with labels drawn
at random over all points (not per class); multi-output regression with columns of very different
scales; 1-D and 2-D inputs; duplicated rows; unscaled features (wine, breast cancer); integer-valued and
float32 X; string class labels; pandas DataFrame / Series input; n = 6000 (make_classification,
make_friedman1) and a 5000-point Fashion-MNIST subset (``graphrkhs.datasets.load_fashion_mnist``, needs
Debian's ``dataset-fashion-mnist``; the case is left out with a note when the files are absent).

How to run (from the repository root)::

    python benchmarks/default_fits.py                       # all cases, 2 seeds; ~1 h on 2 cores
    python benchmarks/default_fits.py --cases many10,pandas --seeds 1
    python benchmarks/default_fits.py --estimators GraphTVClassifier,RLSClassifier
    python benchmarks/default_fits.py --list                # the case names

Writes ``benchmarks/results/default_fits.md`` (``--out`` to change; a partial run over ``--cases`` writes
only those), and prints one line per fit as it goes.
"""

import argparse
import os
import signal
import sys
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import graphrkhs as g  # noqa: E402
from graphrkhs.datasets import sample_labels  # noqa: E402
from sklearn import datasets as skd  # noqa: E402
from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402
from sklearn.semi_supervised import LabelSpreading  # noqa: E402


class Case:
    """One data set: X (as the user passes it), the full target, and how labels are drawn."""

    def __init__(self, name, about, make, per_class=None, n_random=None, seeds=None):
        self.name, self.about, self.make = name, about, make
        self.per_class, self.n_random, self.seeds = per_class, n_random, seeds

    @property
    def regression(self):
        return self.per_class is None and self.n_random is not None and self.n_random < 0


def _friedman_multi(n, seed):
    X, t = skd.make_friedman1(n, noise=0.5, random_state=seed)
    # three smooth targets of very different scales (1, 1e3, 1e-3)
    T = np.column_stack([t, 1e3 * np.sin(3 * X[:, 0]) * X[:, 1], 1e-3 * (X[:, 2] - 0.5) ** 2 + 1e-4 * X[:, 3]])
    return X, T


def _dup(X, y, times=3):
    return np.repeat(X, times, axis=0), np.repeat(y, times, axis=0)


def _fashion(n, seed):
    from graphrkhs.datasets import load_fashion_mnist
    X, y = load_fashion_mnist()
    idx = np.random.default_rng(seed).choice(len(y), n, replace=False)
    return X[idx], y[idx]


def _pandas_wine():
    import pandas as pd
    d = skd.load_wine(as_frame=True)
    X = pd.DataFrame(StandardScaler().fit_transform(d.data), columns=d.data.columns)
    return X, d.target.map({0: "barolo", 1: "grignolino", 2: "barbera"})


def cases():
    out = [
        Case("many10", "make_classification 1000 x 20, 10 classes, 5 labels/class",
             lambda: skd.make_classification(1000, 20, n_informative=10, n_classes=10, n_clusters_per_class=1,
                                             class_sep=1.5, random_state=0), per_class=5),
        Case("many20", "make_classification 2000 x 30, 20 classes, 5 labels/class",
             lambda: skd.make_classification(2000, 30, n_informative=15, n_classes=20, n_clusters_per_class=1,
                                             class_sep=2.0, random_state=0), per_class=5),
        Case("unbal", "make_classification 1000 x 10, classes 85/10/5 %, 40 labels at random",
             lambda: skd.make_classification(1000, 10, n_informative=5, n_classes=3, n_clusters_per_class=1,
                                             weights=[0.85, 0.10, 0.05], class_sep=1.5, random_state=0),
             n_random=40),
        Case("unbal2", "make_classification 1000 x 10, classes 95/5 %, 30 labels at random",
             lambda: skd.make_classification(1000, 10, n_informative=5, n_classes=2, n_clusters_per_class=1,
                                             weights=[0.95, 0.05], class_sep=1.5, random_state=1),
             n_random=30),
        Case("blobs1d", "1-D input: two Gaussians at -1 and +1 (sd 0.5), 500 points, 5 labels/class",
             lambda: (np.r_[np.random.default_rng(0).normal(-1, .5, 250), np.random.default_rng(1).normal(1, .5, 250)]
                      [:, None], np.r_[np.zeros(250, int), np.ones(250, int)]), per_class=5),
        Case("blobs2d", "2-D input: make_blobs 600, 4 centres, 5 labels/class",
             lambda: skd.make_blobs(600, 2, centers=4, cluster_std=1.5, random_state=0), per_class=5),
        Case("dup_digits", "digits / 16 with every row three times (5391 rows), 10 labels/class",
             lambda: (lambda X, y: (X / 16.0, y))(*_dup(*skd.load_digits(return_X_y=True))),
             per_class=10),
        Case("dup_iris", "iris standardized; 150 rows with duplicates in the raw data, each row repeated twice",
             lambda: _dup(StandardScaler().fit_transform(skd.load_iris().data), skd.load_iris().target, 2),
             per_class=4),
        Case("wine_raw", "wine unscaled (feature ranges 0.1 .. 1680)", lambda: skd.load_wine(return_X_y=True),
             per_class=4),
        Case("cancer_raw", "breast cancer unscaled (feature ranges 1e-3 .. 4254)",
             lambda: skd.load_breast_cancer(return_X_y=True), per_class=5),
        Case("digits_int", "digits raw int64 pixels 0..16", lambda: skd.load_digits(return_X_y=True), per_class=10),
        Case("digits_f32", "digits / 16 as float32",
             lambda: ((skd.load_digits().data / 16.0).astype(np.float32), skd.load_digits().target), per_class=10),
        Case("iris_str", "iris standardized, string class names",
             lambda: (StandardScaler().fit_transform(skd.load_iris().data),
                      np.asarray(skd.load_iris().target_names)[skd.load_iris().target]), per_class=4),
        Case("pandas", "wine standardized as a DataFrame, labels a pandas Series of strings", _pandas_wine,
             per_class=4),
        Case("big_clf", "make_classification 6000 x 20, 5 classes, 10 labels/class",
             lambda: skd.make_classification(6000, 20, n_informative=8, n_classes=5, n_clusters_per_class=1,
                                             class_sep=1.5, random_state=0), per_class=10, seeds=1),
        Case("fashion5k", "Fashion-MNIST, 5000 random images, 10 labels/class", lambda: _fashion(5000, 0),
             per_class=10, seeds=1),
        # regression: n_random = -(number of labels)
        Case("multi3", "friedman1 400 x 10, 3 targets of scales 1, 1e3, 1e-3, 60 labels",
             lambda: _friedman_multi(400, 0), n_random=-60),
        Case("reg1d", "1-D input: sin(2 pi x) + N(0, 0.1), 400 points, 30 labels",
             lambda: (lambda x: (x[:, None], np.sin(2 * np.pi * x) + 0.1 * np.random.default_rng(1).normal(size=400)))(
                 np.random.default_rng(0).uniform(0, 1, 400)), n_random=-30),
        Case("reg2d", "2-D input: sin(3 x0) cos(3 x1), 600 points in [-1, 1]^2, 40 labels",
             lambda: (lambda X: (X, np.sin(3 * X[:, 0]) * np.cos(3 * X[:, 1])))(
                 np.random.default_rng(0).uniform(-1, 1, (600, 2))), n_random=-40),
        Case("reg_dup", "friedman1 400 with every row twice, 40 labels",
             lambda: _dup(*skd.make_friedman1(400, noise=0.5, random_state=0), 2), n_random=-40),
        Case("reg_int", "friedman1 400 with X rounded to integer percent (int64 0..100), 40 labels",
             lambda: (lambda X, t: (np.round(100 * X).astype(np.int64), t))(
                 *skd.make_friedman1(400, noise=0.5, random_state=0)), n_random=-40),
        Case("reg_f32", "diabetes as float32, 40 labels",
             lambda: (skd.load_diabetes().data.astype(np.float32), skd.load_diabetes().target), n_random=-40),
        Case("reg_scale", "diabetes with feature j multiplied by 10^(j-5), 40 labels",
             lambda: (skd.load_diabetes().data * 10.0 ** (np.arange(10) - 5), skd.load_diabetes().target),
             n_random=-40),
        Case("big_reg", "friedman1 6000 x 10, 300 labels", lambda: skd.make_friedman1(6000, noise=0.5, random_state=0),
             n_random=-300, seeds=1),
    ]
    return out


def draw_labels(case, y, seed):
    """y_partial (as the user passes it) and the labeled indices."""
    n = len(y)
    if case.regression:
        lab = np.sort(np.random.default_rng(seed).choice(n, -case.n_random, replace=False))
        yp = np.full(np.shape(y), np.nan)
        yp[lab] = np.asarray(y)[lab]
        return yp, lab
    yv = np.asarray(y)
    if case.per_class is not None:
        yp, lab = sample_labels(yv, case.per_class, random_state=seed)
    else:
        lab = np.sort(np.random.default_rng(seed).choice(n, case.n_random, replace=False))
        yp = yv.astype(object) if yv.dtype.kind in "OUS" else yv.copy()
        mask = np.ones(n, bool)
        mask[lab] = False
        yp[mask] = -1
    if hasattr(y, "iloc"):  # keep the pandas type of y
        import pandas as pd
        yp = pd.Series(yp, index=y.index, name=y.name)
    return yp, lab


def score(y, p, un, regression):
    """Accuracy, or per-column R^2, on the unlabeled points."""
    y, p = np.asarray(y), np.asarray(p)
    if regression:
        Y = y.reshape(len(y), -1)[un].astype(float)
        P = p.reshape(len(p), -1)[un].astype(float)
        if P.shape != Y.shape:
            return None, f"prediction shape {p.shape} for target {y.shape}"
        return [1 - ((P[:, j] - Y[:, j]) ** 2).mean() / Y[:, j].var() for j in range(Y.shape[1])], None
    return [float(np.mean(p[un] == y[un]))], None


class _Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise _Timeout()


def run_one(make_estimator, X, yp, y, un, regression, timeout):
    """(scores, seconds, note, warnings) of one fit."""
    t0 = time.perf_counter()
    note = ""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        signal.signal(signal.SIGALRM, _alarm)
        signal.alarm(timeout)
        try:
            m = make_estimator().fit(X, yp)
            p = m.predict(X)
        except _Timeout:
            return None, time.perf_counter() - t0, f"TIMEOUT > {timeout}s", []
        except Exception as e:  # noqa: BLE001 -- the survey records every failure
            return None, time.perf_counter() - t0, f"ERROR {type(e).__name__}: {str(e)[:300]}", []
        finally:
            signal.alarm(0)
    dt = time.perf_counter() - t0
    p = np.asarray(p)
    if p.dtype.kind in "fc" and not np.all(np.isfinite(p)):
        note = f"NON-FINITE prediction ({int((~np.isfinite(p)).sum())} entries)"
    elif not regression and len(np.unique(p[un].astype(str))) == 1 and len(np.unique(np.asarray(y)[un].astype(str))) > 1:
        note = f"ONE CLASS everywhere ({p[un][0]!r})"
    s, err = score(y, p, un, regression)
    if err:
        return None, dt, "BAD SHAPE " + err, []
    ws = sorted({f"{x.category.__name__}@{os.path.basename(x.filename)}:{x.lineno}: {str(x.message)[:160]}"
                 for x in w if "graphrkhs" in getattr(x.category, "__module__", "") or "graphrkhs" in x.filename})
    return s, dt, note, ws


def anchors(regression, lab):
    l = len(lab)
    if regression:
        return {"anchor:KNN": lambda: _KNNOnLabeled(KNeighborsRegressor(n_neighbors=min(5, l)), True)}
    return {"anchor:LabelSpreading": lambda: _Encoded(LabelSpreading(kernel="knn")),
            "anchor:KNN": lambda: _KNNOnLabeled(KNeighborsClassifier(n_neighbors=min(5, l)), False)}


def _is_unlabeled(yp, regression):
    a = np.asarray(yp, dtype=object) if not regression else np.asarray(yp, float)
    if regression:
        return np.isnan(a.reshape(len(a), -1)).all(axis=1)
    return np.array([v is None or (isinstance(v, float) and np.isnan(v)) or (not isinstance(v, str) and v == -1)
                     for v in a])


class _KNNOnLabeled:
    """scikit-learn k-NN fitted on the labeled rows only."""

    def __init__(self, est, regression):
        self.est, self.regression = est, regression

    def fit(self, X, yp):
        X = np.asarray(X, float)
        keep = ~_is_unlabeled(yp, self.regression)
        y = np.asarray(yp)[keep]
        self.est.fit(X[keep], y.astype(float) if self.regression else y)
        return self

    def predict(self, X):
        return self.est.predict(np.asarray(X, float))


class _Encoded:
    """scikit-learn LabelSpreading on integer codes (it reads -1 as unlabeled)."""

    def __init__(self, est):
        self.est = est

    def fit(self, X, yp):
        unl = _is_unlabeled(yp, False)
        vals = np.asarray(list(np.asarray(yp, dtype=object)[~unl]))  # the labels' own type
        self.classes_, codes = np.unique(vals, return_inverse=True)
        y = np.full(len(unl), -1)
        y[~unl] = codes
        self.est.fit(np.asarray(X, float), y)
        return self

    def predict(self, X):
        return self.classes_[self.est.predict(np.asarray(X, float))]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", default="")
    ap.add_argument("--estimators", default="")
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--margin", type=float, default=0.15)
    ap.add_argument("--timeout", type=int, default=600, help="seconds per fit before it is recorded as TIMEOUT")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "default_fits.md"))
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args(argv)
    all_cases = cases()
    if a.list:
        for c in all_cases:
            print(f"{c.name:12s} {c.about}")
        return
    chosen = [c for c in all_cases if not a.cases or c.name in a.cases.split(",")]
    names = [n for n in g.__all__ if n.endswith(("Classifier", "Regressor"))]
    if a.estimators:
        names = [n for n in names if n in a.estimators.split(",")]
    lines = ["# Default fits on demanding data (`benchmarks/default_fits.py`)", "",
             f"numpy {np.__version__}; seeds {a.seeds}; flag margin {a.margin}. Score: accuracy / R^2 (smallest "
             "column) on the unlabeled points, mean over seeds; `!` marks a flagged row.", ""]
    for case in chosen:
        try:
            X, y = case.make()
        except (FileNotFoundError, ImportError) as e:
            print(f"{case.name}: left out ({e})")
            lines += [f"## {case.name}: left out ({type(e).__name__}: {e})", ""]
            continue
        reg = case.regression
        rows = {}
        for seed in range(case.seeds or a.seeds):
            yp, lab = draw_labels(case, y, seed)
            un = np.ones(len(y), bool)
            un[lab] = False
            ests = {n: getattr(g, n) for n in names if n.endswith("Regressor") == reg}
            ests.update(anchors(reg, lab))
            for n, make in ests.items():
                s, dt, note, ws = run_one(make, X, yp, y, un, reg, a.timeout)
                r = rows.setdefault(n, {"s": [], "t": [], "notes": set(), "ws": set()})
                if s is not None:
                    r["s"].append(s)
                r["t"].append(dt)
                if note:
                    r["notes"].add(note)
                r["ws"] |= set(ws)
                sc = "   --  " if s is None else " ".join(f"{v:7.4f}" for v in s)
                print(f"{case.name:11s} {n:34s} {seed} {sc} {dt:7.2f}s {note} {len(ws)} warnings", flush=True)
                for x in ws:
                    print("        ", x, flush=True)
        # summary and flags
        mean = {n: (np.mean([min(s) for s in r["s"]]) if r["s"] else np.nan) for n, r in rows.items()}
        ours = [v for n, v in mean.items() if not n.startswith("anchor") and np.isfinite(v)]
        anc = [v for n, v in mean.items() if n.startswith("anchor") and np.isfinite(v)]
        ref = min(max(anc) if anc else np.inf, np.median(ours) if ours else np.inf)
        lines += [f"## {case.name}: {case.about}", "",
                  f"anchors best {max(anc) if anc else float('nan'):.3f}, library median "
                  f"{np.median(ours) if ours else float('nan'):.3f}", "",
                  "| estimator | score | per column / seed | median s | notes | graphrkhs warnings |",
                  "|---|---|---|---|---|---|"]
        for n, r in rows.items():
            v = mean[n]
            flag = (not n.startswith("anchor")) and (not np.isfinite(v) or v < ref - a.margin or any(
                k.startswith(("ERROR", "NON-FINITE", "ONE CLASS", "TIMEOUT", "BAD")) for k in r["notes"]))
            per = "; ".join(" ".join(f"{x:.3f}" for x in s) for s in r["s"])
            lines.append(f"| {'! ' if flag else ''}{n} | {v:.3f} | {per} | {np.median(r['t']):.2f} | "
                         f"{'; '.join(sorted(r['notes']))[:300]} | {'<br>'.join(sorted(r['ws']))[:600]} |")
        lines.append("")
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("wrote", a.out)


if __name__ == "__main__":
    main()
