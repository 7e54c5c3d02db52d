"""``graphrkhs label``: label the unlabeled rows of a user's CSV or .npz file.

Reading and writing use the standard library's :mod:`csv` (no pandas
dependency).  Every user error is a :class:`LabelCommandError` whose message
is printed as one line with exit code 2.
"""

import csv
import math
import os
import sys
import time

import numpy as np

__all__ = []

MISSING = {"", "nan", "NaN", "NAN", "na", "NA", "N/A", "null", "None"}


class LabelCommandError(Exception):
    """A user error of ``graphrkhs label`` (one line, exit code 2)."""


def _read_csv(path):
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            reader = csv.reader(f)
            try:
                header = next(reader)
            except StopIteration:
                raise LabelCommandError(f"{path}: the file is empty (no header row).") from None
            rows = [r for r in reader if any(cell.strip() for cell in r)]
    except UnicodeDecodeError as exc:
        raise LabelCommandError(f"{path}: not a UTF-8 text CSV file ({exc.reason}).") from None
    header = [h.strip() for h in header]
    if len(set(header)) != len(header):
        dup = sorted({h for h in header if header.count(h) > 1})
        raise LabelCommandError(f"{path}: duplicate column name(s) {', '.join(dup)} in the header.")
    for i, r in enumerate(rows):
        if len(r) != len(header):
            raise LabelCommandError(
                f"{path}: row {i + 2} has {len(r)} cells but the header has {len(header)} columns."
            )
    return header, rows


def _read_npz(path, label_column):
    with np.load(path, allow_pickle=False) as data:
        keys = list(data.keys())
        if label_column not in keys:
            raise LabelCommandError(
                f"unknown column {label_column!r}: {path} holds arrays {', '.join(keys)}."
            )
        y = data[label_column]
        feature_keys = [k for k in keys if k != label_column]
        if "X" in feature_keys:
            X = data["X"]
            names = [f"x{j}" for j in range(X.shape[1] if X.ndim == 2 else 1)]
        else:
            cols = [data[k] for k in feature_keys]
            if not cols:
                raise LabelCommandError(f"{path} has no feature arrays besides {label_column!r}.")
            X = np.column_stack(cols)
            names = feature_keys
    if X.ndim == 1:
        X = X[:, None]
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise LabelCommandError(
            f"{path}: {label_column!r} must be 1-D with one entry per row of the features ({X.shape[0]})."
        )
    header = names + [label_column]
    labels = ["" if (isinstance(v, float) and math.isnan(v)) else str(v) for v in y.tolist()]
    rows = [[repr(float(v)) for v in x] + [lab] for x, lab in zip(X.tolist(), labels)]
    return header, rows


def _parse_features(header, rows, feature_names, path):
    index = [header.index(c) for c in feature_names]
    n = len(rows)
    X = np.empty((n, len(index)))
    for j, col in enumerate(index):
        cells = [r[col].strip() for r in rows]
        try:
            X[:, j] = np.array(cells, dtype=np.float64)
        except ValueError:
            bad = next(i for i, c in enumerate(cells) if not _is_number(c))
            raise LabelCommandError(
                f"{path}: non-numeric feature cell {cells[bad]!r} in column {header[col]!r}, row {bad + 2}; "
                "features must be numbers (choose numeric columns with --features)."
            ) from None
    if not np.isfinite(X).all():
        i, j = np.argwhere(~np.isfinite(X))[0]
        raise LabelCommandError(
            f"{path}: missing or infinite feature value in column {feature_names[j]!r}, row {i + 2}; "
            "impute or drop such rows first."
        )
    return X


def _is_number(cell):
    try:
        float(cell)
        return True
    except ValueError:
        return False


def run_label(args, out=None, err=None):
    """Carry out ``graphrkhs label`` for parsed arguments; returns the summary dict."""
    out = sys.stdout if out is None else out
    err = sys.stderr if err is None else err
    from ..graphs import knn_graph

    path = args.input
    if not os.path.exists(path):
        raise LabelCommandError(f"input file not found: {path}")
    if os.path.isdir(path):
        raise LabelCommandError(f"input is a directory, not a file: {path}")
    is_npz = path.lower().endswith(".npz")
    output = args.output or (os.path.splitext(path)[0] + ".labeled.csv")
    if os.path.abspath(output) == os.path.abspath(path):
        raise LabelCommandError("the output path is the input file; graphrkhs label never overwrites its input.")
    if os.path.exists(output) and not args.force:
        raise LabelCommandError(f"output file exists: {output} (pass --force to overwrite it).")
    if args.neighbors < 1:
        raise LabelCommandError(f"--neighbors must be at least 1; got {args.neighbors}.")

    header, rows = _read_npz(path, args.label_column) if is_npz else _read_csv(path)
    if args.label_column not in header:
        raise LabelCommandError(
            f"unknown column {args.label_column!r}; the columns are: {', '.join(header)}."
        )
    if not rows:
        raise LabelCommandError(f"{path} has a header but no data rows.")
    label_idx = header.index(args.label_column)
    if args.features:
        features = [c.strip() for c in args.features.split(",") if c.strip()]
        unknown = [c for c in features if c not in header]
        if unknown:
            raise LabelCommandError(f"unknown feature column(s) {', '.join(unknown)}; the columns are: {', '.join(header)}.")
        if args.label_column in features:
            raise LabelCommandError(f"the label column {args.label_column!r} cannot also be a feature.")
    else:
        features = [c for c in header if c != args.label_column]
    if not features:
        raise LabelCommandError("no feature columns: the file has only the label column.")
    X = _parse_features(header, rows, features, path)
    n = X.shape[0]
    raw_labels = [r[label_idx].strip() for r in rows]
    labeled = np.array([lab not in MISSING for lab in raw_labels])
    if not labeled.any():
        raise LabelCommandError(f"no labeled rows: every cell of column {args.label_column!r} is empty or NaN.")
    classes = sorted({lab for lab, m in zip(raw_labels, labeled) if m}, key=_class_sort_key)
    if len(classes) < 2:
        raise LabelCommandError(
            f"only one class ({classes[0]!r}) among the labeled rows; labeling needs at least two classes."
        )
    if n - labeled.sum() == 0:
        print("note: every row is already labeled; predictions are the fitted values.", file=err)
    k = min(args.neighbors, n - 1)
    if k < 1:
        raise LabelCommandError("the file needs at least two rows.")

    if not args.no_standardize:
        mean = X.mean(axis=0)
        std = X.std(axis=0)
        X = (X - mean) / np.where(std > 0, std, 1.0)

    t0 = time.perf_counter()
    verbose = n >= 20000
    W = knn_graph(X, k, weight="self-tuning", verbose=verbose)
    codes = np.full(n, -1)
    lookup = {c: i for i, c in enumerate(classes)}
    codes[labeled] = [lookup[lab] for lab in np.array(raw_labels, dtype=object)[labeled]]
    scores = _label_scores(args.method, W, codes, len(classes))
    elapsed = time.perf_counter() - t0

    probs = _scores_to_confidence(scores)
    pred = probs.argmax(axis=1)
    confidence = probs.max(axis=1)
    pred_labels = np.array(classes, dtype=object)[pred]

    out_header = header + [f"predicted_{args.label_column}", "confidence"]
    with open(output, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(out_header)
        for r, p, c in zip(rows, pred_labels, confidence):
            writer.writerow(list(r) + [p, f"{c:.4f}"])

    counts = {c: int(np.sum(codes == i)) for i, c in enumerate(classes)}
    print(f"graphrkhs label: {n} rows, {int(labeled.sum())} labeled, {len(classes)} classes, "
          f"method {args.method}, {len(features)} feature(s) "
          f"({'standardized' if not args.no_standardize else 'raw'}), kNN graph k = {k}; "
          f"{elapsed:.2f} s", file=out)
    print("labeled per class: " + ", ".join(f"{c}: {m}" for c, m in counts.items()), file=out)
    if args.labels_per_class_report:
        predicted = {c: int(np.sum(pred == i)) for i, c in enumerate(classes)}
        width = max(len(str(c)) for c in classes)
        print(f"\n{'class':<{width}}  {'labeled':>8}  {'predicted':>9}  {'mean confidence':>15}", file=out)
        for i, c in enumerate(classes):
            sel = pred == i
            mc = f"{confidence[sel].mean():.3f}" if sel.any() else "-"
            print(f"{c:<{width}}  {counts[c]:>8}  {predicted[c]:>9}  {mc:>15}", file=out)
    print(f"wrote {output}", file=out)
    return {"n": n, "labeled": int(labeled.sum()), "classes": classes, "output": output}


def _scores_to_confidence(scores):
    """Per-row class shares in [0, 1] summing to 1.

    Harmonic / Tikhonov scores are already non-negative class weights; Poisson
    and ridge scores are signed potentials, shifted per row so that the least
    likely class has share 0.  A row of equal scores gets the uniform share.
    """
    scores = np.asarray(scores, dtype=np.float64)
    shifted = scores - np.minimum(scores.min(axis=1, keepdims=True), 0.0)
    total = shifted.sum(axis=1, keepdims=True)
    uniform = np.full_like(shifted, 1.0 / shifted.shape[1])
    return np.where(total > 0, shifted / np.where(total > 0, total, 1.0), uniform)


def _class_sort_key(label):
    try:
        return (0, float(label), label)
    except ValueError:
        return (1, 0.0, label)


LABEL_METHODS = ("laplace", "poisson", "tikhonov", "kernel-ridge")


def _label_scores(method, W, codes, n_classes):
    """(n, n_classes) class scores of every row by the chosen transductive method."""
    from .._core.labels import one_hot
    from ..solvers import harmonic_solution

    labeled = codes >= 0
    if method == "laplace":
        return harmonic_solution(W, np.flatnonzero(labeled), one_hot(codes[labeled], n_classes))
    from .. import estimators as transductive

    estimator = {
        "poisson": "PoissonLearningClassifier",
        "tikhonov": "LaplacianRegularizationClassifier",
        "kernel-ridge": "GraphKernelRidgeClassifier",
    }[method]
    cls = getattr(transductive, estimator, None)
    if cls is None:
        raise LabelCommandError(f"method {method!r} is not available in this version; use 'laplace'.")
    model = cls(graph="precomputed").fit(W, codes)
    scores = np.asarray(model.label_distributions_, dtype=np.float64)
    # label_distributions_ columns follow classes_ (the codes 0..n_classes-1 present).
    full = np.zeros((W.shape[0], n_classes))
    full[:, np.asarray(model.classes_, dtype=int)] = scores
    return full
